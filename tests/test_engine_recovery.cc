// Reliable delivery through a whole engine on every backend (model, rtl,
// cosim): a lost request or a lost ACK is recovered by the local ACK
// timeout; a cut wire ends in RETRY_EXC_ERR, the rest flushed and the QP in
// ERR; a responder without receive WQEs is waited out with RNR NAKs, until
// rnr_retry runs out (or for ever with 7). Every counter the faults imply is
// checked exactly.
#include <gtest/gtest.h>

#include <cstring>

#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::TwoHosts;

class Recovery : public ::testing::TestWithParam<std::string> {};

// a's QP in connect_pair; `tune` sets its path (b keeps the defaults but min_rnr_timer)
struct Pair {
  TwoHosts w;
  End a, b;
  explicit Pair(const std::string& backend, const std::function<void(host::Path&, host::Path&)>& tune,
                size_t bytes = 65536)
      : w(backend) {
    a.make(*w.a, bytes);
    b.make(*w.b, bytes);
    test::connect_pair(*w.a, a, test::kMacA, test::kIpA, *w.b, b, test::kMacB, test::kIpB, 3, tune);
  }
  void send(uint64_t id, uint32_t len, uint32_t offset = 0) {
    w.a->post_send(*a.qp, test::send_wqe(WrOpcode::kSend, id, len), {{a.buf->addr() + offset, len, a.mr.key}});
  }
  void recv(uint64_t id, uint32_t len, uint32_t offset = 0) {
    w.b->post_recv(*b.qp, id, {{b.buf->addr() + offset, len, b.mr.key}});
  }
  void expect_no_divergence() {
    EXPECT_EQ(w.da->divergence(), "");
    EXPECT_EQ(w.db->divergence(), "");
  }
};

// The last request packet of a message is lost: nothing follows it that
// could reveal the gap, so only the ACK timeout (4.096 us * 2^4 here) finds
// it; the QP goes back to its first unacknowledged PSN and the message
// completes. Every packet sent again that had arrived is a duplicate.
TEST_P(Recovery, LostLastPacketIsSentAgainAfterTheAckTimeout) {
  Pair p(GetParam(), [](host::Path& pa, host::Path&) {
    pa.timeout = 4;
    pa.retry_cnt = 3;
  });
  int seen = 0;
  p.w.pass = [&](bool from_a, const uint8_t*, size_t) { return !(from_a && ++seen == 10); };
  test::fill(*p.a.buf, 10000, 5);
  p.recv(1, 65536);
  p.send(2, 10000);  // 10 packets of 1024 bytes (IBV_MTU_1024)
  p.w.settle(true);
  EXPECT_EQ(0, std::memcmp(p.a.buf->data(), p.b.buf->data(), 10000));
  const auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
  const auto rc = p.w.b->poll(*p.b.rcq);
  ASSERT_EQ(rc.size(), 1u) << "the receive completes once";
  EXPECT_EQ(rc[0].byte_len, 10000u);
  const uint32_t sent = p.w.a->counter(XportCnt::kTxPkts);
  EXPECT_GT(sent, 10u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kLocalAckTimeoutErr), 1u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRetransmits), 1u);
  EXPECT_EQ(p.w.b->counter(XportCnt::kRxPkts), 10u);
  EXPECT_EQ(p.w.b->counter(XportCnt::kDuplicateRequest), sent - 11) << "sent again: all but the lost one arrived twice";
  EXPECT_EQ(p.w.a->counter(XportCnt::kUnmatchedResponse), 0u);
  p.expect_no_divergence();
}

