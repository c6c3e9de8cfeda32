// Block adapter around the Verilated rtl/net/roce_parser.sv (Vroce_parser):
// same ports, indices and flit formats as model::RoceParser.
//
//   input  0  s_axis_rx     output 0  m_hdr (roce_rx_hdr_t, 122 bytes LE)
//                           output 1  m_axis_pay
//                           output 2  m_axis_byp
//                           output 3  stat (bits 3:0 drop, bit 4 bypass; no ready)
//
// One call of clock() is one rising edge of clk; an FST trace (open_trace)
// records two samples per cycle: the settled inputs before the edge, and the
// registers after it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vroce_parser.h"
#include "common/block.h"
#include "gen/roce_spec.h"
#include "rtl/vl_ports.h"

namespace rocenic {

class RoceParserRtl : public Block {
 public:
  using Top = Vroce_parser;
  static constexpr unsigned kDataBytes = sizeof(std::declval<Top&>().s_axis_rx_tdata);
  static constexpr unsigned kHdrBytes = (spec::RoceRxHdr::kBits + 7) / 8;

  explicit RoceParserRtl(VerilatedContext* ctx = nullptr) {
    if (!ctx) {
      own_ctx_ = std::make_unique<VerilatedContext>();
      ctx = own_ctx_.get();
    }
    ctx_ = ctx;
    ctx_->traceEverOn(true);  // must precede the model's construction
    top_ = std::make_unique<Top>(ctx_, "roce_parser");
    inputs_ = {{"s_axis_rx", true, true, kDataBytes}};
    outputs_ = {{"m_hdr", false, true, kHdrBytes},
                {"m_axis_pay", true, true, kDataBytes},
                {"m_axis_byp", true, true, kDataBytes},
                {"stat", false, false, 1}};
    top_->roce_enable = 1;
    reset();
  }
  ~RoceParserRtl() override {
    close_trace();
    top_->final();
    Verilated::threadContextp(ctx_);  // scopes leave through the current context (see VlTop)
    top_.reset();
  }
  RoceParserRtl(const RoceParserRtl&) = delete;
  RoceParserRtl& operator=(const RoceParserRtl&) = delete;

  void set_roce_enable(bool on) { top_->roce_enable = on; }
  Top& top() { return *top_; }

  bool open_trace(const std::string& fst_path) override {
    close_trace();
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), 99);
    trace_->open(fst_path.c_str());
    return trace_->isOpen();
  }
  void close_trace() override {
    if (trace_) {
      trace_->close();
      trace_.reset();
    }
  }

  const std::vector<PortInfo>& inputs() const override { return inputs_; }
  const std::vector<PortInfo>& outputs() const override { return outputs_; }

  void reset() override {
    top_->s_axis_rx_tvalid = 0;
    top_->m_hdr_ready = 0;
    top_->m_axis_pay_tready = 0;
    top_->m_axis_byp_tready = 0;
    top_->rst = 1;
    for (int i = 0; i < 4; ++i) edge();
    top_->rst = 0;
    top_->eval();
    cycle_ = 0;
  }

  void set_input(unsigned port, bool valid, const Flit& f) override {
    if (port != 0) return;
    top_->s_axis_rx_tvalid = valid;
    vl::put_bytes(top_->s_axis_rx_tdata, f.data);
    top_->s_axis_rx_tkeep = static_cast<std::remove_reference_t<decltype(top_->s_axis_rx_tkeep)>>(f.keep);
    top_->s_axis_rx_tlast = f.last;
    top_->s_axis_rx_tuser = f.user;
  }

  void set_output_ready(unsigned port, bool ready) override {
    switch (port) {
      case 0: top_->m_hdr_ready = ready; break;
      case 1: top_->m_axis_pay_tready = ready; break;
      case 2: top_->m_axis_byp_tready = ready; break;
      default: break;  // stat has no ready
    }
  }

  void eval() override { top_->eval(); }

  bool input_ready(unsigned port) override { return port == 0 && top_->s_axis_rx_tready; }

  bool output_valid(unsigned port) override {
    switch (port) {
      case 0: return top_->m_hdr_valid;
      case 1: return top_->m_axis_pay_tvalid;
      case 2: return top_->m_axis_byp_tvalid;
      case 3: return top_->stat_valid;
      default: return false;
    }
  }

  Flit output(unsigned port) override {
    Flit f;
    switch (port) {
      case 0:
        f.data = vl::get_bytes(top_->m_hdr, kHdrBytes);
        f.keep = 0;
        break;
      case 1:
        f.data = vl::get_bytes(top_->m_axis_pay_tdata, kDataBytes);
        f.keep = static_cast<uint64_t>(top_->m_axis_pay_tkeep);
        f.last = top_->m_axis_pay_tlast;
        break;
      case 2:
        f.data = vl::get_bytes(top_->m_axis_byp_tdata, kDataBytes);
        f.keep = static_cast<uint64_t>(top_->m_axis_byp_tkeep);
        f.last = top_->m_axis_byp_tlast;
        f.user = top_->m_axis_byp_tuser;
        break;
      case 3:
        f.data = {static_cast<uint8_t>((top_->stat_drop & 0xF) | (top_->stat_bypass ? 0x10 : 0))};
        f.keep = 1;
        break;
      default:
        break;
    }
    return f;
  }

  void clock() override {
    edge();
    ++cycle_;
  }

  uint64_t cycle() const override { return cycle_; }

  std::vector<std::pair<std::string, uint32_t>> counters() override {
    std::vector<std::pair<std::string, uint32_t>> c = {
        {"rx_frames", top_->cnt_rx_frames}, {"rx_roce", top_->cnt_rx_roce}, {"rx_bypass", top_->cnt_rx_bypass}};
    for (unsigned r = 1; r < spec::kDropCount; ++r)
      c.emplace_back(std::string("rx_drop_") + spec::to_string(static_cast<spec::Drop>(r)),
                     top_->cnt_rx_drop.m_storage[r]);
    return c;
  }

 private:
  // One clk period: settle, (trace), rise, (trace), fall.
  void edge() {
    top_->eval();
    if (trace_) trace_->dump(2 * trace_time_);
    top_->clk = 1;
    top_->eval();
    if (trace_) trace_->dump(2 * trace_time_ + 1);
    top_->clk = 0;
    top_->eval();
    ++trace_time_;
  }

  std::unique_ptr<VerilatedContext> own_ctx_;
  VerilatedContext* ctx_ = nullptr;
  std::unique_ptr<Top> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  std::vector<PortInfo> inputs_, outputs_;
  uint64_t cycle_ = 0;
  uint64_t trace_time_ = 0;
};

}  // namespace rocenic
