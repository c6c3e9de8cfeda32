// Block adapter around the Verilated rtl/mem/mr_table.sv. Ports and flits as
// model::MrTable.
#pragma once

#include "Vmr_table.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class MrTableRtl : public VlBlock<Vmr_table> {
 public:
  MrTableRtl() {
    in_info_ = {{"mr_wr", false, true, 2 + (spec::MrCtx::kBits + 7) / 8},
                {"mtt_wr", false, true, 10},
                {"req", false, true, (spec::MrReq::kBits + 7) / 8}};
    out_info_ = {{"resp", false, true, (spec::MrResp::kBits + 7) / 8}};
    reset();
  }
  void reset() override {
    top_->s_mr_wr_valid = top_->s_mtt_wr_valid = top_->s_req_valid = 0;
    top_->m_resp_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    auto le = [&](unsigned off, unsigned n) {
      uint64_t v = 0;
      for (unsigned i = 0; i < n && off + i < f.data.size(); ++i) v |= uint64_t{f.data[off + i]} << (8 * i);
      return v;
    };
    const std::vector<uint8_t> rest(f.data.begin() + std::min<size_t>(2, f.data.size()), f.data.end());
    switch (port) {
      case 0:
        top_->s_mr_wr_valid = valid;
        top_->s_mr_wr_index = static_cast<uint16_t>(le(0, 2));
        vl::put_bytes(top_->s_mr_wr_ctx, rest);
        break;
      case 1:
        top_->s_mtt_wr_valid = valid;
        top_->s_mtt_wr_index = static_cast<uint16_t>(le(0, 2));
        top_->s_mtt_wr_pa = le(2, 8);
        break;
      default:
        top_->s_req_valid = valid;
        vl::put_bytes(top_->s_req, f.data);
        break;
    }
  }
  void set_output_ready(unsigned, bool ready) override { top_->m_resp_ready = ready; }
  bool input_ready(unsigned port) override { return port != 2 || top_->s_req_ready; }
  bool output_valid(unsigned) override { return top_->m_resp_valid; }
  Flit output(unsigned) override {
    Flit f;
    f.data = vl::get_bytes(top_->m_resp, (spec::MrResp::kBits + 7) / 8);
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

};

}  // namespace rocenic
