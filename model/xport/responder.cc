// Responder model: ports, the placement stage and the clock. The checker is
// in responder_ctrl.cc.
#include "xport/responder.h"

#include "common/desc_flit.h"

namespace rocenic::model {
namespace {

constexpr size_t kPayCap = 128;  // payload FIFO beats (two 4096-byte packets)
constexpr size_t kQueueCap = 5;  // issuer queues (fifo_fwft depth 4 + head register)

template <typename T>
unsigned desc_bytes() {
  return (T::kBits + 7) / 8;
}

}  // namespace

Responder::Responder(unsigned data_bytes, unsigned max_qp)
    : bytes_(data_bytes), max_qp_(max_qp), qps_(max_qp), slice_(data_bytes) {
  in_info_ = {{"qp_cfg", false, true, desc_bytes<spec::QpCfg>()},
              {"rq_db", false, true, desc_bytes<spec::WqDb>()},
              {"rx_hdr", false, true, desc_bytes<spec::RoceRxHdr>()},
              {"rx_payload", true, true, bytes_},
              {"dma_rd_data", true, true, bytes_},
              {"mr_resp", false, true, desc_bytes<spec::MrResp>()}};
  out_info_ = {{"dma_rd_req", false, true, desc_bytes<spec::DmaRdReq>()},
               {"mr_req", false, true, desc_bytes<spec::MrReq>()},
               {"dma_wr_req", false, true, desc_bytes<spec::DmaWrReq>()},
               {"dma_wr_data", true, true, bytes_},
               {"ack_hdr", false, true, desc_bytes<spec::RoceTxHdr>()},
               {"cq_compl", false, true, desc_bytes<spec::CqCompl>()}};
  reset();
}

void Responder::reset() {
  for (Qp& q : qps_) q.valid = q.rc = false;
  cst_ = C::kIdle;
  fl_pend_ = fl_go_ = false;
  fl_out_ = 0;
  rd_req_.reset();
  mr_req_.reset();
  c_cq_.reset();
  verdicts_.clear();
  pieces_.clear();
  spec_.clear();
  c_rx_ = c_noqp_ = c_state_ = c_oos_ = c_dup_ = c_acc_ = c_inv_ = c_rnr_ = c_op_ = c_acks_ = 0;
  pay_.clear();
  cur_.reset();
  drop_ = post_ = false;
  left_ = 0;
  iss_seq_ = data_done_ = req_done_ = 0;
  descs_.clear();
  reqs_.clear();
  posts_.clear();
  slice_.reset();
  emit_.reset();
  cycle_ = 0;
}

void Responder::set_input(unsigned port, bool valid, const Flit& flit) {
  in_valid_[port] = valid;
  in_[port] = flit;
}

bool Responder::input_ready(unsigned port) {
  switch (port) {
    case 0: return cst_ == C::kIdle && drained();
    case 1: return cst_ == C::kIdle && !in_valid_[0];
    case 2: return cst_ == C::kIdle && !in_valid_[0] && !in_valid_[1];
    case 3: return pay_.size() < kPayCap;
    case 4: return cst_ == C::kWqe || (cst_ == C::kFlush && fl_go_ && fl_out_ > 0 && (!c_cq_ || ready_[5]));
    default: return cst_ == C::kMrW;
  }
}

bool Responder::output_valid(unsigned port) {
  switch (port) {
    case 0: return rd_req_.has_value();
    case 1: return mr_req_.has_value();
    case 2: return !reqs_.empty();
    case 3: return slice_.out_valid();
    case 4: return emit_ && emit_->v.ack_v && !ack_done_;
    default: return c_cq_ || (emit_ && emit_->v.cqe_v && !cq_done_);
  }
}

Flit Responder::output(unsigned port) {
  switch (port) {
    case 0: return desc_to_flit(*rd_req_);
    case 1: return desc_to_flit(*mr_req_);
    case 2: return desc_to_flit(reqs_.front().first);
    case 3: return slice_.out();
    case 4: {
      const Verdict& v = emit_->v;
      const spec::QpCfg& a = qps_[v.qpn].addr;
      spec::RoceTxHdr h;
      h.l3 = a.l3;
      h.dst_mac = a.dst_mac;
      h.src_mac = a.src_mac;
      h.src_ip = a.src_ip;
      h.dst_ip = a.dst_ip;
      h.tclass = a.tclass;
      h.ttl = a.ttl;
      h.flow_label = a.flow_label;
      h.opcode = spec::kRcAck;
      h.pkey = static_cast<uint16_t>(spec::kDefaultPkey);
      h.dst_qpn = a.dest_qpn;
      h.psn = v.psn;
      h.aeth_syndrome = v.syn;
      h.aeth_msn = v.msn;
      h.src_qpn = v.qpn;
      return desc_to_flit(h);
    }
    default: return desc_to_flit(c_cq_ ? *c_cq_ : emit_->v.cqe);
  }
}

std::vector<std::pair<std::string, uint32_t>> Responder::counters() {
  return {{"tx_acks", c_acks_},         {"rx_pkts", c_rx_},           {"no_qp", c_noqp_},
          {"qp_state", c_state_},       {"out_of_sequence", c_oos_},  {"duplicate_request", c_dup_},
          {"rem_access_err", c_acc_},   {"rem_inv_req", c_inv_},      {"rnr_nak_sent", c_rnr_},
          {"rem_op_err", c_op_}};
}

bool Responder::drained() const {
  return verdicts_.empty() && !cur_ && descs_.empty() && reqs_.empty() && posts_.empty() && !emit_ &&
         slice_.idle();
}

bool Responder::idle() const {
  return cst_ == C::kIdle && !rd_req_ && !mr_req_ && !c_cq_ && drained() && pieces_.empty() && spec_.empty() &&
         pay_.empty();
}

void Responder::clock() {
  bool take[6], out_take[6];
  for (unsigned p = 0; p < 6; ++p) {
    take[p] = in_valid_[p] && input_ready(p);
    out_take[p] = ready_[p] && output_valid(p);
  }
  if (out_take[0]) rd_req_.reset();
  if (out_take[1]) mr_req_.reset();
  if (out_take[2]) {
    if (reqs_.front().second) ++req_done_;
    reqs_.pop_front();
  }
  if (out_take[4]) {
    ack_done_ = true;
    ++c_acks_;
  }
  if (out_take[5]) {
    if (c_cq_) c_cq_.reset();
    else cq_done_ = true;
  }
  ctrl_clock(take[0], take[1], take[2], take[4], take[5]);
  place_clock(out_take[3]);
  if (take[3]) pay_.push_back(in_[3]);
  ++cycle_;
}

// Placement: issuer (verdicts -> requests, slicer descriptors, post entries),
// the slicer, and the post stage (completions and ACK/NAKs after their data).
void Responder::place_clock(bool data_taken) {
  // post stage
  const bool was_emitting = emit_.has_value();
  if (emit_ && (!emit_->v.ack_v || ack_done_) && (!emit_->v.cqe_v || cq_done_)) emit_.reset();
  if (!was_emitting && !posts_.empty()) {
    const Post& p = posts_.front();
    const bool reached = !p.has_data || (static_cast<uint8_t>(data_done_ - p.seq) < 128 &&
                                         static_cast<uint8_t>(req_done_ - p.seq) < 128);
    if (reached) {
      emit_ = p;
      ack_done_ = cq_done_ = false;
      posts_.pop_front();
    }
  }
  // slicer
  if (data_taken && slice_.out_end()) ++data_done_;
  const StreamSlice::Taken t =
      slice_.clock(pay_.empty() ? nullptr : &pay_.front(), data_taken, descs_.empty() ? nullptr : &descs_.front());
  if (t.in) pay_.pop_front();
  if (t.desc) descs_.pop_front();
  // issuer
  if (!cur_) {
    if (!verdicts_.empty()) {
      cur_ = verdicts_.front();
      verdicts_.pop_front();
      left_ = cur_->exec ? cur_->npieces : 0;
      drop_ = !cur_->exec && cur_->pay_len != 0;
      post_ = cur_->cqe_v || cur_->ack_v;
    }
    return;
  }
  if (drop_) {
    if (descs_.size() < kQueueCap) {
      descs_.push_back({cur_->pay_len, true, true});
      drop_ = false;
    }
  } else if (left_ != 0) {
    if (!pieces_.empty() && descs_.size() < kQueueCap && reqs_.size() < kQueueCap) {
      const Piece pc = pieces_.front();
      pieces_.pop_front();
      descs_.push_back({pc.len, left_ == 1, false});
      spec::DmaWrReq r;
      r.addr = pc.pa;
      r.len = static_cast<uint16_t>(pc.len);
      reqs_.push_back({r, left_ == 1});
      if (--left_ == 0) ++iss_seq_;
    }
  } else if (post_) {
    if (posts_.size() < kQueueCap) {
      posts_.push_back({*cur_, cur_->exec && cur_->npieces != 0, iss_seq_});
      post_ = false;
    }
  }
  if (!drop_ && left_ == 0 && !post_) cur_.reset();
}

}  // namespace rocenic::model
