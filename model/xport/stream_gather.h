// Model of rtl/common/stream_gather.sv, cycle for cycle: lane-0-aligned input
// beats (1..W bytes each, tlast = end of an output packet) packed into a
// lane-0-aligned output stream (full beats except each packet's last).
#pragma once

#include <cstdint>
#include <vector>

namespace rocenic::model {

class StreamGather {
 public:
  explicit StreamGather(unsigned bytes) : w_(bytes), res_(bytes, 0), o_data_(bytes, 0) {}
  void reset();

  // Combinational view of the current cycle.
  bool s_ready(bool m_ready) const { return (!o_valid_ || m_ready) && !flush_; }
  bool m_valid() const { return o_valid_; }
  const std::vector<uint8_t>& m_data() const { return o_data_; }
  uint64_t m_keep() const { return o_keep_; }
  bool m_last() const { return o_last_; }
  bool empty() const { return !o_valid_ && !flush_ && fill_ == 0; }

  // One rising edge. `n` = bytes in the input beat (lanes 0..n-1 of data).
  void clock(bool s_valid, const uint8_t* data, unsigned n, bool s_last, bool m_ready);

 private:
  static uint64_t keep_of(unsigned k) { return k >= 64 ? ~uint64_t{0} : (uint64_t{1} << k) - 1; }
  unsigned w_;
  std::vector<uint8_t> res_;  // residue in lanes 0..fill-1, zero above
  unsigned fill_ = 0;
  bool flush_ = false;
  bool o_valid_ = false, o_last_ = false;
  std::vector<uint8_t> o_data_;
  uint64_t o_keep_ = 0;
};

}  // namespace rocenic::model
