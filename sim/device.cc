#include "device.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <sstream>
#include <stdexcept>

#include "dma/overlay_memory.h"
#include "pcap.h"
#include "engine_factory.h"
#include "engine_harness.h"
#include "model_world.h"
#include "request_board.h"
#include "xcheck.h"
#include "gen/roce_spec.h"

namespace rocenic {
namespace {

// A CSR access that takes longer than this is a hung design, reported as
// such instead of hanging the program (doorbells wait for their block, and
// a command for the mailbox, so allow for a busy engine).
constexpr uint64_t kMaxCyclesPerAccess = 200000;

// The scoreboard's stream of a frame from the engine: its BTH destination QP
// (0 if not RoCE) and whether it is a response (ACK/NAK, READ response,
// ATOMIC ACK: the responder's) or a request (the requester's). A QP's
// requests and its responses are compared as two sequences, because how
// they interleave on the wire is timing, not content: an ACK for a
// duplicate may leave before or after the next request packet.
struct FrameStream {
  uint32_t qp = 0;
  bool response = false;
  bool read_request = false;  // an RDMA READ request (a rewind asks again from any of its PSNs)
  size_t bth = 0;            // where the BTH starts
  bool roce = false;         // a BTH was found: psn and connection are set
  uint32_t psn = 0;
  uint64_t connection = 0;   // destination QP and UDP source port (RequestBoard)
  uint64_t key() const { return uint64_t{qp} << 1 | response; }
  std::string name() const {
    return "TX frame to QP " + std::to_string(qp) + (response ? " (responses)" : " (requests)");
  }
};

FrameStream frame_stream(const std::vector<uint8_t>& f) {
  size_t off = 12;
  uint16_t et = f.size() > 13 ? static_cast<uint16_t>(f[12] << 8 | f[13]) : 0;
  if (et == spec::kEthertypeVlan && f.size() > 17) {
    et = static_cast<uint16_t>(f[16] << 8 | f[17]);
    off = 16;
  }
  off += 2;
  size_t bth = 0;
  if (et == spec::kEthertypeIpv4) bth = off + 20 + 8;
  else if (et == spec::kEthertypeIpv6) bth = off + 40 + 8;
  else if (et == spec::kEthertypeRocev1) bth = off + 40;
  if (bth == 0 || f.size() < bth + 12) return {};
  const uint8_t op = f[bth];
  FrameStream s;
  s.qp = uint32_t{f[bth + 5]} << 16 | uint32_t{f[bth + 6]} << 8 | f[bth + 7];
  s.response = op >= spec::kRcReadRespFirst && op <= spec::kRcAtomicAck;
  s.read_request = op == spec::kRcReadReq;
  s.bth = bth;
  s.roce = true;
  s.psn = uint32_t{f[bth + 9]} << 16 | uint32_t{f[bth + 10]} << 8 | f[bth + 11];
  const uint32_t sport = et == spec::kEthertypeRocev1 ? 0 : uint32_t{f[bth - 8]} << 8 | f[bth - 7];
  s.connection = uint64_t{s.qp} << 16 | sport;
  return s;
}

uint64_t cycles_to_ns(uint64_t cycles, double clock_mhz) {
  return static_cast<uint64_t>(static_cast<double>(cycles) * 1000.0 / clock_mhz + 0.5);
}

class SingleDevice : public Device {
 public:
  // make(mem) builds the engine's world on this device's host memory.
  template <typename Make>
  SingleDevice(const char* name, const DeviceOptions& opt, Make make)
      : name_(name), clock_mhz_(opt.dma.clock_mhz), w_(make(mem_)), h_(*w_) {}
  const char* backend() const override { return name_; }
  bool csr_read(uint32_t addr, uint32_t* value) override {
    access(false, addr, 0);
    *value = h_.csr_data();
    return h_.csr_ok();
  }
  bool csr_write(uint32_t addr, uint32_t value) override {
    access(true, addr, value);
    return h_.csr_ok();
  }
  void dma_allow(uint64_t addr, uint64_t len) override { mem_.allow(addr, len); }
  void dma_revoke(uint64_t addr, uint64_t len) override { mem_.revoke(addr, len); }
  void set_tx_sink(FrameSink s) override { tx_ = std::move(s); }
  void set_bypass_sink(FrameSink s) override { byp_ = std::move(s); }
  void rx_frame(const uint8_t* f, size_t n) override { h_.push_rx({f, f + n}); }
  std::vector<DeviceEvent> take_events() override { return std::exchange(events_, {}); }
  uint64_t run(uint64_t max_cycles) override {
    uint64_t n = 0;
    while (n < max_cycles && !h_.idle()) n += step(max_cycles - n);
    return n;
  }
  bool idle() override { return h_.idle(); }
  uint64_t timer_at() override { return h_.timer_at(); }
  void skip_to(uint64_t cycle) override { h_.skip_to(cycle); }
  EngineWorld* harness() override { return &h_; }
  uint64_t cycles() const override { return h_.cycles(); }
  uint64_t now_ns() const override { return cycles_to_ns(h_.cycles(), clock_mhz_); }
  uint64_t dma_refused() const override { return mem_.refused(); }

