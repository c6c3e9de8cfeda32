// The RC responder (rtl/xport/responder.sv) in the event-driven model:
// request packets in, payload placed in host memory, receive completions
// out, ACK/NAKs, READ responses (data read from host memory) and ATOMIC
// ACKNOWLEDGEs out (docs/engine.md, "Responder" and "Atomics"; IBTA 9.7, as
// Linux rxe's rxe_resp.c splits it: check the PSN, the opcode sequence, the
// lengths, the rights and keys, get a receive WQE, execute, acknowledge).
//
// Inputs: qp_cfg, rq_db (wq_db_t), rx_hdr (roce_rx_hdr_t of request
// packets) + rx_payload (one Packet per header with pay_len > 0),
// dma_rd_data (one Packet per dma_rd_req, user = poisoned), mr_resp,
// read_dma (one Packet per read_dma_req: a READ's data), read_mr_resp.
// Outputs: dma_rd_req (receive WQEs, flushed WQEs' wr_id, an atomic's 8
// bytes), mr_req, dma_wr_req + dma_wr_data (one Packet per request),
// tx_hdr (roce_tx_hdr_t: ACK/NAKs, READ responses, ATOMIC ACKNOWLEDGEs) +
// tx_payload (one Packet per header with pay_len > 0), cq_compl,
// read_dma_req, read_mr_req (a READ's later page runs: in the RTL the
// sender walks a READ, with this MR port of its own, so the checker never
// waits for responses to leave; here the walk stays in the checker, into an
// unbounded list, and asks on the same port in the same order).
//
// Three stages, as in the RTL: the checker decides one packet at a time
// (waiting for its key checks and receive WQE; a READ's walk cuts it into
// pieces that never cross a page run, a 4 KiB bus-address boundary or a
// response packet's end; an atomic (CMP_SWAP, FETCH_ADD) waits until
// placement has drained (earlier writes taken; not for earlier READs' data:
// the requester fences), reads its 8 bytes through dma_rd_req
// and decides the value to write and the original to answer), placement
// writes the decided packets' payload (an atomic's new value) in order and
// then hands their ACK (READ, ATOMIC ACKNOWLEDGE) to the sender and their
// completion out, and the sender (rtl/xport/responder_tx.sv) sends ACKs,
// ATOMIC ACKNOWLEDGEs (once the atomic's write was taken) and READ
// responses in that order, reading a READ's pieces ahead against a buffer
// of spec::kReadAhead bytes (four 4096-byte packets). Each QP keeps a replay cache of its 16 newest
// atomics' {psn, orig}: a duplicate atomic is answered from it, not
// executed again. A QP entering ERR has its receive queue flushed once
// placement has drained. Timing constants are at the top of responder.cc.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class Responder : public Process {
 public:
  // rq_heads: receive WQE heads prefetched (the RTL's RQ_HEADS: 4 for the block, spec::kRspRqHeads in the engine);
  // rq_ahead: ways per set, the WQEs a QP reads ahead (RQ_AHEAD: 2 for the block, spec::kRspRqAhead)
  Responder(Scheduler& s, unsigned data_bytes = 64, unsigned max_qp = 256, unsigned rq_heads = 4,
            unsigned rq_ahead = 2);

  In<spec::QpCfg> qp_cfg;
  In<spec::WqDb> rq_db;
  In<spec::RoceRxHdr> rx_hdr;
  In<Packet> rx_payload;
  In<Packet> dma_rd_data;
  In<spec::MrResp> mr_resp;
  In<Packet> read_dma;
  In<spec::MrResp> read_mr_resp;  // a READ's later page runs (the RTL's responder_tx walks)
  Out<spec::DmaRdReq> dma_rd_req{this};
  Out<spec::MrReq> mr_req{this};
  Out<spec::DmaWrReq> dma_wr_req{this};
  Out<Packet> dma_wr_data{this};
  Out<spec::RoceTxHdr> tx_hdr{this};
  Out<Packet> tx_payload{this};
  Out<spec::CqCompl> cq_compl{this};
  Out<spec::DmaRdReq> read_dma_req{this};
  Out<spec::MrReq> read_mr_req{this};


  std::vector<std::pair<std::string, uint32_t>> counters() const;
  // The checker takes a new input (qp_cfg, rq_db, rx_hdr) only when free;
  // a qp_cfg only once placement has drained too.
  bool accepting() const { return st_ == St::kIdle; }
  bool answer_ends_packet(const spec::MrResp& r) const;  // (the rx_hdr take beside it: see make_responder_block)
  bool placing() const { return st_ != St::kIdle || !placing_.empty(); }
  bool busy() const { return placing() || !tx_jobs_.empty() || !pf_out_.empty(); }
  void run() override;

 private:
  enum class Kind : uint8_t { kNone, kSend, kWrite };
  struct Sge {
    uint64_t addr = 0;
    uint32_t len = 0, lkey = 0;
  };
  // An executed atomic, for answering its duplicates.
  struct AtomEntry {
    uint32_t psn = 0;
    uint64_t orig = 0;
  };
  struct Qp {
    bool valid = false, rc = false, uc = false, ud = false;
    uint32_t qkey = 0;  // UD: the Q_Key a datagram must carry
    uint8_t state = 0;
    uint16_t pd = 0;
    uint8_t access = 0, pmtu = 0;
    bool rd_res = false;  // max_dest_rd_atomic > 0: it answers READ requests and atomics
    uint64_t rq_base = 0;
    uint8_t rq_lsz = 0;
    uint16_t recv_cq = 0;
    uint32_t dest_qpn = 0;
    uint8_t min_rnr = 0, sl = 0;
    uint16_t pi = 0, ci = 0;
    uint32_t epsn = 0, msn = 0;
    bool nak_sent = false;
    // the message in progress
    Kind kind = Kind::kNone;
    bool drop = false;  // UC: the rest of the current message is dropped (a packet of it was)
    uint64_t wr_id = 0;
    uint8_t nsge = 0;
    uint64_t total = 0, placed = 0;  // SEND: SGE bytes, bytes placed
    uint8_t sidx = 0;                // SEND: current SGE and offset in it
    uint32_t soff = 0;
    uint64_t va = 0;                 // WRITE: next address, bytes left, rkey, RETH length
    uint32_t left = 0, rkey = 0, rlen = 0;
    uint64_t run_pa = 0;             // the current page run's bus address and bytes left in it
    uint32_t run_left = 0;
    std::array<Sge, spec::kMaxSge> sge{};
    // the replay cache: a ring of the newest atomics (written at atom_wp; atom_n valid, the newest before atom_wp)
    std::array<AtomEntry, spec::kMaxQpRdAtom> atom{};
    uint8_t atom_wp = 0, atom_n = 0;
    spec::QpCfg addr;  // where ACKs go (qp_cfg with source and destination as the QP sees them)
  };
  struct Piece {
    uint64_t pa = 0;
    uint32_t len = 0;
    bool zero = false;      // READ: no translation (the MR changed after the rkey check): zeros
    bool pkt_last = false;  // READ: ends a response packet
  };
  // What the checker decided for one packet.
  struct Verdict {
    uint16_t qpn = 0;
    uint32_t pay_len = 0;
    bool exec = false;
    std::vector<Piece> pieces;
    bool ack = false;
    uint8_t syn = 0;
    uint32_t psn = 0, msn = 0;
    bool cqe = false;
    spec::CqCompl completion;
    bool read = false;  // an RDMA READ: rlen bytes from pieces, responses from psn (msn in their AETH)
    uint32_t rlen = 0;
    uint8_t pmtu = 0;
    bool atomic = false;  // the answer is an ATOMIC ACKNOWLEDGE carrying orig; a piece (if any) writes wdata
    uint64_t orig = 0, wdata = 0;
    Cycle at = 0;  // decided
    Cycle data_end = 0;  // its last write's last data beat (0: nothing written)
    Cycle load = kNever;  // the cycle the placement issuer took it (kNever: not yet)
    size_t npieces = 0;   // ... and the pieces it had then
    Cycle next_req = 0;   // ... the earliest its next piece's request reaches the port
    bool post_stalled = false;  // the issuer waited for the post FIFO's room before it
    uint64_t pay_seq = 0;       // its payload's number (pay_len != 0)
    size_t issued = 0, sliced = 0;  // pieces whose request / data has been pushed
    uint64_t writes_after = 0;  // writes issued once it was issued
  };
  // What the sender sends next: an ACK/NAK, or a READ's responses.
  struct TxJob {
    spec::RoceTxHdr hdr;  // the ACK, or the first response's addressing, psn and AETH
    bool read = false;
    uint32_t rem = 0, mtu = 0;
    bool first = true;
    std::deque<Piece> pieces;  // not yet sent
    uint64_t after_writes = 0;  // an executed atomic's answer: sent once this many write packets were taken
    Cycle at = 0;               // in the sender's job FIFO (the earliest its first header leaves)
  };
  // A READ's pieces to read, and how many write packets had been placed before it.
  struct ReadPiece {
    Piece p;
    uint64_t after_writes = 0;
    Cycle at = 0;  // its READ's walk reaches it (the earliest its read can go)
  };
  // kAtomDrain: an atomic waits until placement has drained; kAtomRead: for its 8 bytes
  // kInv: a SEND with invalidate that passed waits for the INVALIDATE of its rkey
  // kWqeTail: a receive WQE's SGEs past the sixth, read after its head
  // kWqePf: the receive WQE is a prefetch table entry's (waiting for its data if it is still under way)
  // kWqeAsk: its read waits for the request port (the prefetch's request still there)
  // kDbAsk: a doorbell's prefetch waits for the request port (two requests already wait there);
  // kTailAsk: the tail's read waits for it
  enum class St { kIdle, kRkey, kWqe, kWqeAsk, kWqePf, kWqeTail, kRun, kAtomDrain, kAtomRead, kInv, kFlushWait, kFlush,
                  kDbAsk, kTailAsk };

  // checker steps
  void on_cfg(const spec::QpCfg& c);
  void on_db(const spec::WqDb& d);
  void on_hdr(const spec::RoceRxHdr& h);
  void after_rkey(const spec::MrResp& r);
  void get_wqe(bool in_hdr = false);  // in_hdr: a header's checks ask (C_HDR), not a later step
  void after_wqe(const Packet& p);
  void after_wqe_tail(const Packet& p);
  void use_wqe(const Packet& p);  // the whole receive WQE is in
  Packet wqe_head_;               // kWqeTail: the head read first
  void walk(bool answered = false, Cycle ask = kNever);  // cut the payload into pieces, asking for page runs as needed
                                     // (answered: right after a page run's answer; ask: cycles to
                                     // the run's request, kNever: kRkeyAsk, from C_WALK)
  void start_read();
  void walk_read();
  void after_run(const spec::MrResp& r);
  void start_atomic();
  void after_atomic(const Packet& p);
  void after_invalidate(const spec::MrResp& r);
  static const AtomEntry* replayed(const Qp& q, uint32_t psn);  // the newest valid cache entry with that PSN
  // placement has drained: every verdict carried out, every write request and data packet taken
  // (rtl/xport/responder.sv's `drained`: the placement stage idle, its slicer included)
  bool drained() { return placing_.empty() && dma_wr_req->empty() && dma_wr_data->empty(); }
  void fail(uint8_t syndrome, bool with_cqe, uint8_t status);
  static void end_message(Qp& q);  // no message in progress
  void decide();
  void start_flush(uint16_t from, uint16_t to);
  bool flush_step(Cycle now);
  spec::CqCompl recv_compl(const Qp& q) const;
  bool needs_wqe() const;
  bool is_last() const;
  // placement: false when an output is full
  struct PayIn {
    Packet p;
    Cycle at;  // its last beat in
  };
  bool issue(Cycle now);
  bool slice(Cycle now);
  bool post(Cycle now);
  const PayIn* payload(uint64_t seq);
  spec::RoceTxHdr ack_of(const Verdict& v) const;
  // the sender: false when nothing moved
  bool send_step(Cycle now);

  Scheduler& s_;
  unsigned bytes_;
  std::vector<Qp> qps_;

  // checker
  St st_ = St::kIdle;
  Cycle check_at_ = 0;  // the checker's next free cycle
  Cycle take_at_ = 0;   // ... and its next input's take (after a verdict decided on a page run's answer)
  spec::RoceRxHdr h_;
  unsigned qpn_ = 0;
  Qp cx_;               // working copy of the packet's QP
  bool unrel_ = false;  // the packet is for a UC or UD QP (IBTA 9.8: no ACK, no NAK)
  bool ud_ = false;     // ... for a UD QP
  bool is_send_ = false, is_write_ = false, imm_ = false;
  bool inv_ = false, inv_done_ = false;  // SEND_LAST_INV / SEND_ONLY_INV (IETH rkey in h_.imm); invalidated
  bool is_read_ = false, dup_ = false;  // an RDMA READ; a duplicate one, executed again
  bool is_atomic_ = false;              // CMP_SWAP or FETCH_ADD
  uint64_t atom_pa_ = 0;                // the atomic's bus address (from its rkey check)
  bool atom_waited_ = false;  // the atomic waited for earlier writes to drain
  bool zero_ = false;                   // the READ's later run failed its translation
  uint32_t pk_left_ = 0;                // the READ's bytes left in its current response packet
  Cycle walk_at_ = 0;                   // when its rkey check answered (the RTL decides it then)
  spec::Seg seg_ = spec::Seg::kOnly;
  uint32_t todo_ = 0;   // payload bytes not yet cut into pieces
  Verdict vd_;
  bool ok_ = false, write_back_ = false;
  bool fast_vd_ = false;  // decide(): the verdict is the answer's cycle's (no C_PUSH of its own)
  // The receive WQE prefetch (rtl/xport/responder_ctrl.sv): a set-associative
  // table, QP q's WQEs in set q mod (rq_heads / rq_ahead), any of its
  // rq_ahead ways, tagged {QP, index}. An RQ doorbell that leaves an open QP
  // (INIT, RTR, RTS) reads ahead the first of its WQEs ci .. ci + rq_ahead -
  // 1 that is posted and not in the set, into the set's first way neither
  // kept nor being read into, unless kRspRqPfOut reads are outstanding (no
  // way is taken from another WQE); get_wqe takes the way holding {QP, ci},
  // and taking it reads the first of ci + 1 .. ci + rq_ahead posted and not
  // in the set into that way (a WQE read by get_wqe does the same into a way
  // not kept, when it has no read in flight and the port has room). A
  // qp_cfg for the QP that resets, destroys or errors it, or moves its
  // ring, forgets its ways.
  struct Prefetch {
    bool busy = false;  // its read is outstanding
    bool keep = false;  // it holds (or will) the head of the WQE at {qpn, ci}
    unsigned qpn = 0;
    uint16_t ci = 0;
    Packet data;
    Cycle in_at = 0;  // its data's last beat in
  };
  std::vector<Prefetch> pf_;
  std::deque<unsigned> pf_out_;  // entries whose reads are in flight, oldest first: the next dma_rd_data is the front's
  unsigned pf_e_ = 0;            // kWqePf: the entry taken; kWqe: a way not kept (kNoWay: none)
  bool pf_routed_ = false;       // kWqePf: taken in C_ROUTE (else in C_HDR, a cycle sooner)
  uint16_t db_ci_ = 0;           // kDbAsk: the WQE the doorbell reads ahead ...
  unsigned db_e_ = 0;            // ... into this entry
  Cycle db_at_ = 0;              // ... and the earliest cycle of its read (had the port had room)
  unsigned tail_sges_ = 0;       // kTailAsk: the SGEs past the head
  void ask_tail(Cycle at);       // the read of the receive WQE's SGEs past the head
  unsigned pf_ahead_;  // ways per set
  static constexpr unsigned kNoWay = ~0u;
  unsigned pf_sets() const { return static_cast<unsigned>(pf_.size()) / pf_ahead_; }
  unsigned pf_entry(unsigned qpn, unsigned way) const { return way * pf_sets() + qpn % pf_sets(); }
  // the entry of the set holding {qpn, x} (kNoWay: none)
  unsigned pf_find(unsigned qpn, uint16_t x) const;
  // the first of WQEs from .. from + rq_ahead - 1 before pi that is not in the set (false: none)
  bool pf_missing(unsigned qpn, uint16_t from, uint16_t pi, uint16_t* x) const;
  // the set's first entry not kept (and, with idle, with no read in flight) (kNoWay: none)
  unsigned pf_free(unsigned qpn, bool idle) const;
  void prefetch(unsigned e, unsigned qpn, uint16_t x, const Qp& q, Cycle at);  // read WQE x of q into entry e
  // flush of a receive queue
  bool flush_pending_ = false;
  uint16_t fl_next_ = 0, fl_done_ = 0, fl_end_ = 0;
  unsigned fl_out_ = 0;
  unsigned fl_qpn_ = 0;
  Qp fl_q_;

  // placement
  // decided, in order: the first issued_ have been through the placement
  // issuer (their ACK and completion wait for their data), the rest wait for it
  // (a deque: the slicer's pointers into it stay valid as it grows and shrinks)
  std::deque<Verdict> placing_;
  size_t issued_ = 0;
  unsigned posts_waiting_ = 0;   // issued with a post entry (ACK, completion, READ) not yet sent
  struct Slice {
    Verdict* v;
    size_t index;  // its piece
    Cycle req;     // its request at the port
  };
  std::deque<Slice> slicing_;    // pieces issued, their data not yet written
  uint64_t writes_issued_ = 0;   // write requests pushed
  Cycle post_floor_ = 0;         // a packet without data posts after every earlier packet's data
  std::deque<PayIn> pays_;       // payloads taken ahead (pop_ahead) for pieces issued before they are in
  uint64_t pay_base_ = 0;        // the number of pays_.front() (verdicts with a payload, in order)
  uint64_t pay_next_ = 0;        // the number the next verdict with a payload takes
  std::deque<Cycle> slice_starts_;  // the slicer's start of the last pieces (the descriptor FIFO's room)
  Cycle place_at_ = 0;  // next free beat of the payload slicer
  Cycle issue_at_ = 0;  // the placement issuer's next verdict (rtl/xport/responder_place.sv)

  // sender
  std::deque<TxJob> tx_jobs_;
  std::deque<ReadPiece> rd_todo_;  // pieces of queued READs not yet read (zero ones skipped)
  Cycle rd_next_at_ = 0;           // the next read may go (one every kReadGap cycles)
  unsigned rd_pkts_ = 0;           // response packets whose reads were issued, header not yet sent (PKT_DEPTH)
  uint64_t writes_placed_ = 0;    // dma_wr_data packets pushed
  std::deque<Bytes> rd_data_;  // read data arrived, for the non-zero pieces at the front of tx_jobs_
  std::deque<Cycle> rd_data_at_;  // ... the cycle each arrived
  unsigned raw_free_;  // READ data read ahead: beats free (rtl/xport/responder_tx.sv RAW_DEPTH)
  // ... and beats given back later, as a response's payload streams out
  // ({cycle, beats}, in cycle order): the RTL frees a beat of its raw buffer
  // when the payload stream takes it, not when the header leaves
  std::deque<std::pair<Cycle, unsigned>> raw_release_;
  Cycle tx_at_ = 0;            // the next cycle a header may leave

  uint32_t c_acks_ = 0, c_rx_ = 0, c_noqp_ = 0, c_state_ = 0, c_oos_ = 0, c_dup_ = 0, c_acc_ = 0, c_inv_ = 0,
           c_rnr_ = 0, c_op_ = 0, c_rd_ = 0, c_qkey_ = 0;
};

// The responder as a cycle-level Block (in 0 qp_cfg, 1 rq_db, 2 rx_hdr, 3
// rx_payload, 4 dma_rd_data, 5 mr_resp, 6 read_dma; out 0 dma_rd_req, 1
// mr_req, 2 dma_wr_req, 3 dma_wr_data, 4 tx_hdr, 5 cq_compl, 6
// read_dma_req, 7 tx_payload), for the cross-check.
std::unique_ptr<rocenic::Block> make_responder_block(unsigned data_bytes = 64, unsigned max_qp = 256);

}  // namespace rocenic::model
