// read_place_ctrl: the control stage of read_place (docs/engine.md, "READ
// response placement"). One command at a time, in order:
//
//   cmd {qpn, wqe_idx, offset, len, last, drop, epoch}
//     QP not valid, or epoch is not the QP's (the command is from before
//       a RESET or DESTROY)            -> drop the payload; done LOC_QP_OP_ERR
//     drop, len 0, or the WQE failed   -> drop the payload (done: the failure's status)
//     SGEs: the cached WQE (one entry, tagged qpn + wqe_idx), else the
//       requester's hint (a one-SGE READ or atomic: its SGE, given as its
//       request left), else fetch the first WQE_HEAD bytes of the send WQE at
//       sq_base + 512 * (wqe_idx mod 2^sq_lsz), and its SGEs past the sixth
//       after them (TAIL) when it has more
//       poisoned -> LOC_PROT_ERR;  num_sge > 16 -> LOC_QP_OP_ERR
//     offset + len > sum of the SGE lengths -> LOC_LEN_ERR
//     position: where the previous command of that WQE ended (offset equal),
//       else found from SGE 0 (a cycle per SGE stepped over)
//     walk: pieces that never cross an SGE end or a page-run end; one mr_req
//       per page run (lkey, pd, va, rest of the SGE, LOCAL_WRITE), a run
//       kept across the WQE's commands; a failed one -> LOC_PROT_ERR and the
//       rest of the payload dropped
//     last: done {qpn, wqe_idx, status}; the failure is forgotten, the cached
//       WQE dropped
//
//   send WQE (docs/spec/layouts.md)
//     10 num_sge | 32 + 16 i: SGE i = addr (8) length (4) lkey (4), i < 16
//
// A failure is remembered per QP (fail_v, fail_idx, fail_st in the context)
// until that WQE's last command: its later data is dropped. Pieces leave on
// m_pc ({pa, len, last, drop}: a DMA write and its slicer descriptor, or a
// drop descriptor); the top counts them to hold `done` behind their data.
// Hints (s_hint, no ready): a direct-mapped table of READ_HINTS entries at
// qpn XOR bit-reversed wqe_idx (low bits), each {tag, one_sge, SGE}, written
// in the cycle a hint comes; the command's entry is read as it is taken.
// A hint is what the requester read from the WQE before it sent the request,
// so it is what a fetch would read now: the slot is posted again only after
// the WQE completes, and a RESET makes older responses stale (the epoch).
// A later hint with the same tag replaces an older one (a rewind, or the slot
// posted again), so a stale one is never used; a hint not of one SGE only
// forgets the slot.
// Inputs are taken only when idle: qp_cfg before cmd. The epoch counts a
// QP's RESETs and DESTROYs (as the completer's does), so it outlives the QP:
// the context memory is cleared by a sweep of MAX_QP cycles after reset.
`default_nettype none

module read_place_ctrl #(
  parameter int DATA_W = 512,
  parameter int MAX_QP = 256
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  /* verilator lint_off UNUSEDSIGNAL */  // read_place keeps qpn, action, pd and the send queue only
  input  wire roce_pkg::qp_cfg_t     s_qp_cfg,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_qp_cfg_valid,
  output logic                       s_qp_cfg_ready,
  input  wire roce_pkg::rd_place_t   s_cmd,
  input  wire logic                  s_cmd_valid,
  output logic                       s_cmd_ready,
  input  wire roce_pkg::rd_hint_t    s_hint,
  input  wire logic                  s_hint_valid,
  input  wire logic [DATA_W-1:0]     s_dma_rd_tdata,
  input  wire logic                  s_dma_rd_tlast,
  input  wire logic                  s_dma_rd_tuser,      // poisoned: the host refused the read
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
  output logic [63:0]                m_pc_pa,
  output logic [12:0]                m_pc_len,
  output logic                       m_pc_last,           // the last piece of the command's payload
  output logic                       m_pc_drop,           // discard m_pc_len bytes (and the rest of the packet)
  output logic                       m_pc_valid,
  input  wire logic                  m_pc_ready,
  output roce_pkg::rd_done_t         m_done,
  output logic                       m_done_valid,
  input  wire logic                  m_done_ready,
  output logic                       idle,
  output logic [31:0]                cnt_pieces,
  output logic [31:0]                cnt_drop_bytes,
  output logic [31:0]                cnt_wqe_reads,
  output logic [31:0]                cnt_hint_hits,
  output logic [31:0]                cnt_errors
);
  localparam int QW = $clog2(MAX_QP);
  localparam int WQE_W = 8 * roce_pkg::SEND_WQE_SIZE;
  localparam int HEAD_W = 8 * roce_pkg::WQE_HEAD;                     // the first fetch: SGEs 0..5
  localparam int TAIL_W = WQE_W - HEAD_W;                             // SGEs 6..15
  localparam int TAIL_PAD = (TAIL_W + DATA_W - 1) / DATA_W * DATA_W;   // whole beats
  localparam int MAX_SGE = roce_pkg::MAX_SGE;
  localparam int HEAD_SGE = (roce_pkg::WQE_HEAD - roce_pkg::SEND_WQE_SGE0_ADDR_OFF) / roce_pkg::SGE_SIZE;
  localparam int SGE0 = 8 * roce_pkg::SEND_WQE_SGE0_ADDR_OFF;
  localparam int SGE_W = 8 * roce_pkg::SGE_SIZE;
  localparam int HINTS = roce_pkg::READ_HINTS;
  localparam int HW = $clog2(HINTS);
  localparam int HINT_W = 32 + 1 + SGE_W;                            // {tag qpn.wqe_idx, one_sge, SGE}
  // the context word: {epoch, pd, sq_base, sq_lsz, fail_v, fail_idx, fail_st}, fields at these bits
  localparam int F_ST = 0, F_IDX = 8, F_V = 24, F_LSZ = 25, F_BASE = 30, F_PD = 94, F_EP = 110, CTX_W = 114;

  initial begin
    if ((1 << QW) != MAX_QP || MAX_QP > 65536) $error("read_place_ctrl: MAX_QP must be a power of two <= 65536");
    if ((1 << HW) != HINTS || HW > 16) $error("read_place_ctrl: READ_HINTS must be a power of two <= 65536");
    if (DATA_W < 64 || DATA_W > HEAD_W || HEAD_W % DATA_W != 0)
      $error("read_place_ctrl: DATA_W must divide the 1024-bit WQE head, 64 <= DATA_W <= 1024");
  end

  typedef enum logic [3:0] {
    C_INIT, C_IDLE, C_CFG, C_CMD, C_WQE, C_CHK, C_SEEK, C_WALK, C_MRW, C_DROP, C_FIN,
    C_TAIL, C_WQT, C_TOT   // SGEs past the sixth: their read, its beats, then the total of all
  } cst_e;

  // ---- the requester's hints: valid bits in registers (they reset), entries in a RAM
  logic [HINTS-1:0]  hv_q;
  logic [HINT_W-1:0] hint_mem [HINTS];
  logic [HINT_W-1:0] hint_rd_q, hint_wd;
  logic              hv_rd_q, hint_hit;
  logic [HW-1:0]     hint_wa, hint_ra;

  // ---- per-QP context: valid bits in LUT-RAM (qp_flags: they reset), the rest in a RAM
  logic              qp_valid;    // the QP of idx_q exists
  logic [CTX_W-1:0]  ctx_mem [MAX_QP];
  logic [CTX_W-1:0]  ctx_rd_q, c0, ctx_wd;
  logic              ctx_re, ctx_we;
  logic [QW-1:0]     ctx_ra, ctx_wa, init_q;

  cst_e st_q, st_d;
  // the command
  logic [15:0] k_qpn_q, k_qpn_d, k_idx_q, k_idx_d;
  logic [31:0] k_off_q, k_off_d;
  logic [12:0] k_len_q, k_len_d;
  logic        k_last_q, k_last_d, k_drop_q, k_drop_d;
  logic [3:0]  k_ep_q, k_ep_d;
  logic [QW-1:0] idx_q, idx_d;                 // the QP's context index
  logic        qin_q, qin_d;                   // its number is below MAX_QP
  // the qp_cfg
  logic [2:0]  g_act_q, g_act_d;
  logic [15:0] g_qpn_q, g_qpn_d, g_pd_q, g_pd_d;
  logic [63:0] g_base_q, g_base_d;
  logic [4:0]  g_lsz_q, g_lsz_d;
  // the command's QP and outcome
  logic [CTX_W-1:0] cx_q, cx_d;                // its context as read
  logic        ok_q, ok_d;                     // the QP is valid
  logic        oldf_q, oldf_d;                 // the WQE had failed before this command
  logic        fail_q, fail_d;                 // ... or fails now
  logic        newf_q, newf_d;                 // it failed in this command
  logic [7:0]  stat_q, stat_d;                 // the WQE's status so far
  logic [12:0] drop_q, drop_d;                 // payload bytes to drop
  // the walk
  logic [12:0] rem_q, rem_d;                   // command bytes not yet cut into pieces
  logic [3:0]  sidx_q, sidx_d;                 // current SGE
  logic [31:0] soff_q, soff_d;                 // bytes of it before the position
  logic [31:0] seek_q, seek_d;                 // C_SEEK: offset left to find
  logic [63:0] run_pa_q, run_pa_d;             // current page run: bus address, bytes left (0: translate)
  logic [31:0] run_left_q, run_left_d;
  logic        pos_v_q, pos_v_d;               // the position (sidx, soff, run) is that of offset next_q
  logic [32:0] next_q, next_d;
  // the cached WQE (one entry)
  logic        cv_q, cv_d;
  logic [15:0] cqpn_q, cqpn_d, cidx_q, cidx_d;
  /* verilator lint_off UNUSEDSIGNAL */  // read_place needs num_sge and the SGEs only
  logic [HEAD_W-1:0] wqe_q, wqe_d;             // the head (beats shift in from the top) ...
  logic [TAIL_PAD-1:0] tail_q, tail_d;         // ... and the tail, beat by beat
  /* verilator lint_on UNUSEDSIGNAL */
  logic [4:0]  tb_q, tb_d;                     // the tail's next beat (up to 20 at DATA_W 64)
  logic [34:0] total_q, total_d;               // sum of the first num_sge SGE lengths
  logic        poison_q, poison_d;
  // output registers
  roce_pkg::dma_rd_req_t rd_q, rd_d;
  roce_pkg::mr_req_t     mr_q, mr_d;
  logic rd_v_q, rd_v_d, mr_v_q, mr_v_d;
  // counters
  logic [31:0] c_pc_q, c_drop_q, c_rd_q, c_hint_q, c_err_q;
  logic i_pc, i_drop, i_rd, i_hint, i_err;

  // ---- combinational helpers
  logic        take_cfg, take_cmd;
  logic [15:0] sq_mask;
  logic [HEAD_W-1:0] wqe_in;  // the head with the beat now arriving in
  /* verilator lint_off UNUSEDSIGNAL */  // wr_id, opcode, ... of the whole WQE: only num_sge and the SGEs used
  logic [WQE_W-1:0] wqe_all;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [7:0]  nsge_in, op_in, nsge_q;
  logic [34:0] total_in, total_all;
  logic [SGE_W-1:0] sge;
  logic [63:0] sge_addr;
  logic [31:0] sge_len, sge_lkey;
  logic [12:0] k;                              // the next piece
  logic [34:0] end_off;
  logic        hit, leave_fin;

  // A hint's entry: qpn XOR wqe_idx bit-reversed, low HW bits, so that one
  // QP's consecutive WQEs and many QPs' first ones all fall apart.
  /* verilator lint_off UNUSEDSIGNAL */  // their low HW bits only
  function automatic logic [HW-1:0] hint_slot(input logic [15:0] qpn, input logic [15:0] idx);
  /* verilator lint_on UNUSEDSIGNAL */
    logic [HW-1:0] r;
    for (int i = 0; i < HW; i++) r[i] = idx[HW - 1 - i];
    hint_slot = qpn[HW-1:0] ^ r;
  endfunction

  assign s_qp_cfg_ready  = st_q == C_IDLE;
  assign s_cmd_ready     = st_q == C_IDLE && !s_qp_cfg_valid;
  assign s_dma_rd_tready = st_q == C_WQE || st_q == C_WQT;
  assign s_mr_resp_ready = st_q == C_MRW;

  always_comb begin
    take_cfg = s_qp_cfg_valid && s_qp_cfg_ready;
    take_cmd = s_cmd_valid && s_cmd_ready;
    ctx_re = take_cfg || take_cmd;
    ctx_ra = take_cfg ? s_qp_cfg.qpn[QW-1:0] : s_cmd.qpn[QW-1:0];
    // the context as read (a QP that does not exist reads as zero but for its epoch)
    c0 = qp_valid ? ctx_rd_q : {ctx_rd_q[F_EP +: 4], (CTX_W - 4)'(0)};
    sq_mask = 16'((17'd1 << c0[F_LSZ +: 5]) - 17'd1);
    // the WQE's beats shift in from the top
    wqe_in = HEAD_W'({s_dma_rd_tdata, wqe_q} >> DATA_W);  // beats shift in from the top
    wqe_all = {tail_q[TAIL_W-1:0], wqe_q};
    nsge_in = wqe_in[8 * roce_pkg::SEND_WQE_NUM_SGE_OFF +: 8];
    nsge_q  = wqe_q[8 * roce_pkg::SEND_WQE_NUM_SGE_OFF +: 8];
    op_in   = wqe_in[8 * roce_pkg::SEND_WQE_OPCODE_OFF +: 8];
    total_in = '0;   // a WQE of up to six SGEs: its head as it completes
    for (int i = 0; i < HEAD_SGE; i++)
      if (8'(i) < nsge_in)
        total_in = total_in + {3'b0, wqe_in[SGE0 + SGE_W * i + 8 * roce_pkg::SGE_LENGTH_OFF +: 32]};
    total_all = '0;  // with its tail, once in (C_TOT)
    for (int i = 0; i < MAX_SGE; i++)
      if (8'(i) < nsge_q)
        total_all = total_all + {3'b0, wqe_all[SGE0 + SGE_W * i + 8 * roce_pkg::SGE_LENGTH_OFF +: 32]};
    // the current SGE
    sge = '0;
    for (int i = 0; i < MAX_SGE; i++)
      if (sidx_q == 4'(i)) sge = wqe_all[SGE0 + SGE_W * i +: SGE_W];
    sge_addr = sge[8 * roce_pkg::SGE_ADDR_OFF +: 64];
    sge_len  = sge[8 * roce_pkg::SGE_LENGTH_OFF +: 32];
    sge_lkey = sge[8 * roce_pkg::SGE_LKEY_OFF +: 32];
    k = run_left_q < {19'b0, rem_q} ? run_left_q[12:0] : rem_q;
    end_off = {3'b0, k_off_q} + {22'b0, k_len_q};
    hit = cv_q && cqpn_q == k_qpn_q && cidx_q == k_idx_q;
    hint_ra = hint_slot(s_cmd.qpn, s_cmd.wqe_idx);
    hint_wa = hint_slot(s_hint.qpn, s_hint.wqe_idx);
    hint_wd = '0;   // {tag, one_sge, the SGE laid out as in a WQE (spec layouts)}
    hint_wd[HINT_W-1 -: 32] = {s_hint.qpn, s_hint.wqe_idx};
    hint_wd[SGE_W] = s_hint.one_sge;
    hint_wd[8 * roce_pkg::SGE_ADDR_OFF +: 64] = s_hint.addr;
    hint_wd[8 * roce_pkg::SGE_LENGTH_OFF +: 32] = s_hint.length;
    hint_wd[8 * roce_pkg::SGE_LKEY_OFF +: 32] = s_hint.lkey;
    hint_hit = hv_rd_q && hint_rd_q[HINT_W-1 -: 32] == {k_qpn_q, k_idx_q} && hint_rd_q[SGE_W];

    st_d = st_q;
    k_qpn_d = k_qpn_q; k_idx_d = k_idx_q; k_off_d = k_off_q; k_len_d = k_len_q;
    k_last_d = k_last_q; k_drop_d = k_drop_q; k_ep_d = k_ep_q; idx_d = idx_q; qin_d = qin_q;
    g_act_d = g_act_q; g_qpn_d = g_qpn_q; g_pd_d = g_pd_q; g_base_d = g_base_q; g_lsz_d = g_lsz_q;
    cx_d = cx_q; ok_d = ok_q; oldf_d = oldf_q; fail_d = fail_q; newf_d = newf_q; stat_d = stat_q;
    drop_d = drop_q;
    rem_d = rem_q; sidx_d = sidx_q; soff_d = soff_q; seek_d = seek_q;
    run_pa_d = run_pa_q; run_left_d = run_left_q; pos_v_d = pos_v_q; next_d = next_q;
    cv_d = cv_q; cqpn_d = cqpn_q; cidx_d = cidx_q; wqe_d = wqe_q; total_d = total_q; poison_d = poison_q;
    tail_d = tail_q; tb_d = tb_q;
    rd_d = rd_q; mr_d = mr_q;
    rd_v_d = rd_v_q && !m_dma_rd_req_ready;
    mr_v_d = mr_v_q && !m_mr_req_ready;
    ctx_we = 1'b0;
    ctx_wa = idx_q;
    ctx_wd = cx_q;
    m_pc_valid = 1'b0;
    m_pc_pa = run_pa_q;
    m_pc_len = k;
    m_pc_last = k == rem_q;
    m_pc_drop = 1'b0;
    m_done_valid = 1'b0;
    m_done.qpn = k_qpn_q;
    m_done.wqe_idx = k_idx_q;
    m_done.status = stat_q;
    leave_fin = 1'b0;
    {i_pc, i_drop, i_rd, i_hint, i_err} = '0;

    unique case (st_q)
      C_INIT: begin
        ctx_we = 1'b1; ctx_wa = init_q; ctx_wd = '0;
        if (init_q == QW'(MAX_QP - 1)) st_d = C_IDLE;
      end

      C_IDLE: begin
        if (take_cfg) begin
          g_act_d = s_qp_cfg.action; g_qpn_d = s_qp_cfg.qpn; g_pd_d = s_qp_cfg.pd;
          g_base_d = s_qp_cfg.sq_base; g_lsz_d = s_qp_cfg.sq_lsz;
          idx_d = s_qp_cfg.qpn[QW-1:0];
          qin_d = 32'(s_qp_cfg.qpn) < 32'(MAX_QP);
          st_d = C_CFG;
        end else if (take_cmd) begin
          k_qpn_d = s_cmd.qpn; k_idx_d = s_cmd.wqe_idx; k_off_d = s_cmd.offset; k_len_d = s_cmd.len;
          k_last_d = s_cmd.last; k_drop_d = s_cmd.drop; k_ep_d = s_cmd.epoch;
          idx_d = s_cmd.qpn[QW-1:0];
          qin_d = 32'(s_cmd.qpn) < 32'(MAX_QP);
          st_d = C_CMD;
        end
      end

      C_CFG: begin
        // attributes from every qp_cfg; RESET (and DESTROY) forget a failure
        // and start a new epoch
        if (qin_q) begin
          ctx_we = 1'b1;
          ctx_wd = c0;
          ctx_wd[F_PD +: 16] = g_pd_q;
          ctx_wd[F_BASE +: 64] = g_base_q;
          ctx_wd[F_LSZ +: 5] = g_lsz_q;
          if (g_act_q == roce_pkg::QP_ACTION_RESET || g_act_q == roce_pkg::QP_ACTION_DESTROY) begin
            ctx_wd[F_V] = 1'b0;
            ctx_wd[F_EP +: 4] = c0[F_EP +: 4] + 4'd1;
          end
        end
        if (cqpn_q == g_qpn_q) cv_d = 1'b0;  // its send queue may have moved
        st_d = C_IDLE;
      end

      C_CMD: begin
        cx_d = c0;
        ok_d = qin_q && qp_valid && c0[F_EP +: 4] == k_ep_q;
        oldf_d = ok_d && c0[F_V] && c0[F_IDX +: 16] == k_idx_q;
        fail_d = oldf_d;
        newf_d = 1'b0;
        stat_d = !ok_d ? 8'(roce_pkg::WC_STATUS_LOC_QP_OP_ERR)
               : oldf_d ? c0[F_ST +: 8] : 8'(roce_pkg::WC_STATUS_SUCCESS);
        rem_d = k_len_q;
        drop_d = k_len_q;
        if (!ok_d || k_drop_q || oldf_d || k_len_q == '0) begin
          st_d = C_DROP;
        end else if (hit) begin
          st_d = C_CHK;
        end else if (hint_hit) begin
          // the requester's hint: a WQE of one SGE, as if fetched (its other fields are not used)
          wqe_d = '0;
          wqe_d[8 * roce_pkg::SEND_WQE_NUM_SGE_OFF +: 8] = 8'd1;
          wqe_d[SGE0 +: SGE_W] = hint_rd_q[SGE_W-1:0];
          cv_d = 1'b1; cqpn_d = k_qpn_q; cidx_d = k_idx_q;
          total_d = {3'b0, hint_rd_q[8 * roce_pkg::SGE_LENGTH_OFF +: 32]};
          pos_v_d = 1'b0;
          i_hint = 1'b1;
          st_d = C_CHK;
        end else begin
          rd_v_d = 1'b1;
          rd_d.tag = '0;
          rd_d.addr = c0[F_BASE +: 64] + ({48'b0, k_idx_q & sq_mask} << roce_pkg::WQE_SLOT_LOG2);
          rd_d.len = 13'(roce_pkg::WQE_HEAD);
          cv_d = 1'b0;
          poison_d = 1'b0;
          i_rd = 1'b1;
          st_d = C_WQE;
        end
      end

      C_WQE: begin
        if (s_dma_rd_tvalid) begin
          wqe_d = wqe_in;
          poison_d = poison_q || s_dma_rd_tuser;
          if (s_dma_rd_tlast) begin
            if (poison_d) begin
              fail_d = 1'b1; newf_d = 1'b1; stat_d = 8'(roce_pkg::WC_STATUS_LOC_PROT_ERR);
              st_d = C_DROP;
            end else if (nsge_in > 8'(MAX_SGE) || !(op_in == 8'(roce_pkg::WR_OPCODE_RDMA_READ)
                         || op_in == 8'(roce_pkg::WR_OPCODE_ATOMIC_CMP_AND_SWP)
                         || op_in == 8'(roce_pkg::WR_OPCODE_ATOMIC_FETCH_AND_ADD))) begin
              // (not a READ or an atomic, whose 8 bytes land alike: the slot was
              // posted again since, after a RESET)
              fail_d = 1'b1; newf_d = 1'b1; stat_d = 8'(roce_pkg::WC_STATUS_LOC_QP_OP_ERR);
              st_d = C_DROP;
            end else if (nsge_in > 8'(HEAD_SGE)) begin
              st_d = C_TAIL;
            end else begin
              cv_d = 1'b1; cqpn_d = k_qpn_q; cidx_d = k_idx_q;
              total_d = total_in;
              pos_v_d = 1'b0;
              st_d = C_CHK;
            end
          end
        end
      end

      C_TAIL: begin
        // SGEs 6..num_sge-1: right after the head in the slot
        if (!rd_v_q) begin
          rd_v_d = 1'b1;
          rd_d.tag = '0;
          rd_d.addr = cx_q[F_BASE +: 64] + ({48'b0, k_idx_q & sq_mask} << roce_pkg::WQE_SLOT_LOG2)
                      + 64'(roce_pkg::WQE_HEAD);
          rd_d.len = 13'(roce_pkg::SGE_SIZE) * (13'(nsge_q) - 13'(HEAD_SGE));
          tb_d = '0;
          st_d = C_WQT;
        end
      end

      C_WQT: begin
        if (s_dma_rd_tvalid) begin
          tail_d[32'(tb_q) * DATA_W +: DATA_W] = s_dma_rd_tdata;
          tb_d = tb_q + 5'd1;
          poison_d = poison_q || s_dma_rd_tuser;
          if (s_dma_rd_tlast) begin
            if (poison_d) begin
              fail_d = 1'b1; newf_d = 1'b1; stat_d = 8'(roce_pkg::WC_STATUS_LOC_PROT_ERR);
              st_d = C_DROP;
            end else begin
              st_d = C_TOT;
            end
          end
        end
      end

      C_TOT: begin
        // the whole WQE is in: the sum of its SGE lengths
        cv_d = 1'b1; cqpn_d = k_qpn_q; cidx_d = k_idx_q;
        total_d = total_all;
        pos_v_d = 1'b0;
        st_d = C_CHK;
      end

      C_CHK: begin
        if (end_off > total_q) begin
          fail_d = 1'b1; newf_d = 1'b1; stat_d = 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR);
          st_d = C_DROP;
        end else if (pos_v_q && next_q == {1'b0, k_off_q}) begin
          st_d = C_WALK;   // where the previous command ended
        end else begin
          sidx_d = '0;
          seek_d = k_off_q;
          st_d = C_SEEK;
        end
      end

      C_SEEK: begin
        // step over the SGEs (empty ones too) before the offset
        if (seek_q >= sge_len) begin
          seek_d = seek_q - sge_len;
          sidx_d = sidx_q + 4'd1;
        end else begin
          soff_d = seek_q;
          run_left_d = '0;
          pos_v_d = 1'b1;
          st_d = C_WALK;
        end
      end

      C_WALK: begin
        if (soff_q == sge_len) begin
          // this SGE is full (or empty): the next one
          sidx_d = sidx_q + 4'd1;
          soff_d = '0;
          run_left_d = '0;
        end else if (run_left_q == '0) begin
          // a new page run: its translation (and the lkey check)
          mr_v_d = 1'b1;
          mr_d = '0;
          mr_d.key = sge_lkey;
          mr_d.pd = cx_q[F_PD +: 16];
          mr_d.va = sge_addr + {32'b0, soff_q};
          mr_d.len = sge_len - soff_q;
          mr_d.access = roce_pkg::ACCESS_LOCAL_WRITE;
          st_d = C_MRW;
        end else begin
          m_pc_valid = 1'b1;
          if (m_pc_ready) begin
            i_pc = 1'b1;
            run_pa_d = run_pa_q + {51'b0, k};
            run_left_d = run_left_q - {19'b0, k};
            soff_d = soff_q + {19'b0, k};
            rem_d = rem_q - k;
            if (k == rem_q) begin
              next_d = end_off[32:0];
              st_d = C_FIN;
            end
          end
        end
      end

      C_MRW: begin
        if (s_mr_resp_valid) begin
          if (s_mr_resp.status == roce_pkg::MR_STATUS_OK) begin
            run_pa_d = s_mr_resp.pa;
            run_left_d = s_mr_resp.run;
            st_d = C_WALK;
          end else begin
            // LOC_PROT_ERR: what is left of this payload (and the WQE's later data) is dropped
            fail_d = 1'b1; newf_d = 1'b1; stat_d = 8'(roce_pkg::WC_STATUS_LOC_PROT_ERR);
            drop_d = rem_q;
            pos_v_d = 1'b0;
            st_d = C_DROP;
          end
        end
      end

      C_DROP: begin
        if (drop_q == '0) begin
          st_d = C_FIN;
        end else begin
          m_pc_valid = 1'b1;
          m_pc_pa = '0;
          m_pc_len = drop_q;
          m_pc_last = 1'b1;
          m_pc_drop = 1'b1;
          if (m_pc_ready) begin
            i_drop = 1'b1;
            st_d = C_FIN;
          end
        end
      end

      C_FIN: begin
        // the answer of a READ's last command; then the failure is written back
        if (k_last_q) begin
          m_done_valid = 1'b1;
          if (m_done_ready) begin
            leave_fin = 1'b1;
            i_err = stat_q != 8'(roce_pkg::WC_STATUS_SUCCESS);
            if (hit) cv_d = 1'b0;   // the WQE is done: its entry goes
          end
        end else begin
          leave_fin = 1'b1;
        end
        if (leave_fin) begin
          ctx_we = ok_q && (newf_q || (k_last_q && oldf_q));
          ctx_wd = cx_q;
          ctx_wd[F_V] = fail_q && !k_last_q;
          ctx_wd[F_IDX +: 16] = k_idx_q;
          ctx_wd[F_ST +: 8] = stat_q;
          st_d = C_IDLE;
        end
      end

      default: st_d = C_IDLE;
    endcase
  end

  // ---- memories
  always_ff @(posedge clk) begin
    if (ctx_we) ctx_mem[ctx_wa] <= ctx_wd;
    if (ctx_re) ctx_rd_q <= ctx_mem[ctx_ra];
    if (s_hint_valid) hint_mem[hint_wa] <= hint_wd;
    if (take_cmd) hint_rd_q <= hint_mem[hint_ra];
  end

  // ---- registers
  // (the sweep after reset, MAX_QP/64 cycles, ends long before C_INIT's MAX_QP cycles do)
  /* verilator lint_off UNUSEDSIGNAL */
  logic valid_busy;
  /* verilator lint_on UNUSEDSIGNAL */
  qp_flags #(.N(MAX_QP), .D(1), .R(1)) u_valid (
    .clk, .rst, .we(st_q == C_CFG && qin_q), .widx(idx_q), .wmask(1'b1),
    .wdata(g_act_q != roce_pkg::QP_ACTION_DESTROY), .ridx(idx_q), .rdata(qp_valid), .busy(valid_busy));

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q <= C_INIT;
      init_q <= '0;
      hv_q <= '0;
      hv_rd_q <= 1'b0;
      cv_q <= 1'b0;
      rd_v_q <= 1'b0; mr_v_q <= 1'b0;
      {c_pc_q, c_drop_q, c_rd_q, c_hint_q, c_err_q} <= '0;
    end else begin
      if (s_hint_valid) hv_q[hint_wa] <= 1'b1;
      if (take_cmd) hv_rd_q <= hv_q[hint_ra];
      st_q <= st_d;
      if (st_q == C_INIT) init_q <= init_q + 1'b1;
      cv_q <= cv_d;
      rd_v_q <= rd_v_d; mr_v_q <= mr_v_d;
      c_pc_q   <= c_pc_q + 32'(i_pc);
      c_drop_q <= c_drop_q + (i_drop ? {19'b0, drop_q} : 32'd0);
      c_rd_q   <= c_rd_q + 32'(i_rd);
      c_hint_q <= c_hint_q + 32'(i_hint);
      c_err_q  <= c_err_q + 32'(i_err);
    end
  end

  always_ff @(posedge clk) begin
    k_qpn_q <= k_qpn_d; k_idx_q <= k_idx_d; k_off_q <= k_off_d; k_len_q <= k_len_d;
    k_last_q <= k_last_d; k_drop_q <= k_drop_d; k_ep_q <= k_ep_d; idx_q <= idx_d; qin_q <= qin_d;
    g_act_q <= g_act_d; g_qpn_q <= g_qpn_d; g_pd_q <= g_pd_d; g_base_q <= g_base_d; g_lsz_q <= g_lsz_d;
    cx_q <= cx_d; ok_q <= ok_d; oldf_q <= oldf_d; fail_q <= fail_d; newf_q <= newf_d; stat_q <= stat_d;
    drop_q <= drop_d;
    rem_q <= rem_d; sidx_q <= sidx_d; soff_q <= soff_d; seek_q <= seek_d;
    run_pa_q <= run_pa_d; run_left_q <= run_left_d; pos_v_q <= pos_v_d; next_q <= next_d;
    cqpn_q <= cqpn_d; cidx_q <= cidx_d; wqe_q <= wqe_d; total_q <= total_d; poison_q <= poison_d;
    tail_q <= tail_d; tb_q <= tb_d;
    rd_q <= rd_d; mr_q <= mr_d;
  end

  assign m_dma_rd_req = rd_q;
  assign m_dma_rd_req_valid = rd_v_q;
  assign m_mr_req = mr_q;
  assign m_mr_req_valid = mr_v_q;
  assign idle = st_q == C_IDLE && !rd_v_q && !mr_v_q;
  assign cnt_pieces = c_pc_q;
  assign cnt_drop_bytes = c_drop_q;
  assign cnt_wqe_reads = c_rd_q;
  assign cnt_hint_hits = c_hint_q;
  assign cnt_errors = c_err_q;

`ifndef SYNTHESIS
  // Invariants, compiled into every Verilated build (--assert), named so
  // that a failure says which one broke.
  always_ff @(posedge clk) begin
    if (!rst) begin
      // no DMA write reaches past the page run its mr_req checked
      if (st_q == C_WALK && m_pc_valid && m_pc_ready)
        a_rp_piece_inside_checked_run: assert (k != '0 && {19'b0, k} <= run_left_q)
          else $error("a_rp_piece_inside_checked_run");
      // the walk never steps past the WQE's SGEs (the length check comes first)
      if ((st_q == C_WALK && soff_q == sge_len) || (st_q == C_SEEK && seek_q >= sge_len))
        a_rp_walk_inside_sges: assert ({4'b0, sidx_q} + 8'd1 < nsge_q && nsge_q <= 8'(MAX_SGE))
          else $error("a_rp_walk_inside_sges");
    end
  end
`endif

endmodule

`default_nettype wire
