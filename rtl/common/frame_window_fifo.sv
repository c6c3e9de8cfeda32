// frame_window_fifo: store-and-forward frame FIFO with deferred, windowed release.
//
// The writer appends beats at the tail (wr_ptr) as they arrive, before it knows
// whether the frame is wanted. Once it does (a few cycles after the frame's
// last beat, while the next frame may already be arriving) it issues one
// command per frame, in frame order:
//
//   cmd_skip = 1            free the frame: its beats are never read
//   cmd_skip = 0            output beats [cmd_addr, cmd_addr + cmd_count), cmd_count >= 1,
//                           with m_last on the final one and cmd_meta on all of them
//   cmd_end                 first beat after the frame; everything before it is freed
//                           once the window has been read
//
// A frame that cannot be kept while it is still being written (for example one
// larger than the FIFO) is withdrawn with wr_rewind, which moves the tail back
// to the frame's first beat; such a frame gets no command.
//
// Skipping instead of rewinding on a late verdict keeps the next frame's beats
// where they were written; a skipped frame only holds its space until the
// reader passes it (one cycle per command).
//
// Command queue depth = DEPTH: every queued command's frame still holds at
// least one beat of the DEPTH-beat memory, so the queue can never overflow.
//
// The memory is read through a register (m_data), so it maps to block RAM.
`default_nettype none

module frame_window_fifo #(
  parameter int DATA_W = 512,
  parameter int DEPTH  = 256,   // beats, power of two
  parameter int META_W = 8
) (
  input  wire logic                   clk,
  input  wire logic                   rst,

  // write side
  output logic [$clog2(DEPTH):0]      wr_ptr,         // where the next beat goes
  output logic                        wr_full,        // no room for another beat
  input  wire logic                   wr_en,
  input  wire logic [DATA_W-1:0]      wr_data,
  input  wire logic                   wr_rewind,      // wins over wr_en
  input  wire logic [$clog2(DEPTH):0] wr_rewind_ptr,

  // per-frame release commands, in frame order
  input  wire logic                   cmd_valid,
  input  wire logic                   cmd_skip,
  input  wire logic [$clog2(DEPTH):0] cmd_addr,
  input  wire logic [$clog2(DEPTH):0] cmd_count,
  input  wire logic [$clog2(DEPTH):0] cmd_end,
  input  wire logic [META_W-1:0]      cmd_meta,

  // read side
  output logic [DATA_W-1:0]           m_data,
  output logic                        m_valid,
  input  wire logic                   m_ready,
  output logic                        m_last,
  output logic [META_W-1:0]           m_meta
);
  localparam int PTR_W = $clog2(DEPTH) + 1;
  localparam int AW    = $clog2(DEPTH);
  localparam int CMD_W = 1 + 3 * PTR_W + META_W;

  initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) $error("frame_window_fifo: DEPTH must be a power of two >= 2");
  end

  logic [DATA_W-1:0] mem [DEPTH];

  logic [PTR_W-1:0]  wr_ptr_q, wr_ptr_d;
  logic [PTR_W-1:0]  free_ptr_q, free_ptr_d;   // oldest beat still in use

  // command queue head
  logic              cmd_ready;
  logic              c_valid, c_ready;
  logic [CMD_W-1:0]  c_data;
  logic              c_skip;
  logic [PTR_W-1:0]  c_addr, c_count, c_end;
  logic [META_W-1:0] c_meta;

  // the window being read
  logic              win_valid_q, win_valid_d;
  logic [PTR_W-1:0]  win_addr_q, win_addr_d;
  logic [PTR_W-1:0]  win_left_q, win_left_d;
  logic [PTR_W-1:0]  win_end_q, win_end_d;
  logic [META_W-1:0] win_meta_q, win_meta_d;

  // output register (the memory's read register plus its side bits)
  logic              m_valid_q, m_valid_d;
  logic              m_last_q;
  logic [META_W-1:0] m_meta_q;

  logic              win_last, issue, issue_last, pop;

  fifo_fwft #(.WIDTH(CMD_W), .DEPTH(DEPTH)) u_cmd (
    .clk    (clk),
    .rst    (rst),
    .s_valid(cmd_valid),
    .s_ready(cmd_ready),
    .s_data ({cmd_skip, cmd_addr, cmd_count, cmd_end, cmd_meta}),
    .m_valid(c_valid),
    .m_ready(c_ready),
    .m_data (c_data)
  );

  assign {c_skip, c_addr, c_count, c_end, c_meta} = c_data;

  always_comb begin
    wr_full  = (wr_ptr_q - free_ptr_q) == PTR_W'(DEPTH);
    wr_ptr_d = wr_ptr_q;
    if (wr_rewind)  wr_ptr_d = wr_rewind_ptr;
    else if (wr_en) wr_ptr_d = wr_ptr_q + 1'b1;

    // Read one beat whenever the output register is empty or being taken.
    issue      = win_valid_q && (!m_valid_q || m_ready);
    win_last   = win_left_q == PTR_W'(1);
    issue_last = issue && win_last;
    // The window slot frees up for the next command as its last read issues,
    // so back-to-back one-beat frames stream at one beat per cycle.
    c_ready    = !win_valid_q || issue_last;
    pop        = c_valid && c_ready;

    win_valid_d = win_valid_q;
    win_addr_d  = win_addr_q;
    win_left_d  = win_left_q;
    win_end_d   = win_end_q;
    win_meta_d  = win_meta_q;
    free_ptr_d  = free_ptr_q;
    if (issue) begin
      win_addr_d = win_addr_q + 1'b1;
      win_left_d = win_left_q - 1'b1;
    end
    if (issue_last) begin
      win_valid_d = 1'b0;
      // The beat is in the read register after this edge: its slot may be reused.
      free_ptr_d  = win_end_q;
    end
    if (pop) begin
      if (c_skip) begin
        free_ptr_d = c_end;   // later than win_end_q if both happen now
      end else begin
        win_valid_d = 1'b1;
        win_addr_d  = c_addr;
        win_left_d  = c_count;
        win_end_d   = c_end;
        win_meta_d  = c_meta;
      end
    end

    m_valid_d = issue || (m_valid_q && !m_ready);
  end

  // Never full, see the header comment.
`ifndef SYNTHESIS
  always_ff @(posedge clk) begin
    if (!rst && cmd_valid) assert (cmd_ready);  // command queue overflow
  end
`endif

  always_ff @(posedge clk) begin
    if (wr_en && !wr_rewind) mem[wr_ptr_q[AW-1:0]] <= wr_data;
    if (issue) begin
      m_data   <= mem[win_addr_q[AW-1:0]];
      m_last_q <= win_last;
      m_meta_q <= win_meta_q;
    end
    win_addr_q <= win_addr_d;
    win_left_q <= win_left_d;
    win_end_q  <= win_end_d;
    win_meta_q <= win_meta_d;
    if (rst) begin
      wr_ptr_q    <= '0;
      free_ptr_q  <= '0;
      win_valid_q <= 1'b0;
      m_valid_q   <= 1'b0;
    end else begin
      wr_ptr_q    <= wr_ptr_d;
      free_ptr_q  <= free_ptr_d;
      win_valid_q <= win_valid_d;
      m_valid_q   <= m_valid_d;
    end
  end

  assign wr_ptr  = wr_ptr_q;
  assign m_valid = m_valid_q;
  assign m_last  = m_last_q;
  assign m_meta  = m_meta_q;
endmodule

`default_nettype wire
