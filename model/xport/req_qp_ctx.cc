#include "xport/req_qp_ctx.h"

#include <algorithm>

namespace rocenic::model {

using spec::QpAction;
using spec::QpState;

ReqQpCtx::ReqQpCtx(unsigned max_qp)
    : n_(max_qp),
      pi_(max_qp),
      ci_(max_qp),
      psn_(max_qp),
      outst_(max_qp),
      state_(max_qp),
      cfg_(max_qp),
      has_work_(max_qp),
      rts_(max_qp),
      err_(max_qp),
      full_(max_qp),
      elig_((max_qp + 63) / 64) {}

void ReqQpCtx::reset() {
  // Like the RTL: the flag vectors reset, the context memories keep their contents.
  std::fill(has_work_.begin(), has_work_.end(), 0);
  std::fill(rts_.begin(), rts_.end(), 0);
  std::fill(err_.begin(), err_.end(), 0);
  std::fill(full_.begin(), full_.end(), 0);
  std::fill(elig_.begin(), elig_.end(), 0);
  rr_ = 0;
}

void ReqQpCtx::recount(unsigned q) {
  const uint64_t bit = uint64_t{1} << (q % 64);
  if (eligible(q))
    elig_[q / 64] |= bit;
  else
    elig_[q / 64] &= ~bit;
}

int ReqQpCtx::lowest_eligible(unsigned from) const {
  for (unsigned w = from / 64; w < elig_.size(); ++w) {
    uint64_t v = elig_[w];
    if (w == from / 64) v &= ~uint64_t{0} << (from % 64);
    if (v) return static_cast<int>(w * 64 + static_cast<unsigned>(__builtin_ctzll(v)));
  }
  return -1;
}

uint8_t ReqQpCtx::retire_outst(const spec::SqRetire& r) const {
  const uint8_t o = outst_[r.qpn % n_];
  return r.count > o ? 0 : static_cast<uint8_t>(o - r.count);
}

ReqQpCtx::Comb ReqQpCtx::comb(const Engine& e, bool cfg_valid, const spec::QpCfg& cfg, bool ret_valid,
                              bool db_valid) const {
  Comb c;
  const int first = lowest_eligible(0);
  const int upper = first < 0 ? -1 : lowest_eligible(rr_);
  c.any_eligible = first >= 0;
  c.pick_valid = e.idle && c.any_eligible;
  c.pick_qpn = upper >= 0 ? static_cast<unsigned>(upper) : first >= 0 ? static_cast<unsigned>(first) : 0;
  const bool c_in = cfg.qpn < n_;
  const bool hold = c_in && ((!e.idle && cfg.qpn == e.qpn) || (c.pick_valid && cfg.qpn == c.pick_qpn));
  c.cfg_ready = !e.wb && !hold;
  c.take_cfg = cfg_valid && c.cfg_ready;
  c.ret_ready = !e.wb && !c.take_cfg;
  c.take_ret = ret_valid && c.ret_ready;
  c.db_ready = !e.wb && !c.take_cfg && !c.take_ret;
  c.take_db = db_valid && c.db_ready;
  return c;
}

void ReqQpCtx::clock(const Engine& e, const Comb& c, const spec::QpCfg& cfg, const spec::SqRetire& ret,
                     const spec::WqDb& db) {
  if (c.pick_valid) {
    cfg_rd_ = cfg_[c.pick_qpn];
    rr_ = (c.pick_qpn + 1) % n_;
  }
  if (c.take_cfg && cfg.qpn < n_) {
    const unsigned q = cfg.qpn;
    cfg_[q] = cfg;
    switch (static_cast<QpAction>(cfg.action)) {
      case QpAction::kReset:
      case QpAction::kDestroy:
        pi_[q] = ci_[q] = 0;
        outst_[q] = 0;
        state_[q] = static_cast<uint8_t>(QpState::kReset);
        has_work_[q] = rts_[q] = err_[q] = full_[q] = 0;
        break;
      case QpAction::kToInit:
        state_[q] = static_cast<uint8_t>(QpState::kInit);
        rts_[q] = err_[q] = 0;
        break;
      case QpAction::kToRtr:
        state_[q] = static_cast<uint8_t>(QpState::kRtr);
        rts_[q] = err_[q] = 0;
        break;
      case QpAction::kToRts:
        state_[q] = static_cast<uint8_t>(QpState::kRts);
        psn_[q] = cfg.sq_psn & 0xFFFFFFu;
        rts_[q] = 1;
        err_[q] = 0;
        break;
      case QpAction::kToErr:
        state_[q] = static_cast<uint8_t>(QpState::kErr);
        rts_[q] = 0;
        err_[q] = 1;
        break;
      default:
        break;
    }
  }
  if (c.take_ret && ret.qpn < n_) {
    const unsigned q = ret.qpn;
    const uint8_t o = retire_outst(ret);
    outst_[q] = o;
    full_[q] = o >= 16;
    if (ret.error && rts_[q]) {
      state_[q] = static_cast<uint8_t>(QpState::kErr);
      rts_[q] = 0;
      err_[q] = 1;
    }
  }
  if (c.take_db && db.qpn < n_) {
    pi_[db.qpn] = db.pi;
    has_work_[db.qpn] = db.pi != ci_[db.qpn];
  }
  if (e.wb) {
    const unsigned q = e.qpn;
    const uint8_t o = wb_outst(q);
    ci_[q] = e.wb_ci;
    psn_[q] = e.wb_psn & 0xFFFFFFu;
    outst_[q] = o;
    has_work_[q] = pi_[q] != e.wb_ci;
    full_[q] = o >= 16;
    if (e.wb_err) {
      state_[q] = static_cast<uint8_t>(QpState::kErr);
      rts_[q] = 0;
      err_[q] = 1;
    }
  }
  if (c.take_cfg && cfg.qpn < n_) recount(cfg.qpn);
  if (c.take_ret && ret.qpn < n_) recount(ret.qpn);
  if (c.take_db && db.qpn < n_) recount(db.qpn);
  if (e.wb) recount(e.qpn);
}

}  // namespace rocenic::model
