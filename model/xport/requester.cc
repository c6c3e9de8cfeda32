#include "xport/requester.h"

#include <algorithm>

#include "common/desc_flit.h"

namespace rocenic::model {
namespace {

using spec::WcStatus;
constexpr unsigned kInl = 32;  // inline bytes / SGEs start at this WQE offset

uint64_t le(const uint8_t* p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}
uint8_t st8(WcStatus s) { return static_cast<uint8_t>(s); }
uint32_t bswap32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
}
unsigned next_act(uint8_t mask, unsigned from) {
  for (unsigned i = from; i < 6; ++i)
    if ((mask >> i) & 1u) return i;
  return 6;
}
uint8_t sge_act(const uint8_t* wqe) {
  uint8_t m = 0;
  for (unsigned i = 0; i < 6; ++i)
    if (i < wqe[10] && le(wqe + kInl + 16 * i + 8, 4) != 0) m |= static_cast<uint8_t>(1u << i);
  return m;
}

}  // namespace

Requester::Requester(unsigned data_bytes, unsigned max_qp, unsigned raw_depth, unsigned piece_depth,
                     unsigned pkt_depth)
    : w_(data_bytes),
      n_qp_(max_qp),
      raw_depth_(raw_depth),
      pc_depth_(piece_depth),
      pk_depth_(pkt_depth),
      zeros_(data_bytes, 0),
      inl_(spec::SendWqe::kSize - kInl + data_bytes, 0),
      ctx_(max_qp),
      iss_(data_bytes, raw_depth),
      gat_(data_bytes),
      raw_(raw_depth),
      pc_(piece_depth),
      pk_(pkt_depth) {
  const auto desc = [](const char* n, unsigned bits) { return PortInfo{n, false, true, (bits + 7) / 8}; };
  in_info_ = {desc("qp_cfg", spec::QpCfg::kBits), desc("sq_db", spec::WqDb::kBits),
              desc("sq_retire", spec::SqRetire::kBits), {"dma_rd", true, true, w_},
              desc("mr_resp", spec::MrResp::kBits)};
  out_info_ = {desc("dma_rd_req", spec::DmaRdReq::kBits), desc("mr_req", spec::MrReq::kBits),
               desc("tx_hdr", spec::RoceTxHdr::kBits), {"tx_payload", true, true, w_},
               desc("sq_track", spec::SqTrack::kBits)};
  reset();
}

void Requester::reset() {
  ctx_.reset();
  iss_.reset();
  gat_.reset();
  raw_.reset();
  pc_.reset();
  pk_.reset();
  pc_cnt_ = pk_cnt_ = 0;
  st_ = kIdle;
  act_ = 0;
  act_ci_ = 0;
  act_psn_ = 0;
  beat_ = 0;
  poison_ = sent_ = false;
  status_ = 0;
  chk_iss_ = chk_rsp_ = 0;
  chk_err_ = false;
  hdr_k_ = 0;
  hdr_valid_ = false;
  arrived_ = src_cr_ = pend_ = 0;
  pay_err_ = false;
  src_off_ = 0;
  cnt_ = 0;
  cycle_ = 0;
  dirty_ = true;
}

void Requester::set_input(unsigned port, bool valid, const Flit& flit) {
  in_valid_[port] = valid;
  dirty_ = true;
  if (!valid || flit == in_[port]) return;  // descriptors are decoded once, when offered
  in_[port] = flit;
  switch (port) {
    case 0: in_cfg_ = desc_from_flit<spec::QpCfg>(flit); break;
    case 1: in_db_ = desc_from_flit<spec::WqDb>(flit); break;
    case 2: in_ret_ = desc_from_flit<spec::SqRetire>(flit); break;
    case 4: in_resp_ = desc_from_flit<spec::MrResp>(flit); break;
    default:
      if (in_[3].data.size() < w_) in_[3].data.resize(w_, 0);
      break;
  }
}

void Requester::set_output_ready(unsigned port, bool ready) {
  ready_[port] = ready;
  dirty_ = true;
}

