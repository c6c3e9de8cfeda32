// The responder's test world: the stepped runner and the run comparison.
// The Peer (stimulus and expectations) is in responder_peer.cc.
#include "blocks/responder_env.h"

#include <deque>
#include <sstream>

#include "common/desc_flit.h"
#include "dma/host_memory.h"
#include "mem/mr_table.h"

namespace rocenic::rsp {

RunResult run(Block& b, const World& w, const std::vector<Step>& steps, const RunConfig& cfg) {
  constexpr unsigned kBytes = 64;
  SparseMemory mem;
  model::MrRegions mrt(1024, 4096);
  blk::load_world(mem, mrt, w.regions, w.fill, w.mrs);
  for (const auto& [a, b] : w.init) mem.write(a, b.data(), b.size());
  DmaModel dma(mem, cfg.dma, kBytes);
  DmaModel rdma(mem, cfg.dma, kBytes);  // the READ data reads: a port of their own
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
  std::deque<MrPending> mrq, rmrq;  // the checker's answers; the READ walker's (a port of its own)
  uint64_t last_due = 0, rlast_due = 0;
  size_t s = 0;
  bool started = false;
  size_t pos[4] = {};
  bool offering[kIns] = {};
  uint64_t quiet = 0;
  static const Flit kNone{};

  for (uint64_t cyc = 0;; ++cyc) {
    if (cyc >= cfg.max_cycles) {
      r.error = "timeout at step " + std::to_string(s) + " of " + std::to_string(steps.size());
      break;
    }
    // steps: the next one starts once the block is idle (a `behind` one at once)
    if (s < steps.size() && !started && (steps[s].behind || b.idle())) {
      for (const auto& [a, bytes] : steps[s].host)
        if (!mem.write(a, bytes.data(), bytes.size())) r.error = "host write outside the allowed regions";
      started = true;
      for (size_t& p : pos) p = 0;
    }
    if (started) {
      bool all = true;
      for (unsigned p = 0; p < 4; ++p) all = all && pos[p] >= steps[s].in[p].size();
      if (all) {
        ++s;
        started = false;
      }
    }
    if (s >= steps.size() && b.idle() && mrq.empty() && rmrq.empty() && dma.idle() && rdma.idle()) {
      if (++quiet > 64) break;
    } else {
      quiet = 0;
    }
    // inputs
    bool offered[kIns];
    for (unsigned p = 0; p < 4; ++p) {
      const bool more = started && pos[p] < steps[s].in[p].size();
      if (more && !offering[p]) offering[p] = chance(1.0 - cfg.in_idle);
      offered[p] = more && offering[p];
      b.set_input(p, offered[p], offered[p] ? steps[s].in[p][pos[p]] : kNone);
    }
    if (dma.rd_data_valid() && !offering[4]) offering[4] = chance(1.0 - cfg.in_idle);
    offered[4] = dma.rd_data_valid() && offering[4];
    b.set_input(4, offered[4], offered[4] ? dma.rd_data() : kNone);
    const bool mr_due = !mrq.empty() && mrq.front().due <= cyc;
    if (mr_due && !offering[5]) offering[5] = chance(1.0 - cfg.in_idle);
    offered[5] = mr_due && offering[5];
    b.set_input(5, offered[5], offered[5] ? desc_to_flit(mrq.front().resp) : kNone);
    if (rdma.rd_data_valid() && !offering[6]) offering[6] = chance(1.0 - cfg.in_idle);
    offered[6] = rdma.rd_data_valid() && offering[6];
    b.set_input(6, offered[6], offered[6] ? rdma.rd_data() : kNone);
    const bool rmr_due = !rmrq.empty() && rmrq.front().due <= cyc;
    if (rmr_due && !offering[7]) offering[7] = chance(1.0 - cfg.in_idle);
    offered[7] = rmr_due && offering[7];
    b.set_input(7, offered[7], offered[7] ? desc_to_flit(rmrq.front().resp) : kNone);
    // outputs
    bool ready[kOuts];
    const double go = 1.0 - cfg.out_stall;
    ready[kRdReq] = dma.rd_req_ready() && chance(go);
    ready[kMrReq] = mrq.size() < 4 && chance(go);
    ready[kWrReq] = dma.wr_req_ready() && chance(go);
    ready[kWrData] = dma.wr_data_ready() && chance(go);
    ready[kAck] = chance(go);
    ready[kCq] = chance(go);
    ready[kReadReq] = rdma.rd_req_ready() && chance(go);
    ready[kTxPay] = chance(go);
    ready[kReadMrReq] = rmrq.size() < 4 && chance(go);
    for (unsigned p = 0; p < kOuts; ++p) b.set_output_ready(p, ready[p]);
    b.eval();
    for (unsigned p = 0; p < kIns; ++p) {
      if (!offered[p] || !b.input_ready(p)) continue;
      offering[p] = false;
      if (p < 4) ++pos[p];
      else if (p == 4) dma.pop_rd_data();
      else if (p == 5) mrq.pop_front();
      else if (p == 6) rdma.pop_rd_data();
      else rmrq.pop_front();
    }
    for (unsigned p = 0; p < kOuts; ++p) {
      const bool v = b.output_valid(p);
      Flit f = v ? b.output(p) : Flit{};
      if (p == kWrData || p == kTxPay)  // lanes outside keep carry no information
        for (size_t k = 0; k < f.data.size(); ++k)
          if (!((f.keep >> k) & 1u)) f.data[k] = 0;
      if (held[p] && (!v || !(f == held_flit[p])) && r.error.empty())
        r.error = "output " + b.outputs()[p].name + " changed or withdrew an offered flit at cycle " +
                  std::to_string(cyc);
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
        case kReadReq: rdma.push_rd_req(desc_from_flit<spec::DmaRdReq>(f)); break;
        case kReadMrReq: {
          const unsigned lat = cfg.mr_lat_min + static_cast<unsigned>(rng() % (cfg.mr_lat_max - cfg.mr_lat_min + 1));
          rlast_due = std::max(rlast_due, cyc + lat);
          rmrq.push_back({mrt.check(desc_from_flit<spec::MrReq>(f)), rlast_due});
          break;
        }
        default: break;
      }
      Txn& t = open[p];
      if (t.flits.empty()) t.first_cycle = cyc;
      t.last_cycle = cyc;
      const bool end = (p != kWrData && p != kTxPay) || f.last;
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
    rdma.clock();
    r.cycles = cyc;
  }
  r.counters = b.counters();
  for (const auto& [a, n] : w.regions) {
    std::vector<uint8_t> v(n);
    mem.read(a, v.data(), n);
    r.memory.push_back(std::move(v));
  }
  r.dma = dma.stats();
  return r;
}

std::string describe(unsigned port, const Txn& t) {
  if (t.flits.empty()) return "(nothing)";
  const Flit& f = t.flits[0];
  std::ostringstream s;
  s << "cycle " << t.first_cycle << ": ";
  switch (port) {
    case kRdReq:
    case kReadReq: s << desc_from_flit<spec::DmaRdReq>(f).describe(); break;
    case kMrReq:
    case kReadMrReq: s << desc_from_flit<spec::MrReq>(f).describe(); break;
    case kWrReq: s << desc_from_flit<spec::DmaWrReq>(f).describe(); break;
    case kAck: {
      const auto h = desc_from_flit<spec::RoceTxHdr>(f);
      s << "qp " << h.src_qpn << " -> " << h.dst_qpn << " psn " << h.psn << " syndrome 0x" << std::hex
        << unsigned{h.aeth_syndrome} << std::dec << " msn " << h.aeth_msn << " opcode 0x" << std::hex
        << unsigned{h.opcode} << " l3 " << unsigned{h.l3} << " dst_mac 0x" << h.dst_mac << " src_mac 0x" << h.src_mac
        << " tclass 0x" << unsigned{h.tclass} << " ttl 0x" << unsigned{h.ttl} << " flow 0x" << h.flow_label
        << " pkey 0x" << h.pkey << std::dec << " pay_len " << h.pay_len;
      break;
    }
    case kCq: s << desc_from_flit<spec::CqCompl>(f).describe(); break;
    default: {
      const auto v = beats_to_bytes(t.flits);
      s << t.flits.size() << " beat(s), " << v.size() << " bytes: " << hex_bytes(v, 48);
    }
  }
  return s.str();
}

std::string compare(const RunResult& a, const RunResult& b) {
  static const char* kNames[kOuts] = {"dma_rd_req", "mr_req",   "dma_wr_req",   "dma_wr_data",
                                      "tx_hdr",     "cq_compl", "read_dma_req", "tx_payload", "read_mr_req"};
  for (unsigned p = 0; p < kOuts; ++p) {
    const auto& x = a.out[p];
    const auto& y = b.out[p];
    for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
      const bool same = i < x.size() && i < y.size() && x[i].flits == y[i].flits;
      if (same) continue;
      std::ostringstream s;
      s << "port " << kNames[p] << ", transaction " << i << " (rtl " << x.size() << ", model " << y.size()
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

}  // namespace rocenic::rsp
