// Model of rtl/common/mr_arb.sv: two clients' MR checks to one mr_table,
// round robin; tag bit 7 = client index, answers routed back by it (cleared).
//
// Ports (Block indices):
//   input  0, 1  req[i]   mr_req_t (the client uses tag bits 6:0)
//   input  2     resp     mr_resp_t from mr_table
//   output 0     m_req    mr_req_t to mr_table
//   output 1, 2  resp[i]  mr_resp_t back to client i
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/arb_lock.h"

namespace rocenic::model {

class MrArb : public Block {
 public:
  MrArb();

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override {
    arb_.reset();
    cycle_ = 0;
  }
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override {
    return port < 2 ? sel() == port && ready_[0] : ready_[1 + resp_to_];
  }
  bool output_valid(unsigned port) override {
    return port == 0 ? valid_[sel()] : valid_[2] && resp_to_ == port - 1;
  }
  Flit output(unsigned port) override;
  void clock() override {
    const unsigned s = sel();
    if (valid_[s]) arb_.offered(s, ready_[0], true);
    ++cycle_;
  }
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return !arb_.lock; }

 private:
  unsigned sel() const { return arb_.rr(valid_[0], valid_[1]); }

  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[3] = {false, false, false};
  Flit in_[3];
  unsigned resp_to_ = 0;
  bool ready_[3] = {false, false, false};
  ArbLock arb_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
