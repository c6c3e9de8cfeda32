// Scenarios (Builder) and the check of a run against them (check_expect), requester_env.h.
#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>

#include "blocks/requester_env.h"
#include "common/desc_flit.h"
#include "common/sq_doorbell.h"

namespace rocenic::reqtest {

constexpr uint32_t kAckEvery = (1u << spec::kCsrAckReqReset) - 1;
// ---------------------------------------------------------------- scenarios

uint32_t Builder::add_window(unsigned index, uint16_t pd, bool type2) {
  World::Mr m;
  m.index = index;
  m.ctx.key = static_cast<uint8_t>(1 + rng_() % 255);
  m.ctx.pd = pd;
  m.ctx.mw = 1;
  m.ctx.mw_type2 = type2 ? 1 : 0;
  world.mrs.push_back(m);
  return index << 8 | m.ctx.key;
}

void Builder::allow_binds(unsigned index, uint8_t access) {
  for (auto& m : world.mrs)
    if (m.index == index) {
      m.ctx.mw_bind = 1;
      m.ctx.access = access;
    }
}

uint32_t Builder::add_mr(unsigned index, uint16_t pd, uint64_t iova, uint64_t length, unsigned page_shift,
                         uint64_t bus_base, bool readable, int mtt_base) {
  World::Mr m;
  m.index = index;
  const uint64_t page = uint64_t{1} << page_shift;
  const uint64_t first = iova & ~(page - 1);
  const size_t npages = static_cast<size_t>((iova + length - first + page - 1) / page);
  std::vector<uint64_t> perm(npages);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), rng_);
  for (size_t i = 0; i < npages; ++i) m.pages.push_back(bus_base + perm[i] * page);
  m.mtt_base = mtt_base >= 0 ? static_cast<unsigned>(mtt_base) : next_mtt_;
  if (mtt_base < 0) next_mtt_ += static_cast<unsigned>(npages);
  m.ctx.valid = 1;
  m.ctx.key = static_cast<uint8_t>(1 + rng_() % 255);
  m.ctx.pd = pd;
  m.ctx.access = 1;
  m.ctx.iova = iova;
  m.ctx.length = length;
  m.ctx.mtt_base = static_cast<uint16_t>(m.mtt_base);
  m.ctx.page_shift = static_cast<uint8_t>(page_shift);
  m.readable = readable;
  m.content.resize(length);
  for (auto& c : m.content) c = static_cast<uint8_t>(rng_());
  for (size_t i = 0; i < npages && readable; ++i) {
    world.allowed.emplace_back(m.pages[i], page);
    const uint64_t lo = std::max(iova, first + i * page), hi = std::min(iova + length, first + (i + 1) * page);
    world.writes.emplace_back(m.pages[i] + (lo - first - i * page),
                              std::vector<uint8_t>(m.content.begin() + (lo - iova), m.content.begin() + (hi - iova)));
  }
  world.mrs.push_back(m);
  return (index << 8) | m.ctx.key;
}

const World::Mr& Builder::mr(unsigned index) const {
  for (const auto& m : world.mrs)
    if (m.index == index) return m;
  return world.mrs.front();
}

