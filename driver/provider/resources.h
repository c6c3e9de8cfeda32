// Bookkeeping the provider does on the host side of the NIC, as a kernel
// driver would: which MTT entries are in use, and which host memory the
// engine may reach by DMA (several objects may cover the same bytes).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace rocenic::driver {

// The engine's MTT: kMttDepth entries (limits.h), handed out as contiguous
// ranges, first fit, merged again when freed.
class MttAllocator {
 public:
  explicit MttAllocator(uint32_t depth);
  bool alloc(uint32_t n, uint32_t* base);  // false: no free range of n entries
  void free(uint32_t base, uint32_t n);
  uint32_t free_entries() const;

 private:
  std::map<uint32_t, uint32_t> free_;  // base -> length, disjoint, not touching
};

// DMA windows with a count per registration: the Device's allow/revoke act
// on byte ranges without counts, so a range is revoked only where no other
// registration (an MR over the same buffer, a ring) still covers it.
class DmaWindows {
 public:
  using Fn = std::function<void(uint64_t addr, uint64_t len)>;
  DmaWindows(Fn allow, Fn revoke) : allow_(std::move(allow)), revoke_(std::move(revoke)) {}
  void allow(uint64_t addr, uint64_t len);
  void revoke(uint64_t addr, uint64_t len);  // one registration of exactly [addr, addr+len)
  size_t registrations() const { return ranges_.size(); }

 private:
  Fn allow_, revoke_;
  std::multimap<uint64_t, uint64_t> ranges_;  // start -> end (exclusive)
};

}  // namespace rocenic::driver
