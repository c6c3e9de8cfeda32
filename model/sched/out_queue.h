// Outputs a block has decided but not yet sent: they leave in the order
// they were decided, each no earlier than its own cycle and only when its
// channel has a credit (a full channel holds back everything after it, as
// the RTL's output registers do). Blocks whose outputs are rare (the
// completer's completions and retires) use it; hot paths push straight
// into their channels.
#pragma once

#include <deque>
#include <functional>
#include <utility>

#include "sched/port.h"

namespace rocenic::model {

class OutQueue {
 public:
  template <typename T>
  void add(Out<T>& port, T v, Cycle at) {
    q_.push_back({at,
                  [&port, v = std::move(v)](Cycle t) {
                    if (!port->can_push()) return false;
                    port->push(v, t);
                    return true;
                  },
                  &port});
  }
  // Sends what may leave at `now`; returns the cycle to run again (kNever:
  // nothing left, or the front waits for a credit, whose return wakes the block).
  Cycle send(Cycle now) {
    while (!q_.empty()) {
      if (q_.front().at > now) return q_.front().at;
      if (!q_.front().send(now)) return kNever;
      q_.pop_front();
    }
    return kNever;
  }
  // an output for this port is decided and not yet sent
  bool holds(const void* port) const {
    for (const auto& e : q_)
      if (e.port == port) return true;
    return false;
  }
  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }
  // nothing decided for later than `now` (what is due may still wait for a credit)
  bool due_by(Cycle now) const {
    for (const auto& e : q_)
      if (e.at > now) return false;
    return true;
  }

 private:
  struct Entry {
    Cycle at;
    std::function<bool(Cycle)> send;
    const void* port;
  };
  std::deque<Entry> q_;
};

}  // namespace rocenic::model
