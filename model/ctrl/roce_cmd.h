// Model of rtl/ctrl/roce_cmd.sv: the command processor behind the CSR
// mailbox (docs/engine.md "Command mailbox"). It owns the bookkeeping of
// protection domains, completion queues, memory regions and queue pairs, and
// tells the blocks that hold the real state what changed.
//
// Inputs: cmd (cmd_req_t: op + 16 CMD_ARG words), qp_err. Outputs: resp
// (cmd_resp_t), qp_cfg (qp_cfg_t, to requester, responder and completer at
// once), cq_cfg (cq_cfg_t), mr_wr / mtt_wr (table writes, model/mem/mr_table.h).
// Static inputs (wires from roce_csr): the port MAC and the GID table.
//
// One command at a time: it is decided the cycle it arrives; its outputs
// then leave one a cycle, in the RTL's order (table writes, then the
// response), each waiting for its consumer's credit.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <variant>
#include <utility>
#include <vector>

#include "common/block.h"
#include "ctrl/gid_entry.h"
#include "gen/roce_spec.h"
#include "mem/mr_table.h"
#include "sched/port.h"

namespace rocenic::model {

struct RoceCmdParams {
  unsigned max_qp = 256, max_cq = 256, max_mr = 1024, max_pd = 256;
  unsigned max_qp_wr = 4096, max_cqe = 65536, mtt_depth = 4096, gid_tbl_len = 16;
};

class RoceCmd : public Process {
 public:
  RoceCmd(Scheduler& s, const RoceCmdParams& p = RoceCmdParams{});

  // The port MAC as a 48-bit number whose most significant byte goes first on the wire.
  void set_port_mac(uint64_t mac) { mac_ = mac & 0xFFFFFFFFFFFFull; }
  // GID table entry i: type 0 unused, 1 RoCE v1, 2 RoCE v2.
  // vlan: CSR GID word 5 (bit 12 tagged, 11:0 VID)
  void set_gid(unsigned i, const Ip128& gid, uint8_t type, uint16_t vlan = 0);

  In<spec::CmdReq> cmd;
  // Transport failures (the engine's top sees them: a fatal NAK sent, an
  // error completion): an internal MODIFY_QP to ERR, taken before a
  // mailbox command, never answered.
  In<spec::QpErr> qp_err;
  // The engine's taps (as rtl/ctrl/qp_err_tap.sv): a report never waits; it
  // marks the QP pending (twice is once), and pending QPs are taken one at a
  // time, before mailbox commands, as qp_err's are.
  void report_failure(unsigned qpn);
  Out<spec::CmdResp> resp{this};
  OutAll<spec::QpCfg> qp_cfg{this};
  Out<spec::CqCfg> cq_cfg{this};
  Out<MrWrite> mr_wr{this};
  Out<MttWrite> mtt_wr{this};

  bool busy() const { return !pending_.empty() || err_count_ != 0; }
  void run() override;

 private:
  using Gid = GidEntry;
  struct Qp {
    bool valid = false;
    spec::QpCfg ctx;  // qpn and action are filled in when sent
  };
  struct Mr {
    bool valid = false;
    uint8_t key = 0;  // key byte of the last registration (0: never registered)
    uint16_t pd = 0;
    bool mw = false;  // a memory window (ALLOC_MW), not a region
  };

  spec::CmdStatus execute(const spec::CmdReq& c, spec::CmdResp& r);
  spec::CmdStatus alloc_pd(spec::CmdResp& r);
  spec::CmdStatus dealloc_pd(uint32_t pd);
  spec::CmdStatus create_cq(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus destroy_cq(uint32_t cq);
  spec::CmdStatus reg_mr(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus dereg_mr(uint32_t key);
  spec::CmdStatus alloc_mw(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus dealloc_mw(uint32_t key);
  size_t claim_mr_index(uint16_t pd, bool mw);
  spec::CmdStatus write_mtt(const uint8_t* a);
  spec::CmdStatus create_qp(const uint8_t* a, spec::CmdResp& r);
  spec::CmdStatus modify_qp(const uint8_t* a);
  spec::CmdStatus query_qp(uint32_t qpn, spec::CmdResp& r);
  spec::CmdStatus destroy_qp(uint32_t qpn);
  void qp_failed(uint32_t qpn);
  void send_qp_cfg(unsigned qpn, uint8_t action);

  using Output = std::variant<spec::CmdResp, spec::QpCfg, spec::CqCfg, MrWrite, MttWrite>;
  bool emit(const Output& o, Cycle t);  // false: its channel has no credit

  Scheduler& s_;
  RoceCmdParams p_;
  uint64_t mac_ = 0;
  std::vector<Gid> gid_;
  std::vector<bool> pd_used_, cq_used_;
  std::vector<uint32_t> pd_refs_, cq_refs_;
  std::vector<Mr> mr_;
  std::vector<Qp> qp_;
  std::deque<Output> pending_;  // outputs of the command in progress, in order
  std::vector<bool> err_pending_;  // QPs reported failed, not yet put in ERR
  unsigned err_count_ = 0, err_scan_ = 0;
  Cycle next_ = 0;              // one output a cycle
};

// The command processor as a cycle-level Block (in 0 cmd, 1 qp_err; out 0 resp, 1
// qp_cfg, 2 cq_cfg, 3 mr_wr = 2-byte LE index + mr_ctx_t, 4 mtt_wr = 2-byte
// LE index + 8-byte LE address), for the cross-check against the RTL. The
// adapter's block gets the port MAC and GIDs through RoceCmd's setters.
std::unique_ptr<rocenic::Block> make_roce_cmd_block(const RoceCmdParams& p = RoceCmdParams{});

}  // namespace rocenic::model
