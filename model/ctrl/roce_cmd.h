// Model of rtl/ctrl/roce_cmd.sv: the command processor behind the CSR
// mailbox (docs/engine.md "Command mailbox"). It owns the bookkeeping of
// protection domains, completion queues, memory regions and queue pairs, and
// tells the blocks that hold the real state what changed.
//
// Ports (Block indices; descriptor flits = packed struct bytes, little-endian):
//   input  0  cmd      packed cmd_req_t (op + 16 CMD_ARG words)
//   output 0  resp     packed cmd_resp_t, one per command, after its table writes
//   output 1  qp_cfg   packed qp_cfg_t
//   output 2  cq_cfg   packed cq_cfg_t
//   output 3  mr_wr    2 bytes index (LE) + packed mr_ctx_t   (mr_table input 0)
//   output 4  mtt_wr   2 bytes index (LE) + 8 bytes address   (mr_table input 1)
// Static inputs (not ports): the port MAC and the GID table.
//
// One command at a time: the model decides it the cycle it is taken and then
// offers its outputs one after another, in the RTL's order (table writes,
// then the response).
#pragma once

#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

struct RoceCmdParams {
  unsigned max_qp = 256, max_cq = 256, max_mr = 1024, max_pd = 256;
  unsigned max_qp_wr = 4096, max_cqe = 65536, mtt_depth = 4096, gid_tbl_len = 16;
};

class RoceCmd : public Block {
 public:
  explicit RoceCmd(const RoceCmdParams& p = RoceCmdParams{});

  // The port MAC as a 48-bit number whose most significant byte goes first on the wire.
  void set_port_mac(uint64_t mac) { mac_ = mac & 0xFFFFFFFFFFFFull; }
  // GID table entry i: type 0 unused, 1 RoCE v1, 2 RoCE v2.
  void set_gid(unsigned i, const Ip128& gid, uint8_t type);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned) override { return seq_.empty(); }
  bool output_valid(unsigned port) override { return !seq_.empty() && seq_.front().first == port; }
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {}; }
  bool idle() const override { return seq_.empty() && !in_valid_; }

 private:
  struct Gid {
    Ip128 gid{};
    uint8_t type = 0;
  };
  struct Qp {
    bool valid = false;
    spec::QpCfg ctx;  // qpn and action are filled in when sent
  };
  struct Mr {
    bool valid = false;
    uint8_t key = 0;  // key byte of the last registration (0: never registered)
    uint16_t pd = 0;
  };

  spec::CmdStatus execute(const spec::CmdReq& c, spec::CmdResp& r);
  spec::CmdStatus alloc_pd(spec::CmdResp& r);
  spec::CmdStatus dealloc_pd(uint32_t pd);
  spec::CmdStatus create_cq(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus destroy_cq(uint32_t cq);
  spec::CmdStatus reg_mr(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus dereg_mr(uint32_t key);
  spec::CmdStatus write_mtt(const uint8_t* a);
  spec::CmdStatus create_qp(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus modify_qp(const uint8_t* a);
  spec::CmdStatus query_qp(uint32_t qpn, spec::CmdResp& r);
  spec::CmdStatus destroy_qp(uint32_t qpn);
  void send_qp_cfg(unsigned qpn, uint8_t action);

  RoceCmdParams p_;
  uint64_t mac_ = 0;
  std::vector<Gid> gid_;
  std::vector<bool> pd_used_, cq_used_;
  std::vector<uint32_t> pd_refs_, cq_refs_;
  std::vector<Mr> mr_;
  std::vector<Qp> qp_;
  std::vector<PortInfo> in_info_, out_info_;
  bool in_valid_ = false;
  Flit in_;
  bool ready_[5] = {false, false, false, false, false};
  std::deque<std::pair<unsigned, Flit>> seq_;  // outputs still to offer, in order
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
