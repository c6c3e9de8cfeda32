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
// may be waiting on roce_cmd, which may be waiting on them. A scanner visits
// one QP a cycle and offers the pending ones to roce_cmd, clearing each bit
// as it is taken. Reports are rare; a QP waits at most MAX_QP cycles.
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
  output logic                        idle
);
  localparam int QW = $clog2(MAX_QP);
  localparam logic [7:0] FLUSH = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);

  initial begin
    if ((1 << QW) != MAX_QP) $error("qp_err_tap: MAX_QP must be a power of two");
  end

  logic r_rep, c_rep;
  logic [MAX_QP-1:0] pend_q;
  logic [QW-1:0] scan_q;

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

  // the scanner's QP is offered while its bit is set; otherwise it moves on
  assign m_qp_err_valid = pend_q[scan_q];
  always_comb begin
    m_qp_err = '0;
    m_qp_err.qpn = 16'(scan_q);
  end

  always_ff @(posedge clk) begin
    if (rst) scan_q <= '0;
    else if (!pend_q[scan_q] || m_qp_err_ready) scan_q <= scan_q + QW'(1);
  end
  // A new report wins over the clearing of the same bit (roce_cmd ignores a
  // QP already in ERR). One-hot masks: Yosys's front end turns pend_q[i] <=
  // into a case over every QP; one branch level, the reset a select (each
  // level over a MAX_QP-wide vector costs Yosys seconds per 16K bits).
  always_ff @(posedge clk)
    if (rst || (pend_q[scan_q] && m_qp_err_ready) || r_rep || c_rep)
      pend_q <= rst ? MAX_QP'(0)
              : (pend_q & ~(MAX_QP'(pend_q[scan_q] && m_qp_err_ready) << scan_q))
                | (MAX_QP'(r_rep && s_ack_hdr.src_qpn < 24'(MAX_QP)) << s_ack_hdr.src_qpn[QW-1:0])
                | (MAX_QP'(c_rep && s_compl.qp_num < 24'(MAX_QP)) << s_compl.qp_num[QW-1:0]);
  assign idle = pend_q == MAX_QP'(0);
endmodule

`default_nettype wire
