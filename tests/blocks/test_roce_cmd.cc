// The command processor (roce_cmd): RTL and model under a long random command
// stream -- good and bad commands, every QP transition allowed and refused,
// masks with missing and extra bits, PDs/CQs/QPs/MRs exhausted, BUSY on
// objects in use, MR key bytes wrapping -- must give the same answers and
// table writes; the stream is built against expectations typed here from
// docs/engine.md (not from the block), so the model is judged as well. Then
// the exact ibv_rc_pingpong sequence, hand-checked field by field on both.
#include <gtest/gtest.h>
#include <infiniband/verbs.h>

#include <array>
#include <functional>
#include <map>
#include <random>
#include <set>

#include "ctrl/roce_cmd.h"
#include "sched/flit_adapter.h"
#include "Vroce_cmd_4k.h"
#include "rtl/roce_cmd_rtl.h"
#include "xcheck.h"

namespace rocenic {
namespace {

using spec::CmdOp;
using spec::CmdStatus;

// attr_mask bits straight from libibverbs (the application's values), not
// from spec/: the test holds the engine to what programs pass.
enum : uint32_t {
  kState = IBV_QP_STATE, kCurState = IBV_QP_CUR_STATE, kEnSqdAsync = IBV_QP_EN_SQD_ASYNC_NOTIFY,
  kAccess = IBV_QP_ACCESS_FLAGS, kPkey = IBV_QP_PKEY_INDEX, kPort = IBV_QP_PORT, kQkey = IBV_QP_QKEY,
  kAv = IBV_QP_AV, kPathMtu = IBV_QP_PATH_MTU, kTimeout = IBV_QP_TIMEOUT, kRetryCnt = IBV_QP_RETRY_CNT,
  kRnrRetry = IBV_QP_RNR_RETRY, kRqPsn = IBV_QP_RQ_PSN, kMaxQpRdAtomic = IBV_QP_MAX_QP_RD_ATOMIC,
  kAltPath = IBV_QP_ALT_PATH, kMinRnrTimer = IBV_QP_MIN_RNR_TIMER, kSqPsn = IBV_QP_SQ_PSN,
  kMaxDestRdAtomic = IBV_QP_MAX_DEST_RD_ATOMIC, kPathMigState = IBV_QP_PATH_MIG_STATE, kCap = IBV_QP_CAP,
  kDestQpn = IBV_QP_DEST_QPN
};
enum : uint8_t { kReset = 0, kInit = 1, kRtr = 2, kRts = 3, kSqd = 4, kSqe = 5, kErr = 6 };

// docs/engine.md's transition table, row by row.
// QP types (qp_type enum) as bits of Row::types
constexpr uint8_t kRc = 2, kUc = 3, kUd = 4, kRcBit = 1u << kRc, kUcBit = 1u << kUc, kUdBit = 1u << kUd,
                  kBoth = kRcBit | kUcBit, kAll = kBoth | kUdBit;
struct Row {
  const char* name;
  int from;  // -1: any state
  uint8_t to;
  uint32_t req, opt;
  spec::QpAction action;
  uint8_t types = kBoth;
};
// Linux ib_modify_qp_is_ok for RC, UC and UD, the attributes the engine has
const Row kRows[] = {
    {"RESET->INIT", kReset, kInit, kPkey | kPort | kAccess, 0, spec::QpAction::kToInit},
    {"INIT->INIT", kInit, kInit, 0, kPkey | kPort | kAccess, spec::QpAction::kAttr},
    {"INIT->RTR", kInit, kRtr, kAv | kPathMtu | kDestQpn | kRqPsn | kMaxDestRdAtomic | kMinRnrTimer, kPkey | kAccess,
     spec::QpAction::kToRtr, kRcBit},
    {"UC INIT->RTR", kInit, kRtr, kAv | kPathMtu | kDestQpn | kRqPsn, kPkey | kAccess, spec::QpAction::kToRtr, kUcBit},
    {"RTR->RTS", kRtr, kRts, kSqPsn | kTimeout | kRetryCnt | kRnrRetry | kMaxQpRdAtomic, kAccess | kMinRnrTimer,
     spec::QpAction::kToRts, kRcBit},
    {"UC RTR->RTS", kRtr, kRts, kSqPsn, kAccess, spec::QpAction::kToRts, kUcBit},
    {"RTS->RTS", kRts, kRts, 0, kAccess | kMinRnrTimer, spec::QpAction::kAttr, kRcBit},
    {"UC RTS->RTS", kRts, kRts, 0, kAccess, spec::QpAction::kAttr, kUcBit},
    {"RTS->SQD", kRts, kSqd, 0, 0, spec::QpAction::kToSqd, kAll},
    {"UD RESET->INIT", kReset, kInit, kPkey | kPort | kQkey, 0, spec::QpAction::kToInit, kUdBit},
    {"UD INIT->INIT", kInit, kInit, 0, kPkey | kPort | kQkey, spec::QpAction::kAttr, kUdBit},
    {"UD INIT->RTR", kInit, kRtr, 0, kPkey | kQkey, spec::QpAction::kToRtr, kUdBit},
    {"UD RTR->RTS", kRtr, kRts, kSqPsn, kQkey, spec::QpAction::kToRts, kUdBit},
    {"UD RTS->RTS", kRts, kRts, 0, kQkey, spec::QpAction::kAttr, kUdBit},
    {"UD SQD->SQD", kSqd, kSqd, 0, kPkey | kQkey, spec::QpAction::kAttr, kUdBit},
    {"UD SQD->RTS", kSqd, kRts, 0, kQkey, spec::QpAction::kAttr, kUdBit},
    {"SQD->SQD", kSqd, kSqd, 0,
     kPkey | kPort | kAv | kPathMtu | kTimeout | kRetryCnt | kRnrRetry | kMaxQpRdAtomic | kMaxDestRdAtomic | kAccess |
         kMinRnrTimer,
     spec::QpAction::kAttr, kRcBit},
    {"UC SQD->SQD", kSqd, kSqd, 0, kPkey | kAv | kAccess, spec::QpAction::kAttr, kUcBit},
    {"SQD->RTS", kSqd, kRts, 0, kAccess | kMinRnrTimer, spec::QpAction::kAttr, kRcBit},
    {"UC SQD->RTS", kSqd, kRts, 0, kAccess, spec::QpAction::kAttr, kUcBit},
    {"any->RESET", -1, kReset, 0, 0, spec::QpAction::kReset, kAll},
    {"any->ERR", -1, kErr, 0, 0, spec::QpAction::kToErr, kAll},
};
const Row* row_for(uint8_t from, uint8_t to, uint8_t type) {
  for (const Row& r : kRows)
    if ((r.from < 0 || r.from == from) && r.to == to && (r.types >> type & 1)) return &r;
  return nullptr;
}
const uint32_t kKnownBits[] = {
    kState,   kCurState,    kEnSqdAsync, kAccess,          kPkey,         kPort,  kQkey,
    kAv,      kPathMtu,     kTimeout,    kRetryCnt,        kRnrRetry,     kRqPsn, kMaxQpRdAtomic,
    kAltPath, kMinRnrTimer, kSqPsn,      kMaxDestRdAtomic, kPathMigState, kCap,   kDestQpn};

constexpr uint64_t kMac = 0x02AB00C0FFEEull;
constexpr unsigned kMaxPd = 256, kMaxCq = 256, kMaxQp = 256, kMaxMr = 1024, kMtt = 4096;

Ip128 v6(std::initializer_list<uint8_t> head, uint8_t last) {
  Ip128 g{};
  unsigned i = 0;
  for (uint8_t b : head) g[i++] = b;
  g[15] = last;
  return g;
}
// GID table: 0/1 link-local v1/v2, 2/3 IPv4 10.0.0.1 v1/v2, 4 a global IPv6 v2,
// 5 unused, 6 type 3 (no such type), 7 IPv4 10.1.2.3 v2 on VLAN 42, the rest unused.
const Ip128 kGidLl = v6({0xfe, 0x80}, 0x01);
const Ip128 kGidV4 = ipv4_mapped(0x0A000001);
const Ip128 kGidV6 = v6({0x20, 0x01, 0x0d, 0xb8}, 0x42);
template <typename B>
void configure(B& b) {
  b.set_port_mac(kMac);
  b.set_gid(0, kGidLl, 1);
  b.set_gid(1, kGidLl, 2);
  b.set_gid(2, kGidV4, 1);
  b.set_gid(3, kGidV4, 2);
  b.set_gid(4, kGidV6, 2);
  b.set_gid(6, kGidV6, 3);
  b.set_gid(7, ipv4_mapped(0x0A010203), 2, 0x1000 | 42);  // on VLAN 42
}

// The model block behind its flit adapter, with the same static inputs.
std::unique_ptr<Block> configured_model() {
  auto b = model::make_roce_cmd_block();
  configure(*static_cast<model::FlitAdapter&>(*b).block<model::RoceCmd>());
  return b;
}

// ---- commands
Flit cmd_bytes(uint8_t op, const uint8_t* a) {
  spec::CmdReq c;
  c.op = op;
  for (unsigned k = 0; k < 64; ++k) c.args[k / 4] |= uint32_t{a[k]} << (8 * (k % 4));
  return desc_to_flit(c);
}
template <typename L>
Flit cmd(CmdOp op, const L& layout) {
  uint8_t a[64];
  layout.store(a);
  return cmd_bytes(static_cast<uint8_t>(op), a);
}
Flit cmd0(CmdOp op, uint32_t arg0 = 0) {
  uint8_t a[64] = {};
  for (unsigned k = 0; k < 4; ++k) a[k] = static_cast<uint8_t>(arg0 >> (8 * k));
  return cmd_bytes(static_cast<uint8_t>(op), a);
}

// What one command produced.
struct Out {
  spec::CmdResp resp;
  std::vector<spec::QpCfg> qp;
  std::vector<spec::CqCfg> cq;
  std::vector<std::pair<unsigned, spec::MrCtx>> mr;
  std::vector<std::pair<unsigned, uint64_t>> mtt;
  CmdStatus status() const { return static_cast<CmdStatus>(resp.status); }
};

// Runs commands one at a time through a block and splits what comes out.
struct Runner {
  Block& b;
  Out run(const Flit& f) {
    XcheckConfig cfg;
    cfg.in_idle = 0;
    cfg.out_stall = 0;
    cfg.quiet_cycles = 64;  // longer than any command's silent stretch (the RTL updates reference counts)
    const auto o = drive_block(b, {{f}}, cfg);
    Out r;
    EXPECT_EQ(o[0].size(), 1u) << "exactly one response per command";
    if (!o[0].empty()) r.resp = desc_from_flit<spec::CmdResp>(o[0][0].flits[0]);
    for (const Txn& t : o[1]) r.qp.push_back(desc_from_flit<spec::QpCfg>(t.flits[0]));
    for (const Txn& t : o[2]) r.cq.push_back(desc_from_flit<spec::CqCfg>(t.flits[0]));
    for (const Txn& t : o[3]) {
      const auto& d = t.flits[0].data;
      Flit rest;
      rest.data.assign(d.begin() + 2, d.end());
      r.mr.emplace_back(d[0] | d[1] << 8, desc_from_flit<spec::MrCtx>(rest));
    }
    for (const Txn& t : o[4]) {
      const auto& d = t.flits[0].data;
      uint64_t pa = 0;
      for (unsigned k = 0; k < 8; ++k) pa |= uint64_t{d[2 + k]} << (8 * k);
      r.mtt.emplace_back(d[0] | d[1] << 8, pa);
    }
    return r;
  }
  // A transport failure reported for qpn (port 1): never answered; the
  // qp_cfg it makes roce_cmd send, if any.
  std::vector<spec::QpCfg> qp_err(uint32_t qpn) {
    XcheckConfig cfg;
    cfg.in_idle = 0;
    cfg.out_stall = 0;
    cfg.quiet_cycles = 64;
    spec::QpErr e;
    e.qpn = static_cast<uint16_t>(qpn);
    const auto o = drive_block(b, {{}, {desc_to_flit(e)}}, cfg);
    EXPECT_TRUE(o[0].empty()) << "a qp_err is not answered";
    std::vector<spec::QpCfg> q;
    for (const Txn& t : o[1]) q.push_back(desc_from_flit<spec::QpCfg>(t.flits[0]));
    return q;
  }
};

// ---- the random stream, built against the model and checked against docs/engine.md
class StreamBuilder {
 public:
  explicit StreamBuilder(uint64_t seed) : rng_(seed) {}
  std::vector<Flit> stim;
  std::map<CmdStatus, unsigned> statuses;
  std::map<std::string, std::array<unsigned, 2>> rows;  // row -> {taken, refused}
  unsigned refused_missing = 0, refused_extra = 0, refused_no_state = 0, refused_pair = 0, busy_pd = 0, busy_cq = 0;
  unsigned key_wraps = 0, mw_allocs = 0, mw_deallocs = 0;

