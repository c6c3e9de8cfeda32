// The provider's verbs on the model engine (observed_device.h), in one
// process: errno of every bad argument, the engine commands behind each
// verb, rings, phases and consumer indices, completion channels and CQ
// errors, DMA windows, and the wire with its neighbour table.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "addresses.h"
#include "observed_device.h"
#include "engine_limits.h"
#include "provider.h"
#include "wire.h"

// The shim's export, provided here: completion channels are pipes whose write end we keep.
namespace {
std::mutex g_channels_mu;
std::map<int, int> g_channels;  // read end -> write end
}  // namespace
extern "C" __attribute__((visibility("default"))) int rocenic_shim_comp_channel_writer(int fd) {
  std::lock_guard<std::mutex> l(g_channels_mu);
  auto it = g_channels.find(fd);
  return it == g_channels.end() ? -1 : it->second;
}

namespace rocenic::driver {
namespace {

using test::ObservedDevice;

Config test_config(const std::string& wire = "default") {
  Config c;
  EXPECT_TRUE(parse_mac("02:12:34:56:78:9a", &c.mac));
  c.mtu = 1024;
  c.node_guid = node_guid_of(c.mac);
  c.wire = wire;
  IpAddr v4, v6;
  std::string err;
  EXPECT_TRUE(parse_ip("10.1.2.3", &v4, &err));
  EXPECT_TRUE(parse_ip("2001:db8::7", &v6, &err));
  c.gids = gid_table(c.mac, {v4, v6});
  return c;
}

// A context as libibverbs would hand the provider one, around the model engine.
class Verbs : public ::testing::Test {
 protected:
  void SetUp() override { open(false); }
  void TearDown() override { close(); }

  void open(bool wire) {
    auto dev = std::make_unique<ObservedDevice>();
    dev_ = dev.get();
    std::string err;
    int errnum = 0;
    Engine::OpenOptions o;
    o.join_wire = wire;
    eng_ = Engine::open_device(std::move(dev), test_config(wire ? "vt" : "default"), o, &err, &errnum);
    ASSERT_TRUE(eng_) << err;
    ASSERT_EQ(pipe2(async_, O_CLOEXEC), 0);
    rc_ = static_cast<RocenicContext*>(std::calloc(1, sizeof(RocenicContext)));
    rc_->state = new ContextState;
    rc_->state->engine = eng_.get();
    rc_->state->async_event_wr = async_[1];
    ctx_ = &rc_->vctx.context;
    ctx_->num_comp_vectors = 1;
    ctx_->async_fd = async_[0];
  }
  void close() {
    eng_.reset();
    if (rc_) {
      delete rc_->state;
      std::free(rc_);
      rc_ = nullptr;
      ::close(async_[0]);
      ::close(async_[1]);
    }
  }

