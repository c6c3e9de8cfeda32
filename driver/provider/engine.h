// The provider's handle on the simulated NIC: one Device backend per process
// (shared by every context opened on it, as one NIC is shared on a host),
// programmed once from the launcher's configuration, attached to the wire,
// and clocked by the simulation thread.
//
// Threading. Every Device call happens under one mutex (mu_). The
// simulation thread runs Device::run() in slices while the engine is busy;
// when it is idle the thread sleeps in poll() on the wire's socket and an
// eventfd that every verb touching the engine kicks. Verbs waiting for the
// mutex get it between slices (waiters_), so on a 2-core machine neither
// side starves the other. Completion and CQ-error events are dispatched from
// this thread. poll_cq never takes the mutex: it reads the CQ ring in host
// memory, and the consumer index reaches the engine (CQ_DB_CI) before every
// doorbell and every slice, so the engine never sees a CQ fuller than the
// application has left it.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "config.h"
#include "hw_counters.h"
#include "knob_watch.h"
#include "device.h"
#include "gen/roce_spec.h"
#include "resources.h"

namespace rocenic::wire {
class Wire;
}

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

struct CqState;
struct QpState;

// errno of a command status (docs/engine.md cmd_status).
int cmd_errno(uint32_t status);

class Engine {
 public:
  struct OpenOptions {
    bool join_wire = true;  // false: no wire (tests); frames the engine sends are dropped
  };
  // Creates the backend, checks that it is a rocenic engine (ID), programs
  // the port (MAC, MTU, every GID entry, link up), joins the wire and starts
  // the simulation thread. On failure returns nullptr with *err saying why
  // and *errnum an errno (EINVAL: bad backend or configuration; EIO: the
  // engine refused an access; EADDRINUSE etc.: the wire refused to join).
  static std::unique_ptr<Engine> open(const std::string& backend, const Config& cfg, std::string* err, int* errnum);
  static std::unique_ptr<Engine> open_device(std::unique_ptr<Device> dev, const Config& cfg, const OpenOptions& o,
                                             std::string* err, int* errnum);
  ~Engine();
  // Stops the simulation thread, leaves the wire, and for cosim prints the
  // comparison summary on stderr. Idempotent; also run at process exit.
  void shutdown();

  const Config& config() const { return cfg_; }
  const char* backend() const { return dev_->backend(); }
  const Caps& caps() const { return caps_; }  // read at open: the CAP_* registers are constant

  // false when the engine answers SLVERR.
  bool read_caps(Caps* caps);
  bool read_port(PortStatus* port);
  bool csr_read(uint32_t addr, uint32_t* v);

  // The command mailbox: writes arg_bytes of args into CMD_ARG, starts op,
  // waits for CMD_STATUS. Returns 0 (res filled) or an errno: the status
  // mapped by cmd_errno, EIO when the engine refuses a CSR access, does not
  // finish, or has failed.
  int command(spec::CmdOp op, const uint8_t* args, size_t arg_bytes, uint32_t res[4]);
  // The same for a command whose one argument is arg0 (a PD, CQ, QP or key).
  int command(spec::CmdOp op, uint32_t arg0, uint32_t res[4]);
  // A doorbell (SQ_DB / RQ_DB): consumer indices first, then the write.
  int doorbell(uint32_t csr, uint32_t value);
  // The low-latency post path (ConnectX's BlueFlame): send WQE pi - 1, also
  // in the ring at `wqe`, written through the SQ_BF window (the words the
  // engine reads of it), then SQ_BF_DB: the engine need not fetch it.
  int doorbell_bf(uint32_t qpn, uint16_t pi, const uint8_t* wqe, bool ud);
  // Arms a CQ (1 next completion, 2 next solicited) with its consumer index.
  int arm_cq(CqState* cq, unsigned arm);

  // Host memory the engine may reach (counted per registration).
  void dma_allow(uint64_t addr, uint64_t len);
  void dma_revoke(uint64_t addr, uint64_t len);
  bool mtt_alloc(uint32_t n, uint32_t* base);
  void mtt_free(uint32_t base, uint32_t n);

  // CQs the engine may raise events for, and whose consumer index it must learn.
  void add_cq(CqState* cq);
  void remove_cq(CqState* cq);
  // QPs by number, for poll_cq (callers hold the CQ locks, see qp.cc).
  void set_qp(uint32_t qpn, QpState* qp);
  QpState* qp(uint32_t qpn) const;

  // The destination MAC for a destination GID, as ARP/ND would find it:
  // link-local GIDs carry it (EUI-64), multicast maps to multicast MACs,
  // anything else is looked up in the wire's neighbour table. 0, or
  // ETIMEDOUT (what the kernel answers when no neighbour replies) with *err.
  int resolve_dmac(const Gid& dgid, Mac* mac, std::string* err);

