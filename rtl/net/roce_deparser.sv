// roce_deparser: TX frame builder. A header descriptor plus its payload beats
// in, a complete RoCE frame (RoCEv2/IPv4, RoCEv2/IPv6 or RoCEv1, optionally
// 802.1Q-tagged) with IPv4 checksum, UDP flow-hash source port, pad and ICRC
// out toward the MAC.
//
//   s_hdr ──► roce_hdr_build ──► [reg] ──► roce_tx_merge ──► roce_icrc_insert ──► m_axis_tx
//   s_axis_pay ──────────────────────────────┘
//
// The payload stream carries ceil(pay_len / (DATA_W/8)) beats, lane 0 first;
// it has no tlast because the descriptor already says how long it is.
`default_nettype none

module roce_deparser #(
  parameter int DATA_W = 512
) (
  input  wire logic                    clk,
  input  wire logic                    rst,
  input  wire roce_pkg::roce_tx_hdr_t  s_hdr,
  input  wire logic                    s_hdr_valid,
  output logic                         s_hdr_ready,
  input  wire logic [DATA_W-1:0]       s_axis_pay_tdata,
  input  wire logic                    s_axis_pay_tvalid,
  output logic                         s_axis_pay_tready,
  output logic [DATA_W-1:0]            m_axis_tx_tdata,
  output logic [DATA_W/8-1:0]          m_axis_tx_tkeep,
  output logic                         m_axis_tx_tlast,
  output logic                         m_axis_tx_tvalid,
  input  wire logic                    m_axis_tx_tready,
  output logic [31:0]                  cnt_tx_frames
);
  localparam int NW = $clog2(DATA_W / 8) + 1;

  // ---- stage 1: header bytes, registered (the builder is deep combinational logic)
  logic [8*roce_pkg::HDR_MAX-1:0] hb_hdr;
  logic [7:0]                     hb_len;
  logic [1:0]                     hb_pad;

  roce_hdr_build u_build (
    .h(s_hdr), .hdr(hb_hdr), .hdr_len(hb_len), .pad(hb_pad));

  logic                           h_valid_q;
  logic [8*roce_pkg::HDR_MAX-1:0] h_hdr_q;
  logic [7:0]                     h_len_q;
  logic [12:0]                    h_pay_len_q;
  logic [1:0]                     h_pad_q;
  logic [2:0]                     h_side_q;
  logic                           h_ready;

  assign s_hdr_ready = !h_valid_q || h_ready;

  always_ff @(posedge clk) begin
    if (rst) begin
      h_valid_q <= 1'b0;
      h_hdr_q <= '0; h_len_q <= '0; h_pay_len_q <= '0; h_pad_q <= '0; h_side_q <= '0;
    end else if (s_hdr_ready) begin
      h_valid_q <= s_hdr_valid;
      if (s_hdr_valid) begin
        h_hdr_q <= hb_hdr;
        h_len_q <= hb_len;
        h_pay_len_q <= s_hdr.pay_len;
        h_pad_q <= hb_pad;
        h_side_q <= {s_hdr.vlan_valid, s_hdr.l3};
      end
    end
  end

  // ---- stage 2: header + payload → frame beats
  logic [DATA_W-1:0] mg_data;
  logic [NW-1:0]     mg_n;
  logic              mg_last, mg_valid, mg_ready;
  logic [2:0]        mg_side;

  roce_tx_merge #(.DATA_W(DATA_W), .SIDE_W(3)) u_merge (
    .clk, .rst,
    .s_hdr(h_hdr_q), .s_hdr_len(h_len_q), .s_pay_len(h_pay_len_q), .s_pad(h_pad_q), .s_side(h_side_q),
    .s_valid(h_valid_q), .s_ready(h_ready),
    .s_axis_pay_tdata, .s_axis_pay_tvalid, .s_axis_pay_tready,
    .m_tdata(mg_data), .m_nbytes(mg_n), .m_tlast(mg_last), .m_side(mg_side),
    .m_tvalid(mg_valid), .m_tready(mg_ready));

  // ---- stage 3: ICRC and minimum-frame padding
  roce_icrc_insert #(.DATA_W(DATA_W)) u_icrc (
    .clk, .rst,
    .s_tdata(mg_data), .s_nbytes(mg_n), .s_tlast(mg_last), .s_side(mg_side),
    .s_tvalid(mg_valid), .s_tready(mg_ready),
    .m_axis_tdata(m_axis_tx_tdata), .m_axis_tkeep(m_axis_tx_tkeep), .m_axis_tlast(m_axis_tx_tlast),
    .m_axis_tvalid(m_axis_tx_tvalid), .m_axis_tready(m_axis_tx_tready));

  always_ff @(posedge clk) begin
    if (rst) cnt_tx_frames <= '0;
    else if (m_axis_tx_tvalid && m_axis_tx_tready && m_axis_tx_tlast) cnt_tx_frames <= cnt_tx_frames + 32'd1;
  end
endmodule

`default_nettype wire
