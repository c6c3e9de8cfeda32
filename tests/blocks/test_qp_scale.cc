// The pieces whose cost grows with MAX_QP, at sizes past the engine's
// default (issue 11: 16K QPs by default, 65536 by parameter):
//   roce_cmd_ffz, the command processor's lowest-free finder, with the third
//     step it takes past 2048 entries (LAT 3): over 4096 entries (128
//     chunks of 32 in two groups of 64), over 65536 (32 groups, the most)
//     and over one group (64 entries);
//   rr_first, the requester's round-robin pick, over 16384 QPs.
// Each against a plain loop over the bitmap, on random and edge-case vectors.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#include "Vffz_4096.h"
#include "Vffz_65536.h"
#include "Vffz_64.h"
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

}  // namespace
}  // namespace rocenic
