// Building RoCE frames in C++: the model's deparser and the tests' expected
// frames. Same layout as rtl/net/roce_hdr_build.sv, from the same generated
// tables (gen/roce_spec.h).
#pragma once

#include <cstdint>
#include <vector>

#include "gen/roce_spec.h"

namespace rocenic {

// The header checksum of a 20-byte IPv4 header (its checksum field as it is: zero when computing it).
uint16_t ipv4_checksum(const uint8_t* hdr);

// UDP source port Linux would pick: rdma_get_udp_sport(flow label of the two
// QPNs) for RC/UC, 0xC000 + hash_32(src_qpn, 14) for UD.
uint16_t roce_udp_sport(uint32_t src_qpn, uint32_t dst_qpn, uint8_t opcode);

// BTH pad count for a payload of `len` bytes on `opcode`.
unsigned roce_pad(uint8_t opcode, unsigned len);

// The header bytes (Ethernet through the last extended header).
std::vector<uint8_t> roce_header(const spec::RoceTxHdr& h);

// A whole frame: header, payload (h.pay_len bytes from `payload`), pad, ICRC,
// zero padding to 60 bytes.
std::vector<uint8_t> roce_frame(const spec::RoceTxHdr& h, const uint8_t* payload);

// Offset of the L3 header (14, or 18 with an 802.1Q tag).
inline unsigned roce_l3_offset(const spec::RoceTxHdr& h) { return h.vlan_valid ? 18 : 14; }

}  // namespace rocenic
