// Issue 10, UD at the engine (model, rtl, cosim), IBTA 9.8 / 10.2.5 / 11.4.1.1:
//  - a UD SEND (with immediate) leaves as one UD_SEND_ONLY[_IMM] packet to the
//    WQE's address vector: the GID entry at its sgid_index gives the
//    encapsulation (RoCE v1, v2/IPv4, v2/IPv6), the source address and the
//    VLAN (PCP = SL & 7); DETH {Q_Key, source QP}; no AckReq; it completes
//    once sent;
//  - the receiver's buffer gets the 40-byte GRH (the IPv6 header / GRH as it
//    arrived; for IPv4 20 zero bytes and the IPv4 header) and then the
//    payload; the CQE says RECV, byte_len = 40 + payload, the source QP,
//    IBV_WC_GRH, the SL;
//  - a datagram with another Q_Key is dropped and counted; a WR Q_Key with
//    bit 31 set sends the QP's own;
//  - no receive WQE: dropped and counted; one too small: it completes with
//    LOC_LEN_ERR (IBTA class D, as rxe); the QP goes on;
//  - longer than the port MTU: nothing sent, no error (IBTA C10-93.1.1, as
//    rxe), the PSN taken; not a SEND, or more than 2 SGEs: LOC_QP_OP_ERR.
#include <gtest/gtest.h>

#include <cstring>

#include "device.h"
#include "gen/roce_spec.h"
#include "host/engine_host.h"
#include "net/roce_frame.h"
#include "support/frames.h"
#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::fill;
using test::kIpA;
using test::kIpB;
using test::kMacA;
using test::kMacB;
using test::TwoHosts;

constexpr uint32_t kQkey = 0x11111111;
constexpr size_t kGrh = spec::kGrhBytes;

class Ud : public ::testing::TestWithParam<std::string> {};

struct UdPair {
  End a, b;
  explicit UdPair(TwoHosts& w, uint32_t qkey_a = kQkey, uint32_t qkey_b = kQkey) {
    a.make(*w.a, 16384, test::kAllAccess, QpType::kUd);
    b.make(*w.b, 16384, test::kAllAccess, QpType::kUd);
    w.a->connect_ud(*a.qp, qkey_a, 0xFFFFFF);  // the PSN wraps on the first datagram
    w.b->connect_ud(*b.qp, qkey_b, 77);
  }
};

// A UD SEND from a to b's QP, addressed with the GID entry sgid (a's) and b's
// GID of the same kind.
SendWqe ud_send(uint64_t id, uint32_t len, uint32_t dest_qpn, unsigned sgid, bool imm = false, uint32_t qkey = kQkey) {
  SendWqe w;
  w.wr_id = id;
  w.opcode = static_cast<uint8_t>(imm ? WrOpcode::kSendWithImm : WrOpcode::kSend);
  w.flags = 1;  // signaled
  w.length = len;
  w.imm = 0x04030201;
  w.ud_dest_qpn = dest_qpn;
  w.ud_qkey = qkey;
  w.ud_dgid = sgid < 2 ? host::link_local_gid(kMacB) : host::ipv4_gid(kIpB);
  for (int i = 0; i < 6; ++i) w.ud_dmac[i] = static_cast<uint8_t>(kMacB >> (40 - 8 * i));
  w.ud_sgid_index = static_cast<uint8_t>(sgid);
  w.ud_hop_limit = 33;
  w.ud_traffic_class = 0x48;
  w.ud_flow_label = 0x12345;
  w.ud_sl = 5;
  return w;
}

// The GRH the receiver must see: the frame's own IP header (IPv4: after 20 zero bytes).
std::vector<uint8_t> grh_of_frame(const std::vector<uint8_t>& f) {
  size_t l3 = 14;
  uint16_t type = static_cast<uint16_t>(f[12] << 8 | f[13]);
  if (type == 0x8100) {
    l3 = 18;
    type = static_cast<uint16_t>(f[16] << 8 | f[17]);
  }
  std::vector<uint8_t> g(kGrh, 0);
  if (type == 0x0800)
    std::memcpy(g.data() + 20, f.data() + l3, 20);
  else
    std::memcpy(g.data(), f.data() + l3, kGrh);
  return g;
}

size_t bth_of_frame(const std::vector<uint8_t>& f) {
  size_t l3 = 14;
  uint16_t type = static_cast<uint16_t>(f[12] << 8 | f[13]);
  if (type == 0x8100) {
    l3 = 18;
    type = static_cast<uint16_t>(f[16] << 8 | f[17]);
  }
  return type == 0x0800 ? l3 + 28 : type == 0x86DD ? l3 + 48 : l3 + 40;  // RoCE v1: the GRH alone
}

