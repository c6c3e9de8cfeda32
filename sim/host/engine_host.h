// A minimal host-side driver for engine-level tests and benchmarks: it
// programs a Device through the command mailbox and doorbells exactly as
// the verbs provider does, but exposes every knob (raw rkeys, PSNs, bad
// arguments) that tests need. Queues and buffers live in this process's
// memory (IOVA = VA) and are allowed for DMA as the provider would.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/bits.h"
#include "device.h"
#include "gen/roce_spec.h"

namespace rocenic::host {

// Memory aligned to a page, zeroed, freed with the owner.
class Buffer {
 public:
  explicit Buffer(size_t bytes, size_t align = 4096);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  uint8_t* data() const { return p_; }
  uint64_t addr() const { return reinterpret_cast<uint64_t>(p_); }
  size_t size() const { return n_; }

 private:
  uint8_t* p_;
  size_t n_;
};

struct CmdResult {
  spec::CmdStatus status = spec::CmdStatus::kOk;
  uint32_t res[4] = {0, 0, 0, 0};
  bool ok() const { return status == spec::CmdStatus::kOk; }
};

struct Cq {
  uint32_t cqn = 0;
  unsigned log_size = 0;
  std::unique_ptr<Buffer> ring;
  uint32_t ci = 0;  // CQEs consumed
};

struct Qp {
  uint32_t qpn = 0;
  spec::QpType type = spec::QpType::kRc;
  unsigned sq_lsz = 0, rq_lsz = 0;
  std::unique_ptr<Buffer> sq, rq;
  uint32_t sq_pi = 0, rq_pi = 0;
};

struct Mr {
  uint32_t key = 0;
  uint64_t addr = 0, len = 0;
};

// Where a QP sends: the peer's QPN and addresses.
struct Path {
  uint32_t dest_qpn = 0;
  uint64_t dmac = 0;           // 48 bits, byte 0 on the wire most significant
  Ip128 dgid{};                // IPv4-mapped for RoCEv2/IPv4
  unsigned sgid_index = 3;     // the first IPv4 address, RoCE v2
  unsigned mtu = 3;            // IBV_MTU_*
  uint8_t sl = 0, traffic_class = 0, hop_limit = 64;
  uint32_t sq_psn = 0, rq_psn = 0;
  uint8_t access = 0x7;        // remote write | remote read | local write
  // reliability, as ibv_rc_pingpong sets them
  uint8_t timeout = 14;        // local ACK timeout 4.096 us * 2^timeout
  uint8_t retry_cnt = 7, rnr_retry = 7;
  uint8_t min_rnr_timer = 12;  // the RNR NAK timer code this QP sends
  // RDMA READs outstanding as requester / answered as responder (perftest asks the device maximum)
  uint8_t max_rd_atomic = 16, max_dest_rd_atomic = 16;
};

Ip128 ipv4_gid(uint32_t ipv4);
Ip128 link_local_gid(uint64_t mac);  // fe80::EUI-64 of the MAC (GID 0 and 1)

class EngineHost {
 public:
  explicit EngineHost(Device& dev) : dev_(dev) {}
  Device& dev() { return dev_; }

  // Port set-up as the launcher does it: MAC, MTU, GID table (0/1 link-local
  // v1/v2, 2/3 the IPv4 address v1/v2), link up.
  void configure_port(uint64_t mac, uint32_t ipv4, unsigned mtu = 3);

  CmdResult command(spec::CmdOp op, const uint8_t args[64]);
  CmdResult command(spec::CmdOp op, uint32_t arg0 = 0);

  uint32_t alloc_pd();
  std::unique_ptr<Cq> create_cq(unsigned log_size);
  // Registers [addr, addr+len) with 4 KiB pages; throws on failure.
  Mr reg_mr(uint32_t pd, const void* addr, uint64_t len, uint8_t access);
  CmdResult try_reg_mr(uint32_t pd, const void* addr, uint64_t len, uint8_t access, Mr* out);
  std::unique_ptr<Qp> create_qp(uint32_t pd, const Cq& scq, const Cq& rcq, unsigned sq_lsz = 6, unsigned rq_lsz = 6,
                                spec::QpType type = spec::QpType::kRc);
  CmdResult modify_qp(const spec::CmdModifyQp& m);
  // RESET -> INIT -> RTR -> RTS with the masks ibv_rc_pingpong uses.
  void connect(const Qp& qp, const Path& p);
  // A UD QP: RESET -> INIT (Q_Key) -> RTR -> RTS (SQ PSN), as ibv_ud_pingpong.
  void connect_ud(const Qp& qp, uint32_t qkey, uint32_t sq_psn = 0);

  // Work requests: written into the ring, then the doorbell. bf: the send
  // WQE also goes through the SQ_BF window with an SQ_BF_DB (the low-latency
  // post path: the engine need not fetch it).
  void post_send(Qp& qp, const spec::SendWqe& wqe, const std::vector<spec::Sge>& sges,
                 const std::vector<uint8_t>& inline_data = {}, bool bf = false);
  void post_recv(Qp& qp, uint64_t wr_id, const std::vector<spec::Sge>& sges);
  // CQEs the engine has written since the last poll (the CQ doorbell reports the consumer index).
  std::vector<spec::Cqe> poll(Cq& cq, unsigned max = 1u << 30);

  uint32_t counter(spec::XportCnt c);
  uint32_t csr(uint32_t addr);

 private:
  Device& dev_;
  uint32_t next_mtt_ = 0;
};

}  // namespace rocenic::host
