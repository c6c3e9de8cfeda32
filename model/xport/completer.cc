#include "xport/completer.h"

#include "sched/flit_adapter.h"

namespace rocenic::model {
namespace {

constexpr uint8_t kSuccess = static_cast<uint8_t>(spec::WcStatus::kSuccess);
constexpr uint8_t kFlushErr = static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);
constexpr uint32_t kPsnMask = 0xFFFFFF;

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
    : qp_cfg(s, this, 1), sq_track(s, this, 1), rx_ack(s, this, 1), s_(s), qps_(max_qp) {}

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
  if (r.count == 0 && !r.error && !r.rewind) return;  // an ACK that covers nothing retires nothing
  out_.add(sq_retire, r, t);
}

unsigned Completer::walk(unsigned qpn, Qp& q, Walk mode, uint32_t psn, uint8_t nak_st, bool* failed, Cycle t) {
  unsigned n = 0;
  while (!q.window.empty()) {
    const spec::SqTrack& e = q.window.front();
    const uint32_t d = (psn - e.last_psn) & kPsnMask;  // the WQE's last PSN at or before psn: d < 2^23
    const bool covered = d < 0x800000u && (mode == Walk::kAck || d != 0);  // a NAK's own PSN is not acknowledged
    const bool amended = q.fail && e.wqe_idx == q.fail_idx;
    uint8_t st;
    bool cqe = true, fail = false;
    if (e.status != kSuccess || amended) {  // a local failure (or the requester's flush) keeps its status
      st = e.status != kSuccess ? e.status : q.fail_st;
      fail = true;
    } else if (mode == Walk::kFlush) {
      st = kFlushErr;
    } else if (covered) {
      st = kSuccess;
      cqe = e.signaled;
    } else if (mode == Walk::kNak) {
      st = nak_st;
      fail = true;
    } else {
      break;  // the first entry not acknowledged
    }
    if (cqe) out_.add(cq_compl, completion(qpn, q, e, st), t + n);
    if (fail) {
      q.err = true;
      *failed = true;
      mode = Walk::kFlush;  // everything behind a failed WQE is flushed
    }
    q.window.pop_front();
    ++n;
  }
  return n;
}

Cycle Completer::on_cfg(const spec::QpCfg& c, Cycle t) {
  using A = spec::QpAction;
  if (c.qpn >= qps_.size()) return 1;
  Qp& q = qps_[c.qpn];
  const auto act = static_cast<A>(c.action);
  if (act == A::kReset) {
    q = Qp{};
    q.valid = true;
  } else if (act == A::kDestroy) {
    q = Qp{};
    return 1;
  } else if (!q.valid) {
    return 1;  // attributes of a QP that does not exist
  }
  q.cq = c.send_cq;
  q.retry_cnt = q.retry = c.retry_cnt & 7u;
  if (act != A::kToErr) return 1;
  q.fail = false;
  if (q.window.empty()) {
    q.err = true;
    return 1;
  }
  bool failed = false;
  const unsigned n = walk(c.qpn, q, Walk::kFlush, 0, 0, &failed, t);
  q.err = true;
  spec::SqRetire r;
  r.qpn = c.qpn;
  r.count = static_cast<uint8_t>(n);
  r.error = true;
  retire(r, t + n);
  return n + 2;
}

Cycle Completer::on_track(const spec::SqTrack& k, Cycle t) {
  if (k.qpn >= qps_.size() || !qps_[k.qpn].valid) return 1;
  Qp& q = qps_[k.qpn];
  spec::SqRetire r;
  r.qpn = k.qpn;
  if (k.amend) {
    // A tracked WQE failed while being sent: it fails when it reaches the
    // head (now, if it is there; the ones before it wait for their ACKs).
    if (q.err) return 1;  // already flushed
    q.fail = true;
    q.fail_idx = k.wqe_idx;
    q.fail_st = k.status;
    bool failed = false;
    const unsigned n = walk(k.qpn, q, Walk::kSeq, q.una, 0, &failed, t);
    if (q.window.empty()) q.fail = false;  // it was acknowledged before it failed
    r.count = static_cast<uint8_t>(n);
    r.error = failed;
    retire(r, t + n);
    return n + 2;
  }
  if (q.err || (q.window.empty() && k.status != kSuccess)) {
    // Completes at once: flushed, or a local failure with nothing ahead of it.
    const uint8_t st = k.status != kSuccess ? k.status : kFlushErr;
    q.err = true;
    out_.add(cq_compl, completion(k.qpn, q, k, st), t);
    r.count = 1;
    r.error = true;
    retire(r, t + 1);
    return 3;
  }
  if (q.window.empty()) q.una = k.first_psn;
  q.nxt = (k.last_psn + 1) & kPsnMask;
  q.window.push_back(k);  // (a full window never gets here: track_waits)
  return 1;
}

