// Memory regions: the buffer's pages go into the engine's MTT (WRITE_MTT, six
// at a time, into a range this provider allocates), then REG_MR makes the
// region; the buffer becomes reachable by DMA. In simulation a page's bus
// address is its virtual address (IOVA = VA is one valid MTT mapping).
#include <sys/mman.h>

#include <cerrno>
#include <new>
#include <vector>

#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

// The bits REG_MR takes (spec access enum and ACCESS_MW_BIND): the engine
// checks them on every access, and MW_BIND on every window bound to the region.
constexpr unsigned kEngineAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                                   IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND;
static_assert(static_cast<unsigned>(spec::Access::kLocalWrite) == IBV_ACCESS_LOCAL_WRITE &&
                  static_cast<unsigned>(spec::Access::kRemoteWrite) == IBV_ACCESS_REMOTE_WRITE &&
                  static_cast<unsigned>(spec::Access::kRemoteRead) == IBV_ACCESS_REMOTE_READ &&
                  static_cast<unsigned>(spec::Access::kRemoteAtomic) == IBV_ACCESS_REMOTE_ATOMIC &&
                  spec::kAccessCount == 4,
              "REG_MR's access bits are libibverbs' IBV_ACCESS_* values");
static_assert(spec::kAccessMwBind == IBV_ACCESS_MW_BIND, "REG_MR's ACCESS_MW_BIND is IBV_ACCESS_MW_BIND");
// Accepted and without effect here: HUGETLB (a hint), the optional range
// (may be ignored by definition).
constexpr unsigned kIgnoredAccess = IBV_ACCESS_HUGETLB | IBV_ACCESS_OPTIONAL_RANGE;

// errno for access flags the way the kernel checks them (ib_check_mr_access).
int check_access(unsigned access) {
  if (access & ~(kEngineAccess | kIgnoredAccess | IBV_ACCESS_ZERO_BASED | IBV_ACCESS_ON_DEMAND)) return EINVAL;
  if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE))
    return EINVAL;  // IBTA: remote write/atomic need local write
  if (access & (IBV_ACCESS_ON_DEMAND | IBV_ACCESS_ZERO_BASED)) return EOPNOTSUPP;  // no ODP, no zero-based MRs
  return 0;
}

// Pins nothing (it cannot), but refuses what the kernel could not pin: a
// range with unmapped pages (EFAULT), so the engine's DMA never touches one.
bool mapped(uint64_t page_start, uint64_t npages) {
  std::vector<unsigned char> v(npages);
  return mincore(reinterpret_cast<void*>(page_start), npages * kPageSize, v.data()) == 0;
}

}  // namespace

ibv_mr* reg_mr(ibv_pd* ibpd, void* addr, size_t length, uint64_t iova, int access_in) {
  const unsigned access = static_cast<unsigned>(access_in);
  if (const int e = check_access(access)) {
    errno = e;
    return nullptr;
  }
  const uint64_t va = reinterpret_cast<uintptr_t>(addr);
  if (length == 0 || va + length < va || iova + length < iova || (iova & (kPageSize - 1)) != (va & (kPageSize - 1))) {
    errno = EINVAL;  // empty, wrapping, or an IOVA whose page offset differs from the buffer's
    return nullptr;
  }
  const uint64_t first_page = va >> kPageShift, last_page = (va + length - 1) >> kPageShift;
  const uint64_t npages = last_page - first_page + 1;
  if (npages > kMttDepth) {
    errno = ENOMEM;  // more pages than the whole MTT holds
    return nullptr;
  }
  if (!mapped(first_page << kPageShift, npages)) {
    errno = EFAULT;
    return nullptr;
  }
  Engine* eng = engine_of(ibpd->context);
  uint32_t mtt_base = 0;
  if (!eng->mtt_alloc(static_cast<uint32_t>(npages), &mtt_base)) {
    errno = ENOMEM;
    return nullptr;
  }
  RocenicMr* mr = new (std::nothrow) RocenicMr{};
  MrState* s = new (std::nothrow) MrState{};
  uint32_t res[4] = {};
  int e = mr && s ? 0 : ENOMEM;
  for (uint32_t i = 0; !e && i < npages; i += kMttPerCommand) {
    spec::CmdWriteMtt w;
    const uint32_t count = static_cast<uint32_t>(std::min<uint64_t>(kMttPerCommand, npages - i));
    w.index = mtt_base + i;
    w.count = count;
    uint8_t args[spec::CmdWriteMtt::kSize];
    w.store(args);
    for (uint32_t k = 0; k < count; ++k) {
      const uint64_t pa = (first_page + i + k) << kPageShift;  // bus address = VA
      for (int b = 0; b < 8; ++b) args[8 + 8 * k + b] = static_cast<uint8_t>(pa >> (8 * b));
    }
    e = eng->command(spec::CmdOp::kWriteMtt, args, 8 + 8 * count, res);
  }
  if (!e) {
    spec::CmdRegMr r;
    r.iova = iova;
    r.length = length;
    r.pd = to_pd(ibpd)->pdn;
    r.access = access & kEngineAccess;
    r.mtt_base = mtt_base;
    r.npages = static_cast<uint32_t>(npages);
    r.page_shift = kPageShift;
    uint8_t args[spec::CmdRegMr::kSize];
    r.store(args);
    eng->dma_allow(va, length);
    e = eng->command(spec::CmdOp::kRegMr, args, sizeof args, res);
    if (e) eng->dma_revoke(va, length);
  }
  if (e) {
    eng->mtt_free(mtt_base, static_cast<uint32_t>(npages));
    delete s;
    delete mr;
    errno = e;
    return nullptr;
  }
  s->key = res[0];
  s->mtt_base = mtt_base;
  s->npages = static_cast<uint32_t>(npages);
  s->addr = va;
  s->length = length;
  s->iova = iova;
  mr->s = s;
  mr->vmr.mr_type = IBV_MR_TYPE_MR;
  mr->vmr.access = access_in;
  ibv_mr& m = mr->vmr.ibv_mr;
  m.context = ibpd->context;
  m.pd = ibpd;
  m.addr = addr;
  m.length = length;
  m.handle = s->key;
  m.lkey = m.rkey = s->key;  // one key for both, as the engine hands out
  return &m;
}

int dereg_mr(verbs_mr* vmr) {
  RocenicMr* mr = to_mr(vmr);
  Engine* eng = engine_of(vmr->ibv_mr.context);
  uint32_t res[4] = {};
  if (const int e = eng->command(spec::CmdOp::kDeregMr, mr->s->key, res)) return e;
  eng->dma_revoke(mr->s->addr, mr->s->length);
  eng->mtt_free(mr->s->mtt_base, mr->s->npages);
  delete mr->s;
  delete mr;
  return 0;
}

}  // namespace rocenic::driver
