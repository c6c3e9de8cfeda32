#include "engine/glue.h"

#include <algorithm>

namespace rocenic::model {

void RxDispatch::run() {
  const Cycle now = s_.now();
  while (hdr.ready()) {
    const spec::RoceRxHdr& h = hdr.front();
    // every RC response (READ response, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) is the requester side's
    const bool is_ack = h.opcode >= spec::kRcReadRespFirst && h.opcode <= spec::kRcAtomicAck;
    if (h.pay_len != 0 && !pay.ready()) {  // its payload follows its header
      if (!pay.empty()) s_.wake_at(this, pay.next_at());
      return;
    }
    Out<spec::RoceRxHdr>& o = is_ack ? ack : req;
    if (!o->can_push() || (!is_ack && h.pay_len != 0 && !req_pay->can_push())) return;
    const Cycle t = std::max(hdr.next_at() + kLatency, now);
    if (h.pay_len != 0) {
      Packet p = pay.pop();
      if (!is_ack) req_pay->push(std::move(p), std::max(t, now));
    }
    o->push(hdr.pop(), t);
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
    const bool w0 = req0.ready() && data0.ready(), w1 = req1.ready() && data1.ready();
    const int pick = first_arrived({w0 ? req0.next_at() : kNever, w1 ? req1.next_at() : kNever}, now);
    if (pick < 0 || !m_req->can_push() || !m_data->can_push()) break;
    spec::DmaWrReq r = (pick == 0 ? req0 : req1).pop();
    Packet d = (pick == 0 ? data0 : data1).pop();
    r.tag = static_cast<uint8_t>(pick);
    const Cycle beats = std::max<Cycle>(1, (d.data.size() + bytes_ - 1) / bytes_);
    const Cycle start = std::max(now + kLatency, free_);
    m_req->push(r, start);
    m_data->push(std::move(d), start + beats - 1);
    free_ = start + beats;
  }
  // a write whose data has not fully arrived: its last beat wakes us
  for (In<Packet>* d : {&data0, &data1})
    if (!d->empty() && !d->ready()) s_.wake_at(this, d->next_at());
  while (done.ready())
    if (done.pop() & 1u) ++err_;
}

}  // namespace rocenic::model
