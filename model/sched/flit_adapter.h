// A block of the event-driven model seen as a cycle-level rocenic::Block:
// its channels turned back into valid/ready flits (the transactor of
// docs/architecture.md). Block cross-checks (sim/xcheck.h) run a model block
// through it against its Verilated RTL, with the same random idle cycles
// and backpressure as before the model was event-driven.
//
// Timing at the boundary: a channel's stamp is the cycle of the handshake
// that completes the transaction (a descriptor's, a packet's last beat).
// A descriptor taken at cycle c, or a packet whose last beat is taken at c,
// enters the block's channel stamped c; an output transaction is offered so
// that its last beat could go at its stamp, one beat per cycle. So a block
// whose latency is L answers L cycles after the handshake, as its RTL does
// (at least 1: the adapter registers). Input ports are ready while the
// channel has a credit; output channels hold `capacity` transactions (the
// RTL's output registers).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/block.h"
#include "common/desc_flit.h"
#include "sched/port.h"
#include "sched/scheduler.h"

namespace rocenic::model {

class FlitAdapter : public rocenic::Block {
 public:
  // build() creates the block on a.sched() and declares its ports in Block
  // order; it runs again on every reset() (a fresh block and scheduler).
  using Build = std::function<void(FlitAdapter& a)>;
  FlitAdapter(unsigned data_bytes, Build build);
  ~FlitAdapter() override;

  Scheduler& sched() { return *sched_; }
  unsigned data_bytes() const { return bytes_; }

  // ---- for build()
  template <typename B, typename... Args>
  B* make(Args&&... args) {
    auto b = std::make_unique<B>(*sched_, std::forward<Args>(args)...);
    B* raw = b.get();
    block_ = std::shared_ptr<void>(std::move(b));
    return raw;
  }
  template <typename T>
  void in(const char* name, Channel<T>& ch, unsigned bytes = (T::kBits + 7) / 8,
          std::function<T(const Flit&)> decode = desc_from_flit<T>) {
    add_in({name, false, true, bytes}, [&ch](const Flit&) { return ch.can_push(); },
           [&ch, decode](std::vector<Flit>& beats, Cycle t) { ch.push(decode(beats.front()), t); });
  }
  // An input the block refuses while `accepts` says no to what is offered
  // (the completer holds back an sq_track for a full window).
  template <typename T>
  void in_when(const char* name, Channel<T>& ch, std::function<bool(const T&)> accepts,
               unsigned bytes = (T::kBits + 7) / 8, std::function<T(const Flit&)> decode = desc_from_flit<T>) {
    add_in({name, false, true, bytes},
           [&ch, accepts, decode](const Flit& f) { return ch.can_push() && accepts(decode(f)); },
           [&ch, decode](std::vector<Flit>& beats, Cycle t) { ch.push(decode(beats.front()), t); });
  }
  void in_stream(const char* name, Channel<Packet>& ch);
  // What input `port` (Block order) offers in the cycle being clocked, not
  // yet taken: a predicate of another input may depend on it, as an RTL
  // ready may depend on another input's valid (the responder takes a
  // header in the cycle an MR answer ends the packet before it).
  bool offered(unsigned port) const { return ins_[port].valid; }
  const Flit& offer(unsigned port) const { return ins_[port].flit; }
  // A stream without tlast whose packet lengths another port's descriptors
  // give (the deparser's payload: its header says how long it is): beats
  // are taken only once the length is known; a packet is its first `len`
  // bytes, lanes beyond them ignored.
  using Lengths = std::shared_ptr<std::deque<size_t>>;
  void in_stream_sized(const char* name, Channel<Packet>& ch, Lengths lengths);
  // A descriptor input that announces the length of the packet it comes with.
  template <typename T>
  void in_announcing(const char* name, Channel<T>& ch, Lengths lengths, std::function<size_t(const T&)> len_of) {
    add_in({name, false, true, (T::kBits + 7) / 8}, [&ch](const Flit&) { return ch.can_push(); },
           [&ch, lengths, len_of](std::vector<Flit>& beats, Cycle t) {
             T v = desc_from_flit<T>(beats.front());
             if (const size_t n = len_of(v)) lengths->push_back(n);
             ch.push(std::move(v), t);
           });
  }
  template <typename T>
  void out(const char* name, Out<T>& port, unsigned capacity = 1, unsigned bytes = (T::kBits + 7) / 8,
           std::function<Flit(const T&)> encode = desc_to_flit<T>) {
    auto ch = std::make_shared<Channel<T>>(*sched_, capacity);
    port.bind(*ch);
    Channel<T>* c = ch.get();
    add_out({name, false, true, bytes}, ch, [c] { return c->ready(); },
            [c, encode] { return std::vector<Flit>{encode(c->front())}; }, [c] { c->pop(); },
            [c] { return c->empty(); });
  }
  void out_stream(const char* name, Out<Packet>& port, unsigned capacity = 1);
  // The last out_stream's source stalls: held(a, b) counts the cycles in
  // [a, b] its stage could not move (its beats then come that much later).
  void stall_last_stream(std::function<Cycle(Cycle, Cycle)> held) { last_stream_->held = std::move(held); }
  // An event output the block never holds back (has_ready = false in PortInfo).
  template <typename T>
  void out_event(const char* name, Out<T>& port, unsigned capacity = 1, unsigned bytes = (T::kBits + 7) / 8,
                 std::function<Flit(const T&)> encode = desc_to_flit<T>) {
    out(name, port, capacity, bytes, std::move(encode));
    outs_.back().info.has_ready = false;
  }
  void counters_from(std::function<std::vector<std::pair<std::string, uint32_t>>()> f) { counters_ = std::move(f); }
  // Work the block holds that no channel shows (e.g. a table being cleared).
  void busy_from(std::function<bool()> f) { busy_ = std::move(f); }
  // At most one of these inputs (port numbers, highest priority first) is
  // taken a cycle: one the block would take is refused while a port before
  // it is offered and would be taken too (an RTL FSM that takes one input
  // in its idle state, by fixed priority).
  void one_input_per_cycle(std::vector<unsigned> by_priority) { one_of_ = std::move(by_priority); }
  template <typename B>
  B* block() const {
    return static_cast<B*>(block_.get());
  }