 private:
  void access(bool is_write, uint32_t addr, uint32_t value) {
    h_.csr_start(is_write, addr, value);
    for (uint64_t c = 0; c < kMaxCyclesPerAccess;) {
      c += step(kMaxCyclesPerAccess - c);
      if (h_.csr_done()) return;
    }
    std::ostringstream s;
    s << "rocenic: no AXI4-Lite response to the " << (is_write ? "write of" : "read of") << " CSR 0x" << std::hex
      << addr << " within " << std::dec << kMaxCyclesPerAccess << " cycles";
    throw std::runtime_error(s.str());
  }
  // Up to max cycles (the RTL: one; the model: to its next event), then what came out.
  uint64_t step(uint64_t max) {
    const uint64_t n = h_.step(max);
    for (auto& f : h_.take_tx())
      if (tx_) tx_(f.data(), f.size());
    for (auto& f : h_.take_bypass())
      if (byp_) byp_(f.data(), f.size());
    for (auto& e : h_.take_events()) events_.push_back({e.first, e.second});
    return n;
  }

  const char* name_;
  double clock_mhz_;
  ProcessMemory mem_;
  std::unique_ptr<EngineWorld> w_;
  EngineWorld& h_;
  FrameSink tx_, byp_;
  std::vector<DeviceEvent> events_;
};

// RTL and model in lockstep (DESIGN.md §5). The RTL drives the world; the
// model runs on an overlay of host memory. Compared: every CSR answer, the
// TX frames per destination QP -- responses as a sequence, requests by
// connection and PSN (sim/request_board.h: which packets are sent again, and
// when, is timing) --, the DMA writes per 4 KiB page and writer (payload
// pieces and CQEs never cross a page; a page may hold both), the events, and
// the bypassed frames.
class CosimDevice : public Device {
 public:
  CosimDevice(std::unique_ptr<Block> rtl, const DeviceOptions& opt)
      : opt_(opt), overlay_(mem_), rtl_(std::move(rtl), mem_, opt.dma), model_(overlay_, opt.dma) {
    mem_.shadow = &overlay_;
    rtl_.record_writes(true);
    model_.record_writes(true);
    // The waveform: the RTL is traced from the start (opt-in, it is slow) and
    // the file closes at the first divergence, so it ends with the window
    // that led there.
    if (!opt_.fst_path.empty()) rtl_.engine().open_trace(opt_.fst_path);
  }
  ~CosimDevice() override { rtl_.engine().close_trace(); }
  const char* backend() const override { return "cosim"; }
  bool csr_read(uint32_t addr, uint32_t* value) override {
    access(false, addr, 0);
    *value = rtl_.csr_data();
    return rtl_.csr_ok();
  }
  bool csr_write(uint32_t addr, uint32_t value) override {
    access(true, addr, value);
    return rtl_.csr_ok();
  }
  void dma_allow(uint64_t addr, uint64_t len) override {
    mem_.allow(addr, len);
    overlay_.allow(addr, len);
  }
  void dma_revoke(uint64_t addr, uint64_t len) override {
    mem_.revoke(addr, len);
    overlay_.revoke(addr, len);
  }
  void set_tx_sink(FrameSink s) override { tx_ = std::move(s); }
  void set_bypass_sink(FrameSink s) override { byp_ = std::move(s); }
  // A frame reaches the model once the model has sent as many requests for
  // the first time (new PSNs) as the RTL had when it arrived: a response (a
  // READ response above all, which nothing repeats unasked) must not reach
  // the model before the request it answers left the model, which may run
  // behind. Bounded: an idle model, or a frame held kModelRxHold cycles,
  // goes anyway.
  void rx_frame(const uint8_t* f, size_t n) override {
    rtl_.push_rx({f, f + n});
    model_rx_.push_back({requests_.first_sent(true), rtl_.cycles(), {f, f + n}});
    remember({f, f + n});
  }
  std::vector<DeviceEvent> take_events() override { return std::exchange(events_, {}); }
  uint64_t run(uint64_t max_cycles) override {
    uint64_t n = 0;
    while (n < max_cycles && !idle()) {
      step();
      ++n;
    }
    // Both sides done, no request waiting for its response: every
    // connection's requests went equally far. (With a timer armed, a side
    // may still be waiting to send again: a response can reach the model
    // before it sent the PSN it answers -- it runs a few cycles behind or
    // ahead of the RTL -- and then only its timeout recovers.)
    if (n != 0 && idle() && rtl_.timer_at() == UINT64_MAX && model_.timer_at() == UINT64_MAX) {
      const std::string d = requests_.drained();
      if (!d.empty()) diverge(d);
    }
    return n;
  }
  // Both sides idle (the model may finish a little later than the RTL).
  bool idle() override { return rtl_.idle() && model_.idle() && model_rx_.empty(); }
  // The earlier side's timer (the two may arm a few cycles apart).
  uint64_t timer_at() override { return std::min(rtl_.timer_at(), model_.timer_at()); }
  void skip_to(uint64_t cycle) override {
    if (!idle()) return;
    rtl_.skip_to(cycle);
    model_.skip_to(cycle);
  }
  EngineWorld* harness() override { return &rtl_; }
  uint64_t cycles() const override { return rtl_.cycles(); }
  uint64_t now_ns() const override { return cycles_to_ns(rtl_.cycles(), opt_.dma.clock_mhz); }
  uint64_t dma_refused() const override { return mem_.refused(); }
  uint64_t compared() const override { return compared_ + requests_.compared(); }
  std::string divergence() const override { return divergence_; }

