// The model engine behind the Device interface, with what the provider's
// unit tests check recorded on the way: the commands the provider issued,
// the consumer index it reported with each CQ doorbell, the frames the
// wire brought, CQ errors. The engine is the real model backend
// (make_device("model")): nothing here re-implements it.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "device.h"
#include "gen/roce_spec.h"

namespace rocenic::test {

class ObservedDevice : public Device {
 public:
  ObservedDevice() : d_(make_device("model")) {}

  const char* backend() const override { return d_->backend(); }
  bool csr_read(uint32_t addr, uint32_t* value) override { return d_->csr_read(addr, value); }
  bool csr_write(uint32_t addr, uint32_t value) override {
    const bool ok = d_->csr_write(addr, value);
    if (ok && addr == spec::kCsrCmdOp) ++commands;
    if (ok && addr == spec::kCsrSqBfDb) ++bf_doorbells;
    if (ok && addr == spec::kCsrCqDbCi) ci_ = value;
    if (ok && addr == spec::kCsrCqDb && (value & 0xFFFF) < 256) last_cq_ci[value & 0xFFFF] = ci_;
    return ok;
  }
  void dma_allow(uint64_t addr, uint64_t len) override { d_->dma_allow(addr, len); }
  void dma_revoke(uint64_t addr, uint64_t len) override { d_->dma_revoke(addr, len); }
  void set_tx_sink(FrameSink sink) override { d_->set_tx_sink(std::move(sink)); }
  void set_bypass_sink(FrameSink sink) override { d_->set_bypass_sink(std::move(sink)); }
  void rx_frame(const uint8_t* frame, size_t len) override {
    {
      std::lock_guard<std::mutex> l(mu_);
      rx_frames.emplace_back(frame, frame + len);
    }
    rx_count.fetch_add(1);
    d_->rx_frame(frame, len);
  }
  std::vector<DeviceEvent> take_events() override {
    auto ev = d_->take_events();
    for (const DeviceEvent& e : ev) cq_errors += e.error;
    return ev;
  }
  uint64_t run(uint64_t max_cycles) override { return d_->run(max_cycles); }
  bool idle() override { return d_->idle(); }
  uint64_t timer_at() override { return d_->timer_at(); }
  void skip_to(uint64_t cycle) override { d_->skip_to(cycle); }
  uint64_t cycles() const override { return d_->cycles(); }
  uint64_t now_ns() const override { return d_->now_ns(); }
  uint64_t dma_refused() const override { return d_->dma_refused(); }

  // What the tests look at.
  std::vector<std::vector<uint8_t>> rx_frames;  // read once the engine is idle (Engine::wait_idle)
  std::atomic<size_t> rx_count{0};
  uint32_t commands = 0;          // commands issued (CMD_OP written and accepted)
  uint32_t bf_doorbells = 0;      // SQ_BF_DB written and accepted (a WQE through the SQ_BF window)
  uint32_t last_cq_ci[256] = {};  // CQ_DB_CI as rung, per CQ
  uint32_t cq_errors = 0;         // CQ error events (overrun, no such CQ)

 private:
  std::unique_ptr<Device> d_;
  std::mutex mu_;
  uint32_t ci_ = 0;
};

}  // namespace rocenic::test
