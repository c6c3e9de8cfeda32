// Issue 10, UC at the engine (model, rtl, cosim), the send side: a UC QP's
// SENDs and RDMA WRITEs leave as UC packets without AckReq and complete
// without an ACK (IBTA 9.8); a READ on UC fails LOC_QP_OP_ERR. The peer's
// responder does not take UC QPs yet: it drops them (NO_QP) -- what the UC
// receive side changes comes with it.
#include <gtest/gtest.h>

#include "device.h"
#include "gen/roce_spec.h"
#include "host/engine_host.h"
#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::kAllAccess;
using test::kIpB;
using test::kMacB;
using test::send_wqe;
using test::TwoHosts;

class Uc : public ::testing::TestWithParam<std::string> {};

TEST_P(Uc, SendsAndWritesCompleteWithoutAcks) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    if (a) from_a.emplace_back(f, f + n);
    return true;
  };
  End a;
  a.pd = w.a->alloc_pd();
  a.scq = w.a->create_cq(8);
  a.rcq = w.a->create_cq(8);
  a.qp = w.a->create_qp(a.pd, *a.scq, *a.rcq, 7, 7, QpType::kUc);
  a.buf = std::make_unique<host::Buffer>(65536);
  a.mr = w.a->reg_mr(a.pd, a.buf->data(), 65536, kAllAccess);
  host::Path p;
  p.dest_qpn = 0x42;
  p.dmac = kMacB;
  p.dgid = host::ipv4_gid(kIpB);
  p.sq_psn = 0xFFFFFE;  // crosses 2^24
  w.a->connect(*a.qp, p);
  uint64_t id = 1;
  uint32_t psn = 0xFFFFFE, packets = 0;
  for (const uint32_t len : {0u, 1u, 1024u, 3000u, 65536u}) {
    for (const WrOpcode op : {WrOpcode::kSend, WrOpcode::kSendWithImm, WrOpcode::kRdmaWrite, WrOpcode::kRdmaWriteWithImm}) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(len));
      from_a.clear();
      w.a->post_send(*a.qp, send_wqe(op, id, len, 0x1000, 0x77), {{a.buf->addr(), len, a.mr.key}});
      w.settle();
      const auto c = w.a->poll(*a.scq);
      ASSERT_EQ(c.size(), 1u) << "completes without an ACK";
      EXPECT_EQ(c[0].status, 0);
      EXPECT_EQ(c[0].wr_id, id);
      const uint32_t npk = len == 0 ? 1 : (len + 1023) / 1024;
      ASSERT_EQ(from_a.size(), npk);
      for (uint32_t i = 0; i < npk; ++i) {
        const auto& f = from_a[i];
        const uint8_t opcode = f[14 + 20 + 8];
        EXPECT_GE(opcode, 0x20);
        EXPECT_LE(opcode, 0x2B);
        EXPECT_EQ(f[14 + 20 + 8 + 4] & 0x80, 0) << "no AckReq";
        const uint32_t fpsn = (uint32_t{f[14 + 20 + 8 + 9]} << 16) | (f[14 + 20 + 8 + 10] << 8) | f[14 + 20 + 8 + 11];
        EXPECT_EQ(fpsn, (psn + i) & 0xFFFFFF);
      }
      psn = (psn + npk) & 0xFFFFFF;
      packets += npk;
      ++id;
    }
  }
  EXPECT_EQ(w.a->counter(XportCnt::kTxPkts), packets);
  EXPECT_EQ(w.b->counter(XportCnt::kNoQp), packets) << "the peer's responder takes no UC QP yet";
  // a READ on UC: refused before any packet, the QP in ERR
  from_a.clear();
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, id, 64, 0x1000, 0x77), {{a.buf->addr(), 64, a.mr.key}});
  w.settle();
  const auto c = w.a->poll(*a.scq);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].status, static_cast<uint8_t>(WcStatus::kLocQpOpErr));
  EXPECT_TRUE(from_a.empty());
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Uc, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
