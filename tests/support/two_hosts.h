// Engine-level test fixtures: two Devices joined by an in-process wire (with
// an optional filter that drops frames), one side's RC objects, and the
// RESET -> RTS connection of a pair, programmed as the provider does it
// (sim/host/engine_host.h).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "device.h"
#include "engine_harness.h"
#include "gen/roce_spec.h"
#include "host/engine_host.h"
#include "wire/faults.h"

namespace rocenic::test {

constexpr uint64_t kMacA = 0x02000a000001, kMacB = 0x02000a000002;
constexpr uint32_t kIpA = 0x0a000001, kIpB = 0x0a000002;
constexpr uint8_t kAllAccess = 0x0F;  // local write, remote write, remote read, remote atomic

// Two devices joined by a wire that delivers every frame to the other side,
// unless `pass` (when set) says no: pass(from_a, frame, len); with
// faults(), each direction goes through a seeded FaultInjector (drop,
// duplicate, bounded reorder, bit flips) as rocenic-run's --loss etc.
struct TwoHosts {
  using Filter = std::function<bool(bool from_a, const uint8_t* f, size_t n)>;
  std::unique_ptr<Device> da, db;
  std::unique_ptr<host::EngineHost> a, b;
  uint64_t frames = 0, dropped = 0;
  Filter pass;
  std::unique_ptr<wire::FaultInjector> inject[2];  // [0]: frames a sends, [1]: frames b sends
  explicit TwoHosts(const std::string& backend, unsigned mtu = 3) {
    da = make_device(backend);
    db = make_device(backend);
    da->set_tx_sink([this](const uint8_t* f, size_t n) { deliver(true, f, n); });
    db->set_tx_sink([this](const uint8_t* f, size_t n) { deliver(false, f, n); });
    a = std::make_unique<host::EngineHost>(*da);
    b = std::make_unique<host::EngineHost>(*db);
    a->configure_port(kMacA, kIpA, mtu);
    b->configure_port(kMacB, kIpB, mtu);
  }
  void faults(const wire::FaultConfig& from_a, const wire::FaultConfig& from_b) {
    inject[0] = std::make_unique<wire::FaultInjector>(from_a);
    inject[1] = std::make_unique<wire::FaultInjector>(from_b);
  }
  void deliver(bool from_a, const uint8_t* f, size_t n) {
    if (pass && !pass(from_a, f, n)) {
      ++dropped;
      return;
    }
    if (wire::FaultInjector* fi = inject[from_a ? 0 : 1].get()) {
      fi->pass(f, n, arrive(from_a));
      return;
    }
    arrive(from_a)(f, n);
  }
  // What puts a frame a (from_a) or b sent into the other device.
  wire::FaultInjector::Emit arrive(bool from_a) {
    Device& to = from_a ? *db : *da;
    return [this, &to](const uint8_t* g, size_t m) {
      ++frames;
      to.rx_frame(g, m);
    };
  }
  // The end of a burst: frames the injectors hold back (reorder) go now; false if none.
  bool release_held() {
    bool any = false;
    for (int i = 0; i < 2; ++i)
      if (inject[i] && inject[i]->holding()) {
        inject[i]->release_held(arrive(i == 0));
        any = true;
      }
    return any;
  }
  // Until both engines are idle with nothing on the wire. With `timers`,
  // an idle pair whose transport timers are armed lets the nearest one
  // expire (the clock jumps; nothing is on the wire, so nothing can come
  // sooner) and goes on, until no timer is left or `max_jumps` were taken.
  // Returns the jumps taken.
  // An engine that runs kMaxBusyCycles without ever going idle has hung: a
  // failure, not a test that never ends.
  // With ROCENIC_HANG_FST=<prefix> set, the guard comes at 5 M cycles and
  // the RTL engines' last 40,000 cycles before it go to <prefix>_a.fst and
  // <prefix>_b.fst, for the waveform of the hang.
  static constexpr uint64_t kMaxBusyCycles = 50'000'000;
  unsigned settle(bool timers = false, unsigned max_jumps = 1000) {
    unsigned jumps = 0;
    uint64_t busy = 0;
    const char* hang_fst = std::getenv("ROCENIC_HANG_FST");
    const uint64_t max_busy = hang_fst ? 5'000'000 : kMaxBusyCycles;
    bool tracing = false;
    for (int i = 0; i < 1000000 && busy < max_busy; ++i) {
      if (hang_fst && !tracing && busy + 40'000 >= max_busy) tracing = trace_engines(hang_fst, true);
      const uint64_t n = da->run(2000) + db->run(2000);
      busy += n;
      if (n != 0 || !da->idle() || !db->idle()) continue;
      if (release_held()) continue;
      if (!timers || jumps == max_jumps) return jumps;
      const uint64_t ta = da->timer_at(), tb = db->timer_at();
      if (ta == UINT64_MAX && tb == UINT64_MAX) return jumps;
      // the one due soonest on its own clock
      const uint64_t wa = ta == UINT64_MAX ? UINT64_MAX : ta - std::min(ta, da->cycles());
      const uint64_t wb = tb == UINT64_MAX ? UINT64_MAX : tb - std::min(tb, db->cycles());
      if (wa <= wb) da->skip_to(ta);
      else db->skip_to(tb);
      ++jumps;
    }
    if (tracing) trace_engines(hang_fst, false);
    ADD_FAILURE() << "the engines never went idle (" << busy << " cycles run; a idle " << da->idle() << ", b idle "
                  << db->idle() << ")";
    return jumps;
  }
  // Starts (on) or ends waveforms of both RTL engines; false if neither has one.
  bool trace_engines(const std::string& prefix, bool on) {
    bool any = false;
    for (Device* d : {da.get(), db.get()}) {
      auto* h = dynamic_cast<EngineHarness*>(d->harness());
      if (!h) continue;
      if (!on) {
        h->engine().close_trace();
        continue;
      }
      any |= h->engine().open_trace(prefix + (d == da.get() ? "_a.fst" : "_b.fst"));
    }
    return any;
  }
};

// One side's objects for an RC (or UC) connection.
struct End {
  uint32_t pd = 0;
  std::unique_ptr<host::Cq> scq, rcq;
  std::unique_ptr<host::Qp> qp;
  std::unique_ptr<host::Buffer> buf;
  host::Mr mr;
  void make(host::EngineHost& h, size_t bytes, uint8_t access = kAllAccess, spec::QpType type = spec::QpType::kRc) {
    pd = h.alloc_pd();
    scq = h.create_cq(8);
    rcq = h.create_cq(8);
    qp = h.create_qp(pd, *scq, *rcq, 7, 7, type);
    buf = std::make_unique<host::Buffer>(bytes);
    mr = h.reg_mr(pd, buf->data(), bytes, access);
  }
};

// Connects a (sq_psn 100) and b (sq_psn 200); `tune` may change either
// path (timeouts, retries) before it is applied.
inline void connect_pair(host::EngineHost& ha, End& a, uint64_t mac_a, uint32_t ip_a, host::EngineHost& hb, End& b,
                         uint64_t mac_b, uint32_t ip_b, unsigned mtu = 3,
                         const std::function<void(host::Path& pa, host::Path& pb)>& tune = {}) {
  const auto path = [mtu](const End& peer, uint64_t mac, uint32_t ip, uint32_t sq_psn, uint32_t rq_psn) {
    host::Path p;
    p.dest_qpn = peer.qp->qpn;
    p.dmac = mac;
    p.dgid = host::ipv4_gid(ip);
    p.mtu = mtu;
    p.sq_psn = sq_psn;
    p.rq_psn = rq_psn;
    return p;
  };
  host::Path pa = path(b, mac_b, ip_b, 100, 200), pb = path(a, mac_a, ip_a, 200, 100);
  if (tune) tune(pa, pb);
  ha.connect(*a.qp, pa);
  hb.connect(*b.qp, pb);
}

inline void fill(host::Buffer& b, size_t n, uint32_t seed) {
  std::mt19937 r(seed);
  for (size_t i = 0; i < n; ++i) b.data()[i] = static_cast<uint8_t>(r());
}

inline spec::SendWqe send_wqe(spec::WrOpcode op, uint64_t wr_id, uint32_t len, uint64_t raddr = 0, uint32_t rkey = 0) {
  spec::SendWqe w;
  w.wr_id = wr_id;
  w.opcode = static_cast<uint8_t>(op);
  w.flags = 1;  // signaled
  w.length = len;
  w.remote_addr = raddr;
  w.rkey = rkey;
  w.imm = 0x11223344;
  return w;
}

}  // namespace rocenic::test
