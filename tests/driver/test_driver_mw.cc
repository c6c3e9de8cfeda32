// Memory windows and invalidation in the provider, on a fake engine
// (fake_engine.h): the argument checks of ibv_alloc_mw / ibv_dealloc_mw /
// ibv_bind_mw and of BIND_MW, LOCAL_INV and SEND_WITH_INV on both post
// paths, the commands and WQE bytes the provider produces, and how poll_cq
// reads a CQE of a received SEND_WITH_INV. What the engine then does with
// them is verbs_check mw's (through rocenic-run, on the real engine). Also
// which doorbell a post rings (the SQ_BF window for one inline send).
#include <endian.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "addresses.h"
#include "engine_limits.h"
#include "fake_engine.h"
#include "provider.h"

namespace rocenic {
// The provider's backends, for whoever links rocenic_provider_base: here the fake.
std::unique_ptr<Device> make_device(const std::string&, const DeviceOptions&) {
  return std::make_unique<test::FakeEngine>();
}
}  // namespace rocenic

namespace rocenic::driver {
namespace {

using test::FakeEngine;

constexpr unsigned kRemote = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
constexpr int kBindable = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND;

Config test_config() {
  Config c;
  EXPECT_TRUE(parse_mac("02:12:34:56:78:9a", &c.mac));
  c.mtu = 1024;
  c.node_guid = node_guid_of(c.mac);
  IpAddr v4;
  std::string err;
  EXPECT_TRUE(parse_ip("10.1.2.3", &v4, &err));
  c.gids = gid_table(c.mac, {v4});
  return c;
}

uint64_t addr_of(const void* p) { return reinterpret_cast<uintptr_t>(p); }

// A context as libibverbs would hand the provider one, around the fake engine.
class Windows : public ::testing::Test {
 protected:
  void SetUp() override {
    auto dev = std::make_unique<FakeEngine>();
    fake_ = dev.get();
    std::string err;
    int errnum = 0;
    Engine::OpenOptions o;
    o.join_wire = false;
    eng_ = Engine::open_device(std::move(dev), test_config(), o, &err, &errnum);
    ASSERT_TRUE(eng_) << err;
    rc_ = static_cast<RocenicContext*>(std::calloc(1, sizeof(RocenicContext)));
    rc_->state = new ContextState;
    rc_->state->engine = eng_.get();
    ctx_ = &rc_->vctx.context;
    ctx_->num_comp_vectors = 1;
    pd_ = alloc_pd(ctx_);
    ASSERT_TRUE(pd_);
    cq_ = create_cq(ctx_, 16, nullptr, 0);
    ASSERT_TRUE(cq_);
    cq_->context = ctx_;  // what verbs_init_cq does after the provider
    mr_ = reg(buf_, sizeof buf_, kBindable);
    ASSERT_TRUE(mr_);
    qp_ = rts_qp();
    ASSERT_TRUE(qp_);
  }
  void TearDown() override {
    eng_.reset();
    delete rc_->state;
    std::free(rc_);
  }

  ibv_mr* reg(void* addr, size_t len, int access, uint64_t iova = 0) {
    return reg_mr(pd_, addr, len, iova ? iova : addr_of(addr), access);
  }
  ibv_mw* mw(ibv_mw_type type) { return alloc_mw(pd_, type); }
  // A QP in RTS (the fake accepts every transition; libibverbs records the state).
  ibv_qp* rts_qp(ibv_qp_init_attr_ex* ex = nullptr) {
    ibv_qp_init_attr a{};
    a.send_cq = a.recv_cq = cq_;
    a.qp_type = IBV_QPT_RC;
    a.cap.max_send_wr = a.cap.max_recv_wr = 16;
    a.cap.max_send_sge = a.cap.max_recv_sge = 2;
    ibv_qp* q = nullptr;
    if (ex) {
      ex->send_cq = ex->recv_cq = cq_;
      ex->qp_type = IBV_QPT_RC;
      ex->cap = a.cap;
      ex->pd = pd_;
      ex->comp_mask |= IBV_QP_INIT_ATTR_PD;
      q = create_qp_ex(ctx_, ex);
    } else {
      q = create_qp(pd_, &a);
    }
    if (!q) return nullptr;
    for (const ibv_qp_state st : {IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_RTS}) {
      ibv_qp_attr at{};
      at.qp_state = st;
      if (modify_qp(q, &at, IBV_QP_STATE) != 0) return nullptr;
      q->state = st;
    }
    return q;
  }
  uint16_t pi(ibv_qp* q) const { return to_qp(q)->s->sq_pi; }
  const uint8_t* slot(ibv_qp* q, uint16_t at) const {
    const QpState* s = to_qp(q)->s;
    return s->sq + size_t(at & (s->sq_size - 1)) * kWqeSlotBytes;
  }
  spec::SendWqe wqe(ibv_qp* q, uint16_t at) const {
    spec::SendWqe w;
    w.load(slot(q, at));
    return w;
  }
  // A BIND_MW work request binding `w` to [addr, addr+len) of the MR.
  ibv_send_wr bind_wr(ibv_mw* w, uint64_t addr, uint64_t len, unsigned access, uint64_t wr_id = 7) const {
    ibv_send_wr wr{};
    wr.wr_id = wr_id;
    wr.opcode = IBV_WR_BIND_MW;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.bind_mw.mw = w;
    wr.bind_mw.rkey = ibv_inc_rkey(w->rkey);
    wr.bind_mw.bind_info = {mr_, addr, len, access};
    return wr;
  }
  int post(ibv_qp* q, ibv_send_wr* wr, ibv_send_wr** bad) { return post_send(q, wr, bad); }

