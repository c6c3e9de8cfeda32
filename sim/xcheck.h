// The cross-check harness: drive an RTL block and its model with the same
// stimulus (random idle cycles on inputs, random backpressure on outputs) and
// compare what comes out, transaction by transaction, per output port.
//
// Both sides get their own drivers seeded alike, so each sees the same gap
// pattern per flit though their timing differs. The first differing
// transaction fails the run with both transactions, their cycles and, for an
// RTL side that can trace, an FST waveform of the window before it (made by a
// deterministic re-run of the RTL side with tracing on).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/block.h"
#include "common/desc_flit.h"

namespace rocenic {

struct Txn {
  std::vector<Flit> flits;
  uint64_t first_cycle = 0, last_cycle = 0;
};

struct XcheckConfig {
  uint64_t seed = 1;
  double in_idle = 0.3;      // chance an input port idles a cycle before offering its next flit
  double out_stall = 0.3;    // chance an output port's ready is low in a cycle
  uint64_t max_cycles = 50'000'000;
  uint64_t quiet_cycles = 2000;  // idle cycles after the last input that end the run
  // The global order in which inputs are offered, for blocks whose outcome
  // depends on how inputs on different ports interleave (a CQ doorbell that
  // arms before or after a completion): each step is a mask of input ports
  // that offer their next flit together (AXI4-Lite AW and W), once every
  // flit of the step before was taken. Empty: every port offers independently.
  std::vector<uint32_t> order;
  std::string fst_path;          // where a divergence's waveform goes ("" = none)
  uint64_t fst_window = 2000;    // cycles of waveform before the divergence
  // Renders a transaction of output port p for a report (default: bytes in hex).
  std::function<std::string(unsigned port, const Txn&)> describe;
};

struct XcheckResult {
  bool ok = true;
  std::string report;                        // the first divergence, or a summary
  uint64_t compared = 0;                     // transactions compared on all ports
  uint64_t rtl_cycles = 0, model_cycles = 0; // cycle of each side's last output
  std::vector<std::vector<Txn>> rtl_out, model_out;  // per output port
};

using BlockFactory = std::function<std::unique_ptr<Block>()>;

// stimulus[i] = the flits to offer on input port i, in order.
XcheckResult xcheck_run(const BlockFactory& make_rtl, const BlockFactory& make_model,
                        const std::vector<std::vector<Flit>>& stimulus, const XcheckConfig& cfg);

// Drive one block alone (no comparison): for benches and oracle tests.
std::vector<std::vector<Txn>> drive_block(Block& b, const std::vector<std::vector<Flit>>& stimulus,
                                          const XcheckConfig& cfg, uint64_t* last_cycle = nullptr);

std::string hex_bytes(const std::vector<uint8_t>& v, size_t max = 96);

}  // namespace rocenic
