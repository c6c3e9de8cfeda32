#include "engine.h"

#include <rdma/ib_user_verbs.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <set>
#include <stdexcept>

#include "common/sq_doorbell.h"
#include "engine_limits.h"
#include "provider.h"
#include "wire.h"

namespace rocenic::driver {
namespace {

constexpr uint32_t kGidEntryBytes = 32;  // GID[i] at CSR_GID + 32*i (docs/spec/csr.md)
constexpr uint32_t kGidTypeWord = 4;
constexpr uint32_t kGidVlanWord = 5;  // bit 12 tagged, 11:0 VID

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%x", v);
  return b;
}

// Engines alive in this process: shut down at exit (thread stopped, wire
// left, cosim summary printed) even if the program never closes its device.
std::mutex g_live_mu;
std::set<Engine*>* g_live = nullptr;

void shutdown_live_engines() {
  std::set<Engine*> live;
  {
    std::lock_guard<std::mutex> g(g_live_mu);
    if (g_live) live = *g_live;
  }
  for (Engine* e : live) e->shutdown();
}

void register_live(Engine* e) {
  std::lock_guard<std::mutex> g(g_live_mu);
  if (!g_live) {
    g_live = new std::set<Engine*>;
    std::atexit(shutdown_live_engines);
  }
  g_live->insert(e);
}

void unregister_live(Engine* e) {
  std::lock_guard<std::mutex> g(g_live_mu);
  if (g_live) g_live->erase(e);
}

// The IP addresses of the GID table (IPv4-mapped or IPv6), each once: what
// the port answers ARP/ND for.
std::vector<wire::Addr> port_addresses(const Config& cfg) {
  std::vector<wire::Addr> out;
  for (const GidEntry& g : cfg.gids) {
    if (g.gid[0] == 0xfe && (g.gid[1] & 0xc0) == 0x80) continue;  // link-local: from the MAC
    wire::Addr a;
    std::memcpy(a.data(), g.gid.data(), 16);
    bool seen = false;
    for (const wire::Addr& b : out) seen = seen || b == a;
    if (!seen) out.push_back(a);
  }
  return out;
}

}  // namespace

int cmd_errno(uint32_t status) {
  switch (static_cast<spec::CmdStatus>(status)) {
    case spec::CmdStatus::kOk: return 0;
    case spec::CmdStatus::kBadOp: return EOPNOTSUPP;
    case spec::CmdStatus::kBadParam: return EINVAL;
    case spec::CmdStatus::kNoResources: return ENOMEM;
    case spec::CmdStatus::kBadState: return EINVAL;
    case spec::CmdStatus::kBusy: return EBUSY;
    case spec::CmdStatus::kNotFound: return EINVAL;
  }
  return EIO;
}

// Verbs take the mutex through this: the simulation thread lets them in
// between slices, and a sleeping simulation thread is woken afterwards
// (what the verb did may have given the engine work).
class Engine::Lock {
 public:
  explicit Lock(Engine* e) : e_(e) {
    e_->waiters_.fetch_add(1, std::memory_order_relaxed);
    e_->mu_.lock();
    e_->waiters_.fetch_sub(1, std::memory_order_relaxed);
  }
  ~Lock() {
    e_->now_ns_.store(e_->dev_->now_ns(), std::memory_order_release);
    e_->mu_.unlock();
    if (e_->sleeping_.load(std::memory_order_acquire)) e_->kick();
  }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  Engine* e_;
};

Engine::Engine(std::unique_ptr<Device> dev, const Config& cfg)
    : dev_(std::move(dev)),
      cfg_(cfg),
      mtt_(kMttDepth),
      windows_([this](uint64_t a, uint64_t l) { dev_->dma_allow(a, l); },
               [this](uint64_t a, uint64_t l) { dev_->dma_revoke(a, l); }) {
  const char* t = std::getenv("ROCENIC_TRACE");
  trace_ = t && *t && *t != '0';
}

void Engine::trace(const char* fmt, ...) {
  if (!trace_) return;
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "rocenic: [%llu] %s\n", static_cast<unsigned long long>(dev_->cycles()), line);
}

std::unique_ptr<Engine> Engine::open(const std::string& backend, const Config& cfg, std::string* err, int* errnum) {
  std::unique_ptr<Device> dev;
  try {
    dev = make_device(backend);
  } catch (const std::invalid_argument& e) {
    *err = e.what();
    *errnum = EINVAL;
    return nullptr;
  } catch (const std::exception& e) {
    *err = std::string("cannot start the '") + backend + "' backend: " + e.what();
    *errnum = EIO;
    return nullptr;
  }
  return open_device(std::move(dev), cfg, OpenOptions{}, err, errnum);
}

