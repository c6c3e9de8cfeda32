#include "xport/read_place.h"

#include <algorithm>

#include "sched/flit_adapter.h"

namespace rocenic::model {
namespace {

// Timing, in cycles (the RTL's stages; not yet calibrated by engine_bench:
// the block is not in the engine).
constexpr Cycle kTake = 1;    // an input taken: its QP context is read
constexpr Cycle kStep = 1;    // a control step: decide, check, an SGE stepped over, a piece cut
constexpr Cycle kPlace = 2;   // a piece cut to its write request (request FIFO)
constexpr Cycle kSlice = 1;   // ... and its first data beat one cycle behind it (descriptor FIFO, then the slicer's register)
constexpr Cycle kAnswer = 2;  // the READ's last write taken to its done (done FIFO)

uint64_t le(const Bytes& b, size_t off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && off + i < b.size(); ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}
uint8_t wc(spec::WcStatus s) { return static_cast<uint8_t>(s); }

}  // namespace

ReadPlace::ReadPlace(Scheduler& s, unsigned data_bytes, unsigned max_qp)
    : qp_cfg(s, this, 1),
      cmd(s, this, 1),
      payload(s, this, 2),  // the RTL's payload FIFO holds two 4 KiB packets
      dma_rd(s, this, 1),
      mr_resp(s, this, 1),
      hint(s, this, 8),  // the RTL takes one a cycle, always; this one takes them as they come
      s_(s),
      bytes_(data_bytes),
      qps_(max_qp),
      hints_(spec::kReadHints) {}

unsigned ReadPlace::hint_slot(uint16_t qpn, uint16_t idx) {
  static_assert((spec::kReadHints & (spec::kReadHints - 1)) == 0 && spec::kReadHints <= 65536);
  unsigned bits = 0;
  while ((1u << bits) < spec::kReadHints) ++bits;
  unsigned r = 0;
  for (unsigned i = 0; i < bits; ++i) r |= ((idx >> (bits - 1 - i)) & 1u) << i;
  return (qpn ^ r) & (spec::kReadHints - 1);
}

void ReadPlace::take_hints(Cycle before) {
  while (!hint.empty() && hint.next_at() < before) {
    const spec::RdHint h = hint.pop();
    Hint& e = hints_[hint_slot(h.qpn, h.wqe_idx)];
    e.valid = true;
    e.one_sge = h.one_sge;
    e.qpn = h.qpn;
    e.idx = h.wqe_idx;
    e.sge = Sge{h.addr, h.length, h.lkey};
  }
}

bool ReadPlace::use_hint() {
  const Hint& h = hints_[hint_slot(k_.qpn, k_.wqe_idx)];
  if (!(h.valid && h.one_sge && h.qpn == k_.qpn && h.idx == k_.wqe_idx)) return false;
  wqe_.valid = true;
  wqe_.qpn = k_.qpn;
  wqe_.idx = k_.wqe_idx;
  wqe_.sge = {};
  wqe_.sge[0] = h.sge;
  wqe_.total = h.sge.len;
  wqe_.pos_valid = false;
  ++c_hints_;
  return true;
}

std::vector<std::pair<std::string, uint32_t>> ReadPlace::counters() const {
  return {{"pieces", c_pieces_}, {"drop_bytes", c_drop_}, {"wqe_reads", c_reads_}, {"hint_hits", c_hints_}, {"errors", c_err_}};
}

// ---------------------------------------------------------------- control

void ReadPlace::on_cfg(const spec::QpCfg& c) {
  // Attributes from every qp_cfg; RESET (and DESTROY) forget a failure and
  // start a new epoch.
  if (c.qpn == wqe_.qpn) wqe_.valid = false;  // its send queue may have moved
  if (c.qpn >= qps_.size()) return;
  Qp& q = qps_[c.qpn];
  if (!q.valid) {  // a QP that does not exist reads as zero, but for its epoch
    const uint8_t epoch = q.epoch;
    q = Qp{};
    q.epoch = epoch;
  }
  q.pd = c.pd;
  q.sq_base = c.sq_base;
  q.sq_lsz = c.sq_lsz;
  const auto a = static_cast<spec::QpAction>(c.action);
  if (a == spec::QpAction::kReset || a == spec::QpAction::kDestroy) {
    q.fail = false;
    q.epoch = (q.epoch + 1) & 15u;
  }
  q.valid = a != spec::QpAction::kDestroy;
}

void ReadPlace::on_cmd(const spec::RdPlace& c) {
  k_ = c;
  job_ = Job{};
  job_.len = c.len;
  job_.last = c.last;
  const Qp q = c.qpn < qps_.size() ? qps_[c.qpn] : Qp{};
  ok_ = q.valid && q.epoch == c.epoch;  // (a command from before a RESET is dropped)
  old_fail_ = ok_ && q.fail && q.fail_idx == c.wqe_idx;
  failed_ = old_fail_;
  new_fail_ = false;
  status_ = !ok_ ? wc(spec::WcStatus::kLocQpOpErr) : old_fail_ ? q.fail_st : wc(spec::WcStatus::kSuccess);
  rem_ = c.len;
  ctl_at_ += kStep;
  // No QP, nothing to place, or a WQE that failed: the payload is dropped.
  if (!ok_ || c.drop || old_fail_ || c.len == 0) return finish();
  if (wqe_.valid && wqe_.qpn == c.qpn && wqe_.idx == c.wqe_idx) {
    ctl_at_ += kStep;
    return check();
  }
  if (use_hint()) {  // a READ of one SGE: as if fetched, with no fetch
    ctl_at_ += kStep;
    return check();
  }
  // The READ's (atomic's) send WQE: its SGEs are where the data goes.
  const uint16_t mask = q.sq_lsz >= 16 ? 0xFFFF : static_cast<uint16_t>((1u << q.sq_lsz) - 1);
  spec::DmaRdReq r;
  r.addr = q.sq_base + (uint64_t{static_cast<uint16_t>(c.wqe_idx & mask)} << spec::kWqeSlotLog2);
  r.len = spec::kWqeHead;
  dma_rd_req->push(r, ctl_at_);
  wqe_.valid = false;
  ++c_reads_;
  st_ = St::kWqe;
}

void ReadPlace::after_wqe(const Packet& p) {
  if (p.user) return fail(wc(spec::WcStatus::kLocProtErr));  // the host refused the read
  const unsigned nsge = static_cast<unsigned>(le(p.data, spec::kSendWqeNumSgeOff, 1));
  const unsigned op = static_cast<unsigned>(le(p.data, spec::kSendWqeOpcodeOff, 1));
  // (not a READ or an atomic, whose 8 bytes land alike: the slot was posted
  // again since, after a RESET)
  using Op = spec::WrOpcode;
  const bool rdat = op == static_cast<unsigned>(Op::kRdmaRead) || op == static_cast<unsigned>(Op::kAtomicCmpAndSwp) ||
                    op == static_cast<unsigned>(Op::kAtomicFetchAndAdd);
  if (nsge > kMaxSge || !rdat) return fail(wc(spec::WcStatus::kLocQpOpErr));
  if (nsge > kHeadSge) {
    // SGEs 6..nsge-1: right after the head in the slot (the RTL's TAIL)
    const Qp& q = qps_[k_.qpn];
    const uint16_t mask = q.sq_lsz >= 16 ? 0xFFFF : static_cast<uint16_t>((1u << q.sq_lsz) - 1);
    spec::DmaRdReq r;
    r.addr = q.sq_base + (uint64_t{static_cast<uint16_t>(k_.wqe_idx & mask)} << spec::kWqeSlotLog2) + spec::kWqeHead;
    r.len = static_cast<uint16_t>(spec::Sge::kSize * (nsge - kHeadSge));
    ctl_at_ += kStep;
    dma_rd_req->push(r, ctl_at_);
    wqe_head_ = p;
    st_ = St::kWqeTail;
    return;
  }
  use_wqe(p);
}

void ReadPlace::after_wqe_tail(const Packet& t) {
  if (t.user) return fail(wc(spec::WcStatus::kLocProtErr));
  std::vector<uint8_t> all(wqe_head_.data.data(), wqe_head_.data.data() + wqe_head_.data.size());
  all.insert(all.end(), t.data.data(), t.data.data() + t.data.size());
  ctl_at_ += kStep;  // (the RTL sums the SGE lengths a cycle later)
  use_wqe(Packet{Bytes(std::move(all))});
}

void ReadPlace::use_wqe(const Packet& p) {
  const unsigned nsge = static_cast<unsigned>(le(p.data, spec::kSendWqeNumSgeOff, 1));
  wqe_.valid = true;
  wqe_.qpn = k_.qpn;
  wqe_.idx = k_.wqe_idx;
  wqe_.total = 0;
  for (unsigned i = 0; i < kMaxSge; ++i) {
    const size_t off = spec::kSendWqeSge0AddrOff + spec::Sge::kSize * i;
    Sge& s = wqe_.sge[i];
    s = Sge{};
    if (i >= nsge || off + spec::Sge::kSize > p.data.size()) continue;  // (slots past num_sge: unused)
    s.addr = le(p.data, off + spec::kSgeAddrOff, 8);
    s.len = static_cast<uint32_t>(le(p.data, off + spec::kSgeLengthOff, 4));
    s.lkey = static_cast<uint32_t>(le(p.data, off + spec::kSgeLkeyOff, 4));
    wqe_.total += s.len;
  }
  wqe_.pos_valid = false;
  ctl_at_ += kStep;
  check();
}

// The response must fit the SGEs; then its position: where the WQE's
// previous command ended, or found from SGE 0 (empty SGEs stepped over too).
void ReadPlace::check() {
  if (uint64_t{k_.offset} + k_.len > wqe_.total) return fail(wc(spec::WcStatus::kLocLenErr));
  ctl_at_ += kStep;
  if (wqe_.pos_valid && wqe_.next == k_.offset) return walk();
  uint64_t seek = k_.offset;
  wqe_.sidx = 0;
  while (wqe_.sidx < kMaxSge && seek >= wqe_.sge[wqe_.sidx].len) {
    seek -= wqe_.sge[wqe_.sidx].len;
    ++wqe_.sidx;
    ctl_at_ += kStep;
  }
  ctl_at_ += kStep;
  wqe_.soff = static_cast<uint32_t>(seek);
  wqe_.run_left = 0;
  wqe_.pos_valid = true;
  walk();
}

// Cut the payload into pieces that never cross an SGE end or a page run, each
// run translated by the MR table (which checks the SGE's lkey too).
void ReadPlace::walk() {
  while (rem_ != 0 && wqe_.sidx < kMaxSge) {
    const Sge& s = wqe_.sge[wqe_.sidx];
    if (wqe_.soff == s.len) {  // this SGE is full (or empty): the next one
      ++wqe_.sidx;
      wqe_.soff = wqe_.run_left = 0;
      ctl_at_ += kStep;
      continue;
    }
    if (wqe_.run_left == 0) {
      spec::MrReq r;
      r.key = s.lkey;
      r.pd = qps_[k_.qpn].pd;
      r.va = s.addr + wqe_.soff;
      r.len = s.len - wqe_.soff;
      r.access = static_cast<uint8_t>(spec::Access::kLocalWrite);
      mr_req->push(r, ctl_at_);
      st_ = St::kRun;
      return;
    }
    const uint32_t k = std::min(rem_, wqe_.run_left);
    job_.pieces.push_back({wqe_.run_pa, k, ctl_at_});
    ++c_pieces_;
    wqe_.run_pa += k;
    wqe_.run_left -= k;
    wqe_.soff += k;
    rem_ -= k;
    ctl_at_ += kStep;
  }
  wqe_.next = uint64_t{k_.offset} + k_.len;
  finish();
}

void ReadPlace::after_run(const spec::MrResp& r) {
  if (r.status != static_cast<uint8_t>(spec::MrStatus::kOk)) {
    wqe_.pos_valid = false;
    return fail(wc(spec::WcStatus::kLocProtErr));  // what is left of the payload is dropped
  }
  wqe_.run_pa = r.pa;
  wqe_.run_left = r.run;
  ctl_at_ += kStep;
  walk();
}

// The WQE fails: the rest of this payload and its later data are dropped.
void ReadPlace::fail(uint8_t status) {
  failed_ = new_fail_ = true;
  status_ = status;
  finish();
}

// The command is decided: its failure written back, a READ's last one answered.
void ReadPlace::finish() {
  c_drop_ += rem_;
  if (ok_ && (new_fail_ || (k_.last && old_fail_))) {
    Qp& q = qps_[k_.qpn];
    q.fail = failed_ && !k_.last;
    q.fail_idx = k_.wqe_idx;
    q.fail_st = status_;
  }
  if (k_.last) {
    job_.answer.qpn = k_.qpn;
    job_.answer.wqe_idx = k_.wqe_idx;
    job_.answer.status = status_;
    if (status_ != wc(spec::WcStatus::kSuccess)) ++c_err_;
    if (wqe_.valid && wqe_.qpn == k_.qpn && wqe_.idx == k_.wqe_idx) wqe_.valid = false;  // the WQE is done
  }
  ctl_at_ += kStep;
  job_.at = ctl_at_;
  placing_.push_back(std::move(job_));
  st_ = St::kIdle;
}

// ---------------------------------------------------------------- placement

// The front job: its pieces written a beat a cycle, the rest of its payload
// dropped, then (the READ's last command) its done once every write before it
// was taken.
bool ReadPlace::place(Cycle now) {
  Job& j = placing_.front();
  if (j.len != 0 && !j.popped) {
    // The payload streams in a beat a cycle: a Packet arrives at its last
    // beat, but its pieces are written as their beats come (the RTL's
    // slicer), so its first beat is what placement waits for.
    if (payload.empty()) return false;
    const Cycle pay_beats = (payload.front().data.size() + bytes_ - 1) / bytes_;
    const Cycle pay_first = payload.next_at() - std::min<Cycle>(payload.next_at(), pay_beats ? pay_beats - 1 : 0);
    if (pay_first > now) {
      s_.wake_at(this, pay_first);
      return false;
    }
    const Bytes& data = payload.front().data;
    while (!j.pieces.empty()) {
      if (!dma_wr_req->can_push() || !dma_wr_data->can_push()) return false;
      const Piece pc = j.pieces.front();
      const Cycle start = std::max({now, place_at_, pc.at + kPlace, pay_first + j.written / bytes_});
      const Cycle beats = (pc.len + bytes_ - 1) / bytes_;
      const Cycle in_last = pay_first + (j.written + pc.len + bytes_ - 1) / bytes_ - 1;  // its last byte in
      spec::DmaWrReq r;
      r.addr = pc.pa;
      r.len = static_cast<uint16_t>(pc.len);
      dma_wr_req->push(r, start);
      std::vector<uint8_t> b(pc.len, 0);
      for (uint32_t i = 0; i < pc.len && j.written + i < data.size(); ++i) b[i] = data[j.written + i];
      const Cycle last = std::max(start + beats - 1, in_last);
      dma_wr_data->push(Packet{Bytes(std::move(b))}, last + kSlice);
      place_at_ = last + 1;
      j.written += pc.len;
      j.pieces.pop_front();
    }
    if (!payload.ready()) {  // through once its last beat is in
      s_.wake_at(this, payload.next_at());
      return false;
    }
    if (const uint32_t rest = j.len - j.written)  // dropped: the slicer passes it a beat a cycle (once)
      place_at_ = std::max({now, place_at_, j.at + kPlace, pay_first + j.written / bytes_}) + (rest + bytes_ - 1) / bytes_;
    payload.pop();
    j.popped = true;
  }
  if (j.last) {
    if (!dma_wr_req->empty() || !dma_wr_data->empty() || !done->can_push()) return false;
    done->push(j.answer, std::max(now, j.at) + kAnswer);
  }
  placing_.pop_front();
  return true;
}

void ReadPlace::run() {
  const Cycle now = s_.now();
  take_hints(now);
  if (!hint.empty()) s_.wake_at(this, hint.next_at() + 1);
  for (bool moved = true; moved;) {
    moved = false;
    while (!placing_.empty() && place(now)) moved = true;
    if (s_.defer(this, ctl_at_)) break;
    switch (st_) {
      case St::kIdle: {
        // The input that arrived first (same cycle: qp_cfg first, as the RTL).
        const int pick = first_arrived({qp_cfg.next_at(), cmd.next_at()}, now);
        if (pick < 0) break;
        ctl_at_ = now + kTake;
        if (pick == 0) {
          on_cfg(qp_cfg.pop());
          ctl_at_ += kStep;
        } else {
          on_cmd(cmd.pop());
        }
        moved = true;
        break;
      }
      case St::kWqe:
      case St::kWqeTail:
        if (!dma_rd.ready()) break;
        ctl_at_ = std::max(ctl_at_, now);
        if (st_ == St::kWqe) after_wqe(dma_rd.pop());
        else after_wqe_tail(dma_rd.pop());
        moved = true;
        break;
      case St::kRun:
        if (!mr_resp.ready()) break;
        ctl_at_ = std::max(ctl_at_, now);
        after_run(mr_resp.pop());
        moved = true;
        break;
    }
  }
}

std::unique_ptr<rocenic::Block> make_read_place_block(unsigned data_bytes, unsigned max_qp) {
  return std::make_unique<FlitAdapter>(data_bytes, [=](FlitAdapter& a) {
    ReadPlace* r = a.make<ReadPlace>(data_bytes, max_qp);
    // The control takes qp_cfg and cmd only when it is free (as the RTL's,
    // so inputs on the two ports meet it in the same order).
    a.in_when<spec::QpCfg>("qp_cfg", r->qp_cfg, [r](const spec::QpCfg&) { return r->accepting(); });
    a.in_when<spec::RdPlace>("cmd", r->cmd, [r](const spec::RdPlace&) { return r->accepting(); });
    a.in_stream("payload", r->payload);
    a.in_stream("dma_rd", r->dma_rd);
    a.in<spec::MrResp>("mr_resp", r->mr_resp);
    a.in<spec::RdHint>("hint", r->hint);
    a.out<spec::DmaRdReq>("dma_rd_req", r->dma_rd_req);
    a.out<spec::MrReq>("mr_req", r->mr_req);
    a.out<spec::DmaWrReq>("dma_wr_req", r->dma_wr_req, 4);
    a.out_stream("dma_wr_data", r->dma_wr_data, 4);
    a.out<spec::RdDone>("done", r->done, 2);
    a.counters_from([r] { return r->counters(); });
    a.busy_from([r] { return r->busy(); });
  });
}

}  // namespace rocenic::model