// The ACK is lost: the requester sends the message again, the responder
// acknowledges the duplicate without executing it again.
TEST_P(Recovery, LostAckIsRecoveredByTheTimeoutAndTheDuplicateIsNotExecutedAgain) {
  Pair p(GetParam(), [](host::Path& pa, host::Path&) { pa.timeout = 3; });
  bool dropped = false;
  p.w.pass = [&](bool from_a, const uint8_t*, size_t) {
    if (from_a || dropped) return true;
    dropped = true;
    return false;
  };
  test::fill(*p.a.buf, 300, 9);
  p.recv(1, 1000);
  p.recv(2, 1000, 1000);  // a second receive the duplicate must not consume
  p.send(3, 300);
  p.w.settle(true);
  EXPECT_EQ(0, std::memcmp(p.a.buf->data(), p.b.buf->data(), 300));
  ASSERT_EQ(p.w.a->poll(*p.a.scq).size(), 1u);
  EXPECT_EQ(p.w.b->poll(*p.b.rcq).size(), 1u) << "the duplicate consumed no receive WQE";
  EXPECT_EQ(p.w.b->counter(XportCnt::kDuplicateRequest), 1u);
  EXPECT_EQ(p.w.b->counter(XportCnt::kRxPkts), 1u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kTxPkts), 2u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kLocalAckTimeoutErr), 1u);
  p.expect_no_divergence();
}

// The wire is cut: retry_cnt (2) retries after as many timeouts, then the
// first WQE fails with RETRY_EXC_ERR and the others flush.
TEST_P(Recovery, CutWireEndsInRetryExceededThenFlushAndErr) {
  Pair p(GetParam(), [](host::Path& pa, host::Path&) {
    pa.timeout = 2;
    pa.retry_cnt = 2;
  });
  p.w.pass = [](bool from_a, const uint8_t*, size_t) { return !from_a; };
  for (uint64_t id = 1; id <= 3; ++id) p.send(id, 100, static_cast<uint32_t>(100 * id));
  p.w.settle(true);
  const auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 3u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kRetryExcErr));
  EXPECT_EQ(sc[0].wr_id, 1u);
  EXPECT_EQ(sc[1].status, static_cast<uint8_t>(WcStatus::kWrFlushErr));
  EXPECT_EQ(sc[2].status, static_cast<uint8_t>(WcStatus::kWrFlushErr));
  EXPECT_EQ(p.w.a->counter(XportCnt::kLocalAckTimeoutErr), 3u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRetransmits), 2u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRetryExceeded), 1u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kTxPkts), 9u) << "3 WQEs, sent 3 times each";
  EXPECT_EQ(p.w.b->counter(XportCnt::kRxPkts), 0u);
  // a WQE posted in ERR flushes at once
  p.send(4, 10);
  p.w.settle();
  const auto late = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(late.size(), 1u);
  EXPECT_EQ(late[0].status, static_cast<uint8_t>(WcStatus::kWrFlushErr));
  EXPECT_EQ(p.w.a->counter(XportCnt::kTxPkts), 9u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kReqCqeErr), 1u) << "RETRY_EXC_ERR";
  EXPECT_EQ(p.w.a->counter(XportCnt::kReqCqeFlushErr), 3u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRespCqeFlushErr), 0u) << "a's receive queue was empty";
  // the whole QP is in ERR, as QUERY_QP (ibv_query_qp) shows: a receive
  // posted now is flushed too
  const host::CmdResult q = p.w.a->command(CmdOp::kQueryQp, p.a.qp->qpn);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q.res[0], static_cast<uint32_t>(QpState::kErr));
  p.w.a->post_recv(*p.a.qp, 77, {{p.a.buf->addr(), 64, p.a.mr.key}});
  p.w.settle();
  const auto rc = p.w.a->poll(*p.a.rcq);
  ASSERT_EQ(rc.size(), 1u);
  EXPECT_EQ(rc[0].wr_id, 77u);
  EXPECT_EQ(rc[0].status, static_cast<uint8_t>(WcStatus::kWrFlushErr));
  p.expect_no_divergence();
}

// No receive WQE at the responder: RNR NAK with the responder's
// min_rnr_timer (code 1, 10 us), the wait, the SEND again; rnr_retry 2
// gives up on the third with RNR_RETRY_EXC_ERR.
TEST_P(Recovery, NoReceivePostedEndsInRnrRetryExceeded) {
  Pair p(GetParam(), [](host::Path& pa, host::Path& pb) {
    pa.rnr_retry = 2;
    pb.min_rnr_timer = 1;
  });
  p.send(1, 64);
  p.w.settle(true);
  const auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, static_cast<uint8_t>(WcStatus::kRnrRetryExcErr));
  EXPECT_EQ(p.w.b->counter(XportCnt::kRnrNakSent), 3u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRnrNakRetryErr), 2u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRnrRetryExceeded), 1u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kLocalAckTimeoutErr), 0u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kReqCqeErr), 1u) << "RNR_RETRY_EXC_ERR";
  EXPECT_TRUE(p.w.b->poll(*p.b.rcq).empty());
  p.expect_no_divergence();
}

