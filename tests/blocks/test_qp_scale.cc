// The pieces whose cost grows with MAX_QP, at sizes past the engine's
// default (issue 11: 16K QPs by default, 65536 by parameter):
//   roce_cmd_ffz, the command processor's lowest-free finder, with the third
//     step it takes past 2048 entries (LAT 3): over 4096 entries (128
//     chunks of 32 in two groups of 64), over 65536 (32 groups, the most)
//     and over one group (64 entries);
//   rr_first, the requester's round-robin pick, over 16384 QPs;
//   qp_flags, per-QP flags in LUT-RAM with a reset sweep, at 16384 QPs of 8
//     flags, 2048 of 4 and 2 of 1;
//   qp_pick, the round-robin pick over a bit per QP in LUT-RAM, at 16384
//     QPs with one write port and four, and at 32 with four.
// Each against a plain loop over the bitmap, on random and edge-case vectors.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "Vffz_4096.h"
#include "Vffz_65536.h"
#include "Vffz_64.h"
#include "Vqp_flags_16k.h"
#include "Vqp_flags_2.h"
#include "Vqp_flags_2k.h"
#include "Vqp_pick_16k.h"
#include "Vqp_pick_16k_k4.h"
#include "Vqp_pick_32_k4.h"
#include "Vrr_first_16k.h"
#include "verilated.h"

