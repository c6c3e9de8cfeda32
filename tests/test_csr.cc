// The CSR block: RTL and model under random AXI4-Lite traffic (idle cycles,
// backpressure, every register kind, bad addresses and values) must answer
// alike; and through every Device backend the registers behave as the map
// (spec/csr.toml) says.
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>

#include "common/desc_flit.h"
#include "common/le_bytes.h"
#include "csr/roce_csr.h"
#include "device.h"
#include "rtl/roce_csr_rtl.h"
#include "xcheck.h"

namespace rocenic {
namespace {

using namespace spec;

model::CsrCounters some_counters() {
  model::CsrCounters c;
  c.rx_frames = 1000;
  c.rx_roce = 900;
  c.rx_bypass = 60;
  c.tx_frames = 777;
  for (unsigned r = 0; r < kDropCount; ++r) c.rx_drop[r] = r ? 10 * r + 1 : 0;
  for (unsigned r = 0; r < kXportCntCount; ++r) c.xport[r] = r ? 1000 * r + 7 : 0;
  return c;
}

// Addresses worth hitting: every register, GID words incl. reserved ones, holes.
std::vector<uint32_t> interesting_addresses() {
  std::vector<uint32_t> a = {kCsrId, kCsrVersion, kCsrCtrl, kCsrAckReq, kCsrTxTclass, kCsrTxTtl, kCsrCapMaxQp, kCsrCapMaxCq, kCsrCapMaxMr, kCsrCapMaxPd,
                             kCsrCapMaxQpWr, kCsrCapMaxSge, kCsrCapMaxCqe, kCsrCapMaxInline, kCsrCapGidTbl,
                             kCsrCapDataW, kCsrPortMacLo, kCsrPortMacHi, kCsrPortMtu, kCsrPortCtrl, kCsrPortState,
                             kCsrRxFrames, kCsrRxRoce, kCsrRxBypass, kCsrTxFrames, 0x008, 0x07C, 0x204, 0xFFC,
                             kCsrCmdOp, kCsrCmdOp, kCsrCmdStatus, kCsrSqDb, kCsrSqDb, kCsrRqDb, kCsrCqDbCi,
                             kCsrCqDb, kCsrCmdRes + 12, kCsrCmdArg + 60, 0x850, 0x890,
                             kCsrSqBfDb, kCsrSqBfDb, kCsrSqBf + 124, 0x984, 0x8FC};
  for (unsigned w = 0; w < 32; w += 3) a.push_back(kCsrSqBf + 4 * w);  // the SQ_BF window
  for (unsigned r = 0; r < 16; r += 5) a.push_back(kCsrCmdArg + 4 * r);
  for (unsigned r = 0; r < kXportCntCount; r += 3) a.push_back(kCsrXportCnt + 4 * r);
  for (unsigned r = 0; r < kDropCount; ++r) a.push_back(kCsrRxDrop + 4 * r);
  for (unsigned w = 0; w < 8; ++w) a.push_back(kCsrGid + 32 * 3 + 4 * w);
  a.push_back(kCsrGid + 32 * 15 + 16);
  a.push_back(kCsrGid + 32 * 16);  // one past the table
  return a;
}

TEST(CsrXcheck, RandomAxiLiteTrafficMatchesModel) {
  std::mt19937_64 rng(3);
  const auto addrs = interesting_addresses();
  std::vector<std::vector<Flit>> stim(4);
  // One access at a time, as a driver issues them (what a read returns
  // depends on which writes and command answers came before it); command
  // answers arrive now and then, busy or not.
  XcheckConfig cfg;
  for (int i = 0; i < 3000; ++i) {
    if (rng() % 10 == 0) {
      spec::CmdResp resp;
      resp.status = static_cast<uint8_t>(rng() % 7);
      for (auto& w : resp.res) w = static_cast<uint32_t>(rng());
      stim[3].push_back(desc_to_flit(resp));
      cfg.order.push_back(1u << 3);
    }
    const uint32_t a = addrs[rng() % addrs.size()] | (rng() % 4 == 0 ? static_cast<uint32_t>(rng() % 4) : 0);
    Flit f;
    f.data = le_bytes(a, 2);
    if (rng() % 2) {
      uint32_t d = static_cast<uint32_t>(rng());
      if (rng() % 2) d %= 8;  // small values: valid and invalid MTUs and GID types
      Flit w;
      w.data = le_bytes(d, 4, static_cast<int>(rng() % 3 ? 0xF : rng() % 16));
      stim[0].push_back(f);
      stim[1].push_back(w);
      cfg.order.push_back(1u << 0 | 1u << 1);
    } else {
      stim[2].push_back(f);
      cfg.order.push_back(1u << 2);
    }
  }
  cfg.seed = 3;
  cfg.fst_path = "csr_divergence.fst";
  const XcheckResult r = xcheck_run(
      [] {
        auto b = std::make_unique<RoceCsrRtl>();
        b->set_counters(some_counters());
        return b;
      },
      [] { return model::make_roce_csr_block(some_counters()); },
      stim, cfg);
  ASSERT_TRUE(r.ok) << r.report;
  EXPECT_EQ(r.rtl_out[0].size(), stim[0].size());
  EXPECT_EQ(r.rtl_out[1].size(), stim[2].size());
  for (unsigned port = 2; port < 6; ++port)  // commands and the three doorbells all came out
    EXPECT_GT(r.rtl_out[port].size(), 0u) << r.rtl_out.size() << " port " << port;
  size_t slverr = 0;
  for (const auto& t : r.rtl_out[1]) slverr += t.flits[0].data[4] != 0;
  EXPECT_GT(slverr, 100u) << "the traffic must include refused accesses";
  std::printf("%s(%zu of %zu reads answered SLVERR)\n", r.report.c_str(), slverr, r.rtl_out[1].size());
}

class DeviceCsr : public ::testing::TestWithParam<std::string> {};

TEST_P(DeviceCsr, RegistersBehaveAsTheMapSays) {
  auto dev = make_device(GetParam());
  EXPECT_STREQ(dev->backend(), GetParam().c_str());
  uint32_t v = 0;
  ASSERT_TRUE(dev->csr_read(kCsrId, &v));
  EXPECT_EQ(v, 0x52434E43u);  // 'RCNC'
  ASSERT_TRUE(dev->csr_read(kCsrCapMaxQp, &v));
  EXPECT_EQ(v, kEngineMaxQp) << "the engine's MAX_QP (spec ENGINE_MAX_QP)";
  ASSERT_TRUE(dev->csr_read(kCsrCapGidTbl, &v));
  EXPECT_EQ(v, 16u);
  ASSERT_TRUE(dev->csr_read(kCsrCtrl, &v));
  EXPECT_EQ(v, 1u) << "roce_enable is on after reset";

  // read/write registers, with only defined bits kept
  EXPECT_TRUE(dev->csr_write(kCsrPortMacLo, 0x00000001));
  EXPECT_TRUE(dev->csr_write(kCsrPortMacHi, 0xABCD0200));
  ASSERT_TRUE(dev->csr_read(kCsrPortMacHi, &v));
  EXPECT_EQ(v, 0x0200u);
  // MTU: IBV_MTU_1024 accepted, 0 and 6 refused and the old value kept
  EXPECT_TRUE(dev->csr_write(kCsrPortMtu, 3));
  EXPECT_FALSE(dev->csr_write(kCsrPortMtu, 0));
  EXPECT_FALSE(dev->csr_write(kCsrPortMtu, 6));
  ASSERT_TRUE(dev->csr_read(kCsrPortMtu, &v));
  EXPECT_EQ(v, 3u);
  // port state follows link_up
  ASSERT_TRUE(dev->csr_read(kCsrPortState, &v));
  EXPECT_EQ(v, 1u);
  EXPECT_TRUE(dev->csr_write(kCsrPortCtrl, 1));
  ASSERT_TRUE(dev->csr_read(kCsrPortState, &v));
  EXPECT_EQ(v, 4u);
  // read-only registers and holes refuse writes; holes refuse reads
  EXPECT_FALSE(dev->csr_write(kCsrId, 0));
  EXPECT_FALSE(dev->csr_write(kCsrCapMaxQp, 1));
  EXPECT_FALSE(dev->csr_write(kCsrRxFrames, 1));
  EXPECT_FALSE(dev->csr_read(0x8F0, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(dev->csr_read(kCsrRxDrop, &v)) << "drop reason 0 is not a counter";
  // a GID entry: ::ffff:10.0.0.1, RoCE v2
  const uint32_t e = kCsrGid + 32 * 3;
  EXPECT_TRUE(dev->csr_write(e + 0, 0));
  EXPECT_TRUE(dev->csr_write(e + 4, 0));
  EXPECT_TRUE(dev->csr_write(e + 8, 0x0000FFFF));
  EXPECT_TRUE(dev->csr_write(e + 12, 0x0A000001));
  EXPECT_TRUE(dev->csr_write(e + 16, 2));
  EXPECT_FALSE(dev->csr_write(e + 16, 3)) << "type 3 does not exist";
  EXPECT_TRUE(dev->csr_write(e + 20, 0x1000 | 100)) << "VLAN 100";
  EXPECT_FALSE(dev->csr_write(e + 20, 0x1FFF)) << "VID 4095";
  EXPECT_FALSE(dev->csr_write(e + 20, 0x2000)) << "bits above the tag";
  ASSERT_TRUE(dev->csr_read(e + 20, &v));
  EXPECT_EQ(v, 0x1064u);
  EXPECT_FALSE(dev->csr_write(e + 24, 1)) << "reserved word";
  ASSERT_TRUE(dev->csr_read(e + 12, &v));
  EXPECT_EQ(v, 0x0A000001u);
  ASSERT_TRUE(dev->csr_read(e + 16, &v));
  EXPECT_EQ(v, 2u);
  EXPECT_FALSE(dev->csr_read(kCsrGid + 32 * 16, &v)) << "past the table";
  // the SQ_BF window reads back what was written (byte strobes apply); its doorbell reads 0
  EXPECT_TRUE(dev->csr_write(kCsrSqBf, 0x11223344));
  EXPECT_TRUE(dev->csr_write(kCsrSqBf + 124, 0xA5A5A5A5));
  ASSERT_TRUE(dev->csr_read(kCsrSqBf + 124, &v));
  EXPECT_EQ(v, 0xA5A5A5A5u);
  ASSERT_TRUE(dev->csr_read(kCsrSqBf, &v));
  EXPECT_EQ(v, 0x11223344u);
  ASSERT_TRUE(dev->csr_read(kCsrSqBfDb, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(dev->csr_read(kCsrSqBf + 128 + 4, &v)) << "past the window";
  ASSERT_TRUE(dev->csr_read(kCsrVersion, &v));
  EXPECT_EQ(v, 0x0101u) << "1.1: the SQ_BF window";
  EXPECT_GT(dev->cycles(), 0u);
  if (GetParam() == "cosim") {
    EXPECT_EQ(dev->divergence(), "");
    // Every access above is compared, except a counter read while the engine
    // is still busy (its tables clear after reset): counters are compared
    // only when both sides are idle.
    EXPECT_GE(dev->compared(), 39u);
    EXPECT_LE(dev->compared(), 40u);
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, DeviceCsr, ::testing::Values("model", "rtl", "cosim"));

TEST(Device, UnknownBackendIsRefusedWithTheValidNames) {
  try {
    make_device("fpga");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("model, rtl or cosim"), std::string::npos);
  }
}

}  // namespace
}  // namespace rocenic
