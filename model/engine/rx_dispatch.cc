#include "engine/rx_dispatch.h"

#include "common/desc_flit.h"

namespace rocenic::model {

RxDispatch::RxDispatch(unsigned data_bytes, unsigned depth) : depth_(depth) {
  const unsigned hdr = (spec::RoceRxHdr::kBits + 7) / 8;
  in_info_ = {{"rx_hdr", false, true, hdr}, {"rx_payload", true, true, data_bytes}};
  out_info_ = {{"ack_hdr", false, true, hdr}, {"req_hdr", false, true, hdr}, {"req_payload", true, true, data_bytes}};
}

void RxDispatch::set_input(unsigned port, bool valid, const Flit& flit) {
  valid_[port] = valid;
  in_[port] = flit;
  if (port == 0 && valid) {
    const auto h = desc_from_flit<spec::RoceRxHdr>(flit);
    is_ack_ = h.opcode == spec::kRcAck;
    has_pay_ = h.pay_len != 0;
  }
}

bool RxDispatch::input_ready(unsigned port) {
  if (port == 0) return hdr_ok() && ready_[is_ack_ ? 0 : 1];
  return !drop_.empty() && (drop_.front() || ready_[2]);
}

bool RxDispatch::output_valid(unsigned port) {
  if (port == 2) return valid_[1] && !drop_.empty() && !drop_.front();
  return valid_[0] && hdr_ok() && is_ack_ == (port == 0);
}

void RxDispatch::clock() {
  const bool push = valid_[0] && input_ready(0) && has_pay_;
  const bool pop = valid_[1] && input_ready(1) && in_[1].last;
  if (pop) drop_.pop_front();
  if (push) drop_.push_back(is_ack_);
  ++cycle_;
}

}  // namespace rocenic::model
