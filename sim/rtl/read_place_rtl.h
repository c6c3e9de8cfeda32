// Block adapter around the Verilated rtl/xport/read_place.sv. Ports and flits
// as model::ReadPlace (model/xport/read_place.h).
#pragma once

#include "Vread_place.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class ReadPlaceRtl : public VlBlock<Vread_place> {
 public:
  explicit ReadPlaceRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"qp_cfg", false, true, bytes_of<spec::QpCfg>()},
                {"cmd", false, true, bytes_of<spec::RdPlace>()},
                {"payload", true, true, bytes_},
                {"dma_rd", true, true, bytes_},
                {"mr_resp", false, true, bytes_of<spec::MrResp>()},
                {"hint", false, true, bytes_of<spec::RdHint>()}};  // no ready in the RTL: always taken
    out_info_ = {{"dma_rd_req", false, true, bytes_of<spec::DmaRdReq>()},
                 {"mr_req", false, true, bytes_of<spec::MrReq>()},
                 {"dma_wr_req", false, true, bytes_of<spec::DmaWrReq>()},
                 {"dma_wr_data", true, true, bytes_},
                 {"done", false, true, bytes_of<spec::RdDone>()}};
    reset();
  }
  void reset() override {
    top_->s_qp_cfg_valid = top_->s_cmd_valid = top_->s_axis_pay_tvalid = 0;
    top_->s_axis_dma_rd_tvalid = top_->s_mr_resp_valid = top_->s_hint_valid = 0;
    top_->m_dma_rd_req_ready = top_->m_mr_req_ready = top_->m_dma_wr_req_ready = 0;
    top_->m_axis_dma_wr_tready = top_->m_done_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    switch (port) {
      case 0: top_->s_qp_cfg_valid = valid; vl::put_bytes(top_->s_qp_cfg, f.data); break;
      case 1: top_->s_cmd_valid = valid; vl::put_bytes(top_->s_cmd, f.data); break;
      case 2:
        top_->s_axis_pay_tvalid = valid;
        top_->s_axis_pay_tlast = f.last;
        vl::put_bytes(top_->s_axis_pay_tdata, f.data);
        break;
      case 3:
        top_->s_axis_dma_rd_tvalid = valid;
        top_->s_axis_dma_rd_tlast = f.last;
        top_->s_axis_dma_rd_tuser = f.user;
        vl::put_bytes(top_->s_axis_dma_rd_tdata, f.data);
        break;
      case 4: top_->s_mr_resp_valid = valid; vl::put_bytes(top_->s_mr_resp, f.data); break;
      default: top_->s_hint_valid = valid; vl::put_bytes(top_->s_hint, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->m_dma_rd_req_ready = ready; break;
      case 1: top_->m_mr_req_ready = ready; break;
      case 2: top_->m_dma_wr_req_ready = ready; break;
      case 3: top_->m_axis_dma_wr_tready = ready; break;
      default: top_->m_done_ready = ready; break;
    }
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_qp_cfg_ready;
      case 1: return top_->s_cmd_ready;
      case 2: return top_->s_axis_pay_tready;
      case 3: return top_->s_axis_dma_rd_tready;
      case 4: return top_->s_mr_resp_ready;
      default: return true;
    }
  }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->m_dma_rd_req_valid;
      case 1: return top_->m_mr_req_valid;
      case 2: return top_->m_dma_wr_req_valid;
      case 3: return top_->m_axis_dma_wr_tvalid;
      default: return top_->m_done_valid;
    }
  }
  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0: f.data = vl::get_bytes(top_->m_dma_rd_req, bytes_of<spec::DmaRdReq>()); break;
      case 1: f.data = vl::get_bytes(top_->m_mr_req, bytes_of<spec::MrReq>()); break;
      case 2: f.data = vl::get_bytes(top_->m_dma_wr_req, bytes_of<spec::DmaWrReq>()); break;
      case 3:
        f.data = vl::get_bytes(top_->m_axis_dma_wr_tdata, bytes_);
        f.keep = top_->m_axis_dma_wr_tkeep;
        f.last = top_->m_axis_dma_wr_tlast;
        for (unsigned i = 0; i < bytes_; ++i)  // lanes outside keep carry no information
          if (!((f.keep >> i) & 1u)) f.data[i] = 0;
        break;
      default: f.data = vl::get_bytes(top_->m_done, bytes_of<spec::RdDone>()); break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"pieces", top_->cnt_pieces},
            {"drop_bytes", top_->cnt_drop_bytes},
            {"wqe_reads", top_->cnt_wqe_reads},
            {"hint_hits", top_->cnt_hint_hits},
            {"errors", top_->cnt_errors}};
  }
  bool idle() const override { return top_->idle; }

 private:
  template <typename T>
  static unsigned bytes_of() {
    return (T::kBits + 7) / 8;
  }
  unsigned bytes_;
};

}  // namespace rocenic
