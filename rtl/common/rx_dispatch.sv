// rx_dispatch: splits what roce_parser accepted between the completer
// (RC responses: READ RESPONSE, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) and the
// responder (every other packet). A response never reaches the responder,
// where its PSN could be taken for a request's (IBTA 9.7.5: a response that
// matches no outstanding request is the requester's to drop).
//
//   s_rx_hdr ──┬─ opcode 0x0D..0x12 ─► m_ack_hdr                  (completer)
//              └─ otherwise ─────────► m_req_hdr                  (responder)
//   s_axis_rx_payload ─┬─ a request's ─────────► m_axis_req_payload (responder)
//                      ├─ a READ response's ───► m_axis_rsp_payload (read_place)
//                      └─ another response's: dropped (ACKs carry none; the
//                         completer only commands read_place for READ responses)
//   ATOMIC ACKNOWLEDGE: its AtomicAckETH original data becomes an 8-byte
//   payload packet on m_axis_rsp_payload (little-endian, as the host keeps a
//   64-bit number), in its place in the payload order, and the completer
//   sees pay_len 8: it lands in the atomic's SGE as a READ response's data
//   (docs/engine.md, "Atomics").
//
// The parser sends a payload packet (up to tlast) for exactly the headers with
// pay_len > 0, in header order. Each such header leaves its payload's
// destination in a small queue; the payload side follows the queue. A header
// waits while the queue is full. Headers and payload pass combinationally.
`default_nettype none

module rx_dispatch #(
  parameter int DATA_W = 512,
  parameter int DEPTH  = 4    // payload packets announced but not yet through (power of two)
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::roce_rx_hdr_t s_rx_hdr,
  input  wire logic                   s_rx_hdr_valid,
  output logic                        s_rx_hdr_ready,
  input  wire logic [DATA_W-1:0]      s_axis_rx_payload_tdata,
  input  wire logic [DATA_W/8-1:0]    s_axis_rx_payload_tkeep,
  input  wire logic                   s_axis_rx_payload_tlast,
  input  wire logic                   s_axis_rx_payload_tvalid,
  output logic                        s_axis_rx_payload_tready,
  output roce_pkg::roce_rx_hdr_t      m_ack_hdr,
  output logic                        m_ack_hdr_valid,
  input  wire logic                   m_ack_hdr_ready,
  output roce_pkg::roce_rx_hdr_t      m_req_hdr,
  output logic                        m_req_hdr_valid,
  input  wire logic                   m_req_hdr_ready,
  output logic [DATA_W-1:0]           m_axis_req_payload_tdata,
  output logic [DATA_W/8-1:0]         m_axis_req_payload_tkeep,
  output logic                        m_axis_req_payload_tlast,
  output logic                        m_axis_req_payload_tvalid,
  input  wire logic                   m_axis_req_payload_tready,
  output logic [DATA_W-1:0]           m_axis_rsp_payload_tdata,
  output logic                        m_axis_rsp_payload_tlast,
  output logic                        m_axis_rsp_payload_tvalid,
  input  wire logic                   m_axis_rsp_payload_tready,
  output logic                        idle
);
  localparam int AW = $clog2(DEPTH);

  initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) $error("rx_dispatch: DEPTH must be a power of two >= 2");
  end

  localparam logic [1:0] D_REQ = 2'd0, D_RSP = 2'd1, D_DROP = 2'd2, D_ATOM = 2'd3;
  logic [1:0]       dst_q [DEPTH];    // per queued payload packet: where it goes
  logic [63:0]      orig_q [DEPTH];   // ... an ATOMIC ACK's original data (D_ATOM)
  logic [DEPTH-1:0] adrop_q;          // ... and a (malformed) payload of its own to drop first
  logic [AW:0]      wp_q, rp_q;
  logic [1:0]       head_dst, push_dst;
  logic             is_ack, is_rsp, is_atom, has_pay, q_full, q_empty, hdr_ok, push, pop, atom_head;

  // Forward (valid, data) and backward (ready, push, pop) are separate
  // processes: the readies depend on the outputs' readies, the forward side
  // never does.
  always_comb begin
    is_ack  = s_rx_hdr.opcode >= roce_pkg::OP_RC_READ_RESP_FIRST && s_rx_hdr.opcode <= roce_pkg::OP_RC_ATOMIC_ACK;
    is_rsp  = s_rx_hdr.opcode >= roce_pkg::OP_RC_READ_RESP_FIRST && s_rx_hdr.opcode <= roce_pkg::OP_RC_READ_RESP_ONLY;
    is_atom = s_rx_hdr.opcode == roce_pkg::OP_RC_ATOMIC_ACK;
    push_dst = !is_ack ? D_REQ : is_rsp ? D_RSP : is_atom ? D_ATOM : D_DROP;
    // an ATOMIC ACK always queues its made packet (the parser refuses a payload
    // on one; were there one, it is dropped first: adrop)
    has_pay = s_rx_hdr.pay_len != 13'd0 || is_atom;
    q_full  = (wp_q - rp_q) == (AW + 1)'(DEPTH);
    q_empty = wp_q == rp_q;
    hdr_ok  = !has_pay || !q_full;
    m_ack_hdr       = s_rx_hdr;
    if (is_atom) m_ack_hdr.pay_len = 13'd8;
    m_req_hdr       = s_rx_hdr;
    m_ack_hdr_valid = s_rx_hdr_valid && hdr_ok && is_ack;
    m_req_hdr_valid = s_rx_hdr_valid && hdr_ok && !is_ack;

    head_dst = dst_q[rp_q[AW-1:0]];
    atom_head = !q_empty && head_dst == D_ATOM && !adrop_q[rp_q[AW-1:0]];
    m_axis_req_payload_tdata  = s_axis_rx_payload_tdata;
    m_axis_req_payload_tkeep  = s_axis_rx_payload_tkeep;
    m_axis_req_payload_tlast  = s_axis_rx_payload_tlast;
    m_axis_req_payload_tvalid = s_axis_rx_payload_tvalid && !q_empty && head_dst == D_REQ;
    m_axis_rsp_payload_tdata  = s_axis_rx_payload_tdata;   // (lanes from 0: the length is in the command)
    m_axis_rsp_payload_tlast  = s_axis_rx_payload_tlast;
    m_axis_rsp_payload_tvalid = s_axis_rx_payload_tvalid && !q_empty && head_dst == D_RSP;
    if (atom_head) begin  // made here, nothing taken from the parser
      m_axis_rsp_payload_tdata  = DATA_W'(orig_q[rp_q[AW-1:0]]);
      m_axis_rsp_payload_tlast  = 1'b1;
      m_axis_rsp_payload_tvalid = 1'b1;
    end
  end

  assign s_rx_hdr_ready = hdr_ok && (is_ack ? m_ack_hdr_ready : m_req_hdr_ready);
  assign push = s_rx_hdr_valid && s_rx_hdr_ready && has_pay;
  logic adrop_head;
  assign adrop_head = !q_empty && head_dst == D_ATOM && adrop_q[rp_q[AW-1:0]];
  assign s_axis_rx_payload_tready = !q_empty && !atom_head
                                    && (head_dst == D_DROP || adrop_head
                                        || (head_dst == D_REQ ? m_axis_req_payload_tready : m_axis_rsp_payload_tready));
  assign pop = (s_axis_rx_payload_tvalid && s_axis_rx_payload_tready && s_axis_rx_payload_tlast && !adrop_head)
               || (atom_head && m_axis_rsp_payload_tready);

  always_ff @(posedge clk) begin
    if (push) dst_q[wp_q[AW-1:0]] <= push_dst;
    if (push) orig_q[wp_q[AW-1:0]] <= s_rx_hdr.atomic_orig;
    if (adrop_head && s_axis_rx_payload_tvalid && s_axis_rx_payload_tlast) adrop_q[rp_q[AW-1:0]] <= 1'b0;
    if (push) adrop_q[wp_q[AW-1:0]] <= is_atom && s_rx_hdr.pay_len != 13'd0;
    if (rst) begin
      wp_q <= '0; rp_q <= '0;
    end else begin
      if (push) wp_q <= wp_q + 1'b1;
      if (pop) rp_q <= rp_q + 1'b1;
    end
  end

  assign idle = q_empty;
endmodule

`default_nettype wire
