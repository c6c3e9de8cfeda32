// Model of rtl/common/tx_arb.sv: ACK headers before requester headers (a
// choice once offered is held), the requester's payload beats straight
// through toward roce_deparser.
//
// Ports (Block indices):
//   input  0  ack_hdr      roce_tx_hdr_t (pay_len 0)
//   input  1  req_hdr      roce_tx_hdr_t
//   input  2  req_payload  one beat per flit (DATA_W/8 bytes; no keep, no tlast)
//   output 0  tx_hdr       roce_tx_hdr_t
//   output 1  tx_payload   one beat per flit (data only: keep 0, last set)
#pragma once

#include <vector>

#include "common/block.h"
#include "engine/arb_lock.h"

namespace rocenic::model {

class TxArb : public Block {
 public:
  explicit TxArb(unsigned data_bytes = 64);

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
  bool input_ready(unsigned port) override { return port == 2 ? ready_[1] : sel() == port && ready_[0]; }
  bool output_valid(unsigned port) override { return port == 1 ? valid_[2] : valid_[sel()]; }
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
  unsigned sel() const { return arb_.fixed(valid_[0], 0); }

  unsigned bytes_;
  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[3] = {false, false, false};
  Flit in_[3];
  bool ready_[2] = {false, false};
  ArbLock arb_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
