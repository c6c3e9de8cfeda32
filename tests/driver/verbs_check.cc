// Verbs through libibverbs against the real engine, run under rocenic-run.
//
//   verbs_check errno                       bad arguments get the errno real providers give
//   verbs_check loopback [--iters N] [--size S] [--events] [--wr-api]
//                                           two QPs of one device exchange SENDs, SENDs with
//                                           immediate and RDMA WRITEs with immediate
//                                           (--wr-api: QPs from ibv_create_qp_ex, posted with
//                                           ibv_wr_*, as perftest does by default)
//
// Needs an IPv4 --ip (GID index 3 is its RoCE v2 entry). Prints each failed
// check and exits 1 if any failed; "verbs_check <mode>: ok" otherwise.
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <poll.h>
#include <unistd.h>

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
    x.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
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
  CHECK(qp_errno([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_UD; }) == EOPNOTSUPP);

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

void check_loopback(Dev& d, int iters, size_t size, bool events, bool wr_api) {
  ibv_pd* pd = ibv_alloc_pd(d.ctx);
  ibv_comp_channel* ch = events ? ibv_create_comp_channel(d.ctx) : nullptr;
  ibv_cq* cq = ibv_create_cq(d.ctx, 64, nullptr, ch, 0);
  std::vector<char> a(size + 64), b(size + 64);
  const int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  ibv_mr* ma = ibv_reg_mr(pd, a.data(), a.size(), acc);
  ibv_mr* mb = ibv_reg_mr(pd, b.data(), b.size(), acc);
  ibv_qp* qa = make_qp(pd, cq, 64, 2, wr_api);
  ibv_qp* qb = make_qp(pd, cq, 64, 2, wr_api);
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
    ibv_sge rs{reinterpret_cast<uintptr_t>(dst.data()), static_cast<uint32_t>(size), (ab ? mb : ma)->lkey};
    ibv_recv_wr rw{};
    rw.wr_id = 1000 + i;
    rw.sg_list = &rs;
    rw.num_sge = 1;
    ibv_recv_wr* bad_r;
    CHECK(ibv_post_recv(to, &rw, &bad_r) == 0);
    ibv_sge ss{reinterpret_cast<uintptr_t>(src.data()), static_cast<uint32_t>(size), (ab ? ma : mb)->lkey};
    ibv_send_wr sw{};
    sw.wr_id = i;
    sw.sg_list = &ss;
    sw.num_sge = 1;
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
      ibv_wr_set_sge(x, ss.lkey, ss.addr, ss.length);
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

}  // namespace

int main(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  int iters = 100;
  size_t size = 4096;
  bool events = false, wr_api = false;
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
    else
      mode.clear();
  }
  if (mode != "errno" && mode != "loopback")
    return std::fprintf(stderr, "usage: verbs_check errno | loopback [--iters N] [--size S] [--events] [--wr-api]\n"), 2;
  Dev d;
  if (!open_dev(&d)) return std::fprintf(stderr, "verbs_check: cannot open rocenic0 or read GID %d\n", kGid), 1;
  if (mode == "errno")
    check_errno(d);
  else
    check_loopback(d, iters, size, events, wr_api);
  CHECK(ibv_close_device(d.ctx) == 0);
  std::printf("verbs_check %s: %s\n", mode.c_str(), failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
