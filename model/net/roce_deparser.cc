#include "net/roce_deparser.h"

#include "net/roce_frame.h"
#include "sched/flit_adapter.h"

namespace rocenic::model {

RoceDeparser::RoceDeparser(Scheduler& s, unsigned data_bytes)
    : hdr(s, this, 1), pay(s, this, 2), s_(s), bytes_(data_bytes) {}

void RoceDeparser::run() {
  const Cycle now = s_.now();
  while (hdr.ready() && tx->can_push()) {
    spec::RoceTxHdr h = hdr.front();
    // TX_TCLASS / TX_TTL (the port's global values) win over the QP's: the
    // values in force when the header arrived (the RTL takes them with the
    // header into its first stage, before the payload is there)
    if (!latched_) {
      latched_ = true;
      lt_tclass_ = tclass_ovr_;
      lt_ttl_ = ttl_ovr_;
    }
    if (lt_tclass_ & 0x100u) h.tclass = static_cast<uint8_t>(lt_tclass_);
    if (lt_ttl_ & 0x100u) h.ttl = static_cast<uint8_t>(lt_ttl_);
    const bool has_pay = h.pay_len != 0;
    if (has_pay && pay.empty()) return;  // its payload's arrival wakes us
    // The payload streams through: its first beat is what the frame waits for.
    Cycle start = hdr.next_at();
    if (has_pay) {
      const size_t pay_beats = (pay.front().data.size() + bytes_ - 1) / bytes_;
      start = std::max(start, pay.next_at() - std::min<Cycle>(pay.next_at(), pay_beats - 1));
    }
    start = std::max(start + kLatency, out_free_);
    std::vector<uint8_t> frame = roce_frame(h, has_pay ? pay.front().data.data() : nullptr);
    const Cycle last = start + (frame.size() + bytes_ - 1) / bytes_ - 1;
    if (has_pay && pay.next_at() > now) {
      s_.wake_at(this, pay.next_at());  // not all of it is here yet
      return;
    }
    hdr.pop();
    latched_ = false;
    if (has_pay) pay.pop();
    out_free_ = last + 1;
    tx->push(Packet{Bytes(std::move(frame))}, std::max(last, now));
    ++tx_frames_;
  }
}

std::unique_ptr<rocenic::Block> make_roce_deparser_block(unsigned data_bytes) {
  return std::make_unique<FlitAdapter>(data_bytes, [data_bytes](FlitAdapter& a) {
    RoceDeparser* d = a.make<RoceDeparser>(data_bytes);
    // The payload has no tlast: its header says how long it is.
    auto lengths = std::make_shared<std::deque<size_t>>();
    a.in_announcing<spec::RoceTxHdr>("s_hdr", d->hdr, lengths,
                                     [](const spec::RoceTxHdr& h) { return size_t{h.pay_len}; });
    a.in_stream_sized("s_axis_pay", d->pay, lengths);
    a.out_stream("m_axis_tx", d->tx, 2);
    a.counters_from([d] { return std::vector<std::pair<std::string, uint32_t>>{{"tx_frames", d->tx_frames()}}; });
  });
}

}  // namespace rocenic::model
