// Model of rtl/common/frame_arb2.sv: 2:1 AXI-Stream arbiter switching only
// between whole frames; input 0 first at a frame boundary; tuser passed.
//
// Ports (Block indices): input 0, 1 = streams; output 0 = the merged stream.
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/arb_lock.h"

namespace rocenic::model {

class FrameArb2 : public Block {
 public:
  explicit FrameArb2(unsigned data_bytes = 64);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override {
    arb_.reset();
    cycle_ = 0;
  }
  void set_input(unsigned port, bool valid, const Flit& flit) override {
    valid_[port] = valid;
    in_[port] = flit;
  }
  void set_output_ready(unsigned, bool ready) override { ready_ = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override { return sel() == port && ready_; }
  bool output_valid(unsigned) override { return valid_[sel()]; }
  Flit output(unsigned) override { return in_[sel()]; }
  void clock() override {
    const unsigned s = sel();
    if (valid_[s]) arb_.offered(s, ready_, in_[s].last);
    ++cycle_;
  }
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return !arb_.lock; }

 private:
  unsigned sel() const { return arb_.lock ? arb_.sel_q : (!valid_[0] && valid_[1] ? 1u : 0u); }

  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[2] = {false, false};
  Flit in_[2];
  bool ready_ = false;
  ArbLock arb_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
