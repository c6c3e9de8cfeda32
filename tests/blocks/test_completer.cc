// The completer: RTL and model under random windows, ACKs, NAKs, local
// failures and QP commands (idle cycles, backpressure) must complete the same
// WQEs with the same CQEs and retire counts; and hand-checked cases show ACK
// coverage across the PSN wrap, unsignaled WQEs, every NAK syndrome, flushes
// in order and the 16-entry window, on both the RTL and the model.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <string>

#include "blocks/block_bench.h"
#include "rtl/completer_rtl.h"
#include "xcheck.h"
#include "xport/completer.h"

namespace rocenic {
namespace {

using spec::WcStatus;
using test::Bench;
using model::Completer;

constexpr unsigned kMaxQp = 256;

Flit cfg(uint16_t qpn, spec::QpAction a, uint16_t send_cq = 0, uint8_t retry_cnt = 0, uint8_t timeout = 0,
         uint8_t rnr_retry = 0) {
  spec::QpCfg c;
  c.retry_cnt = retry_cnt;
  c.timeout = timeout;
  c.rnr_retry = rnr_retry;
  c.qpn = qpn;
  c.action = static_cast<uint8_t>(a);
  c.send_cq = send_cq;
  c.recv_cq = static_cast<uint16_t>(send_cq + 100);  // not the completer's
  c.qp_type = static_cast<uint8_t>(spec::QpType::kRc);
  c.dest_qpn = 0x123456;
  return desc_to_flit(c);
}

// A WQE that took PSNs first..last (first defaults to last: one packet).
spec::SqTrack trk(uint16_t qpn, uint16_t idx, uint32_t last_psn, bool signaled = true,
                  WcStatus st = WcStatus::kSuccess, int64_t first_psn = -1) {
  spec::SqTrack t;
  t.qpn = qpn;
  t.wqe_idx = idx;
  t.last_psn = last_psn & 0xFFFFFF;
  t.first_psn = (first_psn < 0 ? last_psn : static_cast<uint32_t>(first_psn)) & 0xFFFFFF;
  t.wr_id = 0xABCD000000000000ull | (uint64_t{qpn} << 16) | idx;
  t.wc_opcode = static_cast<uint8_t>(idx % 2 ? spec::WcOpcode::kRdmaWrite : spec::WcOpcode::kSend);
  t.signaled = signaled;
  t.byte_len = 1000u + idx;
  t.status = static_cast<uint8_t>(st);
  return t;
}

// The amend of a tracked WQE that failed while being sent (LOC_PROT_ERR).
spec::SqTrack amend_of(spec::SqTrack t) {
  t.status = static_cast<uint8_t>(WcStatus::kLocProtErr);
  t.amend = 1;
  return t;
}

Flit ack(uint32_t qpn, uint32_t psn, uint8_t syndrome = static_cast<uint8_t>(spec::Aeth::kAck),
         uint8_t opcode = spec::kRcAck) {
  spec::RoceRxHdr h;
  h.opcode = opcode;
  h.dst_qpn = qpn;
  h.psn = psn & 0xFFFFFF;
  h.aeth_syndrome = syndrome;
  h.aeth_msn = 77;
  h.src_mac = 0x020000000001;
  h.pkey = 0xFFFF;
  return desc_to_flit(h);
}

spec::CqCompl compl_of(const Flit& f) { return desc_from_flit<spec::CqCompl>(f); }
spec::SqRetire retire_of(const Flit& f) { return desc_from_flit<spec::SqRetire>(f); }

// The CQE a tracked WQE should produce.
void expect_compl(const Flit& f, const spec::SqTrack& t, uint16_t cq, WcStatus st, const char* side) {
  const auto c = compl_of(f);
  EXPECT_EQ(c.cq, cq) << side;
  EXPECT_EQ(c.qp_num, t.qpn) << side;
  EXPECT_EQ(c.wr_id, t.wr_id) << side;
  EXPECT_EQ(c.byte_len, t.byte_len) << side;
  EXPECT_EQ(c.opcode, t.wc_opcode) << side;
  EXPECT_EQ(c.status, static_cast<uint8_t>(st)) << side << ": wqe " << t.wqe_idx << " got status " << int(c.status);
  EXPECT_EQ(c.wqe_counter, t.wqe_idx) << side;
  EXPECT_EQ(c.solicited + c.imm + c.src_qp + c.wc_flags + c.sl + c.pkey_index, 0u) << side << ": other fields 0";
}
void expect_retire(const Flit& f, uint16_t qpn, unsigned count, bool error, const char* side) {
  const auto r = retire_of(f);
  EXPECT_EQ(r.qpn, qpn) << side;
  EXPECT_EQ(r.count, count) << side;
  EXPECT_EQ(r.error, error) << side;
}

// A retire that sends the requester back to PSN psn + skip of WQE idx.
void expect_rewind(const Flit& f, uint16_t qpn, unsigned count, uint16_t idx, uint32_t psn, uint32_t skip,
                   const char* side) {
  const auto r = retire_of(f);
  EXPECT_EQ(r.qpn, qpn) << side;
  EXPECT_EQ(r.count, count) << side;
  EXPECT_FALSE(r.error) << side;
  EXPECT_TRUE(r.rewind) << side;
  EXPECT_EQ(r.rw_idx, idx) << side;
  EXPECT_EQ(r.rw_psn, psn) << side;
  EXPECT_EQ(r.rw_skip, skip) << side;
}

// Counters in the order both sides list them.
enum Cnt : unsigned {
  kRxAcks, kNakReceived, kPacketSeqErr, kUnmatched, kRetransmits, kRetryExceeded, kAckTimeouts, kRnrNaks,
  kRnrExceeded, kImpliedNak
};
uint32_t counter(Block& blk, Cnt c) { return blk.counters()[c].second; }

// Run a scenario on the RTL and on the model (each checks its own outputs).
template <typename Fn>
void on_both(Fn&& scenario) {
  {
    CompleterRtl rtl;
    scenario(rtl, "rtl");
  }
  {
    auto m = model::make_completer_block(kMaxQp);
    scenario(*m, "model");
  }
}

TEST(Completer, AckCoverageAcrossPsnWrapAndUnsignaledWqes) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 3, 0.2, 0.3);
    const std::vector<spec::SqTrack> t = {trk(5, 0, 0xFFFFFD), trk(5, 1, 0xFFFFFF, false), trk(5, 2, 0x000001),
                                          trk(5, 3, 0x000003)};
    b.push(0, cfg(5, spec::QpAction::kReset, 7));
    b.settle();
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.settle();
    EXPECT_TRUE(b.out[0].empty() && b.out[1].empty()) << side << ": nothing completes before an ACK";
    b.push(2, ack(5, 0xFFFFFE));  // covers WQE 0 only
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], t[0], 7, WcStatus::kSuccess, side);
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_retire(b.out[1][0], 5, 1, false, side);
    b.push(2, ack(5, 0xFFFFFD));  // stale: acknowledged already, matches nothing
    b.push(2, ack(5, 0x000001));  // across the wrap: WQE 1 (unsignaled: no CQE) and WQE 2
    b.push(2, ack(5, 0x000002));  // WQE 3 ends at 3: not covered (a partial ACK)
    b.settle();
    ASSERT_EQ(b.out[0].size(), 2u) << side;
    expect_compl(b.out[0][1], t[2], 7, WcStatus::kSuccess, side);
    ASSERT_EQ(b.out[1].size(), 2u) << side << ": ACKs that cover nothing retire nothing";
    expect_retire(b.out[1][1], 5, 2, false, side);
    b.push(2, ack(5, 0x000003));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][2], t[3], 7, WcStatus::kSuccess, side);
    expect_retire(b.out[1][2], 5, 1, false, side);
    EXPECT_EQ(blk.counters()[0].second, 5u) << side << ": RX_ACKS counts every ACK";
    EXPECT_EQ(blk.counters()[1].second, 0u) << side;
    EXPECT_EQ(blk.counters()[3].second, 1u) << side << ": UNMATCHED_RESPONSE: the stale ACK";
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

