// The simulated NIC as software sees it: one interface, three backends.
//   model  the C++ reference model of the engine
//   rtl    the Verilated RTL engine
//   cosim  both in lockstep: the RTL drives the world, the model runs on its
//          own overlay of host memory, and a scoreboard compares per QP the
//          TX frames, DMA writes and CQEs; the first divergence is kept
//          (divergence()) and the run stops there.
// Each backend owns its engine, the DMA timing model in front of host memory
// (this process's memory, IOVA = VA) and the clock.
//
// Threading: a Device is not thread-safe; the provider serialises every call
// (its simulation thread calls run(), application threads ring doorbells).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/block.h"
#include "dma/dma_model.h"

namespace rocenic {

class EngineWorld;

struct DeviceEvent {
  uint16_t cq = 0;
  bool error = false;  // CQ error (overrun, no such CQ) instead of a completion event
};

struct DeviceOptions {
  DmaTiming dma;               // host-memory timing (defaults: PCIe Gen3 x16-like)
  std::string fst_path;        // cosim: waveform of the window before a divergence ("" = none)
  std::string divergence_pcap; // cosim: frames of that window ("" = none)
};

class Device {
 public:
  using FrameSink = std::function<void(const uint8_t* frame, size_t len)>;

  virtual ~Device() = default;
  virtual const char* backend() const = 0;

  // One AXI4-Lite transaction each; simulated time runs until the response.
  // false when the engine answers SLVERR (unmapped address, write to a
  // read-only register, value it refuses); *value is then 0.
  virtual bool csr_read(uint32_t addr, uint32_t* value) = 0;
  virtual bool csr_write(uint32_t addr, uint32_t value) = 0;

  // Host memory the engine may reach by DMA: [addr, addr + len) of this
  // process. Every access outside allowed ranges is refused (and counted).
  virtual void dma_allow(uint64_t addr, uint64_t len) = 0;
  virtual void dma_revoke(uint64_t addr, uint64_t len) = 0;

  // Frames the engine sends toward the MAC (without FCS), and non-RoCE
  // frames it passes to the host's Ethernet path (bypass).
  virtual void set_tx_sink(FrameSink sink) = 0;
  virtual void set_bypass_sink(FrameSink sink) = 0;
  // A frame from the wire (without FCS) enters the MAC RX port.
  virtual void rx_frame(const uint8_t* frame, size_t len) = 0;

  // Completion events and CQ errors raised since the last call.
  virtual std::vector<DeviceEvent> take_events() = 0;

  // Runs the clock for at most max_cycles; returns early (with the cycles
  // run) once the engine is idle: no work in any block, no DMA, no frame in
  // flight, nothing queued for RX. Simulated time does not advance while idle.
  virtual uint64_t run(uint64_t max_cycles) = 0;
  virtual bool idle() = 0;
  // The transport's timers (ACK timeout, RNR wait) do not keep the device
  // from being idle: no timer expires before timer_at() (UINT64_MAX: none
  // armed). skip_to() jumps an idle device's clock forward to a cycle, so a
  // caller that knows no frame is coming lets the timer expire without
  // simulating the wait (then run() again).
  virtual uint64_t timer_at() = 0;
  virtual void skip_to(uint64_t cycle) = 0;

  // The engine in its world (model and rtl backends; cosim: the RTL side),
  // for benches and tests that look at cycle-level timing.
  virtual EngineWorld* harness() { return nullptr; }

  // Simulated clock cycles so far, and the same in nanoseconds (the clock
  // of DmaTiming::clock_mhz, 250 MHz unless set): what captures are stamped with.
  virtual uint64_t cycles() const = 0;
  virtual uint64_t now_ns() const = 0;
  // DMA accesses refused so far (outside the allowed ranges).
  virtual uint64_t dma_refused() const { return 0; }
  // cosim: transactions compared so far and the first divergence ("" = none).
  virtual uint64_t compared() const { return 0; }
  virtual std::string divergence() const { return ""; }
};

// backend is "model", "rtl" or "cosim" (for cosim the environment variables
// ROCENIC_COSIM_FST and ROCENIC_COSIM_PCAP, when set, fill in fst_path and
// divergence_pcap); anything else throws
// std::invalid_argument with a message naming the three.
std::unique_ptr<Device> make_device(const std::string& backend, const DeviceOptions& opt = {});

// cosim of a given RTL engine (a Block with the ports of sim/engine_harness.h)
// against the model: how tests run a deliberately broken RTL.
std::unique_ptr<Device> make_cosim_device(std::unique_ptr<Block> rtl, const DeviceOptions& opt = {});

}  // namespace rocenic
