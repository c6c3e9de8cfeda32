// roce_rx_extract: classify one received frame from its first HDR_BYTES bytes
// and its length, check its headers, and fill the RX descriptor. Purely
// combinational; the ICRC verdict is added by the caller.
//
//   byte 0        12    14 (18 with 802.1Q)
//   | dst | src | type | [TPID=8100 TCI type] | L3 ...
//
//   L3 = IPv4 (0x0800):  | IPv4 20 (0x45, proto 17) | UDP 8 (dport 4791) | BTH 12 | ext | payload | pad | ICRC 4 |
//   L3 = IPv6 (0x86DD):  | IPv6 40 (next hdr 17)    | UDP 8 (dport 4791) | BTH 12 | ext | payload | pad | ICRC 4 |
//   L3 = GRH  (0x8915):  | GRH 40 (next hdr 0x1B)   |                      BTH 12 | ext | payload | pad | ICRC 4 |
//                        |<--------------------------- rl: IP / GRH length ----------------------------------->|
//                                                   |<------------------- tl ---------------------------------->|
//   BTH: | opcode | SE M pad tver | pkey | F B rsvd | dst QP (3) | A rsvd | PSN (3) |
//   ext: the headers the opcode carries, in this order:
//        DETH 8 | RETH 16 | AtomicETH 28 | AETH 4 | AtomicAckETH 8 | ImmDt 4 | IETH 4 | CNP rsvd 16
//
// Bytes at or beyond frame_len hold stale data from earlier frames: every
// byte read here is either guarded by a length test that comes first in the
// classification, or only matters once an earlier check has proved the frame
// long enough (the checks are applied strictly in order).
`default_nettype none

module roce_rx_extract #(
  parameter int HDR_BYTES = 106,  // Eth + VLAN + L3_BYTES
  parameter int LEN_W     = 18
) (
  input  wire logic [8*HDR_BYTES-1:0] hdr,        // frame bytes 0.., byte i at [8i +: 8]
  input  wire logic [LEN_W-1:0]       frame_len,  // saturating
  input  wire logic                   roce_en,
  input  wire logic                   mac_err,    // tuser of the last beat
  input  wire logic                   ovf,        // the frame did not fit in the FIFO
  output logic                        bypass,     // not a RoCE frame
  output logic [3:0]                  drop,       // first failing check except ICRC (roce_pkg::DROP_*)
  output logic [6:0]                  pay_start,  // frame offset of the first payload byte
  output roce_pkg::roce_rx_hdr_t      desc        // valid when the frame is accepted
);
  localparam int L3_BYTES  = 88;   // furthest L3 byte read: GRH/IPv6 + UDP + BTH + 28 bytes of ext
  localparam int BTH_BYTES = roce_pkg::BTH_SIZE + roce_pkg::ATOMICETH_SIZE;  // BTH + largest ext set
  localparam int EXT_BYTES = roce_pkg::ATOMICETH_SIZE;

  initial begin
    if (HDR_BYTES < 18 + L3_BYTES) $error("roce_rx_extract: HDR_BYTES too small");
  end

  // n bytes in wire order (first byte most significant), from a lane-ordered vector.
  function automatic logic [127:0] be(input logic [127:0] lanes, input int n);
    be = '0;
    for (int i = 0; i < 16; i++) begin
      if (i < n) be[8*(n-1-i) +: 8] = lanes[8*i +: 8];
    end
  endfunction

  logic [15:0] et0, et;
  logic        eth_ok, vlan, t4, t6, t1, v4, v6, v1, is_roce;
  logic [LEN_W:0] l3, need4, need6;
  logic [8*L3_BYTES-1:0]  l3v;   // L3 bytes
  logic [8*BTH_BYTES-1:0] bthv;  // BTH and the bytes after it
  logic [8*EXT_BYTES-1:0] x0, x1, x2;
  logic [8*20-1:0] x3;
  logic [8*16-1:0] x4;
  logic [8*8-1:0]  x5;
  logic [8*4-1:0]  x6;
  logic [19:0] csum, rl, bth_rel, ip_hdr, udp_len, tl, pwp, pay;
  logic [16:0] csum1;
  logic [15:0] csum2;
  roce_pkg::opinfo_t opi;
  logic [1:0]  pad;
  logic [7:0]  flags;
  logic        unused_ackreq;   // the opcode table's AckReq column is for the requester
  logic        c_trunc, c_csum, c_iphdr, c_len5, c_tver, c_len8, c_len9, c_pad, c_long;

  always_comb begin
    // ---- classification
    et0    = 16'(be(128'(hdr[8*roce_pkg::ETH_ETHERTYPE_OFF +: 16]), 2));
    vlan   = frame_len >= LEN_W'(roce_pkg::ETH_SIZE) && et0 == 16'(roce_pkg::ETHERTYPE_VLAN);
    et     = vlan ? 16'(be(128'(hdr[8*(roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_SIZE) +: 16]), 2)) : et0;
    l3     = vlan ? (LEN_W+1)'(roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE) : (LEN_W+1)'(roce_pkg::ETH_SIZE);
    eth_ok = frame_len >= LEN_W'(roce_pkg::ETH_SIZE) && (!vlan || {1'b0, frame_len} >= l3);
    l3v    = vlan ? hdr[8*(roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE) +: 8*L3_BYTES]
                  : hdr[8*roce_pkg::ETH_SIZE +: 8*L3_BYTES];
    t4 = et == 16'(roce_pkg::ETHERTYPE_IPV4);
    t6 = et == 16'(roce_pkg::ETHERTYPE_IPV6);
    t1 = et == 16'(roce_pkg::ETHERTYPE_ROCEV1);

    need4 = l3 + (LEN_W+1)'(roce_pkg::IPV4_SIZE + roce_pkg::UDP_DPORT_OFF + 2);
    v4 = eth_ok && t4 && {1'b0, frame_len} >= need4
         && l3v[8*roce_pkg::IPV4_VER_IHL_OFF +: 8] == 8'h45                 // version 4, no options
         && l3v[8*roce_pkg::IPV4_PROTO_OFF +: 8] == 8'(roce_pkg::IP_PROTO_UDP)
         && (16'(be(128'(l3v[8*roce_pkg::IPV4_FLAGS_FRAG_OFF +: 16]), 2)) & 16'h3FFF) == 16'h0  // MF, offset: not a fragment
         && 16'(be(128'(l3v[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_DPORT_OFF) +: 16]), 2))
            == 16'(roce_pkg::UDP_PORT_ROCEV2);
    need6 = l3 + (LEN_W+1)'(roce_pkg::IPV6_SIZE + roce_pkg::UDP_DPORT_OFF + 2);
    v6 = eth_ok && t6 && {1'b0, frame_len} >= need6
         && l3v[8*roce_pkg::IPV6_VER_TC_FL_OFF + 4 +: 4] == 4'd6
         && l3v[8*roce_pkg::IPV6_NEXT_HDR_OFF +: 8] == 8'(roce_pkg::IP_PROTO_UDP)
         && 16'(be(128'(l3v[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_DPORT_OFF) +: 16]), 2))
            == 16'(roce_pkg::UDP_PORT_ROCEV2);
    v1 = eth_ok && t1;
    is_roce = roce_en && (v4 || v6 || v1);
    bypass  = !is_roce;

    // ---- lengths
    ip_hdr  = t4 ? 20'(roce_pkg::IPV4_SIZE) : 20'(roce_pkg::IPV6_SIZE);
    bth_rel = t1 ? 20'(roce_pkg::IPV6_SIZE) : ip_hdr + 20'(roce_pkg::UDP_SIZE);
    rl      = t4 ? 20'(be(128'(l3v[8*roce_pkg::IPV4_TOTAL_LEN_OFF +: 16]), 2))
                 : 20'(be(128'(l3v[8*roce_pkg::IPV6_PAYLOAD_LEN_OFF +: 16]), 2)) + 20'(roce_pkg::IPV6_SIZE);
    udp_len = t4 ? 20'(be(128'(l3v[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_LEN_OFF) +: 16]), 2))
                 : 20'(be(128'(l3v[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_LEN_OFF) +: 16]), 2));
    tl      = rl - bth_rel;   // wraps when negative: only read after the rl test below

    bthv = t4 ? l3v[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE) +: 8*BTH_BYTES]
         : t6 ? l3v[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_SIZE) +: 8*BTH_BYTES]
              : l3v[8*roce_pkg::IPV6_SIZE +: 8*BTH_BYTES];
    opi   = roce_pkg::opcode_info(bthv[8*roce_pkg::BTH_OPCODE_OFF +: 8]);
    unused_ackreq = opi.ackreq;
    flags = bthv[8*roce_pkg::BTH_FLAGS_OFF +: 8];
    pad   = flags[5:4];
    pwp   = tl - 20'(roce_pkg::BTH_SIZE + roce_pkg::ICRC_SIZE) - 20'(opi.ext_bytes);
    pay   = pwp - 20'(pad);
    pay_start = 7'(l3 + (LEN_W+1)'(bth_rel) + (LEN_W+1)'(roce_pkg::BTH_SIZE) + (LEN_W+1)'(opi.ext_bytes));

    // IPv4 header checksum: one's-complement sum of the ten header words.
    csum = '0;
    for (int i = 0; i < roce_pkg::IPV4_SIZE / 2; i++) csum = csum + 20'(be(128'(l3v[16*i +: 16]), 2));
    csum1 = 17'(csum[15:0]) + 17'(csum[19:16]);
    csum2 = csum1[15:0] + 16'(csum1[16]);

    // ---- checks, in the order of the drop priority
    c_trunc = {1'b0, frame_len} < l3 + (LEN_W+1)'(rl)
           || {1'b0, frame_len} < l3 + (LEN_W+1)'(bth_rel) + (LEN_W+1)'(roce_pkg::BTH_SIZE);
    c_csum  = t4 && csum2 != 16'hFFFF;
    c_iphdr = t1 && (l3v[8*roce_pkg::IPV6_VER_TC_FL_OFF + 4 +: 4] != 4'd6
                     || l3v[8*roce_pkg::IPV6_NEXT_HDR_OFF +: 8] != 8'(roce_pkg::GRH_NXTHDR_IBA));
    c_len5  = (!t1 && udp_len != rl - ip_hdr)
           || rl < bth_rel + 20'(roce_pkg::BTH_SIZE + roce_pkg::ICRC_SIZE)   // tl < 16
           || tl[1:0] != 2'b00;
    c_tver  = flags[3:0] != 4'(roce_pkg::BTH_TVER);
    c_len8  = tl < 20'(roce_pkg::BTH_SIZE + roce_pkg::ICRC_SIZE) + 20'(opi.ext_bytes);
    c_len9  = !opi.payload && pwp != '0;
    c_pad   = (pad != 2'd0 && (opi.seg == roce_pkg::SEG_FIRST || opi.seg == roce_pkg::SEG_MIDDLE))
           || 20'(pad) > pwp;
    c_long  = pay > 20'(roce_pkg::MAX_PAYLOAD) || ovf;

    if      (mac_err)    drop = roce_pkg::DROP_MAC_ERR;
    else if (c_trunc)    drop = roce_pkg::DROP_TRUNCATED;
    else if (c_csum)     drop = roce_pkg::DROP_IP_CSUM;
    else if (c_iphdr)    drop = roce_pkg::DROP_IP_HDR;
    else if (c_len5)     drop = roce_pkg::DROP_LEN;
    else if (c_tver)     drop = roce_pkg::DROP_TVER;
    else if (!opi.valid) drop = roce_pkg::DROP_OPCODE;
    else if (c_len8)     drop = roce_pkg::DROP_LEN;
    else if (c_len9)     drop = roce_pkg::DROP_LEN;
    else if (c_pad)      drop = roce_pkg::DROP_PAD;
    else if (c_long)     drop = roce_pkg::DROP_TOO_LONG;
    else                 drop = roce_pkg::DROP_NONE;

    // ---- extended headers: each one starts where the previous present one ends
    x0 = bthv[8*roce_pkg::BTH_SIZE +: 8*EXT_BYTES];
    x1 = opi.ext[roce_pkg::EXT_DETH] ? x0 >> (8 * roce_pkg::DETH_SIZE) : x0;
    x2 = opi.ext[roce_pkg::EXT_RETH] ? x1 >> (8 * roce_pkg::RETH_SIZE) : x1;
    x3 = opi.ext[roce_pkg::EXT_ATOMICETH] ? '0 : x2[8*20-1:0];   // AtomicETH fills all 28 bytes
    x4 = opi.ext[roce_pkg::EXT_AETH] ? x3[8*roce_pkg::AETH_SIZE +: 8*16] : x3[8*16-1:0];
    x5 = opi.ext[roce_pkg::EXT_ATOMICACKETH] ? x4[8*roce_pkg::ATOMICACKETH_SIZE +: 8*8] : x4[8*8-1:0];
    x6 = opi.ext[roce_pkg::EXT_IMMDT] ? x5[8*roce_pkg::IMMDT_SIZE +: 8*4] : x5[8*4-1:0];

    // ---- descriptor: fields the frame does not carry stay 0
    desc = '0;
    desc.l3         = t4 ? roce_pkg::L3_IPV4 : t6 ? roce_pkg::L3_IPV6 : roce_pkg::L3_ROCEV1;
    desc.vlan_valid = vlan;
    if (vlan) begin
      desc.vlan_pcp = hdr[8*(roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_TCI_OFF) + 5 +: 3];
      desc.vlan_vid = 12'(be(128'(hdr[8*(roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_TCI_OFF) +: 16]), 2));
    end
    desc.dst_mac = 48'(be(128'(hdr[8*roce_pkg::ETH_DST_MAC_OFF +: 48]), 6));
    desc.src_mac = 48'(be(128'(hdr[8*roce_pkg::ETH_SRC_MAC_OFF +: 48]), 6));
    if (t4) begin
      desc.src_ip = {80'h0, 16'hFFFF, 32'(be(128'(l3v[8*roce_pkg::IPV4_SRC_OFF +: 32]), 4))};
      desc.dst_ip = {80'h0, 16'hFFFF, 32'(be(128'(l3v[8*roce_pkg::IPV4_DST_OFF +: 32]), 4))};
      desc.tclass = l3v[8*roce_pkg::IPV4_TOS_OFF +: 8];
      desc.ttl    = l3v[8*roce_pkg::IPV4_TTL_OFF +: 8];
      desc.ip_id  = 16'(be(128'(l3v[8*roce_pkg::IPV4_ID_OFF +: 16]), 2));
      desc.ip_flags = l3v[8*roce_pkg::IPV4_FLAGS_FRAG_OFF + 5 +: 3];  // the first byte's top 3 bits
      desc.udp_sport = 16'(be(128'(l3v[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_SPORT_OFF) +: 16]), 2));
    end else begin
      // version(4) tclass(8) flow label(20)
      desc.tclass     = 8'(be(128'(l3v[8*roce_pkg::IPV6_VER_TC_FL_OFF +: 16]), 2) >> 4);
      desc.flow_label = 20'(be(128'(l3v[8*roce_pkg::IPV6_VER_TC_FL_OFF +: 32]), 4));
      desc.ttl        = l3v[8*roce_pkg::IPV6_HOP_LIMIT_OFF +: 8];
      desc.src_ip     = be(l3v[8*roce_pkg::IPV6_SRC_OFF +: 128], 16);
      desc.dst_ip     = be(l3v[8*roce_pkg::IPV6_DST_OFF +: 128], 16);
      if (t6) desc.udp_sport = 16'(be(128'(l3v[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_SPORT_OFF) +: 16]), 2));
    end
    desc.opcode  = bthv[8*roce_pkg::BTH_OPCODE_OFF +: 8];
    desc.se      = flags[7];
    desc.mig     = flags[6];
    desc.pad     = pad;
    desc.tver    = flags[3:0];
    desc.pkey    = 16'(be(128'(bthv[8*roce_pkg::BTH_PKEY_OFF +: 16]), 2));
    desc.fecn    = bthv[8*roce_pkg::BTH_FB_RSVD_OFF + 7];
    desc.becn    = bthv[8*roce_pkg::BTH_FB_RSVD_OFF + 6];
    desc.dst_qpn = 24'(be(128'(bthv[8*roce_pkg::BTH_DEST_QP_OFF +: 24]), 3));
    desc.ack_req = bthv[8*roce_pkg::BTH_ACK_PSN_OFF + 7];
    desc.psn     = 24'(be(128'(bthv[8*(roce_pkg::BTH_ACK_PSN_OFF + 1) +: 24]), 3));
    if (opi.ext[roce_pkg::EXT_DETH]) begin
      desc.qkey         = 32'(be(128'(x0[8*roce_pkg::DETH_QKEY_OFF +: 32]), 4));
      desc.deth_src_qpn = 24'(be(128'(x0[8*roce_pkg::DETH_SRC_QP_OFF +: 24]), 3));
    end
    if (opi.ext[roce_pkg::EXT_RETH]) begin
      desc.reth_va   = 64'(be(128'(x1[8*roce_pkg::RETH_VA_OFF +: 64]), 8));
      desc.reth_rkey = 32'(be(128'(x1[8*roce_pkg::RETH_RKEY_OFF +: 32]), 4));
      desc.reth_len  = 32'(be(128'(x1[8*roce_pkg::RETH_DMA_LEN_OFF +: 32]), 4));
    end
    if (opi.ext[roce_pkg::EXT_ATOMICETH]) begin
      desc.reth_va   = 64'(be(128'(x2[8*roce_pkg::ATOMICETH_VA_OFF +: 64]), 8));
      desc.reth_rkey = 32'(be(128'(x2[8*roce_pkg::ATOMICETH_RKEY_OFF +: 32]), 4));
      desc.swap_add  = 64'(be(128'(x2[8*roce_pkg::ATOMICETH_SWAP_ADD_OFF +: 64]), 8));
      desc.compare   = 64'(be(128'(x2[8*roce_pkg::ATOMICETH_COMPARE_OFF +: 64]), 8));
    end
    if (opi.ext[roce_pkg::EXT_AETH]) begin
      desc.aeth_syndrome = x3[8*roce_pkg::AETH_SYNDROME_OFF +: 8];
      desc.aeth_msn      = 24'(be(128'(x3[8*roce_pkg::AETH_MSN_OFF +: 24]), 3));
    end
    if (opi.ext[roce_pkg::EXT_ATOMICACKETH])
      desc.atomic_orig = 64'(be(128'(x4[8*roce_pkg::ATOMICACKETH_ORIG_OFF +: 64]), 8));
    if (opi.ext[roce_pkg::EXT_IMMDT])
      desc.imm = 32'(be(128'(x5[8*roce_pkg::IMMDT_IMM_OFF +: 32]), 4));
    if (opi.ext[roce_pkg::EXT_IETH])
      desc.imm = 32'(be(128'(x6[8*roce_pkg::IETH_RKEY_OFF +: 32]), 4));
    desc.pay_len = 13'(pay);
  end
endmodule

`default_nettype wire
