// Random but well-formed TX descriptors and payloads for block tests.
#pragma once

#include <random>
#include <vector>

#include "common/desc_flit.h"
#include "gen/roce_spec.h"

namespace rocenic::test {

// Every opcode in the generated table.
inline std::vector<uint8_t> all_opcodes() {
  std::vector<uint8_t> ops;
  for (unsigned v = 0; v < 256; ++v)
    if (spec::kOpcodes[v].valid) ops.push_back(static_cast<uint8_t>(v));
  return ops;
}

// A payload length an opcode can carry: FIRST/MIDDLE packets are whole MTUs
// (a multiple of 4, so no pad); LAST/ONLY any length up to 4096.
inline unsigned random_pay_len(std::mt19937_64& rng, uint8_t op) {
  const spec::OpInfo& oi = spec::kOpcodes[op];
  if (!oi.payload) return 0;
  const unsigned mtus[] = {256, 512, 1024, 2048, 4096};
  if (oi.seg == spec::Seg::kFirst || oi.seg == spec::Seg::kMiddle) return mtus[rng() % 5];
  switch (rng() % 4) {
    case 0: return static_cast<unsigned>(rng() % 8);           // tiny: every pad count
    case 1: return 4096 - static_cast<unsigned>(rng() % 4);    // the largest
    default: return static_cast<unsigned>(rng() % 4097);
  }
}

inline spec::RoceTxHdr random_tx_hdr(std::mt19937_64& rng, uint8_t op, unsigned pay_len) {
  spec::RoceTxHdr h;
  auto r = [&](unsigned bits) { return bits >= 64 ? rng() : (rng() & ((uint64_t{1} << bits) - 1)); };
  h.l3 = static_cast<uint8_t>(rng() % 3);
  h.vlan_valid = rng() % 4 == 0;
  if (h.vlan_valid) {
    h.vlan_pcp = static_cast<uint8_t>(r(3));
    h.vlan_vid = static_cast<uint16_t>(r(12));
  }
  h.dst_mac = r(48);
  h.src_mac = r(48);
  if (h.l3 == static_cast<uint8_t>(spec::L3::kIpv4)) {
    h.src_ip = ipv4_mapped(static_cast<uint32_t>(r(32)));
    h.dst_ip = ipv4_mapped(static_cast<uint32_t>(r(32)));
    h.ip_id = static_cast<uint16_t>(r(16));
  } else {
    for (auto& b : h.src_ip) b = static_cast<uint8_t>(r(8));
    for (auto& b : h.dst_ip) b = static_cast<uint8_t>(r(8));
    h.flow_label = static_cast<uint32_t>(r(20));
  }
  h.tclass = static_cast<uint8_t>(r(8));
  h.ttl = static_cast<uint8_t>(r(8));
  h.opcode = op;
  h.se = static_cast<uint8_t>(r(1));
  h.mig = static_cast<uint8_t>(r(1));
  h.pkey = static_cast<uint16_t>(r(16));
  h.fecn = static_cast<uint8_t>(r(1));
  h.becn = static_cast<uint8_t>(r(1));
  h.dst_qpn = static_cast<uint32_t>(r(24));
  h.ack_req = static_cast<uint8_t>(r(1));
  h.psn = static_cast<uint32_t>(r(24));
  h.reth_va = r(64);
  h.reth_rkey = static_cast<uint32_t>(r(32));
  h.reth_len = static_cast<uint32_t>(r(32));
  h.swap_add = r(64);
  h.compare = r(64);
  h.atomic_orig = r(64);
  h.aeth_syndrome = static_cast<uint8_t>(r(8));
  h.aeth_msn = static_cast<uint32_t>(r(24));
  h.imm = static_cast<uint32_t>(r(32));
  h.qkey = static_cast<uint32_t>(r(32));
  h.src_qpn = static_cast<uint32_t>(r(24));
  h.pay_len = static_cast<uint16_t>(pay_len);
  return h;
}

inline std::vector<uint8_t> random_bytes(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Payload beats for the deparser: ceil(len / bytes) beats, lane 0 first.
inline std::vector<Flit> payload_beats(const std::vector<uint8_t>& p, unsigned bytes) {
  if (p.empty()) return {};
  return frame_to_beats(p, bytes);
}

}  // namespace rocenic::test
