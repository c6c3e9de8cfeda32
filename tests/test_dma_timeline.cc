// The transaction-level DMA timing (DmaTimeline, for the event-driven model)
// against the cycle-stepped DmaModel: on random reads and writes of random
// sizes at random cycles, every read's first and last data beat, every
// write's last beat and its write-done land in the same cycle in both.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "dma/dma_model.h"
#include "dma/dma_timeline.h"

namespace rocenic {
namespace {

constexpr unsigned kBytes = 64;

struct Seen {
  std::vector<DmaTimeline::Read> reads;
  std::vector<DmaTimeline::Write> writes;
};

// DmaModel driven the way EngineHarness drives it (readiness sampled at the
// start of a cycle, then pops and pushes, then the clock), by an engine that
// always takes read data and offers write data whenever the host takes it.
// Requests go out at the planned cycles, or as soon after as a slot is free.
struct Plan {
  uint64_t at;
  bool write;
  uint32_t len;
};

Seen run_cycle_model(const DmaTiming& t, const std::vector<Plan>& plan, std::vector<uint64_t>* taken) {
  SparseMemory mem;
  mem.allow(0, 1 << 24);
  DmaModel dma(mem, t, kBytes);
  Seen s;
  size_t next = 0, rd_open = 0;
  std::deque<size_t> wr_pending;  // writes whose beats are still to be sent, oldest first
  std::deque<uint32_t> wr_left;
  std::deque<size_t> done_wait;
  std::vector<size_t> rd_index;  // read number of each outstanding read, oldest first
  while ((next < plan.size() || rd_open < rd_index.size() || !wr_pending.empty() || !done_wait.empty()) &&
         dma.cycle() < 10'000'000) {
    const uint64_t c = dma.cycle();
    const bool rd_ok = dma.rd_req_ready(), wr_ok = dma.wr_req_ready(), data_ok = dma.wr_data_ready();
    if (dma.rd_data_valid()) {
      auto& r = s.reads[rd_index[rd_open]];
      if (r.first_beat == 0 && r.last_beat == 0) r.first_beat = c;
      if (dma.rd_data().last) {
        r.last_beat = c;
        ++rd_open;
      }
      dma.pop_rd_data();
    }
    if (dma.wr_done_valid()) {
      s.writes[done_wait.front()].done = c;
      done_wait.pop_front();
      dma.pop_wr_done();
    }
    if (next < plan.size() && plan[next].at <= c && (plan[next].write ? wr_ok : rd_ok)) {
      const Plan& p = plan[next++];
      taken->push_back(c);
      if (p.write) {
        spec::DmaWrReq w;
        w.addr = 0x1000;
        w.len = p.len;
        dma.push_wr_req(w);
        wr_pending.push_back(s.writes.size());
        wr_left.push_back(p.len);
        s.writes.push_back({});
      } else {
        spec::DmaRdReq r;
        r.addr = 0x2000;
        r.len = p.len;
        dma.push_rd_req(r);
        rd_index.push_back(s.reads.size());
        s.reads.push_back({});
      }
    }
    if (data_ok && !wr_pending.empty()) {
      Flit beat;
      beat.data.assign(kBytes, 0);
      dma.push_wr_data(beat);
      const uint32_t n = std::min<uint32_t>(kBytes, wr_left.front());
      wr_left.front() -= n;
      if (wr_left.front() == 0) {
        s.writes[wr_pending.front()].last_beat = c;
        done_wait.push_back(wr_pending.front());
        wr_pending.pop_front();
        wr_left.pop_front();
      }
    }
    dma.clock();
  }
  return s;
}

Seen run_timeline(const DmaTiming& t, const std::vector<Plan>& plan, const std::vector<uint64_t>& taken) {
  DmaTimeline tl(t, kBytes);
  Seen s;
  for (size_t i = 0; i < plan.size(); ++i) {
    // The slot rule agrees: a slot is free in the cycle the cycle model took the request.
    const uint64_t slot = plan[i].write ? tl.write_slot_at(taken[i]) : tl.read_slot_at(taken[i]);
    EXPECT_EQ(slot, taken[i]) << "request " << i;
    if (plan[i].write) s.writes.push_back(tl.write(taken[i], plan[i].len));
    else s.reads.push_back(tl.read(taken[i], plan[i].len));
  }
  return s;
}

void compare(const DmaTiming& t, const std::vector<Plan>& plan) {
  std::vector<uint64_t> taken;
  const Seen c = run_cycle_model(t, plan, &taken);
  ASSERT_EQ(taken.size(), plan.size());
  const Seen e = run_timeline(t, plan, taken);
  ASSERT_EQ(c.reads.size(), e.reads.size());
  ASSERT_EQ(c.writes.size(), e.writes.size());
  for (size_t i = 0; i < c.reads.size(); ++i) {
    EXPECT_EQ(c.reads[i].first_beat, e.reads[i].first_beat) << "read " << i;
    EXPECT_EQ(c.reads[i].last_beat, e.reads[i].last_beat) << "read " << i;
  }
  for (size_t i = 0; i < c.writes.size(); ++i) {
    EXPECT_EQ(c.writes[i].last_beat, e.writes[i].last_beat) << "write " << i;
    EXPECT_EQ(c.writes[i].done, e.writes[i].done) << "write " << i;
  }
}

std::vector<Plan> random_plan(uint32_t seed, unsigned n, unsigned max_gap) {
  std::mt19937 rng(seed);
  std::vector<Plan> plan;
  uint64_t at = 0;
  for (unsigned i = 0; i < n; ++i) {
    at += rng() % (max_gap + 1);
    const uint32_t sizes[] = {1, 32, 64, 65, 128, 4096, static_cast<uint32_t>(1 + rng() % 8192)};
    plan.push_back({at, (rng() & 1) != 0, sizes[rng() % 7]});
  }
  return plan;
}

TEST(DmaTimeline, OneReadTakesTheRoundTripThenTheBandwidth) {
  DmaTimeline tl(DmaTiming{}, kBytes);
  const auto r = tl.read(0, 64);
  EXPECT_EQ(r.first_beat, 125u);  // 500 ns at 250 MHz
  EXPECT_EQ(r.last_beat, 125u);
  const auto big = tl.read(10, 4096);  // 64 beats at 52 B/cycle: ~79 cycles after the first
  EXPECT_EQ(big.first_beat, 135u);
  EXPECT_NEAR(double(big.last_beat - big.first_beat), 4096.0 / 52.0, 2.0);
}

TEST(DmaTimeline, EqualsTheCycleModelOnSparseTraffic) { compare(DmaTiming{}, random_plan(1, 400, 300)); }
TEST(DmaTimeline, EqualsTheCycleModelOnBackToBackTraffic) { compare(DmaTiming{}, random_plan(2, 600, 3)); }
TEST(DmaTimeline, EqualsTheCycleModelWhenSlotsRunOut) {
  DmaTiming t;
  t.max_reads = 4;
  compare(t, random_plan(3, 500, 1));
}
TEST(DmaTimeline, EqualsTheCycleModelAtAnotherClockAndBandwidth) {
  DmaTiming t;
  t.clock_mhz = 322.0;
  t.gbytes_per_s = 7.3;
  t.read_latency_ns = 830;
  t.write_latency_ns = 120;
  compare(t, random_plan(4, 400, 40));
}

}  // namespace
}  // namespace rocenic
