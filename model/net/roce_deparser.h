// Model of rtl/net/roce_deparser.sv: header descriptor + payload beats in,
// RoCE frame beats out. Same ports and flits; its own (shorter) latency.
#pragma once

#include <deque>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class RoceDeparser : public Block {
 public:
  enum In : unsigned { kHdr = 0, kPay = 1 };
  enum Out : unsigned { kTx = 0 };

  explicit RoceDeparser(unsigned data_bytes = 64);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned, bool ready) override { out_ready_ = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned) override { return !out_.empty(); }
  Flit output(unsigned) override { return out_.front(); }
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  bool idle() const override { return !collecting_ && out_.empty(); }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"tx_frames", tx_frames_}}; }

 private:
  static constexpr size_t kMaxQueuedBeats = 144;  // two 4 KiB frames at 64 B/beat

  unsigned bytes_;
  std::vector<PortInfo> in_info_, out_info_;
  bool hdr_valid_ = false, pay_valid_ = false, out_ready_ = false;
  Flit hdr_in_, pay_in_;
  bool collecting_ = false;
  spec::RoceTxHdr hdr_;
  std::vector<uint8_t> payload_;
  std::deque<Flit> out_;
  uint64_t cycle_ = 0;
  uint32_t tx_frames_ = 0;
};

}  // namespace rocenic::model
