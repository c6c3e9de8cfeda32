// The whole engine through a Device (model, rtl, cosim), programmed as the
// provider does it (sim/host/engine_host.h): RC SEND / WRITE between two QPs
// of one device (internal loopback) and between two devices on a wire, and
// bad input -- wrong rkey, write past the MR end, no remote-write rights,
// wrong PSN, QP not in RTR -- each NAKed or dropped, counted, with the target
// memory unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>

#include "device.h"
#include "gen/roce_spec.h"
#include "host/engine_host.h"
#include "net/roce_frame.h"
#include "support/frames.h"
#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using host::Buffer;
using host::EngineHost;
using test::End;
using test::TwoHosts;
using test::connect_pair;
using test::fill;
using test::send_wqe;
using test::kMacA;
using test::kMacB;
using test::kIpA;
using test::kIpB;
using test::kAllAccess;

class Engine : public ::testing::TestWithParam<std::string> {};

// One RC QP on each of two devices with a 64 KiB buffer each, connected.
void connected_ends(TwoHosts& w, End& a, End& b, size_t bytes = 65536) {
  a.make(*w.a, bytes);
  b.make(*w.b, bytes);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
}

// SEND and RDMA WRITE (with and without immediate) of 1, 4096 and 65536
// bytes between two devices, every byte checked, every CQE field checked.
TEST_P(Engine, RcSendAndWriteBetweenTwoDevices) {
  TwoHosts w(GetParam());
  End a, b;
  const size_t kMax = 65536;
  connected_ends(w, a, b, kMax);
  uint64_t id = 1;
  for (const uint32_t len : {1u, 4096u, 65536u}) {
    for (const WrOpcode op : {WrOpcode::kSend, WrOpcode::kSendWithImm, WrOpcode::kRdmaWrite, WrOpcode::kRdmaWriteWithImm}) {
      SCOPED_TRACE(std::string(to_string(op)) + " " + std::to_string(len) + " bytes");
      fill(*a.buf, len, static_cast<uint32_t>(id));
      std::memset(b.buf->data(), 0, kMax);
      const bool needs_recv = op != WrOpcode::kRdmaWrite;
      if (needs_recv) w.b->post_recv(*b.qp, 1000 + id, {{b.buf->addr(), static_cast<uint32_t>(kMax), b.mr.key}});
      w.a->post_send(*a.qp, send_wqe(op, id, len, b.buf->addr(), b.mr.key), {{a.buf->addr(), len, a.mr.key}});
      w.settle();
      EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), len)) << "payload placed";
      const auto sc = w.a->poll(*a.scq);
      ASSERT_EQ(sc.size(), 1u);
      EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
      EXPECT_EQ(sc[0].wr_id, id);
      EXPECT_EQ(sc[0].qp_num, a.qp->qpn);
      const bool is_write = op == WrOpcode::kRdmaWrite || op == WrOpcode::kRdmaWriteWithImm;
      EXPECT_EQ(sc[0].opcode, static_cast<uint8_t>(is_write ? WcOpcode::kRdmaWrite : WcOpcode::kSend));
      const auto rc = w.b->poll(*b.rcq);
      ASSERT_EQ(rc.size(), needs_recv ? 1u : 0u);
      if (needs_recv) {
        EXPECT_EQ(rc[0].status, 0);
        EXPECT_EQ(rc[0].wr_id, 1000 + id);
        EXPECT_EQ(rc[0].byte_len, len);
        EXPECT_EQ(rc[0].qp_num, b.qp->qpn);
        EXPECT_EQ(rc[0].src_qp, a.qp->qpn);
        const bool imm = op != WrOpcode::kSend;
        EXPECT_EQ(rc[0].wc_flags & 2, imm ? 2 : 0);
        if (imm) {
          EXPECT_EQ(rc[0].imm, 0x11223344u);
        }
        EXPECT_EQ(rc[0].opcode,
                  static_cast<uint8_t>(op == WrOpcode::kRdmaWriteWithImm ? WcOpcode::kRecvRdmaWithImm : WcOpcode::kRecv));
      }
      ++id;
    }
  }
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), w.a->counter(XportCnt::kTxPkts));
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
    std::printf("cosim: compared %llu + %llu transactions, 0 divergences\n",
                static_cast<unsigned long long>(w.da->compared()), static_cast<unsigned long long>(w.db->compared()));
  }
}

// RDMA READ end to end: the requester asks, the peer's responder answers
// from its memory, the completer matches the responses and read_place
// writes them into the READ's local SGEs (three of them, the middle one
// empty), then the READ completes. 0 B to 64 KiB at MTU 1024 (one to 64
// responses), every byte checked; then a READ with a wrong rkey (NAK remote
// access: REM_ACCESS_ERR, the QP in ERR) and, on a fresh pair, one whose
// local SGE has a wrong lkey (LOC_PROT_ERR, nothing written).
TEST_P(Engine, RdmaReadBetweenTwoDevicesLandsInTheLocalSges) {
  TwoHosts w(GetParam());
  End a, b;
  const size_t kMax = 65536;
  a.make(*w.a, 2 * kMax);
  b.make(*w.b, kMax);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
  uint64_t id = 1;
  unsigned reads = 0;
  for (const uint32_t len : {0u, 1u, 1024u, 1025u, 4096u, 5000u, 65536u}) {
    SCOPED_TRACE(std::to_string(len) + " bytes");
    fill(*b.buf, len, static_cast<uint32_t>(40 + id));
    std::memset(a.buf->data(), 0xEE, 2 * kMax);
    // local SGEs: the first third at 0, nothing, the rest at kMax + 100
    const uint32_t l0 = len / 3, l2 = len - l0;
    w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, id, len, b.buf->addr(), b.mr.key),
                   {{a.buf->addr(), l0, a.mr.key}, {a.buf->addr() + 7, 0, a.mr.key},
                    {a.buf->addr() + kMax + 100, l2, a.mr.key}});
    w.settle();
    ++reads;
    EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), l0)) << "first SGE";
    EXPECT_EQ(0, std::memcmp(a.buf->data() + kMax + 100, b.buf->data() + l0, l2)) << "third SGE";
    EXPECT_EQ(a.buf->data()[l0], 0xEE) << "nothing past the first SGE";
    EXPECT_EQ(a.buf->data()[kMax + 99], 0xEE) << "nothing before the third";
    EXPECT_EQ(a.buf->data()[kMax + 100 + l2], 0xEE) << "nothing past the third";
    const auto sc = w.a->poll(*a.scq);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
    EXPECT_EQ(sc[0].wr_id, id);
    EXPECT_EQ(sc[0].opcode, static_cast<uint8_t>(WcOpcode::kRdmaRead));
    EXPECT_EQ(sc[0].byte_len, len);
    EXPECT_TRUE(w.b->poll(*b.rcq).empty()) << "a READ consumes no receive WQE";
    ++id;
  }
  EXPECT_EQ(w.b->counter(XportCnt::kRxReadRequests), reads);
  EXPECT_EQ(w.a->counter(XportCnt::kUnmatchedResponse), 0u);
  EXPECT_EQ(w.a->counter(XportCnt::kImpliedNakSeqErr), 0u);
  // a wrong rkey: the responder NAKs remote access, the READ fails so
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, 99, 100, b.buf->addr(), b.mr.key ^ 0x100),
                 {{a.buf->addr(), 100, a.mr.key}});
  w.settle();
  auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kRemAccessErr));
  EXPECT_EQ(w.a->counter(XportCnt::kReqRemoteAccessErr), 1u);
  // a wrong local lkey: the data is not written, the READ fails locally
  End c, d;
  c.make(*w.a, 4096);
  d.make(*w.b, 4096);
  connect_pair(*w.a, c, kMacA, kIpA, *w.b, d, kMacB, kIpB);
  fill(*d.buf, 3000, 5);
  std::memset(c.buf->data(), 0xEE, 4096);
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kRdmaRead, 7, 3000, d.buf->addr(), d.mr.key),
                 {{c.buf->addr(), 3000, c.mr.key ^ 0x100}});
  w.settle();
  sc = w.a->poll(*c.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kLocProtErr));
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(c.buf->data()[i], 0xEE) << "byte " << i << " written";
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
    std::printf("cosim: compared %llu + %llu transactions, 0 divergences\n",
                static_cast<unsigned long long>(w.da->compared()), static_cast<unsigned long long>(w.db->compared()));
  }
}

