#include "xport/requester.h"

#include <algorithm>

#include "sched/flit_adapter.h"
#include "xport/tx_addr.h"

namespace rocenic::model {
namespace {

// Timing, in cycles (calibrated against the RTL by engine_bench).
constexpr Cycle kPick = 2;      // idle -> the WQE read request (IDLE, FETCH)
constexpr Cycle kDecode = 2;    // WQE data in -> decided
constexpr Cycle kQueued = 3;    // a header queued -> out (the queue's write and registered read, the header register)
constexpr Cycle kHeaderRead = 2;  // a packet's last read beat in -> its header out (the arrival count's register)
constexpr Cycle kRunStart = 1;  // the SGE checks' last answer (all good) -> the run (RUN the cycle after it)
constexpr Cycle kFirstCheck = 1; // the first SGE check: asked in DECODE, a cycle before CHECK
constexpr Cycle kIssue = 1;     // a payload read decided -> its request (req_issue's register)
constexpr Cycle kTrack = 2;     // the check's (local operation's) last answer -> the sq_track of a failure (CHECK sees it, then TRACK)
constexpr Cycle kWriteBack = 2; // sq_track -> the next pick

constexpr unsigned kMaxSge = spec::kMaxSge;
// SGEs in the first WQE_HEAD bytes of a WQE; the rest are fetched only when used
constexpr unsigned kHeadSge = kWqeHeadSges;  // (common/sq_doorbell.h)
constexpr uint32_t kMaxInline = 96;
constexpr uint32_t kPsnMask = 0xFFFFFF;
// the rights a window may be bound with (IBV_ACCESS_REMOTE_WRITE | READ | ATOMIC)
constexpr uint32_t kWindowRights = static_cast<uint32_t>(spec::Access::kRemoteWrite) |
                                   static_cast<uint32_t>(spec::Access::kRemoteRead) |
                                   static_cast<uint32_t>(spec::Access::kRemoteAtomic);
constexpr Cycle kPendFree = 2;  // a payload's last beat to the header it held back (pend_q, then the header register)
constexpr uint8_t kPayloadTag = spec::kDmaTagPayload;    // dma_rd_req tag of payload reads
constexpr uint8_t kPrefetchTag = spec::kDmaTagPrefetch;  // ... and of a WQE head read ahead (WQE reads: kDmaTagWqe)
constexpr uint8_t kRunTag = 0x20;   // mr_req tag of a later page run (| SGE); SGE checks: the SGE index

uint8_t wc(spec::WcStatus s) { return static_cast<uint8_t>(s); }
uint8_t qs(spec::QpState s) { return static_cast<uint8_t>(s); }
uint32_t bswap32(uint32_t v) { return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24); }

}  // namespace

Requester::Requester(Scheduler& s, unsigned data_bytes, unsigned max_qp, unsigned gid_tbl_len)
    : qp_cfg(s, this, 1),
      sq_db(s, this, 1),
      sq_retire(s, this, 1),
      dma_rd(s, this, 4),
      mr_resp(s, this, 1),
      s_(s),
      bytes_(data_bytes),
      gid_(gid_tbl_len),
      qps_(max_qp),
      pfm_(max_qp, false) {}

bool Requester::eligible(unsigned q) const {
  const Qp& x = qps_[q];
  if (x.state == qs(spec::QpState::kErr)) return x.pi != x.hw;
  // SQD: what was started finishes (rewinds, sending again), nothing new starts
  if (x.state == qs(spec::QpState::kSqd)) return x.rw || x.ci != x.hw;
  return x.state == qs(spec::QpState::kRts) &&
         (x.rw || x.ci != x.hw || (x.pi != x.hw && x.outstanding < kWindow && !x.rdw));
}

bool Requester::any_eligible() const {
  for (unsigned q = 0; q < qps_.size(); ++q)
    if (eligible(q)) return true;
  return false;
}

// qp_cfg, sq_retire and sq_db, in the order they arrived (same cycle: that
// order); a qp_cfg for the QP being worked on waits until its WQE is done.
bool Requester::control(Cycle now) {
  // Nothing in the write-back cycle: req_qp_ctx's context memories have one
  // write port, and its ready outputs are low then. (In the engine the CSR's
  // doorbell waits behind it, and so does the host's next doorbell write.)
  if (writing_back()) {
    if (qp_cfg.ready() || sq_retire.ready() || sq_db.ready()) s_.wake_at(this, now + 1);
    return false;
  }
  // (and any qp_cfg while the back end holds packets: none may outlive a RESET)
  // (and one for the QP the engine picks in this cycle: the pick goes first, as req_qp_ctx's)
  const auto picks = [&](unsigned c) {
    if (st_ != St::kIdle || now < pick_from() || pfv_ || now + 1 < pfv_done_at_) return false;
    const unsigned n = static_cast<unsigned>(qps_.size());
    for (unsigned i = 0; i < n; ++i)
      if (eligible((rr_ + i) % n) && !(now < eng_at_ && (rr_ + i) % n == wb_qpn_)) return (rr_ + i) % n == c;
    return false;
  };
  // (reads ahead still going beside the last WQE: the RTL's engine is not idle either)
  const bool busy_with_act = st_ != St::kIdle || pfv_ || now + 1 < pfv_done_at_;
  const bool cfg_waits = qp_cfg.ready() && ((busy_with_act && qp_cfg.front().qpn == act_) || !be_empty(now) ||
                                            picks(qp_cfg.front().qpn));
  if (cfg_waits && st_ == St::kIdle) if (be_empty_at_ > now) s_.wake_at(this, be_empty_at_);
  // (the channel holds one: the RTL's register, which the port fills whenever it is free)
  // (a doorbell never overtakes a qp_cfg that waits: RESET then a post of the new QP)
  const int pick = first_arrived(
      {cfg_waits ? kNever : qp_cfg.next_at(), sq_retire.next_at(), qp_cfg.ready() ? kNever : sq_db.next_at()}, now);
  if (pick < 0) return false;
  using A = spec::QpAction;
  using S = spec::QpState;
  if (pick == 0) {
    const spec::QpCfg c = qp_cfg.pop();
    if (c.qpn >= qps_.size()) return true;
    if (c.qpn == bf_qpn_) bf_valid_ = false;  // (destroyed, reset: its kept SQ_BF WQE is not its next)
    for (PfEntry& e : pe_)  // (and its heads read ahead; one still coming is not kept)
      if (e.qpn == c.qpn && (e.st == Pe::kPend || e.st == Pe::kDone)) e.st = e.st == Pe::kPend ? Pe::kDrop : Pe::kFree;
    pfm_[c.qpn] = false;
    if (pfo_ && pfo_qpn_ == c.qpn) pfo_drop_ = true;
    Qp& q = qps_[c.qpn];
    q.cfg = c;
    q.rdw = false;  // (max_rd_atomic may have grown: a deferred READ looks again)
    switch (static_cast<A>(c.action)) {
      case A::kReset:
      case A::kDestroy:
        q.pi = q.ci = q.hw = 0;
        q.outstanding = 0;
        q.rd_out = 0;
        q.rw = false;
        q.state = qs(S::kReset);
        break;
      case A::kToInit: q.state = qs(S::kInit); break;
      case A::kToRtr: q.state = qs(S::kRtr); break;
      case A::kToRts:
        q.state = qs(S::kRts);
        q.psn = c.sq_psn & kPsnMask;
        break;
      case A::kToErr: q.state = qs(S::kErr); break;
      case A::kToSqd:  // (a QP this block already failed stays in ERR until roce_cmd hears of it)
        if (q.state == qs(S::kRts)) q.state = qs(S::kSqd);
        break;
      case A::kAttr:  // SQD -> RTS: new WQEs start again
        if (q.state == qs(S::kSqd) && c.state == qs(S::kRts)) q.state = qs(S::kRts);
        break;
      default: break;
    }
  } else if (pick == 1) {
    const spec::SqRetire r = sq_retire.pop();
    if (r.qpn >= qps_.size()) return true;
    Qp& q = qps_[r.qpn];
    q.outstanding = r.count > q.outstanding ? 0 : static_cast<uint8_t>(q.outstanding - r.count);
    q.rd_out = r.rd_count > q.rd_out ? 0 : static_cast<uint8_t>(q.rd_out - r.rd_count);
    if (r.rd_count != 0) q.rdw = false;  // a READ finished: a deferred one may start
    const auto sending = [&] { return q.state == qs(S::kRts) || q.state == qs(S::kSqd); };
    if (r.error && sending()) q.state = qs(S::kErr);  // the completer saw it fail: flush the rest
    if (r.rewind && sending()) {
      q.rw = true;
      q.rw_idx = r.rw_idx;
      q.rw_psn = r.rw_psn & kPsnMask;
      q.rw_skip = r.rw_skip & kPsnMask;
    } else if (q.rw && (r.error || static_cast<uint16_t>(q.hw - q.rw_idx) > q.outstanding)) {
      q.rw = false;  // its WQE was acknowledged meanwhile (or the QP failed)
    }
  } else {
    const SqDoorbell d = sq_db.pop();
    if (d.db.qpn < qps_.size()) qps_[d.db.qpn].pi = d.db.pi;
    if (d.bf) {  // it replaces the one kept (a doorbell for a QP beyond MAX_QP drops it)
      bf_valid_ = d.db.qpn < qps_.size();
      bf_qpn_ = d.db.qpn;
      bf_idx_ = static_cast<uint16_t>(d.db.pi - 1);
      bf_wqe_ = d.wqe;
    }
  }
  return true;
}