std::unique_ptr<Engine> Engine::open_device(std::unique_ptr<Device> dev, const Config& cfg, const OpenOptions& o,
                                            std::string* err, int* errnum) {
  std::unique_ptr<Engine> eng(new Engine(std::move(dev), cfg));
  try {
    if (!eng->program(err, errnum)) return nullptr;
  } catch (const std::exception& e) {  // e.g. a CSR access the backend never answered
    *err = e.what();
    *errnum = EIO;
    return nullptr;
  }
  eng->qps_ = std::vector<std::atomic<QpState*>>(eng->caps_.max_qp + 1);
  if (o.join_wire) {
    wire::Wire::Options w;
    w.name = cfg.wire;
    std::memcpy(w.mac.data(), cfg.mac.data(), 6);
    w.addrs = port_addresses(cfg);
    w.pcap = cfg.pcap;
    w.faults = cfg.faults;
    Engine* self = eng.get();
    w.clock_ns = [self] { return self->now_ns_.load(std::memory_order_acquire); };
    try {
      eng->wire_ = wire::Wire::join(w);
    } catch (const wire::WireError& e) {
      *err = std::string("wire '") + cfg.wire + "': " + e.what();
      *errnum = e.errnum;
      return nullptr;
    }
  }
  Engine* raw = eng.get();
  eng->dev_->set_tx_sink([raw](const uint8_t* f, size_t n) {
    raw->trace("tx frame %zu bytes to %02x:%02x:%02x:%02x:%02x:%02x", n, f[0], f[1], f[2], f[3], f[4], f[5]);
    if (!raw->wire_) return;
    raw->now_ns_.store(raw->dev_->now_ns(), std::memory_order_release);  // the capture's stamp: now, in simulated time
    raw->port_counters_.xmit_bytes += n;  // (the sink runs inside a Device call: under mu_)
    ++raw->port_counters_.xmit_packets;
    if (f[0] & 1) ++raw->port_counters_.xmit_multicast;
    raw->wire_->send(f, n);
    if (raw->wire_->pending()) raw->kick();  // the simulation thread polls for the peer to drain
  });
  eng->dev_->set_bypass_sink([raw](const uint8_t*, size_t n) {
    raw->trace("bypass frame %zu bytes (dropped: no host Ethernet path)", n);
    ++raw->bypass_frames_;
  });
  eng->event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (eng->event_fd_ < 0) {
    *err = std::string("eventfd: ") + std::strerror(errno);
    *errnum = errno;
    return nullptr;
  }
  eng->start_thread();
  register_live(raw);
  *errnum = 0;
  return eng;
}

Engine::~Engine() {
  shutdown();
  unregister_live(this);
  if (event_fd_ >= 0) close(event_fd_);
}

void Engine::shutdown() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  stop_.store(true);
  if (thread_.joinable()) {
    kick();
    thread_.join();
  }
  {
    // the counters as the program leaves them
    std::lock_guard<std::mutex> g(mu_);
    if (!failed_) hw_counters_.publish([this](uint32_t a, uint32_t* v) { return read_locked(a, v); }, port_counters_);
  }
  wire_.reset();  // leaves the wire, completes the pcap
  trace("simulation thread: %llu iterations, %llu slices, %llu cycles in %.3f s wall, %.3f s CPU (%.0f cycles per "
        "CPU second), %llu sleeps (%.3f s), %llu frames in, %llu timer jumps",
        static_cast<unsigned long long>(stats_.iterations), static_cast<unsigned long long>(stats_.slices),
        static_cast<unsigned long long>(stats_.cycles), stats_.run_ns / 1e9, stats_.run_cpu_ns / 1e9,
        stats_.run_cpu_ns ? stats_.cycles / (stats_.run_cpu_ns / 1e9) : 0.0,
        static_cast<unsigned long long>(stats_.sleeps),
        stats_.sleep_ns / 1e9, static_cast<unsigned long long>(stats_.rx_frames),
        static_cast<unsigned long long>(stats_.timer_jumps));
  if (std::string(dev_->backend()) == "cosim") {
    const std::string d = dev_->divergence();
    std::fprintf(stderr, "rocenic: cosim: %llu transactions compared, %s\n",
                 static_cast<unsigned long long>(dev_->compared()),
                 d.empty() ? "0 divergences" : ("1 divergence: " + d).c_str());
  }
}

