// Blocks wired together, cycle by cycle: the model of an RTL top that only
// instantiates and connects (roce_engine). Each connection joins one output
// port of a block to one input port of another, as a valid/ready channel.
//
// One cycle: offer every producer's output to its consumer, evaluate, hand
// every consumer's ready back to its producer; repeated until nothing
// changes (pass-through blocks make valid and ready depend on their
// neighbours within the cycle), then clock every block. External ports are
// driven by the owner between begin_cycle() and end_cycle().
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/block.h"

namespace rocenic::model {

class Netlist {
 public:
  // Takes ownership; returns the block for wiring and static inputs.
  template <typename B>
  B* add(std::unique_ptr<B> b) {
    B* raw = b.get();
    blocks_.push_back(std::move(b));
    return raw;
  }
  // One output port may feed several inputs: a broadcast (see settle()).
  void connect(Block* from, unsigned out_port, Block* to, unsigned in_port);
  void reset() {
    for (auto& b : blocks_) b->reset();
  }
  // Settle the internal channels (external inputs must be set already).
  void settle();
  // Rising edge of every block.
  void clock() {
    for (auto& b : blocks_) b->clock();
  }
  bool idle() const;

 private:
  struct Wire {
    Block* from = nullptr;
    unsigned out = 0;
    Block* to = nullptr;
    unsigned in = 0;
    bool valid = false, ready = false;
    std::vector<size_t> group;  // every wire from the same output port (itself included)
    size_t fanout = 1;
  };
  std::vector<std::unique_ptr<Block>> blocks_;
  std::vector<Wire> wires_;
};

}  // namespace rocenic::model