  // ---- rocenic::Block
  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { outs_[port].ready = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return sched_->now(); }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return counters_ ? counters_() : std::vector<std::pair<std::string, uint32_t>>{};
  }
  bool idle() const override;

 private:
  struct InPort {
    PortInfo info;
    std::function<bool(const Flit&)> can_push;  // of the flit offered
    std::function<void(std::vector<Flit>&, Cycle)> push;
    std::function<bool(const std::vector<Flit>&)> complete;  // the packet's last beat is in (default: tlast)
    std::vector<Flit> beats;  // of the packet being taken
    bool valid = false;
    Flit flit;
  };
  struct OutPort {
    PortInfo info;
    std::shared_ptr<void> channel;
    std::function<bool()> has;
    std::function<std::vector<Flit>()> flits;
    std::function<void()> pop;
    std::function<bool()> empty;
    std::function<void()> beat_fn;  // (a stream: a beat before its last taken)
    std::vector<Flit> cur;  // beats of the front transaction, once asked for
    size_t beat = 0;
    bool ready = false;
  };
  void add_in(PortInfo info, std::function<bool(const Flit&)> can_push,
              std::function<void(std::vector<Flit>&, Cycle)> push);
  void add_out(PortInfo info, std::shared_ptr<void> ch, std::function<bool()> has,
               std::function<std::vector<Flit>()> flits, std::function<void()> pop, std::function<bool()> empty);
  void build();

  unsigned bytes_;
  Build build_;
  std::unique_ptr<Scheduler> sched_;
  std::shared_ptr<void> block_;
  std::vector<InPort> ins_;
  std::vector<OutPort> outs_;
  struct StreamProgress {
    size_t beat = 0;       // beats of the front packet taken
    Cycle last_take = 0;   // the cycle of the last beat taken
    bool offered = false;  // the next beat is offered (it stays until taken)
    std::function<Cycle(Cycle, Cycle)> held;
  };
  std::shared_ptr<StreamProgress> last_stream_;

  std::vector<PortInfo> in_info_, out_info_;
  std::function<std::vector<std::pair<std::string, uint32_t>>()> counters_;
  std::function<bool()> busy_;
  std::vector<unsigned> one_of_;
  bool can_take(unsigned port);  // the port's own readiness, before one_of_
};

}  // namespace rocenic::model
