// roce_tx_merge: join a frame's header bytes and its payload stream into one
// left-aligned byte stream of DATA_W-wide beats.
//
//   in:   header (hdr_len bytes, any length up to HDR_MAX) + payload beats
//         (pay_len bytes, lane 0 first; the last beat's unused lanes ignored)
//   out:  | header | payload | pad (zeros) |   as beats with a byte count
//
// A gearbox: a 2-beat byte buffer holds what has not left yet; each cycle one
// chunk (a payload beat, or a header slice) is appended at the buffer's fill
// level and one full beat leaves. The payload is therefore shifted by
// hdr_len mod DATA_W/8 at full rate. When the largest header fits the buffer
// (DATA_W >= 512) it is loaded into the buffer whole as the frame starts, and
// the next frame's header is taken in the cycle the current one ends, so a
// frame costs exactly its number of output beats. Narrower widths feed the
// header in slices first.
`default_nettype none

module roce_tx_merge #(
  parameter int DATA_W = 512,
  parameter int SIDE_W = 3       // per-frame side information carried with every beat
) (
  input  wire logic                            clk,
  input  wire logic                            rst,
  // frame header
  input  wire logic [8*roce_pkg::HDR_MAX-1:0]  s_hdr,
  input  wire logic [7:0]                      s_hdr_len,
  input  wire logic [12:0]                     s_pay_len,  // payload bytes without pad
  input  wire logic [1:0]                      s_pad,
  input  wire logic [SIDE_W-1:0]               s_side,
  input  wire logic                            s_valid,
  output logic                                 s_ready,
  // payload beats: ceil(pay_len / (DATA_W/8)) of them
  input  wire logic [DATA_W-1:0]               s_axis_pay_tdata,
  input  wire logic                            s_axis_pay_tvalid,
  output logic                                 s_axis_pay_tready,
  // frame beats
  output logic [DATA_W-1:0]                    m_tdata,
  output logic [$clog2(DATA_W/8):0]            m_nbytes,
  output logic                                 m_tlast,
  output logic [SIDE_W-1:0]                    m_side,
  output logic                                 m_tvalid,
  input  wire logic                            m_tready
);
  localparam int DWB = DATA_W / 8;
  localparam int NW = $clog2(DWB) + 1;       // width of a 0..DWB byte count
  localparam int CW = $clog2(2 * DWB);       // width of the buffer fill level
  localparam int HCHUNKS = (roce_pkg::HDR_MAX + DWB - 1) / DWB;
  localparam int HCW = (HCHUNKS > 1) ? $clog2(HCHUNKS) : 1;

  initial begin
    if (DATA_W < 64 || DATA_W > 1024 || (1 << $clog2(DATA_W)) != DATA_W)
      $error("roce_tx_merge: DATA_W must be a power of two from 64 to 1024");
  end

  localparam bit PRELOAD = (8 * HCHUNKS * DWB <= 2 * DATA_W);  // whole header fits the buffer

  localparam logic [1:0] PH_HDR = 2'd0, PH_PAY = 2'd1, PH_FLUSH = 2'd2;

  logic                              busy_q, busy_d;
  logic [1:0]                        phase_q, phase_d;
  logic [8*HCHUNKS*DWB-1:0]          hdr_q, hdr_d;
  logic [7:0]                        hdr_left_q, hdr_left_d;   // header bytes not yet appended
  logic [HCW-1:0]                    hchunk_q, hchunk_d;
  logic [13:0]                       pay_left_q, pay_left_d;   // payload + pad bytes not yet appended
  logic [13:0]                       real_left_q, real_left_d; // of which real payload
  logic [SIDE_W-1:0]                 side_q, side_d;
  logic [2*DATA_W-1:0]               buf_q, buf_d;
  logic [CW-1:0]                     cnt_q, cnt_d;
  logic                              ov_q, ov_d;               // output register
  logic [DATA_W-1:0]                 od_q, od_d;
  logic [NW-1:0]                     on_q, on_d;
  logic                              ol_q, ol_d;
  logic [SIDE_W-1:0]                 os_q, os_d;

  logic              out_free, have_chunk, final_chunk, advance, drain, finishing;
  logic [DATA_W-1:0] chunk, keep_mask;
  logic [NW-1:0]     chunk_n, mask_n;
  logic [2*DATA_W-1:0] merged;
  logic [CW:0]       fill;

  function automatic logic [DATA_W-1:0] lanes(input logic [NW-1:0] n);
    for (int i = 0; i < DWB; i++) lanes[8*i +: 8] = (i < (n)) ? 8'hFF : 8'h00;
  endfunction

  function automatic logic [NW-1:0] min_dwb(input logic [13:0] x);
    min_dwb = (x >= 14'(DWB)) ? NW'(DWB) : NW'(x);
  endfunction

  always_comb begin
    busy_d = busy_q; phase_d = phase_q; hdr_d = hdr_q; hdr_left_d = hdr_left_q; hchunk_d = hchunk_q;
    pay_left_d = pay_left_q; real_left_d = real_left_q; side_d = side_q;
    buf_d = buf_q; cnt_d = cnt_q;
    ov_d = ov_q; od_d = od_q; on_d = on_q; ol_d = ol_q; os_d = os_q;

    out_free = !ov_q || m_tready;
    if (m_tready) ov_d = 1'b0;

    // the chunk this cycle could append
    chunk = '0; chunk_n = '0; mask_n = '0; have_chunk = 1'b0; final_chunk = 1'b0;
    case (phase_q)
      PH_HDR: begin
        chunk = hdr_q[8*DWB*(hchunk_q) +: DATA_W];
        chunk_n = min_dwb(14'(hdr_left_q));
        mask_n = chunk_n;
        have_chunk = 1'b1;
        final_chunk = (hdr_left_q <= 8'(DWB)) && (pay_left_q == 14'd0);
      end
      PH_PAY: begin
        chunk = s_axis_pay_tdata;
        chunk_n = min_dwb(pay_left_q);
        mask_n = min_dwb(real_left_q);
        have_chunk = s_axis_pay_tvalid;
        final_chunk = pay_left_q <= 14'(DWB);
      end
      default: ;
    endcase
    keep_mask = lanes(mask_n);
    // A buffer holding a whole beat or more (a preloaded long header) sends
    // it before taking more payload.
    drain = (phase_q == PH_PAY) && (cnt_q >= CW'(DWB));
    advance = busy_q && out_free && (phase_q == PH_FLUSH || drain || have_chunk);
    s_axis_pay_tready = busy_q && out_free && (phase_q == PH_PAY) && !drain;

    merged = buf_q | ({{DATA_W{1'b0}}, chunk & keep_mask} << (8 * cnt_q));
    fill = {1'b0, cnt_q} + (CW+1)'(chunk_n);
    finishing = 1'b0;

    if (advance) begin
      if (phase_q == PH_FLUSH || drain) begin
        // send what the buffer holds, a beat at most
        ov_d = 1'b1; od_d = buf_q[DATA_W-1:0]; os_d = side_q;
        if (phase_q == PH_FLUSH && cnt_q <= CW'(DWB)) begin
          on_d = NW'(cnt_q); ol_d = 1'b1;
          buf_d = '0; cnt_d = '0; busy_d = 1'b0; finishing = 1'b1;
        end else begin
          on_d = NW'(DWB); ol_d = 1'b0;
          buf_d = buf_q >> DATA_W;
          cnt_d = cnt_q - CW'(DWB);
        end
      end else begin
        if (phase_q == PH_HDR) begin
          hdr_left_d = hdr_left_q - 8'(chunk_n);
          hchunk_d = hchunk_q + 1'b1;
          if (hdr_left_q <= 8'(DWB)) phase_d = PH_PAY;
        end else begin
          pay_left_d = pay_left_q - 14'(chunk_n);
          real_left_d = (real_left_q > 14'(DWB)) ? real_left_q - 14'(DWB) : 14'd0;
        end
        if (final_chunk && fill <= (CW+1)'(DWB)) begin
          // the whole remainder fits in this beat: frame ends here
          ov_d = 1'b1; od_d = merged[DATA_W-1:0]; on_d = NW'(fill); ol_d = 1'b1; os_d = side_q;
          buf_d = '0; cnt_d = '0; busy_d = 1'b0; finishing = 1'b1;
        end else if (fill >= (CW+1)'(DWB)) begin
          ov_d = 1'b1; od_d = merged[DATA_W-1:0]; on_d = NW'(DWB); ol_d = 1'b0; os_d = side_q;
          buf_d = merged >> DATA_W;
          cnt_d = CW'(fill - (CW+1)'(DWB));
          if (final_chunk) phase_d = PH_FLUSH;
        end else begin
          buf_d = merged;
          cnt_d = CW'(fill);
        end
      end
    end

    // the next header is taken as soon as the current frame has sent its last beat
    s_ready = !busy_q || finishing;
    if (s_valid && s_ready) begin
      busy_d = 1'b1;
      hdr_d = (8*HCHUNKS*DWB)'(s_hdr);
      hdr_left_d = s_hdr_len;
      hchunk_d = '0;
      pay_left_d = 14'(s_pay_len) + 14'(s_pad);
      real_left_d = 14'(s_pay_len);
      side_d = s_side;
      if (PRELOAD) begin
        buf_d = (2*DATA_W)'(s_hdr);
        cnt_d = CW'(s_hdr_len);
        hdr_left_d = '0;
        phase_d = (s_pay_len == 13'd0) ? PH_FLUSH : PH_PAY;
      end else begin
        buf_d = '0;
        cnt_d = '0;
        phase_d = PH_HDR;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0; phase_q <= PH_HDR; hdr_q <= '0; hdr_left_q <= '0; hchunk_q <= '0;
      pay_left_q <= '0; real_left_q <= '0; side_q <= '0; buf_q <= '0; cnt_q <= '0;
      ov_q <= 1'b0; od_q <= '0; on_q <= '0; ol_q <= 1'b0; os_q <= '0;
    end else begin
      busy_q <= busy_d; phase_q <= phase_d; hdr_q <= hdr_d; hdr_left_q <= hdr_left_d; hchunk_q <= hchunk_d;
      pay_left_q <= pay_left_d; real_left_q <= real_left_d; side_q <= side_d; buf_q <= buf_d; cnt_q <= cnt_d;
      ov_q <= ov_d; od_q <= od_d; on_q <= on_d; ol_q <= ol_d; os_q <= os_d;
    end
  end

  assign m_tvalid = ov_q;
  assign m_tdata  = od_q;
  assign m_nbytes = on_q;
  assign m_tlast  = ol_q;
  assign m_side   = os_q;
endmodule

`default_nettype wire
