#include "xport/completer.h"

#include "sched/flit_adapter.h"

namespace rocenic::model {
namespace {

constexpr uint8_t kSuccess = static_cast<uint8_t>(spec::WcStatus::kSuccess);
constexpr uint8_t kFlushErr = static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);
constexpr uint32_t kPsnMask = 0xFFFFFF;
// Outputs leave from registers (rtl/xport/completer.sv): a completion or
// read_place command decided in a walk step is offered the cycle after it;
// the retire is set in the step after the walk's stop (S_DONE) and offered
// the cycle after that. A walk's entry k is stepped at t + k, its stop at
// t + n (t: the input decided, kDecide after it was taken).
constexpr Cycle kWalkOut = 1;
// An input decided in its context step alone (an sq_track appended, a
// qp_cfg's attributes, anything for a QP that is not there): the FSM is back
// in S_IDLE the cycle after S_CTX, no walk.
constexpr Cycle kCtxOnly = 0;
constexpr Cycle kRetireOut = 2;

// A window entry answered by responses (a READ, or an atomic: a one-packet
// READ of 8 bytes whose response is an ATOMIC ACKNOWLEDGE). They take the
// requester's max_rd_atomic credits, which the retire's rd_count returns.
bool atomic_entry(uint8_t wc_opcode) {
  return wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kCompSwap) ||
         wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kFetchAdd);
}
bool read_entry(uint8_t wc_opcode) {
  return wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kRdmaRead) || atomic_entry(wc_opcode);
}
// A local operation: it has no PSN (last_psn = first_psn - 1), so whatever
// acknowledges the entry before it covers it too.
bool local_entry(uint8_t wc_opcode) {
  return wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kBindMw) ||
         wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kLocalInv);
}

// AETH syndrome (IBTA 9.7.5.1) of a NAK that fails the WQE -> its completion
// status (a PSN sequence NAK fails one only when the retries are spent).
uint8_t nak_status(uint8_t syn) {
  using S = spec::WcStatus;
  if ((syn >> 5) == 1) return static_cast<uint8_t>(S::kRnrRetryExcErr);
  switch (syn & 0x1F) {
    case 0: return static_cast<uint8_t>(S::kRetryExcErr);
    case 1: return static_cast<uint8_t>(S::kRemInvReqErr);
    case 2: return static_cast<uint8_t>(S::kRemAccessErr);
    default: return static_cast<uint8_t>(S::kRemOpErr);
  }
}

}  // namespace

Completer::Completer(Scheduler& s, unsigned max_qp)
    : qp_cfg(s, this, 1), sq_track(s, this, 1), rx_ack(s, this, 1), rd_done(s, this, 1), s_(s), qps_(max_qp) {}

spec::CqCompl Completer::completion(unsigned qpn, const Qp& q, const spec::SqTrack& k, uint8_t status) const {
  spec::CqCompl c;
  c.cq = q.cq;
  c.qp_num = qpn;
  c.wr_id = k.wr_id;
  c.byte_len = k.byte_len;
  c.opcode = k.wc_opcode;
  c.status = status;
  c.wqe_counter = k.wqe_idx;
  return c;
}

void Completer::retire(spec::SqRetire r, Cycle t) {
  r.rd_count = static_cast<uint8_t>(reads_done_);  // (as many more READs and atomics may start: max_rd_atomic)
  reads_done_ = 0;
  if (r.count == 0 && !r.error && !r.rewind) return;  // an ACK that covers nothing retires nothing
  out_.add(sq_retire, r, t + kRetireOut);
}

