// The AXI4-Lite control-and-status registers (rtl/csr/roce_csr.sv, map in
// spec/csr.toml) in the event-driven model: the register file, the command
// mailbox toward roce_cmd (cmd out, cmd_resp in) and the SQ/RQ/CQ doorbells
// (the send doorbell with the WQE of an SQ_BF_DB: common/sq_doorbell.h).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "common/block.h"
#include "common/sq_doorbell.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

// The RTL block's parameters (same names and defaults as roce_csr.sv).
struct CsrParams {
  uint32_t data_w = 512, max_qp = 256, max_cq = 256, max_mr = 1024, max_pd = 256, max_qp_wr = 4096, max_sge = spec::kMaxSge,
           max_cqe = 65536, max_inline = 96, gid_tbl_len = 16;
};

// Counters of the packet path the block shows (its counter inputs).
struct CsrCounters {
  uint32_t rx_frames = 0, rx_roce = 0, rx_bypass = 0, tx_frames = 0;
  std::array<uint32_t, spec::kDropCount> rx_drop{};
  std::array<uint32_t, spec::kXportCntCount> xport{};
};

// One AXI4-Lite beat each: the write data with its strobes, a read answer.
struct AxilW {
  uint32_t data = 0;
  uint8_t strb = 0xF;
};
struct AxilR {
  uint32_t data = 0;
  uint8_t resp = 0;  // 0 OKAY, 2 SLVERR
};

class RoceCsr : public Process {
 public:
  static constexpr uint8_t kOkay = 0, kSlverr = 2;

  RoceCsr(Scheduler& s, const CsrParams& p = {});

  // AXI4-Lite: a write is taken when its address and data have both
  // arrived and its response can be given; a read when its answer can.
  // Both answer one cycle later. A write to a doorbell waits while that
  // doorbell's last value has not been taken.
  In<uint32_t> aw, ar;
  In<AxilW> w;
  In<spec::CmdResp> cmd_resp;
  Out<uint8_t> b{this};
  Out<AxilR> r{this};
  Out<spec::CmdReq> cmd{this};
  Out<SqDoorbell> sq_db{this};
  Out<spec::WqDb> rq_db{this};
  Out<spec::CqDb> cq_db{this};

  // Where the counter registers read from: the blocks that own them (the
  // engine), or fixed values (tests).
  void set_counters(const CsrCounters& c) { counters_in_ = c; }
  void counters_from(std::function<CsrCounters()> f) { counter_source_ = std::move(f); }
  // Called after every accepted register write (the engine follows the
  // registers that are wires in the RTL: port MAC, GID table, RoCE enable).
  std::function<void()> on_write;

  // The configuration outputs (wires in the RTL).
  bool roce_enable() const { return ctrl_ & 1u; }
  uint64_t port_mac() const { return (uint64_t{mac_hi_} << 32) | mac_lo_; }
  uint32_t port_mtu() const { return mtu_ & 7u; }
  unsigned ack_req_log2() const { return ack_req_ & 15u; }
  bool link_up() const { return port_ctrl_ & 1u; }
  const Ip128& gid(unsigned i) const { return gid_[i]; }
  uint8_t gid_type(unsigned i) const { return gtype_[i]; }
  uint16_t gid_vlan(unsigned i) const { return gvlan_[i]; }  // bit 12 tagged, 11:0 VID
  // TX_TCLASS / TX_TTL: bit 8 enable, 7:0 the value every RoCE frame carries
  uint16_t tx_tclass() const { return tx_tclass_; }
  uint16_t tx_ttl() const { return tx_ttl_; }
  bool command_busy() const { return cmd_busy_; }

  // The register file itself (also used by tests): false = SLVERR.
  bool read(uint32_t addr, uint32_t* value) const;
  bool write(uint32_t addr, uint32_t data, uint8_t strb);

  void run() override;

 private:
  bool write_waits(uint32_t addr);

  Scheduler& s_;
  CsrParams p_;
  CsrCounters counters_in_;
  std::function<CsrCounters()> counter_source_;
  uint32_t ctrl_ = 0, mac_lo_ = 0, mac_hi_ = 0, mtu_ = 0, port_ctrl_ = 0, ack_req_ = 0;
  std::vector<Ip128> gid_;
  std::vector<uint8_t> gtype_;
  std::vector<uint16_t> gvlan_;
  uint32_t tx_tclass_ = 0, tx_ttl_ = 0;
  // mailbox and doorbells
  std::array<uint32_t, 16> cmd_arg_{};
  std::array<uint32_t, 4> cmd_res_{};
  uint8_t cmd_op_ = 0, cmd_status_ = 0;
  bool cmd_busy_ = false;
  uint32_t cq_ci_ = 0;
  std::array<uint32_t, spec::kWqeHead / 4> sq_bf_{};  // the SQ_BF window
  bool sq_bf_pending_ = false;  // the last send doorbell was an SQ_BF_DB (its words wait while it is pending)
  Cycle next_ = 0;  // one read and one write a cycle
};

// The CSR block as a cycle-level Block (in 0 s_axil_aw = 2-byte address, 1
// s_axil_w = 4 data bytes + strobes, 2 s_axil_ar, 3 s_cmd_resp; out 0
// s_axil_b = 1 byte, 1 s_axil_r = 4 data bytes + resp, 2 m_cmd, 3 m_sq_db,
// 4 m_rq_db, 5 m_cq_db), for the cross-check against the RTL.
std::unique_ptr<rocenic::Block> make_roce_csr_block(const CsrCounters& counters = {}, const CsrParams& p = {});
const std::vector<PortInfo>& roce_csr_inputs();
const std::vector<PortInfo>& roce_csr_outputs();

}  // namespace rocenic::model