  ibv_cq* cq(int cqe, ibv_comp_channel* ch = nullptr) {
    ibv_cq* c = create_cq(ctx_, cqe, ch, 0);
    if (c) verbs_init_cq(c, ctx_, ch, nullptr);  // what ibv_create_cq does after the provider
    return c;
  }
  ibv_qp* qp(ibv_pd* pd, ibv_cq* scq, ibv_cq* rcq, uint32_t wr = 16, int sig_all = 0) {
    ibv_qp_init_attr a{};
    a.send_cq = scq;
    a.recv_cq = rcq;
    a.qp_type = IBV_QPT_RC;
    a.sq_sig_all = sig_all;
    a.cap.max_send_wr = a.cap.max_recv_wr = wr;
    a.cap.max_send_sge = a.cap.max_recv_sge = 2;
    return create_qp(pd, &a);
  }
  // ibv_modify_qp: the provider, then libibverbs records the state.
  int modify(ibv_qp* q, ibv_qp_attr& a, int mask) {
    const int e = modify_qp(q, &a, mask);
    if (!e && (mask & IBV_QP_STATE)) q->state = a.qp_state;
    return e;
  }
  int to_init(ibv_qp* q, int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qp_access_flags = access;
    return modify(q, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  }
  int to_rtr(ibv_qp* q, uint32_t dest, const char* dgid_ip = "10.1.2.3") {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = dest;
    a.rq_psn = 0;
    a.max_dest_rd_atomic = 1;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.port_num = 1;
    a.ah_attr.grh.sgid_index = 3;
    a.ah_attr.grh.hop_limit = 1;
    IpAddr ip;
    std::string err;
    EXPECT_TRUE(parse_ip(dgid_ip, &ip, &err));
    std::memcpy(a.ah_attr.grh.dgid.raw, ip.bytes.data(), 16);
    return modify(q, a,
                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
  }
  int to_rts(ibv_qp* q, uint8_t max_rd_atomic = 1) {
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.max_rd_atomic = max_rd_atomic;
    return modify(q, a,
                  IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                      IBV_QP_MAX_QP_RD_ATOMIC);
  }
  // Two connected QPs of this device (loopback), with their CQs.
  void connect_pair(ibv_pd* pd, ibv_cq* c, ibv_qp** a, ibv_qp** b, uint32_t wr = 16) {
    *a = qp(pd, c, c, wr);
    *b = qp(pd, c, c, wr);
    ASSERT_TRUE(*a && *b);
    connect(*a, *b);
  }
  // Two QPs to RTS, each the other's destination.
  void connect(ibv_qp* a, ibv_qp* b, int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE) {
    ASSERT_EQ(to_init(a, access), 0);
    ASSERT_EQ(to_init(b, access), 0);
    ASSERT_EQ(to_rtr(a, b->qp_num), 0);
    ASSERT_EQ(to_rtr(b, a->qp_num), 0);
    ASSERT_EQ(to_rts(a), 0);
    ASSERT_EQ(to_rts(b), 0);
  }
  // One QP whose destination is itself, to RTS.
  void self_connect(ibv_qp* q, int access) {
    ASSERT_EQ(to_init(q, access), 0);
    ASSERT_EQ(to_rtr(q, q->qp_num), 0);
    ASSERT_EQ(to_rts(q), 0);
  }
  // An RC QP from create_qp_ex with these send_ops_flags (the ibv_wr_* API).
  ibv_qp* qp_ex(ibv_pd* pd, ibv_cq* c, uint64_t ops, uint32_t wr = 16) {
    ibv_qp_init_attr_ex x{};
    x.send_cq = x.recv_cq = c;
    x.qp_type = IBV_QPT_RC;
    x.cap.max_send_wr = x.cap.max_recv_wr = wr;
    x.cap.max_send_sge = x.cap.max_recv_sge = 2;
    x.pd = pd;
    x.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    x.send_ops_flags = ops;
    return create_qp_ex(ctx_, &x);
  }
  // Polls until n completions arrived (the simulation thread delivers them).
  std::vector<ibv_wc> poll(ibv_cq* c, size_t n) {
    std::vector<ibv_wc> out;
    for (int spin = 0; spin < 200000 && out.size() < n; ++spin) {
      ibv_wc wc[8];
      const int got = poll_cq(c, 8, wc);
      EXPECT_GE(got, 0);
      out.insert(out.end(), wc, wc + std::max(got, 0));
    }
    return out;
  }
  int post_one_send(ibv_qp* q, ibv_mr* mr, void* buf, uint32_t len, ibv_wr_opcode op = IBV_WR_SEND,
                    unsigned flags = IBV_SEND_SIGNALED, uint64_t wr_id = 1) {
    ibv_sge sg{reinterpret_cast<uintptr_t>(buf), len, mr->lkey};
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sg;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = flags;
    ibv_send_wr* bad = nullptr;
    return post_send(q, &wr, &bad);
  }
  int post_one_recv(ibv_qp* q, ibv_mr* mr, void* buf, uint32_t len, uint64_t wr_id = 2) {
    ibv_sge sg{reinterpret_cast<uintptr_t>(buf), len, mr->lkey};
    ibv_recv_wr wr{};
    wr.wr_id = wr_id;
    wr.sg_list = &sg;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    return post_recv(q, &wr, &bad);
  }

  std::unique_ptr<Engine> eng_;
  ObservedDevice* dev_ = nullptr;
  RocenicContext* rc_ = nullptr;
  ibv_context* ctx_ = nullptr;
  int async_[2] = {-1, -1};
};

TEST_F(Verbs, ProtectionDomainsComeFromTheEngineAndStopAtItsLimit) {
  std::vector<ibv_pd*> pds;
  for (uint32_t i = 0; i < eng_->caps().max_pd; ++i) {
    pds.push_back(alloc_pd(ctx_));
    ASSERT_TRUE(pds.back());
    EXPECT_EQ(to_pd(pds.back())->pdn, i);
  }
  errno = 0;
  EXPECT_EQ(alloc_pd(ctx_), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  static char buf[64];
  ibv_mr* mr = reg_mr(pds[1], buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_TRUE(mr);
  EXPECT_EQ(dealloc_pd(pds[1]), EBUSY) << "an MR still uses it";
  EXPECT_EQ(dereg_mr(container_of<verbs_mr>(mr, 0)), 0);
  for (ibv_pd* pd : pds) EXPECT_EQ(dealloc_pd(pd), 0);
}

TEST_F(Verbs, RegMrRefusesBadAccessFlagsAndRangesLikeTheKernel) {
  ibv_pd* pd = alloc_pd(ctx_);
  ASSERT_TRUE(pd);
  static char buf[8192];
  const uint64_t va = reinterpret_cast<uintptr_t>(buf);
  auto reg = [&](void* a, size_t len, uint64_t iova, int access) { return reg_mr(pd, a, len, iova, access); };
  const struct {
    int access;
    int err;
  } bad[] = {
      {IBV_ACCESS_REMOTE_WRITE, EINVAL},                          // remote write needs local write (IBTA)
      {IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_REMOTE_READ, EINVAL},  // so does remote atomic
      {1 << 14, EINVAL},                                           // not an access flag
      {IBV_ACCESS_ON_DEMAND | IBV_ACCESS_LOCAL_WRITE, EOPNOTSUPP},  // no ODP
      {IBV_ACCESS_ZERO_BASED, EOPNOTSUPP},
  };
  const uint32_t commands = dev_->commands;
  for (const auto& b : bad) {
    errno = 0;
    EXPECT_EQ(reg(buf, 64, va, b.access), nullptr) << b.access;
    EXPECT_EQ(errno, b.err) << b.access;
  }
  EXPECT_EQ(dev_->commands, commands) << "refused before any command";
  errno = 0;
  EXPECT_EQ(reg(buf, 0, va, 0), nullptr);
  EXPECT_EQ(errno, EINVAL);
  errno = 0;
  EXPECT_EQ(reg(buf, 64, va + 1, 0), nullptr) << "IOVA page offset differs from the buffer's";
  EXPECT_EQ(errno, EINVAL);
  void* gone = mmap(nullptr, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(gone, MAP_FAILED);
  munmap(static_cast<char*>(gone) + 4096, 4096);
  errno = 0;
  EXPECT_EQ(reg(gone, 3 * 4096, reinterpret_cast<uintptr_t>(gone), 0), nullptr) << "a hole in the range";
  EXPECT_EQ(errno, EFAULT);
  munmap(gone, 4096);
  munmap(static_cast<char*>(gone) + 8192, 4096);

  // Good: keys from the engine, the relaxed-ordering hint and MW_BIND accepted.
  ibv_mr* mr = reg(buf + 100, 8000, va + 100,
                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                       IBV_ACCESS_RELAXED_ORDERING | IBV_ACCESS_MW_BIND);
  ASSERT_TRUE(mr);
  EXPECT_EQ(mr->lkey, mr->rkey);
  EXPECT_EQ(mr->lkey & 0xff, 1u) << "key byte 1 on the first registration of an index";
  EXPECT_EQ(mr->addr, buf + 100);
  EXPECT_EQ(mr->length, 8000u);
  EXPECT_EQ(dereg_mr(container_of<verbs_mr>(mr, 0)), 0);
  EXPECT_EQ(dealloc_pd(pd), 0);
}

TEST_F(Verbs, RegMrWritesTheMttSixPagesAtATimeAndRunsOutLikeAnyResource) {
  ibv_pd* pd = alloc_pd(ctx_);
  const size_t pages = kMttDepth;  // the whole MTT
  void* big = mmap(nullptr, pages * kPageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(big, MAP_FAILED);
  const uint32_t before = dev_->commands;
  ibv_mr* mr = reg_mr(pd, big, pages * kPageSize, reinterpret_cast<uintptr_t>(big), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_TRUE(mr);
  EXPECT_EQ(dev_->commands - before, (pages + 5) / 6 + 1) << "WRITE_MTT x ceil(pages/6), then REG_MR";
  static char small[16];
  errno = 0;
  EXPECT_EQ(reg_mr(pd, small, sizeof small, reinterpret_cast<uintptr_t>(small), 0), nullptr);
  EXPECT_EQ(errno, ENOMEM) << "no MTT entry left";
  EXPECT_EQ(dereg_mr(container_of<verbs_mr>(mr, 0)), 0);
  ibv_mr* again = reg_mr(pd, small, sizeof small, reinterpret_cast<uintptr_t>(small), 0);
  ASSERT_TRUE(again) << "the range came back";
  EXPECT_EQ(dereg_mr(container_of<verbs_mr>(again, 0)), 0);
  errno = 0;
  EXPECT_EQ(reg_mr(pd, big, (pages + 1) * kPageSize, reinterpret_cast<uintptr_t>(big), 0), nullptr);
  EXPECT_EQ(errno, ENOMEM) << "more pages than the MTT holds";
  munmap(big, pages * kPageSize);
  dealloc_pd(pd);
}

TEST_F(Verbs, CreateCqChecksSizeAndVectorAndRoundsUp) {
  for (int bad : {0, -1, static_cast<int>(eng_->caps().max_cqe) + 1}) {
    errno = 0;
    EXPECT_EQ(create_cq(ctx_, bad, nullptr, 0), nullptr) << bad;
    EXPECT_EQ(errno, EINVAL) << bad;
  }
  errno = 0;
  EXPECT_EQ(create_cq(ctx_, 4, nullptr, 1), nullptr) << "one completion vector";
  EXPECT_EQ(errno, EINVAL);
  std::vector<ibv_cq*> cqs;
  for (uint32_t i = 0; i < eng_->caps().max_cq; ++i) {
    cqs.push_back(cq(i == 0 ? 5 : 1));
    ASSERT_TRUE(cqs.back());
  }
  EXPECT_EQ(cqs[0]->cqe, 8) << "2^n entries, at least the asked";
  EXPECT_EQ(create_cq(ctx_, 1, nullptr, 0), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  for (ibv_cq* c : cqs) EXPECT_EQ(destroy_cq(c), 0);
  EXPECT_EQ(cq(static_cast<int>(eng_->caps().max_cqe))->cqe, static_cast<int>(eng_->caps().max_cqe));
}

TEST_F(Verbs, CreateQpChecksCapsAgainstTheDeviceAndTypes) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  const Caps& caps = eng_->caps();
  auto attempt = [&](auto tweak) {
    ibv_qp_init_attr a{};
    a.send_cq = a.recv_cq = c;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 4;
    a.cap.max_send_sge = a.cap.max_recv_sge = 1;
    tweak(a);
    errno = 0;
    ibv_qp* q = create_qp(pd, &a);
    const int e = q ? 0 : errno;
    if (q) destroy_qp(q);
    return e;
  };
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_send_wr = caps.max_qp_wr + 1; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_recv_wr = caps.max_qp_wr + 1; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_send_sge = caps.max_sge + 1; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_recv_sge = caps.max_sge + 1; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_inline_data = caps.max_inline + 1; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_UD; }), 0) << "UD QPs exist";
  // a UD send WQE's address vector lies where SGE 2 would: 2 SGEs or 32 inline bytes
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) {
              a.qp_type = IBV_QPT_UD;
              a.cap.max_send_sge = spec::kUdMaxSge + 1;
            }),
            EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) {
              a.qp_type = IBV_QPT_UD;
              a.cap.max_inline_data = spec::kUdMaxInline + 1;
            }),
            EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_RAW_PACKET; }), EOPNOTSUPP);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.qp_type = IBV_QPT_UC; }), 0) << "UC QPs exist";
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.qp_type = static_cast<ibv_qp_type>(77); }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.recv_cq = nullptr; }), EINVAL);
  EXPECT_EQ(attempt([&](ibv_qp_init_attr& a) { a.cap.max_send_wr = caps.max_qp_wr; }), 0);

  ibv_qp_init_attr a{};
  a.send_cq = a.recv_cq = c;
  a.qp_type = IBV_QPT_RC;
  a.cap.max_send_wr = 5;
  a.cap.max_recv_wr = 1;
  a.cap.max_inline_data = 10;
  ibv_qp* q = create_qp(pd, &a);
  ASSERT_TRUE(q);
  EXPECT_GE(q->qp_num, 1u) << "QPN 0 and 1 are special: the engine starts at 1";
  EXPECT_EQ(a.cap.max_send_wr, 8u);
  EXPECT_EQ(a.cap.max_recv_wr, 1u);
  EXPECT_EQ(a.cap.max_send_sge, caps.max_sge);
  EXPECT_EQ(a.cap.max_inline_data, caps.max_inline);
  EXPECT_EQ(q->state, IBV_QPS_RESET);
  EXPECT_EQ(destroy_cq(c), EBUSY) << "a QP uses it";
  EXPECT_EQ(dealloc_pd(pd), EBUSY);
  ibv_qp_attr qa{};
  ibv_qp_init_attr qi{};
  EXPECT_EQ(query_qp(q, &qa, IBV_QP_CAP, &qi), 0);
  EXPECT_EQ(qi.cap.max_inline_data, caps.max_inline) << "what ibv_rc_pingpong asks";
  EXPECT_EQ(qa.qp_state, IBV_QPS_RESET);
  EXPECT_EQ(destroy_qp(q), 0);
  EXPECT_EQ(destroy_cq(c), 0);
  EXPECT_EQ(dealloc_pd(pd), 0);
}

