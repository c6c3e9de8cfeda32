// Issue 10 at the engine (model, rtl, cosim): what a QP's frames carry from
// the GID entry at its sgid_index and from the port's knobs.
//  - a GID entry on a VLAN (CSR GID word 5) tags every frame of the QPs using
//    it, requests and ACKs alike, with PCP = SL & 7;
//  - TX_TCLASS / TX_TTL, the port's global traffic class and TTL, win over
//    the QP's own while set, for every frame, and only while set;
//  - a packet in another encapsulation than the QP's path (RoCE v1 for a
//    RoCE v2 QP) is not from its peer: dropped, counted as NO_QP.
#include <gtest/gtest.h>

#include <cstring>

#include "device.h"
#include "gen/roce_spec.h"
#include "host/engine_host.h"
#include "net/roce_frame.h"
#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::connect_pair;
using test::End;
using test::kIpA;
using test::kIpB;
using test::kMacA;
using test::kMacB;
using test::send_wqe;
using test::TwoHosts;

class Encap : public ::testing::TestWithParam<std::string> {};

struct Seen {
  bool tagged = false;
  unsigned pcp = 0, vid = 0, tos = 0, ttl = 0, opcode = 0;
};

// An IPv4 RoCEv2 frame, tagged or not.
Seen look(const std::vector<uint8_t>& f) {
  Seen s;
  size_t ip = 14;
  if (f[12] == 0x81 && f[13] == 0x00) {
    s.tagged = true;
    s.pcp = f[14] >> 5;
    s.vid = ((f[14] & 0xF) << 8) | f[15];
    ip = 18;
  }
  s.tos = f[ip + 1];
  s.ttl = f[ip + 8];
  s.opcode = f[ip + 28];
  return s;
}

void set_vlan(host::EngineHost& h, unsigned gid_index, unsigned vid) {
  ASSERT_TRUE(h.dev().csr_write(kCsrGid + 32 * gid_index + 20, vid ? (1u << 12) | vid : 0u));
}

TEST_P(Encap, VlanPcpFromSlAndTheGlobalTrafficClassAndTtl) {
  TwoHosts w(GetParam());
  std::vector<std::vector<uint8_t>> from_a, from_b;
  w.pass = [&](bool a, const uint8_t* f, size_t n) {
    (a ? from_a : from_b).emplace_back(f, f + n);
    return true;
  };
  set_vlan(*w.a, 3, 100);
  set_vlan(*w.b, 3, 100);
  End a, b;
  a.make(*w.a, 8192);
  b.make(*w.b, 8192);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB, 3, [](host::Path& pa, host::Path& pb) {
    pa.sl = 5;
    pa.traffic_class = 0x20;
    pa.hop_limit = 7;
    pb.sl = 14;  // PCP 6
    pb.traffic_class = 0x48;
    pb.hop_limit = 9;
  });
  uint64_t id = 1;
  auto exchange = [&](uint32_t len) {
    from_a.clear();
    from_b.clear();
    w.b->post_recv(*b.qp, id, {{b.buf->addr(), 8192, b.mr.key}});
    w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, id, len), {{a.buf->addr(), len, a.mr.key}});
    w.settle();
    ASSERT_EQ(w.a->poll(*a.scq).size(), 1u);
    ASSERT_EQ(w.b->poll(*b.rcq).size(), 1u);
    ++id;
  };
  exchange(3000);  // 3 packets at MTU 1024
  ASSERT_EQ(from_a.size(), 3u);
  ASSERT_GE(from_b.size(), 1u);
  for (const auto& f : from_a) {
    const Seen s = look(f);
    EXPECT_TRUE(s.tagged);
    EXPECT_EQ(s.vid, 100u);
    EXPECT_EQ(s.pcp, 5u) << "SL 5";
    EXPECT_EQ(s.tos, 0x20u);
    EXPECT_EQ(s.ttl, 7u);
  }
  for (const auto& f : from_b) {
    const Seen s = look(f);
    EXPECT_TRUE(s.tagged) << "ACKs are tagged";
    EXPECT_EQ(s.opcode, static_cast<unsigned>(kRcAck));
    EXPECT_EQ(s.pcp, 6u) << "SL 14 & 7";
    EXPECT_EQ(s.tos, 0x48u);
    EXPECT_EQ(s.ttl, 9u);
  }

  // the port's global values on a, none on b
  ASSERT_TRUE(w.da->csr_write(kCsrTxTclass, 0x100 | 0x6a));
  ASSERT_TRUE(w.da->csr_write(kCsrTxTtl, 0x100 | 64));
  uint32_t v = 0;
  ASSERT_TRUE(w.da->csr_read(kCsrTxTclass, &v));
  EXPECT_EQ(v, 0x16au);
  exchange(100);
  for (const auto& f : from_a) {
    EXPECT_EQ(look(f).tos, 0x6au);
    EXPECT_EQ(look(f).ttl, 64u);
    EXPECT_EQ(look(f).pcp, 5u);
  }
  for (const auto& f : from_b) {
    EXPECT_EQ(look(f).tos, 0x48u);
    EXPECT_EQ(look(f).ttl, 9u);
  }
  // off again: the QP's own
  ASSERT_TRUE(w.da->csr_write(kCsrTxTclass, 0x6a));  // bit 8 clear: off (the value is kept, unused)
  ASSERT_TRUE(w.da->csr_write(kCsrTxTtl, 0));
  exchange(100);
  for (const auto& f : from_a) {
    EXPECT_EQ(look(f).tos, 0x20u);
    EXPECT_EQ(look(f).ttl, 7u);
  }

  // untagged again: the VLAN is the GID entry's, read when the QP's path is set
  set_vlan(*w.a, 3, 0);
  exchange(100);
  EXPECT_TRUE(look(from_a[0]).tagged) << "a live QP keeps the path it was given";
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

