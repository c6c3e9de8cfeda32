// Model of rtl/cq/cq_writer.sv, cycle for cycle: completions into CQ rings in
// host memory (CQE layout: docs/spec/layouts.md), arming and events.
//
// Ports (Block indices):
//   input  0  cfg       packed cq_cfg_t
//   input  1  db        packed cq_db_t
//   input  2  compl     packed cq_compl_t
//   output 0  dma_wr    packed dma_wr_req_t
//   output 1  dma_wr_data  one beat: the CQE in lanes 0..31 (keep = those lanes, last)
//   output 2  event     packed cq_event_t
#pragma once

#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class CqWriter : public Block {
 public:
  explicit CqWriter(unsigned data_bytes = 64, unsigned max_cq = 256);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  bool idle() const override { return st_ == St::kIdle && !req_pending_ && !beat_pending_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"cqe", cnt_cqe_}, {"cq_err", cnt_err_}};
  }

 private:
  enum class St { kIdle, kSend, kEvent };
  struct Ctx {
    bool valid = false;
    uint64_t base = 0;
    uint8_t lsz = 0;
    uint32_t pi = 0, ci = 0;
    uint8_t arm = 0;
  };

  unsigned bytes_;
  std::vector<Ctx> ctx_;
  std::vector<PortInfo> in_info_, out_info_;
  bool in_valid_[3] = {false, false, false};
  Flit in_[3];
  bool ready_[3] = {false, false, false};
  St st_ = St::kIdle;
  bool req_pending_ = false, beat_pending_ = false, event_after_ = false;
  spec::DmaWrReq req_;
  Flit beat_;
  spec::CqEvent ev_;
  uint32_t cnt_cqe_ = 0, cnt_err_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
