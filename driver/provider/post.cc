// post_send / post_recv: WQEs into the rings (layouts.md send_wqe, recv_wqe),
// then one doorbell with the new producer index. The engine fetches the
// WQEs by DMA; nothing here waits for it.
//
// Errors, each with *bad_wr = the first request not posted (those before it
// are posted and rung), as rdma-core's providers answer:
//   ENOMEM     the queue is full                          (rxe, mlx5)
//   EINVAL     num_sge beyond the QP's SGEs, inline data beyond max_inline,
//              an inline RDMA READ (its SGEs receive data: nothing to inline),
//              an opcode outside ibv_wr_opcode, a message over 2^31 bytes,
//              posting sends before RTS / receives in RESET (rxe); an atomic
//              of another shape than one 8-byte SGE, an 8-byte aligned
//              remote_addr and no inline, or on a QP other than RC (rxe
//              refuses a misaligned or short one and atomics off RC)
//   EOPNOTSUPP a valid opcode this engine does not execute (ATOMIC_WRITE,
//              SEND_WITH_INV, LOCAL_INV, ...), as mlx5 answers for atomics it lacks
//
// CMP_AND_SWP and FETCH_AND_ADD (docs/engine.md "Atomics"): the WQE carries
// remote_addr and rkey, atomic_cmp_add (the compare value or the addend),
// atomic_swap, and SGE 0, where the original remote value lands.
#include <atomic>
#include <cerrno>
#include <cstring>

#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

void put_sge(uint8_t* wqe, int i, const ibv_sge& sg) {
  spec::Sge s;
  s.addr = sg.addr;
  s.length = sg.length;
  s.lkey = sg.lkey;
  s.store(wqe + kWqeDataOffset + spec::Sge::kSize * static_cast<unsigned>(i));
}

int check_opcode(ibv_wr_opcode op) {
  switch (op) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
      return 0;
    case IBV_WR_LOCAL_INV:
    case IBV_WR_BIND_MW:
    case IBV_WR_SEND_WITH_INV:
    case IBV_WR_TSO:
    case IBV_WR_DRIVER1:
    case IBV_WR_ATOMIC_WRITE:
      return EOPNOTSUPP;
  }
  return EINVAL;
}

// The one shape an atomic may have (docs/engine.md "Atomics"), checked here
// rather than left to fail at the engine (decode: LOC_QP_OP_ERR) or at the
// responder (a misaligned address: NAK, both QPs in ERR); rxe too refuses a
// misaligned or short atomic with EINVAL. Only RC carries atomics (IBTA: UC
// and UD have none). Its one SGE is the 8 bytes the original remote value
// lands in, so it has nothing to inline either.
int check_atomic(ibv_qp_type type, const ibv_send_wr& wr) {
  if (type != IBV_QPT_RC) return EINVAL;
  if (wr.num_sge != 1 || wr.sg_list[0].length != kAtomicBytes) return EINVAL;
  if (wr.send_flags & IBV_SEND_INLINE) return EINVAL;
  if (wr.wr.atomic.remote_addr % kAtomicBytes) return EINVAL;
  return 0;
}

// The atomic's operands, from wr.atomic (not wr.rdma: the union places its
// rkey elsewhere). A fetch-add has no swap value: 0 in the WQE, whatever the
// union holds there.
void put_atomic(const ibv_send_wr& wr, spec::SendWqe* w) {
  w->remote_addr = wr.wr.atomic.remote_addr;
  w->rkey = wr.wr.atomic.rkey;
  w->atomic_cmp_add = wr.wr.atomic.compare_add;
  w->atomic_swap = wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? wr.wr.atomic.swap : 0;
}

