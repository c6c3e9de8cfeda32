// spec_fifo: a FIFO whose writer may take back what it wrote.
//
//   push (s_valid/s_ready)  appends at the speculative tail
//   commit                  makes everything pushed so far visible to the reader
//   abort                   drops everything pushed since the last commit
//
// The reader (m_valid/m_ready, first word fall-through) only sees committed
// entries. commit and abort act after a push in the same cycle (a push with
// commit is committed). Small and asynchronous-read: LUT RAM.
`default_nettype none

module spec_fifo #(
  parameter int WIDTH = 32,
  parameter int DEPTH = 16   // power of two
) (
  input  wire logic             clk,
  input  wire logic             rst,
  input  wire logic             s_valid,
  output logic                  s_ready,
  input  wire logic [WIDTH-1:0] s_data,
  input  wire logic             commit,
  input  wire logic             abort,
  output logic                  m_valid,
  input  wire logic             m_ready,
  output logic [WIDTH-1:0]      m_data,
  output logic                  empty     // nothing committed or speculative
);
  localparam int AW = $clog2(DEPTH);

  initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) $error("spec_fifo: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];
  logic [AW:0] wr_q, cm_q, rd_q, wr_next;
  logic push, pop;

  // separate assignments: ready does not depend on valid
  assign s_ready = (wr_q - rd_q) != (AW + 1)'(DEPTH);
  assign push    = s_valid && s_ready;
  assign m_valid = cm_q != rd_q;
  assign pop     = m_valid && m_ready;
  assign m_data  = mem[rd_q[AW-1:0]];
  assign empty   = wr_q == rd_q;
  assign wr_next = push ? wr_q + 1'b1 : wr_q;

  always_ff @(posedge clk) begin
    if (push) mem[wr_q[AW-1:0]] <= s_data;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      wr_q <= '0;
      cm_q <= '0;
      rd_q <= '0;
    end else begin
      wr_q <= abort ? cm_q : wr_next;
      if (commit) cm_q <= wr_next;
      if (pop) rd_q <= rd_q + 1'b1;
    end
  end
endmodule

`default_nettype wire
