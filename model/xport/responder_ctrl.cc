// Responder model, checker stage (rtl/xport/responder_ctrl.sv): per-QP
// contexts, the checks of docs/engine.md "Responder" in their order, the
// walk that cuts a packet into DMA pieces, verdicts, and the receive-WQE flush.
#include "common/desc_flit.h"
#include "xport/responder.h"

namespace rocenic::model {
namespace {

constexpr unsigned kMaxSge = 6;
constexpr size_t kVerdictCap = 5;  // verdict FIFO (fifo_fwft depth 4 + head)
constexpr size_t kPieceCap = 16;   // piece FIFO (committed + speculative)
constexpr unsigned kFlushMax = 8;  // flush reads outstanding

uint64_t le(const std::vector<uint8_t>& b, size_t off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && off + i < b.size(); ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}

uint8_t st(spec::QpState s) { return static_cast<uint8_t>(s); }
uint8_t syn(spec::Aeth a) { return static_cast<uint8_t>(a); }
uint8_t wc(spec::WcStatus s) { return static_cast<uint8_t>(s); }

}  // namespace

bool Responder::needs_wqe() const {
  return (is_send_ && (seg_first() || seg_only())) || (is_write_ && imm_ && (seg_last() || seg_only()));
}

spec::CqCompl Responder::cqe_base(const Qp& q) const {
  spec::CqCompl c;
  c.cq = q.recv_cq;
  c.wr_id = q.wr_id;
  c.qp_num = idx_;
  c.opcode = static_cast<uint8_t>(is_send_ ? spec::WcOpcode::kRecv : spec::WcOpcode::kRecvRdmaWithImm);
  c.src_qp = q.dest_qpn;
  c.sl = q.sl;
  c.wqe_counter = q.ci;
  return c;
}

void Responder::ctrl_clock(bool take_cfg, bool take_db, bool take_hdr, bool rd_beat, bool mr_take) {
  switch (cst_) {
    case C::kIdle:
      if (take_cfg) {
        cfg_ = desc_from_flit<spec::QpCfg>(in_[0]);
        qin_ = cfg_.qpn < max_qp_;
        idx_ = cfg_.qpn & (max_qp_ - 1);
        cst_ = C::kCfg;
      } else if (take_db) {
        const auto d = desc_from_flit<spec::WqDb>(in_[1]);
        db_pi_ = d.pi;
        qin_ = d.qpn < max_qp_;
        idx_ = d.qpn & (max_qp_ - 1);
        cst_ = C::kDb;
      } else if (take_hdr) {
        h_ = desc_from_flit<spec::RoceRxHdr>(in_[2]);
        idx_ = h_.dst_qpn & (max_qp_ - 1);
        qok_ = h_.dst_qpn < max_qp_ && qps_[idx_].valid && qps_[idx_].rc;
        is_send_ = h_.opcode <= spec::kRcSendOnlyImm;
        is_write_ = h_.opcode >= spec::kRcWriteFirst && h_.opcode <= spec::kRcWriteOnlyImm;
        const spec::OpInfo& oi = spec::kOpcodes[h_.opcode];
        imm_ = oi.valid && (oi.ext & spec::kExtImmdt);
        seg_ = oi.valid ? oi.seg : spec::Seg::kFirst;
        cst_ = C::kHdr;
      }
      break;
    case C::kCfg: ctrl_cfg(); break;
    case C::kDb: ctrl_db(); break;
    case C::kHdr: ctrl_hdr(); break;
    case C::kRoute:
      // step 6: a receive WQE is needed
      if (cx_.ci == cx_.pi) {
        ++c_rnr_;
        vd_.ack_v = true;
        vd_.syn = static_cast<uint8_t>(syn(spec::Aeth::kRnrNak) | cx_.min_rnr);
        wctx_ = false;  // nothing changes: the requester retries this PSN
        cst_ = C::kPush;
      } else {
        spec::DmaRdReq r;
        r.addr = cx_.rq_base + (uint64_t{static_cast<uint16_t>(cx_.ci & ((1u << cx_.rq_lsz) - 1))} << 7);
        r.len = spec::RecvWqe::kSize;
        rd_req_ = r;
        poison_ = false;
        wqe_.clear();
        cst_ = C::kWqe;
      }
      break;
    case C::kMrW:
      if (mr_take) {
        const auto r = desc_from_flit<spec::MrResp>(in_[5]);
        if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) {
          if (is_write_) {
            ++c_acc_;
            fail(syn(spec::Aeth::kNakRemAcc), false, 0);
          } else {
            ++c_op_;
            fail(syn(spec::Aeth::kNakRemOp), true, wc(spec::WcStatus::kLocProtErr));
          }
        } else {
          cx_.xpa = r.pa;
          cx_.xleft = r.run;
          const bool rkey = mr_rkey_;
          mr_rkey_ = false;
          if (rkey && needs_wqe()) {
            cst_ = C::kRoute;
          } else if (rkey && n_ == 0) {
            ok_ = true;
            cst_ = C::kPush;
          } else {
            cst_ = C::kWalk;
          }
        }
      }
      break;
    case C::kWqe:
      if (rd_beat) {
        wqe_.insert(wqe_.end(), in_[4].data.begin(), in_[4].data.end());
        poison_ = poison_ || in_[4].user;
        if (in_[4].last) {
          const unsigned nsge = static_cast<unsigned>(le(wqe_, spec::kRecvWqeNumSgeOff, 1));
          cx_.wr_id = poison_ ? 0 : le(wqe_, spec::kRecvWqeWrIdOff, 8);
          if (poison_ || nsge > kMaxSge) {
            ++c_op_;
            fail(syn(spec::Aeth::kNakRemOp), true, wc(spec::WcStatus::kLocQpOpErr));
          } else if (is_send_) {
            cx_.kind = Kind::kSend;
            cx_.nsge = static_cast<uint8_t>(nsge);
            cx_.total = cx_.placed = 0;
            cx_.sidx = 0;
            cx_.soff = cx_.xleft = 0;
            sg_ = 0;
            cst_ = C::kSge;
          } else {
            ok_ = n_ == 0;
            cst_ = n_ ? C::kWalk : C::kPush;
          }
        }
      }
      break;
    case C::kSge: {
      // the WQE's SGE slots, one per cycle, and the total of the first nsge
      const size_t off = spec::kRecvWqeSge0AddrOff + spec::Sge::kSize * sg_;
      Sge& s = cx_.sge[sg_];
      s.addr = le(wqe_, off, 8);
      s.len = static_cast<uint32_t>(le(wqe_, off + 8, 4));
      s.lkey = static_cast<uint32_t>(le(wqe_, off + 12, 4));
      if (sg_ < cx_.nsge) cx_.total += s.len;
      if (++sg_ == kMaxSge) cst_ = C::kSlen;
      break;
    }
    case C::kSlen:
      if (h_.pay_len > cx_.total) {
        ++c_inv_;
        fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
      } else {
        ok_ = n_ == 0;
        cst_ = n_ ? C::kWalk : C::kPush;
      }
      break;
    case C::kWalk: ctrl_walk(); break;
    case C::kSrd: cst_ = C::kWalk; break;
    case C::kPush: push_verdict(); break;
    case C::kFlush: ctrl_flush(rd_beat); break;
  }
}