// rnr_retry 7: no limit. The receive is posted after five RNR NAKs and
// the SEND then lands.
TEST_P(Recovery, RnrRetrySevenWaitsUntilAReceiveIsPosted) {
  Pair p(GetParam(), [](host::Path& pa, host::Path& pb) {
    pa.rnr_retry = 7;
    pb.min_rnr_timer = 1;
  });
  test::fill(*p.a.buf, 64, 3);
  p.send(1, 64);
  for (int i = 0; i < 100 && p.w.a->counter(XportCnt::kRnrNakRetryErr) < 5; ++i) p.w.settle(true, 1);
  p.recv(9, 64);
  p.w.settle(true);
  const auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
  ASSERT_EQ(p.w.b->poll(*p.b.rcq).size(), 1u);
  EXPECT_EQ(0, std::memcmp(p.a.buf->data(), p.b.buf->data(), 64));
  // Five RNR NAKs before the receive is posted; the RTL notices an RNR wait's
  // end within one timer-scan lap (MAX_QP cycles, 2048, near the 2500-cycle
  // wait), so a sixth may already be under way when the loop sees the fifth.
  const uint32_t naks = p.w.b->counter(XportCnt::kRnrNakSent);
  EXPECT_GE(naks, 5u);
  EXPECT_LE(naks, 6u);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRnrNakRetryErr), naks) << "each RNR NAK retried";
  EXPECT_EQ(p.w.a->counter(XportCnt::kRnrRetryExceeded), 0u);
  p.expect_no_divergence();
}

// Every request frame arrives twice, the copy with its last byte (ICRC)
// flipped: the parser drops each copy (ICRC) while the good frame before it
// may still be handing its header on, so drops and headers meet in a cycle.
// The message lands once, every copy is counted, and the engine goes idle
// (an RTL engine that counted one of two events in a cycle never did).
TEST_P(Recovery, CorruptCopiesBetweenRequestsAreDroppedCountedAndTheEngineGoesIdle) {
  Pair p(GetParam(), [](host::Path&, host::Path&) {}, 1 << 20);
  unsigned copies = 0;
  p.w.pass = [&](bool from_a, const uint8_t* f, size_t n) {
    if (!from_a) return true;
    std::vector<uint8_t> bad(f, f + n);
    bad[n - 1] ^= 0x40;
    p.w.arrive(true)(f, n);
    p.w.arrive(true)(bad.data(), n);
    ++copies;
    return false;
  };
  test::fill(*p.a.buf, 1 << 19, 21);
  for (uint64_t id = 1; id <= 8; ++id) {
    p.recv(id, 1 << 16, static_cast<uint32_t>((id - 1) << 16));
    p.send(100 + id, static_cast<uint32_t>(id * 4096 + 17), static_cast<uint32_t>((id - 1) << 16));
  }
  p.w.settle(true);
  EXPECT_TRUE(p.w.da->idle());
  EXPECT_TRUE(p.w.db->idle());
  const auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 8u);
  for (const Cqe& c : sc) EXPECT_EQ(c.status, 0) << to_string(static_cast<WcStatus>(c.status));
  ASSERT_EQ(p.w.b->poll(*p.b.rcq).size(), 8u);
  for (uint32_t id = 1; id <= 8; ++id)
    EXPECT_EQ(0, std::memcmp(p.a.buf->data() + ((id - 1) << 16), p.b.buf->data() + ((id - 1) << 16), id * 4096 + 17));
  EXPECT_GT(copies, 100u);
  EXPECT_EQ(p.w.b->csr(kCsrRxDrop + 4 * static_cast<unsigned>(Drop::kIcrc)), copies);
  EXPECT_EQ(p.w.b->counter(XportCnt::kRxPkts), copies);
  EXPECT_EQ(p.w.a->counter(XportCnt::kRetransmits), 0u);
  p.expect_no_divergence();
}