 private:
  void access(bool is_write, uint32_t addr, uint32_t value) {
    rtl_.csr_start(is_write, addr, value);
    model_.csr_start(is_write, addr, value);
    for (uint64_t c = 0; c < kMaxCyclesPerAccess; ++c) {
      step();
      if (rtl_.csr_done() && model_.csr_done()) {
        if (!is_write && !comparable_now(addr)) return;
        std::ostringstream what;
        what << "CSR " << (is_write ? "write" : "read") << " 0x" << std::hex << addr;
        if (is_write) what << " value 0x" << value;
        compare(what.str(), std::to_string(rtl_.csr_ok()) + ":" + std::to_string(rtl_.csr_data()),
                std::to_string(model_.csr_ok()) + ":" + std::to_string(model_.csr_data()));
        return;
      }
    }
    throw std::runtime_error("rocenic: cosim: no AXI4-Lite response within the cycle limit");
  }
  // Registers whose value depends on when they are read: the mailbox status
  // (the RTL and the model finish a command in different cycles) and the
  // counters (they count events that may happen a few cycles apart). The
  // status is compared once both sides have finished the command (the RTL's
  // answer stands while it is busy; when it is done, the model is run until
  // it is too); counters are compared when both sides are idle.
  bool comparable_now(uint32_t addr) {
    if (addr == spec::kCsrCmdStatus) {
      if (rtl_.csr_data() >> 31) return false;
      for (uint64_t c = 0; c < kMaxCyclesPerAccess && (model_.csr_data() >> 31); ++c) {
        model_.csr_start(false, addr, 0);
        while (!model_.csr_done()) model_.step(1);
      }
      return true;
    }
    const bool counter = (addr >= spec::kCsrRxFrames && addr < spec::kCsrGid);
    return !counter || (rtl_.idle() && model_.idle() && !timing_counter(addr));
  }

