// Builds frames with the RTL deparser for every opcode, every encapsulation
// (RoCEv2/IPv4, RoCEv2/IPv6, RoCEv1; with and without 802.1Q) and payload
// sizes across 0..4096 with every pad count, and writes them to a pcap plus
// a JSON-lines file of what each frame must decode to. tests/oracle/
// check_tx_pcap.py then has Scapy and tshark judge them.
//
//   tx_oracle_gen OUT.pcap OUT.jsonl
#include <cstdio>
#include <fstream>
#include <random>

#include "Vroce_deparser.h"
#include "net/roce_frame.h"
#include "pcap.h"
#include "rtl/roce_deparser_rtl.h"
#include "support/random_hdr.h"
#include "xcheck.h"

using namespace rocenic;

namespace {

std::string mac_text(uint64_t m) {
  char b[24];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", unsigned(m >> 40 & 0xFF), unsigned(m >> 32 & 0xFF),
                unsigned(m >> 24 & 0xFF), unsigned(m >> 16 & 0xFF), unsigned(m >> 8 & 0xFF), unsigned(m & 0xFF));
  return b;
}

std::string ip_text(const Ip128& ip, bool v4) {
  char b[64];
  if (v4) {
    std::snprintf(b, sizeof b, "%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15]);
    return b;
  }
  std::string s;
  for (int i = 0; i < 16; i += 2) {
    std::snprintf(b, sizeof b, "%s%x", i ? ":" : "", (ip[i] << 8) | ip[i + 1]);
    s += b;
  }
  return s;
}

std::string json(const spec::RoceTxHdr& h, const std::vector<uint8_t>& pay) {
  static const char* kL3[] = {"ipv4", "ipv6", "rocev1"};
  const bool v4 = h.l3 == 0;
  const uint16_t sport = h.l3 == 2 ? 0 : roce_udp_sport(h.src_qpn, h.dst_qpn, h.opcode);
  std::string s = "{";
  auto num = [&](const char* k, uint64_t v) { s += "\"" + std::string(k) + "\": " + std::to_string(v) + ", "; };
  auto str = [&](const char* k, const std::string& v) { s += "\"" + std::string(k) + "\": \"" + v + "\", "; };
  str("l3", kL3[h.l3]);
  num("vlan_valid", h.vlan_valid); num("vlan_pcp", h.vlan_pcp); num("vlan_vid", h.vlan_vid);
  str("dst_mac", mac_text(h.dst_mac)); str("src_mac", mac_text(h.src_mac));
  str("src_ip", ip_text(h.src_ip, v4)); str("dst_ip", ip_text(h.dst_ip, v4));
  num("tclass", h.tclass); num("ttl", h.ttl); num("flow_label", h.flow_label); num("ip_id", h.ip_id);
  num("udp_sport", sport);
  num("opcode", h.opcode); num("se", h.se); num("mig", h.mig); num("pad", roce_pad(h.opcode, h.pay_len));
  num("pkey", h.pkey); num("fecn", h.fecn); num("becn", h.becn); num("dst_qpn", h.dst_qpn);
  num("ack_req", h.ack_req); num("psn", h.psn);
  num("reth_va", h.reth_va); num("reth_rkey", h.reth_rkey); num("reth_len", h.reth_len);
  num("swap_add", h.swap_add); num("compare", h.compare); num("atomic_orig", h.atomic_orig);
  num("aeth_syndrome", h.aeth_syndrome); num("aeth_msn", h.aeth_msn); num("imm", h.imm); num("qkey", h.qkey);
  num("src_qpn", h.src_qpn); num("pay_len", h.pay_len);
  s += "\"payload_hex\": \"" + hex_bytes(pay, ~size_t{0}) + "\"}";
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s OUT.pcap OUT.jsonl\n", argv[0]);
    return 2;
  }
  constexpr unsigned kBytes = 64;
  std::mt19937_64 rng(2026);
  std::vector<std::vector<Flit>> stim(2);
  std::vector<std::string> expect;
  const unsigned only_sizes[] = {0, 1, 2, 3, 4, 5, 6, 7, 63, 64, 65, 255, 1024, 4093, 4094, 4095, 4096};
  const unsigned mtu_sizes[] = {256, 1024, 4096};
  unsigned variant = 0;
  for (uint8_t op : test::all_opcodes()) {
    const spec::OpInfo& oi = spec::kOpcodes[op];
    std::vector<unsigned> sizes;
    if (!oi.payload) sizes = {0};
    else if (oi.seg == spec::Seg::kFirst || oi.seg == spec::Seg::kMiddle) sizes.assign(std::begin(mtu_sizes), std::end(mtu_sizes));
    else sizes.assign(std::begin(only_sizes), std::end(only_sizes));
    for (unsigned len : sizes) {
      for (uint8_t l3 = 0; l3 < 3; ++l3) {
        spec::RoceTxHdr h = test::random_tx_hdr(rng, op, len);
        h.l3 = l3;
        h.vlan_valid = (variant++ % 3) == 0;
        if (l3 == 0) {
          h.src_ip = ipv4_mapped(static_cast<uint32_t>(rng()));
          h.dst_ip = ipv4_mapped(static_cast<uint32_t>(rng()));
          h.flow_label = 0;
        } else {
          h.ip_id = 0;
        }
        const auto pay = test::random_bytes(rng, len);
        stim[0].push_back(desc_to_flit(h));
        for (Flit& b : test::payload_beats(pay, kBytes)) stim[1].push_back(b);
        expect.push_back(json(h, pay));
      }
    }
  }
  RoceDeparserRtl<Vroce_deparser> dut(kBytes);
  XcheckConfig cfg;
  const auto out = drive_block(dut, stim, cfg);
  if (out[0].size() != expect.size()) {
    std::fprintf(stderr, "deparser sent %zu frames for %zu descriptors\n", out[0].size(), expect.size());
    return 1;
  }
  PcapWriter pcap(argv[1]);
  std::ofstream js(argv[2]);
  for (size_t i = 0; i < expect.size(); ++i) {
    pcap.write(beats_to_bytes(out[0][i].flits), i);
    js << expect[i] << "\n";
  }
  std::printf("wrote %zu RTL-built frames to %s (expected fields in %s)\n", expect.size(), argv[1], argv[2]);
  return 0;
}