Cycle Completer::on_ack(const spec::RoceRxHdr& h, Cycle t) {
  ++cnt_acks_;
  const unsigned cls = h.aeth_syndrome >> 5;  // 0 ACK, 1 RNR NAK, 3 NAK (2: reserved)
  const bool ack = cls == 0, nak = cls == 1 || cls == 3;
  if (h.dst_qpn >= qps_.size() || h.opcode != spec::kRcAck || !qps_[h.dst_qpn].valid) {
    ++cnt_unmatched_;
    return 1;
  }
  Qp& q = qps_[h.dst_qpn];
  if (nak) ++cnt_nak_;
  // Matches an outstanding request only with its PSN in [una, nxt).
  const uint32_t off = (h.psn - q.una) & kPsnMask, range = (q.nxt - q.una) & kPsnMask;
  if (q.err || (!ack && !nak) || q.window.empty() || off >= range) {
    ++cnt_unmatched_;
    return 1;
  }
  const bool seq = cls == 3 && (h.aeth_syndrome & 0x1F) == 0;
  if (seq) ++cnt_seq_;
  bool failed = false;
  spec::SqRetire r;
  r.qpn = h.dst_qpn;
  Walk mode = ack ? Walk::kAck : seq && q.retry != 0 ? Walk::kSeq : Walk::kNak;
  if (seq && q.retry == 0) ++cnt_exceeded_;
  const unsigned n = walk(h.dst_qpn, q, mode, h.psn, nak_status(h.aeth_syndrome), &failed, t);
  if (ack) {
    q.una = (h.psn + 1) & kPsnMask;
    q.retry = q.retry_cnt;  // progress
  } else if (!failed && mode == Walk::kSeq) {
    // go back N: the requester sends again from the NAKed PSN
    const spec::SqTrack& head = q.window.front();
    q.una = h.psn;
    --q.retry;
    ++cnt_rewind_;
    r.rewind = true;
    r.rw_idx = head.wqe_idx;
    r.rw_psn = head.first_psn;
    r.rw_skip = (h.psn - head.first_psn) & kPsnMask;
  }
  r.count = static_cast<uint8_t>(n);
  r.error = failed;
  retire(r, t + n);
  return n + 2;
}

bool Completer::window_full(unsigned qpn) const { return qpn < qps_.size() && qps_[qpn].window.size() == kWindow; }
bool Completer::track_waits(const spec::SqTrack& k) const { return !k.amend && window_full(k.qpn); }

void Completer::run() {
  const Cycle now = s_.now();
  const Cycle resend = out_.send(now);
  if (now < free_at_ || !out_.empty()) {  // deciding or walking: the next input waits
    const Cycle wake = now < free_at_ ? std::min(free_at_, resend) : resend;
    if (wake != kNever) s_.wake_at(this, wake);
    return;
  }
  // The input that arrived first (a blocked sq_track steps aside); ties in
  // the RTL's priority.
  const int pick = first_arrived(
      {qp_cfg.next_at(), sq_track.ready() && !track_waits(sq_track.front()) ? sq_track.next_at() : kNever,
       rx_ack.next_at()},
      now);
  if (pick < 0) return;
  const Cycle t = now + kDecide;
  Cycle busy = 0;
  if (pick == 0) busy = on_cfg(qp_cfg.pop(), t);
  else if (pick == 1) busy = on_track(sq_track.pop(), t);
  else busy = on_ack(rx_ack.pop(), t);
  free_at_ = now + kDecide + busy;
  s_.wake_at(this, std::min(free_at_, out_.empty() ? kNever : t));
}

std::unique_ptr<rocenic::Block> make_completer_block(unsigned max_qp) {
  return std::make_unique<FlitAdapter>(64, [max_qp](FlitAdapter& a) {
    Completer* c = a.make<Completer>(max_qp);
    a.in<spec::QpCfg>("qp_cfg", c->qp_cfg);
    a.in_when<spec::SqTrack>("sq_track", c->sq_track, [c](const spec::SqTrack& k) { return !c->track_waits(k); });
    a.in<spec::RoceRxHdr>("rx_ack", c->rx_ack);
    a.out<spec::CqCompl>("cq_compl", c->cq_compl);
    a.out<spec::SqRetire>("sq_retire", c->sq_retire);
    a.counters_from([c] {
      return std::vector<std::pair<std::string, uint32_t>>{{"rx_acks", c->rx_acks()},
                                                            {"nak_received", c->naks_received()},
                                                            {"packet_seq_err", c->packet_seq_errs()},
                                                            {"unmatched_response", c->unmatched()},
                                                            {"retransmits", c->retransmits()},
                                                            {"retry_exceeded", c->retry_exceeded()}};
    });
    a.busy_from([c] { return c->busy(); });
  });
}

}  // namespace rocenic::model
