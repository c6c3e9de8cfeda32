// qp_flags: D flag bits per QP for N QPs, in distributed RAM rather than in
// N*D flip-flops, cleared after reset by a sweep.
//
// A per-QP flag vector held in flip-flops costs a flip-flop, a decoded write
// enable and a share of an N:1 read mux per QP and flag: at 16K QPs a few
// hundred thousand LUTs and flip-flops over the engine. Here E = 64/D QPs'
// flags share one 64-bit RAM word (fewer when N*D < 64), so the state is
// N*D/64 words of LUT-RAM.
//
//   write port: one QP a cycle; the bits in wmask take wdata, the others keep
//               their value (the word is read and written back in the cycle)
//   read ports: R QPs a cycle, asynchronous; a read of the QP written in the
//               same cycle sees the old value (as a flip-flop's output would)
//   reset:      rst starts a sweep that clears one word a cycle, whether or
//               not rst is still held (N*D/64 cycles: 2,048 at 16K QPs and
//               8 flags). Until it ends busy is high, reads return 0 and
//               writes are dropped: a QP reads as never configured. The
//               simulation adapters hold rst until busy falls, so the first
//               cycle after reset sees every flag clear, as it did when the
//               flags were flip-flops.
`default_nettype none

module qp_flags #(
  parameter int N = 256,   // QPs, a power of two >= 2
  parameter int D = 1,     // flags per QP: 1, 2, 4 or 8
  parameter int R = 1      // read ports
) (
  input  wire logic                        clk,
  input  wire logic                        rst,
  input  wire logic                        we,
  input  wire logic [$clog2(N)-1:0]        widx,
  input  wire logic [D-1:0]                wmask,
  input  wire logic [D-1:0]                wdata,
  input  wire logic [R*$clog2(N)-1:0]      ridx,   // port r: [r*QW +: QW]
  output logic      [R*D-1:0]              rdata,  // port r: [r*D +: D]
  output logic                             busy
);
  localparam int QW = $clog2(N);
  localparam int E  = (N * D < 64) ? N : 64 / D;  // QPs per word
  localparam int EW = $clog2(E);                   // QP index bits inside a word
  localparam int NW = N / E;                       // words
  localparam int AW = NW > 1 ? $clog2(NW) : 1;     // word address bits
  localparam int WB = E * D;                       // bits per word

  initial begin
    if ((1 << QW) != N || N < 2) $error("qp_flags: N must be a power of two >= 2");
    if (D != 1 && D != 2 && D != 4 && D != 8) $error("qp_flags: D must be 1, 2, 4 or 8");
  end

  logic [WB-1:0] mem [NW];
  logic [AW-1:0] sweep_q;   // the reset sweep (ram_sweep): word sweep_q cleared while busy_q
  logic          busy_q;

  function automatic logic [AW-1:0] word_of(input logic [QW-1:0] qpn);
    word_of = (NW > 1) ? AW'(qpn >> EW) : AW'(0);
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */  // (the word's address bits)
  function automatic logic [EW-1:0] slot_of(input logic [QW-1:0] qpn);
    slot_of = EW'(qpn);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // one write port (the sweep's or the user's), so that it maps to LUT-RAM
  logic [AW-1:0] wa, m_addr;
  logic [D-1:0]  wset;
  logic [WB-1:0] wold, wm, wd, m_data;
  logic          m_we;
  always_comb begin
    wa     = word_of(widx);
    wold   = mem[wa];
    wm     = WB'(wmask) << (D * slot_of(widx));
    wset   = wdata & wmask;
    wd     = WB'(wset) << (D * slot_of(widx));
    m_we   = busy_q || (we && !rst);
    m_addr = busy_q ? sweep_q : wa;
    m_data = busy_q ? WB'(0) : (wold & ~wm) | wd;
  end

  always_ff @(posedge clk) begin
    if (m_we) mem[m_addr] <= m_data;
  end

  ram_sweep #(.WORDS(NW)) u_sweep (.clk, .rst, .sweeping(busy_q), .addr(sweep_q), .busy);

  logic [WB-1:0] rword [R];
  always_comb begin
    for (int r = 0; r < R; r++) begin
      rword[r] = mem[word_of(ridx[r*QW +: QW])];
      rdata[r*D +: D] = busy ? D'(0) : D'(rword[r] >> (D * slot_of(ridx[r*QW +: QW])));
    end
  end
endmodule

`default_nettype wire
