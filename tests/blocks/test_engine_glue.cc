// The engine's glue primitives (rtl/common/): each RTL block alone
// under random idle cycles and backpressure, checked for the
// behaviour each promises -- round robin, ACK priority, whole frames and
// whole write requests without interleaving, routing by MAC, opcode, tid and
// tag -- and the valid/ready rule (an offered flit stays until taken).
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "blocks/block_bench.h"
#include "rtl/engine_glue_rtl.h"
#include "xcheck.h"

namespace rocenic {
namespace {

using test::Bench;
constexpr unsigned kBytes = 64;  // DATA_W = 512 as verilated

// A frame whose bytes say where it came from: source, sequence number, then noise.
std::vector<uint8_t> tagged_frame(std::mt19937_64& rng, unsigned src, unsigned seq, size_t len) {
  std::vector<uint8_t> f(len);
  for (auto& b : f) b = static_cast<uint8_t>(rng());
  f[0] = static_cast<uint8_t>(src);
  f[1] = static_cast<uint8_t>(seq);
  f[2] = static_cast<uint8_t>(seq >> 8);
  return f;
}
// Split a beat stream into frames (at last).
std::vector<std::vector<Flit>> frames_of(const std::vector<Flit>& beats) {
  std::vector<std::vector<Flit>> out(1);
  for (const Flit& b : beats) {
    out.back().push_back(b);
    if (b.last) out.emplace_back();
  }
  out.pop_back();
  return out;
}
std::vector<std::vector<Flit>> frames_of(const std::vector<Txn>& txns) {
  std::vector<std::vector<Flit>> out;
  for (const Txn& t : txns) out.push_back(t.flits);
  return out;
}
std::vector<uint8_t> bytes_of(const std::vector<Flit>& frame) { return beats_to_bytes(frame); }

void report(const char* what, const XcheckResult& r) { std::printf("%s: %s", what, r.report.c_str()); }

// The RTL glue block alone, under random idle cycles and backpressure. The
// event-driven model has no cycle-level glue to hold it against (its glue is
// the routing rule, model/engine/glue.h, covered by the engine cosim), so
// each test checks what the block must do: order, routing, priority.
XcheckResult rtl_run(const BlockFactory& make, const std::vector<std::vector<Flit>>& stim, const XcheckConfig& xc) {
  XcheckResult r;
  const auto b = make();
  uint64_t last = 0;
  r.rtl_out = drive_block(*b, stim, xc, &last);
  r.rtl_cycles = last;
  size_t n = 0;
  for (const auto& port : r.rtl_out) n += port.size();
  r.report = std::to_string(n) + " transactions out, the last at cycle " + std::to_string(last) + "\n";
  return r;
}

// ---------------------------------------------------------------- desc_arb2
Flit desc64(unsigned src, unsigned seq) {
  Flit f;
  f.data = {static_cast<uint8_t>(src), static_cast<uint8_t>(seq), static_cast<uint8_t>(seq >> 8), 0x5A, 1, 2, 3, 4};
  return f;
}

TEST(DescArb2, XcheckAndPerInputOrderAndSel) {
  std::vector<std::vector<Flit>> stim(2);
  for (unsigned i = 0; i < 1500; ++i) stim[0].push_back(desc64(0, i));
  for (unsigned i = 0; i < 1000; ++i) stim[1].push_back(desc64(1, i));
  XcheckConfig xc;
  xc.seed = 2;
  const auto r = rtl_run([] { return std::make_unique<DescArb2Rtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("desc_arb2", r);
  unsigned next[2] = {0, 0};
  for (const Txn& t : r.rtl_out[0]) {
    const auto& d = t.flits[0].data;
    ASSERT_EQ(d.size(), 8u);
    const unsigned src = d[0], seq = d[1] | d[2] << 8;
    EXPECT_EQ(seq, next[src]++) << "each input keeps its order";
  }
  EXPECT_EQ(next[0], 1500u);
  EXPECT_EQ(next[1], 1000u);
}

TEST(DescArb2, RoundRobinWhenBothWaitAndChoiceHeldUnderBackpressure) {
  auto scenario = [](auto& blk, const char* side) {
    // m_sel, cycle by cycle: input 1 alone offers and is stalled; input 0
    // arrives: the choice stays 1 until taken; then 0 wins the next tie
    auto cycle = [&](bool v0, bool v1, bool ready) {
      blk.set_input(0, v0, desc64(0, 100));
      blk.set_input(1, v1, desc64(1, 200));
      blk.set_output_ready(0, ready);
      blk.eval();
      const unsigned sel = blk.sel();
      EXPECT_EQ(blk.output(0).data[0], sel) << side;
      blk.clock();
      return sel;
    };
    EXPECT_EQ(cycle(false, true, false), 1u) << side;
    EXPECT_EQ(cycle(true, true, false), 1u) << side << ": held while not taken";
    EXPECT_EQ(cycle(true, true, true), 1u) << side;
    EXPECT_EQ(cycle(true, true, true), 0u) << side << ": round robin";
    EXPECT_EQ(cycle(true, true, true), 1u) << side;
    blk.reset();
    Bench b(blk, 4, 0.0, 0.0);
    for (unsigned i = 0; i < 10; ++i) {
      b.push(0, desc64(0, i));
      b.push(1, desc64(1, i));
    }
    b.settle();
    ASSERT_EQ(b.out[0].size(), 20u) << side;
    for (unsigned i = 1; i < 20; ++i) EXPECT_NE(b.out[0][i].data[0], b.out[0][i - 1].data[0]) << side << ": alternates";
    Bench s(blk, 5, 0.5, 0.7);  // stalls: an offer is never withdrawn or changed
    for (unsigned i = 0; i < 200; ++i) s.push(i % 2, desc64(i % 2, i));
    s.settle();
    EXPECT_EQ(s.out[0].size(), 200u) << side;
    EXPECT_EQ(s.stable_error, "") << side;
    EXPECT_TRUE(blk.idle()) << side;
  };
  DescArb2Rtl rtl;
  scenario(rtl, "rtl");
}

// ---------------------------------------------------------------- tx_arb
Flit tx_hdr(bool is_ack, unsigned seq, uint16_t pay_len) {
  spec::RoceTxHdr h;
  h.opcode = is_ack ? spec::kRcAck : spec::kRcSendOnly;
  h.psn = seq;
  h.dst_qpn = is_ack ? 0xAC : 0x5E;
  h.pay_len = pay_len;
  h.dst_mac = 0x0200000000AB;
  return desc_to_flit(h);
}
Flit pay_beat(unsigned seq, unsigned k) {
  Flit f;
  f.data.assign(kBytes, static_cast<uint8_t>(k));
  f.data[0] = static_cast<uint8_t>(seq);
  f.data[1] = static_cast<uint8_t>(seq >> 8);
  return f;
}

TEST(TxArb, XcheckAndPayloadInOrder) {
  // both sources send headers with and without payload (the responder: ACKs and READ
  // responses); the payload leaves in header order, each header's beats from its own source
  std::mt19937_64 rng(6);
  std::vector<std::vector<Flit>> stim(4);
  for (unsigned src = 0; src < 2; ++src)
    for (unsigned i = 0; i < 800; ++i) {
      const uint16_t len = static_cast<uint16_t>(rng() % 3 == 0 ? 0 : rng() % 300);
      const unsigned seq = src << 12 | i;
      stim[src].push_back(tx_hdr(src == 0, seq, len));
      for (unsigned k = 0; k < (len + kBytes - 1u) / kBytes; ++k) stim[src == 0 ? 3 : 2].push_back(pay_beat(seq, k));
    }
  XcheckConfig xc;
  xc.seed = 6;
  const auto r = rtl_run([] { return std::make_unique<TxArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("tx_arb", r);
  ASSERT_EQ(r.rtl_out[0].size(), 1600u);
  std::vector<std::vector<uint8_t>> want;
  for (const Txn& t : r.rtl_out[0]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    for (unsigned k = 0; k < (h.pay_len + kBytes - 1u) / kBytes; ++k) want.push_back(pay_beat(h.psn, k).data);
  }
  ASSERT_EQ(r.rtl_out[1].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(r.rtl_out[1][i].flits[0].data, want[i]) << "payload beat " << i;
}

TEST(TxArb, BothSourcesTakeTurnsWhenBothWait) {
  auto scenario = [](Block& blk, const char* side) {
    Bench b(blk, 7, 0.0, 0.0);
    for (unsigned i = 0; i < 4; ++i) b.push(1, tx_hdr(false, i, 0));
    for (unsigned i = 0; i < 2; ++i) b.push(0, tx_hdr(true, i, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 6u) << side;
    // both wait from the first cycle: responder, requester, responder, requester, then the rest
    const bool ack_at[] = {true, false, true, false, false, false};
    for (unsigned i = 0; i < 6; ++i)
      EXPECT_EQ(desc_from_flit<spec::RoceTxHdr>(b.out[0][i]).opcode == spec::kRcAck, ack_at[i]) << side << " header " << i;
    // a long run of one source never keeps the other waiting more than one header
    for (unsigned i = 10; i < 30; ++i) b.push(0, tx_hdr(true, i, 0));
    b.run(3);
    b.push(1, tx_hdr(false, 99, 0));
    b.settle();
    ASSERT_EQ(b.out[0].size(), 27u) << side;
    size_t req_at = 0;
    for (size_t i = 6; i < b.out[0].size(); ++i)
      if (desc_from_flit<spec::RoceTxHdr>(b.out[0][i]).opcode != spec::kRcAck) req_at = i;
    EXPECT_LT(req_at, 6u + 3u + 2u) << side << ": the requester's header goes within a turn of arriving";
    EXPECT_TRUE(blk.idle()) << side;
  };
  TxArbRtl rtl;
  scenario(rtl, "rtl");
}

// ---------------------------------------------------------------- frame_arb2
TEST(FrameArb2, XcheckWholeFramesInOrderWithTuser) {
  std::mt19937_64 rng(8);
  std::vector<std::vector<Flit>> stim(2);
  std::vector<std::vector<uint8_t>> sent[2];
  for (unsigned src = 0; src < 2; ++src)
    for (unsigned i = 0; i < 400; ++i) {
      auto f = tagged_frame(rng, src, i, 3 + rng() % 400);
      const bool bad = rng() % 10 == 0;
      for (const Flit& b : frame_to_beats(f, kBytes, bad)) stim[src].push_back(b);
      sent[src].push_back(f);
    }
  XcheckConfig xc;
  xc.seed = 8;
  const auto r = rtl_run([] { return std::make_unique<FrameArb2Rtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("frame_arb2", r);
  unsigned next[2] = {0, 0};
  for (const auto& fr : frames_of(r.rtl_out[0])) {
    const auto bytes = bytes_of(fr);
    const unsigned src = bytes[0], seq = bytes[1] | bytes[2] << 8;
    ASSERT_LT(src, 2u);
    ASSERT_EQ(seq, next[src]) << "per-input order";
    EXPECT_EQ(bytes, sent[src][seq]) << "a whole frame, nothing of another inside";
    ++next[src];
  }
  EXPECT_EQ(next[0] + next[1], 800u);
}

TEST(FrameArb2, InputZeroFirstAtFrameBoundaries) {
  auto scenario = [](Block& blk, const char* side) {
    std::mt19937_64 rng(9);
    Bench b(blk, 9, 0.0, 0.3);
    for (unsigned i = 0; i < 3; ++i) {
      b.push(1, frame_to_beats(tagged_frame(rng, 1, i, 150), kBytes));
      b.push(0, frame_to_beats(tagged_frame(rng, 0, i, 150), kBytes));
    }
    b.settle();
    const auto fr = frames_of(b.out[0]);
    ASSERT_EQ(fr.size(), 6u) << side;
    // both offer from the first cycle: every boundary finds input 0 waiting until it runs dry
    std::vector<unsigned> srcs;
    for (const auto& f : fr) srcs.push_back(bytes_of(f)[0]);
    EXPECT_EQ(srcs, (std::vector<unsigned>{0, 0, 0, 1, 1, 1})) << side;
    EXPECT_EQ(b.stable_error, "") << side;
    EXPECT_TRUE(blk.idle()) << side;
  };
  FrameArb2Rtl rtl;
  scenario(rtl, "rtl");
}

// ---------------------------------------------------------------- loopback_split
TEST(LoopbackSplit, XcheckRoutesByDestinationMacAndCounts) {
  constexpr uint64_t kMac = 0x02AB12CD34EF;
  std::mt19937_64 rng(10);
  std::vector<std::vector<Flit>> stim(1);
  std::vector<bool> own;
  for (unsigned i = 0; i < 600; ++i) {
    auto f = tagged_frame(rng, 0, i, 60 + rng() % 300);
    uint64_t dmac = kMac;
    const unsigned k = rng() % 4;
    if (k == 1) dmac ^= 1;                    // last byte differs
    if (k == 2) dmac ^= uint64_t{0x80} << 40;  // first byte differs
    if (k == 3) dmac = 0xFFFFFFFFFFFF;
    for (unsigned b = 0; b < 6; ++b) f[b] = static_cast<uint8_t>(dmac >> (8 * (5 - b)));
    f[6] = static_cast<uint8_t>(i);
    f[7] = static_cast<uint8_t>(i >> 8);
    for (const Flit& b : frame_to_beats(f, kBytes)) stim[0].push_back(b);
    own.push_back(k == 0);
  }
  XcheckConfig xc;
  xc.seed = 10;
  const auto r = rtl_run([] {
        auto b = std::make_unique<LoopbackSplitRtl>();
        b->set_port_mac(kMac);
        return b;
      }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("loopback_split", r);
  size_t n_own = 0;
  for (unsigned port = 0; port < 2; ++port)
    for (const auto& fr : frames_of(r.rtl_out[port])) {
      const auto bytes = bytes_of(fr);
      const unsigned seq = bytes[6] | bytes[7] << 8;
      EXPECT_EQ(own[seq], port == 1) << "frame " << seq;
    }
  for (bool o : own) n_own += o;
  EXPECT_EQ(r.rtl_out[1].size(), n_own);
  EXPECT_EQ(r.rtl_out[0].size() + r.rtl_out[1].size(), 600u);
  LoopbackSplitRtl rtl;  // the counter, on a fresh run with the directed bench
  rtl.set_port_mac(kMac);
  Bench b(rtl, 11, 0.2, 0.4);
  b.push(0, stim[0]);
  b.settle();
  EXPECT_EQ(rtl.counters()[0].second, n_own);
  EXPECT_EQ(b.stable_error, "");
}

// ---------------------------------------------------------------- rx_dispatch
// Random received traffic: requests (with and without payload), READ
// responses (0x0D..0x10, with payload), ACKs and ATOMIC ACKs (0x11, 0x12: an
// occasional malformed one with payload): the stimulus, and what each output
// must carry, in order. An ATOMIC ACK reaches the completer with pay_len 8,
// and read_place gets its original data as an 8-byte payload in its place
// (little-endian), after any payload of its own was dropped.
struct RxTraffic {
  std::vector<std::vector<Flit>> stim = std::vector<std::vector<Flit>>(2);  // 0 headers, 1 payload beats
  std::vector<Flit> acks, reqs;               // headers: to the completer, to the responder
  std::vector<std::vector<uint8_t>> req_pay;  // each request's payload bytes
  std::vector<std::vector<Flit>> rsp_pay;     // each READ response's (ATOMIC ACK's) payload beats
  unsigned dropped = 0;                       // payload packets of other responses
};
RxTraffic rx_traffic(uint64_t seed, unsigned n) {
  std::mt19937_64 rng(seed);
  RxTraffic t;
  static const uint8_t kReq[] = {spec::kRcSendOnly, spec::kRcWriteFirst, spec::kRcSendMiddle, spec::kRcWriteOnly};
  static const uint8_t kRsp[] = {spec::kRcReadRespFirst, spec::kRcReadRespMiddle, spec::kRcReadRespLast,
                                 spec::kRcReadRespOnly};
  static const uint8_t kAck[] = {spec::kRcAck, spec::kRcAtomicAck};
  for (unsigned i = 0; i < n; ++i) {
    spec::RoceRxHdr h;
    const unsigned k = rng() % 10;
    h.opcode = k < 3 ? kRsp[rng() % 4] : k < 5 ? kAck[rng() % 2] : kReq[rng() % 4];
    const bool is_rsp = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcReadRespOnly;
    const bool is_ack = h.opcode == spec::kRcAck || h.opcode == spec::kRcAtomicAck;
    h.psn = i;
    h.dst_qpn = static_cast<uint32_t>(rng() % 64);
    // an ACK with payload is malformed but must not derail the payload stream
    h.pay_len = static_cast<uint16_t>(is_ack ? (rng() % 8 == 0 ? 1 + rng() % 100 : 0)
                                             : (rng() % 5 == 0 ? 0 : 1 + rng() % 500));
    const bool is_atom = h.opcode == spec::kRcAtomicAck;
    if (is_atom) h.atomic_orig = rng();
    const Flit hf = desc_to_flit(h);
    t.stim[0].push_back(hf);
    if (is_atom) {
      spec::RoceRxHdr seen = h;
      seen.pay_len = 8;
      t.acks.push_back(desc_to_flit(seen));
    } else {
      (is_ack || is_rsp ? t.acks : t.reqs).push_back(hf);
    }
    if (h.pay_len) {
      auto p = tagged_frame(rng, is_ack ? 2 : is_rsp ? 1 : 0, i, h.pay_len < 3 ? 3 : h.pay_len);
      p.resize(h.pay_len);
      const auto beats = frame_to_beats(p, kBytes);
      for (const Flit& b : beats) t.stim[1].push_back(b);
      if (is_rsp) t.rsp_pay.push_back(beats);
      else if (is_ack) ++t.dropped;
      else t.req_pay.push_back(p);
    }
    if (is_atom) {
      std::vector<uint8_t> le(8);
      for (unsigned b = 0; b < 8; ++b) le[b] = static_cast<uint8_t>(h.atomic_orig >> (8 * b));
      t.rsp_pay.push_back(frame_to_beats(le, kBytes));
    }
  }
  return t;
}
// What left rx_dispatch (per output port, flits in order) against what must.
void check_rx_outputs(const RxTraffic& t, const std::vector<std::vector<Flit>>& hdr_ack,
                      const std::vector<std::vector<Flit>>& hdr_req, const std::vector<std::vector<Flit>>& req_pay,
                      const std::vector<std::vector<Flit>>& rsp_pay, const char* side) {
  ASSERT_EQ(hdr_ack.size(), t.acks.size()) << side;
  ASSERT_EQ(hdr_req.size(), t.reqs.size()) << side;
  for (size_t i = 0; i < t.acks.size(); ++i)
    EXPECT_EQ(hdr_ack[i][0].data, t.acks[i].data) << side << " response header " << i;
  for (size_t i = 0; i < t.reqs.size(); ++i)
    EXPECT_EQ(hdr_req[i][0].data, t.reqs[i].data) << side << " request header " << i;
  ASSERT_EQ(req_pay.size(), t.req_pay.size()) << side << ": requests' payload, and only theirs, to the responder";
  for (size_t i = 0; i < req_pay.size(); ++i)
    EXPECT_EQ(bytes_of(req_pay[i]), t.req_pay[i]) << side << " request payload " << i;
  ASSERT_EQ(rsp_pay.size(), t.rsp_pay.size()) << side << ": READ responses' payload, and only theirs, to read_place";
  for (size_t i = 0; i < rsp_pay.size(); ++i) {
    ASSERT_EQ(rsp_pay[i].size(), t.rsp_pay[i].size()) << side << " READ response payload " << i << ": beats";
    for (size_t k = 0; k < rsp_pay[i].size(); ++k) {
      EXPECT_EQ(rsp_pay[i][k].data, t.rsp_pay[i][k].data) << side << " READ response payload " << i << " beat " << k;
      EXPECT_EQ(rsp_pay[i][k].last, t.rsp_pay[i][k].last) << side << " READ response payload " << i << " beat " << k;
    }
  }
}

TEST(RxDispatch, XcheckResponsesToCompleterReadPayloadToReadPlaceRequestsToResponder) {
  const RxTraffic t = rx_traffic(12, 1500);
  ASSERT_GT(t.rsp_pay.size(), 100u);
  ASSERT_GT(t.dropped, 10u);  // ACK and ATOMIC ACK payload exercised
  XcheckConfig xc;
  xc.seed = 12;
  const auto r = rtl_run([] { return std::make_unique<RxDispatchRtl>(); }, t.stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("rx_dispatch", r);
  ASSERT_EQ(r.rtl_out.size(), 4u);
  check_rx_outputs(t, frames_of(r.rtl_out[0]), frames_of(r.rtl_out[1]), frames_of(r.rtl_out[2]),
                   frames_of(r.rtl_out[3]), "xcheck");
}

TEST(RxDispatch, ReadResponsePayloadHeldUnderBackpressureAckPayloadDropped) {
  // the directed bench: every output stalled at random, each checked for the
  // valid/ready rule (the rsp_payload output too); then a READ response whose
  // payload output is held not-ready keeps its payload offered, unchanged, and
  // the ACK payload behind it waits (the payload stream is in header order)
  RxDispatchRtl rtl;
  {
    const RxTraffic t = rx_traffic(13, 300);
    Bench b(rtl, 13, 0.3, 0.6);
    b.push(0, t.stim[0]);
    b.push(1, t.stim[1]);
    b.settle();
    EXPECT_EQ(b.stable_error, "");
    check_rx_outputs(t, frames_of(b.out[0]), frames_of(b.out[1]), frames_of(b.out[2]), frames_of(b.out[3]), "bench");
    EXPECT_TRUE(rtl.idle());
  }
  rtl.reset();
  std::mt19937_64 rng(14);
  spec::RoceRxHdr rsp, ack;
  rsp.opcode = spec::kRcReadRespOnly;
  rsp.pay_len = 100;
  ack.opcode = spec::kRcAck;
  ack.pay_len = 40;  // malformed: an ACK carries none
  const auto rsp_beats = frame_to_beats(tagged_frame(rng, 1, 1, 100), kBytes);
  const auto ack_beats = frame_to_beats(tagged_frame(rng, 2, 2, 40), kBytes);
  auto cycle = [&](bool hdr_valid, const spec::RoceRxHdr& h, bool pay_valid, const Flit& beat, bool rsp_ready) {
    rtl.set_input(0, hdr_valid, desc_to_flit(h));
    rtl.set_input(1, pay_valid, beat);
    rtl.set_output_ready(0, true);
    rtl.set_output_ready(1, true);
    rtl.set_output_ready(2, true);
    rtl.set_output_ready(3, rsp_ready);
    rtl.eval();
  };
  cycle(true, rsp, false, rsp_beats[0], false);
  ASSERT_TRUE(rtl.output_valid(0) && rtl.input_ready(0)) << "the READ response header to the completer";
  rtl.clock();
  cycle(true, ack, true, rsp_beats[0], false);
  ASSERT_TRUE(rtl.input_ready(0)) << "the ACK header passes while the payload queue has room";
  rtl.clock();
  for (unsigned c = 0; c < 5; ++c) {  // read_place not ready: the beat waits, nothing dropped
    cycle(false, ack, true, rsp_beats[0], false);
    EXPECT_TRUE(rtl.output_valid(3)) << "cycle " << c;
    EXPECT_FALSE(rtl.input_ready(1)) << "cycle " << c << ": held, not dropped";
    EXPECT_FALSE(rtl.output_valid(2)) << "cycle " << c << ": not to the responder";
    EXPECT_EQ(rtl.output(3).data, rsp_beats[0].data) << "cycle " << c;
    rtl.clock();
  }
  for (const Flit& beat : rsp_beats) {
    cycle(false, ack, true, beat, true);
    EXPECT_TRUE(rtl.output_valid(3) && rtl.input_ready(1));
    EXPECT_EQ(rtl.output(3).data, beat.data);
    EXPECT_EQ(rtl.output(3).last, beat.last);
    rtl.clock();
  }
  for (const Flit& beat : ack_beats) {  // the ACK's payload: taken with every output stalled, offered nowhere
    cycle(false, ack, true, beat, false);
    rtl.set_output_ready(2, false);
    rtl.eval();
    EXPECT_TRUE(rtl.input_ready(1)) << "an ACK's payload is dropped";
    EXPECT_FALSE(rtl.output_valid(2) || rtl.output_valid(3));
    rtl.clock();
  }
  cycle(false, ack, false, ack_beats[0], true);
  EXPECT_TRUE(rtl.idle());
}

// ---------------------------------------------------------------- dma_rd_arb
TEST(DmaRdArb, XcheckFourClientsTagIsClientAndDataRoutedByTid) {
  constexpr unsigned kN = DmaRdArbRtl::kClients;
  std::mt19937_64 rng(14);
  std::vector<std::vector<Flit>> stim(5);
  for (unsigned c = 0; c < kN; ++c)
    for (unsigned i = 0; i < 600; ++i) {
      spec::DmaRdReq q;
      q.tag = static_cast<uint8_t>(rng());  // the client's own tag is not kept
      q.addr = (uint64_t{c} << 40) | i;
      q.len = static_cast<uint16_t>(1 + rng() % 4096);
      stim[DmaRdArbRtl::req_port(c)].push_back(desc_to_flit(q));
    }
  std::vector<std::vector<uint8_t>> want[kN];
  std::vector<bool> want_poisoned[kN];
  unsigned dropped = 0;
  for (unsigned i = 0; i < 1000; ++i) {
    const unsigned k = rng() % 20;
    const uint8_t tid = k == 0 ? 4 : k == 1 ? 0xFF : static_cast<uint8_t>(k % kN);  // 4, 255: no client
    auto p = tagged_frame(rng, tid, i, 1 + rng() % 200);
    const bool poisoned = rng() % 8 == 0;
    for (Flit b : frame_to_beats(p, kBytes, poisoned)) {
      b.user = poisoned;  // every beat of a refused read
      b.id = tid;
      stim[3].push_back(b);
    }
    if (tid < kN) {
      want[tid].push_back(p);
      want_poisoned[tid].push_back(poisoned);
    } else {
      ++dropped;
    }
  }
  ASSERT_GT(dropped, 0u);
  XcheckConfig xc;
  xc.seed = 14;
  const auto r = rtl_run([] { return std::make_unique<DmaRdArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("dma_rd_arb", r);
  ASSERT_EQ(r.rtl_out.size(), 1u + kN);
  unsigned next[kN] = {};
  for (const Txn& t : r.rtl_out[0]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    const unsigned c = static_cast<unsigned>(q.addr >> 40);
    ASSERT_LT(c, kN);
    EXPECT_EQ(q.tag, c) << "tag = client index";
    EXPECT_EQ(q.addr & 0xFFFF, next[c]++) << "each client in its own order";
  }
  for (unsigned c = 0; c < kN; ++c) EXPECT_EQ(next[c], 600u) << "client " << c << ": every request granted";
  for (unsigned c = 0; c < kN; ++c) {
    const auto fr = frames_of(r.rtl_out[1 + c]);
    ASSERT_GT(want[c].size(), 100u);
    ASSERT_EQ(fr.size(), want[c].size()) << "client " << c;
    for (size_t i = 0; i < fr.size(); ++i) {
      EXPECT_EQ(bytes_of(fr[i]), want[c][i]) << "client " << c << " read " << i;
      for (const Flit& b : fr[i])
        EXPECT_EQ(b.user, want_poisoned[c][i]) << "client " << c << " read " << i << ": tuser (poisoned) goes along";
    }
  }
}

// ---------------------------------------------------------------- dma_wr_arb
Flit wr_req(unsigned c, unsigned i, unsigned len, uint8_t tag = 0xEE) {
  spec::DmaWrReq q;
  q.tag = tag;  // the client's own tag is replaced by its index
  q.addr = (uint64_t{c} << 40) | i;
  q.len = static_cast<uint16_t>(len);
  return desc_to_flit(q);
}
unsigned wr_client(const Flit& f) { return desc_from_flit<spec::DmaWrReq>(f).tag; }

TEST(DmaWrArb, XcheckThreeClientsWholeRequestsNeverInterleavedAndErrorsCounted) {
  constexpr unsigned kN = DmaWrArbRtl::kClients;
  std::mt19937_64 rng(16);
  std::vector<std::vector<Flit>> stim(7);
  std::vector<std::vector<uint8_t>> sent[kN];
  for (unsigned c = 0; c < kN; ++c)
    for (unsigned i = 0; i < 500; ++i) {
      // client 1: CQE-sized; client 2 (read_place): up to a page, as READ response data lands
      const unsigned len = c == 1 ? 32 : c == 0 ? 3 + static_cast<unsigned>(rng() % 300)
                                                : 3 + static_cast<unsigned>(rng() % 600);
      stim[DmaWrArbRtl::req_port(c)].push_back(wr_req(c, i, len));
      auto p = tagged_frame(rng, c, i, len);
      for (const Flit& b : frame_to_beats(p, kBytes)) stim[DmaWrArbRtl::data_port(c)].push_back(b);
      sent[c].push_back(p);
    }
  unsigned errors = 0;
  for (unsigned i = 0; i < 300; ++i) {
    const bool err = rng() % 7 == 0;
    errors += err;
    const Flit done{{static_cast<uint8_t>(i % kN), static_cast<uint8_t>(err)}, 0, true, false};
    stim[DmaWrArbRtl::kWrDonePort].push_back(done);
  }
  ASSERT_GT(errors, 0u);
  XcheckConfig xc;
  xc.seed = 16;
  const auto r = rtl_run([] { return std::make_unique<DmaWrArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("dma_wr_arb", r);
  const auto data = frames_of(r.rtl_out[1]);
  ASSERT_EQ(data.size(), r.rtl_out[0].size());
  ASSERT_EQ(data.size(), 500u * kN);
  unsigned next[kN] = {};
  for (size_t i = 0; i < data.size(); ++i) {
    const auto q = desc_from_flit<spec::DmaWrReq>(r.rtl_out[0][i].flits[0]);
    const unsigned c = static_cast<unsigned>(q.addr >> 40), seq = static_cast<unsigned>(q.addr & 0xFFFF);
    ASSERT_LT(c, kN);
    EXPECT_EQ(q.tag, c) << "tag = client index";
    EXPECT_EQ(seq, next[c]++);
    EXPECT_EQ(bytes_of(data[i]), sent[c][seq]) << "request " << i << ": its own data, whole";
  }
  DmaWrArbRtl rtl;
  Bench b(rtl, 17, 0.1, 0.1);
  b.push(DmaWrArbRtl::kWrDonePort, stim[DmaWrArbRtl::kWrDonePort]);
  b.settle();
  EXPECT_EQ(rtl.counters()[0].second, errors);
}

TEST(DmaWrArb, RoundRobinAmongThreeClientsAndValidReadyHeld) {
  std::mt19937_64 rng(18);
  DmaWrArbRtl rtl;
  // client c's requests i..: 130 bytes (3 beats), data tagged (c, i)
  auto push = [&](Bench& b, unsigned c, unsigned from, unsigned n) {
    for (unsigned i = from; i < from + n; ++i) {
      b.push(DmaWrArbRtl::req_port(c), wr_req(c, i, 130));
      b.push(DmaWrArbRtl::data_port(c), frame_to_beats(tagged_frame(rng, c, i, 130), kBytes));
    }
  };
  auto grants = [](const Bench& b) {
    std::vector<unsigned> g;
    for (const Flit& f : b.out[0]) g.push_back(wr_client(f));
    return g;
  };
  auto whole = [](const Bench& b, const char* what) {  // each request's data: 3 beats of its own, in grant order
    const auto fr = frames_of(b.out[1]);
    ASSERT_EQ(fr.size(), b.out[0].size()) << what;
    for (size_t i = 0; i < fr.size(); ++i) {
      const auto q = desc_from_flit<spec::DmaWrReq>(b.out[0][i]);
      const auto bytes = bytes_of(fr[i]);
      ASSERT_EQ(bytes.size(), 130u) << what << " request " << i;
      EXPECT_EQ(bytes[0], q.tag) << what << " request " << i << ": its client's data";
      EXPECT_EQ(unsigned(bytes[1] | bytes[2] << 8), unsigned(q.addr & 0xFFFF)) << what << " request " << i;
    }
  };
  {
    // all three wait from the first cycle (after reset the search starts at 0):
    // strict turns, and the same under output backpressure (the grant is held)
    for (const double stall : {0.0, 0.6}) {
      rtl.reset();
      Bench b(rtl, 18, 0.0, stall);
      for (unsigned c = 0; c < 3; ++c) push(b, c, 0, 4);
      b.settle();
      EXPECT_EQ(grants(b), (std::vector<unsigned>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2})) << "stall " << stall;
      whole(b, "all wait");
      EXPECT_EQ(b.stable_error, "");
      EXPECT_TRUE(rtl.idle());
    }
  }
  {
    // the search starts after the client granted last: client 1 alone, then all
    // three wait -> 2, 0, 1, ...
    rtl.reset();
    Bench b(rtl, 19, 0.0, 0.0);
    push(b, 1, 0, 1);
    b.settle();
    for (unsigned c = 0; c < 3; ++c) push(b, c, 10, 2);
    b.settle();
    EXPECT_EQ(grants(b), (std::vector<unsigned>{1, 2, 0, 1, 2, 0, 1}));
    whole(b, "after client 1");
  }
  {
    // two of three waiting (0 and 2): they alternate, the absent one costs no turn
    rtl.reset();
    Bench b(rtl, 20, 0.0, 0.0);
    push(b, 0, 0, 3);
    push(b, 2, 0, 3);
    b.settle();
    EXPECT_EQ(grants(b), (std::vector<unsigned>{0, 2, 0, 2, 0, 2}));
    whole(b, "0 and 2");
  }
  {
    // random idle cycles and backpressure: every request whole and in its
    // client's order, the valid/ready rule held, and every client served
    // throughout (none waits while the others take more than two grants each)
    rtl.reset();
    Bench b(rtl, 21, 0.3, 0.5);
    for (unsigned c = 0; c < 3; ++c) push(b, c, 0, 10);
    b.settle();
    const auto g = grants(b);
    ASSERT_EQ(g.size(), 30u);
    whole(b, "random");
    unsigned next[3] = {};
    for (size_t i = 0; i < g.size(); ++i)
      EXPECT_EQ(unsigned(desc_from_flit<spec::DmaWrReq>(b.out[0][i]).addr & 0xFFFF), next[g[i]]++);
    for (unsigned c = 0; c < 3; ++c) EXPECT_EQ(next[c], 10u);
    for (size_t i = 0; i + 7 <= 21; ++i) {  // while all three still have requests: every 7 grants hold each client
      unsigned seen = 0;
      for (size_t k = i; k < i + 7; ++k) seen |= 1u << g[k];
      EXPECT_EQ(seen, 7u) << "grants " << i << ".." << i + 6;
    }
    EXPECT_EQ(b.stable_error, "");
    EXPECT_TRUE(rtl.idle());
  }
}

// ---------------------------------------------------------------- mr_arb
TEST(MrArb, XcheckTagBitsRouteAnswersToFourClients) {
  constexpr unsigned kN = MrArbRtl::kClients;
  std::mt19937_64 rng(20);
  std::vector<std::vector<Flit>> stim(kN + 1);
  for (unsigned c = 0; c < kN; ++c)
    for (unsigned i = 0; i < 600; ++i) {
      spec::MrReq q;
      q.tag = static_cast<uint8_t>((rng() & 0xC0) | (i & 0x3F));  // bits 7:6 are the arbiter's
      q.key = (c << 16) | i;
      q.va = rng();
      q.len = static_cast<uint32_t>(rng() % 5000);
      stim[MrArbRtl::req_port(c)].push_back(desc_to_flit(q));
    }
  std::vector<spec::MrResp> want[kN];
  for (unsigned i = 0; i < 1600; ++i) {
    spec::MrResp a;
    a.tag = static_cast<uint8_t>(rng());
    a.status = static_cast<uint8_t>(rng() % 5);
    a.pa = rng();
    a.run = static_cast<uint32_t>(i);
    stim[MrArbRtl::kRespPort].push_back(desc_to_flit(a));
    const unsigned c = a.tag >> 6;  // every value names a client
    a.tag &= 0x3F;
    want[c].push_back(a);
  }
  XcheckConfig xc;
  xc.seed = 20;
  const auto r = rtl_run([] { return std::make_unique<MrArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("mr_arb", r);
  ASSERT_EQ(r.rtl_out.size(), 1u + kN);
  unsigned next[kN] = {};
  for (const Txn& t : r.rtl_out[0]) {
    const auto q = desc_from_flit<spec::MrReq>(t.flits[0]);
    const unsigned c = q.key >> 16, i = q.key & 0xFFFF;
    ASSERT_LT(c, kN);
    EXPECT_EQ(q.tag, (c << 6) | (i & 0x3F)) << "bits 7:6 = client, bits 5:0 kept";
    EXPECT_EQ(i, next[c]++);
  }
  for (unsigned c = 0; c < kN; ++c) EXPECT_EQ(next[c], 600u) << "client " << c << ": every request granted";
  for (unsigned c = 0; c < kN; ++c) {
    ASSERT_GT(want[c].size(), 200u);
    ASSERT_EQ(r.rtl_out[1 + c].size(), want[c].size()) << "client " << c;
    for (size_t i = 0; i < want[c].size(); ++i)
      EXPECT_EQ(r.rtl_out[1 + c][i].flits[0].data, desc_to_flit(want[c][i]).data) << "client " << c << " answer " << i;
  }
}

}  // namespace
}  // namespace rocenic
