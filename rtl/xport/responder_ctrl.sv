// responder_ctrl: the checker stage of the RC (and UC, UD) responder (docs/engine.md,
// "Responder"). It owns the per-QP contexts and decides, one request packet
// at a time and in order, what happens to it; the placement stage
// (responder_place) then moves the payload and sends what was decided.
//
//   request packet (header only; the payload waits in the placement stage)
//     1 QP valid and RC            else drop, NO_QP
//       (UC: a UC opcode; UD: a UD opcode)
//     2 state RTR/RTS              else drop, QP_STATE
//       UD: DETH Q_Key = the QP's   else drop, QKEY_VIOLATIONS; then as a UC SEND ONLY
//       (no PSN check, no ACK; its payload starts with the GRH, ud_grh_insert;
//       the CQE has the DETH's source QP, WC_GRH and SL = the VLAN PCP)
//     UC/UD errors: no NAK, the QP stays, the message is dropped; a SEND too
//       long for its receive WQE completes it with LOC_LEN_ERR (class D, rxe)
//     3 PSN: d = psn - epsn        d >= 2^23 duplicate (re-ACK); d > 0 ahead (one NAK)
//     4 opcode sequence, lengths   else NAK INV_REQ, ERR
//     5 WRITE FIRST/ONLY           QP REMOTE_WRITE right, rkey check (mr_req)  else NAK REM_ACC, ERR
//       (every rkey check is remote, with the QP: a window answers its own QP, type 2, or any of its PD)
//       READ                       no payload, length <= 2^31 (else NAK INV_REQ, ERR); QP
//                                  REMOTE_READ right (else NAK REM_ACC, ERR), READ resources:
//                                  max_dest_rd_atomic > 0 (else NAK INV_REQ, ERR, as rxe),
//                                  rkey check  else NAK REM_ACC, ERR
//     6 SEND FIRST/ONLY,           receive WQE: none -> RNR NAK; fetch its first WQE_HEAD bytes
//       WRITE ..._IMM LAST/ONLY    (a SEND's SGEs past the sixth: a second read, TAIL);
//                                  poisoned / > 16 SGEs -> NAK REM_OP, CQE, ERR
//       SEND                       message longer than the SGEs -> NAK INV_REQ, CQE, ERR
//     7 walk: pieces that never cross an SGE or page end, one mr_req per
//       page run (its answer is the SEND's lkey check), into a speculative
//       piece FIFO -- committed only when the whole packet passed
//     8 SEND_LAST_INV / SEND_ONLY_INV that passed: the MR table invalidates
//       the IETH's rkey (remote: a type 2 window bound to this QP, its PD);
//       refused -> NAK INV_REQ, CQE REM_INV_REQ_ERR (rxe's status), ERR. The
//       CQE of a success has WITH_INV and the rkey in imm.
//     9 verdict: epsn, msn, CQE, ACK; the context is written back
//   READ: its verdict (epsn += its response count, msn += 1) carries the
//     walk: va, length, rkey, PD and the rkey check's first page run;
//     responder_tx cuts it into pieces and translates the later page runs
//     itself (its own MR port), so this stage never waits for the responses
//     to leave (over the internal loopback they come back through the
//     receive path behind the next requests). A duplicate READ (PSN behind
//     epsn) is executed again from its own RETH, epsn and msn unchanged; one
//     that fails a check is dropped without a NAK.
//   CMP_SWAP / FETCH_ADD (docs/engine.md, "Atomics"): no payload (else NAK INV_REQ,
//     ERR); QP REMOTE_ATOMIC right (else NAK REM_ACC, ERR); resources as a READ;
//     rkey check over 8 bytes (REMOTE_ATOMIC) else NAK REM_ACC, ERR; va 8-byte
//     aligned else NAK INV_REQ, ERR. Then, once placement has drained (earlier
//     writes taken; earlier READs' data may be read later: the requester fences), the 8 bytes are
//     read through the WQE port (poisoned: NAK REM_OP, ERR), the new value is
//     decided (one 8-byte piece, none for a CMP_SWAP that does not match), and
//     the verdict carries the ATOMIC ACK's orig; {psn, orig} goes into the QP's
//     replay cache (res_mem: RES_N entries, a ring). A duplicate atomic is
//     answered from the cache (the current msn), or dropped when not there.
//   entering ERR: receive WQEs ci..pi-1 are read (wr_id) and flushed, after
//   the placement stage has drained (so CQEs stay in order)
//   receive WQE prefetch: a table of RQ_HEADS heads, set-associative: QP q's
//   WQEs go to set q mod (RQ_HEADS / RQ_AHEAD), into any of its RQ_AHEAD
//   ways, tagged {QP, x}. The set's tags are all read with the context. An
//   RQ doorbell that leaves a QP (INIT, RTR, RTS) open reads ahead the first
//   of its WQEs ci .. ci + RQ_AHEAD - 1 that is posted and not in the set,
//   into the first way neither kept nor being read into, unless RQ_PF_OUT
//   prefetches are outstanding (no way is taken from another WQE). Step 6
//   then takes the way holding {QP, ci} instead of a read (waiting for the
//   data if it is still under way), so a SEND's receive WQE costs no DMA
//   round trip after the packet arrives; taking it reads the first of ci + 1
//   .. ci + RQ_AHEAD posted and not in the set into the same way (a WQE read
//   by step 6 does the same into a free way, at its last beat), so a stream
//   of SENDs on a QP keeps RQ_AHEAD WQEs ahead, while 1,024 QPs of
//   consecutive numbers with a WQE each (any ci) have a way each. A qp_cfg for its QP that resets,
//   destroys or errors it, or moves its ring, forgets the QP's ways (read
//   data then still lands, unused). Reads return in order and a prefetch is
//   issued only while no read of the checker is outstanding, so while
//   prefetches are in flight the next read data is theirs (a FIFO of their
//   entries says whose). Tags are a RAM per way; the heads are block RAM,
//   one bank per beat.
//
// Inputs are taken only when idle, by priority: qp_cfg (after the placement
// stage has drained), rq_db, rx_hdr; a header also in C_PUSH, as the verdict
// before it leaves (its context, if that one's QP, forwarded: fwd_q). A
// page run's answer in C_MRW cuts the run's first piece at once. So a WRITE
// ONLY of one page run takes C_HDR, C_MRW x 2 (the answer cuts its piece and
// is its verdict: fast_vd, the next header taken beside it); a MIDDLE
// packet C_HDR, C_WALK, C_PUSH; a SEND ONLY whose receive WQE is prefetched
// C_HDR (which takes the way: no C_ROUTE), C_WQE (the lkey asked), C_MRW x 2. Contexts are RAMs with a registered read.
`default_nettype none

module responder_ctrl #(
  parameter int DATA_W = 512,
  parameter int MAX_QP = 256,
  parameter int RQ_HEADS = 4,   // receive WQE heads prefetched (the engine: roce_pkg::RSP_RQ_HEADS; a block alone
                                // has 4, so that its tests see QPs share an entry)
  parameter int RQ_AHEAD = 2    // ... in sets of this many ways, the WQEs ci .. ci + RQ_AHEAD - 1 a QP may
                                // hold (the engine: roce_pkg::RSP_RQ_AHEAD)
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  /* verilator lint_off UNUSEDSIGNAL */  // state (the action says it), send-queue fields (the requester's)
  input  wire roce_pkg::qp_cfg_t     s_qp_cfg,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_qp_cfg_valid,
  output logic                       s_qp_cfg_ready,
  input  wire roce_pkg::wq_db_t      s_rq_db,
  input  wire logic                  s_rq_db_valid,
  output logic                       s_rq_db_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // the responder reads only BTH, RETH, ImmDt and pay_len
  input  wire roce_pkg::roce_rx_hdr_t s_rx_hdr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_rx_hdr_valid,
  output logic                       s_rx_hdr_ready,
  input  wire logic [DATA_W-1:0]     s_dma_rd_tdata,
  input  wire logic                  s_dma_rd_tlast,
  input  wire logic                  s_dma_rd_tuser,
  input  wire logic                  s_dma_rd_tvalid,
  output logic                       s_dma_rd_tready,
  /* verilator lint_off UNUSEDSIGNAL */  // tag: one mr_req outstanding at a time
  input  wire roce_pkg::mr_resp_t    s_mr_resp,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_mr_resp_valid,
  output logic                       s_mr_resp_ready,
  output roce_pkg::dma_rd_req_t      m_dma_rd_req,
  output logic                       m_dma_rd_req_valid,
  input  wire logic                  m_dma_rd_req_ready,
  output roce_pkg::mr_req_t          m_mr_req,
  output logic                       m_mr_req_valid,
  input  wire logic                  m_mr_req_ready,
  output roce_pkg::cq_compl_t        m_cq,           // flush completions
  output logic                       m_cq_valid,
  input  wire logic                  m_cq_ready,
  output responder_pkg::rsp_verdict_t m_vd,
  output roce_pkg::cq_compl_t        m_vd_cqe,
  output logic                       m_vd_valid,
  input  wire logic                  m_vd_ready,
  input  wire logic                  m_vd_room,      // the verdict FIFO has room by its count (a register)
  output responder_pkg::rsp_piece_t  m_pc,
  output logic                       m_pc_valid,
  input  wire logic                  m_pc_ready,
  output logic                       m_pc_commit,
  output logic                       m_pc_abort,
  output logic                       m_addr_we,
  output logic [$clog2(MAX_QP)-1:0]  m_addr_wa,
  output responder_pkg::rsp_addr_t   m_addr_wd,
  input  wire logic                  drained,        // placement stage has nothing left to do
  output logic                       idle,
  output logic [31:0]                cnt_rx_pkts,
  output logic [31:0]                cnt_no_qp,
  output logic [31:0]                cnt_qp_state,
  output logic [31:0]                cnt_out_of_sequence,
  output logic [31:0]                cnt_duplicate_request,
  output logic [31:0]                cnt_rem_access_err,
  output logic [31:0]                cnt_rem_inv_req,
  output logic [31:0]                cnt_rnr_nak_sent,
  output logic [31:0]                cnt_rem_op_err,
  output logic [31:0]                cnt_rx_read_requests,
  output logic [31:0]                cnt_qkey_violations,
  output logic                       init_busy   // the per-QP flags' reset sweep runs: nothing is taken
);
  localparam int QW = $clog2(MAX_QP);
  localparam int WQE_W = 8 * roce_pkg::RECV_WQE_SIZE;
  localparam int HEAD_W = 8 * roce_pkg::WQE_HEAD;                   // the first fetch: SGEs 0..5
  localparam int TAIL_W = WQE_W - HEAD_W;                           // SGEs 6..15
  localparam int TAIL_PAD = (TAIL_W + DATA_W - 1) / DATA_W * DATA_W; // whole beats
  localparam int FL_MAX = 8;                       // flush reads outstanding
  localparam logic [31:0] RD_MAX = 32'(roce_pkg::MAX_MSG);  // the longest message a READ asks for

  initial begin
    if ((1 << QW) != MAX_QP || MAX_QP > 65536) $error("responder_ctrl: MAX_QP must be a power of two <= 65536");
    if ((1 << RHW) != RQ_HEADS || RQ_HEADS < 4) $error("responder_ctrl: RQ_HEADS must be a power of two >= 4");
    if ((1 << KW) != RQ_AHEAD || RQ_AHEAD < 2 || 2 * RQ_AHEAD > RQ_HEADS)
      $error("responder_ctrl: RQ_AHEAD must be a power of two, 2 .. RQ_HEADS / 2");
    if (DATA_W < 64 || DATA_W > HEAD_W || HEAD_W % DATA_W != 0)
      $error("responder_ctrl: DATA_W must divide the 1024-bit WQE head and be >= 64");
    if (responder_pkg::MAX_SGE != roce_pkg::MAX_SGE) $error("responder_ctrl: responder_pkg::MAX_SGE != MAX_SGE");
  end

  typedef enum logic [4:0] {
    C_IDLE, C_CFG, C_DB, C_HDR, C_ROUTE, C_MRW, C_WQE, C_SGE, C_WALK, C_SRD, C_PUSH, C_FLUSH,
    C_ATW, C_ATR, C_DUPA,  // an atomic: wait for placement to drain, read its 8 bytes; a duplicate's replay search
    C_INV,                 // a SEND with invalidate that passed: the INVALIDATE of its rkey
    C_TAIL, C_WQT          // a receive WQE's SGEs past the sixth: their read, its beats
  } cst_e;

  // ---- contexts: plain vectors (DESIGN.md §9), structs applied on read
  // valid, rc, uc, ud per QP (qp_flags, in LUT-RAM: they must reset), at
  // idx_q (the QP in hand) and at the offered header's dst_qpn
  logic f_valid;                                   // of idx_q
  /* verilator lint_off UNUSEDSIGNAL */              // (its type comes with the header, in ud_x_q and unrel_x_q)
  logic f_rc, f_uc, f_ud;
  /* verilator lint_on UNUSEDSIGNAL */
  logic h_valid, h_rc, h_uc, h_ud;                 // of s_rx_hdr.dst_qpn
  logic flags_busy;                                // their reset sweep: nothing is taken
  logic [1:0]    l3_q [MAX_QP];                    // each QP's path encapsulation (l3 enum)
  responder_pkg::rsp_ctx_t ctx_rd_q;
  responder_pkg::rsp_ctx_t fwd_q;                  // the context written back as it was read (C_PUSH)
  logic          fwd_v_q;                          // ... c0 is that one
  logic [$bits(ctx_rd_q)-1:0] ctx_mem [MAX_QP];
  logic [127:0] sge_mem [MAX_QP * 16];             // SGE slots as in the WQE (sge layout, little-endian)
  logic [127:0] sge_rd_q;
  logic          ctx_re, ctx_we, sge_we;
  // atomic replay cache: entry {psn, orig} per QP and slot
  logic [87:0]   res_mem [MAX_QP * responder_pkg::RES_N];
  logic [87:0]   res_rd_q;
  logic          res_we;
  logic [QW+3:0] res_ra;
  logic [QW-1:0] ctx_ra;
  logic [QW+3:0] sge_ra;
  responder_pkg::rsp_ctx_t ctx_wd;

  // ---- state
  cst_e st_q, st_d;
  responder_pkg::rsp_ctx_t cx_q, cx_d;             // working copy of the QP's context
  responder_pkg::rsp_verdict_t vd_q, vd_d;         // verdict being built (drop / error paths)
  logic [7:0]  est_q, est_d;                       // ... its completion's status (error paths)
  logic [15:0] ectr_q, ectr_d;                     // ... and receive WQE index
  typedef struct packed {  // the qp_cfg fields the context keeps (the ACK addressing goes to the placement RAM)
    logic [2:0]  action;
    logic [2:0]  qp_type;
    logic [15:0] pd;
    logic [3:0]  access;
    logic [2:0]  pmtu;
    logic [63:0] rq_base;
    logic [4:0]  rq_lsz;
    logic [15:0] recv_cq;
    logic [23:0] dest_qpn;
    logic [23:0] rq_psn;
    logic [4:0]  min_rnr;
    logic [3:0]  sl;
    logic        rd_res;     // max_dest_rd_atomic > 0
    logic [1:0]  l3;         // the path's encapsulation: a packet in another is not the peer's
    logic [31:0] qkey;       // UD: the Q_Key a datagram must carry
  } cfg_t;
  cfg_t cfg_q, cfg_d;
  logic [15:0]   db_pi_q, db_pi_d;
  logic [QW-1:0] idx_q, idx_d;                     // the QP
  logic          qin_q, qin_d;                     // its number is below MAX_QP
  logic          qok_q, qok_d;                     // it exists and is RC (or UC, and the opcode is UC's)
  logic          l3ok_q, l3ok_d;                   // the packet's encapsulation is the QP's
  logic          unrel_x_q, unrel_x_d;             // the packet is for a UC or UD QP (IBTA 9.8: no ACK, no NAK)
  logic          ud_x_q, ud_x_d;                   // ... for a UD QP
  logic [7:0]    op_n;                             // its opcode as the RC one (a UC opcode - 0x20, UD - 0x60)
  logic          uc_op, ud_op;                     // a UC opcode (0x20..0x3F), a UD one (0x60..0x7F)
  // the packet's header fields
  logic        h_se_q, h_se_d, h_ack_q, h_ack_d;
  logic [23:0] h_psn_q, h_psn_d;
  logic [63:0] h_va_q, h_va_d;
  logic [31:0] h_rkey_q, h_rkey_d, h_rlen_q, h_rlen_d, h_imm_q, h_imm_d;
  logic [12:0] h_len_q, h_len_d;
  logic [31:0] h_qkey_q, h_qkey_d;                 // UD: the DETH's Q_Key and source QP, the SL the
  logic [23:0] h_dsrc_q, h_dsrc_d;                 // completion reports (the VLAN PCP; 0 untagged)
  logic [2:0]  h_sl_q, h_sl_d;
  logic        is_send_q, is_send_d, is_write_q, is_write_d, imm_q, imm_d;
  logic        inv_q, inv_d;                       // SEND_LAST_INV / SEND_ONLY_INV: IETH rkey in h_imm
  logic        mr_inv_q, mr_inv_d;                 // the outstanding mr_req is its INVALIDATE
  logic        is_read_q, is_read_d, dup_q, dup_d;  // an RDMA READ; a duplicate one, executed again
  logic        is_atom_q, is_atom_d, cas_q, cas_d; // an atomic; a CMP_SWAP
  logic [63:0] h_swap_q, h_swap_d, h_cmp_q, h_cmp_d;  // its AtomicETH data
  logic [63:0] orig_q, orig_d, adata_q, adata_d;   // the value read, the value written
  logic [4:0]  dj_q, dj_d;                         // replay search: entries asked for
  logic        dv_q, dv_d;                         // ... one was read last cycle (res_rd_q)
  logic [1:0]  seg_q, seg_d;
  // progress on the packet
  logic [12:0] n_q, n_d;                           // payload bytes not yet cut into pieces
  logic [5:0]  np_q, np_d;                         // pieces pushed
  logic        ok_q, ok_d;                         // passed every check: execute
  logic        wctx_q, wctx_d;                     // write the context back (drop / error paths)
  logic        mr_rkey_q, mr_rkey_d;               // the outstanding mr_req is the rkey check
  logic [HEAD_W-1:0] wqe_q, wqe_d;                 // the head (beats shift in from the top) ...
  logic [TAIL_PAD-1:0] tail_q, tail_d;             // ... and the tail, beat by beat
  logic [4:0]  tb_q, tb_d;                         // the tail's next beat (up to 20 at DATA_W 64)
  logic        poison_q, poison_d;
  logic [3:0]  sg_q, sg_d;
  logic [3:0]  sg_last;                            // C_SGE: the last slot written
  // flush of receive WQEs [fl_done, fl_end)
  logic        fl_pend_q, fl_pend_d, fl_go_q, fl_go_d;
  logic [15:0] fl_next_q, fl_next_d, fl_done_q, fl_done_d, fl_end_q, fl_end_d;
  logic [3:0]  fl_out_q, fl_out_d;
  // the receive WQE prefetch table (RQ_HEADS entries {way, set}: QP q's WQEs in set q mod (RQ_HEADS / RQ_AHEAD),
  // any of its RQ_AHEAD ways)
  localparam int RH  = RQ_HEADS;
  localparam int RHW = $clog2(RH);
  localparam int KA  = RQ_AHEAD;
  localparam int KW  = $clog2(KA);
  localparam int RLW = RHW - KW;                   // set index bits
  localparam int PFO = roce_pkg::RSP_RQ_PF_OUT;    // prefetch reads in flight
  localparam int PFOW = $clog2(PFO) + 1;
  localparam int HEAD_BEATS = HEAD_W / DATA_W;
  localparam int HBW = HEAD_BEATS > 1 ? $clog2(HEAD_BEATS) : 1;
  localparam int PTW = 1 + QW + 16;                // tag: {keep, qp, ci}
  logic [KA*(PTW-1)-1:0] pt_rd_q;                  // the set's tags {qp, ci}, one per way, read with the context
  logic [KA-1:0]  pk_rd_q;                         // ... and their keep bits
  logic [PTW-1:0] pt_sel;                          // {keep, qp, ci} of the entry pe_q
  logic [KA-1:0]  pv_clr;                          // C_CFG: the set's entries its QP forgets
  logic          pt_we;
  logic [RHW-1:0] pt_wa;
  logic [PTW-1:0] pt_wd;
  logic          pt_keep;
  logic [QW-1:0] pt_qp;
  logic [15:0]   pt_ci;
  logic [RHW-1:0] pe_q, pe_d;                      // the entry worked on: the way holding ci, else a free one (C_HDR)
  logic [RHW-1:0] po_e [PFO];                      // the entries of the prefetch reads in flight, oldest first
  logic [PFOW-1:0] po_n_q;
  logic [HBW-1:0] po_beat_q;                       // beat of the oldest one's data
  logic          po_pop;
  logic          pf_busy_e;                        // the entry pe has a read in flight
  logic          pf_busy_d;                        // ... pe_d has
  logic          pf_ok_q;                          // ... and had none last cycle (its bank read is fresh)
  logic [HEAD_W-1:0] pf_head;                      // the entry's head, as read from the banks
  logic [HEAD_BEATS-1:0] pf_bpois;                 // ... each beat's poison
  logic          pf_use_q, pf_use_d;               // C_WQE takes the entry, not read data
  logic          pf_issue;                         // C_DB, C_WQE: a prefetch read is issued (into entry pf_e)
  logic          pf_next;                          // C_WQE: a WQE to read ahead (tk_x) into the way of ci
  logic          db_pf;                            // C_DB: the doorbell reads WQE db_x ahead, into db_e
  logic [15:0]   db_ci;
  logic [15:0]   db_x;                             // C_DB: the WQE the doorbell reads ahead ...
  logic [RHW-1:0] db_e;                            // ... into this entry
  logic [KA-1:0] set_busy;                         // the set's ways (of the QP worked on) with a read in flight
  logic [15:0]   tk_x;                             // C_WQE: the WQE taking ci reads ahead
  logic [KA-1:0] db_have, tk_have;                 // which of db_ci + j / ci + 1 + j (j < RQ_AHEAD) are in the set
  logic [KW-1:0] hit_w, free_w, dbf_w;             // the way holding c0.ci; the first way not kept; ... nor busy
  logic          hit_f, dbf_f;
  logic          dbl_q;                            // C_DB waits for the read register with its choice made:
  logic [15:0]   dbl_x_q;                          // ... this WQE
  logic [RHW-1:0] dbl_e_q;                         // ... into this entry
  logic [RHW-1:0] pf_e;                            // the entry a prefetch issued now reads into
  logic          wait_rd;                          // ... and waits for the read register
  logic          rd_tvalid;                        // read data for the checker (not a prefetch's)
  logic [15:0]   rq_mask0;                         // rq_mask of the context as read
  logic [HEAD_W-1:0] wqe_w;                        // C_WQE: the head, from the slot or the read
  // output registers
  roce_pkg::dma_rd_req_t rd_q, rd_d;
  roce_pkg::mr_req_t     mr_q, mr_d;
  logic [63:0] fl_wr_q, fl_wr_d;                   // the flushed WQE's wr_id
  logic [15:0] fl_ctr_q, fl_ctr_d;                 // ... and index
  logic rd_v_q, rd_v_d, mr_v_q, mr_v_d, cq_v_q, cq_v_d;
  logic mr_now;  // C_HDR asks its rkey check in its own cycle, C_SGE (or C_WQE, one SGE) a SEND's first lkey check
  // counters
  logic [31:0] c_rx_q, c_noqp_q, c_state_q, c_oos_q, c_dup_q, c_acc_q, c_inv_q, c_rnr_q, c_op_q, c_rd_q, c_qkey_q;
  logic i_rx, i_noqp, i_state, i_oos, i_dup, i_acc, i_inv, i_rnr, i_op, i_rd, i_qkey;

  // ---- combinational helpers
  /* verilator lint_off UNUSEDSIGNAL */  // seg and the ImmDt bit are what a responder needs
  roce_pkg::opinfo_t in_oi;
  /* verilator lint_on UNUSEDSIGNAL */
  logic        take_cfg, take_db, take_hdr;
  responder_pkg::rsp_ctx_t c0;                     // the context as read (zero for a QP that does not exist)
  logic [14:0] mtu;
  logic [23:0] dpsn;
  logic        s_first, s_mid, s_last, s_only, seq_ok, len_ok, wlen_ok, needs_wqe;
  logic [63:0] sge_addr;
  logic [31:0] sge_len, sge_lkey;
  logic [12:0] k;
  logic [63:0] cut_pa;                             // the next piece's address and its run's bytes left
  logic [31:0] cut_left;
  logic        cut;                                // a piece is cut in this cycle
  logic [23:0] rd_npk;                             // a READ's response packets (the context as read)
  logic [32:0] rd_round;
  logic        rd_start;                           // C_HDR: start executing a READ
  logic [15:0] rq_mask;
  logic [HEAD_W-1:0] wqe_in;  // the head with the beat now arriving in
  logic [WQE_W-1:0] wqe_all;                       // head and tail: the WQE's bytes
  logic [7:0]  wqe_nsge;
  logic [127:0] sge_of_wqe;
  logic [63:0] sge0_addr;                          // C_SGE: SGE 0 of the WQE (its lkey check asked there)
  logic [31:0] sge0_len, sge0_lkey;
  // C_WQE of a SEND's WQE of at most one SGE does C_SGE's work itself (its
  // one slot, the length check, SGE 0's lkey check), from the head as taken
  logic [127:0] sge0_w;                            // SGE 0 of wqe_w
  logic         sge_one;                           // C_WQE writes slot 0 (sge0_w), not C_SGE slot sg_q
  logic        rd_beat, fl_issue;
  // a failed check: set where it fails, applied once after the case
  logic        err, err_cqe;
  logic [7:0]  err_syn, err_status;
  logic [15:0] err_ci;
  // the success path's verdict and context
  responder_pkg::rsp_ctx_t     cx_fin;
  responder_pkg::rsp_verdict_t vd_ok;
  roce_pkg::cq_compl_t ok_cqe, err_cqe_s;
  logic        fin_last, fin_cqe;

  // Port handshakes from registers and input valids only (never through the
  // block below), so no ready or valid of a neighbour loops back into them.
  assign s_qp_cfg_ready  = st_q == C_IDLE && !flags_busy && drained;
  assign s_rq_db_ready   = st_q == C_IDLE && !flags_busy && !s_qp_cfg_valid;
  // (a header is also taken in the cycle the verdict before it leaves, C_PUSH,
  // unless a flush follows: back-to-back packets skip C_IDLE; m_vd_ready is
  // the verdict FIFO's room, a register)
  // A WRITE's rkey answer or a SEND's lkey answer that cuts the packet's
  // last bytes as one piece (a page run holding them all) is also the
  // packet's verdict: C_PUSH's work is done in that C_MRW cycle, and the
  // next header taken in it (fast_vd; not a READ, an atomic, a SEND with
  // invalidate, a UD datagram, nor while a flush waits). A one-page 64 B
  // WRITE ONLY then takes C_HDR, C_MRW x 2; a SEND ONLY C_HDR, C_WQE,
  // C_MRW x 2. (Registers and the answer only: the piece FIFO's room and
  // the verdict FIFO's count are registers.)
  logic fast_vd;
  assign fast_vd = st_q == C_MRW && s_mr_resp_valid && !mr_inv_q && s_mr_resp.status == roce_pkg::MR_STATUS_OK &&
                   !is_atom_q && !is_read_q && !inv_q && !ud_x_q && !fl_pend_q &&
                   !(mr_rkey_q && is_write_q && imm_q && (seg_q == roce_pkg::SEG_LAST || seg_q == roce_pkg::SEG_ONLY)) &&
                   n_q != '0 && {19'b0, n_q} <= s_mr_resp.run && m_pc_ready && m_vd_room;
  assign s_rx_hdr_ready  = (st_q == C_IDLE || (st_q == C_PUSH && m_vd_ready && !fl_pend_q) || fast_vd)
                           && !flags_busy && !s_qp_cfg_valid && !s_rq_db_valid;
  assign s_mr_resp_ready = st_q == C_MRW;
  assign s_dma_rd_tready = po_n_q != '0 || st_q == C_WQE || st_q == C_WQT || st_q == C_ATR
                           || (st_q == C_FLUSH && fl_go_q && fl_out_q != '0 && (!cq_v_q || m_cq_ready));
  assign m_vd_valid      = st_q == C_PUSH || fast_vd;

  always_comb begin
    in_oi  = roce_pkg::opcode_info(s_rx_hdr.opcode);
    uc_op  = s_rx_hdr.opcode[7:5] == 3'b001;
    ud_op  = s_rx_hdr.opcode[7:5] == 3'b011;
    op_n   = ((uc_op && h_uc) || (ud_op && h_ud))
             ? {3'b000, s_rx_hdr.opcode[4:0]} : s_rx_hdr.opcode;
    take_cfg = s_qp_cfg_valid && s_qp_cfg_ready;
    take_db  = s_rq_db_valid && s_rq_db_ready;
    take_hdr = s_rx_hdr_valid && s_rx_hdr_ready;
    ctx_re = take_cfg || take_db || take_hdr;
    ctx_ra = take_cfg ? s_qp_cfg.qpn[QW-1:0] : take_db ? s_rq_db.qpn[QW-1:0] : s_rx_hdr.dst_qpn[QW-1:0];

    c0 = !f_valid ? '0 : fwd_v_q ? fwd_q : ctx_rd_q;
    mtu = 15'd128 << c0.pmtu;
    dpsn = h_psn_q - c0.epsn;
    s_first = seg_q == roce_pkg::SEG_FIRST;
    s_mid   = seg_q == roce_pkg::SEG_MIDDLE;
    s_last  = seg_q == roce_pkg::SEG_LAST;
    s_only  = seg_q == roce_pkg::SEG_ONLY;
    // (UC: a FIRST or ONLY starts a new message whatever was in progress;
    // a message whose packet was dropped is dropped to its end)
    seq_ok = (c0.kind == responder_pkg::KIND_NONE || (unrel_x_q && (s_first || s_only))) ? (s_first || s_only)
           : (s_mid || s_last) && !c0.drop
             && c0.kind == (is_send_q ? responder_pkg::KIND_SEND : responder_pkg::KIND_WRITE);
    // (UD: no path MTU; a datagram is one packet of at most 4096 bytes, the parser's limit)
    len_ok = ud_x_q ? 1'b1
           : (s_first || s_mid) ? {2'b0, h_len_q} == mtu
           : s_last ? h_len_q != 13'd0 && {2'b0, h_len_q} <= mtu
           : {2'b0, h_len_q} <= mtu;
    wlen_ok = (s_first || s_only) ? {19'b0, h_len_q} <= h_rlen_q : {19'b0, h_len_q} <= c0.left;
    needs_wqe = (is_send_q && (s_first || s_only)) || (is_write_q && imm_q && (s_last || s_only));

    sge_addr = sge_rd_q[8 * roce_pkg::SGE_ADDR_OFF +: 64];
    sge_len  = sge_rd_q[8 * roce_pkg::SGE_LENGTH_OFF +: 32];
    sge_lkey = sge_rd_q[8 * roce_pkg::SGE_LKEY_OFF +: 32];
    wqe_in   = HEAD_W'({s_dma_rd_tdata, wqe_q} >> DATA_W);  // beats shift in from the top
    rd_tvalid = s_dma_rd_tvalid && po_n_q == '0;
    wqe_w    = pf_use_q ? pf_head : wqe_in;
    wqe_nsge = wqe_w[8 * roce_pkg::RECV_WQE_NUM_SGE_OFF +: 8];
    wqe_all  = {tail_q[TAIL_W-1:0], wqe_q};
    sge_of_wqe = wqe_all[8 * roce_pkg::RECV_WQE_SGE0_ADDR_OFF + 8 * roce_pkg::SGE_SIZE * 32'(sg_q) +: 128];
    sge0_addr = wqe_q[8 * (roce_pkg::RECV_WQE_SGE0_ADDR_OFF + roce_pkg::SGE_ADDR_OFF) +: 64];
    sge0_len  = wqe_q[8 * (roce_pkg::RECV_WQE_SGE0_ADDR_OFF + roce_pkg::SGE_LENGTH_OFF) +: 32];
    sge0_lkey = wqe_q[8 * (roce_pkg::RECV_WQE_SGE0_ADDR_OFF + roce_pkg::SGE_LKEY_OFF) +: 32];
    sge0_w    = wqe_w[8 * roce_pkg::RECV_WQE_SGE0_ADDR_OFF +: 128];
    // the slots in use (at least one: a WQE of no SGE writes slot 0, never read)
    sg_last  = cx_q.nsge > 5'd1 ? 4'(cx_q.nsge - 5'd1) : 4'd0;
    // the next piece: of the run in hand (C_WALK), or of the one just answered (C_MRW)
    cut_pa   = st_q == C_MRW ? s_mr_resp.pa : cx_q.xpa;
    cut_left = st_q == C_MRW ? s_mr_resp.run : cx_q.xleft;
    k = {19'b0, n_q} < cut_left ? n_q : cut_left[12:0];
    // a READ piece: to the packet end, the run end or the 4 KiB boundary, whichever comes first
    rd_round = {1'b0, h_rlen_q} + {18'b0, mtu} - 33'd1;
    rd_npk = h_rlen_q == '0 ? 24'd1 : 24'(rd_round >> (4'd7 + {1'b0, c0.pmtu}));
    rd_start = 1'b0;
    rq_mask = 16'((17'd1 << cx_q.rq_lsz) - 17'd1);
    rq_mask0 = 16'((17'd1 << c0.rq_lsz) - 17'd1);

    // defaults: hold
    st_d = st_q;
    cx_d = (st_q == C_CFG || st_q == C_DB || st_q == C_HDR) ? c0 : cx_q;
    vd_d = vd_q;
    est_d = est_q; ectr_d = ectr_q;
    cfg_d = cfg_q; db_pi_d = db_pi_q; idx_d = idx_q; qin_d = qin_q; qok_d = qok_q; l3ok_d = l3ok_q; unrel_x_d = unrel_x_q;
    ud_x_d = ud_x_q; h_qkey_d = h_qkey_q; h_dsrc_d = h_dsrc_q; h_sl_d = h_sl_q;
    h_se_d = h_se_q; h_ack_d = h_ack_q; h_psn_d = h_psn_q; h_va_d = h_va_q;
    h_rkey_d = h_rkey_q; h_rlen_d = h_rlen_q; h_imm_d = h_imm_q; h_len_d = h_len_q;
    is_send_d = is_send_q; is_write_d = is_write_q; imm_d = imm_q; seg_d = seg_q;
    inv_d = inv_q; mr_inv_d = mr_inv_q;
    is_read_d = is_read_q; dup_d = dup_q;
    is_atom_d = is_atom_q; cas_d = cas_q; h_swap_d = h_swap_q; h_cmp_d = h_cmp_q;
    orig_d = orig_q; adata_d = adata_q; dj_d = dj_q; dv_d = 1'b0;
    res_we = 1'b0; res_ra = {idx_q, cx_q.res_wp - 4'd1 - dj_q[3:0]};  // the replay search: newest first
    n_d = n_q; np_d = np_q; ok_d = ok_q; wctx_d = wctx_q; mr_rkey_d = mr_rkey_q;
    wqe_d = wqe_q; tail_d = tail_q; tb_d = tb_q; poison_d = poison_q; sg_d = sg_q;
    fl_pend_d = fl_pend_q; fl_go_d = fl_go_q; fl_next_d = fl_next_q; fl_done_d = fl_done_q;
    fl_end_d = fl_end_q; fl_out_d = fl_out_q; fl_issue = 1'b0; rd_beat = 1'b0;
    // (set in C_HDR, once a packet's ci is read; a doorbell's entry is db_e)
    pe_d = pe_q;
    pf_use_d = pf_use_q; pf_issue = 1'b0; pv_clr = '0;
    pt_sel = {pk_rd_q[pe_q[RHW-1:RLW]], pt_rd_q[32'(pe_q[RHW-1:RLW]) * (PTW-1) +: PTW-1]};
    {pt_keep, pt_qp, pt_ci} = pt_sel;
    // the first receive WQE not taken: ci, or ci + 1 while a SEND is under
    // way (it took ci at its FIRST packet and holds it until its LAST)
    db_ci = c0.ci + {15'b0, c0.kind == responder_pkg::KIND_SEND};
    // The set's tags (as read with the context): which WQEs of the QP are there,
    // counted from db_ci (a doorbell) and from ci + 1 (taking ci); the way
    // holding c0.ci; the first way not kept (and not being read into)
    db_have = '0; tk_have = '0; hit_f = 1'b0; hit_w = '0; free_w = '0; dbf_f = 1'b0; dbf_w = '0;
    for (int w = KA - 1; w >= 0; w--) begin
      if (pk_rd_q[w] && pt_rd_q[w * (PTW-1) + 16 +: QW] == idx_q) begin
        if (16'(pt_rd_q[w * (PTW-1) +: 16] - db_ci) < 16'(KA))
          db_have[KW'(pt_rd_q[w * (PTW-1) +: 16] - db_ci)] = 1'b1;
        if (16'(pt_rd_q[w * (PTW-1) +: 16] - cx_q.ci - 16'd1) < 16'(KA))
          tk_have[KW'(pt_rd_q[w * (PTW-1) +: 16] - cx_q.ci - 16'd1)] = 1'b1;
        if (pt_rd_q[w * (PTW-1) +: 16] == c0.ci) begin
          hit_f = 1'b1; hit_w = KW'(w);
        end
      end
      if (!pk_rd_q[w]) free_w = KW'(w);
      if (!pk_rd_q[w] && !set_busy[w]) begin
        dbf_f = 1'b1; dbf_w = KW'(w);
      end
    end
    // taking WQE ci reads the first of ci + 1 .. ci + RQ_AHEAD posted and not there
    pf_next = 1'b0; tk_x = cx_q.ci + 16'd1;
    for (int j = KA - 1; j >= 0; j--)
      if (16'(j) < 16'(cx_q.pi - cx_q.ci - 16'd1) && !tk_have[j]) begin
        pf_next = 1'b1; tk_x = cx_q.ci + 16'd1 + 16'(j);
      end
    pf_next = pf_next && po_n_q != PFOW'(PFO);
    // the doorbell reads ahead the first of the QP's WQEs db_ci .. db_ci + RQ_AHEAD - 1 that is
    // posted and not in the set, into its first way neither kept nor being read into; its
    // choice, once made, is kept while it waits for the read register (as the model decides it)
    db_pf = 1'b0; db_x = db_ci;
    for (int j = KA - 1; j >= 0; j--)
      if (16'(j) < 16'(db_pi_q - db_ci) && !db_have[j]) begin
        db_pf = 1'b1; db_x = db_ci + 16'(j);
      end
    db_e = {dbf_w, RLW'(idx_q)};
    db_pf = db_pf && dbf_f && po_n_q != PFOW'(PFO)
            && (c0.state == roce_pkg::QP_STATE_INIT || c0.state == roce_pkg::QP_STATE_RTR
                || c0.state == roce_pkg::QP_STATE_RTS);
    if (dbl_q) begin
      db_pf = 1'b1; db_x = dbl_x_q; db_e = dbl_e_q;
    end
    wait_rd = 1'b0;
    pt_we = 1'b0; pt_wa = pe_q; pt_wd = pt_sel;
    rd_d = rd_q; mr_d = mr_q; fl_wr_d = fl_wr_q; fl_ctr_d = fl_ctr_q;
    rd_v_d = rd_v_q && !m_dma_rd_req_ready;
    mr_v_d = 1'b0;  // (set: a new request; one not taken is held below)
    cq_v_d = cq_v_q && !m_cq_ready;
    ctx_we = 1'b0; ctx_wd = cx_q;
    sge_we = 1'b0;
    sge_one = 1'b0;
    sge_ra = {idx_q, cx_q.sidx};
    m_pc_valid = 1'b0;
    m_pc.pa = cut_pa;
    m_pc.len = k;
    cut = 1'b0;
    m_pc.zero = 1'b0;
    m_pc.pkt_last = 1'b0;
    m_pc_commit = 1'b0; m_pc_abort = 1'b0;
    err = 1'b0; err_cqe = 1'b0; err_syn = '0; err_status = '0; err_ci = '0;
    {i_rx, i_noqp, i_state, i_oos, i_dup, i_acc, i_inv, i_rnr, i_op, i_rd, i_qkey} = '0;

    // the success path's outcome (used in C_PUSH when ok_q)
    fin_last = s_last || s_only;
    fin_cqe  = fin_last && (is_send_q || imm_q);
    cx_fin = cx_q;
    cx_fin.epsn = cx_q.epsn + (is_read_q ? rd_npk : 24'd1);
    cx_fin.nak = 1'b0;
    if (fin_last) begin
      cx_fin.msn = cx_q.msn + 24'd1;
      cx_fin.kind = responder_pkg::KIND_NONE;
      cx_fin.xleft = '0;
    end
    if (fin_cqe) cx_fin.ci = cx_q.ci + 16'd1;
    vd_ok = '0;
    vd_ok.qpn = 16'(idx_q);
    vd_ok.pay_len = h_len_q;
    vd_ok.exec = 1'b1;
    vd_ok.npieces = np_q;
    vd_ok.cqe_v = fin_cqe;
    ok_cqe = '0;
    ok_cqe.cq = cx_q.recv_cq;
    ok_cqe.solicited = h_se_q;
    ok_cqe.wr_id = cx_q.wr_id;
    ok_cqe.byte_len = is_send_q ? cx_q.placed[31:0] : cx_q.rlen;
    ok_cqe.imm = (imm_q || inv_q) ? h_imm_q : 32'd0;   // ImmDt, or the rkey invalidated
    ok_cqe.qp_num = 24'(idx_q);
    ok_cqe.opcode = is_send_q ? roce_pkg::WC_OPCODE_RECV : roce_pkg::WC_OPCODE_RECV_RDMA_WITH_IMM;
    ok_cqe.src_qp = ud_x_q ? h_dsrc_q : cx_q.dest_qpn;
    ok_cqe.status = 8'(roce_pkg::WC_STATUS_SUCCESS);
    // IBV_WC_WITH_IMM, IBV_WC_WITH_INV; UD: IBV_WC_GRH (the buffer starts with it)
    ok_cqe.wc_flags = (imm_q ? 8'd2 : inv_q ? 8'd8 : 8'd0) | (ud_x_q ? 8'd1 : 8'd0);
    ok_cqe.sl = ud_x_q ? {5'b0, h_sl_q} : {4'b0, cx_q.sl};
    ok_cqe.wqe_counter = cx_q.ci;
    vd_ok.ack_v = h_ack_q;
    vd_ok.syn = 8'(roce_pkg::AETH_ACK);
    vd_ok.psn = h_psn_q;
    vd_ok.msn = (is_read_q && dup_q) ? cx_q.msn : cx_fin.msn;
    if (is_atom_q) begin
      // its answer, after its write (if any); the replay cache records it
      vd_ok.ack_v = 1'b1;
      vd_ok.atomic = 1'b1;
      vd_ok.orig = orig_q;
      vd_ok.adata = adata_q;
      cx_fin.res_wp = cx_q.res_wp + 4'd1;
      if (cx_q.res_n != 5'(responder_pkg::RES_N)) cx_fin.res_n = cx_q.res_n + 5'd1;
    end
    if (is_read_q) begin
      // the responses' first PSN and their AETH's msn; nothing to place, no ACK of its own
      vd_ok.exec = 1'b0;
      vd_ok.ack_v = 1'b0;
      vd_ok.read = 1'b1;
      vd_ok.rlen = h_rlen_q;
      vd_ok.pmtu = cx_q.pmtu;
      vd_ok.rva = h_va_q;        // the walk, for responder_tx: the rkey check's first page run
      vd_ok.rkey = h_rkey_q;
      vd_ok.rpd = cx_q.pd;
      vd_ok.rpa = cx_q.xpa;
      vd_ok.rrun = cx_q.xleft;
    end

    unique case (st_q)
      C_IDLE: begin
        if (take_cfg) begin
          cfg_d.action = s_qp_cfg.action; cfg_d.qp_type = s_qp_cfg.qp_type; cfg_d.pd = s_qp_cfg.pd;
          cfg_d.access = s_qp_cfg.access; cfg_d.pmtu = s_qp_cfg.pmtu; cfg_d.rq_base = s_qp_cfg.rq_base;
          cfg_d.rq_lsz = s_qp_cfg.rq_lsz; cfg_d.recv_cq = s_qp_cfg.recv_cq; cfg_d.dest_qpn = s_qp_cfg.dest_qpn;
          cfg_d.rq_psn = s_qp_cfg.rq_psn; cfg_d.min_rnr = s_qp_cfg.min_rnr_timer; cfg_d.sl = s_qp_cfg.sl;
          cfg_d.rd_res = s_qp_cfg.max_dest_rd_atomic != 5'd0;
          cfg_d.l3 = s_qp_cfg.l3;
          cfg_d.qkey = s_qp_cfg.qkey;
          idx_d = s_qp_cfg.qpn[QW-1:0];
          qin_d = 32'(s_qp_cfg.qpn) < 32'(MAX_QP);
          st_d = C_CFG;
        end else if (take_db) begin
          db_pi_d = s_rq_db.pi;
          idx_d = s_rq_db.qpn[QW-1:0];
          qin_d = 32'(s_rq_db.qpn) < 32'(MAX_QP);
          st_d = C_DB;
        end
        // (a header: below, as in C_PUSH)
      end

      C_CFG: begin
        // attributes from every qp_cfg; state and indexes by its action
        if (qin_q) begin
          cx_d.pd = cfg_q.pd; cx_d.access = cfg_q.access; cx_d.pmtu = cfg_q.pmtu;
          cx_d.rq_base = cfg_q.rq_base; cx_d.rq_lsz = cfg_q.rq_lsz; cx_d.recv_cq = cfg_q.recv_cq;
          cx_d.dest_qpn = cfg_q.dest_qpn; cx_d.min_rnr = cfg_q.min_rnr; cx_d.sl = cfg_q.sl; cx_d.rd_res = cfg_q.rd_res;
          cx_d.qkey = cfg_q.qkey;
          unique case (cfg_q.action)
            roce_pkg::QP_ACTION_RESET: begin
              cx_d.state = roce_pkg::QP_STATE_RESET;
              cx_d.pi = '0; cx_d.ci = '0; cx_d.epsn = '0; cx_d.msn = '0; cx_d.nak = 1'b0;
              cx_d.kind = responder_pkg::KIND_NONE; cx_d.xleft = '0; cx_d.drop = 1'b0;
              cx_d.res_wp = '0; cx_d.res_n = '0;
            end
            roce_pkg::QP_ACTION_TO_INIT:
              if (c0.state != roce_pkg::QP_STATE_ERR) cx_d.state = roce_pkg::QP_STATE_INIT;
            roce_pkg::QP_ACTION_TO_RTR: begin
              if (c0.state != roce_pkg::QP_STATE_ERR) cx_d.state = roce_pkg::QP_STATE_RTR;
              cx_d.epsn = cfg_q.rq_psn; cx_d.msn = '0; cx_d.nak = 1'b0;
              cx_d.kind = responder_pkg::KIND_NONE; cx_d.xleft = '0; cx_d.drop = 1'b0;
              cx_d.res_wp = '0; cx_d.res_n = '0;
            end
            roce_pkg::QP_ACTION_TO_RTS:
              if (c0.state != roce_pkg::QP_STATE_ERR) cx_d.state = roce_pkg::QP_STATE_RTS;
            roce_pkg::QP_ACTION_TO_ERR: begin
              cx_d.state = roce_pkg::QP_STATE_ERR;
              fl_pend_d = c0.ci != c0.pi;
              fl_next_d = c0.ci; fl_done_d = c0.ci; fl_end_d = c0.pi;
              cx_d.ci = c0.pi;
            end
            default: ;  // ATTR, DESTROY: attributes only (ERR is left only through RESET)
          endcase
          // a prefetched head outlives only the moves that keep the ring and its indexes
          // (the QP's entries are all in the set read with the context, a way each)
          if ((cfg_q.action != roce_pkg::QP_ACTION_TO_INIT && cfg_q.action != roce_pkg::QP_ACTION_TO_RTR
               && cfg_q.action != roce_pkg::QP_ACTION_TO_RTS)
              || cfg_q.rq_base != c0.rq_base || cfg_q.rq_lsz != c0.rq_lsz)
            for (int b = 0; b < KA; b++)
              pv_clr[b] = pk_rd_q[b] && pt_rd_q[b * (PTW-1) + 16 +: QW] == idx_q;
          ctx_we = 1'b1;
          ctx_wd = cx_d;
        end
        fl_go_d = 1'b0;
        st_d = fl_pend_d ? C_FLUSH : C_IDLE;
      end

      C_DB: begin
        // RESET ignores doorbells; ERR flushes what a doorbell adds
        if (qin_q && f_valid && c0.state != roce_pkg::QP_STATE_RESET) begin
          cx_d.pi = db_pi_q;
          if (c0.state == roce_pkg::QP_STATE_ERR) begin
            fl_pend_d = c0.ci != db_pi_q;
            fl_next_d = c0.ci; fl_done_d = c0.ci; fl_end_d = db_pi_q;
            cx_d.ci = db_pi_q;
          end
          ctx_we = 1'b1;
          ctx_wd = cx_d;
          // a receive WQE read ahead of the packet that will need it (db_x, into db_e)
          // (once the read register is free: an earlier request may not be out yet)
          if (db_pf && rd_v_q) begin
            wait_rd = 1'b1;
          end else if (db_pf) begin
            pf_issue = 1'b1;
            pt_we = 1'b1; pt_wa = db_e; pt_wd = {1'b1, idx_q, db_x};
            rd_v_d = 1'b1;
            rd_d.tag = '0;
            rd_d.addr = c0.rq_base + ({48'b0, db_x & rq_mask0} << roce_pkg::WQE_SLOT_LOG2);
            rd_d.len = 13'(roce_pkg::WQE_HEAD);
          end
        end
        fl_go_d = 1'b0;
        st_d = wait_rd ? C_DB : fl_pend_d ? C_FLUSH : C_IDLE;
      end

      C_HDR: begin
        // steps 1-5 on the context as read; by default the payload is dropped
        vd_d = '0;
        vd_d.qpn = 16'(idx_q);
        vd_d.pay_len = h_len_q;
        vd_d.psn = c0.epsn;
        vd_d.msn = c0.msn;
        ok_d = 1'b0; wctx_d = 1'b0; np_d = '0; n_d = h_len_q; mr_rkey_d = 1'b0;
        st_d = C_PUSH;
        sge_ra = {idx_q, c0.sidx};  // a SEND's current SGE, for the walk
        // (the entry C_ROUTE looks in, should it need a receive WQE: the way
        // holding ci, else one not kept, which a read of ci reads ahead into)
        pe_d = {hit_f ? hit_w : free_w, RLW'(idx_q)};
        if (unrel_x_q && (s_first || s_only)) begin
          // UC: a new message from its PSN on, whatever came before (written
          // back with the packet's outcome)
          cx_d.epsn = h_psn_q;
          cx_d.drop = 1'b0;
          cx_d.kind = responder_pkg::KIND_NONE;
        end
        if (!qok_q) begin
          i_noqp = 1'b1;
        end else if (c0.state != roce_pkg::QP_STATE_RTR && c0.state != roce_pkg::QP_STATE_RTS) begin
          i_state = 1'b1;
        end else if (ud_x_q && h_qkey_q != c0.qkey) begin
          // UD (IBTA 10.2.5): a datagram without the QP's Q_Key is dropped
          i_qkey = 1'b1;
        end else if (!l3ok_q) begin
          // another encapsulation than the QP's path (RoCE v1 for a v2 QP):
          // not this QP's peer, dropped as for no QP
          i_noqp = 1'b1;
        end else if (unrel_x_q && (dpsn != '0 || c0.drop) && !(s_first || s_only)) begin
          // UC (IBTA 9.8.3): a packet lost or dropped before this one loses
          // the rest of its message; the next FIRST or ONLY starts afresh
          i_oos = 1'b1;
          cx_d.drop = 1'b1;
          cx_d.kind = responder_pkg::KIND_NONE;
          wctx_d = 1'b1;
        end else if (!unrel_x_q && dpsn[23]) begin
          i_dup = 1'b1;
          if (is_atom_q) begin
            // answered from the replay cache, if it holds its PSN; not checked or executed again
            dj_d = '0;
            st_d = C_DUPA;
          end else if (!is_read_q) begin
            vd_d.ack_v = h_ack_q;
            vd_d.syn = 8'(roce_pkg::AETH_ACK);
            vd_d.psn = c0.epsn - 24'd1;
          end else if (h_len_q == '0 && h_rlen_q <= RD_MAX && 24'(c0.epsn - h_psn_q) >= rd_npk
                       && (c0.access & roce_pkg::ACCESS_REMOTE_READ) != 4'd0 && c0.rd_res) begin
            // executed again from its RETH when its responses all lie behind epsn (else dropped, no NAK)
            dup_d = 1'b1;
            rd_start = 1'b1;
          end
        end else if (!unrel_x_q && dpsn != '0) begin
          i_oos = 1'b1;
          if (!c0.nak) begin
            vd_d.ack_v = 1'b1;
            vd_d.syn = 8'(roce_pkg::AETH_NAK_PSN_SEQ);
            cx_d.nak = 1'b1;
            wctx_d = 1'b1;
          end
        end else if (!(is_send_q || is_write_q || is_read_q || is_atom_q) || !seq_ok || !len_ok
                     || (is_write_q && !wlen_ok)
                     || (is_read_q && (h_len_q != '0 || h_rlen_q > RD_MAX)) || (is_atom_q && h_len_q != '0)) begin
          i_inv = 1'b1;
          err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
        end else if (is_send_q && (s_mid || s_last) && {22'b0, h_len_q} + c0.placed > c0.total) begin
          i_inv = 1'b1;
          err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
          err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR);
        end else if ((is_write_q && (s_first || s_only)
                      && (c0.access & roce_pkg::ACCESS_REMOTE_WRITE) == 4'd0)
                     || (is_read_q && (c0.access & roce_pkg::ACCESS_REMOTE_READ) == 4'd0)
                     || (is_atom_q && (c0.access & roce_pkg::ACCESS_REMOTE_ATOMIC) == 4'd0)) begin
          i_acc = 1'b1;
          err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_ACC);
        end else if ((is_read_q || is_atom_q) && !c0.rd_res) begin
          // no READ/atomic resources (max_dest_rd_atomic 0): invalid request, as rxe's check_resource
          i_inv = 1'b1;
          err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
        end else if (is_read_q) begin
          rd_start = 1'b1;
        end else if (is_atom_q) begin
          // the rkey check over its 8 bytes; its answer is where they are
          mr_v_d = 1'b1;
          mr_d = '0; mr_d.key = h_rkey_q; mr_d.pd = c0.pd; mr_d.va = h_va_q; mr_d.len = 32'd8;
          mr_d.access = roce_pkg::ACCESS_REMOTE_ATOMIC; mr_d.remote = 1'b1; mr_d.qpn = 24'(idx_q);
          mr_rkey_d = 1'b1;
          st_d = C_MRW;
        end else begin
          if (is_write_q && (s_first || s_only)) begin
            cx_d.kind = responder_pkg::KIND_WRITE;
            cx_d.va = h_va_q; cx_d.left = h_rlen_q; cx_d.rkey = h_rkey_q; cx_d.rlen = h_rlen_q;
            cx_d.xleft = '0;
          end
          if (is_write_q && (s_first || s_only) && h_rlen_q != '0) begin
            // step 5: the rkey check (a zero-length WRITE needs none, IBTA C9-88);
            // its answer is also the first page run's translation
            mr_v_d = 1'b1;
            mr_d = '0; mr_d.key = h_rkey_q; mr_d.pd = c0.pd; mr_d.va = h_va_q; mr_d.len = h_rlen_q;
            mr_d.access = roce_pkg::ACCESS_REMOTE_WRITE; mr_d.remote = 1'b1; mr_d.qpn = 24'(idx_q);
            mr_rkey_d = 1'b1;
            st_d = C_MRW;
          end else if (needs_wqe && c0.ci != c0.pi && hit_f) begin
            // step 6 with its receive WQE prefetched (or on its way): C_ROUTE's
            // take of the way in this cycle (the set's tags were read with the
            // context; its head bank is read at pe_d, so C_WQE has it next)
            pt_we = 1'b1; pt_wa = pe_d; pt_wd = {1'b0, idx_q, c0.ci};
            pf_use_d = 1'b1;
            st_d = C_WQE;
          end else if (needs_wqe) begin
            st_d = C_ROUTE;
          end else begin
            st_d = h_len_q != '0 ? C_WALK : C_PUSH;
            ok_d = h_len_q == '0;
          end
        end
        if (rd_start) begin
          // step 5 for a READ: the rkey check over the whole range (none for a
          // zero-length READ); its answer is the first page run
          cx_d.xleft = '0;   // (the walk itself travels in the verdict: responder_tx)
          if (h_rlen_q != '0) begin
            mr_v_d = 1'b1;
            mr_d = '0; mr_d.key = h_rkey_q; mr_d.pd = c0.pd; mr_d.va = h_va_q; mr_d.len = h_rlen_q;
            mr_d.access = roce_pkg::ACCESS_REMOTE_READ; mr_d.remote = 1'b1; mr_d.qpn = 24'(idx_q);
            mr_rkey_d = 1'b1;
            st_d = C_MRW;
          end else begin
            ok_d = 1'b1;
            st_d = C_PUSH;
          end
        end
      end

      C_ROUTE: begin
        // step 6: a receive WQE is needed
        if (cx_q.ci == cx_q.pi) begin
          i_rnr = 1'b1;
          vd_d.ack_v = 1'b1;
          vd_d.syn = {3'b001, cx_q.min_rnr};
          wctx_d = 1'b0;  // nothing changes: the requester retries this PSN
          if (unrel_x_q) begin
            // UC: no RNR NAK; the message is lost (rxe)
            cx_d.drop = 1'b1;
            cx_d.kind = responder_pkg::KIND_NONE;
            wctx_d = 1'b1;
          end
          st_d = C_PUSH;
        end else if (pt_keep && pt_qp == idx_q && pt_ci == cx_q.ci) begin
          // prefetched (or on its way): no read
          pt_we = 1'b1; pt_wd = {1'b0, pt_qp, pt_ci};
          pf_use_d = 1'b1;
          st_d = C_WQE;
        end else if (!rd_v_q) begin
          rd_v_d = 1'b1;
          rd_d.tag = '0;
          rd_d.addr = cx_q.rq_base + ({48'b0, cx_q.ci & rq_mask} << roce_pkg::WQE_SLOT_LOG2);
          rd_d.len = 13'(roce_pkg::WQE_HEAD);
          poison_d = 1'b0;
          pf_use_d = 1'b0;
          st_d = C_WQE;
        end
      end

      C_MRW: begin
        if (s_mr_resp_valid && mr_inv_q) begin
          // the SEND with invalidate's rkey: invalidated, or refused (rxe
          // completes the receive WQE with REM_INV_REQ_ERR; the requester
          // learns of it by the NAK)
          mr_inv_d = 1'b0;
          if (s_mr_resp.status == roce_pkg::MR_STATUS_OK) begin
            st_d = C_PUSH;
          end else begin
            i_inv = 1'b1;
            err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
            err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_REM_INV_REQ_ERR);
          end
        end else if (s_mr_resp_valid) begin
          if (s_mr_resp.status != roce_pkg::MR_STATUS_OK && is_read_q && dup_q) begin
            st_d = C_PUSH;   // a duplicate READ that fails its rkey check: dropped
          end else if (s_mr_resp.status != roce_pkg::MR_STATUS_OK) begin
            err = 1'b1;
            if (is_write_q || is_read_q || is_atom_q) begin
              i_acc = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_ACC);
            end else begin
              i_op = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_OP);
              err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_PROT_ERR);
            end
          end else begin
            cx_d.xpa = s_mr_resp.pa;
            cx_d.xleft = s_mr_resp.run;
            mr_rkey_d = 1'b0;
            if (is_atom_q && h_va_q[2:0] != 3'd0) begin
              // misaligned: invalid request, checked after the key as rxe does
              i_inv = 1'b1;
              err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
            end else if (is_atom_q) begin
              st_d = C_ATW;
            end else if (mr_rkey_q && is_read_q) begin
              st_d = C_PUSH;
              ok_d = 1'b1;
            end else if (mr_rkey_q && needs_wqe) begin
              st_d = C_ROUTE;
            end else if (mr_rkey_q && n_q == '0) begin
              st_d = C_PUSH;
              ok_d = 1'b1;
            end else begin
              // the run's first piece at once (the answer is its address;
              // C_WALK cuts the rest), unless the piece FIFO is full
              st_d = C_WALK;
              if (m_pc_ready && s_mr_resp.run != '0) begin
                m_pc_valid = 1'b1;
                cut = 1'b1;
              end
            end
          end
        end
      end

      C_WQE: begin
        // the slot once its data is in, or the read's beats
        // (taking an entry that will read the next WQE waits for the read register)
        if (pf_use_q ? pf_ok_q && !pf_busy_e && !(pf_next && rd_v_q) : rd_tvalid) begin
          wqe_d = wqe_w;
          poison_d = pf_use_q ? |pf_bpois : poison_q || s_dma_rd_tuser;
          // taken from the table: the first of the QP's next RQ_AHEAD WQEs
          // posted and not in the set into the same way (a stream of SENDs
          // keeps hitting); read (not there): the same at its last beat into
          // a way not kept, unless it has a read in flight or the read
          // register is taken (no wait), so a ring posted by doorbells of
          // many WQEs each fills up
          if (pf_next && (pf_use_q || (s_dma_rd_tlast && !pt_keep && !pf_busy_e && !rd_v_q))) begin
            pf_issue = 1'b1;
            pt_we = 1'b1; pt_wd = {1'b1, idx_q, tk_x};
            rd_v_d = 1'b1;
            rd_d.tag = '0;
            rd_d.addr = cx_q.rq_base + ({48'b0, tk_x & rq_mask} << roce_pkg::WQE_SLOT_LOG2);
            rd_d.len = 13'(roce_pkg::WQE_HEAD);
          end
          if (pf_use_q || s_dma_rd_tlast) begin
            cx_d.wr_id = poison_d ? 64'd0 : wqe_w[8 * roce_pkg::RECV_WQE_WR_ID_OFF +: 64];
            if (poison_d || wqe_nsge > 8'(responder_pkg::MAX_SGE)) begin
              i_op = 1'b1;
              err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_OP);
              err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_QP_OP_ERR);
            end else if (is_send_q) begin
              cx_d.kind = responder_pkg::KIND_SEND;
              cx_d.nsge = wqe_nsge[4:0];
              cx_d.total = '0; cx_d.placed = '0; cx_d.sidx = '0; cx_d.soff = '0; cx_d.xleft = '0;
              sg_d = '0;
              st_d = wqe_nsge > 8'(responder_pkg::HEAD_SGE) ? C_TAIL : C_SGE;
              if (wqe_nsge <= 8'd1) begin
                // one slot: C_SGE's last-slot work in this cycle (see there)
                sge_we = 1'b1;
                sge_one = 1'b1;
                sg_d = 4'd1;
                if (wqe_nsge == 8'd1) cx_d.total = {3'b0, sge0_w[8 * roce_pkg::SGE_LENGTH_OFF +: 32]};
                if ({22'b0, h_len_q} > cx_d.total) begin
                  i_inv = 1'b1;
                  err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
                  err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR);
                end else if (n_q == '0) begin
                  ok_d = 1'b1;
                  st_d = C_PUSH;
                end else if (sge0_w[8 * roce_pkg::SGE_LENGTH_OFF +: 32] != '0) begin
                  mr_v_d = 1'b1;
                  mr_d = '0;
                  mr_d.pd = cx_q.pd;
                  mr_d.qpn = 24'(idx_q);
                  mr_d.key = sge0_w[8 * roce_pkg::SGE_LKEY_OFF +: 32];
                  mr_d.va = sge0_w[8 * roce_pkg::SGE_ADDR_OFF +: 64];
                  mr_d.len = sge0_w[8 * roce_pkg::SGE_LENGTH_OFF +: 32];
                  mr_d.access = roce_pkg::ACCESS_LOCAL_WRITE;
                  st_d = C_MRW;
                end else begin
                  st_d = C_WALK;  // (not reached: an empty only SGE fails the length check or places nothing)
                end
              end
            end else begin
              st_d = n_q != '0 ? C_WALK : C_PUSH;
              ok_d = n_q == '0;
            end
          end
        end
      end

      C_TAIL: begin
        // SGEs 6..nsge-1: right after the head in the slot
        if (!rd_v_q) begin
          rd_v_d = 1'b1;
          rd_d.tag = '0;
          rd_d.addr = cx_q.rq_base + ({48'b0, cx_q.ci & rq_mask} << roce_pkg::WQE_SLOT_LOG2)
                      + 64'(roce_pkg::WQE_HEAD);
          rd_d.len = 13'(roce_pkg::SGE_SIZE) * (13'(cx_q.nsge) - 13'(responder_pkg::HEAD_SGE));
          tb_d = '0;
          st_d = C_WQT;
        end
      end

      C_WQT: begin
        if (rd_tvalid) begin
          tail_d[32'(tb_q) * DATA_W +: DATA_W] = s_dma_rd_tdata;
          tb_d = tb_q + 5'd1;
          poison_d = poison_q || s_dma_rd_tuser;
          if (s_dma_rd_tlast) begin
            if (poison_d) begin
              i_op = 1'b1;
              err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_OP);
              err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_QP_OP_ERR);
            end else begin
              st_d = C_SGE;
            end
          end
        end
      end

      C_SGE: begin
        // the WQE's SGEs into the SGE RAM, one per cycle, and the total of the first nsge
        sge_we = 1'b1;
        if ({1'b0, sg_q} < cx_q.nsge) cx_d.total = cx_q.total + {3'b0, sge_of_wqe[8 * roce_pkg::SGE_LENGTH_OFF +: 32]};
        sg_d = sg_q + 4'd1;
        if (sg_q == sg_last) begin
          // the last slot: with the total, the length check; and the first
          // SGE's lkey check (its page run) asked at once, from the WQE. Only
          // an empty SGE 0 goes to C_WALK (on to the next SGE): slot 0 is
          // read in this cycle (sidx = 0), written before it (an empty
          // SGE 0 with nsge 1 fails the length check)
          if ({22'b0, h_len_q} > cx_d.total) begin
            i_inv = 1'b1;
            err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
            err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR);
          end else if (n_q == '0) begin
            ok_d = 1'b1;
            st_d = C_PUSH;
          end else if (sge0_len != '0) begin
            mr_v_d = 1'b1;
            mr_d = '0;
            mr_d.pd = cx_q.pd;
            mr_d.qpn = 24'(idx_q);
            mr_d.key = sge0_lkey;
            mr_d.va = sge0_addr;
            mr_d.len = sge0_len;
            mr_d.access = roce_pkg::ACCESS_LOCAL_WRITE;
            st_d = C_MRW;
          end else begin
            st_d = C_WALK;
          end
        end
      end

      C_WALK: begin
        if (is_send_q && cx_q.soff == sge_len) begin
          // this SGE is full (or empty): on to the next, read in C_SRD
          if ({1'b0, cx_q.sidx} + 5'd1 >= cx_q.nsge) begin
            i_inv = 1'b1;   // cannot happen after the length checks; kept as a guard
            err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_INV_REQ);
            err_cqe = 1'b1; err_status = 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR);
          end else begin
            cx_d.sidx = cx_q.sidx + 4'd1;
            cx_d.soff = '0;
            cx_d.xleft = '0;
            st_d = C_SRD;
          end
        end else if (cx_q.xleft == '0) begin
          // a new page run: its translation (for a SEND, the SGE's lkey check too)
          mr_v_d = 1'b1;
          mr_d = '0;
          mr_d.pd = cx_q.pd;
          mr_d.qpn = 24'(idx_q);
          if (is_send_q) begin
            mr_d.key = sge_lkey;
            mr_d.va = sge_addr + {32'b0, cx_q.soff};
            mr_d.len = sge_len - cx_q.soff;
            mr_d.access = roce_pkg::ACCESS_LOCAL_WRITE;
          end else begin
            mr_d.key = cx_q.rkey;
            mr_d.va = cx_q.va;
            mr_d.len = cx_q.left;
            mr_d.access = roce_pkg::ACCESS_REMOTE_WRITE;
            mr_d.remote = 1'b1;
          end
          st_d = C_MRW;
        end else begin
          m_pc_valid = 1'b1;
          cut = m_pc_ready;
        end
      end

      C_SRD: st_d = C_WALK;   // the next SGE is read in this cycle

      C_INV: begin
        // remote: only a type 2 window bound to this QP, in its PD
        mr_v_d = 1'b1;
        mr_d = '0; mr_d.op = roce_pkg::MR_OP_INVALIDATE; mr_d.key = h_imm_q; mr_d.pd = cx_q.pd;
        mr_d.remote = 1'b1; mr_d.qpn = 24'(idx_q);
        mr_inv_d = 1'b1;
        st_d = C_MRW;
      end

      C_PUSH: begin
        if (m_vd_ready) begin
          if (ok_q) begin
            i_rx = !(is_read_q && dup_q);
            i_rd = is_read_q;
            cx_d = cx_fin;
            ctx_we = !(is_read_q && dup_q);   // a duplicate READ changes nothing
            res_we = is_atom_q;
            ctx_wd = cx_fin;
            m_pc_commit = 1'b1;
          end else begin
            ctx_we = wctx_q;
            m_pc_abort = 1'b1;
          end
          fl_go_d = 1'b0;
          st_d = fl_pend_q ? C_FLUSH : C_IDLE;
        end
      end

      C_ATW: begin
        // earlier packets' writes taken: the 8 bytes are current. Earlier READs'
        // data may still be read after the atomic's write (IBTA lets later
        // operations overtake a READ's data; a requester that needs the order
        // fences). Waiting for the sender instead would couple the receive
        // path to the transmit path: over the internal loopback the READ's
        // own responses queue behind the requests after the atomic.
        if (drained && !rd_v_q) begin
          rd_v_d = 1'b1;
          rd_d.tag = '0;
          rd_d.addr = cx_q.xpa;
          rd_d.len = 13'd8;
          st_d = C_ATR;
        end
      end

      C_ATR: begin
        if (rd_tvalid && s_dma_rd_tlast) begin
          orig_d = s_dma_rd_tdata[63:0];
          if (s_dma_rd_tuser) begin
            i_op = 1'b1;
            err = 1'b1; err_syn = 8'(roce_pkg::AETH_NAK_REM_OP);
          end else begin
            // CMP_SWAP writes swap_add when the value equals compare; FETCH_ADD the sum
            adata_d = cas_q ? h_swap_q : s_dma_rd_tdata[63:0] + h_swap_q;
            if (cas_q && s_dma_rd_tdata[63:0] != h_cmp_q) begin
              ok_d = 1'b1;
              st_d = C_PUSH;      // nothing to write
            end else begin
              n_d = 13'd8;        // one 8-byte piece inside the checked run
              st_d = C_WALK;
            end
          end
        end
      end

      C_DUPA: begin
        // one entry read a cycle (res_rd_q: the one asked for last cycle)
        if (dv_q && res_rd_q[87:64] == h_psn_q) begin
          vd_d.ack_v = 1'b1;
          vd_d.atomic = 1'b1;
          vd_d.syn = 8'(roce_pkg::AETH_ACK);
          vd_d.psn = h_psn_q;
          vd_d.orig = res_rd_q[63:0];
          st_d = C_PUSH;
        end else if (dj_q < cx_q.res_n) begin
          dv_d = 1'b1;
          dj_d = dj_q + 5'd1;
        end else if (!dv_q) begin
          st_d = C_PUSH;          // not there: dropped without an answer
        end
      end

      C_FLUSH: begin
        // read each flushed WQE's wr_id, complete it with WR_FLUSH_ERR; starts once
        // the placement stage has drained, so earlier completions stay ahead
        if (drained) fl_go_d = 1'b1;
        if (fl_go_q) begin
          if (!rd_v_q && fl_next_q != fl_end_q && fl_out_q < 4'(FL_MAX)) begin
            fl_issue = 1'b1;
            rd_v_d = 1'b1;
            rd_d.tag = '0;
            rd_d.addr = cx_q.rq_base + ({48'b0, fl_next_q & rq_mask} << roce_pkg::WQE_SLOT_LOG2);
            rd_d.len = 13'(roce_pkg::RECV_WQE_WR_ID_BYTES);
            fl_next_d = fl_next_q + 16'd1;
          end
          rd_beat = rd_tvalid && s_dma_rd_tready && s_dma_rd_tlast;
          if (rd_beat) begin
            cq_v_d = 1'b1;
            fl_wr_d = s_dma_rd_tuser ? 64'd0 : s_dma_rd_tdata[63:0];
            fl_ctr_d = fl_done_q;
            fl_done_d = fl_done_q + 16'd1;
          end
          fl_out_d = fl_out_q + {3'b0, fl_issue} - {3'b0, rd_beat};
          if (fl_done_q == fl_end_q && !cq_v_q) begin
            fl_pend_d = 1'b0;
            st_d = C_IDLE;
          end
        end
      end

      default: st_d = C_IDLE;
    endcase

    // a piece cut (C_WALK, or C_MRW from the answer): the walk moves past it
    if (cut) begin
      np_d = np_q + 6'd1;
      n_d = n_q - k;
      cx_d.xpa = cut_pa + {51'b0, k};
      cx_d.xleft = cut_left - {19'b0, k};
      if (is_send_q) begin
        cx_d.soff = cx_q.soff + {19'b0, k};
        cx_d.placed = cx_q.placed + {22'b0, k};
      end else begin
        cx_d.va = cx_q.va + {51'b0, k};
        cx_d.left = cx_q.left - {19'b0, k};
      end
      if (k == n_q) begin
        ok_d = 1'b1;
        st_d = C_PUSH;
      end
    end

    // a SEND with invalidate that passed every check invalidates its rkey
    // before its verdict (step 8)
    if (st_d == C_PUSH && ok_d && !ok_q && is_send_q && inv_q) st_d = C_INV;

    // a failed check: NAK (psn = epsn, current msn), maybe an error CQE for the
    // receive WQE at ci, the QP enters ERR and the rest of its receive queue is flushed
    if (err && unrel_x_q) begin
      // UC/UD: no NAK and no error state: the message is dropped to its end;
      // a SEND too long for its receive WQE completes that WQE with
      // LOC_LEN_ERR (IBTA class D, as rxe) and the QP goes on
      cx_d.drop = 1'b1;
      cx_d.kind = responder_pkg::KIND_NONE;
      wctx_d = 1'b1;
      ok_d = 1'b0;
      st_d = C_PUSH;
      if (err_cqe && err_status == 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR)) begin
        vd_d.cqe_v = 1'b1;
        est_d = err_status;
        ectr_d = cx_d.ci;
        cx_d.ci = cx_d.ci + 16'd1;
      end
    end else if (err) begin
      vd_d.ack_v = 1'b1;
      vd_d.syn = err_syn;
      vd_d.psn = cx_d.epsn;
      vd_d.msn = cx_d.msn;
      vd_d.cqe_v = err_cqe;
      est_d = err_status;
      ectr_d = cx_d.ci;
      err_ci = err_cqe ? cx_d.ci + 16'd1 : cx_d.ci;
      cx_d.state = roce_pkg::QP_STATE_ERR;
      fl_pend_d = err_ci != cx_d.pi;
      fl_next_d = err_ci; fl_done_d = err_ci; fl_end_d = cx_d.pi;
      cx_d.ci = cx_d.pi;
      wctx_d = 1'b1;
      ok_d = 1'b0;
      st_d = C_PUSH;
    end


    // fast_vd: C_PUSH's work for the packet the answer's piece ended (its
    // context as the cut leaves it, then the success path's outcome)
    if (fast_vd) begin
      cx_d.epsn = cx_q.epsn + 24'd1;
      cx_d.nak = 1'b0;
      if (fin_last) begin
        cx_d.msn = cx_q.msn + 24'd1;
        cx_d.kind = responder_pkg::KIND_NONE;
        cx_d.xleft = '0;
      end
      if (fin_cqe) cx_d.ci = cx_q.ci + 16'd1;
      i_rx = 1'b1;
      ctx_we = 1'b1;
      ctx_wd = cx_d;
      m_pc_commit = 1'b1;
      fl_go_d = 1'b0;
      ok_d = 1'b0;
      st_d = C_IDLE;
    end

    // a header taken (C_IDLE, or C_PUSH as the verdict before it leaves, or fast_vd)
    if (take_hdr) begin
      idx_d = s_rx_hdr.dst_qpn[QW-1:0];
      // an RC QP (another type's opcode is an invalid request there), a UC
      // QP and a UC opcode, a UD QP and a UD opcode (an RC opcode is not their peer's)
      qok_d = s_rx_hdr.dst_qpn < 24'(MAX_QP) && h_valid && (h_rc || (h_uc && uc_op) || (h_ud && ud_op));
      unrel_x_d = h_uc || h_ud;
      ud_x_d = h_ud;
      // (a UD QP has no path: any encapsulation)
      l3ok_d = h_ud || l3_q[s_rx_hdr.dst_qpn[QW-1:0]] == s_rx_hdr.l3;
      h_qkey_d = s_rx_hdr.qkey; h_dsrc_d = s_rx_hdr.deth_src_qpn;
      h_sl_d = s_rx_hdr.vlan_valid ? s_rx_hdr.vlan_pcp : 3'd0;
      h_se_d = s_rx_hdr.se; h_ack_d = s_rx_hdr.ack_req;
      h_psn_d = s_rx_hdr.psn; h_va_d = s_rx_hdr.reth_va; h_rkey_d = s_rx_hdr.reth_rkey;
      h_rlen_d = s_rx_hdr.reth_len; h_imm_d = s_rx_hdr.imm; h_len_d = s_rx_hdr.pay_len;
      is_send_d  = op_n <= roce_pkg::OP_RC_SEND_ONLY_IMM
                   || op_n == roce_pkg::OP_RC_SEND_LAST_INV
                   || op_n == roce_pkg::OP_RC_SEND_ONLY_INV;
      inv_d      = in_oi.ext[roce_pkg::EXT_IETH];
      is_write_d = op_n >= roce_pkg::OP_RC_WRITE_FIRST
                   && op_n <= roce_pkg::OP_RC_WRITE_ONLY_IMM;
      is_read_d  = op_n == roce_pkg::OP_RC_READ_REQ;
      cas_d      = op_n == roce_pkg::OP_RC_CMP_SWAP;
      is_atom_d  = cas_d || op_n == roce_pkg::OP_RC_FETCH_ADD;
      h_swap_d = s_rx_hdr.swap_add; h_cmp_d = s_rx_hdr.compare;
      dup_d = 1'b0;
      imm_d = in_oi.ext[roce_pkg::EXT_IMMDT];
      seg_d = in_oi.seg;
      st_d = C_HDR;
    end

    // a WRITE's, READ's or atomic's rkey check is asked in C_HDR itself (the
    // port's register holds it if not taken at once): its answer comes in C_MRW
    mr_now = (st_q == C_HDR || st_q == C_SGE || st_q == C_WQE) && st_d == C_MRW && mr_v_d;

    m_vd = ok_q ? vd_ok : vd_q;
    if (fast_vd) begin
      m_vd = vd_ok;
      m_vd.npieces = np_d;   // (with the answer's piece)
    end
    if (unrel_x_q) m_vd.ack_v = 1'b0;  // UC: nothing is acknowledged
    // the error completion of the WQE at ectr (wr_id and the QP's fields from the context)
    err_cqe_s = '0;
    err_cqe_s.cq = cx_q.recv_cq;
    err_cqe_s.wr_id = cx_q.wr_id;
    err_cqe_s.qp_num = 24'(idx_q);
    err_cqe_s.opcode = is_send_q ? roce_pkg::WC_OPCODE_RECV : roce_pkg::WC_OPCODE_RECV_RDMA_WITH_IMM;
    err_cqe_s.src_qp = cx_q.dest_qpn;
    err_cqe_s.status = est_q;
    err_cqe_s.sl = {4'b0, cx_q.sl};
    err_cqe_s.wqe_counter = ectr_q;
    m_vd_cqe = ok_q ? ok_cqe : err_cqe_s;
    if (fast_vd) begin
      m_vd_cqe = ok_cqe;
      if (is_send_q) m_vd_cqe.byte_len = cx_d.placed[31:0];  // (with the answer's piece)
    end
    // a flush completion
    m_cq = '0;
    m_cq.cq = cx_q.recv_cq;
    m_cq.wr_id = fl_wr_q;
    m_cq.qp_num = 24'(idx_q);
    m_cq.opcode = roce_pkg::WC_OPCODE_RECV;
    m_cq.src_qp = cx_q.dest_qpn;
    m_cq.status = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);
    m_cq.sl = {4'b0, cx_q.sl};
    m_cq.wqe_counter = fl_ctr_q;
  end

  // ---- memories
  always_ff @(posedge clk) begin
    if (ctx_we) ctx_mem[idx_q] <= ctx_wd;
    if (ctx_re) ctx_rd_q <= ctx_mem[ctx_ra];
    // (a header taken in C_PUSH may be for the QP whose context is written
    // back in that cycle: the RAM reads the old one, the new one is kept here)
    if (ctx_re) fwd_v_q <= ctx_we && ctx_ra == idx_q;
    if (ctx_re && ctx_we) fwd_q <= ctx_wd;
  end
  always_ff @(posedge clk) begin
    if (res_we) res_mem[{idx_q, cx_q.res_wp}] <= {h_psn_q, orig_q};
    res_rd_q <= res_mem[res_ra];
  end
  always_ff @(posedge clk) begin
    if (sge_we) sge_mem[{idx_q, sge_one ? 4'd0 : sg_q}] <= sge_one ? sge0_w : sge_of_wqe;
    sge_rd_q <= sge_mem[sge_ra];
  end

  // ---- registers
  // the flags: a qp_cfg writes QP idx_q's four ({ud, uc, rc, valid}, bits 3..0)
  logic cfg_w;
  assign cfg_w = st_q == C_CFG && qin_q;
  qp_flags #(.N(MAX_QP), .D(4), .R(2)) u_flags (
    .clk, .rst, .we(cfg_w), .widx(idx_q), .wmask(4'hf),
    .wdata({cfg_q.qp_type == roce_pkg::QP_TYPE_UD, cfg_q.qp_type == roce_pkg::QP_TYPE_UC,
            cfg_q.qp_type == roce_pkg::QP_TYPE_RC, cfg_q.action != roce_pkg::QP_ACTION_DESTROY}),
    .ridx({s_rx_hdr.dst_qpn[QW-1:0], idx_q}),
    .rdata({h_ud, h_uc, h_rc, h_valid, f_ud, f_uc, f_rc, f_valid}), .busy(flags_busy));
  assign init_busy = flags_busy;

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q <= C_IDLE;
      rd_v_q <= 1'b0; mr_v_q <= 1'b0; cq_v_q <= 1'b0; mr_inv_q <= 1'b0;
      fl_pend_q <= 1'b0; fl_go_q <= 1'b0; fl_out_q <= '0;
      po_n_q <= '0; po_beat_q <= '0;
      {c_rx_q, c_noqp_q, c_state_q, c_oos_q, c_dup_q, c_acc_q, c_inv_q, c_rnr_q, c_op_q, c_rd_q, c_qkey_q} <= '0;
    end else begin
      st_q <= st_d;
      rd_v_q <= rd_v_d; cq_v_q <= cq_v_d; mr_inv_q <= mr_inv_d;
      mr_v_q <= (mr_v_d && !(mr_now && m_mr_req_ready)) || (mr_v_q && !m_mr_req_ready);
      fl_pend_q <= fl_pend_d; fl_go_q <= fl_go_d; fl_out_q <= fl_out_d;
      po_n_q <= po_n_q + PFOW'(pf_issue) - PFOW'(po_pop);
      if (po_n_q != '0 && s_dma_rd_tvalid) po_beat_q <= po_pop ? '0 : po_beat_q + 1'b1;
      c_rx_q    <= c_rx_q    + 32'(i_rx);
      c_noqp_q  <= c_noqp_q  + 32'(i_noqp);
      c_state_q <= c_state_q + 32'(i_state);
      c_oos_q   <= c_oos_q   + 32'(i_oos);
      c_dup_q   <= c_dup_q   + 32'(i_dup);
      c_acc_q   <= c_acc_q   + 32'(i_acc);
      c_inv_q   <= c_inv_q   + 32'(i_inv);
      c_rnr_q   <= c_rnr_q   + 32'(i_rnr);
      c_op_q    <= c_op_q    + 32'(i_op);
      c_rd_q    <= c_rd_q    + 32'(i_rd);
      c_qkey_q  <= c_qkey_q  + 32'(i_qkey);
    end
  end

  always_ff @(posedge clk) begin
    cx_q <= cx_d; vd_q <= vd_d; est_q <= est_d; ectr_q <= ectr_d; cfg_q <= cfg_d; db_pi_q <= db_pi_d;
    idx_q <= idx_d; qin_q <= qin_d; qok_q <= qok_d; l3ok_q <= l3ok_d; unrel_x_q <= unrel_x_d; ud_x_q <= ud_x_d;
    h_qkey_q <= h_qkey_d; h_dsrc_q <= h_dsrc_d; h_sl_q <= h_sl_d;
    h_se_q <= h_se_d; h_ack_q <= h_ack_d; h_psn_q <= h_psn_d; h_va_q <= h_va_d;
    h_rkey_q <= h_rkey_d; h_rlen_q <= h_rlen_d; h_imm_q <= h_imm_d; h_len_q <= h_len_d;
    is_send_q <= is_send_d; is_write_q <= is_write_d; imm_q <= imm_d; seg_q <= seg_d; inv_q <= inv_d;
    is_read_q <= is_read_d; dup_q <= dup_d;
    is_atom_q <= is_atom_d; cas_q <= cas_d; h_swap_q <= h_swap_d; h_cmp_q <= h_cmp_d;
    orig_q <= orig_d; adata_q <= adata_d; dj_q <= dj_d; dv_q <= dv_d;
    n_q <= n_d; np_q <= np_d; ok_q <= ok_d; wctx_q <= wctx_d; mr_rkey_q <= mr_rkey_d;
    wqe_q <= wqe_d; tail_q <= tail_d; tb_q <= tb_d; poison_q <= poison_d; sg_q <= sg_d;
    fl_next_q <= fl_next_d; fl_done_q <= fl_done_d; fl_end_q <= fl_end_d;
    rd_q <= rd_d; mr_q <= mr_d; fl_wr_q <= fl_wr_d; fl_ctr_q <= fl_ctr_d;
    pe_q <= pe_d; pf_use_q <= pf_use_d;
    dbl_q <= wait_rd;
    if (wait_rd) begin
      dbl_x_q <= db_x;
      dbl_e_q <= db_e;
    end
    pf_ok_q <= !pf_busy_d;  // (of the entry whose bank is read now: pe_d)
  end

  // ---- the prefetch table: tags (read with the context), the reads in
  // flight (a shift register of their entries, oldest at 0), the heads (a
  // bank per beat, {poison, data}; read every cycle at the entry worked on)
  //
  // Per way, besides its tags: keep bits (the entry holds, or will, the head
  // of the WQE at {qp, ci}) and busy bits (the entry has a prefetch read in
  // flight: at most one, since reads go only into entries without one, so
  // the set's ways are a look-up, not a search of the reads in flight).
  // Registers, so that they reset; a way's RH / KA bits each, written a bit
  // at a time under the way's own compare: one RH-bit vector written at a
  // variable place made Yosys's front end two RH-bit shifters per write.
  logic [KA-1:0] busy_pe, busy_pd;                 // each way's busy bit of pe_q's (pe_d's) set
  for (genvar b = 0; b < KA; b++) begin : g_tag
    logic [PTW-2:0] pt_mem [RH / KA];              // way b's tags {qp, ci}, one per set
    logic [RH/KA-1:0] keep_q, busy_q;
    always_ff @(posedge clk) begin
      if (pt_we && pt_wa[RHW-1:RLW] == KW'(b)) pt_mem[pt_wa[RLW-1:0]] <= pt_wd[PTW-2:0];
      if (ctx_re) begin
        pt_rd_q[b * (PTW-1) +: PTW-1] <= pt_mem[RLW'(ctx_ra)];
        pk_rd_q[b] <= keep_q[RLW'(ctx_ra)];
      end
    end
    always_ff @(posedge clk)
      if (rst) begin
        keep_q <= '0;
        busy_q <= '0;
      end else begin
        if (pt_we && pt_wa[RHW-1:RLW] == KW'(b)) keep_q[pt_wa[RLW-1:0]] <= pt_wd[PTW-1];
        if (pv_clr[b]) keep_q[RLW'(idx_q)] <= 1'b0;
        if (po_pop && po_e[0][RHW-1:RLW] == KW'(b)) busy_q[po_e[0][RLW-1:0]] <= 1'b0;
        if (pf_issue && pf_e[RHW-1:RLW] == KW'(b)) busy_q[pf_e[RLW-1:0]] <= 1'b1;
      end
    assign set_busy[b] = busy_q[RLW'(idx_q)];
    assign busy_pe[b] = busy_q[pe_q[RLW-1:0]];
    assign busy_pd[b] = busy_q[pe_d[RLW-1:0]];
  end
  assign po_pop = po_n_q != '0 && s_dma_rd_tvalid && s_dma_rd_tlast;
  logic [PFO*RHW-1:0] po_v_q, po_v_d;              // po_e as one vector (entry i at [i*RHW +: RHW])
  logic [PFOW-1:0] po_at;                          // where an issued one goes
  always_comb begin
    po_v_d = po_pop ? po_v_q >> RHW : po_v_q;
    // (never full when one is issued: po_n_q < PFO)
    po_at = po_pop ? po_n_q - 1'b1 : po_n_q;
    pf_e = st_q == C_DB ? db_e : pe_q;
    if (pf_issue) po_v_d[32'(po_at) * RHW +: RHW] = pf_e;
    for (int i = 0; i < PFO; i++) po_e[i] = po_v_q[i * RHW +: RHW];
    pf_busy_e = busy_pe[pe_q[RHW-1:RLW]];
    pf_busy_d = busy_pd[pe_d[RHW-1:RLW]];
  end
  always_ff @(posedge clk) po_v_q <= po_v_d;
  for (genvar b = 0; b < HEAD_BEATS; b++) begin : g_head
    logic [DATA_W:0] bank [RH];
    logic [DATA_W:0] bank_rd_q;
    always_ff @(posedge clk) begin
      if (po_n_q != '0 && s_dma_rd_tvalid && po_beat_q == HBW'(b)) bank[po_e[0]] <= {s_dma_rd_tuser, s_dma_rd_tdata};
      bank_rd_q <= bank[pe_d];  // (pe_d: C_HDR's choice is read in its own cycle)
    end
    assign pf_head[b * DATA_W +: DATA_W] = bank_rd_q[DATA_W-1:0];
    assign pf_bpois[b] = bank_rd_q[DATA_W];
  end

  // each QP's path encapsulation: a memory (no reset), read only for QPs in RTR/RTS
  always_ff @(posedge clk) if (st_q == C_CFG && qin_q) l3_q[idx_q] <= cfg_q.l3;

  assign m_dma_rd_req = rd_q;
  assign m_dma_rd_req_valid = rd_v_q;
  assign m_mr_req = mr_now ? mr_d : mr_q;
  assign m_mr_req_valid = mr_v_q || mr_now;
  assign m_cq_valid = cq_v_q;
  // the ACK addressing, straight from qp_cfg (taken only while the placement stage is drained)
  assign m_addr_we = take_cfg && 32'(s_qp_cfg.qpn) < 32'(MAX_QP);
  assign m_addr_wa = s_qp_cfg.qpn[QW-1:0];
  assign m_addr_wd.l3 = s_qp_cfg.l3;
  assign m_addr_wd.vlan_valid = s_qp_cfg.vlan_valid;
  assign m_addr_wd.vlan_vid = s_qp_cfg.vlan_vid;
  assign m_addr_wd.vlan_pcp = s_qp_cfg.vlan_valid ? s_qp_cfg.sl[2:0] : 3'd0;  // PCP = SL & 7
  assign m_addr_wd.src_mac = s_qp_cfg.src_mac;
  assign m_addr_wd.dst_mac = s_qp_cfg.dst_mac;
  assign m_addr_wd.src_ip = s_qp_cfg.src_ip;
  assign m_addr_wd.dst_ip = s_qp_cfg.dst_ip;
  assign m_addr_wd.tclass = s_qp_cfg.tclass;
  assign m_addr_wd.ttl = s_qp_cfg.ttl;
  assign m_addr_wd.flow_label = s_qp_cfg.flow_label;
  assign m_addr_wd.dest_qpn = s_qp_cfg.dest_qpn;
  assign idle = st_q == C_IDLE && !flags_busy && !rd_v_q && !mr_v_q && !cq_v_q && po_n_q == '0;
  assign cnt_rx_pkts = c_rx_q;
  assign cnt_no_qp = c_noqp_q;
  assign cnt_qp_state = c_state_q;
  assign cnt_out_of_sequence = c_oos_q;
  assign cnt_duplicate_request = c_dup_q;
  assign cnt_rem_access_err = c_acc_q;
  assign cnt_rem_inv_req = c_inv_q;
  assign cnt_rnr_nak_sent = c_rnr_q;
  assign cnt_rem_op_err = c_op_q;
  assign cnt_rx_read_requests = c_rd_q;
  assign cnt_qkey_violations = c_qkey_q;
`ifndef SYNTHESIS
  // Transport invariants, compiled into every Verilated build (--assert) and
  // named so that a failure says which one broke.
  always_ff @(posedge clk) begin
    if (!rst) begin
      // payload never reaches past the page run its mr_req checked (no DMA
      // write outside a checked MR range)
      // (C_WALK's run in hand, or the one C_MRW was just answered)
      if ((st_q == C_WALK || st_q == C_MRW) && m_pc_valid && m_pc_ready)
        a_piece_inside_checked_run: assert (m_pc.len != '0 && {19'b0, m_pc.len} <= cut_left)
          else $error("a_piece_inside_checked_run");
      // a verdict fast_vd offers is taken in its cycle (its pieces are committed in it)
      if (fast_vd) a_fast_verdict_taken: assert (m_vd_ready) else $error("a_fast_verdict_taken");
      // only the expected PSN executes: duplicates and packets ahead of the
      // window never reach placement
      if (st_q == C_PUSH && m_vd_ready && ok_q && !(is_read_q && dup_q))
        a_execute_only_expected_psn: assert (h_psn_q == cx_q.epsn)
          else $error("a_execute_only_expected_psn");
    end
  end
`endif

endmodule

`default_nettype wire