TEST_F(Verbs, ModifyQpMapsTheEnginesVerdictToErrno) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  ibv_qp* q = qp(pd, c, c);
  ASSERT_TRUE(q);
  EXPECT_EQ(to_rtr(q, 5), EINVAL) << "RESET -> RTR is not a transition";
  EXPECT_EQ(to_rts(q), EINVAL) << "RESET -> RTS neither";
  ibv_qp_attr a{};
  a.qp_state = IBV_QPS_INIT;
  a.port_num = 1;
  EXPECT_EQ(modify(q, a, IBV_QP_STATE | IBV_QP_PORT), EINVAL) << "PKEY_INDEX and ACCESS_FLAGS required";
  EXPECT_EQ(modify(q, a, IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL) << "no STATE";
  a.port_num = 2;
  EXPECT_EQ(modify(q, a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
  a.port_num = 1;
  a.qp_access_flags = IBV_ACCESS_ZERO_BASED;
  EXPECT_EQ(modify(q, a, IBV_QP_STATE | IBV_QP_PORT | IBV_QP_PKEY_INDEX | IBV_QP_ACCESS_FLAGS), EINVAL);
  ASSERT_EQ(to_init(q), 0);
  EXPECT_EQ(q->state, IBV_QPS_INIT);

  ibv_qp_attr r{};
  r.qp_state = IBV_QPS_RTR;
  r.path_mtu = static_cast<ibv_mtu>(7);
  r.ah_attr.is_global = 1;
  r.ah_attr.port_num = 1;
  r.ah_attr.grh.sgid_index = 3;
  std::memcpy(r.ah_attr.grh.dgid.raw, eng_->config().gids[2].gid.data(), 16);
  const int rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  EXPECT_EQ(modify(q, r, rtr), EINVAL) << "path_mtu 7";
  r.path_mtu = IBV_MTU_1024;
  r.ah_attr.grh.sgid_index = 9;
  EXPECT_EQ(modify(q, r, rtr), EINVAL) << "GID 9 is not in use";
  r.ah_attr.grh.sgid_index = 3;
  r.ah_attr.is_global = 0;
  EXPECT_EQ(modify(q, r, rtr), EINVAL) << "RoCE needs the GRH";
  r.ah_attr.is_global = 1;
  r.max_dest_rd_atomic = 17;
  EXPECT_EQ(modify(q, r, rtr), EINVAL) << "max_dest_rd_atomic above max_qp_rd_atom (16)";
  r.max_dest_rd_atomic = 16;
  testing::internal::CaptureStderr();
  EXPECT_EQ(to_rtr(q, 1, "10.9.9.9"), ETIMEDOUT) << "nobody has that address";
  const std::string msg = testing::internal::GetCapturedStderr();
  EXPECT_NE(msg.find("no member of wire 'default' has address 10.9.9.9"), std::string::npos) << msg;
  EXPECT_EQ(q->state, IBV_QPS_INIT) << "still INIT";
  ASSERT_EQ(to_rtr(q, q->qp_num), 0);
  EXPECT_EQ(to_rts(q, 17), EINVAL) << "max_rd_atomic above max_qp_rd_atom (16)";
  EXPECT_EQ(q->state, IBV_QPS_RTR) << "still RTR";
  ASSERT_EQ(to_rts(q, 16), 0);
  ibv_qp_attr cur{};
  cur.qp_state = IBV_QPS_RTS;
  cur.cur_qp_state = IBV_QPS_INIT;
  EXPECT_EQ(modify(q, cur, IBV_QP_STATE | IBV_QP_CUR_STATE), EINVAL) << "the QP is not in INIT";
  cur.cur_qp_state = IBV_QPS_RTS;
  EXPECT_EQ(modify(q, cur, IBV_QP_STATE | IBV_QP_CUR_STATE), 0) << "RTS -> RTS";

  ibv_qp_attr got{};
  ibv_qp_init_attr init{};
  ASSERT_EQ(query_qp(q, &got, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU, &init), 0);
  EXPECT_EQ(got.qp_state, IBV_QPS_RTS);
  EXPECT_EQ(got.dest_qp_num, q->qp_num);
  EXPECT_EQ(got.path_mtu, IBV_MTU_1024);
  EXPECT_EQ(got.ah_attr.grh.sgid_index, 3);
  EXPECT_EQ(init.send_cq, c);
  ibv_qp_attr err{};
  err.qp_state = IBV_QPS_ERR;
  EXPECT_EQ(modify(q, err, IBV_QP_STATE), 0) << "any -> ERR";
  err.qp_state = IBV_QPS_RESET;
  EXPECT_EQ(modify(q, err, IBV_QP_STATE), 0) << "any -> RESET";
  EXPECT_EQ(destroy_qp(q), 0);
}

TEST_F(Verbs, PostSendRefusesWhatRealProvidersRefuseAndPointsBadWr) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(64);
  static char buf[4096];
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp* q = qp(pd, c, c, 4);
  ASSERT_TRUE(q && mr);
  ibv_sge sg[spec::kMaxSge + 1];
  for (auto& s : sg) s = ibv_sge{reinterpret_cast<uintptr_t>(buf), 8, mr->lkey};
  ibv_send_wr w[2]{};
  for (auto& x : w) x.sg_list = sg, x.num_sge = 1, x.opcode = IBV_WR_SEND;
  w[0].next = &w[1];
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(to_init(q), 0);
  EXPECT_EQ(post_send(q, w, &bad), EINVAL) << "before RTS";
  EXPECT_EQ(bad, &w[0]);
  ASSERT_EQ(to_rtr(q, q->qp_num), 0);
  ASSERT_EQ(to_rts(q), 0);

  w[1].num_sge = spec::kMaxSge + 1;  // more than the device's 16
  EXPECT_EQ(post_send(q, w, &bad), EINVAL);
  EXPECT_EQ(bad, &w[1]) << "the first was posted, the second is the bad one";
  w[1].num_sge = 1;
  w[1].opcode = IBV_WR_RDMA_READ;
  w[1].send_flags = IBV_SEND_INLINE;
  EXPECT_EQ(post_send(q, &w[1], &bad), EINVAL) << "a READ's SGEs receive: nothing to inline";
  w[1].send_flags = 0;
  w[1].opcode = IBV_WR_ATOMIC_WRITE;
  EXPECT_EQ(post_send(q, &w[1], &bad), EOPNOTSUPP) << "no ATOMIC_WRITE in the engine";
  w[1].opcode = static_cast<ibv_wr_opcode>(99);
  EXPECT_EQ(post_send(q, &w[1], &bad), EINVAL);
  w[1].opcode = IBV_WR_SEND;
  w[1].send_flags = IBV_SEND_INLINE;
  w[1].num_sge = 8;
  sg[7].length = 97 - 7 * 8;  // 97 bytes inline
  EXPECT_EQ(post_send(q, &w[1], &bad), EINVAL);
  sg[7].length = 96 - 7 * 8;
  EXPECT_EQ(post_send(q, &w[1], &bad), 0) << "96 bytes inline, 8 SGEs gathered by the CPU";
  EXPECT_EQ(bad, nullptr);

  // Unsignaled sends never tell the provider they are done: the ring fills.
  eng_->wait_idle(2000);
  ibv_wc wc[8];
  while (poll_cq(c, 8, wc) > 0) {
  }
  ibv_qp* q2 = qp(pd, c, c, 4);
  ASSERT_EQ(to_init(q2), 0);
  ASSERT_EQ(to_rtr(q2, q2->qp_num), 0);
  ASSERT_EQ(to_rts(q2), 0);
  ibv_send_wr u[5]{};
  for (int i = 0; i < 5; ++i) u[i] = ibv_send_wr{}, u[i].sg_list = sg, u[i].num_sge = 0, u[i].opcode = IBV_WR_RDMA_WRITE;
  for (int i = 0; i < 4; ++i) u[i].next = &u[i + 1];
  EXPECT_EQ(post_send(q2, u, &bad), ENOMEM) << "a ring of 4";
  EXPECT_EQ(bad, &u[4]);
}

TEST_F(Verbs, PostRecvChecksStateSgesAndRoom) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  static char buf[64];
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp* q = qp(pd, c, c, 2);
  ibv_sge sg[spec::kMaxSge + 1];
  for (auto& s : sg) s = ibv_sge{reinterpret_cast<uintptr_t>(buf), 64, mr->lkey};
  ibv_recv_wr w[3]{};
  for (auto& x : w) x.sg_list = sg, x.num_sge = 1;
  w[0].next = &w[1];
  w[1].next = &w[2];
  ibv_recv_wr* bad = nullptr;
  EXPECT_EQ(post_recv(q, w, &bad), EINVAL) << "RESET";
  EXPECT_EQ(bad, &w[0]);
  ASSERT_EQ(to_init(q), 0);
  w[1].num_sge = spec::kMaxSge + 1;
  EXPECT_EQ(post_recv(q, w, &bad), EINVAL);
  EXPECT_EQ(bad, &w[1]);
  w[1].num_sge = 1;
  EXPECT_EQ(post_recv(q, &w[1], &bad), ENOMEM) << "ring of 2: one posted above, one here, then full";
  EXPECT_EQ(bad, &w[2]);
}

TEST_F(Verbs, SendWriteAndImmediateBetweenTwoQpsOfOneDevice) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(32);
  static char src[256], dst[256], tgt[256];
  const int rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  ibv_mr* ms = reg_mr(pd, src, sizeof src, reinterpret_cast<uintptr_t>(src), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* md = reg_mr(pd, dst, sizeof dst, reinterpret_cast<uintptr_t>(dst), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* mt = reg_mr(pd, tgt, sizeof tgt, reinterpret_cast<uintptr_t>(tgt), rw);
  ibv_qp *a, *b;
  connect_pair(pd, c, &a, &b);
  std::memcpy(src, "hello, rocenic", 15);
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 77), 0);
  ibv_sge sg{reinterpret_cast<uintptr_t>(src), 15, ms->lkey};
  ibv_send_wr w{};
  w.wr_id = 55;
  w.sg_list = &sg;
  w.num_sge = 1;
  w.opcode = IBV_WR_SEND_WITH_IMM;
  w.send_flags = IBV_SEND_SIGNALED;
  w.imm_data = htonl(0xabcdef01);
  ibv_send_wr* bad;
  ASSERT_EQ(post_send(a, &w, &bad), 0);
  auto wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  const ibv_wc& s = wcs[0].opcode == IBV_WC_SEND ? wcs[0] : wcs[1];
  const ibv_wc& r = wcs[0].opcode == IBV_WC_SEND ? wcs[1] : wcs[0];
  EXPECT_EQ(s.status, IBV_WC_SUCCESS);
  EXPECT_EQ(s.wr_id, 55u);
  EXPECT_EQ(s.qp_num, a->qp_num);
  EXPECT_EQ(r.status, IBV_WC_SUCCESS);
  EXPECT_EQ(r.opcode, IBV_WC_RECV);
  EXPECT_EQ(r.wr_id, 77u);
  EXPECT_EQ(r.byte_len, 15u);
  EXPECT_EQ(r.qp_num, b->qp_num);
  EXPECT_EQ(r.src_qp, a->qp_num);
  EXPECT_TRUE(r.wc_flags & IBV_WC_WITH_IMM);
  EXPECT_EQ(ntohl(r.imm_data), 0xabcdef01u);
  EXPECT_STREQ(dst, "hello, rocenic");

  // RDMA WRITE with immediate: data at the rkey's address, a receive consumed.
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 78), 0);
  sg.length = 5;
  w.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  w.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(tgt + 10);
  w.wr.rdma.rkey = mt->rkey;
  w.imm_data = htonl(7);
  ASSERT_EQ(post_send(a, &w, &bad), 0);
  wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  const ibv_wc& r2 = wcs[0].opcode == IBV_WC_RDMA_WRITE ? wcs[1] : wcs[0];
  EXPECT_EQ(r2.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
  EXPECT_EQ(r2.byte_len, 5u);
  EXPECT_EQ(std::memcmp(tgt + 10, "hello", 5), 0);

  // Inline: the bytes travel in the WQE, which (one inline request) goes
  // through the SQ_BF window with its doorbell.
  std::memcpy(src, "inline!", 8);
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 79), 0);
  w.opcode = IBV_WR_SEND;
  w.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
  sg.length = 8;
  sg.lkey = 0;  // ignored for inline data
  EXPECT_EQ(dev_->bf_doorbells, 0u);
  ASSERT_EQ(post_send(a, &w, &bad), 0);
  EXPECT_EQ(dev_->bf_doorbells, 1u) << "one inline SEND: SQ_BF_DB";
  wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_STREQ(dst, "inline!");
  EXPECT_EQ(dev_->dma_refused(), 0u);
}

