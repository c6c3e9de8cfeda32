// The RC responder (rtl/xport/responder.sv, model/xport/responder.*):
//  - RTL and model in the same reactive world (host memory behind the DMA
//    timing model, an MR table answering with a small latency), same stimulus,
//    random idle cycles and backpressure: every output port carries the same
//    transactions in the same order, final memories and counters agree;
//  - both against what the scenario meant (each message good, or broken on
//    purpose and refused where and how the scenario says) and what the wire
//    and host memory show (responder_facts.cc): ACK/NAKs, completions in
//    posted order, payload placed and nothing else touched, counters that
//    agree with the wire, every DMA write inside one page.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>

#include "blocks/responder_env.h"
#include "common/desc_flit.h"
#include "rtl/responder_rtl.h"
#include "xport/responder.h"

namespace rocenic::rsp {
namespace {

using spec::Access;

struct Both {
  RunResult rtl, model;
};

Both run_both(const Peer& p, const RunConfig& cfg) {
  ResponderRtl rtl;
  auto mdl = model::make_responder_block();
  Both b;
  b.rtl = run(rtl, p.world, p.steps, cfg);
  b.model = run(*mdl, p.world, p.steps, cfg);
  return b;
}

uint32_t counter(const RunResult& r, const std::string& name) {
  for (const auto& [n, v] : r.counters)
    if (n == name) return v;
  ADD_FAILURE() << "no counter " << name;
  return 0;
}

size_t payload_bytes(const RunResult& r) {
  size_t n = 0;
  for (const Txn& t : r.out[kWrData]) n += beats_to_bytes(t.flits).size();
  return n;
}

void check_all(const Peer& p, const Both& b, const char* what) {
  ASSERT_EQ(b.rtl.error, "") << "rtl";
  ASSERT_EQ(b.model.error, "") << "model";
  const std::string d = compare(b.rtl, b.model);
  EXPECT_EQ(d, "") << "RTL and model differ: " << d;
  EXPECT_EQ(check_intents(p, b.rtl), "") << "rtl";
  EXPECT_EQ(check_intents(p, b.model), "") << "model";
  size_t txns = 0;
  for (const auto& port : b.rtl.out) txns += port.size();
  std::printf("%s: %zu steps; compared %zu transactions on %u ports, %s; %zu ACK/NAKs and READ responses, %zu completions, "
              "%zu DMA writes (%zu bytes), %zu mr_req (+%zu of the READ walker), %zu dma_rd_req; rtl %llu cycles, "
              "model %llu cycles\n",
              what, p.steps.size(), txns, unsigned{kOuts}, d.empty() ? "0 divergences" : "DIVERGED",
              b.rtl.out[kAck].size(), b.rtl.out[kCq].size(), b.rtl.out[kWrReq].size(), payload_bytes(b.rtl),
              b.rtl.out[kMrReq].size(), b.rtl.out[kReadMrReq].size(), b.rtl.out[kRdReq].size(),
              static_cast<unsigned long long>(b.rtl.cycles), static_cast<unsigned long long>(b.model.cycles));
  std::printf("  counters:");
  for (const auto& [name, v] : b.rtl.counters) std::printf(" %s %u", name.c_str(), v);
  std::map<unsigned, unsigned> syn, status;
  for (const Txn& t : b.rtl.out[kAck]) ++syn[desc_from_flit<spec::RoceTxHdr>(t.flits[0]).aeth_syndrome];
  for (const Txn& t : b.rtl.out[kCq]) ++status[desc_from_flit<spec::CqCompl>(t.flits[0]).status];
  std::printf("\n  syndromes:");
  for (const auto& [k, v] : syn) std::printf(" 0x%02x x%u", k, v);
  std::printf("; completion statuses:");
  for (const auto& [k, v] : status) std::printf(" %u x%u", k, v);
  std::printf("\n");
}

uint8_t syn_of(const Txn& t) { return desc_from_flit<spec::RoceTxHdr>(t.flits[0]).aeth_syndrome; }

// ---------------------------------------------------------------- random traffic

void random_traffic(Peer& p, int actions) {
  for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 9u}) p.setup(p.qps[n]);
  p.setup(p.qps[8], false);  // stays in INIT
  const uint8_t bad_ops[] = {spec::kRcSendMiddle, spec::kRcSendLast,  spec::kRcWriteMiddle, spec::kRcWriteLastImm,
                             spec::kRcReadRespOnly, spec::kRcCmpSwap,   spec::kRcAck,         spec::kUcSendOnly,
                             spec::kUdSendOnly,   spec::kRcAtomicAck};
  for (int i = 0; i < actions; ++i) {
    TQp& q = p.qps[p.rand(20) == 0 ? 9 : 1 + p.rand(6)];
    if (!q.live) {
      const uint64_t r = p.rand(6);
      if (r == 0) p.stray(q.qpn, spec::kRcSendOnly);
      else if (r == 1 && q.dead) p.post(q, {p.good_wqe(1)});  // flushed at once
      else p.reset_qp(q);
      continue;
    }
    const uint64_t r = p.rand(100);
    const uint32_t mtu = q.mtu();
    if (p.rand(6) == 0) {  // RDMA READ (QP 5 grants no remote access: refused)
      const uint64_t v = p.rand(12);
      const MrDef& rd = p.mr(Peer::kRd);
      if (v < 7) {
        const uint32_t len = static_cast<uint32_t>(v == 0   ? p.rand(4) * mtu
                                                   : v == 1 ? 1 + p.rand(20000)
                                                            : 1 + p.rand(3 * mtu + 50));
        p.read(q, Peer::kRd, p.va_in(Peer::kRd, len), len);
      } else if (v == 7) {
        p.read(q, Peer::kRd, 0x1234, 0, Meant::kGood, 0xBAD00);  // zero length: no rkey check
      } else if (v == 8) {
        const uint32_t len = static_cast<uint32_t>(1 + p.rand(mtu));
        p.read(q, Peer::kRd, p.va_in(Peer::kRd, len), len, Meant::kRefused, rd.key() ^ 4);  // wrong key byte
      } else if (v == 9) {
        const uint32_t len = static_cast<uint32_t>(2 + p.rand(2 * mtu));
        p.read(q, Peer::kRd, rd.ctx.iova + rd.ctx.length - len + 1 + p.rand(len - 1), len, Meant::kRefused);
      } else if (v == 10) {
        const uint32_t len = static_cast<uint32_t>(1 + p.rand(mtu));
        p.read(q, Peer::kRw, p.va_in(Peer::kRw, len), len, Meant::kRefused);  // the MR grants no REMOTE_READ
      } else {
        p.read_too_long(q);
      }
      continue;
    }
    if (r < 20) {
      const unsigned room = (1u << q.rq_lsz) - static_cast<unsigned>(q.rq.size());
      std::vector<TWqe> ws;
      for (unsigned k = 0, n = static_cast<unsigned>(1 + p.rand(3)); k < n && k < room; ++k) {
        TWqe w = p.good_wqe(static_cast<unsigned>(p.rand(spec::kMaxSge + 1)));  // 0..16 SGEs
        const uint64_t v = p.rand(25);
        if (v == 0 && !w.sges.empty()) {  // wrong key byte (an SGE of no bytes is never checked)
          TSge& s = w.sges[p.rand(w.sges.size())];
          s.lkey ^= 1;
          s.broken = s.len > 0;
        }
        if (v == 1 && !w.sges.empty()) {  // past the end of its region
          TSge& s = w.sges[p.rand(w.sges.size())];
          s.len = 64 + static_cast<uint32_t>(p.rand(256));
          s.va = p.mr(Peer::kRw).ctx.iova + p.mr(Peer::kRw).ctx.length - s.len / 2;
          s.lkey = p.mr(Peer::kRw).key();
          s.broken = true;
        }
        if (v == 2 && !w.sges.empty()) {  // another PD's region
          TSge& s = w.sges[p.rand(w.sges.size())];
          s.len = 1 + static_cast<uint32_t>(p.rand(500));
          s.va = p.va_in(Peer::kPd2, s.len);
          s.lkey = p.mr(Peer::kPd2).key();
          s.broken = true;
        }
        if (v == 3) w.nsge = 17;  // more than MAX_SGE
        ws.push_back(w);
      }
      if (!ws.empty()) p.post(q, ws);
    } else if (r < 45) {
      if (q.rq.empty() && p.rand(4)) p.post(q, {p.good_wqe(static_cast<unsigned>(1 + p.rand(spec::kMaxSge)), 2 * mtu)});
      uint64_t total = 0;
      bool broken = false;
      if (!q.rq.empty()) total = q.rq.front().total();
      if (!q.rq.empty())
        for (const TSge& s : q.rq.front().sges) broken = broken || s.broken;
      uint32_t len = static_cast<uint32_t>(p.rand(std::min<uint64_t>(total, 3 * mtu + 100) + 1));
      if (p.rand(10) == 0) len = static_cast<uint32_t>(total + 1 + p.rand(2 * mtu));  // longer than the buffers
      if (p.rand(4) == 0) len = static_cast<uint32_t>(p.rand(3) * mtu);               // whole packets
      // one way to fail at a time: a WQE with a broken SGE gets a message that fits its buffers
      if (broken && len > total) len = static_cast<uint32_t>(total);
      p.send(q, len, p.rand(3) == 0, p.rand(2));
    } else if (r < 65) {
      const unsigned m = p.rand(3) ? Peer::kRw : Peer::kBig;
      const uint32_t len = static_cast<uint32_t>(p.rand(4) == 0 ? p.rand(3) * mtu : p.rand(3 * mtu + 50));
      p.write(q, m, p.va_in(m, len), len, p.rand(6) == 0);
    } else if (r < 68) {
      p.write(q, Peer::kRw, 0x1234, 0, p.rand(2), Meant::kGood, 0xBAD00);  // zero length: no rkey check (C9-88)
    } else if (r < 74) {
      p.duplicate(q);
    } else if (r < 80) {
      p.ahead(q);
    } else if (r < 83) {
      const uint32_t len = static_cast<uint32_t>(1 + p.rand(mtu));
      const uint64_t v = p.rand(4);
      if (v == 0) p.write(q, Peer::kRw, p.va_in(Peer::kRw, len), len, false, Meant::kRefused, p.mr(Peer::kRw).key() ^ 4);
      if (v == 1) {
        const MrDef& m = p.mr(Peer::kBig);
        p.write(q, Peer::kBig, m.ctx.iova + m.ctx.length - len + 1 + p.rand(64), len, false, Meant::kRefused);
      }
      if (v == 2) p.write(q, Peer::kRo, p.va_in(Peer::kRo, len), len, false, Meant::kRefused);  // no REMOTE_WRITE
      if (v == 3) p.write(q, Peer::kPd2, p.va_in(Peer::kPd2, len), len, false, Meant::kRefused);  // other PD
    } else if (r < 86) {
      const uint64_t v = p.rand(4);
      if (v < 2) p.bad_opcode(q, bad_ops[p.rand(sizeof bad_ops)], static_cast<uint32_t>(p.rand(mtu)));
      if (v == 2) p.bad_opcode(q, p.rand(2) ? spec::kRcSendFirst : spec::kRcWriteFirst, mtu - 1 - p.rand(mtu - 1));
      if (v == 3 && mtu < 4096) p.bad_opcode(q, p.rand(2) ? spec::kRcSendOnly : spec::kRcWriteOnly, mtu + 1);
    } else if (r < 87) {
      p.to_err(q);
    } else if (r < 90) {
      const uint32_t qpns[] = {7, 8, 200, 0x123456};
      p.stray(qpns[p.rand(4)], spec::kRcWriteOnly);
    } else if (r < 92 && (q.access & static_cast<uint8_t>(Access::kRemoteWrite))) {
      // a WRITE in progress, then a packet that does not continue it: invalid request
      const uint32_t rlen = mtu + 1 + static_cast<uint32_t>(p.rand(p.rand(2) ? 16 : 2 * mtu));
      p.write_first(q, Peer::kBig, p.va_in(Peer::kBig, rlen), rlen);
      const uint32_t left = rlen - mtu;
      switch (p.rand(6)) {
        case 0: p.bad_opcode(q, spec::kRcSendFirst, mtu); break;      // a new message
        case 4: p.bad_opcode(q, spec::kRcReadReq, 0); break;          // a READ inside the WRITE
        case 1: p.bad_opcode(q, spec::kRcWriteOnly, 10); break;       // a new message
        case 2: p.bad_opcode(q, spec::kRcSendLast, 5); break;         // the wrong kind
        default:
          if (left >= mtu) p.bad_opcode(q, spec::kRcWriteMiddle, mtu - 1);  // not a whole mtu
          else if (p.rand(2)) p.bad_opcode(q, spec::kRcWriteMiddle, mtu);   // beyond the RETH length
          else p.bad_opcode(q, spec::kRcWriteLast, left + 1);               // beyond the RETH length
      }
    } else {
      const uint32_t len = static_cast<uint32_t>(mtu * (1 + p.rand(4)) - p.rand(2) * p.rand(mtu));
      p.write(q, Peer::kBig, p.va_in(Peer::kBig, len), len, false);  // multi-packet, 64 KiB pages
    }
  }
}