  // Counters of what the requester sends and how responses meet it: which
  // packets go again, whether a NAK finds its PSN still outstanding, when a
  // timer expires. Timing, as the request board explains: not compared.
  static bool timing_counter(uint32_t addr) {
    using X = spec::XportCnt;
    if (addr == spec::kCsrTxFrames) return true;
    if (addr < spec::kCsrXportCnt || addr >= spec::kCsrXportCnt + 4 * spec::kXportCntCount) return false;
    switch (static_cast<X>((addr - spec::kCsrXportCnt) / 4)) {
      case X::kTxPkts: case X::kLoopback: case X::kPacketSeqErr: case X::kUnmatchedResponse:
      case X::kRetransmits: case X::kRetryExceeded: case X::kLocalAckTimeoutErr: case X::kRnrNakRetryErr:
      case X::kRnrRetryExceeded:
        return true;
      default:
        return false;
    }
  }

  // One cycle of the RTL, the model brought to the same cycle, and the scoreboard.
  void step() {
    rtl_.cycle();
    while (!model_rx_.empty() && (requests_.first_sent(false) >= model_rx_.front().rtl_sent || model_.idle() ||
                                  rtl_.cycles() - model_rx_.front().at >= kModelRxHold)) {
      model_.push_rx(model_rx_.front().frame);
      model_rx_.pop_front();
    }
    while (model_.cycles() < rtl_.cycles()) model_.step(rtl_.cycles() - model_.cycles());
    for (auto& f : rtl_.take_tx()) {
      remember(f);
      tx_frame(true, f);
      if (tx_) tx_(f.data(), f.size());
    }
    for (auto& f : model_.take_tx()) tx_frame(false, f);
    for (auto& f : rtl_.take_bypass()) {
      byp_q_.rtl.push_back(f);
      if (byp_) byp_(f.data(), f.size());
    }
    for (auto& f : model_.take_bypass()) byp_q_.model.push_back(f);
    // Per page and writer (the DMA write tag: responder 0, CQ writer 1,
    // read_place 2): what several write to one page -- payload and CQEs, a
    // peer's WRITEs or atomics and the own READ data or atomic originals --
    // are separate sequences (how they interleave is timing, not content).
    for (auto& w : rtl_.take_dma_writes()) wr_pair(w).rtl.push_back(encode(w));
    for (auto& w : model_.take_dma_writes()) wr_pair(w).model.push_back(encode(w));
    for (auto& e : rtl_.take_events()) {
      events_.push_back({e.first, e.second});
      ev_q_.rtl.push_back({static_cast<uint8_t>(e.first), static_cast<uint8_t>(e.first >> 8), e.second});
    }
    for (auto& e : model_.take_events())
      ev_q_.model.push_back({static_cast<uint8_t>(e.first), static_cast<uint8_t>(e.first >> 8), e.second});
    // (the descriptions are built only for a divergence)
    // Only the streams that gained an entry this cycle can have a new pair
    // to compare; walking every page ever written, every cycle, was most of
    // a long cosim run's time.
    for (uint64_t key : std::exchange(tx_touched_, {}))
      drain(tx_q_[key], [key] { return FrameStream{uint32_t(key >> 1), (key & 1) != 0}.name(); });
    for (uint64_t key : std::exchange(wr_touched_, {}))
      drain(wr_q_[key], [key] {
              static const char* const kWriter[] = {"responder payload", "CQE", "read_place payload", "writer 3"};
              return std::string(kWriter[key & 3]) + " DMA write to page 0x" + to_hex(key >> 2 << 12);
            },
            &overlay_);
    drain(byp_q_, [] { return std::string("bypass frame"); });
    drain(ev_q_, [] { return std::string("event"); });
  }

