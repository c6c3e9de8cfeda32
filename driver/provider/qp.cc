// Queue pairs: send and receive rings of WQEs (512-byte slots) in process memory
// (sizes rounded up to powers of two), CREATE_QP / MODIFY_QP / QUERY_QP /
// DESTROY_QP on the engine. RC, UC and UD; the engine checks transitions and
// attribute masks (IBTA, docs/engine.md) and the provider maps its status
// to the errno the kernel gives. A UD QP's send WQEs carry the address
// vector where SGE 2 would be: at most 2 SGEs or 32 inline bytes.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>

#include "engine_limits.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

// Takes both CQ locks of a QP (in address order: no lock-order inversion
// with another QP on the same pair), so that no poll_cq is looking at it.
class CqLocks {
 public:
  CqLocks(CqState* a, CqState* b) : a_(a < b ? a : b), b_(a < b ? b : a) {
    a_->lock.lock();
    if (b_ != a_) b_->lock.lock();
  }
  ~CqLocks() {
    if (b_ != a_) b_->lock.unlock();
    a_->lock.unlock();
  }

 private:
  CqState* a_;
  CqState* b_;
};

void free_qp(QpState* s) {
  free_wr_builder(s);
  free_ring(s->sq);
  free_ring(s->rq);
  delete s;
}

}  // namespace

ibv_qp* create_qp(ibv_pd* ibpd, ibv_qp_init_attr* attr) {
  if (!attr || !attr->send_cq || !attr->recv_cq) {
    errno = EINVAL;
    return nullptr;
  }
  switch (attr->qp_type) {
    case IBV_QPT_RC:
    case IBV_QPT_UC:
    case IBV_QPT_UD:
      break;
    case IBV_QPT_RAW_PACKET:
    case IBV_QPT_XRC_SEND:
    case IBV_QPT_XRC_RECV:
    case IBV_QPT_DRIVER:
      errno = EOPNOTSUPP;  // valid types this engine does not implement (yet)
      return nullptr;
    default:
      errno = EINVAL;
      return nullptr;
  }
  if (attr->srq) {
    errno = EOPNOTSUPP;  // no SRQ
    return nullptr;
  }
  Engine* eng = engine_of(ibpd->context);
  const Caps& caps = eng->caps();
  const ibv_qp_cap& c = attr->cap;
  if (c.max_send_wr > caps.max_qp_wr || c.max_recv_wr > caps.max_qp_wr || c.max_send_sge > caps.max_sge ||
      c.max_recv_sge > caps.max_sge || c.max_inline_data > caps.max_inline) {
    errno = EINVAL;  // beyond the device's limits (ibv_query_device)
    return nullptr;
  }
  const bool ud = attr->qp_type == IBV_QPT_UD;
  if (ud && (c.max_send_sge > spec::kUdMaxSge || c.max_inline_data > spec::kUdMaxInline)) {
    errno = EINVAL;  // a UD WQE's address vector takes the rest of its head
    return nullptr;
  }
  RocenicQp* qp = new (std::nothrow) RocenicQp{};
  QpState* s = new (std::nothrow) QpState;
  if (!qp || !s) {
    delete qp;
    delete s;
    errno = ENOMEM;
    return nullptr;
  }
  s->sq_lsz = static_cast<uint8_t>(log2_ceil(std::max(1u, c.max_send_wr)));
  s->rq_lsz = static_cast<uint8_t>(log2_ceil(std::max(1u, c.max_recv_wr)));
  s->sq_size = 1u << s->sq_lsz;
  s->rq_size = 1u << s->rq_lsz;
  const size_t sq_bytes = size_t{s->sq_size} * kWqeSlotBytes, rq_bytes = size_t{s->rq_size} * kWqeSlotBytes;
  s->sq = alloc_ring(sq_bytes);
  s->rq = alloc_ring(rq_bytes);
  if (!s->sq || !s->rq) {
    free_qp(s);
    delete qp;
    errno = ENOMEM;
    return nullptr;
  }
  s->send_cq = to_cq(attr->send_cq)->s;
  s->recv_cq = to_cq(attr->recv_cq)->s;
  s->sq_sig_all = attr->sq_sig_all != 0;
  s->ud = ud;

  spec::CmdCreateQp cmd;
  cmd.sq_base = reinterpret_cast<uintptr_t>(s->sq);
  cmd.rq_base = reinterpret_cast<uintptr_t>(s->rq);
  cmd.pd = to_pd(ibpd)->pdn;
  cmd.send_cq = s->send_cq->cqn;
  cmd.recv_cq = s->recv_cq->cqn;
  cmd.qp_type = static_cast<uint8_t>(attr->qp_type == IBV_QPT_UC ? spec::QpType::kUc
                                     : ud                           ? spec::QpType::kUd
                                                                    : spec::QpType::kRc);
  cmd.sq_lsz = s->sq_lsz;
  cmd.rq_lsz = s->rq_lsz;
  uint8_t args[spec::CmdCreateQp::kSize];
  cmd.store(args);
  uint32_t res[4] = {};
  eng->dma_allow(cmd.sq_base, sq_bytes);
  eng->dma_allow(cmd.rq_base, rq_bytes);
  if (const int e = eng->command(spec::CmdOp::kCreateQp, args, 32, res)) {
    eng->dma_revoke(cmd.sq_base, sq_bytes);
    eng->dma_revoke(cmd.rq_base, rq_bytes);
    free_qp(s);
    delete qp;
    errno = e;  // ENOMEM: every QP is in use; EINVAL: a PD or CQ the engine does not know
    return nullptr;
  }
  s->qpn = res[0];
  // What the application gets: the rings as allocated; every WQE holds the
  // device's SGEs and inline bytes (a UD send WQE 2 SGEs or 32 bytes), whatever was asked.
  s->cap.max_send_wr = s->sq_size;
  s->cap.max_recv_wr = s->rq_size;
  s->cap.max_send_sge = ud ? spec::kUdMaxSge : caps.max_sge;
  s->cap.max_recv_sge = caps.max_sge;
  s->cap.max_inline_data = ud ? spec::kUdMaxInline : caps.max_inline;
  attr->cap = s->cap;
  s->attr.qp_state = IBV_QPS_RESET;
  qp->s = s;
  ibv_qp& q = qp->vqp.qp;
  q.context = ibpd->context;
  q.qp_context = attr->qp_context;
  q.pd = ibpd;
  q.send_cq = attr->send_cq;
  q.recv_cq = attr->recv_cq;
  q.srq = nullptr;
  q.handle = s->qpn;
  q.qp_num = s->qpn;
  q.state = IBV_QPS_RESET;
  q.qp_type = attr->qp_type;
  pthread_mutex_init(&q.mutex, nullptr);
  pthread_cond_init(&q.cond, nullptr);
  q.events_completed = 0;
  qp->vqp.comp_mask = 0;  // not a qp_ex
  {
    CqLocks l(s->send_cq, s->recv_cq);
    eng->set_qp(s->qpn, s);
  }
  return &q;
}

