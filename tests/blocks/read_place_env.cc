// read_place's test world: the stepped runner, the scenario, and the facts a
// run must show (read_place_env.h).
#include "blocks/read_place_env.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <sstream>

#include "common/desc_flit.h"
#include "dma/host_memory.h"
#include "mem/mr_table.h"

namespace rocenic::rp {

using blk::make_mr;

// ---------------------------------------------------------------- the runner

RunResult run(Block& b, const World& w, const std::vector<Step>& steps, const RunConfig& cfg) {
  constexpr unsigned kBytes = 64;
  SparseMemory mem;
  model::MrRegions mrt(1024, 4096);
  blk::load_world(mem, mrt, w.regions, w.fill, w.mrs);
  DmaModel dma(mem, cfg.dma, kBytes);
  b.reset();
  std::mt19937_64 rng(cfg.seed);
  auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };

  RunResult r;
  r.out.resize(kOuts);
  std::vector<Txn> open(kOuts);
  std::vector<bool> held(kOuts, false);
  std::vector<Flit> held_flit(kOuts);
  struct MrPending {
    spec::MrResp resp;
    uint64_t due;
  };
  std::deque<MrPending> mrq;
  uint64_t last_due = 0, quiet = 0;
  size_t s = 0, pos[kStepIns] = {};
  bool started = false, offering[kIns] = {};
  static const Flit kNone{};

