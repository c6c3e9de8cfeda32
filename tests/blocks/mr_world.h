// Memory regions of the block tests' host worlds (responder, read_place):
// an MR as the MR table holds it, with the bus address of each of its pages,
// built in one call, and loaded into host memory and the MR table model.
#pragma once

#include <cstdint>
#include <vector>

#include "dma/host_memory.h"
#include "gen/roce_spec.h"
#include "mem/mr_table.h"

namespace rocenic::blk {

struct MrDef {
  uint32_t index = 0;
  spec::MrCtx ctx;               // valid, key byte, pd, access, iova, length, mtt_base, page_shift
  std::vector<uint64_t> pages;   // bus address of each page (MTT entries mtt_base ..)
  uint32_t key() const { return index << 8 | ctx.key; }
  uint64_t page_size() const { return uint64_t{1} << ctx.page_shift; }
  uint64_t pa(uint64_t va) const {  // va inside the region
    const uint64_t ps = page_size();
    const uint64_t page = (va - (ctx.iova & ~(ps - 1))) >> ctx.page_shift;
    return pages.at(page) + (va & (ps - 1));
  }
};

// An MR of len bytes at iova in pages of 2^shift bytes, page i at pa_base +
// slot * pa_stride (slot = i, or out of order in bus memory when scattered).
inline MrDef make_mr(uint32_t index, uint8_t key, uint16_t pd, uint8_t access, uint64_t iova, uint64_t len,
                     uint8_t shift, uint16_t mtt_base, uint64_t pa_base, uint64_t pa_stride, bool scatter) {
  MrDef m;
  m.index = index;
  m.ctx.valid = 1;
  m.ctx.key = key;
  m.ctx.pd = pd;
  m.ctx.access = access;
  m.ctx.iova = iova;
  m.ctx.length = len;
  m.ctx.mtt_base = mtt_base;
  m.ctx.page_shift = shift;
  const uint64_t ps = uint64_t{1} << shift;
  const uint64_t npages = ((iova & (ps - 1)) + len + ps - 1) / ps;
  for (uint64_t i = 0; i < npages; ++i) {
    const uint64_t slot = scatter ? (i * 7 + 3) % npages : i;
    m.pages.push_back(pa_base + slot * pa_stride);
  }
  return m;
}

// Host memory: every region allowed and filled; the MR table: every MR and its pages.
inline void load_world(SparseMemory& mem, model::MrRegions& mrt, const std::vector<std::pair<uint64_t, uint64_t>>& regions,
                       uint8_t fill, const std::vector<MrDef>& mrs) {
  for (const auto& [a, n] : regions) {
    mem.allow(a, n);
    mem.write(a, std::vector<uint8_t>(n, fill).data(), n);
  }
  for (const MrDef& m : mrs) {
    mrt.write_mr(m.index, m.ctx);
    for (size_t i = 0; i < m.pages.size(); ++i) mrt.write_mtt(static_cast<unsigned>(m.ctx.mtt_base + i), m.pages[i]);
  }
}

}  // namespace rocenic::blk
