// The RTL parser and its model, driven alike with random idle cycles and
// backpressure, must agree on every output port and counter; and what they
// accept must round-trip the descriptors the frames were built from.
#include <gtest/gtest.h>

#include <random>

#include "Vroce_parser.h"
#include "net/roce_frame.h"
#include "net/roce_parser.h"
#include "sched/flit_adapter.h"
#include "rtl/roce_parser_rtl.h"
#include "support/random_hdr.h"
#include "xcheck.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

struct Stim {
  std::vector<std::vector<Flit>> ports{1};
  std::vector<spec::RoceTxHdr> good;         // descriptors of frames that must be accepted
  std::vector<std::vector<uint8_t>> payloads;
  size_t bad = 0, other = 0;
};

// Every opcode and encapsulation, with bad and non-RoCE frames mixed in.
Stim make_stimulus(uint64_t seed) {
  std::mt19937_64 rng(seed);
  Stim s;
  auto push = [&](const std::vector<uint8_t>& f, bool user = false) {
    for (Flit& b : frame_to_beats(f, kBytes, user)) s.ports[0].push_back(b);
  };
  for (int round = 0; round < 3; ++round) {
    for (uint8_t op : test::all_opcodes()) {
      const unsigned len = test::random_pay_len(rng, op);
      const spec::RoceTxHdr h = test::random_tx_hdr(rng, op, len);
      const auto pay = test::random_bytes(rng, len);
      auto frame = roce_frame(h, pay.data());
      switch (rng() % 8) {
        case 0: frame[frame.size() - 1 - rng() % 4] ^= 0x01; ++s.bad; push(frame); break;  // ICRC (or pad byte)
        case 1: push(frame, true); ++s.bad; break;                                          // MAC error
        case 2: frame.resize(frame.size() - 5 - rng() % 4); ++s.bad; push(frame); break;  // truncated
        default:
          push(frame);
          s.good.push_back(h);
          s.payloads.push_back(pay);
      }
    }
    // a non-RoCE frame: ARP
    std::vector<uint8_t> arp(60, 0);
    arp[12] = 0x08;
    arp[13] = 0x06;
    for (int i = 14; i < 42; ++i) arp[i] = static_cast<uint8_t>(rng());
    push(arp);
    ++s.other;
  }
  return s;
}

TEST(ParserXcheck, RandomFramesWithIdleAndBackpressureMatchModelAndRoundTrip) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    const Stim s = make_stimulus(seed);
    XcheckConfig cfg;
    cfg.seed = seed;
    cfg.fst_path = "parser_divergence.fst";
    const XcheckResult r = xcheck_run([] { return std::make_unique<RoceParserRtl>(); },
                                      [] { return model::make_roce_parser_block(kBytes); }, s.ports, cfg);
    ASSERT_TRUE(r.ok) << r.report;
    std::printf("seed %llu: %s", static_cast<unsigned long long>(seed), r.report.c_str());
    ASSERT_EQ(r.rtl_out[0].size(), s.good.size());
    EXPECT_EQ(r.rtl_out[2].size(), s.other);
    EXPECT_EQ(r.rtl_out[3].size(), s.good.size() + s.bad + s.other);
    size_t pay_i = 0;
    for (size_t i = 0; i < s.good.size(); ++i) {
      const auto h = desc_from_flit<spec::RoceRxHdr>(r.rtl_out[0][i].flits[0]);
      const auto& t = s.good[i];
      SCOPED_TRACE("accepted frame " + std::to_string(i) + " " + spec::kOpcodes[t.opcode].name);
      const spec::OpInfo& oi = spec::kOpcodes[t.opcode];
      EXPECT_EQ(h.l3, t.l3);
      EXPECT_EQ(h.vlan_valid, t.vlan_valid);
      EXPECT_EQ(h.dst_mac, t.dst_mac);
      EXPECT_EQ(h.src_ip, t.src_ip);
      EXPECT_EQ(h.dst_ip, t.dst_ip);
      EXPECT_EQ(h.tclass, t.tclass);
      EXPECT_EQ(h.ttl, t.ttl);
      EXPECT_EQ(h.opcode, t.opcode);
      EXPECT_EQ(h.psn, t.psn);
      EXPECT_EQ(h.dst_qpn, t.dst_qpn);
      EXPECT_EQ(h.fecn, t.fecn);
      EXPECT_EQ(h.becn, t.becn);
      EXPECT_EQ(h.pay_len, t.pay_len);
      if (t.l3 != 2) {
        EXPECT_EQ(h.udp_sport, roce_udp_sport(t.src_qpn, t.dst_qpn, t.opcode));
      }
      if (oi.ext & (spec::kExtReth | spec::kExtAtomiceth)) {
        EXPECT_EQ(h.reth_va, t.reth_va);
      }
      if (oi.ext & spec::kExtAtomiceth) {
        EXPECT_EQ(h.compare, t.compare);
      }
      if (oi.ext & spec::kExtDeth) {
        EXPECT_EQ(h.deth_src_qpn, t.src_qpn);
      }
      if (oi.ext & (spec::kExtImmdt | spec::kExtIeth)) {
        EXPECT_EQ(h.imm, t.imm);
      }
      if (t.pay_len) {
        EXPECT_EQ(beats_to_bytes(r.rtl_out[1][pay_i++].flits), s.payloads[i]);
      }
    }
  }
}

TEST(ParserXcheck, RoceDisabledSendsEverythingToBypass) {
  const Stim s = make_stimulus(4);
  XcheckConfig cfg;
  const XcheckResult r = xcheck_run(
      [] {
        auto b = std::make_unique<RoceParserRtl>();
        b->set_roce_enable(false);
        return b;
      },
      [] {
        auto m = model::make_roce_parser_block(kBytes);
        static_cast<model::FlitAdapter&>(*m).block<model::RoceParser>()->set_roce_enable(false);
        return m;
      },
      s.ports, cfg);
  ASSERT_TRUE(r.ok) << r.report;
  EXPECT_EQ(r.rtl_out[0].size(), 0u);
  EXPECT_EQ(r.rtl_out[2].size(), s.good.size() + s.bad + s.other);
}

}  // namespace
}  // namespace rocenic