TEST(ResponderXcheck, RandomTrafficMatchesModelAndDocs) {
  for (uint64_t seed : {1ull, 2ull, 3ull, 4ull, 5ull}) {
    Peer p(seed);
    random_traffic(p, 800);
    RunConfig cfg;
    cfg.seed = seed;
    const Both b = run_both(p, cfg);
    check_all(p, b, ("random traffic, seed " + std::to_string(seed)).c_str());
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(ResponderXcheck, NoIdleNoBackpressure) {
  Peer p(11);
  random_traffic(p, 200);
  RunConfig cfg;
  cfg.seed = 11;
  cfg.in_idle = cfg.out_stall = 0.0;
  check_all(p, run_both(p, cfg), "random traffic, no idle cycles, no backpressure");
}

TEST(ResponderXcheck, HeavyBackpressure) {
  Peer p(21);
  random_traffic(p, 150);
  RunConfig cfg;
  cfg.seed = 21;
  cfg.in_idle = 0.6;
  cfg.out_stall = 0.8;
  check_all(p, run_both(p, cfg), "random traffic, heavy idle and backpressure");
}

// ---------------------------------------------------------------- directed cases

// A 3-packet SEND scattered into odd-length SGEs that straddle page ends,
// then SEND_WITH_IMM, on every path MTU.
TEST(Responder, SendScattersIntoSgesOnEveryMtu) {
  Peer p(5);
  for (uint32_t n = 1; n <= 5; ++n) {
    TQp& q = p.qps[n];
    p.setup(q);
    TWqe w;
    w.wr_id = 0x1000 + n;
    w.nsge = 4;
    const MrDef& rw = p.mr(Peer::kRw);
    const uint32_t total = 3 * q.mtu() - 7;
    const uint32_t a = total / 3 + 1, b = 0, c = total / 5, d = total - a - b - c;
    // first SGE ends 3 bytes after a page end; the last starts 5 bytes before one
    w.sges = {{rw.ctx.iova + 2 * 4096 - 0x100 - a + 3, a, rw.key()},
              {rw.ctx.iova + 77, b, rw.key()},
              {p.va_in(Peer::kBig, c), c, p.mr(Peer::kBig).key()},
              {rw.ctx.iova + 6 * 4096 - 0x100 - 5, d, rw.key()}};
    p.post(q, {w, p.good_wqe(2, 100)});
    p.send(q, total, false, true);
    p.send(q, 100, true, false);
  }
  RunConfig cfg;
  const Both b = run_both(p, cfg);
  check_all(p, b, "SEND into SGEs, every MTU");
  // the 3-packet SEND's completion: RECV, whole length, first WQE
  const auto c = desc_from_flit<spec::CqCompl>(b.rtl.out[kCq][0].flits[0]);
  EXPECT_EQ(c.wr_id, 0x1001u);
  EXPECT_EQ(c.byte_len, 3 * 256u - 7);
  EXPECT_EQ(c.opcode, static_cast<uint8_t>(spec::WcOpcode::kRecv));
  EXPECT_EQ(c.wqe_counter, 0u);
  EXPECT_EQ(c.solicited, 1u);
  const auto c2 = desc_from_flit<spec::CqCompl>(b.rtl.out[kCq][1].flits[0]);
  EXPECT_EQ(c2.wc_flags, 2u) << "IBV_WC_WITH_IMM";
  EXPECT_EQ(c2.wqe_counter, 1u);
  EXPECT_GT(b.rtl.out[kWrReq].size(), 5u * 6) << "pieces split at SGE and page ends";
}

TEST(Responder, WriteAndWriteWithImmOnEveryMtu) {
  Peer p(6);
  for (uint32_t n = 1; n <= 5; ++n) {
    TQp& q = p.qps[n == 5 ? 6 : n];  // QP 5 grants no REMOTE_WRITE
    p.setup(q);
    p.write(q, Peer::kBig, p.mr(Peer::kBig).ctx.iova + 65536 - q.mtu() - 0x1000 - 3, 4 * q.mtu() + 9, false);
    p.write(q, Peer::kRw, p.va_in(Peer::kRw, q.mtu()), q.mtu(), false);
    p.post(q, {p.good_wqe(1)});
    p.write(q, Peer::kRw, p.va_in(Peer::kRw, 2 * q.mtu() + 1), 2 * q.mtu() + 1, true);
  }
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "WRITE, WRITE_WITH_IMM, every MTU");
  for (const Txn& t : b.rtl.out[kCq]) {
    const auto c = desc_from_flit<spec::CqCompl>(t.flits[0]);
    EXPECT_EQ(c.opcode, static_cast<uint8_t>(spec::WcOpcode::kRecvRdmaWithImm));
    EXPECT_EQ(c.status, 0u);
  }
}

TEST(Responder, DuplicateIsReAckedAndNotWrittenAgain) {
  Peer p(7);
  TQp& q = p.qps[2];
  p.setup(q);
  p.write(q, Peer::kRw, p.va_in(Peer::kRw, 600), 600, false);
  for (int i = 0; i < 3; ++i) p.duplicate(q);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "duplicates");
  EXPECT_EQ(counter(b.rtl, "duplicate_request"), 3u);
}

