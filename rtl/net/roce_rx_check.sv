// roce_rx_check: the write side of the RX parser. Takes frames from the MAC,
// writes every beat into the frame FIFO as it arrives, checks the frame on the
// way (ICRC, headers, lengths; see roce_rx_extract for the formats), and once
// the verdict is known tells the FIFO which beats to release: the whole frame
// (bypass), the beats holding the payload (accepted RoCE), or none (dropped,
// or RoCE without payload). Also pushes the descriptor of every accepted RoCE
// frame and counts.
//
// Pipeline, for a frame whose last beat is accepted in cycle t:
//   t    A   beat written to the FIFO, header bytes captured, ICRC stage A
//   t+1  E1  header parse (roce_rx_extract) from the captured bytes; ICRC stage B
//   t+2  E2  ICRC verdict; FIFO command and descriptor pushed, stat/counters
//   t+3      stat_valid
// Every stage holds one frame for one cycle, so frames may follow each other
// back to back (a one-beat frame every cycle).
//
// Store-and-forward: a frame that would need more than FIFO_BEATS beats is
// withdrawn from the FIFO at its (FIFO_BEATS+1)-th beat, the rest of it is
// accepted and discarded, and it is dropped as TOO_LONG (bypass frames too).
`default_nettype none

module roce_rx_check #(
  parameter int DATA_W     = 512,
  parameter int FIFO_BEATS = 256,
  parameter int HDR_DEPTH  = 16
) (
  input  wire logic                             clk,
  input  wire logic                             rst,
  input  wire logic                             roce_enable,

  input  wire logic [DATA_W-1:0]                s_axis_rx_tdata,
  input  wire logic [DATA_W/8-1:0]              s_axis_rx_tkeep,
  input  wire logic                             s_axis_rx_tvalid,
  output logic                                  s_axis_rx_tready,
  input  wire logic                             s_axis_rx_tlast,
  input  wire logic                             s_axis_rx_tuser,

  // frame FIFO
  input  wire logic [$clog2(FIFO_BEATS):0]      fifo_wr_ptr,
  input  wire logic                             fifo_wr_full,
  output logic                                  fifo_wr_en,
  output logic [DATA_W-1:0]                     fifo_wr_data,
  output logic                                  fifo_wr_rewind,
  output logic [$clog2(FIFO_BEATS):0]           fifo_wr_rewind_ptr,
  output logic                                  fifo_cmd_valid,
  output logic                                  fifo_cmd_skip,
  output logic [$clog2(FIFO_BEATS):0]           fifo_cmd_addr,
  output logic [$clog2(FIFO_BEATS):0]           fifo_cmd_count,
  output logic [$clog2(FIFO_BEATS):0]           fifo_cmd_end,
  output logic                                  fifo_cmd_byp,     // meta for roce_rx_realign
  output logic                                  fifo_cmd_user,
  output logic [$clog2(DATA_W/8)-1:0]           fifo_cmd_off,
  output logic [$clog2(DATA_W/8)-1:0]           fifo_cmd_lastm1,
  output logic                                  fifo_cmd_flush,

  // descriptors (the FIFO behind them holds HDR_DEPTH + 1)
  output logic                                  hdr_push,
  output roce_pkg::roce_rx_hdr_t                hdr_data,
  input  wire logic                             hdr_pop,

  output logic                                  stat_valid,
  output logic                                  stat_bypass,
  output logic [3:0]                            stat_drop,
  output logic [31:0]                           cnt_rx_frames,
  output logic [31:0]                           cnt_rx_roce,
  output logic [31:0]                           cnt_rx_bypass,
  output logic [roce_pkg::DROP_COUNT*32-1:0]    cnt_rx_drop
);
  localparam int BYTES     = DATA_W / 8;
  localparam int LANE_W    = $clog2(BYTES);
  localparam int PTR_W     = $clog2(FIFO_BEATS) + 1;
  // Header bytes kept for the parse: Eth + VLAN + the furthest L3 byte
  // roce_rx_extract reads.
  localparam int HDR_BYTES = roce_pkg::ETH_SIZE + roce_pkg::VLAN_SIZE + 88;
  // Frame lengths saturate above anything a length test compares them with:
  // the largest L3 end (l3 + 65535 + 40) and the FIFO size.
  localparam int LEN_LIM   = ((FIFO_BEATS + 1) * BYTES > 65600) ? (FIFO_BEATS + 1) * BYTES : 65600;
  localparam int LEN_W     = $clog2(LEN_LIM) + 1;
  localparam int RESV_W    = $clog2(HDR_DEPTH) + 1;

  initial begin
    if (BYTES < 8 || (1 << LANE_W) != BYTES || BYTES > roce_pkg::HDR_MAX)
      $error("roce_rx_check: DATA_W must be a power of two between 64 and %0d", 8 * roce_pkg::HDR_MAX);
  end

  // ---- stage A: the beat being received
  logic                  first_q, first_d;     // next beat starts a frame
  logic [LEN_W-1:0]      pos_q, pos_d;         // frame offset of the next beat
  logic [PTR_W-1:0]      start_q, start_d;     // FIFO address of the frame's first beat
  logic                  ovf_q, ovf_d;         // frame already withdrawn (too long)
  logic                  en_q, en_d;           // roce_enable, sampled at the first beat
  logic [8*HDR_BYTES-1:0] hdr_q, hdr_d;        // the frame's first bytes
  localparam int HDR_BEATS = (HDR_BYTES + BYTES - 1) / BYTES;
  // hdr_q padded to whole beats; the padding is never read
  /* verilator lint_off UNUSEDSIGNAL */
  logic [HDR_BEATS*DATA_W-1:0] hdr_ext;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [RESV_W-1:0]     resv_q, resv_d;       // descriptor slots promised to frames
  logic [DATA_W-1:0]     data_m;
  logic [LANE_W:0]       nb;
  logic                  acc, ovf_beat, ovf_cur, en_cur;

  // ---- E1: frame complete, parse
  logic                  e1_valid_q, e1_valid_d, e1_user_q, e1_ovf_q, e1_en_q;
  logic [LEN_W-1:0]      e1_len_q, e1_len_d;
  logic [PTR_W-1:0]      e1_start_q, e1_end_q, e1_end_d;
  logic                  x_bypass;
  logic [3:0]            x_drop;
  logic [6:0]            x_pay_start;
  roce_pkg::roce_rx_hdr_t x_desc;

  // ---- E2: verdict
  logic                  e2_valid_q, e2_bypass_q, e2_user_q, e2_ovf_q;
  logic [3:0]            e2_drop_q;
  logic [6:0]            e2_pay_start_q;
  logic [LEN_W-1:0]      e2_len_q;
  logic [PTR_W-1:0]      e2_start_q, e2_end_q;
  roce_pkg::roce_rx_hdr_t e2_desc_q;
  logic                  crc_ok, v_byp, v_acc;
  logic [3:0]            v_drop;
  logic [13:0]           pay_end;
  logic [6:0]            pay_first_b;
  logic [PTR_W-1:0]      pay_first, pay_last, pay_nout;

  logic                  stat_valid_q, stat_bypass_q;
  logic [3:0]            stat_drop_q;
  logic [31:0]           cnt_frames_q, cnt_frames_d, cnt_roce_q, cnt_roce_d, cnt_bypass_q, cnt_bypass_d;
  logic [roce_pkg::DROP_COUNT*32-1:0] cnt_drop_q, cnt_drop_d;

  always_comb begin
    for (int i = 0; i < BYTES; i++)
      data_m[8*i +: 8] = s_axis_rx_tkeep[i] ? s_axis_rx_tdata[8*i +: 8] : 8'h00;
    nb = '0;
    for (int i = 0; i < BYTES; i++) nb = nb + (LANE_W+1)'(s_axis_rx_tkeep[i]);

    // Beats past FIFO_BEATS are never stored, so they need no space.
    ovf_beat = pos_q >= LEN_W'(FIFO_BEATS * BYTES);
    s_axis_rx_tready = (!first_q || resv_q < RESV_W'(HDR_DEPTH)) && (ovf_beat || !fifo_wr_full);
    acc      = s_axis_rx_tvalid && s_axis_rx_tready;
    ovf_cur  = ovf_q || ovf_beat;
    en_cur   = first_q ? roce_enable : en_q;
    start_d  = first_q ? fifo_wr_ptr : start_q;

    fifo_wr_en         = acc && !ovf_beat;
    fifo_wr_data       = data_m;
    fifo_wr_rewind     = acc && pos_q == LEN_W'(FIFO_BEATS * BYTES);
    fifo_wr_rewind_ptr = start_q;

    // Header capture, a beat at a time (the last captured beat only in part).
    hdr_ext = '0;
    hdr_ext[8*HDR_BYTES-1:0] = hdr_q;
    for (int b = 0; b < HDR_BEATS; b++)
      if (acc && pos_q == LEN_W'(b * BYTES)) hdr_ext[b*DATA_W +: DATA_W] = data_m;
    hdr_d = hdr_ext[8*HDR_BYTES-1:0];

    // Frame end: what E1 needs besides the captured header.
    e1_valid_d = acc && s_axis_rx_tlast;
    e1_len_d   = pos_q + LEN_W'(nb);
    e1_end_d   = fifo_wr_ptr + PTR_W'(1);

    first_d = first_q;
    pos_d   = pos_q;
    ovf_d   = ovf_q;
    en_d    = en_q;
    if (acc) begin
      first_d = s_axis_rx_tlast;
      pos_d   = s_axis_rx_tlast ? '0 : pos_q[LEN_W-1] ? pos_q : pos_q + LEN_W'(BYTES);
      ovf_d   = s_axis_rx_tlast ? 1'b0 : ovf_cur;
      en_d    = en_cur;
    end
  end

  roce_rx_icrc #(.DATA_W(DATA_W), .LEN_W(LEN_W)) u_icrc (
    .clk       (clk),
    .rst       (rst),
    .beat_valid(acc),
    .beat_first(first_q),
    .beat_pos  (pos_q),
    .beat_data (data_m),
    .hv_type   (hdr_d[8*roce_pkg::ETH_ETHERTYPE_OFF +: 16]),
    .hv_l3     (hdr_d[8*16 +: 64]),
    .crc_ok    (crc_ok)
  );

  roce_rx_extract #(.HDR_BYTES(HDR_BYTES), .LEN_W(LEN_W)) u_extract (
    .hdr      (hdr_q),
    .frame_len(e1_len_q),
    .roce_en  (e1_en_q),
    .mac_err  (e1_user_q),
    .ovf      (e1_ovf_q),
    .bypass   (x_bypass),
    .drop     (x_drop),
    .pay_start(x_pay_start),
    .desc     (x_desc)
  );

  // ---- E2: final verdict and what the FIFO releases
  always_comb begin
    v_byp  = e2_bypass_q && !e2_ovf_q;
    if (e2_bypass_q)                           v_drop = e2_ovf_q ? roce_pkg::DROP_TOO_LONG : roce_pkg::DROP_NONE;
    else if (e2_drop_q != roce_pkg::DROP_NONE) v_drop = e2_drop_q;
    else if (!crc_ok)                          v_drop = roce_pkg::DROP_ICRC;
    else                                       v_drop = roce_pkg::DROP_NONE;
    v_acc  = !e2_bypass_q && v_drop == roce_pkg::DROP_NONE;

    // Payload window in stored beats: pay_first .. pay_last; pay_nout output beats.
    pay_end   = 14'(e2_pay_start_q) + 14'(e2_desc_q.pay_len);
    pay_first_b = e2_pay_start_q >> LANE_W;   // shift before narrowing to a pointer
    pay_first = PTR_W'(pay_first_b);
    pay_last  = PTR_W'((pay_end - 14'd1) >> LANE_W);
    pay_nout  = PTR_W'(((e2_desc_q.pay_len - 13'd1) >> LANE_W) + 13'd1);

    // A withdrawn frame has no beats left to free.
    fifo_cmd_valid = e2_valid_q && !e2_ovf_q;
    fifo_cmd_skip  = !(v_byp || (v_acc && e2_desc_q.pay_len != '0));
    fifo_cmd_end   = e2_end_q;
    fifo_cmd_byp   = v_byp;
    fifo_cmd_user  = e2_user_q;
    if (v_byp) begin
      fifo_cmd_addr   = e2_start_q;
      fifo_cmd_count  = e2_end_q - e2_start_q;
      fifo_cmd_off    = '0;
      fifo_cmd_lastm1 = LANE_W'(e2_len_q - LEN_W'(1));
      fifo_cmd_flush  = 1'b0;
    end else begin
      fifo_cmd_addr   = e2_start_q + pay_first;
      fifo_cmd_count  = pay_last - pay_first + PTR_W'(1);
      fifo_cmd_off    = LANE_W'(e2_pay_start_q);
      fifo_cmd_lastm1 = LANE_W'(e2_desc_q.pay_len - 13'd1);
      fifo_cmd_flush  = (pay_last - pay_first + PTR_W'(1)) == pay_nout;
    end

    hdr_push = e2_valid_q && v_acc;
    hdr_data = e2_desc_q;

    // A slot is promised at each frame's first beat and returned when the
    // frame turns out to have no descriptor, or when its descriptor is taken.
    resv_d = resv_q + RESV_W'(acc && first_q) - RESV_W'(e2_valid_q && !v_acc) - RESV_W'(hdr_pop);

    cnt_frames_d = cnt_frames_q;
    cnt_roce_d   = cnt_roce_q;
    cnt_bypass_d = cnt_bypass_q;
    cnt_drop_d   = cnt_drop_q;
    if (e2_valid_q) begin
      cnt_frames_d = cnt_frames_q + 32'd1;
      if (v_acc) cnt_roce_d = cnt_roce_q + 32'd1;
      if (v_byp) cnt_bypass_d = cnt_bypass_q + 32'd1;
      for (int r = 1; r < roce_pkg::DROP_COUNT; r++)
        if (v_drop == 4'(r)) cnt_drop_d[32*r +: 32] = cnt_drop_q[32*r +: 32] + 32'd1;
    end
  end

  always_ff @(posedge clk) begin
    hdr_q   <= hdr_d;
    start_q <= start_d;
    en_q    <= en_d;

    e1_len_q   <= e1_len_d;
    e1_user_q  <= s_axis_rx_tuser;
    e1_ovf_q   <= ovf_cur;
    e1_en_q    <= en_cur;
    e1_start_q <= start_d;
    e1_end_q   <= e1_end_d;

    e2_bypass_q    <= x_bypass;
    e2_drop_q      <= x_drop;
    e2_pay_start_q <= x_pay_start;
    e2_desc_q      <= x_desc;
    e2_len_q       <= e1_len_q;
    e2_user_q      <= e1_user_q;
    e2_ovf_q       <= e1_ovf_q;
    e2_start_q     <= e1_start_q;
    e2_end_q       <= e1_end_q;

    stat_bypass_q <= v_byp;
    stat_drop_q   <= v_drop;

    if (rst) begin
      first_q      <= 1'b1;
      pos_q        <= '0;
      ovf_q        <= 1'b0;
      resv_q       <= '0;
      e1_valid_q   <= 1'b0;
      e2_valid_q   <= 1'b0;
      stat_valid_q <= 1'b0;
      cnt_frames_q <= '0;
      cnt_roce_q   <= '0;
      cnt_bypass_q <= '0;
      cnt_drop_q   <= '0;
    end else begin
      first_q      <= first_d;
      pos_q        <= pos_d;
      ovf_q        <= ovf_d;
      resv_q       <= resv_d;
      e1_valid_q   <= e1_valid_d;
      e2_valid_q   <= e1_valid_q;
      stat_valid_q <= e2_valid_q;
      cnt_frames_q <= cnt_frames_d;
      cnt_roce_q   <= cnt_roce_d;
      cnt_bypass_q <= cnt_bypass_d;
      cnt_drop_q   <= cnt_drop_d;
    end
  end

  assign stat_valid    = stat_valid_q;
  assign stat_bypass   = stat_bypass_q;
  assign stat_drop     = stat_drop_q;
  assign cnt_rx_frames = cnt_frames_q;
  assign cnt_rx_roce   = cnt_roce_q;
  assign cnt_rx_bypass = cnt_bypass_q;
  assign cnt_rx_drop   = cnt_drop_q;
endmodule

`default_nettype wire
