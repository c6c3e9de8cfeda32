// Memory protection and translation: the RTL MR table and its model, loaded
// with the same regions, must answer a mix of requests that hits every
// outcome (OK, BAD_KEY, BAD_PD, NO_ACCESS, OUT_OF_BOUNDS, BAD_STATE)
// identically, under idle cycles and backpressure: checks of regions, and
// memory windows bound, used, invalidated and bound again in between (each
// op's effect seen by the next request); hand-computed cases pin the
// semantics.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/desc_flit.h"
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
    r.ctx.mw_bind = rng() % 4 != 0;
    w[0].push_back(indexed(r.index, desc_to_flit(r.ctx).data));
    regions.push_back(r);
  }
  // memory windows, unbound: type 1 and type 2, in the PDs of the regions
  for (unsigned i = 0; i < 16; ++i) {
    Region r;
    r.index = 1001 + i;
    r.ctx.mw = 1;
    r.ctx.mw_type2 = i % 4 != 0;
    r.ctx.key = static_cast<uint8_t>(rng());
    r.ctx.pd = static_cast<uint16_t>(rng() % 4);
    w[0].push_back(indexed(r.index, desc_to_flit(r.ctx).data));
    regions.push_back(r);
  }
  return w;
}

// The model's regions after the table writes (a shadow the request mix is
// drawn against, so that binds and checks through windows mostly match).
model::MrRegions loaded(const std::vector<std::vector<Flit>>& w) {
  model::MrRegions m;
  for (const Flit& f : w[0]) {
    Flit body;
    body.data.assign(f.data.begin() + 2, f.data.end());
    m.write_mr(f.data[0] | f.data[1] << 8, desc_from_flit<spec::MrCtx>(body));
  }
  for (const Flit& f : w[1]) m.write_mtt(f.data[0] | f.data[1] << 8, flit_le(f, 2, 8));
  return m;
}

// A request on window w: bind it (to a region of its PD, mostly inside and
// with rights the region allows), invalidate it, or use it as an rkey; some
// mutated (another QP, PD, key byte, an lkey use).
spec::MrReq window_request(std::mt19937_64& rng, const std::vector<Region>& regions, const Region& w,
                           const model::MrRegions& shadow) {
  const spec::MrCtx cur = *shadow.entry(w.index << 8);
  spec::MrReq m;
  m.key = (w.index << 8) | cur.key;
  m.pd = cur.pd;
  m.qpn = cur.mw_type2 && cur.valid ? cur.qpn : 1 + static_cast<uint32_t>(rng() % 3);
  const unsigned pick = static_cast<unsigned>(rng() % 10);
  if (pick < 3) {  // bind onto a region of the same PD, when there is one
    const Region* mr = &regions[rng() % 24];
    for (unsigned k = 0; k < 24 && mr->ctx.pd != cur.pd; ++k) mr = &regions[rng() % 24];
    m.op = static_cast<uint8_t>(spec::MrOp::kBind);
    m.key = (w.index << 8) | static_cast<uint8_t>(cur.key + 1);  // ibv_inc_rkey
    m.mr_key = (mr->index << 8) | mr->ctx.key;
    m.va = mr->ctx.iova + rng() % (mr->ctx.length / 2 + 1);
    m.len = static_cast<uint32_t>(rng() % (mr->ctx.iova + mr->ctx.length - m.va + 1));
    m.access = static_cast<uint8_t>((rng() % 8) << 1);  // remote rights
    if (rng() % 4 == 0) m.len += 1 + static_cast<uint32_t>(rng() % 64);
  } else if (pick < 4) {
    m.op = static_cast<uint8_t>(spec::MrOp::kInvalidate);
    m.remote = rng() % 2;
  } else {  // an access through it
    m.remote = rng() % 8 != 0;
    m.access = cur.access && rng() % 4 ? cur.access : static_cast<uint8_t>(rng() % 16);
    m.va = cur.iova + rng() % (cur.length + 1);
    m.len = static_cast<uint32_t>(rng() % (cur.iova + cur.length - m.va + 1));
    if (rng() % 8 == 0) m.len = static_cast<uint32_t>(cur.iova + cur.length - m.va + 1);  // one byte past the window
  }
  switch (rng() % 12) {
    case 0: m.qpn ^= 1; break;
    case 1: m.pd ^= 1; break;
    case 2: m.key ^= 1; break;
    default: break;
  }
  return m;
}

