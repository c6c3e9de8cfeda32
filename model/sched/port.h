// How a block of the event-driven model names its ports (docs/architecture.md).
//
// A block owns its input channels (their capacity is its own buffering, as
// in the RTL) and holds an Out<T> per output: a reference to the consumer's
// channel, bound when the engine (or a test's FlitAdapter) wires it up.
// Stream ports (frames, payload, DMA data) carry one Packet per AXI-Stream
// packet, by reference.
#pragma once

#include <cassert>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "sched/bytes.h"
#include "sched/channel.h"

namespace rocenic::model {

// One AXI-Stream packet: its bytes from lane 0 on, and the sideband the RTL
// carries with it (tuser: a bad frame on RX, poisoned DMA read data; tid:
// the DMA read tag).
struct Packet {
  Bytes data;
  bool user = false;
  uint8_t id = 0;
  // (a block's stream output whose beats do not leave one a cycle: each
  // beat's cycle from the first's; a stalled beat keeps the gaps after it.
  // Empty: one a cycle.)
  std::vector<uint16_t> beat_at{};
};

template <typename T>
class Out {
 public:
  explicit Out(Process* owner) : owner_(owner) {}
  void bind(Channel<T>& ch) {
    ch_ = &ch;
    ch.set_producer(owner_);
  }
  bool bound() const { return ch_ != nullptr; }
  Channel<T>& operator*() const {
    assert(ch_);
    return *ch_;
  }
  Channel<T>* operator->() const {
    assert(ch_);
    return ch_;
  }

 private:
  Process* owner_;
  Channel<T>* ch_ = nullptr;
};

// An output that goes to several consumers at once (a broadcast, as
// roce_cmd's qp_cfg to requester, responder and completer): a push needs a
// credit on every channel.
template <typename T>
class OutAll {
 public:
  explicit OutAll(Process* owner) : owner_(owner) {}
  void bind(Channel<T>& ch) {
    chs_.push_back(&ch);
    ch.set_producer(owner_);
  }
  bool can_push() const {
    for (Channel<T>* c : chs_)
      if (!c->can_push()) return false;
    return true;
  }
  void push(const T& v, Cycle t) {
    for (Channel<T>* c : chs_) c->push(v, t);
  }

 private:
  Process* owner_;
  std::vector<Channel<T>*> chs_;
};

// Of inputs whose oldest transactions arrive at the cycles `at` (kNever:
// none waiting), the one that arrived first, by `now`; ties go to the lower
// index (the RTL's fixed priority between its ports). -1: none has arrived.
inline int first_arrived(std::initializer_list<Cycle> at, Cycle now) {
  int pick = -1, i = 0;
  Cycle best = kNever;
  for (const Cycle t : at) {
    if (t <= now && (pick < 0 || t < best)) {
      pick = i;
      best = t;
    }
    ++i;
  }
  return pick;
}

// The first of several inputs, in priority order, that is there at `now`
// (-1: none): an RTL arbiter with fixed priority among the valid ones.
inline int first_ready(std::initializer_list<Cycle> at, Cycle now) {
  int i = 0;
  for (const Cycle t : at) {
    if (t <= now) return i;
    ++i;
  }
  return -1;
}

// An input channel that wakes its owner.
template <typename T>
class In : public Channel<T> {
 public:
  In(Scheduler& s, Process* owner, unsigned capacity, Cycle credit_delay = 0) : Channel<T>(s, capacity, credit_delay) {
    this->set_consumer(owner);
  }
};

}  // namespace rocenic::model