void Builder::add_qp(uint16_t qpn, unsigned pmtu, unsigned sq_lsz, uint32_t sq_psn, uint16_t pd, bool uc) {
  QpRun& r = run_[qpn];
  r.sq_base = 0x7000000000ull + uint64_t{qpn} * 0x200000ull;
  r.lsz = sq_lsz;
  r.pd = pd;
  world.allowed.emplace_back(r.sq_base, uint64_t{1} << (sq_lsz + spec::kWqeSlotLog2));
  spec::QpCfg c;
  c.qpn = qpn;
  c.qp_type = static_cast<uint8_t>(uc ? spec::QpType::kUc : spec::QpType::kRc);
  c.pd = pd;
  c.sq_base = r.sq_base;
  c.sq_lsz = static_cast<uint8_t>(sq_lsz);
  c.pmtu = static_cast<uint8_t>(pmtu);
  c.dest_qpn = static_cast<uint32_t>(rng_() & 0xFFFFFF);
  c.sq_psn = sq_psn & 0xFFFFFF;
  c.rq_psn = static_cast<uint32_t>(rng_() & 0xFFFFFF);
  c.l3 = static_cast<uint8_t>(rng_() % 3);
  c.vlan_valid = rng_() % 2;  // a VLAN GID: 802.1Q with PCP = SL & 7
  c.vlan_vid = static_cast<uint16_t>(rng_() % 4095);
  c.sl = static_cast<uint8_t>(rng_() % 16);
  c.src_mac = rng_() & 0xFFFFFFFFFFFFull;
  c.dst_mac = rng_() & 0xFFFFFFFFFFFFull;
  for (auto& b : c.src_ip) b = static_cast<uint8_t>(rng_());
  for (auto& b : c.dst_ip) b = static_cast<uint8_t>(rng_());
  c.tclass = static_cast<uint8_t>(rng_());
  c.ttl = static_cast<uint8_t>(rng_());
  c.flow_label = static_cast<uint32_t>(rng_() & 0xFFFFF);
  c.max_rd_atomic = static_cast<uint8_t>(spec::kMaxQpRdAtom);
  qps[qpn].cfg = c;
  for (auto a : {spec::QpAction::kReset, spec::QpAction::kToInit, spec::QpAction::kToRtr, spec::QpAction::kToRts})
    cfg_action(qpn, a);
}

void Builder::add_ud_qp(uint16_t qpn, unsigned sq_lsz, uint32_t sq_psn, uint16_t pd, uint32_t qkey) {
  add_qp(qpn, 3, sq_lsz, sq_psn, pd);  // (its path fields, random, must not show in a datagram)
  ExpQp& q = qps[qpn];
  q.cfg.qp_type = static_cast<uint8_t>(spec::QpType::kUd);
  q.cfg.qkey = qkey;
  q.gids = world.gids;
  q.port_mac = world.port_mac;
  q.port_mtu = world.port_mtu;
  script.resize(script.size() - 4);  // the RC QP's qp_cfg steps, again as UD
  for (auto a : {spec::QpAction::kReset, spec::QpAction::kToInit, spec::QpAction::kToRtr, spec::QpAction::kToRts})
    cfg_action(qpn, a);
}

void Builder::cfg_action(uint16_t qpn, spec::QpAction a) {
  spec::QpCfg c = qps[qpn].cfg;
  c.action = static_cast<uint8_t>(a);
  using spec::QpAction;
  using spec::QpState;
  // (ATTR here is SQD -> RTS: new WQEs start again)
  const QpState st = a == QpAction::kToInit                        ? QpState::kInit
                     : a == QpAction::kToRtr                       ? QpState::kRtr
                     : a == QpAction::kToRts || a == QpAction::kAttr ? QpState::kRts
                     : a == QpAction::kToErr                       ? QpState::kErr
                     : a == QpAction::kToSqd                       ? QpState::kSqd
                                                                   : QpState::kReset;
  c.state = static_cast<uint8_t>(st);
  script.push_back({Step::kFlit, kInCfg, desc_to_flit(c), 0});
  if (a == QpAction::kReset || a == QpAction::kDestroy) run_[qpn].pi = 0;
}

void Builder::ring(uint16_t qpn) {
  spec::WqDb d;
  d.qpn = qpn;
  d.pi = run_[qpn].pi;
  script.push_back({Step::kFlit, kInDb, desc_to_flit(d), 0});
}

void Builder::ring_bf(uint16_t qpn) {
  SqDoorbell d;
  d.db.qpn = qpn;
  d.db.pi = run_[qpn].pi;
  d.bf = true;
  const std::vector<uint8_t>& w = run_[qpn].last;
  std::copy_n(w.begin(), std::min<size_t>(w.size(), d.wqe.size()), d.wqe.begin());
  script.push_back({Step::kFlit, kInDb, sq_doorbell_to_flit(d), 0});
}

void Builder::retire(uint16_t qpn, unsigned count, bool error, unsigned reads) {
  spec::SqRetire r;
  r.qpn = qpn;
  r.count = static_cast<uint8_t>(count);
  r.rd_count = static_cast<uint8_t>(reads);
  r.error = error;
  script.push_back({Step::kFlit, kInRetire, desc_to_flit(r), 0});
}

