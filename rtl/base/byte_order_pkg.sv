// Network byte order helpers. Streams carry byte 0 of a frame in tdata[7:0],
// while protocol fields are big-endian: beN(x) returns x with its bytes
// reversed, so that `hdr[8*off +: 8*N] = beN(x)` puts x's most significant
// byte at frame offset `off`.
`default_nettype none

package byte_order_pkg;
  function automatic logic [15:0] be16(input logic [15:0] x);
    be16 = {x[7:0], x[15:8]};
  endfunction

  function automatic logic [23:0] be24(input logic [23:0] x);
    be24 = {x[7:0], x[15:8], x[23:16]};
  endfunction

  function automatic logic [31:0] be32(input logic [31:0] x);
    be32 = {x[7:0], x[15:8], x[23:16], x[31:24]};
  endfunction

  function automatic logic [47:0] be48(input logic [47:0] x);
    be48 = {be16(x[15:0]), be32(x[47:16])};
  endfunction

  function automatic logic [63:0] be64(input logic [63:0] x);
    be64 = {be32(x[31:0]), be32(x[63:32])};
  endfunction

  function automatic logic [127:0] be128(input logic [127:0] x);
    be128 = {be64(x[63:0]), be64(x[127:64])};
  endfunction
endpackage

`default_nettype wire
