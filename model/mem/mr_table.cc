#include "mem/mr_table.h"

#include "common/desc_flit.h"

namespace rocenic::model {
namespace {

uint64_t le(const Flit& f, unsigned off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && off + i < f.data.size(); ++i) v |= uint64_t{f.data[off + i]} << (8 * i);
  return v;
}

// The flit after its 2-byte index prefix.
Flit without_index(const Flit& f) {
  Flit g;
  g.data.assign(f.data.begin() + std::min<size_t>(2, f.data.size()), f.data.end());
  return g;
}

}  // namespace

MrTable::MrTable(unsigned max_mr, unsigned mtt_depth) : mr_(max_mr), mtt_(mtt_depth) {
  in_info_ = {{"mr_wr", false, true, 2 + (spec::MrCtx::kBits + 7) / 8},
              {"mtt_wr", false, true, 10},
              {"req", false, true, (spec::MrReq::kBits + 7) / 8}};
  out_info_ = {{"resp", false, true, (spec::MrResp::kBits + 7) / 8}};
}

void MrTable::reset() {
  out_.clear();
  cycle_ = 0;
}

spec::MrResp MrTable::check(const spec::MrReq& r) const {
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

void MrTable::set_input(unsigned port, bool valid, const Flit& flit) {
  valid_[port] = valid;
  in_[port] = flit;
}

Flit MrTable::output(unsigned) { return desc_to_flit(out_.front()); }

void MrTable::clock() {
  // Same-cycle order as the RTL: a request reads the tables before this cycle's writes.
  const bool take_req = valid_[2] && input_ready(2);
  if (!out_.empty() && out_ready_) out_.pop_front();
  if (take_req) out_.push_back(check(desc_from_flit<spec::MrReq>(in_[2])));
  if (valid_[0]) write_mr(static_cast<unsigned>(le(in_[0], 0, 2)), desc_from_flit<spec::MrCtx>(without_index(in_[0])));
  if (valid_[1]) write_mtt(static_cast<unsigned>(le(in_[1], 0, 2)), le(in_[1], 2, 8));
  ++cycle_;
}

}  // namespace rocenic::model
