// Whole engines on a hostile wire: two devices exchange thousands of RC
// messages in both directions at once -- SEND, SEND with immediate, RDMA
// WRITE, WRITE with immediate, RDMA READ, 0 bytes to 1 MiB, and the atomics
// CMP_SWAP and FETCH_ADD on counters of the peer -- while every frame may be
// dropped, duplicated, held back behind later ones or have a bit flipped
// (sim/wire/faults.h, seeded). Every work request must complete successfully,
// in order, with the CQE fields its message implies; the memory of both
// sides must equal an image the test builds itself from what it sent, every
// atomic must return the value its counter held just before it (worked out
// one operation after another: retransmitted atomics answer from the
// responder's replay cache, never execute twice); the
// counters must agree with the traffic (each packet accepted exactly once,
// no more parser drops than flipped frames). On cosim, zero divergences.
//
// test_lossy_system runs the model at 10 % drop (4,000 messages) and every
// backend on the full mix of faults with the PSNs crossing 2^24;
// test_lossy_system_long (the same binary, LossySystemLong.*) the acceptance
// figures: 20,000 messages at 10 % drop on the model, 5,000 on cosim at
// 2/1/1/0.5 %. Both are in the default suite.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::TwoHosts;
using test::kAllAccess;

constexpr size_t kHalf = 4 << 20;         // per side one MR: source, destination of the peer's
                                          // SENDs and WRITEs, destination of the own READs
constexpr size_t kBatchBytes = 3 << 20;   // message bytes per direction and batch
constexpr unsigned kBatchMsgs = 24;       // messages per direction and batch
constexpr unsigned kMtuCode = 5, kMtu = 4096;
constexpr size_t kAtomicArea = 3 * kHalf;  // per side: the counters the peer's atomics work on,
constexpr unsigned kCounters = 16;         // then where the own atomics' originals land
constexpr size_t kResultArea = kAtomicArea + 8 * kCounters;

struct Msg {
  WrOpcode op;
  uint32_t len;
  uint64_t src_off, dst_off, id;
  unsigned counter = 0;              // an atomic's: which of the peer's counters,
  uint64_t cmp_add = 0, swap = 0;    // its operands,
  uint64_t orig = 0;                 // and what that counter holds just before it
  bool is_atomic() const { return op == WrOpcode::kAtomicCmpAndSwp || op == WrOpcode::kAtomicFetchAndAdd; }
  bool needs_recv() const { return op != WrOpcode::kRdmaWrite && op != WrOpcode::kRdmaRead && !is_atomic(); }
  bool is_read() const { return op == WrOpcode::kRdmaRead; }
  bool is_write() const { return op == WrOpcode::kRdmaWrite || op == WrOpcode::kRdmaWriteWithImm; }
  // request packets the responder accepts (a READ: its one request)
  uint32_t packets() const { return len == 0 || is_read() ? 1 : (len + kMtu - 1) / kMtu; }
};

struct Config {
  std::string backend;
  unsigned messages = 0;  // both directions together
  wire::FaultConfig faults;
  uint32_t sq_psn_a = 100, sq_psn_b = 200;
  uint64_t seed = 1;
};

// 0 B to 1 MiB: mostly small, some medium, a few large.
uint32_t pick_len(std::mt19937_64& r) {
  const unsigned k = static_cast<unsigned>(r() % 100);
  if (k < 5) return 0;
  if (k < 70) return static_cast<uint32_t>(r() % 2049);
  if (k < 98) return static_cast<uint32_t>(2048 + r() % (64 * 1024 - 2047));
  return k == 99 ? (1u << 20) : static_cast<uint32_t>(64 * 1024 + r() % ((1u << 20) - 64 * 1024));
}

// One direction of traffic: from End s (host hs) to End d (host hd).
struct Direction {
  host::EngineHost& hs;
  End& s;
  host::EngineHost& hd;
  End& d;
  std::vector<uint8_t> image;  // what d's destination half must hold
  std::vector<Msg> batch;
  uint64_t next_id = 1, packets = 0, bytes = 0;
  unsigned done = 0;
  std::vector<uint8_t> read_image = {};  // what s's READ area must hold (READs copy d's source half there)
  uint64_t counters[kCounters] = {};     // what d's counters hold once every atomic posted so far ran

  void init_counters(std::mt19937_64& r) {
    for (uint64_t& c : counters) c = r();
    std::memcpy(d.buf->data() + kAtomicArea, counters, sizeof counters);
  }
  uint8_t* src() const { return s.buf->data(); }
  uint8_t* dst() const { return d.buf->data() + kHalf; }
  uint64_t dst_addr() const { return d.buf->addr() + kHalf; }
  uint8_t* rd() const { return s.buf->data() + 2 * kHalf; }
  uint64_t rd_addr() const { return s.buf->addr() + 2 * kHalf; }

