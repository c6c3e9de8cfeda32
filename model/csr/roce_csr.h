// Model of rtl/csr/roce_csr.sv: the AXI4-Lite control-and-status registers.
//
// Ports (Block indices; descriptor-style, one flit per handshake):
//   input  0  s_axil_aw  2 bytes: address (little-endian)
//   input  1  s_axil_w   5 bytes: data (little-endian), strobes
//   input  2  s_axil_ar  2 bytes: address
//   output 0  s_axil_b   1 byte: response (0 OKAY, 2 SLVERR)
//   output 1  s_axil_r   5 bytes: data, response
//   input  3  s_cmd_resp packed cmd_resp_t (always taken)
//   output 2  m_cmd      packed cmd_req_t (CMD_OP written)
//   output 3  m_sq_db    packed wq_db_t, output 4 m_rq_db wq_db_t, output 5 m_cq_db cq_db_t
// Like the RTL, a write is taken when AW and W are both valid and no
// response is pending; a read when no read response is pending.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

// The RTL block's parameters (same names and defaults as roce_csr.sv).
struct CsrParams {
  uint32_t data_w = 512, max_qp = 256, max_cq = 256, max_mr = 1024, max_pd = 256, max_qp_wr = 4096, max_sge = 6,
           max_cqe = 65536, max_inline = 96, gid_tbl_len = 16;
};

// Counters of the packet path the block shows (its counter inputs).
struct CsrCounters {
  uint32_t rx_frames = 0, rx_roce = 0, rx_bypass = 0, tx_frames = 0;
  std::array<uint32_t, spec::kDropCount> rx_drop{};
  std::array<uint32_t, spec::kXportCntCount> xport{};
};

class RoceCsr : public Block {
 public:
  explicit RoceCsr(const CsrParams& p = {});
  void set_counters(const CsrCounters& c) { counters_in_ = c; }

  // The configuration outputs.
  bool roce_enable() const { return ctrl_ & 1u; }
  uint64_t port_mac() const { return (uint64_t{mac_hi_} << 32) | mac_lo_; }
  uint32_t port_mtu() const { return mtu_ & 7u; }
  bool link_up() const { return port_ctrl_ & 1u; }
  const Ip128& gid(unsigned i) const { return gid_[i]; }
  uint8_t gid_type(unsigned i) const { return gtype_[i]; }

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override;
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  // No command or doorbell waiting to be taken and no command running.
  bool idle() const override { return !cmd_busy_ && !db_valid_[0] && !db_valid_[1] && !db_valid_[2]; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }

  // The register file itself (also used by tests): false = SLVERR.
  bool read(uint32_t addr, uint32_t* value) const;
  bool write(uint32_t addr, uint32_t data, uint8_t strb);

 private:
  CsrParams p_;
  CsrCounters counters_in_;
  std::vector<PortInfo> in_info_, out_info_;
  uint32_t ctrl_ = 0, mac_lo_ = 0, mac_hi_ = 0, mtu_ = 0, port_ctrl_ = 0;
  // mailbox and doorbells
  std::array<uint32_t, 16> cmd_arg_{};
  std::array<uint32_t, 4> cmd_res_{};
  uint8_t cmd_op_ = 0, cmd_status_ = 0;
  bool cmd_busy_ = false, cmd_valid_ = false;
  uint32_t cq_ci_ = 0;
  spec::WqDb sq_db_, rq_db_;
  spec::CqDb cq_db_;
  bool db_valid_[3] = {false, false, false};  // sq, rq, cq
  bool out_ready_[6] = {};
  bool resp_valid_ = false;
  spec::CmdResp resp_;
  bool write_waits(uint32_t addr) const;
  std::vector<Ip128> gid_;
  std::vector<uint8_t> gtype_;
  bool aw_valid_ = false, w_valid_ = false, ar_valid_ = false, b_ready_ = false, r_ready_ = false;
  uint32_t aw_addr_ = 0, w_data_ = 0, ar_addr_ = 0;
  uint8_t w_strb_ = 0;
  bool bvalid_ = false, rvalid_ = false;
  uint8_t bresp_ = 0, rresp_ = 0;
  uint32_t rdata_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