void Requester::start(unsigned q, Cycle now) {
  act_ = q;
  rr_ = (q + 1) % qps_.size();
  Qp& x = qps_[q];
  act_ci_ = x.ci;
  act_psn_ = x.psn;
  skip_ = 0;
  if (x.state == qs(spec::QpState::kErr)) {
    act_ci_ = x.hw;  // what was sent is the completer's to flush; the rest is flushed here
  } else if (x.rw) {
    act_ci_ = x.rw_idx;
    act_psn_ = x.rw_psn;
    skip_ = x.rw_skip;
  }
  x.rw = false;
  wb_pick_ = now + 1 == eng_at_;  // (decided a cycle before the RTL's pick: WB's when the write-back is then)
  wb_pick_at_ = kNever;
  new_ = act_ci_ == x.hw;
  amend_ = !new_;
  pick_at_ = now;
  // read ahead of this QP from its WQE after this one, past those in the table
  ra_x_ = static_cast<uint16_t>(act_ci_ + 1);
  for (const PfEntry& e : pe_)
    if ((e.st == Pe::kPend || e.st == Pe::kDone) && e.qpn == q &&
        static_cast<uint16_t>(e.idx - act_ci_ - 1) < kNpf)
      ++ra_x_;
  if (new_ && bf_valid_ && bf_qpn_ == q && bf_idx_ == act_ci_) {
    // it came with its doorbell: no fetch; decoded as if its head had just
    // arrived, its reads ahead beside (the RTL's pfa_q)
    bf_valid_ = false;
    const Packet head{Bytes(std::vector<uint8_t>(bf_wqe_.begin(), bf_wqe_.end()))};
    pf_visit_start(now + 2);
    took_head(head, now + 1);
    return;
  }
  if (new_ && pf_hit(q)) {
    // read ahead: wait for its data (PFW), then the next reads ahead and its decode
    for (unsigned i = 0; i < kNpf; ++i)
      if ((pe_[i].st == Pe::kPend || pe_[i].st == Pe::kDone) && pe_[i].qpn == q && pe_[i].idx == act_ci_) pf_sel_ = i;
    st_ = St::kPfWait;
    return;
  }
  st_ = St::kFetch;
  fetch_at_ = now + kPick;
  fetch_pend_ = true;
  push_fetch(now);
}

// The head read (FETCH holds until the port takes it), then PF right behind it.
void Requester::push_fetch(Cycle now) {
  if (!fetch_pend_ || !dma_rd_req->can_push()) return;
  const Qp& x = qps_[act_];
  const uint32_t mask = (uint32_t{1} << (x.cfg.sq_lsz & 31u)) - 1;
  spec::DmaRdReq r;
  r.addr = x.cfg.sq_base + (uint64_t{act_ci_ & mask} << spec::kWqeSlotLog2);
  r.len = spec::kWqeHead;
  const Cycle at = std::max(now, fetch_at_);
  dma_rd_req->push(r, at);
  ++rd_pushed_;
  reads_.push_back({Rd::kHead, 0});
  fetch_pend_ = false;
  pf_visit_start(at + 1);
  // (FETCH goes to PF only if it sees a head to read ahead, in its own cycle)
  pfv_gate_ = true;
  pfv_fill_ = true;
  s_.wake_at(this, at);
}

// The next head to read ahead, as the RTL's PF sees it in its cycle:
// req_qp_ctx's prefetch pick (round robin from the pointer over QPs with a
// new WQE to start or flush, but for this QP and those with a head in the
// table: its next new WQE), else this QP's next one while this WQE is new,
// another is posted and fewer than kNpf are ahead. Never the kept SQ_BF one.
bool Requester::pf_candidate(unsigned* cq, uint16_t* cidx, bool* ahead) const {
  const unsigned n = static_cast<unsigned>(qps_.size());
  const auto starts_new = [&](const Qp& x) {
    if (x.pi == x.hw) return false;
    if (x.state == qs(spec::QpState::kErr)) return true;
    return x.state == qs(spec::QpState::kRts) && x.outstanding < kWindow && !x.rdw;
  };
  for (unsigned i = 0; i < n; ++i) {
    const unsigned c = (rr_ + i) % n;
    if (c == act_ || pfm_[c] || !starts_new(qps_[c])) continue;
    const uint16_t hw = qps_[c].hw;
    if (bf_valid_ && bf_qpn_ == c && bf_idx_ == hw) break;  // (the RTL's candidate is that one: none from it)
    *cq = c;
    *cidx = hw;
    *ahead = false;
    return true;
  }
  const Qp& a = qps_[act_];
  if (!new_ || ra_x_ == a.pi || static_cast<uint16_t>(ra_x_ - act_ci_) >= kNpf) return false;
  if (bf_valid_ && bf_qpn_ == act_ && bf_idx_ == ra_x_) return false;
  *cq = act_;
  *cidx = ra_x_;
  *ahead = true;
  return true;
}

void Requester::pf_visit_start(Cycle at) {
  pfv_ = true;
  pfv_gate_ = false;
  pfv_fill_ = false;
  pfv_at_ = pfv_start_ = at;
  pfv_n_ = 0;
  pfv_rd_ = 0;
  s_.wake_at(this, at);
}

// The PF visit's reads, one a cycle from pfv_at_, each once the port takes
// the one before (the RTL stays in PF); the candidate is taken in the read's
// cycle, before that cycle's control inputs (run() calls this first).
bool Requester::pf_visit(Cycle now) {
  if (!pfv_) return false;
  if (pfv_gate_) {
    if (now + 1 < pfv_start_) {
      s_.wake_at(this, pfv_start_ - 1);
      return false;
    }
    pfv_gate_ = false;
    unsigned cq = 0;
    uint16_t ci = 0;
    bool ahead = false;
    bool free = false;
    for (const PfEntry& e : pe_) free = free || e.st == Pe::kFree;
    if (!free || !pf_candidate(&cq, &ci, &ahead)) {
      pfv_ = false;  // (straight to WQE)
      return true;
    }
  }
  bool none = false;  // (it found no head to read: PF leaves a cycle later)
  // (FETCH's visit goes on past two reads until its head is in: in the
  // head's last cycle the RTL is still in WQE, and this runs before that
  // cycle's data is taken)
  while (pfv_n_ < 2 || (pfv_fill_ && st_ == St::kFetch)) {
    if (now < pfv_at_) {
      s_.wake_at(this, pfv_at_);
      return false;
    }
    unsigned slot = kNpf;
    for (unsigned i = kNpf; i-- > 0;)
      if (pe_[i].st == Pe::kFree) slot = i;
    // (a read offered is held until the port takes it: the RTL's pfo_q)
    if (!pfo_) {
      if (slot == kNpf || !pf_candidate(&pfo_qpn_, &pfo_idx_, &pfo_ahead_)) {
        none = true;
        break;
      }
      pfo_ = true;
      pfo_drop_ = false;
    }
    if (!dma_rd_req->can_push()) return false;  // (woken as the port takes the last one)
    const unsigned cq = pfo_qpn_;
    const uint16_t ci = pfo_idx_;
    const bool ahead = pfo_ahead_;
    pfo_ = false;
    const Qp& x = qps_[cq];
    const uint32_t mask = (uint32_t{1} << (x.cfg.sq_lsz & 31u)) - 1;
    spec::DmaRdReq r;
    r.tag = kPrefetchTag;
    r.addr = x.cfg.sq_base + (uint64_t{ci & mask} << spec::kWqeSlotLog2);
    r.len = spec::kWqeHead;
    const Cycle at = std::max(now, pfv_at_);
    dma_rd_req->push(r, at);
    pfv_rd_ = ++rd_pushed_;
    reads_.push_back({Rd::kPf, static_cast<uint8_t>(slot)});
    pe_[slot] = PfEntry{pfo_drop_ ? Pe::kDrop : Pe::kPend, cq, ci, Packet{}, 0};
    pfm_[cq] = !pfo_drop_;
    if (ahead) ++ra_x_;
    ++pfv_n_;
    pfv_at_ = at + 1;
  }
  // over: PF leaves after its second read, or in the cycle it finds none
  if (pfv_rd_ != 0 && rd_pushed_ - dma_rd_req->size() < pfv_rd_) return false;
  pfv_ = false;
  pfv_done_at_ = std::max(now, pfv_at_) + (none ? 1 : 0);
  return true;
}