TEST(Completer, EveryNakSyndromeCompletesTheNakedWqeAndFlushesTheRest) {
  struct Case {
    uint8_t syndrome;
    WcStatus st;
  };
  // (retry_cnt 0: the first PSN sequence NAK already has no retry left)
  const Case cases[] = {{0x60, WcStatus::kRetryExcErr},    {0x61, WcStatus::kRemInvReqErr},
                        {0x62, WcStatus::kRemAccessErr},   {0x63, WcStatus::kRemOpErr},
                        {0x20, WcStatus::kRnrRetryExcErr}, {0x2C, WcStatus::kRnrRetryExcErr},
                        {0x64, WcStatus::kRemOpErr}};
  on_both([&](auto& blk, const char* side) {
    Bench b(blk, 5, 0.2, 0.3);
    uint16_t q = 20;
    size_t nc = 0, nr = 0;
    for (const Case& c : cases) {
      ++q;
      b.push(0, cfg(q, spec::QpAction::kReset, q));
      b.settle();
      // WQE 0 ends at 10, WQE 1 spans 11..12, WQE 2 (unsignaled) 13..15; the NAK names PSN 11
      const std::vector<spec::SqTrack> t = {trk(q, 0, 10), trk(q, 1, 12, true, WcStatus::kSuccess, 11),
                                            trk(q, 2, 15, false, WcStatus::kSuccess, 13)};
      for (const auto& x : t) b.push(1, desc_to_flit(x));
      b.settle();
      b.push(2, ack(q, 11, c.syndrome));
      b.settle();
      ASSERT_EQ(b.out[0].size(), nc + 3) << side << " syndrome " << int(c.syndrome);
      expect_compl(b.out[0][nc + 0], t[0], q, WcStatus::kSuccess, side);  // before PSN 11: acknowledged
      expect_compl(b.out[0][nc + 1], t[1], q, c.st, side);
      expect_compl(b.out[0][nc + 2], t[2], q, WcStatus::kWrFlushErr, side);  // errors always write a CQE
      ASSERT_EQ(b.out[1].size(), nr + 1) << side;
      expect_retire(b.out[1][nr], q, 3, true, side);
      nc += 3;
      nr += 1;
      // in ERR: a later WQE flushes at once, ACKs and NAKs match nothing
      const auto late = trk(q, 3, 20);
      b.push(1, desc_to_flit(late));
      b.settle();
      b.push(2, ack(q, 20));
      b.push(2, ack(q, 20, 0x60));
      b.settle();
      ASSERT_EQ(b.out[0].size(), nc + 1) << side;
      expect_compl(b.out[0][nc], late, q, WcStatus::kWrFlushErr, side);
      expect_retire(b.out[1][nr], q, 1, true, side);
      nc += 1;
      nr += 1;
      EXPECT_EQ(b.out[1].size(), nr) << side;
    }
    const unsigned n = sizeof cases / sizeof cases[0];
    EXPECT_EQ(blk.counters()[1].second, 2 * n) << side << ": NAK_RECEIVED";
    EXPECT_EQ(blk.counters()[0].second, 3 * n) << side << ": RX_ACKS";
    EXPECT_EQ(blk.counters()[3].second, 2 * n) << side << ": UNMATCHED_RESPONSE (the two in ERR)";
    EXPECT_EQ(blk.counters()[2].second, 1u) << side << ": PACKET_SEQ_ERR (the one in ERR matched nothing)";
    EXPECT_EQ(blk.counters()[5].second, 1u) << side << ": RETRY_EXCEEDED";
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

TEST(Completer, ResponsesMatchingNoOutstandingRequestAreDroppedAndCounted) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 7, 0.0, 0.0);
    b.push(0, cfg(40, spec::QpAction::kReset, 3));
    b.push(0, cfg(42, spec::QpAction::kReset, 3));
    b.settle();
    const auto a = trk(40, 0, 100);
    b.push(1, desc_to_flit(a));
    b.settle();
    // as a hostile or confused peer sends them: PSNs never sent or already
    // acknowledged, NAKs of every kind among them, a reserved syndrome, a
    // READ response, a QP with nothing outstanding, a QP that does not exist
    b.push(2, ack(40, 101, 0x62));
    b.push(2, ack(40, 101, 0x60));
    b.push(2, ack(40, 99));
    b.push(2, ack(40, 0x800064, 0x61));
    b.push(2, ack(40, 100, 0x40));
    b.push(2, ack(40, 100, 0x1F, spec::kRcReadRespOnly));
    b.push(2, ack(42, 0, 0x63));
    b.push(2, ack(43, 100));
    b.push(2, ack(9999, 100));
    b.settle();
    EXPECT_TRUE(b.out[0].empty() && b.out[1].empty()) << side << ": nothing completes, fails or rewinds";
    EXPECT_EQ(blk.counters()[3].second, 9u) << side << ": UNMATCHED_RESPONSE";
    b.push(2, ack(40, 100));  // the real one
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], a, 3, WcStatus::kSuccess, side);
    expect_retire(b.out[1][0], 40, 1, false, side);
    // a NAK naming a WQE's last PSN fails that WQE: it is not acknowledged
    b.push(0, cfg(41, spec::QpAction::kReset, 3));
    b.settle();
    const auto c = trk(41, 0, 50), d = trk(41, 1, 51);
    b.push(1, desc_to_flit(c));
    b.push(1, desc_to_flit(d));
    b.settle();
    b.push(2, ack(41, 50, 0x61));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], c, 3, WcStatus::kRemInvReqErr, side);
    expect_compl(b.out[0][2], d, 3, WcStatus::kWrFlushErr, side);
    expect_retire(b.out[1][1], 41, 2, true, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// Go-back-N: a PSN sequence NAK acknowledges what precedes its PSN and sends
// the requester back to it (the WQE holding it, and how many of its packets
// were received) while retries last; an ACK that makes progress reloads
// them; the last NAK with none left fails the WQE with RETRY_EXC_ERR.
TEST(Completer, PsnSequenceNakRewindsWhileRetriesLast) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 17, 0.2, 0.2);
    b.push(0, cfg(60, spec::QpAction::kReset, 4));
    b.push(0, cfg(60, spec::QpAction::kToRts, 4, 2));  // retry_cnt 2
    b.settle();
    // WQE 7 takes PSNs 0xFFFFFE..1 (across the wrap), 8 takes 2..4, 9 takes 5
    const std::vector<spec::SqTrack> t = {trk(60, 7, 1, true, WcStatus::kSuccess, 0xFFFFFE),
                                          trk(60, 8, 4, true, WcStatus::kSuccess, 2), trk(60, 9, 5)};
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.settle();
    b.push(2, ack(60, 0xFFFFFF, 0x60));  // the second packet of WQE 7 was lost
    b.settle();
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_rewind(b.out[1][0], 60, 0, 7, 0xFFFFFE, 1, side);
    b.push(2, ack(60, 3, 0x60));  // 7 arrived, 8's second packet did not: retry 2 of 2
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], t[0], 4, WcStatus::kSuccess, side);
    expect_rewind(b.out[1][1], 60, 1, 8, 2, 1, side);
    b.push(2, ack(60, 3));  // progress (a partial ACK): the retries are back
    b.push(2, ack(60, 4, 0x60));
    b.push(2, ack(60, 4, 0x60));
    b.settle();
    ASSERT_EQ(b.out[1].size(), 4u) << side;
    expect_rewind(b.out[1][2], 60, 0, 8, 2, 2, side);
    expect_rewind(b.out[1][3], 60, 0, 8, 2, 2, side);
    EXPECT_EQ(b.out[0].size(), 1u) << side;
    b.push(2, ack(60, 4, 0x60));  // none left
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], t[1], 4, WcStatus::kRetryExcErr, side);
    expect_compl(b.out[0][2], t[2], 4, WcStatus::kWrFlushErr, side);
    ASSERT_EQ(b.out[1].size(), 5u) << side;
    expect_retire(b.out[1][4], 60, 2, true, side);
    EXPECT_EQ(blk.counters()[2].second, 5u) << side << ": PACKET_SEQ_ERR";
    EXPECT_EQ(blk.counters()[4].second, 4u) << side << ": RETRANSMITS";
    EXPECT_EQ(blk.counters()[5].second, 1u) << side << ": RETRY_EXCEEDED";
    EXPECT_EQ(blk.counters()[3].second, 0u) << side << ": UNMATCHED_RESPONSE";
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// The local ACK timeout: 4.096 us * 2^timeout (1024 << timeout cycles). With
// timeout 1 the deadline lies 2048 cycles after the last WQE started or the
// last response that matched; each expiry sends the QP back to its first
// unacknowledged PSN while retries last (an ACK brings them back), then the
// head fails with RETRY_EXC_ERR.
TEST(Completer, AckTimeoutRewindsToTheFirstUnacknowledgedPsnWhileRetriesLast) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 23, 0.0, 0.0);
    b.push(0, cfg(70, spec::QpAction::kReset, 6, 2, 1));  // retry_cnt 2, timeout 1
    b.settle();
    const std::vector<spec::SqTrack> t = {trk(70, 0, 12, true, WcStatus::kSuccess, 10), trk(70, 1, 13)};
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.push(2, ack(70, 10));  // WQE 0's first packet arrived
    b.settle();
    b.run(1800);
    EXPECT_TRUE(b.out[1].empty()) << side << ": no expiry before the deadline";
    b.run(600);  // (the RTL's scanner visits a QP every MAX_QP cycles)
    ASSERT_EQ(b.out[1].size(), 1u) << side << ": expired 2048 cycles after the ACK";
    expect_rewind(b.out[1][0], 70, 0, 0, 10, 1, side);  // back to PSN 11
    b.push(2, ack(70, 11));  // progress: the retries are back, the timer restarts
    b.settle();
    b.run(2400);
    ASSERT_EQ(b.out[1].size(), 2u) << side;
    expect_rewind(b.out[1][1], 70, 0, 0, 10, 2, side);
    b.run(2400);
    ASSERT_EQ(b.out[1].size(), 3u) << side;
    expect_rewind(b.out[1][2], 70, 0, 0, 10, 2, side);
    EXPECT_TRUE(b.out[0].empty()) << side;
    b.run(2400);  // none left
    ASSERT_EQ(b.out[0].size(), 2u) << side;
    expect_compl(b.out[0][0], t[0], 6, WcStatus::kRetryExcErr, side);
    expect_compl(b.out[0][1], t[1], 6, WcStatus::kWrFlushErr, side);
    ASSERT_EQ(b.out[1].size(), 4u) << side;
    expect_retire(b.out[1][3], 70, 2, true, side);
    b.run(5000);
    EXPECT_EQ(b.out[1].size(), 4u) << side << ": in ERR no timer runs";
    EXPECT_EQ(counter(blk, kAckTimeouts), 4u) << side << ": LOCAL_ACK_TIMEOUT_ERR";
    EXPECT_EQ(counter(blk, kRetransmits), 3u) << side;
    EXPECT_EQ(counter(blk, kRetryExceeded), 1u) << side;
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// timeout 0 is no timeout (IBTA): a lost response waits for ever; and a QP
// whose requests are all acknowledged has no timer running.
TEST(Completer, TimeoutZeroNeverExpiresAndAnAcknowledgedQpHasNoTimer) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 29, 0.0, 0.0);
    b.push(0, cfg(71, spec::QpAction::kReset, 6, 7, 0));
    b.push(0, cfg(72, spec::QpAction::kReset, 6, 7, 1));
    b.settle();
    b.push(1, desc_to_flit(trk(71, 0, 100)));
    b.push(1, desc_to_flit(trk(72, 0, 200)));
    b.settle();
    b.push(2, ack(72, 200));
    b.settle();
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    b.run(60000);
    EXPECT_EQ(b.out[1].size(), 1u) << side << ": nothing expired";
    EXPECT_EQ(counter(blk, kAckTimeouts), 0u) << side;
    EXPECT_TRUE(blk.idle()) << side;
  });
}

