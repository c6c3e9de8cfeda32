// roce_rx_realign: turn the beat windows read from the frame FIFO into the
// parser's two output streams.
//
// Bypass frames pass through unchanged (tkeep rebuilt for the last beat).
// RoCE frames arrive as the window of stored beats that holds their payload;
// the payload starts at byte lane `off` of the first beat and is shifted down
// to lane 0:
//
//   stored beats  | hdr ... hdr P0 P1 P2 ... |  ... Pn ICRC pad |
//                           ^ off
//   output beats  | P0 P1 P2 ...             |  ... Pn 0 0 0    |
//                   tkeep cut at pay_len, bytes outside tkeep zero
//
// Output beat j takes lanes off.. of stored beat j and lanes ..off-1 of beat
// j+1, so it leaves when beat j+1 arrives. If the window has as many beats as
// the output (s_flush), the last output beat has no successor and leaves one
// cycle after the window's last beat: at most one bubble per frame.
//
// Every RoCE header is 14 or 18 bytes of Ethernet plus a multiple of 4 bytes
// (IP/UDP/BTH/extended headers), so `off` is always 2 mod 4: the shifter is a
// fixed 2-byte shift followed by a 4-byte-granular one, two stages fewer than
// a byte-granular barrel shifter.
`default_nettype none

module roce_rx_realign #(
  parameter int DATA_W = 512
) (
  input  wire logic                         clk,
  input  wire logic                         rst,

  // window beats from the frame FIFO, with the frame's meta data
  input  wire logic [DATA_W-1:0]            s_data,
  input  wire logic                         s_valid,
  output logic                              s_ready,
  input  wire logic                         s_last,
  input  wire logic                         s_byp,     // bypass frame: pass through
  input  wire logic                         s_user,    // bypass: MAC's tuser for the last beat
  input  wire logic [$clog2(DATA_W/8)-1:0]  s_off,     // RoCE: payload start lane (2 mod 4)
  input  wire logic [$clog2(DATA_W/8)-1:0]  s_lastm1,  // bytes in the last output beat, minus 1
  input  wire logic                         s_flush,   // RoCE: last output beat follows the window

  output logic [DATA_W-1:0]                 m_axis_pay_tdata,
  output logic [DATA_W/8-1:0]               m_axis_pay_tkeep,
  output logic                              m_axis_pay_tvalid,
  input  wire logic                         m_axis_pay_tready,
  output logic                              m_axis_pay_tlast,

  output logic [DATA_W-1:0]                 m_axis_byp_tdata,
  output logic [DATA_W/8-1:0]               m_axis_byp_tkeep,
  output logic                              m_axis_byp_tvalid,
  input  wire logic                         m_axis_byp_tready,
  output logic                              m_axis_byp_tlast,
  output logic                              m_axis_byp_tuser
);
  localparam int BYTES  = DATA_W / 8;
  localparam int LANE_W = $clog2(BYTES);

  initial begin
    if (BYTES < 8 || (1 << LANE_W) != BYTES) $error("roce_rx_realign: DATA_W must be a power of two >= 64");
  end

  logic [DATA_W-1:0] prev_q, prev_d;           // previous stored beat of the window
  logic              have_prev_q, have_prev_d;
  logic              flush_q, flush_d;         // the last output beat is still in prev_q
  logic [LANE_W-3:0] offw_q, offw_d;           // off / 4 of the frame in progress
  logic [LANE_W-1:0] lastm1_q, lastm1_d;

  // One output register shared by both ports: a frame goes to exactly one.
  logic              out_valid_q, out_valid_d;
  logic              out_byp_q, out_byp_d;
  logic [DATA_W-1:0] out_data_q, out_data_d;
  logic [BYTES-1:0]  out_keep_q, out_keep_d;
  logic              out_last_q, out_last_d;
  logic              out_user_q, out_user_d;

  logic              out_free, take;
  logic [2*DATA_W-1:0] pair;
  logic [DATA_W-1:0] shifted;
  logic [LANE_W-3:0] sh_words;

  function automatic logic [BYTES-1:0] keep_upto(input logic [LANE_W-1:0] lastm1);
    for (int i = 0; i < BYTES; i++) keep_upto[i] = (LANE_W'(i) <= lastm1);
  endfunction

  function automatic logic [DATA_W-1:0] mask_bytes(input logic [DATA_W-1:0] d, input logic [BYTES-1:0] k);
    for (int i = 0; i < BYTES; i++) mask_bytes[8*i +: 8] = k[i] ? d[8*i +: 8] : 8'h00;
  endfunction

  always_comb begin
    out_free = !out_valid_q || (out_byp_q ? m_axis_byp_tready : m_axis_pay_tready);
    s_ready  = out_free && !flush_q;
    take     = s_valid && s_ready;

    // {next beat, previous beat} >> 8*off, as 2 bytes then off/4 words.
    sh_words = flush_q ? offw_q : s_off[LANE_W-1:2];
    pair     = {s_data, prev_q} >> 16;
    shifted  = DATA_W'(pair >> {sh_words, 5'd0});

    prev_d      = prev_q;
    have_prev_d = have_prev_q;
    flush_d     = flush_q;
    offw_d      = offw_q;
    lastm1_d    = lastm1_q;
    out_valid_d = out_valid_q && !out_free;
    out_byp_d   = out_byp_q;
    out_data_d  = out_data_q;
    out_keep_d  = out_keep_q;
    out_last_d  = out_last_q;
    out_user_d  = out_user_q;

    if (flush_q && out_free) begin
      out_valid_d = 1'b1;
      out_byp_d   = 1'b0;
      out_keep_d  = keep_upto(lastm1_q);
      out_data_d  = mask_bytes(shifted, out_keep_d);
      out_last_d  = 1'b1;
      out_user_d  = 1'b0;
      flush_d     = 1'b0;
      have_prev_d = 1'b0;
    end else if (take) begin
      offw_d   = s_off[LANE_W-1:2];
      lastm1_d = s_lastm1;
      if (s_byp) begin
        out_valid_d = 1'b1;
        out_byp_d   = 1'b1;
        out_keep_d  = s_last ? keep_upto(s_lastm1) : '1;
        out_data_d  = mask_bytes(s_data, out_keep_d);
        out_last_d  = s_last;
        out_user_d  = s_last && s_user;
      end else if (!have_prev_q) begin
        // First stored beat: output beat 0 also needs the next one.
        prev_d      = s_data;
        have_prev_d = 1'b1;
        flush_d     = s_last;   // one-beat window: always a flush (off > 0)
      end else begin
        out_valid_d = 1'b1;
        out_byp_d   = 1'b0;
        out_keep_d  = (s_last && !s_flush) ? keep_upto(s_lastm1) : '1;
        out_data_d  = mask_bytes(shifted, out_keep_d);
        out_last_d  = s_last && !s_flush;
        out_user_d  = 1'b0;
        prev_d      = s_data;
        if (s_last) begin
          flush_d     = s_flush;
          have_prev_d = s_flush;
        end
      end
    end
  end

  // The shifter relies on RoCE payload starting at 2 mod 4 (see the header).
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && take && !s_byp) assert (s_off[1:0] == 2'd2);  // payload offset must be 2 mod 4
  end
`endif

  always_ff @(posedge clk) begin
    prev_q     <= prev_d;
    offw_q     <= offw_d;
    lastm1_q   <= lastm1_d;
    out_byp_q  <= out_byp_d;
    out_data_q <= out_data_d;
    out_keep_q <= out_keep_d;
    out_last_q <= out_last_d;
    out_user_q <= out_user_d;
    if (rst) begin
      have_prev_q <= 1'b0;
      flush_q     <= 1'b0;
      out_valid_q <= 1'b0;
    end else begin
      have_prev_q <= have_prev_d;
      flush_q     <= flush_d;
      out_valid_q <= out_valid_d;
    end
  end

  assign m_axis_pay_tdata  = out_data_q;
  assign m_axis_pay_tkeep  = out_keep_q;
  assign m_axis_pay_tvalid = out_valid_q && !out_byp_q;
  assign m_axis_pay_tlast  = out_last_q;

  assign m_axis_byp_tdata  = out_data_q;
  assign m_axis_byp_tkeep  = out_keep_q;
  assign m_axis_byp_tvalid = out_valid_q && out_byp_q;
  assign m_axis_byp_tlast  = out_last_q;
  assign m_axis_byp_tuser  = out_user_q;
endmodule

`default_nettype wire