// Send queue drain: RTS -> SQD while a long WRITE is on its way (one of
// its packets lost): it completes, recovered by go-back-N in SQD; a WQE
// posted in SQD waits; SQD -> SQD may change the timeout; SQD -> RTS
// sends it. QUERY_QP shows each state; EN_SQD_ASYNC_NOTIFY is refused (no
// SQ-drained event), as is SQD -> INIT.
TEST_P(Recovery, SendQueueDrainFinishesWhatStartedAndHoldsTheRest) {
  Pair p(GetParam(), [](host::Path& pa, host::Path&) { pa.timeout = 4; }, 1 << 20);
  int seen = 0;
  p.w.pass = [&](bool from_a, const uint8_t*, size_t) { return !(from_a && ++seen == 5); };
  test::fill(*p.a.buf, 1 << 19, 17);
  const auto write = [&](uint64_t id, uint32_t len, uint32_t off) {
    p.w.a->post_send(*p.a.qp, test::send_wqe(WrOpcode::kRdmaWrite, id, len, p.b.buf->addr() + off, p.b.mr.key),
                     {{p.a.buf->addr() + off, len, p.a.mr.key}});
  };
  const auto state = [&] { return p.w.a->command(CmdOp::kQueryQp, p.a.qp->qpn).res[0]; };
  const auto modify = [&](QpState to, uint32_t mask, uint8_t timeout = 0) {
    spec::CmdModifyQp m;
    m.qpn = p.a.qp->qpn;
    m.attr_mask = static_cast<uint32_t>(QpAttr::kState) | mask;
    m.qp_state = static_cast<uint8_t>(to);
    m.timeout = timeout;
    return p.w.a->modify_qp(m).status;
  };
  write(1, 64 * 1024, 0);  // 64 packets of 1024 bytes
  p.w.da->run(400);        // started: some packets are out
  ASSERT_EQ(modify(QpState::kSqd, 0), CmdStatus::kOk);
  EXPECT_EQ(state(), static_cast<uint32_t>(QpState::kSqd));
  write(2, 5000, 256 * 1024);
  p.w.settle(true);
  auto sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 1u) << "the started WRITE completes; the one posted in SQD waits";
  EXPECT_EQ(sc[0].wr_id, 1u);
  EXPECT_EQ(sc[0].status, 0) << to_string(static_cast<WcStatus>(sc[0].status));
  EXPECT_EQ(0, std::memcmp(p.a.buf->data(), p.b.buf->data(), 64 * 1024));
  EXPECT_GE(p.w.a->counter(XportCnt::kRetransmits), 1u) << "the lost packet was sent again in SQD";
  const uint32_t sent_in_sqd = p.w.a->counter(XportCnt::kTxPkts);
  EXPECT_EQ(modify(QpState::kSqd, static_cast<uint32_t>(QpAttr::kTimeout), 5), CmdStatus::kOk) << "SQD -> SQD";
  EXPECT_EQ(modify(QpState::kSqd, static_cast<uint32_t>(QpAttr::kEnSqdAsyncNotify)), CmdStatus::kBadState);
  EXPECT_EQ(modify(QpState::kInit, 0), CmdStatus::kBadState);
  p.w.settle(true);
  EXPECT_EQ(p.w.a->counter(XportCnt::kTxPkts), sent_in_sqd) << "nothing new starts in SQD";
  EXPECT_EQ(state(), static_cast<uint32_t>(QpState::kSqd));
  ASSERT_EQ(modify(QpState::kRts, 0), CmdStatus::kOk);
  EXPECT_EQ(state(), static_cast<uint32_t>(QpState::kRts));
  p.w.settle(true);
  sc = p.w.a->poll(*p.a.scq);
  ASSERT_EQ(sc.size(), 1u);
  EXPECT_EQ(sc[0].wr_id, 2u);
  EXPECT_EQ(sc[0].status, 0);
  EXPECT_EQ(0, std::memcmp(p.a.buf->data() + 256 * 1024, p.b.buf->data() + 256 * 1024, 5000));
  EXPECT_EQ(p.w.a->counter(XportCnt::kTxPkts), sent_in_sqd + 5);
  p.expect_no_divergence();
}

INSTANTIATE_TEST_SUITE_P(Backends, Recovery, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