// An RNR NAK acknowledges what precedes it and makes the QP wait the RNR
// time its 5 timer bits ask for (code 1: 10 us, 2500 cycles), ignoring other
// NAKs meanwhile, then send again from the NAKed PSN; rnr_retry times, then
// RNR_RETRY_EXC_ERR. The ACK timeout (off here) is not involved.
TEST(Completer, RnrNakWaitsItsTimeThenSendsAgainWhileRnrRetriesLast) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 31, 0.0, 0.0);
    b.push(0, cfg(73, spec::QpAction::kReset, 2, 0, 0, 2));  // rnr_retry 2, retry_cnt 0
    b.settle();
    const std::vector<spec::SqTrack> t = {trk(73, 4, 5), trk(73, 5, 7, true, WcStatus::kSuccess, 6), trk(73, 6, 8)};
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.settle();
    b.push(2, ack(73, 6, 0x21));  // RNR NAK for PSN 6, 10 us
    b.push(2, ack(73, 8, 0x60));  // PSN 8 came out of sequence: ignored while waiting
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], t[0], 2, WcStatus::kSuccess, side);  // PSN 5 precedes the NAK
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_retire(b.out[1][0], 73, 1, false, side);
    b.run(2200);
    EXPECT_EQ(b.out[1].size(), 1u) << side << ": still waiting";
    b.run(700);
    ASSERT_EQ(b.out[1].size(), 2u) << side;
    expect_rewind(b.out[1][1], 73, 0, 5, 6, 0, side);
    b.push(2, ack(73, 6, 0x22));  // again, 20 us
    b.settle();
    b.run(4800);
    EXPECT_EQ(b.out[1].size(), 2u) << side << ": still waiting";
    b.run(700);
    ASSERT_EQ(b.out[1].size(), 3u) << side;
    expect_rewind(b.out[1][2], 73, 0, 5, 6, 0, side);
    b.push(2, ack(73, 6, 0x21));  // no RNR retry left
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], t[1], 2, WcStatus::kRnrRetryExcErr, side);
    expect_compl(b.out[0][2], t[2], 2, WcStatus::kWrFlushErr, side);
    expect_retire(b.out[1][3], 73, 2, true, side);
    EXPECT_EQ(counter(blk, kRnrNaks), 2u) << side << ": RNR_NAK_RETRY_ERR";
    EXPECT_EQ(counter(blk, kRnrExceeded), 1u) << side;
    EXPECT_EQ(counter(blk, kRetransmits), 2u) << side;
    EXPECT_EQ(counter(blk, kPacketSeqErr), 1u) << side;
    EXPECT_EQ(counter(blk, kRetryExceeded), 0u) << side << ": the ignored PSN sequence NAK failed nothing";
    EXPECT_EQ(counter(blk, kAckTimeouts), 0u) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// rnr_retry 7 never gives up; an ACK ends the wait's story with success.
TEST(Completer, RnrRetrySevenRetriesWithoutLimit) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 37, 0.0, 0.0);
    b.push(0, cfg(74, spec::QpAction::kReset, 2, 0, 3, 7));  // timeout 3 as well
    b.settle();
    const auto w = trk(74, 0, 40);
    b.push(1, desc_to_flit(w));
    b.settle();
    for (unsigned i = 0; i < 10; ++i) {
      b.push(2, ack(74, 40, 0x21));
      b.settle();
      b.run(3000);
      ASSERT_EQ(b.out[1].size(), i + 1) << side << " round " << i;
      expect_rewind(b.out[1][i], 74, 0, 0, 40, 0, side);
    }
    b.push(2, ack(74, 40));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], w, 2, WcStatus::kSuccess, side);
    EXPECT_EQ(counter(blk, kRnrNaks), 10u) << side;
    EXPECT_EQ(counter(blk, kAckTimeouts), 0u) << side << ": each rewind restarted the ACK timer";
    EXPECT_EQ(counter(blk, kRnrExceeded), 0u) << side;
  });
}

// QP qpn reset (send CQ 5), then WQE 0 (PSN 1) and WQE 1 (PSNs 2..3) tracked.
struct TwoTracked {
  spec::SqTrack a, c;
};
template <typename B>
TwoTracked reset_and_track_two(B& b, uint16_t qpn) {
  b.push(0, cfg(qpn, spec::QpAction::kReset, 5));
  b.settle();
  const TwoTracked t{trk(qpn, 0, 1), trk(qpn, 1, 3, true, WcStatus::kSuccess, 2)};
  b.push(1, desc_to_flit(t.a));
  b.push(1, desc_to_flit(t.c));
  b.settle();
  return t;
}

// A WQE that fails while being sent (after its sq_track) is amended: it
// fails when it reaches the head, after the WQEs before it are acknowledged.
TEST(Completer, AmendedWqeFailsWhenItReachesTheHead) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 19, 0.2, 0.2);
    b.push(0, cfg(71, spec::QpAction::kReset, 5));
    const auto [a, c] = reset_and_track_two(b, 70);
    const auto amend = amend_of(c);
    b.push(1, desc_to_flit(amend));
    b.settle();
    EXPECT_TRUE(b.out[0].empty()) << side << ": WQE 0 is not acknowledged yet";
    b.push(2, ack(70, 3));  // even an ACK that covers it: the failure wins
    b.settle();
    ASSERT_EQ(b.out[0].size(), 2u) << side;
    expect_compl(b.out[0][0], a, 5, WcStatus::kSuccess, side);
    expect_compl(b.out[0][1], c, 5, WcStatus::kLocProtErr, side);
    expect_retire(b.out[1][0], 70, 2, true, side);
    // at the head: it fails at once
    const auto h = trk(71, 0, 9);
    b.push(1, desc_to_flit(h));
    b.settle();
    const auto ha = amend_of(h);
    b.push(1, desc_to_flit(ha));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][2], h, 5, WcStatus::kLocProtErr, side);
    expect_retire(b.out[1][1], 71, 1, true, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// The requester's back end ends a WQE after later WQEs were tracked, so an
// amend may come for a WQE an ACK has already completed: it marks nothing
// (else it would stay as the QP's failure, and a later WQE's amend would be
// ignored).
TEST(Completer, AnAmendForAWqeAlreadyCompletedMarksNothing) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 23, 0.2, 0.2);
    const auto [a, c] = reset_and_track_two(b, 72);
    b.push(2, ack(72, 1));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], a, 5, WcStatus::kSuccess, side);
    const auto stale = amend_of(a);
    b.push(1, desc_to_flit(stale));
    b.settle();
    EXPECT_EQ(b.out[0].size(), 1u) << side << ": the amend of a completed WQE completes nothing";
    const auto d = trk(72, 2, 5, true, WcStatus::kSuccess, 4);
    b.push(1, desc_to_flit(d));
    b.settle();
    const auto dam = amend_of(d);
    b.push(1, desc_to_flit(dam));
    b.settle();
    b.push(2, ack(72, 5));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], c, 5, WcStatus::kSuccess, side);
    expect_compl(b.out[0][2], d, 5, WcStatus::kLocProtErr, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

TEST(Completer, LocalFailureCompletesWhenItReachesTheHead) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 9, 0.3, 0.3);
    b.push(0, cfg(50, spec::QpAction::kReset, 9));
    b.push(0, cfg(51, spec::QpAction::kReset, 9));
    b.settle();
    // QP 50: a failed WQE with nothing ahead completes at once
    const auto f0 = trk(50, 0, 0, true, WcStatus::kLocProtErr);
    b.push(1, desc_to_flit(f0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], f0, 9, WcStatus::kLocProtErr, side);
    expect_retire(b.out[1][0], 50, 1, true, side);
    // QP 51: it waits behind a WQE not yet acknowledged, and the requester's
    // flushed WQE behind it is flushed with it
    const std::vector<spec::SqTrack> t = {trk(51, 0, 5), trk(51, 1, 5, false, WcStatus::kLocQpOpErr),
                                          trk(51, 2, 5, false, WcStatus::kWrFlushErr)};
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.settle();
    EXPECT_EQ(b.out[0].size(), 1u) << side;
    b.push(2, ack(51, 5));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 4u) << side;
    expect_compl(b.out[0][1], t[0], 9, WcStatus::kSuccess, side);
    expect_compl(b.out[0][2], t[1], 9, WcStatus::kLocQpOpErr, side);
    expect_compl(b.out[0][3], t[2], 9, WcStatus::kWrFlushErr, side);
    ASSERT_EQ(b.out[1].size(), 2u) << side;
    expect_retire(b.out[1][1], 51, 3, true, side);
    // a flush leaves a WQE that failed locally its own status
    const std::vector<spec::SqTrack> u = {trk(52, 0, 9), trk(52, 1, 9, false, WcStatus::kLocProtErr)};
    b.push(0, cfg(52, spec::QpAction::kReset, 9));
    b.settle();
    for (const auto& x : u) b.push(1, desc_to_flit(x));
    b.settle();
    b.push(0, cfg(52, spec::QpAction::kToErr, 9));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 6u) << side;
    expect_compl(b.out[0][4], u[0], 9, WcStatus::kWrFlushErr, side);
    expect_compl(b.out[0][5], u[1], 9, WcStatus::kLocProtErr, side);
    expect_retire(b.out[1][2], 52, 2, true, side);
  });
}

