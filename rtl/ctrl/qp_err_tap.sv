// qp_err_tap: tells roce_cmd which QPs a transport failure put in ERR, from
// what the transport says anyway:
//   - the responder sent a fatal NAK (invalid request, remote access error,
//     remote operational error: IBTA puts the responder's QP in ERR);
//   - the completer wrote an error completion other than a flush (retry or
//     RNR retries exhausted, a NAK, a local failure: its QP is in ERR).
//
//   s_ack_hdr ──────────────► m_ack_hdr   (toward tx_arb)         ─┐ QPN of a fatal NAK
//   s_compl   ──────────────► m_compl     (toward the CQ arbiter)  ┤ QPN of an error completion
//                                                                   └─► pending bitmap ─► scanner ─► m_qp_err
//
// Both streams pass straight through, never held: a report only sets the
// QP's bit in a pending bitmap (two in one cycle, or the same QP twice, are
// fine), so the tap can never stall the responder or the completer -- which
// may be waiting on roce_cmd, which may be waiting on them. The bitmap is a
// qp_pick (LUT-RAM, a summary bit per 64 QPs): the first pending QP at or
// after the pointer is offered to roce_cmd at once, its bit cleared as it
// is taken and the pointer moved past it (round robin, what the model's
// roce_cmd does). After reset the bitmap is swept (MAX_QP/64 cycles,
// init_busy).
`default_nettype none

module qp_err_tap #(
  parameter int MAX_QP = 256
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
  output logic                        idle,
  output logic                        init_busy
);
  localparam int QW = $clog2(MAX_QP);
  localparam logic [7:0] FLUSH = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);

  initial begin
    if ((1 << QW) != MAX_QP) $error("qp_err_tap: MAX_QP must be a power of two");
  end

  logic r_rep, c_rep, any_pend, take;
  logic [QW-1:0] scan_q, pend_qpn, r_qpn, c_qpn;
  logic r_in, c_in;

  // pass-through (forward and backward apart)
  assign m_ack_hdr       = s_ack_hdr;
  assign m_ack_hdr_valid = s_ack_hdr_valid;
  assign s_ack_hdr_ready = m_ack_hdr_ready;
  assign m_compl         = s_compl;
  assign m_compl_valid   = s_compl_valid;
  assign s_compl_ready   = m_compl_ready;

  always_comb begin
    r_rep = s_ack_hdr_valid && m_ack_hdr_ready && s_ack_hdr.opcode == roce_pkg::OP_RC_ACK
         && s_ack_hdr.aeth_syndrome >= 8'(roce_pkg::AETH_NAK_INV_REQ)
         && s_ack_hdr.aeth_syndrome <= 8'(roce_pkg::AETH_NAK_REM_OP);
    c_rep = s_compl_valid && m_compl_ready && s_compl.status != 8'd0 && s_compl.status != FLUSH;
  end

  // the first pending QP at or after the pointer is offered; taking it
  // clears its bit (unless a report sets it again in that cycle: a new
  // report wins, roce_cmd ignores a QP already in ERR)
  always_comb begin
    r_in  = s_ack_hdr.src_qpn < 24'(MAX_QP);
    c_in  = s_compl.qp_num < 24'(MAX_QP);
    r_qpn = s_ack_hdr.src_qpn[QW-1:0];
    c_qpn = s_compl.qp_num[QW-1:0];
    take  = any_pend && m_qp_err_ready;
    m_qp_err = '0;
    m_qp_err.qpn = 16'(pend_qpn);
  end
  assign m_qp_err_valid = any_pend;
  qp_pick #(.N(MAX_QP), .K(3)) u_pend (
    .clk, .rst,
    .we({take, c_rep && c_in, r_rep && r_in}),
    .widx({pend_qpn, c_qpn, r_qpn}),
    .wval({(r_rep && r_in && r_qpn == pend_qpn) || (c_rep && c_in && c_qpn == pend_qpn), 1'b1, 1'b1}),
    .from(scan_q), .skip_en(1'b0), .skip('0), .any(any_pend), .idx(pend_qpn), .busy(init_busy));
  always_ff @(posedge clk) begin
    if (rst) scan_q <= '0;
    else if (take) scan_q <= pend_qpn + QW'(1);
  end
  assign idle = !any_pend && !init_busy;
endmodule

`default_nettype wire
