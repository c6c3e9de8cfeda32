// The completer (rtl/xport/completer.sv) in the event-driven model: per QP,
// the window of send WQEs that have started (sq_track) and the range of
// PSNs not yet acknowledged [una, nxt). A response whose PSN is outside that
// range matches nothing and is dropped (counted). WQEs complete in order:
// by ACKs (24-bit serial PSN order), by NAKs (which acknowledge what comes
// before their PSN), by local failures and by moves to ERR. A PSN sequence
// NAK sends the requester back to the NAKed PSN (go-back-N, rewind) while
// retry_cnt lasts, then fails the WQE with RETRY_EXC_ERR (docs/engine.md,
// "Completer"; IBTA 9.7.5, as Linux rxe's rxe_comp.c).
//
// RDMA READ: only its responses complete a READ entry. A READ RESPONSE at
// PSN p acknowledges the entries before p; it is accepted when the head is
// a READ waiting for exactly p with the opcode (FIRST/ONLY when starting or
// after a rewind, MIDDLE/LAST after FIRST/MIDDLE) and the length (mtu, the
// rest on the last) its position calls for, and goes to read_place as
// rd_place {offset (p - first_psn) * mtu, len, last}; any other READ
// response as a drop command. The READ completes with rd_done's status
// (read_place wrote its data or failed); no response is taken while one
// waits. A response past the response an unfinished head READ waits for is
// an implied NAK (responses were lost): back to una once per rewind
// (docs/engine.md, "Completer"; IBTA 9.7.5.1.4; rxe_comp.c check_psn).
// A READ with responses placed that completes otherwise (NAK, retry
// exhaustion, flush, amend) first sends read_place a fence (len 0, last,
// drop) and fails on its rd_done, so no data lands after its completion;
// commands carry the QP's epoch (RESETs and DESTROYs counted), and no
// qp_cfg is taken while a READ waits for rd_done.
//
// Atomics (docs/engine.md, "Atomics"): an atomic entry (wc_opcode COMP_SWAP,
// FETCH_ADD) is a one-packet READ of 8 bytes everywhere a READ entry is
// special (only its answer completes it, implied NAKs, the fence, rd_done,
// and the retire's rd_count: READs and atomics share max_rd_atomic). Its
// answer, the ATOMIC ACKNOWLEDGE (0x12), comes from rx_dispatch with
// pay_len 8 (its original value made the payload) and is taken as a READ
// RESPONSE ONLY of 8 bytes that fits only an atomic entry (a READ response
// never fits one): rd_place {offset 0, len 8, last}, or a drop command,
// counted unmatched, when it does not fit.
//
// Timers, per QP, in simulated cycles: the local ACK timeout
// (ACK_TIMEOUT_BASE << timeout, none for timeout 0) runs while requests are
// outstanding and restarts with every WQE started and every response that
// matches; when it expires the QP goes back to its first unacknowledged PSN
// (a retry) or, with no retry left, fails with RETRY_EXC_ERR. An RNR NAK
// (while rnr_retry lasts; 7 = no limit) acknowledges what precedes it and
// waits the NAK's RNR time (rnr_timer table), ignoring other NAKs, then goes
// back to the NAKed PSN. Timers are scheduler timers: they do not keep the
// simulation from being idle.
//
// Inputs: qp_cfg, sq_track, rx_ack (roce_rx_hdr_t of ACKNOWLEDGE, READ
// RESPONSE and ATOMIC ACKNOWLEDGE packets), rd_done. Outputs: cq_compl, sq_retire (how many WQEs
// left the window, whether the QP failed, and where to send again from),
// rd_place.
//
// One input at a time, once free, by the RTL's fixed priority among those
// there: qp_cfg, rd_done, sq_track, rx_ack (so an ACK never overtakes the
// entry it covers, and a track goes before a response that came first); an
// sq_track for a full window waits while others go by. Timing, as the RTL's
// FSM: an input is decided kDecide cycles after it is taken (S_IDLE,
// S_CTX); the window is walked one entry a cycle, each completion (and a
// READ response's command) offered the cycle after its step; the retire
// two cycles after the walk's stop (S_DONE, then its register); an input
// decided in S_CTX alone frees the FSM at once. A track that only appends
// lets S_CTX take the next track or response (in_quick_take); an ACK that
// completes the window's last entry stops in that entry's step.
#pragma once