// max_rd_atomic 1: eight READs posted at once go one at a time (each waits
// for the one before to finish), interleaved with WRITEs behind them, and
// all land; max_dest_rd_atomic 0 on the responder: the READ is NAKed invalid
// request (REM_INV_REQ_ERR), as rxe answers it.
TEST_P(Engine, ReadCreditsAndNoReadResources) {
  TwoHosts w(GetParam());
  End a, b;
  a.make(*w.a, 65536);
  b.make(*w.b, 65536);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB, 3,
               [](host::Path& pa, host::Path&) { pa.max_rd_atomic = 1; });
  fill(*b.buf, 8 * 4096, 77);
  std::memset(a.buf->data(), 0xEE, 65536);
  for (uint32_t i = 0; i < 800; ++i) a.buf->data()[50000 + i] = static_cast<uint8_t>(i * 7 + 1);
  for (uint32_t i = 0; i < 8; ++i) {
    w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, 10 + i, 4096, b.buf->addr() + 4096 * i, b.mr.key),
                   {{a.buf->addr() + 4096 * i, 4096, a.mr.key}});
    w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 20 + i, 100, b.buf->addr() + 40000 + 100 * i, b.mr.key),
                   {{a.buf->addr() + 50000 + 100 * i, 100, a.mr.key}});  // (not the READ's bytes: no fence)
  }
  w.settle();
  const auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 16u);
  for (size_t k = 0; k < sc.size(); ++k) {
    EXPECT_EQ(sc[k].status, 0) << k << ": " << to_string(static_cast<WcStatus>(sc[k].status));
    EXPECT_EQ(sc[k].wr_id, k % 2 ? 20 + k / 2 : 10 + k / 2) << "in order";
  }
  EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), 8 * 4096));
  for (uint32_t i = 0; i < 8; ++i)
    EXPECT_EQ(0, std::memcmp(b.buf->data() + 40000 + 100 * i, a.buf->data() + 50000 + 100 * i, 100)) << "WRITE " << i;
  // no READ resources at the responder
  End c, d;
  c.make(*w.a, 4096);
  d.make(*w.b, 4096);
  connect_pair(*w.a, c, kMacA, kIpA, *w.b, d, kMacB, kIpB, 3,
               [](host::Path&, host::Path& pb) { pb.max_dest_rd_atomic = 0; });
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kRdmaRead, 7, 300, d.buf->addr(), d.mr.key),
                 {{c.buf->addr(), 300, c.mr.key}});
  w.settle();
  const auto e = w.a->poll(*c.scq);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_EQ(e[0].status, static_cast<uint8_t>(WcStatus::kRemInvReqErr));
  EXPECT_EQ(w.b->counter(XportCnt::kRemInvReq), 1u);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// CMP_SWAP and FETCH_ADD (docs/engine.md, "Atomics"): 48 atomics on 6
