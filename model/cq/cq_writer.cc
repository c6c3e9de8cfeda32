#include "cq/cq_writer.h"

#include "sched/flit_adapter.h"

namespace rocenic::model {

namespace {
constexpr uint32_t kIndexMask = 0xFFFFFF;  // producer/consumer indices are 24 bits
constexpr unsigned kMaxLogSize = 16;       // CAP_MAX_CQE: a larger ring is refused
}  // namespace

CqWriter::CqWriter(Scheduler& s, unsigned max_cq)
    : cfg(s, this, 1), db(s, this, 1), completion(s, this, 1), s_(s), rings_(max_cq) {}

void CqWriter::configure(const spec::CqCfg& c) {
  if (c.cq >= rings_.size()) return;
  Ring& r = rings_[c.cq];
  r.valid = c.valid && c.log_size <= kMaxLogSize;
  r.base = c.base;
  r.lsz = c.log_size;
  r.pi = r.ci = 0;
  r.arm = 0;
}

bool CqWriter::doorbell(const spec::CqDb& d, Cycle now) {
  if (d.cq >= rings_.size()) return true;
  Ring& r = rings_[d.cq];
  // Arming for the next completion while the ring holds CQEs the driver has
  // not consumed raises the event at once: one written just before the arm
  // cannot be missed.
  const bool now_event = r.valid && d.arm == 1 && r.pi != d.ci;
  if (now_event && !event->can_push()) return false;
  r.ci = d.ci;
  if (d.arm) r.arm = now_event ? 0 : d.arm;
  if (now_event) {
    spec::CqEvent ev;
    ev.cq = d.cq;
    event->push(ev, now + 1);
  }
  free_at_ = now + (now_event ? 2 : 1);
  return true;
}

bool CqWriter::complete(Cycle now) {
  const spec::CqCompl& c = completion.front();
  Ring* r = c.cq < rings_.size() && rings_[c.cq].valid ? &rings_[c.cq] : nullptr;
  const uint32_t size = r ? (1u << r->lsz) & kIndexMask : 0;
  const bool full = !r || ((r->pi - r->ci) & kIndexMask) >= size;
  spec::CqEvent ev;
  ev.cq = c.cq;
  if (full) {  // no such CQ, or overrun: a CQ error event, nothing written
    if (!event->can_push()) return false;
    ev.error = 1;
    event->push(ev, now + 1);
    ++cnt_err_;
    free_at_ = now + 2;
    completion.pop();
    return true;
  }
  const bool raise = r->arm == 1 || (r->arm == 2 && c.solicited);
  if (!dma_wr->can_push() || !dma_wr_data->can_push() || (raise && !event->can_push())) return false;
  spec::Cqe e;
  e.wr_id = c.wr_id;
  e.byte_len = c.byte_len;
  // the immediate's wire bytes, first byte first (cq_compl_t holds it as the wire's big-endian number)
  e.imm = (c.imm >> 24) | ((c.imm >> 8) & 0xFF00u) | ((c.imm << 8) & 0xFF0000u) | (c.imm << 24);
  e.qp_num = c.qp_num;
  e.opcode = c.opcode;
  e.src_qp = c.src_qp;
  e.status = c.status;
  e.wc_flags = c.wc_flags;
  e.sl = c.sl;
  e.pkey_index = c.pkey_index;
  e.wqe_counter = c.wqe_counter;
  e.owner = ((r->pi >> r->lsz) & 1u) ^ 1u;  // phase: 1 on the first pass over the ring
  std::vector<uint8_t> bytes(spec::Cqe::kSize);
  e.store(bytes.data());
  spec::DmaWrReq req;
  req.addr = r->base + uint64_t{r->pi & (size - 1)} * spec::Cqe::kSize;
  req.len = spec::Cqe::kSize;
  dma_wr->push(req, now + 1);
  dma_wr_data->push(Packet{Bytes(std::move(bytes))}, now + 1);
  if (raise) {
    r->arm = 0;
    ev.error = 0;
    event->push(ev, now + 2);
  }
  r->pi = (r->pi + 1) & kIndexMask;
  ++cnt_cqe_;
  free_at_ = now + (raise ? 3 : 2);
  completion.pop();
  return true;
}

void CqWriter::run() {
  const Cycle now = s_.now();
  if (s_.defer(this, free_at_)) return;
  // The input that arrived first; the RTL's priority breaks ties.
  const int pick = first_arrived({cfg.next_at(), db.next_at(), completion.next_at()}, now);
  if (pick < 0) return;  // what is queued arrives later: its arrival wakes us
  if (pick == 0) {
    configure(cfg.pop());
    free_at_ = now + 1;
  } else if (pick == 1) {
    if (!doorbell(db.front(), now)) return;  // the event output is full: its pop wakes us
    db.pop();
  } else if (pick == 2 && !complete(now)) {
    return;  // an output is full: its consumer's pop wakes us
  }
  if (!cfg.empty() || !db.empty() || !completion.empty()) s_.wake_at(this, free_at_);
}

std::unique_ptr<rocenic::Block> make_cq_writer_block(unsigned data_bytes, unsigned max_cq) {
  return std::make_unique<FlitAdapter>(data_bytes, [=](FlitAdapter& a) {
    CqWriter* w = a.make<CqWriter>(max_cq);
    a.in<spec::CqCfg>("cfg", w->cfg);
    a.in<spec::CqDb>("db", w->db);
    a.in<spec::CqCompl>("compl", w->completion);
    a.out<spec::DmaWrReq>("dma_wr", w->dma_wr);
    a.out_stream("dma_wr_data", w->dma_wr_data);
    a.out<spec::CqEvent>("event", w->event);
    a.counters_from([w] {
      return std::vector<std::pair<std::string, uint32_t>>{{"cqe", w->cqes()}, {"cq_err", w->cq_errors()}};
    });
  });
}

}  // namespace rocenic::model
