// The simulation thread: one per Engine (so one per process and device).
//
//   loop:  frames from the wire -> Device::rx_frame
//          consumer indices -> CQ_DB_CI (so the engine never sees an overrun)
//          Device::run(slice) while the engine is busy
//          events -> completion channels / async fds
//          frames waiting for slow peers -> the wire
//          idle and nothing arrived: sleep in poll() on the wire and the eventfd
//          idle with a transport timer armed (a request not acknowledged):
//          once the whole wire is quiet (sim/wire/activity.h: every NIC idle,
//          every frame read), let the timer expire: simulated time jumps to it
//
// Slices adapt to keep each one near a millisecond of wall time, so a verb
// waiting for the mutex waits about that long at most, whatever the backend's
// speed (the model runs many more cycles per millisecond than the RTL).
#include <poll.h>
#include <rdma/ib_user_verbs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "provider.h"
#include "wire.h"

namespace rocenic::driver {
namespace {

constexpr uint64_t kMinSlice = 64, kMaxSlice = 1 << 20;
constexpr auto kSliceTarget = std::chrono::microseconds(1000);
constexpr size_t kRxBatch = 64;  // frames taken from the wire per iteration
constexpr int kQuietPollMs = 1;  // how often a NIC waiting on a timer looks at the wire

}  // namespace

void Engine::kick() {
  const uint64_t one = 1;
  if (write(event_fd_, &one, sizeof one) < 0) {
    // EAGAIN: the counter is already non-zero, the thread will wake anyway
  }
}

void Engine::start_thread() {
  thread_ = std::thread([this] { loop(); });
}

void Engine::dispatch_locked(const std::vector<DeviceEvent>& events) {
  for (const DeviceEvent& ev : events) {
    trace("event cq %u%s", ev.cq, ev.error ? " (error)" : "");
    CqState* cq = nullptr;
    for (CqState* c : cqs_)
      if (c->cqn == ev.cq) cq = c;
    if (!cq) continue;  // destroyed meanwhile
    if (ev.error) {
      // An overrun or a CQ the engine no longer knows: IBV_EVENT_CQ_ERR on the async fd.
      ib_uverbs_async_event_desc d{};
      d.element = reinterpret_cast<uintptr_t>(cq->ibcq);
      d.event_type = IBV_EVENT_CQ_ERR;
      if (cq->async_wr < 0 || write(cq->async_wr, &d, sizeof d) != static_cast<ssize_t>(sizeof d))
        std::fprintf(stderr, "rocenic: CQ %u error event lost (no async reader)\n", cq->cqn);
      std::fprintf(stderr, "rocenic: CQ %u overrun: the engine had no room for a completion\n", cq->cqn);
      continue;
    }
    if (cq->channel_wr < 0) continue;  // armed without a channel: nobody listens
    ib_uverbs_comp_event_desc d{};
    d.cq_handle = reinterpret_cast<uintptr_t>(cq->ibcq);  // ibv_get_cq_event casts it back
    if (write(cq->channel_wr, &d, sizeof d) != static_cast<ssize_t>(sizeof d))
      std::fprintf(stderr, "rocenic: completion event of CQ %u lost (channel full or closed)\n", cq->cqn);
  }
}

bool Engine::sleep_until_work(bool timer) {
  const auto t0 = std::chrono::steady_clock::now();
  ++stats_.sleeps;
  std::vector<pollfd> fds;
  fds.push_back({event_fd_, POLLIN, 0});
  if (wire_) {
    wire_->set_busy(false);  // (reading a frame marks the member busy again)
    wire_->poll_fds(&fds);
  }
  bool expire = false;
  for (;;) {
    // idle: wake every KnobWatch::kPeriod anyway while knob files are watched
    const int wait = timer ? kQuietPollMs
                     : knob_watch_.enabled() ? static_cast<int>(KnobWatch::kPeriod.count()) : -1;
    const int n = poll(fds.data(), fds.size(), wait);
    if (n < 0 && errno == EINTR) continue;
    if (n != 0 || stop_.load()) break;
    if (knob_watch_.due()) break;  // the knob watch's tick: look at the files
    if (!timer) continue;
    if (!wire_ || wire_->quiet()) {  // nothing can come any more: the wait is over
      expire = true;
      break;
    }
  }
  uint64_t v;
  while (read(event_fd_, &v, sizeof v) == sizeof v) {
  }
  stats_.sleep_ns += static_cast<uint64_t>((std::chrono::steady_clock::now() - t0).count());
  return expire;
}

void Engine::expire_timer() {
  std::lock_guard<std::mutex> g(mu_);
  if (failed_ || !dev_->idle()) return;  // work came meanwhile
  const uint64_t at = dev_->timer_at();
  if (at == UINT64_MAX) return;
  trace("wire quiet: simulated time jumps %llu cycles to a transport timer",
        static_cast<unsigned long long>(at > dev_->cycles() ? at - dev_->cycles() : 0));
  ++stats_.timer_jumps;
  dev_->skip_to(at);
}

void Engine::await_waiting_peers() {
  if (!wire_ || failed()) return;
  std::lock_guard<std::mutex> g(peer_wait_mu_);
  const auto t0 = std::chrono::steady_clock::now();
  bool waited = false;
  while (peer_wait_spent_ + (std::chrono::steady_clock::now() - t0) < kPeerWaitBudget && !failed() &&
         wire_->peers_waiting()) {
    waited = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(kQuietPollMs));
  }
  const auto spent = std::chrono::steady_clock::now() - t0;
  peer_wait_spent_ += spent;
  if (waited)
    trace("destroy_qp waited %.3f s for a peer's transport timer",
          std::chrono::duration<double>(spent).count());
}

