#include "engine/dma_wr_arb.h"

#include "common/desc_flit.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

DmaWrArb::DmaWrArb(unsigned data_bytes) {
  const unsigned req = (spec::DmaWrReq::kBits + 7) / 8;
  in_info_ = {{"req0", false, true, req},
              {"data0", true, true, data_bytes},
              {"req1", false, true, req},
              {"data1", true, true, data_bytes},
              {"wr_done", false, true, 2}};
  out_info_ = {{"m_req", false, true, req}, {"m_data", true, true, data_bytes}};
}

bool DmaWrArb::input_ready(unsigned port) {
  if (port == 4) return true;
  const bool mine = active() && g() == port / 2;
  return port % 2 == 0 ? mine && !rdone() && ready_[0] : mine && !ddone() && ready_[1];
}

bool DmaWrArb::output_valid(unsigned port) {
  if (!active()) return false;
  return port == 0 ? !rdone() && valid_[2 * g()] : !ddone() && valid_[2 * g() + 1];
}

Flit DmaWrArb::output(unsigned port) {
  if (port == 1) return in_[2 * g() + 1];
  auto r = desc_from_flit<spec::DmaWrReq>(in_[2 * g()]);
  r.tag = static_cast<uint8_t>(g());
  return desc_to_flit(r);
}

void DmaWrArb::clock() {
  if (active()) {
    const unsigned gg = g();
    const bool rd = rdone() || (output_valid(0) && ready_[0]);
    const bool dd = ddone() || (output_valid(1) && ready_[1] && in_[2 * gg + 1].last);
    if (!act_) prio_ = 1u - gg;
    act_ = !(rd && dd);
    gsel_ = gg;
    rdone_ = rd;
    ddone_ = dd;
  }
  if (valid_[4] && in_[4].data.size() > 1 && in_[4].data[1]) ++cnt_err_;
  ++cycle_;
}

}  // namespace rocenic::model
