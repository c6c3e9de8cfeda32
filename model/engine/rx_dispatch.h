// Model of rtl/common/rx_dispatch.sv: ACKNOWLEDGE headers to the completer
// (their payload, if any, dropped), every other header and its payload to the
// responder; a queue of `depth` flags, one per announced payload packet.
//
// Ports (Block indices):
//   input  0  rx_hdr       roce_rx_hdr_t
//   input  1  rx_payload   stream (a packet per header with pay_len > 0)
//   output 0  ack_hdr      roce_rx_hdr_t
//   output 1  req_hdr      roce_rx_hdr_t
//   output 2  req_payload  stream
#pragma once

#include <deque>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class RxDispatch : public Block {
 public:
  explicit RxDispatch(unsigned data_bytes = 64, unsigned depth = 4);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override {
    drop_.clear();
    cycle_ = 0;
  }
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override { return port == 2 ? in_[1] : in_[0]; }
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return drop_.empty(); }

 private:
  bool hdr_ok() const { return !has_pay_ || drop_.size() < depth_; }

  unsigned depth_;
  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[2] = {false, false};
  Flit in_[2];
  bool is_ack_ = false, has_pay_ = false;
  bool ready_[3] = {false, false, false};
  std::deque<bool> drop_;  // per payload packet announced: true = an ACK's, dropped
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
