// tx_arb: the TX header arbiter in front of roce_deparser.
//
//   s_ack_hdr (responder, pay_len 0) ──┐
//   s_req_hdr (requester) ─────────────┴─► m_tx_hdr ─► roce_deparser.s_hdr
//   s_axis_req_payload ───────────────────► m_axis_tx_payload ─► roce_deparser.s_axis_pay
//
// The deparser builds one frame per header and takes pay_len bytes of payload
// (ceil(pay_len / (DATA_W/8)) beats, lane 0 first, no tlast) for it, in header
// order (tkeep and tlast of the requester's stream are accepted and dropped).
// ACK headers carry no payload, so the payload stream belongs to the
// requester's headers alone, in their order, and passes straight through.
// Headers: an ACK wins over a requester header at every choice; a choice
// once offered is held until taken. Combinational, no buffering.
`default_nettype none

module tx_arb #(
  parameter int DATA_W = 512
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::roce_tx_hdr_t s_ack_hdr,
  input  wire logic                   s_ack_hdr_valid,
  output logic                        s_ack_hdr_ready,
  input  wire roce_pkg::roce_tx_hdr_t s_req_hdr,
  input  wire logic                   s_req_hdr_valid,
  output logic                        s_req_hdr_ready,
  input  wire logic [DATA_W-1:0]      s_axis_req_payload_tdata,
  /* verilator lint_off UNUSEDSIGNAL */  // the deparser counts payload bytes by pay_len: keep and last are not needed
  input  wire logic [DATA_W/8-1:0]    s_axis_req_payload_tkeep,
  input  wire logic                   s_axis_req_payload_tlast,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_axis_req_payload_tvalid,
  output logic                        s_axis_req_payload_tready,
  output roce_pkg::roce_tx_hdr_t      m_tx_hdr,
  output logic                        m_tx_hdr_valid,
  input  wire logic                   m_tx_hdr_ready,
  output logic [DATA_W-1:0]           m_axis_tx_payload_tdata,
  output logic                        m_axis_tx_payload_tvalid,
  input  wire logic                   m_axis_tx_payload_tready,
  output logic                        idle
);
  logic lock_q, sel_q;  // sel 0 = ACK, 1 = requester
  logic sel;

  // sel (valids only), forward and backward are separate statements, so no
  // data or ready path passes through a shared process
  assign sel = lock_q ? sel_q : !s_ack_hdr_valid;

  always_comb begin
    m_tx_hdr        = sel ? s_req_hdr : s_ack_hdr;
    m_tx_hdr_valid  = sel ? s_req_hdr_valid : s_ack_hdr_valid;
  end

  // backward path apart from the forward one: the readies depend on m_tx_hdr_ready
  assign s_ack_hdr_ready = !sel && m_tx_hdr_ready;
  assign s_req_hdr_ready = sel && m_tx_hdr_ready;

  always_ff @(posedge clk) begin
    if (rst) begin
      lock_q <= 1'b0; sel_q <= 1'b0;
    end else if (m_tx_hdr_valid) begin
      lock_q <= !m_tx_hdr_ready;
      sel_q  <= sel;
    end
  end

  assign m_axis_tx_payload_tdata   = s_axis_req_payload_tdata;
  assign m_axis_tx_payload_tvalid  = s_axis_req_payload_tvalid;
  assign s_axis_req_payload_tready = m_axis_tx_payload_tready;
  assign idle = !lock_q;
endmodule

`default_nettype wire
