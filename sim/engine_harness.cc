#include "engine_harness.h"

#include <algorithm>

#include "common/desc_flit.h"
#include "common/le_bytes.h"
#include "gen/roce_spec.h"

namespace rocenic {

using namespace engine_port;

EngineHarness::EngineHarness(std::unique_ptr<Block> engine, HostMemory& mem, const DmaTiming& timing,
                             unsigned data_bytes)
    : eng_(std::move(engine)), dma_(mem, timing, data_bytes), bytes_(data_bytes) {}

void EngineHarness::csr_start(bool is_write, uint32_t addr, uint32_t data) {
  csr_state_ = CsrState::kAddr;
  csr_write_ = is_write;
  csr_addr_ = addr;
  csr_wdata_ = data;
  csr_ok_ = false;
  csr_data_ = 0;
}

bool EngineHarness::idle() const {
  return eng_->idle() && dma_.idle() && rx_queue_.empty() && rx_beats_.empty() && !wr_open_ && held_events_.empty() &&
         (csr_state_ == CsrState::kIdle || csr_state_ == CsrState::kDone);
}

void EngineHarness::drive_csr() {
  const bool offer = csr_state_ == CsrState::kAddr;
  Flit a, w;
  a.data = le_bytes(csr_addr_, 2);
  w.data = le_bytes(csr_wdata_, 4, 0x0F);
  eng_->set_input(kAw, offer && csr_write_, a);
  eng_->set_input(kW, offer && csr_write_, w);
  eng_->set_input(kAr, offer && !csr_write_, a);
  eng_->set_output_ready(kB, true);
  eng_->set_output_ready(kR, true);
}

void EngineHarness::cycle() {
  // ---- what the world offers
  drive_csr();
  if (rx_beats_.empty() && !rx_queue_.empty()) {
    rx_beats_ = frame_to_beats(rx_queue_.front(), bytes_);
    rx_queue_.pop_front();
    rx_next_ = 0;
  }
  const bool rx_valid = rx_next_ < rx_beats_.size();
  eng_->set_input(kRx, rx_valid, rx_valid ? rx_beats_[rx_next_] : Flit{});
  Flit rd;
  const bool rd_valid = dma_.rd_data_valid();
  if (rd_valid) {
    rd = dma_.rd_data();
    rd.id = dma_.rd_data_tag();
  }
  eng_->set_input(kDmaRd, rd_valid, rd);
  const bool done_valid = dma_.wr_done_valid();
  Flit done;
  if (done_valid) done.data = {dma_.wr_done_tag(), static_cast<uint8_t>(dma_.wr_done_error())};
  eng_->set_input(kDmaWrDone, done_valid, done);
  eng_->set_output_ready(kTx, true);
  eng_->set_output_ready(kByp, true);
  eng_->set_output_ready(kEvent, true);
  rd_req_ready_ = dma_.rd_req_ready();
  wr_req_ready_ = dma_.wr_req_ready();
  wr_data_ready_ = dma_.wr_data_ready();
  eng_->set_output_ready(kDmaRdReq, rd_req_ready_);
  eng_->set_output_ready(kDmaWrReq, wr_req_ready_);
  eng_->set_output_ready(kDmaWr, wr_data_ready_);
  eng_->eval();

  // ---- what moved in this cycle
  if (csr_state_ == CsrState::kAddr && eng_->input_ready(csr_write_ ? kAw : kAr)) csr_state_ = CsrState::kResp;
  const unsigned resp = csr_write_ ? kB : kR;
  if (csr_state_ == CsrState::kResp && eng_->output_valid(resp)) {
    const Flit r = eng_->output(resp);
    if (csr_write_) {
      csr_ok_ = r.data[0] == 0;
    } else {
      csr_data_ = r.data[0] | (r.data[1] << 8) | (r.data[2] << 16) | (uint32_t{r.data[3]} << 24);
      csr_ok_ = r.data[4] == 0;
      if (!csr_ok_) csr_data_ = 0;
    }
    csr_state_ = CsrState::kDone;
  }
  if (rx_valid && eng_->input_ready(kRx) && ++rx_next_ == rx_beats_.size()) {
    rx_beats_.clear();
    rx_ends_.push_back(cycle_);
  }
  if (rd_valid && eng_->input_ready(kDmaRd)) dma_.pop_rd_data();
  if (done_valid && eng_->input_ready(kDmaWrDone)) {
    dma_.pop_wr_done();
    ++writes_done_;
  }
  sample_outputs();

  eng_->clock();
  dma_.clock();
  ++cycle_;
}

void EngineHarness::skip_to(uint64_t cycle) {
  if (cycle <= cycle_ || !idle()) return;
  eng_->skip(cycle - cycle_);
  dma_.skip(cycle - cycle_);
  cycle_ = cycle;
}

void EngineHarness::sample_outputs() {
  auto collect = [&](unsigned port, Frame& cur, std::vector<Frame>& out) {
    if (!eng_->output_valid(port)) return;
    const Flit f = eng_->output(port);
    if (port == kTx && cur.empty()) tx_starts_.push_back(cycle_);
    for (unsigned i = 0; i < f.data.size(); ++i)
      if (f.keep >> i & 1u) cur.push_back(f.data[i]);
    if (f.last) out.push_back(std::exchange(cur, {}));
  };
  collect(kTx, tx_cur_, tx_out_);
  collect(kByp, byp_cur_, byp_out_);
  // An event reaches the host only after every DMA write requested before
  // it has landed (PCIe keeps posted writes in order: the interrupt does not
  // pass the CQE it announces).
  if (eng_->output_valid(kEvent)) {
    const auto ev = desc_from_flit<spec::CqEvent>(eng_->output(kEvent));
    held_events_.push_back({writes_requested_, {ev.cq, ev.error != 0}});
  }
  while (!held_events_.empty() && held_events_.front().first <= writes_done_) {
    events_.push_back(held_events_.front().second);
    held_events_.pop_front();
  }
  if (eng_->output_valid(kDmaRdReq) && rd_req_ready_) {
    const auto req = desc_from_flit<spec::DmaRdReq>(eng_->output(kDmaRdReq));
    dma_.push_rd_req(req);
    if (record_writes_) reads_.push_back({req.addr, req.len, cycle_});
  }
  // The write channel: a request, then its data beats (the DMA model takes
  // beats for the oldest request). A request may be taken while the previous
  // one's beats are still coming; the record keeps them apart by length.
  if (eng_->output_valid(kDmaWrReq) && wr_req_ready_) {
    const auto req = desc_from_flit<spec::DmaWrReq>(eng_->output(kDmaWrReq));
    dma_.push_wr_req(req);
    pending_wr_.push_back(req);
    ++writes_requested_;
  }
  if (eng_->output_valid(kDmaWr) && wr_data_ready_) {
    const Flit beat = eng_->output(kDmaWr);
    dma_.push_wr_data(beat);
    if (!pending_wr_.empty()) {
      const spec::DmaWrReq& req = pending_wr_.front();
      if (wr_cur_.data.empty()) {
        wr_cur_.addr = req.addr;
        wr_cur_.cycle = cycle_;
        wr_cur_.tag = req.tag;
      }
      const size_t n = std::min<size_t>(bytes_, req.len - wr_cur_.data.size());
      wr_cur_.data.insert(wr_cur_.data.end(), beat.data.begin(), beat.data.begin() + n);
      if (wr_cur_.data.size() >= req.len) {
        if (record_writes_) writes_.push_back(std::move(wr_cur_));
        wr_cur_ = {};
        pending_wr_.pop_front();
      }
    }
  }
  wr_open_ = !pending_wr_.empty();
}

}  // namespace rocenic
