// The responder's test world (tests/blocks/test_responder.cc).
//
// run(): a Block (RTL adapter or model) connected to host memory through the
// DMA timing model, to an MR table answering its mr_req with a small latency,
// and fed stimulus in steps. A step starts only once the previous step's
// flits were all taken and (unless it is marked `behind`) the block is idle,
// so what the block sees does not depend on its own timing: RTL and model
// get the same input order on every port. Inside a step the flits arrive with random idle cycles, outputs see
// random backpressure.
//
// Peer: plays the remote requester (request packets) and the local driver
// (QP set-up, receive WQEs in the ring, doorbells). For every action it logs
// what the scenario *meant* (an Intent: this message is good; this one is
// refused at its second packet with a remote access NAK, because the
// scenario broke its rkey), never the responder's reaction worked out by a
// second copy of its rules. check_intents() (responder_facts.cc) holds a run
// to those intents and to what IBTA makes observable: ACK/NAKs on the wire,
// receive completions in posted order, payload where it belongs and nothing
// else touched, counters that agree with the wire.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/block.h"
#include "dma/dma_model.h"
#include "gen/roce_spec.h"
#include "blocks/mr_world.h"
#include "xcheck.h"

namespace rocenic::rsp {

using blk::MrDef;

struct World {
  std::vector<MrDef> mrs;
  std::vector<std::pair<uint64_t, uint64_t>> regions;  // memory the DMA may touch (addr, len)
  uint8_t fill = 0xA5;                                  // initial content of every region
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> init;  // then these bytes (what READs find)
};

struct Step {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host;  // driver memory writes at the step's start
  std::vector<Flit> in[4];                                       // qp_cfg, rq_db, rx_hdr, rx_payload
  // starts once the previous step's flits were all taken, without waiting for
  // the block to go idle (the input order stays fixed: those flits were taken)
  bool behind = false;
};

struct RunConfig {
  uint64_t seed = 1;
  double in_idle = 0.3, out_stall = 0.3;
  DmaTiming dma{250.0, 160.0, 60.0, 32.0, 64};  // shorter than PCIe: tests stay fast
  unsigned mr_lat_min = 2, mr_lat_max = 6;
  uint64_t max_cycles = 50'000'000;
};

struct RunResult {
  std::vector<std::vector<Txn>> out;                        // per output port
  std::vector<std::pair<std::string, uint32_t>> counters;
  std::vector<std::vector<uint8_t>> memory;                 // World::regions at the end
  uint64_t cycles = 0;
  std::string error;                                        // timeout, handshake rule, refused DMA
  DmaStats dma;
};

enum Out : unsigned { kRdReq = 0, kMrReq, kWrReq, kWrData, kAck, kCq, kReadReq, kTxPay, kReadMrReq, kOuts };
constexpr unsigned kIns = 8;  // qp_cfg, rq_db, rx_hdr, rx_payload, dma_rd_data, mr_resp, read_dma, read_mr_resp

RunResult run(Block& b, const World& w, const std::vector<Step>& steps, const RunConfig& cfg);

// First difference between two runs (per port, memory, counters); "" if none.
std::string compare(const RunResult& rtl, const RunResult& model);
std::string describe(unsigned port, const Txn& t);

// ---------------------------------------------------------------- the peer
struct TSge {
  uint64_t va = 0;
  uint32_t len = 0, lkey = 0;
  bool broken = false;  // the scenario broke it (key, bounds, PD): payload that reaches it must be refused
};
struct TWqe {
  uint64_t wr_id = 0;
  uint8_t nsge = 0;  // as written (> 6 makes the WQE unusable)
  std::vector<TSge> sges;
  uint64_t total() const;
};

struct TQp {
  uint32_t qpn = 0;
  uint8_t type = 2, pmtu = 1, access = 0, min_rnr = 0, sl = 0, rq_lsz = 4, l3 = 0;
  uint8_t max_dest_rd_atomic = 16;  // 0: READ requests are NAKed invalid request
  uint16_t pd = 1, recv_cq = 0;
  uint32_t dest_qpn = 0;
  uint64_t rq_base = 0;
  uint64_t src_mac = 0, dst_mac = 0;
  Ip128 src_ip{}, dst_ip{};
  uint8_t tclass = 0, ttl = 0;
  bool vlan_valid = false;
  uint16_t vlan_vid = 0;
  uint32_t flow_label = 0;
  bool ring_refused = false;  // the host refuses reads of its receive ring (poisoned data)
  // the peer's own view, as the remote requester and the local driver, from what it meant
  bool created = false, live = false, dead = false;  // live: RTR/RTS RC; dead: ERR (a meant failure, TO_ERR)
  uint32_t next_psn = 0;
  uint16_t pi = 0;
  std::deque<TWqe> rq;  // posted receive WQEs no message has consumed yet
  uint32_t mtu() const { return 128u << pmtu; }
};

// One thing the scenario did, and what it meant by it (see the file comment).
struct Intent {
  enum Kind : uint8_t { kSetup, kToErr, kPost, kMessage, kDuplicate, kAhead, kStray };
  struct Packet {
    uint32_t psn = 0;
    bool ack_req = false;
    std::vector<std::pair<uint64_t, std::vector<uint8_t>>> lands;  // where its payload belongs (bus address)
  };
  Kind kind = kSetup;
  uint32_t qpn = 0;
  std::vector<Packet> pkts;      // kMessage (kDuplicate, kAhead: its one packet)
  int fail_at = -1;              // kMessage: the packet refused with `nak` (-1: every packet is accepted)
  uint8_t nak = 0;
  bool fatal = false;            // the refusal puts the QP in ERR (every NAK but RNR)
  bool completes = false;        // the message ends with its last packet (LAST/ONLY)
  bool consumes = false;         // it takes the next receive WQE
  uint8_t err_status = 0;        // consumes + fatal: the receive completion's status
  spec::CqCompl cqe;             // consumes, accepted: opcode, byte_len, imm, wc_flags, solicited
  std::vector<uint64_t> wr_ids;  // kPost, in ring order
  uint32_t reply_psn = 0;        // kDuplicate: its ACK's PSN (the last one accepted); kAhead: its NAK's PSN
  bool not_ready = false;        // kStray: the QPN names an RC QP that is not in RTR/RTS (else: no such QP)
  // An RDMA READ (kMessage: a new one; kDuplicate: one executed again, unless `dropped`): its
  // responses carry [rva, rva + rlen) of MR `rmr` as memory holds it when the READ comes.
  bool read = false, dropped = false;
  unsigned rmr = 0;
  uint64_t rva = 0;
  uint32_t rlen = 0;
};

// How a WRITE is meant to go.
enum class Meant { kGood, kRefused };

class Peer {
 public:
  explicit Peer(uint64_t seed);

