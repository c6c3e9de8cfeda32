#include "mem/mr_table.h"

#include <algorithm>

#include "sched/flit_adapter.h"

namespace rocenic::model {

MrTable::MrTable(Scheduler& s, unsigned max_mr, unsigned mtt_depth)
    : mr_wr(s, this, 1), mtt_wr(s, this, 1), req(s, this, kReqCapacity), s_(s), regions_(max_mr, mtt_depth) {}

spec::MrResp MrRegions::check(const spec::MrReq& r) const {
  using spec::MrStatus;
  spec::MrResp resp;
  resp.tag = r.tag;
  const uint32_t index = r.key >> 8;
  const spec::MrCtx* c = index < mr_.size() ? &mr_[index] : nullptr;
  const uint64_t page = uint64_t{1} << (c ? c->page_shift : 0);
  MrStatus st;
  uint64_t mtt_index = 0, in_page = 0;
  if (!c || !c->valid || c->key != (r.key & 0xFFu)) {
    st = MrStatus::kBadKey;
  } else if (c->pd != r.pd) {
    st = MrStatus::kBadPd;
  } else if (r.access & ~c->access & 0xFu) {
    st = MrStatus::kNoAccess;
  } else {
    const uint64_t off = r.va - c->iova;
    const uint64_t page_base = c->iova & ~(page - 1);
    in_page = r.va & (page - 1);
    mtt_index = c->mtt_base + ((r.va - page_base) >> c->page_shift);
    const bool inside = r.va >= c->iova && off <= c->length && r.len <= c->length - off;
    st = inside && mtt_index < mtt_.size() ? MrStatus::kOk : MrStatus::kOutOfBounds;
  }
  resp.status = static_cast<uint8_t>(st);
  if (st == MrStatus::kOk) {
    resp.pa = mtt_[mtt_index] + in_page;
    resp.run = r.len < page - in_page ? r.len : static_cast<uint32_t>(page - in_page);
  }
  return resp;
}

void MrTable::run() {
  const Cycle now = s_.now();
  // Requests first: one that arrives with a table write reads the old entry.
  while (req.ready() && resp->can_push() && next_req_ <= now) {
    resp->push(regions_.check(req.pop()), now + kLatency);
    next_req_ = now + 1;
  }
  if (req.ready() && next_req_ > now) s_.wake_at(this, next_req_);  // (a full resp wakes us when it drains)
  while (mr_wr.ready()) {
    const MrWrite w = mr_wr.pop();
    regions_.write_mr(w.index, w.ctx);
  }
  while (mtt_wr.ready()) {
    const MttWrite w = mtt_wr.pop();
    regions_.write_mtt(w.index, w.pa);
  }
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
