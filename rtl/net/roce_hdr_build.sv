// roce_hdr_build: the header bytes of one RoCE frame, from a TX descriptor.
//
// Combinational. Byte i of the header is hdr[8*i +: 8] (the order the stream
// sends them). Layouts, by encapsulation (offsets in bytes):
//
//   RoCEv2/IPv4  | Eth 14 | [802.1Q 4] | IPv4 20 | UDP 8 | BTH 12 | ext | payload | pad | ICRC 4
//   RoCEv2/IPv6  | Eth 14 | [802.1Q 4] | IPv6 40 | UDP 8 | BTH 12 | ext | payload | pad | ICRC 4
//   RoCEv1       | Eth 14 | [802.1Q 4] | GRH  40 |       | BTH 12 | ext | payload | pad | ICRC 4
//
//   BTH:  0 opcode | 1 SE M PadCnt TVer | 2-3 P_Key | 4 FECN BECN resv6 | 5-7 DestQP
//         8 AckReq resv7 | 9-11 PSN
//   ext:  DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH, CNP reserved:
//         those the opcode table lists, in that order.
//
// The UDP source port is the flow hash Linux uses (rdma_get_udp_sport for
// RC/UC, 0xC000 + hash_32(qpn, 14) for UD), so ECMP keeps a QP on one path
// and frames match a Soft-RoCE peer's bit for bit. The UDP checksum is 0
// (RoCEv2 allows it for IPv4 and Linux sends 0 for IPv6 too).
`default_nettype none

module roce_hdr_build (
  input  wire roce_pkg::roce_tx_hdr_t        h,
  output logic [8*roce_pkg::HDR_MAX-1:0]     hdr,       // header bytes, zero past hdr_len
  output logic [7:0]                         hdr_len,   // Ethernet header through the last extended header
  output logic [1:0]                         pad        // BTH pad count: (-pay_len) & 3
);

  localparam int TP_BYTES = 40;  // BTH + the largest extended-header set (AtomicETH 28)
  // Where the network and transport parts start, per layout (from the spec sizes).
  localparam int L3  = roce_pkg::ETH_SIZE;                       // untagged
  localparam int L3Q = roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE;  // 802.1Q-tagged
  localparam int V4  = roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE;  // network part lengths
  localparam int V6  = roce_pkg::IPV6_SIZE + roce_pkg::UDP_SIZE;
  localparam int V1  = roce_pkg::IPV6_SIZE;                       // GRH

  /* verilator lint_off UNUSEDSIGNAL */  // the builder needs ext, ext_bytes and payload of the entry only
  roce_pkg::opinfo_t op;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [8*TP_BYTES-1:0] tp;        // transport part: BTH + extended headers
  logic [5:0]            tp_len;
  logic [8*V6-1:0]       l34;       // IPv4+UDP, IPv6+UDP or GRH
  logic [15:0]           ethertype;
  logic [15:0]           trailer;   // BTH .. ICRC: transport bytes incl. payload, pad, ICRC
  logic [15:0]           ip_len;
  logic [15:0]           sport;
  logic [47:0]           qp_prod;
  logic [47:0]           fl_mix;
  logic [19:0]           flow;
  /* verilator lint_off UNUSEDSIGNAL */  // hash_32(x, 14) keeps the top 14 bits of the product
  logic [31:0]           ud_hash;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [5:0]            o;
  logic [7:0]            l3_off;    // where the IP header / GRH starts

  always_comb begin
    op      = roce_pkg::opcode_info(h.opcode);
    pad     = op.payload ? 2'(-h.pay_len) : 2'd0;
    tp_len  = 6'(roce_pkg::BTH_SIZE) + op.ext_bytes;
    trailer = 16'(tp_len) + 16'(h.pay_len) + 16'(pad) + 16'(roce_pkg::ICRC_SIZE);

    // ---- transport part
    tp = '0;
    tp[8*0 +: 8]   = h.opcode;
    tp[8*1 +: 8]   = {h.se, h.mig, pad, 4'(roce_pkg::BTH_TVER)};
    tp[8*2 +: 16]  = byte_order_pkg::be16(h.pkey);
    tp[8*4 +: 8]   = {h.fecn, h.becn, 6'b0};
    tp[8*5 +: 24]  = byte_order_pkg::be24(h.dst_qpn);
    tp[8*8 +: 8]   = {h.ack_req, 7'b0};
    tp[8*9 +: 24]  = byte_order_pkg::be24(h.psn);
    o = 6'(roce_pkg::BTH_SIZE);
    if (op.ext[roce_pkg::EXT_DETH]) begin
      tp[8*o +: 64] = {byte_order_pkg::be24(h.src_qpn), 8'h00, byte_order_pkg::be32(h.qkey)};
      o = o + 6'(roce_pkg::DETH_SIZE);
    end
    if (op.ext[roce_pkg::EXT_RETH]) begin
      tp[8*o +: 128] = {byte_order_pkg::be32(h.reth_len), byte_order_pkg::be32(h.reth_rkey),
                        byte_order_pkg::be64(h.reth_va)};
      o = o + 6'(roce_pkg::RETH_SIZE);
    end
    if (op.ext[roce_pkg::EXT_ATOMICETH]) begin
      tp[8*o +: 224] = {byte_order_pkg::be64(h.compare), byte_order_pkg::be64(h.swap_add),
                        byte_order_pkg::be32(h.reth_rkey), byte_order_pkg::be64(h.reth_va)};
      o = o + 6'(roce_pkg::ATOMICETH_SIZE);
    end
    if (op.ext[roce_pkg::EXT_AETH]) begin
      tp[8*o +: 32] = {byte_order_pkg::be24(h.aeth_msn), h.aeth_syndrome};
      o = o + 6'(roce_pkg::AETH_SIZE);
    end
    if (op.ext[roce_pkg::EXT_ATOMICACKETH]) begin
      tp[8*o +: 64] = byte_order_pkg::be64(h.atomic_orig);
      o = o + 6'(roce_pkg::ATOMICACKETH_SIZE);
    end
    if (op.ext[roce_pkg::EXT_IMMDT] || op.ext[roce_pkg::EXT_IETH]) begin
      tp[8*o +: 32] = byte_order_pkg::be32(h.imm);
    end
    // CNP_RSVD: 16 zero bytes, already zero.

    // ---- UDP source port: Linux's flow hash of the QP numbers
    qp_prod = 48'(h.src_qpn) * 48'(h.dst_qpn);
    fl_mix  = qp_prod ^ (qp_prod >> 20);
    fl_mix  = fl_mix ^ (fl_mix >> 40);
    flow    = fl_mix[19:0];
    ud_hash = 32'(h.src_qpn) * 32'h61C88647;
    if (h.opcode[7:5] == 3'b011)  // UD: hash of the sending QP alone
      sport = 16'(roce_pkg::ROCE_SPORT_BASE) | {2'b00, ud_hash[31:18]};
    else
      sport = 16'(roce_pkg::ROCE_SPORT_BASE) | {2'b00, flow[13:0] ^ {8'b0, flow[19:14]}};

    // ---- network part
    l34 = '0;
    ip_len = '0;
    ethertype = 16'(roce_pkg::ETHERTYPE_IPV4);
    case (h.l3)
      roce_pkg::L3_IPV6: begin
        ethertype = 16'(roce_pkg::ETHERTYPE_IPV6);
        ip_len = 16'(roce_pkg::UDP_SIZE) + trailer;
        l34[0 +: 320] = ip_hdr_pkg::ipv6_header(h.tclass, h.flow_label, ip_len, 8'(roce_pkg::IP_PROTO_UDP), h.ttl,
                                                h.src_ip, h.dst_ip);
        l34[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_SPORT_OFF) +: 16] = byte_order_pkg::be16(sport);
        l34[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_DPORT_OFF) +: 16] = byte_order_pkg::be16(16'(roce_pkg::UDP_PORT_ROCEV2));
        l34[8*(roce_pkg::IPV6_SIZE + roce_pkg::UDP_LEN_OFF) +: 16] = byte_order_pkg::be16(ip_len);
      end
      roce_pkg::L3_ROCEV1: begin
        ethertype = 16'(roce_pkg::ETHERTYPE_ROCEV1);
        ip_len = trailer;
        l34[0 +: 320] = ip_hdr_pkg::ipv6_header(h.tclass, h.flow_label, ip_len, 8'(roce_pkg::GRH_NXTHDR_IBA), h.ttl,
                                                h.src_ip, h.dst_ip);
      end
      default: begin  // IPv4
        ip_len = 16'(roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE) + trailer;
        l34[0 +: 160] = ip_hdr_pkg::ipv4_header(h.tclass, ip_len, h.ip_id, 16'(roce_pkg::IPV4_FLAGS_DF), h.ttl,
                                                8'(roce_pkg::IP_PROTO_UDP), h.src_ip[31:0], h.dst_ip[31:0]);
        l34[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_SPORT_OFF) +: 16] = byte_order_pkg::be16(sport);
        l34[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_DPORT_OFF) +: 16] = byte_order_pkg::be16(16'(roce_pkg::UDP_PORT_ROCEV2));
        l34[8*(roce_pkg::IPV4_SIZE + roce_pkg::UDP_LEN_OFF) +: 16] = byte_order_pkg::be16(ip_len - 16'(roce_pkg::IPV4_SIZE));
      end
    endcase

    // ---- assemble: Ethernet, then the network part, then the transport part.
    // The offsets take one of six values; each case is plain wiring.
    hdr = '0;
    hdr[8*0 +: 48] = byte_order_pkg::be48(h.dst_mac);
    hdr[8*6 +: 48] = byte_order_pkg::be48(h.src_mac);
    if (h.vlan_valid) begin
      hdr[8*roce_pkg::ETH_ETHERTYPE_OFF +: 16] = byte_order_pkg::be16(16'(roce_pkg::ETHERTYPE_VLAN));
      hdr[8*(roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_TCI_OFF) +: 16] =
          byte_order_pkg::be16({h.vlan_pcp, 1'b0, h.vlan_vid});
      hdr[8*(roce_pkg::ETH_ETHERTYPE_OFF + roce_pkg::VLAN_SIZE) +: 16] = byte_order_pkg::be16(ethertype);
      l3_off = 8'(L3Q);
    end else begin
      hdr[8*roce_pkg::ETH_ETHERTYPE_OFF +: 16] = byte_order_pkg::be16(ethertype);
      l3_off = 8'(L3);
    end
    case ({h.vlan_valid, h.l3})
      3'b0_00: begin hdr[8*L3  +: 8*V4] = l34[0 +: 8*V4]; hdr[8*(L3 + V4)  +: 8*TP_BYTES] = tp; end
      3'b0_01: begin hdr[8*L3  +: 8*V6] = l34;            hdr[8*(L3 + V6)  +: 8*TP_BYTES] = tp; end
      3'b0_10: begin hdr[8*L3  +: 8*V1] = l34[0 +: 8*V1]; hdr[8*(L3 + V1)  +: 8*TP_BYTES] = tp; end
      3'b1_00: begin hdr[8*L3Q +: 8*V4] = l34[0 +: 8*V4]; hdr[8*(L3Q + V4) +: 8*TP_BYTES] = tp; end
      3'b1_01: begin hdr[8*L3Q +: 8*V6] = l34;            hdr[8*(L3Q + V6) +: 8*TP_BYTES] = tp; end
      3'b1_10: begin hdr[8*L3Q +: 8*V1] = l34[0 +: 8*V1]; hdr[8*(L3Q + V1) +: 8*TP_BYTES] = tp; end
      default: ;  // l3 = 3 is not an encapsulation: header of Ethernet only
    endcase
    case (h.l3)
      roce_pkg::L3_IPV6:   hdr_len = l3_off + 8'(roce_pkg::IPV6_SIZE + roce_pkg::UDP_SIZE) + 8'(tp_len);
      roce_pkg::L3_ROCEV1: hdr_len = l3_off + 8'(roce_pkg::IPV6_SIZE) + 8'(tp_len);
      roce_pkg::L3_IPV4:   hdr_len = l3_off + 8'(roce_pkg::IPV4_SIZE + roce_pkg::UDP_SIZE) + 8'(tp_len);
      default:             hdr_len = l3_off;
    endcase
  end
endmodule

`default_nettype wire