Completer::WalkEnd Completer::walk(unsigned qpn, Qp& q, Walk mode, uint32_t psn, uint8_t st_in, uint16_t done_idx,
                                   bool* failed, Cycle t) {
  WalkEnd w;
  while (!q.window.empty()) {
    const spec::SqTrack& e = q.window.front();
    const uint32_t d = (psn - e.last_psn) & kPsnMask;  // the WQE's last PSN at or before psn: d < 2^23
    const bool covered = d < 0x800000u && (mode == Walk::kAck || d != 0);  // a NAK's own PSN is not acknowledged
    const bool acked = ((q.una - 1 - e.last_psn) & kPsnMask) < 0x800000u;  // before una
    const bool read = read_entry(e.wc_opcode);  // (a READ or an atomic)
    const bool amended = q.fail && e.wqe_idx == q.fail_idx;
    uint8_t st;
    bool cqe = true, fail = false;
    if (e.status != kSuccess || amended) {  // a local failure (or the requester's flush) keeps its status
      st = e.status != kSuccess ? e.status : q.fail_st;
      fail = true;
    } else if (mode == Walk::kFlush) {
      st = kFlushErr;
    } else if (mode == Walk::kRdd) {
      // first the READ rd_done answers (all its responses taken), then
      // entries acknowledged while it waited
      if (!(w.n == 0 ? read && e.wqe_idx == done_idx && acked : !read && acked)) break;
      st = w.n == 0 ? st_in : kSuccess;
      if (st == kSuccess) cqe = e.signaled;
      else fail = true;
    } else if (read && !(mode == Walk::kNak && psn == q.una)) {
      w.rd_head = true;  // only its responses complete a READ (a NAK at its next PSN fails it)
      w.head = e;
      break;
    } else if (covered) {
      st = kSuccess;
      cqe = e.signaled;
    } else if (mode == Walk::kNak) {
      st = st_in;
      fail = true;
    } else {
      break;  // the first entry not acknowledged
    }
    if (read && q.rd_placed && mode != Walk::kRdd) {
      // Partly placed: its earlier commands may still be writing. Fence, and
      // fail it on rd_done (the QP is not in ERR before: a flush marks it then).
      spec::RdPlace f;
      f.qpn = static_cast<uint16_t>(qpn);
      f.wqe_idx = e.wqe_idx;
      f.last = 1;
      f.drop = 1;
      f.epoch = q.epoch;
      out_.add(rd_place, f, t + w.n + kWalkOut);
      done_wait_ = true;
      q.fail = true;
      q.fail_idx = e.wqe_idx;
      q.fail_st = st;
      q.err = false;
      *failed = true;  // the requester stops now (sq_retire with error)
      w.fenced = true;
      break;
    }
    if (cqe) out_.add(cq_compl, completion(qpn, q, e, st), t + w.n + kWalkOut);
    if (fail) {
      q.err = true;
      *failed = true;
      mode = Walk::kFlush;  // everything behind a failed WQE is flushed
    }
    const uint32_t next = (e.last_psn + 1) & kPsnMask;
    if (((next - q.una) & kPsnMask) < 0x800000u) q.una = next;  // una never goes back
    q.rd_placed = false;  // (only the head READ has responses placed)
    reads_done_ += read;
    q.window.pop_front();
    ++w.n;
  }
  return w;
}

bool Completer::implied(const WalkEnd& w, const Qp& q, Walk mode, uint32_t psn) const {
  const uint32_t off = (psn - q.una) & kPsnMask;
  return w.rd_head && off < 0x800000u && (mode == Walk::kAck || off != 0);
}

Completer::Timer Completer::implied_nak(Qp& q, spec::SqRetire& r) {
  ++cnt_implied_;
  if (q.rd_retry || q.retry == 0) return Timer::kKeep;  // a rewind is under way, or the timer will fail it
  --q.retry;
  rewind(q, r);
  return Timer::kRestart;
}

Cycle Completer::on_cfg(const spec::QpCfg& c, Cycle t) {
  using A = spec::QpAction;
  if (c.qpn >= qps_.size()) return kCtxOnly;
  Qp& q = qps_[c.qpn];
  const auto act = static_cast<A>(c.action);
  if (act == A::kReset || act == A::kDestroy) {
    const uint8_t epoch = (q.epoch + 1) & 15u;
    q = Qp{};
    q.epoch = epoch;
    q.valid = act == A::kReset;
    if (!q.valid) return kCtxOnly;
  } else if (!q.valid) {
    return kCtxOnly;  // attributes of a QP that does not exist
  }
  q.cq = c.send_cq;
  q.pmtu = c.pmtu & 7u;
  q.retry_cnt = q.retry = c.retry_cnt & 7u;
  q.timeout = c.timeout & 31u;
  q.rnr_cfg = q.rnr_left = c.rnr_retry & 7u;
  if (act != A::kToErr) return kCtxOnly;
  q.fail = false;
  if (q.window.empty()) {
    q.err = true;
    return kCtxOnly;
  }
  bool failed = false;
  const WalkEnd w = walk(c.qpn, q, Walk::kFlush, 0, 0, 0, &failed, t);
  const unsigned n = w.n;
  q.err = !w.fenced;  // (a fenced READ flushes the rest on its rd_done)
  set_timer(c.qpn, q, Timer::kKeep, 0, t);
  spec::SqRetire r;
  r.qpn = c.qpn;
  r.count = static_cast<uint8_t>(n);
  r.error = true;
  retire(r, t + n);
  return n + 2;
}

