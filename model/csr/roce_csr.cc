#include "csr/roce_csr.h"

#include "common/desc_flit.h"
#include "common/le_bytes.h"

namespace rocenic::model {
namespace {

constexpr uint8_t kOkay = 0, kSlverr = 2;

uint32_t merge(uint32_t old, uint32_t d, uint8_t strb) {
  uint32_t v = old;
  for (int b = 0; b < 4; ++b)
    if (strb & (1u << b)) v = (v & ~(0xFFu << (8 * b))) | (d & (0xFFu << (8 * b)));
  return v;
}

uint32_t le(const Flit& f, unsigned off, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n && off + i < f.data.size(); ++i) v |= uint32_t{f.data[off + i]} << (8 * i);
  return v;
}

}  // namespace

RoceCsr::RoceCsr(const CsrParams& p) : p_(p), gid_(p.gid_tbl_len), gtype_(p.gid_tbl_len) {
  in_info_ = {{"s_axil_aw", false, true, 2},
              {"s_axil_w", false, true, 5},
              {"s_axil_ar", false, true, 2},
              {"s_cmd_resp", false, true, (spec::CmdResp::kBits + 7) / 8}};
  out_info_ = {{"s_axil_b", false, true, 1},
               {"s_axil_r", false, true, 5},
               {"m_cmd", false, true, (spec::CmdReq::kBits + 7) / 8},
               {"m_sq_db", false, true, (spec::WqDb::kBits + 7) / 8},
               {"m_rq_db", false, true, (spec::WqDb::kBits + 7) / 8},
               {"m_cq_db", false, true, (spec::CqDb::kBits + 7) / 8}};
  reset();
}

void RoceCsr::reset() {
  ctrl_ = spec::kCsrCtrlReset;
  mac_lo_ = spec::kCsrPortMacLoReset;
  mac_hi_ = spec::kCsrPortMacHiReset;
  mtu_ = spec::kCsrPortMtuReset;
  port_ctrl_ = spec::kCsrPortCtrlReset;
  for (auto& g : gid_) g = {};
  for (auto& t : gtype_) t = 0;
  bvalid_ = rvalid_ = false;
  bresp_ = rresp_ = 0;
  cmd_arg_ = {};
  cmd_res_ = {};
  cmd_op_ = cmd_status_ = 0;
  cmd_busy_ = cmd_valid_ = false;
  cq_ci_ = 0;
  sq_db_ = rq_db_ = {};
  cq_db_ = {};
  for (bool& v : db_valid_) v = false;
  resp_valid_ = false;
  rdata_ = 0;
  cycle_ = 0;
}

bool RoceCsr::read(uint32_t addr, uint32_t* value) const {
  using namespace spec;
  const uint32_t a = addr & 0xFFCu;
  *value = 0;
  const uint32_t gid_end = kCsrGid + 32 * p_.gid_tbl_len;
  if (a >= kCsrGid && a < gid_end) {
    const unsigned i = (a - kCsrGid) / 32, w = (a / 4) % 8;
    if (w < 4) *value = (uint32_t{gid_[i][4 * w]} << 24) | (gid_[i][4 * w + 1] << 16) | (gid_[i][4 * w + 2] << 8) | gid_[i][4 * w + 3];
    if (w == 4) *value = gtype_[i];
    return true;
  }
  if (a > kCsrRxDrop && a < kCsrRxDrop + 4 * kDropCount) {
    *value = counters_in_.rx_drop[(a - kCsrRxDrop) / 4];
    return true;
  }
  if (a > kCsrXportCnt && a < kCsrXportCnt + 4 * kXportCntCount) {
    *value = counters_in_.xport[(a - kCsrXportCnt) / 4];
    return true;
  }
  if (a >= kCsrCmdArg && a < kCsrCmdArg + 64) {
    *value = cmd_arg_[(a - kCsrCmdArg) / 4];
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
    case kCsrPortCtrl: *value = port_ctrl_; return true;
    case kCsrPortState: *value = (port_ctrl_ & 1u) ? 4 : 1; return true;
    case kCsrRxFrames: *value = counters_in_.rx_frames; return true;
    case kCsrRxRoce: *value = counters_in_.rx_roce; return true;
    case kCsrRxBypass: *value = counters_in_.rx_bypass; return true;
    case kCsrTxFrames: *value = counters_in_.tx_frames; return true;
    case kCsrCmdOp: *value = cmd_op_; return true;
    case kCsrCmdStatus: *value = (cmd_busy_ ? 0x80000000u : 0u) | cmd_status_; return true;
    case kCsrSqDb: case kCsrRqDb: case kCsrCqDb: *value = 0; return true;
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
    return false;  // reserved words
  }
  switch (a) {  // only defined bits are kept, as in the RTL
    case kCsrCtrl: ctrl_ = merge(ctrl_, data, strb) & 1u; return true;
    case kCsrPortMacLo: mac_lo_ = merge(mac_lo_, data, strb); return true;
    case kCsrPortMacHi: mac_hi_ = merge(mac_hi_, data, strb) & 0xFFFFu; return true;
    case kCsrPortCtrl: port_ctrl_ = merge(port_ctrl_, data, strb) & 1u; return true;
    case kCsrPortMtu: {
      const uint32_t v = merge(mtu_, data, strb);
      if (v < 1 || v > 5) return false;
      mtu_ = v & 7u;
      return true;
    }
    case kCsrCmdOp:
      if (cmd_busy_) return false;
      cmd_op_ = static_cast<uint8_t>(merge(cmd_op_, data, strb));
      cmd_busy_ = cmd_valid_ = true;
      return true;
    case kCsrSqDb:
    case kCsrRqDb: {
      const uint32_t v = merge(0, data, strb);
      spec::WqDb& db = a == kCsrSqDb ? sq_db_ : rq_db_;
      db.qpn = static_cast<uint16_t>(v);
      db.pi = static_cast<uint16_t>(v >> 16);
      db_valid_[a == kCsrSqDb ? 0 : 1] = true;
      return true;
    }
    case kCsrCqDbCi: cq_ci_ = merge(cq_ci_, data, strb) & 0xFFFFFFu; return true;
    case kCsrCqDb: {
      const uint32_t v = merge(0, data, strb);
      cq_db_.cq = static_cast<uint16_t>(v);
      cq_db_.ci = cq_ci_ & 0xFFFFFFu;
      cq_db_.arm = static_cast<uint8_t>((v >> 16) & 3u);
      db_valid_[2] = true;
      return true;
    }
    default:
      if (a >= kCsrCmdArg && a < kCsrCmdArg + 64) {
        if (cmd_busy_) return false;
        uint32_t& w = cmd_arg_[(a - kCsrCmdArg) / 4];
        w = merge(w, data, strb);
        return true;
      }
      return false;
  }
}

