// rocenic-packet-demo: the packet path end to end on the RTL. A small
// conversation between two hosts (10.0.0.1 and 10.0.0.2, plus an IPv6 and a
// RoCEv1 exchange) is built by the RTL deparser, written to a pcap as it
// would appear on the wire, and received by the RTL parser, which must hand
// back every header field and payload byte that went in.
//
//   rocenic-packet-demo OUT.pcap
#include <cstdio>
#include <random>

#include "Vroce_deparser.h"
#include "Vroce_parser.h"
#include "common/desc_flit.h"
#include "net/roce_frame.h"
#include "pcap.h"
#include "rtl/roce_deparser_rtl.h"
#include "rtl/roce_parser_rtl.h"
#include "xcheck.h"

using namespace rocenic;

namespace {

constexpr unsigned kBytes = 64;
constexpr uint64_t kMacA = 0x020000000001, kMacB = 0x020000000002;

struct Packet {
  spec::RoceTxHdr h;
  std::vector<uint8_t> payload;
};

Packet make(uint8_t op, bool a_to_b, uint32_t psn, unsigned len, spec::L3 l3 = spec::L3::kIpv4) {
  Packet p;
  spec::RoceTxHdr& h = p.h;
  h.l3 = static_cast<uint8_t>(l3);
  h.src_mac = a_to_b ? kMacA : kMacB;
  h.dst_mac = a_to_b ? kMacB : kMacA;
  if (l3 == spec::L3::kIpv4) {
    h.src_ip = ipv4_mapped(a_to_b ? 0x0A000001 : 0x0A000002);
    h.dst_ip = ipv4_mapped(a_to_b ? 0x0A000002 : 0x0A000001);
  } else {
    h.src_ip = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<uint8_t>(a_to_b ? 1 : 2)};
    h.dst_ip = {0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, static_cast<uint8_t>(a_to_b ? 2 : 1)};
  }
  h.ttl = 64;
  h.opcode = op;
  h.pkey = 0xFFFF;
  h.src_qpn = a_to_b ? 0x11 : 0x12;
  h.dst_qpn = a_to_b ? 0x12 : 0x11;
  h.psn = psn;
  h.ack_req = a_to_b && spec::kOpcodes[op].ackreq;
  h.pay_len = static_cast<uint16_t>(len);
  p.payload.resize(len);
  for (unsigned i = 0; i < len; ++i) p.payload[i] = static_cast<uint8_t>('a' + i % 26);
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.pcap\n", argv[0]);
    return 2;
  }
  using namespace spec;
  std::vector<Packet> conv;
  conv.push_back(make(kRcSendOnly, true, 100, 64));
  conv.push_back(make(kRcAck, false, 100, 0));
  conv.push_back(make(kRcWriteFirst, true, 101, 1024));
  conv.back().h.reth_va = 0x7f0000001000; conv.back().h.reth_rkey = 0x1234; conv.back().h.reth_len = 2500;
  conv.push_back(make(kRcWriteMiddle, true, 102, 1024));
  conv.push_back(make(kRcWriteLastImm, true, 103, 452));
  conv.back().h.imm = 0xCAFEBABE;
  conv.push_back(make(kRcAck, false, 103, 0));
  conv.push_back(make(kRcReadReq, true, 104, 0));
  conv.back().h.reth_va = 0x7f0000002000; conv.back().h.reth_rkey = 0x1234; conv.back().h.reth_len = 300;
  conv.push_back(make(kRcReadRespOnly, false, 104, 300));
  conv.push_back(make(kRcFetchAdd, true, 105, 0));
  conv.back().h.reth_va = 0x7f0000003000; conv.back().h.reth_rkey = 0x1234; conv.back().h.swap_add = 1;
  conv.push_back(make(kRcAtomicAck, false, 105, 0));
  conv.back().h.atomic_orig = 41;
  for (Packet* p : {&conv[1], &conv[5], &conv[7], &conv[9]}) { p->h.aeth_syndrome = 0x1F; p->h.aeth_msn = 1; }
  conv.push_back(make(kUdSendOnlyImm, true, 7, 200, L3::kIpv6));
  conv.back().h.qkey = 0x11111111; conv.back().h.imm = 0x12345678;
  conv.push_back(make(kRcSendOnly, true, 106, 3, L3::kRocev1));
  conv.push_back(make(kRcSendOnly, true, 107, 0));
  conv.back().h.vlan_valid = 1; conv.back().h.vlan_pcp = 3; conv.back().h.vlan_vid = 100; conv.back().h.tclass = 0x6A;
  conv.push_back(make(kCnp, false, 0, 0));
  conv.back().h.becn = 1;

  std::vector<std::vector<Flit>> tx(2);
  for (const Packet& p : conv) {
    tx[0].push_back(desc_to_flit(p.h));
    if (!p.payload.empty())
      for (Flit& b : frame_to_beats(p.payload, kBytes)) tx[1].push_back(b);
  }
  XcheckConfig cfg;
  RoceDeparserRtl<Vroce_deparser> deparser(kBytes);
  const auto frames = drive_block(deparser, tx, cfg)[0];

  PcapWriter pcap(argv[1]);
  std::vector<std::vector<Flit>> rx(1);
  for (size_t i = 0; i < frames.size(); ++i) {
    const auto bytes = beats_to_bytes(frames[i].flits);
    pcap.write(bytes, 1000 * i);
    for (Flit& b : frame_to_beats(bytes, kBytes)) rx[0].push_back(b);
  }
  RoceParserRtl parser;
  const auto got = drive_block(parser, rx, cfg);

  std::printf("RTL deparser built %zu frames; RTL parser accepted %zu:\n", frames.size(), got[0].size());
  std::printf("  %-20s %-7s %6s %8s %6s  %s\n", "opcode", "l3", "psn", "payload", "frame", "round trip");
  static const char* kL3[] = {"IPv4", "IPv6", "RoCEv1"};
  int bad = got[0].size() == conv.size() ? 0 : 1;
  size_t pay_i = 0;
  for (size_t i = 0; i < got[0].size() && i < conv.size(); ++i) {
    const auto h = desc_from_flit<RoceRxHdr>(got[0][i].flits[0]);
    const Packet& p = conv[i];
    std::vector<uint8_t> pay;
    if (h.pay_len) pay = beats_to_bytes(got[1][pay_i++].flits);
    const bool ok = h.opcode == p.h.opcode && h.psn == p.h.psn && h.dst_qpn == p.h.dst_qpn && h.src_ip == p.h.src_ip &&
                    h.dst_ip == p.h.dst_ip && h.reth_va == p.h.reth_va && h.imm == p.h.imm && h.qkey == p.h.qkey &&
                    h.vlan_vid == p.h.vlan_vid && h.aeth_msn == p.h.aeth_msn && pay == p.payload;
    bad += !ok;
    std::printf("  %-20s %-7s %6u %8u %6zu  %s\n", kOpcodes[h.opcode].name, kL3[h.l3], h.psn, h.pay_len,
                beats_to_bytes(frames[i].flits).size(), ok ? "ok" : "MISMATCH");
  }
  for (const auto& [name, v] : parser.counters())
    if (v) std::printf("  counter %s = %u\n", name.c_str(), v);
  std::printf("wire capture: %s\n", argv[1]);
  return bad ? 1 : 0;
}
