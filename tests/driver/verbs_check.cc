// Verbs through libibverbs against the real engine, run under rocenic-run.
//
//   verbs_check errno                       bad arguments get the errno real providers give
//   verbs_check loopback [--iters N] [--size S] [--events] [--wr-api] [--sges K]
//                                           two QPs of one device exchange SENDs, SENDs with
//                                           immediate and RDMA WRITEs with immediate
//                                           (--wr-api: QPs from ibv_create_qp_ex, posted with
//                                           ibv_wr_*, as perftest does by default; --sges: the
//                                           message gathered from and scattered into K pieces,
//                                           up to the device's max_sge)
//   verbs_check mw [--wr-api]               memory windows between two QPs of one device: a
//                                           type 2 window bound by IBV_WR_BIND_MW, written
//                                           through by the peer, LOCAL_INV'd (a WRITE through
//                                           it fails), bound again and invalidated by the
//                                           peer's SEND_WITH_INV (IBV_WC_WITH_INV); a type 1
//                                           window bound by ibv_bind_mw, written through,
//                                           unbound (--wr-api: the requests through ibv_wr_*)
//
// Needs an IPv4 --ip (GID index 3 is its RoCE v2 entry). Prints each failed
// check and exits 1 if any failed; "verbs_check <mode>: ok" otherwise.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "FAIL %s:%d: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

constexpr int kGid = 3;  // RoCE v2, first --ip

struct Dev {
  ibv_context* ctx = nullptr;
  ibv_device_attr attr{};
  ibv_gid gid{};
};

bool open_dev(Dev* d) {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  for (int i = 0; list && i < n; ++i)
    if (std::strcmp(ibv_get_device_name(list[i]), "rocenic0") == 0) d->ctx = ibv_open_device(list[i]);
  ibv_free_device_list(list);
  if (!d->ctx) return false;
  return ibv_query_device(d->ctx, &d->attr) == 0 && ibv_query_gid(d->ctx, 1, kGid, &d->gid) == 0;
}

ibv_qp* make_qp(ibv_pd* pd, ibv_cq* cq, uint32_t wr = 64, uint32_t sge = 2, bool wr_api = false) {
  if (wr_api) {
    ibv_qp_init_attr_ex x{};
    x.send_cq = x.recv_cq = cq;
    x.qp_type = IBV_QPT_RC;
    x.cap.max_send_wr = x.cap.max_recv_wr = wr;
    x.cap.max_send_sge = x.cap.max_recv_sge = sge;
    x.pd = pd;
    x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    x.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
                       IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV |
                       IBV_QP_EX_WITH_SEND_WITH_INV;
    ibv_qp* q = ibv_create_qp_ex(pd->context, &x);
    CHECK(!q || ibv_qp_to_qp_ex(q));
    return q;
  }
  ibv_qp_init_attr a{};
  a.send_cq = a.recv_cq = cq;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = a.cap.max_recv_wr = wr;
  a.cap.max_send_sge = a.cap.max_recv_sge = sge;
  return ibv_create_qp(pd, &a);
}

