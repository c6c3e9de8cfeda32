#include "net/roce_deparser.h"

#include "common/desc_flit.h"
#include "net/roce_frame.h"

namespace rocenic::model {

RoceDeparser::RoceDeparser(unsigned data_bytes) : bytes_(data_bytes) {
  in_info_ = {{"s_hdr", false, true, (spec::RoceTxHdr::kBits + 7) / 8}, {"s_axis_pay", true, true, bytes_}};
  out_info_ = {{"m_axis_tx", true, true, bytes_}};
}

void RoceDeparser::reset() {
  collecting_ = false;
  payload_.clear();
  out_.clear();
  cycle_ = 0;
  tx_frames_ = 0;
}

void RoceDeparser::set_input(unsigned port, bool valid, const Flit& flit) {
  if (port == kHdr) {
    hdr_valid_ = valid;
    hdr_in_ = flit;
  } else {
    pay_valid_ = valid;
    pay_in_ = flit;
  }
}

bool RoceDeparser::input_ready(unsigned port) {
  if (port == kHdr) return !collecting_ && out_.size() < kMaxQueuedBeats;
  return collecting_ && payload_.size() < hdr_.pay_len;
}

void RoceDeparser::clock() {
  const bool take_out = !out_.empty() && out_ready_;
  const bool take_hdr = hdr_valid_ && input_ready(kHdr);
  const bool take_pay = pay_valid_ && input_ready(kPay);
  if (take_out) {
    if (out_.front().last) ++tx_frames_;
    out_.pop_front();
  }
  if (take_hdr) {
    hdr_ = desc_from_flit<spec::RoceTxHdr>(hdr_in_);
    collecting_ = true;
    payload_.clear();
  }
  if (take_pay) {
    const size_t n = std::min<size_t>(bytes_, hdr_.pay_len - payload_.size());
    payload_.insert(payload_.end(), pay_in_.data.begin(), pay_in_.data.begin() + n);
  }
  if (collecting_ && payload_.size() == hdr_.pay_len) {
    for (Flit& b : frame_to_beats(roce_frame(hdr_, payload_.data()), bytes_)) out_.push_back(std::move(b));
    collecting_ = false;
  }
  ++cycle_;
}

}  // namespace rocenic::model