Packet Requester::pop_read() {
  if (!reads_.empty()) reads_.pop_front();
  return dma_rd.pop();
}

// The WQE's fields (generated layout) and what follows from them and the QP.
void Requester::decode(const Packet& p) {
  Wqe& w = wqe_;
  w = Wqe{};
  std::vector<uint8_t> all(spec::SendWqe::kSize, 0);  // the head, the tail when fetched
  std::copy_n(p.data.data(), std::min(p.data.size(), all.size()), all.begin());
  w.raw = Bytes(std::move(all));
  w.w.load(w.raw.data());
  for (unsigned i = 0; i < kMaxSge; ++i) w.sge[i].load(w.raw.data() + spec::kSendWqeSge0AddrOff + spec::Sge::kSize * i);
  using Op = spec::WrOpcode;
  const auto op = static_cast<Op>(w.w.opcode);
  w.inl = (w.w.flags >> 2) & 1u;
  w.fence = (w.w.flags >> 3) & 1u;
  w.inv = op == Op::kSendWithInv;
  w.send = op == Op::kSend || op == Op::kSendWithImm || w.inv;
  w.imm = op == Op::kSendWithImm || op == Op::kRdmaWriteWithImm;
  w.read = op == Op::kRdmaRead;
  w.cas = op == Op::kAtomicCmpAndSwp;
  w.atomic = w.cas || op == Op::kAtomicFetchAndAdd;
  w.rdat = w.read || w.atomic;  // answered by responses: a max_rd_atomic credit, no payload
  w.bind = op == Op::kBindMw;
  w.local = w.bind || op == Op::kLocalInv;
  const bool op_ok = w.send || w.rdat || w.local || op == Op::kRdmaWrite || op == Op::kRdmaWriteWithImm;
  w.uc = qps_[act_].cfg.qp_type == static_cast<uint8_t>(spec::QpType::kUc);
  w.ud = qps_[act_].cfg.qp_type == static_cast<uint8_t>(spec::QpType::kUd);
  w.unrel = w.uc || w.ud;
  // (UD: the port's MTU, a datagram is one packet; as the RTL: outside 1..5 clamped)
  const unsigned pmtu = std::clamp<unsigned>(w.ud ? port_mtu_ : qps_[act_].cfg.pmtu & 7u, 1, 5);
  w.mtu = 128u << pmtu;
  w.npk = w.w.length == 0 || w.ud ? 1 : (w.w.length + w.mtu - 1) / w.mtu;  // (UD: one PSN a datagram)
  uint64_t sum = 0;
  active_ = 0;
  for (unsigned i = 0; i < kMaxSge; ++i)
    if (i < w.w.num_sge) {
      sum += w.sge[i].length;
      if (w.sge[i].length != 0) active_ |= static_cast<uint16_t>(1u << i);
    }
  using S = spec::WcStatus;
  if (qps_[act_].state == qs(spec::QpState::kErr)) w.status = wc(S::kWrFlushErr);
  else if (p.user || !op_ok) w.status = wc(S::kLocQpOpErr);
  // UC carries SENDs and RDMA WRITEs only (IBTA 9.8; no invalidate)
  else if (w.uc && (w.rdat || w.inv)) w.status = wc(S::kLocQpOpErr);
  // UD: SEND and SEND with immediate; the address vector lies past SGE 1
  // and needs a usable GID entry; one packet of at most the port's MTU
  else if (w.ud && ((op != Op::kSend && op != Op::kSendWithImm) ||
                    (w.inl ? w.w.length > spec::kUdMaxInline : w.w.num_sge > spec::kUdMaxSge) ||
                    w.w.ud_sgid_index >= gid_.size() || !gid_[w.w.ud_sgid_index].usable()))
    w.status = wc(S::kLocQpOpErr);
  // a READ lands in its SGEs (never inline) and asks for at most 2^31 bytes
  else if (w.read && (w.inl || w.w.length > spec::kMaxMsg)) w.status = wc(S::kLocQpOpErr);
  // an atomic's answer is 8 bytes, landing in its one SGE (never inline; a
  // second SGE would lie where the operands are)
  else if (w.atomic && (w.inl || w.w.length != 8 || w.w.num_sge != 1)) w.status = wc(S::kLocQpOpErr);
  // a local operation has no SGE and no payload; a window gets remote rights only
  else if (w.local) w.status = wc(w.bind && (w.w.bind_access & ~kWindowRights) ? S::kMwBindErr : S::kSuccess);
  else if (w.inl ? w.w.length > kMaxInline : (w.w.num_sge > kMaxSge || sum != w.w.length)) w.status = wc(S::kLocQpOpErr);
  else w.status = wc(S::kSuccess);
  // inline bytes come from the WQE; a READ's (an atomic's) SGEs receive its
  // response data later (checked by the block that places it): neither is
  // checked nor read here
  if (w.inl || w.rdat || w.local) active_ = 0;
  // UD longer than the port MTU (IBTA C10-93.1.1, rxe): no packet and no
  // error; it completes, its PSN taken
  w.unsent = w.ud && w.w.length > w.mtu && w.status == wc(S::kSuccess);
  status_ = w.status;
  sent_ = false;
}

uint32_t Requester::pay_len(uint32_t k) const {
  const uint32_t len = wqe_.w.length;
  if (len == 0 || wqe_.rdat || wqe_.local) return 0;
  return k + 1 < wqe_.npk ? wqe_.mtu : len - (wqe_.npk - 1) * wqe_.mtu;
}

spec::RoceTxHdr Requester::header(uint32_t k, uint32_t pay) const {
  const Wqe& w = wqe_;
  const spec::QpCfg& cfg = qps_[act_].cfg;
  const bool first = k == 0, last = k + 1 == w.npk;
  spec::RoceTxHdr h = header_to_peer(cfg);
  using namespace spec;
  if (w.read)
    h.opcode = kRcReadReq;
  else if (w.atomic)
    h.opcode = w.cas ? kRcCmpSwap : kRcFetchAdd;
  else if (w.send)
    h.opcode = first && last ? (w.imm ? kRcSendOnlyImm : w.inv ? kRcSendOnlyInv : kRcSendOnly)
               : first       ? kRcSendFirst
               : last        ? (w.imm ? kRcSendLastImm : w.inv ? kRcSendLastInv : kRcSendLast)
                             : kRcSendMiddle;
  else
    h.opcode = first && last ? (w.imm ? kRcWriteOnlyImm : kRcWriteOnly)
               : first       ? kRcWriteFirst
               : last        ? (w.imm ? kRcWriteLastImm : kRcWriteLast)
                             : kRcWriteMiddle;
  if (w.uc) h.opcode |= 0x20;  // the UC opcodes: the RC ones + 0x20
  if (w.ud) {
    // one packet to the WQE's address vector, resolved as roce_cmd resolves a path
    const GidEntry& g = gid_[w.w.ud_sgid_index];
    h.opcode = w.imm ? kUdSendOnlyImm : kUdSendOnly;
    h.l3 = static_cast<uint8_t>(g.l3());
    h.vlan_valid = g.tagged();
    h.vlan_vid = g.vid();
    h.vlan_pcp = g.tagged() ? w.w.ud_sl & 7u : 0u;
    h.src_mac = port_mac_;
    h.src_ip = g.gid;
    h.dst_mac = 0;
    for (unsigned i = 0; i < 6; ++i) h.dst_mac = (h.dst_mac << 8) | w.w.ud_dmac[i];
    h.dst_ip = w.w.ud_dgid;
    h.tclass = w.w.ud_traffic_class;
    h.ttl = w.w.ud_hop_limit;
    h.flow_label = w.w.ud_flow_label & 0xFFFFFu;
    h.dst_qpn = w.w.ud_dest_qpn & 0xFFFFFFu;
    // DETH: the WR's Q_Key, or with its bit 31 set the QP's own (IBTA 10.2.5)
    h.qkey = (w.w.ud_qkey >> 31) ? cfg.qkey : w.w.ud_qkey;
  }
  const bool solicited = (w.w.flags >> 1) & 1u;
  h.se = last && solicited && (w.send || w.imm);
  h.psn = (act_psn_ + k) & kPsnMask;
  // ACK coalescing (CSR ACK_REQ); a READ or atomic request always asks (its
  // responses are the answer); and the first packet of a WQE sent again: after a
  // rewind the responder may already be past it (a duplicate is answered
  // only when it asks), and its ACK tells how far -- else a long message
  // whose NAK was lost learns nothing until its last packet, which the
  // responder drops while it waits for the lost one (IBTA 9.7.5.1.1: one
  // PSN sequence NAK until the expected PSN arrives).
  h.ack_req = !w.unrel && (last || w.rdat || (h.psn & ack_mask_) == ack_mask_ || (!new_ && k == skip_));  // UC/UD: nothing answers
  if (w.read) {
    // from packet k (a rewind): the responses 0..k-1 arrived, ask for the rest
    const uint32_t off = k * w.mtu;
    h.reth_va = w.w.remote_addr + off;
    h.reth_rkey = w.w.rkey;
    h.reth_len = w.w.length - off;
  } else if (w.atomic) {
    // AtomicETH: CMP_SWAP swaps in atomic_swap when the remote value equals
    // atomic_cmp_add; FETCH_ADD adds atomic_cmp_add
    h.reth_va = w.w.remote_addr;
    h.reth_rkey = w.w.rkey;
    h.swap_add = w.cas ? w.w.atomic_swap : w.w.atomic_cmp_add;
    h.compare = w.cas ? w.w.atomic_cmp_add : 0;
  } else if (!w.send && first) {
    h.reth_va = w.w.remote_addr;
    h.reth_rkey = w.w.rkey;
    h.reth_len = w.w.length;
  }
  if (w.imm && last) h.imm = bswap32(w.w.imm);  // the WQE's bytes, in order, on the wire
  if (w.inv && last) h.imm = w.w.imm;           // IETH: the rkey, a number (invalidate_rkey)
  h.pay_len = static_cast<uint16_t>(pay);
  h.src_qpn = act_;
  return h;
}

