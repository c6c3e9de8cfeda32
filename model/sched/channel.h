// A channel between two processes of the event-driven model: a FIFO of
// time-stamped transactions with credits (docs/architecture.md).
//
// The producer pushes a transaction with the cycle at which it reaches the
// consumer; the consumer is woken for that cycle. Capacity is the RTL's
// buffering on that path (its FIFO depth, or 1 for a registered hand-off):
// a push takes a credit, and the consumer's pop gives it back, after
// credit_delay cycles (the RTL's registered ready), waking the producer if
// it was held back. So backpressure costs what it costs in hardware, without
// any block being evaluated while it waits.
//
// Transactions are moved, never copied per beat: frames and payload travel
// as shared byte buffers (model/sched/bytes.h).
#pragma once

#include <algorithm>
#include <cassert>
#include <cstddef>
#include <deque>
#include <utility>

#include "sched/scheduler.h"

namespace rocenic::model {

template <typename T>
class Channel {
 public:
  Channel(Scheduler& s, unsigned capacity, Cycle credit_delay = 0)
      : s_(s), capacity_(capacity), credit_delay_(credit_delay) {
    assert(capacity > 0);
  }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  void connect(Process* producer, Process* consumer) {
    producer_ = producer;
    consumer_ = consumer;
  }
  void set_producer(Process* p) { producer_ = p; }
  void set_consumer(Process* p) { consumer_ = p; }

  // ---- producer side
  // A credit is free now (a push would not overflow the RTL's buffer).
  bool can_push() {
    release_credits();
    return items_.size() + returning_.size() < capacity_;
  }
  // The cycle at which a credit will be free again (now() if one is).
  Cycle credit_at() {
    release_credits();
    if (items_.size() + returning_.size() < capacity_) return s_.now();
    return returning_.empty() ? kNever : returning_.front();
  }
  // t: when the transaction reaches the consumer (never before an earlier
  // push's: a channel keeps order). Call only when can_push().
  void push(T v, Cycle t) {
    assert(can_push());
    if (t < s_.now()) t = s_.now();
    if (!items_.empty() && t < items_.back().first) t = items_.back().first;
    items_.emplace_back(t, std::move(v));
    if (consumer_) s_.wake_at(consumer_, t);
  }

  // ---- consumer side
  // A transaction has arrived (its cycle is now or earlier).
  bool ready() const { return !items_.empty() && items_.front().first <= s_.now(); }
  // When the oldest transaction arrives (kNever: none in flight).
  Cycle next_at() const { return items_.empty() ? kNever : items_.front().first; }
  const T& front() const { return items_.front().second; }
  T& front() { return items_.front().second; }
  T pop() {
    assert(ready());
    T v = std::move(items_.front().second);
    items_.pop_front();
    ++popped_;
    last_pop_ = s_.now();
    front_taken_ = 0;
    const Cycle back = s_.now() + credit_delay_;
    if (credit_delay_ > 0) returning_.push_back(back);
    if (producer_) s_.wake_at(producer_, back);
    return v;
  }
  // A stage that passes a stream on without buffering it (a mux, an
  // arbiter with no register on the data) forwards a Packet that has not
  // all arrived: it takes the oldest transaction now, even before its cycle
  // (a Packet arrives at its last beat, and a cut-through stage starts on
  // its first), and pushes it on stamped with that cycle (next_at() before
  // the call). Its credit comes back when a pop at its arrival would give it.
  T pop_ahead() {
    assert(!items_.empty());
    const Cycle back = std::max(items_.front().first, s_.now()) + credit_delay_;
    T v = std::move(items_.front().second);
    items_.pop_front();
    ++popped_;
    last_pop_ = s_.now();
    front_taken_ = 0;
    if (back > s_.now()) returning_.push_back(back);
    if (producer_) s_.wake_at(producer_, back);
    return v;
  }
  bool empty() const { return items_.empty(); }
  // Transactions the consumer has taken (pop), and the cycle of the last:
  // a producer that acts on its output's handshake sees when it happened.
  uint64_t popped() const { return popped_; }
  Cycle last_pop() const { return last_pop_; }
  // A stream's consumer took one more beat of the front packet (not its
  // last: that one pops it); its producer is woken, as a block whose buffer
  // frees with each beat leaving.
  void took_beat() {
    ++front_taken_;
    last_beat_at_ = s_.now();
    if (producer_) s_.wake_at(producer_, s_.now());
  }
  // Beats of the front packet taken in cycles before this one (what a
  // register there has seen).
  unsigned front_taken_before() const { return front_taken_ - (front_taken_ != 0 && last_beat_at_ == s_.now() ? 1 : 0); }
  size_t size() const { return items_.size(); }
  unsigned capacity() const { return capacity_; }

 private:
  void release_credits() {
    while (!returning_.empty() && returning_.front() <= s_.now()) returning_.pop_front();
  }

  Scheduler& s_;
  unsigned capacity_;
  Cycle credit_delay_;
  Process* producer_ = nullptr;
  Process* consumer_ = nullptr;
  std::deque<std::pair<Cycle, T>> items_;
  std::deque<Cycle> returning_;  // cycles at which popped transactions' credits come back
  uint64_t popped_ = 0;          // pop()s and pop_ahead()s, and the cycle of the last
  Cycle last_pop_ = 0;
  unsigned front_taken_ = 0;     // beats of the front packet taken (took_beat), and when the last was
  Cycle last_beat_at_ = 0;
};

}  // namespace rocenic::model
