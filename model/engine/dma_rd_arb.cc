#include "engine/dma_rd_arb.h"

#include "common/desc_flit.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

DmaRdArb::DmaRdArb(unsigned data_bytes) : bytes_(data_bytes) {
  const unsigned req = (spec::DmaRdReq::kBits + 7) / 8;
  in_info_ = {{"req0", false, true, req}, {"req1", false, true, req}, {"rd", true, true, bytes_}};
  out_info_ = {{"m_req", false, true, req}, {"rd0", true, true, bytes_}, {"rd1", true, true, bytes_}};
}

bool DmaRdArb::input_ready(unsigned port) {
  if (port < 2) return sel() == port && ready_[0];
  const unsigned t = tid();
  return t < 2 ? ready_[1 + t] : true;  // an unknown tag is dropped
}

bool DmaRdArb::output_valid(unsigned port) {
  if (port == 0) return valid_[sel()];
  return valid_[2] && tid() == port - 1;
}

Flit DmaRdArb::output(unsigned port) {
  if (port == 0) {
    auto r = desc_from_flit<spec::DmaRdReq>(in_[sel()]);
    r.tag = static_cast<uint8_t>(sel());
    return desc_to_flit(r);
  }
  Flit f = in_[2];
  f.id = 0;  // routed: the client sees no tid
  return f;
}

}  // namespace rocenic::model
