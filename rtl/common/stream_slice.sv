// stream_slice: cut lane-0-aligned packets into pieces of given byte lengths,
// each piece re-aligned to lane 0 with its own tlast.
//
//   input packet  |b0 ........ b63|b64 ....... b127|b128 ..|   (byte i in lane i % BYTES)
//   descriptors   len=100 (not last)   len=40 (last)
//   output        |b0 ... b63|b64 .. b99 + last|      piece 1
//                 |b100 ... b139 + last|              piece 2
//
// One descriptor per piece, in order: len (1..4096), last (the final piece of
// its packet: what is left of the packet is discarded, up to and including
// the input beat with tlast), drop (consume the bytes, output nothing).
// The pieces of a packet must not cover more bytes than the packet has.
// Throughput: one output beat per cycle, also across piece boundaries in the
// middle of an input beat; a new descriptor is taken in the cycle the
// previous piece finishes. Output beats are registered; lanes outside tkeep
// carry no information. m_end marks the final beat of a non-dropped last
// piece (the packet's data is out once that beat is taken).
`default_nettype none

module stream_slice #(
  parameter int DATA_W = 512
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  input  wire logic [12:0]           s_desc_len,
  input  wire logic                  s_desc_last,
  input  wire logic                  s_desc_drop,
  input  wire logic                  s_desc_valid,
  output logic                       s_desc_ready,
  input  wire logic [DATA_W-1:0]     s_axis_tdata,
  input  wire logic                  s_axis_tlast,
  input  wire logic                  s_axis_tvalid,
  output logic                       s_axis_tready,
  output logic [DATA_W-1:0]          m_axis_tdata,
  output logic [DATA_W/8-1:0]        m_axis_tkeep,
  output logic                       m_axis_tlast,
  output logic                       m_axis_tvalid,
  input  wire logic                  m_axis_tready,
  output logic                       m_end,
  output logic                       idle
);
  localparam int BYTES = DATA_W / 8;
  localparam int OW = $clog2(BYTES);

  initial begin
    if ((1 << OW) != BYTES || BYTES < 8) $error("stream_slice: DATA_W must be a power of two >= 64");
  end

  // the rest of the current input beat: bytes off_q .. BYTES-1 of buf_q
  logic [DATA_W-1:0] buf_q;
  logic              buf_v_q, buf_last_q;
  logic [OW-1:0]     off_q;
  // the current piece
  logic              pc_v_q, pc_last_q, pc_drop_q;
  logic [12:0]       rem_q;
  logic              skip_q;      // discarding input up to tlast after a packet's last piece
  // output register
  logic [DATA_W-1:0] out_q;
  logic [BYTES-1:0]  keep_q;
  logic              out_v_q, out_last_q, out_end_q;

  logic              out_free, step, from_buf, fin, take_in, take_desc;
  logic [OW:0]       avail, n, new_off;
  logic [DATA_W-1:0] data;
  logic [BYTES-1:0]  keep;
  logic              end_in_last;

  always_comb begin
    out_free = !out_v_q || m_axis_tready;
    avail    = buf_v_q ? (OW + 1)'(BYTES) - {1'b0, off_q} : '0;
    n        = rem_q < 13'(BYTES) ? rem_q[OW:0] : (OW + 1)'(BYTES);
    from_buf = n <= avail;
    step     = pc_v_q && !skip_q && (pc_drop_q || out_free) && (from_buf || s_axis_tvalid);
    take_in  = step && !from_buf;
    fin      = step && {{(12 - OW){1'b0}}, n} == rem_q;
    new_off  = n - avail;
    // the piece's next bytes start at lane off_q of buf_q, continuing into the input beat
    data     = buf_v_q ? DATA_W'({s_axis_tdata, buf_q} >> (8 * off_q)) : s_axis_tdata;
    keep     = n >= (OW + 1)'(BYTES) ? '1 : ~({BYTES{1'b1}} << n);
    // did the piece end in a beat that carried tlast?
    end_in_last = from_buf ? buf_last_q : s_axis_tlast;
    s_desc_ready  = !skip_q && (!pc_v_q || fin);
    take_desc = s_desc_valid && s_desc_ready;
    s_axis_tready = skip_q || take_in;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      buf_v_q <= 1'b0; buf_last_q <= 1'b0; off_q <= '0; buf_q <= '0;
      pc_v_q <= 1'b0; pc_last_q <= 1'b0; pc_drop_q <= 1'b0; rem_q <= '0;
      skip_q <= 1'b0;
      out_v_q <= 1'b0; out_last_q <= 1'b0; out_end_q <= 1'b0; out_q <= '0; keep_q <= '0;
    end else begin
      if (out_v_q && m_axis_tready) out_v_q <= 1'b0;
      if (skip_q && s_axis_tvalid && s_axis_tlast) skip_q <= 1'b0;
      if (step) begin
        rem_q <= rem_q - {{(12 - OW){1'b0}}, n};
        if (from_buf) begin
          off_q <= off_q + n[OW-1:0];
          if ({1'b0, off_q} + n == (OW + 1)'(BYTES)) buf_v_q <= 1'b0;
        end else begin
          buf_q      <= s_axis_tdata;
          buf_last_q <= s_axis_tlast;
          off_q      <= new_off[OW-1:0];
          buf_v_q    <= new_off != (OW + 1)'(BYTES);
        end
        if (!pc_drop_q) begin
          out_q      <= data;
          keep_q     <= keep;
          out_last_q <= fin;
          out_end_q  <= fin && pc_last_q;
          out_v_q    <= 1'b1;
        end
        if (fin) begin
          pc_v_q <= 1'b0;
          if (pc_last_q) begin
            buf_v_q <= 1'b0;
            off_q   <= '0;
            skip_q  <= !end_in_last;
          end
        end
      end
      if (take_desc) begin
        pc_v_q    <= 1'b1;
        rem_q     <= s_desc_len;
        pc_last_q <= s_desc_last;
        pc_drop_q <= s_desc_drop;
      end
    end
  end

  assign m_axis_tdata  = out_q;
  assign m_axis_tkeep  = keep_q;
  assign m_axis_tlast  = out_last_q;
  assign m_axis_tvalid = out_v_q;
  assign m_end         = out_end_q;
  assign idle          = !pc_v_q && !out_v_q && !buf_v_q && !skip_q;
endmodule

`default_nettype wire