void Responder::ctrl_cfg() {
  // attributes from every qp_cfg; state and indexes by its action
  Qp& q = qps_[idx_];
  Qp c = q;
  if (!q.valid) {  // a QP that does not exist reads as zero (its RAMs are not cleared)
    c = Qp{};
    c.sge = q.sge;
  }
  if (qin_) {
    c.pd = cfg_.pd;
    c.access = cfg_.access;
    c.pmtu = cfg_.pmtu;
    c.rq_base = cfg_.rq_base;
    c.rq_lsz = cfg_.rq_lsz;
    c.recv_cq = cfg_.recv_cq;
    c.dest_qpn = cfg_.dest_qpn;
    c.min_rnr = cfg_.min_rnr_timer;
    c.sl = cfg_.sl;
    const bool err = c.state == st(spec::QpState::kErr);
    switch (static_cast<spec::QpAction>(cfg_.action)) {
      case spec::QpAction::kReset:
        c.state = st(spec::QpState::kReset);
        c.pi = c.ci = 0;
        c.epsn = c.msn = 0;
        c.nak = false;
        c.kind = Kind::kNone;
        c.xleft = 0;
        break;
      case spec::QpAction::kToInit:
        if (!err) c.state = st(spec::QpState::kInit);
        break;
      case spec::QpAction::kToRtr:
        if (!err) c.state = st(spec::QpState::kRtr);
        c.epsn = cfg_.rq_psn;
        c.msn = 0;
        c.nak = false;
        c.kind = Kind::kNone;
        c.xleft = 0;
        break;
      case spec::QpAction::kToRts:
        if (!err) c.state = st(spec::QpState::kRts);
        break;
      case spec::QpAction::kToErr:
        c.state = st(spec::QpState::kErr);
        fl_pend_ = c.ci != c.pi;
        fl_next_ = fl_done_ = c.ci;
        fl_end_ = c.pi;
        c.ci = c.pi;
        break;
      default: break;  // ATTR, DESTROY: attributes only (ERR is left only through RESET)
    }
    c.valid = cfg_.action != static_cast<uint8_t>(spec::QpAction::kDestroy);
    c.rc = cfg_.qp_type == static_cast<uint8_t>(spec::QpType::kRc);
    c.addr = cfg_;
    q = c;
  }
  cx_ = c;
  fl_go_ = false;
  cst_ = fl_pend_ ? C::kFlush : C::kIdle;
}