bool Engine::program(std::string* err, int* errnum) {
  std::lock_guard<std::mutex> lock(mu_);
  *errnum = EIO;  // the engine refused an access, unless the configuration is at fault
  auto rd = [&](uint32_t addr, uint32_t* v) {
    if (dev_->csr_read(addr, v)) return true;
    *err = "the engine refused a read of CSR " + hex32(addr);
    return false;
  };
  auto wr = [&](uint32_t addr, uint32_t v) {
    if (dev_->csr_write(addr, v)) return true;
    *err = "the engine refused writing " + hex32(v) + " to CSR " + hex32(addr);
    return false;
  };
  uint32_t id = 0;
  if (!rd(spec::kCsrId, &id)) return false;
  if (id != spec::kCsrIdReset) {
    *err = "the '" + std::string(dev_->backend()) + "' backend is not a rocenic engine (ID " + hex32(id) + ")";
    return false;
  }
  Caps& c = caps_;
  if (!rd(spec::kCsrVersion, &c.version) || !rd(spec::kCsrCapMaxQp, &c.max_qp) || !rd(spec::kCsrCapMaxCq, &c.max_cq) ||
      !rd(spec::kCsrCapMaxMr, &c.max_mr) || !rd(spec::kCsrCapMaxPd, &c.max_pd) ||
      !rd(spec::kCsrCapMaxQpWr, &c.max_qp_wr) || !rd(spec::kCsrCapMaxSge, &c.max_sge) ||
      !rd(spec::kCsrCapMaxCqe, &c.max_cqe) || !rd(spec::kCsrCapMaxInline, &c.max_inline) ||
      !rd(spec::kCsrCapGidTbl, &c.gid_tbl_len))
    return false;

  const Mac& m = cfg_.mac;
  const uint32_t mac_lo = uint32_t{m[2]} << 24 | uint32_t{m[3]} << 16 | uint32_t{m[4]} << 8 | m[5];
  const uint32_t mac_hi = uint32_t{m[0]} << 8 | m[1];
  if (!wr(spec::kCsrPortMacLo, mac_lo) || !wr(spec::kCsrPortMacHi, mac_hi)) return false;
  if (!mtu_enum(cfg_.mtu)) {
    *errnum = EINVAL;
    *err = "configured MTU " + std::to_string(cfg_.mtu) + " is not 256, 512, 1024, 2048 or 4096";
    return false;
  }
  if (!wr(spec::kCsrPortMtu, mtu_enum(cfg_.mtu))) return false;

  for (const GidEntry& g : cfg_.gids)
    if (g.index >= c.gid_tbl_len) {
      *errnum = EINVAL;
      *err = "configured GID index " + std::to_string(g.index) + " is beyond the engine's table of " +
             std::to_string(c.gid_tbl_len) + " entries";
      return false;
    }
  // The knobs rocenic-run (or rocenic-ctl since) left in the tree; a bad
  // file is reported and shows the default it got.
  if (std::string why; !knob_watch_.load(&knobs_, &why))
    std::fprintf(stderr, "rocenic: a knob file was refused: %s", why.c_str());
  if (!write_gids_locked(knobs_.roce_enable)) {
    *err = "the engine refused a write to its GID table";
    return false;
  }
  apply_knobs_locked(!knobs_.roce_enable);  // (roce_enable 0: the tree's GID files emptied too)
  return wr(spec::kCsrPortCtrl, 1);  // link_up: the MAC's link is up
}

bool Engine::write_gids_locked(bool enabled) {
  // The whole table: an entry the configuration does not list is cleared, so
  // the engine and the sysfs tree agree on every index.
  std::vector<const GidEntry*> by_index(caps_.gid_tbl_len, nullptr);
  for (const GidEntry& g : cfg_.gids)
    if (enabled && g.index < caps_.gid_tbl_len) by_index[g.index] = &g;
  for (uint32_t i = 0; i < caps_.gid_tbl_len; ++i) {
    const uint32_t base = spec::kCsrGid + kGidEntryBytes * i;
    const GidEntry* g = by_index[i];
    for (uint32_t w = 0; w < 4; ++w) {
      uint32_t word = 0;  // big-endian: word 0 = GID bytes 0..3
      if (g)
        for (uint32_t b = 0; b < 4; ++b) word = word << 8 | g->gid[4 * w + b];
      if (!dev_->csr_write(base + 4 * w, word)) return false;
    }
    if (!dev_->csr_write(base + 4 * kGidTypeWord, g ? static_cast<uint32_t>(g->type) : 0)) return false;
    if (!dev_->csr_write(base + 4 * kGidVlanWord, g ? gid_vlan_word(g->vlan) : 0)) return false;
  }
  return true;
}

