#include "engine/mr_arb.h"

#include "common/desc_flit.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

MrArb::MrArb() {
  const unsigned req = (spec::MrReq::kBits + 7) / 8, resp = (spec::MrResp::kBits + 7) / 8;
  in_info_ = {{"req0", false, true, req}, {"req1", false, true, req}, {"resp", false, true, resp}};
  out_info_ = {{"m_req", false, true, req}, {"resp0", false, true, resp}, {"resp1", false, true, resp}};
}

void MrArb::set_input(unsigned port, bool valid, const Flit& flit) {
  valid_[port] = valid;
  in_[port] = flit;
  if (port == 2 && valid) resp_to_ = desc_from_flit<spec::MrResp>(flit).tag >> 7;
}

Flit MrArb::output(unsigned port) {
  if (port == 0) {
    const unsigned s = sel();
    auto r = desc_from_flit<spec::MrReq>(in_[s]);
    r.tag = static_cast<uint8_t>((s << 7) | (r.tag & 0x7F));
    return desc_to_flit(r);
  }
  auto r = desc_from_flit<spec::MrResp>(in_[2]);
  r.tag &= 0x7F;
  return desc_to_flit(r);
}

}  // namespace rocenic::model