// UD between two QPs of one device (loopback) through both post APIs: a
// datagram to the AH's address lands after the 40-byte GRH, the completion
// names the sender's QP and says IBV_WC_GRH; what UD cannot carry is
// refused before the queue (EINVAL), and a WR Q_Key other than the
// receiver's loses the datagram.
TEST_F(Verbs, UdDatagramsThroughAnAddressHandleWithBothPostApis) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(32);
  static char src[256], dst[512];
  ibv_mr* ms = reg_mr(pd, src, sizeof src, reinterpret_cast<uintptr_t>(src), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* md = reg_mr(pd, dst, sizeof dst, reinterpret_cast<uintptr_t>(dst), IBV_ACCESS_LOCAL_WRITE);
  auto ud_qp = [&](bool ex) {
    ibv_qp_init_attr_ex x{};
    x.send_cq = x.recv_cq = c;
    x.qp_type = IBV_QPT_UD;
    x.cap.max_send_wr = x.cap.max_recv_wr = 8;
    x.cap.max_send_sge = x.cap.max_recv_sge = 1;
    x.pd = pd;
    x.comp_mask = IBV_QP_INIT_ATTR_PD | (ex ? IBV_QP_INIT_ATTR_SEND_OPS_FLAGS : 0);
    x.send_ops_flags = ex ? IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE : 0;
    if (ex) {
      errno = 0;
      EXPECT_EQ(create_qp_ex(ctx_, &x), nullptr) << "UD: SENDs only (mlx5)";
      EXPECT_EQ(errno, EOPNOTSUPP);
      x.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;
    }
    ibv_qp* q = create_qp_ex(ctx_, &x);
    EXPECT_NE(q, nullptr);
    EXPECT_EQ(x.cap.max_send_sge, spec::kUdMaxSge);
    EXPECT_EQ(x.cap.max_inline_data, spec::kUdMaxInline);
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.port_num = 1;
    a.qkey = 0x11111111;
    EXPECT_EQ(modify(q, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY), 0);
    a.qp_state = IBV_QPS_RTR;
    EXPECT_EQ(modify(q, a, IBV_QP_STATE), 0);
    a.qp_state = IBV_QPS_RTS;
    a.sq_psn = 5;
    EXPECT_EQ(modify(q, a, IBV_QP_STATE | IBV_QP_SQ_PSN), 0);
    ibv_qp_attr got{};
    ibv_qp_init_attr init{};
    EXPECT_EQ(query_qp(q, &got, IBV_QP_QKEY, &init), 0);
    EXPECT_EQ(got.qkey, 0x11111111u);
    EXPECT_EQ(init.qp_type, IBV_QPT_UD);
    return q;
  };
  ibv_qp* a = ud_qp(false);
  ibv_qp* b = ud_qp(true);
  ASSERT_TRUE(a && b);
  ibv_qp_attr bad_attr{};
  bad_attr.qp_state = IBV_QPS_RTS;
  bad_attr.path_mtu = IBV_MTU_1024;
  EXPECT_EQ(modify_qp(a, &bad_attr, IBV_QP_STATE | IBV_QP_PATH_MTU), EINVAL) << "UD has no path MTU";
  ibv_ah_attr aa{};
  aa.is_global = 1;
  aa.port_num = 1;
  aa.grh.sgid_index = 3;
  aa.grh.hop_limit = 1;
  IpAddr ip;
  std::string err;
  ASSERT_TRUE(parse_ip("10.1.2.3", &ip, &err));
  std::memcpy(aa.grh.dgid.raw, ip.bytes.data(), 16);
  ibv_ah* ah = create_ah(pd, &aa);
  ASSERT_NE(ah, nullptr);

  // post_send: to b through the AH
  std::memcpy(src, "a datagram", 11);
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 21), 0);
  ibv_sge sg{reinterpret_cast<uintptr_t>(src), 11, ms->lkey};
  ibv_send_wr w{};
  w.wr_id = 20;
  w.sg_list = &sg;
  w.num_sge = 1;
  w.opcode = IBV_WR_SEND;
  w.send_flags = IBV_SEND_SIGNALED;
  w.wr.ud.ah = ah;
  w.wr.ud.remote_qpn = b->qp_num;
  w.wr.ud.remote_qkey = 0x11111111;
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post_send(a, &w, &bad), 0);
  auto wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  const ibv_wc& r = wcs[0].opcode == IBV_WC_RECV ? wcs[0] : wcs[1];
  EXPECT_EQ(r.status, IBV_WC_SUCCESS);
  EXPECT_EQ(r.wr_id, 21u);
  EXPECT_EQ(r.byte_len, spec::kGrhBytes + 11);
  EXPECT_EQ(r.src_qp, a->qp_num);
  EXPECT_TRUE(r.wc_flags & IBV_WC_GRH);
  EXPECT_EQ(dst[20], 0x45) << "RoCEv2/IPv4: the IPv4 header in the GRH's last 20 bytes";
  EXPECT_STREQ(dst + spec::kGrhBytes, "a datagram");

  // refused before the queue
  w.opcode = IBV_WR_RDMA_WRITE;
  EXPECT_EQ(post_send(a, &w, &bad), EINVAL) << "UD: SENDs only";
  EXPECT_EQ(bad, &w);
  w.opcode = IBV_WR_SEND;
  w.wr.ud.ah = nullptr;
  EXPECT_EQ(post_send(a, &w, &bad), EINVAL) << "no AH";
  w.wr.ud.ah = ah;
  ibv_sge three[3] = {sg, sg, sg};
  w.sg_list = three;
  w.num_sge = 3;
  EXPECT_EQ(post_send(a, &w, &bad), EINVAL) << "2 SGEs at most";
  w.sg_list = &sg;
  w.num_sge = 1;

  // a wrong Q_Key: sent, and lost at b (counted: qkey_viol_cntr)
  w.wr.ud.remote_qkey = 0x1234;
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 23), 0);
  ASSERT_EQ(post_send(a, &w, &bad), 0);
  wcs = poll(c, 1);
  ASSERT_EQ(wcs.size(), 1u);
  EXPECT_EQ(wcs[0].opcode, IBV_WC_SEND);
  ibv_port_attr pa{};
  for (int spin = 0; spin < 100000 && pa.qkey_viol_cntr == 0; ++spin) ASSERT_EQ(query_port(ctx_, 1, &pa), 0);
  EXPECT_EQ(pa.qkey_viol_cntr, 1u);

  // the wr_* API: b answers through wr_set_ud_addr (the receive at a first)
  static char back[128];
  ibv_mr* mb = reg_mr(pd, back, sizeof back, reinterpret_cast<uintptr_t>(back), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_EQ(post_one_recv(a, mb, back, sizeof back, 31), 0);
  ibv_qp_ex* x = ibv_qp_to_qp_ex(b);
  x->wr_id = 30;
  x->wr_flags = IBV_SEND_SIGNALED;
  x->wr_start(x);
  x->wr_send(x);
  x->wr_set_ud_addr(x, ah, a->qp_num, 0x11111111);
  x->wr_set_inline_data(x, const_cast<char*>("back"), 5);
  ASSERT_EQ(x->wr_complete(x), 0);
  wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  const ibv_wc& r2 = wcs[0].opcode == IBV_WC_RECV ? wcs[0] : wcs[1];
  EXPECT_EQ(r2.wr_id, 31u);
  EXPECT_EQ(r2.src_qp, b->qp_num);
  EXPECT_STREQ(back + spec::kGrhBytes, "back");
  // without an address, or an RDMA WRITE: the batch fails
  x->wr_start(x);
  x->wr_send(x);
  x->wr_set_sge(x, ms->lkey, reinterpret_cast<uintptr_t>(src), 4);
  EXPECT_EQ(x->wr_complete(x), EINVAL) << "a datagram needs wr_set_ud_addr";
  x->wr_start(x);
  x->wr_rdma_write(x, 0, 0);  // (not in its send_ops_flags: refused all the same)
  EXPECT_EQ(x->wr_complete(x), EINVAL) << "UD: SENDs only";
  EXPECT_EQ(destroy_ah(ah), 0);
  EXPECT_EQ(dev_->dma_refused(), 0u);
}