TEST(Completer, ToErrFlushesTheWindowInOrderAndResetStartsAfresh) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 11, 0.2, 0.5);
    b.push(0, cfg(60, spec::QpAction::kReset, 2));
    b.push(0, cfg(60, spec::QpAction::kToRts, 4));  // attributes: send_cq moves to 4
    b.settle();
    std::vector<spec::SqTrack> t;
    for (uint16_t i = 0; i < 5; ++i) t.push_back(trk(60, i, 1000 + i, i != 2));
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.settle();
    b.push(0, cfg(60, spec::QpAction::kToErr, 4));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 5u) << side;
    for (unsigned i = 0; i < 5; ++i) expect_compl(b.out[0][i], t[i], 4, WcStatus::kWrFlushErr, side);
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_retire(b.out[1][0], 60, 5, true, side);
    // RESET: the QP works again; DESTROY: it is gone
    b.push(0, cfg(60, spec::QpAction::kReset, 4));
    b.settle();
    const auto n = trk(60, 0, 7);
    b.push(1, desc_to_flit(n));
    b.settle();
    b.push(2, ack(60, 7));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 6u) << side;
    expect_compl(b.out[0][5], n, 4, WcStatus::kSuccess, side);
    b.push(0, cfg(60, spec::QpAction::kDestroy));
    b.settle();
    b.push(1, desc_to_flit(trk(60, 1, 8)));
    b.push(2, ack(60, 8));
    b.push(2, ack(61, 8));    // never created
    b.push(2, ack(300, 8));   // beyond MAX_QP
    b.push(2, ack(61, 8, 0x60));
    b.settle();
    EXPECT_EQ(b.out[0].size(), 6u) << side << ": nothing for a QP that does not exist";
    EXPECT_EQ(b.out[1].size(), 2u) << side;
    EXPECT_EQ(blk.counters()[0].second, 5u) << side << ": RX_ACKS counts ignored ACKs too";
    EXPECT_EQ(blk.counters()[1].second, 0u) << side << ": a NAK for no QP is not received";
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

TEST(Completer, WindowOfSixteenHoldsTheSeventeenthWqeBack) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 13, 0.0, 0.0);
    b.push(0, cfg(9, spec::QpAction::kReset, 1));
    b.settle();
    std::vector<spec::SqTrack> t;
    for (uint16_t i = 0; i < 17; ++i) t.push_back(trk(9, i, i));
    for (const auto& x : t) b.push(1, desc_to_flit(x));
    b.run(300);
    EXPECT_EQ(b.pending(1), 1u) << side << ": the 17th waits";
    b.push(2, ack(9, 0));  // frees one slot: the 17th enters
    b.run(300);
    EXPECT_EQ(b.pending(1), 0u) << side;
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_retire(b.out[1][0], 9, 1, false, side);
    b.push(2, ack(9, 16));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 17u) << side;
    for (unsigned i = 0; i < 17; ++i) expect_compl(b.out[0][i], t[i], 1, WcStatus::kSuccess, side);
    ASSERT_EQ(b.out[1].size(), 2u) << side;
    expect_retire(b.out[1][1], 9, 16, false, side);
  });
}

// ---------------------------------------------------------------- RDMA READ
// pmtu 1 (256 bytes) in these cases: a READ of 600 bytes takes 3 PSNs.
Flit rcfg(uint16_t qpn, uint16_t cq, uint8_t retry_cnt = 7, uint8_t timeout = 0) {
  auto c = desc_from_flit<spec::QpCfg>(cfg(qpn, spec::QpAction::kReset, cq, retry_cnt, timeout));
  c.pmtu = 1;
  return desc_to_flit(c);
}
spec::SqTrack rtrk(uint16_t qpn, uint16_t idx, uint32_t first_psn, uint32_t len, bool signaled = true) {
  const uint32_t n = len == 0 ? 1 : (len + 255) / 256;
  auto t = trk(qpn, idx, first_psn + n - 1, signaled, WcStatus::kSuccess, first_psn);
  t.wc_opcode = static_cast<uint8_t>(spec::WcOpcode::kRdmaRead);
  t.byte_len = len;
  return t;
}
Flit rsp(uint32_t qpn, uint32_t psn, uint8_t opcode, uint16_t len, uint8_t syn = 0) {
  auto h = desc_from_flit<spec::RoceRxHdr>(ack(qpn, psn, syn, opcode));
  h.pay_len = len;
  if (opcode == spec::kRcReadRespMiddle) h.aeth_syndrome = 0, h.aeth_msn = 0;
  return desc_to_flit(h);
}
constexpr uint8_t kFirst = spec::kRcReadRespFirst, kMiddle = spec::kRcReadRespMiddle, kLast = spec::kRcReadRespLast,
                  kOnly = spec::kRcReadRespOnly;
Flit done(uint16_t qpn, uint16_t idx, WcStatus st = WcStatus::kSuccess) {
  spec::RdDone d;
  d.qpn = qpn;
  d.wqe_idx = idx;
  d.status = static_cast<uint8_t>(st);
  return desc_to_flit(d);
}
// A read_place command as the completer should hand it over.
void expect_place(const Flit& f, uint16_t qpn, uint16_t idx, uint32_t offset, uint16_t len, bool last, bool drop,
                  const char* side) {
  const auto c = desc_from_flit<spec::RdPlace>(f);
  EXPECT_EQ(c.qpn, qpn) << side;
  EXPECT_EQ(c.len, len) << side;
  EXPECT_EQ(c.drop, drop) << side;
  if (!drop) {
    EXPECT_EQ(c.wqe_idx, idx) << side;
    EXPECT_EQ(c.offset, offset) << side;
    EXPECT_EQ(c.last, last) << side;
  }
}

