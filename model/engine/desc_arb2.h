// Model of rtl/common/desc_arb2.sv: 2:1 round-robin descriptor arbiter,
// combinational, choice held once offered.
//
// Ports (Block indices):
//   input  0, 1  s0, s1  a descriptor of width_bytes bytes (little-endian, as packed)
//   output 0     m       the granted input's descriptor
// m_sel (which input m comes from) is sel().
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/arb_lock.h"

namespace rocenic::model {

class DescArb2 : public Block {
 public:
  explicit DescArb2(unsigned width_bytes = 8);

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
  Flit output(unsigned) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return !arb_.lock; }
  // m_sel: the input the output shows this cycle.
  unsigned sel() const { return arb_.rr(valid_[0], valid_[1]); }

 private:
  unsigned bytes_;
  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[2] = {false, false};
  Flit in_[2];
  bool ready_ = false;
  ArbLock arb_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
