// The engine's glue in the event-driven model: what rtl/common/*_arb.sv,
// loopback_split.sv and rx_dispatch.sv do, as transactions. Each is a small
// process with the RTL's routing rule and its cost (a registered hop, and a
// packet's beats on a shared stream), not the RTL's handshakes.
#pragma once

#include <deque>
#include <functional>

#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

// Two producers, one consumer: transactions leave in the order they
// arrived (same cycle: input 0 first), each `latency` cycles after its
// arrival at the earliest, and no faster than the output stream takes
// their beats (`beats` of a transaction; descriptors: 1).
template <typename T>
class Merge : public Process {
 public:
  Merge(Scheduler& s, Cycle latency, std::function<Cycle(const T&)> beats = nullptr, unsigned capacity = 1,
        unsigned capacity1 = 0)  // (input 1's, when it differs)
      : in0(s, this, capacity),
        in1(s, this, capacity1 ? capacity1 : capacity),
        s_(s),
        latency_(latency),
        beats_(std::move(beats)) {}
  In<T> in0, in1;
  Out<T> out{this};
  // sees (and may mark) every transaction, with the input it came from
  // (counters; an arbiter's tag naming the client)
  std::function<void(T&, int input)> on_pass;

  void run() override {
    const Cycle now = s_.now();
    for (;;) {
      const int pick = first_arrived({in0.next_at(), in1.next_at()}, now);
      if (pick < 0 || !out->can_push()) return;  // (the consumer's pop wakes us)
      In<T>& in = pick == 0 ? in0 : in1;
      const Cycle n = beats_ ? std::max<Cycle>(beats_(in.front()), 1) : 1;
      // a packet streams through: its last beat leaves `latency` after it
      // arrived, unless the output is still busy with the one before
      const Cycle last = std::max(in.next_at() + latency_, free_ + n - 1);
      T v = in.pop();
      if (on_pass) on_pass(v, pick);
      out->push(std::move(v), std::max(last, now));
      free_ = std::max(last, now) + 1;
    }
  }

 private:
  Scheduler& s_;
  Cycle latency_;
  std::function<Cycle(const T&)> beats_;
  Cycle free_ = 0;
};

// One producer, two consumers: each transaction to output 0 or 1 by a rule.
template <typename T>
class Split : public Process {
 public:
  Split(Scheduler& s, Cycle latency, std::function<bool(const T&)> to_one, unsigned capacity = 1)
      : in(s, this, capacity), s_(s), latency_(latency), to_one_(std::move(to_one)) {}
  In<T> in;
  Out<T> out0{this}, out1{this};
  std::function<void(T&, bool)> on_pass;  // sees (and may mark) every transaction, and whether it went to output 1

  void run() override {
    const Cycle now = s_.now();
    while (in.ready()) {
      const bool one = to_one_(in.front());
      Out<T>& o = one ? out1 : out0;
      if (!o->can_push()) return;
      const Cycle t = std::max(in.next_at() + latency_, now);
      T v = in.pop();
      if (on_pass) on_pass(v, one);
      o->push(std::move(v), t);
    }
  }

 private:
  Scheduler& s_;
  Cycle latency_;
  std::function<bool(const T&)> to_one_;
};

// A short queue between two blocks (rtl/common/fifo_fwft.sv): a push is
// taken while fewer than `depth` wait in its memory (the producer sees its
// push taken then), and reaches the consumer two cycles later (the write,
// then the registered read into the head register, which is the consumer's
// channel); the head refills the cycle after the consumer takes it.
template <typename T>
class Fwft : public Process {
 public:
  Fwft(Scheduler& s, unsigned depth) : in(s, this, 1), s_(s), depth_(depth) {}
  In<T> in;
  Out<T> out{this};

  void run() override {
    const Cycle now = s_.now();
    for (bool moved = true; moved;) {
      moved = false;
      while (!leaving_.empty() && leaving_.front() <= now) leaving_.pop_front();
      if (in.ready() && mem_.size() + leaving_.size() < depth_) {
        mem_.emplace_back(now, in.pop());
        moved = true;
      }
      if (!mem_.empty() && out->can_push()) {
        // (loaded into the head once it is empty or being taken: a memory
        // slot frees as the head takes it)
        const Cycle at = std::max({mem_.front().first + 2, out->last_pop() + 1, now});
        out->push(std::move(mem_.front().second), at);
        mem_.pop_front();
        leaving_.push_back(at);
        moved = true;
      }
    }
    if (in.ready() && !leaving_.empty()) s_.wake_at(this, leaving_.front());
  }

 private:
  Scheduler& s_;
  unsigned depth_;
  std::deque<std::pair<Cycle, T>> mem_;  // taken (the cycle), not yet in the head
  std::deque<Cycle> leaving_;            // slots of those in the head from these cycles on
};

// Received request headers and their payload (rtl/common/rx_dispatch.sv):
// responses to the completer (a READ response's payload to read_place, any
// other response's dropped), every other packet (header, and payload when
// it has one) to the responder. An ATOMIC ACKNOWLEDGE goes to the completer
// with pay_len 8, and read_place gets an 8-byte payload made of its
// AtomicAckETH original value (little-endian, as the host stores a uint64)
// in its place in the payload order (docs/engine.md, "Atomics").
// As the RTL's, a header does not wait for its payload: it leaves the
// payload's destination in a queue of kDepth, which the payloads follow
// (a Packet arrives at its last beat; passed on then, the consumers see
// its first beat where the RTL's do).
class RxDispatch : public Process {
 public:
  static constexpr Cycle kLatency = 0;  // (rtl/common/rx_dispatch.sv passes headers and payload combinationally)
  static constexpr unsigned kDepth = 4;  // payloads announced, not yet through (rx_dispatch DEPTH)
  explicit RxDispatch(Scheduler& s) : hdr(s, this, 2), pay(s, this, 2), s_(s) {}
  In<spec::RoceRxHdr> hdr;
  In<Packet> pay;
  Out<spec::RoceRxHdr> ack{this}, req{this};
  Out<Packet> req_pay{this}, rsp_pay{this};
  void run() override;