void Builder::rewind(uint16_t qpn, uint16_t idx, uint32_t first_psn, uint32_t skip, unsigned count) {
  spec::SqRetire r;
  r.qpn = qpn;
  r.count = static_cast<uint8_t>(count);
  r.rewind = 1;
  r.rw_idx = idx;
  r.rw_psn = first_psn & 0xFFFFFF;
  r.rw_skip = skip;
  script.push_back({Step::kFlit, kInRetire, desc_to_flit(r), 0});
}

std::vector<Sge> Builder::sges_in(unsigned mr_index, uint32_t len, unsigned n, bool odd) {
  const World::Mr& m = mr(mr_index);
  std::vector<uint32_t> cuts{0, len};
  for (unsigned i = 1; i < n; ++i) cuts.push_back(static_cast<uint32_t>(rng_() % (uint64_t{len} + 1)));
  std::sort(cuts.begin(), cuts.end());
  std::vector<Sge> out;
  for (unsigned i = 0; i < n; ++i) {
    Sge s;
    s.len = cuts[i + 1] - cuts[i];
    uint64_t off = rng_() % (m.ctx.length - s.len + 1);
    if (!odd) off &= ~uint64_t{63};
    s.addr = m.ctx.iova + off;
    s.lkey = (m.index << 8) | m.ctx.key;
    out.push_back(s);
  }
  return out;
}

void Builder::post(uint16_t qpn, const WqeSpec& w, bool poison_slot) {
  QpRun& r = run_[qpn];
  ExpQp& q = qps[qpn];
  ExpWqe e;
  e.qpn = qpn;
  e.idx = r.pi;
  e.w = w;
  if (!e.w.wr_id) e.w.wr_id = (uint64_t{qpn} << 32) | r.pi | (rng_() << 48);
  uint64_t sum = 0;
  for (const Sge& s : w.sges) sum += s.len;
  e.len = static_cast<uint32_t>(w.len_override >= 0 ? w.len_override : w.inl ? w.inline_data.size() : sum);
  const unsigned nsge = w.nsge_override >= 0 ? static_cast<unsigned>(w.nsge_override) : static_cast<unsigned>(w.sges.size());

  std::vector<uint8_t> b(spec::SendWqe::kSize, 0);
  spec::SendWqe sw;
  sw.wr_id = e.w.wr_id;
  sw.opcode = w.op;
  sw.flags = static_cast<uint8_t>((w.signaled ? 1 : 0) | (w.solicited ? 2 : 0) | (w.inl ? 4 : 0) | (w.fence ? 8 : 0));
  sw.num_sge = static_cast<uint8_t>(nsge);
  sw.imm = w.imm;
  sw.remote_addr = w.raddr;
  sw.rkey = w.rkey;
  sw.length = e.len;
  sw.bind_mr_lkey = w.bind_lkey;
  sw.bind_access = w.bind_access;
  if (q.cfg.qp_type == static_cast<uint8_t>(spec::QpType::kUd)) {
    sw.ud_dest_qpn = w.av.dest_qpn;
    sw.ud_qkey = w.av.qkey;
    sw.ud_dgid = w.av.dgid;
    for (unsigned k = 0; k < 6; ++k) sw.ud_dmac[k] = static_cast<uint8_t>(w.av.dmac >> (40 - 8 * k));
    sw.ud_sgid_index = w.av.sgid;
    sw.ud_hop_limit = w.av.hop;
    sw.ud_flow_label = w.av.flow_label;
    sw.ud_traffic_class = w.av.tclass;
    sw.ud_sl = w.av.sl;
  }
  sw.store(b.data());
  if (w.inl) {
    for (size_t i = 0; i < w.inline_data.size() && i < 96; ++i) b[32 + i] = w.inline_data[i];
  } else {
    for (size_t i = 0; i < w.sges.size() && i < spec::kMaxSge; ++i) {
      uint8_t* p = b.data() + 32 + 16 * i;
      for (unsigned k = 0; k < 8; ++k) p[k] = static_cast<uint8_t>(w.sges[i].addr >> (8 * k));
      for (unsigned k = 0; k < 4; ++k) p[8 + k] = static_cast<uint8_t>(w.sges[i].len >> (8 * k));
      for (unsigned k = 0; k < 4; ++k) p[12 + k] = static_cast<uint8_t>(w.sges[i].lkey >> (8 * k));
    }
  }
  const uint64_t slot = r.sq_base + (uint64_t{r.pi & ((1u << r.lsz) - 1)} << spec::kWqeSlotLog2);
  world.writes.emplace_back(slot, b);
  r.last = b;
  if (poison_slot) world.revoked.emplace_back(slot, uint64_t{1} << spec::kWqeSlotLog2);
  r.pi = static_cast<uint16_t>(r.pi + 1);

  // ---- what it carries: its SGE bytes (or inline data), when they exist
  e.poisoned = poison_slot;
  if (poison_slot) e.w.bad = true;
  if (w.inl) {
    e.payload = w.inline_data;
  } else {
    for (unsigned i = 0; i < nsge && i < w.sges.size(); ++i) {
      const Sge& s = w.sges[i];
      const World::Mr* m = nullptr;
      for (const auto& x : world.mrs)
        if (x.index == (s.lkey >> 8)) m = &x;
      if (s.len == 0) continue;
      if (!m || s.addr < m->ctx.iova || s.addr + s.len > m->ctx.iova + m->ctx.length) {
        e.payload.clear();  // not bytes of any MR: a WQE meant to fail
        break;
      }
      e.payload.insert(e.payload.end(), m->content.begin() + (s.addr - m->ctx.iova),
                       m->content.begin() + (s.addr - m->ctx.iova + s.len));
    }
  }
  q.wqes.push_back(e);
}

