#include "xport/stream_gather.h"

#include <algorithm>

namespace rocenic::model {

void StreamGather::reset() {
  std::fill(res_.begin(), res_.end(), 0);
  std::fill(o_data_.begin(), o_data_.end(), 0);
  fill_ = 0;
  flush_ = false;
  o_valid_ = o_last_ = false;
  o_keep_ = 0;
}

void StreamGather::clock(bool s_valid, const uint8_t* data, unsigned n, bool s_last, bool m_ready) {
  if (o_valid_ && !m_ready) return;  // output held: nothing moves
  if (flush_) {
    o_valid_ = true;
    o_data_ = res_;
    o_keep_ = keep_of(fill_);
    o_last_ = true;
    std::fill(res_.begin(), res_.end(), 0);
    fill_ = 0;
    flush_ = false;
    return;
  }
  if (!s_valid) {
    o_valid_ = false;
    return;
  }
  // lo = residue | input shifted up by fill; hi = what spills over
  std::vector<uint8_t> lo = res_, hi(w_, 0);
  for (unsigned i = 0; i < n; ++i) {
    const unsigned pos = fill_ + i;
    (pos < w_ ? lo[pos] : hi[pos - w_]) = data[i];
  }
  const unsigned total = fill_ + n;
  if (total >= w_) {
    o_valid_ = true;
    o_data_ = lo;
    o_keep_ = keep_of(w_);
    o_last_ = s_last && total == w_;
    res_ = hi;
    fill_ = total - w_;
    flush_ = s_last && total != w_;
  } else if (s_last) {
    o_valid_ = true;
    o_data_ = lo;
    o_keep_ = keep_of(total);
    o_last_ = true;
    std::fill(res_.begin(), res_.end(), 0);
    fill_ = 0;
  } else {
    o_valid_ = false;
    res_ = lo;
    fill_ = total;
  }
}

}  // namespace rocenic::model