void Engine::loop() {
  std::vector<std::vector<uint8_t>> rx;
  uint64_t slice = 256;
  bool timer = false;  // idle with a transport timer armed
  while (!stop_.load(std::memory_order_acquire)) {
    rx.clear();
    if (wire_) wire_->receive([&](const uint8_t* f, size_t n) { rx.emplace_back(f, f + n); }, kRxBatch);
    {
      std::lock_guard<std::mutex> g(mu_);
      if (failed_) {
        if (wire_) wire_->set_waiting(false);  // nothing will be retransmitted
        sleeping_.store(true, std::memory_order_release);
      } else {
        try {
          for (const auto& f : rx) {
            trace("rx frame %zu bytes from %02x:%02x:%02x:%02x:%02x:%02x", f.size(), f[6], f[7], f[8], f[9], f[10],
                  f[11]);
            dev_->rx_frame(f.data(), f.size());
            port_counters_.rcv_bytes += f.size();
            ++port_counters_.rcv_packets;
            if (f[0] & 1) ++port_counters_.rcv_multicast;
          }
          sync_cis_locked();
          ++stats_.iterations;
          stats_.rx_frames += rx.size();
          if (!dev_->idle()) {
            if (wire_) wire_->set_busy(true);
            const auto t0 = std::chrono::steady_clock::now();
            timespec c0{}, c1{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
            stats_.cycles += dev_->run(slice);
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
            stats_.run_cpu_ns += static_cast<uint64_t>((c1.tv_sec - c0.tv_sec) * 1000000000LL + (c1.tv_nsec - c0.tv_nsec));
            const auto dt = std::chrono::steady_clock::now() - t0;
            ++stats_.slices;
            stats_.run_ns += static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(dt).count());
            if (dt < kSliceTarget / 2 && slice < kMaxSlice) slice *= 2;
            if (dt > kSliceTarget * 2 && slice > kMinSlice) slice /= 2;
          }
          // (before the events are taken: the counter reads run the clock,
          // and a completion event they let out must not wait for a wakeup
          // that may never come)
          // (not on an idle tick with nothing run since: the CSR reads would
          // move simulated time for nothing)
          if (hw_counters_.due() && dev_->cycles() != published_at_) {
            hw_counters_.publish([this](uint32_t a, uint32_t* v) { return read_locked(a, v); }, port_counters_);
            published_at_ = dev_->cycles();
          }
          if (knob_watch_.due()) watch_knobs_locked();
          now_ns_.store(dev_->now_ns(), std::memory_order_release);
          dispatch_locked(dev_->take_events());
          if (const std::string d = dev_->divergence(); !d.empty()) fail_locked("cosim divergence: " + d);
          if (wire_) wire_->set_waiting(dev_->timer_at() != UINT64_MAX);
          if (dev_->idle() && rx.empty()) {
            timer = dev_->timer_at() != UINT64_MAX;
            sleeping_.store(true, std::memory_order_release);
          }
        } catch (const std::exception& e) {
          fail_locked(std::string("the simulation stopped: ") + e.what());
        }
      }
    }
    if (wire_ && wire_->pending()) wire_->flush();
    if (sleeping_.load(std::memory_order_acquire)) {
      const bool expire = !stop_.load() && sleep_until_work(timer && !failed_);
      sleeping_.store(false, std::memory_order_release);
      if (expire) expire_timer();
    } else {
      // Busy: let waiting verbs in before the next slice.
      while (waiters_.load(std::memory_order_relaxed) > 0 && !stop_.load()) std::this_thread::yield();
    }
  }
}

}  // namespace rocenic::driver
