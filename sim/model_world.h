// The event-driven engine model (model/engine/roce_engine.h) in its world:
// host memory behind the DMA timing (DmaTimeline: the cycles DmaModel gives
// the RTL, as arithmetic), the MAC's RX and TX ports, the CSR master, the
// event line. Time jumps from event to event; nothing is evaluated while
// the engine waits (a DMA round trip, an idle wire).
#pragma once

#include <deque>
#include <memory>

#include "dma/dma_timeline.h"
#include "dma/host_memory.h"
#include "engine/roce_engine.h"
#include "engine_world.h"

namespace rocenic {

class ModelWorld : public EngineWorld {
 public:
  ModelWorld(HostMemory& mem, const DmaTiming& timing, unsigned data_bytes = 64);
  ~ModelWorld() override;

  void csr_start(bool is_write, uint32_t addr, uint32_t data) override;
  bool csr_done() const override { return csr_done_; }
  bool csr_ok() const override { return csr_ok_; }
  uint32_t csr_data() const override { return csr_data_; }
  void push_rx(const Frame& f) override;
  uint64_t step(uint64_t max_cycles = 1) override;
  bool idle() const override;
  uint64_t cycles() const override { return sched_.now(); }
  uint64_t timer_at() const override { return eng_->completer.next_deadline(); }
  void skip_to(uint64_t cycle) override;

 private:
  class Host;  // the processes of the world (host/sink side of every engine port)

  model::Scheduler sched_;
  HostMemory& mem_;
  DmaTimeline dma_;
  unsigned bytes_;
  std::unique_ptr<model::RoceEngine> eng_;
  std::unique_ptr<Host> host_;

  bool csr_done_ = true, csr_ok_ = false;
  uint32_t csr_data_ = 0;
};

}  // namespace rocenic