  std::unique_ptr<Engine> eng_;
  FakeEngine* fake_ = nullptr;
  RocenicContext* rc_ = nullptr;
  ibv_context* ctx_ = nullptr;
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_qp* qp_ = nullptr;
  alignas(4096) char buf_[8192] = {};
};

TEST_F(Windows, TheOpsTableHasTheWindowVerbs) {
  const verbs_context_ops& ops = context_ops();
  EXPECT_EQ(ops.alloc_mw, &alloc_mw);
  EXPECT_EQ(ops.dealloc_mw, &dealloc_mw);
  EXPECT_EQ(ops.bind_mw, &bind_mw);
}

// ALLOC_MW carries the PD and the ibv_mw_type; the window is the engine's rkey.
TEST_F(Windows, AllocMwAsksTheEngineForAWindowOfThePdAndType) {
  for (const ibv_mw_type type : {IBV_MW_TYPE_1, IBV_MW_TYPE_2}) {
    ibv_mw* w = mw(type);
    ASSERT_TRUE(w) << type;
    const FakeEngine::Command* c = fake_->last(spec::CmdOp::kAllocMw);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->args[0], to_pd(pd_)->pdn) << "cmd_alloc_mw pd";
    EXPECT_EQ(c->args[1] & 0xff, static_cast<uint32_t>(type)) << "cmd_alloc_mw type";
    EXPECT_EQ(w->rkey & 0xff, FakeEngine::kMwKeyByte);
    EXPECT_GE(w->rkey >> 8, FakeEngine::kFirstMwIndex);
    EXPECT_EQ(w->type, type);
    EXPECT_EQ(w->pd, pd_);
    EXPECT_EQ(w->context, ctx_);
    EXPECT_EQ(dealloc_mw(w), 0);
  }
}

TEST_F(Windows, AllocMwRefusesOtherTypesAndReportsTheEnginesRefusal) {
  const size_t before = fake_->commands.size();
  for (const int type : {0, 3, 0x100}) {
    errno = 0;
    EXPECT_EQ(mw(static_cast<ibv_mw_type>(type)), nullptr) << type;
    EXPECT_EQ(errno, EINVAL) << type;
  }
  EXPECT_EQ(fake_->commands.size(), before) << "refused before any command";
  fake_->next_status = spec::CmdStatus::kNoResources;
  errno = 0;
  EXPECT_EQ(mw(IBV_MW_TYPE_2), nullptr);
  EXPECT_EQ(errno, ENOMEM) << "every MR-table entry in use";
}

// DEALLOC_MW names the window by its rkey as it is now (binds change the key byte).
// DEALLOC_MW carries the rkey of the window's latest bind posted, whatever
// the application keeps in mw->rkey (a type 2 bind leaves that to it): the
// engine moves the slot's next key byte past it, so the freed window's rkey
// never names the slot's next tenant.
TEST_F(Windows, DeallocMwSendsTheLatestBoundRkeyAndKeepsTheWindowWhenRefused) {
  ibv_mw* w = mw(IBV_MW_TYPE_2);
  ASSERT_TRUE(w);
  const uint32_t allocated = w->rkey;
  w->rkey = ibv_inc_rkey(ibv_inc_rkey(w->rkey));  // the application's copy
  fake_->next_status = spec::CmdStatus::kBusy;
  EXPECT_EQ(dealloc_mw(w), EBUSY);
  EXPECT_EQ(fake_->last(spec::CmdOp::kDeallocMw)->args[0], allocated) << "no bind yet: ALLOC_MW's rkey";
  w->rkey = allocated;
  ibv_send_wr wr = bind_wr(w, addr_of(buf_) + 64, 256, IBV_ACCESS_REMOTE_READ);
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post(qp_, &wr, &bad), 0);
  fake_->next_status = spec::CmdStatus::kBusy;
  EXPECT_EQ(dealloc_mw(w), EBUSY);
  EXPECT_EQ(fake_->last(spec::CmdOp::kDeallocMw)->args[0], wr.bind_mw.rkey) << "the bind's new rkey";
  EXPECT_EQ(dealloc_mw(w), 0) << "the window survived the refusal";
}

