// Block adapter around the Verilated rtl/csr/roce_csr.sv. Ports and flits as
// model::RoceCsr (AW, W, AR in; B, R out).
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
    in_info_ = {{"s_axil_aw", false, true, 2}, {"s_axil_w", false, true, 5}, {"s_axil_ar", false, true, 2}};
    out_info_ = {{"s_axil_b", false, true, 1}, {"s_axil_r", false, true, 5}};
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
  }
  bool roce_enable() const { return top_->roce_enable; }
  uint64_t port_mac() const { return top_->port_mac; }

  void reset() override {
    top_->s_axil_awvalid = top_->s_axil_wvalid = top_->s_axil_arvalid = 0;
    top_->s_axil_bready = top_->s_axil_rready = 0;
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
      default: top_->s_axil_arvalid = valid; top_->s_axil_araddr = le(0, 2) & 0xFFF; break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    (port == 0 ? top_->s_axil_bready : top_->s_axil_rready) = ready;
  }
  bool input_ready(unsigned port) override {
    return port == 0 ? top_->s_axil_awready : port == 1 ? top_->s_axil_wready : top_->s_axil_arready;
  }
  bool output_valid(unsigned port) override { return port == 0 ? top_->s_axil_bvalid : top_->s_axil_rvalid; }
  Flit output(unsigned port) override {
    Flit f;
    if (port == 0) {
      f.data = le_bytes(top_->s_axil_bresp, 1);
    } else {
      f.data = le_bytes(top_->s_axil_rdata, 4, top_->s_axil_rresp);
    }
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

};

}  // namespace rocenic
