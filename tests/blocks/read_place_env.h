// read_place's test world (tests/blocks/test_read_place.cc).
//
// run(): a Block (RTL adapter or model) connected to host memory through the
// DMA timing model and to an MR table answering its mr_req with a small
// latency, fed stimulus in steps. A step starts once the block is idle and
// the previous step's flits were all taken, so RTL and model see the same
// input order on every port; inside a step flits arrive with random idle
// cycles and outputs see random backpressure.
//
// Scenario: plays the local driver (QP set-up, READ WQEs in the send ring)
// and the completer (one command per READ RESPONSE it hands on, with its
// payload). For every READ it records what the scenario *meant*: good, a
// broken SGE (which one), longer than its SGEs, a WQE the host refuses to
// read, a WQE with 7 SGEs, no such QP. expect() turns that into the bytes
// that must land where (from the SGEs and the MR page tables alone, not by
// the block's rules) and the done answers; check_facts() holds a run to it.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/block.h"
#include "dma/dma_model.h"
#include "gen/roce_spec.h"
#include "blocks/mr_world.h"
#include "xcheck.h"

namespace rocenic::rp {

using blk::MrDef;

struct World {
  std::vector<MrDef> mrs;
  std::vector<std::pair<uint64_t, uint64_t>> regions;  // memory the DMA may touch (addr, len)
  uint8_t fill = 0xA5;                                 // initial content of every region
};

struct Step {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host;  // driver memory writes at the step's start
  std::vector<Flit> in[4];                                      // qp_cfg, cmd, payload, hint
  size_t cmd_begin = 0, cmd_end = 0;                            // its commands in Scenario::cmds
};

struct RunConfig {
  uint64_t seed = 1;
  double in_idle = 0.3, out_stall = 0.3;
  DmaTiming dma{250.0, 160.0, 60.0, 32.0, 64};  // shorter than PCIe: tests stay fast
  unsigned mr_lat_min = 2, mr_lat_max = 6;
  uint64_t max_cycles = 20'000'000;
};

enum Out : unsigned { kRdReq = 0, kMrReq, kWrReq, kWrData, kDone, kOuts };
constexpr unsigned kIns = 6;  // qp_cfg, cmd, payload, dma_rd, mr_resp, hint
constexpr unsigned kStepIns = 4;
constexpr unsigned kStepPort[kStepIns] = {0, 1, 2, 5};  // Step::in[k] feeds this input

struct RunResult {
  std::vector<std::vector<Txn>> out;  // per output port
  std::vector<std::pair<std::string, uint32_t>> counters;
  std::vector<std::vector<uint8_t>> memory;  // World::regions at the end
  uint64_t cycles = 0;
  std::string error;  // timeout, handshake rule, refused DMA write
};

RunResult run(Block& b, const World& w, const std::vector<Step>& steps, const RunConfig& cfg);
// First difference between two runs (per port, counters, memory); "" if none.
std::string compare(const RunResult& rtl, const RunResult& model);

// ---------------------------------------------------------------- the scenario
struct TSge {
  uint64_t va = 0;
  uint32_t len = 0, lkey = 0;
  unsigned mr = 0;      // the region it was placed in (a good SGE: the one its lkey names)
  bool broken = false;  // the scenario broke it (key, PD, rights, bounds): no byte may land in it or after it
};
// kStaleEpoch: a good READ whose commands carry the epoch before the QP's last
// RESET (the completer sent them before it): nothing may land.
enum class Meant : uint8_t { kGood, kBrokenSge, kTooLong, kPoisoned, kTooManySges, kNoQp, kNotARead, kStaleEpoch };
struct TRead {
  uint32_t qpn = 0;
  uint16_t idx = 0;  // send-queue index
  std::vector<TSge> sges;
  std::vector<uint8_t> data;  // the READ's message (the responses carry it)
  Meant meant = Meant::kGood;
  uint32_t mtu = 1024;
};
struct TCmd {
  size_t read = 0;  // index into Scenario::reads
  spec::RdPlace c;
  std::vector<uint8_t> pay;
};
struct TQp {
  uint32_t qpn = 0;
  uint16_t pd = 1;
  uint64_t sq_base = 0;
  uint8_t sq_lsz = 4;
  uint32_t mtu = 1024;
  bool refused = false;  // the host refuses reads of its send ring (poisoned data)
  uint16_t next_idx = 0;
  uint8_t epoch = 0;  // its RESETs and DESTROYs, as the completer stamps them on commands
};

class Scenario {
 public:
  explicit Scenario(uint64_t seed);

  World world;
  std::vector<Step> steps;
  std::vector<TRead> reads;
  std::vector<TCmd> cmds;  // in the order they are handed to the block
  std::vector<TQp> qps;    // index = qpn (0 unused)

  enum Mr : unsigned { kA = 0, kB, kPd2, kNoWrite };  // 4 KiB pages; 64 KiB pages; another PD; no LOCAL_WRITE
  const MrDef& mr(unsigned m) const { return world.mrs[m]; }
  uint64_t rand(uint64_t n) { return n ? rng_() % n : 0; }

  // driver: qp_cfg steps
  void create(TQp& q);  // RESET (the send queue restarts at index 0), then INIT, RTR, RTS
  void attr(TQp& q);    // attributes again, no state change
  void destroy(TQp& q);
  // a READ WQE of len bytes into these SGEs (written to the ring when its batch starts)
  size_t read(uint32_t qpn, std::vector<TSge> sges, uint32_t len, Meant meant);
  // The requester's hint for READ r, as its request leaves (before any of its
  // responses): its one SGE, or one_sge 0 when it has more. In a step of its
  // own, so that it is in before the responses that follow.
  void hint(size_t r);
  void hint_raw(const spec::RdHint& h);  // any tag (one that shares another's table entry)
  // len bytes split over n SGEs (some empty when `empties`), crossing page ends, in MRs kA and kB
  std::vector<TSge> sges(uint32_t len, unsigned n, bool empties);
  TSge sge_in(unsigned m, uint32_t len);
  // The completer hands on responses [from, to) of each READ (to = SIZE_MAX: all, the last
  // one with last = 1), the READs of different QPs interleaved; drop commands (garbage
  // payload) mixed in with chance `drops`, earlier responses of good READs repeated with
  // chance `repeats`. One step.
  struct Part {
    size_t read;
    size_t from = 0, to = SIZE_MAX;
  };
  void deliver(const std::vector<Part>& parts, double drops = 0, double repeats = 0);
  size_t responses(size_t r) const;  // how many the READ's message takes

 private:
  Step& new_step();
  void cfg(TQp& q, spec::QpAction a);
  std::vector<uint8_t> bytes(size_t n);
  std::mt19937_64 rng_;
  std::vector<uint64_t> cursor_;   // per MR: where the next SGE goes
  std::vector<size_t> unwritten_;  // READs whose WQE is not in the ring yet
};

// What must be observed: memory (every region), the done answers in order,
// payload bytes written and dropped.
struct Expected {
  std::vector<std::vector<uint8_t>> memory;
  std::vector<spec::RdDone> done;
  std::vector<uint64_t> written_by_done;  // payload bytes written by the commands up to each done's
  uint64_t written = 0, dropped = 0;
};
Expected expect(const Scenario& s);
// A run against the scenario's meaning; "" if it holds.
std::string check_facts(const Scenario& s, const RunResult& r);

}  // namespace rocenic::rp