TEST_P(Encap, RoceV1PacketForARoceV2QpIsDroppedAsNoQp) {
  TwoHosts w(GetParam());
  End a, b;
  a.make(*w.a, 4096);
  b.make(*w.b, 4096);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);  // GID 3: RoCE v2 / IPv4
  std::memset(b.buf->data(), 0x33, 4096);
  w.b->post_recv(*b.qp, 7, {{b.buf->addr(), 4096, b.mr.key}});
  // a's request as RoCE v1 (GRH of the IPv4-mapped GIDs), PSN and QPN right
  RoceTxHdr h;
  h.l3 = static_cast<uint8_t>(L3::kRocev1);
  h.dst_mac = kMacB;
  h.src_mac = kMacA;
  h.src_ip = host::ipv4_gid(kIpA);
  h.dst_ip = host::ipv4_gid(kIpB);
  h.ttl = 64;
  h.opcode = kRcSendOnly;
  h.pkey = static_cast<uint16_t>(kDefaultPkey);
  h.dst_qpn = b.qp->qpn;
  h.psn = 100;
  h.src_qpn = a.qp->qpn;
  const std::vector<uint8_t> pay(64, 0xEE);
  h.pay_len = static_cast<uint16_t>(pay.size());
  const auto f = roce_frame(h, pay.data());
  const uint64_t no_qp = w.b->counter(XportCnt::kNoQp);
  w.db->rx_frame(f.data(), f.size());
  w.settle();
  EXPECT_EQ(w.b->counter(XportCnt::kNoQp), no_qp + 1);
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), 0u);
  EXPECT_TRUE(w.b->poll(*b.rcq).empty());
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(b.buf->data()[i], 0x33);
  // the same request as RoCE v2 is taken
  h.l3 = static_cast<uint8_t>(L3::kIpv4);
  const auto g = roce_frame(h, pay.data());
  w.db->rx_frame(g.data(), g.size());
  w.settle();
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), 1u);
  ASSERT_EQ(w.b->poll(*b.rcq).size(), 1u);
  EXPECT_EQ(b.buf->data()[0], 0xEE);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.db->divergence(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Encap, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
