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
  // The RTL is about to write [addr, addr + n), whose bytes are now `old`:
  // where the model has not written (it is behind), it keeps seeing `old`
  // until it makes that write itself -- an atomic of the model must not
  // read the counter the RTL already moved on.
  void preserve(uint64_t addr, const uint8_t* old, size_t n);
  // The scoreboard matched a write of [addr, addr + n) from both sides.
  // Each byte counts the writes of either side not yet matched; one with
  // none left goes back to real memory, which now holds what the model
  // wrote (and must stay its view when the application rewrites that
  // buffer later, e.g. to send from it). A byte the model has written again
  // since (an atomic after a WRITE to the same counter, the RTL not there
  // yet), or the RTL has (the model not there yet), stays.
  void forget(uint64_t addr, size_t n);
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
    std::array<uint16_t, kPage> model_n{}, rtl_n{};  // writes not yet matched, per side
  };
  // Calls f(page number, offset in page, offset in the range, length) for
  // each page-sized piece of [addr, addr + n).
  template <typename F>
  static void pieces(uint64_t addr, size_t n, F f);

  HostMemory& base_;
  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
};

}  // namespace rocenic
