// The provider's handle on the simulated NIC: one Device backend per process
// (shared by every context opened on it, as one NIC is shared on a host),
// programmed once from the launcher's configuration. Everything the verbs
// report about the device and the port is read from the engine's CSRs here.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config.h"
#include "device.h"

namespace rocenic::driver {

// The capability registers (CSR CAP_*), read from the engine.
struct Caps {
  uint32_t version = 0;  // VERSION: major[15:8] minor[7:0]
  uint32_t max_qp = 0, max_cq = 0, max_mr = 0, max_pd = 0, max_qp_wr = 0, max_sge = 0, max_cqe = 0, max_inline = 0,
           gid_tbl_len = 0;
};

struct PortStatus {
  uint32_t state = 0;  // PORT_STATE: IBV_PORT_ACTIVE or IBV_PORT_DOWN
  uint32_t mtu = 0;    // PORT_MTU: IBV_MTU_*
};

class Engine {
 public:
  // Creates the backend, checks that it is a rocenic engine (ID), and
  // programs the port: MAC, MTU, the GID table (every entry: configured ones
  // and zero/unused for the rest), then link_up. On failure returns nullptr
  // with *err saying why and *errnum an errno value (EINVAL: bad backend or
  // configuration; EIO: the engine refused an access).
  static std::unique_ptr<Engine> open(const std::string& backend, const Config& cfg, std::string* err, int* errnum);

  const Config& config() const { return cfg_; }
  const char* backend() const { return dev_->backend(); }

  // false when the engine answers SLVERR.
  bool read_caps(Caps* caps);
  bool read_port(PortStatus* port);

  // Protection-domain numbers, bounded by CAP_MAX_PD (read at open).
  // false: every PD is in use.
  bool alloc_pdn(uint32_t* pdn);
  void free_pdn(uint32_t pdn);
  uint32_t pds_in_use();

  // The GID table as the engine holds it, read back with csr_read, one line
  // per entry: "rocenic: engine GID[i] type T xxxx:...:xxxx".
  std::string dump_gid_table();

 private:
  Engine(std::unique_ptr<Device> dev, const Config& cfg) : dev_(std::move(dev)), cfg_(cfg) {}
  bool read(uint32_t addr, uint32_t* v) { return dev_->csr_read(addr, v); }
  bool program(std::string* err, int* errnum);

  std::mutex mu_;  // one CSR transaction at a time; guards pd_used_
  std::unique_ptr<Device> dev_;
  Config cfg_;
  uint32_t gid_tbl_len_ = 0;
  std::vector<bool> pd_used_;
};

}  // namespace rocenic::driver
