// The RC responder of the event-driven model (responder.h says what it does):
// the checker (steps 1-9 of docs/engine.md "Responder", an atomic's checks,
// read and decision as in "Atomics"), placement and the sender.
#include "xport/responder.h"

#include <algorithm>

#include "sched/flit_adapter.h"
#include "xport/tx_addr.h"

namespace rocenic::model {
namespace {

// Timing, in cycles (calibrated against the RTL by engine_bench).
constexpr Cycle kTake = 1;       // an input taken: its QP context is read
constexpr Cycle kCtlTake = 2;    // a qp_cfg or doorbell taken (C_IDLE), applied (C_CFG, C_DB)
constexpr Cycle kContinue = 1;   // a packet that continues a message taken: its context read (C_HDR), then its pieces
constexpr Cycle kCheck = 2;      // a header's checks (steps 1-5)
constexpr Cycle kSgeTotal = 0;   // a receive WQE's SGE slots in use, one a cycle (at least one), the total with the last
constexpr Cycle kSgeAsk = 0;     // ... and SGE 0's lkey check asked in that last cycle (C_SGE, from the WQE)
constexpr Cycle kPiece = 1;      // one DMA piece cut
constexpr Cycle kDecide = 1;     // the verdict written
constexpr Cycle kPushOut = 1;    // a verdict decided after a page run's answer: offered (C_PUSH), then C_IDLE
constexpr Cycle kPlace = 5;      // verdict to its first write request (post FIFO, issuer)
constexpr Cycle kIssueTake = 2;  // a verdict pushed to the issuer taking it (the verdict FIFO)
constexpr Cycle kIssueReq = 3;   // the issuer taking a verdict to its first request at the port
constexpr Cycle kIssueDone = 2;  // the issuer's last piece pushed (or its one work cycle) to its next verdict
constexpr Cycle kIssuePush = 2;  // a piece pushed by the issuer to its request at the port (the request FIFO)
constexpr size_t kDescDepth = spec::kRspPlaceQueue;     // the slicer's descriptor FIFO
constexpr unsigned kPostDepth = spec::kRspPlaceQueue;  // the post FIFO
constexpr Cycle kWrData = 2;     // a write request to its data (the slicer, after the request FIFO) ...
constexpr Cycle kWrDataAtomic = 1;  // ... an atomic's new value, from a register
constexpr Cycle kPostSeen = 2;   // a packet's last data beat to its completion (the post stage counts it taken)
constexpr Cycle kAckOut = 3;     // the post stage to its ACK's header (the sender's job FIFO)
constexpr Cycle kReadWalk = 5;   // a READ's post to its walker's first piece (job and walk FIFOs)
constexpr Cycle kReadGap = 2;    // the walker issues a read every other cycle (one read register)
constexpr Cycle kRespHdr = 2;    // a response's last read beat in to its header (beats counted in, registered)
constexpr unsigned kTxPkts = 16;  // response packets read ahead of their header (responder_tx's PKT_DEPTH)
constexpr Cycle kAtomic = 1;     // an atomic's 8 bytes in to its new value decided
constexpr Cycle kRkeyAsk = 2;    // a later page run's mr_req: C_WALK, then C_MRW asks
constexpr Cycle kFirstAsk = 1;   // a WRITE's, READ's or atomic's rkey check: asked in C_HDR, a cycle before its checks end
constexpr Cycle kRouteAsk = 1;   // a SEND's receive WQE read, not prefetched: C_ROUTE, then its request
constexpr Cycle kAtomRead = 2;   // an atomic's rkey answer (or placement drained) to its 8-byte read
constexpr Cycle kDrainSeen = 2;    // the last write taken to the checker seeing placement drained (registered counts)

constexpr unsigned kMaxSge = spec::kMaxSge;
constexpr unsigned kHeadSge = (spec::kWqeHead - spec::kRecvWqeSge0AddrOff) / spec::Sge::kSize;  // 6
constexpr Cycle kTailFetch = 2;  // the head's last beat -> the tail's read request
constexpr Cycle kPfTake = 1;     // a prefetched receive WQE taken (the RTL's C_WQE cycle)
constexpr Cycle kPfInHdr = 1;    // ... a cycle sooner when the header's C_HDR takes its way (no C_ROUTE)
constexpr Cycle kPfAsk = 1;      // a doorbell's context read to its prefetch's read request
constexpr Cycle kPfNext = 1;     // a prefetched WQE taken (C_WQE) to the read of the QP's next one (its register)
constexpr unsigned kFlushReads = 8;  // flush reads outstanding
constexpr uint32_t kPsnMask = 0xFFFFFF;

uint64_t le(const Bytes& b, size_t off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && off + i < b.size(); ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}
uint8_t st(spec::QpState s) { return static_cast<uint8_t>(s); }
// The responses of a READ of len bytes: one per mtu, at least one.
uint32_t read_packets(uint32_t len, uint8_t pmtu) {
  const uint32_t mtu = 128u << pmtu;
  return len == 0 ? 1 : static_cast<uint32_t>((uint64_t{len} + mtu - 1) / mtu);
}
uint8_t syn(spec::Aeth a) { return static_cast<uint8_t>(a); }
uint8_t wc(spec::WcStatus s) { return static_cast<uint8_t>(s); }

}  // namespace

Responder::Responder(Scheduler& s, unsigned data_bytes, unsigned max_qp, unsigned rq_heads, unsigned rq_ahead)
    : qp_cfg(s, this, 1),
      rq_db(s, this, 1),
      rx_hdr(s, this, 1),
      rx_payload(s, this, 2),  // the RTL's payload FIFO holds two 4 KiB packets
      dma_rd_data(s, this, 1),
      mr_resp(s, this, 1),
      read_dma(s, this, 2),
      read_mr_resp(s, this, 1),
      s_(s),
      bytes_(data_bytes),
      qps_(max_qp),
      pf_(rq_heads),
      pf_ahead_(rq_ahead),
      raw_free_(spec::kReadAhead / data_bytes) {}

unsigned Responder::pf_find(unsigned qpn, uint16_t x) const {
  for (unsigned w = 0; w < pf_ahead_; ++w) {
    const Prefetch& e = pf_[pf_entry(qpn, w)];
    if (e.keep && e.qpn == qpn && e.ci == x) return pf_entry(qpn, w);
  }
  return kNoWay;
}

bool Responder::pf_missing(unsigned qpn, uint16_t from, uint16_t pi, uint16_t* x) const {
  for (unsigned j = 0; j < pf_ahead_ && j < static_cast<uint16_t>(pi - from); ++j)
    if (pf_find(qpn, static_cast<uint16_t>(from + j)) == kNoWay) {
      *x = static_cast<uint16_t>(from + j);
      return true;
    }
  return false;
}

unsigned Responder::pf_free(unsigned qpn, bool idle) const {
  for (unsigned w = 0; w < pf_ahead_; ++w) {
    const Prefetch& e = pf_[pf_entry(qpn, w)];
    if (!e.keep && !(idle && e.busy)) return pf_entry(qpn, w);
  }
  return kNoWay;
}

void Responder::prefetch(unsigned entry, unsigned qpn, uint16_t x, const Qp& q, Cycle at) {
  Prefetch& e = pf_[entry];
  e.busy = e.keep = true;
  e.qpn = qpn;
  e.ci = x;
  pf_out_.push_back(entry);
  spec::DmaRdReq r;
  r.addr = q.rq_base + (uint64_t{static_cast<uint16_t>(x & ((1u << q.rq_lsz) - 1))} << spec::kWqeSlotLog2);
  r.len = spec::kWqeHead;
  dma_rd_req->push(r, at);
}

std::vector<std::pair<std::string, uint32_t>> Responder::counters() const {
  return {{"tx_acks", c_acks_},       {"rx_pkts", c_rx_},          {"no_qp", c_noqp_},
          {"qp_state", c_state_},     {"out_of_sequence", c_oos_}, {"duplicate_request", c_dup_},
          {"rem_access_err", c_acc_}, {"rem_inv_req", c_inv_},     {"rnr_nak_sent", c_rnr_},
          {"rem_op_err", c_op_},      {"rx_read_requests", c_rd_}, {"qkey_violations", c_qkey_}};
}

// ---------------------------------------------------------------- checker

bool Responder::is_last() const { return seg_ == spec::Seg::kLast || seg_ == spec::Seg::kOnly; }

bool Responder::needs_wqe() const {
  const bool first = seg_ == spec::Seg::kFirst || seg_ == spec::Seg::kOnly;
  return (is_send_ && first) || (is_write_ && imm_ && is_last());
}

spec::CqCompl Responder::recv_compl(const Qp& q) const {
  spec::CqCompl c;
  c.cq = q.recv_cq;
  c.wr_id = q.wr_id;
  c.qp_num = qpn_;
  c.opcode = static_cast<uint8_t>(is_send_ ? spec::WcOpcode::kRecv : spec::WcOpcode::kRecvRdmaWithImm);
  c.src_qp = q.dest_qpn;
  c.sl = q.sl;
  c.wqe_counter = q.ci;
  return c;
}

void Responder::start_flush(uint16_t from, uint16_t to) {
  flush_pending_ = from != to;
  fl_next_ = fl_done_ = from;
  fl_end_ = to;
  fl_out_ = 0;
  fl_qpn_ = qpn_;
}

void Responder::end_message(Qp& q) {
  q.nak_sent = false;
  q.kind = Kind::kNone;
  q.drop = false;
  q.run_left = 0;
}

void Responder::on_cfg(const spec::QpCfg& c) {
  // Attributes from every qp_cfg; state and indexes by its action.
  qpn_ = c.qpn % qps_.size();
  if (c.qpn >= qps_.size()) return;
  Qp& q = qps_[qpn_];
  Qp n = q;
  if (!q.valid) {  // a QP that does not exist reads as zero
    n = Qp{};
    n.sge = q.sge;
  }
  // a prefetched head outlives only the moves that keep the ring and its indexes
  const auto a = static_cast<spec::QpAction>(c.action);
  const bool keeps_ring = a == spec::QpAction::kToInit || a == spec::QpAction::kToRtr || a == spec::QpAction::kToRts;
  if (!keeps_ring || c.rq_base != n.rq_base || c.rq_lsz != n.rq_lsz)
    for (unsigned w = 0; w < pf_ahead_; ++w) {  // (the QP's ways)
      Prefetch& e = pf_[pf_entry(qpn_, w)];
      if (e.qpn == qpn_) e.keep = false;
    }
  n.pd = c.pd;
  n.access = c.access;
  n.rd_res = c.max_dest_rd_atomic != 0;
  n.pmtu = c.pmtu;
  n.rq_base = c.rq_base;
  n.rq_lsz = c.rq_lsz;
  n.recv_cq = c.recv_cq;
  n.dest_qpn = c.dest_qpn;
  n.min_rnr = c.min_rnr_timer;
  n.sl = c.sl;
  n.qkey = c.qkey;
  const bool err = n.state == st(spec::QpState::kErr);  // ERR is left only through RESET
  switch (static_cast<spec::QpAction>(c.action)) {
    case spec::QpAction::kReset:
      n.state = st(spec::QpState::kReset);
      n.pi = n.ci = 0;
      n.epsn = n.msn = 0;
      n.atom_wp = n.atom_n = 0;  // the replay cache goes with the PSNs
      end_message(n);
      break;
    case spec::QpAction::kToInit:
      if (!err) n.state = st(spec::QpState::kInit);
      break;
    case spec::QpAction::kToRtr:
      if (!err) n.state = st(spec::QpState::kRtr);
      n.epsn = c.rq_psn;
      n.msn = 0;
      n.atom_wp = n.atom_n = 0;
      end_message(n);
      break;
    case spec::QpAction::kToRts:
      if (!err) n.state = st(spec::QpState::kRts);
      break;
    case spec::QpAction::kToErr:
      n.state = st(spec::QpState::kErr);
      fl_q_ = n;
      start_flush(n.ci, n.pi);
      n.ci = n.pi;
      break;
    default: break;  // ATTR, DESTROY: attributes only
  }
  n.valid = c.action != static_cast<uint8_t>(spec::QpAction::kDestroy);
  n.rc = c.qp_type == static_cast<uint8_t>(spec::QpType::kRc);
  n.uc = c.qp_type == static_cast<uint8_t>(spec::QpType::kUc);
  n.ud = c.qp_type == static_cast<uint8_t>(spec::QpType::kUd);
  n.addr = c;
  q = n;
}

void Responder::on_db(const spec::WqDb& d) {
  // RESET ignores doorbells; ERR flushes what a doorbell adds.
  qpn_ = d.qpn % qps_.size();
  Qp& q = qps_[qpn_];
  if (d.qpn >= qps_.size() || !q.valid || q.state == st(spec::QpState::kReset)) return;
  q.pi = d.pi;
  if (q.state == st(spec::QpState::kErr)) {
    fl_q_ = q;
    start_flush(q.ci, d.pi);
    q.ci = d.pi;
  }
  // a receive WQE read ahead of the packet that will need it
  const bool open = q.state == st(spec::QpState::kInit) || q.state == st(spec::QpState::kRtr) ||
                    q.state == st(spec::QpState::kRts);
  // (the first WQE not taken: ci, or ci + 1 while a SEND, which took ci at its FIRST packet, is under way)
  const uint16_t ci = static_cast<uint16_t>(q.ci + (q.kind == Kind::kSend ? 1 : 0));
  // the first of its WQEs ci .. ci + rq_ahead - 1 that is posted and not in
  // the set, into the set's first way neither kept nor being read into
  uint16_t x = ci;
  const bool want = pf_missing(qpn_, ci, d.pi, &x);
  const unsigned way = pf_free(qpn_, true);
  if (open && want && way != kNoWay && pf_out_.size() < spec::kRspRqPfOut) {
    if (dma_rd_req->can_push()) {
      prefetch(way, qpn_, x, q, s_.now() + kTake + kPfAsk);  // (the RTL: taken, context read, entry checked, request out)
    } else {  // the RTL's C_DB waits for its read register (its choice made)
      db_ci_ = x;
      db_e_ = way;
      db_at_ = s_.now() + kTake + kPfAsk;
      st_ = St::kDbAsk;
    }
  }
}

void Responder::on_hdr(const spec::RoceRxHdr& h) {
  h_ = h;
  qpn_ = h.dst_qpn % qps_.size();
  // an RC QP (another type's opcode is an invalid request there), a UC QP
  // and a UC opcode, a UD QP and a UD opcode (an RC opcode is not their peer's)
  const bool uc_op = (h.opcode >> 5) == 1;  // 0x20..0x3F
  const bool ud_op = (h.opcode >> 5) == 3;  // 0x60..0x7F
  const Qp& t = qps_[qpn_];
  ud_ = t.ud;
  unrel_ = t.uc || t.ud;
  const bool qp_ok =
      h.dst_qpn < qps_.size() && t.valid && (t.rc || (t.uc && uc_op) || (t.ud && ud_op));
  // a UC or UD opcode as the RC one (UD SEND ONLY: SEND ONLY)
  const uint8_t op = (t.uc && uc_op) || (t.ud && ud_op) ? h.opcode & 0x1F : h.opcode;
  is_send_ = op <= spec::kRcSendOnlyImm || op == spec::kRcSendLastInv || op == spec::kRcSendOnlyInv;
  is_write_ = op >= spec::kRcWriteFirst && op <= spec::kRcWriteOnlyImm;
  is_read_ = op == spec::kRcReadReq;
  is_atomic_ = op == spec::kRcCmpSwap || op == spec::kRcFetchAdd;
  dup_ = false;
  const spec::OpInfo& oi = spec::kOpcodes[h.opcode];
  imm_ = oi.valid && (oi.ext & spec::kExtImmdt);
  inv_ = oi.valid && (oi.ext & spec::kExtIeth);
  inv_done_ = false;
  seg_ = oi.valid ? oi.seg : spec::Seg::kFirst;
  const Qp& q = qps_[qpn_];
  cx_ = q;
  if (!q.valid) {
    cx_ = Qp{};
    cx_.sge = q.sge;
    cx_.addr = q.addr;
  }
  const Qp& c = cx_;
  vd_ = Verdict{};
  vd_.qpn = static_cast<uint16_t>(qpn_);
  vd_.pay_len = h.pay_len;
  vd_.psn = c.epsn;
  vd_.msn = c.msn;
  ok_ = write_back_ = false;
  todo_ = h.pay_len;
  const bool first = seg_ == spec::Seg::kFirst || seg_ == spec::Seg::kOnly;
  const bool middle_or_last = seg_ == spec::Seg::kMiddle || seg_ == spec::Seg::kLast;
  const uint32_t mtu = 128u << c.pmtu;
  const uint32_t d = (h.psn - c.epsn) & kPsnMask;
  const uint32_t len = h.pay_len;
  // (UC: a FIRST or ONLY starts a new message whatever was in progress; a
  // message whose packet was dropped is dropped to its end)
  const bool seq_ok = (c.kind == Kind::kNone || (unrel_ && first))
                          ? first
                          : middle_or_last && !c.drop && c.kind == (is_send_ ? Kind::kSend : Kind::kWrite);
  if (unrel_ && first) {
    // UC: a new message from its PSN on (written back with the packet's outcome)
    cx_.epsn = h.psn;
    cx_.drop = false;
    cx_.kind = Kind::kNone;
  }
  // (UD: no path MTU; a datagram is one packet of at most 4096 bytes, the parser's limit)
  const bool len_ok = ud_ ? true
                      : (seg_ == spec::Seg::kFirst || seg_ == spec::Seg::kMiddle) ? len == mtu
                      : seg_ == spec::Seg::kLast                                 ? (len != 0 && len <= mtu)
                                                                                  : len <= mtu;
  const bool wlen_ok = first ? len <= h.reth_len : len <= c.left;
  // IBTA order (docs/engine.md, steps 1-5): first failure wins.
  if (!qp_ok) {
    ++c_noqp_;
  } else if (c.state != st(spec::QpState::kRtr) && c.state != st(spec::QpState::kRts)) {
    ++c_state_;
  } else if (ud_ && h.qkey != c.qkey) {
    // UD (IBTA 10.2.5): a datagram without the QP's Q_Key is dropped
    ++c_qkey_;
  } else if (!ud_ && h.l3 != c.addr.l3) {
    // another encapsulation than the QP's path (a RoCE v1 packet for a v2
    // QP, IPv4 for IPv6): not this QP's peer, dropped as for no QP
    ++c_noqp_;
  } else if (unrel_ && (d != 0 || c.drop) && !first) {
    // UC (IBTA 9.8.3): a packet lost or dropped before this one loses the
    // rest of its message; the next FIRST or ONLY starts afresh
    ++c_oos_;
    cx_.drop = true;
    cx_.kind = Kind::kNone;
    write_back_ = true;
  } else if (!unrel_ && (d & 0x800000u)) {  // duplicate: acknowledged again, not executed (a READ: executed again)
    ++c_dup_;
    if (is_atomic_) {
      // not checked or executed again: answered from the replay cache with
      // the current msn, or dropped without an answer when its PSN is not there (rxe)
      if (const AtomEntry* e = replayed(c, h.psn)) {
        vd_.ack = true;
        vd_.atomic = true;
        vd_.syn = syn(spec::Aeth::kAck);
        vd_.psn = h.psn;
        vd_.orig = e->orig;
      }
    } else if (!is_read_) {
      vd_.ack = h.ack_req;
      vd_.syn = syn(spec::Aeth::kAck);
      vd_.psn = (c.epsn - 1) & kPsnMask;
    } else if (len == 0 && h.reth_len <= spec::kMaxMsg && (c.access & static_cast<uint8_t>(spec::Access::kRemoteRead)) &&
               c.rd_res &&
               ((c.epsn - h.psn) & kPsnMask) >= read_packets(h.reth_len, c.pmtu)) {
      dup_ = true;  // from its own RETH, its responses all behind epsn; epsn and msn unchanged (else dropped, no NAK)
      return start_read();
    }
  } else if (!unrel_ && d != 0) {  // out of sequence: one NAK until the expected PSN arrives
    ++c_oos_;
    if (!c.nak_sent) {
      vd_.ack = true;
      vd_.syn = syn(spec::Aeth::kNakPsnSeq);
      cx_.nak_sent = true;
      write_back_ = true;
    }
  } else if (!(is_send_ || is_write_ || is_read_ || is_atomic_) || !seq_ok || !len_ok || (is_write_ && !wlen_ok) ||
             (is_read_ && (len != 0 || h.reth_len > spec::kMaxMsg)) || (is_atomic_ && len != 0)) {
    ++c_inv_;
    return fail(syn(spec::Aeth::kNakInvReq), false, 0);
  } else if (is_send_ && middle_or_last && len + c.placed > c.total) {
    ++c_inv_;
    return fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
  } else if ((is_write_ && first && !(c.access & static_cast<uint8_t>(spec::Access::kRemoteWrite))) ||
             (is_read_ && !(c.access & static_cast<uint8_t>(spec::Access::kRemoteRead))) ||
             (is_atomic_ && !(c.access & static_cast<uint8_t>(spec::Access::kRemoteAtomic)))) {
    ++c_acc_;
    return fail(syn(spec::Aeth::kNakRemAcc), false, 0);
  } else if ((is_read_ || is_atomic_) && !c.rd_res) {
    // no READ/atomic resources (max_dest_rd_atomic 0): invalid request, as rxe's check_resource
    ++c_inv_;
    return fail(syn(spec::Aeth::kNakInvReq), false, 0);
  } else if (is_read_) {
    return start_read();
  } else if (is_atomic_) {
    return start_atomic();
  } else {
    if (is_write_ && first) {
      cx_.kind = Kind::kWrite;
      cx_.va = h.reth_va;
      cx_.left = cx_.rlen = h.reth_len;
      cx_.rkey = h.reth_rkey;
      cx_.run_left = 0;
      if (h.reth_len != 0) {
        // The rkey check (none for a zero-length WRITE, IBTA C9-88); its
        // answer is also the first page run's translation.
        spec::MrReq r;
        r.key = h.reth_rkey;
        r.pd = c.pd;
        r.va = h.reth_va;
        r.len = h.reth_len;
        r.access = static_cast<uint8_t>(spec::Access::kRemoteWrite);
        r.remote = 1;  // every rkey check: a window answers its QP (type 2) or its PD
        r.qpn = qpn_;
        // (C_HDR reads the context and asks: the take's first cycle after)
        mr_req->push(r, std::max(s_.now(), check_at_ - kFirstAsk));
        st_ = St::kRkey;
        return;
      }
    }
    if (needs_wqe()) return get_wqe(true);
    ok_ = len == 0;
    if (len == 0) return decide();
    // (a packet that continues a message: C_HDR, then its pieces in C_WALK)
    check_at_ = s_.now() + kContinue;
    return walk();
  }
  decide();
}

// Step 5 of a READ: the rkey check over the whole range (none for a
// zero-length READ); its answer is the first page run.
void Responder::start_read() {
  cx_.va = h_.reth_va;
  cx_.left = h_.reth_len;
  cx_.rkey = h_.reth_rkey;
  cx_.run_left = 0;
  zero_ = false;
  pk_left_ = std::min(h_.reth_len, 128u << cx_.pmtu);
  if (h_.reth_len == 0) {
    ok_ = true;
    return decide();
  }
  spec::MrReq r;
  r.key = h_.reth_rkey;
  r.pd = cx_.pd;
  r.va = h_.reth_va;
  r.len = h_.reth_len;
  r.access = static_cast<uint8_t>(spec::Access::kRemoteRead);
  r.remote = 1;
  r.qpn = qpn_;
  mr_req->push(r, std::max(s_.now(), check_at_ - kFirstAsk));
  st_ = St::kRkey;
}

// A READ's pieces: to the response packet's end, the page run's end or the
// next 4 KiB bus-address boundary, whichever comes first.
void Responder::walk_read() {
  const uint32_t mtu = 128u << cx_.pmtu;
  while (cx_.left != 0) {
    if (cx_.run_left == 0) {
      spec::MrReq r;
      r.key = cx_.rkey;
      r.pd = cx_.pd;
      r.va = cx_.va;
      r.len = cx_.left;
      r.access = static_cast<uint8_t>(spec::Access::kRemoteRead);
      r.remote = 1;
      r.qpn = qpn_;
      read_mr_req->push(r, std::max(s_.now(), check_at_));  // (the RTL walker's own MR port)
      st_ = St::kRun;
      return;
    }
    const uint32_t page = 4096 - static_cast<uint32_t>(cx_.run_pa & 4095);
    const uint32_t k = std::min({pk_left_, cx_.run_left, page});
    vd_.pieces.push_back({cx_.run_pa, k, zero_, k == pk_left_});
    cx_.run_pa += k;
    cx_.run_left -= k;
    cx_.va += k;
    cx_.left -= k;
    pk_left_ = k != pk_left_ ? pk_left_ - k : std::min(cx_.left, mtu);
    check_at_ += kPiece;
  }
  // The RTL's checker decides a READ once its rkey check answered; the walk
  // is its sender's (responder_tx), reads are asked as it goes, so the walk
  // done here takes none of the checker's time.
  check_at_ = walk_at_;
  ok_ = true;
  decide();
}

// An atomic's rkey check: 8 bytes at its va with REMOTE_ATOMIC; its answer
// is also the bus address the atomic reads and writes.
void Responder::start_atomic() {
  spec::MrReq r;
  r.key = h_.reth_rkey;
  r.pd = cx_.pd;
  r.va = h_.reth_va;
  r.len = 8;
  r.access = static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  r.remote = 1;
  r.qpn = qpn_;
  mr_req->push(r, std::max(s_.now(), check_at_ - kFirstAsk));
  st_ = St::kRkey;
}

// An atomic's 8 bytes have arrived (read once placement had drained): the
// original value, and the new one (a CMP_SWAP that does not match writes nothing).
void Responder::after_atomic(const Packet& p) {
  if (p.user) {  // poisoned: remote operational error
    ++c_op_;
    return fail(syn(spec::Aeth::kNakRemOp), false, 0);
  }
  const uint64_t orig = le(p.data, 0, 8);
  const bool cas = h_.opcode == spec::kRcCmpSwap;
  vd_.atomic = true;
  vd_.orig = orig;
  if (!cas || orig == h_.compare) {
    vd_.wdata = cas ? h_.swap_add : orig + h_.swap_add;
    vd_.pieces.push_back({atom_pa_, 8});
  }
  check_at_ += kAtomic;
  ok_ = true;
  decide();
}

const Responder::AtomEntry* Responder::replayed(const Qp& q, uint32_t psn) {
  for (unsigned i = 0; i < q.atom_n; ++i) {  // newest first
    const AtomEntry& e = q.atom[(q.atom_wp + spec::kMaxQpRdAtom - 1 - i) % spec::kMaxQpRdAtom];
    if (e.psn == psn) return &e;
  }
  return nullptr;
}

void Responder::after_rkey(const spec::MrResp& r) {
  if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) {
    if (is_read_ && dup_) return decide();  // a duplicate READ that fails its rkey check: dropped
    ++c_acc_;
    return fail(syn(spec::Aeth::kNakRemAcc), false, 0);
  }
  if (is_atomic_) {
    if (h_.reth_va & 7) {  // not 8-byte aligned: checked after the key, as rxe
      ++c_inv_;
      return fail(syn(spec::Aeth::kNakInvReq), false, 0);
    }
    atom_pa_ = r.pa;  // 8 aligned bytes inside the MR: one page run
    st_ = St::kAtomDrain;
    return;
  }
  cx_.run_pa = r.pa;
  cx_.run_left = r.run;
  if (is_read_) {
    walk_at_ = check_at_;
    return walk_read();
  }
  if (needs_wqe()) return get_wqe();
  ok_ = todo_ == 0;
  return todo_ ? walk(true) : decide();
}

