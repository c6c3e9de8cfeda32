// The RC requester (rtl/xport/requester.sv) in the event-driven model: send
// queues in host memory -> request packets (docs/engine.md, "Requester"; IBTA
// 9.7, as Linux rxe's rxe_req.c: pick a QP, fetch its WQE, check it, cut the
// message into MTU packets with their headers, track it for the completer).
//
// A SEND or WRITE is cut into MTU packets carrying its SGE (or inline) bytes;
// a READ is one READ_REQUEST (RETH: remote address, rkey, length) that takes
// one PSN per READ RESPONSE packet to come back, reads nothing and checks no
// lkey (its SGEs are where the responses land, checked when they do). An
// atomic (ATOMIC_CMP_AND_SWP, ATOMIC_FETCH_AND_ADD; docs/engine.md,
// "Atomics") is handled as a one-packet READ: one CMP_SWAP or FETCH_ADD
// request (AtomicETH: remote address, rkey, swap_add, compare), no payload,
// one PSN, its 8-byte SGE neither checked nor read (the ATOMIC ACKNOWLEDGE's
// original value lands there), tracked COMP_SWAP or FETCH_ADD (byte_len 8).
// READs and atomics together take the QP's max_rd_atomic credits: a new one
// beyond them waits (rdw) until the completer retires one. A new WQE with the
// fence flag (IBV_SEND_FENCE) waits the same way until none is outstanding.
//
// The low-latency post path (CSR SQ_BF / SQ_BF_DB, ConnectX's BlueFlame): a
// doorbell may carry the first WQE_HEAD bytes of WQE pi - 1 (also in the
// ring). The last one is kept; when the QP's next new WQE is that one, the
// pick takes it from there with no fetch (as if its head had just arrived).
// Anything else (a rewind, another WQE, a later doorbell's WQE having
// replaced it) is fetched from the ring; a qp_cfg for its QP forgets it.
//
// WQE prefetch (issue 11): heads are read ahead (tag 2) into a table of
// kNpf entries; with each pick (right behind its own head read, or beside
// its decode and check when its head is at hand: the walk's reads, TAIL and
// the next pick wait for them) up to two more: another QP's next new WQE (round robin from
// the pick pointer over QPs with new WQEs, but for this QP and those in the
// table), else this QP's next ones. A pick of a WQE in the table takes it
// (waiting for its data if needed: no fetch). Read data comes back in
// request order; the kinds of the reads in flight say where each goes.
//
// Inputs: qp_cfg, sq_db (SqDoorbell: wq_db_t, and the WQE of an SQ_BF_DB), sq_retire (WQEs the completer finished),
// dma_rd (one Packet per dma_rd_req, in order; user = poisoned), mr_resp.
// Outputs: dma_rd_req, mr_req, tx_hdr (roce_tx_hdr_t) + tx_payload (one
// Packet per header with pay_len > 0), sq_track, rd_hint (with each READ or
// atomic request header: the WQE's SGE, so read_place need not fetch it).
//
// The front end takes one WQE at a time, QPs served round robin; it queues
// each packet's header once the packet's payload reads are issued (or at
// once without read data) and moves on to the next WQE with its last one.
// The back end sends the queued headers in order, each once its payload is
// all in, and at each WQE's end tracks what needs it there: UC/UD WQEs (once
// sent) and RC failures met while sending (a failed page run, poisoned read
// data: an amend with LOC_PROT_ERR). A qp_cfg waits until the back end is
// empty, and no WQE is picked meanwhile.
//
// QPs served round robin. A QP is eligible in RTS with a
// rewind to apply, with WQEs to send again (behind its high-water mark), or
// with new WQEs and fewer than kWindow outstanding; in ERR with new WQEs
// (flushed). A new WQE is tracked (sq_track) as it starts, before its first
// packet; one sent again after a rewind is not tracked again. A rewind from
// the completer (go-back-N) takes effect at the QP's next pick: the SQ is the
// retransmission buffer, and sending resumes at packet rw_skip of WQE rw_idx
// (a READ asks again from the first response missing: PSN + rw_skip, remote
// address + rw_skip * mtu, the rest of the length; IBTA 9.7.4.1.4).
// The payload is read in pieces that never cross an SGE end, a page run
// (each later run translated by the MR table), a 4 KiB bus-address boundary
// or a packet end, against a payload buffer of kBufferBeats; a packet's
// header leaves once all its payload has arrived. Timing constants are at
// the top of requester.cc.
#pragma once