Cycle Completer::on_track(const spec::SqTrack& k, Cycle t) {
  if (k.qpn >= qps_.size() || !qps_[k.qpn].valid) return kCtxOnly;
  Qp& q = qps_[k.qpn];
  spec::SqRetire r;
  r.qpn = k.qpn;
  if (k.amend) {
    // A tracked WQE failed while being sent: it fails when it reaches the
    // head (now, if it is there; the ones before it wait for their ACKs).
    if (q.err || q.fail) return kCtxOnly;  // already flushed, or an earlier failure (amend, fence) will flush it
    q.fail = true;
    q.fail_idx = k.wqe_idx;
    q.fail_st = k.status;
    bool failed = false;
    const unsigned n = walk(k.qpn, q, Walk::kSeq, q.una, 0, 0, &failed, t).n;
    // it was acknowledged before it failed (the requester's back end ends a
    // WQE after later ones were tracked: the head may be past it already)
    if (q.window.empty() || static_cast<uint16_t>(q.window.front().wqe_idx - q.fail_idx - 1) < 0x7FFFu) q.fail = false;
    set_timer(k.qpn, q, Timer::kKeep, 0, t);
    r.count = static_cast<uint8_t>(n);
    r.error = failed;
    retire(r, t + n);
    return n + 2;
  }
  // (a UC WQE, unacked, is tracked once sent: nothing will answer it)
  if (q.err || (q.window.empty() && (k.status != kSuccess || local_entry(k.wc_opcode) || k.unacked))) {
    // Completes at once: flushed, a local failure, or a local operation
    // (BIND_MW, LOCAL_INV: done in the requester, no packet) with nothing
    // ahead of it. Only the local success keeps the QP out of ERR.
    const uint8_t st = q.err ? (k.status != kSuccess ? k.status : kFlushErr) : k.status;
    const bool fails = st != kSuccess;
    q.err = q.err || fails;
    set_timer(k.qpn, q, Timer::kKeep, 0, t);
    if (fails || k.signaled) out_.add(cq_compl, completion(k.qpn, q, k, st), t + kWalkOut);
    reads_done_ = read_entry(k.wc_opcode);  // (a READ or an atomic returns its credit)
    r.count = 1;
    r.error = fails;
    retire(r, t);  // (its one step, as a walk's stop)
    return 3;
  }
  if (q.window.empty()) q.una = k.first_psn;
  q.nxt = (k.last_psn + 1) & kPsnMask;
  q.window.push_back(k);  // (a full window never gets here: track_waits)
  set_timer(k.qpn, q, q.rnr_wait ? Timer::kKeep : Timer::kRestart, 0, t);  // an RNR wait runs its course
  append_only_ = true;  // (the RTL's S_CTX takes the next track or response beside it)
  return kCtxOnly;
}