// A READ completes only through its responses and read_place's answer: the
// first response acknowledges the SEND before it, each response becomes a
// command at its offset, no completion comes before rd_done, an ACK waits
// while a READ waits for rd_done, and then completes the SEND behind it.
TEST(CompleterRead, ResponsesPlaceDataAndRdDoneCompletesTheRead) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 31, 0.2, 0.3);
    b.push(0, rcfg(4, 6));
    b.settle();
    const auto s0 = trk(4, 0, 10), r = rtrk(4, 1, 11, 600), s1 = trk(4, 2, 14);
    for (const auto& x : {s0, r, s1}) b.push(1, desc_to_flit(x));
    b.settle();
    b.push(2, ack(4, 13));  // an ACK cannot complete a READ: an implied NAK (checked below)
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], s0, 6, WcStatus::kSuccess, side);
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_rewind(b.out[1][0], 4, 1, 1, 11, 0, side);
    EXPECT_EQ(counter(blk, kImpliedNak), 1u) << side;
    b.push(2, rsp(4, 11, kFirst, 256));
    b.push(2, rsp(4, 12, kMiddle, 256));
    b.push(2, rsp(4, 13, kLast, 88));
    b.settle();
    ASSERT_EQ(b.out[2].size(), 3u) << side;
    expect_place(b.out[2][0], 4, 1, 0, 256, false, false, side);
    expect_place(b.out[2][1], 4, 1, 256, 256, false, false, side);
    expect_place(b.out[2][2], 4, 1, 512, 88, true, false, side);
    EXPECT_EQ(b.out[0].size(), 1u) << side << ": no CQE before read_place answers";
    b.push(2, ack(4, 14));
    b.run(200);
    EXPECT_EQ(b.out[0].size(), 1u) << side << ": the ACK waits";
    EXPECT_EQ(b.pending(2), 1u) << side << ": no response is taken while a READ waits for rd_done";
    b.push(3, done(4, 1));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], r, 6, WcStatus::kSuccess, side);
    expect_compl(b.out[0][2], s1, 6, WcStatus::kSuccess, side);
    EXPECT_EQ(b.out[2].size(), 3u) << side;
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// The model's timing is the RTL's where READ responses meet new WQEs: READ
// WQEs tracked back to back (an append takes two cycles: S_CTX, back to
// S_IDLE), each response ONLY taken while tracks still arrive, its command
// to read_place, rd_done (answered a fixed time after the command), the CQE
// and the retire -- every output in the same cycle on both, with no idle
// cycles or backpressure.
TEST(CompleterXcheck, ReadResponsesBetweenTracksAreCycleExact) {
  std::vector<std::vector<uint64_t>> cycles[2];  // [rtl, model][port]: cycle of each output
  int which = 0;
  on_both([&](auto& blk, const char* side) {
    Bench b(blk, 31, 0, 0);
    for (uint16_t q = 1; q <= 8; ++q) b.push(0, rcfg(q, 6));
    b.settle();
    for (uint16_t q = 1; q <= 8; ++q) b.push(1, desc_to_flit(rtrk(q, 0, 100, 64)));
    b.settle();
    const uint64_t t0 = blk.cycle();
    // responses for index 0 while index 1 (and 2) are tracked
    for (uint16_t k = 1; k <= 2; ++k)
      for (uint16_t q = 1; q <= 8; ++q) b.push(1, desc_to_flit(rtrk(q, k, 100 + k, 64)));
    for (uint16_t k = 0; k <= 2; ++k)
      for (uint16_t q = 1; q <= 8; ++q) b.push(2, rsp(q, 100 + k, kOnly, 64));
    std::deque<std::pair<uint64_t, Flit>> dones;  // rd_done, 10 cycles after each command
    std::vector<size_t> seen(3, 0);
    auto& mine = cycles[which++];
    mine.resize(3);
    for (int i = 0; i < 3000; ++i) {
      while (!dones.empty() && dones.front().first <= blk.cycle()) {
        b.push(3, dones.front().second);
        dones.pop_front();
      }
      b.step();
      for (unsigned port = 0; port < 3; ++port)
        for (; seen[port] < b.out[port].size(); ++seen[port]) {
          mine[port].push_back(blk.cycle() - t0);
          if (port != 2) continue;
          const auto c = desc_from_flit<spec::RdPlace>(b.out[2][seen[port]]);
          EXPECT_FALSE(c.drop) << side << ": response " << seen[port] << " was dropped";
          dones.push_back({blk.cycle() + 10, done(c.qpn, c.wqe_idx)});
        }
    }
    EXPECT_EQ(mine[2].size(), 24u) << side << ": a command per response";
    EXPECT_EQ(mine[0].size(), 24u) << side << ": a CQE per READ";
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
  const char* names[] = {"cq_compl", "sq_retire", "rd_place"};
  for (unsigned port = 0; port < 3; ++port) {
    ASSERT_EQ(cycles[0][port].size(), cycles[1][port].size()) << names[port];
    for (size_t i = 0; i < cycles[0][port].size(); ++i)
      EXPECT_EQ(cycles[0][port][i], cycles[1][port][i]) << names[port] << " " << i << " (rtl, model)";
  }
  std::printf("%zu CQEs, %zu retires, %zu commands: each in the same cycle on RTL and model\n", cycles[0][0].size(),
              cycles[0][1].size(), cycles[0][2].size());
}

// A one-packet WQE's life in the completer as engine_bench's 64-byte rows
// meet it, many QPs with a message each: its track appended (S_CTX, which
// takes the next input), then the ACK that covers it, the window's only
// entry (S_CTX, then S_WALK, which completes it, writes the context back,
// retires and takes the next input: no S_DONE) -- the ACKs' CQEs two cycles
// apart, every CQE and retire in the same cycle on RTL and model.
TEST(CompleterXcheck, OneEntryAcksTakeTwoCyclesAndAreCycleExact) {
  constexpr uint16_t kQps = 16;
  std::vector<std::vector<uint64_t>> cycles[2];  // [rtl, model][port]: cycle of each output
  int which = 0;
  on_both([&](auto& blk, const char* side) {
    Bench b(blk, 31, 0, 0);
    for (uint16_t q = 1; q <= kQps; ++q) b.push(0, cfg(q, spec::QpAction::kReset, 6));
    b.settle();
    const uint64_t t0 = blk.cycle();
    std::vector<spec::SqTrack> t;
    for (uint16_t q = 1; q <= kQps; ++q) {
      t.push_back(trk(q, 0, 200u + q, q % 4 != 0));  // (every fourth unsignaled: a retire, no CQE)
      b.push(1, desc_to_flit(t.back()));
    }
    for (uint16_t q = 1; q <= kQps; ++q) b.push(2, ack(q, 200u + q));
    auto& mine = cycles[which++];
    mine.resize(2);
    std::vector<size_t> seen(2, 0);
    for (int i = 0; i < 400; ++i) {
      b.step();
      for (unsigned port = 0; port < 2; ++port)
        for (; seen[port] < b.out[port].size(); ++seen[port]) mine[port].push_back(blk.cycle() - t0);
    }
    ASSERT_EQ(b.out[1].size(), size_t{kQps}) << side << ": a retire per ACK";
    size_t k = 0;
    for (uint16_t q = 1; q <= kQps; ++q) {
      expect_retire(b.out[1][q - 1], q, 1, false, side);
      if (t[q - 1].signaled) {
        ASSERT_LT(k, b.out[0].size()) << side;
        expect_compl(b.out[0][k++], t[q - 1], 6, WcStatus::kSuccess, side);
      }
    }
    EXPECT_EQ(b.out[0].size(), k) << side << ": no CQE for an unsignaled WQE";
    EXPECT_EQ(counter(blk, kRxAcks), kQps) << side;
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
  const char* names[] = {"cq_compl", "sq_retire"};
  for (unsigned port = 0; port < 2; ++port) {
    ASSERT_EQ(cycles[0][port].size(), cycles[1][port].size()) << names[port];
    for (size_t i = 0; i < cycles[0][port].size(); ++i)
      EXPECT_EQ(cycles[0][port][i], cycles[1][port][i]) << names[port] << " " << i << " (rtl, model)";
  }
  const auto& rt = cycles[0][1];
  for (size_t i = 1; i < rt.size(); ++i) EXPECT_EQ(rt[i] - rt[i - 1], 2u) << "retire " << i << " (rtl)";
  std::printf("%zu ACKs: a retire every %llu cycles, the same cycles on RTL and model\n", rt.size(),
              static_cast<unsigned long long>((rt.back() - rt.front()) / (rt.size() - 1)));
}

// A lost response: the next one is an implied NAK that sends the QP back to
// the missing one (once: the responses still on their way are dropped), and
// the responder's answer to the re-request (FIRST at the missing PSN, then
// MIDDLE, LAST) lands at the right offsets.
TEST(CompleterRead, LostResponseIsAnImpliedNakOncePerRewind) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 32, 0.3, 0.2);
    b.push(0, rcfg(5, 7));
    b.settle();
    const auto r = rtrk(5, 3, 0xFFFFFE, 1000);  // 4 PSNs across the wrap: FFFFFE..000001
    b.push(1, desc_to_flit(r));
    b.settle();
    b.push(2, rsp(5, 0xFFFFFE, kFirst, 256));
    b.push(2, rsp(5, 0x000000, kMiddle, 256));  // 0xFFFFFF lost
    b.push(2, rsp(5, 0x000001, kLast, 232));
    b.settle();
    ASSERT_EQ(b.out[2].size(), 3u) << side;
    expect_place(b.out[2][0], 5, 3, 0, 256, false, false, side);
    expect_place(b.out[2][1], 5, 0, 0, 256, false, true, side);
    expect_place(b.out[2][2], 5, 0, 0, 232, false, true, side);
    ASSERT_EQ(b.out[1].size(), 1u) << side << ": one rewind, not two";
    expect_rewind(b.out[1][0], 5, 0, 3, 0xFFFFFE, 1, side);
    EXPECT_EQ(counter(blk, kImpliedNak), 2u) << side;
    EXPECT_EQ(counter(blk, kRetransmits), 1u) << side;
    // the re-request's answer: a new message from the missing packet
    b.push(2, rsp(5, 0xFFFFFF, kFirst, 256));
    b.push(2, rsp(5, 0x000000, kMiddle, 256));
    b.push(2, rsp(5, 0x000001, kLast, 232));
    b.settle();  // (rd_done goes before responses: it comes once the last response was taken)
    b.push(3, done(5, 3));
    b.push(2, rsp(5, 0x000001, kLast, 232));  // a duplicate: matches nothing any more
    b.settle();
    ASSERT_EQ(b.out[2].size(), 7u) << side;
    expect_place(b.out[2][3], 5, 3, 256, 256, false, false, side);
    expect_place(b.out[2][4], 5, 3, 512, 256, false, false, side);
    expect_place(b.out[2][5], 5, 3, 768, 232, true, false, side);
    expect_place(b.out[2][6], 5, 0, 0, 232, false, true, side);
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], r, 7, WcStatus::kSuccess, side);
    EXPECT_EQ(counter(blk, kUnmatched), 1u) << side << ": the duplicate";
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// After a rewind into a READ a responder may answer the re-request by
// replaying the old message from there (MIDDLE ... LAST, as Linux rxe does)
// instead of a new one (FIRST ... LAST, as ours does): both are accepted.
// And a READ response whose walk meets a failed entry still becomes a
// (drop) command: read_place takes its payload, nothing is misaligned.
TEST(CompleterRead, ReplayAfterARewindAndAResponseMeetingAFailedEntry) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 35, 0.2, 0.2);
    b.push(0, rcfg(8, 3));
    b.push(0, rcfg(9, 3));
    b.settle();
    const auto r = rtrk(8, 0, 10, 700);  // PSNs 10..12
    b.push(1, desc_to_flit(r));
    b.settle();
    b.push(2, rsp(8, 10, kFirst, 256));
    b.push(2, rsp(8, 12, kLast, 188));  // 11 lost: an implied NAK, back to 11
    b.settle();
    ASSERT_EQ(b.out[1].size(), 1u) << side;
    expect_rewind(b.out[1][0], 8, 0, 0, 10, 1, side);
    b.push(2, rsp(8, 11, kMiddle, 256));  // the old message replayed from 11
    b.push(2, rsp(8, 12, kLast, 188));
    b.settle();
    b.push(3, done(8, 0));
    b.settle();
    ASSERT_EQ(b.out[2].size(), 4u) << side;
    expect_place(b.out[2][2], 8, 0, 256, 256, false, false, side);
    expect_place(b.out[2][3], 8, 0, 512, 188, true, false, side);
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], r, 3, WcStatus::kSuccess, side);
    // QP 9: a SEND, then a WRITE that failed while being sent (amended)
    const auto s0 = trk(9, 0, 100), w1 = trk(9, 1, 104, true, WcStatus::kSuccess, 101);
    b.push(1, desc_to_flit(s0));
    b.push(1, desc_to_flit(w1));
    b.settle();
    auto am = w1;
    am.status = static_cast<uint8_t>(WcStatus::kLocProtErr);
    am.amend = 1;
    b.push(1, desc_to_flit(am));
    b.settle();
    b.push(2, rsp(9, 102, kOnly, 300));  // a stray READ response inside the WRITE
    b.settle();
    ASSERT_EQ(b.out[2].size(), 5u) << side << ": its payload is dropped by a command";
    expect_place(b.out[2][4], 9, 0, 0, 300, false, true, side);
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][1], s0, 3, WcStatus::kSuccess, side);
    expect_compl(b.out[0][2], w1, 3, WcStatus::kLocProtErr, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// What does not fit the READ's next response is dropped and counted: the
// wrong opcode for its position, the wrong length, a NAK syndrome in a READ
// response's AETH, a response for a QP whose head is not a READ, a response
// for no QP (its payload still goes to read_place, to be discarded).
TEST(CompleterRead, ResponsesThatDoNotFitAreDroppedAndCounted) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 33, 0.2, 0.2);
    b.push(0, rcfg(6, 1));
    b.push(0, rcfg(7, 1));
    b.settle();
    const auto r = rtrk(6, 0, 100, 512), s = trk(7, 0, 50);
    b.push(1, desc_to_flit(r));
    b.push(1, desc_to_flit(s));
    b.settle();
    b.push(2, rsp(6, 100, kMiddle, 256));      // FIRST expected
    b.push(2, rsp(6, 100, kOnly, 256));        // not the last PSN: FIRST expected
    b.push(2, rsp(6, 100, kFirst, 200));       // FIRST carries a whole MTU
    b.push(2, rsp(6, 100, kFirst, 256, 0x62)); // a NAK code in its AETH
    b.push(2, rsp(7, 50, kOnly, 64));          // QP 7's head is a SEND
    b.push(2, rsp(300, 1, kOnly, 16));         // beyond MAX_QP
    b.settle();
    ASSERT_EQ(b.out[2].size(), 6u) << side;
    const uint16_t qpns[] = {6, 6, 6, 6, 7, 300};
    const uint16_t lens[] = {256, 256, 200, 256, 64, 16};
    for (unsigned i = 0; i < 6; ++i) expect_place(b.out[2][i], qpns[i], 0, 0, lens[i], false, true, side);
    EXPECT_EQ(counter(blk, kUnmatched), 6u) << side;
    EXPECT_TRUE(b.out[0].empty() && b.out[1].empty()) << side << ": nothing completes, nothing rewinds";
    // the right ones still go through, and the MTU-exact last one
    b.push(2, rsp(6, 100, kFirst, 256));
    b.push(2, rsp(6, 101, kLast, 256));
    b.settle();  // (rd_done goes before responses: it comes once the last response was taken)
    b.push(3, done(6, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 1u) << side;
    expect_compl(b.out[0][0], r, 1, WcStatus::kSuccess, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// Failures: read_place's error status fails the READ and flushes what
// follows; a NAK at the READ's next PSN fails it with the NAK's status; a
// timeout goes back to the first missing response; a zero-length READ is one
// ONLY response without payload.
TEST(CompleterRead, FailuresTimeoutsAndZeroLength) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 34, 0.2, 0.2);
    for (uint16_t q = 10; q < 14; ++q) b.push(0, rcfg(q, 2, 3, q == 12 ? 1 : 0));
    b.settle();
    // QP 10: LOC_PROT_ERR from read_place
    const auto a0 = rtrk(10, 0, 0, 300), a1 = trk(10, 1, 2);
    b.push(1, desc_to_flit(a0));
    b.push(1, desc_to_flit(a1));
    b.settle();
    b.push(2, rsp(10, 0, kFirst, 256));
    b.push(2, rsp(10, 1, kLast, 44));
    b.settle();  // (rd_done goes before responses: it comes once the last response was taken)
    b.push(3, done(10, 0, WcStatus::kLocProtErr));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 2u) << side;
    expect_compl(b.out[0][0], a0, 2, WcStatus::kLocProtErr, side);
    expect_compl(b.out[0][1], a1, 2, WcStatus::kWrFlushErr, side);
    expect_retire(b.out[1][0], 10, 2, true, side);
    // QP 11: NAK remote access at the READ's first PSN
    const auto c0 = rtrk(11, 0, 40, 256);
    b.push(1, desc_to_flit(c0));
    b.settle();
    b.push(2, ack(11, 40, 0x62));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][2], c0, 2, WcStatus::kRemAccessErr, side);
    // QP 12 (timeout 1: 2048 cycles): two of five responses, then silence
    const auto d0 = rtrk(12, 0, 500, 1280);
    b.push(1, desc_to_flit(d0));
    b.settle();
    b.push(2, rsp(12, 500, kFirst, 256));
    b.push(2, rsp(12, 501, kMiddle, 256));
    b.run(3000);
    ASSERT_EQ(b.out[1].size(), 3u) << side;
    expect_rewind(b.out[1][2], 12, 0, 0, 500, 2, side);
    EXPECT_EQ(counter(blk, kAckTimeouts), 1u) << side;
    b.push(2, rsp(12, 502, kFirst, 256));
    b.push(2, rsp(12, 503, kMiddle, 256));
    b.push(2, rsp(12, 504, kLast, 256));
    b.settle();  // (rd_done goes before responses: it comes once the last response was taken)
    b.push(3, done(12, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 4u) << side;
    expect_compl(b.out[0][3], d0, 2, WcStatus::kSuccess, side);
    // QP 13: zero bytes
    const auto z = rtrk(13, 0, 7, 0);
    b.push(1, desc_to_flit(z));
    b.settle();
    b.push(2, rsp(13, 7, kOnly, 0));
    b.settle();  // (rd_done goes before responses: it comes once the last response was taken)
    b.push(3, done(13, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 5u) << side;
    expect_compl(b.out[0][4], z, 2, WcStatus::kSuccess, side);
    expect_place(b.out[2].back(), 13, 0, 0, 0, true, false, side);
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// A READ whose responses were partly placed and that now fails otherwise
// (a NAK at its next PSN, retry exhaustion, a flush to ERR) must not complete
// while read_place may still write its data: the completer sends a fence
// (len 0, last, drop) and completes it, failing, only on the fence's rd_done;
// meanwhile no qp_cfg, response or timer is taken. A READ with nothing
// placed fails at once, as before. Every command carries the QP's epoch.
TEST(CompleterRead, PartlyPlacedReadFailsOnlyAfterItsFence) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 35, 0.2, 0.2);
    for (uint16_t q = 20; q < 23; ++q) b.push(0, rcfg(q, 5, 2, q == 22 ? 1 : 0));
    b.push(0, rcfg(20, 5, 2));  // QP 20 reset again: epoch 2
    b.settle();
    // QP 20: NAK remote access at the READ's third packet
    const auto a0 = rtrk(20, 0, 100, 1000), a1 = trk(20, 1, 105);
    b.push(1, desc_to_flit(a0));
    b.push(1, desc_to_flit(a1));
    b.settle();
    b.push(2, rsp(20, 100, kFirst, 256));
    b.push(2, rsp(20, 101, kMiddle, 256));
    b.settle();
    b.push(2, ack(20, 102, 0x62));
    b.settle();
    ASSERT_EQ(b.out[2].size(), 3u) << side;
    expect_place(b.out[2][1], 20, 0, 256, 256, false, false, side);
    auto f = desc_from_flit<spec::RdPlace>(b.out[2][2]);
    EXPECT_TRUE(f.wqe_idx == 0 && f.len == 0 && f.last && f.drop && f.offset == 0) << side << ": the fence";
    EXPECT_EQ(f.epoch, 2u) << side;
    EXPECT_EQ(desc_from_flit<spec::RdPlace>(b.out[2][0]).epoch, 2u) << side;
    EXPECT_EQ(b.out[0].size(), 0u) << side << ": no CQE before the fence is answered";
    b.push(0, cfg(23, spec::QpAction::kAttr, 5, 2));  // waits too (no qp_cfg while rd_done is due)
    b.run(300);
    if (std::string(side) == "rtl") {  // (the model's input channel holds one flit)
      EXPECT_EQ(b.pending(0), 1u) << side;
    }
    b.push(3, done(20, 0));  // (its status says nothing: the NAK's counts)
    b.settle();
    ASSERT_EQ(b.out[0].size(), 2u) << side;
    expect_compl(b.out[0][0], a0, 5, WcStatus::kRemAccessErr, side);
    expect_compl(b.out[0][1], a1, 5, WcStatus::kWrFlushErr, side);
    const auto rr = retire_of(b.out[1].back());  // (a READ among them: the requester may start another)
    EXPECT_TRUE(rr.qpn == 20 && rr.count == 2 && rr.rd_count == 1 && rr.error) << side;
    // QP 21: TO_ERR with one response placed; a READ behind it with none
    const auto c0 = rtrk(21, 0, 200, 700), c1 = rtrk(21, 1, 203, 100);
    b.push(1, desc_to_flit(c0));
    b.push(1, desc_to_flit(c1));
    b.settle();
    b.push(2, rsp(21, 200, kFirst, 256));
    b.settle();
    b.push(0, cfg(21, spec::QpAction::kToErr, 5, 2));
    b.settle();
    ASSERT_EQ(b.out[2].size(), 5u) << side;
    f = desc_from_flit<spec::RdPlace>(b.out[2][4]);
    EXPECT_TRUE(f.qpn == 21 && f.wqe_idx == 0 && f.len == 0 && f.last && f.drop) << side << ": the fence";
    EXPECT_EQ(b.out[0].size(), 2u) << side;
    const auto late = trk(21, 2, 204);  // posted while the fence is out: flushed behind
    b.push(1, desc_to_flit(late));
    b.settle();
    b.push(3, done(21, 0, WcStatus::kLocProtErr));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 5u) << side;
    expect_compl(b.out[0][2], c0, 5, WcStatus::kWrFlushErr, side);
    expect_compl(b.out[0][3], c1, 5, WcStatus::kWrFlushErr, side);
    expect_compl(b.out[0][4], late, 5, WcStatus::kWrFlushErr, side);
    // QP 22 (timeout 1, retry 2): responses placed, then silence until the retries are spent
    const auto d0 = rtrk(22, 0, 300, 900);
    b.push(1, desc_to_flit(d0));
    b.settle();
    b.push(2, rsp(22, 300, kFirst, 256));
    b.run(20000);
    ASSERT_EQ(b.out[2].size(), 7u) << side;
    f = desc_from_flit<spec::RdPlace>(b.out[2][6]);
    EXPECT_TRUE(f.qpn == 22 && f.len == 0 && f.last && f.drop) << side << ": the fence";
    EXPECT_EQ(b.out[0].size(), 5u) << side;
    b.push(3, done(22, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 6u) << side;
    expect_compl(b.out[0][5], d0, 5, WcStatus::kRetryExcErr, side);
    EXPECT_EQ(counter(blk, kRetryExceeded), 1u) << side;
    b.run(600);  // (the RTL's timer bound forgets the expired deadline after a scan lap)
    EXPECT_TRUE(blk.idle()) << side;
    EXPECT_EQ(b.stable_error, "") << side;
  });
}

