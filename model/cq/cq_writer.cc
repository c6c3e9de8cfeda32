#include "cq/cq_writer.h"

#include "common/desc_flit.h"

namespace rocenic::model {

CqWriter::CqWriter(unsigned data_bytes, unsigned max_cq) : bytes_(data_bytes), ctx_(max_cq) {
  in_info_ = {{"cfg", false, true, (spec::CqCfg::kBits + 7) / 8},
              {"db", false, true, (spec::CqDb::kBits + 7) / 8},
              {"compl", false, true, (spec::CqCompl::kBits + 7) / 8}};
  out_info_ = {{"dma_wr", false, true, (spec::DmaWrReq::kBits + 7) / 8},
               {"dma_wr_data", true, true, bytes_},
               {"event", false, true, (spec::CqEvent::kBits + 7) / 8}};
  reset();
}

void CqWriter::reset() {
  for (Ctx& c : ctx_) c.valid = false;
  st_ = St::kIdle;
  req_pending_ = beat_pending_ = event_after_ = false;
  cnt_cqe_ = cnt_err_ = 0;
  cycle_ = 0;
}

void CqWriter::set_input(unsigned port, bool valid, const Flit& flit) {
  in_valid_[port] = valid;
  in_[port] = flit;
}

bool CqWriter::input_ready(unsigned port) {
  const bool idle = st_ == St::kIdle;
  if (port == 0) return idle;
  if (port == 1) return idle && !in_valid_[0];
  return idle && !in_valid_[0] && !in_valid_[1];
}

bool CqWriter::output_valid(unsigned port) {
  if (port == 0) return st_ == St::kSend && req_pending_;
  if (port == 1) return st_ == St::kSend && beat_pending_;
  return st_ == St::kEvent;
}

Flit CqWriter::output(unsigned port) {
  if (port == 0) return desc_to_flit(req_);
  if (port == 1) return beat_;
  return desc_to_flit(ev_);
}

void CqWriter::clock() {
  const bool take_cfg = in_valid_[0] && input_ready(0);
  const bool take_db = in_valid_[1] && input_ready(1);
  const bool take_compl = in_valid_[2] && input_ready(2);
  const bool dma_ready = ready_[0], data_ready = ready_[1], ev_ready = ready_[2];
  const unsigned n = static_cast<unsigned>(ctx_.size());
  switch (st_) {
    case St::kIdle:
      if (take_cfg) {
        const auto c = desc_from_flit<spec::CqCfg>(in_[0]);
        if (c.cq < n) {
          Ctx& x = ctx_[c.cq];
          x.valid = c.valid && c.log_size <= 16;  // a ring beyond CAP_MAX_CQE is refused
          x.base = c.base;
          x.lsz = c.log_size;
          x.pi = x.ci = 0;
          x.arm = 0;
        }
      } else if (take_db) {
        const auto d = desc_from_flit<spec::CqDb>(in_[1]);
        if (d.cq < n) {
          ctx_[d.cq].ci = d.ci;
          if (d.arm) ctx_[d.cq].arm = d.arm;
        }
      } else if (take_compl) {
        const auto c = desc_from_flit<spec::CqCompl>(in_[2]);
        ev_.cq = c.cq;
        Ctx* x = c.cq < n && ctx_[c.cq].valid ? &ctx_[c.cq] : nullptr;
        const uint32_t size = x ? (1u << x->lsz) & 0xFFFFFFu : 0;
        const uint32_t used = x ? (x->pi - x->ci) & 0xFFFFFFu : 0;
        if (!x || used >= size) {
          ev_.error = 1;
          ++cnt_err_;
          st_ = St::kEvent;
          break;
        }
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
        e.owner = ((x->pi >> x->lsz) & 1u) ^ 1u;
        beat_ = Flit{};
        beat_.data.assign(bytes_, 0);
        e.store(beat_.data.data());
        beat_.keep = (uint64_t{1} << spec::Cqe::kSize) - 1;
        req_ = spec::DmaWrReq{};
        req_.addr = x->base + (uint64_t{x->pi & (size - 1)} * spec::Cqe::kSize);
        req_.len = spec::Cqe::kSize;
        ev_.error = 0;
        event_after_ = x->arm == 1 || (x->arm == 2 && c.solicited);
        if (event_after_) x->arm = 0;
        x->pi = (x->pi + 1) & 0xFFFFFFu;
        req_pending_ = beat_pending_ = true;
        ++cnt_cqe_;
        st_ = St::kSend;
      }
      break;
    case St::kSend: {
      const bool req_done = !req_pending_ || dma_ready;
      const bool beat_done = !beat_pending_ || data_ready;
      if (req_pending_ && dma_ready) req_pending_ = false;
      if (beat_pending_ && data_ready) beat_pending_ = false;
      if (req_done && beat_done) st_ = event_after_ ? St::kEvent : St::kIdle;
      break;
    }
    case St::kEvent:
      if (ev_ready) st_ = St::kIdle;
      break;
  }
  ++cycle_;
}

}  // namespace rocenic::model
