// Block adapter around the Verilated rtl/csr/roce_csr.sv. Ports and flits as
// model::RoceCsr (AW, W, AR, cmd_resp in; B, R, cmd, sq_db, rq_db, cq_db out).
#pragma once

#include "Vroce_csr.h"
#include "common/block.h"
#include "common/le_bytes.h"
#include "csr/roce_csr.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

class RoceCsrRtl : public VlBlock<Vroce_csr> {
 public:
  RoceCsrRtl() {
    in_info_ = model::roce_csr_inputs();  // same port list as the model
    out_info_ = model::roce_csr_outputs();
    reset();
  }
  void set_counters(const model::CsrCounters& c) {
    top_->cnt_rx_frames = c.rx_frames;
    top_->cnt_rx_roce = c.rx_roce;
    top_->cnt_rx_bypass = c.rx_bypass;
    top_->cnt_tx_frames = c.tx_frames;
    std::vector<uint8_t> drops;
    for (uint32_t v : c.rx_drop)
      for (int b = 0; b < 4; ++b) drops.push_back(static_cast<uint8_t>(v >> (8 * b)));
    vl::put_bytes(top_->cnt_rx_drop, drops);
    std::vector<uint8_t> xport;
    for (uint32_t v : c.xport)
      for (int b = 0; b < 4; ++b) xport.push_back(static_cast<uint8_t>(v >> (8 * b)));
    vl::put_bytes(top_->cnt_xport, xport);
  }
  bool roce_enable() const { return top_->roce_enable; }
  uint64_t port_mac() const { return top_->port_mac; }

  void reset() override {
    top_->s_axil_awvalid = top_->s_axil_wvalid = top_->s_axil_arvalid = 0;
    top_->s_axil_bready = top_->s_axil_rready = 0;
    top_->s_cmd_resp_valid = 0;
    top_->m_cmd_ready = top_->m_sq_db_ready = top_->m_rq_db_ready = top_->m_cq_db_ready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    auto le = [&](unsigned off, unsigned n) {
      uint32_t v = 0;
      for (unsigned i = 0; i < n && off + i < f.data.size(); ++i) v |= uint32_t{f.data[off + i]} << (8 * i);
      return v;
    };
    switch (port) {
      case 0: top_->s_axil_awvalid = valid; top_->s_axil_awaddr = le(0, 2) & 0xFFF; break;
      case 1: top_->s_axil_wvalid = valid; top_->s_axil_wdata = le(0, 4); top_->s_axil_wstrb = le(4, 1) & 0xF; break;
      case 2: top_->s_axil_arvalid = valid; top_->s_axil_araddr = le(0, 2) & 0xFFF; break;
      default: top_->s_cmd_resp_valid = valid; vl::put_bytes(top_->s_cmd_resp, f.data); break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->s_axil_bready = ready; break;
      case 1: top_->s_axil_rready = ready; break;
      case 2: top_->m_cmd_ready = ready; break;
      case 3: top_->m_sq_db_ready = ready; break;
      case 4: top_->m_rq_db_ready = ready; break;
      default: top_->m_cq_db_ready = ready; break;
    }
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_axil_awready;
      case 1: return top_->s_axil_wready;
      case 2: return top_->s_axil_arready;
      default: return top_->s_cmd_resp_ready;
    }
  }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->s_axil_bvalid;
      case 1: return top_->s_axil_rvalid;
      case 2: return top_->m_cmd_valid;
      case 3: return top_->m_sq_db_valid;
      case 4: return top_->m_rq_db_valid;
      default: return top_->m_cq_db_valid;
    }
  }
  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0: f.data = le_bytes(top_->s_axil_bresp, 1); break;
      case 1: f.data = le_bytes(top_->s_axil_rdata, 4, top_->s_axil_rresp); break;
      case 2: f.data = vl::get_bytes(top_->m_cmd, out_info_[2].bytes); break;
      case 3: {  // (SqDoorbell's flit: wq_db_t, bf, the SQ_BF words when bf)
        SqDoorbell d;
        d.db = desc_from_flit<spec::WqDb>(Flit{vl::get_bytes(top_->m_sq_db, SqDoorbell::kDbBytes)});
        d.bf = top_->m_sq_db_bf;
        const std::vector<uint8_t> wqe = vl::get_bytes(top_->sq_bf_wqe, spec::kWqeHead);
        std::copy(wqe.begin(), wqe.end(), d.wqe.begin());
        return sq_doorbell_to_flit(d);
      }
      case 4: f.data = vl::get_bytes(top_->m_rq_db, out_info_[4].bytes); break;
      default: f.data = vl::get_bytes(top_->m_cq_db, out_info_[5].bytes); break;
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

};

}  // namespace rocenic
