#include "net/ud_grh.h"

#include <algorithm>

#include "net/roce_frame.h"

namespace rocenic::model {

bool is_ud_request(uint8_t opcode) { return opcode == spec::kUdSendOnly || opcode == spec::kUdSendOnlyImm; }

std::array<uint8_t, spec::kGrhBytes> ud_grh(const spec::RoceRxHdr& h) {
  std::array<uint8_t, spec::kGrhBytes> g{};
  const auto put16 = [&](unsigned at, uint32_t v) {
    g[at] = static_cast<uint8_t>(v >> 8);
    g[at + 1] = static_cast<uint8_t>(v);
  };
  // transport bytes: BTH, the opcode's extended headers (DETH, ImmDt), payload, pad, ICRC
  const uint32_t tlen = spec::kBthSize + spec::kOpcodes[h.opcode].ext_bytes + h.pay_len + h.pad + spec::kIcrcSize;
  if (h.l3 == static_cast<uint8_t>(spec::L3::kIpv4)) {
    // 20 zero bytes, then the IPv4 header (spec headers.toml offsets)
    const unsigned at = spec::kGrhBytes - spec::kIpv4Size;
    uint8_t* ip = g.data() + at;
    ip[spec::kIpv4VerIhlOff] = 0x45;  // version 4, no options (the parser refuses others)
    ip[spec::kIpv4TosOff] = h.tclass;
    put16(at + spec::kIpv4TotalLenOff, spec::kIpv4Size + spec::kUdpSize + tlen);
    put16(at + spec::kIpv4IdOff, h.ip_id);
    put16(at + spec::kIpv4FlagsFragOff, uint32_t{h.ip_flags} << 13);  // its flags (no fragment: offset 0)
    ip[spec::kIpv4TtlOff] = h.ttl;
    ip[spec::kIpv4ProtoOff] = spec::kIpProtoUdp;
    std::copy_n(h.src_ip.begin() + 12, 4, ip + spec::kIpv4SrcOff);
    std::copy_n(h.dst_ip.begin() + 12, 4, ip + spec::kIpv4DstOff);
    put16(at + spec::kIpv4CsumOff, ipv4_checksum(ip));
  } else {
    const bool v1 = h.l3 == static_cast<uint8_t>(spec::L3::kRocev1);
    const uint32_t vtf = 6u << 28 | uint32_t{h.tclass} << 20 | (h.flow_label & 0xFFFFF);
    put16(spec::kIpv6VerTcFlOff, vtf >> 16);
    put16(spec::kIpv6VerTcFlOff + 2, vtf & 0xFFFF);
    put16(spec::kIpv6PayloadLenOff, v1 ? tlen : tlen + spec::kUdpSize);
    g[spec::kIpv6NextHdrOff] = static_cast<uint8_t>(v1 ? spec::kGrhNxthdrIba : spec::kIpProtoUdp);
    g[spec::kIpv6HopLimitOff] = h.ttl;
    std::copy_n(h.src_ip.begin(), 16, g.begin() + spec::kIpv6SrcOff);
    std::copy_n(h.dst_ip.begin(), 16, g.begin() + spec::kIpv6DstOff);
  }
  return g;
}

}  // namespace rocenic::model
