// roce_rx_icrc: running invariant-CRC state of the frame being received.
//
//   | Eth (+VLAN) | L3 header ... BTH ... payload pad | ICRC | Eth padding |
//                 ^ l3                                       ^ l3 + rl
//                 |<------- CRC input, masked bytes = 1s ------------>|
//
// The CRC runs over 8 bytes of 0xFF (folded into the seed), then the L3
// packet INCLUDING its ICRC. A CRC over data followed by its own CRC
// (least-significant byte first) always ends in the same register value, so
// the frame is good iff the final state equals ICRC_RESIDUE: no need to find
// and compare the 4 received bytes. Masked bytes (fields routers may change)
// enter the CRC as 1s: IPv4 TOS, TTL, header checksum; IPv6/GRH traffic class
// and flow label (byte 0 keeps its version nibble) and hop limit; the UDP
// checksum; the BTH FECN/BECN byte.
//
// Which bytes take part is decided per beat from the header seen so far
// (hv_* already include the current beat): the L3 start, the mask layout and the L3
// length all come from bytes at or before the beat that first needs them.
//
// Stage A (beat cycle): mask, drop bytes before l3 and after l3 + rl, register.
// Stage B (next cycle): advance the CRC. crc_ok for a frame whose last beat
// arrives in cycle t is valid in cycle t + 2.
`default_nettype none

module roce_rx_icrc #(
  parameter int DATA_W    = 512,
  parameter int LEN_W     = 18
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire logic                   beat_valid,
  input  wire logic                   beat_first,  // first beat of a frame
  input  wire logic [LEN_W-1:0]       beat_pos,    // frame offset of lane 0 (saturating)
  input  wire logic [DATA_W-1:0]      beat_data,   // bytes outside tkeep already zero
  input  wire logic [15:0]            hv_type,     // frame bytes 12..13 } as far as received,
  input  wire logic [63:0]            hv_l3,       // frame bytes 16..23 } this beat included
  output logic                        crc_ok       // ICRC of the frame checks out (2 cycles after its last beat)
);
  localparam int BYTES     = DATA_W / 8;
  localparam int LANE_W    = $clog2(BYTES);
  // Masked bytes all lie in the first HDR_MAX bytes of a frame.
  localparam int HDR_BEATS = (roce_pkg::HDR_MAX + BYTES - 1) / BYTES;
  localparam int L3_PLAIN  = roce_pkg::ETH_SIZE;
  localparam int L3_VLAN   = roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE;
  // CRC-32 register after ~0 and the 8 bytes of 0xFF that stand in for the LRH.
  localparam logic [31:0] ICRC_SEED    = 32'hDEBB20E3;
  // CRC-32 register after any message followed by its own CRC (LSB first).
  localparam logic [31:0] ICRC_RESIDUE = 32'hDEBB20E3;

  initial begin
    if (BYTES < 8) $error("roce_rx_icrc: need DATA_W >= 64");
  end

  // How L3 byte `rel` enters the ICRC for encapsulation `kind`
  // (0 IPv4, 1 IPv6, 2 GRH): 2 = as 0xFF, 1 = low nibble set, 0 = as is.
  function automatic logic [1:0] mask_of(input int rel, input int kind);
    mask_of = 2'd0;
    if (kind == 0) begin
      if (rel == roce_pkg::IPV4_TOS_OFF || rel == roce_pkg::IPV4_TTL_OFF
          || rel == roce_pkg::IPV4_CSUM_OFF || rel == roce_pkg::IPV4_CSUM_OFF + 1
          || rel == roce_pkg::IPV4_SIZE + roce_pkg::UDP_CSUM_OFF
          || rel == roce_pkg::IPV4_SIZE + roce_pkg::UDP_CSUM_OFF + 1
          || rel == roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE + roce_pkg::BTH_FB_RSVD_OFF)
        mask_of = 2'd2;
    end else begin
      if (rel == roce_pkg::IPV6_VER_TC_FL_OFF) mask_of = 2'd1;
      if ((rel > roce_pkg::IPV6_VER_TC_FL_OFF && rel < roce_pkg::IPV6_VER_TC_FL_OFF + 4)
          || rel == roce_pkg::IPV6_HOP_LIMIT_OFF)
        mask_of = 2'd2;
      if (kind == 1 && (rel == roce_pkg::IPV6_SIZE + roce_pkg::UDP_CSUM_OFF
                        || rel == roce_pkg::IPV6_SIZE + roce_pkg::UDP_CSUM_OFF + 1
                        || rel == roce_pkg::IPV6_SIZE + roce_pkg::UDP_SIZE + roce_pkg::BTH_FB_RSVD_OFF))
        mask_of = 2'd2;
      if (kind == 2 && rel == roce_pkg::IPV6_SIZE + roce_pkg::BTH_FB_RSVD_OFF) mask_of = 2'd2;
    end
  endfunction

  // What to OR into header beat k for each (VLAN or not, kind), as one
  // constant table: 8'hFF for a mask_of 2 byte, 8'h0F for a mask_of 1 byte.
  // Entry ((k * 2 + vlan) * 3 + kind) is DATA_W bits wide.
  function automatic logic [HDR_BEATS*6*DATA_W-1:0] mask_ors();
    logic [1:0] m;
    mask_ors = '0;
    for (int k = 0; k < HDR_BEATS; k++)
      for (int v = 0; v < 2; v++)
        for (int kind = 0; kind < 3; kind++)
          for (int j = 0; j < BYTES; j++) begin
            m = mask_of(k * BYTES + j - (v == 1 ? L3_VLAN : L3_PLAIN), kind);
            mask_ors[((k * 2 + v) * 3 + kind) * DATA_W + 8 * j +: 8] = m == 2'd2 ? 8'hFF : m == 2'd1 ? 8'h0F : 8'h00;
          end
  endfunction
  localparam logic [HDR_BEATS*6*DATA_W-1:0] MASK_ORS = mask_ors();

  function automatic logic [15:0] be16(input logic [15:0] lanes);
    be16 = {lanes[7:0], lanes[15:8]};
  endfunction

  // Two bytes at frame offset off (16..22) from hv_l3, in lane order.
  function automatic logic [15:0] hb_of(input logic [63:0] l3b, input int off);
    hb_of = l3b[8*(off - 16) +: 16];
  endfunction

  logic [15:0]       et0, et;
  logic              vlan, t4, t6, t1;
  logic [LEN_W:0]    l3, rl, rl_end, e, pos, pos_end, lo, hi;
  logic [1:0]        kind;  // 0 IPv4, 1 IPv6, 2 RoCEv1 (GRH), 3 none of them
  logic [DATA_W-1:0] masked, shifted;

  logic              s1_valid_q;
  logic              s1_first_q;
  logic [DATA_W-1:0] s1_data_q;
  logic [LANE_W:0]   s1_n_q, n;
  logic [31:0]       crc_q, crc_next;

  always_comb begin
    et0  = be16(hv_type);
    vlan = et0 == 16'(roce_pkg::ETHERTYPE_VLAN);
    et   = vlan ? be16(hb_of(hv_l3, roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_SIZE)) : et0;
    t4   = et == 16'(roce_pkg::ETHERTYPE_IPV4);
    t6   = et == 16'(roce_pkg::ETHERTYPE_IPV6);
    t1   = et == 16'(roce_pkg::ETHERTYPE_ROCEV1);
    l3   = vlan ? (LEN_W+1)'(L3_VLAN) : (LEN_W+1)'(L3_PLAIN);

    // L3 length and where its field ends; before that field has arrived the
    // CRC simply runs to the end of the beat.
    if (t4) begin
      rl     = (LEN_W+1)'(be16(vlan ? hb_of(hv_l3, L3_VLAN + roce_pkg::IPV4_TOTAL_LEN_OFF)
                                    : hb_of(hv_l3, L3_PLAIN + roce_pkg::IPV4_TOTAL_LEN_OFF)));
      rl_end = l3 + (LEN_W+1)'(roce_pkg::IPV4_TOTAL_LEN_OFF + 2);
    end else begin
      rl     = (LEN_W+1)'(be16(vlan ? hb_of(hv_l3, L3_VLAN + roce_pkg::IPV6_PAYLOAD_LEN_OFF)
                                    : hb_of(hv_l3, L3_PLAIN + roce_pkg::IPV6_PAYLOAD_LEN_OFF)))
               + (LEN_W+1)'(roce_pkg::IPV6_SIZE);
      rl_end = l3 + (LEN_W+1)'(roce_pkg::IPV6_PAYLOAD_LEN_OFF + 2);
    end
    pos     = {1'b0, beat_pos};
    pos_end = pos + (LEN_W+1)'(BYTES);
    e       = (pos_end >= rl_end) ? l3 + rl : '1;
    lo      = (pos > l3) ? pos : l3;
    hi      = (pos_end < e) ? pos_end : e;
    n       = (hi > lo) ? (LANE_W+1)'(hi - lo) : '0;

    // Masks: only the first HDR_BEATS beats can hold masked bytes.
    kind   = t4 ? 2'd0 : t6 ? 2'd1 : t1 ? 2'd2 : 2'd3;
    masked = beat_data;
    for (int k = 0; k < HDR_BEATS; k++)
      if (beat_pos == LEN_W'(k * BYTES) && kind != 2'd3)
        masked = beat_data | MASK_ORS[((k * 2 + (vlan ? 1 : 0)) * 3 + 32'(kind)) * DATA_W +: DATA_W];

    // crc32_bytes takes the first n bytes: move the L3 start down to lane 0.
    if (!vlan && beat_pos == LEN_W'((L3_PLAIN / BYTES) * BYTES))
      shifted = masked >> (8 * (L3_PLAIN % BYTES));
    else if (vlan && beat_pos == LEN_W'((L3_VLAN / BYTES) * BYTES))
      shifted = masked >> (8 * (L3_VLAN % BYTES));
    else
      shifted = masked;
  end

  crc32_bytes #(.DATA_W(DATA_W)) u_crc (
    .crc_in (s1_first_q ? ICRC_SEED : crc_q),
    .data   (s1_data_q),
    .nbytes (s1_n_q),
    .crc_out(crc_next)
  );

  always_ff @(posedge clk) begin
    s1_first_q <= beat_first;
    s1_data_q  <= shifted;
    s1_n_q     <= n;
    if (s1_valid_q) crc_q <= crc_next;
    if (rst) s1_valid_q <= 1'b0;
    else     s1_valid_q <= beat_valid;
  end

  assign crc_ok = crc_q == ICRC_RESIDUE;
endmodule

`default_nettype wire
