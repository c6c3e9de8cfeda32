#include "dma/host_memory.h"

#include <cstring>

namespace rocenic {

void HostMemory::allow(uint64_t addr, uint64_t len) {
  if (len == 0) return;
  std::lock_guard<std::mutex> g(mu_);
  uint64_t s = addr, e = addr + len;
  // merge with every region that overlaps or touches [s, e)
  auto it = regions_.upper_bound(s);
  if (it != regions_.begin() && std::prev(it)->second >= s) --it;
  while (it != regions_.end() && it->first <= e) {
    s = std::min(s, it->first);
    e = std::max(e, it->second);
    it = regions_.erase(it);
  }
  regions_[s] = e;
}

void HostMemory::revoke(uint64_t addr, uint64_t len) {
  if (len == 0) return;
  std::lock_guard<std::mutex> g(mu_);
  const uint64_t s = addr, e = addr + len;
  auto it = regions_.upper_bound(s);
  if (it != regions_.begin()) --it;
  while (it != regions_.end() && it->first < e) {
    const uint64_t rs = it->first, re = it->second;
    if (re <= s) {
      ++it;
      continue;
    }
    it = regions_.erase(it);
    if (rs < s) regions_[rs] = s;
    if (re > e) regions_[e] = re;
  }
}

bool HostMemory::allowed(uint64_t addr, size_t n) const {
  if (n == 0) return true;
  if (addr + n < addr) return false;  // wraps the address space
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return false;
  --it;
  return addr >= it->first && addr + n <= it->second;  // regions are merged: one must hold it all
}

bool HostMemory::read(uint64_t addr, uint8_t* out, size_t n) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!allowed(addr, n)) {
      ++refused_;
      std::memset(out, 0, n);
      return false;
    }
  }
  do_read(addr, out, n);
  return true;
}

bool HostMemory::write(uint64_t addr, const uint8_t* in, size_t n) {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (!allowed(addr, n)) {
      ++refused_;
      return false;
    }
  }
  do_write(addr, in, n);
  return true;
}

void ProcessMemory::do_read(uint64_t addr, uint8_t* out, size_t n) {
  std::memcpy(out, reinterpret_cast<const void*>(static_cast<uintptr_t>(addr)), n);
}

void ProcessMemory::do_write(uint64_t addr, const uint8_t* in, size_t n) {
  std::memcpy(reinterpret_cast<void*>(static_cast<uintptr_t>(addr)), in, n);
}

void SparseMemory::do_read(uint64_t addr, uint8_t* out, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const auto it = pages_.find((addr + i) / kPage);
    out[i] = it == pages_.end() ? 0 : it->second[(addr + i) % kPage];
  }
}

void SparseMemory::do_write(uint64_t addr, const uint8_t* in, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    auto& page = pages_[(addr + i) / kPage];
    if (page.empty()) page.assign(kPage, 0);
    page[(addr + i) % kPage] = in[i];
  }
}

}  // namespace rocenic
