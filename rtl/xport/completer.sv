// completer: the requester side of IBTA RC reliability. Keeps, per QP, the
// window of send WQEs that have started (sq_track) and the PSNs sent and not
// yet acknowledged, [una, nxt); completes WQEs in order when the responder's
// ACKs cover them, or with an error on a NAK, a local failure, retry
// exhaustion or a move to ERR; and sends the requester back to an
// unacknowledged PSN on a PSN sequence NAK (go-back-N) (docs/engine.md,
// "Completer").
//
//   ACKNOWLEDGE packet (BTH opcode 0x11) as rx_dispatch hands it over:
//     BTH  | dst_qpn = our QP | psn = p |
//     AETH | syndrome[7:0] | msn[23:0] |
//   A response matches only if its QP is valid and not in ERR, its window is
//   not empty and p is in [una, nxt); anything else is dropped and counted
//   (cnt_unmatched), never completing or failing a WQE.
//       syndrome 0xx_xxxxx  ACK          entries with last_psn <= p (24-bit serial) complete; una = p + 1
//       syndrome 011_00000  NAK PSN seq  entries before p complete; una = p; rewind to p while
//                                        retries last (sq_retire.rewind), else RETRY_EXC_ERR
//                                        (p past una is progress: the retries are reloaded first)
//       syndrome 001_ttttt  RNR NAK      entries before p complete; una = p; while rnr_retry lasts
//                                        (7: no limit) wait RNR time t, then rewind to p; else
//                                        RNR_RETRY_EXC_ERR. Other NAKs are ignored while waiting.
//       syndrome 011_00001  NAK inv req  REM_INV_REQ_ERR
//       syndrome 011_00010  NAK rem acc  REM_ACCESS_ERR
//       syndrome 011_00011  NAK rem op   REM_OP_ERR (also any other NAK code)
//       syndrome 010_xxxxx, 1xx_xxxxx    reserved: unmatched
//   A failing NAK completes (SUCCESS) the entries before p (IBTA: a NAK
//   acknowledges what precedes it), then the next entry with its status; the
//   rest are flushed. An entry whose own status is not SUCCESS (failed in the
//   requester before any packet), or that an amend marked failed, completes
//   failing when it reaches the head; every other flushed entry gets
//   WR_FLUSH_ERR. In ERR the window stays empty: entries complete as they
//   arrive. Errors always write a CQE. retry and rnr_left are reloaded from
//   retry_cnt and rnr_retry by every ACK that matches.
//
//   RDMA READ (IBTA 9.7.5.1.4, 9.7.5.2.7). A READ entry is completed only by
//   its responses, never by an ACK. A READ RESPONSE at PSN p (FIRST, MIDDLE,
//   LAST, ONLY; opcodes 0x0D..0x10) acknowledges the entries before p; the
//   head entry is then a READ, and p must be the next response it waits for
//   (una), with the opcode its position calls for (FIRST/ONLY when starting,
//   or after a rewind: the responder answers a re-request with a new
//   message; MIDDLE/LAST after FIRST/MIDDLE), and the length (mtu, the rest
//   on the last). An accepted response goes to read_place as a command
//   {qpn, wqe_idx, offset = (p - first_psn) * mtu, len, last}; every other
//   READ response as a drop command (its payload is discarded). After the
//   last response the READ completes when read_place answers rd_done with
//   its status (data written, or a local failure); no response is taken
//   meanwhile, so one READ at a time waits for rd_done.
//   A READ whose data was partly placed (rd_placed) and that now completes
//   otherwise (a NAK or retry exhaustion at its PSN, a flush to ERR, an
//   amend) first sends read_place a fence {wqe_idx, len 0, last, drop}: it
//   becomes the failed entry (fail_idx, fail_st), and completes failing on
//   rd_done, after every earlier command of it was placed, so no data lands
//   in its buffers after its completion. Every command carries the QP's
//   epoch (its RESETs and DESTROYs counted), so read_place drops one from
//   before a RESET. No qp_cfg is taken while a READ waits for rd_done.
//   Atomics (docs/engine.md, "Atomics"): an atomic entry (wc_opcode COMP_SWAP,
//   FETCH_ADD) is a one-packet READ of 8 bytes, and its ATOMIC ACKNOWLEDGE
//   (0x12, pay_len 8: rx_dispatch made its original data a payload) a READ
//   RESPONSE ONLY; neither fits the other kind (the response is dropped).
//   Implied NAK: a response (ACK, NAK, READ response) whose PSN lies past
//   the next response an unfinished READ at the head waits for says that
//   responses were lost: the QP goes back to una (counted implied_nak_seq_err),
//   using a retry, once per rewind (rd_retry: set by every rewind, cleared by
//   an accepted response or an ACK).
//
//   Timers (simulated time: the input `now`, engine clock cycles). While a
//   QP has requests outstanding its deadline is armed: the local ACK timeout
//   ACK_TIMEOUT_BASE << timeout (none for timeout 0), restarted by every
//   WQE started and every response that matches, or the RNR wait
//   (rnr_timer table). A scanner reads one QP's {armed, deadline} a cycle
//   (tmr_mem, a copy written with ctx_mem) and holds the first expired one
//   for the FSM, which takes it when no input waits: after an RNR wait, or
//   a timeout with retries left, the QP goes back to una (rewind); with
//   none left the head fails with RETRY_EXC_ERR. timer_next is a lower
//   bound of every armed deadline (lowered by each arm, recomputed every
//   scan lap), so a simulation may jump idle time up to it; the block is
//   not idle once it is due.
//
//   window of QP q: win_mem[{q, slot}], 16 slots, ring head/cnt in ctx_mem[q]
//   ctx_mem[q] = {valid, err, fail, fail_st[3:0], fail_idx[15:0], retry_cnt[2:0], retry[2:0],
//                 timeout[4:0], rnr_cfg[2:0], rnr_left[2:0], rnr_wait, armed, deadline[47:0],
//                 una[23:0], nxt[23:0], send_cq[15:0], head[3:0], cnt[4:0], pmtu[2:0], rd_mid, rd_retry,
//                 rd_placed, epoch[3:0]}
//
// One input at a time (taken in S_IDLE; a track or response also in S_CTX
// beside a plain append, in S_DONE, and in the S_WALK step of an ACK that
// completes its window's only entry, which writes the context back and
// retires there: ack_one, walk_take), by priority: qp_cfg (held back while a READ waits
// for rd_done), rd_done, sq_track (held back
// while its QP's window is full), rx_ack (held back while a READ waits for
// rd_done or a read_place command waits to be taken), then an expired timer
// (not while a READ waits for rd_done). sq_track before rx_ack: an ACK can only cover
// an entry that has been tracked, so when both wait the entry goes first.
// Both memories have a registered read (block RAM); ctx_mem is cleared by a
// sweep of MAX_QP cycles after reset. A walk over the window takes a cycle
// per entry. One sq_retire per event (ACK, NAK, failure at the head, TO_ERR,
// entry arriving in ERR) counts the entries it completed.
`default_nettype none

module completer #(
  parameter int MAX_QP = 256
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire logic [47:0]            now,          // engine clock cycles (wraps; deadlines compare serially)
  /* verilator lint_off UNUSEDSIGNAL */  // of qp_cfg the completer needs qpn, action, send_cq, pmtu and the retry settings only
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::sq_track_t    s_sq_track,
  input  wire logic                   s_sq_track_valid,
  output logic                        s_sq_track_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // of a response it needs dst_qpn, psn, opcode, pay_len and the AETH syndrome only
  input  wire roce_pkg::roce_rx_hdr_t s_rx_ack,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_rx_ack_valid,
  output logic                        s_rx_ack_ready,
  input  wire roce_pkg::rd_done_t     s_rd_done,
  input  wire logic                   s_rd_done_valid,
  output logic                        s_rd_done_ready,
  output roce_pkg::rd_place_t         m_rd_place,
  output logic                        m_rd_place_valid,
  input  wire logic                   m_rd_place_ready,
  output roce_pkg::cq_compl_t         m_cq_compl,
  output logic                        m_cq_compl_valid,
  input  wire logic                   m_cq_compl_ready,
  output roce_pkg::sq_retire_t        m_sq_retire,
  output logic                        m_sq_retire_valid,
  input  wire logic                   m_sq_retire_ready,
  output logic                        idle,
  output logic [47:0]                 timer_next,   // no armed deadline is earlier than this ...
  output logic                        timer_valid,  // ... when set (else none is armed)
  output logic [31:0]                 cnt_rx_acks,
  output logic [31:0]                 cnt_nak_received,
  output logic [31:0]                 cnt_packet_seq_err,
  output logic [31:0]                 cnt_unmatched,
  output logic [31:0]                 cnt_retransmits,
  output logic [31:0]                 cnt_retry_exceeded,
  output logic [31:0]                 cnt_ack_timeout,
  output logic [31:0]                 cnt_rnr_nak,
  output logic [31:0]                 cnt_rnr_exceeded,
  output logic [31:0]                 cnt_implied_nak
);
  localparam int QW = $clog2(MAX_QP);
  localparam int EW = roce_pkg::SQ_TRACK_W - 16;  // a window entry: sq_track without its qpn (the MSB field)
  localparam int CW = 173;

  initial begin
    if (MAX_QP < 2 || (1 << QW) != MAX_QP || MAX_QP > 65536) $error("completer: MAX_QP must be a power of two in 2..65536");
  end

  localparam logic [2:0] S_INIT = 3'd0, S_IDLE = 3'd1, S_CTX = 3'd2, S_WALK = 3'd3, S_ONE = 3'd4, S_DONE = 3'd5;
  localparam logic [2:0] K_CFG = 3'd0, K_TRK = 3'd1, K_ACK = 3'd2, K_TMR = 3'd3, K_RDD = 3'd4;
  localparam logic [1:0] T_KEEP = 2'd0, T_RESTART = 2'd1, T_RNR = 2'd2;  // what an event does to the timer
  // walks: M_ACK entries up to p; M_SEQ / M_RSP those before p, then stop;
  // M_NAK those before p, then the next fails; M_FLUSH all; M_RDD the head
  // READ with rd_done's status, then the entries already acknowledged
  localparam logic [2:0] M_ACK = 3'd0, M_NAK = 3'd1, M_FLUSH = 3'd2, M_SEQ = 3'd3, M_RSP = 3'd4, M_RDD = 3'd5;
  localparam logic [7:0] ST_SUCCESS = 8'(roce_pkg::WC_STATUS_SUCCESS);
  localparam logic [7:0] ST_FLUSH   = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);

  // ---- a QP's context, as read and as written
  typedef struct packed {
    logic        valid, err, fail;
    logic [3:0]  fail_st;
    logic [15:0] fail_idx;
    logic [2:0]  retry_cnt, retry;
    logic [4:0]  timeout;
    logic [2:0]  rnr_cfg, rnr_left;
    logic        rnr_wait, armed;
    logic [47:0] deadline;
    logic [23:0] una, nxt;
    logic [15:0] cq;
    logic [3:0]  head;
    logic [4:0]  cnt;
    logic [2:0]  pmtu;
    logic        rd_mid;                 // the head READ's last response taken was FIRST or MIDDLE
    logic        rd_retry;               // a rewind was sent and no response has been accepted since
    logic        rd_placed;              // a response of the head READ went to read_place
    logic [3:0]  epoch;                  // RESETs and DESTROYs of this QP number (as read_place counts them)
  } ctx_t;
  ctx_t ctx_wd;

  // serial order of 48-bit cycle counts (deadlines lie less than 2^47 ahead)
  /* verilator lint_off UNUSEDSIGNAL */  // of the difference only its sign counts
  function automatic logic earlier(input logic [47:0] a, input logic [47:0] b);
    logic [47:0] d;
    d = a - b;
    earlier = d[47];
  endfunction
  function automatic logic due(input logic [47:0] deadline);  // reached: now >= deadline
    logic [47:0] d;
    d = now - deadline;
    due = !d[47];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // ---- memories (plain vectors, registered reads: block RAM)
  logic [CW-1:0] ctx_mem [MAX_QP];
  logic [EW-1:0] win_mem [MAX_QP * 16];
  logic [QW-1:0]   ctx_ra, ctx_wa;
  logic [CW-1:0]   ctx_rd_q;
  logic            ctx_we;
  logic [QW+3:0]   win_ra, win_wa;
  logic [EW-1:0]   win_rd_q, win_wd;
  logic            win_we;

  always_ff @(posedge clk) begin
    // (write-first: an input taken in S_CTX reads its QP's context in the
    // cycle S_CTX writes the appended track's)
    ctx_rd_q <= (ctx_we && ctx_wa == ctx_ra) ? ctx_wd : ctx_mem[ctx_ra];
    if (ctx_we) ctx_mem[ctx_wa] <= ctx_wd;
  end
  always_ff @(posedge clk) begin
    win_rd_q <= win_mem[win_ra];
    if (win_we) win_mem[win_wa] <= win_wd;
  end
  // the timer copy: {armed, deadline} of every QP, written with ctx_mem, read
  // by the scanner (a write to the address being read is seen: write-first)
  logic [48:0]   tmr_mem [MAX_QP];
  logic [QW-1:0] scan_q, scan_d, scan_a_q, scan_a_d;  // address read now; the entry in tmr_rd_q
  logic          scan_v_q, scan_v_d;
  logic [48:0]   tmr_rd_q;
  always_ff @(posedge clk) begin
    tmr_rd_q <= (ctx_we && ctx_wa == scan_q) ? {ctx_wd.armed, ctx_wd.deadline} : tmr_mem[scan_q];
    if (ctx_we) tmr_mem[ctx_wa] <= {ctx_wd.armed, ctx_wd.deadline};
  end


  // ---- state
  logic [2:0]  st_q, st_d;
  logic [QW-1:0] init_q, init_d;
  logic              trk_full;         // the window of s_sq_track's QP holds 16 entries (the track waits)
  logic              full_we, full_wv;  // the state machine writes full of qpn_q (one-hot below)
  logic [2:0]  kind_q, kind_d;
  logic [QW-1:0] qpn_q, qpn_d;
  logic        inr_q, inr_d;           // the input's QPN is below MAX_QP
  logic [2:0]  act_q, act_d;           // qp_cfg action
  logic [15:0] scq_q, scq_d;           // qp_cfg send_cq
  logic [2:0]  rcfg_q, rcfg_d;         // qp_cfg retry_cnt
  logic [4:0]  tocfg_q, tocfg_d;       // qp_cfg timeout
  logic [2:0]  pmtu_q, pmtu_d;         // qp_cfg pmtu
  logic [2:0]  rnrcfg_q, rnrcfg_d;     // qp_cfg rnr_retry
  logic [EW-1:0] trk_q, trk_d;         // the sq_track taken (without qpn)
  logic [23:0] psn_q, psn_d;
  logic [7:0]  syn_q, syn_d;
  logic        ackop_q, ackop_d;       // the packet is an ACKNOWLEDGE ...
  logic        rsp_q, rsp_d;           // ... or a READ RESPONSE ...
  logic [1:0]  rop_q, rop_d;           // ... FIRST, MIDDLE, LAST, ONLY (opcode - 0x0D; an ATOMIC ACK: ONLY)
  logic        atom_q, atom_d;         // ... an ATOMIC ACKNOWLEDGE (its 8 bytes: a READ response ONLY)
  logic [12:0] plen_q, plen_d;         // its payload bytes
  logic [15:0] didx_q, didx_d;         // rd_done: the READ's wqe_idx
  logic        dw_q, dw_d;             // a READ's last response went to read_place: waiting for rd_done
  logic        una_a_q, una_a_d;       // the event's walk ends with una = psn_q + 1 (an ACK)
  ctx_t        w_q, w_d;               // working copy of the QP's context during a walk
  logic [2:0]  mode_q, mode_d;
  logic [7:0]  nst_q, nst_d;           // the failing NAK's status
  logic [7:0]  one_st_q, one_st_d;     // status of a single completion (S_ONE)
  logic [4:0]  rcnt_q, rcnt_d;         // entries retired in this event
  logic [4:0]  rdc_q, rdc_d;           // ... READs among them (sq_retire.rd_count)
  logic        rerr_q, rerr_d;         // the event moved the QP to ERR
  logic        rrw_q, rrw_d;           // the event rewinds the requester ...
  logic [15:0] rw_idx_q, rw_idx_d;     // ... to this WQE
  logic [23:0] rw_psn_q, rw_psn_d;     // ... whose first PSN is this
  logic        rwant_q, rwant_d;       // the event sends the QP back to psn_q (if its walk leaves entries)
  logic        una_p_q, una_p_d;       // the event's walk ends with una = psn_q (a NAK)
  logic [1:0]  tact_q, tact_d;         // T_*: what the event does to the QP's timer
  // timers: the expired QP the scanner holds; the bound of every deadline
  logic          hit_q, hit_d;
  logic [QW-1:0] hit_qpn_q, hit_qpn_d;
  logic          tn_v_q, tn_v_d, lap_v_q, lap_v_d;
  logic [47:0]   tn_q, tn_d, lap_q, lap_d;
  // outputs
  roce_pkg::cq_compl_t  cq_q, cq_d;
  logic                 cq_v_q, cq_v_d;
  roce_pkg::sq_retire_t rt_q, rt_d;
  logic                 rt_v_q, rt_v_d;
  roce_pkg::rd_place_t  rp_q, rp_d;
  logic                 rp_v_q, rp_v_d;
  logic [31:0] cnt_acks_q, cnt_acks_d, cnt_nak_q, cnt_nak_d, cnt_seq_q, cnt_seq_d, cnt_unm_q, cnt_unm_d,
               cnt_rw_q, cnt_rw_d, cnt_exc_q, cnt_exc_d, cnt_to_q, cnt_to_d, cnt_rnr_q, cnt_rnr_d,
               cnt_rnx_q, cnt_rnx_d, cnt_imp_q, cnt_imp_d;

  // ---- decoded
  ctx_t        c;                      // the QP's context read in S_CTX
  /* verilator lint_off UNUSEDSIGNAL */  // entry views: the qpn field is implied by the window, amend is not kept
  roce_pkg::sq_track_t e, t;           // the window entry read in S_WALK, the sq_track taken
  /* verilator lint_on UNUSEDSIGNAL */
  roce_pkg::cq_compl_t cq_new;
  logic        trk_inr, trk_blocked, take_cfg, take_rdd, take_trk, take_ack, take_tmr;
  logic        syn_rnr, rnr_ok, c_due, scan_hit, scan_stale;
  logic [2:0]  seq_retry;              // retries left for a PSN sequence NAK
  logic [1:0]  tact_w;                 // the timer action applied to a ctx_mem write this cycle
  logic [47:0] scan_dl;
  logic        cq_free, rt_free;
  logic        syn_ack, syn_nak, syn_seq, in_range;
  logic [7:0]  syn_st;
  logic        e_cq, e_err, e_stop, e_amended, e_failed, e_rd, e_atom, e_acked, e_fence, cfg_wait, trk_local;
  logic [7:0]  e_st;
  logic [23:0] d_psn, d_una, a_off, a_rng, w_off, rd_k;
  logic        rd_head, rd_fits, rd_last, implied, rsp_syn_ok, rx_rsp, rx_atom, rx_ackop;
  logic        trk_rd;
  logic [31:0] rd_mtu, rd_offset, rd_len;
  logic [1:0]  rd_rop;
  logic [23:0] e_una;                  // una once entry e is complete
  logic        ack_last;               // ... the last one, by an ACK: the walk stops with it

  // S_CTX with a new WQE's track that only appends to its QP's window (the
  // FSM is free in the next cycle) takes the next track or response itself
  logic ctx_take;
  // S_DONE, as it writes the context back, takes the next track or response
  // too (its context read gets the one written: ctx_mem's read is write-first),
  // unless the retire before it still waits (only registers: no ready of a
  // neighbour in these readies)
  logic done_take;
  // S_WALK of an ACK that completes one entry, its window's last, writes the
  // context back and retires in that step (no S_DONE) when the retire port
  // is free (ack_one), and takes the next track or response in it when the
  // completion and retire before it have left (walk_take: registers only)
  logic ack_one, walk_take;
  /* verilator lint_off UNUSEDSIGNAL */  // (copies of t and c: the fields the append's test reads)
  roce_pkg::sq_track_t ct_t;
  ctx_t ct_c;
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    ct_t = {16'b0, trk_q};
    ct_c = ctx_rd_q;
    done_take = st_q == S_DONE && (!rt_v_q || (rcnt_q == 5'd0 && !rerr_q && !rrw_q));
    ctx_take = st_q == S_CTX && kind_q == K_TRK && inr_q && ct_c.valid && !ct_t.amend && !ct_c.cnt[4] &&
               !(ct_c.err || (ct_c.cnt == 5'd0 && (ct_t.status != ST_SUCCESS || ct_t.wc_opcode == roce_pkg::WC_OPCODE_BIND_MW ||
                                                  ct_t.wc_opcode == roce_pkg::WC_OPCODE_LOCAL_INV || ct_t.unacked)));
  end

  always_comb begin
    c = ctx_rd_q;
    e = {16'b0, win_rd_q};
    t = {16'b0, trk_q};
    cq_free = !cq_v_q || m_cq_compl_ready;
    rt_free = !rt_v_q || m_sq_retire_ready;

    rx_atom  = s_rx_ack.opcode == roce_pkg::OP_RC_ATOMIC_ACK;
    rx_rsp   = (s_rx_ack.opcode >= roce_pkg::OP_RC_READ_RESP_FIRST && s_rx_ack.opcode <= roce_pkg::OP_RC_READ_RESP_ONLY)
               || rx_atom;
    rx_ackop = s_rx_ack.opcode == roce_pkg::OP_RC_ACK;

    // AETH syndrome classes (IBTA 9.7.5.1)
    syn_ack = syn_q[7:5] == 3'b000;
    syn_nak = syn_q[7:5] == 3'b001 || syn_q[7:5] == 3'b011;
    syn_seq = syn_q == 8'h60;
    syn_rnr = syn_q[7:5] == 3'b001;
    rnr_ok  = syn_rnr && (c.rnr_cfg == 3'd7 || c.rnr_left != 3'd0);  // an RNR retry is left (7: no limit)
    c_due   = due(c.deadline);
    // a PSN sequence NAK past una acknowledges packets: progress, the retries are back
    seq_retry = psn_q != c.una ? c.retry_cnt : c.retry;
    if (syn_q[7:5] == 3'b001) syn_st = 8'(roce_pkg::WC_STATUS_RNR_RETRY_EXC_ERR);
    else begin
      case (syn_q[4:0])
        5'd0:    syn_st = 8'(roce_pkg::WC_STATUS_RETRY_EXC_ERR);
        5'd1:    syn_st = 8'(roce_pkg::WC_STATUS_REM_INV_REQ_ERR);
        5'd2:    syn_st = 8'(roce_pkg::WC_STATUS_REM_ACCESS_ERR);
        default: syn_st = 8'(roce_pkg::WC_STATUS_REM_OP_ERR);
      endcase
    end
    // the response's PSN among those outstanding: [una, nxt)
    a_off = psn_q - c.una;
    a_rng = c.nxt - c.una;
    in_range = c.cnt != 5'd0 && a_off < a_rng;

    // what the head entry does in S_WALK: complete with e_st, a CQE
    // (e_cq), the QP entering ERR (e_err); or stop the walk (e_stop)
    d_psn  = psn_q - e.last_psn;          // last_psn at or before p: d < 2^23
    d_una  = w_q.una - 24'd1 - e.last_psn; // last_psn before una (acknowledged): d < 2^23
    e_amended = w_q.fail && e.wqe_idx == w_q.fail_idx;
    e_failed  = e.status != ST_SUCCESS || e_amended;
    // an atomic entry is a one-packet READ whose response is an ATOMIC ACKNOWLEDGE
    e_atom    = e.wc_opcode == roce_pkg::WC_OPCODE_COMP_SWAP || e.wc_opcode == roce_pkg::WC_OPCODE_FETCH_ADD;
    e_rd      = e.wc_opcode == roce_pkg::WC_OPCODE_RDMA_READ || e_atom;
    trk_rd    = t.wc_opcode == roce_pkg::WC_OPCODE_RDMA_READ || t.wc_opcode == roce_pkg::WC_OPCODE_COMP_SWAP
                || t.wc_opcode == roce_pkg::WC_OPCODE_FETCH_ADD;
    e_acked   = d_una < 24'h800000;
    // a local operation has no PSN (last_psn = first_psn - 1): whatever
    // acknowledges the entry before it covers it
    trk_local = t.wc_opcode == roce_pkg::WC_OPCODE_BIND_MW || t.wc_opcode == roce_pkg::WC_OPCODE_LOCAL_INV
                || t.unacked;  // a UC WQE: sent, nothing will answer it
    w_off     = psn_q - w_q.una;          // p past the walk's una: w_off in (0, 2^23)
    e_cq = 1'b1; e_err = 1'b0; e_stop = 1'b0; e_st = ST_FLUSH;
    if (e_failed) begin
      e_st = e.status != ST_SUCCESS ? e.status : {4'd0, w_q.fail_st};  // a local failure keeps its status
      e_err = 1'b1;
    end else if (mode_q == M_FLUSH) begin
      e_st = ST_FLUSH;
    end else if (mode_q == M_RDD) begin
      // the first entry: the READ rd_done answers (all its responses taken);
      // then entries acknowledged while it waited
      if (rcnt_q == 5'd0 ? (e_rd && e.wqe_idx == didx_q && e_acked) : (!e_rd && e_acked)) begin
        e_st = rcnt_q == 5'd0 ? nst_q : ST_SUCCESS;
        if (e_st == ST_SUCCESS) e_cq = e.signaled;
        else e_err = 1'b1;
      end else begin
        e_cq = 1'b0; e_stop = 1'b1;
      end
    end else if (e_rd && !(mode_q == M_NAK && w_off == 24'd0)) begin
      e_cq = 1'b0; e_stop = 1'b1;         // only its responses complete a READ (a NAK at una fails it)
    end else if (!d_psn[23] && (mode_q == M_ACK || d_psn != 24'd0)) begin
      e_st = ST_SUCCESS; e_cq = e.signaled;  // covered (a NAK covers what is before p)
    end else if (mode_q == M_NAK) begin
      e_st = nst_q; e_err = 1'b1;
    end else begin
      e_cq = 1'b0; e_stop = 1'b1;
    end
    e_una = (e.last_psn + 24'd1 - w_q.una) < 24'h800000 ? e.last_psn + 24'd1 : w_q.una;  // una never goes back
    ack_last = st_q == S_WALK && kind_q == K_ACK && mode_q == M_ACK && !rsp_q && una_a_q && !w_q.err &&
               w_q.cnt == 5'd1 && !e_stop && !e_err;
    ack_one   = ack_last && rcnt_q == 5'd0 && rt_free;
    walk_take = ack_last && rcnt_q == 5'd0 && !rt_v_q && !cq_v_q;

    // the inputs' readies (after the walk's step: walk_take)
    trk_inr     = 32'(s_sq_track.qpn) < 32'(MAX_QP);
    // (an amend waits while a READ waits for rd_done: the walk it starts may fence)
    // (taken in S_CTX beside a plain append: a track for the same QP waits
    // if the append fills its window, full follows a cycle later)
    trk_blocked = s_sq_track.amend ? dw_q : trk_inr && (trk_full ||
                  (ctx_take && s_sq_track.qpn[QW-1:0] == qpn_q && c.cnt == 5'd15));
    cfg_wait = s_qp_cfg_valid && !dw_q;  // a qp_cfg that goes first
    s_qp_cfg_ready   = st_q == S_IDLE && !dw_q;
    s_rd_done_ready  = st_q == S_IDLE && !cfg_wait;
    s_sq_track_ready = (st_q == S_IDLE || ctx_take || done_take || walk_take) && !cfg_wait && !s_rd_done_valid && !trk_blocked;
    s_rx_ack_ready   = (st_q == S_IDLE || ctx_take || done_take || walk_take) && !cfg_wait && !s_rd_done_valid && !(s_sq_track_valid && !trk_blocked)
                       && !dw_q && !rp_v_q;
    take_cfg = s_qp_cfg_valid && s_qp_cfg_ready;
    take_rdd = s_rd_done_valid && s_rd_done_ready;
    take_trk = s_sq_track_valid && s_sq_track_ready;
    take_ack = s_rx_ack_valid && s_rx_ack_ready;
    take_tmr = st_q == S_IDLE && hit_q && !cfg_wait && !s_rd_done_valid && !(s_sq_track_valid && !trk_blocked)
               && !s_rx_ack_valid && !dw_q;
    // a partly placed READ completing otherwise than by rd_done: fence first
    e_fence = e_rd && w_q.rd_placed && mode_q != M_RDD && !e_stop;

    // where a walk stopped: at an unfinished READ (rd_head), which the
    // response at p answers (rd_fits: its next response, the opcode and
    // length its position calls for) or shows responses were lost (implied)
    rd_head   = w_q.cnt != 5'd0 && e_stop && e_rd && mode_q != M_RDD;
    rd_last   = psn_q == e.last_psn;
    rd_rop    = w_q.rd_mid ? (rd_last ? 2'd2 : 2'd1) : (rd_last ? 2'd3 : 2'd0);
    rd_mtu    = 32'd1 << (5'd7 + 5'(w_q.pmtu));
    rd_k      = psn_q - e.first_psn;      // the response's packet index in its READ
    rd_offset = 32'(rd_k) << (5'd7 + 5'(w_q.pmtu));
    rd_len    = rd_last ? e.byte_len - rd_offset : rd_mtu;
    rsp_syn_ok = rop_q == 2'd1 || syn_ack;  // FIRST, LAST, ONLY carry an AETH that must say ACK
    // after a rewind into the READ (una past its first PSN) the responder
    // answers the re-request as a new message (FIRST/ONLY, as ours does) or
    // replays the old one from there (MIDDLE/LAST, as Linux rxe does)
    rd_fits   = rd_head && w_off == 24'd0 && 32'(plen_q) == rd_len && rsp_syn_ok && atom_q == e_atom
                && (rop_q == rd_rop || (!w_q.rd_mid && rd_k != 24'd0 && rop_q == (rd_last ? 2'd2 : 2'd1)));
    implied   = rd_head && !w_off[23] && (mode_q == M_ACK || w_off != 24'd0);

    // the completion written in S_WALK (entry e) or S_ONE (the sq_track taken)
    cq_new = '0;
    cq_new.cq          = w_q.cq;
    cq_new.qp_num      = 24'(qpn_q);
    cq_new.wr_id       = st_q == S_ONE ? t.wr_id : e.wr_id;
    cq_new.byte_len    = st_q == S_ONE ? t.byte_len : e.byte_len;
    cq_new.opcode      = st_q == S_ONE ? t.wc_opcode : e.wc_opcode;
    cq_new.wqe_counter = st_q == S_ONE ? t.wqe_idx : e.wqe_idx;
    cq_new.status      = st_q == S_ONE ? one_st_q : e_st;

    // defaults: hold
    st_d = st_q; init_d = init_q; full_we = 1'b0; full_wv = 1'b0;
    kind_d = kind_q; qpn_d = qpn_q; inr_d = inr_q; act_d = act_q; scq_d = scq_q; rcfg_d = rcfg_q; trk_d = trk_q;
    tocfg_d = tocfg_q; rnrcfg_d = rnrcfg_q; pmtu_d = pmtu_q;
    psn_d = psn_q; syn_d = syn_q; ackop_d = ackop_q; w_d = w_q;
    rsp_d = rsp_q; rop_d = rop_q; atom_d = atom_q; plen_d = plen_q; didx_d = didx_q; dw_d = dw_q; una_a_d = una_a_q;
    rp_d = rp_q; rp_v_d = rp_v_q && !m_rd_place_ready;
    mode_d = mode_q; nst_d = nst_q; one_st_d = one_st_q; rcnt_d = rcnt_q; rdc_d = rdc_q; rerr_d = rerr_q;
    rrw_d = rrw_q; rw_idx_d = rw_idx_q; rw_psn_d = rw_psn_q;
    rwant_d = rwant_q; una_p_d = una_p_q; tact_d = tact_q; tact_w = T_KEEP; hit_d = hit_q; hit_qpn_d = hit_qpn_q;
    cq_d = cq_q; cq_v_d = cq_v_q && !m_cq_compl_ready;
    rt_d = rt_q; rt_v_d = rt_v_q && !m_sq_retire_ready;
    cnt_acks_d = cnt_acks_q; cnt_nak_d = cnt_nak_q; cnt_seq_d = cnt_seq_q; cnt_unm_d = cnt_unm_q;
    cnt_rw_d = cnt_rw_q; cnt_exc_d = cnt_exc_q; cnt_to_d = cnt_to_q; cnt_rnr_d = cnt_rnr_q; cnt_rnx_d = cnt_rnx_q;
    cnt_imp_d = cnt_imp_q;
    ctx_ra = qpn_q; ctx_we = 1'b0; ctx_wa = qpn_q; ctx_wd = '0;
    win_ra = {qpn_q, w_q.head}; win_we = 1'b0; win_wa = {qpn_q, w_q.head}; win_wd = trk_q;

    case (st_q)
      S_INIT: begin
        ctx_we = 1'b1; ctx_wa = init_q; ctx_wd = '0;
        init_d = init_q + 1'b1;
        if (init_q == QW'(MAX_QP - 1)) st_d = S_IDLE;
      end

      S_IDLE: ;  // (the takes below)

      S_CTX: begin
        st_d = S_IDLE;
        w_d = c;
        rcnt_d = '0; rdc_d = '0; rerr_d = 1'b0; rrw_d = 1'b0; rwant_d = 1'b0; una_p_d = 1'b0; una_a_d = 1'b0; tact_d = T_KEEP;
        win_ra = {qpn_q, c.head};
        case (kind_q)
          K_CFG: if (inr_q) begin
            ctx_we = 1'b1;
            ctx_wd = c;
            ctx_wd.cq = scq_q;
            ctx_wd.pmtu = pmtu_q;
            ctx_wd.retry_cnt = rcfg_q;
            ctx_wd.retry = rcfg_q;
            ctx_wd.timeout = tocfg_q;
            ctx_wd.rnr_cfg = rnrcfg_q;
            ctx_wd.rnr_left = rnrcfg_q;
            if (act_q == roce_pkg::QP_ACTION_RESET) begin
              ctx_wd = '0;
              ctx_wd.epoch = c.epoch + 4'd1;
              ctx_wd.valid = 1'b1; ctx_wd.cq = scq_q; ctx_wd.retry_cnt = rcfg_q; ctx_wd.retry = rcfg_q;
              ctx_wd.timeout = tocfg_q; ctx_wd.rnr_cfg = rnrcfg_q; ctx_wd.rnr_left = rnrcfg_q;
              ctx_wd.pmtu = pmtu_q;
              full_we = 1'b1; full_wv = 1'b0;
            end else if (act_q == roce_pkg::QP_ACTION_DESTROY) begin
              ctx_wd = '0;
              ctx_wd.epoch = c.epoch + 4'd1;
              full_we = 1'b1; full_wv = 1'b0;
            end else if (!c.valid) begin
              ctx_we = 1'b0;                   // attributes of a QP that does not exist
            end else if (act_q == roce_pkg::QP_ACTION_TO_ERR) begin
              ctx_wd.err = 1'b1; ctx_wd.fail = 1'b0;
              if (c.cnt != 5'd0) begin         // flush the window
                ctx_we = 1'b0;
                w_d = ctx_wd;
                mode_d = M_FLUSH; rerr_d = 1'b1;
                st_d = S_WALK;
              end
            end
          end

          K_TRK: begin
            if (!inr_q || !c.valid) begin
              st_d = S_IDLE;                   // no such QP: dropped
            end else if (t.amend) begin
              // a tracked WQE failed while being sent: it fails when it
              // reaches the head (now, if it is there); an earlier failure
              // still waiting (an amend, a fence) flushes it anyway
              if (!c.err && !c.fail) begin
                w_d.fail = 1'b1; w_d.fail_idx = t.wqe_idx; w_d.fail_st = t.status[3:0];
                psn_d = c.una;                 // covers nothing
                mode_d = M_SEQ;
                st_d = S_WALK;
              end
            end else if (c.err || (c.cnt == 5'd0 && (t.status != ST_SUCCESS || trk_local))) begin
              // completes at once: flushed, a local failure, or a local
              // operation (BIND_MW, LOCAL_INV: done in the requester, no
              // packet) with nothing ahead of it; only the local success
              // keeps the QP out of ERR
              one_st_d = (c.err && t.status == ST_SUCCESS) ? ST_FLUSH : t.status;
              w_d.err = c.err || t.status != ST_SUCCESS;
              rcnt_d = 5'd1; rerr_d = c.err || t.status != ST_SUCCESS;
              rdc_d = 5'(trk_rd);
              st_d = S_ONE;
            end else if (!c.cnt[4]) begin      // append (a full window was held back)
              win_we = 1'b1;
              win_wa = {qpn_q, c.head + c.cnt[3:0]};
              ctx_we = 1'b1;
              ctx_wd = c;
              if (c.cnt == 5'd0) ctx_wd.una = t.first_psn;
              ctx_wd.nxt = t.last_psn + 24'd1;
              ctx_wd.cnt = c.cnt + 5'd1;
              tact_w = c.rnr_wait ? T_KEEP : T_RESTART;  // an RNR wait runs its course
              full_we = 1'b1; full_wv = c.cnt == 5'd15;
            end
          end

          K_RDD: begin
            // read_place wrote (or failed) a READ's data: complete it if it is
            // the head, waiting (else the QP was flushed or reset meanwhile)
            if (inr_q && c.valid && !c.err && c.cnt != 5'd0) begin
              mode_d = M_RDD; tact_d = T_RESTART;
              st_d = S_WALK;
            end
          end

          default: begin  // K_ACK
            rp_d.epoch = inr_q ? c.epoch : 4'd0;
            if (inr_q && c.valid && (ackop_q || rsp_q)) begin
              if (ackop_q && syn_nak) cnt_nak_d = cnt_nak_q + 32'd1;
              if (c.err || !in_range || (ackop_q ? !(syn_ack || syn_nak) : !rsp_syn_ok)) begin
                cnt_unm_d = cnt_unm_q + 32'd1;
                if (rsp_q) rp_v_d = 1'b1;
              end else if (rsp_q) begin
                mode_d = M_RSP;
                st_d = S_WALK;
              end else begin
                if (syn_seq) cnt_seq_d = cnt_seq_q + 32'd1;
                if (!(syn_nak && c.rnr_wait)) begin  // waiting out an RNR NAK: later NAKs say nothing new
                  nst_d = syn_st;
                  tact_d = T_RESTART;
                  if (syn_seq && seq_retry == 3'd0) cnt_exc_d = cnt_exc_q + 32'd1;
                  if (syn_rnr && rnr_ok) cnt_rnr_d = cnt_rnr_q + 32'd1;
                  if (syn_rnr && !rnr_ok) cnt_rnx_d = cnt_rnx_q + 32'd1;
                  if (syn_ack) begin
                    una_a_d = 1'b1;
                    w_d.retry = c.retry_cnt;     // progress
                    w_d.rnr_left = c.rnr_cfg;
                  end
                  if (syn_seq && seq_retry != 3'd0) begin  // go back N (the retry is used when it does)
                    w_d.retry = seq_retry;
                    rwant_d = 1'b1; una_p_d = 1'b1;
                  end
                  if (rnr_ok) begin                // wait, then go back (K_TMR)
                    if (c.rnr_cfg != 3'd7) w_d.rnr_left = c.rnr_left - 3'd1;
                    una_p_d = 1'b1;
                    tact_d = T_RNR;
                  end
                  mode_d = syn_ack ? M_ACK : ((syn_seq && seq_retry != 3'd0) || rnr_ok) ? M_SEQ : M_NAK;
                  st_d = S_WALK;
                end
              end
            end else begin
              cnt_unm_d = cnt_unm_q + 32'd1;
              if (rsp_q) rp_v_d = 1'b1;
            end
          end

          K_TMR: begin
            // an expired timer (the scanner saw it; the context is the truth)
            if (c.valid && !c.err && c.cnt != 5'd0 && c.armed && c_due) begin
              psn_d = c.una;
              tact_d = T_RESTART;
              if (!c.rnr_wait) cnt_to_d = cnt_to_q + 32'd1;
              if (c.rnr_wait || c.retry != 3'd0) begin
                // the RNR time is over, or no response came in time: send
                // again from una (an amended head fails instead)
                if (!c.rnr_wait) w_d.retry = c.retry - 3'd1;
                rwant_d = 1'b1;
                mode_d = M_SEQ;
              end else begin
                cnt_exc_d = cnt_exc_q + 32'd1;
                nst_d = 8'(roce_pkg::WC_STATUS_RETRY_EXC_ERR);
                mode_d = M_NAK;
              end
              st_d = S_WALK;
            end
          end
        endcase
      end

      S_WALK: begin
        if (w_q.cnt == 5'd0 || e_stop) begin
          if (mode_q == M_RSP && rd_fits) begin
            // the READ's next response: its data goes to read_place
            w_d.una = psn_q + 24'd1; w_d.rd_mid = !rd_last; w_d.rd_retry = 1'b0; w_d.rd_placed = 1'b1;
            w_d.retry = w_q.retry_cnt; w_d.rnr_left = w_q.rnr_cfg;  // progress
            tact_d = T_RESTART;
            rp_d.wqe_idx = e.wqe_idx; rp_d.offset = rd_offset; rp_d.last = rd_last; rp_d.drop = 1'b0;
            if (rd_last) dw_d = 1'b1;
          end else if (implied) begin
            // responses of the head READ were lost: back to una, once per rewind
            cnt_imp_d = cnt_imp_q + 32'd1;
            tact_d = T_KEEP;
            if (!w_q.rd_retry && w_q.retry != 3'd0) begin
              rrw_d = 1'b1; rw_idx_d = e.wqe_idx; rw_psn_d = e.first_psn; psn_d = w_q.una;
              cnt_rw_d = cnt_rw_q + 32'd1;
              w_d.retry = w_q.retry - 3'd1; w_d.rd_retry = 1'b1; w_d.rd_mid = 1'b0;
              tact_d = T_RESTART;
            end
          end else begin
            if (kind_q == K_ACK && rsp_q) cnt_unm_d = cnt_unm_q + 32'd1;  // (also when the walk met a failed entry)
            if (una_a_q && !w_q.err) begin
              w_d.una = psn_q + 24'd1;
              w_d.rd_retry = 1'b0;
            end
            if (una_p_q && !w_q.err) w_d.una = psn_q;
            if (rwant_q && mode_q == M_SEQ && w_q.cnt != 5'd0) begin
              // go back N: the requester sends again from psn_q (the NAKed PSN, or una)
              rrw_d = 1'b1; rw_idx_d = e.wqe_idx; rw_psn_d = e.first_psn;
              cnt_rw_d = cnt_rw_q + 32'd1;
              if (kind_q == K_ACK) w_d.retry = w_q.retry - 3'd1;  // (a timer used its retry when it expired)
              w_d.rd_retry = 1'b1; w_d.rd_mid = 1'b0;
            end
          end
          if (kind_q == K_ACK && rsp_q) rp_v_d = 1'b1;  // every READ response: a command (a drop unless accepted)
          // acknowledged before it failed (the requester's back end ends a WQE
          // after later ones were tracked: the head may be past it already)
          if (kind_q == K_TRK && (w_q.cnt == 5'd0 || 16'(e.wqe_idx - w_q.fail_idx - 16'd1) < 16'h7FFF)) w_d.fail = 1'b0;
          st_d = S_DONE;
        end else if (e_fence) begin
          // its earlier commands may still be placing data: it fails once
          // read_place has answered the fence (K_RDD); the QP is not in ERR
          // before (a flush marks it then)
          if (!rp_v_q) begin
            rp_d = '0;
            rp_d.qpn = 16'(qpn_q); rp_d.wqe_idx = e.wqe_idx; rp_d.last = 1'b1; rp_d.drop = 1'b1;
            rp_d.epoch = w_q.epoch;
            rp_v_d = 1'b1; dw_d = 1'b1;
            w_d.fail = 1'b1; w_d.fail_idx = e.wqe_idx; w_d.fail_st = e_st[3:0]; w_d.err = 1'b0;
            rerr_d = 1'b1;           // the requester stops now (sq_retire with error)
            st_d = S_DONE;
          end
        end else if (!e_cq || cq_free) begin
          if (e_cq) begin
            cq_d = cq_new;
            cq_v_d = 1'b1;
          end
          if (e_err) begin
            w_d.err = 1'b1; rerr_d = 1'b1; mode_d = M_FLUSH;
          end
          w_d.head = w_q.head + 4'd1;
          w_d.cnt = w_q.cnt - 5'd1;
          w_d.una = e_una;
          w_d.rd_placed = 1'b0;   // (only the head READ has responses placed)
          rcnt_d = rcnt_q + 5'd1;
          rdc_d = rdc_q + 5'(e_rd);
          win_ra = {qpn_q, w_q.head + 4'd1};
          // an ACK that completes the window's last entry stops in this step
          // (its stop step would find the window empty and only set una)
          if (ack_last) begin
            w_d.una = psn_q + 24'd1;
            w_d.rd_retry = 1'b0;
            st_d = S_DONE;
            if (ack_one) begin  // S_DONE's work in this step: one entry retired, the context written
              rt_d = '0;
              rt_d.qpn = 16'(qpn_q);
              rt_d.count = 5'd1;
              rt_d.rd_count = 5'(e_rd);
              rt_v_d = 1'b1;
              ctx_we = 1'b1;
              ctx_wd = w_d;
              tact_w = tact_q;
              full_we = 1'b1; full_wv = 1'b0;
              st_d = S_IDLE;
            end
          end
        end
      end

      S_ONE: begin
        // a local operation's success writes a CQE only when signaled
        if (one_st_q == ST_SUCCESS && !t.signaled) begin
          st_d = S_DONE;
        end else if (cq_free) begin
          cq_d = cq_new;
          cq_v_d = 1'b1;
          st_d = S_DONE;
        end
      end

      S_DONE: begin
        if (rt_free || (rcnt_q == 5'd0 && !rerr_q && !rrw_q)) begin
          if (rcnt_q != 5'd0 || rerr_q || rrw_q) begin
            rt_d = '0;
            rt_d.qpn = 16'(qpn_q);
            rt_d.count = rcnt_q;
            rt_d.rd_count = rdc_q;
            rt_d.error = rerr_q;
            rt_d.rewind = rrw_q;
            if (rrw_q) begin
              rt_d.rw_idx = rw_idx_q;
              rt_d.rw_psn = rw_psn_q;
              rt_d.rw_skip = psn_q - rw_psn_q;
            end
            rt_v_d = 1'b1;
          end
          ctx_we = 1'b1;
          ctx_wd = w_q;
          tact_w = tact_q;
          full_we = 1'b1; full_wv = w_q.cnt == 5'd16;
          st_d = S_IDLE;
        end
      end

      default: st_d = S_IDLE;
    endcase
    // the takes: in S_IDLE, or in S_CTX beside a plain append or in S_DONE (a
    // track or a response only: the readies of the others ask for S_IDLE)
    if (st_q == S_IDLE || ctx_take || done_take || walk_take) begin
      if (take_cfg) begin
        kind_d = K_CFG; act_d = s_qp_cfg.action; scq_d = s_qp_cfg.send_cq; rcfg_d = s_qp_cfg.retry_cnt;
        tocfg_d = s_qp_cfg.timeout; rnrcfg_d = s_qp_cfg.rnr_retry; pmtu_d = s_qp_cfg.pmtu;
        qpn_d = s_qp_cfg.qpn[QW-1:0]; inr_d = 32'(s_qp_cfg.qpn) < 32'(MAX_QP);
      end else if (take_rdd) begin
        kind_d = K_RDD; didx_d = s_rd_done.wqe_idx; nst_d = s_rd_done.status;
        qpn_d = s_rd_done.qpn[QW-1:0]; inr_d = 32'(s_rd_done.qpn) < 32'(MAX_QP);
        dw_d = 1'b0;
      end else if (take_trk) begin
        kind_d = K_TRK; trk_d = s_sq_track[EW-1:0];
        qpn_d = s_sq_track.qpn[QW-1:0]; inr_d = trk_inr;
      end else if (take_ack) begin
        kind_d = K_ACK; psn_d = s_rx_ack.psn; syn_d = s_rx_ack.aeth_syndrome;
        ackop_d = rx_ackop; rsp_d = rx_rsp; atom_d = rx_atom;
        rop_d = rx_atom ? 2'd3 : 2'(s_rx_ack.opcode - roce_pkg::OP_RC_READ_RESP_FIRST);
        plen_d = s_rx_ack.pay_len;
        // a READ response's command for read_place (the slot is free: taking
        // a response waits for it): a drop unless the walk accepts it
        rp_d = '0;
        rp_d.qpn = s_rx_ack.dst_qpn[15:0]; rp_d.len = s_rx_ack.pay_len; rp_d.drop = 1'b1;
        qpn_d = s_rx_ack.dst_qpn[QW-1:0]; inr_d = s_rx_ack.dst_qpn < 24'(MAX_QP);
      end else if (take_tmr) begin
        kind_d = K_TMR; qpn_d = hit_qpn_q; inr_d = 1'b1;
        hit_d = 1'b0;
      end
      ctx_ra = qpn_d;
      if (take_ack) cnt_acks_d = cnt_acks_q + 32'd1;
      if (take_cfg || take_rdd || take_trk || take_ack || take_tmr) st_d = S_CTX;
    end

    // ---- the timer of a context written: disarmed in ERR or with nothing
    // outstanding; restarted or set to the RNR time by the event
    if (ctx_wd.err || ctx_wd.cnt == 5'd0) begin
      ctx_wd.armed = 1'b0; ctx_wd.rnr_wait = 1'b0;
    end else if (tact_w == T_RNR) begin
      ctx_wd.armed = 1'b1; ctx_wd.rnr_wait = 1'b1;
      ctx_wd.deadline = now + 48'(roce_pkg::rnr_timer_value(syn_q[4:0])) * 48'(roce_pkg::RNR_TICK_CYCLES);
    end else if (tact_w == T_RESTART) begin
      ctx_wd.armed = ctx_wd.timeout != 5'd0; ctx_wd.rnr_wait = 1'b0;
      ctx_wd.deadline = now + (48'(roce_pkg::ACK_TIMEOUT_BASE) << ctx_wd.timeout);
    end

    // ---- the scanner: one QP's timer a cycle, stopping at an expired one
    scan_d = scan_q; scan_a_d = scan_a_q; scan_v_d = 1'b0;
    tn_d = tn_q; tn_v_d = tn_v_q; lap_d = lap_q; lap_v_d = lap_v_q;
    scan_dl = tmr_rd_q[47:0];
    scan_stale = ctx_we && ctx_wa == scan_a_q;   // being rewritten: judged next lap
    scan_hit = 1'b0;
    if (hit_q && ctx_we && ctx_wa == hit_qpn_q && !take_tmr) hit_d = 1'b0;  // re-armed or disarmed: next lap
    if (st_q != S_INIT && !hit_q) begin
      if (scan_v_q) begin
        if (tmr_rd_q[48]) begin
          lap_d = (!lap_v_q || earlier(scan_dl, lap_q)) ? scan_dl : lap_q;
          lap_v_d = 1'b1;
          scan_hit = !scan_stale && due(scan_dl);
        end
        if (scan_a_q == QW'(MAX_QP - 1)) begin   // a lap ends: the bound is what it saw
          tn_d = lap_d; tn_v_d = lap_v_d;
          lap_v_d = 1'b0;
        end
      end
      if (scan_hit) begin
        hit_d = 1'b1; hit_qpn_d = scan_a_q;
        scan_d = scan_a_q + 1'b1;                // the read under way is dropped
      end else begin
        scan_a_d = scan_q; scan_v_d = 1'b1;
        scan_d = scan_q + 1'b1;
      end
    end
    if (ctx_we && ctx_wd.armed) begin            // every deadline armed lowers the bound
      if (!tn_v_d || earlier(ctx_wd.deadline, tn_d)) tn_d = ctx_wd.deadline;
      tn_v_d = 1'b1;
      if (!lap_v_d || earlier(ctx_wd.deadline, lap_d)) lap_d = ctx_wd.deadline;
      lap_v_d = 1'b1;
    end
  end

  // full per QP in LUT-RAM (its reset sweep, MAX_QP/64 cycles, ends long
  // before S_INIT's MAX_QP cycles do)
  /* verilator lint_off UNUSEDSIGNAL */
  logic full_busy;
  /* verilator lint_on UNUSEDSIGNAL */
  qp_flags #(.N(MAX_QP), .D(1), .R(1)) u_full (
    .clk, .rst, .we(full_we), .widx(qpn_q), .wmask(1'b1), .wdata(full_wv),
    .ridx(s_sq_track.qpn[QW-1:0]), .rdata(trk_full), .busy(full_busy));

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q <= S_INIT; init_q <= '0;
      cq_v_q <= 1'b0; rt_v_q <= 1'b0; rp_v_q <= 1'b0; dw_q <= 1'b0; cnt_imp_q <= '0;
      cnt_acks_q <= '0; cnt_nak_q <= '0; cnt_seq_q <= '0; cnt_unm_q <= '0; cnt_rw_q <= '0; cnt_exc_q <= '0;
      cnt_to_q <= '0; cnt_rnr_q <= '0; cnt_rnx_q <= '0;
      hit_q <= 1'b0; scan_q <= '0; scan_v_q <= 1'b0; tn_v_q <= 1'b0; lap_v_q <= 1'b0;
    end else begin
      st_q <= st_d; init_q <= init_d;
      cq_v_q <= cq_v_d; rt_v_q <= rt_v_d; rp_v_q <= rp_v_d; dw_q <= dw_d; cnt_imp_q <= cnt_imp_d;
      cnt_acks_q <= cnt_acks_d; cnt_nak_q <= cnt_nak_d; cnt_seq_q <= cnt_seq_d; cnt_unm_q <= cnt_unm_d;
      cnt_rw_q <= cnt_rw_d; cnt_exc_q <= cnt_exc_d;
      cnt_to_q <= cnt_to_d; cnt_rnr_q <= cnt_rnr_d; cnt_rnx_q <= cnt_rnx_d;
      hit_q <= hit_d; scan_q <= scan_d; scan_v_q <= scan_v_d; tn_v_q <= tn_v_d; lap_v_q <= lap_v_d;
    end
    // data registers: no reset needed (qualified by state and valid flags)
    kind_q <= kind_d; qpn_q <= qpn_d; inr_q <= inr_d; act_q <= act_d; scq_q <= scq_d; rcfg_q <= rcfg_d; trk_q <= trk_d;
    psn_q <= psn_d; syn_q <= syn_d; ackop_q <= ackop_d; w_q <= w_d;
    rsp_q <= rsp_d; rop_q <= rop_d; atom_q <= atom_d; plen_q <= plen_d; didx_q <= didx_d; una_a_q <= una_a_d; pmtu_q <= pmtu_d;
    rp_q <= rp_d;
    mode_q <= mode_d; nst_q <= nst_d; one_st_q <= one_st_d; rcnt_q <= rcnt_d; rdc_q <= rdc_d; rerr_q <= rerr_d;
    rrw_q <= rrw_d; rw_idx_q <= rw_idx_d; rw_psn_q <= rw_psn_d;
    rwant_q <= rwant_d; una_p_q <= una_p_d; tact_q <= tact_d; tocfg_q <= tocfg_d; rnrcfg_q <= rnrcfg_d;
    hit_qpn_q <= hit_qpn_d; scan_a_q <= scan_a_d; tn_q <= tn_d; lap_q <= lap_d;
    cq_q <= cq_d; rt_q <= rt_d;
  end

  assign m_cq_compl         = cq_q;
  assign m_cq_compl_valid   = cq_v_q;
  assign m_sq_retire        = rt_q;
  assign m_sq_retire_valid  = rt_v_q;
  assign m_rd_place         = rp_q;
  assign m_rd_place_valid   = rp_v_q;
  assign cnt_implied_nak    = cnt_imp_q;
  // (waiting for rd_done is not busy: read_place, busy meanwhile, answers)
  assign idle               = st_q == S_IDLE && !cq_v_q && !rt_v_q && !rp_v_q && !hit_q && !(tn_v_q && due(tn_q));
  assign timer_next         = tn_q;
  assign timer_valid        = tn_v_q;
  assign cnt_ack_timeout    = cnt_to_q;
  assign cnt_rnr_nak        = cnt_rnr_q;
  assign cnt_rnr_exceeded   = cnt_rnx_q;
  assign cnt_rx_acks        = cnt_acks_q;
  assign cnt_nak_received   = cnt_nak_q;
  assign cnt_packet_seq_err = cnt_seq_q;
  assign cnt_unmatched      = cnt_unm_q;
  assign cnt_retransmits    = cnt_rw_q;
  assign cnt_retry_exceeded = cnt_exc_q;
`ifndef SYNTHESIS
  // Transport invariants, compiled into every Verilated build (--assert) and
  // named so that a failure says which one broke.
  always_ff @(posedge clk) begin
    if (!rst) begin
      // a QP's window holds 0..16 tracked WQEs (credits never negative, none
      // appended to a full window)
      if (st_q == S_WALK || st_q == S_DONE) a_window_within_16: assert (w_q.cnt <= 5'd16)
          else $error("a_window_within_16");
      // an offered completion stays until taken: one CQE per completed WQE,
      // none lost or doubled
      if (cq_v_q && !m_cq_compl_ready) a_cqe_held_until_taken: assert (cq_v_d && cq_d == cq_q)
          else $error("a_cqe_held_until_taken");
      // a retire covers at most one window and always says something
      if (rt_v_q) a_retire_within_window: assert (rt_q.count <= 5'd16 && (rt_q.count != 5'd0 || rt_q.error || rt_q.rewind))
          else $error("a_retire_within_window");
      // a timer runs only while requests are outstanding
      if (ctx_we && st_q != S_INIT) a_timer_armed_with_work: assert (!ctx_wd.armed || (!ctx_wd.err && ctx_wd.cnt != 5'd0))
          else $error("a_timer_armed_with_work");
      // a READ response's command stays until taken (read_place consumes payloads in this order)
      if (rp_v_q && !m_rd_place_ready) a_rd_place_held_until_taken: assert (rp_v_d && rp_d == rp_q)
          else $error("a_rd_place_held_until_taken");
      // one READ at a time waits for rd_done: no response is taken meanwhile
      if (dw_q) a_no_response_while_read_done_waits: assert (!take_ack)
          else $error("a_no_response_while_read_done_waits");
      // a READ with data placed leaves the window only on rd_done (its fence's,
      // when it fails otherwise): no write of it lands after its completion
      if (st_q == S_WALK && w_q.cnt != 5'd0 && !e_stop && !e_fence && (!e_cq || cq_free) && e_rd && w_q.rd_placed)
        a_placed_read_completes_on_rd_done: assert (mode_q == M_RDD)
          else $error("a_placed_read_completes_on_rd_done");
      // one rd_done is due at a time: a fence only when none is (and never in
      // place of a READ response's own command)
      if (st_q == S_WALK && w_q.cnt != 5'd0 && e_fence)
        a_one_fence_at_a_time: assert (!dw_q && !(kind_q == K_ACK && rsp_q))
          else $error("a_one_fence_at_a_time");
      // a rewind goes back to a PSN that was sent and not acknowledged: inside the WQE it names
      if (rt_v_q && rt_q.rewind) a_rewind_inside_window: assert (!rt_q.error && rt_q.rw_skip < 24'h800000)
          else $error("a_rewind_inside_window");
    end
  end
`endif

endmodule

`default_nettype wire
