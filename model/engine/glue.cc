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
