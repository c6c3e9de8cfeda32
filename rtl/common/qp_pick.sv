// qp_pick: a bit per QP for N QPs, in distributed RAM, and the round-robin
// pick over it: the first set bit at or after `from`, else the first set bit
// at all (what rr_first gives over a flat N-bit vector), with one index left
// out (skip). Its cost grows with N/64, not N: the requester's scheduler at
// 16K QPs.
//
//   storage:  N/64 words of 64 bits (fewer bits when N < 64), and a summary
//             flip-flop per word (the word has a bit set)
//   pick:     the word of `from`, masked at and above from's bit; if that is
//             empty, the first word after it whose summary is set (rr_first
//             over the summary, wrapping), and that word's lowest bit. The
//             skipped index is masked out of the words read, and its word's
//             summary is recomputed without it.
//   writes:   K ports a cycle, each one bit (widx, wval), at the cycle's end
//             (the pick and the reads see the old bits, as a flip-flop
//             vector's). Two ports that write the same bit must write the
//             same value. Ports that hit the same word are merged into the
//             lowest of them. With K > 1 the words live in K banks, each
//             written by one port, and a word is the XOR of its K banks
//             (LaForest and Steffan's XOR multi-ported memory): port k
//             writes its bank with the new word XOR the other banks'.
//   reset:    a sweep clears one word a cycle (busy meanwhile: no pick,
//             writes dropped), as qp_flags.
`default_nettype none

module qp_pick #(
  parameter int N = 256,   // QPs, a power of two >= 2
  parameter int K = 1      // write ports
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire logic [K-1:0]           we,
  input  wire logic [K*$clog2(N)-1:0] widx,   // port k: [k*QW +: QW]
  input  wire logic [K-1:0]           wval,
  input  wire logic [$clog2(N)-1:0]   from,
  input  wire logic                   skip_en,
  input  wire logic [$clog2(N)-1:0]   skip,
  output logic                        any,
  output logic [$clog2(N)-1:0]        idx,
  output logic                        busy
);
  localparam int QW = $clog2(N);
  localparam int B  = N < 64 ? N : 64;     // bits per word
  localparam int BW = $clog2(B);
  localparam int NW = N / B;               // words
  localparam int AW = NW > 1 ? $clog2(NW) : 1;

  initial begin
    if ((1 << QW) != N || N < 2) $error("qp_pick: N must be a power of two >= 2");
    if (K < 1 || K > 8) $error("qp_pick: K must be 1 .. 8");
  end

  function automatic logic [AW-1:0] word_of(input logic [QW-1:0] q);
    word_of = (NW > 1) ? AW'(q >> BW) : AW'(0);
  endfunction
  /* verilator lint_off UNUSEDSIGNAL */  // (the word's address bits)
  function automatic logic [BW-1:0] bit_of(input logic [QW-1:0] q);
    bit_of = BW'(q);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // the lowest set bit of a word (log depth, as rr_first)
  function automatic logic [BW-1:0] lowest(input logic [B-1:0] v);
    logic [B-1:0] below, one;
    logic [BW-1:0] r;
    below = v;
    for (int l = 0; l < BW; l++) below = below | (below << (1 << l));
    one = v & ~(below << 1);
    r = '0;
    for (int b = 0; b < BW; b++)
      for (int i = 0; i < B; i++)
        if (((i >> b) & 1) == 1 && one[i]) r[b] = 1'b1;
    lowest = r;
  endfunction

  logic [NW-1:0] sum_q;
  logic [AW-1:0] sweep_q;   // the reset sweep (ram_sweep): word sweep_q of every bank cleared while busy_q
  logic          busy_q;

  // Bank k's reads (flat vectors: Yosys 0.23 has no arrays of arrays):
  // at the pick's three words and at every port's word.
  logic [AW-1:0]     fw, sw, nw;
  logic [K*AW-1:0]   wa;                 // port k's word
  logic [K*B-1:0]    rd_f, rd_s, rd_n;   // bank k's word at fw, sw, nw
  logic [K*K*B-1:0]  rd_w;               // bank k's word at port j's: [(k*K+j)*B +: B]
  logic [K-1:0]      lead;               // port k writes its bank (the lowest port at its word)
  logic [K*B-1:0]    nxt, others;        // port k's new word; the other banks' XOR there

  for (genvar k = 0; k < K; k++) begin : g_bank
    logic [B-1:0]  mem [NW];
    logic          m_we;
    logic [AW-1:0] m_addr;
    logic [B-1:0]  m_data;
    assign rd_f[k*B +: B] = mem[fw];
    assign rd_s[k*B +: B] = mem[sw];
    assign rd_n[k*B +: B] = mem[nw];
    for (genvar j = 0; j < K; j++) begin : g_rd
      assign rd_w[(k*K+j)*B +: B] = mem[wa[j*AW +: AW]];
    end
    always_comb begin
      m_we   = busy_q || (lead[k] && !rst);
      m_addr = busy_q ? sweep_q : wa[k*AW +: AW];
      m_data = busy_q ? B'(0) : nxt[k*B +: B] ^ others[k*B +: B];
    end
    always_ff @(posedge clk)
      if (m_we) mem[m_addr] <= m_data;
  end

  // ---- the pick: a word is the XOR of its banks
  logic [B-1:0]  f_word, s_word, n_word, skip_mask, f_cand, n_cand;
  logic [NW-1:0] sum_eff;
  logic          n_any;
  logic [AW-1:0] n_from, n_idx;
  assign fw = word_of(from);
  assign sw = word_of(skip);
  assign nw = n_idx;
  always_comb
    for (int k = 0; k < K; k++) wa[k*AW +: AW] = word_of(widx[k*QW +: QW]);
  always_comb begin
    f_word = '0;
    s_word = '0;
    for (int k = 0; k < K; k++) begin
      f_word = f_word ^ rd_f[k*B +: B];
      s_word = s_word ^ rd_s[k*B +: B];
    end
    skip_mask = skip_en ? (B'(1) << bit_of(skip)) : B'(0);
    f_cand = f_word & ~((fw == sw) ? skip_mask : B'(0)) & ~((B'(1) << bit_of(from)) - B'(1));
    sum_eff = sum_q;
    if (skip_en) sum_eff[sw] = (s_word & ~skip_mask) != '0;
    n_from = fw + AW'(1);
  end
  if (NW > 1) begin : g_sum
    rr_first #(.N(NW)) u_sum (.req(sum_eff), .from(n_from), .any(n_any), .idx(n_idx));
  end else begin : g_one
    /* verilator lint_off UNUSEDSIGNAL */
    logic unused_from;
    /* verilator lint_on UNUSEDSIGNAL */
    assign unused_from = n_from[0];
    assign n_any = sum_eff[0];
    assign n_idx = '0;
  end
  always_comb begin
    n_word = '0;
    for (int k = 0; k < K; k++) n_word = n_word ^ rd_n[k*B +: B];
    n_cand = n_word & ~((nw == sw) ? skip_mask : B'(0));
    any = !busy && n_any;
    if (f_cand != '0) idx = QW'({fw, lowest(f_cand)});
    else              idx = QW'({nw, lowest(n_cand)});
  end

  // ---- writes: the ports that hit one word merge into the lowest of them
  logic [B-1:0] cur_w, nxt_w, oth_w;
  logic [AW-1:0] wa_k, wa_j;
  always_comb begin
    for (int k = 0; k < K; k++) begin
      wa_k = wa[k*AW +: AW];
      cur_w = '0;
      for (int j = 0; j < K; j++) cur_w = cur_w ^ rd_w[(j*K+k)*B +: B];
      oth_w = cur_w ^ rd_w[(k*K+k)*B +: B];
      lead[k] = we[k];
      nxt_w = cur_w;
      for (int j = 0; j < K; j++) begin
        wa_j = wa[j*AW +: AW];
        if (j < k && we[j] && wa_j == wa_k) lead[k] = 1'b0;
        if (we[j] && wa_j == wa_k)
          nxt_w = (nxt_w & ~(B'(1) << bit_of(widx[j*QW +: QW]))) | (B'(wval[j]) << bit_of(widx[j*QW +: QW]));
      end
      nxt[k*B +: B] = nxt_w;
      others[k*B +: B] = oth_w;
    end
  end

  // summary: one bit per word, rewritten with each word written
  logic [NW-1:0] sum_d;
  always_comb begin
    sum_d = sum_q;
    for (int k = 0; k < K; k++)
      if (lead[k]) sum_d[wa[k*AW +: AW]] = nxt[k*B +: B] != '0;
  end
  always_ff @(posedge clk) begin
    if (rst || busy_q) sum_q <= '0;
    else sum_q <= sum_d;
  end

  ram_sweep #(.WORDS(NW)) u_sweep (.clk, .rst, .sweeping(busy_q), .addr(sweep_q), .busy);
endmodule

`default_nettype wire
