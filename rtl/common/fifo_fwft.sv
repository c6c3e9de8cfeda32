// fifo_fwft: synchronous first-word-fall-through FIFO.
//
// The storage array is read through a register (m_data), so synthesis maps it
// to block RAM (or LUT RAM when small) instead of DEPTH*WIDTH flip-flops. That
// output register is the head of the queue: total capacity is DEPTH + 1.
// A push reaches m_valid two cycles later (write, then registered read).
//
//   s_valid/s_ready/s_data  ->  [mem DEPTH x WIDTH] -> m_data (reg) -> m_valid/m_ready
`default_nettype none

module fifo_fwft #(
  parameter int WIDTH = 32,
  parameter int DEPTH = 16   // power of two
) (
  input  wire logic             clk,
  input  wire logic             rst,

  input  wire logic             s_valid,
  output logic                  s_ready,
  input  wire logic [WIDTH-1:0] s_data,

  output logic                  m_valid,
  input  wire logic             m_ready,
  output logic [WIDTH-1:0]      m_data
);
  localparam int AW = $clog2(DEPTH);

  initial begin
    if (DEPTH < 2 || (1 << AW) != DEPTH) $error("fifo_fwft: DEPTH must be a power of two >= 2");
  end

  logic [WIDTH-1:0] mem [DEPTH];
  logic [AW:0]      wr_ptr_q, wr_ptr_d;
  logic [AW:0]      rd_ptr_q, rd_ptr_d;
  logic             m_valid_q, m_valid_d;
  logic             push, load;

  always_comb begin
    // One extra pointer bit tells full (MSBs differ) from empty (equal).
    s_ready  = (wr_ptr_q - rd_ptr_q) != (AW + 1)'(DEPTH);
    push     = s_valid && s_ready;
    // Refill the head register whenever it is empty or being taken.
    load     = (wr_ptr_q != rd_ptr_q) && (!m_valid_q || m_ready);
    wr_ptr_d = push ? wr_ptr_q + 1'b1 : wr_ptr_q;
    rd_ptr_d = load ? rd_ptr_q + 1'b1 : rd_ptr_q;
    m_valid_d = load || (m_valid_q && !m_ready);
  end

  always_ff @(posedge clk) begin
    if (push) mem[wr_ptr_q[AW-1:0]] <= s_data;
    if (load) m_data <= mem[rd_ptr_q[AW-1:0]];
    if (rst) begin
      wr_ptr_q  <= '0;
      rd_ptr_q  <= '0;
      m_valid_q <= 1'b0;
    end else begin
      wr_ptr_q  <= wr_ptr_d;
      rd_ptr_q  <= rd_ptr_d;
      m_valid_q <= m_valid_d;
    end
  end

  assign m_valid = m_valid_q;
endmodule

`default_nettype wire
