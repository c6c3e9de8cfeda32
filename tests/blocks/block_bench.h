// A small directed-test bench for one Block (RTL adapter or model): queue
// flits on inputs, clock, collect what leaves each output. Inputs hold a flit
// once offered until it is taken; outputs may be stalled at random. It also
// checks the valid/ready rule on every output with a ready: a flit offered
// and not taken must be offered again, unchanged, in the next cycle.
#pragma once

#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "common/block.h"

namespace rocenic::test {

class Bench {
 public:
  explicit Bench(Block& b, uint64_t seed = 1, double in_idle = 0.0, double out_stall = 0.0)
      : b_(b), rng_(seed), in_idle_(in_idle), out_stall_(out_stall) {
    q_.resize(b.inputs().size());
    offering_.resize(b.inputs().size(), false);
    out.resize(b.outputs().size());
    held_.resize(b.outputs().size());
    holding_.resize(b.outputs().size(), false);
  }
  void push(unsigned port, const Flit& f) { q_[port].push_back(f); }
  void push(unsigned port, const std::vector<Flit>& fs) {
    for (const Flit& f : fs) q_[port].push_back(f);
  }
  size_t pending(unsigned port) const { return q_[port].size(); }
  bool inputs_empty() const {
    for (const auto& q : q_)
      if (!q.empty()) return false;
    return true;
  }
  // One clock cycle; true if anything moved.
  bool step() {
    static const Flit kIdle{};
    bool moved = false;
    for (unsigned p = 0; p < q_.size(); ++p) {
      if (!offering_[p] && !q_[p].empty()) offering_[p] = std::bernoulli_distribution(1.0 - in_idle_)(rng_);
      b_.set_input(p, offering_[p], offering_[p] ? q_[p].front() : kIdle);
    }
    std::vector<bool> ready(out.size());
    for (unsigned p = 0; p < out.size(); ++p) {
      ready[p] = !b_.outputs()[p].has_ready || std::bernoulli_distribution(1.0 - out_stall_)(rng_);
      b_.set_output_ready(p, ready[p]);
    }
    b_.eval();
    for (unsigned p = 0; p < out.size(); ++p) {
      const bool v = b_.output_valid(p);
      if (holding_[p] && (!v || !(b_.output(p) == held_[p])) && stable_error.empty())
        stable_error = "output " + b_.outputs()[p].name + " changed or dropped a flit it offered, cycle " +
                       std::to_string(b_.cycle());
      holding_[p] = false;
      if (!v) continue;
      if (ready[p]) {
        out[p].push_back(b_.output(p));
        moved = true;
      } else if (b_.outputs()[p].has_ready) {
        holding_[p] = true;
        held_[p] = b_.output(p);
      }
    }
    for (unsigned p = 0; p < q_.size(); ++p)
      if (offering_[p] && b_.input_ready(p)) {
        q_[p].pop_front();
        offering_[p] = false;
        moved = true;
      }
    b_.clock();
    return moved;
  }
  void run(uint64_t cycles) {
    for (uint64_t i = 0; i < cycles; ++i) step();
  }
  // Run until the inputs are drained and nothing moved for `quiet` cycles.
  void settle(uint64_t quiet = 64, uint64_t max_cycles = 1'000'000) {
    uint64_t still = 0;
    for (uint64_t i = 0; i < max_cycles && still < quiet; ++i) still = (step() || !inputs_empty()) ? 0 : still + 1;
  }

  std::vector<std::vector<Flit>> out;  // per output port, in order
  std::string stable_error;            // first valid/ready violation seen

 private:
  Block& b_;
  std::mt19937_64 rng_;
  double in_idle_, out_stall_;
  std::vector<std::deque<Flit>> q_;
  std::vector<bool> offering_;
  std::vector<Flit> held_;
  std::vector<bool> holding_;
};

}  // namespace rocenic::test