// ---------------------------------------------------------------- the checker

std::string check_expect(const EnvResult& r, const std::map<uint16_t, ExpQp>& qps, std::string* summary) {
  std::ostringstream err;
  // packets: each header with its payload transaction
  struct Pkt {
    spec::RoceTxHdr h;
    std::vector<uint8_t> bytes;
  };
  std::map<uint32_t, std::vector<Pkt>> pkts;
  std::map<uint32_t, std::map<uint32_t, size_t>> sent_at;  // per QP: PSN -> its first transmission
  std::map<uint32_t, std::vector<size_t>> reads;           // per QP: its READ requests' first transmissions
  size_t pay_i = 0, resent = 0, reasked = 0;
  for (const Txn& t : r.out[kHdr]) {
    Pkt p;
    p.h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    if (p.h.pay_len > 0) {
      if (pay_i >= r.out[kPay].size()) return "a header with pay_len > 0 has no payload transaction";
      const Txn& pt = r.out[kPay][pay_i++];
      for (size_t i = 0; i < pt.flits.size(); ++i) {
        const Flit& f = pt.flits[i];
        const bool last = i + 1 == pt.flits.size();
        const uint64_t full = ~uint64_t{0};
        if (!last && f.keep != full) return "payload beat before the last is not full";
        if (last && (f.keep & (f.keep + 1)) != 0) return "payload keep not contiguous from lane 0";
      }
      p.bytes = beats_to_bytes(pt.flits);
      if (p.bytes.size() != p.h.pay_len)
        return "payload of " + std::to_string(p.bytes.size()) + " bytes for pay_len " + std::to_string(p.h.pay_len);
    }
    // A packet sent again (after a rewind) must equal its first transmission,
    // but for AckReq, which the first packet of a WQE sent again always sets
    // (checked by the rewind tests); the expectation below holds the first
    // transmissions.
    auto& first = sent_at[p.h.src_qpn];
    const auto it = first.find(p.h.psn);
    if (it != first.end()) {
      const Pkt& f = pkts[p.h.src_qpn][it->second];
      auto same = p.h;
      if (same.ack_req) same.ack_req = f.h.ack_req;
      if (!(f.h == same) || f.bytes != p.bytes)
        return "QP " + std::to_string(p.h.src_qpn) + " PSN " + std::to_string(p.h.psn) +
               ": sent again unlike the first time: " + p.h.describe() + " vs " + f.h.describe();
      ++resent;
      continue;
    }
    // A READ asked for again from response k > 0 (a rewind after responses
    // 0..k-1 arrived): PSN first + k, RETH va + k * mtu, length - k * mtu,
    // everything else as the first request (IBTA 9.7.4.1.4).
    if (p.h.opcode == spec::kRcReadReq && qps.count(static_cast<uint16_t>(p.h.src_qpn))) {
      const uint32_t mtu = 128u << qps.at(static_cast<uint16_t>(p.h.src_qpn)).cfg.pmtu;
      const Pkt* orig = nullptr;
      uint32_t k = 0;
      for (size_t i : reads[p.h.src_qpn]) {
        const spec::RoceTxHdr& o = pkts[p.h.src_qpn][i].h;
        const uint32_t n = std::max<uint32_t>(1, static_cast<uint32_t>((uint64_t{o.reth_len} + mtu - 1) / mtu));
        k = (p.h.psn - o.psn) & 0xFFFFFF;
        if (k > 0 && k < n) {
          orig = &pkts[p.h.src_qpn][i];
          break;
        }
      }
      if (orig) {
        spec::RoceTxHdr want = orig->h;
        want.psn = p.h.psn;
        want.reth_va = orig->h.reth_va + uint64_t{k} * mtu;
        want.reth_len = orig->h.reth_len - k * mtu;
        if (!(want == p.h))
          return "QP " + std::to_string(p.h.src_qpn) + " PSN " + std::to_string(p.h.psn) +
                 ": READ asked for again from response " + std::to_string(k) + " as " + p.h.describe() +
                 ", not " + want.describe();
        ++resent;
        ++reasked;
        continue;
      }
    }
    if (p.h.opcode == spec::kRcReadReq) reads[p.h.src_qpn].push_back(pkts[p.h.src_qpn].size());
    first[p.h.psn] = pkts[p.h.src_qpn].size();
    pkts[p.h.src_qpn].push_back(std::move(p));
  }
  if (pay_i != r.out[kPay].size()) return "payload transactions without a header";
  // Every READ or atomic request header (a rewind's too) comes with a hint to
  // read_place: its WQE's SGE when it has just one, else one_sge 0.
  {
    size_t hi = 0;
    for (const Txn& t : r.out[kHdr]) {
      const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
      if (h.opcode != spec::kRcReadReq && h.opcode != spec::kRcCmpSwap && h.opcode != spec::kRcFetchAdd) continue;
      if (hi >= r.out[kHint].size()) return "a READ or atomic request without its rd_hint: " + h.describe();
      const auto hint = desc_from_flit<spec::RdHint>(r.out[kHint][hi++].flits[0]);
      const ExpWqe* w = nullptr;
      if (const auto q = qps.find(hint.qpn); q != qps.end())
        for (const ExpWqe& e : q->second.wqes)
          if (e.idx == hint.wqe_idx) w = &e;
      if (hint.qpn != h.src_qpn || !w) return "rd_hint " + hint.describe() + " names no WQE of " + h.describe();
      const bool one = w->w.sges.size() == 1 && w->w.nsge_override < 0;
      if (hint.one_sge != one ||
          (one && (hint.addr != w->w.sges[0].addr || hint.length != w->w.sges[0].len || hint.lkey != w->w.sges[0].lkey)))
        return "rd_hint " + hint.describe() + " is not its WQE's SGE";
    }
    if (hi != r.out[kHint].size()) return "an rd_hint without a READ or atomic request";
  }
  // A WQE is tracked once (as it starts, or with a failure before any
  // packet); a failure while being sent follows as an amend of the same WQE
  // (once its packets left the requester's queue: later WQEs of the QP may
  // have been tracked meanwhile).
  std::map<uint16_t, std::vector<spec::SqTrack>> tracks;
  for (const Txn& t : r.out[kTrack]) {
    const auto tr = desc_from_flit<spec::SqTrack>(t.flits[0]);
    auto& v = tracks[tr.qpn];
    if (!tr.amend) {
      v.push_back(tr);
      continue;
    }
    auto it = std::find_if(v.rbegin(), v.rend(), [&](const spec::SqTrack& x) { return x.wqe_idx == tr.wqe_idx; });
    if (it == v.rend() || it->status != 0 || tr.status == 0 || it->last_psn != tr.last_psn ||
        it->first_psn != tr.first_psn)
      return "QP " + std::to_string(tr.qpn) + ": amend " + tr.describe() + " does not follow its WQE's sq_track";
    it->status = tr.status;
  }
  size_t n_pkts = 0, n_bytes = 0, n_wqe = 0, n_err = 0, n_read = 0;
  constexpr uint8_t kOk = static_cast<uint8_t>(spec::WcStatus::kSuccess);
  constexpr uint8_t kFlushErr = static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);
  for (const auto& [qpn, q] : qps) {
    const auto& trs = tracks[qpn];
    const auto& ps = pkts[qpn];
    if (trs.size() != q.wqes.size()) {
      err << "QP " << qpn << ": " << trs.size() << " sq_track for " << q.wqes.size() << " WQEs";
      return err.str();
    }
    uint32_t psn = q.cfg.sq_psn;
    size_t pi = 0;
    bool failed = false;    // the QP's first failure is behind: the rest is flushed ...
    bool flushing = false;  // ... from the first the requester flushes (the ones it had queued went)
    // UD: one packet of at most the port's MTU, to the WQE's address vector
    const bool ud = q.cfg.qp_type == static_cast<uint8_t>(spec::QpType::kUd);
    const unsigned mtu = 128u << (ud ? q.port_mtu : q.cfg.pmtu);
    for (size_t k = 0; k < q.wqes.size(); ++k) {
      const ExpWqe& e = q.wqes[k];
      const spec::SqTrack& t = trs[k];
      ++n_wqe;
      n_err += t.status != kOk;
      // success, failure and flush as the scenario means them
      const char* wrong = nullptr;
      if (flushing) wrong = t.status == kFlushErr ? nullptr : "after the QP's failure a WQE is flushed";
      else if (failed && t.status == kFlushErr) wrong = nullptr;
      else if (e.w.bad) wrong = t.status == kOk || t.status == kFlushErr ? "a WQE made to fail did not" : nullptr;
      else wrong = t.status == kOk ? nullptr : "a good WQE failed";
      if (wrong) {
        err << "QP " << qpn << " WQE " << e.idx << ": " << wrong << ": " << t.describe();
        return err.str();
      }
      flushing = flushing || (failed && t.status == kFlushErr);
      failed = failed || t.status != kOk;
      // whether its packets went out: the track's last PSN says (one before
      // the next PSN when none did); a success always sends
      const uint32_t full = std::max<uint32_t>(1, (e.len + mtu - 1) / mtu);
      if (t.first_psn != psn) {
        err << "QP " << qpn << " WQE " << e.idx << ": first_psn " << t.first_psn << ", not " << psn;
        return err.str();
      }
      // BIND_MW / LOCAL_INV: no packet, no PSN, nothing carried
      const bool local = e.w.op == 7 || e.w.op == 8, inv = e.w.op == 9;
      // UC: nothing acknowledges a WQE, so its track never names PSNs
      // (last_psn = first_psn - 1, unacked); its packets say whether it sent
      // (UD too)
      const bool uc = q.cfg.qp_type == static_cast<uint8_t>(spec::QpType::kUc) || ud;
      if (t.unacked != uc) {
        err << "QP " << qpn << " WQE " << e.idx << ": unacked " << int(t.unacked) << " on a " << (uc ? "UC/UD" : "RC")
            << " QP";
        return err.str();
      }
      // UD longer than the port MTU (IBTA C10-93.1.1): no packet, no error, its PSN taken
      const bool unsent = ud && e.len > mtu && t.status == kOk;
      const bool sent = !unsent && !local && t.status != kFlushErr &&
                        (uc ? pi < ps.size() && ps[pi].h.psn == psn : t.last_psn == ((psn + full - 1) & 0xFFFFFF));
      if ((!sent || uc) && t.last_psn != ((psn - 1) & 0xFFFFFF)) {
        err << "QP " << qpn << " WQE " << e.idx << ": last_psn " << t.last_psn << " is neither "
            << ((psn + full - 1) & 0xFFFFFF) << " (sent) nor " << ((psn - 1) & 0xFFFFFF) << " (not sent)";
        return err.str();
      }
      if (t.status == kOk && !sent && !local && !unsent) {
        err << "QP " << qpn << " WQE " << e.idx << ": succeeded without sending";
        return err.str();
      }
      // a READ sends one request for its `full` PSNs (one per response packet)
      const bool write = e.w.op <= 1, imm = e.w.op == 1 || e.w.op == 3, send = e.w.op == 2 || e.w.op == 3 || inv;
      const bool read = e.w.op == 4;
      const uint32_t npk = sent ? (read ? 1 : full) : 0;
      const uint8_t wc = write ? 1 : e.w.op == 4 ? 2 : e.w.op == 8 ? 5 : e.w.op == 7 ? 6 : 0;
      const uint64_t wr_id = e.poisoned ? 0 : e.w.wr_id;
      const uint32_t len = e.poisoned || local ? 0 : e.len;
      const bool signaled = !e.poisoned && e.w.signaled;
      if (t.wqe_idx != e.idx || t.wr_id != wr_id || t.byte_len != len || t.signaled != signaled ||
          (!e.poisoned && t.wc_opcode != wc)) {
        err << "QP " << qpn << " WQE " << e.idx << ": sq_track " << t.describe() << " does not carry the WQE's fields";
        return err.str();
      }
      std::vector<uint8_t> got;
      for (uint32_t i = 0; i < npk; ++i, ++pi) {
        if (pi >= ps.size()) {
          err << "QP " << qpn << " WQE " << e.idx << ": packet " << i << " of " << npk << " missing";
          return err.str();
        }
        const spec::RoceTxHdr& h = ps[pi].h;
        const bool first = i == 0, last = i + 1 == npk;
        const uint8_t base = write ? spec::kRcWriteFirst : spec::kRcSendFirst;
        const uint8_t op = (read          ? spec::kRcReadReq
                            : first && last ? (imm ? base + 5 : inv ? spec::kRcSendOnlyInv : base + 4)
                            : first         ? base
                            : last          ? (imm ? base + 3 : inv ? spec::kRcSendLastInv : base + 2)
                                            : base + 1) |
                           (uc && !ud ? 0x20 : 0);  // the UC opcodes
        const uint8_t want_op = ud ? static_cast<uint8_t>(imm ? spec::kUdSendOnlyImm : spec::kUdSendOnly) : op;
        const uint32_t pay = read ? 0 : last ? e.len - (npk - 1) * mtu : mtu;
        const bool reth = (write || read) && first;
        // the addressing: the QP's path, or (UD) the WQE's address vector
        // resolved through the GID entry at its sgid_index
        spec::QpCfg c = q.cfg;
        uint32_t want_qkey = 0;
        if (ud) {
          const model::GidEntry& g = q.gids[e.w.av.sgid];
          c.l3 = static_cast<uint8_t>(g.l3());
          c.src_ip = g.gid;
          c.vlan_valid = g.tagged();
          c.vlan_vid = g.vid();
          c.sl = e.w.av.sl;
          c.src_mac = q.port_mac;
          c.dst_mac = e.w.av.dmac;
          c.dst_ip = e.w.av.dgid;
          c.tclass = e.w.av.tclass;
          c.ttl = e.w.av.hop;
          c.flow_label = e.w.av.flow_label & 0xFFFFF;
          c.dest_qpn = e.w.av.dest_qpn & 0xFFFFFF;
          want_qkey = (e.w.av.qkey >> 31) ? q.cfg.qkey : e.w.av.qkey;  // bit 31: the QP's own
        }
        std::string why;
        if (h.opcode != want_op) why = "opcode";
        else if (h.psn != ((psn + i) & 0xFFFFFF)) why = "psn";
        // ACK coalescing at the CSR's reset value: the last packet and every PSN ending in 6 one bits;
        // a READ request always
        else if (h.ack_req != (!uc && (last || read || ((psn + i) & kAckEvery) == kAckEvery))) why = "ack_req";
        else if (h.se != (last && e.w.solicited && (send || imm))) why = "se";
        else if (h.pay_len != pay) why = "pay_len";
        else if (reth && (h.reth_va != e.w.raddr || h.reth_rkey != e.w.rkey || h.reth_len != e.len))
          why = "RETH";
        else if (!reth && (h.reth_va || h.reth_rkey || h.reth_len)) why = "RETH outside the first";
        else if (h.imm != (imm && last   ? ((e.w.imm >> 24) | ((e.w.imm >> 8) & 0xFF00) | ((e.w.imm << 8) & 0xFF0000) |
                                            (e.w.imm << 24))
                           : inv && last ? e.w.imm  // IETH: the rkey as a number
                                         : 0))
          why = "imm";
        else if (h.l3 != c.l3 || h.dst_mac != c.dst_mac || h.src_mac != c.src_mac || h.src_ip != c.src_ip ||
                 h.dst_ip != c.dst_ip || h.tclass != c.tclass || h.ttl != c.ttl || h.flow_label != c.flow_label)
          why = "addressing";
        else if (h.vlan_valid != c.vlan_valid || h.vlan_vid != c.vlan_vid ||
                 h.vlan_pcp != (c.vlan_valid ? c.sl & 7 : 0))
          why = "VLAN tag (PCP = SL & 7)";
        else if (h.pkey != 0xFFFF || h.dst_qpn != c.dest_qpn || h.ip_id || h.mig || h.fecn ||
                 h.becn || h.qkey != want_qkey || h.aeth_syndrome || h.aeth_msn || h.swap_add || h.compare ||
                 h.atomic_orig)
          why = "BTH/other fields";
        if (!why.empty()) {
          err << "QP " << qpn << " WQE " << e.idx << " packet " << i << "/" << npk << ": " << why << " wrong in "
              << h.describe();
          return err.str();
        }
        got.insert(got.end(), ps[pi].bytes.begin(), ps[pi].bytes.end());
        ++n_pkts;
        n_read += read;
      }
      if (sent) psn = (psn + full) & 0xFFFFFF;
      if (unsent) psn = (psn + 1) & 0xFFFFFF;
      if (read || local || unsent) continue;  // no payload: a READ's SGEs are where the responses will land
      if (got.size() != e.len && sent) {
        err << "QP " << qpn << " WQE " << e.idx << ": " << got.size() << " payload bytes for length " << e.len;
        return err.str();
      }
      if (t.status == kOk && got != e.payload) {
        size_t at = 0;
        while (at < got.size() && got[at] == e.payload[at]) ++at;
        err << "QP " << qpn << " WQE " << e.idx << ": payload differs from the SGE bytes at byte " << at << " of "
            << e.len;
        return err.str();
      }
      n_bytes += got.size();
    }
    if (pi != ps.size()) {
      err << "QP " << qpn << ": " << ps.size() - pi << " packets more than the WQEs make";
      return err.str();
    }
  }
  // read requests: the slot of a WQE posted on one of the QPs (tag 0: its
  // head, or its SGEs past the sixth; tag 2: the head of the WQE the next
  // pick may take), or pieces inside one 4 KiB bus page (tag 1)
  std::set<uint64_t> slots;
  for (const auto& [qpn, x] : qps)
    for (const ExpWqe& e : x.wqes)
      slots.insert(x.cfg.sq_base + (uint64_t{e.idx & ((1u << x.cfg.sq_lsz) - 1)} << spec::kWqeSlotLog2));
  for (const Txn& t : r.out[kRdReq]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    const uint64_t in_slot = q.addr & ((1u << spec::kWqeSlotLog2) - 1);
    const bool head = q.len == spec::kWqeHead && in_slot == 0 && slots.count(q.addr);
    // (SGEs 6..: 16 bytes each, up to the sixteenth)
    const bool tail = in_slot == spec::kWqeHead && q.len % 16 == 0 && q.len <= 16 * (spec::kMaxSge - 6) &&
                      slots.count(q.addr - spec::kWqeHead);
    if (q.tag == spec::kDmaTagWqe ? !(head || tail)
        : q.tag == spec::kDmaTagPrefetch ? !head
                     : (q.tag != spec::kDmaTagPayload || q.len == 0 || q.len > 4096 || (q.addr & 0xFFF) + q.len > 4096))
      return "bad read request " + q.describe();
  }
  if (summary) {
    std::ostringstream o;
    o << n_wqe << " WQEs (" << n_err << " failed or flushed), " << n_pkts << " packets (+" << resent
      << " sent again), " << n_read << " READ requests (+" << reasked << " asked again from a later response), "
      << n_bytes
      << " payload bytes, " << r.out[kRdReq].size() << " reads, " << r.out[kMrReq].size() << " MR requests";
    *summary = o.str();
  }
  return "";
}

}  // namespace rocenic::reqtest
