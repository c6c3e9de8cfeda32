// A reactive world for the requester: host memory behind the DMA timing model,
// an MR table that answers mr_req after a small random latency, a completer
// stand-in that retires tracked WQEs (sq_retire) at random once their last
// packet (a READ: its request) has left, and now and then rewinds to one
// (go-back-N, from a random packet, also of a WQE still being sent; into a
// READ: from a random one of its response PSNs), a control script
// (qp_cfg, sq_db, scripted sq_retire, waits) with random idle cycles, and
// random backpressure on every output. run_env() drives one Block (RTL adapter
// or model) in it and records every output transaction per port.
//
// Builder makes scenarios: MRs whose pages sit at shuffled bus addresses, QPs,
// WQEs written into their rings, doorbells, and for each WQE what the
// scenario means it to be (good, or made to fail) and the bytes its SGEs
// cover. check_expect() holds a run's outputs against facts, not against a
// second implementation of the rules: good WQEs succeed until the QP's
// first failure, made-to-fail ones fail, later ones are flushed; every
// packet's header carries the WQE's fields; a successful WQE's payload is
// its SGE bytes; a READ is one request (RETH = the WQE's remote address,
// rkey, length) taking one PSN per response packet, and a READ asked for
// again from response k asks for the rest of its bytes from PSN + k.
// Which error a failure reports is the RTL = model
// comparison's business (and the directed tests').
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/block.h"
#include "ctrl/gid_entry.h"
#include "dma/dma_model.h"
#include "dma/host_memory.h"
#include "gen/roce_spec.h"
#include "mem/mr_table.h"
#include "xcheck.h"

namespace rocenic::reqtest {

enum InPort : unsigned { kInCfg = 0, kInDb = 1, kInRetire = 2, kInDma = 3, kInMr = 4 };
enum OutPort : unsigned { kRdReq = 0, kMrReq = 1, kHdr = 2, kPay = 3, kTrack = 4, kHint = 5, kOuts = 6 };
// (kHint: rd_hint, an event output with no ready)
constexpr unsigned kW = 64;  // DATA_W = 512

struct Step {
  enum Kind { kFlit, kWait, kWaitIdle } kind = kFlit;
  unsigned port = 0;
  Flit flit;
  uint64_t cycles = 0;
};

struct Sge {
  uint64_t addr = 0;
  uint32_t len = 0, lkey = 0;
};

struct WqeSpec {
  uint8_t op = 2;  // wr_opcode
  bool signaled = true, solicited = false, inl = false, fence = false;
  std::vector<Sge> sges;
  std::vector<uint8_t> inline_data;
  int64_t len_override = -1;  // length field other than the sum / inline count
  int nsge_override = -1;     // num_sge field other than sges.size()
  uint32_t imm = 0, rkey = 0;  // LOCAL_INV, SEND_WITH_INV: imm is the rkey; BIND_MW: rkey is the new one
  uint64_t raddr = 0, wr_id = 0;
  uint32_t bind_lkey = 0, bind_access = 0;  // BIND_MW: the MR and the window's rights
  // UD: the address vector (layouts.md send_wqe ud_*)
  struct Av {
    uint32_t dest_qpn = 0, qkey = 0, flow_label = 0;
    Ip128 dgid{};
    uint64_t dmac = 0;
    uint8_t sgid = 0, hop = 0, tclass = 0, sl = 0;
  } av;
  bool bad = false;  // the scenario makes this WQE fail (a bad key, opcode, length, ...)
};

// A WQE as posted: its fields, whether it is meant to fail, the bytes it carries.
struct ExpWqe {
  uint16_t qpn = 0, idx = 0;
  WqeSpec w;
  uint32_t len = 0;        // the WQE's length field
  bool poisoned = false;   // the host refuses its ring slot: the engine reads zeros
  std::vector<uint8_t> payload;  // its SGE bytes (or inline data), in order
};

struct ExpQp {
  spec::QpCfg cfg;
  std::vector<ExpWqe> wqes;
  // UD: what resolves a WQE's address vector (the port and its GID table, as the World has them)
  std::vector<model::GidEntry> gids;
  uint64_t port_mac = 0;
  unsigned port_mtu = 3;
};

struct World {
  struct Mr {
    unsigned index = 0;
    spec::MrCtx ctx;
    unsigned mtt_base = 0;
    std::vector<uint64_t> pages;     // bus address of each page
    std::vector<uint8_t> content;    // bytes of [iova, iova + length)
    bool readable = true;            // host memory allows its pages
  };
  std::vector<Mr> mrs;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> writes;
  std::vector<std::pair<uint64_t, uint64_t>> allowed, revoked;
  std::vector<std::pair<unsigned, uint64_t>> extra_mtt;
  // the port (UD: source MAC, the largest datagram) and its GID table
  uint64_t port_mac = 0x02AABBCCDDEEull;
  unsigned port_mtu = 3;
  std::vector<model::GidEntry> gids = std::vector<model::GidEntry>(16);
  void install(SparseMemory& mem, model::MrRegions& mrt) const;
};

struct EnvConfig {
  uint64_t seed = 1;
  double in_idle = 0.3, out_stall = 0.3;
  unsigned mr_lat_min = 1, mr_lat_max = 6;
  bool auto_retire = true;
  double retire_p = 0.08;  // chance per cycle that the completer stand-in retires something
  double nak_p = 0.0;      // chance that a retire carries error (as after a NAK)
  double rewind_p = 0.0;   // chance that a retire also rewinds to the next WQE (as after a PSN sequence NAK)
  uint64_t max_cycles = 20'000'000;
  DmaTiming dma;
};

struct EnvResult {
  std::vector<std::vector<Txn>> out;
  std::string error;               // valid/ready rule broken, or the run did not finish
  uint64_t cycles = 0;
  std::vector<size_t> idle_tracks;  // sq_track count at each kWaitIdle
  std::vector<std::pair<std::string, uint32_t>> counters;
};

EnvResult run_env(Block& b, const std::function<bool()>& idle, const World& w, const std::vector<Step>& script,
                  const EnvConfig& cfg);

// The first difference between two runs, port by port ("" = none); of the
// read requests only the payload reads (tag 1): which WQE heads are read or
// prefetched follows the timing (requester.sv, "WQE prefetch").
std::string compare_runs(const Block& ports, const EnvResult& rtl, const EnvResult& mdl, size_t* compared);

class Builder {
 public:
  explicit Builder(uint64_t seed) : rng_(seed) {}
  World world;
  std::vector<Step> script;
  std::map<uint16_t, ExpQp> qps;