// Random traffic: per QP a run of WQEs with rising PSNs (some across the
// wrap), ACKs that cover some of them (sometimes stale or ahead), rare NAKs,
// local failures and QP commands. Whether an ACK covers a WQE depends on
// which of the two came first, so the inputs go in one global order (as the
// engine produces them: a WQE is tracked before its ACK can come back), and
// a QP's window is acknowledged before it fills (a held-back sq_track would
// hold the order). ERR is sticky until a RESET, so the traffic runs in
// rounds, each from reset with its own seed and its own idle/backpressure mix.
struct Round {
  std::vector<std::vector<Flit>> stim = std::vector<std::vector<Flit>>(4);
  std::vector<uint32_t> order;
  void put(unsigned port, const Flit& f) {
    stim[port].push_back(f);
    order.push_back(1u << port);
  }
};

Round random_round(uint64_t seed, int items) {
  std::mt19937_64 rng(seed);
  Round round;
  constexpr unsigned kQps = 12;
  std::vector<uint32_t> psn(kQps + 1);
  std::vector<uint16_t> idx(kQps + 1, 0);
  for (unsigned q = 1; q <= kQps; ++q) {
    round.put(0, cfg(static_cast<uint16_t>(q), spec::QpAction::kReset, static_cast<uint16_t>(q % 4),
                     static_cast<uint8_t>(rng() % 4)));
    psn[q] = q % 3 == 0 ? 0xFFFFFF - static_cast<uint32_t>(rng() % 200) : static_cast<uint32_t>(rng() & 0xFFFFFF);
    idx[q] = static_cast<uint16_t>(rng());
  }
  std::vector<unsigned> open(kQps + 1, 0);  // WQEs tracked since the QP's last full ACK
  auto any_qp = [&] { return static_cast<uint16_t>(1 + rng() % kQps); };
  for (int i = 0; i < items; ++i) {
    const uint16_t q = any_qp();
    if (open[q] == Completer::kWindow - 2) {  // acknowledge everything before the window fills
      round.put(2, ack(q, psn[q]));
      open[q] = 0;
    }
    ++open[q];
    const unsigned r = rng() % 1000;
    const WcStatus st = r < 2 ? WcStatus::kLocProtErr : r < 3 ? WcStatus::kWrFlushErr : WcStatus::kSuccess;
    const uint32_t first = (psn[q] + 1) & 0xFFFFFF;  // a WQE of 1..4 packets (none when it failed)
    if (st == WcStatus::kSuccess) psn[q] = (psn[q] + 1 + static_cast<uint32_t>(rng() % 4)) & 0xFFFFFF;
    round.put(1, desc_to_flit(trk(q, idx[q]++, psn[q], rng() % 10 < 7, st, first)));
    if (st == WcStatus::kSuccess && rng() % 300 == 0) {  // it fails while being sent
      auto a = trk(q, static_cast<uint16_t>(idx[q] - 1), psn[q], true, WcStatus::kLocProtErr, first);
      a.amend = 1;
      round.put(1, desc_to_flit(a));
    }
    if (rng() % 10 < 7) {
      const uint16_t a = any_qp();
      const uint32_t back = static_cast<uint32_t>(rng() % 8);  // sometimes stale, sometimes mid-WQE
      const unsigned k = rng() % 400;
      const uint8_t syn = k < 6 ? 0x60 : k == 6 ? 0x61 + rng() % 3 : k == 7 ? 0x20 | (rng() % 32) : k == 8 ? 0x40 : 0x1F;
      round.put(2, ack(a, psn[a] - back, syn, k == 3 ? spec::kRcReadRespOnly : spec::kRcAck));
    }
    if (rng() % 500 == 0) round.put(2, ack(static_cast<uint32_t>(rng() % 1000), 0));  // no such QP
    if (rng() % 200 == 0) {  // moved to ERR and back
      const uint16_t q2 = any_qp();
      round.put(0, cfg(q2, spec::QpAction::kToErr, q2 % 4));
      round.put(0, cfg(q2, spec::QpAction::kReset, q2 % 4));
    }
    if (rng() % 400 == 0) round.put(0, cfg(any_qp(), spec::QpAction::kAttr, static_cast<uint16_t>(rng() % 4)));
  }
  // closing ACKs: every QP acknowledged up to its last PSN
  for (int rep = 0; rep < 20; ++rep)
    for (unsigned q = 1; q <= kQps; ++q) round.put(2, ack(q, psn[q]));
  return round;
}

