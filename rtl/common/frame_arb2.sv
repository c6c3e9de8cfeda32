// frame_arb2: 2:1 AXI-Stream arbiter that switches only between whole frames.
//
//   s0_axis_* ──┐
//               ├──► m_axis_*   (tdata, tkeep, tlast, tuser of the granted input)
//   s1_axis_* ──┘
//
// At a frame boundary input 0 wins when both wait (the MAC before the
// loopback in the RX merge); the grant then stays until that frame's tlast is
// taken. Combinational, no buffering.
`default_nettype none

module frame_arb2 #(
  parameter int DATA_W = 512
) (
  input  wire logic                clk,
  input  wire logic                rst,
  input  wire logic [DATA_W-1:0]   s0_axis_tdata,
  input  wire logic [DATA_W/8-1:0] s0_axis_tkeep,
  input  wire logic                s0_axis_tlast,
  input  wire logic                s0_axis_tuser,
  input  wire logic                s0_axis_tvalid,
  output logic                     s0_axis_tready,
  input  wire logic [DATA_W-1:0]   s1_axis_tdata,
  input  wire logic [DATA_W/8-1:0] s1_axis_tkeep,
  input  wire logic                s1_axis_tlast,
  input  wire logic                s1_axis_tuser,
  input  wire logic                s1_axis_tvalid,
  output logic                     s1_axis_tready,
  output logic [DATA_W-1:0]        m_axis_tdata,
  output logic [DATA_W/8-1:0]      m_axis_tkeep,
  output logic                     m_axis_tlast,
  output logic                     m_axis_tuser,
  output logic                     m_axis_tvalid,
  input  wire logic                m_axis_tready,
  output logic                     idle
);
  logic lock_q, sel_q;  // inside a frame (or its first beat offered): keep sel_q
  logic sel;

  // sel (valids only), forward and backward are separate statements, so no
  // data or ready path passes through a shared process
  assign sel = lock_q ? sel_q : (!s0_axis_tvalid && s1_axis_tvalid);

  always_comb begin
    m_axis_tdata   = sel ? s1_axis_tdata : s0_axis_tdata;
    m_axis_tkeep   = sel ? s1_axis_tkeep : s0_axis_tkeep;
    m_axis_tlast   = sel ? s1_axis_tlast : s0_axis_tlast;
    m_axis_tuser   = sel ? s1_axis_tuser : s0_axis_tuser;
    m_axis_tvalid  = sel ? s1_axis_tvalid : s0_axis_tvalid;
  end

  // backward path apart from the forward one: the readies depend on m_axis_tready
  assign s0_axis_tready = !sel && m_axis_tready;
  assign s1_axis_tready = sel && m_axis_tready;

  always_ff @(posedge clk) begin
    if (rst) begin
      lock_q <= 1'b0; sel_q <= 1'b0;
    end else if (m_axis_tvalid) begin
      lock_q <= !(m_axis_tready && m_axis_tlast);
      sel_q  <= sel;
    end
  end

  assign idle = !lock_q;
endmodule

`default_nettype wire