uint32_t be(const std::vector<uint8_t>& f, size_t at, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i) v = v << 8 | f[at + i];
  return v;
}

TEST_P(Ud, SendsOneDatagramOnEveryEncapsulationAndTheReceiverGetsTheGrh) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a, from_b;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    (a ? from_a : from_b).emplace_back(f, f + n);
    return true;
  };
  UdPair p(w);
  fill(*p.a.buf, 16384, 9);
  uint64_t id = 1;
  uint32_t psn = 0xFFFFFF;
  struct Enc {
    unsigned sgid;
    uint16_t ethertype;
  };
  for (const Enc e : {Enc{0, 0x8915}, Enc{1, 0x86DD}, Enc{3, 0x0800}}) {
    for (const uint32_t len : {0u, 1u, 1000u, 1024u}) {
      for (const bool imm : {false, true}) {
        SCOPED_TRACE("sgid " + std::to_string(e.sgid) + " len " + std::to_string(len) + (imm ? " imm" : ""));
        from_a.clear();
        from_b.clear();
        std::memset(p.b.buf->data(), 0xEE, 16384);
        w.b->post_recv(*p.b.qp, id, {{p.b.buf->addr(), static_cast<uint32_t>(kGrh + len), p.b.mr.key}});
        const uint32_t off = static_cast<uint32_t>(id * 7 % 512);
        w.a->post_send(*p.a.qp, ud_send(id, len, p.b.qp->qpn, e.sgid, imm), {{p.a.buf->addr() + off, len, p.a.mr.key}});
        w.settle();
        const auto sc = w.a->poll(*p.a.scq);
        ASSERT_EQ(sc.size(), 1u) << "completes once sent";
        EXPECT_EQ(sc[0].status, 0);
        EXPECT_EQ(sc[0].opcode, static_cast<uint8_t>(WcOpcode::kSend));
        EXPECT_EQ(sc[0].wr_id, id);
        ASSERT_EQ(from_a.size(), 1u) << "one packet";
        EXPECT_TRUE(from_b.empty()) << "nothing answers a datagram";
        const auto& f = from_a[0];
        EXPECT_EQ(be(f, 12, 2), e.ethertype);
        const size_t bth = bth_of_frame(f);
        EXPECT_EQ(f[bth], imm ? kUdSendOnlyImm : kUdSendOnly);
        EXPECT_EQ(f[bth + 8] & 0x80, 0) << "no AckReq";
        EXPECT_EQ(be(f, bth + 5, 3), p.b.qp->qpn);
        EXPECT_EQ(be(f, bth + 9, 3), psn);
        EXPECT_EQ(be(f, bth + 12, 4), kQkey) << "DETH Q_Key";
        EXPECT_EQ(be(f, bth + 17, 3), p.a.qp->qpn) << "DETH source QP";
        psn = (psn + 1) & 0xFFFFFF;

        const auto rc = w.b->poll(*p.b.rcq);
        ASSERT_EQ(rc.size(), 1u);
        EXPECT_EQ(rc[0].status, 0);
        EXPECT_EQ(rc[0].wr_id, id);
        EXPECT_EQ(rc[0].opcode, static_cast<uint8_t>(WcOpcode::kRecv));
        EXPECT_EQ(rc[0].byte_len, kGrh + len);
        EXPECT_EQ(rc[0].src_qp, p.a.qp->qpn);
        EXPECT_EQ(rc[0].qp_num, p.b.qp->qpn);
        EXPECT_EQ(rc[0].wc_flags, imm ? 1 | 2 : 1) << "IBV_WC_GRH (and WITH_IMM)";
        if (imm) {
    EXPECT_EQ(rc[0].imm, 0x04030201u);
  }
        EXPECT_EQ(rc[0].sl, 0) << "untagged: priority 0";
        const std::vector<uint8_t> grh(p.b.buf->data(), p.b.buf->data() + kGrh);
        EXPECT_EQ(grh, grh_of_frame(f)) << "the GRH is the header the datagram arrived with";
        EXPECT_EQ(0, std::memcmp(p.b.buf->data() + kGrh, p.a.buf->data() + off, len));
        EXPECT_EQ(static_cast<uint8_t>(p.b.buf->data()[kGrh + len]), 0xEE) << "nothing past the message";
        ++id;
      }
    }
  }
  EXPECT_EQ(w.b->counter(XportCnt::kTxAcks), 0u);
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), id - 1);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