 private:
  // Where the next payload goes: to (nullptr: dropped), or an ATOMIC
  // ACKNOWLEDGE's 8 bytes made here (no parser payload), not before cycle at.
  struct Dest {
    Out<Packet>* to = nullptr;
    bool atomic = false;
    uint64_t orig = 0;
    Cycle at = 0;
  };
  void pass_payloads(Cycle now);  // as far as the next one can move
  Scheduler& s_;
  std::deque<Dest> dest_;
};

// A UD datagram's receive buffer starts with its 40-byte GRH
// (rtl/common/ud_grh_insert.sv, model/net/ud_grh.h): between rx_dispatch and
// the responder, a UD request's header gets pay_len + 40 and its payload the
// GRH in front (a datagram without payload gets the GRH alone); other
// packets pass as they are.
// A header does not wait for its payload (as in RxDispatch): what each
// payload becomes is queued, and the payloads follow.
class UdGrhInsert : public Process {
 public:
  static constexpr Cycle kLatency = 0;  // (a header passes combinationally; the payload behind the gather's register)
  static constexpr unsigned kDepth = 4;  // payloads announced, not yet through (ud_grh_insert DEPTH)
  UdGrhInsert(Scheduler& s, unsigned data_bytes) : hdr(s, this, 2), pay(s, this, 2), s_(s), bytes_(data_bytes) {}
  In<spec::RoceRxHdr> hdr;
  In<Packet> pay;
  Out<spec::RoceRxHdr> hdr_out{this};
  Out<Packet> pay_out{this};
  void run() override;

 private:
  // The next payload out: the parser's (parsed), behind a GRH (grh: a UD
  // datagram's, made from its header), not before cycle at.
  struct Next {
    bool parsed = false, grh = false;
    spec::RoceRxHdr h;
    Cycle at = 0;
  };
  void pass_payloads();  // as far as the next one can move
  Scheduler& s_;
  unsigned bytes_;
  std::deque<Next> next_;
};

// The MR checks of three clients to one table (rtl/common/mr_arb.sv): two
// Merges mark tag bits 7:6 with the client (requester 0, responder 1,
// read_place 2), two Splits send each answer back by them.
// DMA reads (rtl/common/dma_rd_arb.sv): three Merges set the tag to the
// client (requester 0, responder 1, the responder's READ data 2,
// read_place 3), three Splits route the read data back by its tid.

// The TX header arbiter (rtl/common/tx_arb.sv): headers of the responder
// (0: ACK/NAKs, READ responses) and the requester (1) in the order they
// arrived (same cycle: the responder's first); a header with a payload
// leaves with its Packet from the same source, so the deparser gets the
// payloads in header order. A header does not wait for its payload (the
// deparser streams it as it comes): the payload follows before the next
// header goes.
class TxArb : public Process {
 public:
  static constexpr Cycle kLatency = 1;
  explicit TxArb(Scheduler& s) : hdr0(s, this, 1), pay0(s, this, 2), hdr1(s, this, 1), pay1(s, this, 2), s_(s) {}
  In<spec::RoceTxHdr> hdr0;
  In<Packet> pay0;
  In<spec::RoceTxHdr> hdr1;
  In<Packet> pay1;
  Out<spec::RoceTxHdr> hdr{this};
  Out<Packet> pay{this};
  std::function<void(spec::RoceTxHdr&, int input)> on_pass;  // sees every header, with its source
  void run() override;

 private:
  Scheduler& s_;
  int fwd_ = -1;  // the source whose payload goes next (its header has gone)
};

// DMA writes of three clients (rtl/common/dma_wr_arb.sv): the responder
// (0), the CQ writer (1) and read_place (2), one whole request and its data
// at a time, in the order they asked; tag = client; write-done errors
// counted. As the RTL's, a write is granted once its request and its first
// data beat are there (a Packet arrives at its last beat: its first came
// beats - 1 cycles before), and its data passes through.
class DmaWriteArb : public Process {
 public:
  static constexpr Cycle kLatency = 0;  // (rtl/common/dma_wr_arb.sv is combinational)
  DmaWriteArb(Scheduler& s, unsigned data_bytes)
      : req0(s, this, 2), data0(s, this, 2), req1(s, this, 1), data1(s, this, 1), req2(s, this, 2),
        data2(s, this, 2), done(s, this, 64), s_(s), bytes_(data_bytes) {}
  In<spec::DmaWrReq> req0;
  In<Packet> data0;
  In<spec::DmaWrReq> req1;
  In<Packet> data1;
  In<spec::DmaWrReq> req2;
  In<Packet> data2;
  Out<spec::DmaWrReq> m_req{this};
  Out<Packet> m_data{this};
  In<uint8_t> done;  // bit 0: error
  uint32_t errors() const { return err_; }
  void run() override;

 private:
  Scheduler& s_;
  unsigned bytes_;
  Cycle free_ = 0;
  uint32_t err_ = 0;
  int fwd_ = -1;        // the client whose data went on but is not yet taken from it
  Cycle fwd_last_ = 0;  // ... when its last beat went on
};

}  // namespace rocenic::model