void Responder::get_wqe(bool in_hdr) {
  if (cx_.ci == cx_.pi) {  // no receive WQE: RNR NAK, nothing changes, the requester retries this PSN
    ++c_rnr_;
    vd_.ack = true;
    vd_.syn = static_cast<uint8_t>(syn(spec::Aeth::kRnrNak) | cx_.min_rnr);
    write_back_ = false;
    if (unrel_) {  // UC: no RNR NAK; the message is lost (rxe)
      cx_.drop = true;
      cx_.kind = Kind::kNone;
      write_back_ = true;
    }
    return decide();
  }
  const unsigned hit = pf_find(qpn_, cx_.ci);
  if (hit != kNoWay) {  // prefetched (or on its way): no read
    pf_[hit].keep = false;
    pf_e_ = hit;
    pf_routed_ = !in_hdr;  // (a header's own: taken in C_HDR, no C_ROUTE cycle)
    st_ = St::kWqePf;
    return;
  }
  pf_e_ = pf_free(qpn_, false);  // (where its read reads ahead, at its last beat)
  if (!dma_rd_req->can_push()) {  // the prefetch's request not yet taken: the RTL's C_ROUTE waits too
    st_ = St::kWqeAsk;
    return;
  }
  spec::DmaRdReq r;
  r.addr = cx_.rq_base + (uint64_t{static_cast<uint16_t>(cx_.ci & ((1u << cx_.rq_lsz) - 1))} << spec::kWqeSlotLog2);
  r.len = spec::kWqeHead;
  dma_rd_req->push(r, std::max(s_.now(), check_at_) + kRouteAsk);  // (C_ROUTE, then the request's register)
  st_ = St::kWqe;
}

