#include "xport/completer.h"

#include "common/desc_flit.h"

namespace rocenic::model {
namespace {

constexpr uint8_t kSuccess = static_cast<uint8_t>(spec::WcStatus::kSuccess);
constexpr uint8_t kFlush = static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);

// AETH syndrome (IBTA 9.7.5.1) -> completion status of the NAKed WQE.
uint8_t nak_status(uint8_t syn) {
  using S = spec::WcStatus;
  if ((syn >> 5) == 1) return static_cast<uint8_t>(S::kRnrRetryExcErr);
  switch (syn & 0x1F) {
    case 0: return static_cast<uint8_t>(S::kBadRespErr);
    case 1: return static_cast<uint8_t>(S::kRemInvReqErr);
    case 2: return static_cast<uint8_t>(S::kRemAccessErr);
    default: return static_cast<uint8_t>(S::kRemOpErr);
  }
}

}  // namespace

Completer::Completer(unsigned max_qp) : ctx_(max_qp), win_(max_qp * kWindow) {
  in_info_ = {{"qp_cfg", false, true, (spec::QpCfg::kBits + 7) / 8},
              {"sq_track", false, true, (spec::SqTrack::kBits + 7) / 8},
              {"rx_ack", false, true, (spec::RoceRxHdr::kBits + 7) / 8}};
  out_info_ = {{"cq_compl", false, true, (spec::CqCompl::kBits + 7) / 8},
               {"sq_retire", false, true, (spec::SqRetire::kBits + 7) / 8}};
  reset();
}

void Completer::reset() {
  st_ = St::kInit;
  init_ = 0;
  cq_v_ = rt_v_ = false;
  cnt_acks_ = cnt_nak_ = 0;
  cycle_ = 0;
}

void Completer::set_input(unsigned port, bool valid, const Flit& flit) {
  in_valid_[port] = valid;
  if (!valid) return;
  if (port == 0) in_cfg_ = desc_from_flit<spec::QpCfg>(flit);
  else if (port == 1) in_trk_ = desc_from_flit<spec::SqTrack>(flit);
  else in_ack_ = desc_from_flit<spec::RoceRxHdr>(flit);
}

bool Completer::input_ready(unsigned port) {
  const bool idle_st = st_ == St::kIdle;
  if (port == 0) return idle_st;
  const bool trk_go = in_valid_[1] && !blocked(in_trk_);
  if (port == 1) return idle_st && !in_valid_[0] && !blocked(in_trk_);
  return idle_st && !in_valid_[0] && !trk_go;
}

Flit Completer::output(unsigned port) { return port == 0 ? desc_to_flit(cq_) : desc_to_flit(rt_); }

spec::CqCompl Completer::compl_of(const spec::SqTrack& t, uint8_t status) const {
  spec::CqCompl c;
  c.cq = w_.cq;
  c.qp_num = qpn_;
  c.wr_id = t.wr_id;
  c.byte_len = t.byte_len;
  c.opcode = t.wc_opcode;
  c.status = status;
  c.wqe_counter = t.wqe_idx;
  return c;
}

void Completer::clock() {
  const unsigned n = static_cast<unsigned>(ctx_.size());
  const bool take_cfg = in_valid_[0] && input_ready(0);
  const bool take_trk = in_valid_[1] && input_ready(1);
  const bool take_ack = in_valid_[2] && input_ready(2);
  const bool cq_free = !cq_v_ || ready_[0];
  const bool rt_free = !rt_v_ || ready_[1];
  if (cq_v_ && ready_[0]) cq_v_ = false;
  if (rt_v_ && ready_[1]) rt_v_ = false;

  switch (st_) {
    case St::kInit:
      ctx_[init_] = Ctx{};
      if (++init_ == n) st_ = St::kIdle;
      break;
    case St::kIdle:
      if (take_cfg) {
        kind_ = Kind::kCfg;
        act_ = in_cfg_.action;
        scq_ = in_cfg_.send_cq;
        qpn_ = in_cfg_.qpn & (n - 1);
        inr_ = in_cfg_.qpn < n;
      } else if (take_trk) {
        kind_ = Kind::kTrk;
        trk_ = in_trk_;
        qpn_ = in_trk_.qpn & (n - 1);
        inr_ = in_trk_.qpn < n;
      } else if (take_ack) {
        kind_ = Kind::kAck;
        psn_ = in_ack_.psn;
        syn_ = in_ack_.aeth_syndrome;
        ackop_ = in_ack_.opcode == spec::kRcAck;
        qpn_ = in_ack_.dst_qpn & (n - 1);
        inr_ = in_ack_.dst_qpn < n;
        ++cnt_acks_;
      }
      if (take_cfg || take_trk || take_ack) st_ = St::kCtx;
      break;
    case St::kCtx:
      step_ctx();
      break;
    case St::kWalk:
      step_walk(cq_free);
      break;
    case St::kOne:
      if (cq_free) {
        cq_ = compl_of(trk_, one_st_);
        cq_v_ = true;
        st_ = St::kDone;
      }
      break;
    case St::kDone: {
      const bool need = rcnt_ != 0 || rerr_;
      if (rt_free || !need) {
        if (need) {
          rt_.qpn = static_cast<uint16_t>(qpn_);
          rt_.count = rcnt_;
          rt_.error = rerr_;
          rt_v_ = true;
        }
        ctx_[qpn_] = w_;
        st_ = St::kIdle;
      }
      break;
    }
  }
  ++cycle_;
}

