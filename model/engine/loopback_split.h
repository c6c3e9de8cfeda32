// Model of rtl/common/loopback_split.sv: a frame whose destination MAC (its
// first 6 bytes) equals the port MAC goes to the loopback output, every other
// frame to the MAC; the destination is decided on the first beat.
//
// Ports (Block indices): input 0 = frames; output 0 = toward the MAC,
// output 1 = loopback. Counter: loopback (frames looped back).
#pragma once

#include <vector>

#include "common/block.h"

namespace rocenic::model {

class LoopbackSplit : public Block {
 public:
  explicit LoopbackSplit(unsigned data_bytes = 64);

  void set_port_mac(uint64_t mac) { mac_ = mac & 0xFFFFFFFFFFFFull; }
  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override {
    lock_ = false;
    dest_q_ = 0;
    cnt_ = 0;
    cycle_ = 0;
  }
  void set_input(unsigned, bool valid, const Flit& flit) override {
    valid_ = valid;
    in_ = flit;
  }
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned) override { return ready_[dest()]; }
  bool output_valid(unsigned port) override { return valid_ && dest() == port; }
  Flit output(unsigned) override { return in_; }
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"loopback", cnt_}}; }
  bool idle() const override { return !lock_; }

 private:
  unsigned dest() const;

  std::vector<PortInfo> in_info_, out_info_;
  uint64_t mac_ = 0;
  bool valid_ = false;
  Flit in_;
  bool ready_[2] = {false, false};
  bool lock_ = false;
  unsigned dest_q_ = 0;
  uint32_t cnt_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
