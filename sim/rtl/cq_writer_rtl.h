// Block adapter around the Verilated rtl/cq/cq_writer.sv. Ports and flits as
// model::CqWriter.
#pragma once

#include "Vcq_writer.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class CqWriterRtl : public VlBlock<Vcq_writer> {
 public:
  explicit CqWriterRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"cfg", false, true, (spec::CqCfg::kBits + 7) / 8},
                {"db", false, true, (spec::CqDb::kBits + 7) / 8},
                {"compl", false, true, (spec::CqCompl::kBits + 7) / 8}};
    out_info_ = {{"dma_wr", false, true, (spec::DmaWrReq::kBits + 7) / 8},
                 {"dma_wr_data", true, true, bytes_},
                 {"event", false, true, (spec::CqEvent::kBits + 7) / 8}};
    reset();
  }
  void reset() override {
    top_->s_cfg_valid = top_->s_db_valid = top_->s_compl_valid = 0;
    top_->m_dma_wr_ready = top_->m_axis_dma_wr_tready = top_->m_event_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    switch (port) {
      case 0: top_->s_cfg_valid = valid; vl::put_bytes(top_->s_cfg, f.data); break;
      case 1: top_->s_db_valid = valid; vl::put_bytes(top_->s_db, f.data); break;
      default: top_->s_compl_valid = valid; vl::put_bytes(top_->s_compl, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    if (port == 0) top_->m_dma_wr_ready = ready;
    else if (port == 1) top_->m_axis_dma_wr_tready = ready;
    else top_->m_event_ready = ready;
  }
  bool input_ready(unsigned port) override {
    return port == 0 ? top_->s_cfg_ready : port == 1 ? top_->s_db_ready : top_->s_compl_ready;
  }
  bool output_valid(unsigned port) override {
    return port == 0 ? top_->m_dma_wr_valid : port == 1 ? top_->m_axis_dma_wr_tvalid : top_->m_event_valid;
  }
  Flit output(unsigned port) override {
    Flit f;
    if (port == 0) {
      f.data = vl::get_bytes(top_->m_dma_wr, (spec::DmaWrReq::kBits + 7) / 8);
    } else if (port == 1) {
      f.data = vl::get_bytes(top_->m_axis_dma_wr_tdata, bytes_);
      f.keep = (uint64_t{1} << spec::Cqe::kSize) - 1;  // one CQE per beat, lanes 0..31
    } else {
      f.data = vl::get_bytes(top_->m_event, (spec::CqEvent::kBits + 7) / 8);
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"cqe", top_->cnt_cqe}, {"cq_err", top_->cnt_cq_err}};
  }

 private:
  unsigned bytes_;
};

}  // namespace rocenic