Cycle Completer::on_ack(const spec::RoceRxHdr& h, Cycle t) {
  ++cnt_acks_;
  const unsigned cls = h.aeth_syndrome >> 5;  // 0 ACK, 1 RNR NAK, 3 NAK (2: reserved)
  const bool ack = cls == 0, nak = cls == 1 || cls == 3;
  const bool ackop = h.opcode == spec::kRcAck;
  // a READ RESPONSE, or an ATOMIC ACKNOWLEDGE (rx_dispatch made its original
  // value an 8-byte payload: a READ RESPONSE ONLY of 8 bytes)
  const bool rsp = (h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcReadRespOnly) ||
                   h.opcode == spec::kRcAtomicAck;
  if (h.dst_qpn >= qps_.size() || !(ackop || rsp) || !qps_[h.dst_qpn].valid) {
    ++cnt_unmatched_;
    if (rsp) drop_read_response(h, t);
    return kCtxOnly;
  }
  Qp& q = qps_[h.dst_qpn];
  if (ackop && nak) ++cnt_nak_;
  // Matches an outstanding request only with its PSN in [una, nxt); a READ
  // response's (an ATOMIC ACK's) AETH (all but MIDDLE carry one) must say ACK.
  const uint32_t off = (h.psn - q.una) & kPsnMask, range = (q.nxt - q.una) & kPsnMask;
  const bool syn_ok = ackop ? ack || nak : h.opcode == spec::kRcReadRespMiddle || ack;
  if (q.err || !syn_ok || q.window.empty() || off >= range) {
    ++cnt_unmatched_;
    if (rsp) drop_read_response(h, t);
    return kCtxOnly;
  }
  if (rsp) return on_read_response(h, t);
  const bool seq = cls == 3 && (h.aeth_syndrome & 0x1F) == 0, rnr = cls == 1;
  if (seq) ++cnt_seq_;
  if (nak && q.rnr_wait) return kCtxOnly;  // waiting out an RNR NAK: later NAKs say nothing new
  const bool rnr_ok = rnr && (q.rnr_cfg == 7 || q.rnr_left != 0);
  // A PSN sequence NAK past una acknowledges packets: progress, the retries are back.
  if (seq && h.psn != q.una) q.retry = q.retry_cnt;
  bool failed = false;
  spec::SqRetire r;
  r.qpn = h.dst_qpn;
  const bool go_back = seq && q.retry != 0;
  const Walk mode = ack ? Walk::kAck : go_back || rnr_ok ? Walk::kSeq : Walk::kNak;
  if (seq && q.retry == 0) ++cnt_exceeded_;
  if (rnr) ++(rnr_ok ? cnt_rnr_ : cnt_rnr_exc_);
  if (ack) {  // progress
    q.retry = q.retry_cnt;
    q.rnr_left = q.rnr_cfg;
  }
  if (rnr_ok && q.rnr_cfg != 7) --q.rnr_left;
  const WalkEnd w = walk(h.dst_qpn, q, mode, h.psn, nak_status(h.aeth_syndrome), 0, &failed, t);
  Timer how = Timer::kRestart;
  if (implied(w, q, mode, h.psn)) {
    how = implied_nak(q, r);  // the ACK or NAK itself says nothing more
  } else if (!q.err) {
    if (ack) {
      q.una = (h.psn + 1) & kPsnMask;
      q.rd_retry = false;
    } else if (go_back || rnr_ok) {
      q.una = h.psn;
    }
    if (rnr_ok) {
      how = Timer::kRnr;  // wait, then send again from the NAKed PSN (on_timer)
    } else if (go_back && !q.window.empty()) {
      --q.retry;  // go back N: the requester sends again from the NAKed PSN
      rewind(q, r);
    }
  }
  set_timer(h.dst_qpn, q, how, h.aeth_syndrome & 0x1F, t);
  r.count = static_cast<uint8_t>(w.n);
  r.error = failed;
  // an ACK that completed the window's last entry stopped in that step (the
  // RTL's walk has no stop step to find it empty)
  const bool emptied = ack && w.n != 0 && q.window.empty() && !failed && !w.fenced;
  const Cycle stop = emptied ? w.n - 1 : w.n;
  if (emptied && w.n == 1) {
    // one entry, the window's last: that step also writes the context back
    // and retires (the RTL's ack_one, no S_DONE); the next take is beside it
    retire(r, t - 1);
    return 1;
  }
  retire(r, t + stop);
  return stop + 2;
}

void Completer::drop_read_response(const spec::RoceRxHdr& h, Cycle t) {
  spec::RdPlace c;
  c.qpn = static_cast<uint16_t>(h.dst_qpn);
  c.len = h.pay_len;
  c.drop = 1;
  c.epoch = epoch_of(h.dst_qpn);
  out_.add(rd_place, c, t);
}

