// alloc_bitmap: one bit per object (PD, CQ, MR, QP) of the command
// processor's allocators, in registers (it must reset), one bit written a
// cycle.
//
// The bits are held as words of 64 (fewer when N < 64), each its own
// register: a write compares its word index with each word's and sets or
// clears the bit under one 64-bit one-hot. Written as one N-bit vector
// (`used & ~(1 << idx) | set << idx`), Yosys 0.23's front end made two
// N-bit shifters of it, at 16K QPs the command processor's largest cells
// (14 levels of 16,384 multiplexers each before they fold); here the
// shifter is 64 bits wide and the rest is N two-input gates and N/64
// small compares.
`default_nettype none

module alloc_bitmap #(
  parameter int N = 256   // objects, a power of two >= 2
) (
  input  wire logic                  clk,
  input  wire logic                  rst,     // every bit clear
  input  wire logic                  we,
  input  wire logic [$clog2(N)-1:0]  idx,
  input  wire logic                  wbit,    // the value bit idx takes
  output logic [N-1:0]               used
);
  localparam int IW = $clog2(N);
  localparam int WW = N < 64 ? N : 64;   // bits per word
  localparam int NW = N / WW;            // words
  localparam int LW = $clog2(WW);

  initial if (N < 2 || (1 << IW) != N) $error("alloc_bitmap: N must be a power of two >= 2");

  logic [WW-1:0] hot;                    // the bit idx within its word
  always_comb hot = WW'(1) << idx[LW-1:0];

  for (genvar w = 0; w < NW; w++) begin : g_word
    logic [WW-1:0] word_q;
    logic          mine;                 // idx falls in this word
    if (NW == 1) begin : g_one
      assign mine = 1'b1;
    end else begin : g_many
      assign mine = idx[IW-1:LW] == (IW - LW)'(w);
    end
    always_ff @(posedge clk)
      if (rst || (we && mine))
        word_q <= rst ? '0 : (word_q & ~hot) | (wbit ? hot : '0);
    assign used[WW*w +: WW] = word_q;
  end
endmodule

`default_nettype wire
