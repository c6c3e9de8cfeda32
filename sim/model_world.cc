#include "model_world.h"

#include <algorithm>

namespace rocenic {

using model::Bytes;
using model::Cycle;
using model::In;
using model::kNever;
using model::Out;
using model::Packet;

// Everything on the world's side of the engine's ports, as processes.
class ModelWorld::Host {
 public:
  explicit Host(ModelWorld& w);

  // AXI4-Lite answers. The access is over once the cycle of its B (R)
  // handshake has passed, as the RTL harness's, whose clock has moved past
  // that cycle when it sees the answer taken.
  struct Axil : model::Process {
    explicit Axil(ModelWorld& w) : w_(w), b(w.sched_, this, 1), r(w.sched_, this, 1) {}
    ModelWorld& w_;
    In<uint8_t> b;
    In<model::AxilR> r;
    Cycle done_at = kNever;
    void run() override {
      const Cycle now = w_.sched_.now();
      if (b.ready()) {
        w_.csr_ok_ = b.pop() == model::RoceCsr::kOkay;
        w_.csr_data_ = 0;
        done_at = now + 1;
      }
      if (r.ready()) {
        const model::AxilR a = r.pop();
        w_.csr_ok_ = a.resp == model::RoceCsr::kOkay;
        w_.csr_data_ = w_.csr_ok_ ? a.data : 0;
        done_at = now + 1;
      }
      if (done_at <= now) {
        w_.csr_done_ = true;
        done_at = kNever;
      } else if (done_at != kNever) {
        w_.sched_.wake_at(this, done_at);
      }
    }
  } axil;

  // The MAC: frames in a beat a cycle; frames out, kept with their first beat's cycle.
  struct Mac : model::Process {
    explicit Mac(ModelWorld& w) : w_(w), tx(w.sched_, this, 1 << 20), byp(w.sched_, this, 1 << 20) {}
    ModelWorld& w_;
    In<Packet> tx, byp;
    std::deque<EngineWorld::Frame> rx_wait;
    Cycle rx_free = 0;
    void run() override {
      const Cycle now = w_.sched_.now();
      while (!rx_wait.empty() && w_.eng_->rx().can_push()) {
        EngineWorld::Frame& f = rx_wait.front();
        const Cycle beats = std::max<Cycle>(1, (f.size() + w_.bytes_ - 1) / w_.bytes_);
        const Cycle last = std::max(now, rx_free) + beats - 1;
        rx_free = last + 1;
        w_.rx_ends_.push_back(last);
        w_.eng_->rx().push(Packet{Bytes(std::move(f))}, last);
        rx_wait.pop_front();
      }
      while (tx.ready()) {
        const Packet p = tx.pop();
        const Cycle beats = std::max<Cycle>(1, (p.data.size() + w_.bytes_ - 1) / w_.bytes_);
        w_.tx_starts_.push_back(now + 1 - std::min<Cycle>(now + 1, beats));
        w_.tx_out_.push_back(p.data.vec());
      }
      while (byp.ready()) w_.byp_out_.push_back(byp.pop().data.vec());
    }
  } mac;

  // Host memory behind the DMA timing. Reads answer with the memory as it
  // is when the request is taken; writes land when their last beat is taken.
  struct Dma : model::Process {
    explicit Dma(ModelWorld& w)
        : w_(w), rd_req(w.sched_, this, 1 << 16), wr_req(w.sched_, this, 1 << 16), wr_data(w.sched_, this, 1) {}
    ModelWorld& w_;
    In<spec::DmaRdReq> rd_req;
    In<spec::DmaWrReq> wr_req;
    In<Packet> wr_data;
    Out<Packet> rd_data{this};
    Out<uint8_t> wr_done{this};
    std::deque<std::pair<Cycle, Packet>> reads;       // answered, waiting for a credit
    std::deque<std::pair<Cycle, uint8_t>> dones;      // write-done, due
    std::deque<std::pair<Cycle, bool>> landing;       // writes: when they land, is it a CQE (tag 1)
    Cycle wr_at = 0;                                  // when the last write was taken
    bool wr_hold = false;                             // its data is still crossing the link ...
    Cycle wr_hold_until = 0;                          // ... until its last beat here
    uint64_t cqe_landed = 0;
    void run() override {
      const Cycle now = w_.sched_.now();
      Cycle wake = kNever;
      while (rd_req.ready()) {
        const Cycle slot = w_.dma_.read_slot_at(now);
        if (slot > now) {
          wake = std::min(wake, slot);
          break;
        }
        const spec::DmaRdReq r = rd_req.pop();
        if (w_.record_writes_) w_.reads_.push_back({r.addr, r.len, now});
        const DmaTimeline::Read t = w_.dma_.read(now, r.len);
        std::vector<uint8_t> data(r.len);
        Packet p;
        p.user = !w_.mem_.read(r.addr, data.data(), data.size());
        if (p.user) std::fill(data.begin(), data.end(), 0);
        p.data = Bytes(std::move(data));
        p.id = r.tag;
        reads.emplace_back(t.last_beat, std::move(p));
      }
      while (!reads.empty() && rd_data->can_push()) {
        rd_data->push(std::move(reads.front().second), reads.front().first);
        reads.pop_front();
      }
      // A write is taken when its request arrived (its data streams behind
      // it), though handled here once its Packet is in (at its last beat).
      // The link takes the data at its own rate: the Packet stays in its
      // channel (of one) until the link took its last beat, so the engine's
      // next write waits as the RTL's does for the host's ready.
      for (;;) {
        if (wr_hold) {
          if (wr_hold_until > now) {
            wake = std::min(wake, wr_hold_until);
            break;
          }
          wr_data.pop();
          wr_hold = false;
        }
        if (!wr_req.ready() || !wr_data.ready()) break;
        const Cycle slot = w_.dma_.write_slot_at(std::max(wr_req.next_at(), wr_at));
        if (slot > now) {
          wake = std::min(wake, slot);
          break;
        }
        wr_at = slot;
        const spec::DmaWrReq r = wr_req.pop();
        const Packet& d = wr_data.front();
        const DmaTimeline::Write t = w_.dma_.write(slot, r.len);
        const size_t n = std::min<size_t>(r.len, d.data.size());
        const bool ok = w_.mem_.write(r.addr, d.data.data(), n);
        if (w_.record_writes_) {
          w_.writes_.push_back(
              {r.addr, std::vector<uint8_t>(d.data.data(), d.data.data() + n), slot + 1, r.tag});
        }
        landing.emplace_back(t.last_beat, r.tag == 1);
        dones.emplace_back(t.done, static_cast<uint8_t>(ok ? 0 : 1));
        wake = std::min(wake, t.last_beat);
        wr_hold = true;
        wr_hold_until = t.last_beat;
      }
      while (!landing.empty() && landing.front().first <= now) {
        if (landing.front().second) ++cqe_landed;
        landing.pop_front();
        w_.sched_.wake(&w_.host_->events);
      }
      if (!landing.empty()) wake = std::min(wake, landing.front().first);
      while (!dones.empty() && wr_done->can_push()) {
        wr_done->push(dones.front().second, dones.front().first);
        dones.pop_front();
      }
      if (wake != kNever) w_.sched_.wake_at(this, wake);
    }
    bool busy() const { return !reads.empty() || !dones.empty() || !landing.empty() || wr_hold; }
  } dma;