  for (uint64_t cyc = 0;; ++cyc) {
    if (cyc >= cfg.max_cycles) {
      r.error = "timeout at step " + std::to_string(s) + " of " + std::to_string(steps.size());
      break;
    }
    // steps: the next one starts once the block is idle
    if (s < steps.size() && !started && b.idle()) {
      for (const auto& [a, bytes] : steps[s].host)
        if (!mem.write(a, bytes.data(), bytes.size())) r.error = "host write outside the allowed regions";
      started = true;
      for (size_t& p : pos) p = 0;
    }
    if (started) {
      bool all = true;
      for (unsigned k = 0; k < kStepIns; ++k) all = all && pos[k] >= steps[s].in[k].size();
      if (all) {
        ++s;
        started = false;
      }
    }
    if (s >= steps.size() && b.idle() && mrq.empty() && dma.idle()) {
      if (++quiet > 64) break;
    } else {
      quiet = 0;
    }
    // inputs
    bool offered[kIns];
    for (unsigned k = 0; k < kStepIns; ++k) {
      const unsigned p = kStepPort[k];
      const bool more = started && pos[k] < steps[s].in[k].size();
      if (more && !offering[p]) offering[p] = chance(1.0 - cfg.in_idle);
      offered[p] = more && offering[p];
      b.set_input(p, offered[p], offered[p] ? steps[s].in[k][pos[k]] : kNone);
    }
    if (dma.rd_data_valid() && !offering[3]) offering[3] = chance(1.0 - cfg.in_idle);
    offered[3] = dma.rd_data_valid() && offering[3];
    b.set_input(3, offered[3], offered[3] ? dma.rd_data() : kNone);
    const bool mr_due = !mrq.empty() && mrq.front().due <= cyc;
    if (mr_due && !offering[4]) offering[4] = chance(1.0 - cfg.in_idle);
    offered[4] = mr_due && offering[4];
    b.set_input(4, offered[4], offered[4] ? desc_to_flit(mrq.front().resp) : kNone);
    // outputs
    bool ready[kOuts];
    const double go = 1.0 - cfg.out_stall;
    ready[kRdReq] = dma.rd_req_ready() && chance(go);
    ready[kMrReq] = mrq.size() < 4 && chance(go);
    ready[kWrReq] = dma.wr_req_ready() && chance(go);
    ready[kWrData] = dma.wr_data_ready() && chance(go);
    ready[kDone] = chance(go);
    for (unsigned p = 0; p < kOuts; ++p) b.set_output_ready(p, ready[p]);
    b.eval();
    for (unsigned p = 0; p < kIns; ++p) {
      if (!offered[p] || !b.input_ready(p)) continue;
      offering[p] = false;
      if (p < 3)
        ++pos[p];
      else if (p == 5)
        ++pos[3];
      else if (p == 3)
        dma.pop_rd_data();
      else
        mrq.pop_front();
    }
    for (unsigned p = 0; p < kOuts; ++p) {
      const bool v = b.output_valid(p);
      Flit f = v ? b.output(p) : Flit{};
      if (p == kWrData)  // lanes outside keep carry no information
        for (size_t k = 0; k < f.data.size(); ++k)
          if (!((f.keep >> k) & 1u)) f.data[k] = 0;
      if (held[p] && (!v || !(f == held_flit[p])) && r.error.empty())
        r.error =
            "output " + b.outputs()[p].name + " changed or withdrew an offered flit at cycle " + std::to_string(cyc);
      held[p] = v && !ready[p];
      if (held[p]) held_flit[p] = f;
      if (!v || !ready[p]) continue;
      switch (p) {
        case kRdReq: dma.push_rd_req(desc_from_flit<spec::DmaRdReq>(f)); break;
        case kMrReq: {
          const unsigned lat = cfg.mr_lat_min + static_cast<unsigned>(rng() % (cfg.mr_lat_max - cfg.mr_lat_min + 1));
          last_due = std::max(last_due, cyc + lat);
          mrq.push_back({mrt.check(desc_from_flit<spec::MrReq>(f)), last_due});
          break;
        }
        case kWrReq: dma.push_wr_req(desc_from_flit<spec::DmaWrReq>(f)); break;
        case kWrData: dma.push_wr_data(f); break;
        default: break;
      }
      Txn& t = open[p];
      if (t.flits.empty()) t.first_cycle = cyc;
      t.last_cycle = cyc;
      const bool end = p != kWrData || f.last;
      t.flits.push_back(std::move(f));
      if (end) {
        r.out[p].push_back(std::move(t));
        t = Txn{};
      }
    }
    while (dma.wr_done_valid()) {
      if (dma.wr_done_error() && r.error.empty()) r.error = "a DMA write was refused (outside the allowed regions)";
      dma.pop_wr_done();
    }
    b.clock();
    dma.clock();
    r.cycles = cyc;
  }
  r.counters = b.counters();
  for (const auto& [a, n] : w.regions) {
    std::vector<uint8_t> v(n);
    mem.read(a, v.data(), n);
    r.memory.push_back(std::move(v));
  }
  return r;
}

namespace {

const char* kPortNames[kOuts] = {"dma_rd_req", "mr_req", "dma_wr_req", "dma_wr_data", "done"};

std::string describe(unsigned port, const Txn& t) {
  if (t.flits.empty()) return "(nothing)";
  const Flit& f = t.flits[0];
  std::ostringstream s;
  s << "cycle " << t.first_cycle << ": ";
  switch (port) {
    case kRdReq: s << desc_from_flit<spec::DmaRdReq>(f).describe(); break;
    case kMrReq: s << desc_from_flit<spec::MrReq>(f).describe(); break;
    case kWrReq: s << desc_from_flit<spec::DmaWrReq>(f).describe(); break;
    case kDone: s << desc_from_flit<spec::RdDone>(f).describe(); break;
    default: {
      const auto v = beats_to_bytes(t.flits);
      s << t.flits.size() << " beat(s), " << v.size() << " bytes: " << hex_bytes(v, 48);
    }
  }
  return s.str();
}

}  // namespace