namespace {

// Whether the QP, as the application last moved it, still answers requests
// (RTR, RTS, SQD: its responder ACKs a retransmitted duplicate).
bool answers(QpState* s) {
  std::lock_guard<std::mutex> g(s->attr_lock);
  const ibv_qp_state st = s->attr.qp_state;
  return st == IBV_QPS_RTR || st == IBV_QPS_RTS || st == IBV_QPS_SQD;
}

}  // namespace

int destroy_qp(ibv_qp* ibqp) {
  RocenicQp* qp = to_qp(ibqp);
  QpState* s = qp->s;
  Engine* eng = engine_of(ibqp->context);
  if (ibqp->qp_type == IBV_QPT_RC && answers(s)) eng->await_waiting_peers();
  uint32_t res[4] = {};
  if (const int e = eng->command(spec::CmdOp::kDestroyQp, s->qpn, res)) return e;
  {
    CqLocks l(s->send_cq, s->recv_cq);  // no poll_cq still looks at this QP
    eng->set_qp(s->qpn, nullptr);
  }
  eng->dma_revoke(reinterpret_cast<uintptr_t>(s->sq), size_t{s->sq_size} * kWqeSlotBytes);
  eng->dma_revoke(reinterpret_cast<uintptr_t>(s->rq), size_t{s->rq_size} * kWqeSlotBytes);
  pthread_cond_destroy(&ibqp->cond);
  pthread_mutex_destroy(&ibqp->mutex);
  free_qp(s);
  delete qp;
  return 0;
}