  // One command with the status docs/engine.md says it must get.
  Out expect(const Flit& f, CmdStatus want, const char* what) {
    stim.push_back(f);
    Out o = runner_.run(f);
    EXPECT_EQ(static_cast<int>(o.status()), static_cast<int>(want))
        << what << " (command #" << stim.size() - 1 << "): got " << spec::to_string(o.status()) << ", want "
        << spec::to_string(want);
    ++statuses[o.status()];
    if (o.status() != CmdStatus::kOk) {
      EXPECT_TRUE(o.qp.empty() && o.cq.empty() && o.mr.empty() && o.mtt.empty())
          << what << ": a refused command writes nothing";
      EXPECT_EQ(o.resp.res, (std::array<uint32_t, 4>{})) << what;
    }
    return o;
  }

  uint32_t pick(const std::vector<uint32_t>& v) { return v[rng_() % v.size()]; }
  bool chance(unsigned pct) { return rng_() % 100 < pct; }

  // ---- PDs
  void alloc_pd() {
    const bool room = pds_.size() < kMaxPd;
    Out o = expect(cmd0(CmdOp::kAllocPd), room ? CmdStatus::kOk : CmdStatus::kNoResources, "ALLOC_PD");
    if (room) {
      EXPECT_EQ(o.resp.res[0], lowest_free(pds_, 0)) << "lowest free PD";
      pds_.insert(o.resp.res[0]);
    }
  }
  void dealloc_pd(uint32_t pd) {
    CmdStatus want = !pds_.count(pd) ? CmdStatus::kNotFound : pd_uses(pd) ? CmdStatus::kBusy : CmdStatus::kOk;
    if (want == CmdStatus::kBusy) ++busy_pd;
    expect(cmd0(CmdOp::kDeallocPd, pd), want, "DEALLOC_PD");
    if (want == CmdStatus::kOk) pds_.erase(pd);
  }
  // ---- CQs
  void create_cq(bool bad) {
    spec::CmdCreateCq c;
    c.base = (rng_() & 0x7FFFFFFFF000ull) | 32 * (rng_() % 64);
    c.log_size = static_cast<uint8_t>(rng_() % 17);
    if (bad)
      (rng_() % 2 ? c.log_size = static_cast<uint8_t>(rng_() % 2 ? 17 : 17 + rng_() % 239) : c.base |= 1 + rng_() % 31);
    const bool room = cqs_.size() < kMaxCq;
    Out o = expect(cmd(CmdOp::kCreateCq, c),
                   bad    ? CmdStatus::kBadParam
                   : room ? CmdStatus::kOk
                          : CmdStatus::kNoResources,
                   "CREATE_CQ");
    if (o.status() == CmdStatus::kOk) {
      EXPECT_EQ(o.resp.res[0], lowest_free(cqs_, 0));
      EXPECT_EQ(o.cq.size(), 1u);
      if (o.cq.size() == 1) {
        EXPECT_EQ(o.cq[0].cq, o.resp.res[0]);
        EXPECT_EQ(o.cq[0].valid, 1u);
        EXPECT_EQ(o.cq[0].base, c.base);
        EXPECT_EQ(o.cq[0].log_size, c.log_size);
      }
      cqs_.insert(o.resp.res[0]);
    }
  }
  void destroy_cq(uint32_t cq) {
    CmdStatus want = !cqs_.count(cq) ? CmdStatus::kNotFound : cq_uses(cq) ? CmdStatus::kBusy : CmdStatus::kOk;
    if (want == CmdStatus::kBusy) ++busy_cq;
    Out o = expect(cmd0(CmdOp::kDestroyCq, cq), want, "DESTROY_CQ");
    if (want == CmdStatus::kOk) {
      cqs_.erase(cq);
      EXPECT_TRUE(o.cq.size() == 1 && o.cq[0].cq == cq && o.cq[0].valid == 0);
    }
  }
  // ---- MTT and MRs
  void write_mtt(bool bad) {
    spec::CmdWriteMtt w;
    w.count = 1 + rng_() % 6;
    w.index =
        chance(10) ? kMtt - w.count : static_cast<uint32_t>(rng_() % (kMtt - w.count + 1));  // the last entries too
    if (bad) {
      switch (rng_() % 4) {
        case 0:
          w.count = 0;
          break;
        case 1:
          w.count = chance(50) ? 7 : 7 + rng_() % 100;
          break;
        case 2:
          w.index = kMtt - w.count + 1 + static_cast<uint32_t>(rng_() % w.count);
          break;
        default:
          w.index = 0xFFFFFFFFu - static_cast<uint32_t>(rng_() % 3);
          break;
      }
    }
    uint8_t a[64];
    w.store(a);
    std::vector<uint64_t> pas;
    for (unsigned i = 0; i < 6; ++i) {
      pas.push_back(rng_());
      for (unsigned k = 0; k < 8; ++k) a[8 + 8 * i + k] = static_cast<uint8_t>(pas[i] >> (8 * k));
    }
    Out o = expect(cmd_bytes(static_cast<uint8_t>(CmdOp::kWriteMtt), a), bad ? CmdStatus::kBadParam : CmdStatus::kOk,
                   "WRITE_MTT");
    if (!bad) {
      EXPECT_EQ(o.mtt.size(), w.count);
      for (unsigned i = 0; i < o.mtt.size(); ++i) {
        EXPECT_EQ(o.mtt[i].first, w.index + i);
        EXPECT_EQ(o.mtt[i].second, pas[i]);
      }
    }
  }
  // kind: 0 good, 1 bad pd, 2 bad parameter
  void reg_mr(int kind) {
    spec::CmdRegMr m;
    m.pd = pds_.empty() || kind == 1 ? bogus(pds_, kMaxPd) : pick_set(pds_);
    static const uint32_t kAcc[] = {0, 1, 3, 5, 7, 9, 15, 4, 1 | 8, 1 | 2 | 4, 16, 16 | 1 | 2, 16 | 15};
    m.access = kAcc[rng_() % 13];  // 16: ACCESS_MW_BIND
    m.page_shift = static_cast<uint8_t>(12 + rng_() % 19);
    m.iova = rng_() & 0x00007FFFFFFFFFFFull;
    m.length = 1 + rng_() % (uint64_t{1} << (rng_() % 24));
    const uint64_t last = m.iova + m.length - 1;
    m.npages = static_cast<uint32_t>((last >> m.page_shift) - (m.iova >> m.page_shift) + 1 + rng_() % 2);
    m.mtt_base = static_cast<uint32_t>(rng_() % (kMtt - m.npages + 1));
    if (kind == 2) {
      switch (rng_() % 9) {
        case 0:
          m.access |= 32u << (rng_() % 27);
          break;
        case 1:
          m.access = 2 | (rng_() % 2 ? 4 : 0);
          break;  // remote write without local write
        case 2:
          m.access = 8;
          break;  // remote atomic without local write
        case 3:
          m.length = 0;
          break;
        case 4:
          m.page_shift = static_cast<uint8_t>(chance(50)   ? (rng_() % 2 ? 11 : 31)
                                              : rng_() % 2 ? 11 - rng_() % 12
                                                           : 31 + rng_() % 200);
          break;
        case 5:
          m.npages = static_cast<uint32_t>((last >> m.page_shift) - (m.iova >> m.page_shift));
          break;
        case 6:
          m.mtt_base = kMtt - m.npages + 1 + static_cast<uint32_t>(rng_() % 8);
          break;
        case 7:
          m.iova = ~uint64_t{0} - rng_() % 4096;
          m.length = 8192;
          m.npages = 4;
          m.mtt_base = 0;
          break;
        default:
          m.mtt_base = 0xFFFFFFF0u;
          break;
      }
    }
    const bool pd_ok = pds_.count(m.pd) != 0;
    const bool room = mrs_.size() < kMaxMr;
    const CmdStatus want = !pd_ok      ? CmdStatus::kNotFound
                           : kind == 2 ? CmdStatus::kBadParam
                           : room      ? CmdStatus::kOk
                                       : CmdStatus::kNoResources;
    Out o = expect(cmd(CmdOp::kRegMr, m), want, "REG_MR");
    if (want != CmdStatus::kOk) return;
    const uint32_t idx = lowest_free_mr();
    uint8_t& k = key_byte_[idx];
    if (k == 255) ++key_wraps;
    k = k == 255 ? 1 : k + 1;
    const uint32_t key = idx << 8 | k;
    EXPECT_EQ(o.resp.res[0], key);
    EXPECT_EQ(o.mr.size(), 1u);
    if (o.mr.size() == 1) {
      const spec::MrCtx& c = o.mr[0].second;
      EXPECT_EQ(o.mr[0].first, idx);
      EXPECT_TRUE(c.valid == 1 && c.key == k && c.pd == m.pd && c.access == (m.access & 15) && c.iova == m.iova &&
                  c.length == m.length && c.mtt_base == m.mtt_base && c.page_shift == m.page_shift &&
                  c.mw_bind == (m.access >> 4) && c.mw == 0);
    }
    mrs_[idx] = {key, m.pd};
  }
  // kind: 0 good, 1 bad pd, 2 bad type
  void alloc_mw(int kind) {
    spec::CmdAllocMw m;
    m.pd = pds_.empty() || kind == 1 ? bogus(pds_, kMaxPd) : pick_set(pds_);
    m.type = kind == 2 ? static_cast<uint8_t>(chance(50) ? 0 : 3 + rng_() % 253) : static_cast<uint8_t>(1 + rng_() % 2);
    const bool pd_ok = pds_.count(m.pd) != 0;
    const CmdStatus want = !pd_ok                    ? CmdStatus::kNotFound
                           : kind == 2               ? CmdStatus::kBadParam
                           : mrs_.size() < kMaxMr    ? CmdStatus::kOk
                                                     : CmdStatus::kNoResources;
    Out o = expect(cmd(CmdOp::kAllocMw, m), want, "ALLOC_MW");
    if (want != CmdStatus::kOk) return;
    const uint32_t idx = lowest_free_mr();
    uint8_t& k = key_byte_[idx];
    k = k == 255 ? 1 : k + 1;
    EXPECT_EQ(o.resp.res[0], idx << 8 | k);
    EXPECT_EQ(o.mr.size(), 1u);
    if (o.mr.size() == 1) {
      const spec::MrCtx& c = o.mr[0].second;
      EXPECT_EQ(o.mr[0].first, idx);
      EXPECT_TRUE(c.valid == 0 && c.key == k && c.pd == m.pd && c.mw == 1 && c.mw_type2 == (m.type == 2) &&
                  c.access == 0 && c.length == 0)
          << "an allocated window is unbound";
    }
    mrs_[idx] = {idx << 8 | k, m.pd};
    mws_.insert(idx);
    ++mw_allocs;
  }
  // By index: a window's key byte changes with every bind, which roce_cmd never sees.
  void dealloc_mw(uint32_t key) {
    const bool ok = mws_.count(key >> 8) != 0;
    Out o = expect(cmd0(CmdOp::kDeallocMw, key), ok ? CmdStatus::kOk : CmdStatus::kNotFound, "DEALLOC_MW");
    if (!ok) return;
    EXPECT_TRUE(o.mr.size() == 1 && o.mr[0].first == key >> 8 && o.mr[0].second.valid == 0 &&
                o.mr[0].second.mw == 0);
    mrs_.erase(key >> 8);
    mws_.erase(key >> 8);
    key_byte_[key >> 8] = static_cast<uint8_t>(key);  // the next tenant's key byte follows it
    ++mw_deallocs;
  }
  void dereg_mr(uint32_t key) {
    const auto it = mrs_.find(key >> 8);
    const bool ok = it != mrs_.end() && it->second.first == key && !mws_.count(key >> 8);
    Out o = expect(cmd0(CmdOp::kDeregMr, key), ok ? CmdStatus::kOk : CmdStatus::kNotFound, "DEREG_MR");
    if (!ok) return;
    EXPECT_TRUE(o.mr.size() == 1 && o.mr[0].first == key >> 8 && o.mr[0].second.valid == 0);
    mrs_.erase(it);
  }
  // ---- QPs
  struct Qp {
    uint8_t state = kReset, type = kRc;
    uint32_t pd = 0, scq = 0, rcq = 0, sq_psn = 0, rq_psn = 0, dest_qpn = 0, qkey = 0;
  };
  // kind: 0 good, 1 bad type, 2 missing PD/CQ, 3 bad size/base
  void create_qp(int kind) {
    spec::CmdCreateQp c;
    c.qp_type = chance(45) ? kRc : chance(50) ? kUc : kUd;
    c.pd = pds_.empty() ? bogus(pds_, kMaxPd) : pick_set(pds_);
    c.send_cq = cqs_.empty() ? bogus(cqs_, kMaxCq) : pick_set(cqs_);
    c.recv_cq = cqs_.empty() || chance(30) ? c.send_cq : pick_set(cqs_);
    c.sq_base = (rng_() & 0x7FFFFFFFFFFFull) & ~uint64_t{511};  // slot-aligned (512 bytes)
    c.rq_base = (rng_() & 0x7FFFFFFFFFFFull) & ~uint64_t{511};
    c.sq_lsz = static_cast<uint8_t>(rng_() % 13);
    c.rq_lsz = static_cast<uint8_t>(rng_() % 13);
    if (kind == 1) c.qp_type = static_cast<uint8_t>(std::array<uint8_t, 5>{0, 1, 4, 5, 200}[rng_() % 5]);
    if (kind == 2) (rng_() % 3 == 0 ? c.pd : rng_() % 2 ? c.send_cq : c.recv_cq) = bogus(cqs_, kMaxCq);
    if (kind == 3) {
      switch (rng_() % 4) {
        case 0:
          c.sq_lsz = static_cast<uint8_t>(chance(50) ? 13 : 13 + rng_() % 243);
          break;
        case 1:
          c.rq_lsz = static_cast<uint8_t>(chance(50) ? 13 : 13 + rng_() % 243);
          break;
        case 2:
          c.sq_base |= 1 + rng_() % 511;
          break;
        default:
          c.rq_base |= rng_() % 2 ? 64 : 256;  // 128-aligned is no longer enough
          break;
      }
    }
    const bool objs = pds_.count(c.pd) && cqs_.count(c.send_cq) && cqs_.count(c.recv_cq);
    const bool sizes = c.sq_lsz <= 12 && c.rq_lsz <= 12 && !(c.sq_base & 511) && !(c.rq_base & 511);
    const CmdStatus want = c.qp_type != kRc && c.qp_type != kUc && c.qp_type != kUd ? CmdStatus::kBadParam
                           : !objs                    ? CmdStatus::kNotFound
                           : !sizes                   ? CmdStatus::kBadParam
                           : qps_.size() < kMaxQp - 2 ? CmdStatus::kOk
                                                      : CmdStatus::kNoResources;
    Out o = expect(cmd(CmdOp::kCreateQp, c), want, "CREATE_QP");
    if (want != CmdStatus::kOk) return;
    uint32_t qpn = 2;  // 0 and 1 are IBTA's SMI and GSI QPs
    while (qps_.count(qpn)) ++qpn;
    EXPECT_EQ(o.resp.res[0], qpn) << "lowest free QPN, starting at 2";
    EXPECT_EQ(o.qp.size(), 1u);
    if (o.qp.size() == 1) {
      const spec::QpCfg& q = o.qp[0];
      EXPECT_TRUE(q.qpn == qpn && q.action == static_cast<uint8_t>(spec::QpAction::kReset) && q.state == kReset &&
                  q.qp_type == c.qp_type && q.pd == c.pd && q.send_cq == c.send_cq && q.recv_cq == c.recv_cq &&
                  q.sq_base == c.sq_base && q.rq_base == c.rq_base && q.sq_lsz == c.sq_lsz && q.rq_lsz == c.rq_lsz);
    }
    Qp q;
    q.type = c.qp_type;
    q.pd = c.pd;
    q.scq = c.send_cq;
    q.rcq = c.recv_cq;
    qps_[qpn] = q;
  }
  void modify_qp(uint32_t qpn) {
    const auto it = qps_.find(qpn);
    const uint8_t from = it == qps_.end() ? 0 : it->second.state;
    // the target: mostly the next natural step, else anything (including SQD, SQE and junk)
    static const uint8_t kNext[] = {kInit, kRtr, kRts, kRts, kRts, kErr, kReset};
    uint8_t to = chance(60)   ? kNext[from]
                 : chance(50) ? static_cast<uint8_t>(chance(50) ? kReset : kErr)
                              : static_cast<uint8_t>(chance(90) ? rng_() % 8 : rng_());
    if (from == kInit && chance(20)) to = kInit;
    if (from == kRts && chance(25)) to = kSqd;  // send queue drain, and back
    if (from == kSqd && chance(30)) to = kSqd;
    const Row* row = row_for(from, to, it == qps_.end() ? kRc : it->second.type);
    uint32_t mask = kState;
    if (row) {
      mask |= row->req;
      for (uint32_t b : kKnownBits)
        if ((row->opt & b) && chance(50)) mask |= b;
    } else {
      mask |= kKnownBits[rng_() % 21] & (chance(50) ? ~0u : 0u);
    }
    bool missing = false, extra = false, no_state = false;
    const unsigned r = rng_() % 100;
    if (r < 8 && row && row->req) {
      std::vector<uint32_t> req;
      for (uint32_t b : kKnownBits)
        if (row->req & b) req.push_back(b);
      mask &= ~pick(req);
      missing = true;
    } else if (r < 16) {
      const uint32_t bit = chance(70) ? kKnownBits[rng_() % 21] : 1u << (rng_() % 32);
      extra = row && !(bit & (row->req | row->opt | kState));
      mask |= bit;
    } else if (r < 20) {
      mask &= ~kState;
      no_state = true;
    }
    spec::CmdModifyQp m = attrs(qpn, to, mask);
    bool bad_value = false;
    if (chance(10)) {
      switch (rng_() % 6) {
        case 4: {  // above the device's max_qp_rd_atom (16): EINVAL, as rxe
          const uint8_t v = static_cast<uint8_t>(spec::kMaxQpRdAtom + 1 + rng_() % (255 - spec::kMaxQpRdAtom));
          if (rng_() % 2) {
            m.max_rd_atomic = v;
            bad_value = mask & kMaxQpRdAtomic;
          } else {
            m.max_dest_rd_atomic = v;
            bad_value = mask & kMaxDestRdAtomic;
          }
          break;
        }
        case 0:
          m.path_mtu = static_cast<uint8_t>(rng_() % 2 ? 0 : chance(50) ? 6 : 6 + rng_() % 250);
          bad_value = mask & kPathMtu;
          break;
        case 1:
          m.sgid_index = static_cast<uint8_t>(rng_() % 2 ? 5 + rng_() % 2 : 8 + rng_() % 248);
          bad_value = mask & kAv;
          break;
        case 2:
          m.port_num = static_cast<uint8_t>(rng_() % 2 ? 0 : 2 + rng_() % 254);
          bad_value = mask & kPort;
          break;
        case 3:
          m.pkey_index = static_cast<uint16_t>(1 + rng_() % 65535);
          bad_value = mask & kPkey;
          break;
        default:
          m.access = static_cast<uint8_t>(16 + rng_() % 240);
          bad_value = mask & kAccess;
          break;
      }
    }
    const bool mask_ok =
        row && (mask & kState) && (mask & row->req) == row->req && !(mask & ~(row->req | row->opt | kState));
    const CmdStatus want = it == qps_.end() ? CmdStatus::kNotFound
                           : !mask_ok       ? CmdStatus::kBadState
                           : bad_value      ? CmdStatus::kBadParam
                                            : CmdStatus::kOk;
    Out o = expect(cmd(CmdOp::kModifyQp, m), want, "MODIFY_QP");
    if (it == qps_.end()) return;
    if (row) rows[row->name][o.status() == CmdStatus::kOk ? 0 : 1]++;
    if (want == CmdStatus::kBadState) {
      if (!row)
        ++refused_pair;
      else if (no_state)
        ++refused_no_state;
      else if (missing)
        ++refused_missing;
      else if (extra)
        ++refused_extra;
    }
    if (want != CmdStatus::kOk) return;
    Qp& q = it->second;
    q.state = to;
    if (mask & kSqPsn) q.sq_psn = m.sq_psn & 0xFFFFFF;
    if (mask & kRqPsn) q.rq_psn = m.rq_psn & 0xFFFFFF;
    if (mask & kDestQpn) q.dest_qpn = m.dest_qpn & 0xFFFFFF;
    if (mask & kQkey) q.qkey = m.qkey;
    EXPECT_EQ(o.qp.size(), 1u) << "every successful MODIFY sends qp_cfg, ATTR-only ones too";
    if (o.qp.size() == 1) {
      const spec::QpCfg& c = o.qp[0];
      EXPECT_TRUE(c.qpn == qpn && c.state == to && c.action == static_cast<uint8_t>(row->action) && c.pd == q.pd &&
                  c.send_cq == q.scq && c.recv_cq == q.rcq && c.sq_psn == q.sq_psn && c.rq_psn == q.rq_psn &&
                  c.dest_qpn == q.dest_qpn && c.qkey == q.qkey)
          << c.describe();
      if (mask & kAv) {
        const uint8_t want_l3 = m.sgid_index == 0 || m.sgid_index == 2   ? 2
                                : m.sgid_index == 3 || m.sgid_index == 7 ? 0
                                                                         : 1;
        EXPECT_EQ(c.l3, want_l3) << "sgid " << int(m.sgid_index);
        EXPECT_EQ(c.vlan_valid, m.sgid_index == 7 ? 1 : 0) << "sgid " << int(m.sgid_index);
        EXPECT_EQ(c.vlan_vid, m.sgid_index == 7 ? 42u : 0u);
        EXPECT_EQ(c.src_mac, kMac);
        EXPECT_EQ(c.dst_ip, m.dgid);
        EXPECT_EQ(c.ttl, m.hop_limit);
      }
    }
  }
  void query_qp(uint32_t qpn) {
    const auto it = qps_.find(qpn);
    Out o = expect(cmd0(CmdOp::kQueryQp, qpn), it == qps_.end() ? CmdStatus::kNotFound : CmdStatus::kOk, "QUERY_QP");
    if (it == qps_.end()) return;
    const Qp& q = it->second;
    EXPECT_EQ(o.resp.res, (std::array<uint32_t, 4>{q.state, q.sq_psn, q.rq_psn, q.dest_qpn}));
  }
  void destroy_qp(uint32_t qpn) {
    const auto it = qps_.find(qpn);
    Out o =
        expect(cmd0(CmdOp::kDestroyQp, qpn), it == qps_.end() ? CmdStatus::kNotFound : CmdStatus::kOk, "DESTROY_QP");
    if (it == qps_.end()) return;
    EXPECT_TRUE(o.qp.size() == 1 && o.qp[0].qpn == qpn &&
                o.qp[0].action == static_cast<uint8_t>(spec::QpAction::kDestroy));
    qps_.erase(it);
  }