// Many more completions than the CQ has entries: phases flip, the consumer
// index reaches the engine, nothing overruns.
TEST_F(Verbs, RingsWrapAndTheEngineNeverSeesAnOverrun) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(4);
  static char buf[64];
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp *a, *b;
  connect_pair(pd, c, &a, &b, 2);
  for (int i = 0; i < 200; ++i) {
    ASSERT_EQ(post_one_recv(b, mr, buf, 32, 1000 + i), 0) << i;
    ASSERT_EQ(post_one_send(a, mr, buf, 16, IBV_WR_SEND, IBV_SEND_SIGNALED, i), 0) << i;
    const auto wcs = poll(c, 2);
    ASSERT_EQ(wcs.size(), 2u) << i;
    for (const ibv_wc& w : wcs) {
      EXPECT_EQ(w.status, IBV_WC_SUCCESS) << i;
      EXPECT_EQ(w.wr_id, w.opcode == IBV_WC_RECV ? 1000u + i : uint64_t(i));
    }
  }
  EXPECT_EQ(dev_->cq_errors, 0u);
  EXPECT_EQ(dev_->last_cq_ci[to_cq(c)->s->cqn], 398u) << "the CI the engine saw before the last doorbell";
}

TEST_F(Verbs, CompletionChannelGetsAnEventPerArmAndSolicitedOnlyWaits) {
  int p[2];
  ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
  {
    std::lock_guard<std::mutex> l(g_channels_mu);
    g_channels[p[0]] = p[1];
  }
  ibv_comp_channel ch{ctx_, p[0], 0};
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16, &ch);
  ASSERT_TRUE(c);
  static char buf[64];
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp *a, *b;
  connect_pair(pd, c, &a, &b);
  auto event = [&](int timeout_ms) -> ibv_cq* {
    pollfd pfd{p[0], POLLIN, 0};
    if (::poll(&pfd, 1, timeout_ms) != 1) return nullptr;
    ib_uverbs_comp_event_desc d{};
    if (read(p[0], &d, sizeof d) != sizeof d) return nullptr;
    return reinterpret_cast<ibv_cq*>(static_cast<uintptr_t>(d.cq_handle));
  };
  auto exchange = [&](unsigned flags) {
    ASSERT_EQ(post_one_recv(b, mr, buf, 32), 0);
    ASSERT_EQ(post_one_send(a, mr, buf, 8, IBV_WR_SEND, flags), 0);
    ASSERT_TRUE(eng_->wait_idle(2000));
  };
  exchange(IBV_SEND_SIGNALED);
  EXPECT_EQ(event(50), nullptr) << "not armed: no event";
  EXPECT_EQ(poll(c, 2).size(), 2u);
  ASSERT_EQ(req_notify_cq(c, 0), 0);
  exchange(IBV_SEND_SIGNALED);
  EXPECT_EQ(event(2000), c) << "cq_handle is the ibv_cq";
  EXPECT_EQ(poll(c, 2).size(), 2u);
  ASSERT_EQ(req_notify_cq(c, 1), 0);
  exchange(IBV_SEND_SIGNALED);
  EXPECT_EQ(event(50), nullptr) << "solicited only: a plain send does not wake";
  EXPECT_EQ(poll(c, 2).size(), 2u);
  exchange(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED);
  EXPECT_EQ(event(2000), c);
  EXPECT_EQ(poll(c, 2).size(), 2u);
  destroy_qp(a);
  destroy_qp(b);
  EXPECT_EQ(destroy_cq(c), 0);
  ::close(p[0]);
  ::close(p[1]);
}

TEST_F(Verbs, AnOverrunCqRaisesCqErrOnTheAsyncFd) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(1);
  ASSERT_EQ(c->cqe, 1);
  static char buf[64];
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp *a, *b;
  connect_pair(pd, c, &a, &b);
  testing::internal::CaptureStderr();
  ASSERT_EQ(post_one_recv(b, mr, buf, 32), 0);
  ASSERT_EQ(post_one_send(a, mr, buf, 8), 0);  // two completions for a CQ of one
  ASSERT_TRUE(eng_->wait_idle(2000));
  pollfd pfd{async_[0], POLLIN, 0};
  ASSERT_EQ(::poll(&pfd, 1, 2000), 1);
  ib_uverbs_async_event_desc d{};
  ASSERT_EQ(read(async_[0], &d, sizeof d), static_cast<ssize_t>(sizeof d));
  EXPECT_EQ(d.event_type, static_cast<uint32_t>(IBV_EVENT_CQ_ERR));
  EXPECT_EQ(d.element, reinterpret_cast<uintptr_t>(c));
  EXPECT_NE(testing::internal::GetCapturedStderr().find("overrun"), std::string::npos);
}

TEST_F(Verbs, DmaWindowsFollowRegistrationsThatShareBytes) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(8);
  static char buf[256];
  ibv_mr* m1 = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* m2 = reg_mr(pd, buf, 128, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_EQ(dereg_mr(container_of<verbs_mr>(m2, 0)), 0);  // m1 still covers these bytes
  ibv_qp *a, *b;
  connect_pair(pd, c, &a, &b);
  ASSERT_EQ(post_one_recv(b, m1, buf + 128, 64), 0);
  ASSERT_EQ(post_one_send(a, m1, buf, 64), 0);
  const auto wcs = poll(c, 2);
  ASSERT_EQ(wcs.size(), 2u);
  EXPECT_EQ(wcs[0].status, IBV_WC_SUCCESS);
  EXPECT_EQ(wcs[1].status, IBV_WC_SUCCESS);
  EXPECT_EQ(dev_->dma_refused(), 0u);
}

