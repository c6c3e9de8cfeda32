#include "net/roce_parser.h"

#include "common/desc_flit.h"
#include "sched/flit_adapter.h"
#include "net/icrc.h"

namespace rocenic::model {

using spec::Drop;


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
    h.ip_flags = static_cast<uint8_t>(b(l3 + spec::kIpv4FlagsFragOff) >> 5);  // reserved, DF, MF
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

RoceParser::RoceParser(Scheduler& s, unsigned data_bytes, unsigned fifo_beats)
    : rx(s, this, 2), s_(s), db_(data_bytes), fifo_beats_(fifo_beats) {}

void RoceParser::run() {
  const Cycle now = s_.now();
  while (rx.ready()) {
    const Packet& f = rx.front();
    const unsigned beats = static_cast<unsigned>((f.data.size() + db_ - 1) / db_);
    const Verdict v = classify(f.data.vec(), f.user, beats > fifo_beats_, roce_enable_);
    const bool accepted = !v.bypass && v.drop == Drop::kNone;
    const bool stored = beats <= fifo_beats_;  // a frame too long for the FIFO is withdrawn as it arrives
    const bool to_pay = accepted && v.hdr.pay_len != 0 && stored;
    const bool to_byp = v.bypass && stored;
    if ((stat.bound() && !stat->can_push()) || (accepted && !hdr->can_push()) || (to_pay && !pay->can_push()) ||
        (to_byp && !byp->can_push()))
      return;  // an output is full: its consumer's pop wakes us
    const Cycle t = now;  // the frame's last beat (or when an output made room)
    ++cnt_frames_;
    if (accepted) ++cnt_roce_;
    if (v.bypass) ++cnt_bypass_;
    if (v.drop != Drop::kNone) ++cnt_drop_[static_cast<unsigned>(v.drop)];
    if (stat.bound())  // (the engine reads the counters instead)
      stat->push(static_cast<uint8_t>(static_cast<unsigned>(v.drop) | (v.bypass ? 0x10u : 0u)), t + kStatLat);
    if (accepted) hdr->push(v.hdr, t + kHdrLat);
    if (to_pay || to_byp) {
      const size_t len = to_pay ? v.hdr.pay_len : f.data.size();
      const Cycle first = std::max(t + (to_pay ? kPayLat : kBypassLat), reader_free_);
      const Cycle last = first + (len + db_ - 1) / db_ - 1;
      reader_free_ = last + 1;
      if (to_pay) {
        const uint8_t* p = f.data.data() + v.pay_start;
        pay->push(Packet{Bytes(std::vector<uint8_t>(p, p + len))}, last);
      } else {
        byp->push(f, last);
      }
    }
    rx.pop();
  }
}

std::vector<std::pair<std::string, uint32_t>> RoceParser::counters() const {
  std::vector<std::pair<std::string, uint32_t>> c = {
      {"rx_frames", cnt_frames_}, {"rx_roce", cnt_roce_}, {"rx_bypass", cnt_bypass_}};
  for (unsigned r = 1; r < spec::kDropCount; ++r)
    c.emplace_back(std::string("rx_drop_") + spec::to_string(static_cast<Drop>(r)), cnt_drop_[r]);
  return c;
}

std::unique_ptr<rocenic::Block> make_roce_parser_block(unsigned data_bytes, unsigned fifo_beats) {
  return std::make_unique<FlitAdapter>(data_bytes, [=](FlitAdapter& a) {
    RoceParser* p = a.make<RoceParser>(data_bytes, fifo_beats);
    a.in_stream("s_axis_rx", p->rx);
    a.out<spec::RoceRxHdr>("m_hdr", p->hdr, RoceParser::kHdrDepth);
    a.out_stream("m_axis_pay", p->pay, 2);
    a.out_stream("m_axis_byp", p->byp, 2);
    a.out_event<uint8_t>("stat", p->stat, 4, 1, [](const uint8_t& v) {
      Flit f;
      f.data = {v};
      f.keep = 1;
      return f;
    });
    a.counters_from([p] { return p->counters(); });
  });
}

}  // namespace rocenic::model