void Responder::ctrl_db() {
  // RESET ignores doorbells; ERR flushes what a doorbell adds
  Qp& q = qps_[idx_];
  if (qin_ && q.valid && q.state != st(spec::QpState::kReset)) {
    q.pi = db_pi_;
    if (q.state == st(spec::QpState::kErr)) {
      fl_pend_ = q.ci != db_pi_;
      fl_next_ = fl_done_ = q.ci;
      fl_end_ = db_pi_;
      q.ci = db_pi_;
    }
  }
  cx_ = q;
  fl_go_ = false;
  cst_ = fl_pend_ ? C::kFlush : C::kIdle;
}

void Responder::ctrl_hdr() {
  // steps 1-5 on the QP's context; by default the payload is dropped
  const Qp& q = qps_[idx_];
  cx_ = q;
  if (!q.valid) {
    cx_ = Qp{};
    cx_.sge = q.sge;
    cx_.addr = q.addr;
  }
  const Qp& c = cx_;
  vd_ = Verdict{};
  vd_.qpn = static_cast<uint16_t>(idx_);
  vd_.pay_len = h_.pay_len;
  vd_.psn = c.epsn;
  vd_.msn = c.msn;
  ok_ = wctx_ = mr_rkey_ = false;
  np_ = 0;
  n_ = h_.pay_len;
  cst_ = C::kPush;
  const uint32_t mtu = 128u << c.pmtu;
  const uint32_t d = (h_.psn - c.epsn) & 0xFFFFFFu;
  const uint32_t len = h_.pay_len;
  const bool seq_ok = c.kind == Kind::kNone
                          ? (seg_first() || seg_only())
                          : (seg_mid() || seg_last()) && c.kind == (is_send_ ? Kind::kSend : Kind::kWrite);
  const bool len_ok = (seg_first() || seg_mid()) ? len == mtu : seg_last() ? (len != 0 && len <= mtu) : len <= mtu;
  const bool wlen_ok = (seg_first() || seg_only()) ? len <= h_.reth_len : len <= c.left;
  if (!qok_) {
    ++c_noqp_;
  } else if (c.state != st(spec::QpState::kRtr) && c.state != st(spec::QpState::kRts)) {
    ++c_state_;
  } else if (d & 0x800000u) {
    ++c_dup_;
    vd_.ack_v = h_.ack_req;
    vd_.syn = syn(spec::Aeth::kAck);
    vd_.psn = (c.epsn - 1) & 0xFFFFFFu;
  } else if (d != 0) {
    ++c_oos_;
    if (!c.nak) {
      vd_.ack_v = true;
      vd_.syn = syn(spec::Aeth::kNakPsnSeq);
      cx_.nak = true;
      wctx_ = true;
    }
  } else if (!(is_send_ || is_write_) || !seq_ok || !len_ok || (is_write_ && !wlen_ok)) {
    ++c_inv_;
    fail(syn(spec::Aeth::kNakInvReq), false, 0);
  } else if (is_send_ && (seg_mid() || seg_last()) && len + c.placed > c.total) {
    ++c_inv_;
    fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
  } else if (is_write_ && (seg_first() || seg_only()) &&
             !(c.access & static_cast<uint8_t>(spec::Access::kRemoteWrite))) {
    ++c_acc_;
    fail(syn(spec::Aeth::kNakRemAcc), false, 0);
  } else {
    const bool start = is_write_ && (seg_first() || seg_only());
    if (start) {
      cx_.kind = Kind::kWrite;
      cx_.va = h_.reth_va;
      cx_.left = cx_.rlen = h_.reth_len;
      cx_.rkey = h_.reth_rkey;
      cx_.xleft = 0;
    }
    if (start && h_.reth_len != 0) {
      // step 5: the rkey check (none for a zero-length WRITE, IBTA C9-88); its
      // answer is also the first page run's translation
      spec::MrReq r;
      r.key = h_.reth_rkey;
      r.pd = c.pd;
      r.va = h_.reth_va;
      r.len = h_.reth_len;
      r.access = static_cast<uint8_t>(spec::Access::kRemoteWrite);
      mr_req_ = r;
      mr_rkey_ = true;
      cst_ = C::kMrW;
    } else if (needs_wqe()) {
      cst_ = C::kRoute;
    } else {
      ok_ = len == 0;
      cst_ = len ? C::kWalk : C::kPush;
    }
  }
}