void Responder::ask_tail(Cycle at) {
  spec::DmaRdReq r;
  r.addr = cx_.rq_base + (uint64_t{static_cast<uint16_t>(cx_.ci & ((1u << cx_.rq_lsz) - 1))} << spec::kWqeSlotLog2) +
           spec::kWqeHead;
  r.len = static_cast<uint16_t>(spec::Sge::kSize * tail_sges_);
  dma_rd_req->push(r, at);
  st_ = St::kWqeTail;
}

void Responder::after_wqe(const Packet& p) {
  const bool poisoned = p.user;
  const unsigned nsge = static_cast<unsigned>(le(p.data, spec::kRecvWqeNumSgeOff, 1));
  cx_.wr_id = poisoned ? 0 : le(p.data, spec::kRecvWqeWrIdOff, spec::kRecvWqeWrIdBytes);
  if (poisoned || nsge > kMaxSge) {
    ++c_op_;
    return fail(syn(spec::Aeth::kNakRemOp), true, wc(spec::WcStatus::kLocQpOpErr));
  }
  if (is_send_ && nsge > kHeadSge) {
    // SGEs 6..nsge-1 lie past the head: one more read, right after it in the slot
    wqe_head_ = p;
    tail_sges_ = nsge - kHeadSge;
    if (!dma_rd_req->can_push()) {  // (a prefetch's request still waits there: the RTL's C_TAIL waits too)
      st_ = St::kTailAsk;
      return;
    }
    ask_tail(std::max(s_.now(), check_at_) + kTailFetch);
    return;
  }
  use_wqe(p);
}