Cycle Completer::on_read_response(const spec::RoceRxHdr& h, Cycle t) {
  Qp& q = qps_[h.dst_qpn];
  bool failed = false;
  spec::SqRetire r;
  r.qpn = h.dst_qpn;
  const WalkEnd w = walk(h.dst_qpn, q, Walk::kRsp, h.psn, 0, 0, &failed, t);
  spec::RdPlace c;
  c.qpn = static_cast<uint16_t>(h.dst_qpn);
  c.len = h.pay_len;
  c.drop = 1;
  c.epoch = q.epoch;
  Timer how = Timer::kKeep;
  bool fits = false;
  if (w.rd_head && h.psn == q.una) {
    // the READ's next response: the opcode and length its position calls for.
    // An ATOMIC ACK is a READ RESPONSE ONLY, and fits only an atomic entry
    // (a READ response never does).
    const spec::SqTrack& e = w.head;
    const bool atomic = h.opcode == spec::kRcAtomicAck;
    const uint8_t op = atomic ? static_cast<uint8_t>(spec::kRcReadRespOnly) : h.opcode;
    const bool last = h.psn == e.last_psn;
    const uint8_t want = q.rd_mid ? (last ? spec::kRcReadRespLast : spec::kRcReadRespMiddle)
                                  : (last ? spec::kRcReadRespOnly : spec::kRcReadRespFirst);
    const unsigned shift = 7u + q.pmtu;
    const uint32_t offset = static_cast<uint32_t>(((h.psn - e.first_psn) & kPsnMask) << shift);
    const uint32_t len = last ? e.byte_len - offset : 1u << shift;
    // after a rewind into the READ the responder answers the re-request as a
    // new message (FIRST/ONLY, as ours does) or replays the old one from
    // there (MIDDLE/LAST, as Linux rxe does)
    const uint8_t replay = last ? spec::kRcReadRespLast : spec::kRcReadRespMiddle;
    fits = atomic == atomic_entry(e.wc_opcode) && (op == want || (!q.rd_mid && h.psn != e.first_psn && op == replay)) &&
           h.pay_len == len;
    if (fits) {
      q.una = (h.psn + 1) & kPsnMask;
      q.rd_mid = !last;
      q.rd_retry = false;
      q.rd_placed = true;
      q.retry = q.retry_cnt;  // progress
      q.rnr_left = q.rnr_cfg;
      how = Timer::kRestart;
      c.wqe_idx = e.wqe_idx;
      c.offset = offset;
      c.last = last;
      c.drop = 0;
      if (last) done_wait_ = true;
    }
  }
  if (!fits) {
    if (implied(w, q, Walk::kRsp, h.psn)) how = implied_nak(q, r);
    else ++cnt_unmatched_;
  }
  set_timer(h.dst_qpn, q, how, 0, t);
  r.count = static_cast<uint8_t>(w.n);
  r.error = failed;
  out_.add(rd_place, c, t + w.n + kWalkOut);  // (before the retire: the walk's stop sets it, S_DONE the retire)
  retire(r, t + w.n);
  return w.n + 2;
}

Cycle Completer::on_read_done(const spec::RdDone& d, Cycle t) {
  done_wait_ = false;
  if (d.qpn >= qps_.size()) return kCtxOnly;
  Qp& q = qps_[d.qpn];
  if (!q.valid || q.err || q.window.empty()) return kCtxOnly;  // flushed or reset meanwhile
  bool failed = false;
  const unsigned n = walk(d.qpn, q, Walk::kRdd, 0, d.status, d.wqe_idx, &failed, t).n;
  set_timer(d.qpn, q, Timer::kRestart, 0, t);
  spec::SqRetire r;
  r.qpn = d.qpn;
  r.count = static_cast<uint8_t>(n);
  r.error = failed;
  retire(r, t + n);
  return n + 2;
}

Cycle Completer::on_timer(unsigned qpn, Cycle t) {
  Qp& q = qps_[qpn];
  if (!q.valid || q.err || q.window.empty()) return kCtxOnly;  // (never armed so)
  spec::SqRetire r;
  r.qpn = qpn;
  bool failed = false;
  unsigned n;
  const uint8_t exceeded = static_cast<uint8_t>(spec::WcStatus::kRetryExcErr);
  if (q.rnr_wait || q.retry != 0) {
    // the RNR time is over, or no response came in time: send again from
    // the first PSN not acknowledged (an amended head fails instead)
    if (!q.rnr_wait) {
      ++cnt_timeout_;
      --q.retry;
    }
    n = walk(qpn, q, Walk::kSeq, q.una, 0, 0, &failed, t).n;
    if (!failed && !q.window.empty()) rewind(q, r);
  } else {
    ++cnt_timeout_;
    ++cnt_exceeded_;
    n = walk(qpn, q, Walk::kNak, q.una, exceeded, 0, &failed, t).n;
  }
  set_timer(qpn, q, Timer::kRestart, 0, t);
  r.count = static_cast<uint8_t>(n);
  r.error = failed;
  retire(r, t + n);
  return n + 2;
}

