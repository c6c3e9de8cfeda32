#include "csr/roce_csr.h"

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
  in_info_ = {{"s_axil_aw", false, true, 2}, {"s_axil_w", false, true, 5}, {"s_axil_ar", false, true, 2}};
  out_info_ = {{"s_axil_b", false, true, 1}, {"s_axil_r", false, true, 5}};
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
    default: return false;
  }
}

void RoceCsr::set_input(unsigned port, bool valid, const Flit& f) {
  switch (port) {
    case 0: aw_valid_ = valid; aw_addr_ = le(f, 0, 2); break;
    case 1: w_valid_ = valid; w_data_ = le(f, 0, 4); w_strb_ = static_cast<uint8_t>(le(f, 4, 1)); break;
    default: ar_valid_ = valid; ar_addr_ = le(f, 0, 2); break;
  }
}

void RoceCsr::set_output_ready(unsigned port, bool ready) { (port == 0 ? b_ready_ : r_ready_) = ready; }

bool RoceCsr::input_ready(unsigned port) {
  if (port == 2) return !rvalid_;
  return !bvalid_ && aw_valid_ && w_valid_;
}

Flit RoceCsr::output(unsigned port) {
  Flit f;
  if (port == 0) {
    f.data = le_bytes(bresp_, 1);
  } else {
    f.data = le_bytes(rdata_, 4, rresp_);
  }
  return f;
}

void RoceCsr::clock() {
  const bool take_w = input_ready(0);
  const bool take_r = ar_valid_ && input_ready(2);
  if (bvalid_ && b_ready_) bvalid_ = false;
  if (rvalid_ && r_ready_) rvalid_ = false;
  // A read in the same cycle as a write sees the old value, as the RTL's registers do.
  if (take_r) {
    uint32_t v = 0;
    const bool ok = read(ar_addr_, &v);
    rvalid_ = true;
    rdata_ = ok ? v : 0;
    rresp_ = ok ? kOkay : kSlverr;
  }
  if (take_w) {
    bvalid_ = true;
    bresp_ = write(aw_addr_, w_data_, w_strb_) ? kOkay : kSlverr;
  }
  ++cycle_;
}

}  // namespace rocenic::model