TEST_F(Windows, RegMrHandsMwBindToTheEngine) {
  const FakeEngine::Command* c = fake_->last(spec::CmdOp::kRegMr);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->args[spec::kCmdRegMrAccessOff / 4], static_cast<uint32_t>(kBindable));
  static_assert(IBV_ACCESS_MW_BIND == spec::kAccessMwBind);
}

TEST_F(Windows, QueryDeviceReportsBothWindowTypesAndAWindowPerMrEntry) {
  ibv_device_attr_ex x{};
  ASSERT_EQ(query_device_ex(ctx_, nullptr, &x, sizeof x), 0);
  const uint64_t flags = IBV_DEVICE_MEM_WINDOW | IBV_DEVICE_MEM_WINDOW_TYPE_2B;
  EXPECT_EQ(x.orig_attr.device_cap_flags & flags, flags);
  EXPECT_EQ(x.device_cap_flags_ex & flags, flags);
  EXPECT_EQ(x.orig_attr.max_mw, static_cast<int>(FakeEngine::kMaxMr));
  EXPECT_EQ(x.orig_attr.max_mw, x.orig_attr.max_mr);
  ibv_device_attr a{};
  ASSERT_EQ(query_device_ex(ctx_, nullptr, reinterpret_cast<ibv_device_attr_ex*>(&a), sizeof a), 0);
  EXPECT_EQ(a.max_mw, x.orig_attr.max_mw) << "ibv_query_device";
}

// layouts.md send_wqe for BIND_MW: num_sge 0, rkey the new one, remote_addr
// and length the range, bind_mr_lkey, bind_access the remote bits only.
TEST_F(Windows, ABindWqeCarriesTheNewRkeyRangeMrAndRemoteRights) {
  ibv_mw* w = mw(IBV_MW_TYPE_2);
  ASSERT_TRUE(w);
  const uint32_t old_rkey = w->rkey;
  const uint16_t at = pi(qp_);
  ibv_send_wr wr = bind_wr(w, addr_of(buf_) + 100, 4000, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE, 41);
  wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE | IBV_SEND_FENCE;
  ibv_send_wr unbind = bind_wr(w, 0, 0, 0, 42);
  unbind.bind_mw.bind_info.mr = nullptr;  // a zero-length bind of no MR unbinds
  unbind.bind_mw.rkey = ibv_inc_rkey(wr.bind_mw.rkey);
  unbind.send_flags = 0;
  wr.next = &unbind;
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post(qp_, &wr, &bad), 0);
  EXPECT_EQ(pi(qp_), at + 2);
  EXPECT_EQ(fake_->sq_doorbells.back(), qp_->qp_num | uint32_t(at + 2) << 16);
  EXPECT_EQ(w->rkey, old_rkey) << "IBV_WR_BIND_MW leaves the new rkey to the caller";

  const spec::SendWqe b = wqe(qp_, at);
  EXPECT_EQ(b.opcode, 8u);
  EXPECT_EQ(b.wr_id, 41u);
  EXPECT_EQ(b.flags, kWqeSignaled | kWqeFence) << "no packet: nothing inline, nothing solicited";
  EXPECT_EQ(b.num_sge, 0u);
  EXPECT_EQ(b.rkey, (old_rkey & ~0xffu) | ((old_rkey + 1) & 0xff));
  EXPECT_EQ(b.remote_addr, addr_of(buf_) + 100);
  EXPECT_EQ(b.length, 4000u);
  EXPECT_EQ(b.bind_mr_lkey, mr_->lkey);
  EXPECT_EQ(b.bind_access, static_cast<uint32_t>(IBV_ACCESS_REMOTE_WRITE)) << "LOCAL_WRITE means nothing for a window";
  EXPECT_EQ(b.imm, 0u);
  EXPECT_EQ(b.sge0_addr, 0u);
  const uint8_t* raw = slot(qp_, at);
  for (unsigned i = spec::kSendWqeBindAccessOff + 4; i < spec::SendWqe::kSize; ++i)
    ASSERT_EQ(raw[i], 0u) << "byte " << i << " past the bind's fields";

  const spec::SendWqe u = wqe(qp_, at + 1);
  EXPECT_EQ(u.opcode, 8u);
  EXPECT_EQ(u.flags, 0u);
  EXPECT_EQ(u.rkey, unbind.bind_mw.rkey);
  EXPECT_EQ(u.length, 0u);
  EXPECT_EQ(u.bind_mr_lkey, 0u) << "no MR";
  EXPECT_EQ(dealloc_mw(w), 0);
}

