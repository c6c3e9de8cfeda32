// Model of rtl/common/dma_wr_arb.sv: two clients' DMA writes, a client
// granted for one request and all of its data beats (up to tlast), round
// robin between grants, tag = client index; write-done events counted.
//
// Ports (Block indices):
//   input  0     req0      dma_wr_req_t of client 0
//   input  1     data0     its write data stream (lanes, keep, last)
//   input  2, 3  req1, data1   the same for client 1
//   input  4     wr_done   2 bytes: tag, error (always taken)
//   output 0     m_req     dma_wr_req_t (tag = client index)
//   output 1     m_data    write data stream
// Counter: wr_err (write-done events with error).
#pragma once

#include <vector>

#include "common/block.h"

namespace rocenic::model {

class DmaWrArb : public Block {
 public:
  explicit DmaWrArb(unsigned data_bytes = 64);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override {
    act_ = rdone_ = ddone_ = false;
    gsel_ = prio_ = 0;
    cnt_err_ = 0;
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
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"wr_err", cnt_err_}}; }
  bool idle() const override { return !act_; }

 private:
  // The grant this cycle: whether one is active, the client, what is done of it.
  bool active() const { return act_ || valid_[0] || valid_[2]; }
  unsigned g() const { return act_ ? gsel_ : (valid_[0] && valid_[2]) ? prio_ : (valid_[2] ? 1u : 0u); }
  bool rdone() const { return act_ && rdone_; }
  bool ddone() const { return act_ && ddone_; }

  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[5] = {false, false, false, false, false};
  Flit in_[5];
  bool ready_[2] = {false, false};
  bool act_ = false, rdone_ = false, ddone_ = false;
  unsigned gsel_ = 0, prio_ = 0;
  uint32_t cnt_err_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
