// desc_arb2: 2:1 round-robin arbiter for descriptors (one flit per transfer),
// combinational (no added latency), with the granted input beside the output.
//
//   s0 ──┐
//        ├──► m, m_sel (0 or 1: which input m comes from)
//   s1 ──┘
//
// With both inputs valid the one not granted last goes first. Once offered,
// the choice is held until taken (lock_q), so m and m_sel stay stable while
// m_valid waits on m_ready, as valid/ready requires.
`default_nettype none

module desc_arb2 #(
  parameter int WIDTH = 64
) (
  input  wire logic             clk,
  input  wire logic             rst,
  input  wire logic [WIDTH-1:0] s0,
  input  wire logic             s0_valid,
  output logic                  s0_ready,
  input  wire logic [WIDTH-1:0] s1,
  input  wire logic             s1_valid,
  output logic                  s1_ready,
  output logic [WIDTH-1:0]      m,
  output logic                  m_valid,
  input  wire logic             m_ready,
  output logic                  m_sel,
  output logic                  idle
);
  logic lock_q, sel_q, prio_q;  // prio_q: the input that wins a tie
  logic sel;

  // sel, forward (m, m_valid) and backward (s*_ready) are separate statements:
  // sel depends on the valids only, the readies on m_ready, the forward side
  // never on a ready (no false loop through the data in Verilator's view).
  always_comb begin
    if (lock_q) sel = sel_q;
    else if (s0_valid && s1_valid) sel = prio_q;
    else sel = s1_valid;
  end

  assign m_sel   = sel;
  assign m_valid = sel ? s1_valid : s0_valid;
  assign m       = sel ? s1 : s0;

  assign s0_ready = !sel && m_ready;
  assign s1_ready = sel && m_ready;

  always_ff @(posedge clk) begin
    if (rst) begin
      lock_q <= 1'b0; sel_q <= 1'b0; prio_q <= 1'b0;
    end else if (m_valid) begin
      lock_q <= !m_ready;
      sel_q  <= sel;
      if (m_ready) prio_q <= !sel;
    end
  end

  assign idle = !lock_q;
endmodule

`default_nettype wire