  void plan(std::mt19937_64& r, unsigned left) {
    batch.clear();
    image.assign(kHalf, 0);
    std::memset(dst(), 0, kHalf);
    read_image.assign(kHalf, 0);
    std::memset(rd(), 0, kHalf);
    uint64_t cursor = 0, rcursor = 0;
    std::memset(s.buf->data() + kResultArea, 0, 8 * kBatchMsgs);
    static const WrOpcode kOps[] = {WrOpcode::kSend,           WrOpcode::kSendWithImm,     WrOpcode::kRdmaWrite,
                                    WrOpcode::kRdmaWriteWithImm, WrOpcode::kRdmaRead,      WrOpcode::kAtomicCmpAndSwp,
                                    WrOpcode::kAtomicFetchAndAdd};
    while (batch.size() < kBatchMsgs && batch.size() < left) {
      Msg m;
      m.op = kOps[r() % 7];
      if (m.is_atomic()) {
        // (a CMP_SWAP that matches two times in three)
        m.len = 8;
        m.counter = static_cast<unsigned>(r() % kCounters);
        uint64_t& c = counters[m.counter];
        m.orig = c;
        const bool cas = m.op == WrOpcode::kAtomicCmpAndSwp, match = r() % 3 != 0;
        m.cmp_add = cas ? (match ? c : c ^ 0x8000) : r();
        m.swap = cas ? r() : 0;
        c = cas ? (match ? m.swap : c) : c + m.cmp_add;
        m.src_off = m.dst_off = 0;
        m.id = next_id++;
        batch.push_back(m);
        continue;
      }
      m.len = pick_len(r);
      uint64_t& at = m.is_read() ? rcursor : cursor;
      if (at + m.len > kBatchBytes) break;
      m.src_off = r() % (kHalf - m.len + 1);
      m.dst_off = at;
      at = (at + m.len + 63) & ~uint64_t{63};
      m.id = next_id++;
      batch.push_back(m);
    }
  }
  void post() {
    for (size_t i = 0; i < batch.size(); ++i) {
      const Msg& m = batch[i];
      packets += m.packets();
      bytes += m.len;
      if (m.is_atomic()) {  // its original lands in s's result slot i
        spec::SendWqe w = test::send_wqe(m.op, m.id, 8, d.buf->addr() + kAtomicArea + 8 * m.counter, d.mr.key);
        w.atomic_cmp_add = m.cmp_add;
        w.atomic_swap = m.swap;
        hs.post_send(*s.qp, w, {{s.buf->addr() + kResultArea + 8 * i, 8, s.mr.key}});
        continue;
      }
      if (m.is_read()) {  // s reads d's source half into its READ area
        std::memcpy(read_image.data() + m.dst_off, d.buf->data() + m.src_off, m.len);
        std::vector<Sge> sg;
        if (m.len) sg.push_back({rd_addr() + m.dst_off, m.len, s.mr.key});
        hs.post_send(*s.qp, test::send_wqe(m.op, m.id, m.len, d.buf->addr() + m.src_off, d.mr.key), sg);
        continue;
      }
      std::memcpy(image.data() + m.dst_off, src() + m.src_off, m.len);
      if (m.needs_recv()) {
        std::vector<Sge> sg;  // (WRITE with immediate: a receive WQE without buffers)
        if (m.op != WrOpcode::kRdmaWriteWithImm) sg.push_back({dst_addr() + m.dst_off, m.len, d.mr.key});
        hd.post_recv(*d.qp, 1000000 + m.id, sg);
      }
      std::vector<Sge> sg;
      if (m.len) sg.push_back({s.buf->addr() + m.src_off, m.len, s.mr.key});
      hs.post_send(*s.qp, test::send_wqe(m.op, m.id, m.len, dst_addr() + m.dst_off, d.mr.key), sg);
    }
  }
  // Every WR of the batch completed as it should, and the destination holds the image.
  void check() {
    const auto sc = hs.poll(*s.scq);
    ASSERT_EQ(sc.size(), batch.size()) << "send completions";
    const auto rc = hd.poll(*d.rcq);
    size_t k = 0;
    for (size_t i = 0; i < batch.size(); ++i) {
      const Msg& m = batch[i];
      ASSERT_EQ(sc[i].status, 0) << "wr " << m.id << ": " << to_string(static_cast<WcStatus>(sc[i].status));
      ASSERT_EQ(sc[i].wr_id, m.id);
      ASSERT_EQ(sc[i].opcode, static_cast<uint8_t>(m.is_read()    ? WcOpcode::kRdmaRead
                                                   : m.is_write() ? WcOpcode::kRdmaWrite
                                                   : m.op == WrOpcode::kAtomicCmpAndSwp ? WcOpcode::kCompSwap
                                                   : m.op == WrOpcode::kAtomicFetchAndAdd ? WcOpcode::kFetchAdd
                                                                  : WcOpcode::kSend));
      if (m.is_atomic()) {
        uint64_t got;
        std::memcpy(&got, s.buf->data() + kResultArea + 8 * i, 8);
        ASSERT_EQ(sc[i].byte_len, 8u) << "wr " << m.id;
        ASSERT_EQ(got, m.orig) << "the original of atomic wr " << m.id << " (counter " << m.counter << ")";
        continue;
      }
      if (m.is_read()) {
        ASSERT_EQ(sc[i].byte_len, m.len) << "wr " << m.id;
      }
      if (!m.needs_recv()) continue;
      ASSERT_LT(k, rc.size()) << "receive completions";
      const Cqe& c = rc[k++];
      ASSERT_EQ(c.status, 0) << "recv of wr " << m.id << ": " << to_string(static_cast<WcStatus>(c.status));
      ASSERT_EQ(c.wr_id, 1000000 + m.id);
      ASSERT_EQ(c.byte_len, m.len) << "wr " << m.id;
      const bool imm = m.op != WrOpcode::kSend;
      ASSERT_EQ(c.wc_flags & 2, imm ? 2 : 0);
      if (imm) {
        ASSERT_EQ(c.imm, 0x11223344u);
      }
    }
    ASSERT_EQ(k, rc.size()) << "a receive completed twice";
    ASSERT_EQ(0, std::memcmp(dst(), image.data(), kHalf)) << "destination memory";
    ASSERT_EQ(0, std::memcmp(rd(), read_image.data(), kHalf)) << "READ destination memory";
    ASSERT_EQ(0, std::memcmp(d.buf->data() + kAtomicArea, counters, sizeof counters)) << "the counters";
    done += static_cast<unsigned>(batch.size());
  }
};

