// Model of rtl/xport/completer.sv, cycle for cycle: the per-QP window of send
// WQEs that have left, completed by ACKs (24-bit serial PSN order), NAKs,
// local failures and moves to ERR (docs/engine.md, "Completer"; the RTL file
// shows the AETH syndromes it decodes).
//
// Ports (Block indices, descriptor flits = packed structs, little-endian):
//   input  0  qp_cfg    qp_cfg_t
//   input  1  sq_track  sq_track_t
//   input  2  rx_ack    roce_rx_hdr_t (ACKNOWLEDGE packets)
//   output 0  cq_compl  cq_compl_t
//   output 1  sq_retire sq_retire_t
// Like the RTL it clears its contexts for max_qp cycles after reset, takes
// one input per operation (qp_cfg, then sq_track unless its window is full,
// then rx_ack) and walks the window one entry per cycle.
#pragma once

#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

class Completer : public Block {
 public:
  static constexpr unsigned kWindow = 16;

  explicit Completer(unsigned max_qp = 256);

  const std::vector<PortInfo>& inputs() const override { return in_info_; }
  const std::vector<PortInfo>& outputs() const override { return out_info_; }
  void reset() override;
  void set_input(unsigned port, bool valid, const Flit& flit) override;
  void set_output_ready(unsigned port, bool ready) override { ready_[port] = ready; }
  void eval() override {}
  bool input_ready(unsigned port) override;
  bool output_valid(unsigned port) override { return port == 0 ? cq_v_ : rt_v_; }
  Flit output(unsigned port) override;
  void clock() override;
  uint64_t cycle() const override { return cycle_; }
  std::vector<std::pair<std::string, uint32_t>> counters() override {
    return {{"rx_acks", cnt_acks_}, {"nak_received", cnt_nak_}};
  }
  bool idle() const override { return st_ == St::kIdle && !cq_v_ && !rt_v_; }
  // Entries waiting in QP q's window (tests).
  unsigned window(unsigned q) const { return q < ctx_.size() ? ctx_[q].cnt : 0; }

 private:
  enum class St { kInit, kIdle, kCtx, kWalk, kOne, kDone };
  enum class Kind { kCfg, kTrk, kAck };
  enum class Mode { kAck, kNak, kFlush };
  struct Ctx {
    bool valid = false, err = false, pend = false;
    uint8_t pst = 0;  // status a pending NAK gives the next entry
    uint16_t cq = 0;
    uint8_t head = 0, cnt = 0;
  };

  bool blocked(const spec::SqTrack& t) const { return t.qpn < ctx_.size() && ctx_[t.qpn].cnt == kWindow; }
  void step_ctx();
  void step_walk(bool cq_free);
  spec::CqCompl compl_of(const spec::SqTrack& t, uint8_t status) const;

  std::vector<Ctx> ctx_;
  std::vector<spec::SqTrack> win_;  // [q * 16 + slot]
  std::vector<PortInfo> in_info_, out_info_;
  bool in_valid_[3] = {false, false, false};
  spec::QpCfg in_cfg_;
  spec::SqTrack in_trk_;
  spec::RoceRxHdr in_ack_;
  bool ready_[2] = {false, false};

  St st_ = St::kInit;
  unsigned init_ = 0;
  Kind kind_ = Kind::kCfg;
  unsigned qpn_ = 0;
  bool inr_ = false;
  uint8_t act_ = 0;
  uint16_t scq_ = 0;
  spec::SqTrack trk_;
  uint32_t psn_ = 0;
  uint8_t syn_ = 0;
  bool ackop_ = false;
  Ctx w_;  // working copy during a walk
  Mode mode_ = Mode::kAck;
  uint8_t nst_ = 0, one_st_ = 0, rcnt_ = 0;
  bool rerr_ = false;
  spec::CqCompl cq_;
  bool cq_v_ = false;
  spec::SqRetire rt_;
  bool rt_v_ = false;
  uint32_t cnt_acks_ = 0, cnt_nak_ = 0;
  uint64_t cycle_ = 0;
};

}  // namespace rocenic::model