// The ibv_wr_* API as perftest uses it by default.
TEST_F(Verbs, CreateQpExAndTheWrApiPostLikePostSend) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(32);
  static char src[64] = "through ibv_wr_send", dst[64], tgt[64];
  ibv_mr* ms = reg_mr(pd, src, sizeof src, reinterpret_cast<uintptr_t>(src), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* md = reg_mr(pd, dst, sizeof dst, reinterpret_cast<uintptr_t>(dst), IBV_ACCESS_LOCAL_WRITE);
  ibv_mr* mt = reg_mr(pd, tgt, sizeof tgt, reinterpret_cast<uintptr_t>(tgt),
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  auto make = [&](uint64_t ops, uint32_t mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
    ibv_qp_init_attr_ex x{};
    x.send_cq = x.recv_cq = c;
    x.qp_type = IBV_QPT_RC;
    x.cap.max_send_wr = x.cap.max_recv_wr = 4;
    x.cap.max_send_sge = x.cap.max_recv_sge = 1;
    x.pd = pd;
    x.comp_mask = mask;
    x.send_ops_flags = ops;
    errno = 0;
    return create_qp_ex(ctx_, &x);
  };
  EXPECT_EQ(make(IBV_QP_EX_WITH_ATOMIC_WRITE), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP) << "no ATOMIC_WRITE in the engine";
  EXPECT_EQ(make(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP) << "no TSO either";
  ibv_qp* with_read = make(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ);
  ASSERT_NE(with_read, nullptr) << "READ on the wr_* API: errno " << errno;
  EXPECT_EQ(destroy_qp(with_read), 0);
  ibv_qp* with_atomics = make(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
  ASSERT_NE(with_atomics, nullptr) << "atomics on the wr_* API: errno " << errno;
  EXPECT_EQ(destroy_qp(with_atomics), 0);
  EXPECT_EQ(make(IBV_QP_EX_WITH_SEND, IBV_QP_INIT_ATTR_SEND_OPS_FLAGS), nullptr);
  EXPECT_EQ(errno, EINVAL) << "no PD";
  EXPECT_EQ(make(IBV_QP_EX_WITH_SEND, IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS | IBV_QP_INIT_ATTR_XRCD),
            nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  const uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
  ibv_qp* a = make(ops);
  ibv_qp* b = make(ops);
  ASSERT_TRUE(a && b);
  ibv_qp_ex* x = &to_qp(a)->vqp.qp_ex;
  EXPECT_EQ(to_qp(a)->vqp.comp_mask & VERBS_QP_EX, uint32_t{VERBS_QP_EX}) << "ibv_qp_to_qp_ex finds it";

  ASSERT_EQ(to_init(a), 0);
  x->wr_start(x);
  x->wr_send(x);
  x->wr_set_sge(x, ms->lkey, reinterpret_cast<uintptr_t>(src), 20);
  EXPECT_EQ(x->wr_complete(x), EINVAL) << "before RTS, as post_send";
  ASSERT_EQ(to_init(b), 0);
  ASSERT_EQ(to_rtr(a, b->qp_num), 0);
  ASSERT_EQ(to_rtr(b, a->qp_num), 0);
  ASSERT_EQ(to_rts(a), 0);
  ASSERT_EQ(to_rts(b), 0);

  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 5), 0);
  ASSERT_EQ(post_one_recv(b, md, dst, sizeof dst, 6), 0);
  x->wr_start(x);
  x->wr_id = 1;
  x->wr_flags = IBV_SEND_SIGNALED;
  x->wr_send(x);
  x->wr_set_sge(x, ms->lkey, reinterpret_cast<uintptr_t>(src), 20);
  x->wr_id = 2;
  x->wr_rdma_write_imm(x, mt->rkey, reinterpret_cast<uintptr_t>(tgt), htonl(99));
  x->wr_set_inline_data(x, src, 7);
  ASSERT_EQ(x->wr_complete(x), 0);
  auto wcs = poll(c, 4);
  ASSERT_EQ(wcs.size(), 4u);
  for (const ibv_wc& w : wcs) EXPECT_EQ(w.status, IBV_WC_SUCCESS);
  EXPECT_STREQ(dst, "through ibv_wr_send");
  EXPECT_EQ(std::memcmp(tgt, "through", 7), 0);
  const ibv_wc* imm = nullptr;
  for (const ibv_wc& w : wcs)
    if (w.opcode == IBV_WC_RECV_RDMA_WITH_IMM) imm = &w;
  ASSERT_TRUE(imm);
  EXPECT_EQ(ntohl(imm->imm_data), 99u);

  // A failing batch posts nothing of it: too many SGEs, unsupported ops, a full ring.
  ibv_sge many[spec::kMaxSge + 1]{};
  x->wr_start(x);
  x->wr_send(x);
  x->wr_set_sge_list(x, spec::kMaxSge + 1, many);
  EXPECT_EQ(x->wr_complete(x), EINVAL);
  x->wr_start(x);
  const uint64_t eight = 8;
  x->wr_atomic_write(x, mt->rkey, reinterpret_cast<uintptr_t>(tgt), &eight);
  EXPECT_EQ(x->wr_complete(x), EOPNOTSUPP);
  x->wr_start(x);
  x->wr_rdma_read(x, 0, 0);
  char four[4] = {};
  x->wr_set_inline_data(x, four, sizeof four);
  EXPECT_EQ(x->wr_complete(x), EINVAL) << "a READ's data cannot be inline";
  x->wr_start(x);
  x->wr_flags = 0;
  for (int i = 0; i < 5; ++i) {
    x->wr_send(x);
    x->wr_set_sge(x, ms->lkey, reinterpret_cast<uintptr_t>(src), 4);
  }
  EXPECT_EQ(x->wr_complete(x), ENOMEM) << "a ring of 4";
  ASSERT_TRUE(eng_->wait_idle(2000));
  ibv_wc none[4];
  EXPECT_EQ(poll_cq(c, 4, none), 0) << "nothing of the failed batches ran";
  x->wr_start(x);
  x->wr_send(x);
  x->wr_abort(x);
  EXPECT_EQ(destroy_qp(a), 0);
  EXPECT_EQ(destroy_qp(b), 0);
}

// ---- Atomics (docs/engine.md "Atomics"): CMP_AND_SWP and FETCH_AND_ADD.

constexpr int kAtomicAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

uint64_t addr_of(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// One atomic work request: the original remote value lands in `sg` (8 bytes).
ibv_send_wr atomic_wr(ibv_wr_opcode op, ibv_sge* sg, uint64_t remote, uint32_t rkey, uint64_t cmp_add,
                      uint64_t swap, uint64_t wr_id) {
  ibv_send_wr w{};
  w.wr_id = wr_id;
  w.opcode = op;
  w.sg_list = sg;
  w.num_sge = 1;
  w.send_flags = IBV_SEND_SIGNALED;
  w.wr.atomic.remote_addr = remote;
  w.wr.atomic.rkey = rkey;
  w.wr.atomic.compare_add = cmp_add;
  w.wr.atomic.swap = swap;
  return w;
}

// The send WQE in the ring slot of producer index `pi`, as the engine will fetch it.
spec::SendWqe wqe_at(ibv_qp* q, uint16_t pi) {
  const QpState* s = to_qp(q)->s;
  spec::SendWqe w;
  w.load(s->sq + size_t(pi & (s->sq_size - 1)) * kWqeSlotBytes);
  return w;
}

// What real providers refuse (rxe: a misaligned address or fewer than 8
// bytes; the contract: exactly one SGE of 8 bytes, no inline) never reaches
// the queue: EINVAL, *bad_wr on it, the producer index where it was.
TEST_F(Verbs, AtomicsOfAnotherShapeAreRefusedBeforeTheQueue) {
  ibv_device_attr_ex dev{};
  ASSERT_EQ(query_device_ex(ctx_, nullptr, &dev, sizeof dev), 0);
  EXPECT_EQ(dev.orig_attr.atomic_cap, IBV_ATOMIC_HCA) << "atomic against each other, not against the CPU";
  EXPECT_EQ(dev.orig_attr.max_qp_rd_atom, 16);
  EXPECT_EQ(dev.orig_attr.max_qp_init_rd_atom, 16);

  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  alignas(8) static uint64_t words[4];
  ibv_mr* mr = reg_mr(pd, words, sizeof words, addr_of(words), kAtomicAccess);
  ibv_qp* q = qp(pd, c, c, 4);
  ASSERT_TRUE(mr && q);
  ibv_sge sg[2] = {{addr_of(&words[0]), 8, mr->lkey}, {addr_of(&words[1]), 8, mr->lkey}};
  ibv_send_wr* bad = nullptr;
  ibv_send_wr early = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, sg, addr_of(&words[2]), mr->rkey, 1, 0, 1);
  ASSERT_EQ(to_init(q, kAtomicAccess), 0);
  EXPECT_EQ(post_send(q, &early, &bad), EINVAL) << "before RTS, as every send";
  EXPECT_EQ(bad, &early);
  ASSERT_EQ(to_rtr(q, q->qp_num), 0);
  ASSERT_EQ(to_rts(q), 0);
  const uint16_t pi = to_qp(q)->s->sq_pi;

  const struct {
    const char* what;
    void (*tweak)(ibv_send_wr&);
  } shapes[] = {
      {"remote_addr 4 bytes past alignment", [](ibv_send_wr& w) { w.wr.atomic.remote_addr += 4; }},
      {"remote_addr 1 byte past alignment", [](ibv_send_wr& w) { w.wr.atomic.remote_addr += 1; }},
      {"no SGE", [](ibv_send_wr& w) { w.num_sge = 0; }},
      {"two SGEs of 8 bytes", [](ibv_send_wr& w) { w.num_sge = 2; }},
      {"one SGE of 4 bytes", [](ibv_send_wr& w) { w.sg_list[0].length = 4; }},
      {"one SGE of 16 bytes", [](ibv_send_wr& w) { w.sg_list[0].length = 16; }},
      {"inline", [](ibv_send_wr& w) { w.send_flags |= IBV_SEND_INLINE; }},
  };
  for (const ibv_wr_opcode op : {IBV_WR_ATOMIC_CMP_AND_SWP, IBV_WR_ATOMIC_FETCH_AND_ADD}) {
    for (const auto& shape : shapes) {
      ibv_sge s[2] = {sg[0], sg[1]};
      ibv_send_wr w = atomic_wr(op, s, addr_of(&words[2]), mr->rkey, 1, 2, 10);
      ibv_sge s2 = sg[0];
      ibv_send_wr good = atomic_wr(op, &s2, addr_of(&words[3]), mr->rkey, 1, 2, 11);
      w.next = &good;
      shape.tweak(w);
      bad = nullptr;
      EXPECT_EQ(post_send(q, &w, &bad), EINVAL) << op << ": " << shape.what;
      EXPECT_EQ(bad, &w) << op << ": " << shape.what;
      EXPECT_EQ(to_qp(q)->s->sq_pi, pi) << op << ": " << shape.what << ": nothing posted, nor what followed";
    }
  }
  ibv_send_wr w = atomic_wr(IBV_WR_ATOMIC_WRITE, sg, addr_of(&words[2]), mr->rkey, 0, 0, 12);
  EXPECT_EQ(post_send(q, &w, &bad), EOPNOTSUPP) << "no ATOMIC_WRITE in the engine";
  EXPECT_EQ(bad, &w);
  EXPECT_EQ(to_qp(q)->s->sq_pi, pi);
  ASSERT_TRUE(eng_->wait_idle(2000));
  ibv_wc none[4];
  EXPECT_EQ(poll_cq(c, 4, none), 0) << "nothing ran";
  EXPECT_EQ(words[2], 0u);
  EXPECT_EQ(words[3], 0u);
}

// The same shapes on the ibv_wr_* API: the batch fails at wr_complete and
// nothing of it is posted. The SGE comes after wr_atomic_*, so a missing or
// wrong one is found when the WQE is finished.
TEST_F(Verbs, TheWrApiRefusesTheSameAtomicShapesAtComplete) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  alignas(8) static uint64_t words[4];
  ibv_mr* mr = reg_mr(pd, words, sizeof words, addr_of(words), kAtomicAccess);
  ibv_qp* q = qp_ex(pd, c, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, 4);
  ASSERT_TRUE(mr && q);
  ASSERT_NO_FATAL_FAILURE(self_connect(q, kAtomicAccess));
  ibv_qp_ex* x = &to_qp(q)->vqp.qp_ex;
  const uint16_t pi = to_qp(q)->s->sq_pi;
  const uint64_t target = addr_of(&words[2]), result = addr_of(&words[0]);
  const uint32_t rkey = mr->rkey, lkey = mr->lkey;
  const ibv_sge two[2] = {{result, 8, lkey}, {addr_of(&words[1]), 8, lkey}};
  uint64_t value = 0;

  struct Case {
    const char* what;
    std::function<void()> post;
  };
  const Case cases[] = {
      {"CMP_AND_SWP at a misaligned address",
       [&] {
         x->wr_atomic_cmp_swp(x, rkey, target + 4, 0, 1);
         x->wr_set_sge(x, lkey, result, 8);
       }},
      {"FETCH_AND_ADD at a misaligned address",
       [&] {
         x->wr_atomic_fetch_add(x, rkey, target + 2, 1);
         x->wr_set_sge(x, lkey, result, 8);
       }},
      {"no SGE set", [&] { x->wr_atomic_fetch_add(x, rkey, target, 1); }},
      {"an SGE of 4 bytes",
       [&] {
         x->wr_atomic_fetch_add(x, rkey, target, 1);
         x->wr_set_sge(x, lkey, result, 4);
       }},
      {"two SGEs",
       [&] {
         x->wr_atomic_cmp_swp(x, rkey, target, 0, 1);
         x->wr_set_sge_list(x, 2, two);
       }},
      {"inline data",
       [&] {
         x->wr_atomic_cmp_swp(x, rkey, target, 0, 1);
         x->wr_set_inline_data(x, &value, sizeof value);
       }},
      {"a good atomic, then one without its SGE",
       [&] {
         x->wr_atomic_fetch_add(x, rkey, target, 1);
         x->wr_set_sge(x, lkey, result, 8);
         x->wr_atomic_cmp_swp(x, rkey, target, 0, 1);
       }},
  };
  for (const Case& k : cases) {
    x->wr_start(x);
    x->wr_flags = IBV_SEND_SIGNALED;
    k.post();
    EXPECT_EQ(x->wr_complete(x), EINVAL) << k.what;
    EXPECT_EQ(to_qp(q)->s->sq_pi, pi) << k.what << ": nothing of the batch posted";
  }
  x->wr_start(x);
  x->wr_atomic_write(x, rkey, target, &value);
  x->wr_set_sge(x, lkey, result, 8);
  EXPECT_EQ(x->wr_complete(x), EOPNOTSUPP) << "no ATOMIC_WRITE in the engine";
  EXPECT_EQ(to_qp(q)->s->sq_pi, pi);
  ASSERT_TRUE(eng_->wait_idle(2000));
  ibv_wc none[4];
  EXPECT_EQ(poll_cq(c, 4, none), 0) << "nothing ran";
  EXPECT_EQ(words[2], 0u);
}

// The WQE of an atomic, read back from the ring as the engine fetches it
// (layouts.md send_wqe): opcode 5/6, remote_addr and rkey from wr.atomic,
// atomic_cmp_add and atomic_swap (0 for a fetch-add, whatever wr.atomic.swap
// holds), SGE 0 the 8-byte result, num_sge 1, length 8, nothing past them.
// Both post paths. (This checks the provider alone: whatever the engine then
// does with the WQEs, the ring keeps their bytes.)
TEST_F(Verbs, AnAtomicWqeCarriesItsOperandsWhereTheContractSays) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(16);
  alignas(8) static uint64_t words[4];
  ibv_mr* mr = reg_mr(pd, words, sizeof words, addr_of(words), kAtomicAccess);
  ibv_qp* q = qp_ex(pd, c, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, 8);
  ASSERT_TRUE(mr && q);
  ASSERT_NO_FATAL_FAILURE(self_connect(q, kAtomicAccess));
  const uint16_t pi = to_qp(q)->s->sq_pi;
  ibv_sge r0{addr_of(&words[0]), 8, mr->lkey}, r1{addr_of(&words[1]), 8, mr->lkey};
  ibv_send_wr w[2] = {
      atomic_wr(IBV_WR_ATOMIC_CMP_AND_SWP, &r0, addr_of(&words[2]), mr->rkey, 0x1122334455667788u,
                0x99aabbccddeeff00u, 101),
      atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, &r1, addr_of(&words[3]), mr->rkey, 0x0102030405060708u,
                0xdeadbeefdeadbeefu /* not for a fetch-add */, 102),
  };
  w[1].send_flags = 0;  // unsignaled
  w[0].next = &w[1];
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post_send(q, w, &bad), 0);
  ibv_qp_ex* x = &to_qp(q)->vqp.qp_ex;
  x->wr_start(x);
  x->wr_id = 103;
  x->wr_flags = IBV_SEND_SIGNALED;
  x->wr_atomic_cmp_swp(x, mr->rkey, addr_of(&words[3]), 0x0fedcba987654321u, 0x0123456789abcdefu);
  x->wr_set_sge(x, mr->lkey, addr_of(&words[1]), 8);
  x->wr_id = 104;
  x->wr_flags = 0;
  x->wr_atomic_fetch_add(x, mr->rkey, addr_of(&words[2]), 0x8000000000000001u);
  x->wr_set_sge(x, mr->lkey, addr_of(&words[0]), 8);
  ASSERT_EQ(x->wr_complete(x), 0);
  ASSERT_EQ(to_qp(q)->s->sq_pi, static_cast<uint16_t>(pi + 4));

  const struct {
    uint8_t opcode;
    uint64_t wr_id, remote, result, cmp_add, swap;
    uint8_t flags;
  } want[] = {
      {5, 101, addr_of(&words[2]), addr_of(&words[0]), 0x1122334455667788u, 0x99aabbccddeeff00u, kWqeSignaled},
      {6, 102, addr_of(&words[3]), addr_of(&words[1]), 0x0102030405060708u, 0, 0},
      {5, 103, addr_of(&words[3]), addr_of(&words[1]), 0x0fedcba987654321u, 0x0123456789abcdefu, kWqeSignaled},
      {6, 104, addr_of(&words[2]), addr_of(&words[0]), 0x8000000000000001u, 0, 0},
  };
  static_assert(uint8_t(spec::WrOpcode::kAtomicCmpAndSwp) == 5 && uint8_t(spec::WrOpcode::kAtomicFetchAndAdd) == 6,
                "the ibv_wr_opcode values");
  for (unsigned i = 0; i < 4; ++i) {
    const spec::SendWqe g = wqe_at(q, static_cast<uint16_t>(pi + i));
    EXPECT_EQ(g.opcode, want[i].opcode) << i;
    EXPECT_EQ(g.wr_id, want[i].wr_id) << i;
    EXPECT_EQ(g.flags, want[i].flags) << i;
    EXPECT_EQ(g.remote_addr, want[i].remote) << i;
    EXPECT_EQ(g.rkey, mr->rkey) << i;
    EXPECT_EQ(g.atomic_cmp_add, want[i].cmp_add) << i;
    EXPECT_EQ(g.atomic_swap, want[i].swap) << i;
    EXPECT_EQ(g.num_sge, 1u) << i;
    EXPECT_EQ(g.length, 8u) << i;
    EXPECT_EQ(g.sge0_addr, want[i].result) << i;
    EXPECT_EQ(g.sge0_length, 8u) << i;
    EXPECT_EQ(g.sge0_lkey, mr->lkey) << i;
    const uint8_t* raw = to_qp(q)->s->sq + size_t((pi + i) & (to_qp(q)->s->sq_size - 1)) * kWqeSlotBytes;
    for (unsigned b = spec::kSendWqeAtomicSwapOff + 8; b < spec::SendWqe::kSize; ++b)
      ASSERT_EQ(raw[b], 0u) << i << ": byte " << b << " past the atomic's fields";
  }
  eng_->wait_idle(2000);
}

