// The completer: RTL and model under random windows, ACKs, NAKs, local
// failures and QP commands (idle cycles, backpressure) must complete the same
// WQEs with the same CQEs and retire counts; and hand-checked cases show ACK
// coverage across the PSN wrap, unsignaled WQEs, every NAK syndrome, flushes
// in order and the 16-entry window, on both the RTL and the model.
#include <gtest/gtest.h>

#include <map>
#include <random>

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
  kRnrExceeded
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

// A WQE that fails while being sent (after its sq_track) is amended: it
// fails when it reaches the head, after the WQEs before it are acknowledged.
TEST(Completer, AmendedWqeFailsWhenItReachesTheHead) {
  on_both([](auto& blk, const char* side) {
    Bench b(blk, 19, 0.2, 0.2);
    b.push(0, cfg(70, spec::QpAction::kReset, 5));
    b.push(0, cfg(71, spec::QpAction::kReset, 5));
    b.settle();
    const auto a = trk(70, 0, 1), c = trk(70, 1, 3, true, WcStatus::kSuccess, 2);
    b.push(1, desc_to_flit(a));
    b.push(1, desc_to_flit(c));
    b.settle();
    auto amend = c;
    amend.status = static_cast<uint8_t>(WcStatus::kLocProtErr);
    amend.amend = 1;
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
    auto ha = h;
    ha.status = static_cast<uint8_t>(WcStatus::kLocProtErr);
    ha.amend = 1;
    b.push(1, desc_to_flit(ha));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 3u) << side;
    expect_compl(b.out[0][2], h, 5, WcStatus::kLocProtErr, side);
    expect_retire(b.out[1][1], 71, 1, true, side);
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

// Random traffic: per QP a run of WQEs with rising PSNs (some across the
// wrap), ACKs that cover some of them (sometimes stale or ahead), rare NAKs,
// local failures and QP commands. Whether an ACK covers a WQE depends on
// which of the two came first, so the inputs go in one global order (as the
// engine produces them: a WQE is tracked before its ACK can come back), and
// a QP's window is acknowledged before it fills (a held-back sq_track would
// hold the order). ERR is sticky until a RESET, so the traffic runs in
// rounds, each from reset with its own seed and its own idle/backpressure mix.
struct Round {
  std::vector<std::vector<Flit>> stim = std::vector<std::vector<Flit>>(3);
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

}  // namespace
}  // namespace rocenic
