// Model of rtl/common/dma_rd_arb.sv: two clients' DMA read requests, round
// robin, tag = client index; read data routed back by its tid.
//
// Ports (Block indices):
//   input  0, 1  req[i]   dma_rd_req_t
//   input  2     rd       read data beat: lanes, keep, last, user = poisoned, id = tid (the tag)
//   output 0     m_req    dma_rd_req_t (tag = client index)
//   output 1, 2  rd[i]    read data of client i (lanes, keep, last, user)
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/arb_lock.h"

namespace rocenic::model {

class DmaRdArb : public Block {
 public:
  explicit DmaRdArb(unsigned data_bytes = 64);

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
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
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
  unsigned tid() const { return in_[2].id; }

  unsigned bytes_;
  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[3] = {false, false, false};
  Flit in_[3];
  bool ready_[3] = {false, false, false};
  ArbLock arb_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
