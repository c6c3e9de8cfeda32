// crc32_bytes: advance a CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320)
// over the first `nbytes` bytes of `data` (byte 0 = data[7:0]), combinationally.
//
// The byte count is decomposed into powers of two (DATA_W/8, ..., 2, 1): each
// stage either consumes a fixed-size slice from the low end or passes the state
// through, so the logic is log2(DATA_W/8)+1 fixed XOR networks and 2:1 muxes
// rather than one mux per byte. The caller keeps the running state and applies
// init/final inversion itself (the ICRC uses init ~0, final ~).
//
// A CRC over a fixed number of bits is linear: each output bit is the XOR of
// a fixed set of state and data bits. Each stage's sets are computed once, at
// elaboration, by running the bit-serial CRC on masks instead of bits
// (crc_matrix); the stage is then 32 AND-and-XOR-reduce terms. Written as a
// bit-serial loop instead, synthesis saw a 512-deep XOR chain (a ~57 ns
// path before retiming) and Verilator ran the loop on every evaluation.
`default_nettype none

module crc32_bytes #(
  parameter int DATA_W = 512
) (
  input  wire logic [31:0]              crc_in,
  input  wire logic [DATA_W-1:0]        data,
  input  wire logic [$clog2(DATA_W/8):0] nbytes,   // 0..DATA_W/8
  output logic [31:0]                   crc_out
);
  localparam int BYTES = DATA_W / 8;
  localparam int STAGES = $clog2(BYTES) + 1;
  localparam logic [31:0] POLY = 32'hEDB88320;
  // Row stride of a matrix: columns 0..31 are crc_in bits, 32+i is data bit i.
  localparam int W = 32 + DATA_W;

  initial begin
    if (BYTES < 1 || (1 << $clog2(BYTES)) != BYTES) $error("crc32_bytes: DATA_W/8 must be a power of two");
  end

  // Row j (bits [j*W +: W]): which inputs crc_out[j] XORs after nbits data bits.
  function automatic logic [32*W-1:0] crc_matrix(input int nbits);
    logic [32*W-1:0] m;
    logic [W-1:0] fb;
    /* verilator lint_off WIDTHCONCAT */  // '0 over 17 kbit is meant
    m = '0;
    /* verilator lint_on WIDTHCONCAT */
    for (int j = 0; j < 32; j++) m[j*W+j] = 1'b1;
    for (int i = 0; i < DATA_W; i++) begin
      if (i < nbits) begin
        // r = (r >> 1) ^ ({32{r[0] ^ d[i]}} & POLY), on masks
        fb = m[0+:W];
        fb[32+i] = ~fb[32+i];
        for (int j = 0; j < 31; j++) m[j*W+:W] = m[(j+1)*W+:W] ^ (POLY[j] ? fb : '0);
        m[31*W+:W] = POLY[31] ? fb : '0;
      end
    end
    crc_matrix = m;
  endfunction

  // The stage chain, flattened: stage s reads slice s and drives slice s+1.
  // (split_var: Verilator would otherwise see one vector feeding itself.)
  logic [(STAGES+1)*32-1:0]     c_chain /*verilator split_var*/;
  // Stage s reads only the low bytes of its d slice (the ones later stages
  // can still consume): the upper bits of later slices are never read.
  /* verilator lint_off UNUSEDSIGNAL */
  logic [STAGES*DATA_W-1:0]     d_chain /*verilator split_var*/;
  /* verilator lint_on UNUSEDSIGNAL */
  assign c_chain[0+:32] = crc_in;
  assign d_chain[0+:DATA_W] = data;

  for (genvar s = 0; s < STAGES; s++) begin : g_stage
    localparam int NB = 1 << (STAGES - 1 - s);  // bytes this stage consumes when nbytes[STAGES-1-s]
    localparam int WS = 32 + 8 * NB;            // columns that can be non-zero
    localparam logic [32*W-1:0] M = crc_matrix(8 * NB);
    logic [WS-1:0] in_bits;
    logic [31:0]   adv;
    always_comb begin
      in_bits = {d_chain[s*DATA_W+:8*NB], c_chain[s*32+:32]};
      for (int j = 0; j < 32; j++) adv[j] = ^(in_bits & M[j*W+:WS]);
    end
    assign c_chain[(s+1)*32+:32] = nbytes[STAGES-1-s] ? adv : c_chain[s*32+:32];
    if (s < STAGES - 1) begin : g_rest
      assign d_chain[(s+1)*DATA_W+:DATA_W] =
          nbytes[STAGES-1-s] ? d_chain[s*DATA_W+:DATA_W] >> (8 * NB) : d_chain[s*DATA_W+:DATA_W];
    end
  end

  assign crc_out = c_chain[STAGES*32+:32];
endmodule

`default_nettype wire
