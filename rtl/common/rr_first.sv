// rr_first: the first set bit of req at or after position `from`, else the
// first set bit at all (round robin over N requesters).
//
// Encoded in log depth: a prefix OR isolates the lowest set bit of sel, then
// the one-hot vector is folded in halves: its upper half holds the set bit
// when index bit W-1 is set, and the OR of the two halves keeps the lower
// index bits; W folds give the index. (A loop of "if (v[i]) r = i" would be
// an N-deep mux chain, and a constant mask per index bit, built by a loop
// over N positions, runs past Verilator's unroll limit at 65536.)
`default_nettype none

module rr_first #(
  parameter int N = 256   // a power of two
) (
  input  wire logic [N-1:0]         req,
  input  wire logic [$clog2(N)-1:0] from,
  output logic                      any,
  output logic [$clog2(N)-1:0]      idx
);
  localparam int W = $clog2(N);

  initial begin
    if ((1 << W) != N || N < 2) $error("rr_first: N must be a power of two >= 2");
  end

  logic [N-1:0] upper, sel, sel_below, sel_lowest;
  always_comb begin
    any        = |req;
    upper      = req & ~((N'(1) << from) - N'(1));  // at or after the pointer
    sel        = (|upper) ? upper : req;
    sel_below  = sel;
    for (int l = 0; l < W; l++) sel_below = sel_below | (sel_below << (1 << l));  // [i] = |sel[i:0]
    sel_lowest = sel & ~(sel_below << 1);
  end
  for (genvar l = 0; l < W; l++) begin : g_fold
    localparam int WD = N >> l;   // this level's width: the index's low W-l bits
    /* verilator lint_off UNUSEDSIGNAL */  // (the last level's lower half)
    logic [WD-1:0] f;
    /* verilator lint_on UNUSEDSIGNAL */
    if (l == 0) begin : g_in
      assign f = sel_lowest;
    end else begin : g_half
      assign f = g_fold[l-1].f[WD-1:0] | g_fold[l-1].f[2*WD-1:WD];
    end
    assign idx[W-1-l] = |f[WD-1:WD/2];
  end
endmodule

`default_nettype wire