std::string compare(const RunResult& a, const RunResult& b) {
  for (unsigned p = 0; p < kOuts; ++p) {
    const auto& x = a.out[p];
    const auto& y = b.out[p];
    for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
      if (i < x.size() && i < y.size() && x[i].flits == y[i].flits) continue;
      std::ostringstream s;
      s << "port " << kPortNames[p] << ", transaction " << i << " (rtl " << x.size() << ", model " << y.size()
        << " in all):\n  rtl:   " << (i < x.size() ? describe(p, x[i]) : "(none)")
        << "\n  model: " << (i < y.size() ? describe(p, y[i]) : "(none)");
      return s.str();
    }
  }
  if (a.counters != b.counters) {
    std::ostringstream s;
    s << "counters differ:";
    for (size_t i = 0; i < a.counters.size() && i < b.counters.size(); ++i)
      if (a.counters[i] != b.counters[i])
        s << " " << a.counters[i].first << " rtl " << a.counters[i].second << " model " << b.counters[i].second;
    return s.str();
  }
  for (size_t i = 0; i < a.memory.size(); ++i)
    for (size_t k = 0; k < a.memory[i].size(); ++k)
      if (a.memory[i][k] != b.memory[i][k])
        return "memory differs: region " + std::to_string(i) + " byte " + std::to_string(k);
  return "";
}

// ---------------------------------------------------------------- the scenario

namespace {

[[noreturn]] void scenario_error(const char* what) {
  std::fprintf(stderr, "read_place scenario error: %s\n", what);
  std::abort();
}


}  // namespace

Scenario::Scenario(uint64_t seed) : rng_(seed) {
  constexpr uint8_t kLw = 1, kRw = 2, kRr = 4;
  world.mrs = {
      // kA: 4 KiB pages scattered in bus memory (gaps between them), region not page aligned
      make_mr(1, 0x11, 1, kLw, 0x100000000100ull, 512 * 1024, 12, 0, 0x7f0000000000ull, 0x3000, true),
      // kB: 64 KiB pages, starting 4 KiB before a page end, scattered
      make_mr(2, 0x22, 1, kLw | kRw, 0x20000001f000ull, 1024 * 1024, 16, 200, 0x7f1000000000ull, 0x20000, true),
      // kPd2: another protection domain
      make_mr(3, 0x33, 2, kLw, 0x300000000000ull, 16 * 1024, 12, 300, 0x7f2000000000ull, 0x2000, false),
      // kNoWrite: remote read only: the local side may not write it
      make_mr(4, 0x44, 1, kRr, 0x400000000800ull, 16 * 1024, 12, 320, 0x7f3000000000ull, 0x2000, false),
  };
  for (const MrDef& m : world.mrs)
    for (uint64_t p : m.pages) world.regions.push_back({p, m.page_size()});
  cursor_.assign(world.mrs.size(), 0);
  // QPs 1..8: response sizes 256..4096; 7's send ring the host refuses to read; 8 in PD 2
  qps.resize(9);
  for (uint32_t n = 1; n < qps.size(); ++n) {
    TQp& q = qps[n];
    q.qpn = n;
    q.pd = n == 8 ? 2 : 1;
    q.mtu = 128u << (1 + (n - 1) % 5);
    q.sq_lsz = static_cast<uint8_t>(4 + n % 3);
    q.sq_base = 0x600000000000ull + n * 0x100000ull + 128 * rand(8);
    q.refused = n == 7;
    if (!q.refused) world.regions.push_back({q.sq_base, uint64_t{1} << (q.sq_lsz + spec::kWqeSlotLog2)});
  }
}

std::vector<uint8_t> Scenario::bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng_());
  return v;
}

Step& Scenario::new_step() {
  steps.emplace_back();
  steps.back().cmd_begin = steps.back().cmd_end = cmds.size();
  return steps.back();
}

