// ram_sweep: the address counter that clears a RAM after reset, one word a
// cycle. It starts at rst's rising edge (rst_q is rst a cycle late) and runs
// to its end whether or not rst is still held: a RAM cannot be reset, and
// the blocks whose per-QP flags live in one (qp_flags, qp_pick) read them as
// clear only once every word was written.
//
//   sweeping: write zero to word addr this cycle
//   busy:     sweeping, or rst's first cycle (the RAM is not yet clear)
`default_nettype none

module ram_sweep #(
  parameter int WORDS = 2
) (
  input  wire logic                                    clk,
  input  wire logic                                    rst,
  output logic                                         sweeping,
  output logic [(WORDS > 1 ? $clog2(WORDS) : 1)-1:0]   addr,
  output logic                                         busy
);
  localparam int AW = WORDS > 1 ? $clog2(WORDS) : 1;
  logic rst_q;
  always_ff @(posedge clk) begin
    rst_q <= rst;
    if (rst && !rst_q) begin
      sweeping <= 1'b1;
      addr     <= '0;
    end else if (sweeping) begin
      addr <= addr + AW'(1);
      if (32'(addr) == WORDS - 1) sweeping <= 1'b0;
    end
  end
  assign busy = sweeping || (rst && !rst_q);
endmodule

`default_nettype wire
