// req_qp_ctx: the requester's per-QP send-queue state and its scheduler.
//
//   per QP (LUT RAM, asynchronous read):  ci, hw (high-water: the next WQE never
//                                          sent), outstanding, READs outstanding (rd_out),
//                                          the pending rewind's WQE (rw_idx)
//   per QP (block RAM, registered read):   next_psn (of ci), the pending rewind's PSN and
//                                          skip (rw_psn, rw_skip): the engine needs them only
//                                          from the cycle after its pick (pk_psn, pk_skip);
//                                          pi and state, read at the pick and then kept, with
//                                          every write of the engine's QP's since (act_pi,
//                                          act_state)
//   per QP (LUT RAM, asynchronous read):   the ring (sq_base, sq_lsz) again, for the
//                                          requester's prefetch (pf_sq_*, with pf_pick_hw)
//   per QP (block RAM, registered read):   the attributes the engine needs
//                                          (sq_base, sq_lsz, pd, pmtu, addressing, max_rd_atomic)
//   per QP (block RAM, registered read):   pd and "an RC QP" again, at the requester's
//                                          prefetch address (pt_ra): kept with each head read
//                                          ahead, so that a pick can ask for its first SGE's
//                                          check in its own cycle
//   per QP (qp_flags, LUT RAM):            has_new (pi != hw), behind (ci != hw),
//                                          rw (a rewind waits), rts, err, full
//                                          (outstanding >= 16), sqd, rdw (a new READ waits for
//                                          one of the QP's max_rd_atomic READs to finish,
//                                          or a fenced WQE for all of them)
//   per QP (qp_pick, LUT RAM, a bit each): eligible, and the prefetch's candidates
//
//   eligible = rts & (rw | behind | has_new & ~full & ~sqd & ~rdw) | err & has_new
//   start    = rts & has_new & ~full & ~sqd & ~rdw | err & has_new   (a new WQE to start or flush)
//   pf_cand  = start & ~(a head of the QP in the requester's prefetch table)
//
// Nothing here is MAX_QP wide: the flags are read at the QPs the inputs
// name, and the two picks are qp_pick's (a word of 64 QPs, then a summary
// bit per word). Each bitmap bit is rewritten whenever what it is made of
// changes: eligible and start with the flags (one QP a cycle, x_idx);
// pf_cand with the flags and with the table (an entry asked for, the last
// entry of a QP taken, a qp_cfg's drop): four QPs a cycle at most.
// After reset the RAMs are swept (MAX_QP/8 cycles; init_busy): nothing is
// taken meanwhile.
//
// READ credits (max_rd_atomic, as rxe's rd_atomic; atomics count as READs): every new READ WQE
// written back counts in rd_out, every sq_retire takes its rd_count off. A
// new READ that finds rd_out >= max_rd_atomic is not started: the engine
// defers it (wb_defer, a cycle without control inputs, so rd_out cannot
// change under the decision), rdw is set, and the next retire that finishes
// a READ clears it.
//   prefetch pick = first QP at or after the same pointer with a new WQE to
//              start (or flush), but for eng_qpn and those in pf_mask
//   pick     = first eligible QP at or after the round-robin pointer (in the
//              engine's write-back cycle: but for eng_qpn), from
//              WQE hw (ERR: the rest is flushed; what was sent is the
//              completer's), rw_idx (a rewind: go back N, sending again from
//              packet rw_skip), or ci
//
// A rewind (sq_retire.rewind) waits in rw until the QP's next pick; a later
// retire that acknowledges its WQE drops it. The pick that applies it clears
// it at the QP's write-back (or deferral), through the one write port:
// until then the QP is the engine's, and no pick sees its flags (the
// write-back's pick leaves it out). A rewind retired for it meanwhile stays.
//
// One control input per cycle (a failure from the engine's back end, then
// qp_cfg, then sq_retire, then sq_db), none in
// the engine's write-back cycle, so every context memory has one write port.
// A qp_cfg for the QP the engine works on (or picks this cycle) waits until
// the engine is done with it: RESET/DESTROY cannot pull the state away from
// under a work request in flight. Any qp_cfg also waits while the engine's
// back end still holds queued packets (cfg_wait; the engine picks nothing new
// meanwhile).
`default_nettype none

module req_qp_ctx #(
  parameter int MAX_QP = 256,
  parameter int NPF = 16          // the requester's prefetch table entries
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  /* verilator lint_off UNUSEDSIGNAL */  // of qp_cfg the requester keeps the send-side attributes only
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::wq_db_t       s_sq_db,
  input  wire logic                   s_sq_db_valid,
  output logic                        s_sq_db_ready,
  input  wire logic                   s_fail_valid,  // the engine's back end failed a WQE of s_fail_qpn: ERR
  input  wire logic [15:0]            s_fail_qpn,
  output logic                        s_fail_ready,
  input  wire roce_pkg::sq_retire_t   s_sq_retire,
  input  wire logic                   s_sq_retire_valid,
  output logic                        s_sq_retire_ready,
  // engine side
  input  wire logic                   eng_idle,   // the engine takes a pick this cycle if there is one
  input  wire logic [$clog2(MAX_QP)-1:0] eng_qpn, // the QP it works on (when not idle)
  input  wire logic                   cfg_wait,   // no qp_cfg now: the engine still sends queued packets
  output logic                        pick_valid,
  output logic [$clog2(MAX_QP)-1:0]   pick_qpn,
  output logic [15:0]                 pick_ci,
  output logic [23:0]                 pk_psn,     // of the pick one cycle before (registered read)
  output logic [23:0]                 pk_skip,    // ... the packets of its WQE not sent again
  output logic                        pick_new,   // pick_ci was never sent: it is tracked
  output roce_pkg::qp_cfg_t           cfg,        // attributes of the last pick (registered read)
  output logic [2:0]                  act_state,  // current state of eng_qpn
  output logic [4:0]                  act_rd_out, // READs eng_qpn has outstanding
  output logic [15:0]                 act_pi,     // eng_qpn's producer index
  // the prefetch's next QP: the first QP at or after the round-robin pointer,
  // other than eng_qpn and those with a head in the prefetch table, with a
  // new WQE it could start (or flush); its next new WQE (hw) and its ring.
  // The table as it is (entries live, their QPs) and as it changes this
  // cycle: an entry asked for (pt_set, unless pt_set_drop: its QP's qp_cfg
  // is taken), the last live entry of a QP taken (pt_out), a qp_cfg that
  // drops a QP's entries (pt_cfg).
  input  wire logic [NPF-1:0]         pt_live,
  input  wire logic [NPF*$clog2(MAX_QP)-1:0] pt_qpn,
  input  wire logic                   pt_set,
  input  wire logic                   pt_set_drop,
  input  wire logic [$clog2(MAX_QP)-1:0] pt_set_qpn,
  input  wire logic                   pt_out,
  input  wire logic [$clog2(MAX_QP)-1:0] pt_out_qpn,
  input  wire logic                   pt_cfg,
  input  wire logic [$clog2(MAX_QP)-1:0] pt_cfg_qpn,
  output logic                        pf_pick_valid,
  output logic [$clog2(MAX_QP)-1:0]   pf_pick_qpn,
  output logic [15:0]                 pf_pick_hw,
  output logic [63:0]                 pf_sq_base,
  output logic [4:0]                  pf_sq_lsz,
  // the PD and type of QP pt_ra, the cycle after (registered read): the
  // requester keeps them with each head it reads ahead
  input  wire logic [$clog2(MAX_QP)-1:0] pt_ra,
  output logic [15:0]                 pt_pd,
  output logic                        pt_rc,
  output logic                        pick_err,   // pick_qpn is in ERR (its flag)
  input  wire logic                   wb_defer,   // eng_qpn's new READ waits for a READ credit
  input  wire logic                   wb_en,      // write-back of eng_qpn: one WQE done
  input  wire logic [15:0]            wb_ci,
  input  wire logic [23:0]            wb_psn,
  input  wire logic                   wb_new,     // it was new: hw moves, one more outstanding
  input  wire logic                   wb_read,    // ... and an RDMA READ: one more READ outstanding
  input  wire logic                   wb_err,     // the QP enters ERR
  output logic                        any_eligible,
  output logic                        init_busy   // the reset sweep of the flag RAMs
);
  localparam int QW = $clog2(MAX_QP);
  localparam int CFG_W = 3 + 64 + 5 + 16 + 3 + 24 + 2 + 1 + 12 + 4 + 48 + 48 + 128 + 128 + 8 + 8 + 20 + 5 + 32;

  initial begin
    if ((1 << QW) != MAX_QP || MAX_QP > 65536 || MAX_QP < 2) $error("req_qp_ctx: MAX_QP must be a power of two in 2..65536");
  end

  logic [15:0]      pi_mem    [MAX_QP];
  logic [15:0]      ci_mem    [MAX_QP];
  logic [15:0]      hw_mem    [MAX_QP];
  logic [23:0]      psn_mem   [MAX_QP];
  logic [15:0]      rwi_mem   [MAX_QP];
  logic [47:0]      rwps_mem  [MAX_QP];  // {rw_psn, rw_skip}
  logic [4:0]       outst_mem [MAX_QP];
  logic [4:0]       rdo_mem   [MAX_QP];
  logic [2:0]       state_mem [MAX_QP];
  logic [CFG_W-1:0] cfg_mem   [MAX_QP];
  logic [CFG_W-1:0] cfg_rd_q;
  // the pick's registered reads: its PSN and pending rewind, and which of
  // them it applies (ERR: none; a rewind: the rewind's)
  logic [23:0]      pk_psn_q;
  logic [47:0]      pk_rwps_q;
  logic             pk_err_q, pk_rw_q;
  logic [15:0]      eng_hw_q;   // hw of the engine's QP, read at its pick (only its write-back moves it)
  logic [15:0]      pi_rd_q, pi_upd_q;  // act_pi: the pick's read of pi_mem, or a write since
  logic             pi_fwd_q;
  logic             pi_we;
  logic [QW-1:0]    pi_wa;
  logic [15:0]      pi_wd;
  logic [2:0]       st_rd_q, st_upd_q;  // act_state: likewise
  logic             st_fwd_q;
  logic             st_we;
  logic [QW-1:0]    st_wa;
  logic [2:0]       st_wd;
  logic             psn_we;
  logic [QW-1:0]    psn_wa;
  logic [23:0]      psn_wd;
  logic [68:0]      ring_mem  [MAX_QP];  // {sq_base, sq_lsz}
  logic [16:0]      pdt_mem   [MAX_QP];  // {an RC QP, pd}: for the heads read ahead
  logic [16:0]      pdt_rd_q;

  // the flags, bit by bit (qp_flags u_flags and u_flags_x hold the same
  // values: one copy read at the inputs' QPs, one at the write port's)
  localparam int F_HAS_NEW = 0, F_BEHIND = 1, F_RW = 2, F_RTS = 3, F_ERR = 4, F_FULL = 5,
                 F_SQD = 6,   // SQD (with rts): WQEs started finish, no new one starts
                 F_RDW = 7;   // a new READ waits for a READ credit
  logic [7:0]        fl_pick, fl_c, fl_r, fl_f, fl_x, fl_x_new;  // at pick_qpn, c_idx, r_idx, f_idx, x_idx
  logic [7:0]        x_wmask, x_wdata;
  logic              x_we;
  logic              rw_used_q;  // the engine's pick applied a pending rewind: cleared at its write-back
  logic [QW-1:0]     rr_q;
  logic              busy_fl, busy_flx, busy_st, busy_el, busy_pf;

  logic take_cfg, take_ret, take_db, take_fail, cfg_hold;
  logic [QW-1:0] c_idx, r_idx, d_idx, f_idx;
  logic c_in, r_in, d_in, f_in;
  logic [4:0] r_outst, wb_outst, r_rdo;
  logic [15:0] wb_hw, r_behind;
  logic        r_rw_stale;

  // The pick: the lowest eligible QP at or after the round-robin pointer,
  // else the lowest eligible one (qp_pick, rr_first's rule). The prefetch's:
  // the same over the prefetch's candidates, but for the one the engine
  // works on. (In the engine's write-back cycle it picks among the others:
  // the QP written back has its flags and context updated only at that
  // cycle's end.)
  logic       el_we, st_we_x, el_new, st_new;
  logic [3:0] pf_we, pf_val;
  logic [4*QW-1:0] pf_idx;
  qp_pick #(.N(MAX_QP), .K(1)) u_eligible (
    .clk, .rst, .we(el_we), .widx(x_idx), .wval(el_new),
    .from(rr_q), .skip_en(wb_en), .skip(eng_qpn), .any(any_eligible), .idx(pick_qpn), .busy(busy_el));
  qp_pick #(.N(MAX_QP), .K(4)) u_pf_cand (
    .clk, .rst, .we(pf_we), .widx(pf_idx), .wval(pf_val),
    .from(rr_q), .skip_en(!eng_idle), .skip(eng_qpn), .any(pf_pick_valid), .idx(pf_pick_qpn), .busy(busy_pf));

  always_comb begin
    pick_valid = eng_idle && any_eligible;
    pick_ci    = ci_mem[pick_qpn];
    if (fl_pick[F_ERR])     pick_ci = hw_mem[pick_qpn];
    else if (fl_pick[F_RW]) pick_ci = rwi_mem[pick_qpn];
    pick_new = pick_ci == hw_mem[pick_qpn];
    pk_psn  = (!pk_err_q && pk_rw_q) ? pk_rwps_q[47:24] : pk_psn_q;
    pk_skip = (!pk_err_q && pk_rw_q) ? pk_rwps_q[23:0] : '0;
    act_state = st_fwd_q ? st_upd_q : st_rd_q;
    act_pi = pi_fwd_q ? pi_upd_q : pi_rd_q;
    {pf_sq_base, pf_sq_lsz} = ring_mem[pf_pick_qpn];
    pf_pick_hw = hw_mem[pf_pick_qpn];
    act_rd_out = rdo_mem[eng_qpn];

    c_idx = s_qp_cfg.qpn[QW-1:0];
    r_idx = s_sq_retire.qpn[QW-1:0];
    d_idx = s_sq_db.qpn[QW-1:0];
    f_idx = s_fail_qpn[QW-1:0];
    f_in  = 32'(s_fail_qpn) < 32'(MAX_QP);
    c_in  = 32'(s_qp_cfg.qpn) < 32'(MAX_QP);
    r_in  = 32'(s_sq_retire.qpn) < 32'(MAX_QP);
    d_in  = 32'(s_sq_db.qpn) < 32'(MAX_QP);
    cfg_hold = c_in && ((!eng_idle && c_idx == eng_qpn) || (pick_valid && c_idx == pick_qpn) || cfg_wait);

    s_fail_ready      = !wb_en && !wb_defer && !init_busy;
    take_fail         = s_fail_valid && s_fail_ready;
    s_qp_cfg_ready    = !wb_en && !wb_defer && !init_busy && !cfg_hold && !take_fail;
    take_cfg          = s_qp_cfg_valid && s_qp_cfg_ready;
    s_sq_retire_ready = !wb_en && !wb_defer && !init_busy && !take_fail && !take_cfg;
    take_ret          = s_sq_retire_valid && s_sq_retire_ready;
    // (a doorbell never overtakes a qp_cfg that waits: RESET then a post of the new QP)
    s_sq_db_ready     = !wb_en && !wb_defer && !init_busy && !take_fail && !s_qp_cfg_valid && !take_ret;
    take_db           = s_sq_db_valid && s_sq_db_ready;

    r_outst  = (s_sq_retire.count > outst_mem[r_idx]) ? 5'd0 : outst_mem[r_idx] - s_sq_retire.count;
    r_rdo    = (s_sq_retire.rd_count > rdo_mem[r_idx]) ? 5'd0 : rdo_mem[r_idx] - s_sq_retire.rd_count;
    // a pending rewind whose WQE this retire acknowledges (or a failure) drops it
    r_behind   = hw_mem[r_idx] - rwi_mem[r_idx];
    r_rw_stale = s_sq_retire.error || r_behind > {11'b0, r_outst};
    wb_outst = !wb_new ? outst_mem[eng_qpn] : (outst_mem[eng_qpn] == 5'd31) ? 5'd31 : outst_mem[eng_qpn] + 5'd1;
    wb_hw    = wb_new ? wb_ci : eng_hw_q;
    // pi's one write port: a doorbell, else a qp_cfg's RESET or DESTROY
    pi_we = (take_db && d_in) || (take_cfg && c_in && (s_qp_cfg.action == roce_pkg::QP_ACTION_RESET
                                                       || s_qp_cfg.action == roce_pkg::QP_ACTION_DESTROY));
    pi_wa = (take_db && d_in) ? d_idx : c_idx;
    pi_wd = (take_db && d_in) ? s_sq_db.pi : '0;
    // next_psn's one write port: a write-back, else a qp_cfg to RTS
    psn_we = wb_en || (take_cfg && c_in && s_qp_cfg.action == roce_pkg::QP_ACTION_TO_RTS);
    psn_wa = wb_en ? eng_qpn : c_idx;
    psn_wd = wb_en ? wb_psn : s_qp_cfg.sq_psn;
  end
  // state's one write port: a qp_cfg, a retire's error, a failure from the
  // back end, a write-back's error (one a cycle: see above). (A block of its
  // own: it reads the flags at the inputs' QPs, computed above.)
  always_comb begin
    st_we = 1'b0;
    st_wa = eng_qpn;
    st_wd = roce_pkg::QP_STATE_ERR;
    if (take_cfg && c_in) begin
      st_wa = c_idx;
      st_we = 1'b1;
      case (s_qp_cfg.action)
        roce_pkg::QP_ACTION_RESET, roce_pkg::QP_ACTION_DESTROY: st_wd = roce_pkg::QP_STATE_RESET;
        roce_pkg::QP_ACTION_TO_INIT: st_wd = roce_pkg::QP_STATE_INIT;
        roce_pkg::QP_ACTION_TO_RTR:  st_wd = roce_pkg::QP_STATE_RTR;
        roce_pkg::QP_ACTION_TO_RTS:  st_wd = roce_pkg::QP_STATE_RTS;
        roce_pkg::QP_ACTION_TO_ERR:  st_wd = roce_pkg::QP_STATE_ERR;
        // (a QP this block already failed stays in ERR until roce_cmd hears of it)
        roce_pkg::QP_ACTION_TO_SQD: begin
          st_we = fl_c[F_RTS];
          st_wd = roce_pkg::QP_STATE_SQD;
        end
        // ATTR: SQD -> RTS resumes (RTS -> RTS, INIT -> INIT and SQD -> SQD change no state)
        roce_pkg::QP_ACTION_ATTR: begin
          st_we = s_qp_cfg.state == roce_pkg::QP_STATE_RTS && fl_c[F_SQD];
          st_wd = roce_pkg::QP_STATE_RTS;
        end
        default: st_we = 1'b0;
      endcase
    end else if (take_ret && r_in) begin
      st_wa = r_idx;
      st_we = s_sq_retire.error && fl_r[F_RTS];
    end else if (take_fail && f_in) begin
      st_wa = f_idx;
      st_we = fl_f[F_RTS];
    end else begin
      st_we = wb_en && wb_err;
    end
  end

  always_ff @(posedge clk) begin
    pdt_rd_q <= pdt_mem[pt_ra];
    if (take_cfg && c_in) pdt_mem[c_idx] <= {s_qp_cfg.qp_type == roce_pkg::QP_TYPE_RC, s_qp_cfg.pd};
  end
  assign {pt_rc, pt_pd} = pdt_rd_q;
  assign pick_err = fl_pick[F_ERR];

  // context memories: one writer per cycle
  always_ff @(posedge clk) begin
    // (registered reads at the pick: block RAM. A write to the same QP in
    // the pick's cycle -- a retire's rewind -- is not seen: as the
    // asynchronous reads beside them, which see the memory as it was.)
    if (pick_valid) begin
      cfg_rd_q  <= cfg_mem[pick_qpn];
      pk_psn_q  <= psn_mem[pick_qpn];
      pk_rwps_q <= rwps_mem[pick_qpn];
      pk_err_q  <= fl_pick[F_ERR];
      pk_rw_q   <= fl_pick[F_RW];
      eng_hw_q  <= hw_mem[pick_qpn];
      pi_rd_q   <= pi_mem[pick_qpn];
      st_rd_q   <= state_mem[pick_qpn];
    end
    if (st_we) state_mem[st_wa] <= st_wd;
    if (psn_we) psn_mem[psn_wa] <= psn_wd;
    if (pi_we) pi_mem[pi_wa] <= pi_wd;
    if (take_cfg && c_in) begin
      ring_mem[c_idx] <= {s_qp_cfg.sq_base, s_qp_cfg.sq_lsz};
      cfg_mem[c_idx] <= {s_qp_cfg.qp_type, s_qp_cfg.sq_base, s_qp_cfg.sq_lsz, s_qp_cfg.pd, s_qp_cfg.pmtu, s_qp_cfg.dest_qpn,
                         s_qp_cfg.l3, s_qp_cfg.vlan_valid, s_qp_cfg.vlan_vid, s_qp_cfg.sl, s_qp_cfg.src_mac, s_qp_cfg.dst_mac, s_qp_cfg.src_ip, s_qp_cfg.dst_ip,
                         s_qp_cfg.tclass, s_qp_cfg.ttl, s_qp_cfg.flow_label, s_qp_cfg.max_rd_atomic, s_qp_cfg.qkey};
      if (s_qp_cfg.action == roce_pkg::QP_ACTION_RESET || s_qp_cfg.action == roce_pkg::QP_ACTION_DESTROY) begin
        ci_mem[c_idx] <= '0;
        hw_mem[c_idx] <= '0;
        outst_mem[c_idx] <= '0;
        rdo_mem[c_idx] <= '0;
      end
    end
    if (take_ret && r_in) begin
      outst_mem[r_idx] <= r_outst;
      rdo_mem[r_idx] <= r_rdo;
      if (s_sq_retire.rewind) begin
        rwi_mem[r_idx] <= s_sq_retire.rw_idx;
        rwps_mem[r_idx] <= {s_sq_retire.rw_psn, s_sq_retire.rw_skip};
      end
    end
    if (wb_en) begin
      ci_mem[eng_qpn] <= wb_ci;
      hw_mem[eng_qpn] <= wb_hw;
      outst_mem[eng_qpn] <= wb_outst;
      if (wb_new && wb_read && rdo_mem[eng_qpn] != 5'd31) rdo_mem[eng_qpn] <= rdo_mem[eng_qpn] + 5'd1;
    end
  end

  // The flags: at most one control input is taken a cycle, and none with a
  // write-back or deferral, so one write port (x_idx) serves them all.
  logic c_t, r_t, d_t, f_t;        // the input is taken, for a QP that exists here
  logic c_clear, c_rts, c_off, r_fail, r_rewind, r_unrw;
  logic [QW-1:0]     x_idx;
  // per flag: the port writes it (w_*), with this value (v_*)
  logic w_has_new, w_behind, w_full, w_rts, w_err, w_sqd, w_rw, w_rdw;
  logic v_has_new, v_behind, v_full, v_rts, v_err, v_sqd, v_rw, v_rdw;
  always_comb begin
    c_t = take_cfg && c_in;
    r_t = take_ret && r_in;
    d_t = take_db && d_in;
    f_t = take_fail && f_in && fl_f[F_RTS];  // (as a retire with error)
    c_clear  = s_qp_cfg.action == roce_pkg::QP_ACTION_RESET || s_qp_cfg.action == roce_pkg::QP_ACTION_DESTROY;
    c_rts    = s_qp_cfg.action == roce_pkg::QP_ACTION_TO_RTS;
    c_off    = c_clear || s_qp_cfg.action == roce_pkg::QP_ACTION_TO_INIT || s_qp_cfg.action == roce_pkg::QP_ACTION_TO_RTR
               || s_qp_cfg.action == roce_pkg::QP_ACTION_TO_ERR;  // rts leaves
    r_fail   = r_t && s_sq_retire.error && fl_r[F_RTS];
    r_rewind = r_t && s_sq_retire.rewind && fl_r[F_RTS];
    // a pending rewind this retire makes stale (the pick of the same cycle applies it anyway)
    r_unrw   = r_t && !r_rewind && fl_r[F_RW] && r_rw_stale && !(pick_valid && pick_qpn == r_idx);
    x_idx = c_t ? c_idx : r_t ? r_idx : d_t ? d_idx : f_t ? f_idx : eng_qpn;

    w_has_new = (c_t && c_clear) || d_t || wb_en;
    v_has_new = d_t ? s_sq_db.pi != hw_mem[d_idx] : wb_en && act_pi != wb_hw;
    w_behind  = (c_t && c_clear) || wb_en;
    v_behind  = wb_en && wb_ci != wb_hw;
    w_full    = (c_t && c_clear) || r_t || wb_en;
    v_full    = r_t ? r_outst >= 5'd16 : wb_en && wb_outst >= 5'd16;
    // ERR: a failed retire, a failure from the back end, a write-back's error
    w_rts     = (c_t && (c_off || c_rts)) || r_fail || f_t || (wb_en && wb_err);
    v_rts     = c_t && c_rts;
    w_err     = w_rts;
    v_err     = c_t ? s_qp_cfg.action == roce_pkg::QP_ACTION_TO_ERR : 1'b1;
    w_sqd     = c_t || r_fail || f_t || (wb_en && wb_err);
    v_sqd     = c_t && ((s_qp_cfg.action == roce_pkg::QP_ACTION_TO_SQD && fl_c[F_RTS])
                        || (s_qp_cfg.action == roce_pkg::QP_ACTION_ATTR && fl_c[F_SQD]
                            && s_qp_cfg.state == roce_pkg::QP_STATE_SQD));
    // (the write-back or deferral of a pick that applied a rewind clears it)
    w_rw      = (c_t && c_clear) || r_rewind || r_unrw || ((wb_en || wb_defer) && rw_used_q);
    v_rw      = r_rewind;
    // rdw: a qp_cfg (max_rd_atomic may have grown) or a retire that finishes
    // a READ lets a deferred READ look again; a deferral sets it
    w_rdw     = c_t || (r_t && s_sq_retire.rd_count != 5'd0) || wb_defer;
    v_rdw     = wb_defer;

    x_wmask = {w_rdw, w_sqd, w_full, w_err, w_rts, w_rw, w_behind, w_has_new};
    x_wdata = {v_rdw, v_sqd, v_full, v_err, v_rts, v_rw, v_behind, v_has_new};
    x_we    = x_wmask != '0;
  end
  // (apart: fl_x is read at x_idx)
  assign fl_x_new = (fl_x & ~x_wmask) | (x_wdata & x_wmask);

  qp_flags #(.N(MAX_QP), .D(8), .R(4)) u_flags (
    .clk, .rst, .we(x_we), .widx(x_idx), .wmask(x_wmask), .wdata(x_wdata),
    .ridx({f_idx, r_idx, c_idx, pick_qpn}), .rdata({fl_f, fl_r, fl_c, fl_pick}), .busy(busy_fl));
  qp_flags #(.N(MAX_QP), .D(8), .R(1)) u_flags_x (
    .clk, .rst, .we(x_we), .widx(x_idx), .wmask(x_wmask), .wdata(x_wdata),
    .ridx(x_idx), .rdata(fl_x), .busy(busy_flx));

  // rw_used_q: set by a pick that applies a rewind (not by one beside which
  // a new rewind of the same QP is retired: that one stays), cleared by a
  // rewind retired for the QP while the engine works on it
  always_ff @(posedge clk) begin
    if (rst) rw_used_q <= 1'b0;
    else if (pick_valid) rw_used_q <= fl_pick[F_RW] && !(r_rewind && r_idx == pick_qpn);
    else if (r_rewind && r_idx == eng_qpn) rw_used_q <= 1'b0;
  end
  // (a write of the QP picked, or of the engine's: act_pi follows it, as an
  // asynchronous read of pi_mem would from the next cycle)
  logic [QW-1:0] fwd_qpn;
  assign fwd_qpn = pick_valid ? pick_qpn : eng_qpn;
  always_ff @(posedge clk) begin
    if (pi_we && pi_wa == fwd_qpn) pi_upd_q <= pi_wd;
    if (st_we && st_wa == fwd_qpn) st_upd_q <= st_wd;
    if (rst) begin
      pi_fwd_q <= 1'b0;
      st_fwd_q <= 1'b0;
    end else begin
      if (pi_we && pi_wa == fwd_qpn) pi_fwd_q <= 1'b1;
      else if (pick_valid) pi_fwd_q <= 1'b0;
      if (st_we && st_wa == fwd_qpn) st_fwd_q <= 1'b1;
      else if (pick_valid) st_fwd_q <= 1'b0;
    end
  end
  always_ff @(posedge clk) begin
    if (rst) rr_q <= '0;
    else if (pick_valid) rr_q <= pick_qpn + QW'(1);
  end

  // ---- the bitmaps, rewritten with what they are made of
  function automatic logic eligible_of(input logic [7:0] f);
    eligible_of = (f[F_RTS] && (f[F_RW] || f[F_BEHIND] || (f[F_HAS_NEW] && !f[F_FULL] && !f[F_SQD] && !f[F_RDW])))
                  || (f[F_ERR] && f[F_HAS_NEW]);
  endfunction
  function automatic logic start_of(input logic [7:0] f);
    start_of = (f[F_RTS] && f[F_HAS_NEW] && !f[F_FULL] && !f[F_SQD] && !f[F_RDW]) || (f[F_ERR] && f[F_HAS_NEW]);
  endfunction
  // start per QP (a bit in LUT-RAM), read at the table's changes
  logic [2:0] st_rd;
  qp_flags #(.N(MAX_QP), .D(1), .R(3)) u_start (
    .clk, .rst, .we(st_we_x), .widx(x_idx), .wmask(1'b1), .wdata(st_new),
    .ridx({pt_cfg_qpn, pt_out_qpn, pt_set_qpn}), .rdata(st_rd), .busy(busy_st));
  // a head of QP q in the table after this cycle (before it: pt_live and pt_qpn)
  function automatic logic in_table(input logic [NPF-1:0] live, input logic [NPF*QW-1:0] qpns,
                                    input logic [QW-1:0] q, input logic set, input logic set_drop,
                                    input logic [QW-1:0] set_q, input logic out, input logic [QW-1:0] out_q,
                                    input logic cfgd, input logic [QW-1:0] cfg_q);
    logic was;
    was = 1'b0;
    for (int i = 0; i < NPF; i++) if (live[i] && qpns[i*QW +: QW] == q) was = 1'b1;
    in_table = ((was && !(out && out_q == q) && !(set && set_q == q)) || (set && !set_drop && set_q == q))
               && !(cfgd && cfg_q == q);
  endfunction
  logic [3:0] pf_st;   // start at each pf_cand port's QP, after this cycle's flag write
  always_comb begin
    el_we   = x_we;
    st_we_x = x_we;
    el_new  = eligible_of(fl_x_new);
    st_new  = start_of(fl_x_new);
    pf_idx  = {pt_cfg_qpn, pt_out_qpn, pt_set_qpn, x_idx};
    pf_we   = {pt_cfg, pt_out, pt_set, x_we};
    pf_st[0] = st_new;
    for (int k = 1; k < 4; k++)
      pf_st[k] = (x_we && pf_idx[k*QW +: QW] == x_idx) ? st_new : st_rd[k-1];
    // (every port at one QP writes one value: what the QP is after this cycle)
    for (int k = 0; k < 4; k++)
      pf_val[k] = pf_st[k] && !in_table(pt_live, pt_qpn, pf_idx[k*QW +: QW], pt_set, pt_set_drop, pt_set_qpn,
                                        pt_out, pt_out_qpn, pt_cfg, pt_cfg_qpn);
  end
  assign init_busy = busy_fl || busy_flx || busy_st || busy_el || busy_pf;

  always_comb begin
    cfg = '0;
    {cfg.qp_type, cfg.sq_base, cfg.sq_lsz, cfg.pd, cfg.pmtu, cfg.dest_qpn, cfg.l3, cfg.vlan_valid, cfg.vlan_vid, cfg.sl,
     cfg.src_mac, cfg.dst_mac,
     cfg.src_ip, cfg.dst_ip, cfg.tclass, cfg.ttl, cfg.flow_label, cfg.max_rd_atomic, cfg.qkey} = cfg_rd_q;
  end
endmodule

`default_nettype wire