void Scenario::cfg(TQp& q, spec::QpAction a) {
  spec::QpCfg c;
  c.qpn = static_cast<uint16_t>(q.qpn);
  c.action = static_cast<uint8_t>(a);
  c.qp_type = static_cast<uint8_t>(spec::QpType::kRc);
  c.pd = q.pd;
  c.sq_base = q.sq_base;
  c.sq_lsz = q.sq_lsz;
  c.rq_base = rng_();  // fields read_place has no use for
  c.dest_qpn = static_cast<uint32_t>(rng_() & 0xFFFFFF);
  c.pmtu = static_cast<uint8_t>(1 + rand(5));
  if (a == spec::QpAction::kReset || a == spec::QpAction::kDestroy) q.epoch = (q.epoch + 1) & 15u;
  if (steps.empty() || !steps.back().in[1].empty()) new_step();
  steps.back().in[0].push_back(desc_to_flit(c));
}

void Scenario::create(TQp& q) {
  cfg(q, spec::QpAction::kReset);
  cfg(q, spec::QpAction::kToInit);
  cfg(q, spec::QpAction::kToRtr);
  cfg(q, spec::QpAction::kToRts);
  q.next_idx = 0;
}
void Scenario::attr(TQp& q) { cfg(q, spec::QpAction::kAttr); }
void Scenario::destroy(TQp& q) { cfg(q, spec::QpAction::kDestroy); }

TSge Scenario::sge_in(unsigned m, uint32_t len) {
  const MrDef& d = mr(m);
  const uint64_t lo = d.ctx.iova, hi = d.ctx.iova + d.ctx.length - len;
  TSge s;
  s.len = len;
  s.lkey = d.key();
  s.mr = m;
  s.va = lo + rand(hi - lo + 1);
  if (rand(3)) {  // straddle a page end
    const uint64_t ps = d.page_size();
    const uint64_t b = ((lo + rand(hi - lo + 1)) | (ps - 1)) + 1;
    const uint64_t va = b - 1 - rand(std::max<uint64_t>(len, 1));
    if (va >= lo && va <= hi) s.va = va;
  }
  return s;
}

std::vector<TSge> Scenario::sges(uint32_t len, unsigned n, bool empties) {
  std::vector<uint32_t> cut{0, len};
  for (unsigned i = 1; i < n; ++i) cut.push_back(static_cast<uint32_t>(rand(uint64_t{len} + 1)));
  std::sort(cut.begin(), cut.end());
  std::vector<uint32_t> part;
  for (unsigned i = 0; i < n; ++i) part.push_back(cut[i + 1] - cut[i]);
  if (empties)  // empty a few SGEs (their bytes go to the next one, or the one before)
    for (unsigned i = 0; i < n && n > 1; ++i)
      if (part[i] && rand(4) == 0) {
        part[i + 1 < n ? i + 1 : i - 1] += part[i];
        part[i] = 0;
      }
  std::vector<TSge> out;
  for (uint32_t p : part) {
    TSge s = sge_in(rand(2) ? kA : kB, p);
    if (p == 0 && rand(2)) s.lkey = static_cast<uint32_t>(rng_());  // never checked: it holds no byte
    out.push_back(s);
  }
  return out;
}

size_t Scenario::read(uint32_t qpn, std::vector<TSge> sg, uint32_t len, Meant meant) {
  TRead r;
  r.qpn = qpn;
  r.sges = std::move(sg);
  r.data = bytes(len);
  r.meant = meant;
  r.mtu = qpn < qps.size() ? qps[qpn].mtu : 1024;
  if (qpn < qps.size()) r.idx = qps[qpn].next_idx++;
  uint64_t total = 0;
  bool broken = false;
  for (const TSge& s : r.sges) {
    total += s.len;
    broken = broken || (s.broken && s.len > 0);
  }
  // the scenario says what it means, and means one failure at a time
  if ((meant == Meant::kBrokenSge) != broken) scenario_error("kBrokenSge and a broken SGE go together");
  if ((meant == Meant::kTooLong) != (len > total)) scenario_error("a READ longer than its SGEs is kTooLong");
  if (meant != Meant::kTooLong && meant != Meant::kNoQp && len != total) scenario_error("length != SGE total");
  if (len == 0 && meant != Meant::kGood && meant != Meant::kNoQp) scenario_error("nothing to place: nothing fails");
  if (meant == Meant::kPoisoned && !(qpn < qps.size() && qps[qpn].refused)) scenario_error("poisoned: QP 7 only");
  reads.push_back(std::move(r));
  unwritten_.push_back(reads.size() - 1);
  return reads.size() - 1;
}

