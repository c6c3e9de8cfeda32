#include "ctrl/roce_cmd.h"

#include "common/desc_flit.h"
#include "sched/flit_adapter.h"
#include "gen/qp_rules.h"

namespace rocenic::model {
namespace {

using spec::CmdStatus;

// attr_mask bits (spec qp_attr: the ibv_qp_attr_mask values).
constexpr uint32_t attr(spec::QpAttr a) { return static_cast<uint32_t>(a); }
constexpr uint32_t kAccess = attr(spec::QpAttr::kAccessFlags), kPkey = attr(spec::QpAttr::kPkeyIndex),
                   kPort = attr(spec::QpAttr::kPort), kAv = attr(spec::QpAttr::kAv),
                   kPathMtu = attr(spec::QpAttr::kPathMtu), kRqPsn = attr(spec::QpAttr::kRqPsn),
                   kMinRnrTimer = attr(spec::QpAttr::kMinRnrTimer), kSqPsn = attr(spec::QpAttr::kSqPsn),
                   kDestQpn = attr(spec::QpAttr::kDestQpn), kTimeout = attr(spec::QpAttr::kTimeout),
                   kRetryCnt = attr(spec::QpAttr::kRetryCnt), kRnrRetry = attr(spec::QpAttr::kRnrRetry),
                   kMaxRdAtomic = attr(spec::QpAttr::kMaxQpRdAtomic),
                   kMaxDestRdAtomic = attr(spec::QpAttr::kMaxDestRdAtomic), kQkey = attr(spec::QpAttr::kQkey);

unsigned log2u(unsigned v) {
  unsigned l = 0;
  while ((1u << (l + 1)) <= v) ++l;
  return l;
}

template <typename T>
T le(const uint8_t* a, unsigned off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= uint64_t{a[off + i]} << (8 * i);
  return static_cast<T>(v);
}

// The lowest index i >= from with !used[i] (or used.size()).
size_t lowest_free(const std::vector<bool>& used, size_t from) {
  size_t i = from;
  while (i < used.size() && used[i]) ++i;
  return i;
}

}  // namespace

RoceCmd::RoceCmd(Scheduler& s, const RoceCmdParams& p)
    : cmd(s, this, 1),
      qp_err(s, this, 1),
      s_(s),
      p_(p),
      gid_(p.gid_tbl_len),
      pd_used_(p.max_pd, false),
      cq_used_(p.max_cq, false),
      pd_refs_(p.max_pd, 0),
      cq_refs_(p.max_cq, 0),
      mr_(p.max_mr),
      qp_(p.max_qp),
      err_pending_(p.max_qp, false) {}

void RoceCmd::report_failure(unsigned qpn) {
  if (qpn >= err_pending_.size() || err_pending_[qpn]) return;
  err_pending_[qpn] = true;
  ++err_count_;
  s_.wake_at(this, s_.now() + 1);
}

void RoceCmd::set_gid(unsigned i, const Ip128& gid, uint8_t type, uint16_t vlan) {
  if (i < gid_.size()) gid_[i] = {gid, static_cast<uint8_t>(type & 3u), static_cast<uint16_t>(vlan & 0x1FFFu)};
}

bool RoceCmd::emit(const Output& o, Cycle t) {
  switch (o.index()) {
    case 0:
      if (!resp->can_push()) return false;
      resp->push(std::get<0>(o), t);
      return true;
    case 1:
      if (!qp_cfg.can_push()) return false;
      qp_cfg.push(std::get<1>(o), t);
      return true;
    case 2:
      if (!cq_cfg->can_push()) return false;
      cq_cfg->push(std::get<2>(o), t);
      return true;
    case 3:
      if (!mr_wr->can_push()) return false;
      mr_wr->push(std::get<3>(o), t);
      return true;
    default:
      if (!mtt_wr->can_push()) return false;
      mtt_wr->push(std::get<4>(o), t);
      return true;
  }
}

void RoceCmd::run() {
  const Cycle now = s_.now();
  while (qp_err.ready()) report_failure(qp_err.pop().qpn);
  if (pending_.empty() && err_count_ != 0) {  // a report before a mailbox command, as the RTL's IDLE
    while (!err_pending_[err_scan_]) err_scan_ = (err_scan_ + 1) % err_pending_.size();
    err_pending_[err_scan_] = false;
    --err_count_;
    const unsigned failed = err_scan_;
    // (the pointer moves past the QP taken, as qp_err_tap's: a QP reported
    // again meanwhile waits for the others)
    err_scan_ = (err_scan_ + 1) % static_cast<unsigned>(err_pending_.size());
    qp_failed(failed);
    next_ = now + 1;
    // (nothing to send when the QP was gone, in RESET or in ERR: what waits behind it must not be stranded)
    if (pending_.empty() && (err_count_ != 0 || cmd.ready())) s_.wake_at(this, next_);
  } else if (pending_.empty() && cmd.ready()) {
    spec::CmdResp r;
    r.status = static_cast<uint8_t>(execute(cmd.pop(), r));
    if (r.status != static_cast<uint8_t>(CmdStatus::kOk)) r.res = {};
    pending_.push_back(r);  // after the table writes execute() queued
    next_ = now + 1;
  }
  if (pending_.empty() || s_.defer(this, next_)) return;
  if (!emit(pending_.front(), now)) return;  // the consumer's pop wakes us
  pending_.pop_front();
  next_ = now + 1;
  s_.wake_at(this, next_);
}

spec::CmdStatus RoceCmd::execute(const spec::CmdReq& c, spec::CmdResp& r) {
  uint8_t a[64];
  for (unsigned k = 0; k < 64; ++k) a[k] = static_cast<uint8_t>(c.args[k / 4] >> (8 * (k % 4)));
  using Op = spec::CmdOp;
  switch (static_cast<Op>(c.op)) {
    case Op::kNop:
      return CmdStatus::kOk;
    case Op::kAllocPd:
      return alloc_pd(r);
    case Op::kDeallocPd:
      return dealloc_pd(c.args[0]);
    case Op::kCreateCq:
      return create_cq(a, r);
    case Op::kDestroyCq:
      return destroy_cq(c.args[0]);
    case Op::kRegMr:
      return reg_mr(a, r);
    case Op::kDeregMr:
      return dereg_mr(c.args[0]);
    case Op::kAllocMw:
      return alloc_mw(a, r);
    case Op::kDeallocMw:
      return dealloc_mw(c.args[0]);
    case Op::kWriteMtt:
      return write_mtt(a);
    case Op::kCreateQp:
      return create_qp(a, r);
    case Op::kModifyQp:
      return modify_qp(a);
    case Op::kQueryQp:
      return query_qp(c.args[0], r);
    case Op::kDestroyQp:
      return destroy_qp(c.args[0]);
  }
  return CmdStatus::kBadOp;
}

spec::CmdStatus RoceCmd::alloc_pd(spec::CmdResp& r) {
  const size_t pd = lowest_free(pd_used_, 0);
  if (pd >= pd_used_.size()) return CmdStatus::kNoResources;
  pd_used_[pd] = true;
  pd_refs_[pd] = 0;
  r.res[0] = static_cast<uint32_t>(pd);
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::dealloc_pd(uint32_t pd) {
  if (pd >= pd_used_.size() || !pd_used_[pd]) return CmdStatus::kNotFound;
  if (pd_refs_[pd]) return CmdStatus::kBusy;
  pd_used_[pd] = false;
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::create_cq(const uint8_t* a, spec::CmdResp& r) {
  spec::CmdCreateCq c;
  c.load(a);
  if (c.log_size > log2u(p_.max_cqe) || (c.base & 31u)) return CmdStatus::kBadParam;
  const size_t cq = lowest_free(cq_used_, 0);
  if (cq >= cq_used_.size()) return CmdStatus::kNoResources;
  cq_used_[cq] = true;
  cq_refs_[cq] = 0;
  spec::CqCfg cfg;
  cfg.cq = static_cast<uint16_t>(cq);
  cfg.valid = 1;
  cfg.base = c.base;
  cfg.log_size = c.log_size;
  pending_.push_back(cfg);
  r.res[0] = static_cast<uint32_t>(cq);
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::destroy_cq(uint32_t cq) {
  if (cq >= cq_used_.size() || !cq_used_[cq]) return CmdStatus::kNotFound;
  if (cq_refs_[cq]) return CmdStatus::kBusy;
  cq_used_[cq] = false;
  spec::CqCfg cfg;
  cfg.cq = static_cast<uint16_t>(cq);
  pending_.push_back(cfg);
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::reg_mr(const uint8_t* a, spec::CmdResp& r) {
  spec::CmdRegMr m;
  m.load(a);
  if (m.pd >= pd_used_.size() || !pd_used_[m.pd]) return CmdStatus::kNotFound;
  const uint32_t lw = static_cast<uint32_t>(spec::Access::kLocalWrite);
  const uint32_t needs_lw =
      static_cast<uint32_t>(spec::Access::kRemoteWrite) | static_cast<uint32_t>(spec::Access::kRemoteAtomic);
  bool bad = (m.access & ~(0xFu | spec::kAccessMwBind)) || ((m.access & needs_lw) && !(m.access & lw));
  bad = bad || m.length == 0 || m.page_shift < 12 || m.page_shift > 30;
  if (!bad) {
    const uint64_t last = m.iova + (m.length - 1);  // the region's last byte must not wrap
    const uint64_t need = (last >> m.page_shift) - (m.iova >> m.page_shift) + 1;
    bad = last < m.iova || need > m.npages || uint64_t{m.mtt_base} + m.npages > p_.mtt_depth;
  }
  if (bad) return CmdStatus::kBadParam;
  const size_t idx = claim_mr_index(static_cast<uint16_t>(m.pd), false);
  if (idx >= mr_.size()) return CmdStatus::kNoResources;
  spec::MrCtx ctx;
  ctx.valid = 1;
  ctx.key = mr_[idx].key;
  ctx.pd = static_cast<uint16_t>(m.pd);
  ctx.access = static_cast<uint8_t>(m.access & 0xFu);
  ctx.mw_bind = (m.access & spec::kAccessMwBind) ? 1 : 0;
  ctx.iova = m.iova;
  ctx.length = m.length;
  ctx.mtt_base = static_cast<uint16_t>(m.mtt_base);
  ctx.page_shift = m.page_shift;
  pending_.push_back(MrWrite{static_cast<uint16_t>(idx), ctx});
  r.res[0] = static_cast<uint32_t>(idx << 8 | mr_[idx].key);
  return CmdStatus::kOk;
}

// The lowest free MR-table index, taken for a region or a window of pd: its
// key byte moves on (0, never used, becomes 1), so that a key of an earlier
// tenant of the index no longer matches. mr_.size() when the table is full.
size_t RoceCmd::claim_mr_index(uint16_t pd, bool mw) {
  size_t idx = 0;
  while (idx < mr_.size() && mr_[idx].valid) ++idx;
  if (idx >= mr_.size()) return idx;
  Mr& x = mr_[idx];
  x.valid = true;
  x.key = x.key == 255 ? 1 : static_cast<uint8_t>(x.key + 1);
  x.pd = pd;
  x.mw = mw;
  ++pd_refs_[pd];
  return idx;
}

spec::CmdStatus RoceCmd::dereg_mr(uint32_t key) {
  const uint32_t idx = key >> 8;
  if (idx >= mr_.size() || !mr_[idx].valid || mr_[idx].mw || mr_[idx].key != (key & 0xFFu))
    return CmdStatus::kNotFound;
  mr_[idx].valid = false;
  --pd_refs_[mr_[idx].pd];
  pending_.push_back(MrWrite{static_cast<uint16_t>(idx), spec::MrCtx{}});
  return CmdStatus::kOk;
}

// ALLOC_MW: an unbound window (entry not valid until a BIND) in its own MR
// table index; its rkey is the index and a fresh key byte, as REG_MR's.
spec::CmdStatus RoceCmd::alloc_mw(const uint8_t* a, spec::CmdResp& r) {
  spec::CmdAllocMw m;
  m.load(a);
  if (m.pd >= pd_used_.size() || !pd_used_[m.pd]) return CmdStatus::kNotFound;
  if (m.type != 1 && m.type != 2) return CmdStatus::kBadParam;
  const size_t idx = claim_mr_index(static_cast<uint16_t>(m.pd), true);
  if (idx >= mr_.size()) return CmdStatus::kNoResources;
  spec::MrCtx ctx;
  ctx.key = mr_[idx].key;
  ctx.pd = static_cast<uint16_t>(m.pd);
  ctx.mw = 1;
  ctx.mw_type2 = m.type == 2 ? 1 : 0;
  pending_.push_back(MrWrite{static_cast<uint16_t>(idx), ctx});
  r.res[0] = static_cast<uint32_t>(idx << 8 | mr_[idx].key);
  return CmdStatus::kOk;
}

// DEALLOC_MW: by index alone (binds change the key byte in the MR table,
// behind our back). arg0's key byte -- the provider's, of the window's latest
// bind -- becomes the slot's last one, so the next tenant's key byte moves
// past it and the freed window's rkey names nothing.
spec::CmdStatus RoceCmd::dealloc_mw(uint32_t key) {
  const uint32_t idx = key >> 8;
  if (idx >= mr_.size() || !mr_[idx].valid || !mr_[idx].mw) return CmdStatus::kNotFound;
  mr_[idx].valid = false;
  mr_[idx].key = static_cast<uint8_t>(key);
  --pd_refs_[mr_[idx].pd];
  pending_.push_back(MrWrite{static_cast<uint16_t>(idx), spec::MrCtx{}});
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::write_mtt(const uint8_t* a) {
  spec::CmdWriteMtt w;
  w.load(a);
  if (w.count < 1 || w.count > 6 || uint64_t{w.index} + w.count > p_.mtt_depth) return CmdStatus::kBadParam;
  for (unsigned i = 0; i < w.count; ++i) {
    pending_.push_back(MttWrite{static_cast<uint16_t>(w.index + i), le<uint64_t>(a, spec::kCmdWriteMttPa0Off + spec::kCmdWriteMttPa0Bytes * i, spec::kCmdWriteMttPa0Bytes)});
  }
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::create_qp(const uint8_t* a, spec::CmdResp& r) {
  spec::CmdCreateQp q;
  q.load(a);
  if (q.qp_type != static_cast<uint8_t>(spec::QpType::kRc) && q.qp_type != static_cast<uint8_t>(spec::QpType::kUc) &&
      q.qp_type != static_cast<uint8_t>(spec::QpType::kUd))
    return CmdStatus::kBadParam;
  if (q.pd >= pd_used_.size() || !pd_used_[q.pd] || q.send_cq >= cq_used_.size() || !cq_used_[q.send_cq] ||
      q.recv_cq >= cq_used_.size() || !cq_used_[q.recv_cq])
    return CmdStatus::kNotFound;
  const unsigned max_lsz = log2u(p_.max_qp_wr);
  if (q.sq_lsz > max_lsz || q.rq_lsz > max_lsz || (q.sq_base & 511u) || (q.rq_base & 511u)) return CmdStatus::kBadParam;  // slots never cross 4 KiB
  size_t qpn = 2;  // QPNs 0 and 1 are IBTA's SMI and GSI QPs, never handed out
  while (qpn < qp_.size() && qp_[qpn].valid) ++qpn;
  if (qpn >= qp_.size()) return CmdStatus::kNoResources;
  Qp& x = qp_[qpn];
  x.valid = true;
  x.ctx = spec::QpCfg{};
  x.ctx.state = static_cast<uint8_t>(spec::QpState::kReset);
  x.ctx.qp_type = q.qp_type;
  x.ctx.pd = static_cast<uint16_t>(q.pd);
  x.ctx.send_cq = static_cast<uint16_t>(q.send_cq);
  x.ctx.recv_cq = static_cast<uint16_t>(q.recv_cq);
  x.ctx.sq_base = q.sq_base;
  x.ctx.sq_lsz = q.sq_lsz;
  x.ctx.rq_base = q.rq_base;
  x.ctx.rq_lsz = q.rq_lsz;
  ++pd_refs_[q.pd];
  ++cq_refs_[q.send_cq];
  ++cq_refs_[q.recv_cq];
  send_qp_cfg(static_cast<unsigned>(qpn), static_cast<uint8_t>(spec::QpAction::kReset));
  r.res[0] = static_cast<uint32_t>(qpn);
  return CmdStatus::kOk;
}

// A QP a transport failure put in ERR: the state every owner must see (they
// flush); nothing for a QP that is gone, in RESET (re-created since) or in ERR.
void RoceCmd::qp_failed(uint32_t qpn) {
  if (qpn >= qp_.size() || !qp_[qpn].valid) return;
  spec::QpCfg& x = qp_[qpn].ctx;
  const uint8_t err = static_cast<uint8_t>(spec::QpState::kErr);
  if (x.state == static_cast<uint8_t>(spec::QpState::kReset) || x.state == err) return;
  const spec::QpRule rule = spec::qp_rule(x.state, err, x.qp_type);
  x.state = err;
  send_qp_cfg(qpn, static_cast<uint8_t>(rule.action));
}

spec::CmdStatus RoceCmd::modify_qp(const uint8_t* a) {
  spec::CmdModifyQp m;
  m.load(a);
  if (m.qpn >= qp_.size() || !qp_[m.qpn].valid) return CmdStatus::kNotFound;
  spec::QpCfg& x = qp_[m.qpn].ctx;
  const spec::QpRule rule = spec::qp_rule(x.state, m.qp_state, x.qp_type);
  const uint32_t mask = m.attr_mask;
  if (!spec::qp_mask_ok(rule, mask)) return CmdStatus::kBadState;
  const Gid* g = m.sgid_index < gid_.size() ? &gid_[m.sgid_index] : nullptr;
  // GID type 3 is no defined type: treated as unused.
  if (((mask & kPathMtu) && (m.path_mtu < 1 || m.path_mtu > 5)) ||
      ((mask & kAv) && (!g || !g->usable())) || ((mask & kPort) && m.port_num != 1) ||
      ((mask & kPkey) && m.pkey_index != 0) || ((mask & kAccess) && (m.access & ~0xFu)) ||
      ((mask & kMaxRdAtomic) && m.max_rd_atomic > spec::kMaxQpRdAtom) ||
      ((mask & kMaxDestRdAtomic) && m.max_dest_rd_atomic > spec::kMaxQpRdAtom))
    return CmdStatus::kBadParam;
  x.state = m.qp_state;
  if (mask & kAccess) x.access = m.access;
  if (mask & kAv) {
    x.l3 = static_cast<uint8_t>(g->l3());
    x.src_ip = g->gid;
    x.vlan_valid = g->tagged();
    x.vlan_vid = g->vid();
    x.src_mac = mac_;
    x.dst_ip = m.dgid;
    x.dst_mac = 0;
    for (unsigned i = 0; i < 6; ++i) x.dst_mac = (x.dst_mac << 8) | m.dmac[i];
    x.ttl = m.hop_limit;
    x.tclass = m.traffic_class;
    x.flow_label = m.flow_label & 0xFFFFFu;
    x.sl = m.sl & 0xFu;
  }
  if (mask & kPathMtu) x.pmtu = m.path_mtu;
  if (mask & kDestQpn) x.dest_qpn = m.dest_qpn & 0xFFFFFFu;
  if (mask & kRqPsn) x.rq_psn = m.rq_psn & 0xFFFFFFu;
  if (mask & kSqPsn) x.sq_psn = m.sq_psn & 0xFFFFFFu;
  if (mask & kQkey) x.qkey = m.qkey;
  if (mask & kMinRnrTimer) x.min_rnr_timer = m.min_rnr_timer & 0x1Fu;
  // IBTA field widths: the rest of the byte is ignored, as by rxe
  if (mask & kTimeout) x.timeout = m.timeout & 0x1Fu;
  if (mask & kRetryCnt) x.retry_cnt = m.retry_cnt & 0x7u;
  if (mask & kRnrRetry) x.rnr_retry = m.rnr_retry & 0x7u;
  if (mask & kMaxRdAtomic) x.max_rd_atomic = m.max_rd_atomic;  // (at most MAX_QP_RD_ATOM: checked above)
  if (mask & kMaxDestRdAtomic) x.max_dest_rd_atomic = m.max_dest_rd_atomic;
  send_qp_cfg(m.qpn, static_cast<uint8_t>(rule.action));
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::query_qp(uint32_t qpn, spec::CmdResp& r) {
  if (qpn >= qp_.size() || !qp_[qpn].valid) return CmdStatus::kNotFound;
  const spec::QpCfg& x = qp_[qpn].ctx;
  r.res = {x.state, x.sq_psn, x.rq_psn, x.dest_qpn};
  return CmdStatus::kOk;
}

spec::CmdStatus RoceCmd::destroy_qp(uint32_t qpn) {
  if (qpn >= qp_.size() || !qp_[qpn].valid) return CmdStatus::kNotFound;
  Qp& x = qp_[qpn];
  x.valid = false;
  --pd_refs_[x.ctx.pd];
  --cq_refs_[x.ctx.send_cq];
  --cq_refs_[x.ctx.recv_cq];
  send_qp_cfg(qpn, static_cast<uint8_t>(spec::QpAction::kDestroy));
  return CmdStatus::kOk;
}

void RoceCmd::send_qp_cfg(unsigned qpn, uint8_t action) {
  spec::QpCfg c = qp_[qpn].ctx;
  c.qpn = static_cast<uint16_t>(qpn);
  c.action = action;
  pending_.push_back(c);
}

std::unique_ptr<rocenic::Block> make_roce_cmd_block(const RoceCmdParams& p) {
  return std::make_unique<FlitAdapter>(64, [p](FlitAdapter& a) {
    RoceCmd* c = a.make<RoceCmd>(p);
    a.in<spec::CmdReq>("cmd", c->cmd);
    a.in<spec::QpErr>("qp_err", c->qp_err);
    a.out<spec::CmdResp>("resp", c->resp);
    Out<spec::QpCfg> qp(c);  // the broadcast, as one port
    a.out<spec::QpCfg>("qp_cfg", qp);
    c->qp_cfg.bind(*qp);
    a.out<spec::CqCfg>("cq_cfg", c->cq_cfg);
    a.out<MrWrite>("mr_wr", c->mr_wr, 1, 2 + (spec::MrCtx::kBits + 7) / 8, [](const MrWrite& w) {
      Flit f = desc_to_flit(w.ctx);
      f.data.insert(f.data.begin(), {static_cast<uint8_t>(w.index), static_cast<uint8_t>(w.index >> 8)});
      return f;
    });
    a.out<MttWrite>("mtt_wr", c->mtt_wr, 1, 10, [](const MttWrite& w) {
      Flit f;
      f.data = {static_cast<uint8_t>(w.index), static_cast<uint8_t>(w.index >> 8)};
      for (unsigned k = 0; k < 8; ++k) f.data.push_back(static_cast<uint8_t>(w.pa >> (8 * k)));
      return f;
    });
    a.busy_from([c] { return c->busy(); });
  });
}

}  // namespace rocenic::model
