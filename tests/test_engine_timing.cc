// Cycle fidelity as the host sees it: a burst of posts on several QPs, each
// post's doorbell write ending in the same cycle on the RTL engine and on
// the model. While the requester works, its write-back cycle takes no
// doorbell and the CSR's doorbell register clears only the cycle after a
// doorbell was taken, so some of the host's doorbell writes wait a cycle; a
// model that took doorbells then ran ahead of the RTL by a cycle every other
// post (engine_bench's inline WRITE row on 1,024 QPs was 2.3 % fast).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::TwoHosts;

constexpr unsigned kQps = 32, kPerQp = 8, kLen = 64;

// A's cycle (from the first post) as each post's last CSR write ended:
// inline WRITEs of kLen bytes, round robin over the QPs (the requester is
// busy from the first fetched WQE's arrival on, ~130 cycles in); `bf`:
// every fourth WQE written through the SQ_BF window with its doorbell.
std::vector<uint64_t> post_cycles(const std::string& backend, bool bf) {
  TwoHosts w(backend);
  std::vector<End> a(kQps), b(kQps);
  for (unsigned q = 0; q < kQps; ++q) {
    a[q].make(*w.a, 4096);
    b[q].make(*w.b, 4096);
    test::connect_pair(*w.a, a[q], test::kMacA, test::kIpA, *w.b, b[q], test::kMacB, test::kIpB);
  }
  w.settle();
  const uint64_t start = w.da->cycles();
  std::vector<uint64_t> at;
  for (unsigned m = 0; m < kPerQp; ++m)
    for (unsigned q = 0; q < kQps; ++q) {
      std::vector<uint8_t> data(kLen);
      for (unsigned i = 0; i < kLen; ++i) data[i] = static_cast<uint8_t>(q * 31 + m * 7 + i);
      SendWqe x = test::send_wqe(WrOpcode::kRdmaWrite, m, kLen, b[q].buf->addr() + m * kLen, b[q].mr.key);
      x.flags |= 4;  // inline
      w.a->post_send(*a[q].qp, x, {}, data, bf && at.size() % 4 == 3);
      at.push_back(w.da->cycles() - start);
    }
  w.settle();
  for (unsigned q = 0; q < kQps; ++q) {
    const auto cqes = w.a->poll(*a[q].scq);
    EXPECT_EQ(cqes.size(), kPerQp) << backend << " QP " << q;
    for (const auto& c : cqes) EXPECT_EQ(c.status, 0) << backend;
    size_t wrong = 0;
    for (unsigned m = 0; m < kPerQp; ++m)
      for (unsigned i = 0; i < kLen; ++i) wrong += b[q].buf->data()[m * kLen + i] != static_cast<uint8_t>(q * 31 + m * 7 + i);
    EXPECT_EQ(wrong, 0u) << backend << ": bytes of QP " << q << "'s WRITEs not as sent";
  }
  return at;
}

void expect_same_post_cycles(bool bf) {
  const auto rtl = post_cycles("rtl", bf), model = post_cycles("model", bf);
  ASSERT_EQ(rtl.size(), model.size());
  size_t same = 0;
  for (size_t i = 0; i < rtl.size(); ++i) same += rtl[i] == model[i];
  // The burst must meet a busy requester: of the plain doorbell posts, some
  // took longer than the quickest (the idle engine's) did. (An SQ_BF post's
  // writes, 50 cycles of them, give the requester time to take the doorbell
  // before; the SQ_BF run checks that the window's words and doorbell keep
  // the RTL's cycles among doorbells that wait.)
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t i = 1; i < rtl.size(); ++i) {
    if (bf && i % 4 == 3) continue;
    lo = std::min(lo, rtl[i] - rtl[i - 1]);
    hi = std::max(hi, rtl[i] - rtl[i - 1]);
  }
  std::printf("%s: %zu of %zu posts ended in the same cycle (rtl %llu, model %llu cycles; on the RTL a doorbell post took %llu..%llu)\n",
              bf ? "SQ_BF" : "doorbell", same, rtl.size(), static_cast<unsigned long long>(rtl.back()),
              static_cast<unsigned long long>(model.back()),
              static_cast<unsigned long long>(lo), static_cast<unsigned long long>(hi));
  EXPECT_GT(hi, lo) << "no post waited for the requester: the test no longer covers the wait";
  EXPECT_EQ(rtl, model);
}

TEST(EngineTiming, DoorbellWritesWaitForTheRequesterAlikeOnRtlAndModel) { expect_same_post_cycles(false); }
TEST(EngineTiming, SqBfPostsAmongWaitingDoorbellsKeepTheRtlsCycles) { expect_same_post_cycles(true); }

}  // namespace
}  // namespace rocenic