#include <array>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "common/block.h"
#include "common/sq_doorbell.h"
#include "ctrl/gid_entry.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class Requester : public Process {
 public:
  static constexpr unsigned kWindow = 16;        // WQEs tracked and not yet retired, per QP
  static constexpr unsigned kBufferBeats = 256;  // payload buffer (read data not yet sent)
  static constexpr unsigned kPieceDepth = 64;    // payload reads issued, not yet sent
  static constexpr unsigned kPktDepth = 64;      // packets whose reads are issued, header not yet out
  static constexpr unsigned kHdrDepth = spec::kReqHdrQueue;  // headers queued for the back end
  static constexpr unsigned kInlDepth = spec::kReqInlQueue;  // ... of them with inline bytes

  Requester(Scheduler& s, unsigned data_bytes = 64, unsigned max_qp = 256, unsigned gid_tbl_len = 16);

  In<spec::QpCfg> qp_cfg;
  In<SqDoorbell> sq_db;
  In<spec::SqRetire> sq_retire;
  In<Packet> dma_rd;
  In<spec::MrResp> mr_resp;
  Out<spec::DmaRdReq> dma_rd_req{this};
  Out<spec::MrReq> mr_req{this};
  Out<spec::RoceTxHdr> tx_hdr{this};
  Out<Packet> tx_payload{this};
  Out<spec::SqTrack> sq_track{this};
  Out<spec::RdHint> rd_hint{this};  // with a READ's (atomic's) request header: its SGE, for read_place

  uint32_t tx_pkts() const { return cnt_pkts_; }
  // CSR ACK_REQ: AckReq on the last packet of a message and on every PSN ending in n one bits.
  void set_ack_req_log2(unsigned n) { ack_mask_ = (1u << (n & 15u)) - 1; }
  // UD: the port (source MAC; CSR PORT_MTU, the largest datagram) and the GID
  // table that resolves a WQE's sgid_index (CSR GID).
  void set_port(uint64_t mac, unsigned mtu) {
    port_mac_ = mac & 0xFFFFFFFFFFFFull;
    port_mtu_ = mtu & 7u;
  }
  void set_gid(unsigned i, const GidEntry& g) {
    if (i < gid_.size()) gid_[i] = g;
  }
  // the RTL's write-back cycle (or a deferred READ's decode): req_qp_ctx
  // takes no qp_cfg, sq_retire or sq_db then
  bool writing_back() const { return s_.now() == wb_at_; }
  // Cycles in [a, b] the payload source held the WQE end at tx_payload's
  // head: the front end offered a new WQE's sq_track meanwhile (RUN with
  // the track pending; the RTL's end_hold).
  Cycle payload_held(Cycle a, Cycle b) const;
  bool busy() const { return st_ != St::kIdle || pfv_ || any_eligible() || !reads_.empty() || !bq_.empty() || !ends_.empty() || !data_.empty(); }
  void run() override;

 private:
  struct Qp {
    uint16_t pi = 0, ci = 0;  // producer; next WQE to send (ci < hw while sending again)
    uint16_t hw = 0;          // high-water mark: the next WQE never sent (tracked)
    uint32_t psn = 0;         // first PSN of WQE ci
    uint8_t outstanding = 0, state = 0;
    bool rw = false;          // a rewind waits for the next pick
    uint8_t rd_out = 0;       // READ and atomic WQEs started and not retired (max_rd_atomic bounds it)
    bool rdw = false;         // a new READ or atomic waits for one of them to finish
    uint16_t rw_idx = 0;
    uint32_t rw_psn = 0, rw_skip = 0;
    spec::QpCfg cfg;
  };
  // The WQE being executed, decoded with the generated layout.
  struct Wqe {
    spec::SendWqe w;
    std::array<spec::Sge, spec::kMaxSge> sge{};
    Bytes raw;
    bool inl = false, fence = false, send = false, imm = false, read = false;
    bool atomic = false, cas = false;  // an atomic; CMP_SWAP (else FETCH_ADD)
    bool rdat = false;                 // a READ or an atomic: answered by responses, no payload
    bool local = false, bind = false;  // BIND_MW or LOCAL_INV: an MR-table operation, no packet; BIND_MW
    bool inv = false;                  // SEND_WITH_INV: its last packet carries the rkey (IETH)
    bool uc = false;                   // on a UC QP: UC opcodes, no AckReq, tracked once its packets left
    bool ud = false;                   // on a UD QP: as UC, one packet to the WQE's address vector
    bool unrel = false;                // UC or UD: nothing answers
    bool unsent = false;               // UD longer than the port MTU: no packet, no error (IBTA C10-93.1.1)
    uint32_t mtu = 256, npk = 1;  // npk: PSNs it takes (a READ sends one request for all of them)
    uint8_t status = 0;
  };
  // A payload piece: a read (or zeros, after a failed page translation) of
  // packet pkt (numbered across WQEs).
  struct Piece {
    uint64_t pkt = 0;
    uint32_t len = 0;
    bool zero = false;
  };
  // A packet queued for the back end: its header, where its payload comes
  // from (read pieces of packet pkt, or the inline bytes), and on a WQE's
  // last packet the WQE's end record (its sq_track, should it need one).
  struct Queued {
    spec::RoceTxHdr hdr;
    uint32_t pay = 0;
    bool need = false;  // its payload is read
    Bytes inl;          // ... or these inline bytes
    uint64_t pkt = 0;
    Cycle at = 0;       // queued in this cycle
    bool wend = false;  // the WQE's last
    bool err = false;   // its walk met a page run that failed (zeros sent)
    spec::SqTrack rec;
  };
  // kTail: SGEs 6.. of a WQE with more than six, fetched after its head
  // kPfWait: the prefetched head this pick takes is still on its way
  enum class St { kIdle, kFetch, kTail, kPfWait, kCheck, kLocal, kRun, kTrack };

  bool eligible(unsigned q) const;
  bool any_eligible() const;
  bool control(Cycle now);  // qp_cfg, sq_retire, sq_db; false: nothing taken
  void start(unsigned q, Cycle now);
  bool bf_hit(unsigned q) const;             // the kept SQ_BF WQE is the one q's pick takes
  bool pf_hit(unsigned q) const;             // ... the prefetched one
  void took_head(const Packet& p, Cycle now);  // the WQE's first WQE_HEAD bytes are in
  // The prefetch: the next head to read ahead (false: none), as the RTL's PF
  // sees it: another QP's next new WQE, else (ahead) this QP's next one.
  bool pf_candidate(unsigned* cq, uint16_t* cidx, bool* ahead) const;
  // A PF visit from cycle `at` (up to two reads): right behind a fetch, or
  // beside the decode of a head at hand.
  void pf_visit_start(Cycle at);
  bool pf_visit(Cycle now);  // its reads; false: waiting or over
  void push_fetch(Cycle now);  // the WQE's head read, once the port is free
  bool fetch_pend_ = false;
  Cycle trk_first_ = kNever;  // the cycle TRACK began (its sq_track waits for the back end's WQEs)
  bool trk_decoded_ = false;  // ... right from DECODE
  Cycle fetch_at_ = 0;
  Packet pop_read();  // the data of the next read in flight (a head, tail or payload read)
  Cycle head_at_ = 0;  // the cycle the WQE's head was in (its tail read follows from it)
  void decode(const Packet& p);
  void fetched(const Packet& p, Cycle now);  // the whole WQE is in: decode, then check, run or track
  Packet head_;              // kTail: the WQE's first WQE_HEAD bytes ...
  bool tail_asked_ = false;  // ... and whether the read of the rest is out
  // Run: the issue walk (pieces and page-run translations) and the packets.
  bool issue(Cycle now);
  bool queue_header(Cycle now);  // the front end: the next header into the back end's queue
  bool send_packet(Cycle now);   // the back end: the next queued packet, once its payload is in
  bool end_wqe(Cycle now);       // the back end: a WQE's end once its last packet was taken
  bool be_empty(Cycle now) const { return bq_.empty() && ends_.empty() && now >= be_empty_at_; }
  uint32_t pay_len(uint32_t k) const;
  spec::RoceTxHdr header(uint32_t k, uint32_t pay) const;
  void begin_run();
  spec::SqTrack track() const;
  void finish(Cycle now, bool tracked);

  Scheduler& s_;
  unsigned bytes_;
  uint64_t port_mac_ = 0;
  unsigned port_mtu_ = 3;
  std::vector<GidEntry> gid_;
  std::vector<Qp> qps_;
  // reads in flight, in request order: where each one's data goes (a prefetch's: by its sequence number)
  enum class Rd : uint8_t { kHead, kTail, kPf, kPay };
  struct RdKind {
    Rd kind;
    uint8_t seq;
  };
  std::deque<RdKind> reads_;
  // the prefetch table: heads read ahead {state, QP, index, data, the cycle it was in}
  static constexpr unsigned kNpf = spec::kReqPfHeads;
  enum class Pe : uint8_t { kFree, kPend, kDone, kDrop };  // kDrop: its data still coming, not kept
  struct PfEntry {
    Pe st = Pe::kFree;
    unsigned qpn = 0;
    uint16_t idx = 0;
    Packet data;
    Cycle at = 0;
  };
  std::array<PfEntry, kNpf> pe_{};
  std::vector<bool> pfm_;  // QPs with a head in the table
  unsigned pf_sel_ = 0;    // the entry the pick takes (PFW)
  uint16_t ra_x_ = 0;      // this QP's next index to read ahead
  Cycle pick_at_ = 0;
  bool wb_pick_ = false;   // the pick was the RTL's WB's (no control input beside it)
  // the first SGE's check asked in the pick's cycle (the RTL's spec_ask):
  // a WB pick of a head in the table that shows its decode will check it
  bool spec_ = false;
  bool spec_check(const Packet& head) const;
  // a PF visit: its next cycle, reads asked for, the head to decode after it
  bool pfv_ = false, pfv_gate_ = false;  // (gate: FETCH decides on PF in its cycle)
  bool pfv_fill_ = false;  // FETCH's visit: past two reads while its head is awaited (the RTL's pff_q)
  Cycle pfv_at_ = 0, pfv_start_ = 0;
  Cycle pfv_done_at_ = 0;  // the visit over: the next pick, the walk's reads and TAIL from here
  Cycle wb_at_ = kNever;   // the write-back's cycle
  // After a write-back (finish) the RTL's WB cycle picks too, among the
  // other QPs: that pick is decided here at wb_pick_at_ (a cycle before the
  // WB, as every pick a cycle before the RTL's), passing over wb_qpn_.
  Cycle wb_pick_at_ = kNever;
  unsigned wb_qpn_ = 0;
  // the first cycle a pick may be decided
  Cycle pick_from() const { return wb_pick_at_ != kNever && wb_pick_at_ + 1 == eng_at_ ? wb_pick_at_ : eng_at_; }
  // the front end's offers of a new WQE's sq_track: from its RUN's first
  // cycle to the cycle it was taken (kNever: not yet); the offered track's number
  mutable std::deque<std::pair<Cycle, Cycle>> offers_;
  uint64_t offer_trk_ = 0;
  std::deque<std::pair<uint64_t, bool>> pay_wend_;  // payloads pushed: number, ends its WQE
  void offer_starts() {
    offers_.push_back({eng_at_, kNever});
    offer_trk_ = 0;
    while (offers_.size() > 8) offers_.pop_front();
  }
  void offer_taken(Cycle now) const {
    if (offers_.empty() || offers_.back().second != kNever || offer_trk_ == 0 || trk_pend_) return;
    if (sq_track->popped() < offer_trk_) return;
    offers_.back().second = sq_track->popped() == offer_trk_ ? sq_track->last_pop() : now;
  }

  unsigned pfv_n_ = 0;
  uint64_t pfv_rd_ = 0;    // (its last read: the decode waits until the port took it)
  bool pfo_ = false, pfo_ahead_ = false, pfo_drop_ = false;  // a read offered, not yet taken by the port
  unsigned pfo_qpn_ = 0;
  uint16_t pfo_idx_ = 0;
  // the last WQE written with its doorbell (SQ_BF): QP, index, its first WQE_HEAD bytes
  bool bf_valid_ = false;
  unsigned bf_qpn_ = 0;
  uint16_t bf_idx_ = 0;
  std::array<uint8_t, spec::kWqeHead> bf_wqe_{};
  unsigned rr_ = 0;

  St st_ = St::kIdle;
  Cycle eng_at_ = 0;  // the engine's next free cycle
  unsigned act_ = 0;
  uint16_t act_ci_ = 0;   // the WQE being sent ...
  uint32_t act_psn_ = 0;  // ... its first PSN ...
  uint32_t skip_ = 0;     // ... and the packets not sent again (a rewind into the middle of it)
  bool new_ = false;      // first time sent: tracked (at its start, or with its failure)
  bool amend_ = false;    // the end-of-WQE sq_track is an amend (the WQE was tracked before)
  bool trk_pend_ = false; // the start of a new WQE not yet tracked: its first packet waits
  Wqe wqe_;
  uint8_t status_ = 0;
  bool sent_ = false;
  // check: one mr_req per SGE with bytes; the answers give each SGE's first page run
  uint16_t active_ = 0;  // SGEs that carry bytes
  // the next SGE check's mr_req, stamped `at`, if the port takes one (false: none left or no room)
  bool push_check(Cycle at);
  unsigned chk_sent_ = 0, chk_got_ = 0;
  bool chk_err_ = false;
  bool local_sent_ = false;  // kLocal: its mr_req (BIND or INVALIDATE) is out
  std::array<uint64_t, spec::kMaxSge> chk_pa_{};
  std::array<uint32_t, spec::kMaxSge> chk_run_{};
  // issue walk
  unsigned sge_ = 0;
  uint64_t va_ = 0, pa_ = 0;
  uint32_t sge_rem_ = 0, run_rem_ = 0, msg_rem_ = 0, pkt_rem_ = 0;
  bool run_start_ = false;  // the walk's first piece not yet issued, from its start (no first-run cycle)
  bool run_valid_ = false, run_first_ = false, run_zero_ = false, asking_ = false, issue_err_ = false;
  // what the back end's FIFOs and buffer hold (issued or queued, not yet
  // freed), and when the back end frees it (in order: its schedule)
  unsigned buf_used_ = 0, pieces_out_ = 0, pkts_out_ = 0, hq_out_ = 0, iq_out_ = 0, eq_out_ = 0;
  struct Rel {
    Cycle at;
    unsigned beats, pieces, hq, pkts, inl;
    uint64_t pay;  // its payload's number (0: none) ...
    Cycle last;    // ... and that payload's last beat
    unsigned eq;   // a WQE's end record (the RTL's eq: WQEs in the back end)
    unsigned upto = 0;  // a piece: its payload's source beats through its own ...
    unsigned freed = 0; // ... and its beats freed so far (the source took them)
  };
  std::deque<Rel> rel_;
  void release(Cycle upto);
  Cycle next_release() const;
  uint32_t pkt_issue_ = 0;  // the packet the walk is cutting (of the WQE) ...
  uint64_t pkt_seq_ = 0;    // ... and its number across WQEs
  std::deque<Piece> pieces_;  // issued, of packets not yet sent, in order
  std::deque<Packet> data_;   // read data arrived for the non-zero pieces at the front of pieces_
  std::deque<Cycle> data_at_; // ... and the cycle each arrived
  // the front end's packets: the next header to queue, the cycle it may be,
  // the cycles the walk finished each later packet of the WQE (its last read)
  uint32_t pkt_k_ = 0;
  Cycle fe_at_ = 0, fe_last_ = 0;  // (fe_last_: the cycle its last header was queued)
  std::deque<std::pair<Cycle, uint64_t>> pk_done_;  // (and the count of reads pushed with its last)
  bool pk_wait_ = false;
  // the back end
  std::deque<Queued> bq_;
  bool be_perr_ = false;    // poisoned read data in the WQE being sent: LOC_PROT_ERR
  Cycle bt_free_ = 0;       // the back end's sq_track register is free from this cycle
  std::deque<std::pair<unsigned, Cycle>> fails_;  // QPs the back end failed: ERR from that cycle
  // WQE ends waiting for their last packet to be taken (tx_hdr and
  // tx_payload pushes counted up to it)
  struct WqeEnd {
    spec::SqTrack rec;
    bool track = false, fail = false;
    Cycle done = 0;
    uint64_t hdr_n = 0, pay_n = 0;
    bool last_pay = false;  // its last packet carries payload (else it ends on its header's handshake)
  };
  std::deque<WqeEnd> ends_;
  uint64_t hdr_pushed_ = 0, pay_pushed_ = 0;
  uint64_t trk_pushed_ = 0, trk_wait_ = 0;
  bool end_held_ = false;  // a WQE's end waited for the front end's sq_track
  uint64_t rd_pushed_ = 0;  // dma_rd_reqs pushed
  // sq_tracks pushed; the front end's last one (its headers wait for it)
  Cycle drain_at_ = 0;      // every queued WQE ended (and was tracked) by this cycle
  Cycle be_empty_at_ = 0;   // ... and its last header and payload beat were taken
  Cycle hdr_at_ = 0;        // the next cycle a header may leave
  Cycle out_wait_ = 0;      // the back end waited for its consumer: the next header that many cycles after now
  Cycle pay_at_ = 0;        // the next cycle a payload beat may leave
  Cycle iss_at_ = 0;        // the next cycle a payload read may be asked for
  enum class Stall { kNone, kRoom, kPort };  // why the walk's last try did not issue
  Stall stall_ = Stall::kNone;
  Cycle gap_ = 0;           // cycles the next piece waits after the last (a new SGE's first run)
  Cycle seek_ = 0;          // cycles the walk takes to reach a rewind's offset
  std::deque<Cycle> pend_;  // last beats of the payloads whose headers left (the RTL lets two wait)
  uint32_t cnt_pkts_ = 0;
  uint32_t ack_mask_ = (1u << spec::kCsrAckReqReset) - 1;
};

// The requester as a cycle-level Block (in 0 qp_cfg, 1 sq_db, 2 sq_retire, 3
// dma_rd, 4 mr_resp; out 0 dma_rd_req, 1 mr_req, 2 tx_hdr, 3 tx_payload, 4
// sq_track, 5 rd_hint), for the cross-check against the RTL.
// setup: run on the Requester once made (the port and GID table: set_port, set_gid).
std::unique_ptr<rocenic::Block> make_requester_block(unsigned data_bytes = 64, unsigned max_qp = 256,
                                                     const std::function<void(Requester&)>& setup = {});

}  // namespace rocenic::model
