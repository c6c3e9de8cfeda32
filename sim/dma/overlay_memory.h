// The model's own view of host memory in cosim (DESIGN.md §5): writes land
// in a private overlay, reads see the overlay over the real memory. The
// RTL's DMA writes the real memory; the model never does, so a difference
// between the two shows up in the scoreboard instead of being hidden by a
// shared buffer, and read-modify-writes of the model see its own past.
#pragma once

#include <array>
#include <bitset>
#include <memory>
#include <unordered_map>

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
  // application rewrites that buffer later (e.g. to send from it). A byte
  // the model has written since with another value (an atomic after a
  // WRITE to the same counter, the RTL not there yet) stays: `matched` is
  // the matched write's data.
  void forget(uint64_t addr, const uint8_t* matched, size_t n);
  // Bytes the overlay holds (written by the model and not yet forgotten).
  size_t held() const;

 protected:
  void do_read(uint64_t addr, uint8_t* out, size_t n) override;
  void do_write(uint64_t addr, const uint8_t* in, size_t n) override;

 private:
  // Overlay bytes by 4 KiB page: the model writes whole payloads, so a byte
  // map would cost a tree node per byte.
  static constexpr uint64_t kPage = 4096;
  struct Page {
    std::array<uint8_t, kPage> data;
    std::bitset<kPage> held;
  };
  // Calls f(page number, offset in page, offset in the range, length) for
  // each page-sized piece of [addr, addr + n).
  template <typename F>
  static void pieces(uint64_t addr, size_t n, F f);

  HostMemory& base_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace rocenic