  // ---- a random command of any kind
  void random_command() {
    const unsigned r = rng_() % 100;
    if (r < 6)
      alloc_pd();
    else if (r < 10)
      dealloc_pd(chance(80) && !pds_.empty() ? pick_set(pds_) : bogus(pds_, kMaxPd));
    else if (r < 15)
      create_cq(chance(20));
    else if (r < 18)
      destroy_cq(chance(80) && !cqs_.empty() ? pick_set(cqs_) : bogus(cqs_, kMaxCq));
    else if (r < 23)
      write_mtt(chance(30));
    else if (r < 28)
      reg_mr(chance(70) ? 0 : chance(30) ? 1 : 2);
    else if (r < 31)
      alloc_mw(chance(70) ? 0 : chance(50) ? 1 : 2);
    else if (r < 34)
      dereg_mr(some_key());
    else if (r < 36)
      dealloc_mw(chance(80) ? some_key() ^ static_cast<uint32_t>(rng_() % 256) : bogus_key());
    else if (r < 44)
      create_qp(chance(70) ? 0 : static_cast<int>(1 + rng_() % 3));
    else if (r < 82)
      modify_qp(some_qpn());
    else if (r < 88)
      query_qp(some_qpn());
    else if (r < 92)
      destroy_qp(some_qpn());
    else if (r < 96)
      expect(cmd0(CmdOp::kNop), CmdStatus::kOk, "NOP");
    else
      expect(cmd_bytes(static_cast<uint8_t>(14 + rng_() % 242), std::array<uint8_t, 64>{}.data()), CmdStatus::kBadOp,
             "bad op");
  }