void Scenario::hint(size_t ri) {
  const TRead& r = reads[ri];
  spec::RdHint h;
  h.qpn = static_cast<uint16_t>(r.qpn);
  h.wqe_idx = r.idx;
  h.one_sge = r.sges.size() == 1;
  if (!r.sges.empty()) {
    h.addr = r.sges[0].va;
    h.length = r.sges[0].len;
    h.lkey = r.sges[0].lkey;
  }
  hint_raw(h);
}

void Scenario::hint_raw(const spec::RdHint& h) {
  if (steps.empty() || !steps.back().in[1].empty()) new_step();
  steps.back().in[3].push_back(desc_to_flit(h));
}

size_t Scenario::responses(size_t r) const {
  const TRead& x = reads[r];
  return x.data.empty() ? 1 : (x.data.size() + x.mtu - 1) / x.mtu;
}

void Scenario::deliver(const std::vector<Part>& parts, double drops, double repeats) {
  Step& st = new_step();
  // the READ WQEs not yet in their rings
  for (size_t ri : unwritten_) {
    const TRead& r = reads[ri];
    if (r.qpn >= qps.size() || qps[r.qpn].qpn == 0 || qps[r.qpn].refused) continue;  // no ring to write
    const TQp& q = qps[r.qpn];
    spec::SendWqe w;
    w.wr_id = 0x1000 + ri;
    // (kNotARead: the slot holds a SEND, as after a RESET and a new post)
    w.opcode = static_cast<uint8_t>(r.meant == Meant::kNotARead ? spec::WrOpcode::kSend : spec::WrOpcode::kRdmaRead);
    w.flags = 1;
    w.num_sge = static_cast<uint8_t>(r.meant == Meant::kTooManySges ? spec::kMaxSge + 1 : r.sges.size());
    w.remote_addr = rng_();
    w.rkey = static_cast<uint32_t>(rng_());
    w.length = static_cast<uint32_t>(r.data.size());
    std::vector<uint8_t> b(spec::SendWqe::kSize);
    w.store(b.data());
    for (size_t i = 0; i < r.sges.size() && i < spec::kMaxSge; ++i) {
      spec::Sge s;
      s.addr = r.sges[i].va;
      s.length = r.sges[i].len;
      s.lkey = r.sges[i].lkey;
      s.store(b.data() + spec::kSendWqeSge0AddrOff + spec::Sge::kSize * i);
    }
    const uint16_t mask = static_cast<uint16_t>((1u << q.sq_lsz) - 1);
    st.host.push_back({q.sq_base + (uint64_t{static_cast<uint16_t>(r.idx & mask)} << spec::kWqeSlotLog2), std::move(b)});
  }
  unwritten_.clear();
  auto cmd_of = [&](size_t ri, uint32_t off, uint32_t len, bool last, bool drop, std::vector<uint8_t> pay) {
    TCmd c;
    c.read = ri;
    c.c.qpn = static_cast<uint16_t>(reads[ri].qpn);
    c.c.wqe_idx = reads[ri].idx;
    c.c.offset = off;
    c.c.len = static_cast<uint16_t>(len);
    c.c.last = last;
    c.c.drop = drop;
    c.c.epoch = reads[ri].qpn < qps.size() ? qps[reads[ri].qpn].epoch : 0;
    if (reads[ri].meant == Meant::kStaleEpoch) c.c.epoch = (c.c.epoch - 1) & 15u;
    c.pay = std::move(pay);
    return c;
  };
  // each QP's responses in order (a QP's READs answer one after the other)
  std::vector<uint32_t> qorder;
  std::vector<std::deque<TCmd>> per_qp;
  for (const Part& p : parts) {
    const TRead& r = reads[p.read];
    auto it = std::find(qorder.begin(), qorder.end(), r.qpn);
    if (it == qorder.end()) {
      qorder.push_back(r.qpn);
      per_qp.emplace_back();
      it = qorder.end() - 1;
    }
    std::deque<TCmd>& q = per_qp[static_cast<size_t>(it - qorder.begin())];
    const size_t n = responses(p.read), to = std::min(p.to, n);
    for (size_t k = p.from; k < to; ++k) {
      const uint32_t off = static_cast<uint32_t>(k * r.mtu);
      const uint32_t len = std::min<uint32_t>(r.mtu, static_cast<uint32_t>(r.data.size()) - off);
      q.push_back(cmd_of(p.read, off, len, k + 1 == n, false,
                         std::vector<uint8_t>(r.data.begin() + off, r.data.begin() + off + len)));
      if (r.meant == Meant::kGood && k + 1 < n && std::bernoulli_distribution(repeats)(rng_)) {
        const size_t j = p.from + rand(k - p.from + 1);  // an earlier response, handed on again
        const uint32_t o = static_cast<uint32_t>(j * r.mtu);
        const uint32_t l = std::min<uint32_t>(r.mtu, static_cast<uint32_t>(r.data.size()) - o);
        q.push_back(
            cmd_of(p.read, o, l, false, false, std::vector<uint8_t>(r.data.begin() + o, r.data.begin() + o + l)));
      }
    }
  }
  // the QPs interleaved; drop commands (responses the completer did not accept) mixed in
  for (;;) {
    std::vector<size_t> live;
    for (size_t i = 0; i < per_qp.size(); ++i)
      if (!per_qp[i].empty()) live.push_back(i);
    if (live.empty()) break;
    if (std::bernoulli_distribution(drops)(rng_)) {
      const size_t ri = parts[rand(parts.size())].read;
      const uint32_t len = static_cast<uint32_t>(rand(reads[ri].mtu + 1));
      cmds.push_back(cmd_of(ri, static_cast<uint32_t>(rand(reads[ri].data.size() + 1)), len, false, true, bytes(len)));
    } else {
      std::deque<TCmd>& q = per_qp[live[rand(live.size())]];
      cmds.push_back(std::move(q.front()));
      q.pop_front();
    }
    const TCmd& c = cmds.back();
    st.in[1].push_back(desc_to_flit(c.c));
    if (!c.pay.empty())
      for (Flit& f : frame_to_beats(c.pay, 64)) st.in[2].push_back(std::move(f));
  }
  st.cmd_end = cmds.size();
}