// counters, interleaved with a WRITE that sets a counter (the next atomic
// sees it) and READs of the counters (each sees every atomic before it, on
// one QP the responder executes in order). Every original value that comes
// back, every completion and the final counters are checked against values
// worked out here, one operation after the other. Then refusals: two SGEs
// (LOC_QP_OP_ERR, nothing sent), a
// misaligned address (REM_INV_REQ_ERR) and an MR without REMOTE_ATOMIC
// (REM_ACCESS_ERR), each on its own QP pair.
TEST_P(Engine, AtomicsReturnTheOriginalAndUpdateMemoryInOrder) {
  TwoHosts w(GetParam());
  End a, b;
  a.make(*w.a, 65536);
  b.make(*w.b, 65536);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB, 3,
               [](host::Path&, host::Path& pb) { pb.access |= static_cast<uint8_t>(Access::kRemoteAtomic); });
  constexpr unsigned kCounters = 6;
  const uint64_t base = b.buf->addr() + 0x1000;  // the counters: 8-byte aligned
  auto load64 = [](const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; };
  uint64_t want[kCounters];
  std::mt19937_64 rng(5);
  for (unsigned c = 0; c < kCounters; ++c) {
    want[c] = rng();
    std::memcpy(b.buf->data() + 0x1000 + 8 * c, &want[c], 8);
  }
  std::memset(a.buf->data(), 0xEE, 65536);
  struct Op {
    WrOpcode op;
    uint64_t wr_id, orig;  // orig: what the remote counter held before it
    unsigned c;
    uint64_t read_value;   // a READ: what the counter holds when it reads
  };
  std::vector<Op> ops;
  uint64_t id = 1;
  for (unsigned k = 0; k < 48; ++k) {
    const unsigned c = static_cast<unsigned>(rng() % kCounters);
    const uint64_t res = a.buf->addr() + 8 * k;  // where its original lands
    if (k == 20) {  // a WRITE sets counter c; the atomic after it must see that
      const uint64_t v = 0x0123456789ABCDEFull;
      std::memcpy(a.buf->data() + 0x8000, &v, 8);
      w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, id, 8, base + 8 * c, b.mr.key),
                     {{a.buf->addr() + 0x8000, 8, a.mr.key}});
      ops.push_back({WrOpcode::kRdmaWrite, id++, 0, c, 0});
      want[c] = v;
    }
    if (k % 8 == 7) {  // a READ of counter c: sees every atomic before it
      w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, id, 8, base + 8 * c, b.mr.key),
                     {{a.buf->addr() + 0x4000 + 8 * k, 8, a.mr.key}});
      ops.push_back({WrOpcode::kRdmaRead, id++, 0, c, want[c]});
    }
    SendWqe wqe;
    const bool cas = rng() % 2;
    if (cas) {
      const bool match = rng() % 3 != 0;
      wqe = send_wqe(WrOpcode::kAtomicCmpAndSwp, id, 8, base + 8 * c, b.mr.key);
      wqe.atomic_cmp_add = match ? want[c] : want[c] ^ 1;
      wqe.atomic_swap = rng();
      ops.push_back({WrOpcode::kAtomicCmpAndSwp, id++, want[c], c, 0});
      if (match) want[c] = wqe.atomic_swap;
    } else {
      wqe = send_wqe(WrOpcode::kAtomicFetchAndAdd, id, 8, base + 8 * c, b.mr.key);
      wqe.atomic_cmp_add = k == 3 ? ~0ull : rng();  // (one that wraps modulo 2^64)
      ops.push_back({WrOpcode::kAtomicFetchAndAdd, id++, want[c], c, 0});
      want[c] += wqe.atomic_cmp_add;
    }
    // after a READ of its counter, fenced: otherwise it may overtake the READ's data (IBTA)
    if (k % 8 == 7) wqe.flags |= 8;
    w.a->post_send(*a.qp, wqe, {{res, 8, a.mr.key}});
  }
  w.settle();
  const auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), ops.size());
  unsigned k = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    const Op& o = ops[i];
    EXPECT_EQ(sc[i].status, 0) << i << ": " << to_string(static_cast<WcStatus>(sc[i].status));
    EXPECT_EQ(sc[i].wr_id, o.wr_id) << "in order";
    if (o.op == WrOpcode::kRdmaRead) {
      EXPECT_EQ(load64(a.buf->data() + 0x4000 + 8 * k), o.read_value) << "READ " << i;
      continue;
    }
    if (o.op == WrOpcode::kRdmaWrite) continue;
    const bool cas = o.op == WrOpcode::kAtomicCmpAndSwp;
    EXPECT_EQ(sc[i].opcode, static_cast<uint8_t>(cas ? WcOpcode::kCompSwap : WcOpcode::kFetchAdd)) << i;
    EXPECT_EQ(sc[i].byte_len, 8u) << i;
    EXPECT_EQ(load64(a.buf->data() + 8 * k), o.orig) << "atomic " << k << " (counter " << o.c << ")";
    ++k;
  }
  for (unsigned c = 0; c < kCounters; ++c)
    EXPECT_EQ(load64(b.buf->data() + 0x1000 + 8 * c), want[c]) << "counter " << c;
  for (unsigned i = 8 * 48; i < 0x4000; ++i) ASSERT_EQ(a.buf->data()[i], 0xEE) << "nothing else written at " << i;
  // an atomic with two SGEs (4 + 4 bytes; the second would lie on the operands): a local QP error
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kAtomicFetchAndAdd, 99, 8, base, b.mr.key),
                 {{a.buf->addr() + 0x6000, 4, a.mr.key}, {a.buf->addr() + 0x6004, 4, a.mr.key}});
  w.settle();
  const auto two = w.a->poll(*a.scq);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].status, static_cast<uint8_t>(WcStatus::kLocQpOpErr));
  for (unsigned c = 0; c < kCounters; ++c)
    EXPECT_EQ(load64(b.buf->data() + 0x1000 + 8 * c), want[c]) << "counter " << c << " untouched";

  // refusals: a misaligned address; an MR that grants no REMOTE_ATOMIC
  End c, d, e, f;
  c.make(*w.a, 4096);
  d.make(*w.b, 4096);
  e.make(*w.a, 4096);
  f.make(*w.b, 4096, kAllAccess & ~static_cast<uint8_t>(Access::kRemoteAtomic));
  auto atomic_qp = [](host::Path&, host::Path& pb) { pb.access |= static_cast<uint8_t>(Access::kRemoteAtomic); };
  connect_pair(*w.a, c, kMacA, kIpA, *w.b, d, kMacB, kIpB, 3, atomic_qp);
  connect_pair(*w.a, e, kMacA, kIpA, *w.b, f, kMacB, kIpB, 3, atomic_qp);
  std::memset(d.buf->data(), 0x5A, 4096);
  std::memset(f.buf->data(), 0x5A, 4096);
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kAtomicFetchAndAdd, 7, 8, d.buf->addr() + 4, d.mr.key),
                 {{c.buf->addr(), 8, c.mr.key}});
  w.a->post_send(*e.qp, send_wqe(WrOpcode::kAtomicFetchAndAdd, 8, 8, f.buf->addr() + 8, f.mr.key),
                 {{e.buf->addr(), 8, e.mr.key}});
  w.settle();
  const auto ec = w.a->poll(*c.scq), ee = w.a->poll(*e.scq);
  ASSERT_EQ(ec.size(), 1u);
  ASSERT_EQ(ee.size(), 1u);
  EXPECT_EQ(ec[0].status, static_cast<uint8_t>(WcStatus::kRemInvReqErr));
  EXPECT_EQ(ee[0].status, static_cast<uint8_t>(WcStatus::kRemAccessErr));
  for (unsigned i = 0; i < 4096; ++i) {
    ASSERT_EQ(d.buf->data()[i], 0x5A) << i;
    ASSERT_EQ(f.buf->data()[i], 0x5A) << i;
  }
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// Memory windows end to end (IBTA 10.6.7, as rxe): B allocates windows on
// its MR (registered with MW_BIND), binds them with BIND_MW work requests
// (CQE BIND_MW), and A's WRITEs through a window's rkey land inside the
// window and nowhere else. A SEND_WITH_INV from A invalidates B's type 2
// window (B's receive CQE says WITH_INV and carries the rkey); LOCAL_INV
// does it on B's side (CQE LOCAL_INV); a type 1 window is bound again
// freely. Every later access through an invalidated window, one outside a
// window, and one through a type 2 window by another QP of its PD is NAKed
// remote access error with B's memory unchanged; a bind onto an MR without
// MW_BIND fails MW_BIND_ERR.
TEST_P(Engine, MemoryWindowsBindInvalidateAndSendWithInvalidate) {
  TwoHosts w(GetParam());
  constexpr uint8_t kMwBind = static_cast<uint8_t>(kAccessMwBind);
  const auto alloc_mw = [&](uint32_t pd, uint8_t type) {
    CmdAllocMw m;
    m.pd = pd;
    m.type = type;
    uint8_t args[64] = {};
    m.store(args);
    const auto r = w.b->command(CmdOp::kAllocMw, args);
    EXPECT_TRUE(r.ok()) << to_string(r.status);
    return r.res[0];
  };
  const auto next_key = [](uint32_t k) { return (k & ~0xFFu) | ((k + 1) & 0xFFu); };  // ibv_inc_rkey
  const auto bind_wqe = [](uint64_t id, uint32_t rkey, uint32_t lkey, uint64_t va, uint32_t len, uint8_t acc) {
    SendWqe b = send_wqe(WrOpcode::kBindMw, id, len, va, rkey);
    b.bind_mr_lkey = lkey;
    b.bind_access = acc;
    return b;
  };
  const auto inv_wqe = [](WrOpcode op, uint64_t id, uint32_t rkey, uint32_t len) {
    SendWqe s = send_wqe(op, id, len);
    s.imm = rkey;  // invalidate_rkey, a number
    return s;
  };
  const auto one = [](std::vector<Cqe> v) {
    EXPECT_EQ(v.size(), 1u);
    return v.empty() ? Cqe{} : v[0];
  };
  constexpr uint8_t kRw = static_cast<uint8_t>(Access::kRemoteWrite) | static_cast<uint8_t>(Access::kRemoteRead);
  End a, b, c, d;
  a.make(*w.a, 65536);
  b.make(*w.b, 65536, kAllAccess | kMwBind);
  c.make(*w.a, 4096);
  d.make(*w.b, 4096, kAllAccess | kMwBind);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
  connect_pair(*w.a, c, kMacA, kIpA, *w.b, d, kMacB, kIpB);
  std::memset(b.buf->data(), 0x5A, 65536);
  fill(*a.buf, 65536, 7);
  std::vector<uint8_t> want(b.buf->data(), b.buf->data() + 65536);
  const uint64_t win_va = b.buf->addr() + 0x1000;

  // type 2: bound by B's QP to [+0x1000, +0x2000) with remote write and read
  uint32_t t2 = next_key(alloc_mw(b.pd, 2));
  w.b->post_send(*b.qp, bind_wqe(1, t2, b.mr.key, win_va, 0x1000, kRw), {});
  w.settle();
  Cqe e = one(w.b->poll(*b.scq));
  EXPECT_EQ(e.status, 0) << to_string(static_cast<WcStatus>(e.status));
  EXPECT_EQ(e.opcode, static_cast<uint8_t>(WcOpcode::kBindMw));
  EXPECT_EQ(e.wr_id, 1u);
  // A writes 300 bytes through it
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 2, 300, win_va + 0x100, t2), {{a.buf->addr(), 300, a.mr.key}});
  w.settle();
  EXPECT_EQ(one(w.a->poll(*a.scq)).status, 0);
  std::memcpy(want.data() + 0x1100, a.buf->data(), 300);
  EXPECT_EQ(0, std::memcmp(b.buf->data(), want.data(), 65536)) << "the WRITE landed in the window only";
  // A's SEND_WITH_INV of that rkey: B's receive completes WITH_INV, the rkey in imm (IETH bytes in wire order)
  w.b->post_recv(*b.qp, 50, {{b.buf->addr() + 0x8000, 4096, b.mr.key}});
  w.a->post_send(*a.qp, inv_wqe(WrOpcode::kSendWithInv, 3, t2, 2000), {{a.buf->addr() + 0x400, 2000, a.mr.key}});
  w.settle();
  e = one(w.a->poll(*a.scq));
  EXPECT_EQ(e.status, 0) << to_string(static_cast<WcStatus>(e.status));
  EXPECT_EQ(e.opcode, static_cast<uint8_t>(WcOpcode::kSend));
  e = one(w.b->poll(*b.rcq));
  EXPECT_EQ(e.status, 0) << to_string(static_cast<WcStatus>(e.status));
  EXPECT_EQ(e.opcode, static_cast<uint8_t>(WcOpcode::kRecv));
  EXPECT_EQ(e.wc_flags, 8u) << "IBV_WC_WITH_INV";
  EXPECT_EQ(__builtin_bswap32(e.imm), t2) << "the invalidated rkey";
  EXPECT_EQ(e.byte_len, 2000u);
  std::memcpy(want.data() + 0x8000, a.buf->data() + 0x400, 2000);
  // bound again with a new key: a type 2 window is free again after the invalidation
  const uint32_t t2b = next_key(t2);
  w.b->post_send(*b.qp, bind_wqe(4, t2b, b.mr.key, win_va, 0x800, kRw), {});
  // type 1 on QP d's side, bound twice (a type 1 window is bound again freely)
  uint32_t t1 = next_key(alloc_mw(d.pd, 1));
  w.b->post_send(*d.qp, bind_wqe(5, t1, d.mr.key, d.buf->addr(), 4096, kRw), {});
  t1 = next_key(t1);
  w.b->post_send(*d.qp, bind_wqe(6, t1, d.mr.key, d.buf->addr() + 0x800, 0x800, kRw), {});
  w.settle();
  EXPECT_EQ(one(w.b->poll(*b.scq)).status, 0);
  const auto dc = w.b->poll(*d.scq);
  ASSERT_EQ(dc.size(), 2u);
  EXPECT_EQ(dc[0].status, 0);
  EXPECT_EQ(dc[1].status, 0);
  // C writes through the type 1 window (any QP of its PD may use it)
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kRdmaWrite, 7, 64, d.buf->addr() + 0x900, t1), {{c.buf->addr(), 64, c.mr.key}});
  w.settle();
  EXPECT_EQ(one(w.a->poll(*c.scq)).status, 0);
  // B invalidates its type 2 window locally: LOCAL_INV
  w.b->post_send(*b.qp, inv_wqe(WrOpcode::kLocalInv, 8, t2b, 0), {});
  w.settle();
  e = one(w.b->poll(*b.scq));
  EXPECT_EQ(e.status, 0) << to_string(static_cast<WcStatus>(e.status));
  EXPECT_EQ(e.opcode, static_cast<uint8_t>(WcOpcode::kLocalInv));
  EXPECT_EQ(0, std::memcmp(b.buf->data(), want.data(), 65536));
  // refusals, B's memory unchanged: a WRITE through the invalidated window (A)
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 9, 64, win_va, t2b), {{a.buf->addr(), 64, a.mr.key}});
  w.settle();
  EXPECT_EQ(one(w.a->poll(*a.scq)).status, static_cast<uint8_t>(WcStatus::kRemAccessErr));
  // C writes past its type 1 window (inside the MR)
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kRdmaWrite, 10, 64, d.buf->addr() + 0x7F0, t1), {{c.buf->addr(), 64, c.mr.key}});
  w.settle();
  EXPECT_EQ(one(w.a->poll(*c.scq)).status, static_cast<uint8_t>(WcStatus::kRemAccessErr));
  EXPECT_EQ(0, std::memcmp(b.buf->data(), want.data(), 65536));
  // a SEND_WITH_INV of an rkey that is no type 2 window of the receiver's QP
  // (a region's): NAK invalid request, both sides fail with REM_INV_REQ_ERR
  End i, j;
  i.make(*w.a, 4096);
  j.make(*w.b, 4096, kAllAccess | kMwBind);
  connect_pair(*w.a, i, kMacA, kIpA, *w.b, j, kMacB, kIpB);
  w.b->post_recv(*j.qp, 90, {{j.buf->addr(), 4096, j.mr.key}});
  w.a->post_send(*i.qp, inv_wqe(WrOpcode::kSendWithInv, 12, j.mr.key, 100), {{i.buf->addr(), 100, i.mr.key}});
  w.settle();
  EXPECT_EQ(one(w.a->poll(*i.scq)).status, static_cast<uint8_t>(WcStatus::kRemInvReqErr));
  e = one(w.b->poll(*j.rcq));
  EXPECT_EQ(e.status, static_cast<uint8_t>(WcStatus::kRemInvReqErr)) << "rxe's status on the receiving side";
  EXPECT_EQ(e.wr_id, 90u);
  // a bind onto an MR without MW_BIND (a fresh QP of d's PD: the NAKs put d in ERR): MW_BIND_ERR
  End g, h;
  g.make(*w.a, 4096);
  h.pd = d.pd;
  h.scq = w.b->create_cq(8);
  h.rcq = w.b->create_cq(8);
  h.qp = w.b->create_qp(d.pd, *h.scq, *h.rcq, 7, 7);
  h.buf = std::make_unique<host::Buffer>(4096);
  h.mr = w.b->reg_mr(d.pd, h.buf->data(), 4096, kAllAccess);
  connect_pair(*w.a, g, kMacA, kIpA, *w.b, h, kMacB, kIpB);
  // first, the type 1 window unbound by a zero-length bind without an MR
  // (ibv_bind_mw with mr NULL), from another QP of its PD
  w.b->post_send(*h.qp, bind_wqe(13, next_key(t1), 0, 0, 0, 0), {});
  w.settle();
  e = one(w.b->poll(*h.scq));
  EXPECT_EQ(e.status, 0) << to_string(static_cast<WcStatus>(e.status));
  EXPECT_EQ(e.opcode, static_cast<uint8_t>(WcOpcode::kBindMw));
  w.b->post_send(*h.qp, bind_wqe(11, next_key(alloc_mw(d.pd, 2)), h.mr.key, h.buf->addr(), 64, kRw), {});
  w.settle();
  EXPECT_EQ(one(w.b->poll(*h.scq)).status, static_cast<uint8_t>(WcStatus::kMwBindErr));
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// 16 SGEs (MAX_SGE) on both sides: a SEND gathered from 16 pieces of A's
// buffer into 16 pieces of B's receive WQE, a WRITE gathered from 16, a READ
// scattered into 16; the WQEs' SGEs past the sixth are read after their
// first 128 bytes. Pieces of odd sizes, some crossing 4 KiB pages, one empty.
TEST_P(Engine, SixteenSgesGatherAndScatterOnBothSides) {
  TwoHosts w(GetParam());
  End a, b;
  a.make(*w.a, 1 << 20);
  b.make(*w.b, 1 << 20);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
  std::mt19937 rng(16);
  // n pieces of buf at [base, base + span): sizes summing to len, spaced apart
  const auto pieces = [&](const End& e, uint64_t base, uint32_t len, unsigned n) {
    std::vector<Sge> v;
    uint64_t at = e.buf->addr() + base;
    uint32_t left = len;
    for (unsigned i = 0; i < n; ++i) {
      const uint32_t k = i + 1 == n ? left : i == 5 ? 0 : std::min<uint32_t>(left, 1 + rng() % (2 * len / n));
      Sge g;
      g.addr = at;
      g.length = k;
      g.lkey = e.mr.key;
      v.push_back(g);
      at += k + 4000 + rng() % 300;  // gaps: some pieces cross a 4 KiB page
      left -= k;
    }
    return v;
  };
  const auto gather = [](const std::vector<Sge>& v) {
    std::vector<uint8_t> out;
    for (const Sge& g : v) {
      const auto* p = reinterpret_cast<const uint8_t*>(g.addr);
      out.insert(out.end(), p, p + g.length);
    }
    return out;
  };
  fill(*a.buf, 1 << 20, 3);
  fill(*b.buf, 1 << 20, 9);
  const uint32_t len = 20000;
  // SEND: 16 pieces of A into 16 pieces of B
  const auto src = pieces(a, 0x1000, len, 16), dst = pieces(b, 0x1000, len, 16);
  w.b->post_recv(*b.qp, 70, dst);
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, 1, len), src);
  w.settle();
  EXPECT_EQ(gather(src), gather(dst)) << "SEND 16 -> 16";
  auto sc = w.a->poll(*a.scq);
  auto rc = w.b->poll(*b.rcq);
  ASSERT_EQ(sc.size(), 1u);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
  EXPECT_EQ(rc[0].status, 0) << to_string(static_cast<WcStatus>(rc[0].status));
  EXPECT_EQ(rc[0].byte_len, len);
  // WRITE: 16 pieces of A to one range of B; READ: that range back into 16 pieces of A
  const auto wsrc = pieces(a, 0x60000, len, 16), rdst = pieces(a, 0xC0000, len, 16);
  const uint64_t target = b.buf->addr() + 0x80000;
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 2, len, target, b.mr.key), wsrc);
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, 3, len, target, b.mr.key), rdst);
  w.settle();
  const auto want = gather(wsrc);
  EXPECT_EQ(0, std::memcmp(b.buf->data() + 0x80000, want.data(), len)) << "WRITE 16 -> 1";
  EXPECT_EQ(gather(rdst), want) << "READ 1 -> 16";
  sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 2u);
  EXPECT_EQ(sc[0].status, 0);
  EXPECT_EQ(sc[1].status, 0);
  // one 4096-byte packet (MTU 4096) into 16 receive SGEs of 256 bytes that
  // each straddle a page end: 32 pieces, the most one packet makes (the
  // responder's speculative piece FIFO holds exactly that many)
  End c, e;
  c.make(*w.a, 65536);
  e.make(*w.b, 1 << 20);
  connect_pair(*w.a, c, kMacA, kIpA, *w.b, e, kMacB, kIpB, 5);
  fill(*c.buf, 4096, 21);
  std::vector<Sge> straddle;
  for (unsigned i = 0; i < 16; ++i) {
    Sge g;
    g.addr = e.buf->addr() + 0x1000 * (2 * i + 1) - 128;  // 128 bytes before a page end, 128 after
    g.length = 256;
    g.lkey = e.mr.key;
    straddle.push_back(g);
  }
  w.b->post_recv(*e.qp, 80, straddle);
  w.a->post_send(*c.qp, send_wqe(WrOpcode::kSend, 5, 4096), {{c.buf->addr(), 4096, c.mr.key}});
  w.settle();
  EXPECT_EQ(gather(straddle), std::vector<uint8_t>(c.buf->data(), c.buf->data() + 4096)) << "32 pieces";
  const auto ec = w.b->poll(*e.rcq);
  ASSERT_EQ(ec.size(), 1u);
  EXPECT_EQ(ec[0].status, 0) << to_string(static_cast<WcStatus>(ec[0].status));
  EXPECT_EQ(ec[0].byte_len, 4096u);
  EXPECT_EQ(w.a->poll(*c.scq).size(), 1u);
  // 17 SGEs: a local QP operation error
  auto seventeen = pieces(a, 0x1000, 17, 17);
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 4, 17, target, b.mr.key), seventeen);
  w.settle();
  sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kLocQpOpErr));
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// Two QPs of one device talk through the internal loopback, as on real NICs.
TEST_P(Engine, TwoQpsOfOneDeviceLoopBack) {
  auto dev = make_device(GetParam());
  uint64_t wire_frames = 0;
  dev->set_tx_sink([&](const uint8_t*, size_t) { ++wire_frames; });
  EngineHost h(*dev);
  h.configure_port(kMacA, kIpA);
  End a, b;
  a.make(h, 8192);
  b.make(h, 8192);
  connect_pair(h, a, kMacA, kIpA, h, b, kMacA, kIpA);
  fill(*a.buf, 5000, 7);
  h.post_recv(*b.qp, 77, {{b.buf->addr(), 8192, b.mr.key}});
  h.post_send(*a.qp, send_wqe(WrOpcode::kSend, 5, 5000), {{a.buf->addr(), 5000, a.mr.key}});
  dev->run(1'000'000);
  EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), 5000));
  const auto rc = h.poll(*b.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].byte_len, 5000u);
  ASSERT_EQ(h.poll(*a.scq).size(), 1u);
  EXPECT_EQ(wire_frames, 0u) << "frames to the own MAC stay inside";
  EXPECT_GT(h.counter(XportCnt::kLoopback), 0u);
}