TEST_P(Ud, AVlanGidTagsTheDatagramAndTheReceiverReportsItsPriority) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    if (a) from_a.emplace_back(f, f + n);
    return true;
  };
  ASSERT_TRUE(w.da->csr_write(kCsrGid + 32 * 3 + 20, (1u << 12) | 100));
  UdPair p(w);
  w.b->post_recv(*p.b.qp, 1, {{p.b.buf->addr(), 1000, p.b.mr.key}});
  w.a->post_send(*p.a.qp, ud_send(1, 200, p.b.qp->qpn, 3), {{p.a.buf->addr(), 200, p.a.mr.key}});
  w.settle();
  ASSERT_EQ(w.a->poll(*p.a.scq).size(), 1u);
  ASSERT_EQ(from_a.size(), 1u);
  const auto& f = from_a[0];
  EXPECT_EQ(be(f, 12, 2), 0x8100u);
  EXPECT_EQ(f[14] >> 5, 5) << "PCP = SL 5";
  EXPECT_EQ(be(f, 14, 2) & 0xFFF, 100u);
  EXPECT_EQ(f[18 + 1], 0x48) << "TOS from the address vector";
  EXPECT_EQ(f[18 + 8], 33) << "TTL from the address vector";
  const auto rc = w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].sl, 5) << "the priority it arrived with";
  const std::vector<uint8_t> grh(p.b.buf->data(), p.b.buf->data() + kGrh);
  EXPECT_EQ(grh, grh_of_frame(f));
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// The GRH repeats the IPv4 header the datagram arrived with, DF included:
// a peer's datagram without DF (and another IP ID) is placed so.
TEST_P(Ud, TheGrhRepeatsTheIpv4HeaderAsItArrivedWithoutDf) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    if (a) from_a.emplace_back(f, f + n);
    return false;  // held: b gets the edited copy
  };
  UdPair p(w);
  w.b->post_recv(*p.b.qp, 1, {{p.b.buf->addr(), 1000, p.b.mr.key}});
  w.a->post_send(*p.a.qp, ud_send(1, 100, p.b.qp->qpn, 3), {{p.a.buf->addr(), 100, p.a.mr.key}});
  w.settle();
  ASSERT_EQ(from_a.size(), 1u);
  std::vector<uint8_t> f = from_a[0];
  ASSERT_EQ(f[test::kIpv4At + 6] & 0x40, 0x40) << "our own frames carry DF";
  f[test::kIpv4At + 6] &= 0xBF;  // no DF
  f[test::kIpv4At + 4] = 0x12;   // another IP ID
  f[test::kIpv4At + 5] = 0x34;
  f[test::kIpv4At + 10] = f[test::kIpv4At + 11] = 0;
  const uint16_t csum = ipv4_checksum(f.data() + test::kIpv4At);
  f[test::kIpv4At + 10] = static_cast<uint8_t>(csum >> 8);
  f[test::kIpv4At + 11] = static_cast<uint8_t>(csum);
  test::refresh_icrc_ipv4(f);
  w.db->rx_frame(f.data(), f.size());
  w.settle();
  const auto rc = w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].byte_len, kGrh + 100);
  const std::vector<uint8_t> grh(p.b.buf->data(), p.b.buf->data() + kGrh);
  EXPECT_EQ(grh, grh_of_frame(f)) << "flags 0, ID 0x1234, its checksum";
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

TEST_P(Ud, AWrongQkeyIsDroppedAndCountedAndBit31SendsTheQpsOwn) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    if (a) from_a.emplace_back(f, f + n);
    return true;
  };
  UdPair p(w, 0x2222, kQkey);
  w.b->post_recv(*p.b.qp, 1, {{p.b.buf->addr(), 1000, p.b.mr.key}});
  // the QP's own Q_Key (0x2222) through bit 31: not b's
  w.a->post_send(*p.a.qp, ud_send(1, 64, p.b.qp->qpn, 3, false, 0x80000000u), {{p.a.buf->addr(), 64, p.a.mr.key}});
  // a wrong one in the WR
  w.a->post_send(*p.a.qp, ud_send(2, 64, p.b.qp->qpn, 3, false, 0x1234), {{p.a.buf->addr(), 64, p.a.mr.key}});
  w.settle();
  EXPECT_EQ(w.a->poll(*p.a.scq).size(), 2u) << "sent: the sender cannot know";
  ASSERT_EQ(from_a.size(), 2u);
  EXPECT_EQ(be(from_a[0], bth_of_frame(from_a[0]) + 12, 4), 0x2222u) << "bit 31: the QP's own Q_Key";
  EXPECT_EQ(be(from_a[1], bth_of_frame(from_a[1]) + 12, 4), 0x1234u);
  EXPECT_TRUE(w.b->poll(*p.b.rcq).empty());
  EXPECT_EQ(w.b->counter(XportCnt::kQkeyViolations), 2u);
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), 0u);
  // the right one: the receive WQE was kept for it
  w.a->post_send(*p.a.qp, ud_send(3, 64, p.b.qp->qpn, 3), {{p.a.buf->addr(), 64, p.a.mr.key}});
  w.settle();
  EXPECT_EQ(w.a->poll(*p.a.scq).size(), 1u);
  const auto rc = w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].wr_id, 1u);
  EXPECT_EQ(rc[0].byte_len, kGrh + 64);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