std::vector<std::vector<Flit>> requests(std::mt19937_64& rng, const std::vector<Region>& regions,
                                        model::MrRegions shadow) {
  std::vector<std::vector<Flit>> q(3);
  for (unsigned i = 0; i < 3000; ++i) {
    const Region& r = regions[rng() % regions.size()];
    if (r.ctx.mw) {
      spec::MrReq m = window_request(rng, regions, r, shadow);
      m.tag = static_cast<uint8_t>(i);
      shadow.execute(m);
      q[2].push_back(desc_to_flit(m));
      continue;
    }
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
      case 7: m.op = static_cast<uint8_t>(spec::MrOp::kInvalidate); break;  // a region: never invalidated
      default: break;
    }
    shadow.execute(m);
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
  const auto reqs = requests(rng, regions, loaded(writes));
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
  std::map<std::pair<unsigned, unsigned>, unsigned> window_ops;  // (op, status) on windows
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i], b[i]) << "request " << i << "\n rtl  " << a[i].describe() << "\n model" << b[i].describe();
    ASSERT_EQ(a[i].tag, static_cast<uint8_t>(i)) << "answered in order";
    ++seen[a[i].status];
    const auto q = desc_from_flit<spec::MrReq>(reqs[2][i]);
    if ((q.key >> 8) > 1000 && (q.key >> 8) <= 1016) ++window_ops[{q.op, a[i].status}];
  }
  std::printf("%zu requests, rtl = model:", a.size());
  for (const auto& [st, n] : seen) std::printf(" %s=%u", spec::to_string(static_cast<MrStatus>(st)), n);
  std::printf("\n");
  for (const auto& [k, n] : window_ops)
    std::printf("  window %s %s: %u\n", spec::to_string(static_cast<spec::MrOp>(k.first)),
                spec::to_string(static_cast<MrStatus>(k.second)), n);
  const unsigned ok = static_cast<unsigned>(MrStatus::kOk);
  EXPECT_GT((window_ops[{static_cast<unsigned>(spec::MrOp::kBind), ok}]), 30u) << "windows bound";
  EXPECT_GT((window_ops[{static_cast<unsigned>(spec::MrOp::kInvalidate), ok}]), 10u) << "windows invalidated";
  EXPECT_GT((window_ops[{static_cast<unsigned>(spec::MrOp::kCheck), ok}]), 30u) << "accesses through windows";
  EXPECT_GT((window_ops[{static_cast<unsigned>(spec::MrOp::kCheck), static_cast<unsigned>(MrStatus::kOutOfBounds)}]),
            5u)
      << "accesses past a window's end";
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