// Over the internal loopback the responder's own READ responses come back
// through the receive path its requests arrive on. An atomic behind a long
// READ must therefore not wait for the sender to finish that READ: the
// responses would queue behind the requests after the atomic, and the engine
// would deadlock. (IBTA lets later operations overtake a READ's data; a
// requester that needs the order fences, as the atomics test does.)
TEST_P(Engine, LongReadThenAtomicThenMoreRequestsOverTheLoopbackAllComplete) {
  auto dev = make_device(GetParam());
  dev->set_tx_sink([](const uint8_t*, size_t) {});
  EngineHost h(*dev);
  h.configure_port(kMacA, kIpA);
  End a, b;
  // 256 KiB: far past what the loopback and the sender's queues hold. The
  // RTL's checker once walked a READ's page runs itself and deadlocked here
  // beyond about 32 KiB; responder_tx walks them now (its own MR port), so
  // the checker takes the next requests while the responses go out.
  const uint32_t kRead = 256 * 1024;
  a.make(h, kRead + 8192);
  b.make(h, kRead + 8192);
  connect_pair(h, a, kMacA, kIpA, h, b, kMacA, kIpA, 3,
               [](host::Path&, host::Path& pb) { pb.access |= static_cast<uint8_t>(Access::kRemoteAtomic); });
  fill(*b.buf, kRead, 9);
  fill(*a.buf, kRead + 8192, 4);
  const uint64_t counter = 1000;
  std::memcpy(b.buf->data() + kRead, &counter, 8);
  h.post_recv(*b.qp, 70, {{b.buf->addr() + kRead + 4096, 1024, b.mr.key}});
  h.post_send(*a.qp, send_wqe(WrOpcode::kRdmaRead, 1, kRead, b.buf->addr(), b.mr.key),
              {{a.buf->addr(), kRead, a.mr.key}});
  SendWqe add = send_wqe(WrOpcode::kAtomicFetchAndAdd, 2, 8, b.buf->addr() + kRead, b.mr.key);
  add.atomic_cmp_add = 5;
  h.post_send(*a.qp, add, {{a.buf->addr() + kRead, 8, a.mr.key}});
  h.post_send(*a.qp, send_wqe(WrOpcode::kSend, 3, 512), {{a.buf->addr() + kRead + 512, 512, a.mr.key}});
  h.post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 4, 256, b.buf->addr() + kRead + 2048, b.mr.key),
              {{a.buf->addr() + kRead + 1024, 256, a.mr.key}});
  uint64_t cycles = 0;
  for (uint64_t n = 1; (n != 0 || !dev->idle()) && cycles < 3'000'000;) cycles += n = dev->run(10000);
  ASSERT_TRUE(dev->idle()) << "still busy after " << cycles << " cycles: deadlocked";
  const auto sc = h.poll(*a.scq);
  ASSERT_EQ(sc.size(), 4u);
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(sc[i].status, 0) << i;
    EXPECT_EQ(sc[i].wr_id, i + 1u) << "in order";
  }
  ASSERT_EQ(h.poll(*b.rcq).size(), 1u);
  EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), kRead)) << "the READ's data";
  uint64_t orig = 0, now = 0;
  std::memcpy(&orig, a.buf->data() + kRead, 8);
  std::memcpy(&now, b.buf->data() + kRead, 8);
  EXPECT_EQ(orig, counter);
  EXPECT_EQ(now, counter + 5);
  EXPECT_EQ(0, std::memcmp(a.buf->data() + kRead + 512, b.buf->data() + kRead + 4096, 512)) << "the SEND";
  EXPECT_EQ(0, std::memcmp(a.buf->data() + kRead + 1024, b.buf->data() + kRead + 2048, 256)) << "the WRITE";
  if (GetParam() == "cosim") {
    EXPECT_EQ(dev->divergence(), "");
  }
}