Requester::Wqe Requester::decode() const {
  const uint8_t* p = wqe_.data();
  Wqe w;
  w.wr_id = le(p + 0, 8);
  w.op = p[8];
  w.flags = p[9];
  w.nsge = p[10];
  w.imm = static_cast<uint32_t>(le(p + 12, 4));
  w.raddr = le(p + 16, 8);
  w.rkey = static_cast<uint32_t>(le(p + 24, 4));
  w.len = static_cast<uint32_t>(le(p + 28, 4));
  w.inl = (w.flags >> 2) & 1u;
  w.op_ok = w.op < 4;
  w.op_send = w.op == static_cast<uint8_t>(spec::WrOpcode::kSend) ||
              w.op == static_cast<uint8_t>(spec::WrOpcode::kSendWithImm);
  w.op_imm = w.op == static_cast<uint8_t>(spec::WrOpcode::kSendWithImm) ||
             w.op == static_cast<uint8_t>(spec::WrOpcode::kRdmaWriteWithImm);
  w.need_pkts = !w.inl && w.len != 0;
  // path MTU 256 .. 4096 (values outside 1..5 clamped, as in the RTL)
  const unsigned pm = std::clamp<unsigned>(ctx_.cfg().pmtu & 7u, 1, 5);
  w.mtu_lg = 7 + pm;
  w.mtu = 1u << w.mtu_lg;
  w.npk = w.len == 0 ? 1 : ((w.len - 1) >> w.mtu_lg) + 1;
  w.last_len = w.len == 0 ? 0 : ((w.len - 1) & (w.mtu - 1)) + 1;
  uint64_t sum = 0;
  for (unsigned i = 0; i < 6; ++i)
    if (i < w.nsge) sum += le(p + kInl + 16 * i + 8, 4);
  if (ctx_.state(act_) == static_cast<uint8_t>(spec::QpState::kErr)) w.status = st8(WcStatus::kWrFlushErr);
  else if (poison_ || !w.op_ok) w.status = st8(WcStatus::kLocQpOpErr);
  else if (w.inl ? w.len > 96 : (w.nsge > 6 || sum != w.len)) w.status = st8(WcStatus::kLocQpOpErr);
  else w.status = st8(WcStatus::kSuccess);
  return w;
}

IssueMsg Requester::issue_msg() const {
  IssueMsg m;
  const uint8_t* p = wqe_.data();
  for (unsigned i = 0; i < 6; ++i) {
    m.addr[i] = le(p + kInl + 16 * i, 8);
    m.len[i] = static_cast<uint32_t>(le(p + kInl + 16 * i + 8, 4));
    m.lkey[i] = static_cast<uint32_t>(le(p + kInl + 16 * i + 12, 4));
  }
  m.chk_pa = chk_pa_;
  m.chk_run = chk_run_;
  m.act = sge_act(p);
  m.pd = ctx_.cfg().pd;
  m.length = static_cast<uint32_t>(le(p + 28, 4));
  m.mtu_lg = 7 + std::clamp<unsigned>(ctx_.cfg().pmtu & 7u, 1, 5);
  return m;
}

spec::RoceTxHdr Requester::build_hdr(uint32_t pay) const {
  const Wqe w = decode();
  const spec::QpCfg& cfg = ctx_.cfg();
  const bool first = hdr_k_ == 0, last = hdr_k_ == w.npk - 1;
  spec::RoceTxHdr h;
  h.l3 = cfg.l3;
  h.dst_mac = cfg.dst_mac;
  h.src_mac = cfg.src_mac;
  h.src_ip = cfg.src_ip;
  h.dst_ip = cfg.dst_ip;
  h.tclass = cfg.tclass;
  h.ttl = cfg.ttl;
  h.flow_label = cfg.flow_label;
  using namespace spec;
  if (w.op_send)
    h.opcode = first && last ? (w.op_imm ? kRcSendOnlyImm : kRcSendOnly)
               : first       ? kRcSendFirst
               : last        ? (w.op_imm ? kRcSendLastImm : kRcSendLast)
                             : kRcSendMiddle;
  else
    h.opcode = first && last ? (w.op_imm ? kRcWriteOnlyImm : kRcWriteOnly)
               : first       ? kRcWriteFirst
               : last        ? (w.op_imm ? kRcWriteLastImm : kRcWriteLast)
                             : kRcWriteMiddle;
  h.se = last && ((w.flags >> 1) & 1u) && (w.op_send || w.op_imm);
  h.pkey = static_cast<uint16_t>(kDefaultPkey);
  h.dst_qpn = cfg.dest_qpn;
  h.ack_req = last;
  h.psn = (act_psn_ + hdr_k_) & 0xFFFFFFu;
  if (!w.op_send && first) {
    h.reth_va = w.raddr;
    h.reth_rkey = w.rkey;
    h.reth_len = w.len;
  }
  if (w.op_imm && last) h.imm = bswap32(w.imm);  // the WQE's bytes, in order, on the wire
  h.pay_len = static_cast<uint16_t>(pay);
  h.src_qpn = act_;
  return h;
}