void Completer::rewind(Qp& q, spec::SqRetire& r) {
  const spec::SqTrack& head = q.window.front();
  ++cnt_rewind_;
  q.rd_retry = true;  // (a READ is asked again from una: its responses start anew)
  q.rd_mid = false;
  r.rewind = true;
  r.rw_idx = head.wqe_idx;
  r.rw_psn = head.first_psn;
  r.rw_skip = (q.una - head.first_psn) & kPsnMask;
}

void Completer::set_timer(unsigned qpn, Qp& q, Timer how, uint8_t rnr_code, Cycle t) {
  if (q.err || q.window.empty()) {
    q.armed = q.rnr_wait = false;
    return;
  }
  if (how == Timer::kKeep) return;
  q.rnr_wait = how == Timer::kRnr;
  if (q.rnr_wait) {
    q.armed = true;
    q.deadline = t + Cycle{spec::kRnrTimerTable[rnr_code & 31u]} * spec::kRnrTickCycles;
  } else {
    q.armed = q.timeout != 0;
    q.deadline = t + (Cycle{spec::kAckTimeoutBase} << q.timeout);
  }
  if (q.armed) timers_.push({q.deadline, qpn});
}

const Completer::TimerRef* Completer::earliest_timer() {
  while (!timers_.empty()) {
    const TimerRef& e = timers_.top();
    const Qp& q = qps_[e.qpn];
    if (q.armed && q.deadline == e.at) return &e;
    timers_.pop();  // restarted or disarmed since
  }
  return nullptr;
}

void Completer::schedule_timer(Cycle not_before) {
  const TimerRef* e = earliest_timer();
  const Cycle at = e ? std::max(e->at, not_before) : kNever;
  if (at < timer_wake_) {
    s_.timer_at(this, at);
    timer_wake_ = at;
  }
}

bool Completer::window_full(unsigned qpn) const { return qpn < qps_.size() && qps_[qpn].window.size() == kWindow; }
bool Completer::accepting() const {
  const Cycle now = s_.now();
  return now >= free_at_ && out_.due_by(now) && qp_cfg.empty() && sq_track.empty() && rx_ack.empty() && rd_done.empty();
}
bool Completer::in_quick_take() const {
  const Cycle now = s_.now();
  return now == quick_at_ && now + 1 == free_at_ && out_.size() <= quick_outs_ && qp_cfg.empty() && sq_track.empty() &&
         rx_ack.empty() && rd_done.empty();
}
bool Completer::track_waits(const spec::SqTrack& k) const {
  if (k.amend) return done_wait_;
  // (taken in S_DONE: the RTL's window-full flag of the QP written back in
  // that cycle is still the one before the event)
  if (s_.now() == quick_at_ && !append_only_ && k.qpn == ev_qpn_ && ev_full_) return true;
  return window_full(k.qpn);
}

