#include "engine/glue.h"

#include <algorithm>
#include <vector>

#include "net/ud_grh.h"

namespace rocenic::model {

void RxDispatch::pass_payloads(Cycle now) {
  while (!dest_.empty()) {
    const Dest& d = dest_.front();
    if (d.atomic) {
      // the AtomicAckETH original value as the host stores a uint64
      // (little-endian): the completer takes it as a READ RESPONSE ONLY of 8 bytes
      if (!rsp_pay->can_push()) return;
      std::vector<uint8_t> b(8);
      for (unsigned i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(d.orig >> (8 * i));
      rsp_pay->push(Packet{Bytes(std::move(b))}, std::max(d.at, now));
    } else {
      // passed on as it streams in (stamped with its last beat's cycle)
      if (pay.empty() || (d.to && !(*d.to)->can_push())) return;
      const Cycle last = pay.next_at();
      Packet p = pay.pop_ahead();
      if (d.to) (*d.to)->push(std::move(p), std::max(d.at, last));
    }
    dest_.pop_front();
  }
}

void RxDispatch::run() {
  const Cycle now = s_.now();
  pass_payloads(now);
  while (hdr.ready()) {
    const spec::RoceRxHdr& h = hdr.front();
    // every RC response (READ response, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) is the requester side's
    const bool is_ack = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcAtomicAck;
    const bool is_rsp = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcReadRespOnly;
    const bool is_atom = h.opcode == spec::kRcAtomicAck;
    const bool parsed = h.pay_len != 0;  // (never on an ATOMIC ACK: the parser refuses one; dropped if so)
    if ((parsed || is_atom) && dest_.size() >= kDepth) return;  // payloads before it still to pass
    Out<spec::RoceRxHdr>& o = is_ack ? ack : req;
    if (!o->can_push()) return;
    const Cycle t = std::max(hdr.next_at() + kLatency, now);
    spec::RoceRxHdr v = hdr.pop();
    if (parsed) dest_.push_back({!is_ack ? &req_pay : is_rsp ? &rsp_pay : nullptr, false, 0, t});  // (an ACK's: dropped)
    if (is_atom) {
      dest_.push_back({&rsp_pay, true, v.atomic_orig, t});
      v.pay_len = 8;
    }
    o->push(v, t);
    pass_payloads(now);
  }
}

void UdGrhInsert::pass_payloads() {
  while (!next_.empty()) {
    const Next& n = next_.front();
    // passed on as it streams in (stamped with its last beat's cycle)
    if ((n.parsed && pay.empty()) || !pay_out->can_push()) return;
    const Cycle last = n.parsed ? pay.next_at() : n.at;
    if (n.grh) {
      const auto g = ud_grh(n.h);
      std::vector<uint8_t> b(g.begin(), g.end());
      Cycle more = 0;  // the GRH in front: the beats it adds at the end
      if (n.parsed) {
        const Packet p = pay.pop_ahead();
        const size_t in = p.data.size();
        b.insert(b.end(), p.data.vec().begin(), p.data.vec().end());
        more = (b.size() + bytes_ - 1) / bytes_ - (in + bytes_ - 1) / bytes_;
      }
      pay_out->push(Packet{Bytes(std::move(b))}, std::max(n.at, last + more));
    } else {
      pay_out->push(pay.pop_ahead(), std::max(n.at, last));
    }
    next_.pop_front();
  }
}

void UdGrhInsert::run() {
  const Cycle now = s_.now();
  pass_payloads();
  while (hdr.ready()) {
    const bool ud = is_ud_request(hdr.front().opcode);
    const bool parsed = hdr.front().pay_len != 0;
    if (!hdr_out->can_push() || next_.size() >= kDepth) return;
    const Cycle t = std::max(hdr.next_at() + kLatency, now);
    spec::RoceRxHdr v = hdr.pop();
    if (ud || parsed) next_.push_back({parsed, ud, v, t});
    if (ud) v.pay_len = static_cast<uint16_t>(v.pay_len + spec::kGrhBytes);
    hdr_out->push(v, t);
    pass_payloads();
  }
}

void TxArb::run() {
  const Cycle now = s_.now();
  for (;;) {
    if (fwd_ >= 0) {  // the payload of the header that went last, passed on as it streams in
      In<Packet>& p = fwd_ == 0 ? pay0 : pay1;
      if (p.empty() || !pay->can_push()) return;
      const Cycle last = p.next_at();
      pay->push(p.pop_ahead(), last);
      fwd_ = -1;
    }
    const int pick = first_arrived({hdr0.next_at(), hdr1.next_at()}, now);
    if (pick < 0 || !hdr->can_push()) return;
    In<spec::RoceTxHdr>& h = pick == 0 ? hdr0 : hdr1;
    const Cycle t = std::max(h.next_at() + kLatency, now);
    spec::RoceTxHdr v = h.pop();
    if (on_pass) on_pass(v, pick);
    hdr->push(v, t);
    if (v.pay_len != 0) fwd_ = pick;
  }
}

void DmaWriteArb::run() {
  const Cycle now = s_.now();
  In<spec::DmaWrReq>* reqs[3] = {&req0, &req1, &req2};
  In<Packet>* datas[3] = {&data0, &data1, &data2};
  // a Packet's first beat: beats - 1 cycles before it arrives (its last)
  const auto first_beat = [this](In<Packet>& d) {
    const Cycle beats = std::max<Cycle>(1, (d.front().data.size() + bytes_ - 1) / bytes_);
    return d.next_at() - std::min(d.next_at(), beats - 1);
  };
  for (;;) {
    // The granted write's data went on as it streamed in; the client sees it
    // taken (its channel empty: an atomic's read, read_place's done wait for
    // that) when its last beat has gone on and the host took it (the credit
    // of the host's channel back: the link takes beats at its own rate), as
    // the RTL's last handshake.
    if (fwd_ >= 0) {
      if (!datas[fwd_]->ready() || fwd_last_ > now) {
        s_.wake_at(this, std::max(fwd_last_, datas[fwd_]->next_at()));
        break;
      }
      if (!m_data->can_push()) break;  // the host's pop wakes us
      datas[fwd_]->pop();
      fwd_ = -1;
    }
    Cycle at[3];
    for (int i = 0; i < 3; ++i) {
      at[i] = kNever;
      if (!reqs[i]->ready() || datas[i]->empty()) continue;
      if (first_beat(*datas[i]) <= now) at[i] = reqs[i]->next_at();
      else s_.wake_at(this, first_beat(*datas[i]));
    }
    const int pick = first_arrived({at[0], at[1], at[2]}, now);
    if (pick < 0 || !m_req->can_push() || !m_data->can_push()) break;
    if (free_ > now + kLatency) {
      // Still moving the previous write: the next is taken only when it can
      // go on at once (as the RTL's combinational arbiter), so a client that
      // sees its write taken knows it reaches host memory right after (the
      // responder reads an atomic's target once its earlier writes were taken).
      s_.wake_at(this, free_ - kLatency);
      break;
    }
    spec::DmaWrReq r = reqs[pick]->pop();
    r.tag = static_cast<uint8_t>(pick);
    const Cycle beats = std::max<Cycle>(1, (datas[pick]->front().data.size() + bytes_ - 1) / bytes_);
    const Cycle start = std::max(now + kLatency, free_);
    m_req->push(r, start);
    // its data passes through as it streams in (a copy: the bytes are shared)
    const Cycle last = std::max(start + beats - 1, datas[pick]->next_at());
    m_data->push(datas[pick]->front(), last);
    fwd_ = pick;
    fwd_last_ = last;
    free_ = last + 1;
  }
  while (done.ready())
    if (done.pop() & 1u) ++err_;
}

}  // namespace rocenic::model
