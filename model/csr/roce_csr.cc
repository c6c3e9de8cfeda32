#include "csr/roce_csr.h"

#include "common/desc_flit.h"
#include "common/le_bytes.h"
#include "sched/flit_adapter.h"

namespace rocenic::model {
namespace {

uint32_t merge(uint32_t old, uint32_t d, uint8_t strb) {
  uint32_t v = old;
  for (int b = 0; b < 4; ++b)
    if (strb & (1u << b)) v = (v & ~(0xFFu << (8 * b))) | (d & (0xFFu << (8 * b)));
  return v;
}

}  // namespace

RoceCsr::RoceCsr(Scheduler& s, const CsrParams& p)
    : aw(s, this, 1), ar(s, this, 1), w(s, this, 1), cmd_resp(s, this, 1), s_(s), p_(p), gid_(p.gid_tbl_len),
      gtype_(p.gid_tbl_len), gvlan_(p.gid_tbl_len) {
  ctrl_ = spec::kCsrCtrlReset;
  mac_lo_ = spec::kCsrPortMacLoReset;
  mac_hi_ = spec::kCsrPortMacHiReset;
  mtu_ = spec::kCsrPortMtuReset;
  ack_req_ = spec::kCsrAckReqReset;
  port_ctrl_ = spec::kCsrPortCtrlReset;
  tx_tclass_ = spec::kCsrTxTclassReset;
  tx_ttl_ = spec::kCsrTxTtlReset;
}

bool RoceCsr::read(uint32_t addr, uint32_t* value) const {
  using namespace spec;
  const CsrCounters cnt = counter_source_ ? counter_source_() : counters_in_;
  const uint32_t a = addr & 0xFFCu;
  *value = 0;
  const uint32_t gid_end = kCsrGid + 32 * p_.gid_tbl_len;
  if (a >= kCsrGid && a < gid_end) {
    const unsigned i = (a - kCsrGid) / 32, w = (a / 4) % 8;
    if (w < 4) *value = (uint32_t{gid_[i][4 * w]} << 24) | (gid_[i][4 * w + 1] << 16) | (gid_[i][4 * w + 2] << 8) | gid_[i][4 * w + 3];
    if (w == 4) *value = gtype_[i];
    if (w == 5) *value = gvlan_[i];
    return true;
  }
  if (a > kCsrRxDrop && a < kCsrRxDrop + 4 * kDropCount) {
    *value = cnt.rx_drop[(a - kCsrRxDrop) / 4];
    return true;
  }
  if (a > kCsrXportCnt && a < kCsrXportCnt + 4 * kXportCntCount) {
    *value = cnt.xport[(a - kCsrXportCnt) / 4];
    return true;
  }
  if (a >= kCsrCmdArg && a < kCsrCmdArg + 64) {
    *value = cmd_arg_[(a - kCsrCmdArg) / 4];
    return true;
  }
  if (a >= kCsrSqBf && a < kCsrSqBf + kWqeHead) {
    *value = sq_bf_[(a - kCsrSqBf) / 4];
    return true;
  }
  if (a >= kCsrCmdRes && a < kCsrCmdRes + 16) {
    *value = cmd_res_[(a - kCsrCmdRes) / 4];
    return true;
  }
  switch (a) {
    case kCsrId: *value = kCsrIdReset; return true;
    case kCsrVersion: *value = kCsrVersionReset; return true;
    case kCsrCtrl: *value = ctrl_; return true;
    case kCsrTxTclass: *value = tx_tclass_; return true;
    case kCsrTxTtl: *value = tx_ttl_; return true;
    case kCsrCapMaxQp: *value = p_.max_qp; return true;
    case kCsrCapMaxCq: *value = p_.max_cq; return true;
    case kCsrCapMaxMr: *value = p_.max_mr; return true;
    case kCsrCapMaxPd: *value = p_.max_pd; return true;
    case kCsrCapMaxQpWr: *value = p_.max_qp_wr; return true;
    case kCsrCapMaxSge: *value = p_.max_sge; return true;
    case kCsrCapMaxCqe: *value = p_.max_cqe; return true;
    case kCsrCapMaxInline: *value = p_.max_inline; return true;
    case kCsrCapGidTbl: *value = p_.gid_tbl_len; return true;
    case kCsrCapDataW: *value = p_.data_w; return true;
    case kCsrPortMacLo: *value = mac_lo_; return true;
    case kCsrPortMacHi: *value = mac_hi_; return true;
    case kCsrPortMtu: *value = mtu_; return true;
    case kCsrAckReq: *value = ack_req_; return true;
    case kCsrPortCtrl: *value = port_ctrl_; return true;
    case kCsrPortState: *value = (port_ctrl_ & 1u) ? 4 : 1; return true;
    case kCsrRxFrames: *value = cnt.rx_frames; return true;
    case kCsrRxRoce: *value = cnt.rx_roce; return true;
    case kCsrRxBypass: *value = cnt.rx_bypass; return true;
    case kCsrTxFrames: *value = cnt.tx_frames; return true;
    case kCsrCmdOp: *value = cmd_op_; return true;
    case kCsrCmdStatus: *value = (cmd_busy_ ? 0x80000000u : 0u) | cmd_status_; return true;
    case kCsrSqDb: case kCsrRqDb: case kCsrCqDb: case kCsrSqBfDb: *value = 0; return true;
    case kCsrCqDbCi: *value = cq_ci_; return true;
    default: return false;
  }
}

bool RoceCsr::write(uint32_t addr, uint32_t data, uint8_t strb) {
  using namespace spec;
  const uint32_t a = addr & 0xFFCu;
  const uint32_t gid_end = kCsrGid + 32 * p_.gid_tbl_len;
  if (a >= kCsrGid && a < gid_end) {
    const unsigned i = (a - kCsrGid) / 32, w = (a / 4) % 8;
    if (w < 4) {
      uint32_t old = 0;
      read(a, &old);
      const uint32_t v = merge(old, data, strb);
      for (int b = 0; b < 4; ++b) gid_[i][4 * w + b] = static_cast<uint8_t>(v >> (24 - 8 * b));
      return true;
    }
    if (w == 4) {
      const uint32_t v = merge(gtype_[i], data, strb);
      if (v > 2) return false;
      gtype_[i] = static_cast<uint8_t>(v);
      return true;
    }
    if (w == 5) {
      const uint32_t v = merge(gvlan_[i], data, strb);
      if ((v >> 13) || (v & 0xFFFu) == 0xFFFu) return false;  // bits above the tag, or VID 4095
      gvlan_[i] = static_cast<uint16_t>(v);
      return true;
    }
    return false;  // reserved words
  }
  switch (a) {  // only defined bits are kept, as in the RTL
    case kCsrCtrl: ctrl_ = merge(ctrl_, data, strb) & 1u; return true;
    case kCsrTxTclass: tx_tclass_ = merge(tx_tclass_, data, strb) & 0x1FFu; return true;
    case kCsrTxTtl: tx_ttl_ = merge(tx_ttl_, data, strb) & 0x1FFu; return true;
    case kCsrPortMacLo: mac_lo_ = merge(mac_lo_, data, strb); return true;
    case kCsrPortMacHi: mac_hi_ = merge(mac_hi_, data, strb) & 0xFFFFu; return true;
    case kCsrPortCtrl: port_ctrl_ = merge(port_ctrl_, data, strb) & 1u; return true;
    case kCsrAckReq: {
      const uint32_t v = merge(ack_req_, data, strb);
      if (v > 15) return false;
      ack_req_ = v;
      return true;
    }
    case kCsrPortMtu: {
      const uint32_t v = merge(mtu_, data, strb);
      if (v < 1 || v > 5) return false;
      mtu_ = v & 7u;
      return true;
    }
    case kCsrCmdOp: {
      if (cmd_busy_) return false;
      cmd_op_ = static_cast<uint8_t>(merge(cmd_op_, data, strb));
      cmd_busy_ = true;
      spec::CmdReq c;
      c.op = cmd_op_;
      c.args = cmd_arg_;
      cmd->push(c, s_.now() + 1);
      return true;
    }
    case kCsrSqDb:
    case kCsrSqBfDb: {
      const uint32_t v = merge(0, data, strb);
      SqDoorbell d;
      d.db.qpn = static_cast<uint16_t>(v);
      d.db.pi = static_cast<uint16_t>(v >> 16);
      d.bf = a == kCsrSqBfDb;
      if (d.bf)  // (SQ_BF word i holds WQE bytes 4i..4i+3, little-endian)
        for (unsigned i = 0; i < kWqeHead; ++i) d.wqe[i] = static_cast<uint8_t>(sq_bf_[i / 4] >> (8 * (i % 4)));
      sq_bf_pending_ = d.bf;
      sq_db->push(d, s_.now());
      return true;
    }
    case kCsrRqDb: {
      const uint32_t v = merge(0, data, strb);
      spec::WqDb db;
      db.qpn = static_cast<uint16_t>(v);
      db.pi = static_cast<uint16_t>(v >> 16);
      rq_db->push(db, s_.now() + 1);
      return true;
    }
    case kCsrCqDbCi: cq_ci_ = merge(cq_ci_, data, strb) & 0xFFFFFFu; return true;
    case kCsrCqDb: {
      const uint32_t v = merge(0, data, strb);
      spec::CqDb db;
      db.cq = static_cast<uint16_t>(v);
      db.ci = cq_ci_ & 0xFFFFFFu;
      db.arm = static_cast<uint8_t>((v >> 16) & 3u);
      cq_db->push(db, s_.now() + 1);
      return true;
    }
    default:
      if (a >= kCsrCmdArg && a < kCsrCmdArg + 64) {
        if (cmd_busy_) return false;
        uint32_t& w = cmd_arg_[(a - kCsrCmdArg) / 4];
        w = merge(w, data, strb);
        return true;
      }
      if (a >= kCsrSqBf && a < kCsrSqBf + kWqeHead) {
        uint32_t& w = sq_bf_[(a - kCsrSqBf) / 4];
        w = merge(w, data, strb);
        return true;
      }
      return false;
  }
}

bool RoceCsr::write_waits(uint32_t addr) {
  const uint32_t a = addr & 0xFFCu;
  // One send doorbell of either kind pending; SQ_BF words while the WQE they
  // hold waits to go with its SQ_BF_DB. The RTL's doorbell register clears
  // the cycle after the requester took it, and this block judges a write a
  // cycle after the RTL does: a doorbell taken in this cycle or the one
  // before still holds it. (The requester takes none in its write-back
  // cycle: then the host's next doorbell write waits a cycle.)
  const bool sq_db_held = !sq_db->can_push() || (sq_db->popped() != 0 && sq_db->last_pop() + 1 >= s_.now());
  if (a == spec::kCsrSqDb || a == spec::kCsrSqBfDb) return sq_db_held;
  if (a >= spec::kCsrSqBf && a < spec::kCsrSqBf + spec::kWqeHead) return sq_bf_pending_ && sq_db_held;
  if (a == spec::kCsrRqDb) return !rq_db->can_push();
  if (a == spec::kCsrCqDb) return !cq_db->can_push();
  if (a == spec::kCsrCmdOp) return !cmd->can_push();  // (busy refuses it anyway; the request register is free by then)
  return false;
}

void RoceCsr::run() {
  const Cycle now = s_.now();
  if (s_.defer(this, next_)) return;
  // A read in the same cycle as a write or a command answer sees the old
  // values, and a write is judged on the old busy flag, as the RTL's
  // registers are; the answer then clears busy unless that write started a
  // new command (in the RTL the later assignment wins).
  // A write handed over before a command answer is judged before it, even
  // when it waited here (the RTL takes a write only as it judges it).
  const Cycle write_at = aw.ready() ? aw.next_at() : w.ready() ? w.next_at() : kNever;
  auto answer = [&](bool keep_busy) {
    const spec::CmdResp resp = cmd_resp.pop();
    if (!keep_busy) cmd_busy_ = false;
    cmd_status_ = resp.status;
    cmd_res_ = {resp.res[0], resp.res[1], resp.res[2], resp.res[3]};
  };
  while (cmd_resp.ready() && cmd_resp.next_at() < write_at && cmd_resp.next_at() < now) answer(false);
  bool moved = false;
  // A read handed over after a write that still waits here (its response
  // channel full, a doorbell pending) waits behind it. This block takes
  // AW/W into its queues at once, where the RTL takes a write only as it
  // judges it; a master that issues one access at a time (the driver, the
  // cross-checks) presents the read only once the write was taken, so on
  // the RTL the read always sees the write.
  const bool write_before_read = aw.ready() && ar.ready() && aw.next_at() < ar.next_at();
  if (ar.ready() && r->can_push() && !write_before_read) {
    uint32_t v = 0;
    const bool ok = read(ar.pop(), &v);
    r->push(AxilR{ok ? v : 0, ok ? kOkay : kSlverr}, now + 1);
    moved = true;
  }
  bool started = false;
  if (aw.ready() && w.ready() && b->can_push() && !write_waits(aw.front())) {
    const uint32_t addr = aw.pop();
    const AxilW d = w.pop();
    const bool was_busy = cmd_busy_;
    const bool ok = write(addr, d.data, d.strb);
    b->push(ok ? kOkay : kSlverr, now + 1);
    if (ok && on_write) on_write();
    started = ok && !was_busy && cmd_busy_;
    moved = true;
  }
  // An answer handed over after the write that started a command comes
  // after the RTL judged that write, so it clears busy.
  while (cmd_resp.ready() && (aw.empty() || cmd_resp.next_at() < aw.next_at()))
    answer(started && cmd_resp.next_at() <= write_at);
  if (moved) {
    next_ = now + 1;
    if (!ar.empty() || !aw.empty()) s_.wake_at(this, next_);
  } else if (aw.ready() && sq_db->popped() != 0 && sq_db->last_pop() + 1 >= now) {
    s_.wake_at(this, sq_db->last_pop() + 2);  // (the pop's wake came before the register cleared)
  }
}

std::unique_ptr<rocenic::Block> make_roce_csr_block(const CsrCounters& counters, const CsrParams& p) {
  return std::make_unique<FlitAdapter>(64, [=](FlitAdapter& a) {
    RoceCsr* c = a.make<RoceCsr>(p);
    c->set_counters(counters);
    const auto addr = [](const Flit& f) { return static_cast<uint32_t>(flit_le(f, 0, 2)); };
    a.in<uint32_t>("s_axil_aw", c->aw, 2, addr);
    a.in<AxilW>("s_axil_w", c->w, 5,
                [](const Flit& f) { return AxilW{static_cast<uint32_t>(flit_le(f, 0, 4)), static_cast<uint8_t>(flit_le(f, 4, 1))}; });
    a.in<uint32_t>("s_axil_ar", c->ar, 2, addr);
    a.in<spec::CmdResp>("s_cmd_resp", c->cmd_resp);
    a.out<uint8_t>("s_axil_b", c->b, 1, 1, [](const uint8_t& v) { return Flit{le_bytes(v, 1)}; });
    a.out<AxilR>("s_axil_r", c->r, 1, 5, [](const AxilR& v) { return Flit{le_bytes(v.data, 4, v.resp)}; });
    a.out<spec::CmdReq>("m_cmd", c->cmd);
    a.out<SqDoorbell>("m_sq_db", c->sq_db, 1, SqDoorbell::kFlitBytes, sq_doorbell_to_flit);
    a.out<spec::WqDb>("m_rq_db", c->rq_db);
    a.out<spec::CqDb>("m_cq_db", c->cq_db);
    a.busy_from([c] { return c->command_busy(); });
  });
}

const std::vector<PortInfo>& roce_csr_inputs() {
  static const auto b = make_roce_csr_block();
  return b->inputs();
}

const std::vector<PortInfo>& roce_csr_outputs() {
  static const auto b = make_roce_csr_block();
  return b->outputs();
}

}  // namespace rocenic::model