void Engine::apply_knobs_locked(bool gids_changed) {
  const Knobs& k = knobs_;
  bool ok = dev_->csr_write(spec::kCsrTxTclass, k.global_tclass >= 0 ? 0x100u | static_cast<uint32_t>(k.global_tclass) : 0) &&
            dev_->csr_write(spec::kCsrTxTtl, k.ttl ? 0x100u | k.ttl : 0) &&
            dev_->csr_write(spec::kCsrCtrl, k.roce_enable ? 1u : 0u);  // CTRL bit 0: ROCE_ENABLE
  if (gids_changed) {
    ok = ok && write_gids_locked(k.roce_enable);  // (at open with roce_enable 0 the engine gets it twice: harmless)
    std::string why;
    if (!knob_watch_.root().empty() && !write_gid_files(knob_watch_.root(), cfg_, caps_.gid_tbl_len, k.roce_enable, &why))
      std::fprintf(stderr, "rocenic: roce_enable: %s\n", why.c_str());
  }
  if (!ok) fail_locked("the engine refused a knob's register write");
  trace("knobs: traffic_class %d (%zu rules), ttl %u, roce_enable %d", k.global_tclass, k.rules.size(), k.ttl,
        k.roce_enable);
}

void Engine::watch_knobs_locked() {
  const bool was_enabled = knobs_.roce_enable;
  std::string why;
  const bool changed = knob_watch_.poll(&knobs_, &why);
  if (!why.empty()) std::fprintf(stderr, "rocenic: a knob write was refused: %s", why.c_str());
  if (changed) apply_knobs_locked(knobs_.roce_enable != was_enabled);
}

int Engine::knob_tclass(const Gid& sgid, const Gid& dgid) {
  Lock l(this);
  return rule_tclass(knobs_, sgid, dgid);
}

bool Engine::read_locked(uint32_t addr, uint32_t* v) {
  try {
    return dev_->csr_read(addr, v);
  } catch (const std::exception& e) {
    fail_locked(std::string("CSR read failed: ") + e.what());
    return false;
  }
}

bool Engine::csr_read(uint32_t addr, uint32_t* v) {
  Lock l(this);
  return read_locked(addr, v);
}

bool Engine::read_caps(Caps* c) {
  Lock l(this);
  return read_locked(spec::kCsrVersion, &c->version) && read_locked(spec::kCsrCapMaxQp, &c->max_qp) &&
         read_locked(spec::kCsrCapMaxCq, &c->max_cq) && read_locked(spec::kCsrCapMaxMr, &c->max_mr) &&
         read_locked(spec::kCsrCapMaxPd, &c->max_pd) && read_locked(spec::kCsrCapMaxQpWr, &c->max_qp_wr) &&
         read_locked(spec::kCsrCapMaxSge, &c->max_sge) && read_locked(spec::kCsrCapMaxCqe, &c->max_cqe) &&
         read_locked(spec::kCsrCapMaxInline, &c->max_inline) && read_locked(spec::kCsrCapGidTbl, &c->gid_tbl_len);
}

bool Engine::read_port(PortStatus* p) {
  Lock l(this);
  return read_locked(spec::kCsrPortState, &p->state) && read_locked(spec::kCsrPortMtu, &p->mtu);
}

void Engine::fail_locked(const std::string& why) {
  if (failed_.exchange(true)) return;
  std::fprintf(stderr, "rocenic: the simulated NIC stopped: %s\n", why.c_str());
  // Wake whoever waits for a completion event: their next poll_cq reports EIO.
  for (CqState* cq : cqs_)
    if (cq->channel_wr >= 0) {
      ib_uverbs_comp_event_desc ev{};
      ev.cq_handle = reinterpret_cast<uintptr_t>(cq->ibcq);
      if (write(cq->channel_wr, &ev, sizeof ev) < 0) {
      }
    }
}

