// responder: the RC responder (docs/engine.md, "Responder"). Request packets
// (SEND, RDMA WRITE and RDMA READ) in, payload placed into host memory by DMA,
// receive completions out, ACK/NAKs and READ responses (data read from host
// memory) out.
//
// Atomics (CMP_SWAP, FETCH_ADD): the checker reads and decides (responder_ctrl),
// placement writes the new value and sends the ATOMIC ACKNOWLEDGE job
// (docs/engine.md, "Atomics").
//
//   RC request packet (as the parser delivers it)
//   +-----+-------------------------------+------+-------+---------------+
//   | BTH | RETH (WRITE FIRST/ONLY)       | ImmDt| payload (pay_len) | ...
//   |     | va(8) rkey(4) dma_len(4)      | (4)  | on s_axis_rx_payload, lane 0
//   +-----+-------------------------------+------+-------------------+
//   ACK (m_tx_hdr): BTH opcode ACKNOWLEDGE + AETH {syndrome, MSN}, no payload
//   READ RESPONSE FIRST/MIDDLE/LAST/ONLY (m_tx_hdr + m_axis_tx_payload)
//
//   s_rx_hdr ---------> responder_ctrl (checks, contexts, mr_req, WQE reads, flush)
//                          | verdicts (in order)   | pieces (speculative until the
//                          v                       v          packet passed its checks)
//   s_axis_rx_payload -> payload FIFO -> responder_place -> dma_wr_req + data, cq_compl
//                                             | jobs (ACK, READ with its walk)
//                                             v
//                                        responder_tx -> m_read_mr_req (READs' later page runs)
//                                                     -> m_read_dma_req (READ data reads)
//                                                     -> m_tx_hdr + m_axis_tx_payload
//
// The payload waits in its FIFO (PAY_DEPTH beats, two 4096-byte packets by
// default; one UD datagram of 4096 bytes and its GRH) while the checker works on the header, so nothing of a packet is
// written before all its checks passed, and the next packet's checks overlap
// the current packet's placement.
`default_nettype none

module responder #(
  parameter int DATA_W    = 512,
  parameter int MAX_QP    = 256,
  parameter int RQ_HEADS  = 4,    // receive WQE heads prefetched (responder_ctrl)
  parameter int RQ_AHEAD  = 2,    // ... ways per set, WQEs a QP reads ahead (responder_ctrl)
  parameter int PAY_DEPTH = 128   // payload FIFO beats, power of two
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::wq_db_t       s_rq_db,
  input  wire logic                   s_rq_db_valid,
  output logic                        s_rq_db_ready,
  input  wire roce_pkg::roce_rx_hdr_t s_rx_hdr,
  input  wire logic                   s_rx_hdr_valid,
  output logic                        s_rx_hdr_ready,
  input  wire logic [DATA_W-1:0]      s_axis_rx_payload_tdata,
  input  wire logic                   s_axis_rx_payload_tlast,
  input  wire logic                   s_axis_rx_payload_tvalid,
  output logic                        s_axis_rx_payload_tready,
  input  wire logic [DATA_W-1:0]      s_axis_dma_rd_tdata,
  input  wire logic                   s_axis_dma_rd_tlast,
  input  wire logic                   s_axis_dma_rd_tuser,   // poisoned: the host refused the read
  input  wire logic                   s_axis_dma_rd_tvalid,
  output logic                        s_axis_dma_rd_tready,
  input  wire roce_pkg::mr_resp_t     s_mr_resp,
  input  wire logic                   s_mr_resp_valid,
  output logic                        s_mr_resp_ready,
  output roce_pkg::dma_rd_req_t       m_dma_rd_req,
  output logic                        m_dma_rd_req_valid,
  input  wire logic                   m_dma_rd_req_ready,
  output roce_pkg::mr_req_t           m_mr_req,
  output logic                        m_mr_req_valid,
  input  wire logic                   m_mr_req_ready,
  output roce_pkg::dma_wr_req_t       m_dma_wr_req,
  output logic                        m_dma_wr_req_valid,
  input  wire logic                   m_dma_wr_req_ready,
  output logic [DATA_W-1:0]           m_axis_dma_wr_tdata,
  output logic [DATA_W/8-1:0]         m_axis_dma_wr_tkeep,
  output logic                        m_axis_dma_wr_tlast,
  output logic                        m_axis_dma_wr_tvalid,
  input  wire logic                   m_axis_dma_wr_tready,
  output roce_pkg::dma_rd_req_t      m_read_dma_req,        // READ responses' data
  output logic                        m_read_dma_req_valid,
  input  wire logic                   m_read_dma_req_ready,
  input  wire logic [DATA_W-1:0]      s_axis_read_dma_tdata,
  input  wire logic                   s_axis_read_dma_tlast,
  input  wire logic                   s_axis_read_dma_tuser,
  input  wire logic                   s_axis_read_dma_tvalid,
  output logic                        s_axis_read_dma_tready,
  output roce_pkg::mr_req_t           m_read_mr_req,         // READs' later page runs (responder_tx)
  output logic                        m_read_mr_req_valid,
  input  wire logic                   m_read_mr_req_ready,
  input  wire roce_pkg::mr_resp_t     s_read_mr_resp,
  input  wire logic                   s_read_mr_resp_valid,
  output logic                        s_read_mr_resp_ready,
  output roce_pkg::roce_tx_hdr_t      m_tx_hdr,              // ACK/NAKs and READ responses
  output logic                        m_tx_hdr_valid,
  input  wire logic                   m_tx_hdr_ready,
  output logic [DATA_W-1:0]           m_axis_tx_payload_tdata,
  output logic [DATA_W/8-1:0]         m_axis_tx_payload_tkeep,
  output logic                        m_axis_tx_payload_tlast,
  output logic                        m_axis_tx_payload_tvalid,
  input  wire logic                   m_axis_tx_payload_tready,
  output roce_pkg::cq_compl_t         m_cq_compl,
  output logic                        m_cq_compl_valid,
  input  wire logic                   m_cq_compl_ready,
  output logic                        idle,
  output logic [31:0]                 cnt_tx_acks,
  output logic [31:0]                 cnt_rx_pkts,
  output logic [31:0]                 cnt_no_qp,
  output logic [31:0]                 cnt_qp_state,
  output logic [31:0]                 cnt_out_of_sequence,
  output logic [31:0]                 cnt_duplicate_request,
  output logic [31:0]                 cnt_rem_access_err,
  output logic [31:0]                 cnt_rem_inv_req,
  output logic [31:0]                 cnt_rnr_nak_sent,
  output logic [31:0]                 cnt_rem_op_err,
  output logic [31:0]                 cnt_rx_read_requests,
  output logic [31:0]                 cnt_qkey_violations,
  output logic                        init_busy   // after reset: the per-QP flags are being cleared (MAX_QP/16 cycles)
);
  localparam int PAW = $clog2(PAY_DEPTH);
  localparam int VD_DEPTH = 4;

  initial begin
    if ((1 << PAW) != PAY_DEPTH || PAY_DEPTH * DATA_W < 8 * (roce_pkg::MAX_PAYLOAD + roce_pkg::GRH_BYTES))
      $error("responder: PAY_DEPTH must be a power of two holding a 4096-byte payload (a UD one with its GRH)");
  end

  // ---- payload FIFO
  logic [DATA_W:0] pay_out;
  logic pay_v, pay_take;
  /* verilator lint_off UNUSEDSIGNAL */  // always 1 while pay_n_q < PAY_DEPTH
  logic pay_rdy;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [PAW+1:0] pay_n_q;
  // tready from the beat count (a register), not from the FIFO's combinational
  // block: an upstream whose valid follows its own ready must not loop through it
  logic pay_push;
  assign s_axis_rx_payload_tready = pay_n_q < (PAW + 2)'(PAY_DEPTH);
  assign pay_push = s_axis_rx_payload_tvalid && s_axis_rx_payload_tready;
  fifo_fwft #(.WIDTH(DATA_W + 1), .DEPTH(PAY_DEPTH)) u_pay (
    .clk, .rst,
    .s_valid(pay_push), .s_ready(pay_rdy),
    .s_data({s_axis_rx_payload_tlast, s_axis_rx_payload_tdata}),
    .m_valid(pay_v), .m_ready(pay_take), .m_data(pay_out));

  // ---- checker -> verdicts, pieces
  responder_pkg::rsp_verdict_t vd_in, vd_out;
  roce_pkg::cq_compl_t vd_cqe_in, vd_cqe_out;
  logic vd_push, vd_rdy, vd_v, vd_pop;
  logic [3:0] vd_n_q;
  responder_pkg::rsp_piece_t pc_in, pc_out;
  logic pc_push, pc_rdy, pc_commit, pc_abort, pc_v, pc_pop, pc_empty;
  logic addr_we;
  logic [$clog2(MAX_QP)-1:0] addr_wa;
  responder_pkg::rsp_addr_t addr_wd;
  roce_pkg::cq_compl_t c_cq, p_cq;
  logic c_cq_v, p_cq_v;
  logic c_idle, p_idle, t_idle, drained;
  roce_pkg::roce_tx_hdr_t job;
  logic job_read, job_v, job_rdy;
  logic [31:0] job_rlen;
  logic [2:0] job_pmtu;
  responder_pkg::rsp_walk_t job_walk;

  responder_ctrl #(.DATA_W(DATA_W), .MAX_QP(MAX_QP), .RQ_HEADS(RQ_HEADS), .RQ_AHEAD(RQ_AHEAD)) u_ctrl (
    .clk, .rst,
    .s_qp_cfg, .s_qp_cfg_valid, .s_qp_cfg_ready,
    .s_rq_db, .s_rq_db_valid, .s_rq_db_ready,
    .s_rx_hdr, .s_rx_hdr_valid, .s_rx_hdr_ready,
    .s_dma_rd_tdata(s_axis_dma_rd_tdata), .s_dma_rd_tlast(s_axis_dma_rd_tlast),
    .s_dma_rd_tuser(s_axis_dma_rd_tuser), .s_dma_rd_tvalid(s_axis_dma_rd_tvalid),
    .s_dma_rd_tready(s_axis_dma_rd_tready),
    .s_mr_resp, .s_mr_resp_valid, .s_mr_resp_ready,
    .m_dma_rd_req, .m_dma_rd_req_valid, .m_dma_rd_req_ready,
    .m_mr_req, .m_mr_req_valid, .m_mr_req_ready,
    .m_cq(c_cq), .m_cq_valid(c_cq_v), .m_cq_ready(m_cq_compl_ready),
    .m_vd(vd_in), .m_vd_cqe(vd_cqe_in), .m_vd_valid(vd_push), .m_vd_ready(vd_rdy),
    .m_vd_room(vd_n_q < 4'(VD_DEPTH)),   // (the FIFO holds VD_DEPTH + 1: below VD_DEPTH its memory has room)
    .m_pc(pc_in), .m_pc_valid(pc_push), .m_pc_ready(pc_rdy), .m_pc_commit(pc_commit), .m_pc_abort(pc_abort),
    .m_addr_we(addr_we), .m_addr_wa(addr_wa), .m_addr_wd(addr_wd),
    .drained, .idle(c_idle),
    .cnt_rx_pkts, .cnt_no_qp, .cnt_qp_state, .cnt_out_of_sequence, .cnt_duplicate_request,
    .cnt_rem_access_err, .cnt_rem_inv_req, .cnt_rnr_nak_sent, .cnt_rem_op_err, .cnt_rx_read_requests,
    .cnt_qkey_violations, .init_busy);

  fifo_fwft #(.WIDTH($bits(vd_in) + $bits(vd_cqe_in)), .DEPTH(VD_DEPTH)) u_vd (
    .clk, .rst, .s_valid(vd_push), .s_ready(vd_rdy), .s_data({vd_cqe_in, vd_in}),
    .m_valid(vd_v), .m_ready(vd_pop), .m_data({vd_cqe_out, vd_out}));

  // (32: the most pieces one packet makes -- 16 SGEs, each split once by a page end)
  spec_fifo #(.WIDTH(responder_pkg::PIECE_W), .DEPTH(32)) u_pc (
    .clk, .rst, .s_valid(pc_push), .s_ready(pc_rdy), .s_data(pc_in),
    .commit(pc_commit), .abort(pc_abort),
    .m_valid(pc_v), .m_ready(pc_pop), .m_data(pc_out), .empty(pc_empty));

  // ---- placement
  responder_place #(.DATA_W(DATA_W), .MAX_QP(MAX_QP)) u_place (
    .clk, .rst,
    .s_vd(vd_out), .s_vd_cqe(vd_cqe_out), .s_vd_valid(vd_v), .s_vd_ready(vd_pop),
    .s_pc(pc_out), .s_pc_valid(pc_v), .s_pc_ready(pc_pop),
    .s_pay_tdata(pay_out[DATA_W-1:0]), .s_pay_tlast(pay_out[DATA_W]), .s_pay_tvalid(pay_v),
    .s_pay_tready(pay_take),
    .s_addr_we(addr_we), .s_addr_wa(addr_wa), .s_addr_wd(addr_wd),
    .m_dma_wr_req, .m_dma_wr_req_valid, .m_dma_wr_req_ready,
    .m_axis_dma_wr_tdata, .m_axis_dma_wr_tkeep, .m_axis_dma_wr_tlast, .m_axis_dma_wr_tvalid,
    .m_axis_dma_wr_tready,
    .m_job(job), .m_job_read(job_read), .m_job_rlen(job_rlen), .m_job_pmtu(job_pmtu), .m_job_walk(job_walk),
    .m_job_valid(job_v), .m_job_ready(job_rdy),
    .m_cq(p_cq), .m_cq_valid(p_cq_v), .m_cq_ready(m_cq_compl_ready),
    .idle(p_idle), .cnt_tx_acks);

  // ---- what the responder sends
  responder_tx #(.DATA_W(DATA_W)) u_tx (
    .clk, .rst,
    .s_job(job), .s_job_read(job_read), .s_job_rlen(job_rlen), .s_job_pmtu(job_pmtu), .s_job_walk(job_walk),
    .s_job_valid(job_v), .s_job_ready(job_rdy),
    .m_mr_req(m_read_mr_req), .m_mr_req_valid(m_read_mr_req_valid), .m_mr_req_ready(m_read_mr_req_ready),
    .s_mr_resp(s_read_mr_resp), .s_mr_resp_valid(s_read_mr_resp_valid), .s_mr_resp_ready(s_read_mr_resp_ready),
    .m_dma_rd_req(m_read_dma_req), .m_dma_rd_req_valid(m_read_dma_req_valid),
    .m_dma_rd_req_ready(m_read_dma_req_ready),
    .s_axis_dma_rd_tdata(s_axis_read_dma_tdata), .s_axis_dma_rd_tlast(s_axis_read_dma_tlast),
    .s_axis_dma_rd_tuser(s_axis_read_dma_tuser), .s_axis_dma_rd_tvalid(s_axis_read_dma_tvalid),
    .s_axis_dma_rd_tready(s_axis_read_dma_tready),
    .m_hdr(m_tx_hdr), .m_hdr_valid(m_tx_hdr_valid), .m_hdr_ready(m_tx_hdr_ready),
    .m_axis_pay_tdata(m_axis_tx_payload_tdata), .m_axis_pay_tkeep(m_axis_tx_payload_tkeep),
    .m_axis_pay_tlast(m_axis_tx_payload_tlast), .m_axis_pay_tvalid(m_axis_tx_payload_tvalid),
    .m_axis_pay_tready(m_axis_tx_payload_tready),
    .idle(t_idle));

  // Flush completions (checker) only while the placement stage is drained.
  assign m_cq_compl = c_cq_v ? c_cq : p_cq;
  assign m_cq_compl_valid = c_cq_v || p_cq_v;

  always_ff @(posedge clk) begin
    if (rst) begin
      vd_n_q <= '0;
      pay_n_q <= '0;
    end else begin
      vd_n_q <= vd_n_q + 4'(vd_push && vd_rdy) - 4'(vd_v && vd_pop);
      pay_n_q <= pay_n_q + (PAW + 2)'(pay_push) - (PAW + 2)'(pay_v && pay_take);
    end
  end

  // drained: nothing decided is left in placement (qp_cfg may change the ACK addressing;
  // jobs already handed to responder_tx carry theirs)
  assign drained = p_idle && vd_n_q == '0;
  assign idle = c_idle && drained && pc_empty && pay_n_q == '0 && t_idle;
endmodule

`default_nettype wire
