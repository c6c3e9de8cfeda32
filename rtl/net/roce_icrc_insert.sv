// roce_icrc_insert: compute the ICRC over a frame's beats and append it, then
// zero-pad the frame to the 60-byte Ethernet minimum (no FCS here).
//
//   in :  | Eth [VLAN] | IPv4/IPv6/GRH ... payload | pad |
//   out:  | Eth [VLAN] | IPv4/IPv6/GRH ... payload | pad | ICRC (LSB first) | [zeros to 60]
//
//   ICRC = CRC-32 over 8 x 0xFF (the LRH stand-in, folded into ICRC_SEED) and
//   the L3 packet with the variant fields set to 1s:
//     IPv4: TOS(1) TTL(8) checksum(10,11) | UDP checksum(26,27) | BTH byte 4 (32)
//     IPv6: TC+flow label(0 low nibble,1,2,3) hop limit(7) | UDP checksum(46,47) | BTH byte 4 (52)
//     GRH : TC+flow label(0 low nibble,1,2,3) hop limit(7) | BTH byte 4 (44)
//   (offsets from the L3 start). The masks are constants per encapsulation.
//
// One register stage: the beat in the register is sent once its CRC is known
// (the same cycle); a last beat whose ICRC does not fit sends an extra beat.
`default_nettype none

module roce_icrc_insert #(
  parameter int DATA_W = 512
) (
  input  wire logic                        clk,
  input  wire logic                        rst,
  input  wire logic [DATA_W-1:0]           s_tdata,
  input  wire logic [$clog2(DATA_W/8):0]   s_nbytes,
  input  wire logic                        s_tlast,
  input  wire logic [2:0]                  s_side,    // {vlan, l3}
  input  wire logic                        s_tvalid,
  output logic                             s_tready,
  output logic [DATA_W-1:0]                m_axis_tdata,
  output logic [DATA_W/8-1:0]              m_axis_tkeep,
  output logic                             m_axis_tlast,
  output logic                             m_axis_tvalid,
  input  wire logic                        m_axis_tready
);
  localparam int DWB = DATA_W / 8;
  localparam int NW = $clog2(DWB) + 1;
  localparam int MB = roce_pkg::HDR_MAX;          // masks cover the first MB frame bytes
  localparam int MW = MB + DWB;                   // plus one beat of zeros for the part-select
  localparam int TAIL = 8;                        // ICRC (4) + Ethernet padding (at most 6 here)
  localparam int L3  = roce_pkg::ETH_SIZE;                       // L3 offset, untagged
  localparam int L3Q = roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE;  // L3 offset, 802.1Q-tagged

  // Byte masks over the frame, per encapsulation: `full` bytes become 0xFF,
  // `nib` bytes get their low nibble set (the IPv6/GRH traffic class half).
  function automatic logic [MW-1:0] mask_vec(input logic [1:0] l3, input int l3_off, input logic nib);
    int r;
    for (int i = 0; i < MW; i++) begin
      r = i - l3_off;
      mask_vec[i] = 1'b0;
      if (nib) begin
        if (l3 != roce_pkg::L3_IPV4 && r == 0) mask_vec[i] = 1'b1;
      end else if (l3 == roce_pkg::L3_IPV4) begin
        if (r == (roce_pkg::IPV4_TOS_OFF) || r == (roce_pkg::IPV4_TTL_OFF) ||
            r == (roce_pkg::IPV4_CSUM_OFF) || r == (roce_pkg::IPV4_CSUM_OFF) + 1 ||
            r == (roce_pkg::IPV4_SIZE + roce_pkg::UDP_CSUM_OFF) ||
            r == (roce_pkg::IPV4_SIZE + roce_pkg::UDP_CSUM_OFF) + 1 ||
            r == (roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE + roce_pkg::BTH_FB_RSVD_OFF))
          mask_vec[i] = 1'b1;
      end else if (l3 == roce_pkg::L3_IPV6) begin
        if (r == 1 || r == 2 || r == 3 || r == (roce_pkg::IPV6_HOP_LIMIT_OFF) ||
            r == (roce_pkg::IPV6_SIZE + roce_pkg::UDP_CSUM_OFF) ||
            r == (roce_pkg::IPV6_SIZE + roce_pkg::UDP_CSUM_OFF) + 1 ||
            r == (roce_pkg::IPV6_SIZE + roce_pkg::UDP_SIZE + roce_pkg::BTH_FB_RSVD_OFF))
          mask_vec[i] = 1'b1;
      end else begin
        if (r == 1 || r == 2 || r == 3 || r == (roce_pkg::IPV6_HOP_LIMIT_OFF) ||
            r == (roce_pkg::IPV6_SIZE + roce_pkg::BTH_FB_RSVD_OFF))
          mask_vec[i] = 1'b1;
      end
      if (i >= MB) mask_vec[i] = 1'b0;
    end
  endfunction

  localparam logic [MW-1:0] FULL_V4    = mask_vec(roce_pkg::L3_IPV4, L3, 1'b0);
  localparam logic [MW-1:0] FULL_V6    = mask_vec(roce_pkg::L3_IPV6, L3, 1'b0);
  localparam logic [MW-1:0] FULL_V1    = mask_vec(roce_pkg::L3_ROCEV1, L3, 1'b0);
  localparam logic [MW-1:0] FULL_V4_Q  = mask_vec(roce_pkg::L3_IPV4, L3Q, 1'b0);
  localparam logic [MW-1:0] FULL_V6_Q  = mask_vec(roce_pkg::L3_IPV6, L3Q, 1'b0);
  localparam logic [MW-1:0] FULL_V1_Q  = mask_vec(roce_pkg::L3_ROCEV1, L3Q, 1'b0);
  localparam logic [MW-1:0] NIB_6      = mask_vec(roce_pkg::L3_IPV6, L3, 1'b1);
  localparam logic [MW-1:0] NIB_6_Q    = mask_vec(roce_pkg::L3_IPV6, L3Q, 1'b1);

  // ---- input register
  logic              r_valid_q, r_valid_d;
  logic [DATA_W-1:0] r_data_q, r_data_d;
  logic [NW-1:0]     r_n_q, r_n_d;
  logic              r_last_q, r_last_d;
  logic [2:0]        r_side_q, r_side_d;
  logic [15:0]       r_base_q, r_base_d;    // frame offset of the beat in the register
  logic [15:0]       in_base_q, in_base_d;  // frame offset of the next input beat
  logic [31:0]       crc_q, crc_d;          // CRC state after the beats already sent
  logic              x_valid_q, x_valid_d;  // extra tail beat pending
  logic [DATA_W-1:0] x_data_q, x_data_d;
  logic [NW-1:0]     x_n_q, x_n_d;

  logic [MW-1:0]     full_vec, nib_vec;
  logic [DWB-1:0]    full_m, nib_m;
  logic [$clog2(MW)-1:0] mbase;      // r_base_q within the mask vectors (checked < MB first)
  logic [DATA_W-1:0] masked, shifted;
  logic [15:0]       l3_off, skip;
  logic [NW-1:0]     n_incl;
  logic [31:0]       crc_in, crc_beat, icrc;
  logic [15:0]       frame_len, tail_len, tot;
  logic [8*TAIL-1:0] tail;
  logic [DATA_W+8*TAIL-1:0] with_tail;
  logic              r_pop, need_extra;

  crc32_bytes #(.DATA_W(DATA_W)) u_crc (
    .crc_in(crc_in), .data(shifted), .nbytes(n_incl), .crc_out(crc_beat));

  function automatic logic [DWB-1:0] keep_of(input logic [15:0] n);
    for (int i = 0; i < DWB; i++) keep_of[i] = (i < (n));
  endfunction

  always_comb begin
    // masks for this beat's lanes
    unique case (r_side_q)
      3'b0_01: begin full_vec = FULL_V6;   nib_vec = NIB_6;   end
      3'b0_10: begin full_vec = FULL_V1;   nib_vec = NIB_6;   end
      3'b1_00: begin full_vec = FULL_V4_Q; nib_vec = '0;      end
      3'b1_01: begin full_vec = FULL_V6_Q; nib_vec = NIB_6_Q; end
      3'b1_10: begin full_vec = FULL_V1_Q; nib_vec = NIB_6_Q; end
      default: begin full_vec = FULL_V4;   nib_vec = '0;      end
    endcase
    full_m = '0; nib_m = '0;
    mbase = $clog2(MW)'(r_base_q);
    if (r_base_q < 16'(MB)) begin
      full_m = full_vec[mbase +: DWB];
      nib_m  = nib_vec[mbase +: DWB];
    end
    for (int i = 0; i < DWB; i++) begin
      masked[8*i +: 8] = full_m[i] ? 8'hFF : (r_data_q[8*i +: 8] | {4'h0, {4{nib_m[i]}}});
    end
    // bytes before the L3 header are not covered
    l3_off = r_side_q[2] ? 16'(L3Q) : 16'(L3);
    skip = (r_base_q >= l3_off) ? 16'd0 :
           ((l3_off - r_base_q) > 16'(DWB)) ? 16'(DWB) : (l3_off - r_base_q);
    shifted = masked >> (8 * (skip));
    n_incl = (16'(r_n_q) > skip) ? NW'(16'(r_n_q) - skip) : '0;
    crc_in = (r_base_q == 16'd0) ? roce_pkg::ICRC_SEED : crc_q;
    icrc = ~crc_beat;

    // tail of a last beat: ICRC, then zeros up to the minimum frame
    frame_len = r_base_q + 16'(r_n_q);
    tail_len = (frame_len + 16'd4 < 16'(roce_pkg::MIN_FRAME)) ? 16'(roce_pkg::MIN_FRAME) - frame_len : 16'd4;
    tail = {32'h0, icrc};
    with_tail = {{8*TAIL{1'b0}}, r_data_q} | ({{DATA_W{1'b0}}, tail} << (8 * (r_n_q)));
    tot = 16'(r_n_q) + (r_last_q ? tail_len : 16'd0);
    need_extra = r_last_q && (tot > 16'(DWB));

    // output: a pending extra beat goes first
    if (x_valid_q) begin
      m_axis_tvalid = 1'b1;
      m_axis_tdata = x_data_q;
      m_axis_tkeep = keep_of(16'(x_n_q));
      m_axis_tlast = 1'b1;
    end else begin
      m_axis_tvalid = r_valid_q;
      m_axis_tdata = r_last_q ? with_tail[DATA_W-1:0] : r_data_q;
      m_axis_tkeep = keep_of(need_extra ? 16'(DWB) : tot);
      m_axis_tlast = r_last_q && !need_extra;
    end
  end

  // backward path and next state, apart from the forward outputs above: they
  // depend on m_axis_tready, the outputs never do
  always_comb begin
    r_pop = r_valid_q && !x_valid_q && m_axis_tready;
    s_tready = !r_valid_q || r_pop;

    r_valid_d = r_valid_q; r_data_d = r_data_q; r_n_d = r_n_q; r_last_d = r_last_q; r_side_d = r_side_q;
    r_base_d = r_base_q; in_base_d = in_base_q; crc_d = crc_q;
    x_valid_d = x_valid_q; x_data_d = x_data_q; x_n_d = x_n_q;

    if (x_valid_q && m_axis_tready) x_valid_d = 1'b0;
    if (r_pop) begin
      r_valid_d = 1'b0;
      crc_d = crc_beat;
      if (need_extra) begin
        x_valid_d = 1'b1;
        x_data_d = DATA_W'(with_tail >> DATA_W);
        x_n_d = NW'(tot - 16'(DWB));
      end
    end
    if (s_tvalid && s_tready) begin
      r_valid_d = 1'b1;
      r_data_d = s_tdata;
      r_n_d = s_nbytes;
      r_last_d = s_tlast;
      r_side_d = s_side;
      r_base_d = in_base_q;
      in_base_d = s_tlast ? 16'd0 : in_base_q + 16'(DWB);
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      r_valid_q <= 1'b0; r_data_q <= '0; r_n_q <= '0; r_last_q <= 1'b0; r_side_q <= '0;
      r_base_q <= '0; in_base_q <= '0; crc_q <= '0; x_valid_q <= 1'b0; x_data_q <= '0; x_n_q <= '0;
    end else begin
      r_valid_q <= r_valid_d; r_data_q <= r_data_d; r_n_q <= r_n_d; r_last_q <= r_last_d; r_side_q <= r_side_d;
      r_base_q <= r_base_d; in_base_q <= in_base_d; crc_q <= crc_d;
      x_valid_q <= x_valid_d; x_data_q <= x_data_d; x_n_q <= x_n_d;
    end
  end
endmodule

`default_nettype wire
