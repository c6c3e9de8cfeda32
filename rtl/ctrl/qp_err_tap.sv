// qp_err_tap: tells roce_cmd which QPs a transport failure put in ERR, from
// what the transport says anyway:
//   - the responder sent a fatal NAK (invalid request, remote access error,
//     remote operational error: IBTA puts the responder's QP in ERR);
//   - the completer wrote an error completion other than a flush (retry or
//     RNR retries exhausted, a NAK, a local failure: its QP is in ERR).
//
//   s_ack_hdr ──────────────► m_ack_hdr   (toward tx_arb)       ─┐ qpn of a fatal NAK
//   s_compl   ──────────────► m_compl     (toward the CQ arbiter) ┤ qpn of an error completion
//                                                                 └─► FIFO ─► m_qp_err (roce_cmd)
//
// Both streams pass straight through; one that would report while the FIFO
// is full waits (its valid and ready held low). When both report in one
// cycle the completion waits a cycle. Combinational but for the FIFO.
`default_nettype none

module qp_err_tap #(
  parameter int DEPTH = 4
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::roce_tx_hdr_t s_ack_hdr,
  input  wire logic                   s_ack_hdr_valid,
  output logic                        s_ack_hdr_ready,
  output roce_pkg::roce_tx_hdr_t      m_ack_hdr,
  output logic                        m_ack_hdr_valid,
  input  wire logic                   m_ack_hdr_ready,
  input  wire roce_pkg::cq_compl_t    s_compl,
  input  wire logic                   s_compl_valid,
  output logic                        s_compl_ready,
  output roce_pkg::cq_compl_t         m_compl,
  output logic                        m_compl_valid,
  input  wire logic                   m_compl_ready,
  output roce_pkg::qp_err_t           m_qp_err,
  output logic                        m_qp_err_valid,
  input  wire logic                   m_qp_err_ready,
  output logic                        idle
);
  localparam logic [7:0] FLUSH = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);

  logic room, r_fatal, c_err, r_hold, c_hold, push;
  roce_pkg::qp_err_t in;

  always_comb begin
    r_fatal = s_ack_hdr.opcode == roce_pkg::OP_RC_ACK
           && s_ack_hdr.aeth_syndrome >= 8'(roce_pkg::AETH_NAK_INV_REQ)
           && s_ack_hdr.aeth_syndrome <= 8'(roce_pkg::AETH_NAK_REM_OP);
    c_err   = s_compl.status != 8'd0 && s_compl.status != FLUSH;
    r_hold  = r_fatal && !room;
    c_hold  = c_err && (!room || (s_ack_hdr_valid && r_fatal));
    m_ack_hdr       = s_ack_hdr;
    m_ack_hdr_valid = s_ack_hdr_valid && !r_hold;
    m_compl         = s_compl;
    m_compl_valid   = s_compl_valid && !c_hold;
    in.qpn = (s_ack_hdr_valid && r_fatal) ? s_ack_hdr.src_qpn[15:0] : s_compl.qp_num[15:0];
  end
  assign s_ack_hdr_ready = m_ack_hdr_ready && !r_hold;
  assign s_compl_ready   = m_compl_ready && !c_hold;
  assign push = (s_ack_hdr_valid && s_ack_hdr_ready && r_fatal) || (s_compl_valid && s_compl_ready && c_err);

  // room from a count of the reports queued (a register), not from the
  // FIFO's s_ready: that one is computed beside s_valid, and push depends on room
  logic q_valid;
  /* verilator lint_off UNUSEDSIGNAL */
  logic q_ready;  // always 1 while n_q < DEPTH
  /* verilator lint_on UNUSEDSIGNAL */
  logic [$clog2(DEPTH + 1)-1:0] n_q;
  fifo_fwft #(.WIDTH($bits(in)), .DEPTH(DEPTH)) u_q (
    .clk, .rst,
    .s_valid(push), .s_ready(q_ready), .s_data(in),
    .m_valid(q_valid), .m_ready(m_qp_err_ready), .m_data(m_qp_err));
  assign m_qp_err_valid = q_valid;
  assign room = n_q < $bits(n_q)'(DEPTH);
  always_ff @(posedge clk) begin
    if (rst) n_q <= '0;
    else n_q <= n_q + $bits(n_q)'(push) - $bits(n_q)'(q_valid && m_qp_err_ready);
  end
  assign idle = n_q == '0;
endmodule

`default_nettype wire