TEST(Responder, PsnAheadGetsOneNakUntilTheExpectedPacket) {
  Peer p(8);
  TQp& q = p.qps[1];
  p.setup(q);
  p.ahead(q);
  p.ahead(q);
  p.ahead(q);
  p.write(q, Peer::kRw, p.va_in(Peer::kRw, 100), 100, false);
  p.ahead(q);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "PSN ahead");
  ASSERT_EQ(b.rtl.out[kAck].size(), 3u);
  EXPECT_EQ(syn_of(b.rtl.out[kAck][0]), static_cast<uint8_t>(spec::Aeth::kNakPsnSeq));
  EXPECT_EQ(syn_of(b.rtl.out[kAck][1]), static_cast<uint8_t>(spec::Aeth::kAck));
  EXPECT_EQ(syn_of(b.rtl.out[kAck][2]), static_cast<uint8_t>(spec::Aeth::kNakPsnSeq));
  EXPECT_EQ(counter(b.rtl, "out_of_sequence"), 4u);
}

TEST(Responder, RemoteAccessErrorsAreNakedAndWriteNothing) {
  Peer p(9);
  struct Case {
    uint32_t qpn;
    unsigned mr;
    int kind;  // 0 bad key byte, 1 out of bounds, 2 no REMOTE_WRITE on the MR, 3 other PD, 4 QP grants none
  };
  for (const Case c : {Case{1, Peer::kRw, 0}, Case{2, Peer::kBig, 1}, Case{3, Peer::kRo, 2}, Case{4, Peer::kPd2, 3},
                       Case{5, Peer::kRw, 4}}) {
    TQp& q = p.qps[c.qpn];
    p.setup(q);
    p.post(q, {p.good_wqe(1), p.good_wqe(2)});  // flushed when the QP enters ERR
    const MrDef& m = p.mr(c.mr);
    const uint32_t len = 3 * q.mtu() / 2;
    const uint64_t va = c.kind == 1 ? m.ctx.iova + m.ctx.length - len + 1 : p.va_in(c.mr, len);
    p.write(q, c.mr, va, len, false, Meant::kRefused, c.kind == 0 ? m.key() + 1 : 0);
    p.stray(c.qpn, spec::kRcWriteOnly);  // the QP is in ERR now: dropped
  }
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "remote access errors");
  ASSERT_EQ(b.rtl.out[kAck].size(), 5u);
  for (const Txn& t : b.rtl.out[kAck]) EXPECT_EQ(syn_of(t), static_cast<uint8_t>(spec::Aeth::kNakRemAcc));
  EXPECT_EQ(b.rtl.out[kWrReq].size(), 0u);
  EXPECT_EQ(b.rtl.out[kCq].size(), 10u) << "two flushed receive WQEs per QP";
  EXPECT_EQ(counter(b.rtl, "rem_access_err"), 5u);
  EXPECT_EQ(counter(b.rtl, "qp_state"), 5u);
}