// The issue walk: the next piece, or the translation of the next page run.
// false: it waits (a translation, buffer space, a credit) or is done.
bool Requester::issue(Cycle now) {
  if (msg_rem_ == 0 || asking_) return false;
  const Wqe& w = wqe_;
  if (!run_valid_) {
    if (run_first_) {  // the SGE check answered for the SGE's first run
      pa_ = chk_pa_[sge_];
      run_rem_ = chk_run_[sge_];
      run_zero_ = false;
      run_valid_ = true;
      run_first_ = false;
    } else {
      if (!mr_req->can_push()) return false;
      // (req_issue asks the cycle after the port took the run's last piece)
      if (!dma_rd_req->empty()) return false;  // (woken as it is taken)
      spec::MrReq r;
      r.tag = static_cast<uint8_t>(kRunTag | (sge_ & 31));
      r.key = w.sge[sge_].lkey;
      r.pd = qps_[act_].cfg.pd;
      r.va = va_;
      r.len = sge_rem_;
      r.access = 0;
      mr_req->push(r, std::max({now, iss_at_, dma_rd_req->last_pop() + 1}));  // (the cycle after the run's last piece)
      asking_ = true;
      return true;
    }
  }
  const uint32_t lim = run_zero_ ? 4096u : 4096u - static_cast<uint32_t>(pa_ & 0xFFFu);
  const uint32_t len = std::min({pkt_rem_, run_rem_, lim});
  const unsigned beats = run_zero_ ? 0 : (len + bytes_ - 1) / bytes_;
  // (after a stall on room, the RTL issues in the cycle its count sees the
  // room; after one on the request port, a cycle after the port took the
  // last piece, plus the new SGE's cycle)
  // (the walk's first piece from its start: req_issue's start loads the
  // check's answer, so it is read in the run's first cycle)
  Cycle at = std::max(now + (run_start_ ? 0 : kIssue), iss_at_);
  if (stall_ == Stall::kRoom) at = std::max(now, iss_at_);
  if (stall_ == Stall::kPort) at = std::max(at, now + kIssue + gap_);
  // room in the payload buffer, the FIFO of pieces and (a packet's last
  // piece) the FIFO of packets, as the RTL counts them in that cycle
  release(at);
  const bool pkt_end = len == pkt_rem_;
  if (buf_used_ + beats > kBufferBeats || pieces_out_ >= kPieceDepth || (pkt_end && pkts_out_ >= kPktDepth)) {
    if (const Cycle r = next_release(); r != kNever && r > now) s_.wake_at(this, r);  // (else: held, woken as its payload is taken)
    stall_ = Stall::kRoom;
    return false;
  }
  if (!run_zero_) {
    // (reads ahead beside this WQE have the port: they go first, the RTL's pf_on)
    if (pfv_) return false;
    at = std::max(at, pfv_done_at_);
    if (!dma_rd_req->can_push()) {
      stall_ = Stall::kPort;
      return false;
    }
    spec::DmaRdReq r;
    r.tag = kPayloadTag;
    r.addr = pa_;
    r.len = static_cast<uint16_t>(len);
    dma_rd_req->push(r, at);
    ++rd_pushed_;
    reads_.push_back({Rd::kPay, 0});
  }
  // (a piece a cycle; the next SGE's first run, from its check, a cycle later)
  iss_at_ = at + 1;
  run_start_ = false;
  stall_ = Stall::kNone;
  gap_ = 0;
  buf_used_ += beats;
  ++pieces_out_;
  pieces_.push_back({pkt_seq_, len, run_zero_});
  if (pkt_end) {
    // (its header may be queued from the cycle after the port took its last read)
    pk_done_.push_back({at, run_zero_ ? 0 : rd_pushed_});
    ++pkts_out_;
  }
  pa_ += len;
  va_ += len;
  run_rem_ -= len;
  sge_rem_ -= len;
  msg_rem_ -= len;
  if (pkt_end) {
    ++pkt_issue_;
    ++pkt_seq_;
    pkt_rem_ = std::min(msg_rem_, w.mtu);
  } else {
    pkt_rem_ -= len;
  }
  if (run_rem_ == 0) {
    run_valid_ = false;
    if (sge_rem_ == 0 && msg_rem_ != 0) {  // the next SGE with bytes
      unsigned n = sge_ + 1;
      while (n < kMaxSge && !((active_ >> n) & 1u)) ++n;
      sge_ = n;
      va_ = w.sge[n].addr;
      sge_rem_ = w.sge[n].length;
      run_first_ = true;
      ++iss_at_;
      gap_ = 1;
    }
  }
  return true;
}

// The RTL's FIFO and buffer counts: what the back end frees, by the cycle
// the count sees it.
void Requester::release(Cycle upto) {
  const Cycle now = s_.now();
  while (!rel_.empty()) {
    Rel& r = rel_.front();
    // (its payload not all taken by the consumer, and late against the
    // estimate: the consumer holds it back)
    const bool held = r.pay != 0 && pay_pushed_ - tx_payload->size() < r.pay && r.last < now;
    if (r.pay != 0 && r.upto != 0 && r.beats != 0) {
      // A piece's beats free one a cycle as the source takes them (the
      // RTL's free count, a beat per beat consumed), by the estimate (its
      // last at r.at) and, once its payload is late, as the consumer takes
      // them (the source a beat ahead of the gather's output).
      const Cycle first = r.at + 1 - r.beats;
      unsigned got = upto >= first ? static_cast<unsigned>(std::min<Cycle>(r.beats, upto - first + 1)) : 0;
      if (pay_pushed_ - tx_payload->size() < r.pay) {  // (not all taken yet: no sooner than the consumer takes it)
        const bool front = pay_pushed_ - tx_payload->size() + 1 == r.pay;
        // (the payload's source beats taken, as the RTL's free count has seen them)
        const unsigned src = front ? tx_payload->front_taken_before() + 1 : 0;
        const unsigned before = r.upto - std::min(r.upto, r.beats);
        const unsigned act = src > before ? std::min(r.beats, src - before) : 0;
        got = std::min<unsigned>(got, static_cast<unsigned>(std::min<Cycle>(r.beats, act + (upto - std::min(upto, now)))));
      }
      if (got > r.freed) {
        buf_used_ -= got - r.freed;
        r.freed = got;
      }
      if (got < r.beats) break;
    } else if (r.at > upto || held) {
      break;
    }
    buf_used_ -= r.beats - r.freed;
    pieces_out_ -= r.pieces;
    hq_out_ -= r.hq;
    pkts_out_ -= r.pkts;
    iq_out_ -= r.inl;
    eq_out_ -= r.eq;
    rel_.pop_front();
  }
}

// (a piece frees a beat a cycle: its next one)
Cycle Requester::next_release() const {
  if (rel_.empty()) return kNever;
  const Rel& r = rel_.front();
  if (r.pay != 0 && r.upto != 0 && r.beats != 0) return r.at + 1 - r.beats + r.freed;
  return r.at;
}