  // ---- phases
  void exhaust() {
    // (bounded: a create that keeps failing is a reported failure, not a hang)
    for (unsigned i = 0; pds_.size() < kMaxPd && i < 2 * kMaxPd; ++i) alloc_pd();
    alloc_pd();  // NO_RESOURCES
    for (unsigned i = 0; cqs_.size() < kMaxCq && i < 2 * kMaxCq; ++i) create_cq(false);
    create_cq(false);
    create_cq(true);  // BAD_PARAM before NO_RESOURCES
    for (unsigned i = 0; qps_.size() < kMaxQp - 2 && i < 2 * kMaxQp; ++i) create_qp(0);  // QPNs 0, 1 reserved
    create_qp(0);
    for (unsigned i = 0; mrs_.size() < kMaxMr && i < 2 * kMaxMr; ++i) reg_mr(0);
    reg_mr(0);
    reg_mr(1);  // NOT_FOUND before NO_RESOURCES
    alloc_mw(0);  // windows share the MR table: NO_RESOURCES
    alloc_mw(2);  // BAD_PARAM before NO_RESOURCES
  }
  void teardown() {
    for (uint32_t pd : std::set<uint32_t>(pds_)) dealloc_pd(pd);  // BUSY where used
    for (uint32_t cq : std::set<uint32_t>(cqs_)) destroy_cq(cq);
    while (!qps_.empty()) destroy_qp(qps_.begin()->first);
    while (!mrs_.empty()) {
      if (mws_.count(mrs_.begin()->first))
        dealloc_mw(mrs_.begin()->second.first);
      else
        dereg_mr(mrs_.begin()->second.first);
    }
    while (!cqs_.empty()) destroy_cq(*cqs_.begin());
    while (!pds_.empty()) dealloc_pd(*pds_.begin());
  }
  // One MR index registered again and again: its key byte runs 1..255, then 1 again.
  void key_wrap(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      reg_mr(0);
      dereg_mr(mrs_.at(lowest_used_mr()).first);
    }
  }
  void ensure_pd() {
    if (pds_.empty()) alloc_pd();
  }

