// librocenic: the libibverbs provider of the simulated rocenic NIC.
//
// Object layout (the rxe/mlx pattern: the provider wraps libibverbs' base
// objects in its own structs and finds them back with container_of):
//   RocenicDevice  wraps verbs_device   one per sysfs device; owns the Engine
//   RocenicContext wraps verbs_context  one per ibv_open_device
//   RocenicPd      wraps ibv_pd
//   RocenicMr      wraps verbs_mr       (libibverbs hands dereg_mr a verbs_mr)
//   RocenicCq      wraps ibv_cq
//   RocenicQp      wraps verbs_qp       (ibv_qp_to_qp_ex reads its comp_mask)
//   ibv_mw         as it is             (a window is its rkey; the engine holds the rest)
//   RocenicAh      wraps ibv_ah         (the resolved address a UD send names; host memory only)
// The wrappers stay standard-layout C structs (libibverbs calloc()s the
// context); C++ state hangs off them by pointer.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>

#include "abi/verbs_provider.h"
#include "engine.h"

namespace rocenic::driver {

struct DeviceState {
  std::mutex mu;                   // guards engine creation and contexts
  std::unique_ptr<Engine> engine;  // created by the first context, destroyed with the last
  unsigned contexts = 0;
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

struct MrState {
  uint32_t key = 0;
  uint32_t mtt_base = 0, npages = 0;
  uint64_t addr = 0, length = 0;  // the DMA window
  uint64_t iova = 0;              // where the region starts in its own address space (windows bind there)
};

struct RocenicMr {
  verbs_mr vmr;
  MrState* s;
};

// A completion queue: a ring of 2^lsz CQEs in this process's memory that the
// engine writes by DMA.
struct CqState {
  ibv_cq* ibcq = nullptr;
  uint32_t cqn = 0;
  uint8_t lsz = 0;
  uint32_t size = 0;
  uint8_t* ring = nullptr;
  std::atomic<uint32_t> ci{0};  // CQEs consumed, mod 2^24 (CQ_DB_CI)
  uint32_t reported_ci = 0;     // last CI written to the engine (under the engine mutex)
  int channel_wr = -1;          // completion channel: where events go (-1: none)
  int async_wr = -1;            // the context's async event pipe (CQ errors)
  std::mutex lock;              // poll_cq; destroy_qp takes it to retire its QP
};

struct RocenicCq {
  ibv_cq cq;
  CqState* s;
};

// A queue pair: send and receive rings of WQEs (512-byte slots) in process memory.
struct QpState {
  uint32_t qpn = 0;
  CqState* send_cq = nullptr;
  CqState* recv_cq = nullptr;
  uint8_t* sq = nullptr;
  uint8_t* rq = nullptr;
  uint8_t sq_lsz = 0, rq_lsz = 0;
  uint32_t sq_size = 0, rq_size = 0;
  bool sq_sig_all = false;
  bool ud = false;   // a UD QP: each send WQE carries its address vector (from an AH)
  ibv_qp_cap cap{};  // as reported to the application
  std::mutex sq_lock, rq_lock;
  uint16_t sq_pi = 0, rq_pi = 0;       // WQEs posted, mod 2^16 (the doorbell value)
  std::atomic<uint16_t> sq_ci{0};      // next WQE not yet completed (from CQEs)
  std::atomic<uint16_t> rq_ci{0};
  std::mutex attr_lock;                // attr, attr_mask: what modify_qp stored
  ibv_qp_attr attr{};
  // The ibv_wr_* builder (qp_ex.cc): between wr_start and wr_complete/abort
  // the sq_lock is held and WQEs go to slots from sq_pi on.
  uint16_t wr_pi = 0;
  int wr_err = 0;
  uint8_t* wr_cur = nullptr;     // the slot of the WQE being built
  void* wr_builder = nullptr;    // its contents (qp_ex.cc), for QPs made with send_ops_flags
};

struct RocenicQp {
  verbs_qp vqp;
  QpState* s;
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

// An address handle: the destination as ibv_create_ah resolved it (the GRH
// fields, and the destination MAC as ARP/ND would find it). A UD send WQE
// carries it; the engine keeps no AH table.
struct AhState {
  Gid dgid{};
  Mac dmac{};
  uint8_t sgid_index = 0, sl = 0, traffic_class = 0, hop_limit = 0;
  uint32_t flow_label = 0;
};
struct RocenicAh {
  ibv_ah ah;
  AhState av;
};
inline RocenicAh* to_ah(ibv_ah* ah) { return container_of<RocenicAh>(ah, offsetof(RocenicAh, ah)); }
// A UD send WQE's address vector: the AH's, the destination QP and Q_Key (ah.cc).
void put_ud_av(const AhState& av, uint32_t remote_qpn, uint32_t remote_qkey, spec::SendWqe* w);
// What the kernel resolves in a RoCE address vector (an AH, a QP's path)
// before a provider sees it (ah.cc): 0 or an errno (err says why).
struct ResolvedAv {
  Mac dmac{};
  uint8_t hop_limit = 0, traffic_class = 0;
};
int resolve_av(Engine* eng, const ibv_global_route& grh, ResolvedAv* out, std::string* err);
inline RocenicMr* to_mr(verbs_mr* m) { return container_of<RocenicMr>(m, offsetof(RocenicMr, vmr)); }
inline RocenicCq* to_cq(ibv_cq* cq) { return container_of<RocenicCq>(cq, offsetof(RocenicCq, cq)); }
inline RocenicQp* to_qp(ibv_qp* qp) {
  return container_of<RocenicQp>(container_of<verbs_qp>(qp, offsetof(verbs_qp, qp)), offsetof(RocenicQp, vqp));
}

// ---- device and context life cycle (context.cc)
verbs_device* alloc_device(verbs_sysfs_dev* sysfs_dev);
void uninit_device(verbs_device* vdev);
verbs_context* alloc_context(ibv_device* ibdev, int cmd_fd, void* private_data);
void free_context(ibv_context* context);

// ---- verbs (query.cc, pd.cc, mr.cc, cq.cc, qp.cc, post.cc)
int query_device_ex(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                    size_t attr_size);
int query_port(ibv_context* context, uint8_t port_num, ibv_port_attr* port_attr);
ibv_pd* alloc_pd(ibv_context* context);
ibv_ah* create_ah(ibv_pd* pd, ibv_ah_attr* attr);
int destroy_ah(ibv_ah* ah);
int dealloc_pd(ibv_pd* pd);
ibv_mr* reg_mr(ibv_pd* pd, void* addr, size_t length, uint64_t hca_va, int access);
int dereg_mr(verbs_mr* vmr);
ibv_cq* create_cq(ibv_context* context, int cqe, ibv_comp_channel* channel, int comp_vector);
int destroy_cq(ibv_cq* cq);
int poll_cq(ibv_cq* cq, int num_entries, ibv_wc* wc);
int req_notify_cq(ibv_cq* cq, int solicited_only);
void cq_event(ibv_cq* cq);
ibv_qp* create_qp(ibv_pd* pd, ibv_qp_init_attr* attr);
ibv_qp* create_qp_ex(ibv_context* context, ibv_qp_init_attr_ex* attr);
void free_wr_builder(QpState* s);
int destroy_qp(ibv_qp* qp);
int modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask);
int query_qp(ibv_qp* qp, ibv_qp_attr* attr, int attr_mask, ibv_qp_init_attr* init_attr);
int post_send(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);
int post_recv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);

// ---- memory windows (mw.cc)
ibv_mw* alloc_mw(ibv_pd* pd, ibv_mw_type type);
int dealloc_mw(ibv_mw* mw);
int bind_mw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* mw_bind);
// A BIND_MW work request as both post paths check it (docs/driver.md): 0 or
// an errno. The checks on the MR itself are the engine's (MW_BIND_ERR).
int check_bind_wr(const ibv_qp* qp, const ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info& info);
// Its WQE fields (layouts.md send_wqe, BIND_MW): rkey, range, MR, rights;
// the window remembers the rkey for DEALLOC_MW (mw.cc).
void put_bind(ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info& info, spec::SendWqe* w);

// The full 76-entry ops table: the verbs above, every other entry a
// "not supported yet" stub (EOPNOTSUPP), none left NULL.
const verbs_context_ops& context_ops();

// Fixed device facts that have no CSR (documented in docs/driver.md).
constexpr uint32_t kVendorId = 0xFFFFFF;  // no IEEE OUI: a simulated device (as Soft-RoCE reports)
constexpr uint32_t kVendorPartId = 0;

// Host memory for rings: zeroed, page aligned; nullptr when out of memory.
uint8_t* alloc_ring(size_t bytes);
void free_ring(uint8_t* ring);
// The smallest n with 2^n >= v (v >= 1).
unsigned log2_ceil(uint32_t v);

}  // namespace rocenic::driver