  // An MR at index with pages at shuffled bus addresses from bus_base; returns its key.
  uint32_t add_mr(unsigned index, uint16_t pd, uint64_t iova, uint64_t length, unsigned page_shift,
                  uint64_t bus_base, bool readable = true, int mtt_base = -1);
  // Create a QP and take it to RTS (qp_cfg RESET, TO_INIT, TO_RTR, TO_RTS).
  // uc: a UC QP (UC opcodes, no AckReq, each WQE tracked once sent)
  void add_qp(uint16_t qpn, unsigned pmtu, unsigned sq_lsz, uint32_t sq_psn, uint16_t pd, bool uc = false);
  // A UD QP to RTS with this Q_Key (its WQEs carry their address: WqeSpec::av).
  void add_ud_qp(uint16_t qpn, unsigned sq_lsz, uint32_t sq_psn, uint16_t pd, uint32_t qkey);
  void cfg_action(uint16_t qpn, spec::QpAction a);  // (kAttr: SQD -> RTS)
  // Write a WQE into the QP's ring (not yet rung). A poisoned slot makes it fail.
  void post(uint16_t qpn, const WqeSpec& w, bool poison_slot = false);
  void ring(uint16_t qpn);  // SQ doorbell with the QP's producer index
  // SQ_BF_DB: the doorbell carrying the last posted WQE's first WQE_HEAD bytes
  void ring_bf(uint16_t qpn);
  void wait(uint64_t cycles) { script.push_back({Step::kWait, 0, {}, cycles}); }
  void wait_idle() { script.push_back({Step::kWaitIdle, 0, {}, 0}); }
  void retire(uint16_t qpn, unsigned count, bool error, unsigned reads = 0);  // reads: READs among them
  // The completer's go-back-N: send again from packet `skip` of WQE idx (first PSN first_psn).
  void rewind(uint16_t qpn, uint16_t idx, uint32_t first_psn, uint32_t skip, unsigned count = 0);
  // SGEs covering `len` bytes of MR `mr` from a random offset, split into `n` pieces.
  std::vector<Sge> sges_in(unsigned mr, uint32_t len, unsigned n, bool odd = true);
  const World::Mr& mr(unsigned index) const;
  // An unbound memory window at index (ALLOC_MW): its rkey with the key byte it starts with.
  uint32_t add_window(unsigned index, uint16_t pd, bool type2);
  // Let windows be bound to MR `index` (REG_MR with IBV_ACCESS_MW_BIND) and give it rights.
  void allow_binds(unsigned index, uint8_t access);
  std::mt19937_64& rng() { return rng_; }

 private:
  struct QpRun {
    uint64_t sq_base = 0;
    unsigned lsz = 0;
    uint16_t pi = 0;
    bool err = false;
    uint16_t pd = 0;
    std::vector<uint8_t> last;  // the bytes of the WQE posted last
  };
  std::map<uint16_t, QpRun> run_;
  unsigned next_mtt_ = 0;
  std::mt19937_64 rng_;
};

// Hold a run's outputs against the scenario: sq_track per QP (index, wr_id,
// length, opcode, signaled; success, failure and flush as meant), the
// packets of each WQE that sent (PSN sequence, opcodes, ack_req/se/RETH/ImmDt
// placement, addressing; a READ: one request for all its PSNs), a successful
// WQE's reassembled payload against its SGE bytes, packets sent again equal to
// their first transmission (a READ from response k > 0: PSN, va and length
// moved on by k packets), the read pieces' bounds. "" when everything holds.
std::string check_expect(const EnvResult& r, const std::map<uint16_t, ExpQp>& qps, std::string* summary = nullptr);

}  // namespace rocenic::reqtest
