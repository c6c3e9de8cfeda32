// Model of rtl/xport/req_qp_ctx.sv, cycle for cycle: the requester's per-QP
// send-queue state (pi, ci, next PSN, outstanding, state, attributes), the
// control inputs (qp_cfg, sq_retire, sq_db: one per cycle, in that priority)
// and the round-robin pick of the next QP to serve.
#pragma once

#include <cstdint>
#include <vector>

#include "gen/roce_spec.h"

namespace rocenic::model {

class ReqQpCtx {
 public:
  explicit ReqQpCtx(unsigned max_qp);
  void reset();

  // What the engine tells the context in a cycle.
  struct Engine {
    bool idle = false;     // may take a pick
    unsigned qpn = 0;      // the QP it works on
    bool wb = false;       // write-back cycle
    uint16_t wb_ci = 0;
    uint32_t wb_psn = 0;
    bool wb_err = false;
  };
  // Combinational outputs of a cycle.
  struct Comb {
    bool cfg_ready = false, ret_ready = false, db_ready = false;
    bool take_cfg = false, take_ret = false, take_db = false;
    bool pick_valid = false, any_eligible = false;
    unsigned pick_qpn = 0;
  };
  Comb comb(const Engine& e, bool cfg_valid, const spec::QpCfg& cfg, bool ret_valid, bool db_valid) const;
  void clock(const Engine& e, const Comb& c, const spec::QpCfg& cfg, const spec::SqRetire& ret, const spec::WqDb& db);

  uint16_t ci(unsigned q) const { return ci_[q]; }
  uint32_t psn(unsigned q) const { return psn_[q]; }
  uint8_t state(unsigned q) const { return state_[q]; }
  const spec::QpCfg& cfg() const { return cfg_rd_; }  // attributes of the last pick

 private:
  bool eligible(unsigned q) const { return has_work_[q] && ((rts_[q] && !full_[q]) || err_[q]); }
  uint8_t retire_outst(const spec::SqRetire& r) const;
  uint8_t wb_outst(unsigned q) const { return outst_[q] == 31 ? 31 : outst_[q] + 1; }

  unsigned n_;
  std::vector<uint16_t> pi_, ci_;
  std::vector<uint32_t> psn_;
  std::vector<uint8_t> outst_, state_;
  std::vector<spec::QpCfg> cfg_;
  spec::QpCfg cfg_rd_;
  std::vector<uint8_t> has_work_, rts_, err_, full_;
  unsigned rr_ = 0;
  // Eligible QPs as a bitmap. Eligibility changes only in clock(), for the
  // few QPs a cycle touches, so comb() (evaluated several times a cycle)
  // finds the pick with a few word scans instead of a loop over every QP.
  std::vector<uint64_t> elig_;
  void recount(unsigned q);
  int lowest_eligible(unsigned from) const;  // -1: none at or after from
};

}  // namespace rocenic::model
