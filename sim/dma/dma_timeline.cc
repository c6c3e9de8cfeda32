#include "dma/dma_timeline.h"

#include <algorithm>

namespace rocenic {

DmaTimeline::DmaTimeline(const DmaTiming& t, unsigned data_bytes)
    : bytes_(data_bytes),
      max_(t.max_reads),
      bpc_(DmaModel::bytes_per_cycle(t)),
      cap_(2.0 * data_bytes),
      rd_lat_(DmaModel::read_latency(t)),
      wr_lat_(DmaModel::write_latency(t)) {}

// The same steps as DmaModel::clock(): + bpc per cycle, capped; once at the
// cap it stays there, so an idle stretch costs at most a few steps.
void DmaTimeline::advance(Budget& b, Cycle to) const {
  while (b.at < to) {
    ++b.at;
    b.val = std::min(cap_, b.val + bpc_);
    if (b.val == cap_) {
      b.at = to;
      break;
    }
  }
}

DmaTimeline::Cycle DmaTimeline::take_beat(Budget& b, Cycle from, unsigned n) const {
  Cycle x = std::max<Cycle>(from, b.at);
  advance(b, x);
  while (b.val < n) advance(b, ++x);
  b.val -= n;
  return x;
}

DmaTimeline::Cycle DmaTimeline::slot_at(std::deque<Cycle>& ends, Cycle now, unsigned max) {
  while (!ends.empty() && ends.front() <= now) ends.pop_front();
  if (ends.size() < max) return now;
  return ends[ends.size() - max];
}

DmaTimeline::Cycle DmaTimeline::read_slot_at(Cycle now) { return slot_at(rd_ends_, now, max_); }
DmaTimeline::Cycle DmaTimeline::write_slot_at(Cycle now) { return slot_at(wr_ends_, now, max_); }

DmaTimeline::Read DmaTimeline::read(Cycle at, uint32_t len) {
  Read r;
  // Data flows from the edge into cycle at + latency, after the previous read's last beat.
  Cycle x = std::max<Cycle>(at + rd_lat_, any_rd_ ? last_rd_beat_ + 1 : 1);
  uint32_t sent = 0;
  bool first = true;
  do {
    const unsigned n = std::min<uint32_t>(bytes_, len - sent);
    x = take_beat(rd_budget_, x, n);
    if (first) r.first_beat = x;
    first = false;
    sent += n;
    r.last_beat = x++;
  } while (sent < len);
  last_rd_beat_ = r.last_beat;
  any_rd_ = true;
  rd_ends_.push_back(r.last_beat);
  return r;
}

DmaTimeline::Write DmaTimeline::write(Cycle at, uint32_t len) {
  Write w;
  // The host takes data for a request from the cycle after it took the
  // request, and after the previous write's last beat.
  Cycle x = std::max<Cycle>(at + 1, any_wr_ ? last_wr_beat_ + 1 : 0);
  uint32_t sent = 0;
  do {
    const unsigned n = std::min<uint32_t>(bytes_, len - sent);
    x = take_beat(wr_budget_, x, n);
    sent += n;
    w.last_beat = x++;
  } while (sent < len);
  last_wr_beat_ = w.last_beat;
  any_wr_ = true;
  wr_ends_.push_back(w.last_beat + 1);  // the host frees the slot as it takes the last beat: free from the next cycle
  // Write-dones leave in order, one per cycle.
  w.done = std::max<Cycle>(w.last_beat + wr_lat_, any_done_ ? last_done_ + 1 : 0);
  last_done_ = w.done;
  any_done_ = true;
  return w;
}

}  // namespace rocenic
