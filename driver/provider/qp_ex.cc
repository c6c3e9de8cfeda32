// create_qp_ex and the ibv_wr_* post API (ibv_qp_ex function pointers), the
// way perftest posts by default: wr_start takes the send queue, each
// wr_<opcode> starts a WQE in the next slot, wr_set_* give it its data, and
// wr_complete rings one doorbell for the batch -- or, after the first error,
// posts nothing of the batch and returns that errno.
//
// Supported send_ops_flags: WITH_SEND, WITH_SEND_WITH_IMM, WITH_RDMA_WRITE,
// WITH_RDMA_WRITE_WITH_IMM, WITH_RDMA_READ, WITH_ATOMIC_CMP_AND_SWP,
// WITH_ATOMIC_FETCH_AND_ADD, WITH_LOCAL_INV, WITH_BIND_MW,
// WITH_SEND_WITH_INV; anything else (ATOMIC_WRITE, TSO, ...) EOPNOTSUPP.
// wr_complete errors: ENOMEM (queue full), EINVAL (too many SGEs, inline
// data beyond max_inline_data or on a READ or an atomic, an atomic whose
// remote address is not 8-byte aligned or whose data is not one SGE of 8
// bytes -- checked when the WQE is finished, since ibv_wr_set_sge comes
// after ibv_wr_atomic_* --, a bind check_bind_wr refuses (mw.cc), data set
// on a LOCAL_INV or BIND_MW, a QP not yet in RTS, a setter without a WQE),
// EOPNOTSUPP (an opcode or setter this engine has not, a bind longer than
// 2^32 - 1 bytes). UD: wr_send / wr_send_imm only, each with
// wr_set_ud_addr (its AH's address goes into the WQE; a UD WQE without one,
// or wr_set_ud_addr on another QP type: EINVAL at wr_complete).
#include <cerrno>
#include <cstring>

#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

constexpr uint64_t kSupportedOps = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
                                   IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
                                   IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD |
                                   IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_SEND_WITH_INV;

// A UD QP sends datagrams: SENDs only (as mlx5's MLX5_SUPPORTED_SEND_OPS_FLAGS_UD)
constexpr uint64_t kSupportedOpsUd = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

QpState* state_of(ibv_qp_ex* qx) { return to_qp(&qx->qp_base)->s; }

// The WQE being built is kept here and written to its slot when the next
// one starts or the batch completes (generated layout, no offsets by hand).
struct Builder {
  spec::SendWqe hdr;
  uint8_t data[kWqeDataBytes];
  bool av = false;  // UD: wr_set_ud_addr gave its address vector
};

// An atomic is whole only once its setters ran: one SGE of 8 bytes (where
// the original value lands), not inline data. As post_send refuses other
// shapes, so does the batch (EINVAL at wr_complete).
int finished_atomic_error(const spec::SendWqe& h) {
  if (h.flags & kWqeInline) return EINVAL;
  if (h.num_sge != 1 || h.length != kAtomicBytes) return EINVAL;
  return 0;
}

// The bytes of the data area a WQE of `opcode` takes from the builder's:
// an atomic's compare/swap values sit in SGE 1's place (only its SGE 0
// comes from there), a bind's MR and rights in SGE 2's, and LOCAL_INV
// and BIND_MW have no data at all.
size_t data_bytes(unsigned opcode, bool ud) {
  if (is_local_op(opcode)) return 0;
  if (ud) return kUdDataBytes;  // (its address vector follows)
  return is_atomic(opcode) ? spec::Sge::kSize : kWqeDataBytes;
}

void flush(QpState* s) {
  if (!s->wr_cur) return;
  auto* b = reinterpret_cast<Builder*>(s->wr_builder);
  if (is_atomic(b->hdr.opcode) && !s->wr_err) s->wr_err = finished_atomic_error(b->hdr);
  if (s->ud && !b->av && !s->wr_err) s->wr_err = EINVAL;  // a datagram needs an address
  uint8_t buf[spec::SendWqe::kSize];
  b->hdr.store(buf);
  std::memcpy(buf + kWqeDataOffset, b->data, data_bytes(b->hdr.opcode, s->ud));
  std::memcpy(s->wr_cur, buf, sizeof buf);
  s->wr_cur = nullptr;
}

