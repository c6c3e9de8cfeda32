#include "net/ud_grh.h"

#include "net/roce_frame.h"

namespace rocenic::model {

bool is_ud_request(uint8_t opcode) { return opcode == spec::kUdSendOnly || opcode == spec::kUdSendOnlyImm; }

std::array<uint8_t, spec::kGrhBytes> ud_grh(const spec::RoceRxHdr& h) {
  std::array<uint8_t, spec::kGrhBytes> g{};
  const auto put16 = [&](unsigned at, uint32_t v) {
    g[at] = static_cast<uint8_t>(v >> 8);
    g[at + 1] = static_cast<uint8_t>(v);
  };
  // transport bytes: BTH, DETH, ImmDt, payload, pad, ICRC
  const uint32_t tlen = spec::kBthSize + spec::kDethSize + spec::kIcrcSize + h.pay_len + h.pad +
                        (h.opcode == spec::kUdSendOnlyImm ? spec::kImmdtSize : 0u);
  if (h.l3 == static_cast<uint8_t>(spec::L3::kIpv4)) {
    const uint32_t ip_len = tlen + spec::kUdpSize + 20;
    uint8_t* ip = g.data() + 20;
    ip[0] = 0x45;
    ip[1] = h.tclass;
    put16(22, ip_len);
    put16(24, h.ip_id);
    put16(26, uint32_t{h.ip_flags} << 13);  // its flags (the parser refuses fragments: offset 0)
    ip[8] = h.ttl;
    ip[9] = spec::kIpProtoUdp;
    for (unsigned i = 0; i < 4; ++i) {
      ip[12 + i] = h.src_ip[12 + i];
      ip[16 + i] = h.dst_ip[12 + i];
    }
    put16(30, ipv4_checksum(ip));
  } else {
    const bool v1 = h.l3 == static_cast<uint8_t>(spec::L3::kRocev1);
    g[0] = static_cast<uint8_t>(0x60 | h.tclass >> 4);
    g[1] = static_cast<uint8_t>((h.tclass & 0xF) << 4 | ((h.flow_label >> 16) & 0xF));
    put16(2, h.flow_label & 0xFFFF);
    put16(4, v1 ? tlen : tlen + spec::kUdpSize);
    g[6] = static_cast<uint8_t>(v1 ? spec::kGrhNxthdrIba : spec::kIpProtoUdp);
    g[7] = h.ttl;
    for (unsigned i = 0; i < 16; ++i) {
      g[8 + i] = h.src_ip[i];
      g[24 + i] = h.dst_ip[i];
    }
  }
  return g;
}

}  // namespace rocenic::model