int Engine::command(spec::CmdOp op, const uint8_t* args, size_t arg_bytes, uint32_t res[4]) {
  Lock l(this);
  if (failed_) return EIO;
  try {
    const size_t words = (std::min<size_t>(arg_bytes, 64) + 3) / 4;
    for (size_t w = 0; w < words; ++w) {
      uint32_t v = 0;
      for (size_t b = 0; b < 4 && 4 * w + b < arg_bytes; ++b) v |= uint32_t{args[4 * w + b]} << (8 * b);
      if (!dev_->csr_write(spec::kCsrCmdArg + 4 * static_cast<uint32_t>(w), v)) return EIO;
    }
    if (!dev_->csr_write(spec::kCsrCmdOp, static_cast<uint32_t>(op))) return EIO;
    uint32_t st = kCmdBusy;
    for (unsigned i = 0; i < kCmdPolls && (st & kCmdBusy); ++i)
      if (!dev_->csr_read(spec::kCsrCmdStatus, &st)) return EIO;
    if (st & kCmdBusy) {
      fail_locked(std::string("command ") + spec::to_string(op) + " did not finish");
      return EIO;
    }
    const int e = cmd_errno(st & 0xff);
    if (e) {
      trace("command %s: status %u (%s)", spec::to_string(op), st & 0xff, std::strerror(e));
      return e;
    }
    for (uint32_t i = 0; i < 4; ++i)
      if (!dev_->csr_read(spec::kCsrCmdRes + 4 * i, &res[i])) return EIO;
    trace("command %s: ok, res %#x %#x %#x %#x", spec::to_string(op), res[0], res[1], res[2], res[3]);
    return 0;
  } catch (const std::exception& ex) {
    fail_locked(std::string("command ") + spec::to_string(op) + ": " + ex.what());
    return EIO;
  }
}

int Engine::command(spec::CmdOp op, uint32_t arg0, uint32_t res[4]) {
  uint8_t args[4];
  for (int i = 0; i < 4; ++i) args[i] = static_cast<uint8_t>(arg0 >> (8 * i));  // CMD_ARG word 0, little-endian
  return command(op, args, sizeof args, res);
}

void Engine::sync_cis_locked() {
  for (CqState* cq : cqs_) {
    const uint32_t ci = cq->ci.load(std::memory_order_acquire);
    if (ci == cq->reported_ci) continue;
    trace("CQ_DB cq %u ci %u", cq->cqn, ci);
    if (dev_->csr_write(spec::kCsrCqDbCi, ci) && dev_->csr_write(spec::kCsrCqDb, cq->cqn)) cq->reported_ci = ci;
  }
}

int Engine::doorbell(uint32_t csr, uint32_t value) {
  Lock l(this);
  if (failed_) return EIO;
  try {
    sync_cis_locked();
    trace("%s qp %u pi %u", csr == spec::kCsrSqDb ? "SQ_DB" : "RQ_DB", value & 0xffff, value >> 16);
    return dev_->csr_write(csr, value) ? 0 : EIO;
  } catch (const std::exception& e) {
    fail_locked(std::string("doorbell: ") + e.what());
    return EIO;
  }
}

int Engine::doorbell_bf(uint32_t qpn, uint16_t pi, const uint8_t* wqe, bool ud) {
  Lock l(this);
  if (failed_) return EIO;
  try {
    sync_cis_locked();
    spec::SendWqe w;
    w.load(wqe);
    const unsigned n = sq_bf_bytes(w, ud);
    trace("SQ_BF_DB qp %u pi %u (%u WQE bytes)", qpn, pi, n);
    for (unsigned i = 0; i < n; i += 4) {
      uint32_t v;
      std::memcpy(&v, wqe + i, 4);
      if (!dev_->csr_write(spec::kCsrSqBf + i, v)) return EIO;
    }
    return dev_->csr_write(spec::kCsrSqBfDb, qpn | uint32_t{pi} << 16) ? 0 : EIO;
  } catch (const std::exception& e) {
    fail_locked(std::string("doorbell: ") + e.what());
    return EIO;
  }
}

int Engine::arm_cq(CqState* cq, unsigned arm) {
  Lock l(this);
  if (failed_) return EIO;
  try {
    const uint32_t ci = cq->ci.load(std::memory_order_acquire);
    trace("CQ_DB cq %u ci %u arm %u", cq->cqn, ci, arm);
    if (!dev_->csr_write(spec::kCsrCqDbCi, ci) || !dev_->csr_write(spec::kCsrCqDb, cq->cqn | arm << 16)) return EIO;
    cq->reported_ci = ci;
    return 0;
  } catch (const std::exception& e) {
    fail_locked(std::string("CQ doorbell: ") + e.what());
    return EIO;
  }
}