TEST(Responder, ZeroLengthWriteNeedsNoValidRkey) {
  Peer p(10);
  TQp& q = p.qps[3];
  p.setup(q);
  p.write(q, Peer::kRw, 0, 0, false, Meant::kGood, 0xDEAD);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "zero-length WRITE");
  EXPECT_EQ(b.rtl.out[kMrReq].size(), 0u);
  ASSERT_EQ(b.rtl.out[kAck].size(), 1u);
  EXPECT_EQ(syn_of(b.rtl.out[kAck][0]), static_cast<uint8_t>(spec::Aeth::kAck));
}

TEST(Responder, NoQpAndWrongStateAreDropped) {
  Peer p(12);
  p.setup(p.qps[1]);         // live: QPN 257 must not reach it (MAX_QP = 256)
  p.setup(p.qps[7]);         // UC
  p.setup(p.qps[8], false);  // INIT
  for (uint32_t qpn : {7u, 8u, 200u, 0x123456u, 257u}) p.stray(qpn, spec::kRcSendOnly);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "no QP, wrong state");
  EXPECT_EQ(counter(b.rtl, "no_qp"), 4u);
  EXPECT_EQ(counter(b.rtl, "qp_state"), 1u);
  EXPECT_EQ(b.rtl.out[kAck].size() + b.rtl.out[kWrReq].size() + b.rtl.out[kRdReq].size(), 0u);
}

TEST(Responder, RnrNakWithoutReceiveWqeThenSuccess) {
  Peer p(13);
  TQp& q = p.qps[4];
  p.setup(q);
  p.send(q, 3000, false, false);  // RNR: nothing posted
  p.post(q, {p.good_wqe(3, 3000)});
  p.send(q, 3000, false, false);
  p.write(q, Peer::kRw, p.va_in(Peer::kRw, 5000), 5000, true);  // WRITE_WITH_IMM: RNR at its LAST, posted, again
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "RNR");
  EXPECT_EQ(counter(b.rtl, "rnr_nak_sent"), 2u);
  const uint8_t rnr = static_cast<uint8_t>(static_cast<uint8_t>(spec::Aeth::kRnrNak) | q.min_rnr);
  EXPECT_EQ(syn_of(b.rtl.out[kAck][0]), rnr);
}

TEST(Responder, OpcodeSequenceAndLengthErrors) {
  Peer p(14);
  const struct {
    uint32_t qpn;
    uint8_t op;
    int len;  // -1: one mtu, -2: one less, -3: one more
  } cases[] = {{1, spec::kRcSendMiddle, -1}, {2, spec::kRcWriteLast, 10},  {3, spec::kRcSendFirst, -2},
               {4, spec::kRcSendOnly, -3},   {6, spec::kRcReadReq, 16},    {1, spec::kRcFetchAdd, 8},  // (an atomic carries no payload)
               {2, spec::kUcWriteOnly, 20},  {3, spec::kRcSendLast, 0}};
  for (const auto& c : cases) {
    TQp& q = p.qps[c.qpn];
    p.setup(q);
    p.post(q, {p.good_wqe(1)});
    const uint32_t mtu = q.mtu();
    p.bad_opcode(q, c.op, c.len == -1 ? mtu : c.len == -2 ? mtu - 1 : c.len == -3 ? mtu + 1 : c.len);
  }
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "opcode sequence and length errors");
  for (const Txn& t : b.rtl.out[kAck]) EXPECT_EQ(syn_of(t), static_cast<uint8_t>(spec::Aeth::kNakInvReq));
  EXPECT_EQ(counter(b.rtl, "rem_inv_req"), 8u);
}

TEST(Responder, ReceiveWqeErrors) {
  Peer p(15);
  // longer than the buffers: detected at the second packet, the first is placed
  TQp& a = p.qps[1];
  p.setup(a);
  const TWqe wa = p.good_wqe(2, 300);
  p.post(a, {wa, p.good_wqe(1)});
  const uint64_t total = wa.total();
  p.send(a, static_cast<uint32_t>(std::max<uint64_t>(total + 1, 257)), false, false);
  // a bad lkey in the third SGE: the packet that reaches it fails, nothing of it is written
  TQp& b2 = p.qps[2];
  p.setup(b2);
  TWqe w;
  w.wr_id = 0xB2;
  w.nsge = 3;
  for (int i = 0; i < 3; ++i) w.sges.push_back({p.va_in(Peer::kRw, 300), 300, p.mr(Peer::kRw).key()});
  w.sges[2].lkey ^= 0x80;
  w.sges[2].broken = true;
  p.post(b2, {w});
  p.send(b2, 900, false, false);
  // seventeen SGEs (MAX_SGE is 16)
  TQp& c = p.qps[3];
  p.setup(c);
  TWqe w7 = p.good_wqe(16);
  w7.nsge = 17;
  p.post(c, {w7, p.good_wqe(1)});
  p.send(c, 10, false, false);
  // the host refuses the receive ring read (poisoned data)
  TQp& d = p.qps[9];
  p.setup(d);
  p.post(d, {p.good_wqe(1), p.good_wqe(1)});
  p.send(d, 10, false, false);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "receive WQE errors");
  EXPECT_EQ(counter(b.rtl, "rem_inv_req"), 1u);
  EXPECT_EQ(counter(b.rtl, "rem_op_err"), 3u);
  std::vector<uint8_t> statuses;
  for (const Txn& t : b.rtl.out[kCq]) statuses.push_back(desc_from_flit<spec::CqCompl>(t.flits[0]).status);
  const std::vector<uint8_t> want = {1, 5, 4, 2, 5, 2, 5};  // LOC_LEN, FLUSH | LOC_PROT | LOC_QP_OP, FLUSH | ...
  EXPECT_EQ(statuses, want);
}

