#include "blocks/requester_env.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>

#include "common/desc_flit.h"

namespace rocenic::reqtest {
namespace {

std::string describe_txn(unsigned port, const Txn& t) {
  if (t.flits.empty()) return "(none)";
  const Flit& f = t.flits[0];
  std::ostringstream o;
  o << "cycle " << t.first_cycle << ": ";
  switch (port) {
    case kRdReq: o << desc_from_flit<spec::DmaRdReq>(f).describe(); break;
    case kMrReq: o << desc_from_flit<spec::MrReq>(f).describe(); break;
    case kHdr: o << desc_from_flit<spec::RoceTxHdr>(f).describe(); break;
    case kTrack: o << desc_from_flit<spec::SqTrack>(f).describe(); break;
    case kHint: o << desc_from_flit<spec::RdHint>(f).describe(); break;
    default: {
      const auto bytes = beats_to_bytes(t.flits);
      o << t.flits.size() << " beats, " << bytes.size() << " bytes: " << hex_bytes(bytes, 48);
      for (size_t i = 0; i < t.flits.size(); ++i)
        o << (i ? "," : " keep ") << std::hex << t.flits[i].keep << std::dec << (t.flits[i].last ? "L" : "");
    }
  }
  return o.str();
}

}  // namespace

void World::install(SparseMemory& mem, model::MrRegions& mrt) const {
  for (const auto& a : allowed) mem.allow(a.first, a.second);
  for (const auto& w : writes) mem.write(w.first, w.second.data(), w.second.size());
  for (const auto& r : revoked) mem.revoke(r.first, r.second);
  for (const Mr& m : mrs) {
    mrt.write_mr(m.index, m.ctx);
    for (size_t i = 0; i < m.pages.size(); ++i) mrt.write_mtt(static_cast<unsigned>(m.mtt_base + i), m.pages[i]);
  }
  for (const auto& e : extra_mtt) mrt.write_mtt(e.first, e.second);
}

EnvResult run_env(Block& b, const std::function<bool()>& idle, const World& w, const std::vector<Step>& script,
                  const EnvConfig& cfg) {
  SparseMemory mem;
  model::MrRegions mrt;
  w.install(mem, mrt);
  DmaModel dma(mem, cfg.dma, kW);
  std::mt19937_64 r_in(cfg.seed * 977 + 1), r_out(cfg.seed * 977 + 2), r_mr(cfg.seed * 977 + 3),
      r_ret(cfg.seed * 977 + 4);
  std::bernoulli_distribution in_go(1.0 - cfg.in_idle), out_go(1.0 - cfg.out_stall), ret_go(cfg.retire_p),
      nak(cfg.nak_p), rewind(cfg.rewind_p);
  b.reset();

  EnvResult res;
  res.out.resize(kOuts);
  std::vector<Txn> open(kOuts);
  std::vector<bool> holding(kOuts, false);
  std::vector<Flit> held(kOuts);
  size_t step = 0;
  bool offering = false;
  uint64_t wait_left = 0, idle_run = 0;
  std::deque<std::pair<uint64_t, spec::MrResp>> mrq;
  // per QP, the WQEs tracked and not yet retired: their status, last PSN and
  // the cycle from which an ACK may cover them (some cycles after their last
  // packet left, as a real ACK comes a round trip later; an amend comes first)
  struct Pend {
    uint8_t status;
    uint32_t first_psn, last_psn;
    uint64_t done_at;
    uint16_t idx;
    bool read;  // done when its request left (its responses would follow a round trip later)
    bool local;  // BIND_MW / LOCAL_INV: no packet, done with the WQE before it (never rewound to)
    bool again = false;  // rewound: to be sent again
  };
  const auto in_range = [](const Pend& e, uint32_t psn) {
    return ((psn - e.first_psn) & 0xFFFFFF) <= ((e.last_psn - e.first_psn) & 0xFFFFFF);
  };
  constexpr uint64_t kNotYet = ~uint64_t{0};
  std::map<unsigned, std::deque<Pend>> pending;
  std::map<unsigned, std::set<uint32_t>> last_seen;  // last packets out before their WQE's sq_track
  bool ret_offer = false;
  spec::SqRetire ret;
  unsigned ret_rr = 0;
  size_t tracks = 0;
  uint64_t last_move = 0;  // a block that stops moving without being idle is stuck
  static const Flit kIdle{};

  for (uint64_t cyc = 0;; ++cyc) {
    if (cyc >= cfg.max_cycles) {
      res.error = "the run did not finish in " + std::to_string(cfg.max_cycles) + " cycles";
      break;
    }
    const bool is_idle = idle();
    if (is_idle) last_move = cyc;
    if (cyc - last_move > 200000) {
      res.error = "stuck: nothing moved for 200000 cycles and the block is not idle, cycle " + std::to_string(cyc);
      break;
    }
    idle_run = is_idle ? idle_run + 1 : 0;
    bool pending_any = false, ackable = false;
    for (const auto& p : pending) {
      pending_any |= !p.second.empty();
      ackable |= !p.second.empty() && p.second.front().done_at <= cyc;
    }
    // ---- the control script
    const Step* s = step < script.size() ? &script[step] : nullptr;
    if (s && s->kind == Step::kWait) {
      if (wait_left == 0) wait_left = s->cycles + 1;
      if (--wait_left == 0) ++step;
      s = nullptr;
    } else if (s && s->kind == Step::kWaitIdle) {
      if (idle_run >= 32 && mrq.empty() && !ret_offer && (!cfg.auto_retire || !pending_any)) {
        res.idle_tracks.push_back(tracks);
        ++step;
      }
      s = nullptr;
    }
    if (s && !offering) offering = in_go(r_in);
    const bool scr_v = s && offering;
    for (unsigned p = kInCfg; p <= kInRetire; ++p)
      if (!(scr_v && s->port == p) && !(p == kInRetire && ret_offer)) b.set_input(p, false, kIdle);
    if (scr_v) b.set_input(s->port, true, s->flit);
    // ---- the completer stand-in: retire a few tracked WQEs of one QP
    if (!ret_offer && cfg.auto_retire && ackable && !(scr_v && s->port == kInRetire) && ret_go(r_ret)) {
      auto it = pending.lower_bound(ret_rr);
      while (it == pending.end() || it->second.empty() || it->second.front().done_at > cyc)
        it = it == pending.end() ? pending.begin() : std::next(it);
      ret_rr = it->first + 1;
      const auto& q = it->second;
      ret = spec::SqRetire{};
      ret.qpn = static_cast<uint16_t>(it->first);
      unsigned done = 0;
      while (done < q.size() && q[done].done_at <= cyc) ++done;
      unsigned count = std::min<unsigned>({done, 1u + static_cast<unsigned>(r_ret() % 4), 31u});
      for (unsigned i = 0; i < count; ++i)
        if (q[i].status != 0) {  // a failed WQE completes at the head: the QP is in error from there on
          count = i + 1;
          ret.error = 1;
          break;
        }
      if (nak(r_ret)) {
        ret.error = 1;
        count = std::min<unsigned>(static_cast<unsigned>(q.size()), 31u);
      } else if (!ret.error && rewind(r_ret)) {
        // the responder saw a packet missing: acknowledge what came before
        // it and send again from it (sometimes from the head itself)
        const unsigned t = static_cast<unsigned>(r_ret() % (count + 1));
        if (t < q.size() && q[t].status == 0 && !q[t].local) {
          const Pend& h = q[t];
          count = t;
          ret.rewind = 1;
          ret.rw_idx = h.idx;
          ret.rw_psn = h.first_psn;
          ret.rw_skip = static_cast<uint32_t>(r_ret() % (((h.last_psn - h.first_psn) & 0xFFFFFF) + 1));
        }
      }
      ret.count = static_cast<uint8_t>(count);
      for (unsigned i = 0; i < count && i < q.size(); ++i) ret.rd_count = static_cast<uint8_t>(ret.rd_count + q[i].read);
      ret_offer = true;
    }
    if (ret_offer) b.set_input(kInRetire, true, desc_to_flit(ret));
    // ---- DMA read data and MR answers
    b.set_input(kInDma, dma.rd_data_valid(), dma.rd_data_valid() ? dma.rd_data() : kIdle);
    const bool mr_v = !mrq.empty() && mrq.front().first <= cyc;
    b.set_input(kInMr, mr_v, mr_v ? desc_to_flit(mrq.front().second) : kIdle);
    // ---- backpressure
    bool ready[kOuts];
    for (unsigned p = 0; p < kHint; ++p) ready[p] = out_go(r_out);
    ready[kRdReq] = ready[kRdReq] && dma.rd_req_ready();
    ready[kHint] = true;  // an event: never held back
    for (unsigned p = 0; p < kOuts; ++p) b.set_output_ready(p, ready[p]);
    b.eval();

    // ---- inputs taken
    if (scr_v && b.input_ready(s->port)) {
      ++step;
      offering = false;
      idle_run = 0;  // idle again only after what it took (a doorbell to an idle block) had its effect
    }
    if (ret_offer && b.input_ready(kInRetire) && !(scr_v && s->port == kInRetire)) {
      auto& q = pending[ret.qpn];
      for (unsigned i = 0; i < ret.count && !q.empty(); ++i) q.pop_front();
      if (ret.rewind)  // what is sent again is acknowledged only after it left again
        for (Pend& e : q)
          if (!e.local) {
            e.done_at = kNotYet;
            e.again = true;
          }
      ret_offer = false;
    }
    if (dma.rd_data_valid() && b.input_ready(kInDma)) dma.pop_rd_data();
    if (mr_v && b.input_ready(kInMr)) mrq.pop_front();
    // ---- outputs
    std::vector<spec::RoceTxHdr> hdrs_now;  // (applied after the loop: a WQE's track leaves with its first header)
    for (unsigned p = 0; p < kOuts; ++p) {
      const bool v = b.output_valid(p);
      Flit f = v ? b.output(p) : Flit{};
      if (p == kPay)  // lanes outside keep carry no information
        for (size_t k = 0; k < f.data.size(); ++k)
          if (!((f.keep >> k) & 1u)) f.data[k] = 0;
      if (holding[p] && (!v || !(f == held[p])) && res.error.empty())
        res.error = "output " + b.outputs()[p].name + " changed or dropped a flit it offered, cycle " +
                    std::to_string(b.cycle());
      holding[p] = v && !ready[p];
      if (holding[p]) held[p] = f;
      if (!v || !ready[p]) continue;
      last_move = cyc;
      Txn& t = open[p];
      if (t.flits.empty()) t.first_cycle = b.cycle();
      t.last_cycle = b.cycle();
      t.flits.push_back(f);
      if (p == kRdReq) dma.push_rd_req(desc_from_flit<spec::DmaRdReq>(f));
      if (p == kMrReq) {
        const uint64_t lat = cfg.mr_lat_min + r_mr() % (cfg.mr_lat_max - cfg.mr_lat_min + 1);
        mrq.emplace_back(cyc + lat, mrt.execute(desc_from_flit<spec::MrReq>(f)));  // (BIND, INVALIDATE act)
      }
      if (p == kTrack) {
        const auto tr = desc_from_flit<spec::SqTrack>(f);
        auto& q = pending[tr.qpn];
        if (tr.amend) {
          for (Pend& e : q)
            if (e.idx == tr.wqe_idx) e.status = tr.status;
        } else {
          // a failure is tracked after its packets (if any): done; a start
          // is done once its last packet (a READ: its request, first_psn)
          // left (the model's output queues may let that header out first)
          const bool read = tr.wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kRdmaRead);
          const bool local = tr.wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kBindMw) ||
                             tr.wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kLocalInv);
          // (a UC WQE, unacked, is tracked once its packets left: done)
          const bool waits = tr.status == 0 && !local && !tr.unacked &&
                             !last_seen[tr.qpn].erase(read ? tr.first_psn : tr.last_psn);
          q.push_back({tr.status, tr.first_psn, tr.last_psn, waits ? kNotYet : cyc + 16, tr.wqe_idx, read, local});
        }
        // a failure puts the QP in ERR: what waits to be sent again after a
        // rewind never is (the requester flushes from its high-water mark;
        // the completer completes it with the rest)
        if (tr.status != 0)
          for (Pend& e : q)
            if (e.again && e.done_at == kNotYet) e.done_at = cyc + 16;
        ++tracks;
      }
      if (p == kHdr) hdrs_now.push_back(desc_from_flit<spec::RoceTxHdr>(f));
      if (p != kPay || f.last) {
        res.out[p].push_back(std::move(t));
        t = Txn{};
      }
    }
    for (const auto& h : hdrs_now) {
      if (!h.ack_req) continue;
      const bool read_req = h.opcode == spec::kRcReadReq;  // any PSN of its READ (sent again from a response)
      bool found = false;
      for (Pend& e : pending[h.src_qpn])
        if (e.done_at == kNotYet && (read_req ? e.read && in_range(e, h.psn) : e.last_psn == h.psn)) {
          e.done_at = cyc + 16;
          found = true;
          break;
        }
      if (!found) last_seen[h.src_qpn].insert(h.psn);
    }
    b.clock();
    dma.clock();
    if (step >= script.size() && idle_run >= 32 && mrq.empty() && !ret_offer &&
        (!cfg.auto_retire || !pending_any)) {
      res.cycles = cyc;
      break;
    }
  }
  res.counters = b.counters();
  return res;
}

