// Memory protection and translation: the RTL MR table and its model, loaded
// with the same regions, must answer a mix of requests that hits every
// outcome (OK, BAD_KEY, BAD_PD, NO_ACCESS, OUT_OF_BOUNDS) identically, under
// idle cycles and backpressure; hand-computed cases pin the semantics.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "mem/mr_table.h"
#include "rtl/mr_table_rtl.h"
#include "xcheck.h"

namespace rocenic {
namespace {

using spec::MrStatus;

struct Region {
  unsigned index;
  spec::MrCtx ctx;
};

Flit indexed(unsigned index, const std::vector<uint8_t>& body) {
  Flit f;
  f.data.resize(2 + body.size());
  f.data[0] = static_cast<uint8_t>(index);
  f.data[1] = static_cast<uint8_t>(index >> 8);
  std::copy(body.begin(), body.end(), f.data.begin() + 2);
  return f;
}

// Table writes: regions with 4 KiB or 64 KiB pages scattered in "physical" memory.
std::vector<std::vector<Flit>> table_writes(std::mt19937_64& rng, std::vector<Region>& regions) {
  std::vector<std::vector<Flit>> w(3);
  unsigned mtt_next = 0;
  for (unsigned i = 0; i < 24; ++i) {
    Region r;
    r.index = 1 + static_cast<unsigned>(rng() % 1000);
    r.ctx.valid = i != 5;  // one deregistered entry
    r.ctx.key = static_cast<uint8_t>(rng());
    r.ctx.pd = static_cast<uint16_t>(rng() % 4);
    r.ctx.access = static_cast<uint8_t>(rng() % 16);
    r.ctx.page_shift = rng() % 2 ? 12 : 16;
    r.ctx.iova = (0x7f0000000000ull + (rng() % 0x100000) * 4096) + rng() % 4096;
    r.ctx.length = 1 + rng() % 200000;
    r.ctx.mtt_base = static_cast<uint16_t>(mtt_next);
    const uint64_t page = uint64_t{1} << r.ctx.page_shift;
    const uint64_t pages = ((r.ctx.iova & (page - 1)) + r.ctx.length + page - 1) / page;
    for (uint64_t p = 0; p < pages; ++p) {
      const uint64_t pa = (0x100000000ull + (rng() % 0x10000) * page);
      std::vector<uint8_t> b(8);
      for (int k = 0; k < 8; ++k) b[k] = static_cast<uint8_t>(pa >> (8 * k));
      w[1].push_back(indexed(mtt_next++, b));
    }
    if (i == 7) mtt_next -= 1;  // the last page of this region is not in the MTT... until the next region overwrites it
    w[0].push_back(indexed(r.index, desc_to_flit(r.ctx).data));
    regions.push_back(r);
  }
  return w;
}

std::vector<std::vector<Flit>> requests(std::mt19937_64& rng, const std::vector<Region>& regions) {
  std::vector<std::vector<Flit>> q(3);
  for (unsigned i = 0; i < 3000; ++i) {
    const Region& r = regions[rng() % regions.size()];
    spec::MrReq m;
    m.tag = static_cast<uint8_t>(i);
    m.key = (r.index << 8) | r.ctx.key;
    m.pd = r.ctx.pd;
    m.access = r.ctx.access;
    m.va = r.ctx.iova + rng() % (r.ctx.length + 1);
    m.len = static_cast<uint32_t>(rng() % (r.ctx.iova + r.ctx.length - m.va + 1));
    switch (rng() % 10) {
      case 0: m.key ^= 1 + rng() % 255; break;                        // wrong key byte
      case 1: m.key = static_cast<uint32_t>((2000 + rng() % 100) << 8); break;  // index beyond the table
      case 2: m.pd ^= 1; break;
      case 3: m.access = static_cast<uint8_t>(rng() % 16); break;      // maybe more than granted
      case 4: m.va = r.ctx.iova - 1 - rng() % 100; break;              // before the region
      case 5: m.len += 1 + static_cast<uint32_t>(rng() % 100); break;  // past its end
      case 6: m.len = 0; break;
      default: break;
    }
    q[2].push_back(desc_to_flit(m));
  }
  return q;
}

std::vector<spec::MrResp> run(Block& b, const std::vector<std::vector<Flit>>& writes,
                              const std::vector<std::vector<Flit>>& reqs, uint64_t seed, uint64_t* cycles) {
  XcheckConfig cfg;
  cfg.seed = seed;
  cfg.quiet_cycles = 50;
  drive_block(b, writes, cfg);  // phase 1: load the tables
  std::vector<spec::MrResp> out;
  const auto answered = drive_block(b, reqs, cfg, cycles);  // phase 2: the checks
  for (const Txn& t : answered[0]) out.push_back(desc_from_flit<spec::MrResp>(t.flits[0]));
  return out;
}

TEST(MrTable, RtlAndModelAgreeOnEveryOutcome) {
  std::mt19937_64 rng(17);
  std::vector<Region> regions;
  const auto writes = table_writes(rng, regions);
  const auto reqs = requests(rng, regions);
  MrTableRtl rtl;
  auto mod = model::make_mr_table_block();
  uint64_t rtl_cycles = 0, model_cycles = 0;
  const auto a = run(rtl, writes, reqs, 5, &rtl_cycles);
  const auto b = run(*mod, writes, reqs, 5, &model_cycles);
  std::printf("last answer: rtl cycle %llu, model cycle %llu (model/rtl %.3f)\n",
              static_cast<unsigned long long>(rtl_cycles), static_cast<unsigned long long>(model_cycles),
              double(model_cycles) / double(rtl_cycles));
  ASSERT_EQ(a.size(), reqs[2].size());
  ASSERT_EQ(b.size(), reqs[2].size());
  std::map<unsigned, unsigned> seen;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << "request " << i << "\n rtl  " << a[i].describe() << "\n model" << b[i].describe();
    ASSERT_EQ(a[i].tag, static_cast<uint8_t>(i)) << "answered in order";
    ++seen[a[i].status];
  }
  std::printf("%zu requests, rtl = model:", a.size());
  for (const auto& [st, n] : seen) std::printf(" %s=%u", spec::to_string(static_cast<MrStatus>(st)), n);
  std::printf("\n");
  for (unsigned st = 0; st < spec::kMrStatusCount; ++st)
    EXPECT_GT(seen[st], 10u) << spec::to_string(static_cast<MrStatus>(st)) << " must be exercised";
}

TEST(MrTable, HandComputedTranslationAndChecks) {
  model::MrRegions m;
  spec::MrCtx c;
  c.valid = 1;
  c.key = 0x5A;
  c.pd = 3;
  c.access = static_cast<uint8_t>(spec::Access::kLocalWrite) | static_cast<uint8_t>(spec::Access::kRemoteWrite);
  c.iova = 0x7f0000001100;  // 0x100 into its first 4 KiB page
  c.length = 10000;
  c.mtt_base = 40;
  c.page_shift = 12;
  m.write_mr(7, c);
  m.write_mtt(40, 0x200000000);
  m.write_mtt(41, 0x3000A0000);
  m.write_mtt(42, 0x123456000);
  spec::MrReq r;
  r.key = (7 << 8) | 0x5A;
  r.pd = 3;
  r.access = static_cast<uint8_t>(spec::Access::kRemoteWrite);
  r.va = 0x7f0000001F00;  // 0xF00 into page 0: 0x100 bytes left in it
  r.len = 0x300;
  spec::MrResp s = m.check(r);
  EXPECT_EQ(s.status, 0u);
  EXPECT_EQ(s.pa, 0x200000F00u);
  EXPECT_EQ(s.run, 0x100u);
  r.va = 0x7f0000002010;  // page 1
  s = m.check(r);
  EXPECT_EQ(s.pa, 0x3000A0010u);
  EXPECT_EQ(s.run, 0x300u);
  r.va = c.iova + c.length - 4;  // last 4 bytes: fine; 5 are not
  r.len = 4;
  EXPECT_EQ(m.check(r).status, 0u);
  r.len = 5;
  EXPECT_EQ(m.check(r).status, static_cast<uint8_t>(MrStatus::kOutOfBounds));
  r.len = 4;
  r.access = static_cast<uint8_t>(spec::Access::kRemoteRead);
  EXPECT_EQ(m.check(r).status, static_cast<uint8_t>(MrStatus::kNoAccess));
  r.access = 0;
  r.pd = 2;
  EXPECT_EQ(m.check(r).status, static_cast<uint8_t>(MrStatus::kBadPd));
  r.key ^= 1;
  EXPECT_EQ(m.check(r).status, static_cast<uint8_t>(MrStatus::kBadKey));
}

}  // namespace
}  // namespace rocenic