// The front end: the next packet's header into the back end's queue, once
// the walk issued all its reads (the cycle after its last), one a cycle; a
// new WQE's first waits for its sq_track. With the WQE's last header goes
// its end record: the sq_track it would need should its packets fail (an
// amend on RC) or, on UC/UD, the one it gets once sent.
bool Requester::queue_header(Cycle now) {
  const Wqe& w = wqe_;
  if (pkt_k_ >= w.npk || trk_pend_ || trk_pushed_ - sq_track->size() < trk_wait_) return false;
  const uint32_t pay = pay_len(pkt_k_);
  Queued e;
  e.need = !w.inl && !w.rdat && !w.local && w.w.length != 0;
  Cycle at = std::max(now, fe_at_);
  if (e.need) {
    if (pk_done_.empty()) return false;
    if (rd_pushed_ - dma_rd_req->size() < pk_done_.front().second) {
      pk_wait_ = true;  // (woken as the port takes it)
      return false;
    }
    at = std::max({at, pk_done_.front().first, pk_wait_ ? now : Cycle{0}});
    pk_wait_ = false;
  }
  // room in the header queue (and for inline bytes)
  release(at);
  const bool inl = w.inl && pay != 0;
  const bool wend = w.rdat || pkt_k_ + 1 == w.npk;
  if (hq_out_ >= kHdrDepth || (inl && iq_out_ >= kInlDepth) || (wend && eq_out_ >= kHdrDepth)) {
    if (const Cycle r = next_release(); r != kNever && r > now) s_.wake_at(this, r);  // (else: held, woken as its payload is taken)
    return false;
  }
  ++hq_out_;
  iq_out_ += inl ? 1 : 0;
  eq_out_ += wend ? 1 : 0;
  if (e.need) {
    pk_done_.pop_front();
    e.pkt = pkt_seq_ - (pkt_issue_ - pkt_k_);  // (the walk numbers packets across WQEs)
  }
  e.hdr = header(pkt_k_, pay);
  e.pay = pay;
  if (w.inl && pay != 0) {
    const uint8_t* p = w.raw.data() + spec::kSendWqeSge0AddrOff;  // inline data sits where the SGEs would
    e.inl = Bytes(std::vector<uint8_t>(p, p + pay));
  }
  e.at = at;
  e.wend = wend;
  if (e.wend) {
    e.err = e.need && issue_err_;
    e.rec = track();
    e.rec.last_psn = (w.unrel ? act_psn_ - 1 : act_psn_ + w.npk - 1) & kPsnMask;
    e.rec.status = wc(spec::WcStatus::kSuccess);
    e.rec.amend = !w.unrel;
  }
  bq_.push_back(std::move(e));
  if (w.rdat && rd_hint.bound()) {  // (never dropped: a lost one-SGE-0 hint could leave an older one in place)
    // where the responses land, as read_place would fetch it (no ready:
    // read_place always takes it), the cycle after its header is queued
    spec::RdHint h;
    h.qpn = static_cast<uint16_t>(act_);
    h.wqe_idx = act_ci_;
    h.one_sge = w.w.num_sge == 1;
    h.addr = w.sge[0].addr;
    h.length = w.sge[0].length;
    h.lkey = w.sge[0].lkey;
    rd_hint->push(h, at + 1);
  }
  fe_at_ = at + 1;
  fe_last_ = at;
  pkt_k_ = w.rdat ? w.npk : pkt_k_ + 1;  // a READ's one request covers all its PSNs (an atomic's: one)
  return true;
}

// The back end: the next queued packet once all its payload is in: header,
// then payload; at its WQE's end, the sq_track it needs.
bool Requester::send_packet(Cycle now) {
  if (bq_.empty()) return false;
  Queued& e = bq_.front();
  const uint32_t pay = e.pay;
  // (held back by the consumer: the RTL's header register, or two payloads
  // still leaving; it goes once the port took them, as the RTL's)
  if (!tx_hdr->can_push() || (!tx_hdr->empty() && tx_hdr->next_at() < now)) {
    out_wait_ = std::max<Cycle>(out_wait_, 1);
    return false;
  }
  if (tx_payload->size() >= 2) {
    out_wait_ = kPendFree;
    return false;
  }
  // (a payload behind one the consumer holds back follows it once that is
  // taken: the channel keeps order; its header need not wait)
  if (pay != 0 && !tx_payload->empty() && tx_payload->next_at() < now) pay_at_ = std::max(pay_at_, now + 1);
  std::vector<uint8_t> bytes;
  Cycle cycles = (pay + bytes_ - 1) / bytes_;  // its payload's cycles through the gather
  std::vector<uint16_t> beat_at;               // ... each output beat's
  std::vector<uint32_t> in;                    // the source's beats (bytes each), a cycle each
  Cycle ready = e.at + kQueued;
  std::vector<std::pair<Cycle, unsigned>> src;  // its pieces: source cycles, buffer beats
  if (pay != 0 && !e.need) {
    bytes.assign(e.inl.data(), e.inl.data() + e.inl.size());
  } else if (pay != 0) {
    // every piece of this packet must have arrived (zero pieces need nothing)
    size_t reads = 0;
    for (const Piece& pc : pieces_) {
      if (pc.pkt != e.pkt) break;
      if (!pc.zero) ++reads;
    }
    if (data_.size() < reads) return false;
    // (from its last read's arrival: a header held back meanwhile goes as soon as it may)
    ready = std::max(ready, (reads != 0 ? data_at_[reads - 1] : now) + kHeaderRead);
    bytes.reserve(pay);
    // the gather takes a piece's beats one a cycle; a packet whose last
    // beat overflows the output beat takes a cycle more (stream_gather)
    for (const Piece& pc : pieces_) {
      if (pc.pkt != e.pkt) break;
      for (uint32_t left = pc.len; left != 0;) {
        const uint32_t k = std::min(left, bytes_);
        left -= k;
        in.push_back(k);
      }
    }
    // each output beat's cycle: a source beat that fills one (or ends the
    // packet) gives one, its overflow on the last a cycle later
    uint32_t fill = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      const bool end = i + 1 == in.size();
      if (fill + in[i] >= bytes_) {
        beat_at.push_back(static_cast<uint16_t>(i));
        fill = fill + in[i] - bytes_;
        if (end && fill != 0) beat_at.push_back(static_cast<uint16_t>(i + 1));
      } else if (end) {
        beat_at.push_back(static_cast<uint16_t>(i));
      } else {
        fill += in[i];
      }
    }
    cycles = beat_at.empty() ? 0 : beat_at.back() + 1;
    while (!pieces_.empty() && pieces_.front().pkt == e.pkt) {
      const Piece pc = pieces_.front();
      pieces_.pop_front();
      // the buffer holds read beats: a piece frees what it took (a packet
      // split at a page boundary takes a beat more than its bytes need)
      src.emplace_back((pc.len + bytes_ - 1) / bytes_, pc.zero ? 0 : (pc.len + bytes_ - 1) / bytes_);
      if (pc.zero) {
        bytes.insert(bytes.end(), pc.len, 0);
      } else {
        const Packet& d = data_.front();
        if (d.user) be_perr_ = true;
        bytes.insert(bytes.end(), d.data.data(), d.data.data() + std::min<size_t>(pc.len, d.data.size()));
        bytes.resize(bytes.size() + (pc.len - std::min<size_t>(pc.len, d.data.size())), 0);
        data_.pop_front();
        data_at_.pop_front();
      }
    }
  }
  // A header leaves a cycle after the one before, while fewer than two
  // headers' payloads are still leaving (the RTL's pend_q); its payload
  // follows the one before it.
  Cycle t = std::max({ready, hdr_at_, now + out_wait_});
  out_wait_ = 0;
  while (!pend_.empty() && pend_.front() + kPendFree <= t) pend_.pop_front();
  if (pend_.size() >= 2) {
    t = pend_.front() + kPendFree;
    pend_.pop_front();
  }
  tx_hdr->push(e.hdr, t);
  ++hdr_pushed_;
  // (its queue entry and its packet's entry are free once the header is loaded)
  rel_.push_back({t, 0, 0, 1, e.need ? 1u : 0u, 0, 0, 0, 0});
  const Cycle beats = (pay + bytes_ - 1) / bytes_;
  hdr_at_ = t + 1;
  Cycle done = t + 1;  // (an entry without payload leaves the source's order once its header was taken)
  if (pay != 0) {
    // (a WQE's last payload waits while the back end's sq_track register is taken)
    const Cycle first = std::max({t + 1, pay_at_, e.wend ? bt_free_ + 1 : Cycle{0}});
    const Cycle last = first + std::max(cycles, beats) - 1;  // its last beat
    Packet out{Bytes(std::move(bytes))};
    // (beats not one a cycle: where the gather's gaps fall)
    if (beat_at.size() == static_cast<size_t>(beats) && cycles > beats) out.beat_at = std::move(beat_at);
    tx_payload->push(std::move(out), last);
    pay_wend_.push_back({pay_pushed_ + 1, e.wend});
    while (pay_wend_.size() > 64) pay_wend_.pop_front();
    ++pay_pushed_;
    // the source takes the pieces' beats one a cycle, a cycle ahead of the
    // gather's output: each piece (the inline bytes) frees its entry after its last
    Cycle c = first - 1;
    if (!e.need) {
      rel_.push_back({c + beats, 0, 0, 0, 0, 1, pay_pushed_, last, 0});
      rel_.back().upto = static_cast<unsigned>(beats);
    } else {
      unsigned upto = 0;
      for (const auto& [n, b] : src) {
        c += n;
        upto += static_cast<unsigned>(n);
        rel_.push_back({c, b, 1, 0, 0, 0, pay_pushed_, last, 0});
        rel_.back().upto = upto;
      }
    }
    pay_at_ = last + 1;
    pend_.push_back(last);
    done = last - 1;  // (the source's last beat: the gather's register follows)
    be_empty_at_ = std::max(be_empty_at_, last + 1);
  }
  be_empty_at_ = std::max(be_empty_at_, t + 1);
  if (e.wend) {
    rel_.push_back({done + 1, 0, 0, 0, 0, 0, 0, 0, 1});  // (its end record leaves the queue as the WQE ends)
    WqeEnd w;
    w.rec = e.rec;
    w.fail = e.err || be_perr_;
    w.track = e.rec.unacked || w.fail;
    w.rec.status = wc(w.fail ? spec::WcStatus::kLocProtErr : spec::WcStatus::kSuccess);
    w.done = done;
    w.last_pay = pay != 0;
    w.hdr_n = hdr_pushed_;
    w.pay_n = pay_pushed_;
    ends_.push_back(w);
    be_perr_ = false;
  }
  ++cnt_pkts_;
  bq_.pop_front();
  return true;
}