// ---------------------------------------------------------------- what must be seen

namespace {

struct Mem {
  std::map<uint64_t, size_t> index;  // region start -> its bytes
  std::vector<std::pair<uint64_t, uint64_t>> regions;
  std::vector<std::vector<uint8_t>> bytes;
  explicit Mem(const World& w) : regions(w.regions) {
    for (size_t i = 0; i < regions.size(); ++i) {
      index[regions[i].first] = i;
      bytes.emplace_back(regions[i].second, w.fill);
    }
  }
  uint8_t* at(uint64_t a) {
    auto it = index.upper_bound(a);
    if (it == index.begin()) return nullptr;
    const size_t i = (--it)->second;
    return a - regions[i].first < regions[i].second ? &bytes[i][a - regions[i].first] : nullptr;
  }
};

uint8_t status_of(Meant m) {
  switch (m) {
    case Meant::kGood: return static_cast<uint8_t>(spec::WcStatus::kSuccess);
    case Meant::kBrokenSge:
    case Meant::kPoisoned: return static_cast<uint8_t>(spec::WcStatus::kLocProtErr);
    case Meant::kTooLong: return static_cast<uint8_t>(spec::WcStatus::kLocLenErr);
    default: return static_cast<uint8_t>(spec::WcStatus::kLocQpOpErr);
  }
}

// The message bytes of READ r that may land: [0, limit) of the message; a
// READ longer than its SGEs lands only responses that fit whole.
uint64_t land_limit(const TRead& r) {
  uint64_t base = 0;
  switch (r.meant) {
    case Meant::kGood:
    case Meant::kTooLong: return r.data.size();
    case Meant::kBrokenSge:
      for (const TSge& s : r.sges) {
        if (s.broken && s.len > 0) return base;  // nothing from the broken SGE on
        base += s.len;
      }
      return base;
    default: return 0;
  }
}

}  // namespace