  // Completion events reach the host after the CQEs written before them
  // have landed (PCIe keeps posted writes in order).
  struct Events : model::Process {
    explicit Events(ModelWorld& w) : w_(w), in(w.sched_, this, 1 << 16) {}
    ModelWorld& w_;
    In<spec::CqEvent> in;
    std::deque<std::pair<uint64_t, spec::CqEvent>> held;  // (CQEs written when it came, event)
    void run() override {
      while (in.ready()) held.emplace_back(w_.eng_->cq.cqes(), in.pop());
      while (!held.empty() && held.front().first <= w_.host_->dma.cqe_landed) {
        w_.events_.push_back({held.front().second.cq, held.front().second.error != 0});
        held.pop_front();
      }
    }
  } events;
};

ModelWorld::Host::Host(ModelWorld& w) : axil(w), mac(w), dma(w), events(w) {
  model::RoceEngine& e = *w.eng_;
  e.csr.b.bind(axil.b);
  e.csr.r.bind(axil.r);
  e.tx().bind(mac.tx);
  e.bypass().bind(mac.byp);
  e.dma_rd_arb.out.bind(dma.rd_req);
  e.dma_wr_arb.m_req.bind(dma.wr_req);
  e.dma_wr_arb.m_data.bind(dma.wr_data);
  dma.rd_data.bind(e.dma_rd_route.in);
  dma.wr_done.bind(e.dma_wr_arb.done);
  e.event().bind(events.in);
  // the MAC is woken when the RX port frees a credit
  e.rx().set_producer(&mac);
}

ModelWorld::ModelWorld(HostMemory& mem, const DmaTiming& timing, unsigned data_bytes)
    : mem_(mem), dma_(timing, data_bytes), bytes_(data_bytes) {
  eng_ = std::make_unique<model::RoceEngine>(sched_, data_bytes);
  host_ = std::make_unique<Host>(*this);
}

ModelWorld::~ModelWorld() = default;

void ModelWorld::csr_start(bool is_write, uint32_t addr, uint32_t data) {
  csr_done_ = false;
  const Cycle now = sched_.now();
  if (is_write) {
    eng_->csr.aw.push(addr, now);
    eng_->csr.w.push(model::AxilW{data, 0xF}, now);
  } else {
    eng_->csr.ar.push(addr, now);
  }
}

void ModelWorld::push_rx(const Frame& f) {
  host_->mac.rx_wait.push_back(f);
  sched_.wake(&host_->mac);
}

uint64_t ModelWorld::step(uint64_t max_cycles) {
  const Cycle now = sched_.now();
  const Cycle limit = now + std::max<uint64_t>(max_cycles, 1);
  const Cycle next = sched_.next_event();
  const Cycle to = std::max(now + 1, std::min(next, limit));
  sched_.run_until(to);
  return to - now;
}

void ModelWorld::skip_to(uint64_t cycle) {
  // Only timers are queued while idle: the ones due by then run in order.
  if (cycle > sched_.now() && idle()) sched_.run_until(cycle);
}

bool ModelWorld::idle() const {
  return sched_.idle() && host_->mac.rx_wait.empty() && !host_->dma.busy() && host_->events.held.empty() &&
         csr_done_;
}

}  // namespace rocenic