// A WQE's end in the back end, once its last packet was taken (as the RTL's
// source takes its last beat, under backpressure too): its sq_track if it
// needs one, and a failure puts its QP in ERR.
bool Requester::end_wqe(Cycle now) {
  if (ends_.empty()) return false;
  const WqeEnd& w = ends_.front();
  if (hdr_pushed_ - tx_hdr->size() < w.hdr_n || pay_pushed_ - tx_payload->size() < w.pay_n) return false;
  // (held while the front end offers a new WQE's sq_track: its end then the
  // cycle after that one was taken, its sq_track a cycle later)
  if ((st_ == St::kRun && trk_pend_ && now >= eng_at_) || trk_pushed_ - sq_track->size() < trk_wait_) {
    end_held_ = true;
    return false;
  }
  if (w.track && !sq_track->can_push()) return false;
  Cycle at = std::max({now, w.done + 1, end_held_ ? now + 2 : Cycle{0}});
  // (without payload it leaves the source's order the cycle after its
  // header's handshake, and its sq_track register follows)
  if (!w.last_pay && tx_hdr->popped() == w.hdr_n) at = std::max(at, tx_hdr->last_pop() + 2);
  // (a track is decided in its own cycle: a new WQE's offer from the front
  // end may begin before it, and then goes first)
  if (w.track && at > now && !end_held_) {
    s_.wake_at(this, at);
    return false;
  }
  end_held_ = false;
  if (w.track) {
    at = std::max(at, bt_free_);
    sq_track->push(w.rec, at);
    ++trk_pushed_;
    bt_free_ = at + 1;
    // (req_qp_ctx takes the failure the cycle after)
    if (w.fail) {
      fails_.push_back({w.rec.qpn, at + 1});
      s_.wake_at(this, at + 1);
    }
  }
  drain_at_ = std::max(drain_at_, at + (w.track ? 1 : 0));
  be_empty_at_ = std::max(be_empty_at_, drain_at_);
  ends_.pop_front();
  return true;
}

// The walk starts at the first SGE with bytes, or (sending again from packet
// skip_) at the SGE and offset where that packet's bytes begin, with a fresh
// translation of the page run there.
void Requester::begin_run() {
  sge_ = 0;
  while (sge_ < kMaxSge && !((active_ >> sge_) & 1u)) ++sge_;
  const bool reads = !wqe_.inl && !wqe_.rdat && !wqe_.local;  // its payload comes from its SGEs
  uint64_t off = reads ? uint64_t{skip_} * wqe_.mtu : 0;
  msg_rem_ = reads ? static_cast<uint32_t>(wqe_.w.length - off) : 0;
  seek_ = off != 0 ? 1 : 0;  // (req_issue steps over an SGE a cycle, then starts inside one)
  while (sge_ < kMaxSge && off >= wqe_.sge[sge_].length) {
    ++seek_;
    off -= wqe_.sge[sge_].length;
    unsigned n = sge_ + 1;
    while (n < kMaxSge && !((active_ >> n) & 1u)) ++n;
    sge_ = n;
  }
  if (sge_ < kMaxSge) {
    va_ = wqe_.sge[sge_].addr + off;
    sge_rem_ = static_cast<uint32_t>(wqe_.sge[sge_].length - off);
  }
  run_first_ = run_start_ = off == 0;
  run_valid_ = run_zero_ = asking_ = issue_err_ = false;
  pkt_rem_ = std::min(msg_rem_, wqe_.mtu);
  pkt_issue_ = pkt_k_ = skip_;
  pk_done_.clear();
  trk_pend_ = new_ && !wqe_.unrel;  // UC/UD: tracked once its packets left
}

// The sq_track of the WQE: its start (status SUCCESS, all its PSNs), a
// failure before any packet, or (amend_) a failure of a WQE tracked before.
spec::SqTrack Requester::track() const {
  const Wqe& w = wqe_;
  spec::SqTrack t;
  t.qpn = static_cast<uint16_t>(act_);
  t.wqe_idx = act_ci_;
  t.first_psn = act_psn_;
  // (a local operation takes no PSN: whatever acknowledges the WQE before it covers it)
  // (a UC or UD WQE neither: tracked once sent, nothing will acknowledge it)
  const bool psns = !w.unrel && ((status_ == wc(spec::WcStatus::kSuccess) && !w.local) || sent_);
  t.last_psn = (psns ? act_psn_ + w.npk - 1 : act_psn_ - 1) & kPsnMask;
  t.wr_id = w.w.wr_id;
  using Op = spec::WrOpcode;
  const auto op = static_cast<Op>(w.w.opcode);
  t.wc_opcode = static_cast<uint8_t>(op == Op::kRdmaWrite || op == Op::kRdmaWriteWithImm ? spec::WcOpcode::kRdmaWrite
                                     : op == Op::kRdmaRead                             ? spec::WcOpcode::kRdmaRead
                                     : op == Op::kAtomicCmpAndSwp                      ? spec::WcOpcode::kCompSwap
                                     : op == Op::kAtomicFetchAndAdd                    ? spec::WcOpcode::kFetchAdd
                                     : op == Op::kBindMw                               ? spec::WcOpcode::kBindMw
                                     : op == Op::kLocalInv                             ? spec::WcOpcode::kLocalInv
                                                                                       : spec::WcOpcode::kSend);
  t.signaled = w.w.flags & 1u;
  t.byte_len = w.local ? 0 : w.w.length;
  t.status = status_;
  t.amend = amend_;
  t.unacked = w.unrel;
  return t;
}

// The end of a WQE in the front end: its sq_track (tracked: a failure
// before any packet, a local operation, a UD datagram not sent), then the
// write-back: the next WQE and PSN, and one more outstanding if it was new.
void Requester::finish(Cycle now, bool tracked) {
  const Wqe& w = wqe_;
  Qp& q = qps_[act_];
  using S = spec::WcStatus;
  if (tracked) sq_track->push(track(), now);  // (TRACK's cycle: WB follows)
  q.ci = static_cast<uint16_t>(act_ci_ + 1);
  q.psn = (sent_ ? act_psn_ + w.npk : act_psn_) & kPsnMask;
  if (new_) {
    q.hw = q.ci;
    q.outstanding = q.outstanding == 31 ? 31 : static_cast<uint8_t>(q.outstanding + 1);
    // (failed ones too: the completer retires every tracked READ and atomic)
    if (w.rdat && q.rd_out != 31) ++q.rd_out;
  }
  if (status_ == wc(S::kLocQpOpErr) || status_ == wc(S::kLocProtErr) || status_ == wc(S::kMwBindErr))
    q.state = qs(spec::QpState::kErr);
  st_ = St::kIdle;
  eng_at_ = now + (tracked ? 1 : kWriteBack);
  wb_at_ = eng_at_;  // (the RTL's WB: the cycle before its IDLE, whose pick this model decides a cycle early)
  // The RTL's WB picks too, among the other QPs (this one's context is
  // written back at that cycle's end): decided here a cycle before it.
  wb_qpn_ = act_;
  wb_pick_at_ = eng_at_ - 1;
}

