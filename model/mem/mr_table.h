// Model of rtl/mem/mr_table.sv: memory-region checks and MTT translation.
//
// Ports (Block indices; descriptor-style flits):
//   input  0  mr_wr   2 bytes index (LE) + packed mr_ctx_t
//   input  1  mtt_wr  2 bytes index (LE) + 8 bytes bus address (LE)
//   input  2  req     packed mr_req_t
//   output 0  resp    packed mr_resp_t
// Table writes are always taken. Requests are answered in order. The RTL
// reads the MTT a cycle after the MR entry; like it, this model assumes the
// command path does not rewrite entries that requests in flight use.
#pragma once

#include <deque>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class MrTable : public Block {
 public:
  explicit MrTable(unsigned max_mr = 1024, unsigned mtt_depth = 4096);

  // The check itself (also used by tests and, later, by the data path model).
  spec::MrResp check(const spec::MrReq& r) const;
  void write_mr(unsigned index, const spec::MrCtx& c) {
    if (index < mr_.size()) mr_[index] = c;
  }
  void write_mtt(unsigned index, uint64_t pa) {
    if (index < mtt_.size()) mtt_[index] = pa;
  }

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned, bool ready) override { out_ready_ = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override { return port != 2 || out_.size() < 2; }
  bool output_valid(unsigned) override { return !out_.empty(); }
  Flit output(unsigned) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  bool idle() const override { return out_.empty(); }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

 private:
  std::vector<spec::MrCtx> mr_;
  std::vector<uint64_t> mtt_;
  std::vector<PortInfo> in_info_, out_info_;
  bool valid_[3] = {false, false, false};
  Flit in_[3];
  bool out_ready_ = false;
  std::deque<spec::MrResp> out_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
