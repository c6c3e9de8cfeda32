#include "dma/overlay_memory.h"

#include <algorithm>

namespace rocenic {

template <typename F>
void OverlayMemory::pieces(uint64_t addr, size_t n, F f) {
  size_t done = 0;
  while (done < n) {
    const uint64_t a = addr + done;
    const size_t off = static_cast<size_t>(a % kPage);
    const size_t len = std::min<size_t>(n - done, kPage - off);
    f(a / kPage, off, done, len);
    done += len;
  }
}

void OverlayMemory::peek(uint64_t addr, uint8_t* out, size_t n) {
  // The real memory underneath is read without the allowed-region check: it
  // is the model's reference, the check happened on the model's own access.
  if (!base_.read(addr, out, n)) std::fill(out, out + n, 0);
  if (pages_.empty()) return;
  pieces(addr, n, [&](uint64_t page, size_t off, size_t at, size_t len) {
    const auto it = pages_.find(page);
    if (it == pages_.end()) return;
    const Page& p = *it->second;
    for (size_t i = 0; i < len; ++i)
      if (p.held[off + i]) out[at + i] = p.data[off + i];
  });
}

void OverlayMemory::do_read(uint64_t addr, uint8_t* out, size_t n) { peek(addr, out, n); }

void OverlayMemory::do_write(uint64_t addr, const uint8_t* in, size_t n) {
  pieces(addr, n, [&](uint64_t page, size_t off, size_t at, size_t len) {
    std::unique_ptr<Page>& p = pages_[page];
    if (!p) p = std::make_unique<Page>();
    std::copy(in + at, in + at + len, p->data.begin() + static_cast<std::ptrdiff_t>(off));
    for (size_t i = 0; i < len; ++i) {
      p->held.set(off + i);
      if (p->model_n[off + i] != UINT16_MAX) ++p->model_n[off + i];
    }
  });
}

void OverlayMemory::preserve(uint64_t addr, const uint8_t* old, size_t n) {
  pieces(addr, n, [&](uint64_t page, size_t off, size_t at, size_t len) {
    std::unique_ptr<Page>& p = pages_[page];
    if (!p) p = std::make_unique<Page>();
    for (size_t i = 0; i < len; ++i) {
      if (!p->held[off + i]) {
        p->data[off + i] = old[at + i];
        p->held.set(off + i);
      }
      if (p->rtl_n[off + i] != UINT16_MAX) ++p->rtl_n[off + i];
    }
  });
}

void OverlayMemory::forget(uint64_t addr, size_t n) {
  pieces(addr, n, [&](uint64_t page, size_t off, size_t, size_t len) {
    const auto it = pages_.find(page);
    if (it == pages_.end()) return;
    Page& p = *it->second;
    for (size_t i = 0; i < len; ++i) {
      uint16_t& m = p.model_n[off + i];
      uint16_t& r = p.rtl_n[off + i];
      if (m) --m;
      if (r) --r;
      if (!m && !r) p.held.reset(off + i);
    }
    if (p.held.none()) pages_.erase(it);
  });
}

size_t OverlayMemory::held() const {
  size_t n = 0;
  for (const auto& [page, p] : pages_) n += p->held.count();
  return n;
}

}  // namespace rocenic