 private:
  static uint32_t lowest_free(const std::set<uint32_t>& s, uint32_t from) {
    while (s.count(from)) ++from;
    return from;
  }
  uint32_t lowest_free_mr() const {
    uint32_t i = 0;
    while (mrs_.count(i)) ++i;
    return i;
  }
  uint32_t lowest_used_mr() const { return mrs_.begin()->first; }
  uint32_t pick_set(const std::set<uint32_t>& s) {
    auto it = s.begin();
    std::advance(it, rng_() % s.size());
    return *it;
  }
  uint32_t bogus(const std::set<uint32_t>& s, uint32_t n) {
    for (int tries = 0; tries < 8; ++tries) {
      const uint32_t v = chance(50) ? static_cast<uint32_t>(rng_() % n) : n + static_cast<uint32_t>(rng_() % 5000);
      if (!s.count(v)) return v;
    }
    return chance(50) ? n : 0xFFFFFFFFu;
  }
  uint32_t bogus_key() {
    const uint32_t k = static_cast<uint32_t>(rng_() % (kMaxMr + 8)) << 8 | static_cast<uint32_t>(rng_() % 256);
    return chance(10) ? static_cast<uint32_t>(rng_()) : k;
  }
  // A region's or window's key (DEREG_MR of a window and DEALLOC_MW of a region are refused), or a bogus one.
  uint32_t some_key() {
    if (mrs_.empty() || chance(25)) return bogus_key();
    auto it = mrs_.begin();
    std::advance(it, rng_() % mrs_.size());
    return chance(85) ? it->second.first : it->second.first ^ (1u + rng_() % 255);  // wrong key byte
  }
  uint32_t some_qpn() {
    if (qps_.empty() || chance(8)) return chance(30) ? 0 : static_cast<uint32_t>(rng_() % 300);
    auto it = qps_.begin();
    std::advance(it, rng_() % qps_.size());
    return it->first;
  }
  bool pd_uses(uint32_t pd) const {
    for (const auto& m : mrs_)
      if (m.second.second == pd) return true;
    for (const auto& q : qps_)
      if (q.second.pd == pd) return true;
    return false;
  }
  bool cq_uses(uint32_t cq) const {
    for (const auto& q : qps_)
      if (q.second.scq == cq || q.second.rcq == cq) return true;
    return false;
  }
  spec::CmdModifyQp attrs(uint32_t qpn, uint8_t to, uint32_t mask) {
    spec::CmdModifyQp m;
    m.qpn = qpn;
    m.attr_mask = mask;
    m.qp_state = to;
    m.path_mtu = static_cast<uint8_t>(1 + rng_() % 5);
    m.access = static_cast<uint8_t>(rng_() % 16);
    static const uint8_t kSgid[] = {0, 1, 2, 3, 4, 7};
    m.sgid_index = kSgid[rng_() % 6];
    m.dest_qpn = static_cast<uint32_t>(rng_());  // upper bits are dropped
    m.rq_psn = static_cast<uint32_t>(rng_());
    m.sq_psn = static_cast<uint32_t>(rng_());
    m.qkey = static_cast<uint32_t>(rng_());
    for (auto& b : m.dmac) b = static_cast<uint8_t>(rng_());
    m.hop_limit = static_cast<uint8_t>(rng_());
    m.traffic_class = static_cast<uint8_t>(rng_());
    for (auto& b : m.dgid) b = static_cast<uint8_t>(rng_());
    if (chance(50)) m.dgid = ipv4_mapped(static_cast<uint32_t>(rng_()));
    m.flow_label = static_cast<uint32_t>(rng_());
    m.sl = static_cast<uint8_t>(rng_());
    m.timeout = static_cast<uint8_t>(rng_());
    m.retry_cnt = static_cast<uint8_t>(rng_());
    m.rnr_retry = static_cast<uint8_t>(rng_());
    m.min_rnr_timer = static_cast<uint8_t>(rng_());
    m.max_rd_atomic = static_cast<uint8_t>(rng_() % (spec::kMaxQpRdAtom + 1));
    m.max_dest_rd_atomic = static_cast<uint8_t>(rng_() % (spec::kMaxQpRdAtom + 1));
    m.port_num = 1;
    m.pkey_index = 0;
    return m;
  }