// An RQ doorbell reads ahead the first of its QP's next RQ_AHEAD WQEs (2 in
// the block) posted and not in the table, into a free way of the QP's set
// (set q mod 2, two ways each, of the block's 4 entries) tagged {QP, x}: a
// SEND that finds its WQE there issues no read of its own; taking it (or
// reading it) reads the first of the next two posted and not there.
// Counted by the WQE head reads (len WQE_HEAD) on dma_rd_req; the intents
// say each SEND lands in the buffers of the WQE posted for it.
TEST(Responder, ReceiveWqesAreReadAheadAtTheirDoorbell) {
  Peer p(17);
  for (uint32_t n : {1u, 2u, 3u, 4u, 6u}) p.setup(p.qps[n]);
  // (sets: a and c 1; b, d and e 0)
  TQp &a = p.qps[1], &b = p.qps[2], &c = p.qps[3], &d = p.qps[4], &e = p.qps[6];
  unsigned want = 0;
  // read at the doorbell, taken by the SEND
  p.post(a, {p.good_wqe(1, 100)});
  p.send(a, 100, false, false);
  want += 1;
  // the SEND's step starts right behind the doorbell's (no wait for idle), so
  // the read can still be under way; what is checked is the same: no read of its own
  p.post(b, {p.good_wqe(2, 300)});
  p.new_step(true);
  p.send(b, 300, false, true);
  want += 1;
  // no way is taken from another WQE: b's WQE 1 and d's WQE 0 fill set 0,
  // so e's doorbell reads nothing ahead and e's SEND reads its WQE itself;
  // b's, c's and d's SENDs take theirs
  p.post(c, {p.good_wqe(1, 100)});
  p.post(b, {p.good_wqe(1, 100)});
  p.new_step();
  p.post(d, {p.good_wqe(3, 500)});
  p.post(e, {p.good_wqe(3, 500)});
  p.new_step(true);
  p.send(b, 100, false, false);
  p.send(e, 500, true, false);
  p.send(c, 100, false, false);
  p.send(d, 500, true, false);
  want += 4;
  // two WQEs with one doorbell: the first read ahead, the second as the
  // first is taken
  p.post(a, {p.good_wqe(1, 64), p.good_wqe(1, 64)});
  p.send(a, 64, false, false);
  p.send(a, 64, false, false);
  want += 2;
  // a reset forgets the slot: the SEND lands in the WQE posted after it
  p.post(b, {p.good_wqe(1, 200)});
  p.reset_qp(b);
  p.post(b, {p.good_wqe(2, 200)});
  p.send(b, 200, false, false);
  want += 2;
  // a WQE with more SGEs than its head holds: the tail is read when needed
  p.post(c, {p.good_wqe(9, 900)});
  p.send(c, 900, false, false);
  want += 1;
  // a WRITE_WITH_IMM consumes a prefetched WQE too
  p.post(d, {p.good_wqe(0)});
  p.write(d, Peer::kRw, p.va_in(Peer::kRw, 700), 700, true);
  want += 1;
  // a stream on one QP, a doorbell per WQE: e's WQEs 1 and 2 read at their
  // doorbells (the other four not among the next two), the first four
  // SENDs' takes read WQEs 3 to 6: six reads, none by a SEND
  for (int i = 0; i < 6; ++i) p.post(e, {p.good_wqe(1, 64)});
  p.new_step();
  for (int i = 0; i < 6; ++i) p.send(e, 64, false, false);
  want += 6;
  for (const uint64_t seed : {1ull, 2ull, 3ull}) {
    RunConfig cfg;
    cfg.seed = seed;
    const Both r = run_both(p, cfg);
    check_all(p, r, "receive WQEs read ahead");
    unsigned heads = 0;
    for (const Txn& t : r.rtl.out[kRdReq]) heads += desc_from_flit<spec::DmaRdReq>(t.flits[0]).len == spec::kWqeHead;
    EXPECT_EQ(heads, want);
    EXPECT_EQ(r.rtl.out[kCq].size(), 17u);
    for (const Txn& t : r.rtl.out[kCq]) EXPECT_EQ(desc_from_flit<spec::CqCompl>(t.flits[0]).status, 0);
  }
}

TEST(Responder, ErrFromCommandFlushesAndDoorbellsFlushMore) {
  Peer p(16);
  TQp& q = p.qps[6];
  p.setup(q);
  p.post(q, {p.good_wqe(1, 5), p.good_wqe(2), p.good_wqe(0)});
  p.send(q, 5, false, false);
  p.to_err(q);
  p.post(q, {p.good_wqe(1)});
  p.stray(6, spec::kRcSendOnly);
  p.reset_qp(q);
  p.post(q, {p.good_wqe(2, 50)});
  p.send(q, 50, false, false);
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "ERR by command, flush");
  EXPECT_EQ(b.rtl.out[kCq].size(), 1u + 2 + 1 + 1);
}

// ---------------------------------------------------------------- the check itself

// check_intents must catch what a wrong responder would do: one run of good
// and refused messages, then each output bent the way a bug would bend it.
TEST(Responder, ReadAnswersFromMemoryOnEveryMtu) {
  Peer p(31);
  for (uint32_t n = 1; n <= 6; ++n) p.setup(p.qps[n]);
  const MrDef& rd = p.mr(Peer::kRd);
  for (uint32_t n : {1u, 2u, 3u, 4u, 6u}) {
    TQp& q = p.qps[n];
    const uint32_t mtu = q.mtu();
    for (uint32_t len : {0u, 1u, mtu - 1, mtu, mtu + 1, 3 * mtu, 5000u, 61440u}) {
      const uint64_t va = len > 60000 ? rd.ctx.iova + 7 : p.va_in(Peer::kRd, len);
      p.read(q, Peer::kRd, va, len);
    }
    // a WRITE, then a READ of the same bytes: the READ sees what the WRITE wrote (each QP
    // its own 16 KiB: across QPs a READ reads when it gets to it, unordered with other QPs' writes)
    const uint32_t len = 2 * mtu + 33;
    const uint64_t va = p.mr(Peer::kBig).ctx.iova + (n - 1) * 16384 + 8192 - len / 2;
    p.write(q, Peer::kBig, va, len, false);
    p.read(q, Peer::kBig, va, len);
    p.duplicate(q);
  }
  p.read(p.qps[5], Peer::kRd, p.va_in(Peer::kRd, 100), 100);  // QP 5 grants no remote access: REM_ACC
  p.read(p.qps[6], Peer::kRd, rd.ctx.iova + rd.ctx.length - 10, 11, Meant::kRefused);  // one byte past the MR
  p.read_too_long(p.qps[4]);
  // max_dest_rd_atomic 0: no READ resources, NAK invalid request
  p.qps[2].max_dest_rd_atomic = 0;
  p.reset_qp(p.qps[2]);
  p.read(p.qps[2], Peer::kRd, p.va_in(Peer::kRd, 100), 100, Meant::kRefused, 0xBAD00);  // (before the rkey)
  const Both b = run_both(p, RunConfig{});
  check_all(p, b, "READ on every mtu");
  size_t responses = 0, bytes = 0;
  for (const Txn& t : b.rtl.out[kAck]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    if (h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcReadRespOnly) ++responses, bytes += h.pay_len;
  }
  std::printf("  %zu READ responses, %zu bytes, %zu dma reads\n", responses, bytes, b.rtl.out[kReadReq].size());
  EXPECT_GT(responses, 300u);
  EXPECT_EQ(counter(b.rtl, "rem_access_err"), 2u);
  EXPECT_EQ(counter(b.rtl, "rem_inv_req"), 2u);
}

// Atomics (docs/engine.md, "Atomics"), RTL against the model and against
// values worked out here: a WRITE sets a counter, FETCH_ADD (one wrapping
// modulo 2^64) and CMP_SWAP (matching and not) answer its value before and
// write the new one, duplicates are answered from the replay cache (the
// current MSN, nothing written; a payload one carries dropped) or dropped
// when their PSN was no atomic, a
// READ sees the last value; refusals: no REMOTE_ATOMIC on the QP, no
// resources, a wrong rkey, a misaligned address.
// QP 1 with REMOTE_ATOMIC, set up, and region kBig open to atomics; va: an
// 8-byte-aligned counter in it.
TQp& atomic_qp(Peer& p, uint64_t& va) {
  MrDef& big = p.world.mrs[Peer::kBig];
  big.ctx.access |= static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  va = big.ctx.iova + 0x2008;
  TQp& q = p.qps[1];
  q.access |= static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  p.setup(q);
  return q;
}

