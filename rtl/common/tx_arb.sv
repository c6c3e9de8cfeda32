// tx_arb: the TX header arbiter in front of roce_deparser, and the payload
// that goes with each header.
//
//   s_ack_hdr (responder: ACK/NAKs, READ responses) ──┐
//   s_req_hdr (requester) ────────────────────────────┴─► m_tx_hdr ─► roce_deparser.s_hdr
//   s_axis_ack_payload ──┐  (the source of each header  ─► m_axis_tx_payload ─► roce_deparser.s_axis_pay
//   s_axis_req_payload ──┘   passed with a payload, in order)
//
// The deparser builds one frame per header and takes pay_len bytes of payload
// (ceil(pay_len / (DATA_W/8)) beats, lane 0 first, no tlast) for it, in header
// order. Each header passed with pay_len > 0 queues {source, beats}; the
// payload mux passes that many beats from that source, then the next entry's
// (tkeep and tlast of the sources are accepted and dropped). Headers: with
// both sources waiting they take turns (a long READ's responses never starve
// the requester, nor a stream of requests the ACKs); a choice once offered
// is held until taken; a header waits while the queue is full.
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
  input  wire logic [DATA_W-1:0]      s_axis_ack_payload_tdata,
  /* verilator lint_off UNUSEDSIGNAL */  // the deparser counts payload bytes by pay_len: keep and last are not needed
  input  wire logic [DATA_W/8-1:0]    s_axis_ack_payload_tkeep,
  input  wire logic                   s_axis_ack_payload_tlast,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_axis_ack_payload_tvalid,
  output logic                        s_axis_ack_payload_tready,
  input  wire logic [DATA_W-1:0]      s_axis_req_payload_tdata,
  /* verilator lint_off UNUSEDSIGNAL */
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
  localparam int WB = $clog2(DATA_W / 8);
  localparam int QD = 4;  // headers whose payload has not all passed

  logic lock_q, sel_q;  // sel 0 = responder, 1 = requester
  logic turn_q;         // who goes first when both wait: the one not served last
  logic sel, room, hdr_take, pay_beat, pay_end;
  logic [12:0] hdr_beats;
  // the payload queue: {source, beats}, QD entries in registers (its head is visible the cycle after a push)
  logic        q_src [QD];
  logic [12:0] q_beats [QD];
  logic [1:0]  q_rd_q, q_wr_q;
  logic [2:0]  q_n_q;
  logic [12:0] done_q;  // beats of the head entry passed

  // sel (valids only), forward and backward are separate statements, so no
  // data or ready path passes through a shared process
  assign sel = lock_q ? sel_q : (s_ack_hdr_valid && s_req_hdr_valid) ? turn_q : !s_ack_hdr_valid;
  assign room = q_n_q != 3'(QD);

  always_comb begin
    m_tx_hdr        = sel ? s_req_hdr : s_ack_hdr;
    m_tx_hdr_valid  = (sel ? s_req_hdr_valid : s_ack_hdr_valid) && room;
  end

  // backward path apart from the forward one: the readies depend on m_tx_hdr_ready
  assign s_ack_hdr_ready = !sel && m_tx_hdr_ready && room;
  assign s_req_hdr_ready = sel && m_tx_hdr_ready && room;
  assign hdr_take = m_tx_hdr_valid && m_tx_hdr_ready;
  assign hdr_beats = (m_tx_hdr.pay_len + 13'((1 << WB) - 1)) >> WB;

  always_ff @(posedge clk) begin
    if (rst) begin
      lock_q <= 1'b0; sel_q <= 1'b0; turn_q <= 1'b0;
    end else if ((sel ? s_req_hdr_valid : s_ack_hdr_valid)) begin
      lock_q <= !hdr_take;
      sel_q  <= sel;
      if (hdr_take) turn_q <= !sel;
    end
  end

  // payload: from the source of the queue's head (forward and backward apart)
  logic head_v, head_src;
  assign head_v = q_n_q != '0;
  assign head_src = q_src[q_rd_q];
  assign m_axis_tx_payload_tdata = head_src ? s_axis_req_payload_tdata : s_axis_ack_payload_tdata;
  assign m_axis_tx_payload_tvalid = head_v && (head_src ? s_axis_req_payload_tvalid : s_axis_ack_payload_tvalid);
  assign s_axis_ack_payload_tready = head_v && !head_src && m_axis_tx_payload_tready;
  assign s_axis_req_payload_tready = head_v && head_src && m_axis_tx_payload_tready;
  assign pay_beat = m_axis_tx_payload_tvalid && m_axis_tx_payload_tready;
  assign pay_end = pay_beat && done_q + 13'd1 == q_beats[q_rd_q];

  always_ff @(posedge clk) begin
    if (rst) begin
      q_rd_q <= '0; q_wr_q <= '0; q_n_q <= '0; done_q <= '0;
    end else begin
      if (hdr_take && m_tx_hdr.pay_len != '0) begin
        q_src[q_wr_q] <= sel;
        q_beats[q_wr_q] <= hdr_beats;
        q_wr_q <= q_wr_q + 2'd1;
      end
      if (pay_beat) done_q <= pay_end ? '0 : done_q + 13'd1;
      if (pay_end) q_rd_q <= q_rd_q + 2'd1;
      q_n_q <= q_n_q + 3'(hdr_take && m_tx_hdr.pay_len != '0) - 3'(pay_end);
    end
  end

  assign idle = !lock_q && q_n_q == '0;
endmodule

`default_nettype wire
