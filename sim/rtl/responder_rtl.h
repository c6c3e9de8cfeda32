// Block adapter around the Verilated rtl/xport/responder.sv. Ports and flits
// as model::Responder (model/xport/responder.h).
#pragma once

#include "Vresponder.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class ResponderRtl : public VlBlock<Vresponder> {
 public:
  explicit ResponderRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"qp_cfg", false, true, bytes_of<spec::QpCfg>()},
                {"rq_db", false, true, bytes_of<spec::WqDb>()},
                {"rx_hdr", false, true, bytes_of<spec::RoceRxHdr>()},
                {"rx_payload", true, true, bytes_},
                {"dma_rd_data", true, true, bytes_},
                {"mr_resp", false, true, bytes_of<spec::MrResp>()},
                {"read_dma", true, true, bytes_},
                {"read_mr_resp", false, true, bytes_of<spec::MrResp>()}};
    out_info_ = {{"dma_rd_req", false, true, bytes_of<spec::DmaRdReq>()},
                 {"mr_req", false, true, bytes_of<spec::MrReq>()},
                 {"dma_wr_req", false, true, bytes_of<spec::DmaWrReq>()},
                 {"dma_wr_data", true, true, bytes_},
                 {"tx_hdr", false, true, bytes_of<spec::RoceTxHdr>()},
                 {"cq_compl", false, true, bytes_of<spec::CqCompl>()},
                 {"read_dma_req", false, true, bytes_of<spec::DmaRdReq>()},
                 {"tx_payload", true, true, bytes_},
                 {"read_mr_req", false, true, bytes_of<spec::MrReq>()}};
    reset();
  }
  void reset() override {
    top_->s_qp_cfg_valid = top_->s_rq_db_valid = top_->s_rx_hdr_valid = 0;
    top_->s_axis_rx_payload_tvalid = top_->s_axis_dma_rd_tvalid = top_->s_mr_resp_valid = 0;
    top_->s_axis_read_dma_tvalid = top_->s_read_mr_resp_valid = 0;
    top_->m_read_mr_req_ready = 0;
    top_->m_dma_rd_req_ready = top_->m_mr_req_ready = top_->m_dma_wr_req_ready = 0;
    top_->m_axis_dma_wr_tready = top_->m_tx_hdr_ready = top_->m_cq_compl_ready = 0;
    top_->m_read_dma_req_ready = top_->m_axis_tx_payload_tready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    switch (port) {
      case 0: top_->s_qp_cfg_valid = valid; vl::put_bytes(top_->s_qp_cfg, f.data); break;
      case 1: top_->s_rq_db_valid = valid; vl::put_bytes(top_->s_rq_db, f.data); break;
      case 2: top_->s_rx_hdr_valid = valid; vl::put_bytes(top_->s_rx_hdr, f.data); break;
      case 3:
        top_->s_axis_rx_payload_tvalid = valid;
        top_->s_axis_rx_payload_tlast = f.last;
        vl::put_bytes(top_->s_axis_rx_payload_tdata, f.data);
        break;
      case 4:
        top_->s_axis_dma_rd_tvalid = valid;
        top_->s_axis_dma_rd_tlast = f.last;
        top_->s_axis_dma_rd_tuser = f.user;
        vl::put_bytes(top_->s_axis_dma_rd_tdata, f.data);
        break;
      case 5: top_->s_mr_resp_valid = valid; vl::put_bytes(top_->s_mr_resp, f.data); break;
      case 6:
        top_->s_axis_read_dma_tvalid = valid;
        top_->s_axis_read_dma_tlast = f.last;
        top_->s_axis_read_dma_tuser = f.user;
        vl::put_bytes(top_->s_axis_read_dma_tdata, f.data);
        break;
      default: top_->s_read_mr_resp_valid = valid; vl::put_bytes(top_->s_read_mr_resp, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->m_dma_rd_req_ready = ready; break;
      case 1: top_->m_mr_req_ready = ready; break;
      case 2: top_->m_dma_wr_req_ready = ready; break;
      case 3: top_->m_axis_dma_wr_tready = ready; break;
      case 4: top_->m_tx_hdr_ready = ready; break;
      case 5: top_->m_cq_compl_ready = ready; break;
      case 6: top_->m_read_dma_req_ready = ready; break;
      case 7: top_->m_axis_tx_payload_tready = ready; break;
      default: top_->m_read_mr_req_ready = ready; break;
    }
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_qp_cfg_ready;
      case 1: return top_->s_rq_db_ready;
      case 2: return top_->s_rx_hdr_ready;
      case 3: return top_->s_axis_rx_payload_tready;
      case 4: return top_->s_axis_dma_rd_tready;
      case 5: return top_->s_mr_resp_ready;
      case 6: return top_->s_axis_read_dma_tready;
      default: return top_->s_read_mr_resp_ready;
    }
  }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->m_dma_rd_req_valid;
      case 1: return top_->m_mr_req_valid;
      case 2: return top_->m_dma_wr_req_valid;
      case 3: return top_->m_axis_dma_wr_tvalid;
      case 4: return top_->m_tx_hdr_valid;
      case 5: return top_->m_cq_compl_valid;
      case 6: return top_->m_read_dma_req_valid;
      case 7: return top_->m_axis_tx_payload_tvalid;
      default: return top_->m_read_mr_req_valid;
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
      case 4: f.data = vl::get_bytes(top_->m_tx_hdr, bytes_of<spec::RoceTxHdr>()); break;
      case 5: f.data = vl::get_bytes(top_->m_cq_compl, bytes_of<spec::CqCompl>()); break;
      case 6: f.data = vl::get_bytes(top_->m_read_dma_req, bytes_of<spec::DmaRdReq>()); break;
      case 7:
        f.data = vl::get_bytes(top_->m_axis_tx_payload_tdata, bytes_);
        f.keep = top_->m_axis_tx_payload_tkeep;
        f.last = top_->m_axis_tx_payload_tlast;
        for (unsigned i = 0; i < bytes_; ++i)
          if (!((f.keep >> i) & 1u)) f.data[i] = 0;
        break;
      default: f.data = vl::get_bytes(top_->m_read_mr_req, bytes_of<spec::MrReq>()); break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"tx_acks", top_->cnt_tx_acks},
            {"rx_pkts", top_->cnt_rx_pkts},
            {"no_qp", top_->cnt_no_qp},
            {"qp_state", top_->cnt_qp_state},
            {"out_of_sequence", top_->cnt_out_of_sequence},
            {"duplicate_request", top_->cnt_duplicate_request},
            {"rem_access_err", top_->cnt_rem_access_err},
            {"rem_inv_req", top_->cnt_rem_inv_req},
            {"rnr_nak_sent", top_->cnt_rnr_nak_sent},
            {"rem_op_err", top_->cnt_rem_op_err},
            {"rx_read_requests", top_->cnt_rx_read_requests}, {"qkey_violations", top_->cnt_qkey_violations}};
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
