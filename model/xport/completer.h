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
// Inputs: qp_cfg, sq_track, rx_ack (roce_rx_hdr_t of ACKNOWLEDGE packets).
// Outputs: cq_compl, sq_retire (how many WQEs left the window, whether the
// QP failed, and where to send again from).
//
// One input at a time, in the order they arrived (same cycle: qp_cfg,
// sq_track, rx_ack, so an ACK never overtakes the entry it covers); an
// sq_track for a full window waits while others go by. Timing: an input is
// decided kDecide cycles after it is taken; the window is walked one entry
// a cycle, each completion leaving as its entry is walked; the retire
// follows the walk.
#pragma once

#include <deque>
#include <memory>
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
  Out<spec::CqCompl> cq_compl{this};
  Out<spec::SqRetire> sq_retire{this};

  uint32_t rx_acks() const { return cnt_acks_; }
  uint32_t naks_received() const { return cnt_nak_; }
  uint32_t packet_seq_errs() const { return cnt_seq_; }
  uint32_t unmatched() const { return cnt_unmatched_; }
  uint32_t retransmits() const { return cnt_rewind_; }
  uint32_t retry_exceeded() const { return cnt_exceeded_; }
  bool busy() const { return !out_.empty(); }
  bool window_full(unsigned qpn) const;
  bool track_waits(const spec::SqTrack& k) const;  // a new WQE for a full window (an amend never waits)
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
    std::deque<spec::SqTrack> window;
  };
  // kAck: entries whose last PSN is at or before psn; kSeq: those before psn
  // (a PSN sequence NAK), then stop; kNak: those before psn, then the next
  // fails; kFlush: all. A failed entry at the head always completes (failing).
  enum class Walk { kAck, kSeq, kNak, kFlush };

  // The protocol steps; each queues its completions and retire, and
  // returns how many cycles the block is busy.
  Cycle on_cfg(const spec::QpCfg& c, Cycle t);
  Cycle on_track(const spec::SqTrack& k, Cycle t);
  Cycle on_ack(const spec::RoceRxHdr& h, Cycle t);
  // Completes window entries from the head: every one an ACK with `psn`
  // covers, the NAKed one, or all (flush). Returns the entries walked.
  unsigned walk(unsigned qpn, Qp& q, Walk mode, uint32_t psn, uint8_t nak_status, bool* failed, Cycle t);
  spec::CqCompl completion(unsigned qpn, const Qp& q, const spec::SqTrack& k, uint8_t status) const;
  void retire(spec::SqRetire r, Cycle t);

  Scheduler& s_;
  std::vector<Qp> qps_;
  OutQueue out_;
  Cycle free_at_ = 0;
  uint32_t cnt_acks_ = 0, cnt_nak_ = 0, cnt_seq_ = 0, cnt_unmatched_ = 0, cnt_rewind_ = 0, cnt_exceeded_ = 0;
};

// The completer as a cycle-level Block (in 0 qp_cfg, 1 sq_track, 2 rx_ack;
// out 0 cq_compl, 1 sq_retire), for the cross-check against the RTL.
std::unique_ptr<rocenic::Block> make_completer_block(unsigned max_qp = 256);

}  // namespace rocenic::model
