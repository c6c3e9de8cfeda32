// Completion queues: a ring of 2^n 32-byte CQEs in this process's memory,
// written by the engine's DMA with an owner (phase) bit (layouts.md `cqe`),
// read here without any lock on the engine. Completion events arrive from
// the simulation thread as `ib_uverbs_comp_event_desc` records in the
// completion channel's pipe (the shim's; libibverbs' ibv_get_cq_event reads
// them and casts cq_handle back to the ibv_cq).
#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include "engine_limits.h"
#include "provider.h"

// A CQE's status and opcode reach the application as they are: spec
// wc_status and wc_opcode must be libibverbs' values, one for one.
#define ROCENIC_SAME_STATUS(spec_name, ibv_name) \
  static_assert(static_cast<int>(rocenic::spec::WcStatus::spec_name) == ibv_name, #ibv_name)
ROCENIC_SAME_STATUS(kSuccess, IBV_WC_SUCCESS);
ROCENIC_SAME_STATUS(kLocLenErr, IBV_WC_LOC_LEN_ERR);
ROCENIC_SAME_STATUS(kLocQpOpErr, IBV_WC_LOC_QP_OP_ERR);
ROCENIC_SAME_STATUS(kLocProtErr, IBV_WC_LOC_PROT_ERR);
ROCENIC_SAME_STATUS(kWrFlushErr, IBV_WC_WR_FLUSH_ERR);
ROCENIC_SAME_STATUS(kMwBindErr, IBV_WC_MW_BIND_ERR);
ROCENIC_SAME_STATUS(kBadRespErr, IBV_WC_BAD_RESP_ERR);
ROCENIC_SAME_STATUS(kLocAccessErr, IBV_WC_LOC_ACCESS_ERR);
ROCENIC_SAME_STATUS(kRemInvReqErr, IBV_WC_REM_INV_REQ_ERR);
ROCENIC_SAME_STATUS(kRemAccessErr, IBV_WC_REM_ACCESS_ERR);
ROCENIC_SAME_STATUS(kRemOpErr, IBV_WC_REM_OP_ERR);
ROCENIC_SAME_STATUS(kRetryExcErr, IBV_WC_RETRY_EXC_ERR);
ROCENIC_SAME_STATUS(kRnrRetryExcErr, IBV_WC_RNR_RETRY_EXC_ERR);
static_assert(rocenic::spec::kWcStatusCount == 13, "a new wc_status value needs its check above");
#undef ROCENIC_SAME_STATUS
#define ROCENIC_SAME_OPCODE(spec_name, ibv_name) \
  static_assert(static_cast<int>(rocenic::spec::WcOpcode::spec_name) == ibv_name, #ibv_name)
ROCENIC_SAME_OPCODE(kSend, IBV_WC_SEND);
ROCENIC_SAME_OPCODE(kRdmaWrite, IBV_WC_RDMA_WRITE);
ROCENIC_SAME_OPCODE(kRdmaRead, IBV_WC_RDMA_READ);
ROCENIC_SAME_OPCODE(kCompSwap, IBV_WC_COMP_SWAP);
ROCENIC_SAME_OPCODE(kFetchAdd, IBV_WC_FETCH_ADD);
ROCENIC_SAME_OPCODE(kBindMw, IBV_WC_BIND_MW);
ROCENIC_SAME_OPCODE(kLocalInv, IBV_WC_LOCAL_INV);
ROCENIC_SAME_OPCODE(kRecv, IBV_WC_RECV);
ROCENIC_SAME_OPCODE(kRecvRdmaWithImm, IBV_WC_RECV_RDMA_WITH_IMM);
static_assert(rocenic::spec::kWcOpcodeCount == 9, "a new wc_opcode value needs its check above");
#undef ROCENIC_SAME_OPCODE

namespace rocenic::driver {
namespace {

constexpr uint32_t kCiMask = 0xFFFFFF;  // CQ_DB_CI carries the consumer index mod 2^24

// An empty poll gives the CPU away: it yields, and once a thread has polled
// empty this many times in a row it sleeps briefly instead. A spinning
// application would otherwise keep a core from the simulation threads (of
// this process and of its peers on the wire) that produce its completions;
// a completion is then noticed at most ~kEmptyPollSleep late, far below the
// simulated engine's round trips.
constexpr unsigned kEmptyPollsBeforeSleep = 32;
constexpr timespec kEmptyPollSleep = {0, 20000};  // 20 us
thread_local unsigned t_empty_polls = 0;

// The shim's write end of a completion channel (exported by librocenic-shim.so).
int channel_writer(int channel_fd) {
  using Fn = int (*)(int);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "rocenic_shim_comp_channel_writer"));
  return fn ? fn(channel_fd) : -1;
}

// The CQE's imm field: the immediate's wire bytes, kept in network order as
// imm_data; or, with IBV_WC_WITH_INV, the IETH's rkey (also wire order) as
// the number invalidated_rkey. The two share a union in ibv_wc.
void put_imm(const uint8_t* cqe, unsigned wc_flags, ibv_wc* w) {
  uint32_t raw;
  std::memcpy(&raw, cqe + spec::kCqeImmOff, 4);
  if (wc_flags & IBV_WC_WITH_INV)
    w->invalidated_rkey = be32toh(raw);
  else
    w->imm_data = raw;
}

}  // namespace

uint8_t* alloc_ring(size_t bytes) {
  void* p = nullptr;
  if (posix_memalign(&p, kRingAlign, bytes) != 0) return nullptr;
  std::memset(p, 0, bytes);
  return static_cast<uint8_t*>(p);
}

void free_ring(uint8_t* ring) { std::free(ring); }

unsigned log2_ceil(uint32_t v) {
  unsigned n = 0;
  while ((uint64_t{1} << n) < v) ++n;
  return n;
}

ibv_cq* create_cq(ibv_context* context, int cqe, ibv_comp_channel* channel, int comp_vector) {
  Engine* eng = engine_of(context);
  if (cqe < 1 || static_cast<uint32_t>(cqe) > eng->caps().max_cqe || comp_vector < 0 ||
      comp_vector >= context->num_comp_vectors) {
    errno = EINVAL;
    return nullptr;
  }
  int channel_wr = -1;
  if (channel) {
    channel_wr = channel_writer(channel->fd);
    if (channel_wr < 0) {
      errno = EINVAL;  // not a channel of this device
      return nullptr;
    }
    fcntl(channel_wr, F_SETFL, fcntl(channel_wr, F_GETFL) | O_NONBLOCK);  // the simulation never blocks on it
  }
  RocenicCq* cq = new (std::nothrow) RocenicCq{};
  CqState* s = new (std::nothrow) CqState;
  const unsigned lsz = log2_ceil(static_cast<uint32_t>(cqe));
  const size_t bytes = (size_t{1} << lsz) * spec::Cqe::kSize;
  uint8_t* ring = cq && s ? alloc_ring(bytes) : nullptr;
  if (!ring) {
    delete s;
    delete cq;
    errno = ENOMEM;
    return nullptr;
  }
  s->ibcq = &cq->cq;
  s->lsz = static_cast<uint8_t>(lsz);
  s->size = 1u << lsz;
  s->ring = ring;
  s->channel_wr = channel_wr;
  s->async_wr = to_context(context)->state->async_event_wr;
  cq->s = s;

  spec::CmdCreateCq c;
  c.base = reinterpret_cast<uintptr_t>(ring);
  c.log_size = s->lsz;
  uint8_t args[spec::CmdCreateCq::kSize];
  c.store(args);
  uint32_t res[4] = {};
  eng->dma_allow(c.base, bytes);
  if (const int e = eng->command(spec::CmdOp::kCreateCq, args, 16, res)) {
    eng->dma_revoke(c.base, bytes);
    free_ring(ring);
    delete s;
    delete cq;
    errno = e;  // ENOMEM: every CQ is in use
    return nullptr;
  }
  s->cqn = res[0];
  eng->add_cq(s);
  // libibverbs' verbs_init_cq fills context, channel, cq_context and the event counters.
  cq->cq.cqe = static_cast<int>(s->size);
  cq->cq.handle = s->cqn;
  return &cq->cq;
}

int destroy_cq(ibv_cq* ibcq) {
  RocenicCq* cq = to_cq(ibcq);
  CqState* s = cq->s;
  Engine* eng = engine_of(ibcq->context);
  uint32_t res[4] = {};
  if (const int e = eng->command(spec::CmdOp::kDestroyCq, s->cqn, res)) return e;  // EBUSY: a QP uses it
  eng->remove_cq(s);  // no event for it from now on
  eng->dma_revoke(reinterpret_cast<uintptr_t>(s->ring), size_t{s->size} * spec::Cqe::kSize);
  free_ring(s->ring);
  delete s;
  delete cq;
  return 0;
}

int poll_cq(ibv_cq* ibcq, int num_entries, ibv_wc* wc) {
  CqState* cq = to_cq(ibcq)->s;
  Engine* eng = engine_of(ibcq->context);
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(cq->lock);
    uint32_t ci = cq->ci.load(std::memory_order_relaxed);
    for (; n < num_entries; ++n) {
      uint8_t* e = cq->ring + size_t(ci & (cq->size - 1)) * spec::Cqe::kSize;
      const uint8_t phase = ((ci >> cq->lsz) & 1) ^ 1;  // 1 on the first pass over the ring, 0 on the next, ...
      const uint8_t owner = __atomic_load_n(e + spec::kCqeOwnerOff, __ATOMIC_ACQUIRE);
      if ((owner & 1) != phase) break;
      spec::Cqe q;
      q.load(e);
      ibv_wc& w = wc[n];
      w = ibv_wc{};
      w.wr_id = q.wr_id;
      w.status = static_cast<ibv_wc_status>(q.status);
      w.opcode = static_cast<ibv_wc_opcode>(q.opcode);
      w.vendor_err = q.vendor_err;
      w.byte_len = q.byte_len;
      put_imm(e, q.wc_flags, &w);
      w.qp_num = q.qp_num;
      w.src_qp = q.src_qp;
      w.wc_flags = q.wc_flags;
      w.pkey_index = q.pkey_index;
      w.sl = q.sl;
      // The WQE this completes (and, on a send queue, every unsignaled one
      // before it) is free again.
      if (QpState* qp = eng->qp(q.qp_num)) {
        bool recv = q.opcode & 0x80;  // IBV_WC_RECV and IBV_WC_RECV_RDMA_WITH_IMM
        if (qp->send_cq != qp->recv_cq) recv = qp->recv_cq == cq;  // error CQEs: trust the queue over the opcode
        (recv ? qp->rq_ci : qp->sq_ci).store(static_cast<uint16_t>(q.wqe_counter + 1), std::memory_order_release);
      }
      ci = (ci + 1) & kCiMask;
    }
    cq->ci.store(ci, std::memory_order_release);  // reaches the engine before its next slice or doorbell
  }
  if (n > 0) {
    t_empty_polls = 0;
  } else if (num_entries > 0) {
    if (eng->failed()) return -EIO;
    if (++t_empty_polls < kEmptyPollsBeforeSleep)
      sched_yield();
    else
      nanosleep(&kEmptyPollSleep, nullptr);
  }
  return n;
}

int req_notify_cq(ibv_cq* ibcq, int solicited_only) {
  return engine_of(ibcq->context)->arm_cq(to_cq(ibcq)->s, solicited_only ? 2 : 1);
}

void cq_event(ibv_cq*) {
  // ibv_get_cq_event calls this after reading an event; the engine needs no
  // acknowledgement (re-arming is req_notify_cq).
}

}  // namespace rocenic::driver