  // Responses (and anything without a BTH) as sequences per destination QP;
  // requests on the request board.
  void tx_frame(bool rtl, const std::vector<uint8_t>& f) {
    const FrameStream fs = frame_stream(f);
    if (fs.roce && !fs.response) {
      const std::string d = requests_.sent(rtl, fs.connection, fs.psn, f, fs.read_request, fs.bth);
      if (!d.empty()) diverge(d);
      return;
    }
    Pair& q = tx_q_[fs.key()];
    (rtl ? q.rtl : q.model).push_back(f);
    tx_touched_.push_back(fs.key());
  }

  struct Pair {
    std::deque<std::vector<uint8_t>> rtl, model;
    uint64_t n = 0;
  };
  // A DMA write's stream: its 4 KiB page and writer (tag).
  Pair& wr_pair(const DmaWrite& w) {
    const uint64_t key = (w.addr >> 12) << 2 | (w.tag & 3);
    wr_touched_.push_back(key);
    return wr_q_[key];
  }
  static std::vector<uint8_t> encode(const DmaWrite& w) {
    std::vector<uint8_t> v(8);
    for (int i = 0; i < 8; ++i) v[i] = static_cast<uint8_t>(w.addr >> (8 * i));
    v.insert(v.end(), w.data.begin(), w.data.end());
    return v;
  }
  static std::string to_hex(uint64_t v) {
    std::ostringstream s;
    s << std::hex << v;
    return s.str();
  }
  // Compares what both sides have produced so far; for DMA writes (`overlay`
  // given) a match also returns those bytes to real memory (OverlayMemory::forget).
  template <typename What>
  void drain(Pair& q, const What& what, OverlayMemory* overlay = nullptr) {
    while (!q.rtl.empty() && !q.model.empty()) {
      const std::vector<uint8_t>& r = q.rtl.front();
      if (overlay && r == q.model.front() && r.size() >= 8) {
        uint64_t addr = 0;
        for (int i = 0; i < 8; ++i) addr |= uint64_t{r[i]} << (8 * i);
        overlay->forget(addr, r.size() - 8);
      }
      if (r == q.model.front())
        ++compared_;  // the common case: no strings built
      else
        compare(what() + " #" + std::to_string(q.n), hex_bytes(r, 4200), hex_bytes(q.model.front(), 4200));
      q.rtl.pop_front();
      q.model.pop_front();
      ++q.n;
    }
  }
  void compare(const std::string& what, const std::string& rtl, const std::string& model) {
    if (rtl == model) {
      ++compared_;
      return;
    }
    diverge(what + ":\n  rtl   " + rtl.substr(0, 400) + "\n  model " + model.substr(0, 400));
  }
  // The first divergence is kept, reported with its waveform and frames.
  void diverge(const std::string& what) {
    if (!divergence_.empty()) return;  // the first one is the one that matters
    std::ostringstream s;
    const std::string::size_type nl = what.find('\n');
    std::string head = what.substr(0, nl);
    if (!head.empty() && head.back() == ':') head.pop_back();
    s << "DIVERGENCE at " << head << " (rtl cycle " << rtl_.cycles() << ", after " << compared()
      << " matching transactions)" << (nl == std::string::npos ? "" : ":" + what.substr(nl));
    divergence_ = s.str();
    std::fprintf(stderr, "rocenic: cosim %s\n", divergence_.c_str());
    if (!opt_.fst_path.empty()) {
      rtl_.engine().close_trace();
      std::fprintf(stderr, "rocenic: cosim waveform up to the divergence: %s\n", opt_.fst_path.c_str());
    }
    if (!opt_.divergence_pcap.empty()) {
      try {
        PcapWriter w(opt_.divergence_pcap);
        for (const auto& [cycle, f] : recent_) w.write(f, cycles_to_ns(cycle, opt_.dma.clock_mhz));
        std::fprintf(stderr, "rocenic: cosim frames of the window (%zu): %s\n", recent_.size(),
                     opt_.divergence_pcap.c_str());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "rocenic: cosim: %s\n", e.what());
      }
    }
  }
  // The last frames in and out (RTL side), for the divergence pcap.
  void remember(const std::vector<uint8_t>& f) {
    recent_.emplace_back(rtl_.cycles(), f);
    if (recent_.size() > kRecentFrames) recent_.pop_front();
  }
  static constexpr size_t kRecentFrames = 256;