bool RoceCsr::write_waits(uint32_t addr) const {
  const uint32_t a = addr & 0xFFCu;
  return (a == spec::kCsrSqDb && db_valid_[0]) || (a == spec::kCsrRqDb && db_valid_[1]) ||
         (a == spec::kCsrCqDb && db_valid_[2]);
}

bool RoceCsr::output_valid(unsigned port) {
  switch (port) {
    case 0: return bvalid_;
    case 1: return rvalid_;
    case 2: return cmd_valid_;
    default: return db_valid_[port - 3];
  }
}

void RoceCsr::set_input(unsigned port, bool valid, const Flit& f) {
  switch (port) {
    case 0: aw_valid_ = valid; aw_addr_ = le(f, 0, 2); break;
    case 1: w_valid_ = valid; w_data_ = le(f, 0, 4); w_strb_ = static_cast<uint8_t>(le(f, 4, 1)); break;
    case 2: ar_valid_ = valid; ar_addr_ = le(f, 0, 2); break;
    default:
      resp_valid_ = valid;
      if (valid) resp_ = desc_from_flit<spec::CmdResp>(f);
      break;
  }
}

void RoceCsr::set_output_ready(unsigned port, bool ready) {
  if (port == 0) b_ready_ = ready;
  else if (port == 1) r_ready_ = ready;
  else out_ready_[port] = ready;
}

bool RoceCsr::input_ready(unsigned port) {
  if (port == 3) return true;
  if (port == 2) return !rvalid_;
  return !bvalid_ && aw_valid_ && w_valid_ && !write_waits(aw_addr_);
}

Flit RoceCsr::output(unsigned port) {
  Flit f;
  switch (port) {
    case 0: f.data = le_bytes(bresp_, 1); break;
    case 1: f.data = le_bytes(rdata_, 4, rresp_); break;
    case 2: {
      spec::CmdReq c;
      c.op = cmd_op_;
      c.args = cmd_arg_;
      return desc_to_flit(c);
    }
    case 3: return desc_to_flit(sq_db_);
    case 4: return desc_to_flit(rq_db_);
    default: return desc_to_flit(cq_db_);
  }
  return f;
}

void RoceCsr::clock() {
  const bool take_w = input_ready(0);
  const bool take_r = ar_valid_ && input_ready(2);
  if (bvalid_ && b_ready_) bvalid_ = false;
  if (rvalid_ && r_ready_) rvalid_ = false;
  if (cmd_valid_ && out_ready_[2]) cmd_valid_ = false;
  for (unsigned i = 0; i < 3; ++i)
    if (db_valid_[i] && out_ready_[3 + i]) db_valid_[i] = false;
  // A read in the same cycle as a write or a command answer sees the old
  // values, and a write is judged on the old busy flag, as the RTL's
  // registers are; the answer then clears busy unless that write started a
  // new command (in the RTL the later assignment wins).
  if (take_r) {
    uint32_t v = 0;
    const bool ok = read(ar_addr_, &v);
    rvalid_ = true;
    rdata_ = ok ? v : 0;
    rresp_ = ok ? kOkay : kSlverr;
  }
  bool started = false;
  if (take_w) {
    bvalid_ = true;
    const bool ok = write(aw_addr_, w_data_, w_strb_);
    bresp_ = ok ? kOkay : kSlverr;
    started = ok && (aw_addr_ & 0xFFCu) == spec::kCsrCmdOp;
  }
  if (resp_valid_) {
    if (!started) cmd_busy_ = false;
    cmd_status_ = resp_.status;
    cmd_res_ = {resp_.res[0], resp_.res[1], resp_.res[2], resp_.res[3]};
  }
  ++cycle_;
}

}  // namespace rocenic::model
