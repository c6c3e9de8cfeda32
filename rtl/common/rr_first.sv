// rr_first: the first set bit of req at or after position `from`, else the
// first set bit at all (round robin over N requesters).
//
// Encoded in log depth: a prefix OR isolates the lowest set bit of sel, and
// index bit k is the OR of the isolated vector over the positions whose index
// has bit k set (a constant mask per k; a loop of "if (v[i]) r = i" would be
// an N-deep mux chain, and a loop over positions would run in every
// evaluation of the simulated model).
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

  function automatic logic [N-1:0] index_bit_mask(input int k);
    for (int i = 0; i < N; i++) index_bit_mask[i] = ((i >> k) & 1) == 1;
  endfunction

  logic [N-1:0] upper, sel, sel_below, sel_lowest;
  always_comb begin
    any        = |req;
    upper      = req & ~((N'(1) << from) - N'(1));  // at or after the pointer
    sel        = (|upper) ? upper : req;
    sel_below  = sel;
    for (int l = 0; l < W; l++) sel_below = sel_below | (sel_below << (1 << l));  // [i] = |sel[i:0]
    sel_lowest = sel & ~(sel_below << 1);
  end
  for (genvar k = 0; k < W; k++) begin : g_idx
    localparam logic [N-1:0] MASK = index_bit_mask(k);
    assign idx[k] = |(sel_lowest & MASK);
  end
endmodule

`default_nettype wire