void Responder::after_wqe_tail(const Packet& t) {
  if (t.user) {
    ++c_op_;
    return fail(syn(spec::Aeth::kNakRemOp), true, wc(spec::WcStatus::kLocQpOpErr));
  }
  std::vector<uint8_t> all(wqe_head_.data.data(), wqe_head_.data.data() + wqe_head_.data.size());
  all.insert(all.end(), t.data.data(), t.data.data() + t.data.size());
  use_wqe(Packet{Bytes(std::move(all))});
}

// The receive WQE (head, and tail when it has more than six SGEs) is in.
void Responder::use_wqe(const Packet& p) {
  const unsigned nsge = static_cast<unsigned>(le(p.data, spec::kRecvWqeNumSgeOff, 1));
  if (is_send_) {
    cx_.kind = Kind::kSend;
    cx_.nsge = static_cast<uint8_t>(nsge);
    cx_.total = cx_.placed = 0;
    cx_.sidx = 0;
    cx_.soff = cx_.run_left = 0;
    for (unsigned i = 0; i < kMaxSge; ++i) {
      const size_t off = spec::kRecvWqeSge0AddrOff + spec::Sge::kSize * i;
      Sge& s = cx_.sge[i];
      s = Sge{};
      if (i >= nsge || off + spec::Sge::kSize > p.data.size()) continue;  // (slots past num_sge: unused)
      s.addr = le(p.data, off, 8);
      s.len = static_cast<uint32_t>(le(p.data, off + 8, 4));
      s.lkey = static_cast<uint32_t>(le(p.data, off + 12, 4));
      cx_.total += s.len;
    }
    // the RTL writes every slot in use, one a cycle (C_SGE); a WQE of at most
    // one SGE has its slot written, its length checked and its lkey asked in
    // the cycle it is taken (C_WQE)
    if (nsge > 1) check_at_ += nsge + kSgeTotal;
    if (h_.pay_len > cx_.total) {
      ++c_inv_;
      return fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
    }
  }
  ok_ = todo_ == 0;
  // (a SEND's first page run asked in the last slot's cycle, unless SGE 0 is empty)
  if (todo_ && is_send_ && cx_.sge[0].len != 0) return walk(false, kSgeAsk);
  return todo_ ? walk() : decide();
}

// The MR answer offered now ends the packet in hand in its own cycle (walk's
// fast_vd_): a WRITE's rkey check or a page run's translation holding all
// the packet's bytes not yet cut, not a READ, an atomic, a SEND with
// invalidate or a UD datagram, nor while a flush waits.
bool Responder::answer_ends_packet(const spec::MrResp& r) const {
  if (st_ != St::kRkey && st_ != St::kRun) return false;
  if (is_read_ || is_atomic_ || (is_send_ && inv_) || ud_ || flush_pending_ || !mr_resp.empty()) return false;
  if (st_ == St::kRkey && needs_wqe()) return false;
  return r.status == static_cast<uint8_t>(spec::MrStatus::kOk) && todo_ != 0 && todo_ <= r.run;
}

