// The DMA timing model of sim/dma/dma_model.h as arithmetic on transactions,
// for the event-driven engine model: a read or write is one call that
// returns the cycles of its beats, instead of a model stepped every cycle
// while the request waits out its round trip.
//
// It gives exactly the cycles DmaModel gives an engine that always takes
// read data and offers write data as soon as the host accepts it (the
// event-driven model's blocks do): same latency, same byte budget refilled
// every cycle (same floating-point steps), one beat per cycle, in order.
// tests/test_dma_timeline.cc holds the two side by side on random traffic.
#pragma once

#include <cstdint>
#include <deque>

#include "dma/dma_model.h"

namespace rocenic {

class DmaTimeline {
 public:
  using Cycle = uint64_t;
  DmaTimeline(const DmaTiming& t, unsigned data_bytes);

  struct Read {
    Cycle first_beat = 0, last_beat = 0;  // cycles in which the engine sees the first / last data beat
  };
  struct Write {
    Cycle last_beat = 0;  // cycle in which the host takes the last data beat
    Cycle done = 0;       // cycle in which the engine sees its write-done
  };
  // A request the host takes in cycle `at`. Calls come in non-decreasing
  // `at` per direction, and only when a slot is free (read_slot_at/write_slot_at).
  Read read(Cycle at, uint32_t len);
  Write write(Cycle at, uint32_t len);
  // The first cycle >= now in which the host takes another request
  // (DmaTiming::max_reads outstanding per direction).
  Cycle read_slot_at(Cycle now);
  Cycle write_slot_at(Cycle now);

 private:
  // Bytes the link may move, as of the clock edge into cycle `at` (after
  // that cycle's refill and any beat taken in it).
  struct Budget {
    double val = 0;
    Cycle at = 0;
  };
  void advance(Budget& b, Cycle to) const;
  // The first cycle >= from in which a beat of n bytes can pass; takes it.
  Cycle take_beat(Budget& b, Cycle from, unsigned n) const;
  static Cycle slot_at(std::deque<Cycle>& ends, Cycle now, unsigned max);

  unsigned bytes_;
  unsigned max_;
  double bpc_, cap_;
  Cycle rd_lat_, wr_lat_;
  Budget rd_budget_, wr_budget_;
  Cycle last_rd_beat_ = 0, last_wr_beat_ = 0, last_done_ = 0;
  bool any_rd_ = false, any_wr_ = false, any_done_ = false;
  std::deque<Cycle> rd_ends_, wr_ends_;  // cycles from which outstanding requests free their slots
};

}  // namespace rocenic
