// A hostile wire: seeded, reproducible faults on the frames one member sends.
//
// Each frame handed to the wire meets, in this order and independently:
//   loss     dropped (never delivered);
//   corrupt  one bit flipped past the Ethernet header (FCS-clean L2, so the
//            frame still reaches its port and the receiver's IP checksum or
//            ICRC must catch it);
//   dup      delivered twice;
//   reorder  held back and delivered after the next 1..3 frames this member
//            sends, or at the end of the current burst (release_held()),
//            whichever comes first: reordering is bounded.
// The same seed and the same sequence of frames give the same faults.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace rocenic::wire {

struct FaultConfig {
  double loss = 0, dup = 0, reorder = 0, corrupt = 0;  // probabilities in [0, 1]
  uint64_t seed = 1;
  bool any() const { return loss > 0 || dup > 0 || reorder > 0 || corrupt > 0; }
};

// "" if text is a probability in [0, 1] (a decimal number), else what is wrong.
std::string parse_probability(const std::string& text, double* p);
// "" if text is an unsigned 64-bit decimal seed, else what is wrong.
std::string parse_seed(const std::string& text, uint64_t* seed);

struct FaultStats {
  uint64_t passed = 0;     // frames handed in
  uint64_t dropped = 0, corrupted = 0, duplicated = 0, reordered = 0;
  uint64_t corrupted_out = 0;  // corrupted frames delivered (a duplicated one twice)
};

class FaultInjector {
 public:
  using Emit = std::function<void(const uint8_t* frame, size_t len)>;
  explicit FaultInjector(const FaultConfig& c);

  // One frame sent by the member: emits what reaches the wire, in order.
  void pass(const uint8_t* frame, size_t len, const Emit& emit);
  // The end of a burst: every held frame goes now.
  void release_held(const Emit& emit);
  bool holding() const { return !held_.empty(); }
  const FaultStats& stats() const { return stats_; }

 private:
  struct Held {
    std::vector<uint8_t> frame;
    unsigned after;  // frames still to pass before it goes
  };
  bool chance(double p);
  void step_held(const Emit& emit);

  FaultConfig cfg_;
  std::mt19937_64 rng_;
  std::deque<Held> held_;
  FaultStats stats_;
};

}  // namespace rocenic::wire
