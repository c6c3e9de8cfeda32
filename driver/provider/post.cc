// post_send / post_recv: WQEs into the rings (layouts.md send_wqe, recv_wqe),
// then one doorbell with the new producer index. The engine fetches the
// WQEs by DMA; nothing here waits for it. A post of one inline send WQE
// (mlx5's rule for BlueFlame: one request, inline) also writes the WQE
// through the SQ_BF window with its doorbell (SQ_BF_DB), so the engine can
// send it without the fetch (docs/driver.md, "Low-latency posts").
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
//              refuses a misaligned or short one and atomics off RC); a
//              BIND_MW with SGEs (rxe) or check_bind_wr's refusals (mw.cc); on
//              a UD QP anything but SEND / SEND_WITH_IMM, or no AH of this
//              device (each UD WQE carries the AH's address, ah.cc put_ud_av)
//   EOPNOTSUPP a valid opcode this engine does not execute (ATOMIC_WRITE,
//              TSO, DRIVER1), as mlx5 answers for atomics it lacks; a bind
//              longer than the WQE's 32-bit length
//
// CMP_AND_SWP and FETCH_AND_ADD (docs/engine.md "Atomics"): the WQE carries
// remote_addr and rkey, atomic_cmp_add (the compare value or the addend),
// atomic_swap, and SGE 0, where the original remote value lands.
//
// Memory windows (mw.cc): LOCAL_INV and SEND_WITH_INV carry the rkey to
// invalidate in imm as a number (not wire bytes, unlike imm_data); BIND_MW
// carries the window's new rkey, its range, its MR's lkey and its rights.
// LOCAL_INV and BIND_MW move no data: their SGEs, if any, are not written.
#include <atomic>
#include <cerrno>
#include <cstring>

#include "engine_limits.h"
#include "provider.h"

