#include "sched/scheduler.h"

#include <stdexcept>
#include <string>

namespace rocenic::model {

void Scheduler::wake_at(Process* p, Cycle t) {
  if (t < now_) t = now_;
  const bool queued_not_run = p->armed_at_ == t && !(p->ran_at_ == t && p->armed_seq_ < p->ran_seq_);
  if (queued_not_run) return;
  p->armed_at_ = t;
  p->armed_seq_ = seq_;
  queue_.push({t, seq_++, p});
}

void Scheduler::timer_at(Process* p, Cycle t) { timers_.push({std::max(t, now_), seq_++, p}); }

void Scheduler::run_one() {
  if (!timers_.empty() && (queue_.empty() || timers_.top().at < queue_.top().at)) {
    const Entry e = timers_.top();  // a timer: runs p (an extra run in a cycle is harmless)
    timers_.pop();
    now_ = e.at;
    ++activations_;
    e.p->run();
    return;
  }
  const Entry e = queue_.top();
  queue_.pop();
  now_ = e.at;
  Process* p = e.p;
  if (p->ran_at_ == e.at && e.seq < p->ran_seq_) return;  // that run already saw this wake's cause
  // A model bug that wakes a process in the same cycle for ever is a hang
  // that never advances time: say so instead.
  same_cycle_ = e.at == last_at_ ? same_cycle_ + 1 : 0;
  last_at_ = e.at;
  if (same_cycle_ > kMaxActivationsPerCycle)
    throw std::runtime_error("model: more than " + std::to_string(kMaxActivationsPerCycle) +
                             " activations in cycle " + std::to_string(e.at) + " (a process waking itself for ever)");
  p->ran_at_ = e.at;
  p->ran_seq_ = seq_;  // every wake requested from here on is newer than this run
  ++activations_;
  p->run();
}

void Scheduler::run_until(Cycle t) {
  while (next_event() != kNever && next_event() <= t) run_one();
  if (t > now_) now_ = t;
}

uint64_t Scheduler::run_all(Cycle limit) {
  const uint64_t before = activations_;
  while (next_event() <= limit && next_event() != kNever) run_one();
  return activations_ - before;
}

}  // namespace rocenic::model