// What both post paths refuse before the queue: EINVAL (EOPNOTSUPP for a
// range the WQE cannot hold), *bad_wr on it, nothing posted.
TEST_F(Windows, PostSendRefusesBindsTheWqeCannotCarry) {
  ibv_mw* w = mw(IBV_MW_TYPE_2);
  ASSERT_TRUE(w);
  const uint64_t a = addr_of(buf_);
  const struct {
    const char* what;
    void (*tweak)(ibv_send_wr&);
    int err;
  } cases[] = {
      {"a new rkey of another index", [](ibv_send_wr& r) { r.bind_mw.rkey += 0x100; }, EINVAL},
      {"no window", [](ibv_send_wr& r) { r.bind_mw.mw = nullptr; }, EINVAL},
      {"an SGE", [](ibv_send_wr& r) { r.num_sge = 1; }, EINVAL},
      {"a length without an MR", [](ibv_send_wr& r) { r.bind_mw.bind_info.mr = nullptr; }, EINVAL},
      {"an address without an MR",
       [](ibv_send_wr& r) { r.bind_mw.bind_info.mr = nullptr, r.bind_mw.bind_info.length = 0; }, EINVAL},
      {"zero-based", [](ibv_send_wr& r) { r.bind_mw.bind_info.mw_access_flags |= IBV_ACCESS_ZERO_BASED; }, EINVAL},
      {"MW_BIND as a right", [](ibv_send_wr& r) { r.bind_mw.bind_info.mw_access_flags |= IBV_ACCESS_MW_BIND; },
       EINVAL},
      {"no access flag", [](ibv_send_wr& r) { r.bind_mw.bind_info.mw_access_flags |= 1u << 14; }, EINVAL},
      {"a range that wraps", [](ibv_send_wr& r) { r.bind_mw.bind_info.addr = ~uint64_t{0} - 10; }, EINVAL},
      {"4 GiB", [](ibv_send_wr& r) { r.bind_mw.bind_info.addr = 0, r.bind_mw.bind_info.length = 1ull << 32; },
       EOPNOTSUPP},
  };
  const uint16_t at = pi(qp_);
  for (const auto& c : cases) {
    ibv_send_wr wr = bind_wr(w, a, 64, IBV_ACCESS_REMOTE_READ);
    ibv_sge sg{a, 8, mr_->lkey};
    wr.sg_list = &sg;
    c.tweak(wr);
    ibv_send_wr* bad = nullptr;
    EXPECT_EQ(post(qp_, &wr, &bad), c.err) << c.what;
    EXPECT_EQ(bad, &wr) << c.what;
    EXPECT_EQ(pi(qp_), at) << c.what;
  }
  ibv_send_wr ok = bind_wr(w, a, 64, kRemote);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(post(qp_, &ok, &bad), 0) << "every remote right";
  EXPECT_EQ(wqe(qp_, at).bind_access, kRemote);
  EXPECT_EQ(dealloc_mw(w), 0);
}