// The application's attr_mask goes to the engine as it is: spec qp_attr must
// be libibverbs' ibv_qp_attr_mask, bit for bit.
#define ROCENIC_SAME_ATTR(spec_name, ibv_name) \
  static_assert(static_cast<uint32_t>(spec::QpAttr::spec_name) == ibv_name, #ibv_name)
ROCENIC_SAME_ATTR(kState, IBV_QP_STATE);
ROCENIC_SAME_ATTR(kCurState, IBV_QP_CUR_STATE);
ROCENIC_SAME_ATTR(kEnSqdAsyncNotify, IBV_QP_EN_SQD_ASYNC_NOTIFY);
ROCENIC_SAME_ATTR(kAccessFlags, IBV_QP_ACCESS_FLAGS);
ROCENIC_SAME_ATTR(kPkeyIndex, IBV_QP_PKEY_INDEX);
ROCENIC_SAME_ATTR(kPort, IBV_QP_PORT);
ROCENIC_SAME_ATTR(kQkey, IBV_QP_QKEY);
ROCENIC_SAME_ATTR(kAv, IBV_QP_AV);
ROCENIC_SAME_ATTR(kPathMtu, IBV_QP_PATH_MTU);
ROCENIC_SAME_ATTR(kTimeout, IBV_QP_TIMEOUT);
ROCENIC_SAME_ATTR(kRetryCnt, IBV_QP_RETRY_CNT);
ROCENIC_SAME_ATTR(kRnrRetry, IBV_QP_RNR_RETRY);
ROCENIC_SAME_ATTR(kRqPsn, IBV_QP_RQ_PSN);
ROCENIC_SAME_ATTR(kMaxQpRdAtomic, IBV_QP_MAX_QP_RD_ATOMIC);
ROCENIC_SAME_ATTR(kAltPath, IBV_QP_ALT_PATH);
ROCENIC_SAME_ATTR(kMinRnrTimer, IBV_QP_MIN_RNR_TIMER);
ROCENIC_SAME_ATTR(kSqPsn, IBV_QP_SQ_PSN);
ROCENIC_SAME_ATTR(kMaxDestRdAtomic, IBV_QP_MAX_DEST_RD_ATOMIC);
ROCENIC_SAME_ATTR(kPathMigState, IBV_QP_PATH_MIG_STATE);
ROCENIC_SAME_ATTR(kCap, IBV_QP_CAP);
ROCENIC_SAME_ATTR(kDestQpn, IBV_QP_DEST_QPN);
#undef ROCENIC_SAME_ATTR

int modify_qp(ibv_qp* ibqp, ibv_qp_attr* attr, int attr_mask) {
  QpState* s = to_qp(ibqp)->s;
  Engine* eng = engine_of(ibqp->context);
  if (!attr) return EINVAL;
  uint32_t mask = static_cast<uint32_t>(attr_mask);
  if (mask & IBV_QP_CUR_STATE) {
    // The application's view of the current state must be ours; the engine
    // knows the state itself and is not told.
    if (attr->cur_qp_state != ibqp->state) return EINVAL;
    mask &= ~uint32_t{IBV_QP_CUR_STATE};
  }
  spec::CmdModifyQp m;
  m.qpn = s->qpn;
  m.attr_mask = mask;
  m.qp_state = static_cast<uint8_t>(attr->qp_state);
  m.path_mtu = static_cast<uint8_t>(attr->path_mtu);
  if (attr->qp_access_flags & ~0xff) return EINVAL;
  m.access = static_cast<uint8_t>(attr->qp_access_flags);
  m.dest_qpn = attr->dest_qp_num;
  m.rq_psn = attr->rq_psn;
  m.sq_psn = attr->sq_psn;
  m.timeout = attr->timeout;
  m.retry_cnt = attr->retry_cnt;
  m.rnr_retry = attr->rnr_retry;
  m.min_rnr_timer = attr->min_rnr_timer;
  m.max_rd_atomic = attr->max_rd_atomic;
  m.max_dest_rd_atomic = attr->max_dest_rd_atomic;
  m.port_num = attr->port_num;
  m.pkey_index = attr->pkey_index;
  m.qkey = attr->qkey;
  uint8_t resolved_hop = 0;
  if (mask & IBV_QP_AV) {
    const ibv_ah_attr& ah = attr->ah_attr;
    // RoCE has no LIDs: the address is the GRH (the kernel refuses an AV without one).
    if (!ah.is_global || ah.port_num != 1) return EINVAL;
    std::string err;
    ResolvedAv r;
    if (const int e = resolve_av(eng, ah.grh, &r, &err)) {
      std::fprintf(stderr, "rocenic: modify_qp of QP %u: %s\n", s->qpn, err.c_str());
      return e;
    }
    m.dmac = r.dmac;
    m.sgid_index = ah.grh.sgid_index;
    std::memcpy(m.dgid.data(), ah.grh.dgid.raw, 16);
    resolved_hop = r.hop_limit;  // (what ibv_query_qp shows)
    m.hop_limit = r.hop_limit;
    m.traffic_class = r.traffic_class;
    m.flow_label = ah.grh.flow_label;
    m.sl = ah.sl;
  }
  uint8_t args[spec::CmdModifyQp::kSize];
  m.store(args);
  uint32_t res[4] = {};
  if (const int e = eng->command(spec::CmdOp::kModifyQp, args, sizeof args, res)) return e;

  if ((mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RESET) {
    // The engine cleared its indices: so do the rings.
    std::lock_guard<std::mutex> a(s->sq_lock);
    std::lock_guard<std::mutex> b(s->rq_lock);
    s->sq_pi = s->rq_pi = 0;
    s->sq_ci.store(0);
    s->rq_ci.store(0);
  }
  std::lock_guard<std::mutex> l(s->attr_lock);
  ibv_qp_attr& a = s->attr;
  if (mask & IBV_QP_STATE) a.qp_state = attr->qp_state;
  if (mask & IBV_QP_ACCESS_FLAGS) a.qp_access_flags = attr->qp_access_flags;
  if (mask & IBV_QP_PKEY_INDEX) a.pkey_index = attr->pkey_index;
  if (mask & IBV_QP_PORT) a.port_num = attr->port_num;
  if (mask & IBV_QP_QKEY) a.qkey = attr->qkey;
  if (mask & IBV_QP_AV) {
    a.ah_attr = attr->ah_attr;
    a.ah_attr.grh.hop_limit = resolved_hop;  // what the path resolved to (ibv_query_qp shows it)
  }
  if (mask & IBV_QP_PATH_MTU) a.path_mtu = attr->path_mtu;
  if (mask & IBV_QP_TIMEOUT) a.timeout = attr->timeout;
  if (mask & IBV_QP_RETRY_CNT) a.retry_cnt = attr->retry_cnt;
  if (mask & IBV_QP_RNR_RETRY) a.rnr_retry = attr->rnr_retry;
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC) a.max_rd_atomic = attr->max_rd_atomic;
  if (mask & IBV_QP_MIN_RNR_TIMER) a.min_rnr_timer = attr->min_rnr_timer;
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) a.max_dest_rd_atomic = attr->max_dest_rd_atomic;
  return 0;
}

