// Model of rtl/xport/responder.sv: the RC responder (docs/engine.md,
// "Responder"). Same decomposition as the RTL: a checker (contexts, checks,
// mr_req, receive-WQE reads, flush) that decides one request packet at a
// time and hands verdicts and DMA write pieces to a placement stage
// (payload slicer, dma_wr, completions, ACK/NAKs).
//
// Ports (Block indices; descriptor flits = packed struct bytes, LE):
//   input  0  qp_cfg       qp_cfg_t          output 0  dma_rd_req   dma_rd_req_t
//   input  1  rq_db        wq_db_t           output 1  mr_req       mr_req_t
//   input  2  rx_hdr       roce_rx_hdr_t     output 2  dma_wr_req   dma_wr_req_t
//   input  3  rx_payload   stream            output 3  dma_wr_data  stream (keep, last per request)
//   input  4  dma_rd_data  stream, user = poisoned
//   input  5  mr_resp      mr_resp_t         output 4  ack_hdr      roce_tx_hdr_t
//                                            output 5  cq_compl     cq_compl_t
#pragma once

#include <array>
#include <deque>
#include <optional>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "xport/stream_slice.h"

namespace rocenic::model {

class Responder : public Block {
 public:
  explicit Responder(unsigned data_bytes = 64, unsigned max_qp = 256);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override;
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override;
  // No work in progress, nothing buffered, no output pending.
  bool idle() const override;

 private:
  enum class Kind : uint8_t { kNone, kSend, kWrite };
  struct Sge {
    uint64_t addr = 0;
    uint32_t len = 0, lkey = 0;
  };
  struct Qp {  // per-QP context (rsp_ctx_t, the SGE RAM and the ACK addressing)
    bool valid = false, rc = false;
    uint8_t state = 0;
    uint16_t pd = 0;
    uint8_t access = 0, pmtu = 0;
    uint64_t rq_base = 0;
    uint8_t rq_lsz = 0;
    uint16_t recv_cq = 0;
    uint32_t dest_qpn = 0;
    uint8_t min_rnr = 0, sl = 0;
    uint16_t pi = 0, ci = 0;
    uint32_t epsn = 0, msn = 0;
    bool nak = false;
    Kind kind = Kind::kNone;
    uint64_t wr_id = 0;
    uint8_t nsge = 0;
    uint64_t total = 0, placed = 0;
    uint8_t sidx = 0;
    uint32_t soff = 0;
    uint64_t va = 0;
    uint32_t left = 0, rkey = 0, rlen = 0;
    uint64_t xpa = 0;
    uint32_t xleft = 0;
    std::array<Sge, 8> sge{};
    spec::QpCfg addr;  // l3, MACs, IPs, tclass, ttl, flow_label, dest_qpn for ACKs
  };
  struct Verdict {
    uint16_t qpn = 0;
    uint32_t pay_len = 0;
    bool exec = false;
    unsigned npieces = 0;
    bool cqe_v = false;
    spec::CqCompl cqe;
    bool ack_v = false;
    uint8_t syn = 0;
    uint32_t psn = 0, msn = 0;
  };
  struct Piece {
    uint64_t pa = 0;
    uint32_t len = 0;
  };
  struct Post {
    Verdict v;
    bool has_data = false;
    uint8_t seq = 0;
  };
  enum class C { kIdle, kCfg, kDb, kHdr, kRoute, kMrW, kWqe, kSge, kSlen, kWalk, kSrd, kPush, kFlush };

  // checker (responder_ctrl.cc)
  void ctrl_clock(bool take_cfg, bool take_db, bool take_hdr, bool rd_beat, bool mr_take);
  void ctrl_cfg();
  void ctrl_db();
  void ctrl_hdr();
  void ctrl_walk();
  void ctrl_flush(bool rd_beat);
  void fail(uint8_t syn, bool with_cqe, uint8_t status);
  void push_verdict();
  spec::CqCompl cqe_base(const Qp& q) const;
  bool seg_first() const { return seg_ == spec::Seg::kFirst; }
  bool seg_mid() const { return seg_ == spec::Seg::kMiddle; }
  bool seg_last() const { return seg_ == spec::Seg::kLast; }
  bool seg_only() const { return seg_ == spec::Seg::kOnly; }
  bool needs_wqe() const;
  // placement (responder.cc)
  void place_clock(bool pay_taken_by_slicer);
  bool drained() const;

  unsigned bytes_;
  unsigned max_qp_;
  std::vector<Qp> qps_;
  std::vector<PortInfo> in_info_, out_info_;
  bool in_valid_[6] = {};
  Flit in_[6];
  bool ready_[6] = {};
  uint64_t cycle_ = 0;

  // ---- checker state
  C cst_ = C::kIdle;
  Qp cx_;            // working copy of the packet's QP context
  unsigned idx_ = 0;
  bool qin_ = false, qok_ = false;
  spec::QpCfg cfg_;
  uint16_t db_pi_ = 0;
  spec::RoceRxHdr h_;
  bool is_send_ = false, is_write_ = false, imm_ = false;
  spec::Seg seg_ = spec::Seg::kOnly;
  uint32_t n_ = 0;
  unsigned np_ = 0;
  bool ok_ = false, wctx_ = false, mr_rkey_ = false;
  Verdict vd_;
  std::vector<uint8_t> wqe_;
  bool poison_ = false;
  unsigned sg_ = 0;
  bool fl_pend_ = false, fl_go_ = false;
  uint16_t fl_next_ = 0, fl_done_ = 0, fl_end_ = 0;
  unsigned fl_out_ = 0;
  std::optional<spec::DmaRdReq> rd_req_;
  std::optional<spec::MrReq> mr_req_;
  std::optional<spec::CqCompl> c_cq_;
  std::deque<Verdict> verdicts_;
  std::deque<Piece> pieces_;   // committed
  std::vector<Piece> spec_;    // pushed for the packet being checked
  uint32_t c_rx_ = 0, c_noqp_ = 0, c_state_ = 0, c_oos_ = 0, c_dup_ = 0, c_acc_ = 0, c_inv_ = 0, c_rnr_ = 0,
           c_op_ = 0;

  // ---- placement state
  std::deque<Flit> pay_;
  std::optional<Verdict> cur_;
  bool drop_ = false, post_ = false;
  unsigned left_ = 0;
  uint8_t iss_seq_ = 0, data_done_ = 0, req_done_ = 0;
  std::deque<StreamSlice::Desc> descs_;
  std::deque<std::pair<spec::DmaWrReq, bool>> reqs_;  // request, last of its packet
  std::deque<Post> posts_;
  StreamSlice slice_;
  std::optional<Post> emit_;
  bool ack_done_ = false, cq_done_ = false;
  uint32_t c_acks_ = 0;
};

}  // namespace rocenic::model
