// IP headers as RoCE frames carry them, built from their fields: the
// deparser's (roce_hdr_build) for every frame it sends, and the GRH a UD
// datagram's receive buffer starts with (ud_grh_insert), byte for byte the
// same header. Byte i of a header in bits 8*i +: 8 (stream lane order).
// Self-contained (the callers pass protocol numbers): packages sort before
// their users in rtl/base/.
`default_nettype none

package ip_hdr_pkg;
  // IPv4, 20 bytes: version 4, IHL 5, no options, the header checksum.
  function automatic logic [159:0] ipv4_header(input logic [7:0] tos, input logic [15:0] total_len,
                                               input logic [15:0] id, input logic [15:0] flags_frag,
                                               input logic [7:0] ttl, input logic [7:0] proto,
                                               input logic [31:0] src, input logic [31:0] dst);
    logic [31:0] acc;
    logic [159:0] h;
    // ones' complement sum of the header's 16-bit words, the checksum word 0
    acc = 32'h4500 + 32'(tos) + 32'(total_len) + 32'(id) + 32'(flags_frag) + {16'b0, ttl, proto}
        + 32'(src[31:16]) + 32'(src[15:0]) + 32'(dst[31:16]) + 32'(dst[15:0]);
    acc = {16'b0, acc[15:0]} + {16'b0, acc[31:16]};
    acc = {16'b0, acc[15:0]} + {16'b0, acc[31:16]};
    h = '0;
    h[8*0 +: 8]   = 8'h45;
    h[8*1 +: 8]   = tos;
    h[8*2 +: 16]  = byte_order_pkg::be16(total_len);
    h[8*4 +: 16]  = byte_order_pkg::be16(id);
    h[8*6 +: 16]  = byte_order_pkg::be16(flags_frag);
    h[8*8 +: 8]   = ttl;
    h[8*9 +: 8]   = proto;
    h[8*10 +: 16] = byte_order_pkg::be16(~acc[15:0]);
    h[8*12 +: 32] = byte_order_pkg::be32(src);
    h[8*16 +: 32] = byte_order_pkg::be32(dst);
    ipv4_header = h;  // (Yosys 0.23 takes no return statement)
  endfunction

  // IPv6 (RoCE v2), or the GRH (RoCE v1: the same 40 bytes, next header 0x1B).
  function automatic logic [319:0] ipv6_header(input logic [7:0] tclass, input logic [19:0] flow_label,
                                               input logic [15:0] payload_len, input logic [7:0] next_hdr,
                                               input logic [7:0] hop_limit,
                                               input logic [127:0] src, input logic [127:0] dst);
    logic [319:0] h;
    h[8*0 +: 32]   = byte_order_pkg::be32({4'h6, tclass, flow_label});
    h[8*4 +: 16]   = byte_order_pkg::be16(payload_len);
    h[8*6 +: 8]    = next_hdr;
    h[8*7 +: 8]    = hop_limit;
    h[8*8 +: 128]  = byte_order_pkg::be128(src);
    h[8*24 +: 128] = byte_order_pkg::be128(dst);
    ipv6_header = h;
  endfunction
endpackage

`default_nettype wire
