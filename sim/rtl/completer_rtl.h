// Block adapter around the Verilated rtl/xport/completer.sv (MAX_QP = 256).
// Ports and flits as model::Completer.
#pragma once

#include "Vcompleter.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class CompleterRtl : public VlBlock<Vcompleter> {
 public:
  CompleterRtl() {
    in_info_ = {{"qp_cfg", false, true, (spec::QpCfg::kBits + 7) / 8},
                {"sq_track", false, true, (spec::SqTrack::kBits + 7) / 8},
                {"rx_ack", false, true, (spec::RoceRxHdr::kBits + 7) / 8},
                {"rd_done", false, true, (spec::RdDone::kBits + 7) / 8}};
    out_info_ = {{"cq_compl", false, true, (spec::CqCompl::kBits + 7) / 8},
                 {"sq_retire", false, true, (spec::SqRetire::kBits + 7) / 8},
                 {"rd_place", false, true, (spec::RdPlace::kBits + 7) / 8}};
    reset();
  }
  void reset() override {
    top_->s_qp_cfg_valid = top_->s_sq_track_valid = top_->s_rx_ack_valid = top_->s_rd_done_valid = 0;
    top_->m_cq_compl_ready = top_->m_sq_retire_ready = top_->m_rd_place_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    switch (port) {
      case 0: top_->s_qp_cfg_valid = valid; vl::put_bytes(top_->s_qp_cfg, f.data); break;
      case 1: top_->s_sq_track_valid = valid; vl::put_bytes(top_->s_sq_track, f.data); break;
      case 2: top_->s_rx_ack_valid = valid; vl::put_bytes(top_->s_rx_ack, f.data); break;
      default: top_->s_rd_done_valid = valid; vl::put_bytes(top_->s_rd_done, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    if (port == 0) top_->m_cq_compl_ready = ready;
    else if (port == 1) top_->m_sq_retire_ready = ready;
    else top_->m_rd_place_ready = ready;
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_qp_cfg_ready;
      case 1: return top_->s_sq_track_ready;
      case 2: return top_->s_rx_ack_ready;
      default: return top_->s_rd_done_ready;
    }
  }
  bool output_valid(unsigned port) override {
    return port == 0 ? top_->m_cq_compl_valid : port == 1 ? top_->m_sq_retire_valid : top_->m_rd_place_valid;
  }
  Flit output(unsigned port) override {
    Flit f;
    if (port == 0) f.data = vl::get_bytes(top_->m_cq_compl, (spec::CqCompl::kBits + 7) / 8);
    else if (port == 1) f.data = vl::get_bytes(top_->m_sq_retire, (spec::SqRetire::kBits + 7) / 8);
    else f.data = vl::get_bytes(top_->m_rd_place, (spec::RdPlace::kBits + 7) / 8);
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"rx_acks", top_->cnt_rx_acks},
            {"nak_received", top_->cnt_nak_received},
            {"packet_seq_err", top_->cnt_packet_seq_err},
            {"unmatched_response", top_->cnt_unmatched},
            {"retransmits", top_->cnt_retransmits},
            {"retry_exceeded", top_->cnt_retry_exceeded},
            {"local_ack_timeout_err", top_->cnt_ack_timeout},
            {"rnr_nak_retry_err", top_->cnt_rnr_nak},
            {"rnr_retry_exceeded", top_->cnt_rnr_exceeded},
            {"implied_nak_seq_err", top_->cnt_implied_nak}};
  }
  bool idle() const override { return top_->idle; }
  // The timers count this block's cycles.
  void eval() override {
    top_->now = cycle_;
    VlBlock::eval();
  }
  void clock() override {
    top_->now = cycle_;
    VlBlock::clock();
  }
};

}  // namespace rocenic
