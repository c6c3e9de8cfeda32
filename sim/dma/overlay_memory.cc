#include "dma/overlay_memory.h"

#include <vector>

namespace rocenic {

void OverlayMemory::peek(uint64_t addr, uint8_t* out, size_t n) {
  // The real memory underneath is read without the allowed-region check: it
  // is the model's reference, the check happened on the model's own access.
  if (!base_.read(addr, out, n))
    for (size_t i = 0; i < n; ++i) out[i] = 0;
  for (size_t i = 0; i < n; ++i) {
    auto it = bytes_.find(addr + i);
    if (it != bytes_.end()) out[i] = it->second;
  }
}

void OverlayMemory::do_read(uint64_t addr, uint8_t* out, size_t n) { peek(addr, out, n); }

void OverlayMemory::do_write(uint64_t addr, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n; ++i) bytes_[addr + i] = in[i];
}

void OverlayMemory::forget(uint64_t addr, size_t n) {
  bytes_.erase(bytes_.lower_bound(addr), bytes_.lower_bound(addr + n));
}

}  // namespace rocenic
