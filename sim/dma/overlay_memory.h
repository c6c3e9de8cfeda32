// The model's own view of host memory in cosim (DESIGN.md §5): writes land
// in a private overlay, reads see the overlay over the real memory. The
// RTL's DMA writes the real memory; the model never does, so a difference
// between the two shows up in the scoreboard instead of being hidden by a
// shared buffer, and read-modify-writes of the model see its own past.
#pragma once

#include <map>

#include "dma/host_memory.h"

namespace rocenic {

class OverlayMemory : public HostMemory {
 public:
  explicit OverlayMemory(HostMemory& base) : base_(base) {}
  // The overlay's bytes in [addr, addr + n) (real memory where the model wrote nothing).
  void peek(uint64_t addr, uint8_t* out, size_t n);
  // Drop [addr, addr + n) from the overlay: the RTL has written the same
  // bytes to real memory (the scoreboard matched the two writes), so real
  // memory is the model's view again -- and must stay so when the
  // application rewrites that buffer later (e.g. to send from it).
  void forget(uint64_t addr, size_t n);

 protected:
  void do_read(uint64_t addr, uint8_t* out, size_t n) override;
  void do_write(uint64_t addr, const uint8_t* in, size_t n) override;

 private:
  HostMemory& base_;
  std::map<uint64_t, uint8_t> bytes_;
};

}  // namespace rocenic