// Memory windows (IBTA 10.6.7, as rxe): a type 2 window bound to a part of
// an MR through one QP is an rkey of that QP only, for the rights it was
// bound with, inside its range; LOCAL_INV or SEND_WITH_INV frees it (an MR
// and a type 1 window cannot be invalidated); the MR registered again under
// a new key byte takes the window's access away.
TEST(MrTable, HandComputedWindowBindUseAndInvalidate) {
  model::MrRegions m;
  const auto st = [](MrStatus s) { return static_cast<uint8_t>(s); };
  const uint8_t lw = static_cast<uint8_t>(spec::Access::kLocalWrite);
  const uint8_t rw = static_cast<uint8_t>(spec::Access::kRemoteWrite);
  const uint8_t rr = static_cast<uint8_t>(spec::Access::kRemoteRead);
  spec::MrCtx mr;
  mr.valid = 1;
  mr.key = 0x11;
  mr.pd = 2;
  mr.access = lw | rw | rr;
  mr.iova = 0x7f0000000000;
  mr.length = 3 * 4096;
  mr.mtt_base = 10;
  mr.page_shift = 12;
  mr.mw_bind = 1;
  m.write_mr(4, mr);
  for (unsigned p = 0; p < 3; ++p) m.write_mtt(10 + p, 0x500000000 + p * 0x10000);
  spec::MrCtx mw;
  mw.mw = 1;
  mw.mw_type2 = 1;
  mw.pd = 2;
  mw.key = 0x40;
  m.write_mr(9, mw);

  spec::MrReq bind;
  bind.op = static_cast<uint8_t>(spec::MrOp::kBind);
  bind.key = (9 << 8) | 0x41;  // the new rkey
  bind.mr_key = (4 << 8) | 0x11;
  bind.pd = 2;
  bind.qpn = 77;
  bind.va = mr.iova + 4096 + 16;
  bind.len = 100;
  bind.access = rr;
  EXPECT_EQ(m.execute(bind).status, 0u);
  EXPECT_EQ(m.execute(bind).status, st(MrStatus::kBadState)) << "a bound type 2 window is not bound again";

  spec::MrReq use;
  use.key = bind.key;
  use.pd = 2;
  use.qpn = 77;
  use.remote = 1;
  use.access = rr;
  use.va = bind.va + 10;
  use.len = 90;
  spec::MrResp r = m.execute(use);
  EXPECT_EQ(r.status, 0u);
  EXPECT_EQ(r.pa, 0x500010000u + 16 + 10) << "translated through the MR's second page";
  EXPECT_EQ(r.run, 90u);
  use.len = 91;
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kOutOfBounds)) << "past the window, though inside the MR";
  use.len = 90;
  use.access = rw;
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kNoAccess)) << "the window grants remote read only";
  use.access = rr;
  use.qpn = 78;
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kBadKey)) << "a type 2 window answers its QP only";
  use.qpn = 77;
  use.remote = 0;
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kBadKey)) << "a window's key is no lkey";
  use.remote = 1;

  spec::MrReq inv;
  inv.op = static_cast<uint8_t>(spec::MrOp::kInvalidate);
  inv.pd = 2;
  inv.key = (4 << 8) | 0x11;
  EXPECT_EQ(m.execute(inv).status, st(MrStatus::kBadState)) << "a REG_MR region cannot be invalidated";
  inv.key = bind.key;
  inv.remote = 1;
  inv.qpn = 5;
  EXPECT_EQ(m.execute(inv).status, st(MrStatus::kBadKey)) << "SEND_WITH_INV from another QP";
  inv.qpn = 77;
  EXPECT_EQ(m.execute(inv).status, 0u);
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kBadKey)) << "an invalidated window grants nothing";
  EXPECT_EQ(m.execute(inv).status, st(MrStatus::kBadKey)) << "nor is it invalidated twice";

  bind.key = (9 << 8) | 0x42;  // bound again, under the next key byte
  EXPECT_EQ(m.execute(bind).status, 0u);
  use.key = bind.key;
  EXPECT_EQ(m.execute(use).status, 0u);
  mr.key = 0x12;  // the MR registered again: the window dies with the old registration
  m.write_mr(4, mr);
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kBadKey));

  bind.mr_key = (4 << 8) | 0x12;
  mw.mw_type2 = 0;  // a type 1 window: bound again at will, never invalidated
  m.write_mr(9, mw);
  bind.key = (9 << 8) | 0x43;
  EXPECT_EQ(m.execute(bind).status, 0u);
  EXPECT_EQ(m.execute(bind).status, 0u);
  inv.key = bind.key;
  EXPECT_EQ(m.execute(inv).status, st(MrStatus::kBadState));
  // a type 1 unbind (length 0) needs no MR, as rxe's ibv_bind_mw with mr NULL
  spec::MrReq unbind = bind;
  unbind.key = (9 << 8) | 0x44;
  unbind.mr_key = 0;
  unbind.va = 0;
  unbind.len = 0;
  unbind.access = 0;
  EXPECT_EQ(m.execute(unbind).status, 0u);
  use.key = unbind.key;
  use.qpn = 0;
  EXPECT_EQ(m.execute(use).status, st(MrStatus::kBadKey)) << "an unbound window grants nothing";
  mr.mw_bind = 0;
  m.write_mr(4, mr);
  EXPECT_EQ(m.execute(bind).status, st(MrStatus::kNoAccess)) << "the MR was registered without MW_BIND";
  // a type 2 window is never bound with length 0 (IBTA o10-37.2.40): it is freed by invalidation
  mw.mw_type2 = 1;
  m.write_mr(9, mw);
  unbind.key = (9 << 8) | 0x45;
  EXPECT_EQ(m.execute(unbind).status, st(MrStatus::kBadState));
}

}  // namespace
}  // namespace rocenic
