// roce_cmd_ffz: the lowest clear bit of a bitmap (find first zero), for the
// command processor's allocators, in three short steps rather than one long
// priority chain:
//   cycle 1  which 32-bit chunks have a clear bit            -> chunk_free_q
//   cycle 2  the lowest such chunk (of at most 64)           -> ci_q, found_q
//   then     the lowest clear bit of that chunk (combinational from `used`)
// The answer describes the bitmap of two cycles earlier: the user must not
// rely on it until `used` has been stable for two cycles (and it registers
// the output, a third).
`default_nettype none

module roce_cmd_ffz #(
  parameter int N = 256
) (
  input  wire logic                  clk,
  input  wire logic [N-1:0]          used,
  output logic                       found,
  output logic [$clog2(N)-1:0]       idx
);
  localparam int IW = $clog2(N);
  localparam int NCH = (N + 31) / 32;
  localparam int CIW = (NCH > 1) ? $clog2(NCH) : 1;

  initial begin
    if (N < 2 || (1 << IW) != N || N > 2048) $error("roce_cmd_ffz: N must be a power of two in 2..2048");
  end

  // Index of the lowest set bit of v (0 when none): v & -v isolates it (a
  // carry chain), then each index bit ORs the positions that have it set.
  // (A chunk's 32 bits, or the chunks' free flags: at most 64.)
  function automatic logic [5:0] lowest_set(input logic [63:0] v);
    logic [63:0] one;
    logic [5:0]  at;
    one = v & (~v + 64'd1);
    at = '0;
    for (int i = 0; i < 64; i++)
      for (int k = 0; k < 6; k++)
        if (((i >> k) & 1) == 1) at[k] = at[k] | one[i];
    lowest_set = at;
  endfunction

  logic [32*NCH-1:0] padded;
  logic [31:0]       chunk [NCH];   // an array: its read is a mux tree, not a shifter
  logic [NCH-1:0]    chunk_free, chunk_free_q;
  logic [CIW-1:0]    ci, ci_q;
  logic              found_q;
  logic [31:0]       word;
  logic [4:0]        bi;

  always_comb begin
    padded = '1;                 // bits beyond N read as used
    padded[N-1:0] = used;
    for (int c = 0; c < NCH; c++) chunk[c] = padded[32*c +: 32];
    for (int c = 0; c < NCH; c++) chunk_free[c] = ~&chunk[c];
    ci = CIW'(lowest_set(64'(chunk_free_q)));
  end

  always_ff @(posedge clk) begin
    chunk_free_q <= chunk_free;
    ci_q <= ci;
    found_q <= |chunk_free_q;
  end

  assign bi = 5'(lowest_set({32'b0, ~word}));
  assign found = found_q;

  if (NCH > 1) begin : g_chunks
    assign word = chunk[ci_q];
    assign idx = {ci_q, bi};
  end else begin : g_one_chunk
    assign word = chunk[0];
    assign idx = bi[IW-1:0];
    // bits beyond N are padding; the chunk index is always 0
    /* verilator lint_off UNUSEDSIGNAL */ logic unused; assign unused = ^{ci_q, bi}; /* verilator lint_on UNUSEDSIGNAL */
  end
endmodule

`default_nettype wire
