#include "xport/req_issue.h"

#include <algorithm>

namespace rocenic::model {

void ReqIssue::reset() {
  busy_ = err_ = first_ = run_v_ = zero_ = treq_ = twait_ = false;
  sge_ = 0;
  va_ = pa_ = 0;
  sge_rem_ = run_rem_ = msg_rem_ = 0;
  pkt_rem_ = 0;
  need_ = 0;
  free_ = raw_depth_;
}

unsigned ReqIssue::next_act(uint8_t mask, unsigned from) {
  for (unsigned i = from; i < 6; ++i)
    if ((mask >> i) & 1u) return i;
  return 6;
}

ReqIssue::Comb ReqIssue::comb(const IssueMsg& m, bool pc_ready, bool pk_ready, bool rd_ready) const {
  Comb c;
  const unsigned cur = sge_ < 6 ? sge_ : 0;
  c.mr_req.tag = static_cast<uint8_t>(0x08 | (sge_ & 7));
  c.mr_req.key = m.lkey[cur];
  c.mr_req.pd = m.pd;
  c.mr_req.va = va_;
  c.mr_req.len = sge_rem_;
  c.mr_req.access = 0;
  c.mr_req_valid = busy_ && !run_v_ && treq_;
  c.mr_resp_ready = busy_ && !run_v_ && twait_;

  const uint32_t lim = zero_ ? 4096u : 4096u - static_cast<uint32_t>(pa_ & 0xFFFu);
  uint32_t len = std::min<uint32_t>({pkt_rem_, run_rem_, lim});
  c.beats = zero_ ? 0 : (len + w_ - 1) / w_;
  c.pend = len == pkt_rem_;
  const bool can = busy_ && run_v_ && pc_ready && (!c.pend || pk_ready) && c.beats <= free_;
  c.rd.tag = 1;
  c.rd.addr = pa_;
  c.rd.len = static_cast<uint16_t>(len);
  c.rd_valid = can && !zero_;
  c.push = can && (zero_ || rd_ready);
  c.piece = Piece{zero_, c.pend, static_cast<uint16_t>(len)};
  c.pk_need = need_ + c.beats;
  return c;
}

void ReqIssue::clock(const IssueMsg& m, const Comb& c, bool start, bool mr_req_ready, bool mr_resp_valid,
                     const spec::MrResp& resp, bool release_beat) {
  free_ = free_ - (c.push ? c.beats : 0) + (release_beat ? 1 : 0);
  if (start) {
    const unsigned first = next_act(m.act, 0);
    const unsigned f = first < 6 ? first : 0;
    busy_ = true;
    err_ = false;
    sge_ = first;
    va_ = m.addr[f];
    sge_rem_ = m.len[f];
    first_ = true;
    run_v_ = zero_ = treq_ = twait_ = false;
    msg_rem_ = m.length;
    pkt_rem_ = min_mtu(m.length, m.mtu_lg);
    need_ = 0;
    return;
  }
  if (!busy_) return;
  const unsigned cur = sge_ < 6 ? sge_ : 0;
  if (!run_v_) {
    if (first_) {
      pa_ = m.chk_pa[cur];
      run_rem_ = m.chk_run[cur];
      zero_ = false;
      run_v_ = true;
      first_ = false;
    } else if (treq_) {
      if (mr_req_ready) {
        treq_ = false;
        twait_ = true;
      }
    } else if (twait_ && mr_resp_valid) {
      twait_ = false;
      run_v_ = true;
      if (resp.status == static_cast<uint8_t>(spec::MrStatus::kOk)) {
        pa_ = resp.pa;
        run_rem_ = resp.run;
        zero_ = false;
      } else {
        run_rem_ = sge_rem_;
        zero_ = true;
        err_ = true;
      }
    }
    return;
  }
  if (!c.push) return;
  const uint32_t len = c.piece.len;
  const bool run_end = run_rem_ == len, sge_end = sge_rem_ == len, msg_end = msg_rem_ == len;
  pa_ += len;
  va_ += len;
  run_rem_ -= len;
  sge_rem_ -= len;
  msg_rem_ -= len;
  if (c.pend) {
    need_ = 0;
    pkt_rem_ = min_mtu(msg_rem_, m.mtu_lg);
  } else {
    need_ += c.beats;
    pkt_rem_ = static_cast<uint16_t>(pkt_rem_ - len);
  }
  if (run_end) {
    run_v_ = false;
    if (sge_end) {
      const unsigned nxt = next_act(m.act, sge_ + 1);
      const unsigned n = nxt < 6 ? nxt : 0;
      sge_ = nxt;
      va_ = m.addr[n];
      sge_rem_ = m.len[n];
      first_ = true;
    } else {
      treq_ = true;
    }
  }
  if (msg_end) busy_ = false;
}

}  // namespace rocenic::model