// Every transport counter of both sides, for a failure's report.
std::string counters(host::EngineHost& a, host::EngineHost& b) {
  std::string out;
  for (unsigned i = 1; i < kXportCntCount; ++i) {
    const auto c = static_cast<XportCnt>(i);
    out += std::string("  ") + to_string(c) + " " + std::to_string(a.counter(c)) + " / " + std::to_string(b.counter(c)) + "\n";
  }
  return out;
}

uint32_t parser_drops(host::EngineHost& h) {
  uint32_t n = 0;
  for (unsigned r = 1; r < kDropCount; ++r) n += h.csr(kCsrRxDrop + 4 * r);
  return n;
}

void run_system(const Config& cfg) {
  TwoHosts w(cfg.backend, kMtuCode);
  End a, b;
  a.make(*w.a, 3 * kHalf + 4096);
  b.make(*w.b, 3 * kHalf + 4096);
  test::fill(*a.buf, kHalf, static_cast<uint32_t>(cfg.seed) + 11);
  test::fill(*b.buf, kHalf, static_cast<uint32_t>(cfg.seed) + 12);
  test::connect_pair(*w.a, a, test::kMacA, test::kIpA, *w.b, b, test::kMacB, test::kIpB, kMtuCode,
                     [&](host::Path& pa, host::Path& pb) {
                       pa.access = pb.access = kAllAccess;  // (with REMOTE_ATOMIC)
                       pa.sq_psn = pb.rq_psn = cfg.sq_psn_a;
                       pb.sq_psn = pa.rq_psn = cfg.sq_psn_b;
                     });
  wire::FaultConfig fa = cfg.faults, fb = cfg.faults;
  fa.seed = cfg.seed * 2 + 1;
  fb.seed = cfg.seed * 2 + 2;
  w.faults(fa, fb);
  Direction ab{*w.a, a, *w.b, b, {}, {}};
  Direction ba{*w.b, b, *w.a, a, {}, {}};
  std::mt19937_64 r(cfg.seed);
  ab.init_counters(r);
  ba.init_counters(r);
  const unsigned per_dir = cfg.messages / 2;
  unsigned batches = 0;
  while (ab.done < per_dir || ba.done < per_dir) {
    ab.plan(r, per_dir - ab.done);
    ba.plan(r, per_dir - ba.done);
    ab.post();
    ba.post();
    SCOPED_TRACE("batch " + std::to_string(batches));
    w.settle(true, 100000);
    ab.check();
    ba.check();
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "counters (a / b):\n" << counters(*w.a, *w.b) << "timers " << w.da->timer_at() << " / "
                    << w.db->timer_at() << ", cycles " << w.da->cycles() << " / " << w.db->cycles();
      return;
    }
    ++batches;
  }
  // Counters the traffic implies: each packet accepted exactly once; the
  // parser drops (or, with the UDP port or IP version hit, passes to the
  // host's Ethernet path) at most the flipped frames that arrived, and all
  // but the few whose flip lands where no check looks (the UDP checksum,
  // which RoCEv2 leaves 0 and the ICRC masks).
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), ab.packets);
  EXPECT_EQ(w.a->counter(XportCnt::kRxPkts), ba.packets);
  const auto& st_a = w.inject[0]->stats();
  const auto& st_b = w.inject[1]->stats();
  const uint64_t caught_b = parser_drops(*w.b) + w.b->csr(kCsrRxBypass);
  const uint64_t caught_a = parser_drops(*w.a) + w.a->csr(kCsrRxBypass);
  EXPECT_LE(caught_b, st_a.corrupted_out);
  EXPECT_LE(caught_a, st_b.corrupted_out);
  EXPECT_GE(caught_b + 4, st_a.corrupted_out * 9 / 10);
  EXPECT_GE(caught_a + 4, st_b.corrupted_out * 9 / 10);
  if (cfg.faults.loss > 0) {
    EXPECT_GT(w.a->counter(XportCnt::kRetransmits), 0u);
    EXPECT_GT(w.b->counter(XportCnt::kPacketSeqErr), 0u);
  }
  if (cfg.faults.dup > 0) {
    EXPECT_GT(w.b->counter(XportCnt::kDuplicateRequest), 0u);
  }
  EXPECT_EQ(w.da->divergence(), "");
  EXPECT_EQ(w.db->divergence(), "");
  const uint64_t psns = ab.packets + (cfg.sq_psn_a & 0xFFFFFF);
  std::printf("%s: %u messages (%llu + %llu bytes, %llu + %llu packets) in %u batches%s; a->b faults: %llu dropped, "
              "%llu duplicated, %llu reordered, %llu flipped; retransmits %u + %u, timeouts %u + %u, PSN seq NAKs "
              "%u + %u, duplicates %u + %u, parser drops %u + %u; cycles %llu / %llu%s\n",
              cfg.backend.c_str(), ab.done + ba.done, static_cast<unsigned long long>(ab.bytes),
              static_cast<unsigned long long>(ba.bytes), static_cast<unsigned long long>(ab.packets),
              static_cast<unsigned long long>(ba.packets), batches, psns > 0xFFFFFF ? ", PSNs crossed 2^24" : "",
              static_cast<unsigned long long>(st_a.dropped), static_cast<unsigned long long>(st_a.duplicated),
              static_cast<unsigned long long>(st_a.reordered), static_cast<unsigned long long>(st_a.corrupted),
              w.a->counter(XportCnt::kRetransmits), w.b->counter(XportCnt::kRetransmits),
              w.a->counter(XportCnt::kLocalAckTimeoutErr), w.b->counter(XportCnt::kLocalAckTimeoutErr),
              w.a->counter(XportCnt::kPacketSeqErr), w.b->counter(XportCnt::kPacketSeqErr),
              w.b->counter(XportCnt::kDuplicateRequest), w.a->counter(XportCnt::kDuplicateRequest),
              parser_drops(*w.b), parser_drops(*w.a), static_cast<unsigned long long>(w.da->cycles()),
              static_cast<unsigned long long>(w.db->cycles()),
              cfg.backend == "cosim" ? (", " + std::to_string(w.da->compared() + w.db->compared()) +
                                        " transactions compared, 0 divergences")
                                           .c_str()
                                     : "");
}