TEST(Responder, AtomicsAnswerTheOriginalAndDuplicatesReplay) {
  Peer p(21);
  uint64_t va = 0;
  TQp& q = atomic_qp(p, va);
  const MrDef& big = p.mr(Peer::kBig);
  p.write(q, Peer::kBig, va, 8, false);  // the counter's first value: what the WRITE carried
  const uint32_t write_psn = (q.next_psn - 1) & 0xFFFFFF;
  const uint32_t first = q.next_psn;
  const uint64_t add = 0x8000000000000001ull;
  p.atomic(q, va, big.key(), false, add, 0);
  p.atomic(q, va, big.key(), false, add, 0);        // wraps past 2^64
  p.atomic(q, va, big.key(), true, 0x5555, 12345);  // no match: nothing written
  p.atomic(q, va, big.key(), true, 0x7777, 0);      // compare filled in below: a match
  p.atomic(q, va, big.key(), false, 0, 0, first + 1);  // a duplicate: the second answer again
  p.atomic(q, va, big.key(), true, 1, 1, write_psn);   // a duplicate whose PSN was the WRITE: dropped
  p.atomic(q, va, big.key(), false, 0, 0, first, 100);  // a duplicate with a payload: answered, payload dropped
  p.read(q, Peer::kBig, va, 8);
  // refusals, each on its own QP
  TQp& no_right = p.qps[2];
  p.setup(no_right);
  p.atomic(no_right, va, big.key(), false, 1, 0);
  TQp& no_res = p.qps[3];
  no_res.access |= static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  no_res.max_dest_rd_atomic = 0;
  p.setup(no_res);
  p.atomic(no_res, va, big.key(), false, 1, 0);
  TQp& bad_key = p.qps[4];
  bad_key.access |= static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  p.setup(bad_key);
  p.atomic(bad_key, va, big.key() ^ 1, false, 1, 0);
  TQp& misaligned = p.qps[6];
  misaligned.access |= static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  p.setup(misaligned);
  p.atomic(misaligned, va + 4, big.key(), false, 1, 0);

  // the WRITE's value (its payload, the step's one payload packet on QP 1)
  uint64_t v0 = 0;
  for (const Step& st : p.steps)
    if (!st.in[3].empty()) {
      for (int i = 7; i >= 0; --i) v0 = v0 << 8 | st.in[3][0].data[i];
      break;
    }
  // the matching CMP_SWAP's compare: the value after two adds
  const uint64_t v2 = v0 + add + add;
  for (Step& st : p.steps)
    for (Flit& f : st.in[2]) {
      auto h = desc_from_flit<spec::RoceRxHdr>(f);
      if (h.opcode == spec::kRcCmpSwap && h.swap_add == 0x7777) {
        h.compare = v2;
        f = desc_to_flit(h);
      }
    }
  const Both b = run_both(p, RunConfig{});
  ASSERT_EQ(b.rtl.error, "");
  ASSERT_EQ(b.model.error, "");
  EXPECT_EQ(compare(b.rtl, b.model), "");
  std::map<uint32_t, std::vector<spec::RoceTxHdr>> by_qp;
  for (const Txn& t : b.rtl.out[kAck]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    by_qp[h.src_qpn].push_back(h);
  }
  const auto& a = by_qp[1];
  ASSERT_EQ(a.size(), 8u) << "the WRITE's ACK, four answers, two replayed, one READ response";
  const uint64_t want_orig[] = {v0, v0 + add, v2, v2};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(a[1 + i].opcode, spec::kRcAtomicAck) << i;
    EXPECT_EQ(a[1 + i].psn, (first + i) & 0xFFFFFF) << i;
    EXPECT_EQ(a[1 + i].aeth_syndrome, static_cast<uint8_t>(spec::Aeth::kAck)) << i;
    EXPECT_EQ(a[1 + i].aeth_msn, 2u + i) << i;
    EXPECT_EQ(a[1 + i].atomic_orig, want_orig[i]) << "answer " << i;
  }
  EXPECT_EQ(a[5].opcode, spec::kRcAtomicAck);
  EXPECT_EQ(a[5].psn, (first + 1) & 0xFFFFFF);
  EXPECT_EQ(a[5].atomic_orig, v0 + add) << "replayed from the cache";
  EXPECT_EQ(a[5].aeth_msn, 5u) << "the current MSN";
  EXPECT_EQ(a[6].opcode, spec::kRcAtomicAck);
  EXPECT_EQ(a[6].psn, first & 0xFFFFFF);
  EXPECT_EQ(a[6].atomic_orig, v0) << "replayed, its payload dropped";
  EXPECT_EQ(a[7].opcode, spec::kRcReadRespOnly);
  uint64_t last = 0;
  const auto rb = beats_to_bytes(b.rtl.out[kTxPay].back().flits);
  ASSERT_GE(rb.size(), 8u);
  for (int i = 7; i >= 0; --i) last = last << 8 | rb[i];
  EXPECT_EQ(last, 0x7777u) << "the READ sees the matching CMP_SWAP's value";
  // writes: the WRITE, then one per atomic that changes the counter (3)
  ASSERT_EQ(b.rtl.out[kWrReq].size(), 4u);
  EXPECT_EQ(by_qp[2].at(0).aeth_syndrome, static_cast<uint8_t>(spec::Aeth::kNakRemAcc)) << "no REMOTE_ATOMIC";
  EXPECT_EQ(by_qp[3].at(0).aeth_syndrome, static_cast<uint8_t>(spec::Aeth::kNakInvReq)) << "no resources";
  EXPECT_EQ(by_qp[4].at(0).aeth_syndrome, static_cast<uint8_t>(spec::Aeth::kNakRemAcc)) << "wrong rkey";
  EXPECT_EQ(by_qp[6].at(0).aeth_syndrome, static_cast<uint8_t>(spec::Aeth::kNakInvReq)) << "misaligned";
  EXPECT_EQ(counter(b.rtl, "duplicate_request"), 3u);
  EXPECT_EQ(counter(b.rtl, "rem_access_err"), 2u);
  EXPECT_EQ(counter(b.rtl, "rem_inv_req"), 2u);
}