// Starts a WQE of `op` in the next slot; nullptr (and wr_err) when it cannot.
Builder* begin_wqe(ibv_qp_ex* qx, ibv_wr_opcode op) {
  QpState* s = state_of(qx);
  flush(s);
  if (s->wr_err) return nullptr;
  if (static_cast<uint16_t>(s->wr_pi - s->sq_ci.load(std::memory_order_acquire)) >= s->sq_size) {
    s->wr_err = ENOMEM;
    return nullptr;
  }
  if (s->ud && op != IBV_WR_SEND && op != IBV_WR_SEND_WITH_IMM) {
    s->wr_err = EINVAL;  // UD: SENDs (with immediate) only
    return nullptr;
  }
  auto* b = reinterpret_cast<Builder*>(s->wr_builder);
  *b = Builder{};
  b->hdr.wr_id = qx->wr_id;
  b->hdr.opcode = static_cast<uint8_t>(op);
  const unsigned flags = qx->wr_flags | (s->sq_sig_all ? IBV_SEND_SIGNALED : 0);
  b->hdr.flags = wqe_flags_of(op, flags & ~unsigned{IBV_SEND_INLINE});  // inline: from wr_set_inline_data*
  s->wr_cur = s->sq + size_t(s->wr_pi & (s->sq_size - 1)) * kWqeSlotBytes;
  ++s->wr_pi;
  return b;
}

// The WQE the wr_set_* calls give data to, or nullptr (and wr_err).
Builder* current(QpState* s) {
  if (s->wr_err) return nullptr;
  auto* b = reinterpret_cast<Builder*>(s->wr_builder);
  if (!s->wr_cur || is_local_op(b->hdr.opcode)) {
    s->wr_err = EINVAL;  // a setter before any wr_<opcode>, or data for a LOCAL_INV or BIND_MW
    return nullptr;
  }
  return b;
}

void wr_send(ibv_qp_ex* qx) { begin_wqe(qx, IBV_WR_SEND); }

void wr_send_imm(ibv_qp_ex* qx, __be32 imm) {
  if (Builder* b = begin_wqe(qx, IBV_WR_SEND_WITH_IMM)) b->hdr.imm = wqe_imm(imm);
}

void wr_rdma_write(ibv_qp_ex* qx, uint32_t rkey, uint64_t addr) {
  if (Builder* b = begin_wqe(qx, IBV_WR_RDMA_WRITE)) b->hdr.remote_addr = addr, b->hdr.rkey = rkey;
}

void wr_rdma_write_imm(ibv_qp_ex* qx, uint32_t rkey, uint64_t addr, __be32 imm) {
  if (Builder* b = begin_wqe(qx, IBV_WR_RDMA_WRITE_WITH_IMM))
    b->hdr.remote_addr = addr, b->hdr.rkey = rkey, b->hdr.imm = wqe_imm(imm);
}

void wr_rdma_read(ibv_qp_ex* qx, uint32_t rkey, uint64_t addr) {
  Builder* b = begin_wqe(qx, IBV_WR_RDMA_READ);
  if (!b) return;
  if (qx->qp_base.qp_type == IBV_QPT_UC) {  // UC: SENDs and RDMA WRITEs only
    state_of(qx)->wr_err = EINVAL;
    return;
  }
  b->hdr.remote_addr = addr;
  b->hdr.rkey = rkey;
}

// A remote address of an atomic: the same checks as post_send's check_atomic
// (RC only, 8-byte aligned); the SGE is checked when the WQE is finished.
void wr_atomic(ibv_qp_ex* qx, ibv_wr_opcode op, uint32_t rkey, uint64_t addr, uint64_t cmp_add, uint64_t swap) {
  Builder* b = begin_wqe(qx, op);
  if (!b) return;
  QpState* s = state_of(qx);
  if (qx->qp_base.qp_type != IBV_QPT_RC || addr % kAtomicBytes) {
    s->wr_err = EINVAL;
    return;
  }
  b->hdr.remote_addr = addr;
  b->hdr.rkey = rkey;
  b->hdr.atomic_cmp_add = cmp_add;
  b->hdr.atomic_swap = swap;
}

void wr_atomic_cmp_swp(ibv_qp_ex* qx, uint32_t rkey, uint64_t addr, uint64_t compare, uint64_t swap) {
  wr_atomic(qx, IBV_WR_ATOMIC_CMP_AND_SWP, rkey, addr, compare, swap);
}

void wr_atomic_fetch_add(ibv_qp_ex* qx, uint32_t rkey, uint64_t addr, uint64_t add) {
  wr_atomic(qx, IBV_WR_ATOMIC_FETCH_AND_ADD, rkey, addr, add, 0);
}

// The rkey to invalidate goes into imm as a number (layouts.md send_wqe).
void wr_local_inv(ibv_qp_ex* qx, uint32_t rkey) {
  if (Builder* b = begin_wqe(qx, IBV_WR_LOCAL_INV)) b->hdr.imm = rkey;
}