// The application's opcode goes to the engine as it is: spec wr_opcode must
// be libibverbs' ibv_wr_opcode, one for one.
#define ROCENIC_SAME_WR_OPCODE(spec_name, ibv_name) \
  static_assert(static_cast<int>(rocenic::spec::WrOpcode::spec_name) == ibv_name, #ibv_name)
ROCENIC_SAME_WR_OPCODE(kRdmaWrite, IBV_WR_RDMA_WRITE);
ROCENIC_SAME_WR_OPCODE(kRdmaWriteWithImm, IBV_WR_RDMA_WRITE_WITH_IMM);
ROCENIC_SAME_WR_OPCODE(kSend, IBV_WR_SEND);
ROCENIC_SAME_WR_OPCODE(kSendWithImm, IBV_WR_SEND_WITH_IMM);
ROCENIC_SAME_WR_OPCODE(kRdmaRead, IBV_WR_RDMA_READ);
ROCENIC_SAME_WR_OPCODE(kAtomicCmpAndSwp, IBV_WR_ATOMIC_CMP_AND_SWP);
ROCENIC_SAME_WR_OPCODE(kAtomicFetchAndAdd, IBV_WR_ATOMIC_FETCH_AND_ADD);
ROCENIC_SAME_WR_OPCODE(kLocalInv, IBV_WR_LOCAL_INV);
ROCENIC_SAME_WR_OPCODE(kBindMw, IBV_WR_BIND_MW);
ROCENIC_SAME_WR_OPCODE(kSendWithInv, IBV_WR_SEND_WITH_INV);
static_assert(rocenic::spec::kWrOpcodeCount == 10, "a new wr_opcode value needs its check above");
#undef ROCENIC_SAME_WR_OPCODE

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
    case IBV_WR_LOCAL_INV:
    case IBV_WR_BIND_MW:
    case IBV_WR_SEND_WITH_INV:
      return 0;
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

// A BIND_MW carries no data (rxe refuses SGEs on it); the rest as on the wr_* API.
int check_bind(const ibv_qp& qp, const ibv_send_wr& wr) {
  if (wr.num_sge != 0) return EINVAL;
  return check_bind_wr(&qp, wr.bind_mw.mw, wr.bind_mw.rkey, wr.bind_mw.bind_info);
}

// Everything about one request that does not depend on its data, or an errno.
int check_request(const ibv_qp& qp, const ibv_send_wr& wr) {
  if (const int e = check_opcode(wr.opcode)) return e;
  if (wr.num_sge < 0) return EINVAL;
  if (is_atomic(wr.opcode))
    if (const int e = check_atomic(qp.qp_type, wr)) return e;
  if (wr.opcode == IBV_WR_BIND_MW)
    if (const int e = check_bind(qp, wr)) return e;
  if ((wr.send_flags & IBV_SEND_INLINE) && wr.opcode == IBV_WR_RDMA_READ) return EINVAL;
  // UC carries SENDs and RDMA WRITEs (IBTA 9.8; rxe's opcode table)
  if (qp.qp_type == IBV_QPT_UC && (wr.opcode == IBV_WR_RDMA_READ || wr.opcode == IBV_WR_SEND_WITH_INV)) return EINVAL;
  // UD: SENDs (with immediate), each to the address of its AH (rxe)
  if (qp.qp_type == IBV_QPT_UD &&
      ((wr.opcode != IBV_WR_SEND && wr.opcode != IBV_WR_SEND_WITH_IMM) || !wr.wr.ud.ah ||
       wr.wr.ud.ah->context != qp.context))
    return EINVAL;
  return 0;
}

// The opcode's own fields: the remote target, the immediate, the rkey to
// invalidate, the atomic's operands or the bind.
void put_operands(const ibv_send_wr& wr, spec::SendWqe* w) {
  switch (wr.opcode) {
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      w->imm = wqe_imm(wr.imm_data);
      [[fallthrough]];
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_READ:
      w->remote_addr = wr.wr.rdma.remote_addr;
      w->rkey = wr.wr.rdma.rkey;
      break;
    case IBV_WR_SEND_WITH_IMM:
      w->imm = wqe_imm(wr.imm_data);
      break;
    case IBV_WR_LOCAL_INV:
    case IBV_WR_SEND_WITH_INV:
      w->imm = wr.invalidate_rkey;  // a number, stored little-endian (layouts.md send_wqe imm)
      break;
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
      put_atomic(wr, w);
      break;
    case IBV_WR_BIND_MW:
      put_bind(wr.bind_mw.mw, wr.bind_mw.rkey, wr.bind_mw.bind_info, w);
      break;
    default:
      break;
  }
}

// One send WQE at `wqe` (a ring slot), or an errno.
int build_send(const ibv_qp& qp, const QpState& s, const ibv_send_wr& wr, uint8_t* wqe) {
  if (const int e = check_request(qp, wr)) return e;
  const bool inl = wr.send_flags & IBV_SEND_INLINE;
  // SGEs of LOCAL_INV move nothing (rxe ignores them too): not written.
  const int nsge = is_local_op(wr.opcode) ? 0 : wr.num_sge;
  uint64_t length = 0;
  for (int i = 0; i < nsge; ++i) length += wr.sg_list[i].length;
  if (length > kMaxMsgSize) return EINVAL;
  if (inl ? length > s.cap.max_inline_data : static_cast<uint32_t>(wr.num_sge) > s.cap.max_send_sge) return EINVAL;

  spec::SendWqe w;
  w.wr_id = wr.wr_id;
  w.opcode = static_cast<uint8_t>(wr.opcode);
  w.flags = wqe_flags_of(wr.opcode, wr.send_flags | (s.sq_sig_all ? IBV_SEND_SIGNALED : 0));
  const bool inline_data = inl && !is_local_op(wr.opcode);
  w.num_sge = inline_data ? 0 : static_cast<uint8_t>(nsge);
  w.length = static_cast<uint32_t>(length);
  put_operands(wr, &w);  // (after length: a bind's is its window's)
  if (s.ud) put_ud_av(to_ah(wr.wr.ud.ah)->av, wr.wr.ud.remote_qpn, wr.wr.ud.remote_qkey, &w);
  uint8_t buf[spec::SendWqe::kSize];
  w.store(buf);
  if (inline_data) {
    uint8_t* p = buf + kWqeDataOffset;
    for (int i = 0; i < nsge; ++i) {
      std::memcpy(p, reinterpret_cast<const void*>(static_cast<uintptr_t>(wr.sg_list[i].addr)), wr.sg_list[i].length);
      p += wr.sg_list[i].length;
    }
  } else {
    // (An atomic's one SGE leaves atomic_cmp_add and atomic_swap, in SGE 1's place, as stored.)
    for (int i = 0; i < nsge; ++i) put_sge(buf, i, wr.sg_list[i]);
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
      uint8_t* wqe = s->sq + size_t(s->sq_pi & (s->sq_size - 1)) * kWqeSlotBytes;
      if ((err = build_send(*ibqp, *s, *wr, wqe))) break;
      ++s->sq_pi;
    }
    const uint16_t pi = s->sq_pi;
    if (posted) {
      // Under the queue's lock: doorbells of concurrent posters reach the
      // engine in order. The engine's mutex orders the WQE stores before it.
      const uint8_t* last = s->sq + size_t((pi - 1) & (s->sq_size - 1)) * kWqeSlotBytes;
      const int e = posted == 1 && (last[spec::kSendWqeFlagsOff] & kWqeInline)
                        ? eng->doorbell_bf(s->qpn, pi, last, s->ud)
                        : eng->doorbell(spec::kCsrSqDb, s->qpn | uint32_t{pi} << 16);
      if (e) err = e;
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
      std::memcpy(s->rq + size_t(s->rq_pi & (s->rq_size - 1)) * kWqeSlotBytes, buf, sizeof buf);
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