void Completer::run() {
  const Cycle now = s_.now();
  if (now >= timer_wake_) timer_wake_ = kNever;  // that scheduler timer has run
  const Cycle resend = out_.send(now);
  // (beside a plain append, the RTL's S_CTX takes a track or a response, and
  // so does S_DONE as it writes the context back, once the outputs before
  // this event's have left: a qp_cfg, rd_done or timer waits for S_IDLE)
  const bool quick = now == quick_at_ && now + 1 == free_at_ && out_.size() <= quick_outs_ && !qp_cfg.ready() &&
                     !rd_done.ready();
  if ((now < free_at_ && !quick) || (!out_.empty() && !quick)) {  // deciding or walking: the next input waits
    Cycle wake = now < free_at_ ? std::min(free_at_, resend) : resend;
    if (quick_at_ > now) wake = std::min(wake, quick_at_);  // (a take beside S_CTX or S_DONE)
    if (wake != kNever) s_.wake_at(this, wake);
    return;  // (a timer due meanwhile waits for the next free run)
  }
  // The first input there by the RTL's priority (a blocked sq_track steps
  // aside): an sq_track before a response even when the response came first.
  // (no response and no qp_cfg while a READ waits for rd_done)
  const int pick = first_ready(
      {done_wait_ || quick ? kNever : qp_cfg.next_at(), quick ? kNever : rd_done.next_at(),
       sq_track.ready() && !track_waits(sq_track.front()) ? sq_track.next_at() : kNever,
       done_wait_ ? kNever : rx_ack.next_at()},
      now);
  const Cycle t = now + kDecide;
  Cycle busy = 0;
  append_only_ = false;
  const size_t outs_before = out_.size();
  ev_qpn_ = pick == 2 ? sq_track.front().qpn : pick == 3 ? rx_ack.front().dst_qpn : ~0u;
  ev_full_ = (pick == 2 || pick == 3) && window_full(ev_qpn_);
  if (pick == 0) {
    busy = on_cfg(qp_cfg.pop(), t);
  } else if (pick == 1) {
    busy = on_read_done(rd_done.pop(), t);
  } else if (pick == 2) {
    busy = on_track(sq_track.pop(), t);
  } else if (pick == 3) {
    busy = on_ack(rx_ack.pop(), t);
  } else if (quick) {
    s_.wake_at(this, free_at_);  // (no track or response: S_IDLE next)
    return;
  } else {
    // no input: an expired timer, the lowest priority (not while a READ waits for rd_done)
    const TimerRef* e = earliest_timer();
    if (done_wait_) return;  // rd_done wakes this block
    if (!e || e->at > now) {
      schedule_timer(now + 1);
      return;
    }
    const unsigned qpn = e->qpn;
    timers_.pop();
    busy = on_timer(qpn, t);
  }
  free_at_ = now + kDecide + busy;
  // the next take beside this one: S_CTX of a plain append, or this event's S_DONE
  quick_at_ = append_only_ ? now + 1 : busy > 0 ? free_at_ - 1 : kNever;
  quick_outs_ = append_only_ ? 0 : out_.size() - outs_before;
  s_.wake_at(this, std::min(quick_at_ != kNever ? quick_at_ : free_at_, out_.empty() ? kNever : t));
  schedule_timer(free_at_);
}

std::unique_ptr<rocenic::Block> make_completer_block(unsigned max_qp) {
  return std::make_unique<FlitAdapter>(64, [max_qp](FlitAdapter& a) {
    Completer* c = a.make<Completer>(max_qp);
    // (an input is taken as the RTL's S_IDLE takes it: see accepting())
    a.in_when<spec::QpCfg>("qp_cfg", c->qp_cfg, [c](const spec::QpCfg&) { return c->accepting() && !c->read_waits(); });
    a.in_when<spec::SqTrack>("sq_track", c->sq_track, [c](const spec::SqTrack& k) {
      return (c->accepting() || c->in_quick_take()) && !c->track_waits(k);
    });
    a.in_when<spec::RoceRxHdr>("rx_ack", c->rx_ack, [c](const spec::RoceRxHdr&) {
      return (c->accepting() || c->in_quick_take()) && !c->read_waits() && !c->place_pending();
    });
    a.in_when<spec::RdDone>("rd_done", c->rd_done, [c](const spec::RdDone&) { return c->accepting(); });
    a.one_input_per_cycle({0, 3, 1, 2});  // qp_cfg, rd_done, sq_track, rx_ack
    a.out<spec::CqCompl>("cq_compl", c->cq_compl);
    a.out<spec::SqRetire>("sq_retire", c->sq_retire);
    a.out<spec::RdPlace>("rd_place", c->rd_place);
    a.counters_from([c] {
      return std::vector<std::pair<std::string, uint32_t>>{{"rx_acks", c->rx_acks()},
                                                            {"nak_received", c->naks_received()},
                                                            {"packet_seq_err", c->packet_seq_errs()},
                                                            {"unmatched_response", c->unmatched()},
                                                            {"retransmits", c->retransmits()},
                                                            {"retry_exceeded", c->retry_exceeded()},
                                                            {"local_ack_timeout_err", c->ack_timeouts()},
                                                            {"rnr_nak_retry_err", c->rnr_naks()},
                                                            {"rnr_retry_exceeded", c->rnr_exceeded()},
                                                            {"implied_nak_seq_err", c->implied_naks()}};
    });
    a.busy_from([c] { return c->busy(); });
  });
}

}  // namespace rocenic::model
