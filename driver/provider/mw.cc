// Memory windows (docs/engine.md "Memory windows in the MR table"): entries
// of the engine's MR table in the regions' key space, made by ALLOC_MW and
// freed by DEALLOC_MW. A window's rkey is index << 8 | key byte; binding it
// gives it a new key byte, so the old rkey stops working as the new one
// starts.
//
//   type 1  bound by ibv_bind_mw, which posts the BIND_MW work request for
//           the caller (as rxe does) and then hands it the new rkey
//   type 2  bound by the application's IBV_WR_BIND_MW (post.cc, qp_ex.cc) to
//           the posting QP, freed by LOCAL_INV or a peer's SEND_WITH_INV
//
// What a bind asks of the MR (MW_BIND, local write for writable windows, the
// range) the engine checks when it executes the WQE (MW_BIND_ERR), as rxe's
// kernel half does; ibv_bind_mw checks it before posting as well, so the
// synchronous verb answers at once instead of with an error completion.
#include <cerrno>
#include <cstdint>
#include <new>

#include "provider.h"

namespace rocenic::driver {
namespace {

// The rights a window grants: remote ones only (the WQE's bind_access).
constexpr unsigned kRemoteAccess = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
// mw_access_flags a bind accepts. LOCAL_WRITE means nothing for a window and
// is dropped, but rxe accepts it and rdma-core's own tests pass it
// (tests/test_mr.py binds with LOCAL_WRITE | REMOTE_WRITE). ZERO_BASED (rxe's
// provider: EINVAL), MW_BIND and every other bit are refused.
constexpr unsigned kBindAccess = kRemoteAccess | IBV_ACCESS_LOCAL_WRITE;

// cmd_alloc_mw's type is the ibv_mw_type value.
static_assert(IBV_MW_TYPE_1 == 1 && IBV_MW_TYPE_2 == 2, "cmd_alloc_mw type: 1 or 2 (layouts.md)");
// ALLOC_MW reads the words up to its type byte.
constexpr size_t kAllocMwArgBytes = spec::kCmdAllocMwTypeOff + spec::kCmdAllocMwTypeBytes;

uint32_t key_index(uint32_t key) { return key >> 8; }

// A window as the provider keeps it: the verbs object, and the rkey of its
// latest bind posted (an application binding a type 2 window keeps the new
// rkey itself; mw->rkey need not follow). DEALLOC_MW hands the engine that
// key, so the next tenant of the table slot gets a key byte past it, never
// the freed window's (roce_cmd cannot see binds: they happen in the MR table).
struct RocenicMw {
  ibv_mw mw{};
  uint32_t bound_rkey = 0;
};
RocenicMw* to_mw(ibv_mw* mw) { return container_of<RocenicMw>(mw, offsetof(RocenicMw, mw)); }

// What the engine would refuse with MW_BIND_ERR, as rxe_check_bind_mw does
// (IBTA C10-73..75): the MR lets windows bind, lets a writable window's
// data be written locally, and holds the whole range. Nothing to check
// when the bind unbinds (length 0).
int check_bind_mr(const ibv_qp* qp, const ibv_mw_bind_info& info) {
  ibv_mr* mr = info.mr;
  if (!mr || info.length == 0) return 0;
  if (mr->context != qp->context) return EINVAL;  // not a region of this device
  const RocenicMr* m = to_mr(container_of<verbs_mr>(mr, offsetof(verbs_mr, ibv_mr)));
  const unsigned access = static_cast<unsigned>(m->vmr.access);
  if (!(access & IBV_ACCESS_MW_BIND)) return EINVAL;
  if ((info.mw_access_flags & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
      !(access & IBV_ACCESS_LOCAL_WRITE))
    return EINVAL;
  const uint64_t start = m->s->iova, end = m->s->iova + m->s->length;
  if (info.addr < start || info.addr + info.length > end) return EINVAL;
  return 0;
}

}  // namespace

ibv_mw* alloc_mw(ibv_pd* pd, ibv_mw_type type) {
  if (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2) {
    errno = EINVAL;  // as the kernel's ib_uverbs_alloc_mw
    return nullptr;
  }
  RocenicMw* w = new (std::nothrow) RocenicMw{};
  if (!w) {
    errno = ENOMEM;
    return nullptr;
  }
  ibv_mw* mw = &w->mw;
  spec::CmdAllocMw c;
  c.pd = to_pd(pd)->pdn;
  c.type = static_cast<uint8_t>(type);
  uint8_t args[spec::CmdAllocMw::kSize];
  c.store(args);
  uint32_t res[4] = {};
  if (const int e = engine_of(pd->context)->command(spec::CmdOp::kAllocMw, args, kAllocMwArgBytes, res)) {
    delete w;
    errno = e;  // ENOMEM: every MR-table entry is in use
    return nullptr;
  }
  w->bound_rkey = res[0];
  mw->context = pd->context;
  mw->pd = pd;
  mw->rkey = res[0];  // unbound: no access through it until a bind
  mw->handle = res[0];
  mw->type = type;
  return mw;
}

int dealloc_mw(ibv_mw* mw) {
  uint32_t res[4] = {};
  // The window at the rkey's index, with the key byte of its latest bind.
  RocenicMw* w = to_mw(mw);
  if (const int e = engine_of(mw->context)->command(spec::CmdOp::kDeallocMw, w->bound_rkey, res)) return e;
  delete w;
  return 0;
}

int check_bind_wr(const ibv_qp* qp, const ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info& info) {
  if (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UC) return EINVAL;  // rxe: binds on connected QPs
  if (!mw || mw->context != qp->context) return EINVAL;
  if (key_index(rkey) != key_index(mw->rkey)) return EINVAL;  // a new key byte, never another entry
  if (!info.mr && (info.addr || info.length)) return EINVAL;  // a range of no region
  if (info.mw_access_flags & ~kBindAccess) return EINVAL;
  if (info.addr + info.length < info.addr) return EINVAL;
  if (info.length > UINT32_MAX) return EOPNOTSUPP;  // the WQE's length holds 32 bits (mlx5: beyond 2 GiB)
  return 0;
}

void put_bind(ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info& info, spec::SendWqe* w) {
  to_mw(mw)->bound_rkey = rkey;
  w->num_sge = 0;
  w->rkey = rkey;
  w->remote_addr = info.addr;
  w->length = static_cast<uint32_t>(info.length);  // 0 unbinds
  w->bind_mr_lkey = info.mr ? info.mr->lkey : 0;
  w->bind_access = info.mw_access_flags & kRemoteAccess;
}

// ibv_bind_mw: libibverbs' inline wrapper has checked the type, the range
// against a missing MR and the PDs already; they are checked again here for
// callers of the ops table, with the wrapper's errno.
int bind_mw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* mw_bind) {
  int e = 0;
  if (!mw || !mw_bind || mw->type != IBV_MW_TYPE_1) {
    e = EINVAL;  // type 2 windows are bound by IBV_WR_BIND_MW
  } else if (!mw_bind->bind_info.mr && (mw_bind->bind_info.addr || mw_bind->bind_info.length)) {
    e = EINVAL;
  } else if (mw_bind->bind_info.mr && mw_bind->bind_info.mr->pd != mw->pd) {
    e = EPERM;
  } else {
    e = check_bind_mr(qp, mw_bind->bind_info);
  }
  if (!e) {
    ibv_send_wr wr{};
    wr.wr_id = mw_bind->wr_id;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = mw_bind->send_flags;
    wr.bind_mw.mw = mw;
    wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
    wr.bind_mw.bind_info = mw_bind->bind_info;
    ibv_send_wr* bad = nullptr;
    e = post_send(qp, &wr, &bad);
    // The new rkey from now on (rxe's convention): should the bind complete
    // in error, the caller undoes this.
    if (!e) mw->rkey = wr.bind_mw.rkey;
  }
  if (e) errno = e;
  return e;
}

}  // namespace rocenic::driver