// Step 7: cut the packet into DMA pieces that never cross an SGE end or a
// page run (each run translated by the MR table, which checks the key too).
void Responder::walk(bool answered, Cycle ask) {
  // (the first piece after a page run's answer is cut in C_MRW itself, with the answer)
  bool free_piece = answered;
  const Cycle at0 = check_at_;
  while (todo_ != 0) {
    if (is_send_) {
      const Sge& s = cx_.sge[cx_.sidx];
      if (cx_.soff == s.len) {  // this SGE is full (or empty): the next one
        if (cx_.sidx + 1u >= cx_.nsge) {
          ++c_inv_;  // cannot happen after the length checks; kept as a guard
          return fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
        }
        ++cx_.sidx;
        cx_.soff = cx_.run_left = 0;
        check_at_ += kPiece;
        continue;
      }
    }
    if (cx_.run_left == 0) {
      spec::MrReq r;
      r.pd = cx_.pd;
      r.qpn = qpn_;
      if (is_send_) {
        const Sge& s = cx_.sge[cx_.sidx];
        r.key = s.lkey;
        r.va = s.addr + cx_.soff;
        r.len = s.len - cx_.soff;
        r.access = static_cast<uint8_t>(spec::Access::kLocalWrite);
      } else {
        r.key = cx_.rkey;
        r.va = cx_.va;
        r.len = cx_.left;
        r.access = static_cast<uint8_t>(spec::Access::kRemoteWrite);
        r.remote = 1;
      }
      mr_req->push(r, std::max(s_.now(), check_at_) + (ask == kNever ? kRkeyAsk : ask));
      st_ = St::kRun;
      return;
    }
    const uint32_t k = std::min(todo_, cx_.run_left);
    vd_.pieces.push_back({cx_.run_pa, k});
    todo_ -= k;
    cx_.run_pa += k;
    cx_.run_left -= k;
    if (is_send_) {
      cx_.soff += k;
      cx_.placed += k;
    } else {
      cx_.va += k;
      cx_.left -= k;
    }
    if (!free_piece) check_at_ += kPiece;
    free_piece = false;
  }
  ok_ = true;
  // the answer's own piece ended the packet: that C_MRW cycle is its verdict's
  // (the RTL's fast_vd; not a SEND with invalidate, a UD datagram, nor while a flush waits)
  fast_vd_ = answered && check_at_ == at0 && !(is_send_ && inv_) && !ud_ && !flush_pending_;
  decide();
  fast_vd_ = false;
}

void Responder::after_run(const spec::MrResp& r) {
  if (is_read_) {  // a failed later run (the MR changed after the rkey check): the rest is zeros
    zero_ = r.status != static_cast<uint8_t>(spec::MrStatus::kOk);
    cx_.run_pa = zero_ ? 0 : r.pa;
    cx_.run_left = zero_ ? cx_.left : r.run;
    return walk_read();
  }
  if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) {
    if (is_write_) {
      ++c_acc_;
      return fail(syn(spec::Aeth::kNakRemAcc), false, 0);
    }
    ++c_op_;
    return fail(syn(spec::Aeth::kNakRemOp), true, wc(spec::WcStatus::kLocProtErr));
  }
  cx_.run_pa = r.pa;
  cx_.run_left = r.run;
  walk(true);
}

// A failed check: NAK (psn = epsn, current msn), maybe an error CQE for the
// receive WQE at ci; the QP enters ERR and the rest of its receive queue is flushed.
void Responder::fail(uint8_t s, bool with_cqe, uint8_t status) {
  if (unrel_) {
    // UC/UD: no NAK and no error state: the message is dropped to its end; a
    // SEND too long for its receive WQE completes that WQE with LOC_LEN_ERR
    // (IBTA class D, as rxe) and the QP goes on
    vd_.pieces.clear();
    if (with_cqe && status == wc(spec::WcStatus::kLocLenErr)) {
      vd_.cqe = true;
      vd_.completion = recv_compl(cx_);
      vd_.completion.status = status;
      cx_.ci = static_cast<uint16_t>(cx_.ci + 1);
    }
    cx_.drop = true;
    cx_.kind = Kind::kNone;
    write_back_ = true;
    ok_ = false;
    return decide();
  }
  vd_.ack = true;
  vd_.syn = s;
  vd_.psn = cx_.epsn;
  vd_.msn = cx_.msn;
  vd_.cqe = with_cqe;
  vd_.completion = recv_compl(cx_);
  vd_.completion.status = status;
  vd_.pieces.clear();
  const uint16_t ci = with_cqe ? static_cast<uint16_t>(cx_.ci + 1) : cx_.ci;
  cx_.state = st(spec::QpState::kErr);
  fl_q_ = cx_;
  start_flush(ci, cx_.pi);
  cx_.ci = cx_.pi;
  write_back_ = true;
  ok_ = false;
  decide();
}

// Step 8 of a SEND with invalidate: its rkey is invalidated (remote: only a
// type 2 window bound to this QP, in its PD), else NAK invalid request and
// the receive WQE completes with REM_INV_REQ_ERR (rxe's status).
void Responder::after_invalidate(const spec::MrResp& r) {
  if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) {
    ++c_inv_;
    return fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kRemInvReqErr));
  }
  inv_done_ = true;
  decide();
}

// Step 9: the verdict; the context is written back.
void Responder::decide() {
  if (ok_ && is_send_ && inv_ && !inv_done_) {
    spec::MrReq r;
    r.op = static_cast<uint8_t>(spec::MrOp::kInvalidate);
    r.key = h_.imm;
    r.pd = cx_.pd;
    r.remote = 1;
    r.qpn = qpn_;
    mr_req->push(r, std::max(s_.now(), check_at_));
    st_ = St::kInv;
    return;
  }
  Verdict v = std::move(vd_);
  if (unrel_) v.ack = false;  // UC: nothing is acknowledged
  if (ok_ && is_read_) {
    // responses from the request's PSN; a new READ takes their PSNs and one MSN
    const uint32_t npk = read_packets(h_.reth_len, cx_.pmtu);
    v.read = true;
    v.rlen = h_.reth_len;
    v.pmtu = cx_.pmtu;
    v.syn = syn(spec::Aeth::kAck);
    v.psn = h_.psn;
    ++c_rd_;
    if (!dup_) {
      cx_.epsn = (cx_.epsn + npk) & kPsnMask;
      cx_.nak_sent = false;
      cx_.msn = (cx_.msn + 1) & kPsnMask;
      cx_.kind = Kind::kNone;
      cx_.run_left = 0;
      qps_[qpn_] = cx_;
      ++c_rx_;
    }
    v.msn = qps_[qpn_].msn;
  } else if (ok_ && is_atomic_) {
    // its write (none for a CMP_SWAP that did not match), then ATOMIC ACKNOWLEDGE {psn, ACK, msn + 1, orig};
    // the replay cache records {psn, orig}
    v.exec = true;
    v.ack = true;
    v.syn = syn(spec::Aeth::kAck);
    v.psn = h_.psn;
    cx_.epsn = (cx_.epsn + 1) & kPsnMask;
    cx_.nak_sent = false;
    cx_.msn = (cx_.msn + 1) & kPsnMask;
    cx_.atom[cx_.atom_wp] = {h_.psn, v.orig};
    cx_.atom_wp = static_cast<uint8_t>((cx_.atom_wp + 1) % spec::kMaxQpRdAtom);
    cx_.atom_n = static_cast<uint8_t>(std::min<unsigned>(cx_.atom_n + 1u, spec::kMaxQpRdAtom));
    v.msn = cx_.msn;
    qps_[qpn_] = cx_;
    ++c_rx_;
  } else if (ok_) {
    const bool last = is_last();
    v.exec = true;
    v.cqe = last && (is_send_ || imm_);
    v.completion = recv_compl(cx_);
    v.completion.solicited = h_.se;
    v.completion.byte_len = is_send_ ? static_cast<uint32_t>(cx_.placed) : cx_.rlen;
    v.completion.imm = imm_ || inv_ ? h_.imm : 0;           // ImmDt, or the rkey invalidated
    // IBV_WC_WITH_IMM, IBV_WC_WITH_INV; UD: IBV_WC_GRH (the buffer starts with it)
    v.completion.wc_flags = static_cast<uint8_t>((imm_ ? 2 : inv_ ? 8 : 0) | (ud_ ? 1 : 0));
    if (ud_) {
      v.completion.src_qp = h_.deth_src_qpn;
      v.completion.sl = h_.vlan_valid ? h_.vlan_pcp : 0;  // (RoCE has no SL field: the priority)
    }
    cx_.epsn = (cx_.epsn + 1) & kPsnMask;
    cx_.nak_sent = false;
    if (last) {
      cx_.msn = (cx_.msn + 1) & kPsnMask;
      cx_.kind = Kind::kNone;
      cx_.run_left = 0;
    }
    if (v.cqe) ++cx_.ci;
    v.ack = h_.ack_req;
    v.syn = syn(spec::Aeth::kAck);
    v.psn = h_.psn;
    v.msn = cx_.msn;
    qps_[qpn_] = cx_;
    ++c_rx_;
  } else if (write_back_) {
    const bool valid = qps_[qpn_].valid, rc = qps_[qpn_].rc, uc = qps_[qpn_].uc, ud = qps_[qpn_].ud;
    qps_[qpn_] = cx_;
    qps_[qpn_].valid = valid;
    qps_[qpn_].rc = rc;
    qps_[qpn_].uc = uc;
    qps_[qpn_].ud = ud;
  }
  check_at_ = std::max(check_at_, s_.now()) + (fast_vd_ ? 0 : kDecide);
  v.at = check_at_;
  placing_.push_back(std::move(v));
  st_ = flush_pending_ ? St::kFlushWait : St::kIdle;
}

