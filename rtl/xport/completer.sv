// completer: the requester side of IBTA RC reliability. Keeps, per QP, the
// window of send WQEs that have left (sq_track) and completes them when the
// responder's ACKs cover them, or with an error on a NAK, a local failure or
// a move to ERR (docs/engine.md, "Completer").
//
//   ACKNOWLEDGE packet (BTH opcode 0x11) as rx_dispatch hands it over:
//     BTH  | dst_qpn = our QP | psn = p |
//     AETH | syndrome[7:0] | msn[23:0] |
//       syndrome 0xx_xxxxx  ACK          entries with last_psn <= p (24-bit serial) complete
//       syndrome 001_ttttt  RNR NAK      RNR_RETRY_EXC_ERR (no retry yet)
//       syndrome 011_00000  NAK PSN seq  BAD_RESP_ERR (no retransmission yet)
//       syndrome 011_00001  NAK inv req  REM_INV_REQ_ERR
//       syndrome 011_00010  NAK rem acc  REM_ACCESS_ERR
//       syndrome 011_00011  NAK rem op   REM_OP_ERR (also any other NAK code)
//       syndrome 010_xxxxx, 1xx_xxxxx    reserved: ignored
//   A NAK first completes (SUCCESS) the entries whose last_psn is before p
//   (IBTA: a NAK acknowledges what precedes it), then the next entry with its
//   status; the rest are flushed. A NAK that finds no such entry yet (its WQE's
//   sq_track has not arrived) is kept: the QP goes to ERR and the next entry
//   to arrive takes the NAK's status.
//   An entry whose own status is not SUCCESS (failed in the requester)
//   completes with that status when it reaches the head, and keeps it when
//   flushed; every other flushed entry gets WR_FLUSH_ERR. In ERR the window
//   stays empty: entries complete as they arrive. Errors always write a CQE.
//
//   window of QP q: win_mem[{q, slot}], 16 slots, ring head/cnt in ctx_mem[q]
//   ctx_mem[q] = {valid, err, pend, pend_st[3:0], send_cq[15:0], head[3:0], cnt[4:0]}
//
// One input at a time, by priority: qp_cfg, sq_track (held back while its
// QP's window is full), rx_ack. sq_track before rx_ack: an ACK can only cover
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
  /* verilator lint_off UNUSEDSIGNAL */  // of qp_cfg the completer needs qpn, action and send_cq only
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::sq_track_t    s_sq_track,
  input  wire logic                   s_sq_track_valid,
  output logic                        s_sq_track_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // of an ACK it needs dst_qpn, psn, opcode and the AETH syndrome only
  input  wire roce_pkg::roce_rx_hdr_t s_rx_ack,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_rx_ack_valid,
  output logic                        s_rx_ack_ready,
  output roce_pkg::cq_compl_t         m_cq_compl,
  output logic                        m_cq_compl_valid,
  input  wire logic                   m_cq_compl_ready,
  output roce_pkg::sq_retire_t        m_sq_retire,
  output logic                        m_sq_retire_valid,
  input  wire logic                   m_sq_retire_ready,
  output logic                        idle,
  output logic [31:0]                 cnt_rx_acks,
  output logic [31:0]                 cnt_nak_received
);
  localparam int QW = $clog2(MAX_QP);
  localparam int EW = roce_pkg::SQ_TRACK_W - 16;  // a window entry: sq_track without its qpn (the MSB field)
  localparam int CW = 32;

  initial begin
    if (MAX_QP < 2 || (1 << QW) != MAX_QP || MAX_QP > 65536) $error("completer: MAX_QP must be a power of two in 2..65536");
  end

  localparam logic [2:0] S_INIT = 3'd0, S_IDLE = 3'd1, S_CTX = 3'd2, S_WALK = 3'd3, S_ONE = 3'd4, S_DONE = 3'd5;
  localparam logic [1:0] K_CFG = 2'd0, K_TRK = 2'd1, K_ACK = 2'd2;
  localparam logic [1:0] M_ACK = 2'd0, M_NAK = 2'd1, M_FLUSH = 2'd2;
  localparam logic [7:0] ST_SUCCESS = 8'(roce_pkg::WC_STATUS_SUCCESS);
  localparam logic [7:0] ST_FLUSH   = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);

  // ---- memories (plain vectors, registered reads: block RAM)
  logic [CW-1:0] ctx_mem [MAX_QP];
  logic [EW-1:0] win_mem [MAX_QP * 16];
  logic [QW-1:0]   ctx_ra, ctx_wa;
  logic [CW-1:0]   ctx_rd_q, ctx_wd;
  logic            ctx_we;
  logic [QW+3:0]   win_ra, win_wa;
  logic [EW-1:0]   win_rd_q, win_wd;
  logic            win_we;

  always_ff @(posedge clk) begin
    ctx_rd_q <= ctx_mem[ctx_ra];
    if (ctx_we) ctx_mem[ctx_wa] <= ctx_wd;
  end
  always_ff @(posedge clk) begin
    win_rd_q <= win_mem[win_ra];
    if (win_we) win_mem[win_wa] <= win_wd;
  end

  // ---- state
  logic [2:0]  st_q, st_d;
  logic [QW-1:0] init_q, init_d;
  logic [MAX_QP-1:0] full_q, full_d;   // window of QP q holds 16 entries (sq_track for q waits)
  logic [1:0]  kind_q, kind_d;
  logic [QW-1:0] qpn_q, qpn_d;
  logic        inr_q, inr_d;           // the input's QPN is below MAX_QP
  logic [2:0]  act_q, act_d;           // qp_cfg action
  logic [15:0] scq_q, scq_d;           // qp_cfg send_cq
  logic [EW-1:0] trk_q, trk_d;         // the sq_track taken (without qpn)
  logic [23:0] psn_q, psn_d;
  logic [7:0]  syn_q, syn_d;
  logic        ackop_q, ackop_d;       // the packet is an ACKNOWLEDGE
  // working copy of the QP's context during a walk
  logic        w_valid_q, w_valid_d, w_err_q, w_err_d, w_pend_q, w_pend_d;
  logic [3:0]  w_pst_q, w_pst_d;
  logic [15:0] w_cq_q, w_cq_d;
  logic [3:0]  w_head_q, w_head_d;
  logic [4:0]  w_cnt_q, w_cnt_d;
  logic [1:0]  mode_q, mode_d;
  logic [7:0]  nst_q, nst_d;           // the NAK's status
  logic [7:0]  one_st_q, one_st_d;     // status of a single completion (S_ONE)
  logic [4:0]  rcnt_q, rcnt_d;         // entries retired in this event
  logic        rerr_q, rerr_d;         // the event moved the QP to ERR
  // outputs
  roce_pkg::cq_compl_t  cq_q, cq_d;
  logic                 cq_v_q, cq_v_d;
  roce_pkg::sq_retire_t rt_q, rt_d;
  logic                 rt_v_q, rt_v_d;
  logic [31:0] cnt_acks_q, cnt_acks_d, cnt_nak_q, cnt_nak_d;

  // ---- decoded
  logic        c_valid, c_err, c_pend;
  logic [3:0]  c_pst, c_head;
  logic [15:0] c_cq;
  logic [4:0]  c_cnt;
  /* verilator lint_off UNUSEDSIGNAL */  // entry views: the qpn field is implied by the window
  roce_pkg::sq_track_t e, t;           // the window entry read in S_WALK, the sq_track taken
  /* verilator lint_on UNUSEDSIGNAL */
  roce_pkg::cq_compl_t cq_new;
  logic        trk_inr, trk_blocked, take_cfg, take_trk, take_ack;
  logic        cq_free, rt_free;
  logic        syn_ack, syn_nak;
  logic [7:0]  syn_st;
  logic        e_cq, e_err, e_stop;
  logic [7:0]  e_st;
  logic [23:0] d_psn;

  function automatic logic [CW-1:0] ctx_pack(input logic v, input logic er, input logic pd, input logic [3:0] ps,
                                             input logic [15:0] cq, input logic [3:0] hd, input logic [4:0] cn);
    ctx_pack = {v, er, pd, ps, cq, hd, cn};
  endfunction

  always_comb begin
    {c_valid, c_err, c_pend, c_pst, c_cq, c_head, c_cnt} = ctx_rd_q;
    e = {16'b0, win_rd_q};
    t = {16'b0, trk_q};
    cq_free = !cq_v_q || m_cq_compl_ready;
    rt_free = !rt_v_q || m_sq_retire_ready;

    trk_inr     = s_sq_track.qpn < 16'(MAX_QP);
    trk_blocked = trk_inr && full_q[s_sq_track.qpn[QW-1:0]];
    s_qp_cfg_ready   = st_q == S_IDLE;
    s_sq_track_ready = st_q == S_IDLE && !s_qp_cfg_valid && !trk_blocked;
    s_rx_ack_ready   = st_q == S_IDLE && !s_qp_cfg_valid && !(s_sq_track_valid && !trk_blocked);
    take_cfg = s_qp_cfg_valid && s_qp_cfg_ready;
    take_trk = s_sq_track_valid && s_sq_track_ready;
    take_ack = s_rx_ack_valid && s_rx_ack_ready;

    // AETH syndrome classes (IBTA 9.7.5.1)
    syn_ack = syn_q[7:5] == 3'b000;
    syn_nak = syn_q[7:5] == 3'b001 || syn_q[7:5] == 3'b011;
    if (syn_q[7:5] == 3'b001) syn_st = 8'(roce_pkg::WC_STATUS_RNR_RETRY_EXC_ERR);
    else begin
      case (syn_q[4:0])
        5'd0:    syn_st = 8'(roce_pkg::WC_STATUS_BAD_RESP_ERR);
        5'd1:    syn_st = 8'(roce_pkg::WC_STATUS_REM_INV_REQ_ERR);
        5'd2:    syn_st = 8'(roce_pkg::WC_STATUS_REM_ACCESS_ERR);
        default: syn_st = 8'(roce_pkg::WC_STATUS_REM_OP_ERR);
      endcase
    end

    // what the head entry does in S_WALK: complete with e_st, a CQE
    // (e_cq), the QP entering ERR (e_err); or stop the walk (e_stop)
    d_psn  = psn_q - e.last_psn;   // last_psn at or before p: d < 2^23
    e_cq = 1'b1; e_err = 1'b0; e_stop = 1'b0; e_st = ST_FLUSH;
    if (e.status != ST_SUCCESS) begin
      e_st = e.status; e_err = 1'b1;         // a local failure (or the requester's flush) keeps its status
    end else if (mode_q == M_FLUSH) begin
      e_st = ST_FLUSH;
    end else if (!d_psn[23] && (mode_q == M_ACK || d_psn != 24'd0)) begin
      e_st = ST_SUCCESS; e_cq = e.signaled;  // covered (a NAK covers what is before p)
    end else if (mode_q == M_NAK) begin
      e_st = nst_q; e_err = 1'b1;
    end else begin
      e_cq = 1'b0; e_stop = 1'b1;
    end

    // the completion written in S_WALK (entry e) or S_ONE (the sq_track taken)
    cq_new = '0;
    cq_new.cq          = w_cq_q;
    cq_new.qp_num      = 24'(qpn_q);
    cq_new.wr_id       = st_q == S_ONE ? t.wr_id : e.wr_id;
    cq_new.byte_len    = st_q == S_ONE ? t.byte_len : e.byte_len;
    cq_new.opcode      = st_q == S_ONE ? t.wc_opcode : e.wc_opcode;
    cq_new.wqe_counter = st_q == S_ONE ? t.wqe_idx : e.wqe_idx;
    cq_new.status      = st_q == S_ONE ? one_st_q : e_st;

    // defaults: hold
    st_d = st_q; init_d = init_q; full_d = full_q;
    kind_d = kind_q; qpn_d = qpn_q; inr_d = inr_q; act_d = act_q; scq_d = scq_q; trk_d = trk_q;
    psn_d = psn_q; syn_d = syn_q; ackop_d = ackop_q;
    w_valid_d = w_valid_q; w_err_d = w_err_q; w_pend_d = w_pend_q; w_pst_d = w_pst_q;
    w_cq_d = w_cq_q; w_head_d = w_head_q; w_cnt_d = w_cnt_q;
    mode_d = mode_q; nst_d = nst_q; one_st_d = one_st_q; rcnt_d = rcnt_q; rerr_d = rerr_q;
    cq_d = cq_q; cq_v_d = cq_v_q && !m_cq_compl_ready;
    rt_d = rt_q; rt_v_d = rt_v_q && !m_sq_retire_ready;
    cnt_acks_d = cnt_acks_q; cnt_nak_d = cnt_nak_q;
    ctx_ra = qpn_q; ctx_we = 1'b0; ctx_wa = qpn_q; ctx_wd = '0;
    win_ra = {qpn_q, w_head_q}; win_we = 1'b0; win_wa = {qpn_q, w_head_q}; win_wd = trk_q;

    case (st_q)
      S_INIT: begin
        ctx_we = 1'b1; ctx_wa = init_q; ctx_wd = '0;
        init_d = init_q + 1'b1;
        if (init_q == QW'(MAX_QP - 1)) st_d = S_IDLE;
      end

      S_IDLE: begin
        if (take_cfg) begin
          kind_d = K_CFG; act_d = s_qp_cfg.action; scq_d = s_qp_cfg.send_cq;
          qpn_d = s_qp_cfg.qpn[QW-1:0]; inr_d = s_qp_cfg.qpn < 16'(MAX_QP);
        end else if (take_trk) begin
          kind_d = K_TRK; trk_d = s_sq_track[EW-1:0];
          qpn_d = s_sq_track.qpn[QW-1:0]; inr_d = trk_inr;
        end else if (take_ack) begin
          kind_d = K_ACK; psn_d = s_rx_ack.psn; syn_d = s_rx_ack.aeth_syndrome;
          ackop_d = s_rx_ack.opcode == roce_pkg::OP_RC_ACK;
          qpn_d = s_rx_ack.dst_qpn[QW-1:0]; inr_d = s_rx_ack.dst_qpn < 24'(MAX_QP);
        end
        ctx_ra = qpn_d;
        if (take_ack) cnt_acks_d = cnt_acks_q + 32'd1;
        if (take_cfg || take_trk || take_ack) st_d = S_CTX;
      end

      S_CTX: begin
        st_d = S_IDLE;
        w_valid_d = c_valid; w_err_d = c_err; w_pend_d = c_pend; w_pst_d = c_pst;
        w_cq_d = c_cq; w_head_d = c_head; w_cnt_d = c_cnt;
        rcnt_d = '0; rerr_d = 1'b0;
        win_ra = {qpn_q, c_head};
        if (inr_q) begin
          case (kind_q)
            K_CFG: begin
              ctx_we = 1'b1;
              if (act_q == roce_pkg::QP_ACTION_RESET) begin
                ctx_wd = ctx_pack(1'b1, 1'b0, 1'b0, 4'd0, scq_q, 4'd0, 5'd0);
                full_d[qpn_q] = 1'b0;
              end else if (act_q == roce_pkg::QP_ACTION_DESTROY) begin
                ctx_wd = '0;
                full_d[qpn_q] = 1'b0;
              end else if (!c_valid) begin
                ctx_we = 1'b0;                 // attributes of a QP that does not exist
              end else if (act_q == roce_pkg::QP_ACTION_TO_ERR) begin
                ctx_wd = ctx_pack(1'b1, 1'b1, 1'b0, 4'd0, scq_q, c_head, c_cnt);
                if (c_cnt != 5'd0) begin         // flush the window
                  ctx_we = 1'b0;
                  w_err_d = 1'b1; w_pend_d = 1'b0; w_cq_d = scq_q;
                  mode_d = M_FLUSH; rerr_d = 1'b1;
                  st_d = S_WALK;
                end
              end else begin
                ctx_wd = ctx_pack(c_valid, c_err, c_pend, c_pst, scq_q, c_head, c_cnt);
              end
            end

            K_TRK: begin
              if (!c_valid) begin
                st_d = S_IDLE;                   // no such QP: dropped
              end else if (c_err || (c_cnt == 5'd0 && t.status != ST_SUCCESS)) begin
                // completes at once: in ERR (flushed, or the status of a NAK
                // that came first), or a local failure with nothing ahead of it
                if (!c_err) one_st_d = t.status;
                else if (t.status != ST_SUCCESS) one_st_d = t.status;
                else if (c_pend) one_st_d = 8'(c_pst);
                else one_st_d = ST_FLUSH;
                w_err_d = 1'b1; w_pend_d = 1'b0;
                rcnt_d = 5'd1; rerr_d = 1'b1;
                st_d = S_ONE;
              end else if (!c_cnt[4]) begin      // append (a full window was held back)
                win_we = 1'b1;
                win_wa = {qpn_q, c_head + c_cnt[3:0]};
                ctx_we = 1'b1;
                ctx_wd = ctx_pack(c_valid, c_err, c_pend, c_pst, c_cq, c_head, c_cnt + 5'd1);
                full_d[qpn_q] = c_cnt == 5'd15;
              end
            end

            default: begin  // K_ACK
              if (c_valid && ackop_q) begin
                if (syn_nak) cnt_nak_d = cnt_nak_q + 32'd1;
                nst_d = syn_st;
                if (syn_ack && !c_err && c_cnt != 5'd0) begin
                  mode_d = M_ACK; st_d = S_WALK;
                end else if (syn_nak && !c_err) begin
                  mode_d = M_NAK; st_d = S_WALK;
                end
              end
            end
          endcase
        end
      end

      S_WALK: begin
        if (w_cnt_q == 5'd0 || e_stop) begin
          if (mode_q == M_NAK) begin         // the NAK's entry has not been tracked yet
            w_err_d = 1'b1; w_pend_d = 1'b1; w_pst_d = nst_q[3:0]; rerr_d = 1'b1;
          end
          st_d = S_DONE;
        end else if (!e_cq || cq_free) begin
          if (e_cq) begin
            cq_d = cq_new;
            cq_v_d = 1'b1;
          end
          if (e_err) begin
            w_err_d = 1'b1; rerr_d = 1'b1; mode_d = M_FLUSH;
          end
          w_head_d = w_head_q + 4'd1;
          w_cnt_d = w_cnt_q - 5'd1;
          rcnt_d = rcnt_q + 5'd1;
          win_ra = {qpn_q, w_head_q + 4'd1};
        end
      end

      S_ONE: begin
        if (cq_free) begin
          cq_d = cq_new;
          cq_v_d = 1'b1;
          st_d = S_DONE;
        end
      end

      S_DONE: begin
        if (rt_free || (rcnt_q == 5'd0 && !rerr_q)) begin
          if (rcnt_q != 5'd0 || rerr_q) begin
            rt_d.qpn = 16'(qpn_q);
            rt_d.count = rcnt_q;
            rt_d.error = rerr_q;
            rt_v_d = 1'b1;
          end
          ctx_we = 1'b1;
          ctx_wd = ctx_pack(w_valid_q, w_err_q, w_pend_q, w_pst_q, w_cq_q, w_head_q, w_cnt_q);
          full_d[qpn_q] = w_cnt_q == 5'd16;
          st_d = S_IDLE;
        end
      end

      default: st_d = S_IDLE;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q <= S_INIT; init_q <= '0; full_q <= '0;
      cq_v_q <= 1'b0; rt_v_q <= 1'b0;
      cnt_acks_q <= '0; cnt_nak_q <= '0;
    end else begin
      st_q <= st_d; init_q <= init_d; full_q <= full_d;
      cq_v_q <= cq_v_d; rt_v_q <= rt_v_d;
      cnt_acks_q <= cnt_acks_d; cnt_nak_q <= cnt_nak_d;
    end
    // data registers: no reset needed (qualified by state and valid flags)
    kind_q <= kind_d; qpn_q <= qpn_d; inr_q <= inr_d; act_q <= act_d; scq_q <= scq_d; trk_q <= trk_d;
    psn_q <= psn_d; syn_q <= syn_d; ackop_q <= ackop_d;
    w_valid_q <= w_valid_d; w_err_q <= w_err_d; w_pend_q <= w_pend_d; w_pst_q <= w_pst_d;
    w_cq_q <= w_cq_d; w_head_q <= w_head_d; w_cnt_q <= w_cnt_d;
    mode_q <= mode_d; nst_q <= nst_d; one_st_q <= one_st_d; rcnt_q <= rcnt_d; rerr_q <= rerr_d;
    cq_q <= cq_d; rt_q <= rt_d;
  end

  assign m_cq_compl        = cq_q;
  assign m_cq_compl_valid  = cq_v_q;
  assign m_sq_retire       = rt_q;
  assign m_sq_retire_valid = rt_v_q;
  assign idle              = st_q == S_IDLE && !cq_v_q && !rt_v_q;
  assign cnt_rx_acks       = cnt_acks_q;
  assign cnt_nak_received  = cnt_nak_q;
`ifndef SYNTHESIS
  // Transport invariants, compiled into every Verilated build (--assert) and
  // named so that a failure says which one broke.
  always_ff @(posedge clk) begin
    if (!rst) begin
      // a QP's window holds 0..16 tracked WQEs (credits never negative, none
      // appended to a full window)
      if (st_q == S_WALK || st_q == S_DONE) a_window_within_16: assert (w_cnt_q <= 5'd16)
          else $error("a_window_within_16");
      // an offered completion stays until taken: one CQE per completed WQE,
      // none lost or doubled
      if (cq_v_q && !m_cq_compl_ready) a_cqe_held_until_taken: assert (cq_v_d && cq_d == cq_q)
          else $error("a_cqe_held_until_taken");
      // a retire covers at most one window and always says something
      if (rt_v_q) a_retire_within_window: assert (rt_q.count <= 5'd16 && (rt_q.count != 5'd0 || rt_q.error))
          else $error("a_retire_within_window");
    end
  end
`endif

endmodule

`default_nettype wire