TEST(CompleterXcheck, RandomTrafficMatchesModel) {
  const double mix[][2] = {{0.0, 0.0}, {0.3, 0.3}, {0.6, 0.2}, {0.1, 0.7}, {0.3, 0.0}, {0.5, 0.5}};
  std::map<int, size_t> by_status;
  size_t compared = 0, retires = 0, retired = 0, retire_err = 0, rewinds = 0;
  uint64_t cycles = 0;
  for (unsigned round = 0; round < 6; ++round) {
    XcheckConfig xc;
    xc.seed = 21 + round;
    xc.in_idle = mix[round][0];
    xc.out_stall = mix[round][1];
    xc.fst_path = "completer_divergence.fst";
    const Round stim = random_round(100 + round, 600);
    xc.order = stim.order;
    const XcheckResult r = xcheck_run([] { return std::make_unique<CompleterRtl>(); },
                                      [] { return model::make_completer_block(kMaxQp); },
                                      stim.stim, xc);
    ASSERT_TRUE(r.ok) << "round " << round << ": " << r.report;
    compared += r.compared;
    cycles += r.rtl_cycles;
    for (const auto& t : r.rtl_out[0]) ++by_status[compl_of(t.flits[0]).status];
    for (const auto& t : r.rtl_out[1]) {
      ++retires;
      retired += retire_of(t.flits[0]).count;
      retire_err += retire_of(t.flits[0]).error;
      rewinds += retire_of(t.flits[0]).rewind;
    }
  }
  size_t cqes = 0;
  for (const auto& [s, n] : by_status) cqes += n;
  std::printf("6 rounds: compared %zu transactions, 0 divergences, %llu RTL cycles\n%zu CQEs (", compared,
              static_cast<unsigned long long>(cycles), cqes);
  for (const auto& [s, n] : by_status) std::printf(" %s:%zu", spec::to_string(static_cast<WcStatus>(s)), n);
  std::printf(" ), %zu sq_retire carrying %zu WQEs (%zu with error, %zu rewinds)\n", retires, retired, retire_err,
              rewinds);
  EXPECT_GT(rewinds, 10u);
  EXPECT_GT(by_status[0], 1500u);
  EXPECT_GT(by_status[static_cast<int>(WcStatus::kWrFlushErr)], 20u);
  EXPECT_GE(by_status.size(), 5u);
  EXPECT_GT(retired, 3000u);
}