// Flush: read each flushed WQE's wr_id and complete it with WR_FLUSH_ERR
// (placement has drained: earlier completions stay ahead).
bool Responder::flush_step(Cycle now) {
  bool moved = false;
  while (fl_next_ != fl_end_ && fl_out_ < kFlushReads && dma_rd_req->can_push()) {
    spec::DmaRdReq r;
    r.addr = fl_q_.rq_base + (uint64_t{static_cast<uint16_t>(fl_next_ & ((1u << fl_q_.rq_lsz) - 1))} << spec::kWqeSlotLog2);
    r.len = spec::kRecvWqeWrIdBytes;
    dma_rd_req->push(r, now);
    ++fl_next_;
    ++fl_out_;
    moved = true;
  }
  while (dma_rd_data.ready() && cq_compl->can_push()) {
    const Packet p = dma_rd_data.pop();
    spec::CqCompl c;
    c.cq = fl_q_.recv_cq;
    c.wr_id = p.user ? 0 : le(p.data, 0, 8);
    c.qp_num = fl_qpn_;
    c.opcode = static_cast<uint8_t>(spec::WcOpcode::kRecv);
    c.src_qp = fl_q_.dest_qpn;
    c.status = wc(spec::WcStatus::kWrFlushErr);
    c.sl = fl_q_.sl;
    c.wqe_counter = fl_done_++;
    cq_compl->push(c, now + 1);
    --fl_out_;
    moved = true;
  }
  if (fl_done_ == fl_end_) {
    flush_pending_ = false;
    st_ = St::kIdle;
    moved = true;
  }
  return moved;
}

// ---------------------------------------------------------------- placement

spec::RoceTxHdr Responder::ack_of(const Verdict& v) const {
  spec::RoceTxHdr h = header_to_peer(qps_[v.qpn].addr);
  h.opcode = spec::kRcAck;
  h.psn = v.psn;
  h.aeth_syndrome = v.syn;
  h.aeth_msn = v.msn;
  h.src_qpn = v.qpn;
  if (v.atomic) {
    h.opcode = spec::kRcAtomicAck;
    h.atomic_orig = v.orig;
  }
  return h;
}

// Placement (rtl/xport/responder_place.sv) in three stages, as the RTL's:
// the issuer takes the verdicts in order and pushes each payload piece's
// request and its descriptor (ahead of the data while the slicer is behind,
// up to the descriptor FIFO); the slicer writes each piece's data as the
// payload's beats come; the post stage sends each verdict's ACK and
// completion once its data (and every earlier packet's) has been taken.
// false: the stage waits (payload not here yet, or an output full).
bool Responder::issue(Cycle now) {
  Verdict& v = placing_[issued_];
  const bool has_post = v.cqe || v.ack || v.read;
  if (v.load == kNever) {
    // the post FIFO's room: the issuer pushes the entry after the pieces
    if (has_post && posts_waiting_ >= kPostDepth) {
      v.post_stalled = true;
      return false;
    }
    // the issuer takes a verdict kIssueTake cycles after it was pushed (the
    // verdict FIFO), then pushes a piece a cycle (at the port kIssueReq
    // cycles after the take), then the post entry
    v.load = std::max({v.at + kIssueTake, issue_at_, v.post_stalled ? now : Cycle{0}});
    v.npieces = v.exec && !v.read ? v.pieces.size() : 0;
    v.next_req = v.load + kIssueReq;
    if (v.pay_len != 0) v.pay_seq = pay_next_++;
  }
  while (v.npieces != 0 && v.issued < v.npieces) {
    if (!dma_wr_req->can_push()) return false;
    // (the descriptor FIFO: a piece is pushed once the slicer started the
    // one kDescDepth before it; an atomic's value waits for the slicer)
    // (the model's slicer takes a piece once its whole payload is in: the
    // descriptors queued and the piece being cut)
    if (slicing_.size() >= kDescDepth + 1 || (v.atomic && !slicing_.empty())) return false;
    Cycle room = 0;
    if (slicing_.size() < kDescDepth && slice_starts_.size() >= kDescDepth - slicing_.size())
      room = slice_starts_[slice_starts_.size() - (kDescDepth - slicing_.size())] + 1;
    const Piece& pc = v.pieces[v.issued];
    const Cycle start = v.atomic ? std::max({now, place_at_, v.at + kPlace})
                                 : std::max({now, v.next_req, v.at + kPlace, room});
    spec::DmaWrReq r;
    r.addr = pc.pa;
    r.len = static_cast<uint16_t>(pc.len);
    dma_wr_req->push(r, start);
    slicing_.push_back({&v, v.issued, start});
    ++writes_issued_;
    v.next_req = start + 1;
    ++v.issued;
  }
  // done: the post entry (if any) the cycle after its last push; the issuer
  // takes the next verdict two cycles after that
  const bool drop = !v.exec && v.pay_len != 0;
  const Cycle last_push = v.npieces != 0 ? v.next_req - 1 - kIssuePush : v.load + 1;
  issue_at_ = last_push + kIssueDone + (has_post && (v.npieces != 0 || drop) ? 1 : 0);
  v.writes_after = writes_issued_;
  if (has_post) ++posts_waiting_;
  ++issued_;
  return true;
}

// The payload of verdict payload number `seq`, once the parser's channel has
// it (taken ahead of its arrival: pop_ahead); nullptr: not yet.
const Responder::PayIn* Responder::payload(uint64_t seq) {
  while (pays_.size() <= seq - pay_base_ && !rx_payload.empty()) {
    const Cycle at = rx_payload.next_at();
    pays_.push_back({rx_payload.pop_ahead(), at});
  }
  return pays_.size() > seq - pay_base_ ? &pays_[seq - pay_base_] : nullptr;
}

bool Responder::slice(Cycle now) {
  Slice& sl = slicing_.front();
  Verdict& v = *sl.v;
  if (!dma_wr_data->can_push()) return false;
  const Piece& pc = v.pieces[sl.index];
  const Cycle beats = (pc.len + bytes_ - 1) / bytes_;
  std::vector<uint8_t> data;
  Cycle data_at = sl.req, in_last = 0;
  if (v.atomic) {  // an atomic's new value, as the host stores a 64-bit number
    for (unsigned i = 0; i < 8; ++i) data.push_back(static_cast<uint8_t>(v.wdata >> (8 * i)));
  } else {
    // (a Packet arrives at its last beat; its pieces are written as their beats come)
    const PayIn* pin = payload(v.pay_seq);
    if (!pin) return false;
    const Cycle pbeats = (pin->p.data.size() + bytes_ - 1) / bytes_;
    const Cycle pay_first = pin->at - std::min<Cycle>(pin->at, pbeats > 0 ? pbeats - 1 : 0);
    size_t off = 0;  // where this piece starts in the payload
    for (size_t k = 0; k < sl.index; ++k) off += v.pieces[k].len;
    data_at = std::max({sl.req, place_at_, pay_first + off / bytes_});
    in_last = pay_first + (off + pc.len + bytes_ - 1) / bytes_ - 1;  // its last byte in
    const uint8_t* p = pin->p.data.data() + off;
    data.assign(p, p + pc.len);
  }
  const Cycle last = std::max(data_at + beats - 1, in_last);
  v.data_end = last + (v.atomic ? kWrDataAtomic : kWrData);
  dma_wr_data->push(Packet{Bytes(std::move(data))}, std::max(v.data_end, now));
  ++writes_placed_;
  place_at_ = last + 1;
  slice_starts_.push_back(data_at);
  if (slice_starts_.size() > kDescDepth) slice_starts_.pop_front();
  ++v.sliced;
  slicing_.pop_front();
  return true;
}