// Step 7: the next piece of the packet, or the translation it needs first.
void Responder::ctrl_walk() {
  if (is_send_) {
    const Sge& s = cx_.sge[cx_.sidx];
    if (cx_.soff == s.len) {  // this SGE is full (or empty): the next one
      if (cx_.sidx + 1u >= cx_.nsge) {
        ++c_inv_;  // cannot happen after the length checks; kept as a guard
        fail(syn(spec::Aeth::kNakInvReq), true, wc(spec::WcStatus::kLocLenErr));
      } else {
        ++cx_.sidx;
        cx_.soff = cx_.xleft = 0;
        cst_ = C::kSrd;
      }
      return;
    }
  }
  if (cx_.xleft == 0) {  // a new page run: its translation (for a SEND, the SGE's lkey check too)
    spec::MrReq r;
    r.pd = cx_.pd;
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
    }
    mr_req_ = r;
    cst_ = C::kMrW;
    return;
  }
  if (pieces_.size() + spec_.size() >= kPieceCap) return;
  const uint32_t k = std::min(n_, cx_.xleft);
  spec_.push_back({cx_.xpa, k});
  ++np_;
  n_ -= k;
  cx_.xpa += k;
  cx_.xleft -= k;
  if (is_send_) {
    cx_.soff += k;
    cx_.placed += k;
  } else {
    cx_.va += k;
    cx_.left -= k;
  }
  if (n_ == 0) {
    ok_ = true;
    cst_ = C::kPush;
  }
}

// A failed check: NAK (psn = epsn, current msn), maybe an error CQE for the
// receive WQE at ci; the QP enters ERR and the rest of its receive queue is flushed.
void Responder::fail(uint8_t s, bool with_cqe, uint8_t status) {
  vd_.ack_v = true;
  vd_.syn = s;
  vd_.psn = cx_.epsn;
  vd_.msn = cx_.msn;
  vd_.cqe_v = with_cqe;
  vd_.cqe = cqe_base(cx_);
  vd_.cqe.status = status;
  const uint16_t ci = with_cqe ? static_cast<uint16_t>(cx_.ci + 1) : cx_.ci;
  cx_.state = st(spec::QpState::kErr);
  fl_pend_ = ci != cx_.pi;
  fl_next_ = fl_done_ = ci;
  fl_end_ = cx_.pi;
  cx_.ci = cx_.pi;
  wctx_ = true;
  ok_ = false;
  cst_ = C::kPush;
}

