// cq_writer: completions into completion-queue rings in host memory.
//
//   ring of 2^log_size CQEs (docs/spec/layouts.md, 32 bytes each) at base:
//     entry pi % size  <-  CQE, owner bit 0 = phase = ((pi >> log_size) & 1) ^ 1
//   so a zeroed ring reads as empty, and the driver owns an entry when its
//   owner bit equals the phase of its pass over the ring.
//
//   per completion on cq:
//     cq unknown / destroyed       -> error event, dropped, counted
//     pi - ci == size (overrun)    -> error event, dropped, counted
//     otherwise                    -> DMA write of the CQE (one request + one beat),
//                                     pi += 1, completion event if armed (disarms)
//   per doorbell: ci; arm (1 next completion, 2 next solicited). Arming for
//   the next completion while CQEs the driver has not consumed are in the
//   ring (pi != ci) raises the event at once instead (as mlx5 hardware does):
//   a completion written just before the arm cannot be missed.
//
// One input per cycle while idle, by priority: configuration, doorbell,
// completion. The DMA request and its data beat are offered together; the
// event after both are taken. Contexts live in small memories with an
// asynchronous read (LUT RAM).
`default_nettype none

module cq_writer #(
  parameter int DATA_W = 512,
  parameter int MAX_CQ = 256
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::cq_cfg_t      s_cfg,
  input  wire logic                   s_cfg_valid,
  output logic                        s_cfg_ready,
  input  wire roce_pkg::cq_db_t       s_db,
  input  wire logic                   s_db_valid,
  output logic                        s_db_ready,
  input  wire roce_pkg::cq_compl_t    s_compl,
  input  wire logic                   s_compl_valid,
  output logic                        s_compl_ready,
  output roce_pkg::dma_wr_req_t       m_dma_wr,
  output logic                        m_dma_wr_valid,
  input  wire logic                   m_dma_wr_ready,
  output logic [DATA_W-1:0]           m_axis_dma_wr_tdata,
  output logic                        m_axis_dma_wr_tvalid,
  input  wire logic                   m_axis_dma_wr_tready,
  output roce_pkg::cq_event_t         m_event,
  output logic                        m_event_valid,
  input  wire logic                   m_event_ready,
  output logic [31:0]                 cnt_cqe,       // CQEs written
  output logic [31:0]                 cnt_cq_err     // completions dropped: unknown CQ or overrun
);
  localparam int CW = $clog2(MAX_CQ);

  initial begin
    if ((1 << CW) != MAX_CQ || MAX_CQ > 32768) $error("cq_writer: MAX_CQ must be a power of two <= 32768");
    if (DATA_W < 8 * roce_pkg::CQE_SIZE) $error("cq_writer: a CQE must fit one beat (DATA_W >= 256)");
  end

  // ---- contexts (plain vectors: see DESIGN.md §9 on arrays of structs)
  logic [MAX_CQ-1:0] valid_q;   // a register, not a memory: it must reset
  logic [63:0] base_mem  [MAX_CQ];
  logic [4:0]  lsz_mem   [MAX_CQ];
  logic [23:0] pi_mem    [MAX_CQ];
  logic [23:0] ci_mem    [MAX_CQ];
  logic [1:0]  arm_mem   [MAX_CQ];

  localparam logic [1:0] ST_IDLE = 2'd0, ST_SEND = 2'd1, ST_EVENT = 2'd2;
  logic [1:0]  state_q;
  logic        req_pending_q, beat_pending_q, event_after_q;
  roce_pkg::dma_wr_req_t req_q;
  logic [DATA_W-1:0] beat_q;
  roce_pkg::cq_event_t ev_q;
  logic [31:0] cnt_cqe_q, cnt_err_q;

  // the completion's CQ context (asynchronous read)
  logic [CW-1:0] ci_idx;
  logic          c_known;
  logic [23:0]   c_pi, c_used, c_size, c_slot;
  logic [4:0]    c_lsz;
  logic [1:0]    c_arm;
  logic [63:0]   c_addr;
  logic [8*roce_pkg::CQE_SIZE-1:0] cqe;
  logic          take_cfg, take_db, take_compl;
  // the doorbell's CQ: armed while CQEs are unconsumed -> the event now
  logic [CW-1:0] d_idx;
  logic          d_now;

  always_comb begin
    d_idx   = s_db.cq[CW-1:0];
    d_now   = (s_db.cq < 16'(MAX_CQ)) && valid_q[d_idx] && s_db.arm == 2'd1 && pi_mem[d_idx] != s_db.ci;
    ci_idx  = s_compl.cq[CW-1:0];
    c_known = (s_compl.cq < 16'(MAX_CQ)) && valid_q[ci_idx];
    c_pi    = pi_mem[ci_idx];
    c_lsz   = lsz_mem[ci_idx];
    c_arm   = arm_mem[ci_idx];
    c_size  = 24'd1 << c_lsz;
    c_used  = c_pi - ci_mem[ci_idx];
    c_slot  = c_pi & (c_size - 24'd1);
    c_addr  = base_mem[ci_idx] + ({40'b0, c_slot} << $clog2(roce_pkg::CQE_SIZE));
    // the CQE, little-endian fields at their layout offsets
    cqe = '0;
    cqe[8*roce_pkg::CQE_WR_ID_OFF +: 64]      = s_compl.wr_id;
    cqe[8*roce_pkg::CQE_BYTE_LEN_OFF +: 32]   = s_compl.byte_len;
    // the immediate's wire bytes, first byte first (cq_compl_t holds it as the wire's big-endian number)
    cqe[8*roce_pkg::CQE_IMM_OFF +: 32]        = {s_compl.imm[7:0], s_compl.imm[15:8], s_compl.imm[23:16], s_compl.imm[31:24]};
    cqe[8*roce_pkg::CQE_QP_NUM_OFF +: 24]     = s_compl.qp_num;
    cqe[8*roce_pkg::CQE_OPCODE_OFF +: 8]      = s_compl.opcode;
    cqe[8*roce_pkg::CQE_SRC_QP_OFF +: 24]     = s_compl.src_qp;
    cqe[8*roce_pkg::CQE_STATUS_OFF +: 8]      = s_compl.status;
    cqe[8*roce_pkg::CQE_WC_FLAGS_OFF +: 8]    = s_compl.wc_flags;
    cqe[8*roce_pkg::CQE_SL_OFF +: 8]          = s_compl.sl;
    cqe[8*roce_pkg::CQE_PKEY_INDEX_OFF +: 16] = s_compl.pkey_index;
    cqe[8*roce_pkg::CQE_WQE_COUNTER_OFF +: 16] = s_compl.wqe_counter;
    cqe[8*roce_pkg::CQE_OWNER_OFF +: 8]       = {7'b0, ~c_pi[c_lsz]};

    s_cfg_ready   = state_q == ST_IDLE;
    s_db_ready    = state_q == ST_IDLE && !s_cfg_valid;
    s_compl_ready = state_q == ST_IDLE && !s_cfg_valid && !s_db_valid;
    take_cfg   = s_cfg_valid && s_cfg_ready;
    take_db    = s_db_valid && s_db_ready;
    take_compl = s_compl_valid && s_compl_ready;
  end

  always_ff @(posedge clk) begin
    // context writes: one input per cycle, so one write per memory
    if (take_cfg && s_cfg.cq < 16'(MAX_CQ)) begin
      base_mem[s_cfg.cq[CW-1:0]]  <= s_cfg.base;
      lsz_mem[s_cfg.cq[CW-1:0]]   <= s_cfg.log_size;
      pi_mem[s_cfg.cq[CW-1:0]]    <= '0;
      ci_mem[s_cfg.cq[CW-1:0]]    <= '0;
      arm_mem[s_cfg.cq[CW-1:0]]   <= '0;
    end else if (take_db && s_db.cq < 16'(MAX_CQ)) begin
      ci_mem[s_db.cq[CW-1:0]] <= s_db.ci;
      if (s_db.arm != 2'd0) arm_mem[s_db.cq[CW-1:0]] <= d_now ? 2'd0 : s_db.arm;
    end else if (take_compl && c_known && c_used < c_size) begin
      pi_mem[ci_idx] <= c_pi + 24'd1;
      if (c_arm == 2'd1 || (c_arm == 2'd2 && s_compl.solicited)) arm_mem[ci_idx] <= 2'd0;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state_q <= ST_IDLE;
      req_pending_q <= 1'b0; beat_pending_q <= 1'b0; event_after_q <= 1'b0;
      req_q <= '0; beat_q <= '0; ev_q <= '0;
      cnt_cqe_q <= '0; cnt_err_q <= '0;
      valid_q <= '0;
    end else begin
      // a ring beyond 2^16 CQEs (CAP_MAX_CQE) is refused: the CQ stays unusable
      if (take_cfg && s_cfg.cq < 16'(MAX_CQ))
        valid_q[s_cfg.cq[CW-1:0]] <= s_cfg.valid && s_cfg.log_size <= 5'd16;
      case (state_q)
        ST_IDLE: begin
          if (take_db && d_now) begin
            ev_q.cq <= s_db.cq;
            ev_q.error <= 1'b0;
            state_q <= ST_EVENT;
          end
          if (take_compl) begin
            ev_q.cq <= s_compl.cq;
            if (!c_known || c_used >= c_size) begin
              ev_q.error <= 1'b1;
              cnt_err_q <= cnt_err_q + 32'd1;
              state_q <= ST_EVENT;
            end else begin
              ev_q.error <= 1'b0;
              req_q.tag <= '0;
              req_q.addr <= c_addr;
              req_q.len <= 13'(roce_pkg::CQE_SIZE);
              beat_q <= DATA_W'(cqe);
              req_pending_q <= 1'b1;
              beat_pending_q <= 1'b1;
              event_after_q <= c_arm == 2'd1 || (c_arm == 2'd2 && s_compl.solicited);
              cnt_cqe_q <= cnt_cqe_q + 32'd1;
              state_q <= ST_SEND;
            end
          end
        end
        ST_SEND: begin
          if (m_dma_wr_valid && m_dma_wr_ready) req_pending_q <= 1'b0;
          if (m_axis_dma_wr_tvalid && m_axis_dma_wr_tready) beat_pending_q <= 1'b0;
          if ((!req_pending_q || m_dma_wr_ready) && (!beat_pending_q || m_axis_dma_wr_tready))
            state_q <= event_after_q ? ST_EVENT : ST_IDLE;
        end
        ST_EVENT: if (m_event_ready) state_q <= ST_IDLE;
        default: state_q <= ST_IDLE;
      endcase
    end
  end

  assign m_dma_wr             = req_q;
  assign m_dma_wr_valid       = state_q == ST_SEND && req_pending_q;
  assign m_axis_dma_wr_tdata  = beat_q;
  assign m_axis_dma_wr_tvalid = state_q == ST_SEND && beat_pending_q;
  assign m_event              = ev_q;
  assign m_event_valid        = state_q == ST_EVENT;
  assign cnt_cqe              = cnt_cqe_q;
  assign cnt_cq_err           = cnt_err_q;
endmodule

`default_nettype wire