bool Responder::post(Cycle now) {
  Verdict& v = placing_.front();
  if (v.sliced < v.npieces) return false;
  if (v.cqe && !cq_compl->can_push()) return false;
  // the sender's job FIFO holds RSP_TX_JOBS behind the job it sends (the front one here)
  if ((v.ack || v.read) && tx_jobs_.size() > spec::kRspTxJobs) return false;  // a job leaving wakes this (run's loop)
  if (v.pay_len != 0) {  // written, or dropped: through once its last beat is in
    const PayIn* pin = payload(v.pay_seq);
    if (!pin) return false;
    if (pin->at > now) {
      s_.wake_at(this, pin->at);
      return false;
    }
    pays_.pop_front();
    ++pay_base_;
  }
  // (a packet that wrote: once its last data beat is taken; else from its
  // verdict, after every earlier packet's data)
  const Cycle post = v.data_end ? std::max(now, v.data_end + kPostSeen) : std::max({now, post_floor_, v.at + kPlace});
  if (v.ack || v.read) {
    TxJob j;
    j.hdr = ack_of(v);
    j.read = v.read;
    j.rem = v.rlen;
    j.mtu = 128u << v.pmtu;
    if (v.read) {
      j.pieces.assign(v.pieces.begin(), v.pieces.end());
      for (const Piece& p : v.pieces)
        if (!p.zero) rd_todo_.push_back({p, v.writes_after, post + kReadWalk});
    } else {
      ++c_acks_;
    }
    if (v.atomic && v.exec) j.after_writes = v.writes_after;  // after its write (and every earlier one) was taken
    // (its own time: a later packet placed before this one's header leaves
    // does not hold it back, as the RTL's job FIFO does not)
    j.at = v.read ? post : post + kAckOut;
    tx_jobs_.push_back(std::move(j));
  }
  if (v.cqe) cq_compl->push(v.completion, post);
  if (v.cqe || v.ack || v.read) --posts_waiting_;
  if (v.data_end) post_floor_ = std::max(post_floor_, v.data_end - (v.atomic ? kWrDataAtomic : kWrData) + 1);
  placing_.pop_front();
  --issued_;
  return true;
}

// The sender: READ pieces read ahead (in order, against the raw buffer),
// then the front job: an ACK as it is, or a READ's next response once all
// of its packet's data has arrived.
bool Responder::send_step(Cycle now) {
  bool moved = false;
  while (!raw_release_.empty() && raw_release_.front().first <= now) {
    raw_free_ += raw_release_.front().second;
    raw_release_.pop_front();
  }
  // a READ reads only once the writes placed before it were taken (the host then serves it after them)
  const uint64_t writes_taken = writes_placed_ - dma_wr_data->size();
  // ... and their requests too (an atomic's answer waits for its write to be taken whole)
  const uint64_t writes_done = writes_placed_ - std::max(dma_wr_data->size(), dma_wr_req->size());
  while (!rd_todo_.empty() && rd_todo_.front().after_writes <= writes_taken && read_dma_req->can_push() &&
         rd_pkts_ < kTxPkts) {
    const Piece& p = rd_todo_.front().p;
    const Cycle at = std::max({now, rd_next_at_, rd_todo_.front().at});
    if (at > now) {
      s_.wake_at(this, at);
      break;
    }
    const unsigned beats = (p.len + bytes_ - 1) / bytes_;
    if (beats > raw_free_) {
      if (!raw_release_.empty()) s_.wake_at(this, raw_release_.front().first);  // room comes back then
      break;
    }
    raw_free_ -= beats;
    spec::DmaRdReq r;
    r.addr = p.pa;
    r.len = static_cast<uint16_t>(p.len);
    read_dma_req->push(r, now);
    rd_next_at_ = now + kReadGap;
    if (p.pkt_last) ++rd_pkts_;
    rd_todo_.pop_front();
    moved = true;
  }
  while (read_dma.ready()) {
    rd_data_at_.push_back(read_dma.next_at());
    rd_data_.push_back(read_dma.pop().data);
    moved = true;
  }
  while (!tx_jobs_.empty() && tx_hdr->can_push()) {
    TxJob& j = tx_jobs_.front();
    if (j.after_writes > writes_done) break;  // woken when dma_wr_req / dma_wr_data is taken
    if (!j.read) {
      const Cycle at = std::max({now, tx_at_, j.at});
      tx_hdr->push(j.hdr, at);
      tx_at_ = at + 1;
      tx_jobs_.pop_front();
      moved = true;
      continue;
    }
    // the next response: its pieces up to the packet's end, all read
    const uint32_t pay = std::min(j.rem, j.mtu);
    const bool last = j.rem <= j.mtu;
    size_t np = 0, reads = 0;
    if (pay != 0) {
      while (np < j.pieces.size() && !j.pieces[np].pkt_last) reads += !j.pieces[np++].zero;
      reads += !j.pieces[np++].zero;
      if (reads > rd_data_.size() || (pay != 0 && !tx_payload->can_push())) break;
    }
    // (the header counts its packet's beats in: a cycle after the last arrived)
    const Cycle data_in = reads ? rd_data_at_[reads - 1] + kRespHdr : 0;
    spec::RoceTxHdr h = j.hdr;
    h.opcode = j.first && last ? spec::kRcReadRespOnly
               : j.first       ? spec::kRcReadRespFirst
               : last          ? spec::kRcReadRespLast
                               : spec::kRcReadRespMiddle;
    if (!j.first && !last) {  // MIDDLE carries no AETH
      h.aeth_syndrome = 0;
      h.aeth_msn = 0;
    }
    h.ack_req = false;
    h.pay_len = static_cast<uint16_t>(pay);
    const Cycle at = std::max({now, tx_at_, j.at, data_in});
    if (at > now) {
      s_.wake_at(this, at);
      break;
    }
    tx_hdr->push(h, at);
    if (pay != 0 && rd_pkts_ > 0) {  // (its beats claimed: a packet of zero pieces only never counted)
      if (rd_pkts_-- == kTxPkts) rd_next_at_ = std::max(rd_next_at_, at + 1);  // (the count is a register)
    }
    const Cycle beats = (pay + bytes_ - 1) / bytes_;
    if (pay != 0) {
      std::vector<uint8_t> b;
      for (size_t i = 0; i < np; ++i) {
        const Piece& p = j.pieces[i];
        const size_t at0 = b.size();
        b.resize(at0 + p.len, 0);  // a zero piece stays zeros
        if (p.zero) continue;
        const Bytes& d = rd_data_.front();
        std::copy_n(d.data(), std::min<size_t>(p.len, d.size()), b.begin() + static_cast<long>(at0));
        rd_data_.pop_front();
        rd_data_at_.pop_front();
        // its beats come back as the payload stream takes them: by the
        // cycle the packet's bytes up to this piece's end have left (after
        // the header's cycle)
        raw_release_.push_back({at + 1 + (b.size() + bytes_ - 1) / bytes_, (p.len + bytes_ - 1) / bytes_});
      }
      tx_payload->push(Packet{Bytes(std::move(b))}, at + beats);
      j.pieces.erase(j.pieces.begin(), j.pieces.begin() + static_cast<long>(np));
    }
    tx_at_ = at + std::max<Cycle>(beats, 1);
    j.rem -= pay;
    j.hdr.psn = (j.hdr.psn + 1) & kPsnMask;
    j.first = false;
    if (last) tx_jobs_.pop_front();
    moved = true;
  }
  return moved;
}