// A WRITE the responder must refuse: NAK remote access error, counted, the
// requester's CQE says REM_ACCESS_ERR, and the target memory is untouched.
void expect_refused_write(const std::string& backend, uint8_t target_access, uint64_t offset, uint32_t len,
                          bool bad_key) {
  TwoHosts w(backend);
  End a, b;
  a.make(*w.a, 8192);
  b.make(*w.b, 8192, target_access);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
  fill(*a.buf, 8192, 3);
  std::memset(b.buf->data(), 0x5A, 8192);
  const uint32_t rkey = bad_key ? b.mr.key ^ 0x100 : b.mr.key;
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 9, len, b.buf->addr() + offset, rkey),
                 {{a.buf->addr(), len, a.mr.key}});
  w.settle();
  for (size_t i = 0; i < 8192; ++i) ASSERT_EQ(b.buf->data()[i], 0x5A) << "byte " << i << " written";
  const auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kRemAccessErr));
  EXPECT_EQ(w.b->counter(XportCnt::kRemAccessErr), 1u);
  EXPECT_EQ(w.a->counter(XportCnt::kNakReceived), 1u);
  // hw_counters as mlx5 names them: the requester saw one remote access
  // error (an error CQE, no flush); the responder completed nothing
  EXPECT_EQ(w.a->counter(XportCnt::kReqRemoteAccessErr), 1u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqCqeErr), 1u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqCqeFlushErr), 0u);
  EXPECT_EQ(w.b->counter(XportCnt::kRespCqeErr), 0u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqRemoteInvReq), 0u);
}

TEST_P(Engine, WriteWithWrongRkeyIsNakedAndWritesNothing) { expect_refused_write(GetParam(), kAllAccess, 0, 512, true); }
TEST_P(Engine, WritePastTheMrEndIsNakedAndWritesNothing) { expect_refused_write(GetParam(), kAllAccess, 8000, 512, false); }
TEST_P(Engine, WriteWithoutRemoteWriteRightsIsNakedAndWritesNothing) {
  expect_refused_write(GetParam(), 0x1 /* local write only */, 0, 512, false);
}

