// The cycle-level port interface of every RTL block adapter (sim/rtl/):
// valid/ready streams of flits, driven and sampled once per clock. A block
// of the event-driven model meets it through FlitAdapter
// (model/sched/flit_adapter.h), for the cross-checks (sim/xcheck.h).
//
// One cycle, as the harness runs it:
//   set_input() / set_output_ready() for every port   (what the world offers)
//   eval()                                            (settle combinational logic)
//   input_ready() / output_valid() / output()         (sample the handshakes)
//   clock()                                           (rising edge of clk)
// A transfer happens on a port when valid && ready in that cycle. A model
// may use other latencies than its RTL, but must produce the same flits in
// the same order on every output port.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace rocenic {

// What one valid/ready handshake carries: an AXI-Stream beat (bytes in lane
// order, keep, last, user) or, on a descriptor port, the packed struct as
// little-endian bytes with last = true.
struct Flit {
  std::vector<uint8_t> data;
  uint64_t keep = 0;  // one bit per byte lane (data widths up to 512 bits)
  bool last = true;
  bool user = false;
  uint8_t id = 0;  // AXI-Stream tid where a port has one (DMA read data: the request's tag)
  bool operator==(const Flit& o) const {
    return data == o.data && keep == o.keep && last == o.last && user == o.user && id == o.id;
  }
};

struct PortInfo {
  std::string name;
  bool is_stream = true;  // AXI-Stream (transaction ends at last) vs descriptor (one flit)
  bool has_ready = true;  // false for event outputs the block never holds back
  unsigned bytes = 0;     // flit data width in bytes
};

class Block {
 public:
  virtual ~Block() = default;
  virtual const std::vector<PortInfo>& inputs() const = 0;
  virtual const std::vector<PortInfo>& outputs() const = 0;
  virtual void reset() = 0;
  virtual void set_input(unsigned port, bool valid, const Flit& flit) = 0;
  virtual void set_output_ready(unsigned port, bool ready) = 0;
  virtual void eval() = 0;
  virtual bool input_ready(unsigned port) = 0;
  virtual bool output_valid(unsigned port) = 0;
  virtual Flit output(unsigned port) = 0;
  virtual void clock() = 0;
  virtual uint64_t cycle() const = 0;
  // Named 32-bit counters the block exposes (compared at quiescence).
  virtual std::vector<std::pair<std::string, uint32_t>> counters() = 0;
  // Nothing in progress, buffered or pending: nothing happens without new
  // input (the engine stops the simulated clock when every block is idle).
  virtual bool idle() const { return true; }
  // Timers (blocks that have them, e.g. the transport's ACK timeout): no
  // timer expires before this cycle (UINT64_MAX: none armed). While idle a
  // simulation may jump the block's clock up to it (skip), not past it.
  virtual uint64_t timer_at() const { return UINT64_MAX; }
  // Jumps the block's clock forward by `cycles` without clocking it (idle
  // only): its timers see the time pass.
  virtual void skip(uint64_t /*cycles*/) {}
  // Waveform dump (RTL blocks): start writing an FST file from the next cycle on.
  virtual bool open_trace(const std::string& /*fst_path*/) { return false; }
  virtual void close_trace() {}
};

}  // namespace rocenic