Expected expect(const Scenario& s) {
  Mem m(s.world);
  Expected e;
  for (const Step& st : s.steps) {
    for (const auto& [a, b] : st.host)
      for (size_t i = 0; i < b.size(); ++i) *m.at(a + i) = b[i];
    for (size_t ci = st.cmd_begin; ci < st.cmd_end; ++ci) {
      const TCmd& c = s.cmds[ci];
      const TRead& r = s.reads[c.read];
      uint64_t total = 0;
      for (const TSge& g : r.sges) total += g.len;
      uint64_t end = c.c.offset + uint64_t{c.c.len};
      if (c.c.drop) end = c.c.offset;                                   // not accepted: nothing
      if (r.meant == Meant::kTooLong && end > total) end = c.c.offset;  // does not fit: nothing
      end = std::min(end, std::max<uint64_t>(land_limit(r), c.c.offset));
      // message byte o lands in the SGE holding it, through its region's page table
      uint64_t base = 0;
      for (const TSge& g : r.sges) {
        for (uint64_t o = std::max<uint64_t>(base, c.c.offset); o < std::min(end, base + g.len); ++o) {
          const uint64_t pa = s.mr(g.mr).pa(g.va + (o - base));
          uint8_t* p = m.at(pa);
          if (!p) scenario_error("an SGE byte outside the world's memory");
          *p = c.pay[o - c.c.offset];
        }
        base += g.len;
      }
      const uint64_t landed = end - c.c.offset;
      e.written += landed;
      e.dropped += c.c.len - landed;
      if (c.c.last) {
        e.done.push_back({});
        e.done.back().qpn = c.c.qpn;
        e.done.back().wqe_idx = c.c.wqe_idx;
        e.done.back().status = status_of(r.meant);
        e.written_by_done.push_back(e.written);
      }
    }
  }
  e.memory = std::move(m.bytes);
  return e;
}

