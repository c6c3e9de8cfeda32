#include "dma/dma_model.h"

#include <algorithm>
#include <cmath>

namespace rocenic {

DmaModel::DmaModel(HostMemory& mem, const DmaTiming& t, unsigned data_bytes)
    : mem_(mem),
      t_(t),
      bytes_(data_bytes),
      bpc_(bytes_per_cycle(t)),
      rd_lat_(read_latency(t)),
      wr_lat_(write_latency(t)) {}

void DmaModel::push_rd_req(const spec::DmaRdReq& r) {
  Read rd;
  rd.req = r;
  rd.ready = cycle_ + rd_lat_;
  reads_.push_back(rd);
  ++stats_.reads;
}

void DmaModel::push_wr_req(const spec::DmaWrReq& w) {
  Write wr;
  wr.req = w;
  writes_.push_back(std::move(wr));
  ++stats_.writes;
}

bool DmaModel::wr_data_ready() const {
  if (writes_.empty()) return false;
  const Write& w = writes_.front();
  const double n = std::min<double>(bytes_, w.req.len - w.data.size());
  return wr_budget_ >= n;
}

void DmaModel::push_wr_data(const Flit& beat) {
  Write& w = writes_.front();
  const size_t n = std::min<size_t>(bytes_, w.req.len - w.data.size());
  w.data.insert(w.data.end(), beat.data.begin(), beat.data.begin() + n);
  wr_budget_ -= static_cast<double>(n);
  if (w.data.size() < w.req.len) return;
  const bool ok = mem_.write(w.req.addr, w.data.data(), w.data.size());
  if (ok) stats_.bytes_written += w.data.size();
  else ++stats_.refused_writes;
  done_.push_back({w.req.tag, !ok, cycle_ + wr_lat_});
  writes_.pop_front();
}

void DmaModel::clock() {
  ++cycle_;
  // Bandwidth as a byte budget refilled every cycle; the cap allows one beat of burst.
  const double cap = 2.0 * bytes_;
  rd_budget_ = std::min(cap, rd_budget_ + bpc_);
  wr_budget_ = std::min(cap, wr_budget_ + bpc_);
  if (out_valid_ || reads_.empty()) return;
  Read& r = reads_.front();
  if (cycle_ < r.ready) return;
  const uint32_t n = std::min<uint32_t>(bytes_, r.req.len - r.sent);
  if (rd_budget_ < n) return;
  rd_budget_ -= n;
  out_ = Flit{};
  out_.data.assign(bytes_, 0);
  if (!mem_.read(r.req.addr + r.sent, out_.data.data(), n)) r.poisoned = true;
  out_.keep = n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1);
  r.sent += n;
  out_.last = r.sent >= r.req.len;
  out_.user = r.poisoned;
  out_tag_ = r.req.tag;
  out_valid_ = true;
  if (!r.poisoned) stats_.bytes_read += n;
  if (out_.last) {
    if (r.poisoned) ++stats_.refused_reads;
    reads_.pop_front();
  }
}

}  // namespace rocenic
