#include "engine/glue.h"

#include <algorithm>
#include <vector>

#include "net/ud_grh.h"

namespace rocenic::model {

void RxDispatch::run() {
  const Cycle now = s_.now();
  while (hdr.ready()) {
    const spec::RoceRxHdr& h = hdr.front();
    // every RC response (READ response, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) is the requester side's
    const bool is_ack = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcAtomicAck;
    const bool is_rsp = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcReadRespOnly;
    const bool is_atom = h.opcode == spec::kRcAtomicAck;
    const bool parsed = h.pay_len != 0;  // (never on an ATOMIC ACK: the parser refuses one; dropped if so)
    if (parsed && !pay.ready()) {  // its payload follows its header
      if (!pay.empty()) s_.wake_at(this, pay.next_at());
      return;
    }
    Out<spec::RoceRxHdr>& o = is_ack ? ack : req;
    Out<Packet>* po = !is_ack ? &req_pay : is_rsp ? &rsp_pay : nullptr;  // (an ACK's payload: dropped)
    if (!o->can_push() || (h.pay_len != 0 && po && !(*po)->can_push()) || (is_atom && !rsp_pay->can_push())) return;
    const Cycle t = std::max(hdr.next_at() + kLatency, now);
    if (parsed) {
      Packet p = pay.pop();
      if (po) (*po)->push(std::move(p), std::max(t, now));
    }
    spec::RoceRxHdr v = hdr.pop();
    if (is_atom) {
      // the AtomicAckETH original value as the host stores a uint64
      // (little-endian), an 8-byte payload for read_place in the payload
      // order: the completer takes it as a READ RESPONSE ONLY of 8 bytes
      std::vector<uint8_t> b(8);
      for (unsigned i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(v.atomic_orig >> (8 * i));
      rsp_pay->push(Packet{Bytes(std::move(b))}, t);
      v.pay_len = 8;
    }
    o->push(v, t);
  }
}

void UdGrhInsert::run() {
  const Cycle now = s_.now();
  while (hdr.ready()) {
    const spec::RoceRxHdr& h = hdr.front();
    const bool ud = is_ud_request(h.opcode);
    const bool parsed = h.pay_len != 0;
    if (parsed && !pay.ready()) {  // its payload follows its header
      if (!pay.empty()) s_.wake_at(this, pay.next_at());
      return;
    }
    if (!hdr_out->can_push() || ((parsed || ud) && !pay_out->can_push())) return;
    const Cycle t = std::max(hdr.next_at() + kLatency, now);
    spec::RoceRxHdr v = hdr.pop();
    if (ud) {
      const auto g = ud_grh(v);
      std::vector<uint8_t> b(g.begin(), g.end());
      if (parsed) {
        const Packet p = pay.pop();
        b.insert(b.end(), p.data.vec().begin(), p.data.vec().end());
      }
      pay_out->push(Packet{Bytes(std::move(b))}, t);
      v.pay_len = static_cast<uint16_t>(v.pay_len + spec::kGrhBytes);
    } else if (parsed) {
      pay_out->push(pay.pop(), t);
    }
    hdr_out->push(v, t);
  }
}

void TxArb::run() {
  const Cycle now = s_.now();
  for (;;) {
    const int pick = first_arrived({hdr0.next_at(), hdr1.next_at()}, now);
    if (pick < 0 || !hdr->can_push()) return;
    In<spec::RoceTxHdr>& h = pick == 0 ? hdr0 : hdr1;
    In<Packet>& p = pick == 0 ? pay0 : pay1;
    const bool with = h.front().pay_len != 0;
    if (with && !p.ready()) {  // its payload is on its way: the header waits for it
      if (!p.empty()) s_.wake_at(this, p.next_at());
      return;
    }
    if (with && !pay->can_push()) return;
    const Cycle t = std::max(h.next_at() + kLatency, now);
    spec::RoceTxHdr v = h.pop();
    if (on_pass) on_pass(v, pick);
    hdr->push(v, t);
    if (with) pay->push(p.pop(), t);
  }
}

void DmaWriteArb::run() {
  const Cycle now = s_.now();
  for (;;) {
    In<spec::DmaWrReq>* reqs[3] = {&req0, &req1, &req2};
    In<Packet>* datas[3] = {&data0, &data1, &data2};
    Cycle at[3];
    for (int i = 0; i < 3; ++i) at[i] = reqs[i]->ready() && datas[i]->ready() ? reqs[i]->next_at() : kNever;
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
    Packet d = datas[pick]->pop();
    r.tag = static_cast<uint8_t>(pick);
    const Cycle beats = std::max<Cycle>(1, (d.data.size() + bytes_ - 1) / bytes_);
    const Cycle start = std::max(now + kLatency, free_);
    m_req->push(r, start);
    m_data->push(std::move(d), start + beats - 1);
    free_ = start + beats;
  }
  // a write whose data has not fully arrived: its last beat wakes us
  for (In<Packet>* d : {&data0, &data1, &data2})
    if (!d->empty() && !d->ready()) s_.wake_at(this, d->next_at());
  while (done.ready())
    if (done.pop() & 1u) ++err_;
}

}  // namespace rocenic::model