// A SEND longer than the receive WQE's buffers: the responder completes
// that receive with LOC_LEN_ERR, NAKs invalid request and flushes its other
// receive; the requester completes with REM_INV_REQ_ERR. The hw_counters
// (mlx5 names) split it by side.
TEST_P(Engine, SendLongerThanTheReceiveBufferFailsBothSidesAndIsCountedBySide) {
  TwoHosts w(GetParam());
  End a, b;
  a.make(*w.a, 8192);
  b.make(*w.b, 8192);
  connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);
  w.b->post_recv(*b.qp, 1, {{b.buf->addr(), 100, b.mr.key}});
  w.b->post_recv(*b.qp, 2, {{b.buf->addr() + 100, 100, b.mr.key}});
  w.a->post_send(*a.qp, send_wqe(WrOpcode::kSend, 7, 300), {{a.buf->addr(), 300, a.mr.key}});
  w.settle();
  const auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kRemInvReqErr));
  const auto rc = w.b->poll(*b.rcq);
  ASSERT_EQ(rc.size(), 2u);
  EXPECT_EQ(rc[0].status, static_cast<uint8_t>(WcStatus::kLocLenErr));
  EXPECT_EQ(rc[1].status, static_cast<uint8_t>(WcStatus::kWrFlushErr));
  EXPECT_EQ(w.b->counter(XportCnt::kRespLocalLengthErr), 1u);
  EXPECT_EQ(w.b->counter(XportCnt::kRespCqeErr), 1u);
  EXPECT_EQ(w.b->counter(XportCnt::kRespCqeFlushErr), 1u);
  EXPECT_EQ(w.b->counter(XportCnt::kCqeErr), 2u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqRemoteInvReq), 1u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqCqeErr), 1u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqCqeFlushErr), 0u);
  EXPECT_EQ(w.a->counter(XportCnt::kReqRemoteAccessErr), 0u);
  // both QPs are in ERR (the responder's after its fatal NAK, the
  // requester's after the error completion), as QUERY_QP shows
  for (auto [h, qpn] : {std::pair{w.a.get(), a.qp->qpn}, std::pair{w.b.get(), b.qp->qpn}}) {
    const host::CmdResult q = h->command(CmdOp::kQueryQp, qpn);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q.res[0], static_cast<uint32_t>(QpState::kErr));
  }
  EXPECT_EQ(w.da->divergence(), "");
  EXPECT_EQ(w.db->divergence(), "");
}

// ACK coalescing (CSR ACK_REQ = n): a 100-packet WRITE from PSN 100 asks
// for an ACK on its last packet and on every PSN ending in n one bits; the
// responder acknowledges exactly those. Values above 15 are refused.
TEST_P(Engine, AckRequestIntervalDecidesHowOftenTheResponderAcknowledges) {
  for (const auto& [n, acks] : {std::pair{0u, 100u}, std::pair{4u, 7u}, std::pair{6u, 3u}, std::pair{15u, 1u}}) {
    TwoHosts w(GetParam());
    End a, b;
    a.make(*w.a, 1 << 17);
    b.make(*w.b, 1 << 17);
    connect_pair(*w.a, a, kMacA, kIpA, *w.b, b, kMacB, kIpB);  // MTU 1024, a's first PSN 100
    if (n != 6) {
      ASSERT_TRUE(w.da->csr_write(kCsrAckReq, n)) << "n " << n;
    }
    uint32_t v = 0;
    ASSERT_TRUE(w.da->csr_read(kCsrAckReq, &v));
    EXPECT_EQ(v, n);
    fill(*a.buf, 102400, n);
    w.a->post_send(*a.qp, send_wqe(WrOpcode::kRdmaWrite, 1, 102400, b.buf->addr(), b.mr.key),
                   {{a.buf->addr(), 102400, a.mr.key}});
    w.settle();
    const auto sc = w.a->poll(*a.scq);
    ASSERT_EQ(sc.size(), 1u);
    EXPECT_EQ(sc[0].status, 0);
    EXPECT_EQ(0, std::memcmp(a.buf->data(), b.buf->data(), 102400));
    EXPECT_EQ(w.a->counter(XportCnt::kTxPkts), 100u);
    EXPECT_EQ(w.b->counter(XportCnt::kTxAcks), acks) << "ACK_REQ " << n;
    EXPECT_EQ(w.a->counter(XportCnt::kRxAcks), acks) << "ACK_REQ " << n;
    EXPECT_FALSE(w.da->csr_write(kCsrAckReq, 16)) << "16 is refused";
    ASSERT_TRUE(w.da->csr_read(kCsrAckReq, &v));
    EXPECT_EQ(v, n) << "and changes nothing";
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

// A crafted request header from "A" (QPN 1) to B's QP, RoCEv2/IPv4, AckReq.
RoceTxHdr peer_request(uint8_t opcode, uint32_t dst_qpn, uint32_t psn) {
  RoceTxHdr h;
  h.l3 = static_cast<uint8_t>(L3::kIpv4);
  h.dst_mac = kMacB;
  h.src_mac = kMacA;
  h.src_ip = host::ipv4_gid(kIpA);
  h.dst_ip = host::ipv4_gid(kIpB);
  h.ttl = 64;
  h.opcode = opcode;
  h.pkey = 0xFFFF;
  h.dst_qpn = dst_qpn;
  h.ack_req = 1;
  h.psn = psn;
  h.src_qpn = 1;
  return h;
}

// A crafted frame: RC SEND_ONLY from "A" to B's QP with the given PSN.
std::vector<uint8_t> send_only_frame(uint32_t dst_qpn, uint32_t psn, const std::vector<uint8_t>& payload) {
  RoceTxHdr h = peer_request(kRcSendOnly, dst_qpn, psn);
  h.pay_len = static_cast<uint16_t>(payload.size());
  return roce_frame(h, payload.data());
}

TEST_P(Engine, PacketWithWrongPsnIsNakedOnceAndWritesNothing) {
  auto dev = make_device(GetParam());
  std::vector<std::vector<uint8_t>> sent;
  dev->set_tx_sink([&](const uint8_t* f, size_t n) { sent.emplace_back(f, f + n); });
  EngineHost h(*dev);
  h.configure_port(kMacB, kIpB);
  End b;
  b.make(h, 4096);
  host::Path p;
  p.dest_qpn = 1;
  p.dmac = kMacA;
  p.dgid = host::ipv4_gid(kIpA);
  p.rq_psn = 1000;
  h.connect(*b.qp, p);
  h.post_recv(*b.qp, 1, {{b.buf->addr(), 4096, b.mr.key}});
  std::memset(b.buf->data(), 0x33, 4096);
  const std::vector<uint8_t> pay(100, 0xEE);
  for (const uint32_t psn : {1005u, 1006u}) {  // ahead of the expected 1000: one NAK for both
    const auto f = send_only_frame(b.qp->qpn, psn, pay);
    dev->rx_frame(f.data(), f.size());
  }
  dev->run(1'000'000);
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(b.buf->data()[i], 0x33) << "byte " << i << " written";
  EXPECT_EQ(h.counter(XportCnt::kOutOfSequence), 2u);
  EXPECT_EQ(h.counter(XportCnt::kTxAcks), 1u) << "one NAK for the sequence error";
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_TRUE(h.poll(*b.rcq).empty());
  // The expected PSN still works.
  const auto good = send_only_frame(b.qp->qpn, 1000, pay);
  dev->rx_frame(good.data(), good.size());
  dev->run(1'000'000);
  EXPECT_EQ(b.buf->data()[0], 0xEE);
  ASSERT_EQ(h.poll(*b.rcq).size(), 1u);
}

// A crafted RC READ request from "A" to B's QP.
std::vector<uint8_t> read_frame(uint32_t dst_qpn, uint32_t psn, uint64_t va, uint32_t rkey, uint32_t len) {
  RoceTxHdr h = peer_request(kRcReadReq, dst_qpn, psn);
  h.reth_va = va;
  h.reth_rkey = rkey;
  h.reth_len = len;
  return roce_frame(h, nullptr);
}

// One response frame as the wire carries it (untagged RoCEv2/IPv4).
struct Response {
  uint8_t opcode = 0, syndrome = 0;
  uint32_t psn = 0, msn = 0;
  std::vector<uint8_t> payload;
};
Response parse_response(const std::vector<uint8_t>& f) {
  Response r;
  const size_t ip_len = size_t{f[test::kIpv4At + 2]} << 8 | f[test::kIpv4At + 3];
  const size_t bth = test::kBthOpcodeAt;
  r.opcode = f[bth];
  const unsigned pad = (f[bth + 1] >> 4) & 3;
  r.psn = uint32_t{f[bth + 9]} << 16 | uint32_t{f[bth + 10]} << 8 | f[bth + 11];
  size_t at = bth + 12;
  if (r.opcode != kRcReadRespMiddle) {
    r.syndrome = f[at];
    r.msn = uint32_t{f[at + 1]} << 16 | uint32_t{f[at + 2]} << 8 | f[at + 3];
    at += 4;
  }
  const size_t end = test::kIpv4At + ip_len - 4 - pad;  // ICRC and pad off
  r.payload.assign(f.begin() + static_cast<long>(at), f.begin() + static_cast<long>(end));
  return r;
}

// RDMA READ requests from a peer (crafted frames) are answered from B's
// memory: READ RESPONSE FIRST/MIDDLE/LAST or ONLY at the request's PSNs, mtu
// bytes each but the last, AETH on all but MIDDLE with the message count,
// every byte from the MR; a zero-length READ gets one empty ONLY; a READ
// asked again from its third response (a duplicate: the requester lost the
// rest) is executed again from its own RETH; a READ with a wrong rkey is
// NAKed (remote access error) and puts the QP in ERR. On cosim the RTL's
// responses and DMA traffic equal the model's.
TEST_P(Engine, ReadRequestsFromAPeerAreAnsweredFromMemory) {
  auto dev = make_device(GetParam());
  std::vector<std::vector<uint8_t>> sent;
  dev->set_tx_sink([&](const uint8_t* f, size_t n) { sent.emplace_back(f, f + n); });
  EngineHost h(*dev);
  h.configure_port(kMacB, kIpB);
  End b;
  b.make(h, 65536);
  host::Path p;
  p.dest_qpn = 1;
  p.dmac = kMacA;
  p.dgid = host::ipv4_gid(kIpA);
  p.rq_psn = 0xFFFFF0;  // the READs' responses cross the 2^24 PSN wrap
  p.mtu = 3;            // 1024 bytes
  h.connect(*b.qp, p);
  fill(*b.buf, 65536, 7);
  const uint32_t mtu = 1024, len = 10000, npk = (len + mtu - 1) / mtu;
  const uint64_t va = b.buf->addr() + 333;
  auto inject = [&](const std::vector<uint8_t>& f) { dev->rx_frame(f.data(), f.size()); };
  inject(read_frame(b.qp->qpn, 0xFFFFF0, va, b.mr.key, len));
  inject(read_frame(b.qp->qpn, (0xFFFFF0 + npk) & 0xFFFFFF, 0, 0xBAD, 0));  // zero length: no rkey check
  inject(read_frame(b.qp->qpn, (0xFFFFF0 + 2) & 0xFFFFFF, va + 2 * mtu, b.mr.key, len - 2 * mtu));  // again
  dev->run(2'000'000);
  ASSERT_EQ(sent.size(), npk + 1 + (npk - 2));
  auto expect = [&](size_t at, uint32_t psn0, uint32_t n, uint64_t from, uint32_t bytes, uint32_t msn,
                    const char* what) {
    for (uint32_t k = 0; k < n; ++k) {
      const Response r = parse_response(sent[at + k]);
      const bool first = k == 0, last = k + 1 == n;
      const uint8_t op = first && last ? kRcReadRespOnly
                         : first       ? kRcReadRespFirst
                         : last        ? kRcReadRespLast
                                       : kRcReadRespMiddle;
      EXPECT_EQ(r.opcode, op) << what << " response " << k;
      EXPECT_EQ(r.psn, (psn0 + k) & 0xFFFFFF) << what << " response " << k;
      if (op != kRcReadRespMiddle) {
        EXPECT_EQ(r.syndrome, static_cast<uint8_t>(Aeth::kAck)) << what;
        EXPECT_EQ(r.msn, msn) << what << " response " << k;
      }
      const uint32_t want = std::min(mtu, bytes - k * mtu);
      ASSERT_EQ(r.payload.size(), want) << what << " response " << k;
      const uint8_t* m = b.buf->data() + (from - b.buf->addr()) + k * mtu;
      EXPECT_TRUE(std::equal(r.payload.begin(), r.payload.end(), m)) << what << " response " << k << " data";
    }
  };
  expect(0, 0xFFFFF0, npk, va, len, 1, "READ");
  expect(npk, (0xFFFFF0 + npk) & 0xFFFFFF, 1, 0, 0, 2, "zero-length READ");
  expect(npk + 1, (0xFFFFF0 + 2) & 0xFFFFFF, npk - 2, va + 2 * mtu, len - 2 * mtu, 2, "READ asked again");
  EXPECT_EQ(h.counter(XportCnt::kDuplicateRequest), 1u);
  EXPECT_EQ(h.counter(XportCnt::kRxPkts), 2u);
  EXPECT_EQ(h.counter(XportCnt::kRxReadRequests), 3u) << "the one asked again included";
  EXPECT_EQ(h.counter(XportCnt::kTxAcks), 0u) << "READ responses are not ACKs";
  // a READ with a wrong rkey: NAK remote access error, the QP in ERR
  sent.clear();
  inject(read_frame(b.qp->qpn, (0xFFFFF0 + npk + 1) & 0xFFFFFF, va, b.mr.key ^ 0x100, 64));
  dev->run(2'000'000);
  ASSERT_EQ(sent.size(), 1u);
  const Response nak = parse_response(sent[0]);
  EXPECT_EQ(nak.opcode, kRcAck);
  EXPECT_EQ(nak.syndrome, static_cast<uint8_t>(Aeth::kNakRemAcc));
  EXPECT_EQ(h.counter(XportCnt::kRemAccessErr), 1u);
  const host::CmdResult q = h.command(CmdOp::kQueryQp, b.qp->qpn);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.res[0], static_cast<uint32_t>(QpState::kErr));
  EXPECT_TRUE(dev->idle());
  EXPECT_EQ(dev->divergence(), "");
}

// Many QPs fail at once: a burst of requests out of opcode sequence, one per
// QP, back to back. Each draws a fatal NAK; every QP ends in ERR (QUERY_QP)
// while roce_cmd is busy telling the owners about the ones before (the tap
// that reports them never holds the responder back), and the engine goes idle.
TEST_P(Engine, ABurstOfFatalNaksOnManyQpsPutsEveryQpInErr) {
  auto dev = make_device(GetParam());
  std::vector<std::vector<uint8_t>> sent;
  dev->set_tx_sink([&](const uint8_t* f, size_t n) { sent.emplace_back(f, f + n); });
  EngineHost h(*dev);
  h.configure_port(kMacB, kIpB);
  constexpr unsigned kQps = 12;
  End base;
  base.make(h, 4096);
  std::vector<std::unique_ptr<host::Qp>> qps;
  for (unsigned i = 0; i < kQps; ++i) {
    qps.push_back(h.create_qp(base.pd, *base.scq, *base.rcq, 2, 2));
    host::Path p;
    p.dest_qpn = 0x100 + i;
    p.dmac = kMacA;
    p.dgid = host::ipv4_gid(kIpA);
    p.rq_psn = 500;
    h.connect(*qps.back(), p);
  }
  const std::vector<uint8_t> pay(64, 0x11);
  for (const auto& q : qps) {
    auto f = send_only_frame(q->qpn, 500, pay);
    f[test::kBthOpcodeAt] = kRcSendLast;  // a LAST with no message begun: invalid request
    test::refresh_icrc_ipv4(f);
    dev->rx_frame(f.data(), f.size());
  }
  dev->run(2'000'000);
  EXPECT_TRUE(dev->idle());
  EXPECT_EQ(h.counter(XportCnt::kRemInvReq), kQps);
  EXPECT_EQ(sent.size(), kQps) << "one NAK each";
  for (const auto& q : qps) {
    const host::CmdResult r = h.command(CmdOp::kQueryQp, q->qpn);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.res[0], static_cast<uint32_t>(QpState::kErr)) << "QP " << q->qpn;
  }
  EXPECT_EQ(dev->divergence(), "");
}