int to_init(ibv_qp* q) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  return ibv_modify_qp(q, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

int to_rtr(ibv_qp* q, uint32_t dest, const ibv_gid& dgid) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTR;
  a.path_mtu = IBV_MTU_1024;
  a.dest_qp_num = dest;
  a.max_dest_rd_atomic = 1;
  a.min_rnr_timer = 12;
  a.ah_attr.is_global = 1;
  a.ah_attr.port_num = 1;
  a.ah_attr.grh.dgid = dgid;
  a.ah_attr.grh.sgid_index = kGid;
  a.ah_attr.grh.hop_limit = 1;
  return ibv_modify_qp(q, &a,
                       IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                           IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
}

int to_rts(ibv_qp* q) {
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_RTS;
  a.timeout = 14;
  a.retry_cnt = 7;
  a.rnr_retry = 7;
  a.max_rd_atomic = 1;
  return ibv_modify_qp(q, &a,
                       IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                           IBV_QP_MAX_QP_RD_ATOMIC);
}

void check_errno(Dev& d) {
  ibv_pd* pd = ibv_alloc_pd(d.ctx);
  CHECK(pd);
  if (!pd) return;
  static char buf[8192];
  errno = 0;
  CHECK(ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_REMOTE_WRITE) == nullptr && errno == EINVAL);
  errno = 0;
  CHECK(ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_REMOTE_ATOMIC) == nullptr && errno == EINVAL);
  ibv_mr* mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  CHECK(mr && mr->lkey == mr->rkey);
  errno = 0;
  CHECK(ibv_dealloc_pd(pd) == EBUSY);  // the MR uses it

  errno = 0;
  CHECK(ibv_create_cq(d.ctx, d.attr.max_cqe + 1, nullptr, nullptr, 0) == nullptr && errno == EINVAL);
  errno = 0;
  CHECK(ibv_create_cq(d.ctx, 0, nullptr, nullptr, 0) == nullptr && errno == EINVAL);
  ibv_cq* cq = ibv_create_cq(d.ctx, 64, nullptr, nullptr, 0);
  CHECK(cq && cq->cqe >= 64);
  if (!cq || !mr) return;

  auto qp_errno = [&](auto tweak) {
    ibv_qp_init_attr a{};
    a.send_cq = a.recv_cq = cq;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    tweak(a);
    errno = 0;
    ibv_qp* q = ibv_create_qp(pd, &a);
    const int e = q ? 0 : errno;
    if (q) ibv_destroy_qp(q);
    return e;
  };
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.cap.max_send_wr = d.attr.max_qp_wr + 1; }) == EINVAL);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.cap.max_recv_wr = d.attr.max_qp_wr + 1; }) == EINVAL);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.cap.max_send_sge = d.attr.max_sge + 1; }) == EINVAL);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.cap.max_inline_data = 4096; }) == EINVAL);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_UD; }) == 0);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) {
          a.qp_type = IBV_QPT_UD;
          a.cap.max_send_sge = 3;  // a UD WQE's address vector lies where SGE 2 would
        }) == EINVAL);
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_RAW_PACKET; }) == EOPNOTSUPP);

  ibv_qp* q = make_qp(pd, cq, 8, 1);
  CHECK(q);
  if (!q) return;
  ibv_qp_attr qa{};
  ibv_qp_init_attr qi{};
  CHECK(ibv_query_qp(q, &qa, IBV_QP_CAP, &qi) == 0 && qi.cap.max_inline_data >= 64);
  CHECK(to_rtr(q, q->qp_num, d.gid) == EINVAL);  // RESET -> RTR
  CHECK(to_rts(q) == EINVAL);                    // RESET -> RTS
  CHECK(to_init(q) == 0);
  ibv_qp_attr bad{};
  bad.qp_state = IBV_QPS_RTS;
  CHECK(ibv_modify_qp(q, &bad, IBV_QP_STATE) == EINVAL);  // INIT -> RTS
  ibv_gid nobody{};
  nobody.raw[10] = nobody.raw[11] = 0xff;
  nobody.raw[12] = 203, nobody.raw[13] = 0, nobody.raw[14] = 113, nobody.raw[15] = 77;  // 203.0.113.77
  CHECK(to_rtr(q, 1, nobody) == ETIMEDOUT);  // no neighbour answers for it
  CHECK(to_rtr(q, q->qp_num, d.gid) == 0);
  CHECK(to_rts(q) == 0);

  std::vector<ibv_sge> sg(d.attr.max_sge + 1, ibv_sge{reinterpret_cast<uintptr_t>(buf), 8, mr->lkey});
  ibv_send_wr sw{};
  sw.sg_list = sg.data();
  sw.num_sge = d.attr.max_sge + 1;
  sw.opcode = IBV_WR_SEND;
  ibv_send_wr* bad_s = nullptr;
  CHECK(ibv_post_send(q, &sw, &bad_s) == EINVAL && bad_s == &sw);
  sw.num_sge = 1;
  sw.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
  sw.wr.atomic.remote_addr = reinterpret_cast<uintptr_t>(buf) + 4;  // not 8-byte aligned
  bad_s = nullptr;
  CHECK(ibv_post_send(q, &sw, &bad_s) == EINVAL && bad_s == &sw);
  sw.opcode = IBV_WR_ATOMIC_WRITE;  // the engine has no ATOMIC_WRITE
  bad_s = nullptr;
  CHECK(ibv_post_send(q, &sw, &bad_s) == EOPNOTSUPP && bad_s == &sw);
  ibv_recv_wr rw{};
  rw.sg_list = sg.data();
  rw.num_sge = d.attr.max_sge + 1;
  ibv_recv_wr* bad_r = nullptr;
  CHECK(ibv_post_recv(q, &rw, &bad_r) == EINVAL && bad_r == &rw);

  CHECK(ibv_destroy_cq(cq) == EBUSY);  // the QP uses it
  CHECK(ibv_destroy_qp(q) == 0);
  CHECK(ibv_destroy_cq(cq) == 0);
  CHECK(ibv_dereg_mr(mr) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
}

