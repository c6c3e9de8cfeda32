#include "engine/desc_arb2.h"

namespace rocenic::model {

DescArb2::DescArb2(unsigned width_bytes) : bytes_(width_bytes) {
  in_info_ = {{"s0", false, true, bytes_}, {"s1", false, true, bytes_}};
  out_info_ = {{"m", false, true, bytes_}};
}

Flit DescArb2::output(unsigned) {
  Flit f;
  f.data = in_[sel()].data;
  f.data.resize(bytes_);
  return f;
}

void DescArb2::clock() {
  const unsigned s = sel();
  if (valid_[s]) arb_.offered(s, ready_, true);
  ++cycle_;
}

}  // namespace rocenic::model
