// Block adapter around the Verilated rtl/net/roce_deparser.sv. Port order as
// model::RoceDeparser. Templated on the Verilated class (one per DATA_W).
#pragma once

#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"

namespace rocenic {

template <typename V>
class RoceDeparserRtl : public VlBlock<V> {
  using VlBlock<V>::top_;
  using VlBlock<V>::in_info_;
  using VlBlock<V>::out_info_;
  using VlBlock<V>::restart;

 public:
  explicit RoceDeparserRtl(unsigned data_bytes = 64) : bytes_(data_bytes) {
    in_info_ = {{"s_hdr", false, true, (spec::RoceTxHdr::kBits + 7) / 8}, {"s_axis_pay", true, true, bytes_}};
    out_info_ = {{"m_axis_tx", true, true, bytes_}};
    reset();
  }


  void reset() override {
    top_->s_hdr_valid = 0;
    top_->s_axis_pay_tvalid = 0;
    top_->m_axis_tx_tready = 0;
    restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    if (port == 0) {
      top_->s_hdr_valid = valid;
      if (valid) vl::put_bytes(top_->s_hdr, f.data);
    } else {
      top_->s_axis_pay_tvalid = valid;
      if (valid) vl::put_bytes(top_->s_axis_pay_tdata, f.data);
    }
  }
  void set_output_ready(unsigned, bool ready) override { top_->m_axis_tx_tready = ready; }
  bool input_ready(unsigned port) override { return port == 0 ? top_->s_hdr_ready : top_->s_axis_pay_tready; }
  bool output_valid(unsigned) override { return top_->m_axis_tx_tvalid; }
  Flit output(unsigned) override {
    Flit f;
    f.data = vl::get_bytes(top_->m_axis_tx_tdata, bytes_);
    f.keep = static_cast<uint64_t>(top_->m_axis_tx_tkeep);
    f.last = top_->m_axis_tx_tlast;
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"tx_frames", top_->cnt_tx_frames}};
  }

 private:
  unsigned bytes_;
};

}  // namespace rocenic
