// The RX front end (rtl/net/roce_parser.sv) in the event-driven model: it
// splits the MAC's frames into RoCE (descriptor + payload from lane 0) and
// bypass, drops bad RoCE frames with a reason, and counts.
//
// Input: rx (one Packet per frame, user = bad frame). Outputs: hdr
// (roce_rx_hdr_t of each accepted RoCE frame), pay (its payload; none when
// pay_len = 0), byp (non-RoCE frames as received), stat (one event per
// frame: bits 3:0 drop reason, bit 4 bypass).
//
// The verdict is a pure function of the frame (classify()). Timing, as the
// RTL's store-and-forward pipeline: from a frame's last beat (cycle t) the
// stat leaves at t+3, the descriptor at t+4, bypass beats from t+7, payload
// beats from t+8; payload and bypass share one reader, a beat a cycle, in
// frame order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class RoceParser : public Process {
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

  RoceParser(Scheduler& s, unsigned data_bytes = 64, unsigned fifo_beats = 256);
  void set_roce_enable(bool on) { roce_enable_ = on; }

  In<Packet> rx;
  Out<spec::RoceRxHdr> hdr{this};
  Out<Packet> pay{this}, byp{this};
  Out<uint8_t> stat{this};

  std::vector<std::pair<std::string, uint32_t>> counters() const;
  void run() override;

 private:
  // Cycles from a frame's last beat.
  static constexpr Cycle kStatLat = 3, kHdrLat = 4, kBypassLat = 7, kPayLat = 8;

  Scheduler& s_;
  unsigned db_, fifo_beats_;
  bool roce_enable_ = true;
  Cycle reader_free_ = 0;  // the FIFO reader's next free cycle
  uint32_t cnt_frames_ = 0, cnt_roce_ = 0, cnt_bypass_ = 0;
  uint32_t cnt_drop_[spec::kDropCount] = {};
};

// The parser as a cycle-level Block (in 0 s_axis_rx; out 0 m_hdr, 1
// m_axis_pay, 2 m_axis_byp, 3 stat without ready), for the cross-checks.
std::unique_ptr<rocenic::Block> make_roce_parser_block(unsigned data_bytes = 64, unsigned fifo_beats = 256);

}  // namespace rocenic::model