std::string check_facts(const Scenario& s, const RunResult& r) {
  if (!r.error.empty()) return r.error;
  const Expected e = expect(s);
  std::ostringstream o;
  // every byte of every region: the payload where the SGEs put it, nothing else touched
  for (size_t i = 0; i < e.memory.size(); ++i)
    for (size_t k = 0; k < e.memory[i].size(); ++k)
      if (r.memory[i][k] != e.memory[i][k]) {
        o << "memory at 0x" << std::hex << s.world.regions[i].first + k << std::dec << " holds 0x" << std::hex
          << unsigned{r.memory[i][k]} << ", expected 0x" << unsigned{e.memory[i][k]} << std::dec;
        return o.str();
      }
  // the answers, in order
  const auto& dn = r.out[kDone];
  for (size_t i = 0; i < std::max(dn.size(), e.done.size()); ++i) {
    if (i < dn.size() && i < e.done.size() && desc_from_flit<spec::RdDone>(dn[i].flits[0]) == e.done[i]) continue;
    o << "done " << i << " (" << dn.size() << " seen, " << e.done.size()
      << " expected): " << (i < dn.size() ? desc_from_flit<spec::RdDone>(dn[i].flits[0]).describe() : "(none)")
      << ", expected " << (i < e.done.size() ? e.done[i].describe() : "(none)");
    return o.str();
  }
  // writes: one data packet per request, of its length, inside one page of a region
  const auto& rq = r.out[kWrReq];
  const auto& wd = r.out[kWrData];
  if (rq.size() != wd.size()) return "dma_wr_req and dma_wr_data counts differ";
  uint64_t written = 0;
  std::vector<uint64_t> cum_req, cum_data;
  for (size_t i = 0; i < rq.size(); ++i) {
    const auto w = desc_from_flit<spec::DmaWrReq>(rq[i].flits[0]);
    const size_t n = beats_to_bytes(wd[i].flits).size();
    if (w.len == 0 || w.len > 4096 || n != w.len)
      return "write " + std::to_string(i) + ": length " + std::to_string(w.len) + ", data " + std::to_string(n);
    bool in_page = false;
    for (const MrDef& m : s.world.mrs)
      for (uint64_t p : m.pages) in_page = in_page || (w.addr >= p && w.addr + w.len <= p + m.page_size());
    if (!in_page) return "write " + std::to_string(i) + " (" + w.describe() + ") is not inside one page of a region";
    written += w.len;
    cum_req.push_back(written);
  }
  written = 0;
  for (const Txn& t : wd) cum_data.push_back(written += beats_to_bytes(t.flits).size());
  if (written != e.written)
    return "payload bytes written: " + std::to_string(written) + ", expected " + std::to_string(e.written);
  // a done leaves only after the writes before it were taken
  for (size_t i = 0; i < dn.size(); ++i) {
    const uint64_t need = e.written_by_done[i];
    if (need == 0) continue;
    const size_t k = static_cast<size_t>(std::lower_bound(cum_data.begin(), cum_data.end(), need) - cum_data.begin());
    if (k >= wd.size() || dn[i].first_cycle <= wd[k].last_cycle || dn[i].first_cycle <= rq[k].last_cycle)
      return "done " + std::to_string(i) + " left before the data it reports was written";
  }
  // counters: every payload byte written or dropped; pieces; errors
  std::map<std::string, uint32_t> c(r.counters.begin(), r.counters.end());
  uint32_t errors = 0;
  for (const spec::RdDone& d : e.done) errors += d.status != 0;
  if (c["pieces"] != rq.size())
    return "counter pieces " + std::to_string(c["pieces"]) + ", writes " + std::to_string(rq.size());
  if (c["drop_bytes"] != e.dropped)
    return "counter drop_bytes " + std::to_string(c["drop_bytes"]) + ", expected " + std::to_string(e.dropped);
  if (c["errors"] != errors)
    return "counter errors " + std::to_string(c["errors"]) + ", expected " + std::to_string(errors);
  // WQE reads: a slot's first 128 bytes (counted by wqe_reads), or its SGEs
  // past the sixth (16 bytes each) right after them; translations ask for LOCAL_WRITE
  size_t heads = 0;
  for (const Txn& t : r.out[kRdReq]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    uint64_t at = 1;  // the read's offset in its slot (1: in no ring)
    for (const TQp& p : s.qps)
      if (p.qpn && q.addr >= p.sq_base && q.addr < p.sq_base + (uint64_t{1} << (p.sq_lsz + spec::kWqeSlotLog2)))
        at = (q.addr - p.sq_base) % (uint64_t{1} << spec::kWqeSlotLog2);
    const bool head = at == 0 && q.len == spec::kWqeHead;
    const bool tail = at == spec::kWqeHead && q.len % 16 == 0 && q.len <= 16 * (spec::kMaxSge - 6);
    if (!(head || tail)) return "a WQE read outside the send rings: " + q.describe();
    heads += head;
  }
  if (c["wqe_reads"] != heads) return "counter wqe_reads differs from the WQE reads seen";
  for (const Txn& t : r.out[kMrReq])
    if (desc_from_flit<spec::MrReq>(t.flits[0]).access != static_cast<uint8_t>(spec::Access::kLocalWrite))
      return "an mr_req that does not ask for LOCAL_WRITE";
  return "";
}

}  // namespace rocenic::rp