#include <deque>
#include <memory>
#include <queue>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/out_queue.h"
#include "sched/port.h"

namespace rocenic::model {

class Completer : public Process {
 public:
  static constexpr unsigned kWindow = 16;
  static constexpr Cycle kDecide = 2;  // take, then read the QP's context

  Completer(Scheduler& s, unsigned max_qp = 256);

  In<spec::QpCfg> qp_cfg;
  In<spec::SqTrack> sq_track;
  In<spec::RoceRxHdr> rx_ack;
  In<spec::RdDone> rd_done;
  Out<spec::CqCompl> cq_compl{this};
  Out<spec::SqRetire> sq_retire{this};
  Out<spec::RdPlace> rd_place{this};

  uint32_t rx_acks() const { return cnt_acks_; }
  uint32_t naks_received() const { return cnt_nak_; }
  uint32_t packet_seq_errs() const { return cnt_seq_; }
  uint32_t unmatched() const { return cnt_unmatched_; }
  uint32_t retransmits() const { return cnt_rewind_; }
  uint32_t retry_exceeded() const { return cnt_exceeded_; }
  uint32_t ack_timeouts() const { return cnt_timeout_; }
  uint32_t rnr_naks() const { return cnt_rnr_; }
  uint32_t rnr_exceeded() const { return cnt_rnr_exc_; }
  uint32_t implied_naks() const { return cnt_implied_; }
  bool busy() const { return !out_.empty(); }
  // The earliest armed deadline (kNever: none): where an idle simulation may jump.
  Cycle next_deadline() {
    const TimerRef* e = earliest_timer();
    return e ? e->at : kNever;
  }
  bool window_full(unsigned qpn) const;
  // The RTL takes one input in S_IDLE: once free, with nothing else taken
  // and not yet decided (the cycle-level wrapper offers a flit to the
  // channels only then, so inputs meet the model in the RTL's order).
  bool accepting() const;
  // the cycle after a plain append was taken (the RTL's S_CTX), when only a
  // track or a response may be taken
  bool in_quick_take() const;
  bool read_waits() const { return done_wait_; }  // a READ waits for rd_done: no response, no qp_cfg
  // a read_place command decided and not yet taken: no response (the RTL's rp_v_q)
  bool place_pending() { return out_.holds(&rd_place) || !rd_place->empty(); }
  // a new WQE for a full window; an amend while a READ waits for rd_done (its walk may fence)
  bool track_waits(const spec::SqTrack& k) const;
  void run() override;

 private:
  struct Qp {
    bool valid = false, err = false;
    uint16_t cq = 0;
    uint32_t una = 0, nxt = 0;        // PSNs sent and not acknowledged: [una, nxt)
    uint8_t retry_cnt = 0, retry = 0;  // configured, and left since the last progress
    bool fail = false;                 // WQE fail_idx failed while being sent (amend) ...
    uint16_t fail_idx = 0;
    uint8_t fail_st = 0;               // ... with this status
    uint8_t timeout = 0;               // local ACK timeout exponent (0: none)
    uint8_t rnr_cfg = 0, rnr_left = 0; // rnr_retry configured (7: no limit), and left
    bool rnr_wait = false;             // waiting out an RNR NAK (the deadline is its end)
    bool armed = false;
    Cycle deadline = 0;
    uint8_t pmtu = 0;
    bool rd_mid = false;    // the head READ's last response taken was FIRST or MIDDLE
    bool rd_retry = false;  // a rewind was sent and no response accepted since (no implied NAK)
    bool rd_placed = false; // a response of the head READ went to read_place
    uint8_t epoch = 0;      // RESETs and DESTROYs of this QP number (as read_place counts them)
    std::deque<spec::SqTrack> window;
  };
  // What an event does to the QP's timer: keep it, restart the ACK timeout,
  // or wait an RNR time.
  enum class Timer { kKeep, kRestart, kRnr };
  struct TimerRef {
    Cycle at;
    unsigned qpn;
    bool operator>(const TimerRef& o) const { return at != o.at ? at > o.at : qpn > o.qpn; }
  };
  // kAck: entries whose last PSN is at or before psn; kSeq, kRsp: those
  // before psn (a PSN sequence NAK, a READ response), then stop; kNak: those
  // before psn, then the next fails; kFlush: all; kRdd: the head READ with
  // rd_done's status, then entries acknowledged while it waited. A failed
  // entry at the head always completes (failing); an unfinished READ stops
  // every other walk (a NAK at its next PSN fails it).
  enum class Walk { kAck, kSeq, kNak, kFlush, kRsp, kRdd };
  struct WalkEnd {
    unsigned n = 0;        // entries completed
    bool rd_head = false;  // stopped at an unfinished READ ...
    spec::SqTrack head;    // ... this one
    bool fenced = false;   // stopped at a partly placed READ that fails on its rd_done
  };

