#include "engine/glue.h"

#include <algorithm>

namespace rocenic::model {

void RxDispatch::run() {
  const Cycle now = s_.now();
  while (hdr.ready()) {
    const spec::RoceRxHdr& h = hdr.front();
    const bool is_ack = h.opcode == spec::kRcAck;
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

void MrArb::run() {
  const Cycle now = s_.now();
  for (;;) {
    const bool r0 = req0.ready(), r1 = req1.ready();
    if ((!r0 && !r1) || !m_req->can_push()) break;
    const bool first = r0 && (!r1 || req0.next_at() <= req1.next_at());
    spec::MrReq r = (first ? req0 : req1).pop();
    r.tag = static_cast<uint8_t>((r.tag & 0x7F) | (first ? 0 : 0x80));
    m_req->push(r, now + kLatency);
  }
  while (resp.ready()) {
    const bool two = resp.front().tag & 0x80;
    Out<spec::MrResp>& o = two ? resp1 : resp0;
    if (!o->can_push()) break;
    spec::MrResp r = resp.pop();
    r.tag &= 0x7F;
    o->push(r, now + kLatency);
  }
}

void DmaArb::run() {
  const Cycle now = s_.now();
  // reads: tag = client
  for (;;) {
    const bool r0 = rd_req0.ready(), r1 = rd_req1.ready();
    if ((!r0 && !r1) || !m_rd_req->can_push()) break;
    const bool first = r0 && (!r1 || rd_req0.next_at() <= rd_req1.next_at());
    spec::DmaRdReq r = (first ? rd_req0 : rd_req1).pop();
    r.tag = first ? 0 : 1;
    const Cycle t = std::max(now + kLatency, rd_free_);
    m_rd_req->push(r, t);
    rd_free_ = t + 1;
  }
  while (rd_data.ready()) {
    Out<Packet>& o = rd_data.front().id ? rd_data1 : rd_data0;
    if (!o->can_push()) break;
    o->push(rd_data.pop(), now + kLatency);
  }
  // writes: a request and its data together, the client that asked first
  for (;;) {
    const bool w0 = wr_req0.ready() && wr_data0.ready(), w1 = wr_req1.ready() && wr_data1.ready();
    if ((!w0 && !w1) || !m_wr_req->can_push() || !m_wr_data->can_push()) break;
    const bool first = w0 && (!w1 || wr_req0.next_at() <= wr_req1.next_at());
    spec::DmaWrReq r = (first ? wr_req0 : wr_req1).pop();
    Packet d = (first ? wr_data0 : wr_data1).pop();
    r.tag = first ? 0 : 1;
    const Cycle beats = std::max<Cycle>(1, (d.data.size() + bytes_ - 1) / bytes_);
    const Cycle start = std::max(now + kLatency, wr_free_);
    m_wr_req->push(r, start);
    m_wr_data->push(std::move(d), start + beats - 1);
    wr_free_ = start + beats;
  }
  // a write whose data has not fully arrived: its last beat wakes us
  for (In<Packet>* d : {&wr_data0, &wr_data1})
    if (!d->empty() && !d->ready()) s_.wake_at(this, d->next_at());
  while (wr_done.ready())
    if (wr_done.pop() & 1u) ++wr_err_;
}

}  // namespace rocenic::model