wire::FaultConfig hostile() {
  wire::FaultConfig f;
  f.loss = 0.02;
  f.dup = 0.01;
  f.reorder = 0.01;
  f.corrupt = 0.005;
  return f;
}
wire::FaultConfig drop(double p) {
  wire::FaultConfig f;
  f.loss = p;
  return f;
}

// ---- the default suite

TEST(LossySystem, ModelAtTenPercentDrop) { run_system({"model", 4000, drop(0.10), 100, 200, 1}); }

class HostileWire : public ::testing::TestWithParam<std::string> {};
// Every backend on the full mix of faults, both PSNs starting just below
// 2^24 so that they wrap while frames are lost.
TEST_P(HostileWire, MixedTrafficCrossesThePsnWrap) {
  const unsigned n = GetParam() == "model" ? 2000 : 300;
  run_system({GetParam(), n, hostile(), 0xFFFF80, 0xFFFFF0, 2});
}
INSTANTIATE_TEST_SUITE_P(Backends, HostileWire, ::testing::Values("model", "rtl", "cosim"));

// ---- the acceptance runs (ctest -L accept)

TEST(LossySystemLong, ModelTwentyThousandMessagesAtTenPercentDrop) {
  run_system({"model", 20000, drop(0.10), 0xFFF000, 300, 3});
}
TEST(LossySystemLong, CosimFiveThousandMessagesOnAHostileWire) {
  run_system({"cosim", 5000, hostile(), 0xFFF800, 400, 4});
}

}  // namespace
}  // namespace rocenic