  std::mt19937_64 rng_;
  std::unique_ptr<Block> model_ = configured_model();
  Runner runner_{*model_};
  std::set<uint32_t> pds_, cqs_;
  std::map<uint32_t, std::pair<uint32_t, uint32_t>> mrs_;  // index -> {key, pd}, regions and windows
  std::set<uint32_t> mws_;                                 // the indexes that hold windows
  std::map<uint32_t, Qp> qps_;
  std::map<uint32_t, uint8_t> key_byte_;
};

std::string describe_txn(unsigned port, const Txn& t) {
  const Flit& f = t.flits[0];
  switch (port) {
    case 0:
      return desc_from_flit<spec::CmdResp>(f).describe();
    case 1:
      return desc_from_flit<spec::QpCfg>(f).describe();
    case 2:
      return desc_from_flit<spec::CqCfg>(f).describe();
    default:
      return hex_bytes(f.data);
  }
}

// A cross-check run's configuration: random idle cycles and backpressure at
// `load` (0: back to back), the divergence's waveform into `fst`.
XcheckConfig cmd_xcheck_config(uint64_t seed, double load, const char* fst) {
  XcheckConfig cfg;
  cfg.seed = seed;
  cfg.in_idle = cfg.out_stall = load;
  cfg.fst_path = fst;
  cfg.describe = describe_txn;
  return cfg;
}

TEST(RoceCmdXcheck, RandomCommandStreamsMatchModelAndDocs) {
  StreamBuilder sb(2024);
  sb.ensure_pd();
  sb.key_wrap(300);  // index 0: key bytes 1..255, 1..45
  for (int i = 0; i < 2500; ++i) sb.random_command();
  sb.exhaust();
  for (int i = 0; i < 1500; ++i) sb.random_command();
  sb.teardown();
  for (int i = 0; i < 9000; ++i) sb.random_command();  // (every row of three QP types taken and refused)
  ASSERT_FALSE(testing::Test::HasFailure()) << "the model disagrees with docs/engine.md";

  for (unsigned s = 0; s < spec::kCmdStatusCount; ++s)
    EXPECT_GT(sb.statuses[static_cast<CmdStatus>(s)], 0u)
        << "status " << spec::to_string(static_cast<CmdStatus>(s)) << " never reached";
  for (const Row& r : kRows) {
    EXPECT_GT(sb.rows[r.name][0], 0u) << r.name << " never taken";
    EXPECT_GT(sb.rows[r.name][1], 0u) << r.name << " never refused";
  }
  EXPECT_GT(sb.refused_missing, 0u);
  EXPECT_GT(sb.refused_extra, 0u);
  EXPECT_GT(sb.refused_no_state, 0u);
  EXPECT_GT(sb.refused_pair, 0u);
  EXPECT_GT(sb.busy_pd, 0u);
  EXPECT_GT(sb.busy_cq, 0u);
  EXPECT_GT(sb.key_wraps, 0u);
  EXPECT_GT(sb.mw_allocs, 0u);
  EXPECT_GT(sb.mw_deallocs, 0u);

  // Once with random idle cycles and backpressure, once back to back (commands
  // as fast as the block takes them, outputs always ready).
  for (const double load : {0.3, 0.0}) {
    const XcheckConfig cfg = cmd_xcheck_config(5, load, "roce_cmd_divergence.fst");
    const XcheckResult r = xcheck_run(
        [] {
          auto b = std::make_unique<RoceCmdRtl>();
          configure(*b);
          return b;
        },
        [] { return configured_model(); },
        {sb.stim}, cfg);
    ASSERT_TRUE(r.ok) << r.report;
    EXPECT_EQ(r.rtl_out[0].size(), sb.stim.size()) << "one response per command";
    std::printf("idle/stall %.1f: %s", load, r.report.c_str());
    std::printf("  %zu commands: %zu responses, %zu qp_cfg, %zu cq_cfg, %zu mr_wr, %zu mtt_wr; RTL %llu cycles\n",
                sb.stim.size(), r.rtl_out[0].size(), r.rtl_out[1].size(), r.rtl_out[2].size(), r.rtl_out[3].size(),
                r.rtl_out[4].size(), static_cast<unsigned long long>(r.rtl_cycles));
  }
  std::printf("statuses:");
  for (const auto& s : sb.statuses) std::printf(" %s=%u", spec::to_string(s.first), s.second);
  std::printf("\ntransitions (taken/refused):");
  for (const Row& row : kRows) std::printf(" %s=%u/%u", row.name, sb.rows[row.name][0], sb.rows[row.name][1]);
  std::printf("\nBAD_STATE: pair %u, missing bit %u, extra bit %u, no STATE %u; BUSY PD %u CQ %u; key wraps %u\n",
              sb.refused_pair, sb.refused_missing, sb.refused_extra, sb.refused_no_state, sb.busy_pd, sb.busy_cq,
              sb.key_wraps);
}

// ---- past 2048 QPs: QPNs still handed out lowest free first
// roce_cmd with 4096 QPs (its lowest-free finders take a third step, LAT 3:
// the lowest free group of 64 32-bit chunks; it waits SETTLE = 4 cycles
// after a bitmap change instead of 3): every QPN taken, in order, then
// NO_RESOURCES; QPNs freed around the chunks and the groups (63/64,
// 2047/2048/2049, 4032/4033, 4095) given back lowest first; a CREATE_QP
// right after the DESTROY_QP that freed its QPN, an ALLOC_PD right after a
// DEALLOC_PD (back to back in the second run: the answer must see that
// bitmap change). The expectation is typed here (lowest free), the model is
// run against it, then the RTL against the model, with random idle and
// backpressure and back to back.
TEST(RoceCmdXcheck, QpNumbersPastTwoThousandQps) {
  constexpr unsigned kQps = 4096;
  model::RoceCmdParams mp;
  mp.max_qp = kQps;
  const auto make_model = [mp] {
    auto b = model::make_roce_cmd_block(mp);
    configure(*static_cast<model::FlitAdapter&>(*b).block<model::RoceCmd>());
    return b;
  };
  auto model = make_model();
  Runner run{*model};
  std::vector<Flit> stim;
  std::set<uint32_t> used;
  const auto send = [&](const Flit& f) {
    stim.push_back(f);
    return run.run(f);
  };
  ASSERT_EQ(send(cmd0(CmdOp::kAllocPd)).status(), CmdStatus::kOk);
  spec::CmdCreateCq cq;
  cq.base = 0x7f1234560000;
  cq.log_size = 9;
  ASSERT_EQ(send(cmd(CmdOp::kCreateCq, cq)).status(), CmdStatus::kOk);
  spec::CmdCreateQp c;
  c.qp_type = kRc;
  c.sq_base = 0x7f0000100000;
  c.rq_base = 0x7f0000200000;
  c.sq_lsz = 4;
  c.rq_lsz = 4;
  unsigned wrong = 0;
  const auto create = [&] {
    const Out o = send(cmd(CmdOp::kCreateQp, c));
    uint32_t want = 2;  // 0 and 1: IBTA's SMI and GSI QPs
    while (used.count(want)) ++want;
    if (want >= kQps) {
      if (o.status() != CmdStatus::kNoResources) ++wrong;
      return;
    }
    if (o.status() != CmdStatus::kOk || o.resp.res[0] != want || o.qp.size() != 1 || o.qp[0].qpn != want) {
      if (++wrong <= 5) ADD_FAILURE() << "CREATE_QP: got QPN " << o.resp.res[0] << ", want " << want;
    }
    used.insert(want);
  };
  const auto destroy = [&](uint32_t qpn) {
    const Out o = send(cmd0(CmdOp::kDestroyQp, qpn));
    EXPECT_EQ(o.status(), CmdStatus::kOk) << "DESTROY_QP " << qpn;
    used.erase(qpn);
  };
  for (unsigned i = 0; i < kQps - 2; ++i) create();
  create();  // none left
  for (const uint32_t q : {4095u, 2049u, 2048u, 2047u, 3000u, 64u, 63u, 2u, 4032u, 4033u}) destroy(q);
  for (int i = 0; i < 11; ++i) create();  // 2, 63, 64, 2047, 2048, 2049, 3000, 4032, 4033, 4095, then none
  for (const uint32_t q : {3500u, 100u, 10u, 4094u}) {
    destroy(q);
    create();  // right after: the same QPN
  }
  destroy(100);
  destroy(10);
  create();  // 10
  create();  // 100
  const size_t qp_cmds = stim.size() - 2;  // (the commands so far but ALLOC_PD, CREATE_CQ)
  // PDs: no reference counts to update, so DEALLOC_PD's bitmap change is
  // followed soonest by the next command's read of the finder (the PD
  // finder takes LAT 3 steps too: one LAT for all four). Each ALLOC_PD
  // right after a DEALLOC_PD moves the lowest free 32-bit chunk (the
  // finder's registered steps), from chunk 1 back to chunk 0, and from
  // none (every PD taken) to one.
  std::set<uint32_t> pds = {0};
  unsigned no_pd = 0;
  const auto alloc_pd = [&] {
    const Out o = send(cmd0(CmdOp::kAllocPd));
    uint32_t want = 0;
    while (pds.count(want)) ++want;
    if (o.status() == CmdStatus::kNoResources) ++no_pd;
    if (want >= kMaxPd) {
      if (o.status() != CmdStatus::kNoResources) ++wrong;
      return;
    }
    if (o.status() != CmdStatus::kOk || o.resp.res[0] != want) ++wrong;
    pds.insert(want);
  };
  const auto dealloc_pd = [&](uint32_t pd) {
    EXPECT_EQ(send(cmd0(CmdOp::kDeallocPd, pd)).status(), CmdStatus::kOk) << "DEALLOC_PD " << pd;
    pds.erase(pd);
  };
  for (int i = 0; i < 39; ++i) alloc_pd();  // 1..39: chunk 0 full
  for (const uint32_t pd : {5u, 31u, 17u}) {  // (PD 0 is the QPs': BUSY)
    dealloc_pd(pd);
    alloc_pd();  // right after: the same PD, in chunk 0 again
  }
  while (pds.size() < kMaxPd) alloc_pd();
  alloc_pd();  // none left
  for (const uint32_t pd : {200u, 7u}) {
    dealloc_pd(pd);
    alloc_pd();  // right after: the one freed
  }
  EXPECT_EQ(wrong, 0u) << "the model's QPNs and PDs against lowest free";
  EXPECT_EQ(no_pd, 1u) << "ALLOC_PD answered NO_RESOURCES once: the stream exhausts the PDs";

  for (const double load : {0.3, 0.0}) {
    const XcheckConfig cfg = cmd_xcheck_config(7, load, "roce_cmd_4k_divergence.fst");
    const XcheckResult r = xcheck_run(
        [] {
          auto b = std::make_unique<RoceCmdRtlOf<Vroce_cmd_4k>>();
          configure(*b);
          return b;
        },
        make_model, {stim}, cfg);
    ASSERT_TRUE(r.ok) << r.report;
    EXPECT_EQ(r.rtl_out[0].size(), stim.size()) << "one response per command";
    EXPECT_EQ(r.rtl_out[1].size(), qp_cmds - 2) << "a qp_cfg per CREATE_QP and DESTROY_QP taken";
    std::printf("4096 QPs, idle/stall %.1f: %zu commands, RTL %llu cycles\n", load, stim.size(),
                static_cast<unsigned long long>(r.rtl_cycles));
  }
}

// ---- ibv_rc_pingpong's sequence, on the RTL and on the model
void pingpong_sequence(Block& b) {
  Runner run{b};
  auto ok = [&](const Flit& f) {
    Out o = run.run(f);
    EXPECT_EQ(o.status(), CmdStatus::kOk);
    return o;
  };
  EXPECT_EQ(ok(cmd0(CmdOp::kAllocPd)).resp.res[0], 0u);
  spec::CmdCreateCq cq;
  cq.base = 0x7f1234560000;
  cq.log_size = 9;
  Out o = ok(cmd(CmdOp::kCreateCq, cq));
  EXPECT_EQ(o.resp.res[0], 0u);
  ASSERT_EQ(o.cq.size(), 1u);
  EXPECT_TRUE(o.cq[0].cq == 0 && o.cq[0].valid == 1 && o.cq[0].base == cq.base && o.cq[0].log_size == 9);

  uint8_t a[64] = {};
  spec::CmdWriteMtt w;
  w.index = 10;
  w.count = 2;
  w.store(a);
  for (unsigned k = 0; k < 8; ++k) a[8 + k] = static_cast<uint8_t>(0x1000000000ull >> (8 * k));
  for (unsigned k = 0; k < 8; ++k) a[16 + k] = static_cast<uint8_t>(0x2000005000ull >> (8 * k));
  o = ok(cmd_bytes(static_cast<uint8_t>(CmdOp::kWriteMtt), a));
  ASSERT_EQ(o.mtt.size(), 2u);
  EXPECT_EQ(o.mtt[0], (std::pair<unsigned, uint64_t>{10, 0x1000000000ull}));
  EXPECT_EQ(o.mtt[1], (std::pair<unsigned, uint64_t>{11, 0x2000005000ull}));

  spec::CmdRegMr mr;
  mr.iova = 0x7f0000000800;  // 6 KiB from mid-page: two pages
  mr.length = 6144;
  mr.pd = 0;
  mr.access = 1 | 2 | 4;
  mr.mtt_base = 10;
  mr.npages = 2;
  mr.page_shift = 12;
  o = ok(cmd(CmdOp::kRegMr, mr));
  EXPECT_EQ(o.resp.res[0], 0x001u) << "index 0, key byte 1";
  ASSERT_EQ(o.mr.size(), 1u);
  EXPECT_EQ(o.mr[0].first, 0u);
  EXPECT_TRUE(o.mr[0].second.valid == 1 && o.mr[0].second.key == 1 && o.mr[0].second.access == 7 &&
              o.mr[0].second.iova == mr.iova && o.mr[0].second.length == 6144 && o.mr[0].second.mtt_base == 10 &&
              o.mr[0].second.page_shift == 12);
  mr.npages = 1;  // one page cannot cover it
  EXPECT_EQ(run.run(cmd(CmdOp::kRegMr, mr)).status(), CmdStatus::kBadParam);

  spec::CmdCreateQp cq_args;
  cq_args.sq_base = 0x7f0000100000;
  cq_args.rq_base = 0x7f0000200000;
  cq_args.qp_type = 2;
  cq_args.sq_lsz = 7;
  cq_args.rq_lsz = 9;
  o = ok(cmd(CmdOp::kCreateQp, cq_args));
  EXPECT_EQ(o.resp.res[0], 2u) << "QPNs start at 2 (0 and 1 are IBTA's SMI and GSI QPs)";
  ASSERT_EQ(o.qp.size(), 1u);
  EXPECT_EQ(o.qp[0].action, static_cast<uint8_t>(spec::QpAction::kReset));
  EXPECT_EQ(ok(cmd0(CmdOp::kQueryQp, 2)).resp.res, (std::array<uint32_t, 4>{kReset, 0, 0, 0}));

  // INIT: IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS
  spec::CmdModifyQp m;
  m.qpn = 2;
  m.attr_mask = kState | kPkey | kPort | kAccess;
  m.qp_state = kInit;
  m.port_num = 1;
  m.access = 0;
  o = ok(cmd(CmdOp::kModifyQp, m));
  ASSERT_EQ(o.qp.size(), 1u);
  EXPECT_EQ(o.qp[0].action, static_cast<uint8_t>(spec::QpAction::kToInit));
  EXPECT_EQ(o.qp[0].state, kInit);

  // RTR: STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER, GID 3 (RoCE v2, IPv4)
  m = spec::CmdModifyQp{};
  m.qpn = 2;
  m.attr_mask = kState | kAv | kPathMtu | kDestQpn | kRqPsn | kMaxDestRdAtomic | kMinRnrTimer;
  m.qp_state = kRtr;
  m.path_mtu = 3;  // IBV_MTU_1024
  m.dest_qpn = 0x000211;
  m.rq_psn = 0x5a5a5a;
  m.max_dest_rd_atomic = 1;
  m.min_rnr_timer = 12;
  m.sgid_index = 3;
  m.hop_limit = 1;
  m.dgid = ipv4_mapped(0x0A000002);
  m.dmac = {0x02, 0xAB, 0x00, 0xC0, 0xFF, 0xEF};
  m.port_num = 9;  // not in the mask: not looked at
  o = ok(cmd(CmdOp::kModifyQp, m));
  ASSERT_EQ(o.qp.size(), 1u);
  spec::QpCfg c = o.qp[0];
  EXPECT_EQ(c.action, static_cast<uint8_t>(spec::QpAction::kToRtr));
  EXPECT_EQ(c.state, kRtr);
  EXPECT_EQ(c.l3, static_cast<uint8_t>(spec::L3::kIpv4));
  EXPECT_EQ(c.src_ip, ipv4_mapped(0x0A000001));
  EXPECT_EQ(c.dst_ip, ipv4_mapped(0x0A000002));
  EXPECT_EQ(c.src_mac, kMac);
  EXPECT_EQ(c.dst_mac, 0x02AB00C0FFEFull);
  EXPECT_EQ(c.ttl, 1u);
  EXPECT_EQ(c.pmtu, 3u);
  EXPECT_EQ(c.dest_qpn, 0x211u);
  EXPECT_EQ(c.rq_psn, 0x5a5a5au);
  EXPECT_EQ(c.min_rnr_timer, 12u);
  EXPECT_EQ(c.max_dest_rd_atomic, 1u);
  EXPECT_EQ(c.max_rd_atomic, 0u);
  EXPECT_EQ(c.sq_psn, 0u);
  EXPECT_TRUE(c.pd == 0 && c.send_cq == 0 && c.recv_cq == 0 && c.sq_base == cq_args.sq_base && c.sq_lsz == 7 &&
              c.rq_base == cq_args.rq_base && c.rq_lsz == 9 && c.qp_type == 2);

  // RTS: STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC
  m = spec::CmdModifyQp{};
  m.qpn = 2;
  m.attr_mask = kState | kTimeout | kRetryCnt | kRnrRetry | kSqPsn | kMaxQpRdAtomic;
  m.qp_state = kRts;
  m.timeout = 14;
  m.retry_cnt = 7;
  m.rnr_retry = 7;
  m.sq_psn = 0xFF123456;  // 24 bits kept
  m.max_rd_atomic = 16;
  o = ok(cmd(CmdOp::kModifyQp, m));
  ASSERT_EQ(o.qp.size(), 1u);
  spec::QpCfg rts = o.qp[0];
  EXPECT_EQ(rts.action, static_cast<uint8_t>(spec::QpAction::kToRts));
  EXPECT_EQ(rts.state, kRts);
  EXPECT_EQ(rts.sq_psn, 0x123456u);
  EXPECT_EQ(rts.timeout, 14u);
  EXPECT_EQ(rts.retry_cnt, 7u);
  EXPECT_EQ(rts.rnr_retry, 7u);
  EXPECT_EQ(rts.max_rd_atomic, 16u);
  rts.action = c.action;
  rts.state = c.state;
  rts.sq_psn = c.sq_psn;
  rts.timeout = c.timeout;
  rts.retry_cnt = c.retry_cnt;
  rts.rnr_retry = c.rnr_retry;
  rts.max_rd_atomic = c.max_rd_atomic;
  EXPECT_EQ(rts, c) << "RTS keeps every other attribute";
  EXPECT_EQ(ok(cmd0(CmdOp::kQueryQp, 2)).resp.res, (std::array<uint32_t, 4>{kRts, 0x123456, 0x5a5a5a, 0x211}));

  // A transport failure (retries exhausted, a fatal NAK): the QP is in ERR
  // for QUERY_QP, and every owner hears it (TO_ERR, attributes unchanged).
  // Reported again, or for a QP that does not exist: nothing.
  const auto failed = run.qp_err(2);
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0].action, static_cast<uint8_t>(spec::QpAction::kToErr));
  EXPECT_EQ(failed[0].state, static_cast<uint8_t>(spec::QpState::kErr));
  EXPECT_EQ(failed[0].qpn, 2u);
  EXPECT_EQ(failed[0].sq_psn, 0x123456u);
  EXPECT_EQ(failed[0].dst_ip, c.dst_ip);
  EXPECT_EQ(ok(cmd0(CmdOp::kQueryQp, 2)).resp.res,
            (std::array<uint32_t, 4>{static_cast<uint32_t>(spec::QpState::kErr), 0x123456, 0x5a5a5a, 0x211}));
  EXPECT_TRUE(run.qp_err(2).empty()) << "already in ERR";
  EXPECT_TRUE(run.qp_err(3).empty()) << "no such QP";
  EXPECT_TRUE(run.qp_err(0xFFFF).empty()) << "beyond the table";

  // RTS -> RTS with the RTR mask: refused; with a bad sgid on INIT->RTR of a second QP: BAD_PARAM
  m.attr_mask = kState | kAv;
  EXPECT_EQ(run.run(cmd(CmdOp::kModifyQp, m)).status(), CmdStatus::kBadState);
  EXPECT_EQ(ok(cmd(CmdOp::kCreateQp, cq_args)).resp.res[0], 3u);
  m = spec::CmdModifyQp{};
  m.qpn = 3;
  m.attr_mask = kState | kPkey | kPort | kAccess;
  m.qp_state = kInit;
  m.port_num = 1;
  ok(cmd(CmdOp::kModifyQp, m));
  m.attr_mask = kState | kAv | kPathMtu | kDestQpn | kRqPsn | kMaxDestRdAtomic | kMinRnrTimer;
  m.qp_state = kRtr;
  m.path_mtu = 5;
  for (uint8_t sgid : {5, 6, 16, 255}) {
    m.sgid_index = sgid;
    EXPECT_EQ(run.run(cmd(CmdOp::kModifyQp, m)).status(), CmdStatus::kBadParam) << "sgid " << int(sgid);
  }
  m.sgid_index = 4;  // RoCE v2 with a global IPv6 GID
  o = ok(cmd(CmdOp::kModifyQp, m));
  ASSERT_EQ(o.qp.size(), 1u);
  EXPECT_EQ(o.qp[0].l3, static_cast<uint8_t>(spec::L3::kIpv6));
  EXPECT_EQ(o.qp[0].src_ip, kGidV6);
  m.qp_state = kReset;  // back to RESET, then again to RTR through RoCE v1
  m.attr_mask = kState;
  EXPECT_EQ(ok(cmd(CmdOp::kModifyQp, m)).qp.at(0).action, static_cast<uint8_t>(spec::QpAction::kReset));
  EXPECT_TRUE(run.qp_err(3).empty()) << "a QP in RESET (re-created since the failure) stays there";
  m.attr_mask = kState | kPkey | kPort | kAccess;
  m.qp_state = kInit;
  ok(cmd(CmdOp::kModifyQp, m));
  m.attr_mask = kState | kAv | kPathMtu | kDestQpn | kRqPsn | kMaxDestRdAtomic | kMinRnrTimer;
  m.qp_state = kRtr;
  m.sgid_index = 0;
  EXPECT_EQ(ok(cmd(CmdOp::kModifyQp, m)).qp.at(0).l3, static_cast<uint8_t>(spec::L3::kRocev1));

  // teardown in the wrong order first: BUSY until the users are gone
  EXPECT_EQ(run.run(cmd0(CmdOp::kDeallocPd, 0)).status(), CmdStatus::kBusy);
  EXPECT_EQ(run.run(cmd0(CmdOp::kDestroyCq, 0)).status(), CmdStatus::kBusy);
  o = ok(cmd0(CmdOp::kDestroyQp, 2));
  ASSERT_EQ(o.qp.size(), 1u);
  EXPECT_EQ(o.qp[0].action, static_cast<uint8_t>(spec::QpAction::kDestroy));
  ok(cmd0(CmdOp::kDestroyQp, 3));
  EXPECT_EQ(run.run(cmd0(CmdOp::kQueryQp, 2)).status(), CmdStatus::kNotFound);
  ASSERT_EQ(ok(cmd0(CmdOp::kDestroyCq, 0)).cq.size(), 1u);
  EXPECT_EQ(run.run(cmd0(CmdOp::kDeallocPd, 0)).status(), CmdStatus::kBusy) << "the MR still uses it";
  EXPECT_EQ(run.run(cmd0(CmdOp::kDeregMr, 0x002)).status(), CmdStatus::kNotFound) << "wrong key byte";
  o = ok(cmd0(CmdOp::kDeregMr, 0x001));
  ASSERT_EQ(o.mr.size(), 1u);
  EXPECT_EQ(o.mr[0].second.valid, 0u);
  EXPECT_EQ(run.run(cmd0(CmdOp::kDeregMr, 0x001)).status(), CmdStatus::kNotFound) << "already gone";
  ok(cmd0(CmdOp::kDeallocPd, 0));
  EXPECT_EQ(run.run(cmd0(CmdOp::kDeallocPd, 0)).status(), CmdStatus::kNotFound);
}

TEST(RoceCmd, PingpongSequenceOnTheModel) {
  auto b = configured_model();
  pingpong_sequence(*b);
  EXPECT_TRUE(b->idle());
}

TEST(RoceCmd, PingpongSequenceOnTheRtl) {
  RoceCmdRtl b;
  configure(b);
  pingpong_sequence(b);
  EXPECT_TRUE(b.idle());
}

}  // namespace
}  // namespace rocenic
