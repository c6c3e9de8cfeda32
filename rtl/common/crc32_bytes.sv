// crc32_bytes: advance a CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320)
// over the first `nbytes` bytes of `data` (byte 0 = data[7:0]), combinationally.
//
// The byte count is decomposed into powers of two (DATA_W/8, ..., 2, 1): each
// stage either consumes a fixed-size slice from the low end or passes the state
// through, so the logic is log2(DATA_W/8)+1 fixed XOR networks and 2:1 muxes
// rather than one mux per byte. The caller keeps the running state and applies
// init/final inversion itself (the ICRC uses init ~0, final ~).
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

  initial begin
    if (BYTES < 1 || (1 << $clog2(BYTES)) != BYTES) $error("crc32_bytes: DATA_W/8 must be a power of two");
  end

  // Bit-serial CRC over `nb` bytes, unrolled: pure XOR network for constant nb.
  function automatic logic [31:0] crc_fixed(input logic [31:0] c, input logic [DATA_W-1:0] d, input int nb);
    logic [31:0] r;
    r = c;
    for (int i = 0; i < DATA_W; i++) begin
      if (i < nb * 8) r = (r >> 1) ^ ({32{r[0] ^ d[i]}} & 32'hEDB88320);
    end
    crc_fixed = r;
  endfunction

  logic [31:0]       c_stage [STAGES+1];
  logic [DATA_W-1:0] d_stage [STAGES+1];

  always_comb begin
    c_stage[0] = crc_in;
    d_stage[0] = data;
    for (int s = 0; s < STAGES; s++) begin
      // stage s consumes 2^(STAGES-1-s) bytes when that bit of nbytes is set
      if (nbytes[STAGES-1-s]) begin
        c_stage[s+1] = crc_fixed(c_stage[s], d_stage[s], 1 << (STAGES - 1 - s));
        d_stage[s+1] = d_stage[s] >> (8 * (1 << (STAGES - 1 - s)));
      end else begin
        c_stage[s+1] = c_stage[s];
        d_stage[s+1] = d_stage[s];
      end
    end
    crc_out = c_stage[STAGES];
  end
endmodule

`default_nettype wire
