// Block adapter around the Verilated rtl/top/roce_engine.sv. Ports and flits
// as sim/engine_harness.h lists them.
#pragma once

#include "Vroce_engine.h"
#include "common/block.h"
#include "common/le_bytes.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

template <typename V = Vroce_engine>
class RoceEngineRtl : public VlBlock<V> {
  using VlBlock<V>::top_;
  using VlBlock<V>::in_info_;
  using VlBlock<V>::out_info_;

 public:
  explicit RoceEngineRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    const auto desc = [](const char* n, unsigned bits) { return PortInfo{n, false, true, (bits + 7) / 8}; };
    in_info_ = {{"s_axil_aw", false, true, 2},       {"s_axil_w", false, true, 5},
                {"s_axil_ar", false, true, 2},       {"s_axis_rx", true, true, data_bytes},
                {"s_axis_dma_rd", true, true, data_bytes}, {"s_dma_wr_done", false, true, 2}};
    out_info_ = {{"s_axil_b", false, true, 1},
                 {"s_axil_r", false, true, 5},
                 {"m_axis_tx", true, true, data_bytes},
                 {"m_axis_byp", true, true, data_bytes},
                 desc("m_dma_rd_req", spec::DmaRdReq::kBits),
                 desc("m_dma_wr_req", spec::DmaWrReq::kBits),
                 {"m_axis_dma_wr", true, true, data_bytes},
                 {"m_event", false, true, (spec::CqEvent::kBits + 7) / 8}};
    reset();
  }
  void reset() override {
    top_->s_axil_awvalid = top_->s_axil_wvalid = top_->s_axil_arvalid = 0;
    top_->s_axil_bready = top_->s_axil_rready = 0;
    top_->s_axis_rx_tvalid = top_->s_axis_dma_rd_tvalid = top_->s_dma_wr_done_valid = 0;
    top_->m_axis_tx_tready = top_->m_axis_byp_tready = top_->m_dma_rd_req_ready = 0;
    top_->m_dma_wr_req_ready = top_->m_axis_dma_wr_tready = top_->m_event_ready = 0;
    this->restart();
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
      case 3:
        top_->s_axis_rx_tvalid = valid;
        vl::put_bytes(top_->s_axis_rx_tdata, f.data);
        top_->s_axis_rx_tkeep = f.keep;
        top_->s_axis_rx_tlast = f.last;
        top_->s_axis_rx_tuser = f.user;
        break;
      case 4:
        top_->s_axis_dma_rd_tvalid = valid;
        vl::put_bytes(top_->s_axis_dma_rd_tdata, f.data);
        top_->s_axis_dma_rd_tkeep = f.keep;
        top_->s_axis_dma_rd_tlast = f.last;
        top_->s_axis_dma_rd_tuser = f.user;
        top_->s_axis_dma_rd_tid = f.id;
        break;
      default:
        top_->s_dma_wr_done_valid = valid;
        top_->s_dma_wr_done_tag = le(0, 1);
        top_->s_dma_wr_done_error = le(1, 1) & 1;
        break;
    }
  }
  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->s_axil_bready = ready; break;
      case 1: top_->s_axil_rready = ready; break;
      case 2: top_->m_axis_tx_tready = ready; break;
      case 3: top_->m_axis_byp_tready = ready; break;
      case 4: top_->m_dma_rd_req_ready = ready; break;
      case 5: top_->m_dma_wr_req_ready = ready; break;
      case 6: top_->m_axis_dma_wr_tready = ready; break;
      default: top_->m_event_ready = ready; break;
    }
  }
  bool input_ready(unsigned port) override {
    switch (port) {
      case 0: return top_->s_axil_awready;
      case 1: return top_->s_axil_wready;
      case 2: return top_->s_axil_arready;
      case 3: return top_->s_axis_rx_tready;
      case 4: return top_->s_axis_dma_rd_tready;
      default: return top_->s_dma_wr_done_ready;
    }
  }
  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->s_axil_bvalid;
      case 1: return top_->s_axil_rvalid;
      case 2: return top_->m_axis_tx_tvalid;
      case 3: return top_->m_axis_byp_tvalid;
      case 4: return top_->m_dma_rd_req_valid;
      case 5: return top_->m_dma_wr_req_valid;
      case 6: return top_->m_axis_dma_wr_tvalid;
      default: return top_->m_event_valid;
    }
  }
  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0: f.data = le_bytes(top_->s_axil_bresp, 1); break;
      case 1: f.data = le_bytes(top_->s_axil_rdata, 4, top_->s_axil_rresp); break;
      case 2:
        f.data = vl::get_bytes(top_->m_axis_tx_tdata, bytes_);
        f.keep = top_->m_axis_tx_tkeep;
        f.last = top_->m_axis_tx_tlast;
        break;
      case 3:
        f.data = vl::get_bytes(top_->m_axis_byp_tdata, bytes_);
        f.keep = top_->m_axis_byp_tkeep;
        f.last = top_->m_axis_byp_tlast;
        f.user = top_->m_axis_byp_tuser;
        break;
      case 4: f.data = vl::get_bytes(top_->m_dma_rd_req, out_info_[4].bytes); break;
      case 5: f.data = vl::get_bytes(top_->m_dma_wr_req, out_info_[5].bytes); break;
      case 6:
        f.data = vl::get_bytes(top_->m_axis_dma_wr_tdata, bytes_);
        f.keep = top_->m_axis_dma_wr_tkeep;
        f.last = top_->m_axis_dma_wr_tlast;
        break;
      default: f.data = vl::get_bytes(top_->m_event, out_info_[7].bytes); break;
    }
    return f;
  }
  bool idle() const override { return top_->idle; }
  // The engine's `now` is this adapter's cycle count (skip() jumps it).
  void eval() override {
    top_->now = this->cycle_ & kNowMask;
    VlBlock<V>::eval();
  }
  void clock() override {
    top_->now = this->cycle_ & kNowMask;
    VlBlock<V>::clock();
  }
  // The clock jumps: `now` follows at once, and so do idle and the timer outputs.
  void skip(uint64_t cycles) override {
    VlBlock<V>::skip(cycles);
    top_->now = this->cycle_ & kNowMask;
    VlBlock<V>::eval();
  }
  uint64_t timer_at() const override {
    if (!top_->timer_valid) return UINT64_MAX;
    const uint64_t ahead = (top_->timer_next - this->cycle_) & kNowMask;  // 48-bit serial distance
    return ahead >> 47 ? this->cycle_ : this->cycle_ + ahead;             // (behind: due now)
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

 private:
  static constexpr uint64_t kNowMask = (uint64_t{1} << 48) - 1;
  unsigned bytes_;
};

}  // namespace rocenic
