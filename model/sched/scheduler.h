// The event-driven kernel of the reference model (docs/architecture.md,
// "The model's scheduler").
//
// A Scheduler owns simulated time, counted in engine clock cycles. A Process
// (one engine block) runs only when something wakes it: a transaction
// reaching one of its input channels, a credit returning to one of its
// output channels, or a deadline of its own (wake_at). Between events time
// jumps: a 125-cycle DMA round trip costs one event, not 125 evaluations.
//
// Order is deterministic: activations run by cycle, then by the order in
// which they were requested. Wakes for one cycle that a process has not yet
// run for merge into one run; a wake that arrives while or after it ran in
// that cycle (a zero-latency hand-off) runs it once more. Nothing here is global: every engine has its own scheduler,
// and a process can hold any number of them (benches run two engines in
// lockstep, a multi-node platform many).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

namespace rocenic::model {

using Cycle = uint64_t;
inline constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

class Scheduler;

class Process {
 public:
  virtual ~Process() = default;
  // Runs at sched.now(): takes what has arrived, emits what is due, and
  // re-arms itself (wake_at) if it has work for a later cycle.
  virtual void run() = 0;

 private:
  friend class Scheduler;
  // The last entry queued for this process, and the last run: an entry
  // requested before the process ran in its cycle is stale (that run saw
  // its cause), one requested after must run.
  Cycle armed_at_ = kNever, ran_at_ = kNever;
  uint64_t armed_seq_ = 0, ran_seq_ = 0;
};

class Scheduler {
 public:
  Cycle now() const { return now_; }
  // Run p at cycle t (t < now() means now()). Cheap to call often: wakes
  // for a cycle p is already queued for, and not yet run for, add nothing.
  void wake_at(Process* p, Cycle t);
  void wake(Process* p) { wake_at(p, now_); }
  // A timer of p due at cycle t: runs p then like wake_at, but does not
  // count as work: idle() ignores timers not yet due, so a simulation may
  // stop the clock while only timers wait (and jump to next_timer()).
  // Entries are not merged; a process keeps at most a few queued.
  void timer_at(Process* p, Cycle t);
  // The earliest queued timer (kNever: none).
  Cycle next_timer() const { return timers_.empty() ? kNever : timers_.top().at; }
  // A block busy until cycle t: true (and p runs again at t) while now() < t.
  bool defer(Process* p, Cycle t) {
    if (now_ >= t) return false;
    wake_at(p, t);
    return true;
  }
  // The cycle of the earliest queued activation, timers included (kNever: nothing to do).
  Cycle next_event() const { return std::min(queue_.empty() ? kNever : queue_.top().at, next_timer()); }
  // Nothing queued but timers not yet due.
  bool idle() const { return queue_.empty() && next_timer() > now_; }
  // Runs every activation due at or before t, in order, and leaves now() at t.
  void run_until(Cycle t);
  // Runs until nothing is queued or the next event lies past `limit`; now()
  // ends at the last event run. Returns the number of activations.
  uint64_t run_all(Cycle limit = kNever);
  // Activations run so far (a figure for benches: events, not cycles).
  uint64_t activations() const { return activations_; }

 private:
  struct Entry {
    Cycle at;
    uint64_t seq;  // request order within a cycle
    Process* p;
    bool operator>(const Entry& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void run_one();  // pops the earliest entry; runs its process unless stale

  static constexpr uint64_t kMaxActivationsPerCycle = 1'000'000;
  Cycle now_ = 0, last_at_ = kNever;
  uint64_t seq_ = 0, activations_ = 0, same_cycle_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue_, timers_;
};

}  // namespace rocenic::model
