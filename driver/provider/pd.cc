// Protection domains: a PD number per ibv_pd, at most CAP_MAX_PD at a time.
//
// The engine's command mailbox does not exist yet, so the numbers are kept
// by the provider against the engine's limit; when CREATE_PD/DESTROY_PD
// commands arrive these two functions issue them.
#include <cerrno>
#include <new>

#include "provider.h"

namespace rocenic::driver {

ibv_pd* alloc_pd(ibv_context* context) {
  uint32_t pdn = 0;
  if (!engine_of(context)->alloc_pdn(&pdn)) {
    errno = ENOMEM;  // every PD the engine holds is in use
    return nullptr;
  }
  RocenicPd* pd = new (std::nothrow) RocenicPd{};
  if (!pd) {
    engine_of(context)->free_pdn(pdn);
    errno = ENOMEM;
    return nullptr;
  }
  pd->pd.context = context;
  pd->pd.handle = pdn;
  pd->pdn = pdn;
  return &pd->pd;
}

int dealloc_pd(ibv_pd* ibpd) {
  RocenicPd* pd = to_pd(ibpd);
  // No MR, QP or AH can reference a PD yet; once they can, a PD still in use
  // answers EBUSY here.
  engine_of(ibpd->context)->free_pdn(pd->pdn);
  delete pd;
  return 0;
}

}  // namespace rocenic::driver