Cycle Requester::payload_held(Cycle a, Cycle b) const {
  if (tx_payload->empty() || offers_.empty()) return 0;
  offer_taken(s_.now());
  const uint64_t front = pay_pushed_ - tx_payload->size() + 1;
  bool wend = false;
  for (const auto& [n, w] : pay_wend_)
    if (n == front) wend = w;
  if (!wend) return 0;
  Cycle held = 0;
  for (const auto& [from, to] : offers_) {
    const Cycle lo = std::max(a, from), hi = std::min(b, to);
    if (lo <= hi) held += hi - lo + 1;
  }
  return held;
}

bool Requester::bf_hit(unsigned q) const {
  const Qp& x = qps_[q];
  // (a pick in ERR takes hw; a rewind never takes a new WQE)
  const uint16_t ci = x.state == qs(spec::QpState::kErr) ? x.hw : x.rw ? x.rw_idx : x.ci;
  return bf_valid_ && bf_qpn_ == q && ci == x.hw && bf_idx_ == ci;
}

bool Requester::pf_hit(unsigned q) const {
  const Qp& x = qps_[q];
  const uint16_t ci = x.state == qs(spec::QpState::kErr) ? x.hw : x.rw ? x.rw_idx : x.ci;
  if (ci != x.hw) return false;
  for (const PfEntry& e : pe_)
    if ((e.st == Pe::kPend || e.st == Pe::kDone) && e.qpn == q && e.idx == ci) return true;
  return false;
}

void Requester::took_head(const Packet& p, Cycle now) {
  head_at_ = now;
  const uint8_t nsge = p.data.size() > spec::kSendWqeNumSgeOff ? p.data[spec::kSendWqeNumSgeOff] : 0;
  const bool inl = p.data.size() > spec::kSendWqeFlagsOff && ((p.data[spec::kSendWqeFlagsOff] >> 2) & 1u);
  if (!p.user && !inl && nsge > kHeadSge && nsge <= kMaxSge) {
    // SGEs 6..num_sge-1 lie past the head: one more read (the RTL's TAIL)
    head_ = p;
    tail_asked_ = false;
    st_ = St::kTail;
    return;
  }
  fetched(p, now);
}

void Requester::fetched(const Packet& p, Cycle now) {
  decode(p);
  eng_at_ = now + kDecode;
  chk_sent_ = chk_got_ = 0;
  chk_err_ = false;
  if (status_ == wc(spec::WcStatus::kSuccess) && new_ &&
      ((wqe_.rdat && qps_[act_].rd_out >= qps_[act_].cfg.max_rd_atomic) ||
       (wqe_.fence && qps_[act_].rd_out != 0))) {
    // max_rd_atomic READs and atomics outstanding, or a fenced WQE
    // (IBV_SEND_FENCE) behind any: not started, picked again once one finishes
    qps_[act_].rdw = true;
    st_ = St::kIdle;
    wb_at_ = eng_at_;  // (the RTL's DECODE with wb_defer, the cycle before its IDLE: no control input taken)
  } else if (status_ == wc(spec::WcStatus::kSuccess) && wqe_.local && !new_) {
    // a local operation met again after a rewind: neither executed nor
    // tracked again; written back right after its decode (the RTL's DECODE -> WB)
    sent_ = false;
    finish(now, false);
  } else if (status_ != wc(spec::WcStatus::kSuccess) || wqe_.unsent) {
    sent_ = wqe_.unsent;  // (its PSN is taken)
    st_ = St::kTrack;
    trk_decoded_ = true;
  } else if (wqe_.local) {
    local_sent_ = false;
    st_ = St::kLocal;
  } else if (active_ == 0) {
    st_ = St::kRun;
  } else {
    st_ = St::kCheck;
  }
  if (st_ == St::kRun) begin_run();
  if (st_ == St::kRun && trk_pend_) offer_starts();
  // (asked in the pick's cycle, a cycle before DECODE's own ask)
  if (st_ == St::kCheck) push_check(eng_at_ - kFirstCheck - (spec_ ? 1 : 0));
  spec_ = false;
}

// The RTL's spec_ask: the head alone (and the QP: RC, not in ERR) shows that
// its decode goes to CHECK with SGE 0 first -- a SEND or RDMA WRITE, not
// inline, not fenced, one SGE holding all its bytes, not poisoned.
bool Requester::spec_check(const Packet& head) const {
  if (head.user) return false;
  std::vector<uint8_t> all(spec::SendWqe::kSize, 0);  // (the head: the fields and SGE 0 are in it)
  std::copy_n(head.data.data(), std::min(head.data.size(), all.size()), all.begin());
  spec::SendWqe w;
  w.load(all.data());
  spec::Sge g0;
  g0.load(all.data() + spec::kSendWqeSge0AddrOff);
  using Op = spec::WrOpcode;
  const auto op = static_cast<Op>(w.opcode);
  const Qp& x = qps_[act_];
  return x.cfg.qp_type == static_cast<uint8_t>(spec::QpType::kRc) && x.state != qs(spec::QpState::kErr) &&
         (op == Op::kSend || op == Op::kSendWithImm || op == Op::kSendWithInv || op == Op::kRdmaWrite ||
          op == Op::kRdmaWriteWithImm) &&
         !((w.flags >> 2) & 1u) && !((w.flags >> 3) & 1u) && w.num_sge == 1 && g0.length != 0 && g0.length == w.length;
}

bool Requester::push_check(Cycle at) {
  while (chk_sent_ < kMaxSge && !((active_ >> chk_sent_) & 1u)) ++chk_sent_;
  if (chk_sent_ == kMaxSge || !mr_req->can_push()) return false;
  // one mr_req per SGE with bytes: lkey, the QP's PD, the SGE's range
  const spec::Sge& g = wqe_.sge[chk_sent_];
  spec::MrReq r;
  r.tag = static_cast<uint8_t>(chk_sent_);
  r.key = g.lkey;
  r.pd = qps_[act_].cfg.pd;
  r.va = g.addr;
  r.len = g.length;
  mr_req->push(r, at);
  ++chk_sent_;
  return true;
}