void wr_send_inv(ibv_qp_ex* qx, uint32_t rkey) {
  Builder* b = begin_wqe(qx, IBV_WR_SEND_WITH_INV);
  if (!b) return;
  if (qx->qp_base.qp_type == IBV_QPT_UC) {  // no invalidate on UC
    state_of(qx)->wr_err = EINVAL;
    return;
  }
  b->hdr.imm = rkey;
}

// The bind as post_send checks it (check_bind_wr); the new rkey is the
// caller's to keep, as with IBV_WR_BIND_MW.
void wr_bind_mw(ibv_qp_ex* qx, ibv_mw* mw, uint32_t rkey, const ibv_mw_bind_info* info) {
  Builder* b = begin_wqe(qx, IBV_WR_BIND_MW);
  if (!b) return;
  const int e = info ? check_bind_wr(&qx->qp_base, mw, rkey, *info) : EINVAL;
  if (e) {
    state_of(qx)->wr_err = e;
    return;
  }
  put_bind(mw, rkey, *info, &b->hdr);
}

void wr_set_sge_list(ibv_qp_ex* qx, size_t n, const ibv_sge* list) {
  QpState* s = state_of(qx);
  Builder* b = current(s);
  if (!b) return;
  if (n > s->cap.max_send_sge) {
    s->wr_err = EINVAL;
    return;
  }
  uint64_t length = 0;
  for (size_t i = 0; i < n; ++i) {
    spec::Sge g;
    g.addr = list[i].addr;
    g.length = list[i].length;
    g.lkey = list[i].lkey;
    g.store(b->data + spec::Sge::kSize * i);
    length += list[i].length;
  }
  if (length > kMaxMsgSize) {
    s->wr_err = EINVAL;
    return;
  }
  b->hdr.num_sge = static_cast<uint8_t>(n);
  b->hdr.length = static_cast<uint32_t>(length);
  b->hdr.flags &= static_cast<uint8_t>(~kWqeInline);
}

void wr_set_sge(ibv_qp_ex* qx, uint32_t lkey, uint64_t addr, uint32_t length) {
  const ibv_sge sg{addr, length, lkey};
  wr_set_sge_list(qx, 1, &sg);
}

void wr_set_inline_data_list(ibv_qp_ex* qx, size_t n, const ibv_data_buf* bufs) {
  QpState* s = state_of(qx);
  Builder* b = current(s);
  if (!b) return;
  size_t length = 0;
  for (size_t i = 0; i < n; ++i) length += bufs[i].length;
  // A READ's or an atomic's SGEs receive data: nothing to inline.
  if (length > s->cap.max_inline_data || length > kWqeInlineBytes || b->hdr.opcode == IBV_WR_RDMA_READ ||
      is_atomic(b->hdr.opcode)) {
    s->wr_err = EINVAL;
    return;
  }
  uint8_t* p = b->data;
  for (size_t i = 0; i < n; ++i) {
    std::memcpy(p, bufs[i].addr, bufs[i].length);
    p += bufs[i].length;
  }
  b->hdr.num_sge = 0;
  b->hdr.length = static_cast<uint32_t>(length);
  b->hdr.flags |= kWqeInline;
}

// UD: the datagram's address (the AH's), destination QP and Q_Key.
void wr_set_ud_addr(ibv_qp_ex* qx, ibv_ah* ah, uint32_t remote_qpn, uint32_t remote_qkey) {
  QpState* s = state_of(qx);
  Builder* b = current(s);
  if (!b) return;
  if (!s->ud || !ah || ah->context != qx->qp_base.context) {
    s->wr_err = EINVAL;
    return;
  }
  put_ud_av(to_ah(ah)->av, remote_qpn, remote_qkey, &b->hdr);
  b->av = true;
}

void wr_set_inline_data(ibv_qp_ex* qx, void* addr, size_t length) {
  const ibv_data_buf buf{addr, length};
  wr_set_inline_data_list(qx, 1, &buf);
}

void wr_start(ibv_qp_ex* qx) {
  QpState* s = state_of(qx);
  s->sq_lock.lock();
  s->wr_pi = s->sq_pi;
  s->wr_cur = nullptr;
  // IBTA C10-27: sends from RTS on (ERR flushes them), as post_send.
  const ibv_qp_state st = qx->qp_base.state;
  s->wr_err = st == IBV_QPS_RESET || st == IBV_QPS_INIT || st == IBV_QPS_RTR ? EINVAL : 0;
}

