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
  std::vector<Frame> take_tx() override { return std::exchange(tx_out_, {}); }
  std::vector<Frame> take_bypass() override { return std::exchange(byp_out_, {}); }
  std::vector<std::pair<uint16_t, bool>> take_events() override { return std::exchange(events_, {}); }
  std::vector<DmaWrite> take_dma_writes() override { return std::exchange(writes_, {}); }
  void record_writes(bool on) override { record_writes_ = on; }
  std::vector<uint64_t> take_tx_starts() override { return std::exchange(tx_starts_, {}); }
  std::vector<uint64_t> take_rx_ends() override { return std::exchange(rx_ends_, {}); }

  model::RoceEngine& engine() { return *eng_; }
  model::Scheduler& sched() { return sched_; }

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
  std::vector<Frame> tx_out_, byp_out_;
  std::vector<std::pair<uint16_t, bool>> events_;
  std::vector<DmaWrite> writes_;
  bool record_writes_ = false;
  std::vector<uint64_t> tx_starts_, rx_ends_;
};

}  // namespace rocenic