  // The protocol steps; each queues its completions and retire, and
  // returns how many cycles the block is busy.
  Cycle on_cfg(const spec::QpCfg& c, Cycle t);
  Cycle on_track(const spec::SqTrack& k, Cycle t);
  Cycle on_ack(const spec::RoceRxHdr& h, Cycle t);
  Cycle on_read_response(const spec::RoceRxHdr& h, Cycle t);  // (an ATOMIC ACK too)
  Cycle on_read_done(const spec::RdDone& d, Cycle t);
  void drop_read_response(const spec::RoceRxHdr& h, Cycle t);  // its payload is discarded
  uint8_t epoch_of(uint32_t qpn) const { return qpn < qps_.size() ? qps_[qpn].epoch : 0; }
  // A walk that stopped at an unfinished READ with p past the response it
  // waits for: responses were lost. Goes back to una (once per rewind, while
  // retries last); returns the timer action.
  bool implied(const WalkEnd& w, const Qp& q, Walk mode, uint32_t psn) const;
  Timer implied_nak(Qp& q, spec::SqRetire& r);
  Cycle on_timer(unsigned qpn, Cycle t);
  // Sends the requester back to the first unacknowledged PSN (in the head entry).
  void rewind(Qp& q, spec::SqRetire& r);
  // Sets the QP's timer after an event (disarmed in ERR or with nothing outstanding).
  void set_timer(unsigned qpn, Qp& q, Timer how, uint8_t rnr_code, Cycle t);
  // The earliest armed timer (stale heap entries dropped), and the scheduler
  // timer for it (no earlier than not_before: the block is busy until then).
  const TimerRef* earliest_timer();
  void schedule_timer(Cycle not_before);
  // Completes window entries from the head: every one an ACK with `psn`
  // covers, the NAKed one, or all (flush); una follows the entries completed.
  WalkEnd walk(unsigned qpn, Qp& q, Walk mode, uint32_t psn, uint8_t status, uint16_t done_idx, bool* failed,
               Cycle t);
  spec::CqCompl completion(unsigned qpn, const Qp& q, const spec::SqTrack& k, uint8_t status) const;
  void retire(spec::SqRetire r, Cycle t);

  Scheduler& s_;
  std::vector<Qp> qps_;
  OutQueue out_;
  Cycle free_at_ = 0;
  Cycle quick_at_ = kNever;    // the cycle after a plain append was taken, or an event's S_DONE: a track or response may be taken
  bool append_only_ = false;   // the input just decided only appended a track (on_track)
  size_t quick_outs_ = 0;      // outputs that input added (the quick take waits for any before them)
  unsigned ev_qpn_ = ~0u;      // its QP (a track or response), and whether its window was full before it
  bool ev_full_ = false;
  std::priority_queue<TimerRef, std::vector<TimerRef>, std::greater<TimerRef>> timers_;
  Cycle timer_wake_ = kNever;  // the earliest scheduler timer this block has queued
  bool done_wait_ = false;     // a READ's last response went to read_place: waiting for rd_done
  unsigned reads_done_ = 0;    // READ and atomic entries the event's walk completed (the retire's rd_count)
  uint32_t cnt_acks_ = 0, cnt_nak_ = 0, cnt_seq_ = 0, cnt_unmatched_ = 0, cnt_rewind_ = 0, cnt_exceeded_ = 0;
  uint32_t cnt_timeout_ = 0, cnt_rnr_ = 0, cnt_rnr_exc_ = 0, cnt_implied_ = 0;
};

// The completer as a cycle-level Block (in 0 qp_cfg, 1 sq_track, 2 rx_ack,
// 3 rd_done; out 0 cq_compl, 1 sq_retire, 2 rd_place), for the cross-check
// against the RTL.
std::unique_ptr<rocenic::Block> make_completer_block(unsigned max_qp = 256);

}  // namespace rocenic::model
