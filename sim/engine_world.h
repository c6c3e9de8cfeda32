// One engine in its world, as the Device backends, cosim and the benches
// drive it: CSR accesses on AXI4-Lite, host memory behind the DMA timing,
// frames in from the wire and out to it, completion events. Two kinds:
//   EngineHarness  the Verilated RTL (or any cycle-level Block), a clock
//                  cycle at a time (sim/engine_harness.h)
//   ModelWorld     the event-driven model, from event to event
//                  (sim/model_world.h)
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rocenic {

struct DmaWrite {
  uint64_t addr = 0;
  std::vector<uint8_t> data;
  uint64_t cycle = 0;
  uint8_t tag = 0;  // the writing client: 0 responder (payload), 1 CQ writer (CQEs)
};

// A DMA read request as the host took it (benches' timelines).
struct DmaRead {
  uint64_t addr = 0;
  uint32_t len = 0;
  uint64_t cycle = 0;
};

class EngineWorld {
 public:
  using Frame = std::vector<uint8_t>;
  virtual ~EngineWorld() = default;

  // CSR access, started now; poll csr_done() while stepping. One at a time.
  virtual void csr_start(bool is_write, uint32_t addr, uint32_t data) = 0;
  virtual bool csr_done() const = 0;
  virtual bool csr_ok() const = 0;
  virtual uint32_t csr_data() const = 0;

  // A frame from the wire; it enters the MAC RX port a beat a cycle, after
  // the frames before it.
  virtual void push_rx(const Frame& f) = 0;

  // Advances simulated time by at least one cycle and at most max_cycles
  // (the RTL: one cycle; the model: to its next event, when that comes
  // sooner); returns the cycles advanced.
  virtual uint64_t step(uint64_t max_cycles = 1) = 0;
  // Nothing in progress anywhere: time stands still until new input.
  virtual bool idle() const = 0;
  virtual uint64_t cycles() const = 0;
  // Timers (the transport's ACK timeout and RNR wait) do not keep the world
  // from being idle. No timer expires before timer_at() (UINT64_MAX: none
  // armed); while idle, skip_to() jumps simulated time forward to a cycle
  // (no further than timer_at() if the jump is not to pass a timer by).
  virtual uint64_t timer_at() const = 0;
  virtual void skip_to(uint64_t cycle) = 0;

  // What came out since the last take_*().
  std::vector<Frame> take_tx() { return std::exchange(tx_out_, {}); }
  std::vector<Frame> take_bypass() { return std::exchange(byp_out_, {}); }
  std::vector<std::pair<uint16_t, bool>> take_events() { return std::exchange(events_, {}); }  // (cq, error)
  // Every DMA write, once record_writes(true) (cosim, benches).
  std::vector<DmaWrite> take_dma_writes() { return std::exchange(writes_, {}); }
  void record_writes(bool on) { record_writes_ = on; }
  // ... and every DMA read request the host took, then too.
  std::vector<DmaRead> take_dma_reads() { return std::exchange(reads_, {}); }
  // Timing marks for benches: the cycle of the first beat of every TX frame,
  // and of the last beat of every RX frame the engine took.
  std::vector<uint64_t> take_tx_starts() { return std::exchange(tx_starts_, {}); }
  std::vector<uint64_t> take_rx_ends() { return std::exchange(rx_ends_, {}); }

 protected:
  // filled by the world as things come out
  std::vector<Frame> tx_out_, byp_out_;
  std::vector<std::pair<uint16_t, bool>> events_;
  std::vector<DmaWrite> writes_;
  std::vector<DmaRead> reads_;
  bool record_writes_ = false;
  std::vector<uint64_t> tx_starts_, rx_ends_;
};

}  // namespace rocenic
