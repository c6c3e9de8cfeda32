// Reference model of rtl/net/roce_parser.sv: the RX front end that splits the
// MAC's frames into RoCE (descriptor + realigned payload) and bypass, drops bad
// RoCE frames with a reason, and counts.
//
// Ports (Block indices):
//   input  0  s_axis_rx   frames from the MAC (keep contiguous, user = bad frame on last beat)
//   output 0  m_hdr       roce_rx_hdr_t of each accepted RoCE frame (122 bytes, little-endian)
//   output 1  m_axis_pay  its payload, realigned to lane 0 (no beats when pay_len = 0)
//   output 2  m_axis_byp  non-RoCE frames as received, user on the last beat
//   output 3  stat        one event per frame: bits 3:0 drop reason, bit 4 bypass (no ready)
//
// The verdict is a pure function of the frame (classify()); the cycle model
// around it mirrors the RTL's store-and-forward pipeline closely enough for
// timing comparisons, and exactly in content and order.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class RoceParser : public rocenic::Block {
 public:
  enum Port : unsigned { kIn = 0, kHdr = 0, kPay = 1, kByp = 2, kStat = 3 };
  static constexpr unsigned kHdrBytes = (spec::RoceRxHdr::kBits + 7) / 8;
  static constexpr unsigned kHdrDepth = 16;  // roce_parser's HDR_DEPTH

  // What happens to one complete frame.
  struct Verdict {
    bool bypass = false;                 // not RoCE: forwarded unchanged (unless too long)
    spec::Drop drop = spec::Drop::kNone; // kNone and !bypass: accepted
    spec::RoceRxHdr hdr;                 // accepted frames only
    unsigned pay_start = 0;              // frame offset of the first payload byte
  };
  // `too_long`: the frame needs more beats than the FIFO holds.
  static Verdict classify(const std::vector<uint8_t>& frame, bool mac_err, bool too_long, bool roce_enable);

  explicit RoceParser(unsigned data_bytes = 64, unsigned fifo_beats = 256);
  void set_roce_enable(bool on) { roce_enable_ = on; }

  const std::vector<PortInfo>& inputs() const override { return inputs_; }
  const std::vector<PortInfo>& outputs() const override { return outputs_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override;
  void eval() override;
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  bool idle() const override {
    return cur_.empty() && pending_.empty() && jobs_.empty() && hdrs_.empty() && used_ == 0;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override;

 private:
  struct Pending {              // a frame whose last beat has arrived
    std::vector<uint8_t> bytes;
    unsigned beats = 0;
    bool user = false, ovf = false, en = false;
    uint64_t verdict_cycle = 0;
  };
  struct Job {                  // what the FIFO reader releases, in frame order
    unsigned port = kPay;       // kPay or kByp; no beats: a skipped frame
    std::vector<Flit> beats;
    unsigned stored = 0;        // FIFO beats freed when the job is done
    uint64_t ready_cycle = 0;
    size_t next = 0;
  };
  struct HdrEntry {
    Flit flit;
    uint64_t ready_cycle = 0;
  };

  void finish_frame();
  void apply_verdict(Pending& p);
  Flit beat_of(const std::vector<uint8_t>& bytes, size_t off, size_t n, bool last, bool user) const;
  bool in_ready() const;

  unsigned db_, fifo_beats_;
  std::vector<PortInfo> inputs_, outputs_;
  bool roce_enable_ = true;
  uint64_t cycle_ = 0;

  // world-side signals of this cycle
  bool in_valid_ = false;
  Flit in_flit_;
  bool ready_[4] = {false, false, false, false};

  // frame being received
  std::vector<uint8_t> cur_;
  unsigned cur_beats_ = 0;
  bool cur_ovf_ = false, cur_en_ = false;

  unsigned used_ = 0;           // FIFO beats in use
  unsigned resv_ = 0;           // descriptor slots promised
  std::deque<Pending> pending_;
  std::deque<Job> jobs_;
  std::deque<HdrEntry> hdrs_;
  std::optional<uint8_t> stat_;

  uint32_t cnt_frames_ = 0, cnt_roce_ = 0, cnt_bypass_ = 0;
  uint32_t cnt_drop_[spec::kDropCount] = {};
};

}  // namespace rocenic::model
