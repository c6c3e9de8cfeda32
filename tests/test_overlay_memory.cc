// OverlayMemory, the model's private view of host memory in cosim: writes
// stay in the overlay (real memory untouched), reads merge overlay over real
// memory, forget() hands bytes back to real memory -- across page edges.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "dma/host_memory.h"
#include "dma/overlay_memory.h"

namespace rocenic {
namespace {

constexpr uint64_t kBase = 0x10000;

struct Fixture {
  SparseMemory real;
  OverlayMemory over{real};
  Fixture() {
    real.allow(kBase, 4 * 4096);
    over.allow(kBase, 4 * 4096);
    std::vector<uint8_t> pattern(4 * 4096);
    std::iota(pattern.begin(), pattern.end(), uint8_t{0});
    EXPECT_TRUE(real.write(kBase, pattern.data(), pattern.size()));
  }
  std::vector<uint8_t> read_over(uint64_t a, size_t n) {
    std::vector<uint8_t> v(n);
    EXPECT_TRUE(over.read(a, v.data(), n));
    return v;
  }
  std::vector<uint8_t> read_real(uint64_t a, size_t n) {
    std::vector<uint8_t> v(n);
    EXPECT_TRUE(real.read(a, v.data(), n));
    return v;
  }
};

TEST(OverlayMemory, WritesStayPrivateAcrossPageEdges) {
  Fixture f;
  const uint64_t at = kBase + 4096 - 100;  // 100 bytes in page 0, 4096 in page 1, 4 in page 2
  const std::vector<uint8_t> mine(4200, 0xA5);
  ASSERT_TRUE(f.over.write(at, mine.data(), mine.size()));
  EXPECT_EQ(f.over.held(), 4200u);
  EXPECT_EQ(f.read_over(at, 4200), mine);
  EXPECT_EQ(f.read_real(at, 1)[0], static_cast<uint8_t>((4096 - 100) & 0xFF)) << "real memory untouched";
  // a read straddling the written range sees real bytes on both sides
  const auto around = f.read_over(at - 2, 4204);
  EXPECT_EQ(around[0], f.read_real(at - 2, 1)[0]);
  EXPECT_EQ(around[2], 0xA5);
  EXPECT_EQ(around[4201], 0xA5);
  EXPECT_EQ(around[4202], f.read_real(at + 4200, 1)[0]);
}

TEST(OverlayMemory, ForgetHandsBytesBackToRealMemory) {
  Fixture f;
  const std::vector<uint8_t> mine(300, 0x5A);
  ASSERT_TRUE(f.over.write(kBase + 4000, mine.data(), mine.size()));
  f.over.forget(kBase + 4000, 96);  // page 0's part
  EXPECT_EQ(f.over.held(), 204u);
  // the application rewrites real memory: forgotten bytes follow it, held ones do not
  const std::vector<uint8_t> app(300, 0x11);
  ASSERT_TRUE(f.real.write(kBase + 4000, app.data(), app.size()));
  const auto v = f.read_over(kBase + 4000, 300);
  EXPECT_EQ(v[0], 0x11);
  EXPECT_EQ(v[95], 0x11);
  EXPECT_EQ(v[96], 0x5A);
  EXPECT_EQ(v[299], 0x5A);
  f.over.forget(kBase + 4096, 204);
  EXPECT_EQ(f.over.held(), 0u);
  EXPECT_EQ(f.read_over(kBase + 4000, 300), app);
}

// The model wrote a counter twice (a WRITE, then an atomic); the scoreboard
// matches the first write while the RTL has not done the second: the newer
// value stays the model's view.
TEST(OverlayMemory, ForgetKeepsBytesWrittenSinceWithAnotherValue) {
  Fixture f;
  const std::vector<uint8_t> first(8, 0x01), second(8, 0x02);
  ASSERT_TRUE(f.over.write(kBase + 64, first.data(), 8));
  ASSERT_TRUE(f.over.write(kBase + 68, second.data(), 4));  // half of it rewritten
  f.over.forget(kBase + 64, 8);
  EXPECT_EQ(f.over.held(), 4u);
  const auto v = f.read_over(kBase + 64, 8);
  EXPECT_EQ(v[0], f.read_real(kBase + 64, 1)[0]) << "matched and unchanged: real memory again";
  EXPECT_EQ(v[4], 0x02) << "written since: still the model's";
  f.over.forget(kBase + 68, 4);
  EXPECT_EQ(f.over.held(), 0u);
}

// The RTL is ahead: it wrote a counter twice (v1, v2) before the model wrote
// v1. The model keeps seeing the old value, then its own v1 once matched,
// and real memory (v2) only when both sides have matched every write.
TEST(OverlayMemory, TheModelDoesNotSeeWritesOfTheRtlBeforeItMakesThem) {
  Fixture f;
  const std::vector<uint8_t> v1(8, 0x01), v2(8, 0x02);
  const auto old = f.read_real(kBase + 64, 8);
  f.over.preserve(kBase + 64, old.data(), 8);  // the RTL writes v1
  ASSERT_TRUE(f.real.write(kBase + 64, v1.data(), 8));
  const auto before = f.read_real(kBase + 64, 8);
  f.over.preserve(kBase + 64, before.data(), 8);  // then v2
  ASSERT_TRUE(f.real.write(kBase + 64, v2.data(), 8));
  EXPECT_EQ(f.read_over(kBase + 64, 8), old) << "the model, behind, sees what it would";
  ASSERT_TRUE(f.over.write(kBase + 64, v1.data(), 8));  // the model writes v1: matched
  f.over.forget(kBase + 64, 8);
  EXPECT_EQ(f.read_over(kBase + 64, 8), v1) << "not yet the RTL's v2";
  ASSERT_TRUE(f.over.write(kBase + 64, v2.data(), 8));
  f.over.forget(kBase + 64, 8);
  EXPECT_EQ(f.over.held(), 0u);
  EXPECT_EQ(f.read_over(kBase + 64, 8), v2);
}

TEST(OverlayMemory, RefusesOutsideAllowedRegions) {
  Fixture f;
  const uint8_t b = 1;
  EXPECT_FALSE(f.over.write(kBase - 1, &b, 1));
  EXPECT_EQ(f.over.held(), 0u);
  EXPECT_EQ(f.over.refused(), 1u);
}

}  // namespace
}  // namespace rocenic
