#include "resources.h"

#include <algorithm>

namespace rocenic::driver {

MttAllocator::MttAllocator(uint32_t depth) {
  if (depth) free_[0] = depth;
}

bool MttAllocator::alloc(uint32_t n, uint32_t* base) {
  if (n == 0) return false;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < n) continue;
    *base = it->first;
    const uint32_t rest = it->second - n, next = it->first + n;
    free_.erase(it);
    if (rest) free_[next] = rest;
    return true;
  }
  return false;
}

void MttAllocator::free(uint32_t base, uint32_t n) {
  if (n == 0) return;
  uint32_t b = base, len = n;
  auto next = free_.lower_bound(b);
  if (next != free_.end() && b + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == b) {
      b = prev->first;
      len += prev->second;
      free_.erase(prev);
    }
  }
  free_[b] = len;
}

uint32_t MttAllocator::free_entries() const {
  uint32_t n = 0;
  for (const auto& [b, len] : free_) n += len;
  return n;
}

void DmaWindows::allow(uint64_t addr, uint64_t len) {
  if (len == 0) return;
  ranges_.emplace(addr, addr + len);
  allow_(addr, len);
}

void DmaWindows::revoke(uint64_t addr, uint64_t len) {
  if (len == 0) return;
  const uint64_t s = addr, e = addr + len;
  auto [lo, hi] = ranges_.equal_range(s);
  auto it = std::find_if(lo, hi, [&](const auto& r) { return r.second == e; });
  if (it == hi) return;  // never allowed: nothing to take back
  ranges_.erase(it);
  // What other registrations still cover inside [s, e), sorted and merged.
  std::vector<std::pair<uint64_t, uint64_t>> keep;
  for (const auto& [rs, re] : ranges_)
    if (rs < e && re > s) keep.emplace_back(std::max(rs, s), std::min(re, e));
  std::sort(keep.begin(), keep.end());
  uint64_t at = s;
  for (const auto& [ks, ke] : keep) {
    if (ks > at) revoke_(at, ks - at);
    at = std::max(at, ke);
  }
  if (at < e) revoke_(at, e - at);
}

}  // namespace rocenic::driver