// End to end on the engine: FETCH_AND_ADD and CMP_AND_SWP (matching and
// not) from ibv_post_send and from the ibv_wr_* API against counters in an
// MR with REMOTE_ATOMIC. Each completion, each original value returned and
// the final memory are checked against the sequence computed here (RC
// executes a QP's requests in order). Needs the engine's atomics.
TEST_F(Verbs, AtomicsExecuteInOrderAndReturnTheOriginalValues) {
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(64);
  alignas(8) static uint64_t counters[4];
  alignas(8) static uint64_t results[16];
  const uint64_t initial[4] = {5, 0x0123456789abcdefu, 0x00000000ffffffffu, 0xdeadbeefcafef00du};
  std::memcpy(counters, initial, sizeof counters);
  const uint64_t poison = 0x5a5a5a5a5a5a5a5au;
  for (uint64_t& r : results) r = poison;
  ibv_mr* mt = reg_mr(pd, counters, sizeof counters, addr_of(counters),
                      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
  ibv_mr* ml = reg_mr(pd, results, sizeof results, addr_of(results), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp* a = qp_ex(pd, c, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, 16);
  ibv_qp* b = qp(pd, c, c, 16);
  ASSERT_TRUE(mt && ml && a && b);
  connect(a, b, kAtomicAccess);

  struct Op {
    bool cas;
    unsigned idx;  // which counter
    uint64_t cmp_add, swap;
  };
  // Through ibv_post_send (one list), then through ibv_wr_* (one batch).
  const Op by_post[] = {
      {false, 0, 1, 0},                                      // 5 + 1
      {false, 0, ~uint64_t{0}, 0},                           // + (2^64 - 1): back to 5, modulo 2^64
      {true, 1, 0x0123456789abcdefu, 0x1111111111111111u},  // matches: swapped
      {true, 1, 0x0123456789abcdefu, 0x2222222222222222u},  // no longer matches: unchanged
      {false, 2, 1, 0},                                      // carry into the upper 32 bits
      {true, 3, 0xdeadbeefcafef00cu, 0},                     // off by one bit: unchanged
  };
  const Op by_wr[] = {
      {false, 2, 0x8000000000000000u, 0},  // the top bit
      {true, 0, 5, 0xffffffffffffffffu},   // matches
      {true, 3, 0xdeadbeefcafef00du, 7},   // matches
      {false, 1, 0x1000000000000000u, 0},
  };
  const size_t n_post = sizeof by_post / sizeof by_post[0], n = n_post + sizeof by_wr / sizeof by_wr[0];
  // The reference: each op's original value and the memory after all of them.
  uint64_t mem[4], orig[n];
  std::memcpy(mem, initial, sizeof mem);
  auto apply = [&](const Op& o, size_t i) {
    orig[i] = mem[o.idx];
    if (!o.cas)
      mem[o.idx] += o.cmp_add;
    else if (mem[o.idx] == o.cmp_add)
      mem[o.idx] = o.swap;
  };
  for (size_t i = 0; i < n_post; ++i) apply(by_post[i], i);
  for (size_t i = n_post; i < n; ++i) apply(by_wr[i - n_post], i);

  // A misaligned target is refused at post, and the QP is none the worse.
  ibv_sge sg[n];
  for (size_t i = 0; i < n; ++i) sg[i] = ibv_sge{addr_of(&results[i]), 8, ml->lkey};
  ibv_send_wr* bad = nullptr;
  ibv_send_wr skew = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, &sg[0], addr_of(&counters[0]) + 4, mt->rkey, 1, 0, 99);
  EXPECT_EQ(post_send(a, &skew, &bad), EINVAL);
  EXPECT_EQ(bad, &skew);

  ibv_send_wr w[n_post];
  for (size_t i = 0; i < n_post; ++i) {
    const Op& o = by_post[i];
    w[i] = atomic_wr(o.cas ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD, &sg[i],
                     addr_of(&counters[o.idx]), mt->rkey, o.cmp_add, o.cas ? o.swap : 0x7777777777777777u, 1000 + i);
    if (i) w[i - 1].next = &w[i];
  }
  ASSERT_EQ(post_send(a, w, &bad), 0);
  ibv_qp_ex* x = &to_qp(a)->vqp.qp_ex;
  x->wr_start(x);
  x->wr_flags = IBV_SEND_SIGNALED;
  for (size_t i = n_post; i < n; ++i) {
    const Op& o = by_wr[i - n_post];
    x->wr_id = 1000 + i;
    if (o.cas)
      x->wr_atomic_cmp_swp(x, mt->rkey, addr_of(&counters[o.idx]), o.cmp_add, o.swap);
    else
      x->wr_atomic_fetch_add(x, mt->rkey, addr_of(&counters[o.idx]), o.cmp_add);
    x->wr_set_sge(x, ml->lkey, addr_of(&results[i]), 8);
  }
  ASSERT_EQ(x->wr_complete(x), 0);

  const auto wcs = poll(c, n);
  ASSERT_EQ(wcs.size(), n);
  for (size_t i = 0; i < n; ++i) {
    const ibv_wc& wc = wcs[i];
    const Op& o = i < n_post ? by_post[i] : by_wr[i - n_post];
    EXPECT_EQ(wc.wr_id, 1000 + i) << "completions in posting order";
    EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << i << ": " << ibv_wc_status_str(wc.status);
    EXPECT_EQ(wc.opcode, o.cas ? IBV_WC_COMP_SWAP : IBV_WC_FETCH_ADD) << i;
    EXPECT_EQ(wc.byte_len, 8u) << i;
    EXPECT_EQ(wc.qp_num, a->qp_num) << i;
    EXPECT_EQ(results[i], orig[i]) << i << ": the original remote value";
  }
  for (size_t i = n; i < 16; ++i) EXPECT_EQ(results[i], poison) << i << ": no other byte written";
  for (unsigned k = 0; k < 4; ++k) EXPECT_EQ(counters[k], mem[k]) << "counter " << k;
  EXPECT_EQ(mem[0], 0xffffffffffffffffu) << "the reference itself: 5 + 1 - 1, then swapped";
  EXPECT_EQ(mem[2], 0x8000000100000000u) << "the reference itself: carried, then the top bit";
  ASSERT_TRUE(eng_->wait_idle(2000));
  ibv_wc extra[4];
  EXPECT_EQ(poll_cq(c, 4, extra), 0) << "one completion per atomic, none at the responder";
  EXPECT_EQ(dev_->dma_refused(), 0u);
}

// A responder without REMOTE_ATOMIC rights (on the MR, or on the QP) NAKs
// with remote access error: the atomic completes IBV_WC_REM_ACCESS_ERR, no
// byte of the target or of the result buffer changes. Needs the engine's atomics.
TEST_F(Verbs, AnAtomicWithoutRemoteAtomicRightsFailsWithRemoteAccessError) {
  ibv_pd* pd = alloc_pd(ctx_);
  alignas(8) static uint64_t words[2];
  alignas(8) static uint64_t result;
  ibv_mr* plain = reg_mr(pd, words, sizeof words, addr_of(words), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  ibv_mr* atomic = reg_mr(pd, &words[1], 8, addr_of(&words[1]), kAtomicAccess);
  ibv_mr* ml = reg_mr(pd, &result, sizeof result, addr_of(&result), IBV_ACCESS_LOCAL_WRITE);
  ASSERT_TRUE(plain && atomic && ml);
  const struct {
    const char* what;
    ibv_mr* target;
    int qp_access;
  } cases[] = {
      {"an MR without REMOTE_ATOMIC", plain, kAtomicAccess},
      {"a QP without REMOTE_ATOMIC", atomic, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE},
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.what);
    words[0] = words[1] = 41;
    result = 0x5a5a5a5a5a5a5a5au;
    ibv_cq* c = cq(8);
    ibv_qp* a = qp(pd, c, c);
    ibv_qp* b = qp(pd, c, c);
    ASSERT_TRUE(c && a && b);
    connect(a, b, k.qp_access);
    ibv_sge sg{addr_of(&result), 8, ml->lkey};
    const uint64_t target = k.target == plain ? addr_of(&words[0]) : addr_of(&words[1]);
    ibv_send_wr w = atomic_wr(IBV_WR_ATOMIC_FETCH_AND_ADD, &sg, target, k.target->rkey, 1, 0, 7);
    ibv_send_wr* bad = nullptr;
    ASSERT_EQ(post_send(a, &w, &bad), 0);
    const auto wcs = poll(c, 1);
    ASSERT_EQ(wcs.size(), 1u);
    EXPECT_EQ(wcs[0].wr_id, 7u);
    EXPECT_EQ(wcs[0].qp_num, a->qp_num);
    EXPECT_EQ(wcs[0].status, IBV_WC_REM_ACCESS_ERR) << ibv_wc_status_str(wcs[0].status);
    EXPECT_EQ(words[0], 41u);
    EXPECT_EQ(words[1], 41u);
    EXPECT_EQ(result, 0x5a5a5a5a5a5a5a5au) << "nothing placed";
    ASSERT_TRUE(eng_->wait_idle(2000));
    EXPECT_EQ(destroy_qp(a), 0);
    EXPECT_EQ(destroy_qp(b), 0);
    EXPECT_EQ(destroy_cq(c), 0);
  }
}

TEST(Resources, MttAllocatorFirstFitAndMerge) {
  MttAllocator m(16);
  uint32_t a, b, c;
  ASSERT_TRUE(m.alloc(6, &a));
  ASSERT_TRUE(m.alloc(6, &b));
  ASSERT_TRUE(m.alloc(4, &c));
  EXPECT_EQ(a, 0u);
  EXPECT_EQ(b, 6u);
  EXPECT_EQ(c, 12u);
  uint32_t x;
  EXPECT_FALSE(m.alloc(1, &x));
  m.free(a, 6);
  m.free(c, 4);
  EXPECT_FALSE(m.alloc(7, &x)) << "free but not contiguous";
  m.free(b, 6);
  EXPECT_TRUE(m.alloc(16, &x)) << "merged back into one range";
}

TEST(Resources, DmaWindowsRevokeOnlyBytesNobodyElseCovers) {
  std::vector<std::pair<uint64_t, uint64_t>> revoked;
  DmaWindows w([](uint64_t, uint64_t) {}, [&](uint64_t a, uint64_t l) { revoked.emplace_back(a, l); });
  w.allow(100, 100);  // [100, 200)
  w.allow(150, 100);  // [150, 250)
  w.allow(120, 10);   // [120, 130)
  w.revoke(100, 100);
  EXPECT_EQ(revoked, (std::vector<std::pair<uint64_t, uint64_t>>{{100, 20}, {130, 20}}));
  revoked.clear();
  w.revoke(999, 1);  // never allowed
  EXPECT_TRUE(revoked.empty());
  w.revoke(150, 100);
  EXPECT_EQ(revoked, (std::vector<std::pair<uint64_t, uint64_t>>{{150, 100}}));
}

// The port on a wire: the destination's MAC from the neighbour table, frames
// out to the member that has it, frames in to the engine's MAC port.
class VerbsOnWire : public Verbs {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rocenic-verbs-wire.XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    setenv("ROCENIC_WIRE_DIR", dir_.c_str(), 1);
    open(true);
  }
  void TearDown() override {
    close();
    unsetenv("ROCENIC_WIRE_DIR");
    EXPECT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0);
  }
  std::string dir_;
};

