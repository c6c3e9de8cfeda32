// roce_parser: RX front end. Splits the MAC's frames into RoCE (descriptor +
// payload) and everything else (bypass), drops bad RoCE frames, counts.
//
//   Eth [VLAN] | IPv4 | UDP 4791 | BTH | ext | payload | pad | ICRC |  RoCEv2/IPv4
//   Eth [VLAN] | IPv6 | UDP 4791 | BTH | ext | payload | pad | ICRC |  RoCEv2/IPv6
//   Eth [VLAN] | GRH (0x8915)    | BTH | ext | payload | pad | ICRC |  RoCEv1
//   anything else, or everything when roce_enable = 0 ------------>  bypass
//
//   s_axis_rx --> roce_rx_check --(beats)--> frame_window_fifo --> roce_rx_realign --> m_axis_pay
//                      |        --(verdict: window / skip)-->                      \-> m_axis_byp
//                      +--(descriptor)--> fifo_fwft ------------------------------> m_hdr
//                      +--> stat_*, cnt_*
//
// Store-and-forward: nothing of a frame leaves before its last beat (and ICRC)
// has been checked. The k-th m_hdr belongs to the k-th accepted frame, whose
// payload is the k-th payload packet (none when pay_len = 0). Frames longer
// than FIFO_BEATS beats are dropped as TOO_LONG.
//
// roce_enable is sampled at each frame's first beat.
`default_nettype none

module roce_parser #(
  parameter int DATA_W     = 512,
  parameter int FIFO_BEATS = 256,  // frame FIFO depth in beats (power of two)
  parameter int HDR_DEPTH  = 16    // descriptors waiting on m_hdr (power of two)
) (
  input  wire logic                           clk,
  input  wire logic                           rst,
  input  wire logic                           roce_enable,

  input  wire logic [DATA_W-1:0]              s_axis_rx_tdata,
  input  wire logic [DATA_W/8-1:0]            s_axis_rx_tkeep,
  input  wire logic                           s_axis_rx_tvalid,
  output logic                                s_axis_rx_tready,
  input  wire logic                           s_axis_rx_tlast,
  input  wire logic                           s_axis_rx_tuser,

  output roce_pkg::roce_rx_hdr_t              m_hdr,
  output logic                                m_hdr_valid,
  input  wire logic                           m_hdr_ready,

  output logic [DATA_W-1:0]                   m_axis_pay_tdata,
  output logic [DATA_W/8-1:0]                 m_axis_pay_tkeep,
  output logic                                m_axis_pay_tvalid,
  input  wire logic                           m_axis_pay_tready,
  output logic                                m_axis_pay_tlast,

  output logic [DATA_W-1:0]                   m_axis_byp_tdata,
  output logic [DATA_W/8-1:0]                 m_axis_byp_tkeep,
  output logic                                m_axis_byp_tvalid,
  input  wire logic                           m_axis_byp_tready,
  output logic                                m_axis_byp_tlast,
  output logic                                m_axis_byp_tuser,

  output logic                                stat_valid,
  output logic                                stat_bypass,
  output logic [3:0]                          stat_drop,

  output logic [31:0]                         cnt_rx_frames,
  output logic [31:0]                         cnt_rx_roce,
  output logic [31:0]                         cnt_rx_bypass,
  output logic [roce_pkg::DROP_COUNT*32-1:0]  cnt_rx_drop
);
  localparam int LANE_W = $clog2(DATA_W / 8);
  localparam int PTR_W  = $clog2(FIFO_BEATS) + 1;
  localparam int META_W = 3 + 2 * LANE_W;

  logic [PTR_W-1:0]  wr_ptr, wr_rewind_ptr, cmd_addr, cmd_count, cmd_end;
  logic              wr_full, wr_en, wr_rewind;
  logic [DATA_W-1:0] wr_data;
  logic              cmd_valid, cmd_skip, cmd_byp, cmd_user, cmd_flush;
  logic [LANE_W-1:0] cmd_off, cmd_lastm1;

  logic [DATA_W-1:0] f_data;
  logic              f_valid, f_ready, f_last;
  logic [META_W-1:0] f_meta;
  logic              f_byp, f_user, f_flush;
  logic [LANE_W-1:0] f_off, f_lastm1;

  logic              hdr_push, hdr_ready;
  roce_pkg::roce_rx_hdr_t hdr_data;

  roce_rx_check #(.DATA_W(DATA_W), .FIFO_BEATS(FIFO_BEATS), .HDR_DEPTH(HDR_DEPTH)) u_check (
    .clk               (clk),
    .rst               (rst),
    .roce_enable       (roce_enable),
    .s_axis_rx_tdata   (s_axis_rx_tdata),
    .s_axis_rx_tkeep   (s_axis_rx_tkeep),
    .s_axis_rx_tvalid  (s_axis_rx_tvalid),
    .s_axis_rx_tready  (s_axis_rx_tready),
    .s_axis_rx_tlast   (s_axis_rx_tlast),
    .s_axis_rx_tuser   (s_axis_rx_tuser),
    .fifo_wr_ptr       (wr_ptr),
    .fifo_wr_full      (wr_full),
    .fifo_wr_en        (wr_en),
    .fifo_wr_data      (wr_data),
    .fifo_wr_rewind    (wr_rewind),
    .fifo_wr_rewind_ptr(wr_rewind_ptr),
    .fifo_cmd_valid    (cmd_valid),
    .fifo_cmd_skip     (cmd_skip),
    .fifo_cmd_addr     (cmd_addr),
    .fifo_cmd_count    (cmd_count),
    .fifo_cmd_end      (cmd_end),
    .fifo_cmd_byp      (cmd_byp),
    .fifo_cmd_user     (cmd_user),
    .fifo_cmd_off      (cmd_off),
    .fifo_cmd_lastm1   (cmd_lastm1),
    .fifo_cmd_flush    (cmd_flush),
    .hdr_push          (hdr_push),
    .hdr_data          (hdr_data),
    .hdr_pop           (m_hdr_valid && m_hdr_ready),
    .stat_valid        (stat_valid),
    .stat_bypass       (stat_bypass),
    .stat_drop         (stat_drop),
    .cnt_rx_frames     (cnt_rx_frames),
    .cnt_rx_roce       (cnt_rx_roce),
    .cnt_rx_bypass     (cnt_rx_bypass),
    .cnt_rx_drop       (cnt_rx_drop)
  );

  frame_window_fifo #(.DATA_W(DATA_W), .DEPTH(FIFO_BEATS), .META_W(META_W)) u_fifo (
    .clk          (clk),
    .rst          (rst),
    .wr_ptr       (wr_ptr),
    .wr_full      (wr_full),
    .wr_en        (wr_en),
    .wr_data      (wr_data),
    .wr_rewind    (wr_rewind),
    .wr_rewind_ptr(wr_rewind_ptr),
    .cmd_valid    (cmd_valid),
    .cmd_skip     (cmd_skip),
    .cmd_addr     (cmd_addr),
    .cmd_count    (cmd_count),
    .cmd_end      (cmd_end),
    .cmd_meta     ({cmd_byp, cmd_user, cmd_off, cmd_lastm1, cmd_flush}),
    .m_data       (f_data),
    .m_valid      (f_valid),
    .m_ready      (f_ready),
    .m_last       (f_last),
    .m_meta       (f_meta)
  );

  assign {f_byp, f_user, f_off, f_lastm1, f_flush} = f_meta;

  roce_rx_realign #(.DATA_W(DATA_W)) u_realign (
    .clk              (clk),
    .rst              (rst),
    .s_data           (f_data),
    .s_valid          (f_valid),
    .s_ready          (f_ready),
    .s_last           (f_last),
    .s_byp            (f_byp),
    .s_user           (f_user),
    .s_off            (f_off),
    .s_lastm1         (f_lastm1),
    .s_flush          (f_flush),
    .m_axis_pay_tdata (m_axis_pay_tdata),
    .m_axis_pay_tkeep (m_axis_pay_tkeep),
    .m_axis_pay_tvalid(m_axis_pay_tvalid),
    .m_axis_pay_tready(m_axis_pay_tready),
    .m_axis_pay_tlast (m_axis_pay_tlast),
    .m_axis_byp_tdata (m_axis_byp_tdata),
    .m_axis_byp_tkeep (m_axis_byp_tkeep),
    .m_axis_byp_tvalid(m_axis_byp_tvalid),
    .m_axis_byp_tready(m_axis_byp_tready),
    .m_axis_byp_tlast (m_axis_byp_tlast),
    .m_axis_byp_tuser (m_axis_byp_tuser)
  );

  // The check reserves a slot per frame in flight, so this never refuses a push.
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && hdr_push) assert (hdr_ready);  // descriptor FIFO overflow
  end
`endif

  fifo_fwft #(.WIDTH(roce_pkg::ROCE_RX_HDR_W), .DEPTH(HDR_DEPTH)) u_hdr_fifo (
    .clk    (clk),
    .rst    (rst),
    .s_valid(hdr_push),
    .s_ready(hdr_ready),
    .s_data (hdr_data),
    .m_valid(m_hdr_valid),
    .m_ready(m_hdr_ready),
    .m_data (m_hdr)
  );
endmodule

`default_nettype wire