  // Real memory, written by the RTL's DMA: before each write the bytes it
  // replaces go to the model's overlay (OverlayMemory::preserve), so a model
  // that is behind does not see the RTL's future.
  class RtlMemory : public ProcessMemory {
   public:
    OverlayMemory* shadow = nullptr;

   protected:
    void do_write(uint64_t addr, const uint8_t* in, size_t n) override {
      if (shadow) {
        std::vector<uint8_t> old(n);
        ProcessMemory::do_read(addr, old.data(), n);
        shadow->preserve(addr, old.data(), n);
      }
      ProcessMemory::do_write(addr, in, n);
    }
  };

  DeviceOptions opt_;
  RtlMemory mem_;
  OverlayMemory overlay_;
  EngineHarness rtl_;
  ModelWorld model_;
  std::deque<std::pair<uint64_t, std::vector<uint8_t>>> recent_;
  FrameSink tx_, byp_;
  std::vector<DeviceEvent> events_;
  std::map<uint64_t, Pair> tx_q_;  // responses, by FrameStream::key()
  std::vector<uint64_t> tx_touched_, wr_touched_;  // keys pushed to since the last compare
  RequestBoard requests_;
  struct HeldRx {
    uint64_t rtl_sent;  // requests the RTL had sent for the first time when this one arrived
    uint64_t at;        // the RTL cycle it arrived
    std::vector<uint8_t> frame;
  };
  static constexpr uint64_t kModelRxHold = 200000;
  std::deque<HeldRx> model_rx_;
  std::map<uint64_t, Pair> wr_q_;
  Pair byp_q_, ev_q_;
  uint64_t compared_ = 0;
  std::string divergence_;
};

}  // namespace

std::unique_ptr<Device> make_device(const std::string& backend, const DeviceOptions& opt) {
  if (backend == "model")
    return std::make_unique<SingleDevice>("model", opt, [&](HostMemory& m) {
      return std::make_unique<ModelWorld>(m, opt.dma);
    });
  if (backend == "rtl")
    return std::make_unique<SingleDevice>("rtl", opt, [&](HostMemory& m) {
      return std::make_unique<EngineHarness>(make_engine_rtl(), m, opt.dma);
    });
  if (backend == "cosim") {
    // Programs started by rocenic-run name the divergence's waveform and frames this way.
    DeviceOptions o = opt;
    if (const char* f = std::getenv("ROCENIC_COSIM_FST"); f && o.fst_path.empty()) o.fst_path = f;
    if (const char* f = std::getenv("ROCENIC_COSIM_PCAP"); f && o.divergence_pcap.empty()) o.divergence_pcap = f;
    return std::make_unique<CosimDevice>(make_engine_rtl(), o);
  }
  throw std::invalid_argument("rocenic: unknown backend '" + backend + "' (use model, rtl or cosim)");
}

std::unique_ptr<Device> make_cosim_device(std::unique_ptr<Block> rtl, const DeviceOptions& opt) {
  return std::make_unique<CosimDevice>(std::move(rtl), opt);
}

}  // namespace rocenic