// One send WQE at `wqe` (128 bytes), or an errno.
int build_send(const QpState& s, ibv_qp_type type, const ibv_send_wr& wr, uint32_t max_inline, uint8_t* wqe) {
  if (const int e = check_opcode(wr.opcode)) return e;
  if (wr.num_sge < 0) return EINVAL;
  if (is_atomic(wr.opcode))
    if (const int e = check_atomic(type, wr)) return e;
  const bool inl = wr.send_flags & IBV_SEND_INLINE;
  if (inl && wr.opcode == IBV_WR_RDMA_READ) return EINVAL;
  uint64_t length = 0;
  for (int i = 0; i < wr.num_sge; ++i) length += wr.sg_list[i].length;
  if (length > kMaxMsgSize) return EINVAL;
  if (inl ? length > max_inline : static_cast<uint32_t>(wr.num_sge) > s.cap.max_send_sge) return EINVAL;

  spec::SendWqe w;
  w.wr_id = wr.wr_id;
  w.opcode = static_cast<uint8_t>(wr.opcode);
  w.flags = wqe_flags(wr.send_flags | (s.sq_sig_all ? IBV_SEND_SIGNALED : 0));
  w.num_sge = inl ? 0 : static_cast<uint8_t>(wr.num_sge);
  if (wr.opcode == IBV_WR_RDMA_WRITE || wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM || wr.opcode == IBV_WR_RDMA_READ) {
    w.remote_addr = wr.wr.rdma.remote_addr;
    w.rkey = wr.wr.rdma.rkey;
  }
  if (is_atomic(wr.opcode)) put_atomic(wr, &w);
  if (wr.opcode == IBV_WR_SEND_WITH_IMM || wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM) w.imm = wqe_imm(wr.imm_data);
  w.length = static_cast<uint32_t>(length);
  uint8_t buf[spec::SendWqe::kSize];
  w.store(buf);
  if (inl) {
    uint8_t* p = buf + kWqeDataOffset;
    for (int i = 0; i < wr.num_sge; ++i) {
      std::memcpy(p, reinterpret_cast<const void*>(static_cast<uintptr_t>(wr.sg_list[i].addr)), wr.sg_list[i].length);
      p += wr.sg_list[i].length;
    }
  } else {
    // (An atomic's one SGE leaves atomic_cmp_add and atomic_swap, in SGE 1's place, as stored.)
    for (int i = 0; i < wr.num_sge; ++i) put_sge(buf, i, wr.sg_list[i]);
  }
  std::memcpy(wqe, buf, sizeof buf);
  return 0;
}

}  // namespace

int post_send(ibv_qp* ibqp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  QpState* s = to_qp(ibqp)->s;
  Engine* eng = engine_of(ibqp->context);
  *bad_wr = nullptr;
  int err = 0;
  unsigned posted = 0;
  {
    std::lock_guard<std::mutex> l(s->sq_lock);
    // IBTA C10-27: the send queue takes work requests from RTS on (ERR flushes them).
    if (ibqp->state == IBV_QPS_RESET || ibqp->state == IBV_QPS_INIT || ibqp->state == IBV_QPS_RTR) err = EINVAL;
    for (; wr && !err; wr = wr->next, ++posted) {
      const uint16_t ci = s->sq_ci.load(std::memory_order_acquire);
      if (static_cast<uint16_t>(s->sq_pi - ci) >= s->sq_size) {
        err = ENOMEM;
        break;
      }
      uint8_t* wqe = s->sq + size_t(s->sq_pi & (s->sq_size - 1)) * spec::SendWqe::kSize;
      if ((err = build_send(*s, ibqp->qp_type, *wr, s->cap.max_inline_data, wqe))) break;
      ++s->sq_pi;
    }
    const uint16_t pi = s->sq_pi;
    if (posted) {
      // Under the queue's lock: doorbells of concurrent posters reach the
      // engine in order. The engine's mutex orders the WQE stores before it.
      if (const int e = eng->doorbell(spec::kCsrSqDb, s->qpn | uint32_t{pi} << 16)) err = e;
    }
  }
  if (err && !*bad_wr) *bad_wr = wr;
  return err;
}

int post_recv(ibv_qp* ibqp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  QpState* s = to_qp(ibqp)->s;
  Engine* eng = engine_of(ibqp->context);
  *bad_wr = nullptr;
  int err = 0;
  unsigned posted = 0;
  {
    std::lock_guard<std::mutex> l(s->rq_lock);
    if (ibqp->state == IBV_QPS_RESET) err = EINVAL;  // IBTA C10-97.2.1
    for (; wr && !err; wr = wr->next, ++posted) {
      if (wr->num_sge < 0 || static_cast<uint32_t>(wr->num_sge) > s->cap.max_recv_sge) {
        err = EINVAL;
        break;
      }
      const uint16_t ci = s->rq_ci.load(std::memory_order_acquire);
      if (static_cast<uint16_t>(s->rq_pi - ci) >= s->rq_size) {
        err = ENOMEM;
        break;
      }
      spec::RecvWqe w;
      w.wr_id = wr->wr_id;
      w.num_sge = static_cast<uint8_t>(wr->num_sge);
      uint8_t buf[spec::RecvWqe::kSize];
      w.store(buf);
      for (int i = 0; i < wr->num_sge; ++i) put_sge(buf, i, wr->sg_list[i]);
      std::memcpy(s->rq + size_t(s->rq_pi & (s->rq_size - 1)) * spec::RecvWqe::kSize, buf, sizeof buf);
      ++s->rq_pi;
    }
    const uint16_t pi = s->rq_pi;
    if (posted) {
      // Under the queue's lock: doorbells of concurrent posters reach the engine in order.
      if (const int e = eng->doorbell(spec::kCsrRqDb, s->qpn | uint32_t{pi} << 16)) err = e;
    }
  }
  if (err && !*bad_wr) *bad_wr = wr;
  return err;
}

}  // namespace rocenic::driver
