// Frames built by Scapy (tests/oracle/gen_rx_frames.py: good ones for every
// opcode and encapsulation, bad ones labelled with the drop reason, non-RoCE
// ones for the bypass port) go into the RTL parser and its model together.
// Each frame's verdict must be the label's; accepted frames must carry the
// labelled header fields and payload; bypassed frames must come out
// untouched; the per-reason drop counters must add up.
#include <gtest/gtest.h>

#include <fstream>
#include <map>

#include "Vroce_parser.h"
#include "net/roce_parser.h"
#include "pcap.h"
#include "rtl/roce_parser_rtl.h"
#include "support/jsonl.h"
#include "xcheck.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

TEST(RxOracle, ScapyFramesAreAcceptedDroppedOrBypassedAsLabelled) {
  const auto records = pcap_read("rx_oracle.pcap");
  std::vector<std::string> labels;
  {
    std::ifstream in("rx_oracle.jsonl");
    for (std::string l; std::getline(in, l);) labels.push_back(l);
  }
  ASSERT_EQ(records.size(), labels.size());
  ASSERT_GT(records.size(), 500u);

  std::vector<std::vector<Flit>> rx(1);
  for (const auto& r : records)
    for (Flit& b : frame_to_beats(r.frame, kBytes)) rx[0].push_back(b);
  XcheckConfig cfg;
  cfg.seed = 11;
  const XcheckResult res = xcheck_run([] { return std::make_unique<RoceParserRtl>(); },
                                      [] { return model::make_roce_parser_block(kBytes); }, rx, cfg);
  ASSERT_TRUE(res.ok) << res.report;
  std::printf("%s", res.report.c_str());

  const auto& stats = res.rtl_out[3];
  ASSERT_EQ(stats.size(), records.size()) << "one verdict per frame";
  std::map<std::string, uint32_t> expect_drops;
  size_t hdr_i = 0, pay_i = 0, byp_i = 0, accepted = 0, bypassed = 0, dropped = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const std::string& l = labels[i];
    SCOPED_TRACE("frame " + std::to_string(i + 1) + ": " + test::json_raw(l, "what"));
    const uint8_t ev = stats[i].flits[0].data[0];
    const bool bypass = ev & 0x10;
    const auto reason = static_cast<spec::Drop>(ev & 0x0F);
    const std::string verdict = test::json_raw(l, "verdict");
    if (verdict == "accept") {
      ++accepted;
      ASSERT_FALSE(bypass);
      ASSERT_EQ(reason, spec::Drop::kNone) << spec::to_string(reason);
      ASSERT_LT(hdr_i, res.rtl_out[0].size());
      const auto h = desc_from_flit<spec::RoceRxHdr>(res.rtl_out[0][hdr_i++].flits[0]);
      EXPECT_EQ(h.opcode, test::json_u64(l, "opcode"));
      EXPECT_EQ(h.psn, test::json_u64(l, "psn"));
      EXPECT_EQ(h.dst_qpn, test::json_u64(l, "dst_qpn"));
      EXPECT_EQ(h.pad, test::json_u64(l, "pad"));
      EXPECT_EQ(h.pay_len, test::json_u64(l, "pay_len"));
      EXPECT_EQ(h.pkey, test::json_u64(l, "pkey"));
      EXPECT_EQ(h.se, test::json_u64(l, "se"));
      EXPECT_EQ(h.ack_req, test::json_u64(l, "ack_req"));
      EXPECT_EQ(h.reth_va, test::json_u64(l, "reth_va"));
      EXPECT_EQ(h.reth_rkey, test::json_u64(l, "reth_rkey"));
      EXPECT_EQ(h.imm, test::json_u64(l, "imm"));
      EXPECT_EQ(h.qkey, test::json_u64(l, "qkey"));
      EXPECT_EQ(h.aeth_msn, test::json_u64(l, "aeth_msn"));
      EXPECT_EQ(h.swap_add, test::json_u64(l, "swap_add"));
      EXPECT_EQ(h.vlan_valid, test::json_u64(l, "vlan_valid"));
      EXPECT_EQ(h.ip_flags, test::json_u64(l, "ip_flags")) << "IPv4 flags (DF clear in some frames)";
      if (h.pay_len) {
        ASSERT_LT(pay_i, res.rtl_out[1].size());
        EXPECT_EQ(hex_bytes(beats_to_bytes(res.rtl_out[1][pay_i++].flits), 1 << 20), test::json_raw(l, "payload_hex"));
      }
    } else if (verdict == "bypass") {
      ++bypassed;
      ASSERT_TRUE(bypass);
      ASSERT_LT(byp_i, res.rtl_out[2].size());
      EXPECT_EQ(beats_to_bytes(res.rtl_out[2][byp_i++].flits), records[i].frame) << "bypass frames leave untouched";
    } else {
      ++dropped;
      ASSERT_EQ(verdict, "drop");
      ASSERT_FALSE(bypass);
      EXPECT_EQ(spec::to_string(reason), test::json_raw(l, "reason"));
      ++expect_drops["rx_drop_" + test::json_raw(l, "reason")];
    }
  }
  EXPECT_EQ(hdr_i, res.rtl_out[0].size());
  EXPECT_EQ(byp_i, res.rtl_out[2].size());
  EXPECT_EQ(pay_i, res.rtl_out[1].size());
  // The RTL's counters (the harness already found the model's equal).
  RoceParserRtl rtl;
  drive_block(rtl, rx, cfg);
  for (const auto& [name, value] : rtl.counters()) {
    uint32_t want = expect_drops[name];
    if (name == "rx_frames") want = static_cast<uint32_t>(records.size());
    if (name == "rx_roce") want = static_cast<uint32_t>(accepted);
    if (name == "rx_bypass") want = static_cast<uint32_t>(bypassed);
    EXPECT_EQ(value, want) << name;
  }
  std::printf("%zu frames: %zu accepted, %zu bypassed, %zu dropped; drops by reason:", records.size(), accepted,
              bypassed, dropped);
  for (const auto& [name, n] : expect_drops) std::printf(" %s=%u", name.c_str() + 8, n);
  std::printf("\n");
}

}  // namespace
}  // namespace rocenic