spec::SqTrack Requester::track() const {
  const Wqe w = decode();
  spec::SqTrack t;
  t.qpn = static_cast<uint16_t>(act_);
  t.wqe_idx = act_ci_;
  t.last_psn = (sent_ ? act_psn_ + w.npk - 1 : act_psn_ - 1) & 0xFFFFFFu;
  t.wr_id = w.wr_id;
  using spec::WcOpcode;
  using spec::WrOpcode;
  t.wc_opcode = static_cast<uint8_t>(
      w.op == static_cast<uint8_t>(WrOpcode::kRdmaWrite) || w.op == static_cast<uint8_t>(WrOpcode::kRdmaWriteWithImm)
          ? WcOpcode::kRdmaWrite
      : w.op == static_cast<uint8_t>(WrOpcode::kRdmaRead) ? WcOpcode::kRdmaRead
                                                          : WcOpcode::kSend);
  t.signaled = w.flags & 1u;
  t.byte_len = w.len;
  t.status = status_;
  return t;
}

const Requester::Comb& Requester::comb() {
  if (!dirty_) return comb_;
  dirty_ = false;
  Comb& c = comb_;
  c = Comb{};
  c.w = decode();
  const Wqe& w = c.w;
  const uint8_t act = sge_act(wqe_.data());

  c.eng.idle = st_ == kIdle;
  c.eng.qpn = act_;
  c.eng.wb = st_ == kWb;
  c.eng.wb_ci = static_cast<uint16_t>(act_ci_ + 1);
  c.eng.wb_psn = (sent_ ? act_psn_ + w.npk : act_psn_) & 0xFFFFFFu;
  c.eng.wb_err = status_ == st8(WcStatus::kLocQpOpErr) || status_ == st8(WcStatus::kLocProtErr);
  c.ctx = ctx_.comb(c.eng, in_valid_[0], in_cfg_, in_valid_[2], in_valid_[1]);
  c.pick_ci = ctx_.ci(c.ctx.pick_qpn);
  c.pick_psn = ctx_.psn(c.ctx.pick_qpn);
  c.iss_err = iss_.err();

  c.go_run = (st_ == kDecode && w.status == st8(WcStatus::kSuccess) && (w.inl || act == 0)) ||
             (st_ == kCheck && chk_rsp_ == 6 && !chk_err_);
  c.iss_start = c.go_run && w.need_pkts;
  c.msg = issue_msg();
  c.iss = iss_.comb(c.msg, pc_cnt_ != pc_depth_, pk_cnt_ != pk_depth_, ready_[0] && st_ != kFetch);

  // read requests: the WQE (FETCH) or payload pieces
  c.rd_valid = c.iss.rd_valid;
  c.rd = c.iss.rd;
  if (st_ == kFetch) {
    const spec::QpCfg& cfg = ctx_.cfg();
    const uint32_t mask = (uint32_t{1} << (cfg.sq_lsz & 31u)) - 1;
    c.rd = spec::DmaRdReq{};
    c.rd.addr = cfg.sq_base + (uint64_t{act_ci_ & mask} << 7);
    c.rd.len = spec::SendWqe::kSize;
    c.rd_valid = true;
  }
  // MR requests: the SGE checks (CHECK) or later page runs
  c.mr_valid = c.iss.mr_req_valid;
  c.mr = c.iss.mr_req;
  c.mr_resp_ready = c.iss.mr_resp_ready;
  if (st_ == kCheck) {
    const unsigned i = chk_iss_ < 6 ? chk_iss_ : 0;
    const uint8_t* s = wqe_.data() + kInl + 16 * i;
    c.mr = spec::MrReq{};
    c.mr.tag = static_cast<uint8_t>(chk_iss_);
    c.mr.key = static_cast<uint32_t>(le(s + 12, 4));
    c.mr.pd = ctx_.cfg().pd;
    c.mr.va = le(s, 8);
    c.mr.len = static_cast<uint32_t>(le(s + 8, 4));
    c.mr_valid = chk_iss_ != 6;
    c.mr_resp_ready = chk_rsp_ != 6;
  }
  c.dma_ready = st_ == kWqe || st_ == kRun;
  c.raw_push = st_ == kRun && in_valid_[3];

  // source: the current piece (or the inline bytes) as lane-0-aligned beats
  const Piece& ph = pc_.m_data();
  c.src_zero = !w.inl && ph.zero;
  c.src_last = w.inl || ph.pkt_last;
  const unsigned src_len = w.inl ? (w.len & 0x1FFFu) : ph.len;
  const unsigned rem = (src_len - src_off_) & 0x1FFFu;
  c.src_end = rem <= w_;
  c.src_n = c.src_end ? rem : w_;
  if (w.inl) {
    std::copy(wqe_.begin() + kInl, wqe_.end(), inl_.begin());
    c.src_data = inl_.data() + std::min<size_t>(src_off_, inl_.size() - w_);
  } else {
    c.src_data = c.src_zero ? zeros_.data() : raw_.m_data().first.data();
  }
  c.src_valid = st_ == kRun && src_cr_ != 0 && (w.inl || (pc_.m_valid() && (c.src_zero || raw_.m_valid())));
  c.src_take = c.src_valid && gat_.s_ready(ready_[3]);
  c.raw_pop = c.src_take && !w.inl && !c.src_zero;
  c.pc_pop = c.src_take && !w.inl && c.src_end;

  // headers: each leaves once all read data of its packet is in the buffer
  c.hdr_pay = hdr_k_ == w.npk - 1 ? w.last_len : w.mtu;
  const bool hdr_can =
      hdr_k_ < w.npk && pend_ != 2 && (!w.need_pkts || (pk_.m_valid() && arrived_ >= pk_.m_data()));
  c.hdr_load = st_ == kRun && (!hdr_valid_ || ready_[2]) && hdr_can;
  c.pk_pop = c.hdr_load && w.need_pkts;
  c.pk_head = pk_.m_data();
  c.raw_user = raw_.m_data().second;
  c.pay_done = gat_.m_valid() && ready_[3] && gat_.m_last();
  c.hdr_taken = hdr_valid_ && ready_[2];
  return c;
}