// invalidate_rkey goes into imm as a number, little-endian (layouts.md), not
// as imm_data's wire bytes; LOCAL_INV writes no SGE and no length.
TEST_F(Windows, InvalidatingRequestsCarryTheRkeyAsANumber) {
  const uint32_t rkey = 0x00c8a105;
  ibv_sge sg{addr_of(buf_), 24, mr_->lkey};
  ibv_send_wr inv{}, sinv{}, simm{};
  inv.wr_id = 1, inv.opcode = IBV_WR_LOCAL_INV, inv.invalidate_rkey = rkey;
  inv.sg_list = &sg, inv.num_sge = 1;  // ignored, as rxe does
  inv.send_flags = IBV_SEND_SIGNALED | IBV_SEND_SOLICITED;
  sinv.wr_id = 2, sinv.opcode = IBV_WR_SEND_WITH_INV, sinv.invalidate_rkey = rkey;
  sinv.sg_list = &sg, sinv.num_sge = 1, sinv.send_flags = IBV_SEND_SOLICITED;
  simm = sinv;
  simm.wr_id = 3, simm.opcode = IBV_WR_SEND_WITH_IMM, simm.imm_data = htobe32(rkey);
  inv.next = &sinv;
  sinv.next = &simm;
  const uint16_t at = pi(qp_);
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post(qp_, &inv, &bad), 0);

  const spec::SendWqe i = wqe(qp_, at);
  EXPECT_EQ(i.opcode, 7u);
  EXPECT_EQ(i.imm, rkey);
  EXPECT_EQ(slot(qp_, at)[spec::kSendWqeImmOff], 0x05) << "little-endian: the low byte first";
  EXPECT_EQ(i.flags, kWqeSignaled) << "no packet: nothing solicited";
  EXPECT_EQ(i.num_sge, 0u);
  EXPECT_EQ(i.length, 0u);
  EXPECT_EQ(i.sge0_addr, 0u);

  const spec::SendWqe s = wqe(qp_, at + 1);
  EXPECT_EQ(s.opcode, 9u);
  EXPECT_EQ(s.imm, rkey);
  EXPECT_EQ(s.flags, kWqeSolicited);
  EXPECT_EQ(s.num_sge, 1u);
  EXPECT_EQ(s.length, 24u);
  EXPECT_EQ(s.sge0_addr, addr_of(buf_));
  EXPECT_EQ(s.sge0_lkey, mr_->lkey);

  EXPECT_EQ(wqe(qp_, at + 2).imm, wqe_imm(htobe32(rkey))) << "imm_data: the wire bytes";
  EXPECT_NE(wqe(qp_, at + 2).imm, rkey);

  ibv_send_wr inl = sinv;
  inl.next = nullptr;
  inl.send_flags = IBV_SEND_INLINE;
  std::memcpy(buf_, "inline and invalidate", 22);
  sg.length = 22;
  ASSERT_EQ(post(qp_, &inl, &bad), 0);
  const spec::SendWqe n = wqe(qp_, at + 3);
  EXPECT_EQ(n.imm, rkey);
  EXPECT_EQ(n.flags, kWqeInline);
  EXPECT_EQ(std::memcmp(slot(qp_, at + 3) + kWqeDataOffset, "inline and invalidate", 22), 0);
}