void Engine::dma_allow(uint64_t addr, uint64_t len) {
  Lock l(this);
  windows_.allow(addr, len);
}

void Engine::dma_revoke(uint64_t addr, uint64_t len) {
  Lock l(this);
  windows_.revoke(addr, len);
}

bool Engine::mtt_alloc(uint32_t n, uint32_t* base) {
  Lock l(this);
  return mtt_.alloc(n, base);
}

void Engine::mtt_free(uint32_t base, uint32_t n) {
  Lock l(this);
  mtt_.free(base, n);
}

void Engine::add_cq(CqState* cq) {
  Lock l(this);
  cqs_.push_back(cq);
}

void Engine::remove_cq(CqState* cq) {
  Lock l(this);
  for (auto it = cqs_.begin(); it != cqs_.end(); ++it)
    if (*it == cq) {
      cqs_.erase(it);
      break;
    }
}

void Engine::set_qp(uint32_t qpn, QpState* qp) {
  if (qpn < qps_.size()) qps_[qpn].store(qp, std::memory_order_release);
}

QpState* Engine::qp(uint32_t qpn) const {
  return qpn < qps_.size() ? qps_[qpn].load(std::memory_order_acquire) : nullptr;
}

int Engine::resolve_dmac(const Gid& g, Mac* mac, std::string* err) {
  if (g[0] == 0xfe && (g[1] & 0xc0) == 0x80) {  // link-local: the interface id is the MAC's EUI-64
    *mac = {static_cast<uint8_t>(g[8] ^ 2), g[9], g[10], g[13], g[14], g[15]};
    return 0;
  }
  if (g[0] == 0xff) {  // IPv6 multicast
    *mac = {0x33, 0x33, g[12], g[13], g[14], g[15]};
    return 0;
  }
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  const bool v4 = std::memcmp(g.data(), kMapped, 12) == 0;
  if (v4 && (g[12] & 0xf0) == 0xe0) {  // IPv4 multicast
    *mac = {0x01, 0x00, 0x5e, static_cast<uint8_t>(g[13] & 0x7f), g[14], g[15]};
    return 0;
  }
  for (const GidEntry& own : cfg_.gids)  // one of this port's addresses: loopback
    if (own.gid == g) {
      *mac = cfg_.mac;
      return 0;
    }
  wire::Addr a;
  std::memcpy(a.data(), g.data(), 16);
  wire::Mac m;
  if (wire_ && wire_->resolve(a, &m)) {
    std::memcpy(mac->data(), m.data(), 6);
    return 0;
  }
  *err = "no member of wire '" + cfg_.wire + "' has address " + wire::format_addr(a) + " (destination GID " +
         format_gid(g) + "): its MAC cannot be resolved";
  return ETIMEDOUT;
}

std::string Engine::dump_gid_table() {
  Lock l(this);
  std::string out;
  for (uint32_t i = 0; i < caps_.gid_tbl_len; ++i) {
    const uint32_t base = spec::kCsrGid + kGidEntryBytes * i;
    Gid gid{};
    uint32_t type = 0, word = 0, vlan = 0;
    bool ok = true;
    for (uint32_t w = 0; w < 4; ++w) {
      ok = ok && read_locked(base + 4 * w, &word);
      for (uint32_t b = 0; b < 4; ++b) gid[4 * w + b] = static_cast<uint8_t>(word >> (24 - 8 * b));
    }
    ok = ok && read_locked(base + 4 * kGidTypeWord, &type) && read_locked(base + 4 * kGidVlanWord, &vlan);
    char line[160];
    if (ok)
      std::snprintf(line, sizeof line, "rocenic: engine GID[%u] type %u %s vlan 0x%x\n", i, type,
                    format_gid(gid).c_str(), vlan);
    else
      std::snprintf(line, sizeof line, "rocenic: engine GID[%u] unreadable (SLVERR)\n", i);
    out += line;
  }
  return out;
}

bool Engine::wait_idle(unsigned timeout_ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < until) {
    {
      Lock l(this);
      if (failed_) return false;
      if (dev_->idle() && (!wire_ || !wire_->pending())) return true;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return false;
}

}  // namespace rocenic::driver