TEST(ResponderFacts, CatchesWhatAWrongResponderDoes) {
  Peer p(17);
  TQp& q = p.qps[2];
  p.setup(q);
  p.post(q, {p.good_wqe(2, 1200), p.good_wqe(1), p.good_wqe(3)});
  p.send(q, 1200, true, true);
  p.write(q, Peer::kRw, p.va_in(Peer::kRw, 700), 700, false);
  p.ahead(q);
  p.ahead(q);
  p.duplicate(q);
  p.read(q, Peer::kRd, p.va_in(Peer::kRd, 3000), 3000);
  p.write(q, Peer::kRw, p.va_in(Peer::kRw, 300), 300, false, Meant::kRefused, p.mr(Peer::kRw).key() ^ 2);
  ResponderRtl rtl;
  const RunResult good = run(rtl, p.world, p.steps, RunConfig{});
  ASSERT_EQ(good.error, "");
  ASSERT_EQ(check_intents(p, good), "");
  ASSERT_GE(good.out[kAck].size(), 4u);
  ASSERT_GE(good.out[kCq].size(), 3u);

  auto bent = [&](const char* what, auto&& bend) {
    RunResult r = good;
    bend(r);
    const std::string e = check_intents(p, r);
    EXPECT_NE(e, "") << what << " went unnoticed";
    std::printf("  %-44s -> %s\n", what, e.substr(0, e.find('\n')).c_str());
  };
  auto hdr = [](Txn& t, auto&& f) {
    auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    f(h);
    t.flits[0] = desc_to_flit(h);
  };
  auto cqe = [](Txn& t, auto&& f) {
    auto c = desc_from_flit<spec::CqCompl>(t.flits[0]);
    f(c);
    t.flits[0] = desc_to_flit(c);
  };
  bent("an ACK lost", [](RunResult& r) { r.out[kAck].erase(r.out[kAck].begin()); });
  bent("an ACK sent twice", [](RunResult& r) { r.out[kAck].push_back(r.out[kAck].front()); });
  bent("an ACK's PSN one off", [&](RunResult& r) { hdr(r.out[kAck][0], [](auto& h) { h.psn = (h.psn + 1) & 0xFFFFFF; }); });
  bent("an MSN that counts no message", [&](RunResult& r) {
    for (Txn& t : r.out[kAck])
      if (desc_from_flit<spec::RoceTxHdr>(t.flits[0]).aeth_msn != 0) return hdr(t, [](auto& h) { h.aeth_msn = 0; });
  });
  bent("an ACK to the wrong MAC", [&](RunResult& r) { hdr(r.out[kAck][1], [](auto& h) { h.dst_mac ^= 1; }); });
  bent("a NAK with the wrong syndrome", [&](RunResult& r) {
    hdr(r.out[kAck].back(), [](auto& h) { h.aeth_syndrome = static_cast<uint8_t>(spec::Aeth::kNakInvReq); });
  });
  bent("two completions swapped", [](RunResult& r) { std::swap(r.out[kCq][0], r.out[kCq][1]); });
  bent("a completion's byte_len", [&](RunResult& r) { cqe(r.out[kCq][0], [](auto& c) { c.byte_len -= 1; }); });
  bent("a completion without its immediate", [&](RunResult& r) { cqe(r.out[kCq][0], [](auto& c) { c.wc_flags = 0; }); });
  bent("a flush reported as success", [&](RunResult& r) { cqe(r.out[kCq].back(), [](auto& c) { c.status = 0; }); });
  bent("a flush lost", [](RunResult& r) { r.out[kCq].pop_back(); });
  bent("a payload byte wrong", [&](RunResult& r) {
    for (auto& region : r.memory)
      for (auto& b : region)
        if (b != p.world.fill) {
          b ^= 0x40;
          return;
        }
  });
  bent("a byte outside every message touched", [&](RunResult& r) { r.memory[0][0] ^= 1; });
  bent("a counter off by one", [](RunResult& r) { r.counters[1].second += 1; });
  auto response = [](RunResult& r, unsigned op) -> Txn& {
    for (Txn& t : r.out[kAck])
      if (desc_from_flit<spec::RoceTxHdr>(t.flits[0]).opcode == op) return t;
    return r.out[kAck].front();
  };
  bent("a READ response byte wrong", [](RunResult& r) { r.out[kTxPay].at(1).flits.at(0).data[5] ^= 1; });
  bent("a READ response lost", [&](RunResult& r) {
    Txn& t = response(r, spec::kRcReadRespMiddle);
    r.out[kAck].erase(r.out[kAck].begin() + (&t - r.out[kAck].data()));
  });
  bent("a READ MIDDLE with an AETH", [&](RunResult& r) {
    hdr(response(r, spec::kRcReadRespMiddle), [](auto& h) { h.aeth_syndrome = static_cast<uint8_t>(spec::Aeth::kAck); });
  });
  bent("a READ LAST sent as MIDDLE", [&](RunResult& r) {
    hdr(response(r, spec::kRcReadRespLast), [](auto& h) { h.opcode = spec::kRcReadRespMiddle; });
  });
}

// ---------------------------------------------------------------- throughput

// Back-to-back packets of one long WRITE: payload beats in vs data beats out.
TEST(ResponderBench, OneMessageStreamsNearOneBeatPerCycle) {
  for (uint8_t pmtu = 1; pmtu <= 5; ++pmtu) {
    Peer p(30 + pmtu);
    TQp& q = p.qps[1];
    q.pmtu = pmtu;
    p.setup(q);
    const uint32_t len = 64 * 1024;
    p.write(q, Peer::kBig, p.mr(Peer::kBig).ctx.iova + 0x1000, len, false);
    RunConfig cfg;
    cfg.in_idle = cfg.out_stall = 0.0;
    cfg.dma.gbytes_per_s = 64.0;
    const Both b = run_both(p, cfg);
    check_all(p, b, ("throughput, pmtu " + std::to_string(128 << pmtu)).c_str());
    auto rate = [&](const RunResult& r) {
      const auto& d = r.out[kWrData];
      if (d.empty()) return 0.0;
      size_t beats = 0;
      for (const Txn& t : d) beats += t.flits.size();
      return static_cast<double>(beats) / static_cast<double>(d.back().last_cycle - d.front().first_cycle + 1);
    };
    std::printf("  pmtu %4u: %u packets, rtl %.2f data beats/cycle, model %.2f\n", 128u << pmtu,
                len / (128u << pmtu), rate(b.rtl), rate(b.model));
    EXPECT_GT(rate(b.rtl), 0.5);
  }
}

TEST(ResponderBench, OneReadStreamsItsResponsesNearOneBeatPerCycle) {
  for (uint8_t pmtu = 1; pmtu <= 5; ++pmtu) {
    Peer p(40 + pmtu);
    TQp& q = p.qps[1];
    q.pmtu = pmtu;
    p.setup(q);
    const uint32_t len = 60 * 1024;
    p.read(q, Peer::kRd, p.mr(Peer::kRd).ctx.iova + 0x100, len);
    RunConfig cfg;
    cfg.in_idle = cfg.out_stall = 0.0;
    cfg.dma.gbytes_per_s = 64.0;
    const Both b = run_both(p, cfg);
    check_all(p, b, ("READ throughput, pmtu " + std::to_string(128 << pmtu)).c_str());
    auto rate = [&](const RunResult& r) {
      const auto& d = r.out[kTxPay];
      if (d.empty()) return 0.0;
      size_t beats = 0;
      for (const Txn& t : d) beats += t.flits.size();
      return static_cast<double>(beats) / static_cast<double>(d.back().last_cycle - d.front().first_cycle + 1);
    };
    std::printf("  READ pmtu %4u: %u responses, rtl %.2f data beats/cycle, model %.2f\n", 128u << pmtu,
                len / (128u << pmtu), rate(b.rtl), rate(b.model));
    EXPECT_GT(rate(b.rtl), 0.5);
  }
}