bool Requester::input_ready(unsigned port) {
  const Comb& c = comb();
  switch (port) {
    case 0: return c.ctx.cfg_ready;
    case 1: return c.ctx.db_ready;
    case 2: return c.ctx.ret_ready;
    case 3: return c.dma_ready;
    default: return c.mr_resp_ready;
  }
}

bool Requester::output_valid(unsigned port) {
  const Comb& c = comb();
  switch (port) {
    case 0: return c.rd_valid;
    case 1: return c.mr_valid;
    case 2: return hdr_valid_;
    case 3: return gat_.m_valid();
    default: return st_ == kTrack;
  }
}

Flit Requester::output(unsigned port) {
  const Comb& c = comb();
  switch (port) {
    case 0: return desc_to_flit(c.rd);
    case 1: return desc_to_flit(c.mr);
    case 2: return desc_to_flit(hdr_);
    case 3: {
      Flit f;
      f.data = gat_.m_data();
      f.keep = gat_.m_keep();
      f.last = gat_.m_last();
      return f;
    }
    default: return desc_to_flit(track());
  }
}

bool Requester::idle() { return st_ == kIdle && !comb().ctx.any_eligible; }

void Requester::clock() {
  const Comb c = comb();  // a copy: the sub-blocks change under it
  gat_.clock(c.src_valid, c.src_data, c.src_n, c.src_end && c.src_last, ready_[3]);  // reads the FIFO heads
  ctx_.clock(c.eng, c.ctx, in_cfg_, in_ret_, in_db_);
  iss_.clock(c.msg, c.iss, c.iss_start, ready_[1] && st_ != kCheck, in_valid_[4] && st_ != kCheck, in_resp_,
             c.raw_pop);
  raw_.clock(c.raw_push, {in_[3].data, in_[3].user}, c.raw_pop);
  pc_.clock(c.iss.push, c.iss.piece, c.pc_pop);
  pk_.clock(c.iss.push && c.iss.pend, c.iss.pk_need, c.pk_pop);
  pc_cnt_ = pc_cnt_ + (c.iss.push ? 1 : 0) - (c.pc_pop ? 1 : 0);
  pk_cnt_ = pk_cnt_ + (c.iss.push && c.iss.pend ? 1 : 0) - (c.pk_pop ? 1 : 0);
  clock_engine(c);
  ++cycle_;
  dirty_ = true;
}