// Random READ traffic: per QP batches of SENDs and READs, answered as a
// responder would, with faults: a lost response, a corrupt one (wrong opcode
// or length), a duplicate, an ACK overtaking a READ's responses. After a
// fault the responses still on their way follow, then the responder's
// answer to the re-request (a new message from the missing packet), as the
// completer's rewind would cause; read_place's answer follows every last
// response accepted (now and then a failure). Each batch ends with TO_ERR +
// RESET, so whatever is left flushes. Atoms (a last response and its
// rd_done) stay together in the global input order: no response is taken
// while a READ waits for rd_done.
Round read_round(uint64_t seed, int batches) {
  std::mt19937_64 rng(seed);
  Round round;
  constexpr unsigned kQps = 8;
  using Atom = std::vector<std::pair<unsigned, Flit>>;
  std::vector<std::deque<Atom>> lists(kQps + 1);
  std::vector<uint32_t> psn(kQps + 1);
  std::vector<uint16_t> idx(kQps + 1);
  std::vector<uint8_t> pmtu(kQps + 1);
  for (unsigned q = 1; q <= kQps; ++q) {
    pmtu[q] = static_cast<uint8_t>(1 + rng() % 3);
    auto c = desc_from_flit<spec::QpCfg>(cfg(static_cast<uint16_t>(q), spec::QpAction::kReset,
                                             static_cast<uint16_t>(q % 3), static_cast<uint8_t>(1 + rng() % 7)));
    c.pmtu = pmtu[q];
    round.put(0, desc_to_flit(c));
    psn[q] = q % 2 ? 0xFFFFFF - static_cast<uint32_t>(rng() % 40) : static_cast<uint32_t>(rng() & 0xFFFFFF);
    idx[q] = static_cast<uint16_t>(rng());
  }
  auto chance = [&](unsigned per_mille) { return rng() % 1000 < per_mille; };
  for (int bt = 0; bt < batches; ++bt) {
    for (uint16_t q = 1; q <= kQps; ++q) {
      std::deque<Atom>& out = lists[q];
      const uint32_t mtu = 128u << pmtu[q];
      struct W {
        spec::SqTrack t;
        bool read;
      };
      std::vector<W> ws;
      const unsigned n = 1 + rng() % 6;
      for (unsigned i = 0; i < n; ++i) {
        const uint32_t first = (psn[q] + 1) & 0xFFFFFF;
        W w;
        w.read = rng() % 2;
        if (w.read) {
          const uint32_t len = rng() % 5 == 0 ? 0 : static_cast<uint32_t>(rng() % (5 * mtu));
          const uint32_t np = len == 0 ? 1 : (len + mtu - 1) / mtu;
          w.t = trk(q, idx[q]++, first + np - 1, rng() % 10 < 8, WcStatus::kSuccess, first);
          w.t.wc_opcode = static_cast<uint8_t>(spec::WcOpcode::kRdmaRead);
          w.t.byte_len = len;
        } else {
          w.t = trk(q, idx[q]++, first + static_cast<uint32_t>(rng() % 3), rng() % 10 < 8, WcStatus::kSuccess, first);
        }
        psn[q] = w.t.last_psn;
        ws.push_back(w);
        out.push_back({{1, desc_to_flit(w.t)}});
      }
      bool failed = false;
      for (size_t i = 0; i < ws.size() && !failed; ++i) {
        const spec::SqTrack& t = ws[i].t;
        if (!ws[i].read) {
          if (chance(700)) out.push_back({{2, ack(q, t.last_psn)}});
          continue;
        }
        // an ACK of the next WQE overtakes this READ's responses (then comes again)
        if (i + 1 < ws.size() && !ws[i + 1].read && chance(50)) out.push_back({{2, ack(q, ws[i + 1].t.last_psn)}});
        const uint32_t np = ((t.last_psn - t.first_psn) & 0xFFFFFF) + 1;
        uint32_t from = 0;  // the message the responder sends starts at packet `from`
        for (int attempt = 0; !failed; ++attempt) {
          int lost = -1;
          for (uint32_t k = from; k < np; ++k) {
            const bool last = k == np - 1, start = k == from;
            const uint8_t op = start ? (last ? kOnly : kFirst) : (last ? kLast : kMiddle);
            const uint16_t len = static_cast<uint16_t>(last ? t.byte_len - k * mtu : mtu);
            const uint32_t p = (t.first_psn + k) & 0xFFFFFF;
            const bool faults = attempt < 3;
            if (lost < 0 && k > from && chance(25)) {
              // abandoned with responses placed: a NAK at the READ's next PSN or a
              // flush to ERR; it fails once read_place answers the fence
              Atom a;
              if (rng() % 2) a.push_back({2, ack(q, p, 0x62)});
              else a.push_back({0, cfg(q, spec::QpAction::kToErr, static_cast<uint16_t>(q % 3))});
              a.push_back({3, done(q, t.wqe_idx)});
              out.push_back(a);
              failed = true;
              break;
            }
            if (faults && lost < 0 && chance(40)) {  // lost
              lost = static_cast<int>(k);
              continue;
            }
            if (faults && lost < 0 && chance(20)) {  // corrupt: the wrong opcode or length
              lost = static_cast<int>(k);
              // (not MIDDLE for FIRST: after a rewind that is a valid replay)
              out.push_back({{2, rng() % 2 ? rsp(q, p, op == kFirst ? kLast : kFirst, len)
                                           : rsp(q, p, op, static_cast<uint16_t>(len + 1))}});
              continue;
            }
            Atom a = {{2, rsp(q, p, op, len)}};
            if (last && lost < 0) {  // accepted: read_place answers
              const bool bad = chance(40);
              a.push_back({3, done(q, t.wqe_idx, bad ? WcStatus::kLocProtErr : WcStatus::kSuccess)});
              failed = bad;
            }
            out.push_back(a);
            if (faults && chance(30)) out.push_back({{2, rsp(q, p, op, len)}});  // duplicated
          }
          if (lost < 0 || failed) break;
          // the lost one was the last: the next response (an ACK here) says so
          if (lost == static_cast<int>(np - 1)) out.push_back({{2, ack(q, t.last_psn)}});
          from = static_cast<uint32_t>(lost);
        }
      }
      // (a READ left partly placed, its retries spent, is fenced by the TO_ERR:
      // read_place answers; without a fence the answer matches nothing)
      uint16_t last_read = 0;
      for (const W& w : ws)
        if (w.read) last_read = w.t.wqe_idx;
      out.push_back({{0, cfg(q, spec::QpAction::kToErr, static_cast<uint16_t>(q % 3))},
                     {3, done(q, last_read)},
                     {0, [&] {
                        auto c = desc_from_flit<spec::QpCfg>(cfg(q, spec::QpAction::kReset,
                                                                 static_cast<uint16_t>(q % 3),
                                                                 static_cast<uint8_t>(1 + rng() % 7)));
                        c.pmtu = pmtu[q];
                        return desc_to_flit(c);
                      }()}});
    }
    // interleave the QPs' atoms at random, each QP's in its order
    for (;;) {
      std::vector<unsigned> live;
      for (unsigned q = 1; q <= kQps; ++q)
        if (!lists[q].empty()) live.push_back(q);
      if (live.empty()) break;
      const unsigned q = live[rng() % live.size()];
      for (const auto& [port, f] : lists[q].front()) round.put(port, f);
      lists[q].pop_front();
    }
  }
  return round;
}

TEST(CompleterXcheck, RandomReadTrafficMatchesModel) {
  const double mix[][2] = {{0.0, 0.0}, {0.4, 0.3}, {0.2, 0.6}};
  std::map<int, size_t> by_status;
  size_t compared = 0, placed = 0, dropped = 0, rewinds = 0, fences = 0;
  uint64_t cycles = 0;
  for (unsigned round = 0; round < 3; ++round) {
    XcheckConfig xc;
    xc.seed = 41 + round;
    xc.in_idle = mix[round][0];
    xc.out_stall = mix[round][1];
    xc.fst_path = "completer_read_divergence.fst";
    const Round stim = read_round(200 + round, 40);
    xc.order = stim.order;
    const XcheckResult r = xcheck_run([] { return std::make_unique<CompleterRtl>(); },
                                      [] { return model::make_completer_block(kMaxQp); },
                                      stim.stim, xc);
    ASSERT_TRUE(r.ok) << "round " << round << ": " << r.report;
    compared += r.compared;
    cycles += r.rtl_cycles;
    for (const auto& t : r.rtl_out[0]) ++by_status[compl_of(t.flits[0]).status];
    for (const auto& t : r.rtl_out[1]) rewinds += retire_of(t.flits[0]).rewind;
    for (const auto& t : r.rtl_out[2]) {
      const auto c = desc_from_flit<spec::RdPlace>(t.flits[0]);
      (c.drop ? dropped : placed) += 1;
      fences += c.drop && c.last && c.len == 0;
    }
  }
  std::printf("3 rounds: compared %zu transactions, 0 divergences, %llu RTL cycles; rd_place %zu placed, %zu dropped"
              " (%zu fences); %zu rewinds; CQEs", compared, static_cast<unsigned long long>(cycles), placed, dropped,
              fences, rewinds);
  for (const auto& [s, n] : by_status) std::printf(" %s:%zu", spec::to_string(static_cast<WcStatus>(s)), n);
  std::printf("\n");
  EXPECT_GT(placed, 1500u);
  EXPECT_GT(dropped, 100u);
  EXPECT_GT(rewinds, 50u);
  EXPECT_GT(fences, 20u);
  EXPECT_GT(by_status[0], 800u);
  EXPECT_GT(by_status[static_cast<int>(WcStatus::kLocProtErr)], 5u);
}

}  // namespace
}  // namespace rocenic