// Step 8: the verdict; the context is written back, the pieces committed or dropped.
void Responder::push_verdict() {
  if (verdicts_.size() >= kVerdictCap) return;
  if (ok_) {
    const bool last = seg_last() || seg_only();
    const bool cqe = last && (is_send_ || imm_);
    Verdict v;
    v.qpn = static_cast<uint16_t>(idx_);
    v.pay_len = h_.pay_len;
    v.exec = true;
    v.npieces = np_;
    v.cqe_v = cqe;
    v.cqe = cqe_base(cx_);
    v.cqe.solicited = h_.se;
    v.cqe.byte_len = is_send_ ? static_cast<uint32_t>(cx_.placed) : cx_.rlen;
    v.cqe.imm = imm_ ? h_.imm : 0;
    v.cqe.wc_flags = imm_ ? 2 : 0;  // IBV_WC_WITH_IMM
    cx_.epsn = (cx_.epsn + 1) & 0xFFFFFFu;
    cx_.nak = false;
    if (last) {
      cx_.msn = (cx_.msn + 1) & 0xFFFFFFu;
      cx_.kind = Kind::kNone;
      cx_.xleft = 0;
    }
    if (cqe) ++cx_.ci;
    v.ack_v = h_.ack_req;
    v.syn = syn(spec::Aeth::kAck);
    v.psn = h_.psn;
    v.msn = cx_.msn;
    qps_[idx_] = cx_;
    pieces_.insert(pieces_.end(), spec_.begin(), spec_.end());
    ++c_rx_;
    verdicts_.push_back(v);
  } else {
    if (wctx_) {
      const bool valid = qps_[idx_].valid, rc = qps_[idx_].rc;
      qps_[idx_] = cx_;
      qps_[idx_].valid = valid;
      qps_[idx_].rc = rc;
    }
    verdicts_.push_back(vd_);
  }
  spec_.clear();
  fl_go_ = false;
  cst_ = fl_pend_ ? C::kFlush : C::kIdle;
}

// Flush: read each flushed WQE's wr_id and complete it with WR_FLUSH_ERR, once
// the placement stage has drained (earlier completions stay ahead).
void Responder::ctrl_flush(bool rd_beat) {
  const bool go = fl_go_;
  if (drained()) fl_go_ = true;
  if (!go) return;
  const bool cq_busy = c_cq_.has_value();
  if (!rd_req_ && fl_next_ != fl_end_ && fl_out_ < kFlushMax) {
    spec::DmaRdReq r;
    r.addr = cx_.rq_base + (uint64_t{static_cast<uint16_t>(fl_next_ & ((1u << cx_.rq_lsz) - 1))} << 7);
    r.len = spec::kRecvWqeWrIdBytes;
    rd_req_ = r;
    ++fl_next_;
    ++fl_out_;
  }
  if (rd_beat && in_[4].last) {
    spec::CqCompl c;
    c.cq = cx_.recv_cq;
    c.wr_id = in_[4].user ? 0 : le(in_[4].data, 0, 8);
    c.qp_num = idx_;
    c.opcode = static_cast<uint8_t>(spec::WcOpcode::kRecv);
    c.src_qp = cx_.dest_qpn;
    c.status = wc(spec::WcStatus::kWrFlushErr);
    c.sl = cx_.sl;
    c.wqe_counter = fl_done_++;
    c_cq_ = c;
    --fl_out_;
  }
  if (fl_done_ == fl_end_ && !cq_busy && !c_cq_) {
    fl_pend_ = false;
    cst_ = C::kIdle;
  }
}

}  // namespace rocenic::model
