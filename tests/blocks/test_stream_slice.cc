// stream_slice (rtl/common/stream_slice.sv, a sub-block of the responder's
// placement): random packets cut into random pieces -- kept or dropped, and
// sometimes ending before the packet does (the rest is skipped up to tlast)
// -- under random idle cycles and backpressure. Every kept piece is exactly
// its bytes of the packet, from lane 0, and nothing else comes out. (The
// event-driven model has no counterpart: it places payload by reference.)
//
//   input 0  descriptor: 2 bytes LE, bits 12:0 len, bit 13 last, bit 14 drop
//   input 1  packet beats (lane 0 aligned, last on the final beat)
//   output 0 pieces (keep, last per piece)
#include <gtest/gtest.h>

#include <random>

#include "Vstream_slice.h"
#include "Vstream_slice_w128.h"
#include "common/desc_flit.h"
#include "rtl/vl_ports.h"
#include "rtl/vl_top.h"
#include "xcheck.h"

namespace rocenic {
namespace {

std::vector<PortInfo> in_ports(unsigned bytes) { return {{"desc", false, true, 2}, {"data", true, true, bytes}}; }
std::vector<PortInfo> out_ports(unsigned bytes) { return {{"piece", true, true, bytes}}; }
struct Desc {
  unsigned len;
  bool last, drop;
};
Desc desc_of(const Flit& f) {
  const unsigned v = f.data[0] | f.data[1] << 8;
  return {v & 0x1FFFu, ((v >> 13) & 1u) != 0, ((v >> 14) & 1u) != 0};
}

template <typename V>
class SliceRtl : public VlBlock<V> {
 public:
  explicit SliceRtl(unsigned bytes) : bytes_(bytes) {
    this->in_info_ = in_ports(bytes);
    this->out_info_ = out_ports(bytes);
    reset();
  }
  void reset() override {
    this->top_->s_desc_valid = this->top_->s_axis_tvalid = this->top_->m_axis_tready = 0;
    this->restart();
  }
  void set_input(unsigned port, bool valid, const Flit& f) override {
    if (port == 0) {
      const auto d = desc_of(f.data.size() >= 2 ? f : Flit{{0, 0}});
      this->top_->s_desc_valid = valid;
      this->top_->s_desc_len = d.len;
      this->top_->s_desc_last = d.last;
      this->top_->s_desc_drop = d.drop;
    } else {
      this->top_->s_axis_tvalid = valid;
      this->top_->s_axis_tlast = f.last;
      vl::put_bytes(this->top_->s_axis_tdata, f.data);
    }
  }
  void set_output_ready(unsigned, bool ready) override { this->top_->m_axis_tready = ready; }
  bool input_ready(unsigned port) override { return port == 0 ? this->top_->s_desc_ready : this->top_->s_axis_tready; }
  bool output_valid(unsigned) override { return this->top_->m_axis_tvalid; }
  Flit output(unsigned) override {
    Flit f;
    f.data = vl::get_bytes(this->top_->m_axis_tdata, bytes_);
    f.keep = static_cast<uint64_t>(this->top_->m_axis_tkeep);
    f.last = this->top_->m_axis_tlast;
    return f;
  }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return this->top_->idle; }

 private:
  unsigned bytes_;
};

// a packet as lane-0 beats of `bytes` lanes
std::vector<Flit> beats_of(const std::vector<uint8_t>& pkt, unsigned bytes) {
  std::vector<Flit> v;
  for (size_t off = 0; off < pkt.size(); off += bytes) {
    Flit f;
    const size_t n = std::min<size_t>(bytes, pkt.size() - off);
    f.data = std::vector<uint8_t>(pkt.begin() + static_cast<long>(off), pkt.begin() + static_cast<long>(off + n));
    f.data.resize(bytes);
    f.keep = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    f.last = off + n == pkt.size();
    v.push_back(std::move(f));
  }
  return v;
}

void run_slices(unsigned bytes, uint64_t seed, const std::function<std::unique_ptr<Block>()>& make_rtl) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<Flit>> stim(2);
  std::vector<std::vector<uint8_t>> want;  // kept pieces, in order
  size_t dropped = 0, short_packets = 0;
  for (int p = 0; p < 400; ++p) {
    const size_t len = 1 + rng() % (rng() % 4 ? 300 : 4096);
    std::vector<uint8_t> pkt(len);
    for (auto& b : pkt) b = static_cast<uint8_t>(rng());
    for (Flit& f : beats_of(pkt, bytes)) stim[1].push_back(std::move(f));
    // pieces covering the packet, or (1 in 8) stopping short of its end
    const size_t cover = rng() % 8 == 0 && len > 1 ? 1 + rng() % (len - 1) : len;
    short_packets += cover < len;
    for (size_t off = 0; off < cover;) {
      const size_t n = std::min(cover - off, 1 + static_cast<size_t>(rng() % (rng() % 3 ? 200 : 4096)));
      const bool last = off + n == cover, drop = rng() % 5 == 0;
      const unsigned v = static_cast<unsigned>(n) | (last ? 1u << 13 : 0u) | (drop ? 1u << 14 : 0u);
      stim[0].push_back(Flit{{static_cast<uint8_t>(v), static_cast<uint8_t>(v >> 8)}});
      if (drop) ++dropped;
      else want.emplace_back(pkt.begin() + static_cast<long>(off), pkt.begin() + static_cast<long>(off + n));
      off += n;
    }
  }
  XcheckConfig cfg;
  cfg.seed = seed;
  cfg.in_idle = 0.25;
  cfg.out_stall = 0.3;
  const auto rtl = make_rtl();
  uint64_t cycles = 0;
  const auto out = drive_block(*rtl, stim, cfg, &cycles);
  ASSERT_EQ(out[0].size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(beats_to_bytes(out[0][i].flits), want[i]) << "piece " << i;
    for (const Flit& f : out[0][i].flits) ASSERT_EQ(f.keep & 1u, 1u) << "every beat starts in lane 0";
  }
  EXPECT_TRUE(rtl->idle());
  std::printf("stream_slice %u bits: %zu pieces kept, %zu dropped, %zu packets cut short; %llu cycles\n", bytes * 8,
              want.size(), dropped, short_packets, static_cast<unsigned long long>(cycles));
}

TEST(StreamSlice, PiecesAreThePacketBytes512) {
  run_slices(64, 1, [] { return std::make_unique<SliceRtl<Vstream_slice>>(64); });
}

TEST(StreamSlice, PiecesAreThePacketBytes128) {
  run_slices(16, 2, [] { return std::make_unique<SliceRtl<Vstream_slice_w128>>(16); });
}

}  // namespace
}  // namespace rocenic
