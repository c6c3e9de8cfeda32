// stream_gather: concatenates lane-0-aligned pieces into one lane-0-aligned stream.
//
//   in : beats whose bytes sit in lanes 0..n-1 (tkeep contiguous from lane 0,
//        n = 1..DATA_W/8); tlast ends an output packet
//   out: the same bytes, packed: every beat full except the packet's last
//        (tkeep contiguous from lane 0), tlast on the packet's last beat,
//        lanes outside tkeep zero
//
//   piece A (5 bytes)  a0 a1 a2 a3 a4
//   piece B (3 bytes)  b0 b1 b2          ->  a0 a1 a2 a3 a4 b0 b1 b2 ...
//
// A residue register holds the 0..W-1 bytes that do not yet fill a beat; each
// input beat is shifted up by the residue's size and split into an output beat
// and a new residue (one 2*DATA_W-bit shifter). A packet whose last input beat
// overflows the output beat needs one extra cycle to flush the residue; the
// input is held during it. One output register; one input beat per cycle.
`default_nettype none

module stream_gather #(
  parameter int DATA_W = 512
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  input  wire logic [DATA_W-1:0]     s_tdata,
  input  wire logic [DATA_W/8-1:0]   s_tkeep,
  input  wire logic                  s_tlast,
  input  wire logic                  s_tvalid,
  output logic                       s_tready,
  output logic [DATA_W-1:0]          m_tdata,
  output logic [DATA_W/8-1:0]        m_tkeep,
  output logic                       m_tlast,
  output logic                       m_tvalid,
  input  wire logic                  m_tready
);
  localparam int W  = DATA_W / 8;
  localparam int WB = $clog2(W);

  initial begin
    if ((1 << WB) != W || W < 2) $error("stream_gather: DATA_W/8 must be a power of two >= 2");
  end

  logic [DATA_W-1:0] res_q;      // residue bytes in lanes 0..fill-1, zero above
  logic [WB-1:0]     fill_q;
  logic              flush_q;    // the residue is a packet's tail: send it next
  logic              o_valid_q, o_last_q;
  logic [DATA_W-1:0] o_data_q;
  logic [W-1:0]      o_keep_q;

  logic              adv;
  logic [WB:0]       n;          // bytes in the input beat
  logic [DATA_W-1:0] din;
  logic [2*DATA_W-1:0] wide;
  logic [DATA_W-1:0] lo, hi;
  logic [WB+1:0]     total;

  // the lowest `k` lanes' keep bits (k < W)
  function automatic logic [W-1:0] keep_of(input logic [WB:0] k);
    keep_of = (k >= (WB + 1)'(W)) ? '1 : (W'(1) << k[WB-1:0]) - W'(1);
  endfunction

  always_comb begin
    adv      = !o_valid_q || m_tready;
    s_tready = adv && !flush_q;
    n = '0;
    for (int i = 0; i < W; i++) if (s_tkeep[i]) n = (WB + 1)'(i + 1);
    for (int i = 0; i < W; i++) din[8*i +: 8] = s_tkeep[i] ? s_tdata[8*i +: 8] : 8'd0;
    wide  = {{DATA_W{1'b0}}, din} << {fill_q, 3'b000};
    lo    = res_q | wide[DATA_W-1:0];
    hi    = wide[2*DATA_W-1:DATA_W];
    total = (WB + 2)'(fill_q) + (WB + 2)'(n);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      res_q <= '0;
      fill_q <= '0;
      flush_q <= 1'b0;
      o_valid_q <= 1'b0;
      o_last_q <= 1'b0;
      o_data_q <= '0;
      o_keep_q <= '0;
    end else if (adv) begin
      if (flush_q) begin
        o_valid_q <= 1'b1;
        o_data_q  <= res_q;
        o_keep_q  <= keep_of((WB + 1)'(fill_q));
        o_last_q  <= 1'b1;
        res_q     <= '0;
        fill_q    <= '0;
        flush_q   <= 1'b0;
      end else if (s_tvalid) begin
        if (total >= (WB + 2)'(W)) begin
          o_valid_q <= 1'b1;
          o_data_q  <= lo;
          o_keep_q  <= '1;
          o_last_q  <= s_tlast && total == (WB + 2)'(W);
          res_q     <= hi;
          fill_q    <= WB'(total - (WB + 2)'(W));
          flush_q   <= s_tlast && total != (WB + 2)'(W);
        end else if (s_tlast) begin
          o_valid_q <= 1'b1;
          o_data_q  <= lo;
          o_keep_q  <= keep_of(total[WB:0]);
          o_last_q  <= 1'b1;
          res_q     <= '0;
          fill_q    <= '0;
        end else begin
          o_valid_q <= 1'b0;
          res_q     <= lo;
          fill_q    <= total[WB-1:0];
        end
      end else begin
        o_valid_q <= 1'b0;
      end
    end
  end

  assign m_tvalid = o_valid_q;
  assign m_tdata  = o_data_q;
  assign m_tkeep  = o_keep_q;
  assign m_tlast  = o_last_q;
endmodule

`default_nettype wire