static std::vector<Txn> payload_reads_of(const std::vector<Txn>& reads) {
  std::vector<Txn> out;
  for (const Txn& t : reads)
    if (desc_from_flit<spec::DmaRdReq>(t.flits[0]).tag == spec::kDmaTagPayload) out.push_back(t);
  return out;
}

std::string compare_runs(const Block& ports, const EnvResult& rtl, const EnvResult& mdl, size_t* compared) {
  size_t n = 0;
  for (unsigned p = 0; p < kOuts; ++p) {
    // WQE reads (tag 0) and prefetches (tag 2) follow the scheduler's view a
    // cycle after each pick: which WQE is prefetched, and so which head is
    // read at all, depends on when doorbells and retires land, where the
    // model is not cycle-exact. They change timing only (check_expect holds
    // each one to a WQE slot); the payload reads are compared.
    const auto a = p == kRdReq ? payload_reads_of(rtl.out[p]) : rtl.out[p];
    const auto m = p == kRdReq ? payload_reads_of(mdl.out[p]) : mdl.out[p];
    for (size_t i = 0; i < std::max(a.size(), m.size()); ++i) {
      if (i < a.size() && i < m.size() && a[i].flits == m[i].flits) {
        ++n;
        continue;
      }
      std::ostringstream o;
      o << "port " << ports.outputs()[p].name << " transaction " << i << " differs\n  rtl:   "
        << (i < a.size() ? describe_txn(p, a[i]) : "(none: the RTL stopped here)") << "\n  model: "
        << (i < m.size() ? describe_txn(p, m[i]) : "(none: the model stopped here)");
      if (compared) *compared = n;
      return o.str();
    }
  }
  if (rtl.counters != mdl.counters) return "counters differ at the end";
  if (compared) *compared = n;
  return "";
}

}  // namespace rocenic::reqtest