// The host may act on a transport failure as soon as it can see it: the
// moment a fatal NAK has left the engine, the next mailbox command finds the
// QP in ERR (a report is taken before any mailbox command, wherever the
// tap's scanner is), and a QP destroyed then and created again under the
// same number starts clean -- a late report must not put the new QP in ERR.
// Each round fails a different QP, so the report meets the scanner at a
// different place.
TEST_P(Engine, AFatalNakIsInErrBeforeTheNextCommandAndAReusedQpNumberStartsClean) {
  auto dev = make_device(GetParam());
  size_t sent = 0;
  dev->set_tx_sink([&](const uint8_t*, size_t) { ++sent; });
  EngineHost h(*dev);
  h.configure_port(kMacB, kIpB);
  End base;
  base.make(h, 4096);
  auto path = [](unsigned i) {
    host::Path p;
    p.dest_qpn = 0x100 + i;
    p.dmac = kMacA;
    p.dgid = host::ipv4_gid(kIpA);
    p.rq_psn = 500;
    return p;
  };
  std::vector<std::unique_ptr<host::Qp>> qps;
  constexpr unsigned kQps = 12;
  for (unsigned i = 0; i < kQps; ++i) {
    qps.push_back(h.create_qp(base.pd, *base.scq, *base.rcq, 2, 2));
    h.connect(*qps.back(), path(i));
  }
  const std::vector<uint8_t> pay(64, 0x11);
  for (unsigned i = 0; i < kQps; ++i) {
    dev->run(37 * i);  // a different phase of the scanner each round
    const uint32_t qpn = qps[i]->qpn;
    auto f = send_only_frame(qpn, 500, pay);
    f[test::kBthOpcodeAt] = kRcSendLast;  // a LAST with no message begun: invalid request
    test::refresh_icrc_ipv4(f);
    const size_t before = sent;
    dev->rx_frame(f.data(), f.size());
    for (unsigned c = 0; c < 100000 && sent == before; ++c) dev->run(1);
    ASSERT_EQ(sent, before + 1) << "the NAK of QP " << qpn;
    host::CmdResult q = h.command(CmdOp::kQueryQp, qpn);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q.res[0], static_cast<uint32_t>(QpState::kErr)) << "QP " << qpn << " right after its NAK";
    ASSERT_TRUE(h.command(CmdOp::kDestroyQp, qpn).ok());
    qps[i] = h.create_qp(base.pd, *base.scq, *base.rcq, 2, 2);
    EXPECT_EQ(qps[i]->qpn, qpn) << "the lowest free number again";
    h.connect(*qps[i], path(i));
    dev->run(100000);
    q = h.command(CmdOp::kQueryQp, qpn);
    ASSERT_TRUE(q.ok());
    EXPECT_EQ(q.res[0], static_cast<uint32_t>(QpState::kRts)) << "QP " << qpn << " created again";
  }
  EXPECT_EQ(h.counter(XportCnt::kRemInvReq), kQps);
  EXPECT_TRUE(dev->idle());
  EXPECT_EQ(dev->divergence(), "");
}