namespace rocenic {
namespace {

using Bits = std::vector<bool>;

// Bit i of a Verilated port: wide ports are arrays of 32-bit words, narrow ones integers.
template <typename P>
void put_bits(P& port, const Bits& v) {
  if constexpr (std::is_integral_v<P>) {
    port = 0;
    for (size_t i = 0; i < v.size(); i++)
      if (v[i]) port |= P{1} << i;
  } else {
    for (size_t w = 0; w * 32 < v.size(); w++) port[w] = 0;
    for (size_t i = 0; i < v.size(); i++)
      if (v[i]) port[i / 32] |= 1u << (i % 32);
  }
}

// The reference: the lowest i with !used[i], or -1.
long lowest_clear(const Bits& used) {
  for (size_t i = 0; i < used.size(); i++)
    if (!used[i]) return static_cast<long>(i);
  return -1;
}

// Bitmaps that reach every step's corners: all used, one hole at the first,
// last and random places (chunk and group edges among them), a few holes,
// half full, all free.
std::vector<Bits> bitmaps(size_t n, std::mt19937& rng) {
  std::vector<Bits> out;
  out.push_back(Bits(n, true));
  out.push_back(Bits(n, false));
  std::vector<size_t> holes = {0, 1, 31, 32, 63, 64, n / 2 - 1, n / 2, n - 33, n - 32, n - 2, n - 1};
  if (n > 2048) holes.insert(holes.end(), {2047, 2048, 2049, n - 2049});
  for (size_t h : holes) {
    if (h >= n) continue;
    Bits b(n, true);
    b[h] = false;
    out.push_back(b);
  }
  for (int k = 0; k < 300; k++) {
    Bits b(n, true);
    const int nh = 1 + static_cast<int>(rng() % 4);
    for (int j = 0; j < nh; j++) b[rng() % n] = false;
    out.push_back(b);
  }
  for (int k = 0; k < 50; k++) {
    Bits b(n);
    for (size_t i = 0; i < n; i++) b[i] = (rng() % 8) != 0;
    out.push_back(b);
  }
  return out;
}

template <typename V>
void check_ffz(size_t n) {
  auto ctx = std::make_unique<VerilatedContext>();
  V top(ctx.get());
  std::mt19937 rng(static_cast<unsigned>(n));
  const int lat = 3;
  int checked = 0;
  for (const Bits& b : bitmaps(n, rng)) {
    put_bits(top.used, b);
    // the answer describes the bitmap of LAT cycles before: hold it that long
    for (int c = 0; c < lat; c++) {
      top.clk = 0;
      top.eval();
      top.clk = 1;
      top.eval();
    }
    const long want = lowest_clear(b);
    ASSERT_EQ(top.found != 0, want >= 0) << "n " << n << " bitmap #" << checked;
    if (want >= 0) {
      ASSERT_EQ(static_cast<long>(top.idx), want) << "n " << n << " bitmap #" << checked;
    }
    checked++;
  }
  EXPECT_GT(checked, 350);
}

TEST(QpScale, LowestFreeOver4096EntriesInThreeSteps) { check_ffz<Vffz_4096>(4096); }
TEST(QpScale, LowestFreeOverOneGroupInThreeSteps) { check_ffz<Vffz_64>(64); }
TEST(QpScale, LowestFreeOver65536EntriesInThreeSteps) { check_ffz<Vffz_65536>(65536); }

// rr_first over 16384: the first set bit at or after `from`, else the first at all.
TEST(QpScale, RoundRobinPickOver16384Qps) {
  constexpr size_t kN = 16384;
  auto ctx = std::make_unique<VerilatedContext>();
  Vrr_first_16k top(ctx.get());
  std::mt19937 rng(7);
  for (int k = 0; k < 400; k++) {
    Bits req(kN);
    const int kind = k % 4;
    if (kind == 0) {
      for (int j = 0; j < 3; j++) req[rng() % kN] = true;           // a few QPs
    } else if (kind == 1) {
      for (size_t i = 0; i < kN; i++) req[i] = (rng() % 64) == 0;   // sparse
    } else if (kind == 2) {
      req[(k * 4099) % kN] = true;                                  // exactly one
    }                                                               // kind 3: none
    if (k == 1) req[kN - 1] = true;
    const size_t from = (k % 5 == 0) ? kN - 1 : rng() % kN;
    put_bits(top.req, req);
    top.from = static_cast<uint32_t>(from);
    top.eval();
    long want = -1;
    for (size_t i = from; i < kN && want < 0; i++)
      if (req[i]) want = static_cast<long>(i);
    for (size_t i = 0; i < from && want < 0; i++)
      if (req[i]) want = static_cast<long>(i);
    ASSERT_EQ(top.any != 0, want >= 0) << "case " << k;
    if (want >= 0) {
      ASSERT_EQ(static_cast<long>(top.idx), want) << "case " << k << " from " << from;
    }
  }
}

// One rising edge of a Verilated top's clk.
template <typename V>
void clock_edge(V& top) {
  top.clk = 0;
  top.eval();
  top.clk = 1;
  top.eval();
}

// qp_flags against a plain array: the sweep after reset clears every QP's
// flags (busy meanwhile: reads 0, writes dropped), a write changes only the
// bits in its mask, a read in the write's cycle sees the old value, and the
// read ports are independent.
template <typename V>
void check_qp_flags(unsigned n, unsigned d) {
  auto ctx = std::make_unique<VerilatedContext>();
  V top(ctx.get());
  const unsigned qw = static_cast<unsigned>(__builtin_ctz(n));
  const unsigned words = n * d < 64 ? 1 : n * d / 64;
  const uint32_t all = (1u << d) - 1;
  std::vector<uint32_t> want(n, 0);
  std::mt19937 rng(n * 31 + d);
  auto tick = [&] { clock_edge(top); };
  auto set_read = [&](unsigned port, unsigned qpn) {
    top.ridx = (top.ridx & ~(((1u << qw) - 1) << (port * qw))) | (qpn << (port * qw));
  };
  auto read = [&](unsigned port) { return (top.rdata >> (port * d)) & all; };
  // fill every word with ones before any reset (what a RAM may hold after a soft reset)
  top.rst = 0;
  top.we = 1;
  top.wmask = all;
  top.wdata = all;
  for (unsigned q = 0; q < n; q++) {
    top.widx = q;
    tick();
  }
  top.we = 0;
  top.widx = 0;
  top.ridx = 0;
  top.eval();
  ASSERT_EQ(read(0), all) << "n " << n << ": written before the reset";
  // reset for one cycle: the sweep runs on, reads 0 and writes dropped until it ends
  top.rst = 1;
  tick();
  top.rst = 0;
  unsigned busy_cycles = 1;
  while (top.eval(), top.busy) {
    set_read(0, rng() % n);
    top.we = 1;
    top.widx = rng() % n;
    top.eval();
    ASSERT_EQ(read(0), 0u) << "n " << n << ": a read while the sweep runs";
    tick();
    ASSERT_LT(++busy_cycles, words + 3) << "n " << n << ": the sweep does not end";
  }
  top.we = 0;
  EXPECT_EQ(busy_cycles, words + 1) << "n " << n << ": the reset cycle, then one word a cycle";
  for (unsigned q = 0; q < n; q++) {
    set_read(1, q);
    top.eval();
    ASSERT_EQ(read(1), 0u) << "n " << n << ": QP " << q << " after the sweep";
  }
  // random writes (masked) and reads, near QPs sharing words
  for (int k = 0; k < 20000; k++) {
    const unsigned base = rng() % n;
    const unsigned wq = (k % 3 == 0) ? base : (base ^ (rng() % 8)) % n;
    const unsigned r0 = (k % 4 == 0) ? wq : (base ^ (rng() % 16)) % n;
    const unsigned r1 = rng() % n;
    const bool we = rng() % 2;
    const uint32_t mask = rng() & all, data = rng() & all;
    top.we = we;
    top.widx = wq;
    top.wmask = mask;
    top.wdata = data;
    set_read(0, r0);
    set_read(1, r1);
    top.eval();
    ASSERT_EQ(read(0), want[r0]) << "n " << n << " step " << k << " QP " << r0;
    ASSERT_EQ(read(1), want[r1]) << "n " << n << " step " << k << " QP " << r1;
    tick();
    if (we) want[wq] = (want[wq] & ~mask) | (data & mask);
  }
  top.we = 0;
  for (unsigned q = 0; q < n; q++) {
    set_read(0, q);
    top.eval();
    ASSERT_EQ(read(0), want[q]) << "n " << n << ": QP " << q << " at the end";
  }
}

TEST(QpScale, FlagsInLutRamFor16384QpsOfEightFlags) { check_qp_flags<Vqp_flags_16k>(16384, 8); }
TEST(QpScale, FlagsInLutRamFor2048QpsOfFourFlags) { check_qp_flags<Vqp_flags_2k>(2048, 4); }
TEST(QpScale, FlagsInLutRamForTwoQpsOfOneFlag) { check_qp_flags<Vqp_flags_2>(2, 1); }

// qp_pick against a flat vector and rr_first's rule (the first set bit at or
// after `from`, else the first at all, never `skip`): random writes on K
// ports (several in one word, the same bit from two ports with one value),
// sparse and dense vectors, `from` and `skip` at word edges; the sweep after
// a reset clears what was set.
template <typename V>
void check_qp_pick(unsigned n, unsigned k) {
  auto ctx = std::make_unique<VerilatedContext>();
  V top(ctx.get());
  const unsigned qw = static_cast<unsigned>(__builtin_ctz(n));
  std::vector<bool> want(n, false);
  std::mt19937 rng(n * 7 + k);
  auto tick = [&] { clock_edge(top); };
  auto reset = [&] {
    top.rst = 1;
    tick();
    top.rst = 0;
    top.we = 0;
    for (int c = 0; top.eval(), top.busy; c++) {
      ASSERT_LT(c, static_cast<int>(n / 64 + 4)) << "n " << n << ": the sweep does not end";
      ASSERT_FALSE(top.any) << "n " << n << ": a pick while the sweep runs";
      tick();
    }
    std::fill(want.begin(), want.end(), false);
  };
  auto expect_pick = [&](unsigned from, bool skip_en, unsigned skip, const std::string& what) {
    top.from = from;
    top.skip_en = skip_en;
    top.skip = skip;
    top.eval();
    long w = -1;
    for (unsigned i = 0; i < n && w < 0; i++) {
      const unsigned q = (from + i) % n;
      if (want[q] && !(skip_en && q == skip)) w = q;
    }
    // (past the wrap rr_first takes the lowest, the same as walking on from 0)
    ASSERT_EQ(top.any != 0, w >= 0) << what;
    if (w >= 0) {
      ASSERT_EQ(static_cast<long>(top.idx), w) << what << " from " << from << " skip " << (skip_en ? long(skip) : -1L);
    }
  };
  reset();
  for (int step = 0; step < 6000; step++) {
    // density changes in phases: sparse, dense, a handful
    const int phase = (step / 500) % 3;
    uint32_t we = 0, wval = 0;
    uint64_t widx = 0;
    std::vector<unsigned> idx(k);
    std::vector<bool> val(k);
    const unsigned base = rng() % n;
    for (unsigned p = 0; p < k; p++) {
      const bool same_word = rng() % 3 == 0;
      idx[p] = same_word ? (base & ~63u) % n + rng() % std::min(n, 64u) : rng() % n;
      if (phase == 2) idx[p] = (rng() % 8) * (n / 8) + rng() % 2;  // a handful of QPs
      val[p] = phase == 1 ? rng() % 4 != 0 : rng() % 4 == 0;
      if (rng() % 3 == 0) continue;
      we |= 1u << p;
    }
    // two ports at one bit write one value (the lower port's)
    for (unsigned p = 0; p < k; p++)
      for (unsigned j = 0; j < p; j++)
        if ((we >> j & 1) && (we >> p & 1) && idx[j] == idx[p]) val[p] = val[j];
    for (unsigned p = 0; p < k; p++) {
      widx |= uint64_t{idx[p]} << (p * qw);
      if (val[p]) wval |= 1u << p;
    }
    top.we = we;
    top.widx = widx;
    top.wval = wval;
    const unsigned from = (step % 7 == 0) ? (rng() % (n / 64 + 1)) * 64 % n : (step % 11 == 0) ? n - 1 : rng() % n;
    const bool skip_en = rng() % 2;
    // skip near the answer often: the pick's own QP, its word's neighbours
    unsigned skip = rng() % n;
    if (step % 3 == 0) {
      for (unsigned i = 0; i < n; i++)
        if (want[(from + i) % n]) {
          skip = (from + i) % n;
          break;
        }
    }
    expect_pick(from, skip_en, skip, "n " + std::to_string(n) + " k " + std::to_string(k) + " step " + std::to_string(step));
    tick();
    for (unsigned p = 0; p < k; p++)
      if (we >> p & 1) want[idx[p]] = val[p];
  }
  top.we = 0;
  // every bit set: the pick is `from` itself, or the next after a skipped one
  for (unsigned q = 0; q < n; q++) {
    top.we = 1;
    top.widx = q;
    top.wval = 1;
    tick();
    want[q] = true;
  }
  top.we = 0;
  for (unsigned f : {0u, 1u, 63u % n, n - 1, n / 2}) {
    expect_pick(f, true, f, "all set, skip from " + std::to_string(f));
    expect_pick(f, false, 0, "all set " + std::to_string(f));
  }
  reset();
  expect_pick(0, false, 0, "after the second reset");
}

TEST(QpScale, RoundRobinPickInLutRamOver16384QpsOneWritePort) { check_qp_pick<Vqp_pick_16k>(16384, 1); }
TEST(QpScale, RoundRobinPickInLutRamOver16384QpsFourWritePorts) { check_qp_pick<Vqp_pick_16k_k4>(16384, 4); }
TEST(QpScale, RoundRobinPickInLutRamOver32QpsFourWritePorts) { check_qp_pick<Vqp_pick_32_k4>(32, 4); }

}  // namespace
}  // namespace rocenic