TEST_F(VerbsOnWire, DestinationMacComesFromTheNeighbourTableAndFramesFlowBothWays) {
  wire::Wire::Options po;
  po.name = "vt";
  po.mac = {0x02, 0, 0, 0, 0, 0x42};
  wire::Addr pa;
  ASSERT_TRUE(wire::parse_addr("10.0.0.42", &pa));
  po.addrs = {pa};
  auto peer = wire::Wire::join(po);
  ibv_pd* pd = alloc_pd(ctx_);
  ibv_cq* c = cq(8);
  static char buf[64] = "to the peer";
  ibv_mr* mr = reg_mr(pd, buf, sizeof buf, reinterpret_cast<uintptr_t>(buf), IBV_ACCESS_LOCAL_WRITE);
  ibv_qp* q = qp(pd, c, c);
  ASSERT_EQ(to_init(q), 0);
  ASSERT_EQ(to_rtr(q, 17, "10.0.0.42"), 0);
  ASSERT_EQ(to_rts(q), 0);
  ASSERT_EQ(post_one_send(q, mr, buf, 12), 0);
  std::vector<std::vector<uint8_t>> got;
  for (int i = 0; i < 2000 && got.empty(); ++i) {
    peer->receive([&](const uint8_t* f, size_t n) { got.emplace_back(f, f + n); }, 8);
    usleep(1000);
  }
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(std::memcmp(got[0].data(), po.mac.data(), 6), 0) << "to the peer's MAC";
  EXPECT_EQ(std::memcmp(got[0].data() + 6, eng_->config().mac.data(), 6), 0);
  // a RoCEv2 SEND ONLY over IPv4: UDP port 4791, the payload after the BTH
  ASSERT_GE(got[0].size(), 14u + 20 + 8 + 12 + 12);
  EXPECT_EQ(got[0][12] << 8 | got[0][13], 0x0800);
  EXPECT_EQ(got[0][14 + 20 + 2] << 8 | got[0][14 + 20 + 3], 4791);
  EXPECT_EQ(std::memcmp(got[0].data() + 14 + 20 + 8 + 12, "to the peer", 12), 0);

  std::vector<uint8_t> in(60, 0);
  std::memcpy(in.data(), eng_->config().mac.data(), 6);
  std::memcpy(in.data() + 6, po.mac.data(), 6);
  peer->send(in.data(), in.size());
  for (int i = 0; i < 2000 && dev_->rx_count == 0; ++i) usleep(1000);
  ASSERT_TRUE(eng_->wait_idle(1000));
  ASSERT_EQ(dev_->rx_frames.size(), 1u);
  EXPECT_EQ(dev_->rx_frames[0], in);
}

}  // namespace
}  // namespace rocenic::driver
