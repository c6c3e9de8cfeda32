// The responder's test world (tests/blocks/test_responder.cc).
//
// run(): a Block (RTL adapter or model) connected to host memory through the
// DMA timing model, to an MR table answering its mr_req with a small latency,
// and fed stimulus in steps. A step starts only once the block is idle and
// the previous step's flits were all taken, so what the block sees does not
// depend on its own timing: RTL and model get the same input order on every
// port. Inside a step the flits arrive with random idle cycles, outputs see
// random backpressure.
//
// Peer: plays the remote requester (request packets) and the local driver
// (QP set-up, receive WQEs in the ring, doorbells) and writes down, by
// construction, what the responder must do: memory bytes, ACK/NAKs, CQEs,
// counters. It is an expectation built independently of the model.
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/block.h"
#include "dma/dma_model.h"
#include "gen/roce_spec.h"
#include "xcheck.h"

namespace rocenic::rsp {

struct MrDef {
  uint32_t index = 0;
  spec::MrCtx ctx;               // valid, key byte, pd, access, iova, length, mtt_base, page_shift
  std::vector<uint64_t> pages;   // bus address of each page (MTT entries mtt_base ..)
  uint32_t key() const { return index << 8 | ctx.key; }
  uint64_t page_size() const { return uint64_t{1} << ctx.page_shift; }
  uint64_t pa(uint64_t va) const;  // va inside the region
};

struct World {
  std::vector<MrDef> mrs;
  std::vector<std::pair<uint64_t, uint64_t>> regions;  // memory the DMA may touch (addr, len)
  uint8_t fill = 0xA5;                                  // initial content of every region
};

struct Step {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host;  // driver memory writes at the step's start
  std::vector<Flit> in[4];                                       // qp_cfg, rq_db, rx_hdr, rx_payload
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

enum Out : unsigned { kRdReq = 0, kMrReq, kWrReq, kWrData, kAck, kCq, kOuts };

RunResult run(Block& b, const World& w, const std::vector<Step>& steps, const RunConfig& cfg);

// First difference between two runs (per port, memory, counters); "" if none.
std::string compare(const RunResult& rtl, const RunResult& model);
std::string describe(unsigned port, const Txn& t);

// ---------------------------------------------------------------- the peer
struct TSge {
  uint64_t va = 0;
  uint32_t len = 0, lkey = 0;
};
struct TWqe {
  uint64_t wr_id = 0;
  uint8_t nsge = 0;  // as written (> 6 is an error)
  std::vector<TSge> sges;
};

struct TQp {
  uint32_t qpn = 0;
  uint8_t type = 2, pmtu = 1, access = 0, min_rnr = 0, sl = 0, rq_lsz = 4, l3 = 0;
  uint16_t pd = 1, recv_cq = 0;
  uint32_t dest_qpn = 0;
  uint64_t rq_base = 0;
  uint64_t src_mac = 0, dst_mac = 0;
  Ip128 src_ip{}, dst_ip{};
  uint8_t tclass = 0, ttl = 0;
  uint32_t flow_label = 0;
  // what the responder holds for it
  bool created = false, live = false, err = false;  // live: RTR/RTS (packets accepted)
  uint32_t epsn = 0, msn = 0;
  bool nak = false;
  uint16_t pi = 0, ci = 0;
  std::map<uint16_t, TWqe> wqes;
  uint32_t mtu() const { return 128u << pmtu; }
};

class Peer {
 public:
  explicit Peer(uint64_t seed);

  World world;
  std::vector<Step> steps;
  std::map<uint64_t, uint8_t> mem;  // expected bytes by bus address (others: World::fill)
  std::vector<spec::RoceTxHdr> acks;
  std::vector<spec::CqCompl> cqes;
  std::map<std::string, uint32_t> counts;
  std::vector<TQp> qps;  // index = qpn (0 unused)

  // MRs of the standard world
  enum Mr : unsigned { kRw = 0, kRo, kPd2, kBig };
  const MrDef& mr(unsigned m) const { return world.mrs[m]; }

  // driver
  void setup(TQp& q, bool to_rtr = true);  // RESET, INIT, RTR (RTS), as roce_cmd sends them
  void reset_qp(TQp& q);
  void to_err(TQp& q);
  void post(TQp& q, const std::vector<TWqe>& ws);
  TWqe good_wqe(const TQp& q, unsigned nsge, uint32_t min_total = 0);
  // requests (each appends one message's packets and what must follow from them)
  void send(TQp& q, uint32_t len, bool imm, bool se);
  void write(TQp& q, unsigned m, uint64_t va, uint32_t len, bool imm, uint32_t rkey_override = 0);
  // only the FIRST packet of a WRITE of rlen (> mtu) bytes: the message stays in progress
  void write_first(TQp& q, unsigned m, uint64_t va, uint32_t rlen);
  void duplicate(TQp& q);
  void ahead(TQp& q);
  void bad_opcode(TQp& q, uint8_t op, uint32_t pay_len);  // sequence or length error (INV_REQ)
  void stray(uint32_t qpn, uint8_t op);                     // no QP / not RTR (dropped, counted)

  uint64_t rand(uint64_t n) { return n ? rng_() % n : 0; }
  uint64_t va_in(unsigned m, uint32_t len);  // a random [va, va+len) inside MR m

 private:
  void cfg(TQp& q, spec::QpAction a, uint8_t state);
  void db(TQp& q, std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host);
  void pkt(const TQp& q, uint8_t op, uint32_t psn, const std::vector<uint8_t>& pay, bool ack_req, bool se,
           uint64_t va = 0, uint32_t rkey = 0, uint32_t rlen = 0, uint32_t imm = 0);
  Step& step_for(unsigned port);
  void ack(const TQp& q, uint8_t syn, uint32_t psn);
  void cqe(const TQp& q, uint8_t status, uint8_t opcode, uint64_t wr_id, uint32_t byte_len, uint16_t ctr,
           uint32_t imm = 0, bool with_imm = false, bool se = false);
  void fail(TQp& q, uint8_t syn, bool with_cqe, uint8_t status, uint8_t opcode);
  void flush(TQp& q);
  void place(uint32_t key, uint64_t va, const std::vector<uint8_t>& bytes, size_t off, size_t n);
  bool sge_ok(const TQp& q, const TSge& s) const;
  const MrDef* by_key(uint32_t key) const;
  std::vector<uint8_t> bytes(size_t n);

  std::mt19937_64 rng_;
};

}  // namespace rocenic::rsp
