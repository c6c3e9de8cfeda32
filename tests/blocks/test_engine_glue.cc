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
TEST(RxDispatch, XcheckAcksToCompleterRequestsAndPayloadToResponder) {
  std::mt19937_64 rng(12);
  std::vector<std::vector<Flit>> stim(2);
  std::vector<Flit> acks, reqs;
  std::vector<std::vector<uint8_t>> req_pay;
  for (unsigned i = 0; i < 1200; ++i) {
    spec::RoceRxHdr h;
    const unsigned k = rng() % 10;
    h.opcode = k < 4 ? spec::kRcAck : k < 7 ? spec::kRcSendOnly : k < 9 ? spec::kRcWriteFirst : spec::kRcSendMiddle;
    h.psn = i;
    h.dst_qpn = static_cast<uint32_t>(rng() % 64);
    // an ACK with payload is malformed but must not derail the payload stream
    h.pay_len = static_cast<uint16_t>(h.opcode == spec::kRcAck ? (rng() % 20 == 0 ? 1 + rng() % 100 : 0)
                                                              : (rng() % 5 == 0 ? 0 : 1 + rng() % 500));
    const Flit hf = desc_to_flit(h);
    stim[0].push_back(hf);
    (h.opcode == spec::kRcAck ? acks : reqs).push_back(hf);
    if (h.pay_len) {
      auto p = tagged_frame(rng, h.opcode == spec::kRcAck, i, h.pay_len < 3 ? 3 : h.pay_len);
      p.resize(h.pay_len);
      for (const Flit& b : frame_to_beats(p, kBytes)) stim[1].push_back(b);
      if (h.opcode != spec::kRcAck) req_pay.push_back(p);
    }
  }
  XcheckConfig xc;
  xc.seed = 12;
  const auto r = rtl_run([] { return std::make_unique<RxDispatchRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("rx_dispatch", r);
  ASSERT_EQ(r.rtl_out[0].size(), acks.size());
  ASSERT_EQ(r.rtl_out[1].size(), reqs.size());
  for (size_t i = 0; i < acks.size(); ++i) EXPECT_EQ(r.rtl_out[0][i].flits[0].data, acks[i].data);
  for (size_t i = 0; i < reqs.size(); ++i) EXPECT_EQ(r.rtl_out[1][i].flits[0].data, reqs[i].data);
  const auto pays = frames_of(r.rtl_out[2]);
  ASSERT_EQ(pays.size(), req_pay.size());
  for (size_t i = 0; i < pays.size(); ++i) EXPECT_EQ(bytes_of(pays[i]), req_pay[i]) << "payload " << i;
}

// ---------------------------------------------------------------- dma_rd_arb
TEST(DmaRdArb, XcheckTagIsClientAndDataRoutedByTid) {
  std::mt19937_64 rng(14);
  std::vector<std::vector<Flit>> stim(4);
  for (unsigned c = 0; c < 3; ++c)
    for (unsigned i = 0; i < 700; ++i) {
      spec::DmaRdReq q;
      q.tag = static_cast<uint8_t>(rng());  // the client's own tag is not kept
      q.addr = (uint64_t{c} << 40) | i;
      q.len = static_cast<uint16_t>(1 + rng() % 4096);
      stim[c].push_back(desc_to_flit(q));
    }
  std::vector<std::vector<uint8_t>> want[3];
  for (unsigned i = 0; i < 900; ++i) {
    const unsigned k = rng() % 20;
    const uint8_t tid = k == 0 ? 7 : static_cast<uint8_t>(k % 3);
    auto p = tagged_frame(rng, tid, i, 1 + rng() % 200);
    const bool poisoned = rng() % 8 == 0;
    for (Flit b : frame_to_beats(p, kBytes, poisoned)) {
      b.user = poisoned;  // every beat of a refused read
      b.id = tid;
      stim[3].push_back(b);
    }
    if (tid < 3) want[tid].push_back(p);
  }
  XcheckConfig xc;
  xc.seed = 14;
  const auto r = rtl_run([] { return std::make_unique<DmaRdArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("dma_rd_arb", r);
  unsigned next[3] = {0, 0, 0};
  for (const Txn& t : r.rtl_out[0]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    const unsigned c = static_cast<unsigned>(q.addr >> 40);
    EXPECT_EQ(q.tag, c) << "tag = client index";
    EXPECT_EQ(q.addr & 0xFFFF, next[c]++) << "each client in its own order";
  }
  EXPECT_EQ(next[0] + next[1] + next[2], 2100u);
  for (unsigned c = 0; c < 3; ++c) {
    const auto fr = frames_of(r.rtl_out[1 + c]);
    ASSERT_EQ(fr.size(), want[c].size()) << "client " << c;
    for (size_t i = 0; i < fr.size(); ++i) {
      EXPECT_EQ(bytes_of(fr[i]), want[c][i]);
      EXPECT_EQ(fr[i].front().user, fr[i].back().user) << "tuser (poisoned) goes along";
    }
  }
}

// ---------------------------------------------------------------- dma_wr_arb
TEST(DmaWrArb, XcheckWholeRequestsNeverInterleavedAndErrorsCounted) {
  std::mt19937_64 rng(16);
  std::vector<std::vector<Flit>> stim(5);
  std::vector<std::vector<uint8_t>> sent[2];
  for (unsigned c = 0; c < 2; ++c)
    for (unsigned i = 0; i < 500; ++i) {
      const unsigned len = c == 1 ? 32 : 3 + static_cast<unsigned>(rng() % 300);  // client 1: CQE-sized
      spec::DmaWrReq q;
      q.tag = 0xEE;
      q.addr = (uint64_t{c} << 40) | i;
      q.len = static_cast<uint16_t>(len);
      stim[2 * c].push_back(desc_to_flit(q));
      auto p = tagged_frame(rng, c, i, len);
      for (const Flit& b : frame_to_beats(p, kBytes)) stim[2 * c + 1].push_back(b);
      sent[c].push_back(p);
    }
  unsigned errors = 0;
  for (unsigned i = 0; i < 300; ++i) {
    const bool err = rng() % 7 == 0;
    errors += err;
    stim[4].push_back(Flit{{static_cast<uint8_t>(i % 2), static_cast<uint8_t>(err)}, 0, true, false});
  }
  XcheckConfig xc;
  xc.seed = 16;
  const auto r = rtl_run([] { return std::make_unique<DmaWrArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("dma_wr_arb", r);
  const auto data = frames_of(r.rtl_out[1]);
  ASSERT_EQ(data.size(), r.rtl_out[0].size());
  ASSERT_EQ(data.size(), 1000u);
  unsigned next[2] = {0, 0};
  for (size_t i = 0; i < data.size(); ++i) {
    const auto q = desc_from_flit<spec::DmaWrReq>(r.rtl_out[0][i].flits[0]);
    const unsigned c = static_cast<unsigned>(q.addr >> 40), seq = static_cast<unsigned>(q.addr & 0xFFFF);
    EXPECT_EQ(q.tag, c);
    EXPECT_EQ(seq, next[c]++);
    EXPECT_EQ(bytes_of(data[i]), sent[c][seq]) << "request " << i << ": its own data, whole";
  }
  DmaWrArbRtl rtl;
  Bench b(rtl, 17, 0.1, 0.1);
  b.push(4, stim[4]);
  b.settle();
  EXPECT_EQ(rtl.counters()[0].second, errors);
}

TEST(DmaWrArb, RoundRobinBetweenGrantsAndValidReadyHeld) {
  auto scenario = [](Block& blk, const char* side) {
    std::mt19937_64 rng(18);
    Bench b(blk, 18, 0.3, 0.5);
    for (unsigned c = 0; c < 2; ++c)
      for (unsigned i = 0; i < 6; ++i) {
        spec::DmaWrReq q;
        q.addr = (uint64_t{c} << 40) | i;
        q.len = 130;
        b.push(2 * c, desc_to_flit(q));
        b.push(2 * c + 1, frame_to_beats(tagged_frame(rng, c, i, 130), kBytes));
      }
    b.settle();
    ASSERT_EQ(b.out[0].size(), 12u) << side;
    unsigned alternations = 0;
    for (unsigned i = 1; i < 12; ++i)
      alternations += desc_from_flit<spec::DmaWrReq>(b.out[0][i]).tag != desc_from_flit<spec::DmaWrReq>(b.out[0][i - 1]).tag;
    EXPECT_GE(alternations, 8u) << side << ": both clients waiting take turns";
    EXPECT_EQ(b.stable_error, "") << side;
    EXPECT_TRUE(blk.idle()) << side;
  };
  DmaWrArbRtl rtl;
  scenario(rtl, "rtl");
}

// ---------------------------------------------------------------- mr_arb
TEST(MrArb, XcheckTagBitSevenRoutesAnswers) {
  std::mt19937_64 rng(20);
  std::vector<std::vector<Flit>> stim(3);
  for (unsigned c = 0; c < 2; ++c)
    for (unsigned i = 0; i < 600; ++i) {
      spec::MrReq q;
      q.tag = static_cast<uint8_t>((rng() & 0x80) | (i & 0x7F));  // bit 7 is the arbiter's
      q.key = (c << 16) | i;
      q.va = rng();
      q.len = static_cast<uint32_t>(rng() % 5000);
      stim[c].push_back(desc_to_flit(q));
    }
  std::vector<spec::MrResp> want[2];
  for (unsigned i = 0; i < 900; ++i) {
    spec::MrResp a;
    a.tag = static_cast<uint8_t>(rng());
    a.status = static_cast<uint8_t>(rng() % 5);
    a.pa = rng();
    a.run = static_cast<uint32_t>(i);
    stim[2].push_back(desc_to_flit(a));
    const unsigned c = a.tag >> 7;
    a.tag &= 0x7F;
    want[c].push_back(a);
  }
  XcheckConfig xc;
  xc.seed = 20;
  const auto r = rtl_run([] { return std::make_unique<MrArbRtl>(); }, stim, xc);
  ASSERT_TRUE(r.ok) << r.report;
  report("mr_arb", r);
  unsigned next[2] = {0, 0};
  for (const Txn& t : r.rtl_out[0]) {
    const auto q = desc_from_flit<spec::MrReq>(t.flits[0]);
    const unsigned c = q.key >> 16, i = q.key & 0xFFFF;
    EXPECT_EQ(q.tag, (c << 7) | (i & 0x7F)) << "bit 7 = client, bits 6:0 kept";
    EXPECT_EQ(i, next[c]++);
  }
  for (unsigned c = 0; c < 2; ++c) {
    ASSERT_EQ(r.rtl_out[1 + c].size(), want[c].size());
    for (size_t i = 0; i < want[c].size(); ++i)
      EXPECT_EQ(r.rtl_out[1 + c][i].flits[0].data, desc_to_flit(want[c][i]).data) << "client " << c << " answer " << i;
  }
}

}  // namespace
}  // namespace rocenic