void Requester::clock_engine(const Comb& c) {
  const Wqe& w = c.w;
  const uint8_t act = sge_act(wqe_.data());
  if (st_ == kWqe && in_valid_[3])
    std::copy(in_[3].data.begin(), in_[3].data.begin() + w_, wqe_.begin() + beat_ * w_);
  if (c.hdr_load) hdr_ = build_hdr(c.hdr_pay);
  if (st_ == kCheck && in_valid_[4] && chk_rsp_ != 6) {
    chk_pa_[chk_rsp_] = in_resp_.pa;
    chk_run_[chk_rsp_] = in_resp_.run;
  }
  if (c.hdr_taken) ++cnt_;
  if (c.go_run) {
    hdr_k_ = 0;
    hdr_valid_ = false;
    arrived_ = src_cr_ = pend_ = 0;
    pay_err_ = false;
    src_off_ = 0;
  }
  switch (st_) {
    case kIdle:
      if (c.ctx.pick_valid) {
        act_ = c.ctx.pick_qpn;
        act_ci_ = static_cast<uint16_t>(c.pick_ci);
        act_psn_ = c.pick_psn;
        st_ = kFetch;
      }
      break;
    case kFetch:
      if (ready_[0]) {
        beat_ = 0;
        poison_ = false;
        st_ = kWqe;
      }
      break;
    case kWqe:
      if (in_valid_[3]) {
        poison_ = poison_ || in_[3].user;
        ++beat_;
        if (beat_ == spec::SendWqe::kSize / w_) st_ = kDecode;
      }
      break;
    case kDecode:
      sent_ = false;
      status_ = w.status;
      chk_iss_ = chk_rsp_ = next_act(act, 0);
      chk_err_ = false;
      st_ = w.status != st8(WcStatus::kSuccess) ? kTrack : c.go_run ? kRun : kCheck;
      break;
    case kCheck: {
      const unsigned rsp = chk_rsp_;
      const bool err = chk_err_;
      if (c.mr_valid && ready_[1]) chk_iss_ = next_act(act, chk_iss_ + 1);
      if (in_valid_[4] && rsp != 6) {
        chk_rsp_ = next_act(act, rsp + 1);
        if (in_resp_.status != static_cast<uint8_t>(spec::MrStatus::kOk)) chk_err_ = true;
      }
      if (rsp == 6) {
        if (err) {
          status_ = st8(WcStatus::kLocProtErr);
          st_ = kTrack;
        } else {
          st_ = kRun;
        }
      }
      break;
    }
    case kRun: {
      const bool done = hdr_k_ == w.npk && !hdr_valid_ && pend_ == 0;
      const bool add = c.hdr_load && c.hdr_pay != 0;
      arrived_ = arrived_ + (c.raw_push ? 1 : 0) - (c.pk_pop ? c.pk_head : 0);
      if (c.hdr_load) {
        hdr_valid_ = true;
        ++hdr_k_;
      } else if (ready_[2]) {
        hdr_valid_ = false;
      }
      src_cr_ = src_cr_ + (add ? 1 : 0) - (c.src_take && c.src_end && c.src_last ? 1 : 0);
      pend_ = pend_ + (add ? 1 : 0) - (c.pay_done ? 1 : 0);
      if (c.src_take) src_off_ = c.src_end ? 0 : src_off_ + w_;
      if (c.raw_pop && c.raw_user) pay_err_ = true;
      if (done) {
        sent_ = true;
        status_ = st8(pay_err_ || c.iss_err ? WcStatus::kLocProtErr : WcStatus::kSuccess);
        st_ = kTrack;
      }
      break;
    }
    case kTrack:
      if (ready_[4]) st_ = kWb;
      break;
    case kWb:
      st_ = kIdle;
      break;
  }
}

}  // namespace rocenic::model
