#include "net/roce_parser.h"

#include "common/desc_flit.h"
#include "net/icrc.h"

namespace rocenic::model {

using spec::Drop;

namespace {

// Cycles from the frame's last input beat (cycle t) to where the RTL shows
// its effects: stat at t+3, descriptor at t+4, bypass beats from t+7, payload
// beats from t+8. The verdict is applied in clock() of cycle t+2.
constexpr uint64_t kVerdictLat = 2;
constexpr uint64_t kHdrLat = 2;      // after the verdict
constexpr uint64_t kSkipLat = 2;
constexpr uint64_t kBypassLat = 5;
constexpr uint64_t kPayLat = 6;

uint64_t keep_bits(size_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

}  // namespace

RoceParser::Verdict RoceParser::classify(const std::vector<uint8_t>& f, bool mac_err, bool too_long,
                                         bool roce_enable) {
  Verdict v;
  const size_t n = f.size();
  auto b = [&](size_t o) -> uint32_t { return f[o]; };
  auto be = [&](size_t o, unsigned len) {
    uint64_t x = 0;
    for (unsigned i = 0; i < len; ++i) x = (x << 8) | f[o + i];
    return x;
  };

  // ---- classification: what cannot be read makes a frame non-RoCE
  bool v4 = false, v6 = false, v1 = false, vlan = false;
  size_t l3 = spec::kEthSize;
  if (n >= spec::kEthSize) {
    const uint32_t et0 = static_cast<uint32_t>(be(spec::kEthEthertypeOff, 2));
    vlan = et0 == spec::kEthertypeVlan;
    if (vlan) l3 += spec::kVlanSize;
    if (n >= l3) {
      const uint32_t et = vlan ? static_cast<uint32_t>(be(spec::kEthEthertypeOff + spec::kVlanSize, 2)) : et0;
      if (et == spec::kEthertypeIpv4 && n >= l3 + spec::kIpv4Size + spec::kUdpDportOff + 2)
        v4 = b(l3) == 0x45 && b(l3 + spec::kIpv4ProtoOff) == spec::kIpProtoUdp &&
             (be(l3 + spec::kIpv4FlagsFragOff, 2) & 0x3FFF) == 0 &&
             be(l3 + spec::kIpv4Size + spec::kUdpDportOff, 2) == spec::kUdpPortRocev2;
      if (et == spec::kEthertypeIpv6 && n >= l3 + spec::kIpv6Size + spec::kUdpDportOff + 2)
        v6 = (b(l3) >> 4) == 6 && b(l3 + spec::kIpv6NextHdrOff) == spec::kIpProtoUdp &&
             be(l3 + spec::kIpv6Size + spec::kUdpDportOff, 2) == spec::kUdpPortRocev2;
      v1 = et == spec::kEthertypeRocev1;
    }
  }
  if (!roce_enable || !(v4 || v6 || v1)) {
    v.bypass = !too_long;
    v.drop = too_long ? Drop::kTooLong : Drop::kNone;
    return v;
  }

  const spec::L3 kind = v4 ? spec::L3::kIpv4 : v6 ? spec::L3::kIpv6 : spec::L3::kRocev1;
  const int64_t ip_hdr = v4 ? spec::kIpv4Size : spec::kIpv6Size;
  const int64_t bth_rel = v1 ? spec::kIpv6Size : ip_hdr + spec::kUdpSize;
  const size_t bth = l3 + static_cast<size_t>(bth_rel);
  const int64_t rl = v4 ? static_cast<int64_t>(be(l3 + spec::kIpv4TotalLenOff, 2))
                        : static_cast<int64_t>(be(l3 + spec::kIpv6PayloadLenOff, 2)) + spec::kIpv6Size;
  const int64_t tl = rl - bth_rel;
  const int64_t nn = static_cast<int64_t>(n);
  const int64_t hdr_and_icrc = spec::kBthSize + spec::kIcrcSize;

  auto drop = [&](Drop d) {
    v.drop = d;
    return v;
  };

  // ---- checks, in priority order
  if (mac_err) return drop(Drop::kMacErr);
  if (nn < static_cast<int64_t>(l3) + rl || nn < static_cast<int64_t>(bth + spec::kBthSize))
    return drop(Drop::kTruncated);
  if (v4) {
    uint32_t s = 0;
    for (unsigned i = 0; i < spec::kIpv4Size; i += 2) s += static_cast<uint32_t>(be(l3 + i, 2));
    s = (s & 0xFFFF) + (s >> 16);
    s = (s & 0xFFFF) + (s >> 16);
    if (s != 0xFFFF) return drop(Drop::kIpCsum);
  }
  if (v1 && ((b(l3) >> 4) != 6 || b(l3 + spec::kIpv6NextHdrOff) != spec::kGrhNxthdrIba))
    return drop(Drop::kIpHdr);
  if ((!v1 && static_cast<int64_t>(be(l3 + ip_hdr + spec::kUdpLenOff, 2)) != rl - ip_hdr) ||
      tl < hdr_and_icrc || tl % 4 != 0)
    return drop(Drop::kLen);
  const uint32_t flags = b(bth + spec::kBthFlagsOff);
  if ((flags & 0xF) != spec::kBthTver) return drop(Drop::kTver);
  const spec::OpInfo& op = spec::kOpcodes[b(bth + spec::kBthOpcodeOff)];
  if (!op.valid) return drop(Drop::kOpcode);
  if (tl < hdr_and_icrc + op.ext_bytes) return drop(Drop::kLen);
  const int64_t pwp = tl - hdr_and_icrc - op.ext_bytes;
  if (!op.payload && pwp != 0) return drop(Drop::kLen);
  const int64_t pad = (flags >> 4) & 3;
  if ((pad != 0 && (op.seg == spec::Seg::kFirst || op.seg == spec::Seg::kMiddle)) || pad > pwp)
    return drop(Drop::kPad);
  if (pwp - pad > static_cast<int64_t>(spec::kMaxPayload) || too_long) return drop(Drop::kTooLong);
  const size_t icrc_at = l3 + static_cast<size_t>(rl) - spec::kIcrcSize;
  const uint32_t rx_icrc = static_cast<uint32_t>(f[icrc_at] | f[icrc_at + 1] << 8 | f[icrc_at + 2] << 16 |
                                                 static_cast<uint32_t>(f[icrc_at + 3]) << 24);
  if (rx_icrc != roce_icrc(&f[l3], static_cast<size_t>(rl), kind)) return drop(Drop::kIcrc);

  // ---- accepted: the descriptor
  spec::RoceRxHdr& h = v.hdr;
  h.l3 = static_cast<uint8_t>(kind);
  if (vlan) {
    const uint32_t tci = static_cast<uint32_t>(be(spec::kEthEthertypeOff + spec::kVlanTciOff, 2));
    h.vlan_valid = 1;
    h.vlan_pcp = static_cast<uint8_t>(tci >> 13);
    h.vlan_vid = static_cast<uint16_t>(tci & 0xFFF);
  }
  h.dst_mac = be(spec::kEthDstMacOff, 6);
  h.src_mac = be(spec::kEthSrcMacOff, 6);
  if (v4) {
    h.src_ip = ipv4_mapped(static_cast<uint32_t>(be(l3 + spec::kIpv4SrcOff, 4)));
    h.dst_ip = ipv4_mapped(static_cast<uint32_t>(be(l3 + spec::kIpv4DstOff, 4)));
    h.tclass = static_cast<uint8_t>(b(l3 + spec::kIpv4TosOff));
    h.ttl = static_cast<uint8_t>(b(l3 + spec::kIpv4TtlOff));
    h.ip_id = static_cast<uint16_t>(be(l3 + spec::kIpv4IdOff, 2));
  } else {
    const uint32_t w = static_cast<uint32_t>(be(l3 + spec::kIpv6VerTcFlOff, 4));
    h.tclass = static_cast<uint8_t>(w >> 20);
    h.flow_label = w & 0xFFFFF;
    h.ttl = static_cast<uint8_t>(b(l3 + spec::kIpv6HopLimitOff));
    for (unsigned i = 0; i < 16; ++i) {
      h.src_ip[i] = f[l3 + spec::kIpv6SrcOff + i];
      h.dst_ip[i] = f[l3 + spec::kIpv6DstOff + i];
    }
  }
  if (!v1) h.udp_sport = static_cast<uint16_t>(be(l3 + ip_hdr + spec::kUdpSportOff, 2));
  h.opcode = static_cast<uint8_t>(b(bth + spec::kBthOpcodeOff));
  h.se = (flags >> 7) & 1;
  h.mig = (flags >> 6) & 1;
  h.pad = static_cast<uint8_t>(pad);
  h.tver = flags & 0xF;
  h.pkey = static_cast<uint16_t>(be(bth + spec::kBthPkeyOff, 2));
  h.fecn = (b(bth + spec::kBthFbRsvdOff) >> 7) & 1;
  h.becn = (b(bth + spec::kBthFbRsvdOff) >> 6) & 1;
  h.dst_qpn = static_cast<uint32_t>(be(bth + spec::kBthDestQpOff, 3));
  h.ack_req = (b(bth + spec::kBthAckPsnOff) >> 7) & 1;
  h.psn = static_cast<uint32_t>(be(bth + spec::kBthAckPsnOff + 1, 3));

  // Extended headers follow the BTH in the fixed order of the Ext bits.
  size_t x = bth + spec::kBthSize;
  for (unsigned k = 0; k < spec::kExtSize.size(); ++k) {
    if (!(op.ext & (1u << k))) continue;
    switch (1u << k) {
      case spec::kExtDeth:
        h.qkey = static_cast<uint32_t>(be(x + spec::kDethQkeyOff, 4));
        h.deth_src_qpn = static_cast<uint32_t>(be(x + spec::kDethSrcQpOff, 3));
        break;
      case spec::kExtReth:
        h.reth_va = be(x + spec::kRethVaOff, 8);
        h.reth_rkey = static_cast<uint32_t>(be(x + spec::kRethRkeyOff, 4));
        h.reth_len = static_cast<uint32_t>(be(x + spec::kRethDmaLenOff, 4));
        break;
      case spec::kExtAtomiceth:
        h.reth_va = be(x + spec::kAtomicethVaOff, 8);
        h.reth_rkey = static_cast<uint32_t>(be(x + spec::kAtomicethRkeyOff, 4));
        h.swap_add = be(x + spec::kAtomicethSwapAddOff, 8);
        h.compare = be(x + spec::kAtomicethCompareOff, 8);
        break;
      case spec::kExtAeth:
        h.aeth_syndrome = static_cast<uint8_t>(b(x + spec::kAethSyndromeOff));
        h.aeth_msn = static_cast<uint32_t>(be(x + spec::kAethMsnOff, 3));
        break;
      case spec::kExtAtomicacketh:
        h.atomic_orig = be(x + spec::kAtomicackethOrigOff, 8);
        break;
      case spec::kExtImmdt:
        h.imm = static_cast<uint32_t>(be(x + spec::kImmdtImmOff, 4));
        break;
      case spec::kExtIeth:
        h.imm = static_cast<uint32_t>(be(x + spec::kIethRkeyOff, 4));
        break;
      default:  // CNP reserved bytes carry nothing
        break;
    }
    x += spec::kExtSize[k];
  }
  h.pay_len = static_cast<uint16_t>(pwp - pad);
  v.pay_start = static_cast<unsigned>(x);
  return v;
}

RoceParser::RoceParser(unsigned data_bytes, unsigned fifo_beats) : db_(data_bytes), fifo_beats_(fifo_beats) {
  inputs_ = {{"s_axis_rx", true, true, db_}};
  outputs_ = {{"m_hdr", false, true, kHdrBytes},
              {"m_axis_pay", true, true, db_},
              {"m_axis_byp", true, true, db_},
              {"stat", false, false, 1}};
  reset();
}

void RoceParser::reset() {
  cycle_ = 0;
  in_valid_ = false;
  cur_.clear();
  cur_beats_ = 0;
  cur_ovf_ = cur_en_ = false;
  used_ = resv_ = 0;
  pending_.clear();
  jobs_.clear();
  hdrs_.clear();
  stat_.reset();
  cnt_frames_ = cnt_roce_ = cnt_bypass_ = 0;
  for (auto& c : cnt_drop_) c = 0;
}

void RoceParser::set_input(unsigned port, bool valid, const Flit& flit) {
  if (port != kIn) return;
  in_valid_ = valid;
  in_flit_ = flit;
}

void RoceParser::set_output_ready(unsigned port, bool ready) {
  if (port < 4) ready_[port] = ready;
}

void RoceParser::eval() {}

bool RoceParser::in_ready() const {
  const bool first = cur_beats_ == 0;
  const bool ovf_beat = cur_beats_ >= fifo_beats_;  // never stored: needs no space
  return (!first || resv_ < kHdrDepth) && (ovf_beat || used_ < fifo_beats_);
}

bool RoceParser::input_ready(unsigned port) { return port == kIn && in_ready(); }

bool RoceParser::output_valid(unsigned port) {
  switch (port) {
    case kHdr:
      return !hdrs_.empty() && cycle_ >= hdrs_.front().ready_cycle;
    case kPay:
    case kByp: {
      if (jobs_.empty()) return false;
      const Job& j = jobs_.front();
      return j.port == port && !j.beats.empty() && cycle_ >= j.ready_cycle;
    }
    case kStat:
      return stat_.has_value();
    default:
      return false;
  }
}

Flit RoceParser::output(unsigned port) {
  switch (port) {
    case kHdr:
      return hdrs_.empty() ? Flit{} : hdrs_.front().flit;
    case kPay:
    case kByp:
      if (!jobs_.empty() && jobs_.front().port == port && jobs_.front().next < jobs_.front().beats.size())
        return jobs_.front().beats[jobs_.front().next];
      return Flit{};
    case kStat: {
      Flit f;
      f.data = {stat_.value_or(0)};
      f.keep = 1;
      return f;
    }
    default:
      return Flit{};
  }
}

Flit RoceParser::beat_of(const std::vector<uint8_t>& bytes, size_t off, size_t n, bool last, bool user) const {
  Flit f;
  f.data.assign(db_, 0);
  for (size_t i = 0; i < n && off + i < bytes.size(); ++i) f.data[i] = bytes[off + i];
  f.keep = keep_bits(n);
  f.last = last;
  f.user = user;
  return f;
}

void RoceParser::finish_frame() {
  Pending p;
  p.beats = cur_beats_;
  const uint64_t keep = in_flit_.keep;
  unsigned last_n = 0;
  for (unsigned i = 0; i < db_; ++i) last_n += (keep >> i) & 1;
  cur_.resize(static_cast<size_t>(cur_beats_ - 1) * db_ + last_n);
  p.bytes = std::move(cur_);
  p.user = in_flit_.user;
  p.ovf = cur_ovf_;
  p.en = cur_en_;
  p.verdict_cycle = cycle_ + kVerdictLat;
  pending_.push_back(std::move(p));
  cur_.clear();
  cur_beats_ = 0;
  cur_ovf_ = false;
}

void RoceParser::apply_verdict(Pending& p) {
  const Verdict v = classify(p.bytes, p.user, p.ovf, p.en);
  const bool accepted = !v.bypass && v.drop == Drop::kNone;
  ++cnt_frames_;
  if (accepted) ++cnt_roce_;
  if (v.bypass) ++cnt_bypass_;
  if (v.drop != Drop::kNone) ++cnt_drop_[static_cast<unsigned>(v.drop)];
  stat_ = static_cast<uint8_t>(static_cast<unsigned>(v.drop) | (v.bypass ? 0x10u : 0u));

  if (accepted) {
    HdrEntry e;
    e.flit = desc_to_flit(v.hdr);
    e.ready_cycle = cycle_ + kHdrLat;
    hdrs_.push_back(std::move(e));
  } else {
    --resv_;
  }

  if (p.ovf) return;  // withdrawn from the FIFO while it arrived: nothing to release
  Job j;
  j.stored = p.beats;
  if (v.bypass) {
    // As many beats as arrived; the last one's keep from the length (as the RTL).
    const size_t len = p.bytes.size();
    const size_t last_n = ((len - 1) & (db_ - 1)) + 1;
    j.port = kByp;
    for (unsigned i = 0; i < p.beats; ++i) {
      const bool last = i + 1 == p.beats;
      j.beats.push_back(beat_of(p.bytes, size_t{i} * db_, last ? last_n : db_, last, last && p.user));
    }
    j.ready_cycle = cycle_ + kBypassLat;
  } else if (accepted && v.hdr.pay_len != 0) {
    j.port = kPay;
    const size_t len = v.hdr.pay_len;
    for (size_t o = 0; o < len; o += db_) {
      const size_t n = len - o < db_ ? len - o : db_;
      j.beats.push_back(beat_of(p.bytes, v.pay_start + o, n, o + n == len, false));
    }
    j.ready_cycle = cycle_ + kPayLat;
  } else {
    j.ready_cycle = cycle_ + kSkipLat;
  }
  jobs_.push_back(std::move(j));
}

void RoceParser::clock() {
  // Every handshake of this cycle is decided on the state the world saw.
  const bool take_in = in_valid_ && in_ready();
  const bool take_hdr = output_valid(kHdr) && ready_[kHdr];
  const bool take_beat = !jobs_.empty() && output_valid(jobs_.front().port) && ready_[jobs_.front().port];
  stat_.reset();

  // outputs
  if (take_hdr) {
    hdrs_.pop_front();
    --resv_;
  }
  if (!jobs_.empty()) {
    Job& j = jobs_.front();
    if (take_beat) ++j.next;
    if (cycle_ >= j.ready_cycle && j.next == j.beats.size()) {
      used_ -= j.stored;
      jobs_.pop_front();
    }
  }

  // input
  if (take_in) {
    if (cur_beats_ == 0) {
      cur_en_ = roce_enable_;
      ++resv_;
    }
    if (cur_beats_ < fifo_beats_) {
      ++used_;
    } else if (cur_beats_ == fifo_beats_) {
      used_ -= fifo_beats_;  // withdraw the frame: it can never fit
      cur_ovf_ = true;
    }
    const size_t base = cur_.size();
    cur_.resize(base + db_, 0);
    for (unsigned i = 0; i < db_ && i < in_flit_.data.size(); ++i)
      if ((in_flit_.keep >> i) & 1) cur_[base + i] = in_flit_.data[i];
    ++cur_beats_;
    if (in_flit_.last) finish_frame();
  }

  // verdicts due this cycle
  while (!pending_.empty() && pending_.front().verdict_cycle <= cycle_) {
    apply_verdict(pending_.front());
    pending_.pop_front();
  }
  ++cycle_;
}

std::vector<std::pair<std::string, uint32_t>> RoceParser::counters() {
  std::vector<std::pair<std::string, uint32_t>> c = {
      {"rx_frames", cnt_frames_}, {"rx_roce", cnt_roce_}, {"rx_bypass", cnt_bypass_}};
  for (unsigned r = 1; r < spec::kDropCount; ++r)
    c.emplace_back(std::string("rx_drop_") + spec::to_string(static_cast<Drop>(r)), cnt_drop_[r]);
  return c;
}

}  // namespace rocenic::model
