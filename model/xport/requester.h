// Model of rtl/xport/requester.sv, cycle for cycle: RC send queues -> request
// packets (docs/engine.md, "Requester"). Sub-blocks as in the RTL: ReqQpCtx
// (per-QP state, scheduler), ReqIssue (payload reads), StreamGather (packing),
// and models of the three fifo_fwft instances.
//
// Ports (Block indices):
//   input  0  qp_cfg       packed qp_cfg_t
//   input  1  sq_db        packed wq_db_t
//   input  2  sq_retire    packed sq_retire_t
//   input  3  dma_rd       stream: read data of this block's dma_rd_req, in order (user = poisoned)
//   input  4  mr_resp      packed mr_resp_t (answers to this block's mr_req, in order)
//   output 0  dma_rd_req   packed dma_rd_req_t
//   output 1  mr_req       packed mr_req_t
//   output 2  tx_hdr       packed roce_tx_hdr_t
//   output 3  tx_payload   stream: pay_len bytes from lane 0 per header with pay_len > 0
//   output 4  sq_track     packed sq_track_t
#pragma once

#include <array>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "xport/req_fifo.h"
#include "xport/req_issue.h"
#include "xport/req_qp_ctx.h"
#include "xport/stream_gather.h"

namespace rocenic::model {

class Requester : public Block {
 public:
  explicit Requester(unsigned data_bytes = 64, unsigned max_qp = 256, unsigned raw_depth = 256,
                     unsigned piece_depth = 64, unsigned pkt_depth = 64);

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
  std::vector<std::pair<std::string, uint32_t>> counters() override { return {{"tx_pkts", cnt_}}; }
  bool idle();
  // The engine's view (Block::idle): the same question, asked between cycles.
  bool idle() const override { return const_cast<Requester*>(this)->idle(); }

 private:
  enum St : uint8_t { kIdle, kFetch, kWqe, kDecode, kCheck, kRun, kTrack, kWb };

  // The WQE's fields and what follows from them and the QP's attributes.
  struct Wqe {
    uint64_t wr_id = 0, raddr = 0;
    uint8_t op = 0, flags = 0, nsge = 0;
    uint32_t imm = 0, rkey = 0, len = 0;
    bool inl = false, op_ok = false, op_send = false, op_imm = false, need_pkts = false;
    unsigned mtu_lg = 8;
    uint32_t mtu = 256, npk = 1, last_len = 0;
    uint8_t status = 0;  // what DECODE decides
  };
  // Every combinational signal of a cycle.
  struct Comb {
    ReqQpCtx::Engine eng;
    ReqQpCtx::Comb ctx;
    IssueMsg msg;
    ReqIssue::Comb iss;
    bool go_run = false, iss_start = false;
    bool rd_valid = false, mr_valid = false, mr_resp_ready = false, dma_ready = false;
    spec::DmaRdReq rd;
    spec::MrReq mr;
    bool raw_push = false;
    bool src_valid = false, src_take = false, src_end = false, src_last = false, src_zero = false;
    unsigned src_n = 0;
    const uint8_t* src_data = nullptr;
    bool raw_pop = false, pc_pop = false, pk_pop = false;
    bool hdr_load = false;
    uint32_t hdr_pay = 0;
    bool pay_done = false, hdr_taken = false;
    Wqe w;
    bool iss_err = false, raw_user = false;
    unsigned pk_head = 0;
    unsigned pick_ci = 0, pick_psn = 0;
  };

  const Comb& comb();
  Wqe decode() const;
  IssueMsg issue_msg() const;
  spec::RoceTxHdr build_hdr(uint32_t pay) const;
  spec::SqTrack track() const;
  void clock_engine(const Comb& c);

  unsigned w_, n_qp_, raw_depth_, pc_depth_, pk_depth_;
  std::vector<PortInfo> in_info_, out_info_;
  bool in_valid_[5] = {};
  Flit in_[5];
  spec::QpCfg in_cfg_;
  spec::WqDb in_db_;
  spec::SqRetire in_ret_;
  spec::MrResp in_resp_;
  bool ready_[5] = {};
  bool dirty_ = true;
  Comb comb_;
  std::vector<uint8_t> zeros_, inl_;

  ReqQpCtx ctx_;
  ReqIssue iss_;
  StreamGather gat_;
  FifoFwftModel<std::pair<std::vector<uint8_t>, bool>> raw_;  // read data beat, poisoned
  FifoFwftModel<Piece> pc_;
  FifoFwftModel<unsigned> pk_;
  unsigned pc_cnt_ = 0, pk_cnt_ = 0;

  // engine registers
  St st_ = kIdle;
  unsigned act_ = 0;
  uint16_t act_ci_ = 0;
  uint32_t act_psn_ = 0;
  std::array<uint8_t, spec::SendWqe::kSize> wqe_{};
  unsigned beat_ = 0;
  bool poison_ = false, sent_ = false;
  uint8_t status_ = 0;
  unsigned chk_iss_ = 0, chk_rsp_ = 0;
  bool chk_err_ = false;
  std::array<uint64_t, 6> chk_pa_{};
  std::array<uint32_t, 6> chk_run_{};
  uint32_t hdr_k_ = 0;
  bool hdr_valid_ = false;
  spec::RoceTxHdr hdr_;
  unsigned arrived_ = 0, src_cr_ = 0, pend_ = 0;
  bool pay_err_ = false;
  unsigned src_off_ = 0;
  uint32_t cnt_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
