// READ response placement (rtl/xport/read_place.sv, model/xport/read_place.*):
//  - RTL and model in the same reactive world (host memory behind the DMA
//    timing model, an MR table answering with a small latency), same
//    stimulus, random idle cycles and backpressure: every output port carries
//    the same transactions in the same order, final memories and counters agree;
//  - both against what the scenario meant (read_place_env.cc: expect(),
//    check_facts()): each response's bytes where the READ's SGEs and the
//    regions' page tables put them, nothing else touched, the done answers in
//    order with their statuses and after their data, every write inside one
//    page, counters that add up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>

#include "blocks/read_place_env.h"
#include "common/desc_flit.h"
#include "rtl/read_place_rtl.h"
#include "xport/read_place.h"

namespace rocenic::rp {
namespace {

struct Both {
  RunResult rtl, model;
};

Both run_both(const Scenario& s, const RunConfig& cfg) {
  ReadPlaceRtl rtl;
  auto mdl = model::make_read_place_block();
  Both b;
  b.rtl = run(rtl, s.world, s.steps, cfg);
  b.model = run(*mdl, s.world, s.steps, cfg);
  return b;
}

void check_all(const Scenario& s, const Both& b, const char* what) {
  ASSERT_EQ(b.rtl.error, "") << "rtl";
  ASSERT_EQ(b.model.error, "") << "model";
  const std::string d = compare(b.rtl, b.model);
  EXPECT_EQ(d, "") << "RTL and model differ: " << d;
  EXPECT_EQ(check_facts(s, b.rtl), "") << "rtl";
  EXPECT_EQ(check_facts(s, b.model), "") << "model";
  size_t txns = 0, bytes = 0;
  for (const auto& port : b.rtl.out) txns += port.size();
  for (const Txn& t : b.rtl.out[kWrData]) bytes += beats_to_bytes(t.flits).size();
  std::map<unsigned, unsigned> status;
  for (const Txn& t : b.rtl.out[kDone]) ++status[desc_from_flit<spec::RdDone>(t.flits[0]).status];
  std::printf(
      "%s: %zu READs, %zu commands in %zu steps; compared %zu transactions on 5 ports, %s; "
      "%zu DMA writes (%zu bytes), %zu mr_req, %zu WQE reads; rtl %llu cycles, model %llu cycles\n  counters:",
      what, s.reads.size(), s.cmds.size(), s.steps.size(), txns, d.empty() ? "0 divergences" : "DIVERGED",
      b.rtl.out[kWrReq].size(), bytes, b.rtl.out[kMrReq].size(), b.rtl.out[kRdReq].size(),
      static_cast<unsigned long long>(b.rtl.cycles), static_cast<unsigned long long>(b.model.cycles));
  for (const auto& [name, v] : b.rtl.counters) std::printf(" %s %u", name.c_str(), v);
  std::printf("; done statuses:");
  for (const auto& [k, v] : status) std::printf(" %u x%u", k, v);
  std::printf("\n");
}

// One SGE broken on purpose, each way the MR table refuses it.
void break_sge(Scenario& s, TSge& g, unsigned how) {
  if ((how == 1 || how == 2) && g.len > 8 * 1024) how = 0;
  switch (how) {
    case 0: g.lkey ^= 1; break;                              // wrong key byte
    case 1: g = s.sge_in(Scenario::kPd2, g.len); break;      // another PD's region
    case 2: g = s.sge_in(Scenario::kNoWrite, g.len); break;  // no LOCAL_WRITE right
    default: {                                               // runs past its region's end
      const MrDef& m = s.mr(g.mr);
      g.va = m.ctx.iova + m.ctx.length - g.len / 2;  // [va, va + len) ends past the region
      break;
    }
  }
  g.broken = true;
}

uint32_t some_len(Scenario& s, uint32_t mtu) {
  switch (s.rand(6)) {
    case 0: return static_cast<uint32_t>(s.rand(3));
    case 1: return mtu * static_cast<uint32_t>(1 + s.rand(4));
    case 2: return static_cast<uint32_t>(s.rand(3 * mtu));
    case 3: return 65536;
    default: return static_cast<uint32_t>(s.rand(65537));
  }
}

// ---------------------------------------------------------------- directed

TEST(ReadPlace, EveryMtuReadsUpTo64KiBInto1To16Sges) {
  Scenario s(1);
  for (uint32_t n = 1; n <= 5; ++n) s.create(s.qps[n]);  // responses of 256, 512, 1024, 2048, 4096 bytes
  for (unsigned i = 0; i < 10; ++i) {
    std::vector<Scenario::Part> parts;
    for (uint32_t n = 1; n <= 5; ++n) {
      const uint32_t mtu = s.qps[n].mtu;
      const uint32_t lens[] = {0,
                               1,
                               mtu - 1,
                               mtu,
                               mtu + 1,
                               2 * mtu + 37,
                               65536,
                               65535,
                               static_cast<uint32_t>(s.rand(65537)),
                               static_cast<uint32_t>(s.rand(4 * mtu))};
      const uint32_t len = lens[i];
      // 1..16 SGEs: more than six are read after the WQE's head (TAIL)
      parts.push_back({s.read(n, s.sges(len, 1 + (i * 5 + n * 3) % spec::kMaxSge, i % 2 == 1), len, Meant::kGood)});
    }
    s.deliver(parts);
  }
  check_all(s, run_both(s, RunConfig{}), "every MTU, 0..64 KiB, 1..16 SGEs");
}

TEST(ReadPlace, WrongLkeyInThirdSgeFailsTheReadAndDropsTheRest) {
  Scenario s(2);
  for (uint32_t n : {2u, 3u, 4u}) s.create(s.qps[n]);
  // QP 3: 5 SGEs, the third with a wrong key byte; a good READ on QP 2 beside it
  auto sg = s.sges(12000, 5, false);
  break_sge(s, sg[2], 0);
  const size_t bad = s.read(3, sg, 12000, Meant::kBrokenSge);
  const size_t good = s.read(2, s.sges(9000, 4, true), 9000, Meant::kGood);
  s.deliver({{bad}, {good}}, 0.1);
  // the third SGE in another PD, without LOCAL_WRITE, past its region's end: each refused
  for (unsigned how = 1; how < 4; ++how) {
    auto g = s.sges(7000, 4, false);
    break_sge(s, g[2], how);
    const size_t r = s.read(4, g, 7000, Meant::kBrokenSge);
    s.deliver({{r}, {s.read(2, s.sges(3000, 2, false), 3000, Meant::kGood)}});
  }
  // after the failed READ, the QP's next READ is placed whole
  s.deliver({{s.read(3, s.sges(5000, 3, false), 5000, Meant::kGood)}});
  const Both b = run_both(s, RunConfig{});
  check_all(s, b, "a broken third SGE");
  // the broken READ's answer, and not a byte of it from the third SGE on (memory compared whole)
  ASSERT_GE(b.rtl.out[kDone].size(), 1u);
  EXPECT_EQ(desc_from_flit<spec::RdDone>(b.rtl.out[kDone][0].flits[0]).status,
            static_cast<uint8_t>(spec::WcStatus::kLocProtErr));
}

TEST(ReadPlace, ReadLongerThanItsSgesFailsWithLocLenErr) {
  Scenario s(3);
  for (uint32_t n : {1u, 4u}) s.create(s.qps[n]);
  s.deliver({{s.read(4, s.sges(6000, 3, true), 9000, Meant::kTooLong)},
             {s.read(1, s.sges(3000, 2, false), 3000, Meant::kGood)}});
  s.deliver({{s.read(4, s.sges(8191, 2, false), 8192, Meant::kTooLong)}});  // one byte too many
  s.deliver({{s.read(1, s.sges(0, 3, false), 1, Meant::kTooLong)}});        // SGEs of no bytes
  check_all(s, run_both(s, RunConfig{}), "READs longer than their SGEs");
}

TEST(ReadPlace, PoisonedWqeFetchAndUnusableWqes) {
  Scenario s(4);
  for (uint32_t n : {1u, 2u, 7u}) s.create(s.qps[n]);
  s.deliver({{s.read(7, s.sges(5000, 2, false), 5000, Meant::kPoisoned)},  // the host refuses the WQE read
             {s.read(2, s.sges(4000, 3, false), 4000, Meant::kGood)}});
  s.deliver({{s.read(1, s.sges(3000, 6, false), 3000, Meant::kTooManySges)},  // num_sge 7
             {s.read(7, s.sges(0, 1, false), 0, Meant::kGood)}});             // nothing to place: nothing read
  s.deliver({{s.read(1, s.sges(2500, 2, false), 2500, Meant::kNotARead)}});  // the slot holds a SEND
  s.deliver({{s.read(0, s.sges(700, 1, false), 700, Meant::kNoQp)},           // never created
             {s.read(300, s.sges(700, 1, false), 700, Meant::kNoQp)}});       // beyond the QP table
  s.destroy(s.qps[2]);
  s.deliver({{s.read(2, s.sges(2000, 2, false), 2000, Meant::kNoQp)}});  // destroyed
  s.create(s.qps[2]);
  s.deliver({{s.read(2, s.sges(2000, 2, false), 2000, Meant::kGood)}});  // created again
  check_all(s, run_both(s, RunConfig{}), "poisoned and unusable WQEs, missing QPs");
}

TEST(ReadPlace, QpCfgBetweenResponsesAndResetForgetsAFailure) {
  Scenario s(5);
  for (uint32_t n : {2u, 3u, 5u}) s.create(s.qps[n]);
  // a qp_cfg in the middle of a READ: its WQE is read again, placement goes on
  const size_t r = s.read(2, s.sges(20000, 5, true), 20000, Meant::kGood);
  const size_t q = s.read(5, s.sges(40000, 6, true), 40000, Meant::kGood);
  s.deliver({{r, 0, 17}, {q, 0, 3}});
  s.attr(s.qps[2]);
  s.attr(s.qps[5]);
  s.deliver({{r, 17}, {q, 3}});
  // a READ that failed and never got its last response; RESET; the new READ 0 is placed whole
  auto g = s.sges(9000, 3, false);
  break_sge(s, g[1], 0);
  const size_t f = s.read(3, g, 9000, Meant::kBrokenSge);
  s.deliver({{f, 0, 7}});
  s.create(s.qps[3]);
  s.deliver({{s.read(3, s.sges(9000, 3, false), 9000, Meant::kGood)}});
  check_all(s, run_both(s, RunConfig{}), "qp_cfg between responses, RESET after a failure");
}

TEST(ReadPlace, CommandsFromBeforeAResetAreDropped) {
  // The completer stamps every command with the QP's epoch (its RESETs and
  // DESTROYs counted); one still queued from before a RESET meets a READ WQE
  // posted since in the same slot, and must not land in its buffers.
  Scenario s(6);
  for (uint32_t n : {2u, 4u}) s.create(s.qps[n]);
  s.deliver({{s.read(2, s.sges(6000, 2, false), 6000, Meant::kGood)}});
  s.create(s.qps[2]);
  s.deliver({{s.read(2, s.sges(6000, 3, false), 6000, Meant::kStaleEpoch)},
             {s.read(4, s.sges(3000, 2, false), 3000, Meant::kGood)}});
  for (int k = 0; k < 17; ++k) s.create(s.qps[4]);  // the 4-bit epoch wraps: 17 RESETs are 1 apart
  s.deliver({{s.read(4, s.sges(2000, 1, false), 2000, Meant::kStaleEpoch)}});
  s.deliver({{s.read(2, s.sges(5000, 2, true), 5000, Meant::kGood)}});  // slot 1: the same QP goes on
  s.destroy(s.qps[4]);
  s.create(s.qps[4]);  // (a DESTROY counts: the epoch outlives the QP)
  s.deliver({{s.read(4, s.sges(4000, 2, false), 4000, Meant::kStaleEpoch)}});
  check_all(s, run_both(s, RunConfig{}), "commands from before a RESET");
}

// ---------------------------------------------------------------- random

void random_reads(Scenario& s, unsigned batches) {
  for (uint32_t n = 1; n <= 8; ++n) s.create(s.qps[n]);
  for (unsigned b = 0; b < batches; ++b) {
    std::vector<Scenario::Part> parts;
    for (unsigned k = 0, n = static_cast<unsigned>(1 + s.rand(5)); k < n; ++k) {
      const uint32_t qpn = s.rand(40) == 0 ? 300 : static_cast<uint32_t>(1 + s.rand(8));
      const uint32_t mtu = qpn < s.qps.size() ? s.qps[qpn].mtu : 1024;
      uint32_t len = some_len(s, mtu);
      const unsigned nsge = static_cast<unsigned>(1 + s.rand(spec::kMaxSge));
      const uint64_t v = s.rand(10);
      if (qpn == 300) {
        parts.push_back({s.read(qpn, s.sges(len, nsge, true), len, Meant::kNoQp)});
      } else if (qpn == 7) {  // its ring is refused
        len = std::max<uint32_t>(len, 1);
        parts.push_back({s.read(qpn, s.sges(len, nsge, true), len, Meant::kPoisoned)});
      } else if (qpn == 8 || v == 0) {  // QP 8 is in PD 2: every SGE with bytes is refused
        len = std::max<uint32_t>(len, 1);
        auto g = s.sges(len, nsge, true);
        std::vector<size_t> full;
        for (size_t i = 0; i < g.size(); ++i)
          if (g[i].len) full.push_back(i);
        if (qpn == 8) {
          for (size_t i : full) g[i].broken = true;
        } else {
          break_sge(s, g[full[s.rand(full.size())]], static_cast<unsigned>(s.rand(4)));
        }
        parts.push_back({s.read(qpn, g, len, Meant::kBrokenSge)});
      } else if (v == 1) {
        len = std::max<uint32_t>(len, 1);
        const uint32_t total = static_cast<uint32_t>(s.rand(len));
        parts.push_back({s.read(qpn, s.sges(total, nsge, true), len, Meant::kTooLong)});
      } else if (v == 2 && len > 0) {
        parts.push_back({s.read(qpn, s.sges(len, 6, true), len, Meant::kTooManySges)});
      } else {
        parts.push_back({s.read(qpn, s.sges(len, nsge, true), len, Meant::kGood)});
      }
    }
    // the requester's hints for about half of the READs it would have sent
    // (not those whose WQE it could not read or decode, nor on no QP)
    for (const Scenario::Part& p : parts) {
      const Meant m = s.reads[p.read].meant;
      if ((m == Meant::kGood || m == Meant::kBrokenSge || m == Meant::kTooLong) && s.rand(2)) s.hint(p.read);
    }
    s.deliver(parts, 0.08, 0.08);
    if (s.rand(8) == 0) s.attr(s.qps[1 + s.rand(8)]);
  }
}

// The slot a hint for (qpn, wqe_idx) takes in read_place's table (as the RTL's hint_slot).
unsigned slot_of(uint32_t qpn, uint16_t idx) {
  unsigned bits = 0, r = 0;
  while ((1u << bits) < spec::kReadHints) ++bits;
  for (unsigned i = 0; i < bits; ++i) r |= ((idx >> (bits - 1 - i)) & 1u) << i;
  return (qpn ^ r) & (spec::kReadHints - 1);
}

// The requester's hint (rd_hint) gives a one-SGE READ's SGE as its request
// leaves: its responses place with no fetch of the send WQE. A WQE of more
// SGEs, a hint another tag replaced in its table entry, or none at all:
// fetched as before. A QP RESET and posted again reuses indexes; the new
// hint replaces the old one, and a new READ of two SGEs must not use an
// older one-SGE hint of its index.
TEST(ReadPlace, HintedReadsPlaceWithoutFetchingTheirWqe) {
  Scenario s(41);
  for (uint32_t n = 1; n <= 5; ++n) s.create(s.qps[n]);
  std::vector<size_t> unfetched;  // READs whose slot must never be read
  auto slot_addr = [&](size_t r) {
    const TQp& q = s.qps[s.reads[r].qpn];
    return q.sq_base + (uint64_t{static_cast<uint16_t>(s.reads[r].idx & ((1u << q.sq_lsz) - 1))} << spec::kWqeSlotLog2);
  };
  // one SGE each, hinted, on five QPs at once: all placed from their hints
  std::vector<Scenario::Part> parts;
  for (uint32_t n = 1; n <= 5; ++n)
    for (unsigned k = 0; k < 2; ++k) {
      const uint32_t len = n == 3 && k == 1 ? 0 : 1 + static_cast<uint32_t>(s.rand(20000));
      const size_t r = s.read(n, s.sges(len, 1, false), len, Meant::kGood);
      s.hint(r);
      if (len > 0) unfetched.push_back(r);
      parts.push_back({r});
    }
  s.deliver(parts, 0.1, 0.2);
  // a hinted READ longer than its SGE, one with a broken SGE; a READ of three
  // SGEs (its hint says fetch); one not hinted
  const size_t too_long = s.read(1, s.sges(3000, 1, false), 5000, Meant::kTooLong);
  auto g = s.sges(6000, 1, false);
  break_sge(s, g[0], 0);
  const size_t broken = s.read(2, g, 6000, Meant::kBrokenSge);
  const size_t three = s.read(3, s.sges(7000, 3, true), 7000, Meant::kGood);
  const size_t plain = s.read(4, s.sges(2000, 1, false), 2000, Meant::kGood);
  for (size_t r : {too_long, broken, three}) s.hint(r);
  unfetched.push_back(too_long);
  unfetched.push_back(broken);
  s.deliver({{too_long}, {broken}, {three}, {plain}});
  // a hint of another tag in the same table entry replaces QP 5's: fetched
  const size_t evicted = s.read(5, s.sges(3000, 1, false), 3000, Meant::kGood);
  s.hint(evicted);
  spec::RdHint other;
  other.qpn = 5 ^ 1;
  other.wqe_idx = static_cast<uint16_t>(s.reads[evicted].idx ^ (spec::kReadHints / 2));
  ASSERT_EQ(slot_of(other.qpn, other.wqe_idx), slot_of(5, s.reads[evicted].idx));
  other.one_sge = 1;
  other.addr = 0x7f0000000000ull;
  other.length = 64;
  other.lkey = s.mr(Scenario::kA).key();
  s.hint_raw(other);
  s.deliver({{evicted}});
  // QPs 1 and 2 RESET and posted again from index 0: QP 1's new one-SGE READ
  // lands by its new hint, QP 2's new three-SGE READ is fetched (its hint
  // forgets the old one-SGE hint of index 0)
  s.create(s.qps[1]);
  s.create(s.qps[2]);
  const size_t again1 = s.read(1, s.sges(4000, 1, false), 4000, Meant::kGood);
  const size_t again2 = s.read(2, s.sges(4000, 3, false), 4000, Meant::kGood);
  ASSERT_EQ(s.reads[again1].idx, 0);
  ASSERT_EQ(s.reads[again2].idx, 0);
  s.hint(again1);
  s.hint(again2);
  unfetched.push_back(again1);
  s.deliver({{again1}, {again2}}, 0.1);

  const Both b = run_both(s, RunConfig{});
  check_all(s, b, "hinted READs");
  std::map<uint64_t, size_t> head_reads;  // slot address -> head reads of it
  for (const Txn& t : b.rtl.out[kRdReq]) ++head_reads[desc_from_flit<spec::DmaRdReq>(t.flits[0]).addr];
  const std::vector<size_t> fetched = {three, plain, evicted, again2};
  for (size_t r : fetched)
    EXPECT_GE(head_reads[slot_addr(r)], 1u) << "READ " << r << " was not fetched, though it had no usable hint";
  size_t checked = 0;
  for (size_t r : unfetched) {
    if (std::any_of(fetched.begin(), fetched.end(), [&](size_t f) { return slot_addr(f) == slot_addr(r); }))
      continue;  // (QP 2's index 0 before its RESET: the slot the three-SGE READ is fetched from later)
    ++checked;
    EXPECT_EQ(head_reads[slot_addr(r)], 0u) << "READ " << r << " (QP " << s.reads[r].qpn << ", index "
                                            << s.reads[r].idx << ") was fetched, though hinted";
  }
  EXPECT_GE(checked, 10u);
  std::map<std::string, uint32_t> c(b.rtl.counters.begin(), b.rtl.counters.end());
  EXPECT_GE(c["hint_hits"], unfetched.size());
}

TEST(ReadPlace, RandomReadsOnEightQps) {
  for (uint64_t seed : {11u, 12u, 13u}) {
    Scenario s(seed);
    random_reads(s, 25);
    RunConfig cfg;
    cfg.seed = seed;
    check_all(s, run_both(s, cfg), ("random READs, seed " + std::to_string(seed)).c_str());
  }
}

TEST(ReadPlace, RandomReadsWithoutIdleOrBackpressure) {
  Scenario s(21);
  random_reads(s, 25);
  RunConfig cfg;
  cfg.in_idle = cfg.out_stall = 0;
  check_all(s, run_both(s, cfg), "random READs, no idle cycles, no backpressure");
}

TEST(ReadPlace, RandomReadsUnderHeavyBackpressure) {
  Scenario s(22);
  random_reads(s, 15);
  RunConfig cfg;
  cfg.seed = 5;
  cfg.in_idle = cfg.out_stall = 0.7;
  check_all(s, run_both(s, cfg), "random READs, 70 % idle and backpressure");
}

// ---------------------------------------------------------------- the referee

// check_facts() names what a wrong block would do: a byte where none belongs,
// a wrong status, a lost or early done, a write across a page end, a counter off.
TEST(ReadPlaceFacts, CatchesWhatAWrongBlockDoes) {
  Scenario s(31);
  for (uint32_t n : {1u, 3u}) s.create(s.qps[n]);
  auto g = s.sges(6000, 3, false);
  break_sge(s, g[2], 0);
  s.deliver({{s.read(1, s.sges(10000, 4, false), 10000, Meant::kGood)}, {s.read(3, g, 6000, Meant::kBrokenSge)}});
  ReadPlaceRtl rtl;
  const RunResult good = run(rtl, s.world, s.steps, RunConfig{});
  ASSERT_EQ(check_facts(s, good), "");
  const Expected e = expect(s);
  auto expect_caught = [&](const char* what, const std::function<void(RunResult&)>& spoil) {
    RunResult r = good;
    spoil(r);
    const std::string why = check_facts(s, r);
    EXPECT_NE(why, "") << what << " went unnoticed";
    std::printf("  %-44s -> %s\n", what, why.c_str());
  };
  expect_caught("a byte of the broken SGE written", [&](RunResult& r) {
    const TSge& b = s.reads[1].sges[2];
    const uint64_t pa = s.mr(b.mr).pa(b.va);
    for (size_t i = 0; i < s.world.regions.size(); ++i)
      if (pa >= s.world.regions[i].first && pa - s.world.regions[i].first < s.world.regions[i].second)
        r.memory[i][pa - s.world.regions[i].first] ^= 0xFF;
  });
  expect_caught("a placed byte lost", [&](RunResult& r) {
    const auto& sg = s.reads[0].sges;
    const TSge& a = *std::max_element(sg.begin(), sg.end(), [](const TSge& x, const TSge& y) { return x.len < y.len; });
    const uint64_t pa = s.mr(a.mr).pa(a.va + a.len / 2);
    for (size_t i = 0; i < s.world.regions.size(); ++i)
      if (pa >= s.world.regions[i].first && pa - s.world.regions[i].first < s.world.regions[i].second)
        r.memory[i][pa - s.world.regions[i].first] = s.world.fill ^ 1;
  });
  expect_caught("SUCCESS for the broken READ", [&](RunResult& r) {
    for (Txn& t : r.out[kDone]) {
      auto d = desc_from_flit<spec::RdDone>(t.flits[0]);
      d.status = 0;
      t.flits[0] = desc_to_flit(d);
    }
  });
  expect_caught("a done lost", [](RunResult& r) { r.out[kDone].pop_back(); });
  expect_caught("a done before its data", [](RunResult& r) { r.out[kDone].front().first_cycle = 0; });
  expect_caught("a write across a page end", [&](RunResult& r) {
    for (Txn& t : r.out[kWrReq]) {
      auto w = desc_from_flit<spec::DmaWrReq>(t.flits[0]);
      if (w.len < 2) continue;
      w.addr = s.mr(Scenario::kA).pages[0] + 4095;  // its last byte, and on
      t.flits[0] = desc_to_flit(w);
      break;
    }
  });
  expect_caught("drop_bytes off by one", [](RunResult& r) {
    for (auto& [n, v] : r.counters)
      if (n == "drop_bytes") ++v;
  });
  EXPECT_GT(e.dropped, 0u);
}

}  // namespace
}  // namespace rocenic::rp
