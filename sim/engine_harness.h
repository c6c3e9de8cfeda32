// One cycle-level engine (the Verilated RTL) in its world, cycle by cycle:
// CSR accesses on AXI4-Lite, host memory behind the DMA timing model, frames
// in from the wire and out to it, events.
//
// The engine is a Block with these ports (RoceEngineRtl):
//   in  0 s_axil_aw, 1 s_axil_w, 2 s_axil_ar          (as model::RoceCsr)
//   in  3 s_axis_rx      frames from the MAC (DATA_W beats, user = bad frame)
//   in  4 s_axis_dma_rd  read data: id = the request's tag, user = poisoned
//   in  5 s_dma_wr_done  2 bytes: tag, error
//   out 0 s_axil_b, 1 s_axil_r
//   out 2 m_axis_tx      frames toward the MAC
//   out 3 m_axis_byp     non-RoCE frames toward the host Ethernet path
//   out 4 m_dma_rd_req   packed dma_rd_req_t
//   out 5 m_dma_wr_req   packed dma_wr_req_t
//   out 6 m_axis_dma_wr  write data beats
//   out 7 m_event        packed cq_event_t
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "common/block.h"
#include "dma/dma_model.h"
#include "dma/host_memory.h"
#include "engine_world.h"
#include "gen/roce_spec.h"

namespace rocenic {

namespace engine_port {
enum In : unsigned { kAw = 0, kW = 1, kAr = 2, kRx = 3, kDmaRd = 4, kDmaWrDone = 5 };
enum Out : unsigned { kB = 0, kR = 1, kTx = 2, kByp = 3, kDmaRdReq = 4, kDmaWrReq = 5, kDmaWr = 6, kEvent = 7 };
}  // namespace engine_port

class EngineHarness : public EngineWorld {
 public:
  EngineHarness(std::unique_ptr<Block> engine, HostMemory& mem, const DmaTiming& timing, unsigned data_bytes = 64);

  void csr_start(bool is_write, uint32_t addr, uint32_t data) override;
  bool csr_done() const override { return csr_state_ == CsrState::kDone; }
  bool csr_ok() const override { return csr_ok_; }
  uint32_t csr_data() const override { return csr_data_; }

  void push_rx(const Frame& f) override { rx_queue_.push_back(f); }

  // One clock cycle of the engine and its DMA.
  void cycle();
  uint64_t step(uint64_t) override {
    cycle();
    return 1;
  }
  bool idle() const override;
  uint64_t cycles() const override { return cycle_; }
  uint64_t timer_at() const override { return eng_->timer_at(); }
  void skip_to(uint64_t cycle) override;


  Block& engine() { return *eng_; }

 private:
  enum class CsrState { kIdle, kAddr, kResp, kDone };

  void drive_csr();
  void sample_outputs();

  std::unique_ptr<Block> eng_;
  DmaModel dma_;
  unsigned bytes_;
  uint64_t cycle_ = 0;

  CsrState csr_state_ = CsrState::kIdle;
  bool csr_write_ = false, csr_ok_ = false;
  uint32_t csr_addr_ = 0, csr_wdata_ = 0, csr_data_ = 0;

  std::deque<Frame> rx_queue_;
  std::vector<Flit> rx_beats_;
  size_t rx_next_ = 0;

  Frame tx_cur_, byp_cur_;
  // events waiting for the DMA writes requested before them (count requested then)
  std::deque<std::pair<uint64_t, std::pair<uint16_t, bool>>> held_events_;
  uint64_t writes_requested_ = 0, writes_done_ = 0;

  bool rd_req_ready_ = false, wr_req_ready_ = false, wr_data_ready_ = false;  // offered this cycle
  bool wr_open_ = false;  // a write request taken, its data beats still coming
  std::deque<spec::DmaWrReq> pending_wr_;
  DmaWrite wr_cur_;
};

}  // namespace rocenic