void Requester::run() {
  const Cycle now = s_.now();
  // PF sees the flags of the cycles before its own: before this cycle's inputs
  pf_visit(now);
  offer_taken(now);
  while (!fails_.empty() && fails_.front().second <= now) {
    Qp& q = qps_[fails_.front().first];
    if (q.state == qs(spec::QpState::kRts) || q.state == qs(spec::QpState::kSqd)) q.state = qs(spec::QpState::kErr);
    fails_.pop_front();
  }
  for (bool moved = true; moved;) {
    moved = false;
    while (control(now)) moved = true;
    // payload data whenever it comes: the back end's
    while (dma_rd.ready() && !reads_.empty() && reads_.front().kind == Rd::kPay) {
      data_.push_back(pop_read());
      data_at_.push_back(now);
      moved = true;
    }
    // a head read ahead whenever it comes (one dropped meanwhile is not kept)
    while (dma_rd.ready() && !reads_.empty() && reads_.front().kind == Rd::kPf) {
      Packet p = dma_rd.pop();
      PfEntry& e = pe_[reads_.front().seq];
      reads_.pop_front();
      if (e.st == Pe::kPend) {
        e.data = std::move(p);
        e.st = Pe::kDone;
        e.at = now;
      } else {
        e.st = Pe::kFree;
      }
      moved = true;
    }
    if (pfv_ && pf_visit(now)) moved = true;
    while (send_packet(now)) moved = true;
    while (end_wqe(now)) moved = true;
    // (a fetch, or a prefetched head on its way, waits for its data instead)
    if (st_ != St::kFetch && st_ != St::kPfWait && s_.defer(this, st_ == St::kIdle ? pick_from() : eng_at_)) break;
    switch (st_) {
      case St::kIdle: {
        // a qp_cfg waits for the back end to drain: nothing new is picked meanwhile
        if (qp_cfg.ready() && !be_empty(now)) {
          if (be_empty_at_ > now) s_.wake_at(this, be_empty_at_);
          break;
        }
        // (the reads ahead beside the last WQE go first: the RTL's eng_idle)
        // (a pick decided here is the RTL's IDLE of the cycle after)
        if (pfv_) break;
        if (now + 1 < pfv_done_at_) {
          s_.wake_at(this, pfv_done_at_ - 1);
          break;
        }
        // round robin from the QP after the last one served (in the
        // write-back's cycle: but for the QP written back)
        const bool in_wb = now < eng_at_;
        const unsigned n = static_cast<unsigned>(qps_.size());
        bool picked = false;
        for (unsigned i = 0; i < n && !picked; ++i) {
          const unsigned q = (rr_ + i) % n;
          if (!eligible(q) || (in_wb && q == wb_qpn_)) continue;
          start(q, now);
          picked = moved = true;
        }
        if (in_wb && !picked) s_.wake_at(this, eng_at_);
        break;
      }
      case St::kFetch: {
        push_fetch(now);
        if (!dma_rd.ready()) break;
        took_head(pop_read(), now);
        moved = true;
        break;
      }
      case St::kPfWait: {
        PfEntry& e = pe_[pf_sel_];
        if (e.st != Pe::kDone) break;
        // the RTL: PFW sees it a cycle after its last beat; then its decode,
        // and beside it the reads ahead (pfa_q)
        const Packet head = std::move(e.data);
        e.st = Pe::kFree;
        bool other = false;
        for (const PfEntry& o : pe_) other = other || ((o.st == Pe::kPend || o.st == Pe::kDone) && o.qpn == act_);
        if (!other) pfm_[act_] = false;
        // (a head already in by the pick's cycle is taken in it: no PFW cycle)
        const Cycle at = std::max(e.at + 2, pick_at_ + 2);
        spec_ = wb_pick_ && e.at <= pick_at_ && spec_check(head);
        pf_visit_start(at);
        took_head(head, at - 1);
        moved = true;
        break;
      }
      case St::kTail: {
        if (pfv_) break;  // (the reads ahead go first)
        if (!tail_asked_) {
          if (!dma_rd_req->can_push()) break;
          const Qp& x = qps_[act_];
          const uint32_t mask = (uint32_t{1} << (x.cfg.sq_lsz & 31u)) - 1;
          spec::DmaRdReq r;
          r.addr = x.cfg.sq_base + (uint64_t{act_ci_ & mask} << spec::kWqeSlotLog2) + spec::kWqeHead;
          r.len = static_cast<uint16_t>(spec::Sge::kSize * (head_.data[spec::kSendWqeNumSgeOff] - kHeadSge));
          dma_rd_req->push(r, std::max({now, head_at_ + kDecode, pfv_done_at_}));
          ++rd_pushed_;
          reads_.push_back({Rd::kTail, 0});
          tail_asked_ = true;
          moved = true;
        }
        if (!dma_rd.ready()) break;
        const Packet t = pop_read();
        std::vector<uint8_t> all(head_.data.data(), head_.data.data() + head_.data.size());
        all.insert(all.end(), t.data.data(), t.data.data() + t.data.size());
        fetched(Packet{Bytes(std::move(all)), head_.user || t.user}, now);
        moved = true;
        break;
      }
      case St::kCheck: {
        while (push_check(now)) moved = true;
        while (mr_resp.ready()) {
          while (chk_got_ < kMaxSge && !((active_ >> chk_got_) & 1u)) ++chk_got_;
          const spec::MrResp r = mr_resp.pop();
          if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) chk_err_ = true;
          chk_pa_[chk_got_] = r.pa;
          chk_run_[chk_got_] = r.run;
          ++chk_got_;
          moved = true;
        }
        while (chk_got_ < kMaxSge && !((active_ >> chk_got_) & 1u)) ++chk_got_;
        if (chk_got_ < kMaxSge) break;
        if (chk_err_) {
          status_ = wc(spec::WcStatus::kLocProtErr);
          st_ = St::kTrack;
          moved = true;
          break;
        }
        st_ = St::kRun;
        begin_run();
        eng_at_ = now + kRunStart;  // (RUN from the cycle after the last answer)
        if (trk_pend_) offer_starts();
        iss_at_ = std::max(iss_at_, eng_at_ + seek_);
        moved = true;
        break;
      }
      case St::kLocal: {
        // BIND_MW / LOCAL_INV: one MR-table operation (IBTA 10.6.7: the
        // window's key, its PD and QP checked there); its answer is the status
        const spec::SendWqe& w = wqe_.w;
        if (!local_sent_ && mr_req->can_push()) {
          spec::MrReq r;
          r.op = static_cast<uint8_t>(wqe_.bind ? spec::MrOp::kBind : spec::MrOp::kInvalidate);
          r.key = wqe_.bind ? w.rkey : w.imm;
          r.pd = qps_[act_].cfg.pd;
          r.qpn = act_;
          if (wqe_.bind) {
            r.va = w.remote_addr;
            r.len = w.length;
            r.access = static_cast<uint8_t>(w.bind_access & kWindowRights);
            r.mr_key = w.bind_mr_lkey;
          }
          mr_req->push(r, now);
          local_sent_ = true;
          moved = true;
        }
        if (!local_sent_ || !mr_resp.ready()) break;
        const bool ok = mr_resp.pop().status == static_cast<uint8_t>(spec::MrStatus::kOk);
        using S = spec::WcStatus;
        status_ = wc(ok ? S::kSuccess : wqe_.bind ? S::kMwBindErr : S::kLocQpOpErr);  // (rxe's statuses)
        st_ = St::kTrack;
        moved = true;
        break;
      }
      case St::kRun:
        if (asking_ && mr_resp.ready()) {
          const spec::MrResp r = mr_resp.pop();
          asking_ = false;
          run_valid_ = true;
          if (r.status == static_cast<uint8_t>(spec::MrStatus::kOk)) {
            pa_ = r.pa;
            run_rem_ = r.run;
            run_zero_ = false;
          } else {  // a later page run that no longer translates: zeros, and the WQE fails
            run_rem_ = sge_rem_;
            run_zero_ = true;
            issue_err_ = true;
          }
          moved = true;
        }
        if (trk_pend_ && sq_track->can_push()) {  // a new WQE is tracked before its first packet is queued
          const Cycle at = std::max(now, bt_free_);  // (behind the back end's)
          sq_track->push(track(), at);
          trk_wait_ = ++trk_pushed_;
          offer_trk_ = trk_wait_;
          fe_at_ = std::max(fe_at_, at);
          trk_pend_ = false;
          amend_ = true;  // from now on its failure is an amend
          moved = true;
        }
        while (issue(now)) moved = true;
        while (queue_header(now)) moved = true;
        if (pkt_k_ == wqe_.npk) {  // its last header queued: what its packets meet, the back end tracks
          sent_ = true;
          status_ = wc(spec::WcStatus::kSuccess);
          finish(fe_last_ - 1, false);  // (WB the cycle after its last header is queued)
          moved = true;
        }
        break;
      case St::kTrack: {
        // a failure, or a new local operation (done here: tracked once
        // executed); one met again after a rewind is neither executed nor
        // tracked again. Tracked once the back end's WQEs ended (UC/UD: their
        // sq_tracks come first).
        const bool tracked = status_ != wc(spec::WcStatus::kSuccess) || (wqe_.local && new_) || wqe_.unrel;
        if (trk_first_ == kNever) trk_first_ = now;  // (TRACK from here; it waits for the back end)
        if (tracked && (!sq_track->can_push() || !bq_.empty() || !ends_.empty())) break;
        // (TRACK follows DECODE at once; after a check or a local operation
        // it is a cycle later)
        const Cycle at = std::max(trk_first_ + (trk_decoded_ ? 0 : kTrack), drain_at_);
        trk_first_ = kNever;
        trk_decoded_ = false;
        finish(tracked ? at : now, tracked);
        moved = true;
        break;
      }
    }
  }
}

std::unique_ptr<rocenic::Block> make_requester_block(unsigned data_bytes, unsigned max_qp,
                                                     const std::function<void(Requester&)>& setup) {
  return std::make_unique<FlitAdapter>(data_bytes, [=](FlitAdapter& a) {
    Requester* r = a.make<Requester>(data_bytes, max_qp);
    if (setup) setup(*r);
    // (none in the write-back cycle: req_qp_ctx's context memories have one write port)
    a.in_when<spec::QpCfg>("qp_cfg", r->qp_cfg, [r](const spec::QpCfg&) { return !r->writing_back(); });
    a.in_when<SqDoorbell>("sq_db", r->sq_db, [r](const SqDoorbell&) { return !r->writing_back(); },
                          SqDoorbell::kFlitBytes, sq_doorbell_from_flit);
    a.in_when<spec::SqRetire>("sq_retire", r->sq_retire, [r](const spec::SqRetire&) { return !r->writing_back(); });
    a.in_stream("dma_rd", r->dma_rd);
    a.in<spec::MrResp>("mr_resp", r->mr_resp);
    a.out<spec::DmaRdReq>("dma_rd_req", r->dma_rd_req, 1);
    a.out<spec::MrReq>("mr_req", r->mr_req, 2);
    a.out<spec::RoceTxHdr>("tx_hdr", r->tx_hdr, 2);
    a.out_stream("tx_payload", r->tx_payload, 2);
    a.stall_last_stream([r](Cycle x, Cycle y) { return r->payload_held(x, y); });
    a.out<spec::SqTrack>("sq_track", r->sq_track);
    a.out_event<spec::RdHint>("rd_hint", r->rd_hint, 2);
    a.counters_from([r] { return std::vector<std::pair<std::string, uint32_t>>{{"tx_pkts", r->tx_pkts()}}; });
    a.busy_from([r] { return r->busy(); });
  });
}

}  // namespace rocenic::model