// The model's timing constants (model/xport/responder.cc) are the RTL's: one
// packet at a time, with no idle cycles or backpressure and a fixed MR
// latency, every output transaction leaves in the same cycle on both --
// atomics (with and without a write), READs (the walker's reads, one every
// other cycle, at most PKT_DEPTH packets read ahead), WRITEs (one page run
// and two), a SEND into a prefetched receive WQE and one whose WQE another
// QP's prefetch displaced (read at the SEND).
TEST(ResponderXcheck, OnePacketAtATimeIsCycleExact) {
  const char* names[] = {"dma_rd_req", "mr_req", "dma_wr_req", "dma_wr_data", "ack", "cq", "read_req", "tx_payload", "read_mr_req"};
  const char* kinds[] = {"FETCH_ADD", "CMP_SWAP (no match)", "64 B READ", "64 B WRITE", "8 KiB READ", "64 B SEND",
                         "4 KiB WRITE", "WRITE over a page end", "64 B SEND, its WQE not prefetched"};
  for (int kind = 0; kind < 9; ++kind) {
    Peer p(21);
    if (kind == 8) p.setup(p.qps[5]);  // (QP 1's entry: qpn mod 4)
    uint64_t va = 0;
    TQp& q = atomic_qp(p, va);
    const MrDef& big = p.mr(Peer::kBig);
    switch (kind) {
      case 0: p.atomic(q, va, big.key(), false, 5, 0); break;
      case 1: p.atomic(q, va, big.key(), true, 0x5555, 12345); break;
      case 2: p.read(q, Peer::kBig, va, 64); break;
      case 3: p.write(q, Peer::kBig, va, 64, false); break;
      case 4: p.read(q, Peer::kBig, va, 8192); break;
      case 5:
        p.post(q, {p.good_wqe(1, 100)});
        p.send(q, 64, false, false);
        break;
      case 6: p.write(q, Peer::kBig, va, 4096, false); break;
      case 7: p.write(q, Peer::kRw, p.mr(Peer::kRw).ctx.iova + 4096 - 100, 300, false); break;
      default: {
        TQp& other = p.qps[5];
        p.post(q, {p.good_wqe(1, 100)});
        p.new_step();  // (once q's prefetch is in, the newest doorbell's WQE takes the slot)
        p.post(other, {p.good_wqe(1, 100)});
        p.send(q, 64, false, false);
        break;
      }
    }
    RunConfig cfg;
    cfg.in_idle = cfg.out_stall = 0;
    cfg.mr_lat_min = cfg.mr_lat_max = 2;
    const Both b = run_both(p, cfg);
    ASSERT_EQ(compare(b.rtl, b.model), "") << kinds[kind];
    size_t n = 0, same = 0;
    for (unsigned port = 0; port < kOuts; ++port) {
      // (a READ response's payload: the RTL streams it as its data comes, the
      // model behind its header; the frame leaves with the header either way)
      if (port == kTxPay && kind == 4) continue;
      for (size_t i = 0; i < b.rtl.out[port].size(); ++i) {
        // (the two doorbells' prefetches: the model takes a QP's set-up,
        // eight qp_cfg here, a few cycles faster; what follows is timed from
        // the SEND)
        if (kind == 8 && port == kRdReq && i < 2) continue;
        ++n;
        same += b.rtl.out[port][i].first_cycle == b.model.out[port][i].first_cycle;
        EXPECT_EQ(b.rtl.out[port][i].first_cycle, b.model.out[port][i].first_cycle)
            << kinds[kind] << ": " << names[port] << " transaction " << i;
      }
    }
    std::printf("%s: %zu of %zu transactions in the same cycle on RTL and model\n", kinds[kind], same, n);
  }
}

// Every output transaction of `b` in the same cycle on RTL and model, timed
// from the first mr_req (the model's clock shifted by their difference,
// returned); the first `skip_rd` dma_rd_reqs are not compared.
int64_t expect_same_cycles(const Both& b, size_t skip_rd) {
  const char* names[] = {"dma_rd_req", "mr_req", "dma_wr_req", "dma_wr_data", "ack", "cq", "read_req", "tx_payload", "read_mr_req"};
  EXPECT_FALSE(b.rtl.out[kMrReq].empty() || b.model.out[kMrReq].empty());
  if (b.rtl.out[kMrReq].empty() || b.model.out[kMrReq].empty()) return 0;
  const int64_t skew = int64_t(b.rtl.out[kMrReq][0].first_cycle) - int64_t(b.model.out[kMrReq][0].first_cycle);
  size_t n = 0, same = 0;
  for (unsigned port = 0; port < kOuts; ++port)
    for (size_t i = 0; i < b.rtl.out[port].size(); ++i) {
      if (port == kRdReq && i < skip_rd) continue;
      ++n;
      const int64_t m = int64_t(b.model.out[port][i].first_cycle) + skew;
      same += int64_t(b.rtl.out[port][i].first_cycle) == m;
      EXPECT_EQ(int64_t(b.rtl.out[port][i].first_cycle), m) << names[port] << " transaction " << i;
    }
  std::printf("%zu of %zu transactions in the same cycle on RTL and model (model clock shifted %lld)\n", same, n,
              static_cast<long long>(skew));
  return skew;
}

// SENDs back to back, each into a receive WQE prefetched: two QPs whose
// WQEs 0 and 1 fill the block's four entries (QP 1 set 1: entries 1, 3;
// QP 2 set 0: 0, 2), a doorbell per WQE, three WQEs each; the third is read as the
// first is taken. With no idle cycles or backpressure, every output
// transaction in the same cycle on RTL and model.
TEST(ResponderXcheck, BackToBackSendsIntoPrefetchedWqesAreCycleExact) {
  Peer p(23);
  for (uint32_t n = 1; n <= 2; ++n) p.setup(p.qps[n]);
  for (int round = 0; round < 3; ++round)
    for (uint32_t n = 1; n <= 2; ++n) p.post(p.qps[n], {p.good_wqe(1, 64)});
  p.new_step();
  for (int round = 0; round < 3; ++round)
    for (uint32_t n = 1; n <= 2; ++n) p.send(p.qps[n], 64, false, false);
  RunConfig cfg;
  cfg.in_idle = cfg.out_stall = 0;
  cfg.mr_lat_min = cfg.mr_lat_max = 2;
  const Both b = run_both(p, cfg);
  ASSERT_EQ(compare(b.rtl, b.model), "");
  // six WQE head reads: four at the doorbells (the third doorbell's WQE is
  // not among the next two), two as WQEs 0 are taken; none by a SEND
  unsigned heads = 0;
  for (const Txn& t : b.rtl.out[kRdReq]) heads += desc_from_flit<spec::DmaRdReq>(t.flits[0]).len == spec::kWqeHead;
  EXPECT_EQ(heads, 6u);
  // (timed from the first SEND's first transaction, its SGE's mr_req; the
  // doorbells' reads, during the set-up, are not compared)
  expect_same_cycles(b, 4);
}

// 64-byte WRITEs on four QPs, back to back (the engine's small-message rate
// on the receive side): every output in the same cycle on RTL and model.
TEST(ResponderXcheck, BackToBackWritesAreCycleExact) {
  Peer p(29);
  for (uint32_t n = 1; n <= 4; ++n) p.setup(p.qps[n]);
  p.new_step();
  for (int round = 0; round < 4; ++round)
    for (uint32_t n = 1; n <= 4; ++n) p.write(p.qps[n], Peer::kRw, p.va_in(Peer::kRw, 64), 64, false);
  RunConfig cfg;
  cfg.in_idle = cfg.out_stall = 0;
  cfg.mr_lat_min = cfg.mr_lat_max = 2;
  const Both b = run_both(p, cfg);
  ASSERT_EQ(compare(b.rtl, b.model), "");
  // (the set-up takes as long on both: no skew allowed, the first rkey
  // check included)
  EXPECT_EQ(expect_same_cycles(b, 0), 0);
}

}  // namespace
}  // namespace rocenic::rsp