void Responder::run() {
  const Cycle now = s_.now();
  for (bool moved = true; moved;) {
    moved = false;
    // read data returns in order; while prefetch reads are in flight, the next is the oldest's
    while (!pf_out_.empty() && dma_rd_data.ready()) {
      Prefetch& e = pf_[pf_out_.front()];
      pf_out_.pop_front();
      e.in_at = dma_rd_data.next_at();
      e.data = dma_rd_data.pop();
      e.busy = false;
      moved = true;
    }
    while (issued_ < placing_.size() && issue(now)) moved = true;
    while (!slicing_.empty() && slice(now)) moved = true;
    while (issued_ != 0 && post(now)) moved = true;
    if (send_step(now)) moved = true;
    if (s_.defer(this, check_at_)) break;
    switch (st_) {
      case St::kIdle: {
        // (a header is also taken in the cycle its verdict before leaves,
        // C_PUSH, unless a qp_cfg or doorbell is waiting: those wait for C_IDLE)
        const bool hdr_in_push = take_at_ == now + 1 && rx_hdr.next_at() <= now && qp_cfg.next_at() > now &&
                                 rq_db.next_at() > now;
        if (take_at_ > now && !hdr_in_push) {
          s_.wake_at(this, take_at_);
          break;
        }
        // The input that arrived first (same cycle: qp_cfg, rq_db, rx_hdr);
        // a qp_cfg waits until placement has drained.
        const int pick = hdr_in_push ? 2 :
            first_arrived({placing_.empty() ? qp_cfg.next_at() : kNever, rq_db.next_at(), rx_hdr.next_at()}, now);
        if (pick < 0) break;
        if (pick == 0) {
          check_at_ = now + kCtlTake;
          on_cfg(qp_cfg.pop());
          if (flush_pending_) st_ = St::kFlushWait;
        } else if (pick == 1) {
          check_at_ = now + kCtlTake;
          on_db(rq_db.pop());
          if (flush_pending_) st_ = St::kFlushWait;
        } else {
          check_at_ = now + kCheck;
          on_hdr(rx_hdr.pop());
        }
        moved = true;
        break;
      }
      case St::kRkey:
      case St::kRun:
      case St::kInv: {
        // a READ's later runs answer on the walker's port (rtl/xport/responder_tx.sv)
        In<spec::MrResp>& port = st_ == St::kRun && is_read_ ? read_mr_resp : mr_resp;
        if (!port.ready()) break;
        check_at_ = std::max(check_at_, now);
        const bool rkey_write = st_ == St::kRkey && !is_read_ && !is_atomic_ && !is_send_ &&
                                port.front().status == static_cast<uint8_t>(spec::MrStatus::kOk);
        if (st_ == St::kRkey) {
          after_rkey(port.pop());
        } else if (st_ == St::kInv) {
          after_invalidate(port.pop());
        } else {
          const bool write_run = !is_read_;
          after_run(port.pop());
          // decided right after a later run's answer (a SEND's SGE, a WRITE past
          // a page end): the verdict is offered at check_at_ (C_PUSH), the
          // next input taken the cycle after (C_IDLE)
          if (write_run && st_ != St::kRun) take_at_ = check_at_ + kPushOut;
        }
        if (rkey_write && st_ == St::kIdle) {
          // a WRITE decided on its rkey answer (one page run): C_WALK, C_PUSH,
          // then the next input in C_IDLE
          take_at_ = check_at_ + kPushOut;
        }
        moved = true;
        break;
      }
      case St::kWqe:
      case St::kWqeTail:
        if (!dma_rd_data.ready()) break;
        check_at_ = std::max(check_at_, now);
        if (st_ == St::kWqe) {
          // read, not prefetched: the first of the QP's next rq_ahead WQEs posted and not in
          // the set into a way not kept, should it have no read in flight and the port room
          // (the RTL's read register)
          uint16_t ahead = 0;
          if (pf_missing(qpn_, static_cast<uint16_t>(cx_.ci + 1), cx_.pi, &ahead) &&
              pf_out_.size() < spec::kRspRqPfOut && pf_e_ != kNoWay && !pf_[pf_e_].busy && dma_rd_req->can_push())
            prefetch(pf_e_, qpn_, ahead, cx_, check_at_ + kPfNext);
          after_wqe(dma_rd_data.pop());
        } else {
          after_wqe_tail(dma_rd_data.pop());
        }
        moved = true;
        break;
      case St::kTailAsk:  // the tail's read once the request port has room (its credit wakes us)
        if (!dma_rd_req->can_push()) break;
        check_at_ = std::max(check_at_, now);
        ask_tail(check_at_ + kTailFetch);
        moved = true;
        break;
      case St::kDbAsk:  // the doorbell's prefetch once the request port has room (its credit wakes us)
        if (!dma_rd_req->can_push()) break;
        check_at_ = std::max(check_at_, now);
        prefetch(db_e_, qpn_, db_ci_, qps_[qpn_], std::max(db_at_, now + kPfAsk));
        st_ = St::kIdle;
        moved = true;
        break;
      case St::kWqeAsk:  // get_wqe again once the request port has room (its credit wakes us)
        if (!dma_rd_req->can_push()) break;
        check_at_ = std::max(check_at_, now);
        get_wqe();
        moved = true;
        break;
      case St::kWqePf: {
        Prefetch& e = pf_[pf_e_];
        if (e.busy) break;
        // taking it reads the first of the QP's next rq_ahead WQEs posted and not in the set into its way
        uint16_t ahead = 0;
        const bool next = pf_missing(qpn_, static_cast<uint16_t>(cx_.ci + 1), cx_.pi, &ahead) &&
                          pf_out_.size() < spec::kRspRqPfOut;
        if (next && !dma_rd_req->can_push()) break;  // (the RTL's C_WQE waits for its read register; a credit wakes us)
        // (the entry's bank is read a cycle after its last beat is written)
        check_at_ = std::max(check_at_ + kPfTake - (pf_routed_ ? 0 : kPfInHdr), e.in_at + kPfTake + 1);
        if (next)
          prefetch(pf_e_, qpn_, ahead, cx_, check_at_ + kPfNext);
        after_wqe(e.data);
        moved = true;
        break;
      }
      case St::kAtomDrain: {
        // every earlier packet's writes taken (so the read sees them), then the 8 bytes
        // read. Not the sender's jobs: an earlier READ's data may be read after the
        // atomic's write (IBTA; the requester fences when it needs the order), and
        // over the loopback those responses queue behind the requests that follow.
        if (!drained()) {
          atom_waited_ = true;  // (woken as the writes are taken)
          break;
        }
        if (!dma_rd_req->can_push()) break;
        spec::DmaRdReq r;
        r.addr = atom_pa_;
        r.len = 8;
        dma_rd_req->push(r, std::max(now + kAtomRead + (atom_waited_ ? kDrainSeen : 0), check_at_));
        atom_waited_ = false;
        st_ = St::kAtomRead;
        moved = true;
        break;
      }
      case St::kAtomRead:
        if (!dma_rd_data.ready()) break;
        check_at_ = std::max(check_at_, now);
        after_atomic(dma_rd_data.pop());
        moved = true;
        break;
      case St::kFlushWait:
        if (!placing_.empty()) break;
        st_ = St::kFlush;
        moved = true;
        break;
      case St::kFlush:
        moved = flush_step(now);
        break;
    }
  }
}

std::unique_ptr<rocenic::Block> make_responder_block(unsigned data_bytes, unsigned max_qp) {
  return std::make_unique<FlitAdapter>(data_bytes, [=](FlitAdapter& a) {
    Responder* r = a.make<Responder>(data_bytes, max_qp, 4u, 2u);  // (the RTL block's RQ_HEADS, RQ_AHEAD)
    // The checker takes qp_cfg, rq_db and rx_hdr only when it is free (as
    // the RTL's, so inputs on different ports meet it in the same order).
    a.in_when<spec::QpCfg>("qp_cfg", r->qp_cfg, [r](const spec::QpCfg&) { return r->accepting() && !r->placing(); });
    a.in_when<spec::WqDb>("rq_db", r->rq_db, [r](const spec::WqDb&) { return r->accepting(); });
    // (and in the cycle an MR answer ends the packet in hand, the RTL's
    // fast_vd, unless a qp_cfg or doorbell is offered: those wait for C_IDLE)
    FlitAdapter* ap = &a;
    a.in_when<spec::RoceRxHdr>("rx_hdr", r->rx_hdr, [r, ap](const spec::RoceRxHdr&) {
      return r->accepting() || (!ap->offered(0) && !ap->offered(1) && ap->offered(5) &&
                                r->answer_ends_packet(desc_from_flit<spec::MrResp>(ap->offer(5))));
    });
    a.in_stream("rx_payload", r->rx_payload);
    a.in_stream("dma_rd_data", r->dma_rd_data);
    a.in<spec::MrResp>("mr_resp", r->mr_resp);
    a.in_stream("read_dma", r->read_dma);
    a.in<spec::MrResp>("read_mr_resp", r->read_mr_resp);
    // (two: a prefetch's request may queue behind another not yet taken,
    // where the RTL's checker waits for its read register)
    a.out<spec::DmaRdReq>("dma_rd_req", r->dma_rd_req, 2);
    a.out<spec::MrReq>("mr_req", r->mr_req);
    a.out<spec::DmaWrReq>("dma_wr_req", r->dma_wr_req, spec::kRspPlaceQueue);
    // (data may trail its requests by the slicer's descriptor FIFO and the piece it cuts)
    a.out_stream("dma_wr_data", r->dma_wr_data, spec::kRspPlaceQueue + 2);
    a.out<spec::RoceTxHdr>("tx_hdr", r->tx_hdr, 2);
    a.out<spec::CqCompl>("cq_compl", r->cq_compl, 2);
    a.out<spec::DmaRdReq>("read_dma_req", r->read_dma_req, 2);
    a.out_stream("tx_payload", r->tx_payload, 2);
    a.out<spec::MrReq>("read_mr_req", r->read_mr_req);
    a.counters_from([r] { return r->counters(); });
    a.busy_from([r] { return r->busy(); });
  });
}

}  // namespace rocenic::model
