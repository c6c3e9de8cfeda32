// The host side of the engine's DMA ports, cycle by cycle: read requests are
// answered after a round-trip latency, data moves no faster than the link's
// bandwidth, writes land in host memory and are confirmed in order.
//
// Defaults are close to PCIe Gen3 x16 seen from a 250 MHz engine: ~500 ns
// read round trip, ~13 GB/s per direction after protocol overhead (15.75 GB/s
// raw), 64 reads outstanding.
//
// Per cycle the engine side (RTL adapter or model) checks *_ready/*_valid,
// pushes and pops, then calls clock().
#pragma once

#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/block.h"
#include "dma/host_memory.h"
#include "gen/roce_spec.h"

namespace rocenic {

struct DmaTiming {
  double clock_mhz = 250.0;
  double read_latency_ns = 500.0;   // request accepted -> first data beat
  double write_latency_ns = 250.0;  // last data beat -> write-done
  double gbytes_per_s = 13.0;       // per direction
  unsigned max_reads = 64;          // read requests outstanding
};

struct DmaStats {
  uint64_t bytes_read = 0, bytes_written = 0, reads = 0, writes = 0, refused_reads = 0, refused_writes = 0;
};

class DmaModel {
 public:
  DmaModel(HostMemory& mem, const DmaTiming& t, unsigned data_bytes);

  // read channel
  bool rd_req_ready() const { return reads_.size() < t_.max_reads; }
  void push_rd_req(const spec::DmaRdReq& r);
  bool rd_data_valid() const { return out_valid_; }
  const Flit& rd_data() const { return out_; }  // user = poisoned (the read was refused)
  uint8_t rd_data_tag() const { return out_tag_; }
  void pop_rd_data() { out_valid_ = false; }

  // write channel
  bool wr_req_ready() const { return writes_.size() < t_.max_reads; }
  void push_wr_req(const spec::DmaWrReq& w);
  bool wr_data_ready() const;
  void push_wr_data(const Flit& beat);
  bool wr_done_valid() const { return !done_.empty() && done_.front().due <= cycle_; }
  uint8_t wr_done_tag() const { return done_.front().tag; }
  bool wr_done_error() const { return done_.front().error; }
  void pop_wr_done() { done_.pop_front(); }

  void clock();
  uint64_t cycle() const { return cycle_; }
  void skip(uint64_t cycles) { cycle_ += cycles; }  // idle: the clock jumps
  // No read or write in flight and no write-done waiting.
  bool idle() const { return reads_.empty() && writes_.empty() && done_.empty() && !out_valid_; }
  const DmaStats& stats() const { return stats_; }
  double bytes_per_cycle() const { return bpc_; }
  uint64_t read_latency_cycles() const { return rd_lat_; }

  // The timing in cycles, computed once here for DmaModel and DmaTimeline alike.
  static double bytes_per_cycle(const DmaTiming& t) { return t.gbytes_per_s * 1e9 / (t.clock_mhz * 1e6); }
  static uint64_t read_latency(const DmaTiming& t) {
    return static_cast<uint64_t>(std::llround(t.read_latency_ns * t.clock_mhz / 1000.0));
  }
  static uint64_t write_latency(const DmaTiming& t) {
    return static_cast<uint64_t>(std::llround(t.write_latency_ns * t.clock_mhz / 1000.0));
  }

 private:
  struct Read {
    spec::DmaRdReq req;
    uint64_t ready = 0;
    uint32_t sent = 0;
    bool poisoned = false;
  };
  struct Write {
    spec::DmaWrReq req;
    std::vector<uint8_t> data;
  };
  struct Done {
    uint8_t tag;
    bool error;
    uint64_t due;
  };

  HostMemory& mem_;
  DmaTiming t_;
  unsigned bytes_;
  double bpc_;
  uint64_t rd_lat_, wr_lat_;
  double rd_budget_ = 0, wr_budget_ = 0;
  std::deque<Read> reads_;
  std::deque<Write> writes_;
  std::deque<Done> done_;
  bool out_valid_ = false;
  Flit out_;
  uint8_t out_tag_ = 0;
  uint64_t cycle_ = 0;
  DmaStats stats_;
};

}  // namespace rocenic