int query_qp(ibv_qp* ibqp, ibv_qp_attr* attr, int, ibv_qp_init_attr* init_attr) {
  QpState* s = to_qp(ibqp)->s;
  if (!attr) return EINVAL;
  uint32_t res[4] = {};
  if (const int e = engine_of(ibqp->context)->command(spec::CmdOp::kQueryQp, s->qpn, res)) return e;
  {
    std::lock_guard<std::mutex> l(s->attr_lock);
    *attr = s->attr;
  }
  // The engine's own view wins where it has one (it may have moved to ERR).
  attr->qp_state = static_cast<ibv_qp_state>(res[0]);
  attr->cur_qp_state = attr->qp_state;
  attr->sq_psn = res[1];
  attr->rq_psn = res[2];
  attr->dest_qp_num = res[3];
  attr->cap = s->cap;
  attr->sq_draining = 0;
  if (init_attr) {
    *init_attr = ibv_qp_init_attr{};
    init_attr->qp_context = ibqp->qp_context;
    init_attr->send_cq = ibqp->send_cq;
    init_attr->recv_cq = ibqp->recv_cq;
    init_attr->srq = ibqp->srq;
    init_attr->cap = s->cap;
    init_attr->qp_type = ibqp->qp_type;
    init_attr->sq_sig_all = s->sq_sig_all;
  }
  return 0;
}

}  // namespace rocenic::driver
