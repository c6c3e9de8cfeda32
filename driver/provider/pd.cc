// Protection domains: the engine's ALLOC_PD / DEALLOC_PD commands.
#include <cerrno>
#include <new>

#include "provider.h"

namespace rocenic::driver {

ibv_pd* alloc_pd(ibv_context* context) {
  RocenicPd* pd = new (std::nothrow) RocenicPd{};
  if (!pd) {
    errno = ENOMEM;
    return nullptr;
  }
  uint32_t res[4] = {};
  if (const int e = engine_of(context)->command(spec::CmdOp::kAllocPd, nullptr, 0, res)) {
    delete pd;
    errno = e;  // ENOMEM: every PD the engine holds is in use
    return nullptr;
  }
  pd->pd.context = context;
  pd->pd.handle = res[0];
  pd->pdn = res[0];
  return &pd->pd;
}

int dealloc_pd(ibv_pd* ibpd) {
  RocenicPd* pd = to_pd(ibpd);
  uint32_t res[4] = {};
  // EBUSY while an MR, window or QP still uses it (the engine's BUSY), as the kernel answers.
  if (const int e = engine_of(ibpd->context)->command(spec::CmdOp::kDeallocPd, pd->pdn, res)) return e;
  delete pd;
  return 0;
}

}  // namespace rocenic::driver
