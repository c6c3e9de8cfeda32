// librocenic: the libibverbs provider of the simulated rocenic NIC.
//
// Object layout (the rxe/mlx pattern: the provider wraps libibverbs' base
// objects in its own structs and finds them back with container_of):
//   RocenicDevice  wraps verbs_device   one per sysfs device; owns the Engine
//   RocenicContext wraps verbs_context  one per ibv_open_device
//   RocenicPd      wraps ibv_pd
// The wrappers stay standard-layout C structs (libibverbs calloc()s the
// context); C++ state hangs off them by pointer.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

#include "abi/verbs_provider.h"
#include "engine.h"

namespace rocenic::driver {

struct DeviceState {
  std::mutex mu;                   // guards engine creation
  std::unique_ptr<Engine> engine;  // created by the first alloc_context
};

struct RocenicDevice {
  verbs_device vdev;
  DeviceState* state;
};

struct ContextState {
  Engine* engine = nullptr;
  int async_event_wr = -1;  // write end of the pipe whose read end is async_fd
};

struct RocenicContext {
  ContextState* state;
  verbs_context vctx;
};

struct RocenicPd {
  ibv_pd pd;
  uint32_t pdn;
};

template <typename Outer, typename Member>
Outer* container_of(Member* m, size_t offset) {
  return reinterpret_cast<Outer*>(reinterpret_cast<char*>(m) - offset);
}

inline RocenicDevice* to_device(ibv_device* d) {
  return container_of<RocenicDevice>(container_of<verbs_device>(d, offsetof(verbs_device, device)),
                                     offsetof(RocenicDevice, vdev));
}
// ibv_context is the last member of verbs_context: container_of, never a cast.
inline RocenicContext* to_context(ibv_context* c) {
  return container_of<RocenicContext>(container_of<verbs_context>(c, offsetof(verbs_context, context)),
                                      offsetof(RocenicContext, vctx));
}
inline Engine* engine_of(ibv_context* c) { return to_context(c)->state->engine; }
inline RocenicPd* to_pd(ibv_pd* pd) { return container_of<RocenicPd>(pd, offsetof(RocenicPd, pd)); }

// ---- device and context life cycle (context.cc)
verbs_device* alloc_device(verbs_sysfs_dev* sysfs_dev);
void uninit_device(verbs_device* vdev);
verbs_context* alloc_context(ibv_device* ibdev, int cmd_fd, void* private_data);
void free_context(ibv_context* context);

// ---- verbs implemented in this step (query.cc, pd.cc)
int query_device_ex(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                    size_t attr_size);
int query_port(ibv_context* context, uint8_t port_num, ibv_port_attr* port_attr);
ibv_pd* alloc_pd(ibv_context* context);
int dealloc_pd(ibv_pd* pd);

// The full 76-entry ops table: the verbs above, every other entry a
// "not supported yet" stub (EOPNOTSUPP), none left NULL.
const verbs_context_ops& context_ops();

// Fixed device facts that have no CSR (documented in docs/driver.md).
constexpr uint32_t kVendorId = 0xFFFFFF;  // no IEEE OUI: a simulated device (as Soft-RoCE reports)
constexpr uint32_t kVendorPartId = 0;

}  // namespace rocenic::driver