TEST_P(Engine, PacketForQpNotInRtrIsDroppedAndCounted) {
  auto dev = make_device(GetParam());
  dev->set_tx_sink([](const uint8_t*, size_t) {});
  EngineHost h(*dev);
  h.configure_port(kMacB, kIpB);
  End b;
  b.make(h, 4096);
  CmdModifyQp m;  // RESET -> INIT only
  m.qpn = b.qp->qpn;
  m.attr_mask = static_cast<uint32_t>(QpAttr::kState) | static_cast<uint32_t>(QpAttr::kAccessFlags) |
                static_cast<uint32_t>(QpAttr::kPkeyIndex) | static_cast<uint32_t>(QpAttr::kPort);
  m.qp_state = static_cast<uint8_t>(QpState::kInit);
  m.port_num = 1;
  m.access = kAllAccess;
  ASSERT_TRUE(h.modify_qp(m).ok());
  h.post_recv(*b.qp, 1, {{b.buf->addr(), 4096, b.mr.key}});
  std::memset(b.buf->data(), 0x33, 4096);
  const auto f = send_only_frame(b.qp->qpn, 0, std::vector<uint8_t>(64, 0xEE));
  dev->rx_frame(f.data(), f.size());
  dev->run(1'000'000);
  for (size_t i = 0; i < 4096; ++i) ASSERT_EQ(b.buf->data()[i], 0x33);
  EXPECT_EQ(h.counter(XportCnt::kQpState), 1u);
  EXPECT_TRUE(h.poll(*b.rcq).empty());
}

// Every QP number the engine holds (ENGINE_MAX_QP, issue 11's scale; 0 and
// 1 are reserved as on real HCAs): given out lowest first up to the last,
// then NO_RESOURCES; a destroyed QP's number is the next one given out. The
// command processor's free-number search spans 64 chunks of 32 at 2048.
TEST_P(Engine, EveryQpNumberUpToMaxQpIsGivenOutLowestFirst) {
  auto dev = make_device(GetParam());
  EngineHost h(*dev);
  EXPECT_EQ(h.csr(kCsrCapMaxQp), kEngineMaxQp);
  const uint32_t pd = h.alloc_pd();
  auto cq = h.create_cq(2);
  std::vector<std::unique_ptr<host::Qp>> qps;
  for (uint32_t n = 2; n < kEngineMaxQp; ++n) {
    qps.push_back(h.create_qp(pd, *cq, *cq, 0, 0));
    ASSERT_EQ(qps.back()->qpn, n) << "the lowest free number";
  }
  EXPECT_THROW(h.create_qp(pd, *cq, *cq, 0, 0), std::runtime_error) << "every number in use: NO_RESOURCES";
  for (const uint32_t n : {1500u, 33u, kEngineMaxQp - 1}) {
    ASSERT_TRUE(h.command(CmdOp::kDestroyQp, n).ok()) << n;
  }
  for (const uint32_t n : {33u, 1500u, kEngineMaxQp - 1}) {
    EXPECT_EQ(h.create_qp(pd, *cq, *cq, 0, 0)->qpn, n);
  }
  if (GetParam() == "cosim") {
    EXPECT_EQ(dev->divergence(), "");
  }
}

// The low-latency post path (issue 11): WQEs written through the SQ_BF
// window with their doorbell. On an idle QP the engine takes the WQE from
// there: the test changes the ring's copy after posting, and the peer must
// get the bytes that went through the window. Then every kind of WQE the
// window carries (inline WRITE and SEND, a SEND with one SGE, with
// immediate), back to back and mixed with plain doorbells: each one's
// bytes land once, in order, and completes.
TEST_P(Engine, WqesWrittenWithTheDoorbellAreSentLikeFetchedOnes) {
  TwoHosts w(GetParam());
  End a, b;
  const size_t kMax = 65536;
  connected_ends(w, a, b, kMax);
  // 1. the window's copy is the one sent
  std::vector<uint8_t> data(64);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(0x40 + i);
  SendWqe iw = send_wqe(WrOpcode::kRdmaWrite, 1, 64, b.buf->addr(), b.mr.key);
  iw.flags |= 4;  // inline
  w.a->post_send(*a.qp, iw, {}, data, true);
  uint8_t* slot = a.qp->sq->data();  // WQE 0
  std::memset(slot + kSendWqeSge0AddrOff, 0xEE, 64);
  w.settle();
  EXPECT_EQ(0, std::memcmp(b.buf->data(), data.data(), 64)) << "the bytes written with the doorbell";
  auto sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, 0);
  // 2. a mix, posted back to back without waiting
  std::memset(b.buf->data(), 0, kMax);
  fill(*a.buf, kMax, 77);
  std::vector<uint8_t> want(kMax, 0);
  uint64_t id = 100;
  unsigned sends = 0;
  uint32_t off = 0;
  std::mt19937 rng(5);
  for (int i = 0; i < 40; ++i) {
    const unsigned kind = rng() % 4;
    const bool bf = rng() % 4 != 0;
    if (kind == 0 || kind == 1) {  // inline WRITE of 1..96 bytes
      const uint32_t len = 1 + rng() % 96;
      std::vector<uint8_t> d(a.buf->data() + off, a.buf->data() + off + len);
      SendWqe x = send_wqe(kind ? WrOpcode::kRdmaWriteWithImm : WrOpcode::kRdmaWrite, id++, len, b.buf->addr() + off, b.mr.key);
      x.flags |= 4;
      if (kind == 1) {
        w.b->post_recv(*b.qp, 9000 + id, {{b.buf->addr() + kMax - 64, 64, b.mr.key}});
        ++sends;
      }
      w.a->post_send(*a.qp, x, {}, d, bf);
      std::copy(d.begin(), d.end(), want.begin() + off);
      off += len;
    } else {  // a SEND (with immediate) from one SGE into a receive buffer at off
      const uint32_t len = kind == 2 ? 1 + rng() % 96 : 1 + rng() % 3000;
      w.b->post_recv(*b.qp, 9000 + id, {{b.buf->addr() + off, len, b.mr.key}});
      SendWqe x = send_wqe(kind == 2 ? WrOpcode::kSend : WrOpcode::kSendWithImm, id++, len);
      if (kind == 2) {
        x.flags |= 4;
        w.a->post_send(*a.qp, x, {}, std::vector<uint8_t>(a.buf->data() + off, a.buf->data() + off + len), bf);
      } else {
        w.a->post_send(*a.qp, x, {{a.buf->addr() + off, len, a.mr.key}}, {}, bf);
      }
      std::copy(a.buf->data() + off, a.buf->data() + off + len, want.begin() + off);
      off += len;
      ++sends;
    }
  }
  w.settle();
  EXPECT_EQ(0, std::memcmp(b.buf->data(), want.data(), off)) << "every WQE's bytes, once, where it put them";
  sc = w.a->poll(*a.scq);
  ASSERT_EQ(sc.size(), 40u);
  for (size_t i = 0; i < sc.size(); ++i) {
    EXPECT_EQ(sc[i].status, 0) << "WQE " << i;
    EXPECT_EQ(sc[i].wr_id, 100 + i) << "in order";
  }
  const auto rc = w.b->poll(*b.rcq);
  EXPECT_EQ(rc.size(), sends);
  for (const auto& c : rc) EXPECT_EQ(c.status, 0);
  if (GetParam() == "cosim") {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Engine, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
