// roce_cmd_ffz: the lowest clear bit of a bitmap (find first zero), for the
// command processor's allocators, in short steps rather than one long
// priority chain. LAT 2 (N up to 2048):
//   cycle 1  which 32-bit chunks have a clear bit            -> chunk_free_q
//   cycle 2  the lowest such chunk (of at most 64)           -> ci_q, found_q
//   then     the lowest clear bit of that chunk (combinational from `used`)
// LAT 3 (N up to 65536: 16K QPs and more) puts one step between them:
//   cycle 2  per group of 64 chunks, whether one is free and the lowest
//            free one (at most 32 groups)                    -> grp_*_q
//   cycle 3  the lowest free group, and its lowest chunk     -> ci_q, found_q
// The answer describes the bitmap of LAT cycles earlier: the user must not
// rely on it until `used` has been stable for LAT cycles (and it registers
// the output, one more).
`default_nettype none

module roce_cmd_ffz #(
  parameter int N = 256,
  parameter int LAT = 2    // 2 (N <= 2048) or 3
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
    if (N < 2 || (1 << IW) != N || N > 65536) $error("roce_cmd_ffz: N must be a power of two in 2..65536");
    if (LAT != 2 && LAT != 3) $error("roce_cmd_ffz: LAT must be 2 or 3");
    if (LAT == 2 && N > 2048) $error("roce_cmd_ffz: N above 2048 needs LAT 3");
  end

  // Index of the lowest set bit of v (0 when none): v & -v isolates it (a
  // carry chain), then each index bit ORs the positions that have it set.
  // (A chunk's 32 bits, a group's 64 chunk flags, or the groups' flags.)
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
    padded = ~(32*NCH)'(0);      // bits beyond N read as used
    padded[N-1:0] = used;
    for (int c = 0; c < NCH; c++) chunk[c] = padded[32*c +: 32];
    for (int c = 0; c < NCH; c++) chunk_free[c] = ~&chunk[c];
  end

  always_ff @(posedge clk) chunk_free_q <= chunk_free;

  if (LAT == 2) begin : g_two_steps
    always_comb ci = CIW'(lowest_set(64'(chunk_free_q)));
    always_ff @(posedge clk) begin
      ci_q <= ci;
      found_q <= |chunk_free_q;
    end
  end else begin : g_three_steps
    localparam int NG = (NCH + 63) / 64;            // groups of 64 chunks
    localparam int GW = (NG > 1) ? $clog2(NG) : 1;
    logic [64*NG-1:0] chunk_free_pad;
    logic [NG-1:0]    grp_free_q;
    logic [6*NG-1:0]  grp_low_q;                  // each group's lowest free chunk, 6 bits each
    logic [GW-1:0]    gi;
    always_comb begin
      chunk_free_pad = (64*NG)'(0);                 // chunks beyond NCH are never free
      chunk_free_pad[NCH-1:0] = chunk_free_q;
      gi = GW'(lowest_set(64'(grp_free_q)));
      ci = CIW'({gi, grp_low_q[6*32'(gi) +: 6]});
    end
    always_ff @(posedge clk) begin
      for (int g = 0; g < NG; g++) begin
        grp_free_q[g] <= |chunk_free_pad[64*g +: 64];
        grp_low_q[6*g +: 6] <= lowest_set(chunk_free_pad[64*g +: 64]);
      end
      ci_q <= ci;
      found_q <= |grp_free_q;
    end
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