// Waits for n completions: polling, or with --events through the channel.
std::vector<ibv_wc> wait_for(ibv_cq* cq, ibv_comp_channel* ch, size_t n) {
  std::vector<ibv_wc> out;
  for (int rounds = 0; out.size() < n && rounds < 2000000; ++rounds) {
    ibv_wc wc[16];
    const int got = ibv_poll_cq(cq, 16, wc);
    if (got < 0) {
      CHECK(got >= 0);
      break;
    }
    out.insert(out.end(), wc, wc + got);
    if (got == 0 && ch && out.size() < n) {
      pollfd p{ch->fd, POLLIN, 0};
      if (poll(&p, 1, 10000) != 1) {
        CHECK(!"completion event within 10 s");
        break;
      }
      ibv_cq* ev_cq = nullptr;
      void* ev_ctx = nullptr;
      CHECK(ibv_get_cq_event(ch, &ev_cq, &ev_ctx) == 0 && ev_cq == cq);
      ibv_ack_cq_events(cq, 1);
      CHECK(ibv_req_notify_cq(cq, 0) == 0);
    }
  }
  return out;
}

// `n` pieces covering [buf, buf + size): the last takes what the others leave.
std::vector<ibv_sge> split(char* buf, size_t size, int n, uint32_t lkey) {
  std::vector<ibv_sge> v;
  const size_t each = size / static_cast<size_t>(n);
  for (int i = 0; i < n; ++i) {
    const size_t off = each * static_cast<size_t>(i);
    const size_t len = i + 1 == n ? size - off : each;
    v.push_back(ibv_sge{reinterpret_cast<uintptr_t>(buf + off), static_cast<uint32_t>(len), lkey});
  }
  return v;
}