// ibv_bind_mw: the checks of rdma-core (the wrapper's and rxe's, made before
// posting), then one BIND_MW WQE with the bind's wr_id and flags and
// ibv_inc_rkey of the window's rkey, which the window then has.
TEST_F(Windows, BindMwChecksTheWindowAndTheRegionBeforePosting) {
  ibv_mw* t1 = mw(IBV_MW_TYPE_1);
  ibv_mw* t2 = mw(IBV_MW_TYPE_2);
  ibv_pd* other_pd = alloc_pd(ctx_);
  ASSERT_TRUE(t1 && t2 && other_pd);
  static char unbindable[4096], readonly[4096];
  ibv_mr* no_bind = reg(unbindable, sizeof unbindable, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  ibv_mr* no_local_write = reg(readonly, sizeof readonly, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND);
  ibv_mr* elsewhere = reg_mr(other_pd, readonly, sizeof readonly, addr_of(readonly), kBindable);
  ASSERT_TRUE(no_bind && no_local_write && elsewhere);
  const uint64_t a = addr_of(buf_);
  const struct {
    const char* what;
    ibv_mw* w;
    ibv_mw_bind_info info;
    int err;
  } cases[] = {
      {"a type 2 window", t2, {mr_, a, 64, IBV_ACCESS_REMOTE_READ}, EINVAL},
      {"a range without an MR", t1, {nullptr, a, 64, IBV_ACCESS_REMOTE_READ}, EINVAL},
      {"an MR of another PD", t1, {elsewhere, addr_of(readonly), 64, IBV_ACCESS_REMOTE_READ}, EPERM},
      {"an MR without MW_BIND", t1, {no_bind, addr_of(unbindable), 64, IBV_ACCESS_REMOTE_READ}, EINVAL},
      {"a writable window on an MR without local write", t1,
       {no_local_write, addr_of(readonly), 64, IBV_ACCESS_REMOTE_WRITE}, EINVAL},
      {"an atomic window on an MR without local write", t1,
       {no_local_write, addr_of(readonly), 64, IBV_ACCESS_REMOTE_ATOMIC}, EINVAL},
      {"a range starting before the MR", t1, {mr_, a - 1, 64, IBV_ACCESS_REMOTE_READ}, EINVAL},
      {"a range ending past the MR", t1, {mr_, a + sizeof buf_ - 63, 64, IBV_ACCESS_REMOTE_READ}, EINVAL},
      {"zero-based", t1, {mr_, a, 64, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ZERO_BASED}, EINVAL},
      {"MW_BIND as a right", t1, {mr_, a, 64, IBV_ACCESS_MW_BIND}, EINVAL},
  };
  const uint16_t at = pi(qp_);
  const uint32_t rkey1 = t1->rkey;
  for (const auto& c : cases) {
    ibv_mw_bind b{9, IBV_SEND_SIGNALED, c.info};
    errno = 0;
    EXPECT_EQ(bind_mw(qp_, c.w, &b), c.err) << c.what;
    EXPECT_EQ(errno, c.err) << c.what;
    EXPECT_EQ(pi(qp_), at) << c.what << ": nothing posted";
  }
  EXPECT_EQ(t1->rkey, rkey1);

  ibv_mw_bind ro{9, IBV_SEND_SIGNALED, {no_local_write, addr_of(readonly), 64, IBV_ACCESS_REMOTE_READ}};
  EXPECT_EQ(bind_mw(qp_, t1, &ro), 0) << "a read-only window needs no local write";
  ibv_mw_bind whole{10, 0, {mr_, a, sizeof buf_, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE}};
  EXPECT_EQ(bind_mw(qp_, t1, &whole), 0) << "the whole MR, LOCAL_WRITE accepted";
  ASSERT_EQ(pi(qp_), at + 2);
  EXPECT_EQ(t1->rkey, ibv_inc_rkey(ibv_inc_rkey(rkey1))) << "the window has the rkey of its last bind";
  const spec::SendWqe w = wqe(qp_, at + 1);
  EXPECT_EQ(w.opcode, 8u);
  EXPECT_EQ(w.wr_id, 10u);
  EXPECT_EQ(w.flags, 0u) << "unsignaled, as asked";
  EXPECT_EQ(w.rkey, t1->rkey);
  EXPECT_EQ(w.remote_addr, a);
  EXPECT_EQ(w.length, sizeof buf_);
  EXPECT_EQ(w.bind_mr_lkey, mr_->lkey);
  EXPECT_EQ(w.bind_access, static_cast<uint32_t>(IBV_ACCESS_REMOTE_WRITE));

  t1->rkey |= 0xff;  // the key byte wraps, as ibv_inc_rkey makes it
  ibv_mw_bind unbind{11, 0, {nullptr, 0, 0, 0}};
  EXPECT_EQ(bind_mw(qp_, t1, &unbind), 0) << "a zero-length bind without an MR unbinds";
  EXPECT_EQ(t1->rkey & 0xff, 0u);
  EXPECT_EQ(wqe(qp_, at + 2).rkey, t1->rkey);
  EXPECT_EQ(wqe(qp_, at + 2).bind_mr_lkey, 0u);

  ibv_qp_attr st{};
  st.qp_state = IBV_QPS_RESET;
  ASSERT_EQ(modify_qp(qp_, &st, IBV_QP_STATE), 0);
  qp_->state = IBV_QPS_RESET;
  const uint32_t before = t1->rkey;
  EXPECT_EQ(bind_mw(qp_, t1, &ro), EINVAL) << "a QP not in RTS posts nothing";
  EXPECT_EQ(t1->rkey, before) << "and the window keeps its rkey";
}

// The low-latency post path (issue 11; the fixture's QPs serve any post):
// a post of one inline send WQE writes it through the SQ_BF window -- the
// words the engine reads of it, equal to the ring slot's -- with an
// SQ_BF_DB; two requests in one post, or one that is not inline, ring SQ_DB
// as before. The same on the wr_* API.
TEST_F(Windows, OneInlineSendGoesThroughTheSqBfWindowWithItsDoorbell) {
  const auto check_bf = [&](ibv_qp* q, uint16_t at, unsigned want_bytes, const char* what) {
    ASSERT_FALSE(fake_->bf_doorbells.empty()) << what;
    const FakeEngine::BfDoorbell& d = fake_->bf_doorbells.back();
    EXPECT_EQ(d.value, q->qp_num | uint32_t(at + 1) << 16) << what;
    ASSERT_EQ(d.words.size(), want_bytes / 4) << what;
    for (size_t i = 0; i < d.words.size(); ++i) {
      EXPECT_EQ(d.words[i].first, 4 * i) << what;
      uint32_t v;
      std::memcpy(&v, slot(q, at) + 4 * i, 4);
      EXPECT_EQ(d.words[i].second, v) << what << ": word " << i << " as in the ring";
    }
  };
  char data[96];
  for (unsigned i = 0; i < sizeof data; ++i) data[i] = static_cast<char>(i * 3);
  std::memcpy(buf_, data, sizeof data);
  ibv_sge sg{addr_of(buf_), 61, mr_->lkey};
  ibv_send_wr wr{};
  wr.wr_id = 1, wr.opcode = IBV_WR_RDMA_WRITE, wr.sg_list = &sg, wr.num_sge = 1;
  wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
  wr.wr.rdma.remote_addr = 0x1000, wr.wr.rdma.rkey = 0x55;
  ibv_send_wr* bad = nullptr;
  uint16_t at = pi(qp_);
  ASSERT_EQ(post(qp_, &wr, &bad), 0);
  check_bf(qp_, at, 32 + 64, "61 inline bytes: the header and 16 words of data");
  // two in one post: the usual doorbell
  ibv_send_wr two = wr;
  wr.next = &two;
  const size_t bfs = fake_->bf_doorbells.size();
  at = pi(qp_);
  ASSERT_EQ(post(qp_, &wr, &bad), 0);
  EXPECT_EQ(fake_->bf_doorbells.size(), bfs) << "two requests: SQ_DB";
  EXPECT_EQ(fake_->sq_doorbells.back(), qp_->qp_num | uint32_t(at + 2) << 16);
  // not inline: the usual doorbell
  wr.next = nullptr;
  wr.send_flags = IBV_SEND_SIGNALED;
  ASSERT_EQ(post(qp_, &wr, &bad), 0);
  EXPECT_EQ(fake_->bf_doorbells.size(), bfs) << "not inline: SQ_DB";
  // the wr_* API: one inline SEND through the window
  ibv_qp_init_attr_ex x{};
  x.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  x.send_ops_flags = IBV_QP_EX_WITH_SEND;
  ibv_qp* q = rts_qp(&x);
  ASSERT_TRUE(q);
  ibv_qp_ex* qx = &to_qp(q)->vqp.qp_ex;
  at = pi(q);
  qx->wr_start(qx);
  qx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
  qx->wr_id = 9;
  qx->wr_send(qx);
  qx->wr_set_inline_data(qx, data, 96);
  ASSERT_EQ(qx->wr_complete(qx), 0);
  check_bf(q, at, 128, "96 inline bytes: the whole window");
}

// The same requests through ibv_wr_*: byte for byte the WQEs post_send writes.
TEST_F(Windows, TheWrApiWritesTheSameWqesAsPostSend) {
  ibv_qp_init_attr_ex x{};
  x.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  x.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_LOCAL_INV | IBV_QP_EX_WITH_BIND_MW |
                     IBV_QP_EX_WITH_SEND_WITH_INV;
  ibv_qp* q = rts_qp(&x);
  ASSERT_TRUE(q) << "LOCAL_INV, BIND_MW and SEND_WITH_INV on the wr_* API: errno " << errno;
  ibv_qp_ex* qx = &to_qp(q)->vqp.qp_ex;
  ibv_mw* w = mw(IBV_MW_TYPE_2);
  ASSERT_TRUE(w);
  const uint64_t a = addr_of(buf_);
  const uint32_t new_rkey = ibv_inc_rkey(w->rkey);
  const ibv_mw_bind_info info{mr_, a + 8, 512, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};

  ibv_sge sg{a, 32, mr_->lkey};
  ibv_send_wr wr[3] = {};
  wr[0] = bind_wr(w, info.addr, info.length, info.mw_access_flags, 21);
  wr[1].wr_id = 22, wr[1].opcode = IBV_WR_SEND_WITH_INV, wr[1].invalidate_rkey = new_rkey;
  wr[1].sg_list = &sg, wr[1].num_sge = 1, wr[1].send_flags = IBV_SEND_SIGNALED;
  wr[2].wr_id = 23, wr[2].opcode = IBV_WR_LOCAL_INV, wr[2].invalidate_rkey = new_rkey;
  wr[2].send_flags = IBV_SEND_SIGNALED;
  wr[0].next = &wr[1];
  wr[1].next = &wr[2];
  const uint16_t at = pi(q);
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(post(q, wr, &bad), 0);

  qx->wr_start(qx);
  qx->wr_flags = IBV_SEND_SIGNALED;
  qx->wr_id = 21;
  qx->wr_bind_mw(qx, w, new_rkey, &info);
  qx->wr_id = 22;
  qx->wr_send_inv(qx, new_rkey);
  qx->wr_set_sge(qx, sg.lkey, sg.addr, sg.length);
  qx->wr_id = 23;
  qx->wr_local_inv(qx, new_rkey);
  ASSERT_EQ(qx->wr_complete(qx), 0);
  ASSERT_EQ(pi(q), at + 6);
  for (uint16_t i = 0; i < 3; ++i)
    EXPECT_EQ(std::memcmp(slot(q, at + i), slot(q, at + 3 + i), spec::SendWqe::kSize), 0) << "WQE " << i;
  EXPECT_EQ(wqe(q, at + 3).bind_mr_lkey, mr_->lkey) << "the data area did not overwrite the bind";

  const struct {
    const char* what;
    void (*post)(ibv_qp_ex*, ibv_mw*, uint32_t, const ibv_mw_bind_info*);
  } refused[] = {
      {"a bind to another index",
       [](ibv_qp_ex* q, ibv_mw* m, uint32_t r, const ibv_mw_bind_info* i) { q->wr_bind_mw(q, m, r + 0x100, i); }},
      {"a bind without its info",
       [](ibv_qp_ex* q, ibv_mw* m, uint32_t r, const ibv_mw_bind_info*) { q->wr_bind_mw(q, m, r, nullptr); }},
      {"an SGE on a LOCAL_INV",
       [](ibv_qp_ex* q, ibv_mw*, uint32_t r, const ibv_mw_bind_info* i) {
         q->wr_local_inv(q, r);
         q->wr_set_sge(q, i->mr->lkey, i->addr, 8);
       }},
      {"inline data on a BIND_MW",
       [](ibv_qp_ex* q, ibv_mw* m, uint32_t r, const ibv_mw_bind_info* i) {
         q->wr_bind_mw(q, m, r, i);
         q->wr_set_inline_data(q, i->mr->addr, 8);
       }},
  };
  for (const auto& r : refused) {
    qx->wr_start(qx);
    r.post(qx, w, new_rkey, &info);
    EXPECT_EQ(qx->wr_complete(qx), EINVAL) << r.what;
    EXPECT_EQ(pi(q), at + 6) << r.what << ": nothing of the batch posted";
  }
}

// A received SEND_WITH_INV: the CQE's imm holds the IETH's rkey in wire
// order, the application gets it as the number invalidated_rkey. Completions
// of BIND_MW and LOCAL_INV free their send-queue slots like any other.
TEST_F(Windows, PollCqReadsTheInvalidatedRkeyAndTheWindowCompletions) {
  const uint32_t rkey = 0x00c8a107;
  const uint32_t qpn = qp_->qp_num;
  const struct {
    uint8_t opcode, wc_flags;
    uint16_t wqe_counter;
  } cqes[] = {
      {static_cast<uint8_t>(IBV_WC_RECV), IBV_WC_WITH_INV, 0},
      {static_cast<uint8_t>(IBV_WC_RECV), IBV_WC_WITH_IMM, 1},
      {static_cast<uint8_t>(IBV_WC_BIND_MW), 0, 4},
      {static_cast<uint8_t>(IBV_WC_LOCAL_INV), 0, 5},
  };
  uint8_t* ring = to_cq(cq_)->s->ring;
  for (unsigned i = 0; i < 4; ++i) {
    spec::Cqe q;
    q.wr_id = 100 + i;
    q.qp_num = qpn;
    q.opcode = cqes[i].opcode;
    q.wc_flags = cqes[i].wc_flags;
    q.wqe_counter = cqes[i].wqe_counter;
    q.owner = 1;  // the first pass over the ring
    uint8_t* e = ring + i * spec::Cqe::kSize;
    q.store(e);
    const uint32_t wire = htobe32(rkey);  // the 4 bytes as the IETH / ImmDt carried them
    std::memcpy(e + spec::kCqeImmOff, &wire, 4);
  }
  ibv_wc wc[4];
  ASSERT_EQ(poll_cq(cq_, 4, wc), 4);
  EXPECT_EQ(wc[0].opcode, IBV_WC_RECV);
  EXPECT_EQ(wc[0].wc_flags, static_cast<unsigned>(IBV_WC_WITH_INV));
  EXPECT_EQ(wc[0].invalidated_rkey, rkey);
  EXPECT_EQ(wc[1].wc_flags, static_cast<unsigned>(IBV_WC_WITH_IMM));
  EXPECT_EQ(wc[1].imm_data, htobe32(rkey)) << "imm_data stays in network order";
  EXPECT_EQ(wc[2].opcode, IBV_WC_BIND_MW);
  EXPECT_EQ(wc[3].opcode, IBV_WC_LOCAL_INV);
  EXPECT_EQ(wc[3].wr_id, 103u);
  EXPECT_EQ(to_qp(qp_)->s->sq_ci.load(), 6u) << "the LOCAL_INV's slot and every one before it are free";
  EXPECT_EQ(to_qp(qp_)->s->rq_ci.load(), 2u);
}

}  // namespace
}  // namespace rocenic::driver
