#include "mem/mr_table.h"

#include <algorithm>

#include "sched/flit_adapter.h"

namespace rocenic::model {

MrTable::MrTable(Scheduler& s, unsigned max_mr, unsigned mtt_depth)
    : mr_wr(s, this, 1), mtt_wr(s, this, 1), req(s, this, kReqCapacity), s_(s), regions_(max_mr, mtt_depth) {}

// IBTA 10.6 (regions) and 10.6.7 (windows), the rules of rtl/mem/mr_table.sv's
// header: first failing check wins.
spec::MrResp MrRegions::check(const spec::MrReq& r) const {
  using spec::MrStatus;
  spec::MrResp resp;
  resp.tag = r.tag;
  const spec::MrCtx* a = entry(r.key);
  const spec::MrCtx* b = a && a->mw ? entry(uint32_t{a->mr_index} << 8) : nullptr;
  const spec::MrCtx* t = a && a->mw ? b : a;  // whose pages translate
  auto inside = [&](const spec::MrCtx& c) {
    const uint64_t off = r.va - c.iova;
    return r.va >= c.iova && off <= c.length && r.len <= c.length - off;
  };
  MrStatus st;
  uint64_t mtt_index = 0, in_page = 0, page = 1;
  if (!a || !a->valid || a->key != (r.key & 0xFFu)) {
    st = MrStatus::kBadKey;
  } else if (a->mw && (!r.remote || (a->mw_type2 && a->qpn != r.qpn) || !b || !b->valid || b->mw ||
                       b->key != a->mr_key)) {
    st = MrStatus::kBadKey;  // a window is an rkey of its QP, alive while its MR is
  } else if (a->pd != r.pd) {
    st = MrStatus::kBadPd;
  } else if (r.access & ~a->access & 0xFu) {
    st = MrStatus::kNoAccess;
  } else {
    page = uint64_t{1} << t->page_shift;
    const uint64_t page_base = t->iova & ~(page - 1);
    in_page = r.va & (page - 1);
    mtt_index = t->mtt_base + ((r.va - page_base) >> t->page_shift);
    st = inside(*a) && (!a->mw || inside(*b)) && mtt_index < mtt_.size() ? MrStatus::kOk : MrStatus::kOutOfBounds;
  }
  resp.status = static_cast<uint8_t>(st);
  if (st == MrStatus::kOk) {
    resp.pa = mtt_[mtt_index] + in_page;
    resp.run = r.len < page - in_page ? r.len : static_cast<uint32_t>(page - in_page);
  }
  return resp;
}

// BIND (IBV_WR_BIND_MW, ibv_bind_mw): the window at key onto [va, va+len) of
// the MR at mr_key; *out is the window's new entry.
spec::MrStatus MrRegions::bind(const spec::MrReq& r, spec::MrCtx* out) const {
  using spec::MrStatus;
  const spec::MrCtx* a = entry(r.key);
  const spec::MrCtx* b = entry(r.mr_key);
  const uint8_t needs_local_write =
      static_cast<uint8_t>(spec::Access::kRemoteWrite) | static_cast<uint8_t>(spec::Access::kRemoteAtomic);
  if (!a || !a->mw) return MrStatus::kBadKey;
  if (a->pd != r.pd) return MrStatus::kBadPd;
  // a type 2 window is bound once until invalidated, never with length 0 (IBTA o10-37.2.40)
  if (a->mw_type2 && (a->valid || r.len == 0)) return MrStatus::kBadState;
  if (r.len == 0) {  // a type 1 unbind: no MR needed (rxe binds with no MR)
    *out = *a;
    out->valid = 0;
    out->key = static_cast<uint8_t>(r.key);
    out->access = 0;
    out->iova = 0;
    out->length = 0;
    out->qpn = 0;
    out->mr_index = 0;
    out->mr_key = 0;
    return MrStatus::kOk;
  }
  if (!b || !b->valid || b->mw || b->key != (r.mr_key & 0xFFu)) return MrStatus::kBadKey;
  if (b->pd != r.pd) return MrStatus::kBadPd;
  if (!b->mw_bind || ((r.access & needs_local_write) && !(b->access & static_cast<uint8_t>(spec::Access::kLocalWrite))))
    return MrStatus::kNoAccess;
  const uint64_t off = r.va - b->iova;
  if (r.va < b->iova || off > b->length || r.len > b->length - off) return MrStatus::kOutOfBounds;
  *out = *a;
  out->valid = r.len != 0;  // a zero-length bind leaves the window unbound
  out->key = static_cast<uint8_t>(r.key);
  out->access = r.access & ~static_cast<uint8_t>(spec::Access::kLocalWrite) & 0xFu;
  out->iova = r.va;
  out->length = r.len;
  out->mtt_base = 0;
  out->page_shift = 0;
  out->mw_bind = 0;
  out->qpn = a->mw_type2 ? r.qpn : 0;
  out->mr_index = static_cast<uint16_t>(r.mr_key >> 8);
  out->mr_key = b->key;
  return MrStatus::kOk;
}

// INVALIDATE (LOCAL_INV; SEND_WITH_INV when remote): only a bound type 2
// window; REG_MR regions and type 1 windows cannot be invalidated.
spec::MrStatus MrRegions::invalidate(const spec::MrReq& r) const {
  using spec::MrStatus;
  const spec::MrCtx* a = entry(r.key);
  if (!a || !a->valid || a->key != (r.key & 0xFFu)) return MrStatus::kBadKey;
  if (!a->mw || !a->mw_type2) return MrStatus::kBadState;
  if (a->pd != r.pd) return MrStatus::kBadPd;
  if (r.remote && a->qpn != r.qpn) return MrStatus::kBadKey;
  return MrStatus::kOk;
}

spec::MrResp MrRegions::execute(const spec::MrReq& r) {
  using spec::MrOp;
  const auto op = static_cast<MrOp>(r.op);
  if (op != MrOp::kBind && op != MrOp::kInvalidate) return check(r);  // (the reserved op 3 is a CHECK)
  spec::MrResp resp;
  resp.tag = r.tag;
  spec::MrCtx next;
  const spec::MrStatus st = op == MrOp::kBind ? bind(r, &next) : invalidate(r);
  resp.status = static_cast<uint8_t>(st);
  if (st != spec::MrStatus::kOk) return resp;
  if (op == MrOp::kInvalidate) {
    next = *entry(r.key);
    next.valid = 0;
  }
  write_mr(r.key >> 8, next);
  return resp;
}

bool MrRegions::reads_two(const spec::MrReq& r) const {
  const spec::MrCtx* a = entry(r.key);
  if (!a || !a->mw) return false;
  const auto op = static_cast<spec::MrOp>(r.op);
  return op == spec::MrOp::kBind || (op != spec::MrOp::kInvalidate && a->valid);
}

void MrTable::run() {
  const Cycle now = s_.now();
  // Table writes first: a request arriving with one reads the new entry (the
  // RTL's write-first read port).
  while (mr_wr.ready()) {
    const MrWrite w = mr_wr.pop();
    regions_.write_mr(w.index, w.ctx);
  }
  while (mtt_wr.ready()) {
    const MttWrite w = mtt_wr.pop();
    regions_.write_mtt(w.index, w.pa);
  }
  while (req.ready() && resp->can_push() && next_req_ <= now) {
    const spec::MrReq r = req.pop();
    const Cycle extra = regions_.reads_two(r) ? 1 : 0;  // the window's MR read through the same port
    resp->push(regions_.execute(r), now + kLatency + extra);
    next_req_ = now + 1 + extra;
  }
  if (req.ready() && next_req_ > now) s_.wake_at(this, next_req_);  // (a full resp wakes us when it drains)
}

std::unique_ptr<rocenic::Block> make_mr_table_block(unsigned max_mr, unsigned mtt_depth) {
  return std::make_unique<FlitAdapter>(64, [=](FlitAdapter& a) {
    MrTable* t = a.make<MrTable>(max_mr, mtt_depth);
    a.in<MrWrite>("mr_wr", t->mr_wr, 2 + (spec::MrCtx::kBits + 7) / 8, [](const Flit& f) {
      Flit body;
      body.data.assign(f.data.begin() + std::min<size_t>(2, f.data.size()), f.data.end());
      return MrWrite{static_cast<uint16_t>(flit_le(f, 0, 2)), desc_from_flit<spec::MrCtx>(body)};
    });
    a.in<MttWrite>("mtt_wr", t->mtt_wr, 10,
                   [](const Flit& f) { return MttWrite{static_cast<uint16_t>(flit_le(f, 0, 2)), flit_le(f, 2, 8)}; });
    a.in<spec::MrReq>("req", t->req);
    a.out<spec::MrResp>("resp", t->resp, 2);  // the two pipeline stages
  });
}

}  // namespace rocenic::model
