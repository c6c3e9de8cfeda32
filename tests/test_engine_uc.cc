// Issue 10, UC at the engine (model, rtl, cosim), IBTA 9.8:
//  - a UC QP's SENDs and RDMA WRITEs leave as UC packets without AckReq and
//    complete without an ACK; a READ on UC fails LOC_QP_OP_ERR;
//  - between two UC QPs messages are placed and completed, nothing is ever
//    acknowledged; a lost packet loses its message (the next FIRST or ONLY
//    starts afresh, into the same receive WQE); a SEND without a receive
//    WQE, or a WRITE with a bad rkey, is dropped silently and counted, and
//    the QP goes on.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

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
  a.make(*w.a, 65536, kAllAccess, QpType::kUc);
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
  EXPECT_EQ(w.b->counter(XportCnt::kNoQp), packets) << "no QP 0x42 on the peer";
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

TEST_P(Uc, MessagesBetweenTwoUcQpsAndWhatALostPacketLoses) {
  TwoHosts w(GetParam());
  size_t from_b = 0;
  std::function<bool(size_t)> drop_a;  // the nth frame a sends (from 0)
  size_t a_sent = 0;
  w.pass = [&](bool a, const uint8_t*, size_t) {
    if (!a) return ++from_b, true;
    return !(drop_a && drop_a(a_sent++));
  };
  End a, b;
  const size_t kMax = 65536;
  a.make(*w.a, kMax, kAllAccess, QpType::kUc);
  b.make(*w.b, kMax, kAllAccess, QpType::kUc);
  test::connect_pair(*w.a, a, test::kMacA, test::kIpA, *w.b, b, kMacB, kIpB);
  uint64_t id = 1;
  for (const uint32_t len : {0u, 1u, 3000u, 65536u}) {
    for (const WrOpcode op : {WrOpcode::kSend, WrOpcode::kSendWithImm, WrOpcode::kRdmaWrite, WrOpcode::kRdmaWriteWithImm}) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(len));
      test::fill(*a.buf, len, static_cast<uint32_t>(id));
      std::memset(b.buf->data(), 0, kMax);
      const bool recv = op != WrOpcode::kRdmaWrite;
      if (recv) w.b->post_recv(*b.qp, 1000 + id, {{b.buf->addr(), static_cast<uint32_t>(kMax), b.mr.key}});
      w.a->post_send(*a.qp, send_wqe(op, id, len, b.buf->addr(), b.mr.key), {{a.buf->addr(), len, a.mr.key}});
      w.settle();
      EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), len));
      const auto sc = w.a->poll(*a.scq);
      ASSERT_EQ(sc.size(), 1u);
      EXPECT_EQ(sc[0].status, 0);
      const auto rc = w.b->poll(*b.rcq);
      ASSERT_EQ(rc.size(), recv ? 1u : 0u);
      if (recv) {
        EXPECT_EQ(rc[0].status, 0);
        EXPECT_EQ(rc[0].wr_id, 1000 + id);
        EXPECT_EQ(rc[0].byte_len, len);
        EXPECT_EQ(rc[0].src_qp, a.qp->qpn);
      }
      ++id;
    }
  }
  EXPECT_EQ(from_b, 0u) << "UC: nothing is acknowledged";

  // a 3-packet SEND loses its middle packet: that message is lost; the next
  // (one packet) lands in the same receive WQE, at its start
  const uint64_t oos = w.b->counter(XportCnt::kOutOfSequence);
  w.b->post_recv(*b.qp, 77, {{b.buf->addr(), static_cast<uint32_t>(kMax), b.mr.key}});
  std::memset(b.buf->data(), 0, kMax);
  test::fill(*a.buf, 3000, 5);
  a_sent = 0;
  drop_a = [](size_t n) { return n == 1; };
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, 50, 3000), {{a.buf->addr(), 3000, a.mr.key}});
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, 51, 100), {{a.buf->addr() + 5000, 100, a.mr.key}});
  w.settle();
  drop_a = nullptr;
  EXPECT_EQ(w.a->poll(*a.scq).size(), 2u) << "the sender cannot know";
  auto rc = w.b->poll(*b.rcq);
  ASSERT_EQ(rc.size(), 1u) << "only the second message";
  EXPECT_EQ(rc[0].wr_id, 77u);
  EXPECT_EQ(rc[0].byte_len, 100u);
  EXPECT_EQ(0, std::memcmp(a.buf->data() + 5000, b.buf->data(), 100));
  EXPECT_EQ(w.b->counter(XportCnt::kOutOfSequence), oos + 1) << "the lost message's last packet";

  // no receive WQE: dropped, counted (out_of_buffer), nothing sent back
  const uint64_t rnr = w.b->counter(XportCnt::kRnrNakSent);
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, 60, 64), {{a.buf->addr(), 64, a.mr.key}});
  w.settle();
  EXPECT_EQ(w.b->counter(XportCnt::kRnrNakSent), rnr + 1);
  EXPECT_TRUE(w.b->poll(*b.rcq).empty());
  // a WRITE with a bad rkey: dropped, counted; the QP goes on
  const uint64_t acc = w.b->counter(XportCnt::kRemAccessErr);
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 61, 64, b.buf->addr(), b.mr.key ^ 0x100),
                 {{a.buf->addr(), 64, a.mr.key}});
  w.settle();
  EXPECT_EQ(w.b->counter(XportCnt::kRemAccessErr), acc + 1);
  w.b->post_recv(*b.qp, 78, {{b.buf->addr(), static_cast<uint32_t>(kMax), b.mr.key}});
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSendWithImm, 62, 200), {{a.buf->addr(), 200, a.mr.key}});
  w.settle();
  EXPECT_EQ(w.a->poll(*a.scq).size(), 3u);
  rc = w.b->poll(*b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].status, 0);
  EXPECT_EQ(rc[0].wr_id, 78u);
  EXPECT_EQ(from_b, 0u);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Uc, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