void Completer::step_ctx() {
  using A = spec::QpAction;
  st_ = St::kIdle;
  const Ctx c = ctx_[qpn_];
  w_ = c;
  rcnt_ = 0;
  rerr_ = false;
  if (!inr_) return;
  switch (kind_) {
    case Kind::kCfg:
      if (act_ == static_cast<uint8_t>(A::kReset)) {
        ctx_[qpn_] = Ctx{};
        ctx_[qpn_].valid = true;
        ctx_[qpn_].cq = scq_;
      } else if (act_ == static_cast<uint8_t>(A::kDestroy)) {
        ctx_[qpn_] = Ctx{};
      } else if (!c.valid) {
        // attributes of a QP that does not exist
      } else if (act_ == static_cast<uint8_t>(A::kToErr)) {
        if (c.cnt == 0) {
          Ctx x = c;
          x.err = true;
          x.pend = false;
          x.pst = 0;
          x.cq = scq_;
          ctx_[qpn_] = x;
        } else {  // flush the window
          w_.err = true;
          w_.pend = false;
          w_.cq = scq_;
          mode_ = Mode::kFlush;
          rerr_ = true;
          st_ = St::kWalk;
        }
      } else {
        ctx_[qpn_].cq = scq_;
      }
      break;
    case Kind::kTrk:
      if (!c.valid) break;
      if (c.err || (c.cnt == 0 && trk_.status != kSuccess)) {
        // completes at once: flushed (or the status of a NAK that came first),
        // or a local failure with nothing ahead of it
        one_st_ = !c.err || trk_.status != kSuccess ? trk_.status : c.pend ? c.pst : kFlush;
        w_.err = true;
        w_.pend = false;
        rcnt_ = 1;
        rerr_ = true;
        st_ = St::kOne;
      } else if (c.cnt < kWindow) {
        win_[qpn_ * kWindow + ((c.head + c.cnt) % kWindow)] = trk_;
        ++ctx_[qpn_].cnt;
      }
      break;
    case Kind::kAck: {
      if (!c.valid || !ackop_) break;
      const unsigned cls = syn_ >> 5;
      const bool ack = cls == 0, nak = cls == 1 || cls == 3;
      if (nak) ++cnt_nak_;
      nst_ = nak_status(syn_);
      if (ack && !c.err && c.cnt != 0) {
        mode_ = Mode::kAck;
        st_ = St::kWalk;
      } else if (nak && !c.err) {
        mode_ = Mode::kNak;
        st_ = St::kWalk;
      }
      break;
    }
  }
}

void Completer::step_walk(bool cq_free) {
  bool stop = w_.cnt == 0;
  if (!stop) {
    const spec::SqTrack& e = win_[qpn_ * kWindow + w_.head];
    const uint32_t d = (psn_ - e.last_psn) & 0xFFFFFFu;  // last_psn at or before p: d < 2^23
    const bool covered = d < 0x800000u && (mode_ == Mode::kAck || d != 0);
    bool cq = true, err = false;
    uint8_t st = kFlush;
    if (e.status != kSuccess) {
      st = e.status;  // a local failure (or the requester's flush) keeps its status
      err = true;
    } else if (mode_ == Mode::kFlush) {
      st = kFlush;
    } else if (covered) {
      st = kSuccess;
      cq = e.signaled;
    } else if (mode_ == Mode::kNak) {
      st = nst_;
      err = true;
    } else {
      stop = true;
    }
    if (!stop) {
      if (cq && !cq_free) return;  // wait for the output register
      if (cq) {
        cq_ = compl_of(e, st);
        cq_v_ = true;
      }
      if (err) {
        w_.err = true;
        rerr_ = true;
        mode_ = Mode::kFlush;
      }
      w_.head = (w_.head + 1) % kWindow;
      --w_.cnt;
      ++rcnt_;
      return;
    }
  }
  if (mode_ == Mode::kNak) {  // the NAK's entry has not been tracked yet
    w_.err = true;
    w_.pend = true;
    w_.pst = nst_ & 0xF;
    rerr_ = true;
  }
  st_ = St::kDone;
}

}  // namespace rocenic::model