  // Before an RC QP that may still answer is destroyed: waits (at most
  // kPeerWaitBudget per engine, all destroys together) while another member
  // of the wire waits on a transport timer. That peer may be waiting for an
  // ACK of this QP that the wire lost: the QP, still alive, answers the
  // retransmission. Without this the last request of a program such as
  // ibv_rc_pingpong, whose peer exits right after, fails RETRY_EXC_ERR on a
  // lossy wire. Simulated time stands still meanwhile, so this only picks a
  // run in which the program destroyed its QP a little later.
  void await_waiting_peers();
  static constexpr auto kPeerWaitBudget = std::chrono::seconds(3);

  // The engine stopped (cosim divergence, backend fault): verbs answer EIO.
  bool failed() const { return failed_.load(std::memory_order_acquire); }

  std::string dump_gid_table();

  // The traffic class a traffic_class rule gives a QP from sgid to dgid, or
  // -1: the QP's own (the global value is the engine's TX_TCLASS).
  int knob_tclass(const Gid& sgid, const Gid& dgid);

  // Test hooks.
  Device& device() { return *dev_; }
  wire::Wire* wire() { return wire_.get(); }
  // Waits (bounded) until the engine is idle with nothing left to send.
  bool wait_idle(unsigned timeout_ms);

 private:
  class Lock;
  Engine(std::unique_ptr<Device> dev, const Config& cfg);
  bool program(std::string* err, int* errnum);
  // The GID table into the engine: cfg_'s entries, or every entry unused
  // (roce_enable 0). false: the engine refused a write.
  bool write_gids_locked(bool enabled);
  // The knobs into the engine (TX_TCLASS, TX_TTL, CTRL.ROCE_ENABLE and the
  // GID table) and, for roce_enable, the tree's GID files.
  void apply_knobs_locked(bool gids_changed);
  void watch_knobs_locked();  // sim thread: the knob files, every KnobWatch::kPeriod
  bool read_locked(uint32_t addr, uint32_t* v);
  void sync_cis_locked();
  void fail_locked(const std::string& why);
  void kick();
  void trace(const char* fmt, ...) __attribute__((format(printf, 2, 3)));

  // sim_thread.cc
  void start_thread();
  void loop();
  void dispatch_locked(const std::vector<DeviceEvent>& events);
  // Sleeps until a frame, a doorbell or (with a transport timer armed,
  // `timer`) the wire going quiet; true when the timer may expire now.
  bool sleep_until_work(bool timer);
  void expire_timer();

  std::mutex mu_;                       // every Device call, cqs_, windows_, mtt_
  std::atomic<int> waiters_{0};         // verbs waiting for mu_
  std::atomic<bool> sleeping_{false};   // the simulation thread is (about to be) in poll()
  std::atomic<bool> stop_{false};
  std::atomic<bool> failed_{false};
  // The device's simulated time, published under mu_ for the wire's capture
  // clock (the sim thread receives frames without holding mu_).
  std::atomic<uint64_t> now_ns_{0};
  std::unique_ptr<Device> dev_;
  Config cfg_;
  Caps caps_;
  std::unique_ptr<wire::Wire> wire_;
  std::vector<CqState*> cqs_;
  std::vector<std::atomic<QpState*>> qps_;
  MttAllocator mtt_;
  DmaWindows windows_;
  int event_fd_ = -1;
  std::chrono::steady_clock::duration peer_wait_spent_{};  // of kPeerWaitBudget (destroy_qp's caller thread)
  std::mutex peer_wait_mu_;
  bool trace_ = false;  // ROCENIC_TRACE=1: commands, doorbells, events and frames on stderr
  struct LoopStats {
    uint64_t iterations = 0, slices = 0, cycles = 0, run_ns = 0, run_cpu_ns = 0, sleeps = 0, sleep_ns = 0, rx_frames = 0,
             timer_jumps = 0;
  } stats_;  // the simulation thread's (printed at shutdown with ROCENIC_TRACE)
  std::thread thread_;
  bool shut_down_ = false;
  uint64_t bypass_frames_ = 0;
  HwCounterFiles hw_counters_{HwCounterFiles::default_dir()};  // ports/1/hw_counters in rocenic-run's tree
  PortCounters port_counters_;  // frames and bytes between the port and the wire (under mu_)
  uint64_t published_at_ = UINT64_MAX;  // the engine's cycle after the last counter publication
  KnobWatch knob_watch_{KnobWatch::default_root()};
  Knobs knobs_;  // as last applied (under mu_)
};

}  // namespace rocenic::driver