int wr_complete(ibv_qp_ex* qx) {
  QpState* s = state_of(qx);
  flush(s);
  int err = s->wr_err;
  if (!err && s->wr_pi != s->sq_pi) {
    // one inline WQE: through the SQ_BF window with its doorbell, as post_send
    const bool one = static_cast<uint16_t>(s->wr_pi - s->sq_pi) == 1;
    s->sq_pi = s->wr_pi;
    Engine* eng = engine_of(qx->qp_base.context);
    const uint8_t* last = s->sq + size_t((s->sq_pi - 1) & (s->sq_size - 1)) * kWqeSlotBytes;
    err = one && (last[spec::kSendWqeFlagsOff] & kWqeInline)
              ? eng->doorbell_bf(s->qpn, s->sq_pi, last, s->ud)
              : eng->doorbell(spec::kCsrSqDb, s->qpn | uint32_t{s->sq_pi} << 16);
  }
  s->sq_lock.unlock();
  return err;
}

void wr_abort(ibv_qp_ex* qx) {
  QpState* s = state_of(qx);
  s->wr_cur = nullptr;  // the slots written stay beyond sq_pi: never rung, overwritten later
  s->sq_lock.unlock();
}

// What the engine cannot do: the batch fails with EOPNOTSUPP at wr_complete.
void unsupported(ibv_qp_ex* qx) {
  QpState* s = state_of(qx);
  if (!s->wr_err) s->wr_err = EOPNOTSUPP;
}
void wr_send_tso(ibv_qp_ex* qx, void*, uint16_t, uint16_t) { unsupported(qx); }

void wr_set_xrc_srqn(ibv_qp_ex* qx, uint32_t) { unsupported(qx); }
void wr_atomic_write(ibv_qp_ex* qx, uint32_t, uint64_t, const void*) { unsupported(qx); }

}  // namespace

ibv_qp* create_qp_ex(ibv_context* context, ibv_qp_init_attr_ex* ax) {
  if (!ax || !(ax->comp_mask & IBV_QP_INIT_ATTR_PD) || !ax->pd || ax->pd->context != context) {
    errno = EINVAL;
    return nullptr;
  }
  uint32_t known = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  if (!ax->create_flags) known |= IBV_QP_INIT_ATTR_CREATE_FLAGS;  // asking for no flag is no request
  const uint64_t supported = ax->qp_type == IBV_QPT_UD ? kSupportedOpsUd : kSupportedOps;
  if ((ax->comp_mask & ~known) ||
      ((ax->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && (ax->send_ops_flags & ~supported))) {
    errno = EOPNOTSUPP;  // XRC, TSO, RSS, create flags; ATOMIC_WRITE, FLUSH, ... on the wr_* API; UD: not a SEND
    return nullptr;
  }
  ibv_qp_init_attr a{};
  a.qp_context = ax->qp_context;
  a.send_cq = ax->send_cq;
  a.recv_cq = ax->recv_cq;
  a.srq = ax->srq;
  a.cap = ax->cap;
  a.qp_type = ax->qp_type;
  a.sq_sig_all = ax->sq_sig_all;
  ibv_qp* qp = create_qp(ax->pd, &a);
  if (!qp) return nullptr;
  ax->cap = a.cap;
  if (ax->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
    RocenicQp* q = to_qp(qp);
    q->s->wr_builder = new Builder;
    ibv_qp_ex& x = q->vqp.qp_ex;
    q->vqp.comp_mask |= VERBS_QP_EX;
    x.comp_mask = 0;
    x.wr_send = wr_send;
    x.wr_send_imm = wr_send_imm;
    x.wr_rdma_write = wr_rdma_write;
    x.wr_rdma_write_imm = wr_rdma_write_imm;
    x.wr_set_sge = wr_set_sge;
    x.wr_set_sge_list = wr_set_sge_list;
    x.wr_set_inline_data = wr_set_inline_data;
    x.wr_set_inline_data_list = wr_set_inline_data_list;
    x.wr_start = wr_start;
    x.wr_complete = wr_complete;
    x.wr_abort = wr_abort;
    x.wr_atomic_cmp_swp = wr_atomic_cmp_swp;
    x.wr_atomic_fetch_add = wr_atomic_fetch_add;
    x.wr_bind_mw = wr_bind_mw;
    x.wr_local_inv = wr_local_inv;
    x.wr_rdma_read = wr_rdma_read;
    x.wr_send_inv = wr_send_inv;
    x.wr_send_tso = wr_send_tso;
    x.wr_set_ud_addr = wr_set_ud_addr;
    x.wr_set_xrc_srqn = wr_set_xrc_srqn;
    x.wr_atomic_write = wr_atomic_write;
  }
  return qp;
}

void free_wr_builder(QpState* s) { delete reinterpret_cast<Builder*>(s->wr_builder); }

}  // namespace rocenic::driver
