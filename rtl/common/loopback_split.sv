// loopback_split: frames from the deparser leave on the MAC (m0_axis) unless
// they are addressed to this port, then they turn back into the receive path
// (m1_axis): two QPs of one device talk as on real NICs.
//
//   lane:  0    1    2    3    4    5    6 ..
//        | destination MAC (byte 0 = port_mac[47:40]) | source MAC | ...
//
// The destination is decided on a frame's first beat (port_mac sampled there)
// and held until its tlast is taken. Combinational, no buffering.
`default_nettype none

module loopback_split #(
  parameter int DATA_W = 512
) (
  input  wire logic                clk,
  input  wire logic                rst,
  input  wire logic [47:0]         port_mac,
  input  wire logic [DATA_W-1:0]   s_axis_tdata,
  input  wire logic [DATA_W/8-1:0] s_axis_tkeep,
  input  wire logic                s_axis_tlast,
  input  wire logic                s_axis_tvalid,
  output logic                     s_axis_tready,
  output logic [DATA_W-1:0]        m0_axis_tdata,
  output logic [DATA_W/8-1:0]      m0_axis_tkeep,
  output logic                     m0_axis_tlast,
  output logic                     m0_axis_tvalid,
  input  wire logic                m0_axis_tready,
  output logic [DATA_W-1:0]        m1_axis_tdata,
  output logic [DATA_W/8-1:0]      m1_axis_tkeep,
  output logic                     m1_axis_tlast,
  output logic                     m1_axis_tvalid,
  input  wire logic                m1_axis_tready,
  output logic                     idle,
  output logic [31:0]              cnt_loopback
);
  initial begin
    if (DATA_W < 64) $error("loopback_split: the destination MAC must fit the first beat (DATA_W >= 64)");
  end

  logic lock_q, dest_q;  // inside a frame (or its first beat offered): keep dest_q
  logic own, dest;
  logic [31:0] cnt_q;

  always_comb begin
    own  = s_axis_tkeep[5:0] == 6'h3F &&
           {s_axis_tdata[7:0], s_axis_tdata[15:8], s_axis_tdata[23:16],
            s_axis_tdata[31:24], s_axis_tdata[39:32], s_axis_tdata[47:40]} == port_mac;
    dest = lock_q ? dest_q : own;
    m0_axis_tdata  = s_axis_tdata;
    m0_axis_tkeep  = s_axis_tkeep;
    m0_axis_tlast  = s_axis_tlast;
    m0_axis_tvalid = s_axis_tvalid && !dest;
    m1_axis_tdata  = s_axis_tdata;
    m1_axis_tkeep  = s_axis_tkeep;
    m1_axis_tlast  = s_axis_tlast;
    m1_axis_tvalid = s_axis_tvalid && dest;
  end

  // backward path apart from the forward one: it depends on the outputs' readies
  assign s_axis_tready = dest ? m1_axis_tready : m0_axis_tready;

  always_ff @(posedge clk) begin
    if (rst) begin
      lock_q <= 1'b0; dest_q <= 1'b0; cnt_q <= '0;
    end else if (s_axis_tvalid) begin
      lock_q <= !(s_axis_tready && s_axis_tlast);
      dest_q <= dest;
      if (s_axis_tready && s_axis_tlast && dest) cnt_q <= cnt_q + 32'd1;
    end
  end

  assign cnt_loopback = cnt_q;
  assign idle = !lock_q;
endmodule

`default_nettype wire
