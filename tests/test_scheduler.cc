// The event-driven kernel of the model (model/sched/): time jumps to the next
// event, processes run only when woken, wakes merge, order is deterministic,
// channels keep order and model the RTL's buffering with credits, and two
// schedulers in one process do not see each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sched/bytes.h"
#include "sched/channel.h"
#include "sched/scheduler.h"

namespace rocenic::model {
namespace {

// Records the cycles it ran at; optionally re-arms itself.
struct Recorder : Process {
  Scheduler& s;
  std::vector<Cycle> runs;
  Cycle period = 0;
  unsigned left = 0;
  explicit Recorder(Scheduler& sc) : s(sc) {}
  void run() override {
    runs.push_back(s.now());
    if (left > 0) {
      --left;
      s.wake_at(this, s.now() + period);
    }
  }
};

TEST(Scheduler, JumpsToTheNextEventWithoutVisitingIdleCycles) {
  Scheduler s;
  Recorder r(s);
  r.period = 1000;
  r.left = 3;
  s.wake_at(&r, 125);
  EXPECT_EQ(s.next_event(), 125u);
  const uint64_t n = s.run_all();
  EXPECT_EQ(n, 4u);  // four activations for 3125 simulated cycles
  EXPECT_EQ(r.runs, (std::vector<Cycle>{125, 1125, 2125, 3125}));
  EXPECT_EQ(s.now(), 3125u);
  EXPECT_TRUE(s.idle());
  EXPECT_EQ(s.next_event(), kNever);
}

TEST(Scheduler, RunUntilStopsAtTheGivenCycleAndKeepsLaterEvents) {
  Scheduler s;
  Recorder r(s);
  s.wake_at(&r, 10);
  s.wake_at(&r, 50);
  s.run_until(20);
  EXPECT_EQ(r.runs, (std::vector<Cycle>{10}));
  EXPECT_EQ(s.now(), 20u);
  EXPECT_EQ(s.next_event(), 50u);
  s.run_until(50);
  EXPECT_EQ(r.runs, (std::vector<Cycle>{10, 50}));
}

TEST(Scheduler, WakesForTheSameCycleMergeIntoOneRun) {
  Scheduler s;
  Recorder r(s);
  for (int i = 0; i < 5; ++i) s.wake_at(&r, 7);
  s.run_all();
  EXPECT_EQ(r.runs, (std::vector<Cycle>{7}));
  EXPECT_EQ(s.activations(), 1u);
}

TEST(Scheduler, AWakeInThePastRunsNow) {
  Scheduler s;
  Recorder r(s);
  s.run_until(100);
  s.wake_at(&r, 3);
  s.run_all();
  EXPECT_EQ(r.runs, (std::vector<Cycle>{100}));
}

// A zero-latency hand-off: B wakes A for the cycle A has already run in.
struct PingBack : Process {
  Scheduler& s;
  Process* other = nullptr;
  std::vector<std::string>* log;
  std::string name;
  int bounces = 0;
  PingBack(Scheduler& sc, std::vector<std::string>* l, std::string n) : s(sc), log(l), name(std::move(n)) {}
  void run() override {
    log->push_back(name + "@" + std::to_string(s.now()));
    if (bounces-- > 0) s.wake(other);
  }
};

TEST(Scheduler, AWakeAfterARunInTheSameCycleRunsAgainInOrder) {
  Scheduler s;
  std::vector<std::string> log;
  PingBack a(s, &log, "a"), b(s, &log, "b");
  a.other = &b;
  b.other = &a;
  a.bounces = 1;
  b.bounces = 1;
  s.wake_at(&a, 4);
  s.run_all();
  EXPECT_EQ(log, (std::vector<std::string>{"a@4", "b@4", "a@4"}));
}

TEST(Scheduler, SameCycleActivationsRunInRequestOrder) {
  Scheduler s;
  std::vector<std::string> log;
  PingBack a(s, &log, "a"), b(s, &log, "b"), c(s, &log, "c");
  s.wake_at(&c, 9);
  s.wake_at(&a, 9);
  s.wake_at(&b, 9);
  s.run_all();
  EXPECT_EQ(log, (std::vector<std::string>{"c@9", "a@9", "b@9"}));
}

TEST(Scheduler, TwoSchedulersInOneProcessAreIndependent) {
  Scheduler s1, s2;
  Recorder r1(s1), r2(s2);
  s1.wake_at(&r1, 5);
  s2.wake_at(&r2, 500);
  s1.run_all();
  EXPECT_EQ(s1.now(), 5u);
  EXPECT_EQ(s2.now(), 0u);
  EXPECT_TRUE(r2.runs.empty());
  s2.run_all();
  EXPECT_EQ(r2.runs, (std::vector<Cycle>{500}));
}

// A producer that pushes `total` transactions as fast as credits allow, each
// arriving `latency` cycles later; a consumer that takes one every `every`
// cycles.
struct Producer : Process {
  Scheduler& s;
  Channel<int>& ch;
  int next = 0, total = 0;
  Cycle latency = 0;
  std::vector<Cycle> pushed;
  Producer(Scheduler& sc, Channel<int>& c) : s(sc), ch(c) {}
  void run() override {
    while (next < total && ch.can_push()) {
      pushed.push_back(s.now());
      ch.push(next++, s.now() + latency);
    }
  }
};
struct Consumer : Process {
  Scheduler& s;
  Channel<int>& ch;
  Cycle every = 1, busy_until = 0;
  std::vector<std::pair<Cycle, int>> got;
  Consumer(Scheduler& sc, Channel<int>& c) : s(sc), ch(c) {}
  void run() override {
    if (s.now() < busy_until) {
      s.wake_at(this, busy_until);
      return;
    }
    if (!ch.ready()) return;  // the channel wakes us when its next item arrives
    got.emplace_back(s.now(), ch.pop());
    busy_until = s.now() + every;
    if (!ch.empty()) s.wake_at(this, std::max(busy_until, ch.next_at()));
  }
};

TEST(Channel, DeliversInOrderAtTheArrivalCycle) {
  Scheduler s;
  Channel<int> ch(s, 8);
  Producer p(s, ch);
  Consumer c(s, ch);
  ch.connect(&p, &c);
  p.total = 3;
  p.latency = 125;
  s.wake(&p);
  s.run_all();
  EXPECT_EQ(c.got, (std::vector<std::pair<Cycle, int>>{{125, 0}, {126, 1}, {127, 2}}));
}

TEST(Channel, CreditsHoldTheProducerBackUntilTheConsumerTakes) {
  Scheduler s;
  Channel<int> ch(s, 2);  // the RTL buffers two
  Producer p(s, ch);
  Consumer c(s, ch);
  ch.connect(&p, &c);
  p.total = 5;
  c.every = 10;
  s.wake(&p);
  s.run_all();
  ASSERT_EQ(c.got.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(c.got[i].second, i);
  // Two go at once; each later one waits for a pop's credit.
  EXPECT_EQ(p.pushed, (std::vector<Cycle>{0, 0, 0, 10, 20}));
  EXPECT_EQ(c.got.back().first, 40u);
}

TEST(Channel, ACreditDelayModelsARegisteredReady) {
  Scheduler s;
  Channel<int> ch(s, 1, 2);
  Producer p(s, ch);
  Consumer c(s, ch);
  ch.connect(&p, &c);
  p.total = 3;
  s.wake(&p);
  s.run_all();
  EXPECT_EQ(p.pushed, (std::vector<Cycle>{0, 2, 4}));
  EXPECT_EQ(ch.credit_at(), s.now());
}

TEST(Channel, ArrivalsNeverOvertakeEarlierOnes) {
  Scheduler s;
  Channel<int> ch(s, 4);
  Consumer c(s, ch);
  ch.connect(nullptr, &c);
  ch.push(1, 50);
  ch.push(2, 10);  // would overtake: it arrives with the first
  s.run_all();
  EXPECT_EQ(c.got, (std::vector<std::pair<Cycle, int>>{{50, 1}, {51, 2}}));
}

TEST(Bytes, IsSharedNotCopied) {
  const Bytes a(std::vector<uint8_t>{1, 2, 3});
  const Bytes b = a;
  EXPECT_EQ(a.data(), b.data());
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b[2], 3);
  EXPECT_TRUE(Bytes().empty());
}

}  // namespace
}  // namespace rocenic::model
