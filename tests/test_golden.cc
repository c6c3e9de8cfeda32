// Real Linux Soft-RoCE traffic (tests/data/golden): every RoCE frame of every
// capture must (1) be accepted by the RTL parser and its model alike, with
// every field equal to the capture's listing, and (2) come out of the RTL
// deparser, rebuilt from those fields and the payload, identical to the
// captured frame byte for byte -- ICRC, IPv4 checksum and UDP flow-hash port
// included.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "Vroce_deparser.h"
#include "common/desc_flit.h"
#include "Vroce_parser.h"
#include "net/roce_deparser.h"
#include "net/roce_frame.h"
#include "net/roce_parser.h"
#include "pcap.h"
#include "rtl/roce_deparser_rtl.h"
#include "rtl/roce_parser_rtl.h"
#include "support/golden.h"
#include "xcheck.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

std::vector<std::string> golden_captures() {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(test::golden_dir()))
    if (e.path().extension() == ".pcap") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, ParsesLikeTheListingAndRebuildsBitForBit) {
  const std::string base = test::golden_dir() + "/" + GetParam();
  const auto records = pcap_read(base + ".pcap");
  const auto listing = test::golden_listing(base + ".txt");
  ASSERT_FALSE(listing.empty());

  // (1) parse: all RoCE frames (and the others, which must bypass) through RTL and model
  std::vector<std::vector<Flit>> rx(1);
  for (const auto& r : records)
    for (Flit& b : frame_to_beats(r.frame, kBytes)) rx[0].push_back(b);
  XcheckConfig cfg;
  cfg.seed = std::hash<std::string>{}(GetParam());
  const XcheckResult pr = xcheck_run([] { return std::make_unique<RoceParserRtl>(); },
                                     [] { return model::make_roce_parser_block(kBytes); }, rx, cfg);
  ASSERT_TRUE(pr.ok) << pr.report;
  ASSERT_EQ(pr.rtl_out[0].size(), listing.size()) << "every RoCE frame accepted";
  EXPECT_EQ(pr.rtl_out[2].size(), records.size() - listing.size()) << "every other frame bypassed";

  // QPNs seen per direction: the candidates for a frame's (unlisted) source QP
  std::set<uint32_t> qpns_of[2];
  for (const auto& g : listing) qpns_of[g.a_to_b ? 1 : 0].insert(static_cast<uint32_t>(g.u("dqp")));

  std::vector<std::vector<Flit>> tx(2);
  std::vector<size_t> rebuilt;  // listing index of each rebuilt frame
  size_t pay_txn = 0;
  for (size_t i = 0; i < listing.size(); ++i) {
    const auto& g = listing[i];
    SCOPED_TRACE("frame " + std::to_string(g.number) + " " + g.opcode);
    const auto h = desc_from_flit<spec::RoceRxHdr>(pr.rtl_out[0][i].flits[0]);
    const spec::OpInfo& oi = spec::kOpcodes[h.opcode];
    EXPECT_EQ(oi.name, g.opcode);
    EXPECT_EQ(h.dst_qpn, g.u("dqp"));
    EXPECT_EQ(h.psn, g.u("psn"));
    EXPECT_EQ(h.ack_req, g.u("A"));
    EXPECT_EQ(h.se, g.u("SE"));
    EXPECT_EQ(h.pad, g.u("pad"));
    EXPECT_EQ(h.pay_len, g.u("pay"));
    EXPECT_EQ(h.udp_sport, g.u("sport"));
    EXPECT_EQ(h.tver, 0u);
    EXPECT_EQ(h.pkey, 0xFFFFu);
    if (g.has("id")) {
      EXPECT_EQ(h.l3, static_cast<uint8_t>(spec::L3::kIpv4));
      EXPECT_EQ(h.ip_id, g.u("id"));
      EXPECT_EQ(h.tclass, g.u("tos"));
      EXPECT_EQ(h.ttl, g.u("ttl"));
    } else {
      EXPECT_EQ(h.l3, static_cast<uint8_t>(spec::L3::kIpv6));
      EXPECT_EQ(h.tclass, g.u("tc"));
      EXPECT_EQ(h.flow_label, g.u("fl"));
      EXPECT_EQ(h.ttl, g.u("hlim"));
    }
    if (g.has("RETH.va")) {
      EXPECT_EQ(h.reth_va, g.u("RETH.va"));
      EXPECT_EQ(h.reth_rkey, g.u("RETH.rkey"));
      EXPECT_EQ(h.reth_len, g.u("RETH.len"));
    }
    if (g.has("ACK.msn")) {
      EXPECT_EQ(h.aeth_syndrome, g.u("ACK.credits"));  // ACK syndrome: 0b000 + credit count
      EXPECT_EQ(h.aeth_msn, g.u("ACK.msn"));
    }
    if (g.has("AtomicETH.va")) {
      EXPECT_EQ(h.reth_va, g.u("AtomicETH.va"));
      EXPECT_EQ(h.reth_rkey, g.u("AtomicETH.rkey"));
      EXPECT_EQ(h.swap_add, g.u("AtomicETH.swap/add"));
      EXPECT_EQ(h.compare, g.u("AtomicETH.cmp"));
    }
    if (g.has("AtomicAck.orig")) {
      EXPECT_EQ(h.atomic_orig, g.u("AtomicAck.orig"));
    }
    if (g.has("Imm")) {
      EXPECT_EQ(h.imm, g.u("Imm"));
    }
    if (g.has("DETH.qkey")) {
      EXPECT_EQ(h.qkey, g.u("DETH.qkey"));
      EXPECT_EQ(h.deth_src_qpn, g.u("DETH.srcqp"));
    }
    std::vector<uint8_t> pay;
    if (h.pay_len) pay = beats_to_bytes(pr.rtl_out[1][pay_txn++].flits);
    ASSERT_EQ(pay.size(), h.pay_len);

    // (2) rebuild: the source QP is not on the wire for RC/UC; it is one of the
    // QPNs the other direction addresses -- the one whose flow hash is the port.
    spec::RoceTxHdr t;
    t.l3 = h.l3; t.vlan_valid = h.vlan_valid; t.vlan_pcp = h.vlan_pcp; t.vlan_vid = h.vlan_vid;
    t.dst_mac = h.dst_mac; t.src_mac = h.src_mac; t.src_ip = h.src_ip; t.dst_ip = h.dst_ip;
    t.tclass = h.tclass; t.ttl = h.ttl; t.flow_label = h.flow_label; t.ip_id = h.ip_id;
    t.opcode = h.opcode; t.se = h.se; t.mig = h.mig; t.pkey = h.pkey; t.fecn = h.fecn; t.becn = h.becn;
    t.dst_qpn = h.dst_qpn; t.ack_req = h.ack_req; t.psn = h.psn; t.reth_va = h.reth_va; t.reth_rkey = h.reth_rkey;
    t.reth_len = h.reth_len; t.swap_add = h.swap_add; t.compare = h.compare; t.atomic_orig = h.atomic_orig;
    t.aeth_syndrome = h.aeth_syndrome; t.aeth_msn = h.aeth_msn; t.imm = h.imm; t.qkey = h.qkey;
    t.pay_len = h.pay_len;
    if (oi.ext & spec::kExtDeth) {
      t.src_qpn = h.deth_src_qpn;
    } else {
      bool found = false;
      for (uint32_t q : qpns_of[g.a_to_b ? 0 : 1])
        if (roce_udp_sport(q, h.dst_qpn, h.opcode) == h.udp_sport) {
          t.src_qpn = q;
          found = true;
        }
      ASSERT_TRUE(found) << "no QPN of the peer direction hashes to UDP source port " << h.udp_sport;
    }
    tx[0].push_back(desc_to_flit(t));
    if (!pay.empty())
      for (Flit& b : frame_to_beats(pay, kBytes)) tx[1].push_back(b);
    rebuilt.push_back(g.number - 1);
  }
  const XcheckResult dr = xcheck_run([] { return std::make_unique<RoceDeparserRtl<Vroce_deparser>>(kBytes); },
                                     [] { return model::make_roce_deparser_block(kBytes); }, tx, cfg);
  ASSERT_TRUE(dr.ok) << dr.report;
  ASSERT_EQ(dr.rtl_out[0].size(), rebuilt.size());
  for (size_t i = 0; i < rebuilt.size(); ++i)
    ASSERT_EQ(hex_bytes(beats_to_bytes(dr.rtl_out[0][i].flits), 1 << 20),
              hex_bytes(records[rebuilt[i]].frame, 1 << 20))
        << "rebuilt frame " << rebuilt[i] + 1 << " differs from the capture";
  std::printf("%s: %zu RoCE frames parsed (rtl = model = listing) and rebuilt bit for bit; %zu others bypassed\n",
              GetParam().c_str(), listing.size(), records.size() - listing.size());
}

INSTANTIATE_TEST_SUITE_P(SoftRoce, Golden, ::testing::ValuesIn(golden_captures()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace rocenic
