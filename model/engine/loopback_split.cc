#include "engine/loopback_split.h"

namespace rocenic::model {

LoopbackSplit::LoopbackSplit(unsigned data_bytes) {
  in_info_ = {{"s_axis", true, true, data_bytes}};
  out_info_ = {{"m_axis_tx", true, true, data_bytes}, {"m_axis_lb", true, true, data_bytes}};
}

unsigned LoopbackSplit::dest() const {
  if (lock_) return dest_q_;
  if ((in_.keep & 0x3F) != 0x3F || in_.data.size() < 6) return 0;
  uint64_t dmac = 0;
  for (unsigned i = 0; i < 6; ++i) dmac = (dmac << 8) | in_.data[i];  // byte 0 = mac[47:40]
  return dmac == mac_ ? 1 : 0;
}

void LoopbackSplit::clock() {
  if (valid_) {
    const unsigned d = dest();
    const bool taken = ready_[d];
    lock_ = !(taken && in_.last);
    dest_q_ = d;
    if (taken && in_.last && d == 1) ++cnt_;
  }
  ++cycle_;
}

}  // namespace rocenic::model