TEST_P(Ud, NoReceiveWqeDropsTheDatagramOneTooSmallCompletesWithLocLenErr) {
  TwoHosts w(GetParam());
  UdPair p(w);
  w.a->post_send(*p.a.qp, ud_send(1, 100, p.b.qp->qpn, 3), {{p.a.buf->addr(), 100, p.a.mr.key}});
  w.settle();
  EXPECT_EQ(w.a->poll(*p.a.scq).size(), 1u);
  EXPECT_EQ(w.b->counter(XportCnt::kRnrNakSent), 1u) << "out_of_buffer";
  EXPECT_EQ(w.b->counter(XportCnt::kTxAcks), 0u) << "no RNR NAK";
  // a buffer of 100 bytes: the GRH and 100 bytes do not fit
  w.b->post_recv(*p.b.qp, 7, {{p.b.buf->addr(), 100, p.b.mr.key}});
  w.a->post_send(*p.a.qp, ud_send(2, 100, p.b.qp->qpn, 3), {{p.a.buf->addr(), 100, p.a.mr.key}});
  w.settle();
  EXPECT_EQ(w.a->poll(*p.a.scq).size(), 1u);
  auto rc = w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].wr_id, 7u);
  EXPECT_EQ(rc[0].status, static_cast<uint8_t>(WcStatus::kLocLenErr));
  // the QP goes on: the next receive WQE takes the next datagram
  w.b->post_recv(*p.b.qp, 8, {{p.b.buf->addr(), 100, p.b.mr.key}});
  w.a->post_send(*p.a.qp, ud_send(3, 60, p.b.qp->qpn, 3), {{p.a.buf->addr(), 60, p.a.mr.key}});
  w.settle();
  rc = w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].wr_id, 8u);
  EXPECT_EQ(rc[0].status, 0);
  EXPECT_EQ(rc[0].byte_len, kGrh + 60);
  uint32_t v = 0;
  ASSERT_TRUE(w.db->csr_read(kCsrXportCnt + 4 * static_cast<uint32_t>(XportCnt::kRxPkts), &v));
  EXPECT_EQ(v, 1u);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

TEST_P(Ud, WhatUdCannotSendFailsLocallyAndOverTheMtuIsNotSent) {
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    TwoHosts w(GetParam());
    std::vector<std::vector<uint8_t>> from_a;
    w.pass = [&](bool a, const uint8_t* f, size_t n) {
      if (a) from_a.emplace_back(f, f + n);
      return true;
    };
    UdPair p(w);
    SendWqe s = ud_send(1, 1025, p.b.qp->qpn, 3);  // longer than the port MTU (1024)
    std::vector<Sge> sg = {{p.a.buf->addr(), 1025, p.a.mr.key}};
    uint8_t want = static_cast<uint8_t>(WcStatus::kSuccess);  // (and nothing leaves)
    if (c == 1) {
      s = ud_send(1, 64, p.b.qp->qpn, 3);
      s.opcode = static_cast<uint8_t>(WrOpcode::kRdmaWrite);
      sg = {{p.a.buf->addr(), 64, p.a.mr.key}};
      want = static_cast<uint8_t>(WcStatus::kLocQpOpErr);
    } else if (c == 2) {
      s = ud_send(1, 30, p.b.qp->qpn, 3);
      sg = {{p.a.buf->addr(), 10, p.a.mr.key}, {p.a.buf->addr() + 10, 10, p.a.mr.key},
            {p.a.buf->addr() + 20, 10, p.a.mr.key}};
      want = static_cast<uint8_t>(WcStatus::kLocQpOpErr);
    }
    w.a->post_send(*p.a.qp, s, sg);
    w.settle();
    const auto sc = w.a->poll(*p.a.scq);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, want);
    EXPECT_TRUE(from_a.empty()) << "nothing leaves";
    if (c == 0) {  // the QP goes on, the skipped datagram's PSN taken (0xFFFFFF): the next is 0
      w.a->post_send(*p.a.qp, ud_send(2, 64, p.b.qp->qpn, 3), {{p.a.buf->addr(), 64, p.a.mr.key}});
      w.settle();
      ASSERT_EQ(w.a->poll(*p.a.scq).size(), 1u);
      ASSERT_EQ(from_a.size(), 1u);
      EXPECT_EQ(be(from_a[0], bth_of_frame(from_a[0]) + 9, 3), 0u);
    }
    if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Ud, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