  World world;
  std::vector<Step> steps;
  std::vector<Intent> log;
  std::vector<TQp> qps;  // index = qpn (0 unused)

  // MRs of the standard world
  enum Mr : unsigned { kRw = 0, kRo, kPd2, kBig, kRd };
  const MrDef& mr(unsigned m) const { return world.mrs[m]; }

  // driver
  void setup(TQp& q, bool to_rtr = true);  // RESET, INIT, RTR (RTS), as roce_cmd sends them
  void reset_qp(TQp& q) { setup(q, true); }
  void to_err(TQp& q);
  void post(TQp& q, const std::vector<TWqe>& ws);
  TWqe good_wqe(unsigned nsge, uint32_t min_total = 0);
  // the next action starts a step of its own (behind: see Step::behind, so a
  // packet meets what the doorbell before it started still under way)
  void new_step(bool behind = false) {
    steps.emplace_back();
    steps.back().behind = behind;
  }
  // requests: each sends one message's packets and logs what it means
  void send(TQp& q, uint32_t len, bool imm, bool se);
  void write(TQp& q, unsigned m, uint64_t va, uint32_t len, bool imm, Meant meant = Meant::kGood,
             uint32_t rkey_override = 0);
  // an RDMA READ of [va, va + len) in MR m (kRefused: the scenario broke its rkey or bounds)
  void read(TQp& q, unsigned m, uint64_t va, uint32_t len, Meant meant = Meant::kGood, uint32_t rkey_override = 0);
  void read_too_long(TQp& q);  // a READ longer than 2^31 bytes: an invalid request
  // a CMP_SWAP / FETCH_ADD packet at `psn` (the next one when -1; only then
  // does next_psn move). Not logged: tests of atomics check their answers
  // themselves (the intents above know no atomics).
  // pay_len: a (malformed) payload of that many bytes rides along.
  void atomic(TQp& q, uint64_t va, uint32_t rkey, bool cas, uint64_t swap_add, uint64_t compare, int64_t psn = -1,
              uint32_t pay_len = 0);
  // only the FIRST packet of a WRITE of rlen (> mtu) bytes: the message stays in progress
  void write_first(TQp& q, unsigned m, uint64_t va, uint32_t rlen);
  void duplicate(TQp& q);
  void ahead(TQp& q);
  void bad_opcode(TQp& q, uint8_t op, uint32_t pay_len);  // a sequence or length error: invalid request
  void stray(uint32_t qpn, uint8_t op);                     // no QP / not ready: dropped

  uint64_t rand(uint64_t n) { return n ? rng_() % n : 0; }
  uint64_t va_in(unsigned m, uint32_t len);  // a random [va, va+len) inside MR m

 private:
  void cfg(TQp& q, spec::QpAction a, uint8_t state);
  void db(TQp& q, std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host);
  void pkt(const TQp& q, uint8_t op, uint32_t psn, const std::vector<uint8_t>& pay, bool ack_req, bool se,
           uint64_t va = 0, uint32_t rkey = 0, uint32_t rlen = 0, uint32_t imm = 0);
  Step& step_for(unsigned port);
  Intent message(const TQp& q) const;
  void refuse(TQp& q, Intent& m, uint8_t nak, bool consumes, uint8_t status);
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> lands(uint32_t key, uint64_t va, const std::vector<uint8_t>& b,
                                                               size_t off, size_t n) const;
  const MrDef* by_key(uint32_t key) const;
  std::vector<uint8_t> bytes(size_t n);

  std::mt19937_64 rng_;
};

// A run against the peer's intents and the wire's facts; "" if it holds.
std::string check_intents(const Peer& p, const RunResult& r);

}  // namespace rocenic::rsp