void check_loopback(Dev& d, int iters, size_t size, bool events, bool wr_api, int sges) {
  ibv_pd* pd = ibv_alloc_pd(d.ctx);
  ibv_comp_channel* ch = events ? ibv_create_comp_channel(d.ctx) : nullptr;
  ibv_cq* cq = ibv_create_cq(d.ctx, 64, nullptr, ch, 0);
  std::vector<char> a(size + 64), b(size + 64);
  const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  ibv_mr* ma = ibv_reg_mr(pd, a.data(), a.size(), acc);
  ibv_mr* mb = ibv_reg_mr(pd, b.data(), b.size(), acc);
  CHECK(sges >= 1 && sges <= d.attr.max_sge);
  const uint32_t nsge = static_cast<uint32_t>(std::max(sges, 2));
  ibv_qp* qa = make_qp(pd, cq, 64, nsge, wr_api);
  ibv_qp* qb = make_qp(pd, cq, 64, nsge, wr_api);
  CHECK(pd && cq && ma && mb && qa && qb && (!events || ch));
  if (!pd || !cq || !ma || !mb || !qa || !qb) return;
  CHECK(to_init(qa) == 0 && to_init(qb) == 0);
  CHECK(to_rtr(qa, qb->qp_num, d.gid) == 0 && to_rtr(qb, qa->qp_num, d.gid) == 0);
  CHECK(to_rts(qa) == 0 && to_rts(qb) == 0);
  if (events) CHECK(ibv_req_notify_cq(cq, 0) == 0);

  for (int i = 0; i < iters && !failures; ++i) {
    // Alternate direction; SEND, SEND with immediate, WRITE with immediate.
    const bool ab = i % 2 == 0;
    std::vector<char>& src = ab ? a : b;
    std::vector<char>& dst = ab ? b : a;
    ibv_qp* from = ab ? qa : qb;
    ibv_qp* to = ab ? qb : qa;
    for (size_t k = 0; k < size; ++k) src[k] = static_cast<char>(i * 7 + k);
    std::memset(dst.data(), 0, size);
    std::vector<ibv_sge> rs = split(dst.data(), size, sges, (ab ? mb : ma)->lkey);
    ibv_recv_wr rw{};
    rw.wr_id = 1000 + i;
    rw.sg_list = rs.data();
    rw.num_sge = sges;
    ibv_recv_wr* bad_r;
    CHECK(ibv_post_recv(to, &rw, &bad_r) == 0);
    std::vector<ibv_sge> ss = split(src.data(), size, sges, (ab ? ma : mb)->lkey);
    ibv_send_wr sw{};
    sw.wr_id = i;
    sw.sg_list = ss.data();
    sw.num_sge = sges;
    sw.send_flags = IBV_SEND_SIGNALED;
    const int kind = i % 3;
    sw.opcode = kind == 0 ? IBV_WR_SEND : kind == 1 ? IBV_WR_SEND_WITH_IMM : IBV_WR_RDMA_WRITE_WITH_IMM;
    sw.imm_data = htonl(0x1000u + i);
    sw.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(dst.data());
    sw.wr.rdma.rkey = (ab ? mb : ma)->rkey;
    if (wr_api) {
      ibv_qp_ex* x = ibv_qp_to_qp_ex(from);
      ibv_wr_start(x);
      x->wr_id = sw.wr_id;
      x->wr_flags = sw.send_flags;
      if (kind == 0)
        ibv_wr_send(x);
      else if (kind == 1)
        ibv_wr_send_imm(x, sw.imm_data);
      else
        ibv_wr_rdma_write_imm(x, sw.wr.rdma.rkey, sw.wr.rdma.remote_addr, sw.imm_data);
      ibv_wr_set_sge_list(x, ss.size(), ss.data());
      CHECK(ibv_wr_complete(x) == 0);
    } else {
      ibv_send_wr* bad_s;
      CHECK(ibv_post_send(from, &sw, &bad_s) == 0);
    }
    const std::vector<ibv_wc> wcs = wait_for(cq, ch, 2);
    CHECK(wcs.size() == 2);
    for (const ibv_wc& w : wcs) {
      CHECK(w.status == IBV_WC_SUCCESS);
      if (w.opcode & IBV_WC_RECV) {
        CHECK(w.wr_id == 1000u + i && w.qp_num == to->qp_num && w.byte_len == size);
        CHECK(w.opcode == (kind == 2 ? IBV_WC_RECV_RDMA_WITH_IMM : IBV_WC_RECV));
        if (kind) CHECK((w.wc_flags & IBV_WC_WITH_IMM) && ntohl(w.imm_data) == 0x1000u + i);
      } else {
        CHECK(w.wr_id == uint64_t(i) && w.qp_num == from->qp_num);
        CHECK(w.opcode == (kind == 2 ? IBV_WC_RDMA_WRITE : IBV_WC_SEND));
      }
    }
    CHECK(std::memcmp(src.data(), dst.data(), size) == 0);
  }
  if (events) {
    ibv_ack_cq_events(cq, 0);
  }
  CHECK(ibv_destroy_qp(qa) == 0 && ibv_destroy_qp(qb) == 0);
  CHECK(ibv_destroy_cq(cq) == 0);
  if (ch) CHECK(ibv_destroy_comp_channel(ch) == 0);
  CHECK(ibv_dereg_mr(ma) == 0 && ibv_dereg_mr(mb) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
}

// ---- verbs_check mw

// One send request, through ibv_post_send or (wr_api) the ibv_wr_* call of
// its opcode: the opcodes the window checks use.
int post_one(ibv_qp* q, ibv_send_wr& wr, bool wr_api) {
  if (!wr_api) {
    ibv_send_wr* bad = nullptr;
    return ibv_post_send(q, &wr, &bad);
  }
  ibv_qp_ex* x = ibv_qp_to_qp_ex(q);
  ibv_wr_start(x);
  x->wr_id = wr.wr_id;
  x->wr_flags = wr.send_flags;
  switch (wr.opcode) {
    case IBV_WR_BIND_MW: ibv_wr_bind_mw(x, wr.bind_mw.mw, wr.bind_mw.rkey, &wr.bind_mw.bind_info); break;
    case IBV_WR_LOCAL_INV: ibv_wr_local_inv(x, wr.invalidate_rkey); break;
    case IBV_WR_SEND_WITH_INV: ibv_wr_send_inv(x, wr.invalidate_rkey); break;
    case IBV_WR_RDMA_WRITE: ibv_wr_rdma_write(x, wr.wr.rdma.rkey, wr.wr.rdma.remote_addr); break;
    default: ibv_wr_abort(x); return EINVAL;
  }
  if (wr.num_sge) ibv_wr_set_sge_list(x, static_cast<size_t>(wr.num_sge), wr.sg_list);
  return ibv_wr_complete(x);
}

// The completion of work request wr_id of QP qpn. The QPs share one CQ, so
// a completion of another work request may come first (a receive before the
// send whose ACK is still on its way): it waits in `early` for its own
// await_wc. Flushed completions of the QPs a remote access error moved to
// ERR are passed over; every other completion must be awaited (destroy_pair
// checks that none is left).
std::vector<ibv_wc> early;
ibv_wc await_wc(ibv_cq* cq, uint32_t qpn, uint64_t wr_id) {
  for (auto it = early.begin(); it != early.end(); ++it)
    if (it->qp_num == qpn && it->wr_id == wr_id) {
      const ibv_wc w = *it;
      early.erase(it);
      return w;
    }
  for (int rounds = 0; rounds < 2000000; ++rounds) {
    ibv_wc w{};
    const int got = ibv_poll_cq(cq, 1, &w);
    if (got < 0) break;
    if (got == 0) continue;
    if (w.qp_num == qpn && w.wr_id == wr_id) return w;
    if (w.status != IBV_WC_WR_FLUSH_ERR) early.push_back(w);
  }
  std::fprintf(stderr, "no completion of QP %u wr_id %llu\n", qpn, static_cast<unsigned long long>(wr_id));
  CHECK(!"the awaited completion arrived");
  ibv_wc none{};
  none.status = IBV_WC_GENERAL_ERR;
  return none;
}

// Two connected QPs of one device: `owner` holds the windows, `peer`
// reaches them (its requests arrive at owner's responder).
struct Pair {
  ibv_qp* owner = nullptr;
  ibv_qp* peer = nullptr;
};

bool connect_pair(Dev& d, ibv_pd* pd, ibv_cq* cq, bool wr_api, Pair* p) {
  p->owner = make_qp(pd, cq, 16, 1, wr_api);
  p->peer = make_qp(pd, cq, 16, 1, wr_api);
  CHECK(p->owner && p->peer);
  if (!p->owner || !p->peer) return false;
  CHECK(to_init(p->owner) == 0 && to_init(p->peer) == 0);
  CHECK(to_rtr(p->owner, p->peer->qp_num, d.gid) == 0 && to_rtr(p->peer, p->owner->qp_num, d.gid) == 0);
  CHECK(to_rts(p->owner) == 0 && to_rts(p->peer) == 0);
  return !failures;
}

void destroy_pair(Pair& p) {
  for (const ibv_wc& w : early)
    std::fprintf(stderr, "unexpected completion: QP %u wr_id %llu status %d opcode %d\n", w.qp_num,
                 static_cast<unsigned long long>(w.wr_id), w.status, w.opcode);
  CHECK(early.empty() && "only awaited completions or flushes");
  early.clear();
  CHECK(ibv_destroy_qp(p.owner) == 0 && ibv_destroy_qp(p.peer) == 0);
}

struct MwBuffers {
  std::vector<char> own, src;  // the owner's window target (and receive buffer), the peer's data
  ibv_mr* own_mr = nullptr;
  ibv_mr* src_mr = nullptr;
  uint64_t window() const { return reinterpret_cast<uintptr_t>(own.data()) + kWindowOffset; }
  static constexpr size_t kWindowOffset = 256, kWindowBytes = 1024, kMessage = 512;
};

// The owner binds `mw` on its QP: IBV_WR_BIND_MW with the new rkey, signaled.
bool bind_type2(Pair& p, ibv_cq* cq, MwBuffers& b, ibv_mw* mw, uint32_t rkey, bool wr_api, uint64_t wr_id) {
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_BIND_MW;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.bind_mw.mw = mw;
  wr.bind_mw.rkey = rkey;
  wr.bind_mw.bind_info = {b.own_mr, b.window(), MwBuffers::kWindowBytes, IBV_ACCESS_REMOTE_WRITE};
  CHECK(post_one(p.owner, wr, wr_api) == 0);
  const ibv_wc w = await_wc(cq, p.owner->qp_num, wr_id);
  CHECK(w.status == IBV_WC_SUCCESS && w.opcode == IBV_WC_BIND_MW);
  if (w.status != IBV_WC_SUCCESS) return false;
  mw->rkey = rkey;  // IBV_WR_BIND_MW leaves the window's new rkey to the application
  return true;
}

// The peer writes kMessage bytes (a pattern of `seed`) into the window
// through `rkey`; the status of its completion. On success the window
// holds the pattern and the bytes around it are untouched.
ibv_wc_status write_through(Pair& p, ibv_cq* cq, MwBuffers& b, uint32_t rkey, int seed, bool wr_api,
                            uint64_t wr_id) {
  for (size_t k = 0; k < MwBuffers::kMessage; ++k) b.src[k] = static_cast<char>(seed * 31 + k);
  std::memset(b.own.data(), 0, b.own.size());
  ibv_sge sg{reinterpret_cast<uintptr_t>(b.src.data()), static_cast<uint32_t>(MwBuffers::kMessage), b.src_mr->lkey};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = &sg;
  wr.num_sge = 1;
  wr.wr.rdma.remote_addr = b.window() + 64;
  wr.wr.rdma.rkey = rkey;
  CHECK(post_one(p.peer, wr, wr_api) == 0);
  const ibv_wc w = await_wc(cq, p.peer->qp_num, wr_id);
  if (w.status == IBV_WC_SUCCESS) {
    CHECK(w.opcode == IBV_WC_RDMA_WRITE);
    const char* at = b.own.data() + MwBuffers::kWindowOffset + 64;
    CHECK(std::memcmp(at, b.src.data(), MwBuffers::kMessage) == 0);
    size_t outside = 0;
    for (size_t k = 0; k < b.own.size(); ++k)
      if (b.own[k] && (b.own.data() + k < at || b.own.data() + k >= at + MwBuffers::kMessage)) ++outside;
    CHECK(outside == 0);
  } else {
    CHECK(std::all_of(b.own.begin(), b.own.end(), [](char c) { return c == 0; }));  // nothing landed
  }
  return w.status;
}

// Type 2, part 1: bind, WRITE through it, LOCAL_INV, a WRITE through it fails.
void check_mw_local_inv(Dev& d, ibv_pd* pd, ibv_cq* cq, MwBuffers& b, ibv_mw* mw, bool wr_api) {
  Pair p;
  if (!connect_pair(d, pd, cq, wr_api, &p)) return;
  const uint32_t rkey = ibv_inc_rkey(mw->rkey);
  if (bind_type2(p, cq, b, mw, rkey, wr_api, 1)) {
    CHECK(write_through(p, cq, b, rkey, 1, wr_api, 2) == IBV_WC_SUCCESS);
    ibv_send_wr inv{};
    inv.wr_id = 3;
    inv.opcode = IBV_WR_LOCAL_INV;
    inv.send_flags = IBV_SEND_SIGNALED;
    inv.invalidate_rkey = rkey;
    CHECK(post_one(p.owner, inv, wr_api) == 0);
    const ibv_wc w = await_wc(cq, p.owner->qp_num, 3);
    CHECK(w.status == IBV_WC_SUCCESS && w.opcode == IBV_WC_LOCAL_INV);
    CHECK(write_through(p, cq, b, rkey, 2, wr_api, 4) == IBV_WC_REM_ACCESS_ERR);
  }
  destroy_pair(p);
}

// Type 2, part 2: bound again (a new key byte) on a new pair, WRITE through
// it, the peer's SEND_WITH_INV of its rkey (the receiver sees WITH_INV and
// the rkey), then a WRITE through it fails.
void check_mw_send_with_inv(Dev& d, ibv_pd* pd, ibv_cq* cq, MwBuffers& b, ibv_mw* mw, bool wr_api) {
  Pair p;
  if (!connect_pair(d, pd, cq, wr_api, &p)) return;
  const uint32_t rkey = ibv_inc_rkey(mw->rkey);
  if (bind_type2(p, cq, b, mw, rkey, wr_api, 11)) {
    CHECK(write_through(p, cq, b, rkey, 3, wr_api, 12) == IBV_WC_SUCCESS);
    // The receive buffer: the owner's bytes past the window.
    char* rbuf = b.own.data() + MwBuffers::kWindowOffset + MwBuffers::kWindowBytes;
    ibv_sge rs{reinterpret_cast<uintptr_t>(rbuf), static_cast<uint32_t>(MwBuffers::kMessage), b.own_mr->lkey};
    ibv_recv_wr rw{};
    rw.wr_id = 13;
    rw.sg_list = &rs;
    rw.num_sge = 1;
    ibv_recv_wr* bad_r = nullptr;
    CHECK(ibv_post_recv(p.owner, &rw, &bad_r) == 0);
    std::memcpy(b.src.data(), "invalidate this window", 23);
    ibv_sge ss{reinterpret_cast<uintptr_t>(b.src.data()), 23, b.src_mr->lkey};
    ibv_send_wr sw{};
    sw.wr_id = 14;
    sw.opcode = IBV_WR_SEND_WITH_INV;
    sw.send_flags = IBV_SEND_SIGNALED;
    sw.sg_list = &ss;
    sw.num_sge = 1;
    sw.invalidate_rkey = rkey;
    CHECK(post_one(p.peer, sw, wr_api) == 0);
    const ibv_wc s = await_wc(cq, p.peer->qp_num, 14);
    CHECK(s.status == IBV_WC_SUCCESS && s.opcode == IBV_WC_SEND);
    const ibv_wc r = await_wc(cq, p.owner->qp_num, 13);
    CHECK(r.status == IBV_WC_SUCCESS && r.opcode == IBV_WC_RECV && r.byte_len == 23);
    CHECK(r.wc_flags & IBV_WC_WITH_INV);
    CHECK(!(r.wc_flags & IBV_WC_WITH_IMM));
    CHECK(r.invalidated_rkey == rkey);
    CHECK(std::memcmp(rbuf, "invalidate this window", 23) == 0);
    CHECK(write_through(p, cq, b, rkey, 4, wr_api, 15) == IBV_WC_REM_ACCESS_ERR);
  }
  destroy_pair(p);
}

// Type 1: ibv_bind_mw (with --wr-api too: it has no ibv_wr_* form) gives
// the window a new rkey; a WRITE through it works; a zero-length bind
// unbinds it and a WRITE through the rkey of that bind fails.
void check_mw_type1(Dev& d, ibv_pd* pd, ibv_cq* cq, MwBuffers& b, bool wr_api) {
  ibv_mw* mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
  CHECK(mw && mw->type == IBV_MW_TYPE_1);
  Pair p;
  if (!mw || !connect_pair(d, pd, cq, wr_api, &p)) return;
  const uint32_t before = mw->rkey;
  ibv_mw_bind refused{20, IBV_SEND_SIGNALED,
                      {b.src_mr, reinterpret_cast<uintptr_t>(b.src.data()), 64, IBV_ACCESS_REMOTE_READ}};
  errno = 0;
  CHECK(ibv_bind_mw(p.owner, mw, &refused) == EINVAL);  // the MR was registered without MW_BIND
  CHECK(mw->rkey == before);
  ibv_mw_bind bind{21, IBV_SEND_SIGNALED, {b.own_mr, b.window(), MwBuffers::kWindowBytes, IBV_ACCESS_REMOTE_WRITE}};
  CHECK(ibv_bind_mw(p.owner, mw, &bind) == 0);
  CHECK(mw->rkey == ibv_inc_rkey(before));
  ibv_wc w = await_wc(cq, p.owner->qp_num, 21);
  CHECK(w.status == IBV_WC_SUCCESS && w.opcode == IBV_WC_BIND_MW);
  CHECK(write_through(p, cq, b, mw->rkey, 5, wr_api, 22) == IBV_WC_SUCCESS);
  ibv_mw_bind unbind{23, IBV_SEND_SIGNALED, {b.own_mr, b.window(), 0, 0}};
  CHECK(ibv_bind_mw(p.owner, mw, &unbind) == 0);
  w = await_wc(cq, p.owner->qp_num, 23);
  CHECK(w.status == IBV_WC_SUCCESS && w.opcode == IBV_WC_BIND_MW);
  CHECK(write_through(p, cq, b, mw->rkey, 6, wr_api, 24) == IBV_WC_REM_ACCESS_ERR);
  destroy_pair(p);
  CHECK(ibv_dealloc_mw(mw) == 0);
}

void check_mw(Dev& d, bool wr_api) {
  ibv_pd* pd = ibv_alloc_pd(d.ctx);
  ibv_cq* cq = ibv_create_cq(d.ctx, 64, nullptr, nullptr, 0);
  MwBuffers b;
  b.own.assign(4096, 0);
  b.src.assign(4096, 0);
  CHECK(pd && cq);
  if (!pd || !cq) return;
  CHECK(d.attr.max_mw > 0);
  errno = 0;
  CHECK(ibv_alloc_mw(pd, static_cast<ibv_mw_type>(3)) == nullptr && errno == EINVAL);
  b.own_mr = ibv_reg_mr(pd, b.own.data(), b.own.size(),
                        IBV_ACCESS_MW_BIND | IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  b.src_mr = ibv_reg_mr(pd, b.src.data(), b.src.size(), IBV_ACCESS_LOCAL_WRITE);
  ibv_mw* mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
  CHECK(b.own_mr && b.src_mr && mw);
  if (!b.own_mr || !b.src_mr || !mw) return;
  CHECK(mw->type == IBV_MW_TYPE_2 && mw->pd == pd);
  check_mw_local_inv(d, pd, cq, b, mw, wr_api);
  if (!failures) check_mw_send_with_inv(d, pd, cq, b, mw, wr_api);
  if (!failures) check_mw_type1(d, pd, cq, b, wr_api);
  CHECK(ibv_dealloc_mw(mw) == 0);
  CHECK(ibv_destroy_cq(cq) == 0);
  CHECK(ibv_dereg_mr(b.own_mr) == 0 && ibv_dereg_mr(b.src_mr) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
}

// Address handles: one to the port's own GID (the loopback MAC) and one to a
// link-local GID (its MAC from the EUI-64), then every refusal with the errno
// Linux 6.1 answers for a RoCE port.
void check_ah(Dev& d) {
  ibv_pd* pd = ibv_alloc_pd(d.ctx);
  CHECK(pd != nullptr);
  if (!pd) return;
  CHECK(d.attr.max_ah > 0);
  ibv_ah_attr a{};
  a.is_global = 1;
  a.port_num = 1;
  a.sl = 3;
  a.grh.dgid = d.gid;
  a.grh.sgid_index = kGid;
  a.grh.hop_limit = 64;
  a.grh.traffic_class = 0x68;
  ibv_ah* own = ibv_create_ah(pd, &a);
  CHECK(own && own->pd == pd && own->context == d.ctx);
  ibv_ah_attr ll = a;
  static const uint8_t kLinkLocal[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};
  std::memcpy(ll.grh.dgid.raw, kLinkLocal, 16);
  ll.grh.sgid_index = 1;
  ibv_ah* link = ibv_create_ah(pd, &ll);
  CHECK(link != nullptr);
  struct Bad {
    const char* what;
    void (*edit)(ibv_ah_attr*);
    int err;
  };
  const Bad bad[] = {
      {"port 2", [](ibv_ah_attr* x) { x->port_num = 2; }, EINVAL},
      {"no GRH", [](ibv_ah_attr* x) { x->is_global = 0; }, EINVAL},
      {"sgid_index past the table", [](ibv_ah_attr* x) { x->grh.sgid_index = 200; }, EINVAL},
      {"an unused GID entry", [](ibv_ah_attr* x) { x->grh.sgid_index = 15; }, ENODATA},
      {"nobody has the address", [](ibv_ah_attr* x) { x->grh.dgid.raw[15] ^= 0x5a; }, ETIMEDOUT},
  };
  for (const Bad& b : bad) {
    ibv_ah_attr x = a;
    b.edit(&x);
    errno = 0;
    ibv_ah* ah = ibv_create_ah(pd, &x);
    if (ah || errno != b.err) {
      std::fprintf(stderr, "FAIL ibv_create_ah with %s: %s, errno %d (want %d)\n", b.what, ah ? "created" : "refused",
                   errno, b.err);
      ++failures;
      if (ah) ibv_destroy_ah(ah);
    }
  }
  CHECK(own && ibv_destroy_ah(own) == 0);
  CHECK(link && ibv_destroy_ah(link) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
}

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  int iters = 100;
  size_t size = 4096;
  bool events = false, wr_api = false;
  int sges = 1;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iters" && i + 1 < argc)
      iters = std::atoi(argv[++i]);
    else if (a == "--size" && i + 1 < argc)
      size = static_cast<size_t>(std::atol(argv[++i]));
    else if (a == "--events")
      events = true;
    else if (a == "--wr-api")
      wr_api = true;
    else if (a == "--sges" && i + 1 < argc)
      sges = std::atoi(argv[++i]);
    else
      mode.clear();
  }
  if (mode != "errno" && mode != "loopback" && mode != "mw" && mode != "ah")
    return std::fprintf(stderr,
                        "usage: verbs_check errno | loopback [--iters N] [--size S] [--events] [--wr-api] [--sges K] | "
                        "mw [--wr-api] | ah\n"),
           2;
  Dev d;
  if (!open_dev(&d)) return std::fprintf(stderr, "verbs_check: cannot open rocenic0 or read GID %d\n", kGid), 1;
  if (mode == "errno")
    check_errno(d);
  else if (mode == "mw")
    check_mw(d, wr_api);
  else if (mode == "ah")
    check_ah(d);
  else
    check_loopback(d, iters, size, events, wr_api, sges);
  CHECK(ibv_close_device(d.ctx) == 0);
  std::printf("verbs_check %s: %s\n", mode.c_str(), failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
