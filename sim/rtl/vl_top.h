// What every RTL block adapter needs around its Verilated model: a context,
// the model, a clock with optional FST tracing, and a reset sequence.
#pragma once

#include <verilated.h>
#include <verilated_fst_c.h>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace rocenic {

// Whether a Verilated top has an init_busy output.
template <typename V, typename = void>
struct HasInitBusy : std::false_type {};
template <typename V>
struct HasInitBusy<V, std::void_t<decltype(std::declval<V&>().init_busy)>> : std::true_type {};

template <typename V>
class VlTop {
 public:
  VlTop() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->traceEverOn(true);
    top_ = std::make_unique<V>(ctx_.get());
  }
  ~VlTop() {
    close_trace();
    top_->final();
    // Verilator 5 unregisters a model's scopes (compiled in by --assert)
    // through the calling thread's current context, not the model's own
    // (verilator#8265): with several models in a process that context may be
    // gone already. Make this model's context current while it goes.
    Verilated::threadContextp(ctx_.get());
    top_.reset();
  }
  VlTop(const VlTop&) = delete;
  VlTop& operator=(const VlTop&) = delete;

  V* operator->() { return top_.get(); }
  const V* operator->() const { return top_.get(); }

  // Settle the combinational logic on the current inputs, in the low half
  // of the clock. Verilator 5 re-evaluates every input-dependent
  // combinational path on each eval() call, whatever changed, so eval() calls
  // are the cost of a cycle: with eval_low() before tick(), a cycle costs two
  // instead of three.
  void eval_low() {
    top_->clk = 0;
    top_->eval();
    low_ = true;
  }
  // One rising edge of clk (and the falling edge before it, unless
  // eval_low() already evaluated it; inputs set since then are seen at the
  // edge, as the edge's eval settles input logic before the flops sample).
  void tick() {
    if (!low_) {
      top_->clk = 0;
      top_->eval();
    }
    if (trace_) trace_->dump(time_);
    ++time_;
    top_->clk = 1;
    top_->eval();
    low_ = false;
    if (trace_) trace_->dump(time_);
    ++time_;
  }
  // Synchronous active-high reset held for a few cycles (the design-wide
  // convention), and on while a top with an init_busy output clears its
  // per-QP flag RAMs (qp_flags' sweep, MAX_QP*D/64 cycles): the first cycle
  // after reset finds every block ready, as when the flags were flip-flops.
  void reset_cycles(int n = 4) {
    top_->rst = 1;
    for (int i = 0; i < n; ++i) tick();
    if constexpr (HasInitBusy<V>::value) {
      top_->eval();
      while (top_->init_busy) {
        tick();
        top_->eval();
      }
    }
    top_->rst = 0;
    top_->eval();
  }
  bool open_trace(const std::string& path) {
    trace_ = std::make_unique<VerilatedFstC>();
    top_->trace(trace_.get(), 99);
    trace_->open(path.c_str());
    return true;
  }
  void close_trace() {
    if (trace_) trace_->close();
    trace_.reset();
  }

 private:
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<V> top_;
  std::unique_ptr<VerilatedFstC> trace_;
  uint64_t time_ = 0;
  bool low_ = false;  // evaluated with clk low since the last edge
};

}  // namespace rocenic

#include "common/block.h"

namespace rocenic {

// What every RTL block adapter shares: the Verilated top, the clock, the
// cycle count, tracing and the port descriptions. An adapter adds the
// mapping between its ports and flits.
template <typename V>
class VlBlock : public Block {
 public:
  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void eval() override { top_.eval_low(); }
  void clock() override {
    top_.tick();
    ++cycle_;
  }
  uint64_t cycle() const override { return cycle_; }
  void skip(uint64_t cycles) override { cycle_ += cycles; }
  bool open_trace(const std::string& path) override { return top_.open_trace(path); }
  void close_trace() override { top_.close_trace(); }

 protected:
  // Hold reset (inputs must be idle), then count cycles from zero.
  void restart() {
    top_.reset_cycles();
    cycle_ = 0;
  }

  VlTop<V> top_;
  std::vector<PortInfo> in_info_, out_info_;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic
