// mr_table: memory regions, memory windows and their translation. Every
// local and remote access the engine makes is checked here first (IBTA
// 10.6: key, PD, rights, bounds) and its first page translated through the
// MTT; window binds and invalidations (IBTA 10.6.7) are done here too, so a
// window's state changes in request order with the accesses that use it.
//
//   key = index[31:8] | key byte[7:0]          (lkey == rkey, as rxe)
//   MR table[index]  : valid key pd access iova length mtt_base page_shift mw_bind
//                      | window: mw mw_type2 qpn mr_index mr_key (valid = bound)
//   MTT[mtt_base + p]: bus address of page p of the region (page = 2^page_shift)
//
//   CHECK (first failure wins):
//     BAD_KEY        index >= MAX_MR, entry not valid, key byte differs, a
//                    window's key used as an lkey (remote = 0), a type 2
//                    window asked by another QP, a window whose MR is gone
//     BAD_PD         pd differs
//     NO_ACCESS      requested rights not all granted (0 = local read, always granted)
//     OUT_OF_BOUNDS  [va, va+len) not inside the region (a window: inside the
//                    window and its MR), or its page beyond the MTT
//     OK: pa = MTT[mtt_base + (va - page_base(iova)) >> page_shift] + va % page,
//         run = min(len, page - va % page), with the MR's iova / mtt_base / page_shift
//   BIND (A = the window at key, B = the MR at mr_key):
//     BAD_KEY   A no entry or not a window; B not a valid MR with that key byte
//     BAD_PD    A's or B's pd differs from the QP's
//     BAD_STATE A is type 2 and bound already, or a type 2 bind of length 0
//               (IBTA o10-37.2.40: a type 2 window is freed by invalidation)
//     (a type 1 bind of length 0 unbinds: B is not consulted, as rxe with no MR)
//     NO_ACCESS B lacks mw_bind, or the window grants remote write / atomic
//               and B lacks local write (as rxe's bind check)
//     OUT_OF_BOUNDS [va, va+len) not inside B
//     OK: A = {bound unless len = 0, key byte from key, va, len, access, qpn
//         (type 2), B's index and key byte}
//   INVALIDATE (A = the entry at key):
//     BAD_KEY   no valid entry with that key byte
//     BAD_STATE an MR (REG_MR regions cannot be invalidated, as rxe and mlx5)
//               or a type 1 window
//     BAD_PD    A's pd differs; remote (SEND_WITH_INV) from another QP than
//               the one A is bound to: BAD_KEY
//     OK: A unbound (valid = 0), the rest kept
//
// Pipeline: S1 holds the request with its entry A (a registered read of the
// table); a CHECK through a window and a BIND stay one more cycle in S1 to
// read their MR (B) through the same read port. S1 decides, writes a BIND's
// or INVALIDATE's entry as the request moves on (the read port is
// write-first, so the next request sees it) and reads the MTT; the response
// leaves from S2. Both stages stall together when the response is not taken.
// Table writes from the command path are always accepted (an index beyond
// the table is ignored) and seen by a read in the same cycle; an op's own
// write waits a cycle for one. The command path must not rewrite an MR or
// MTT entry while requests that use it are in flight -- the model assumes
// the same; its cross-check loads tables first.
`default_nettype none

module mr_table #(
  parameter int MAX_MR    = 1024,
  parameter int MTT_DEPTH = 4096
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  // table writes
  input  wire logic [15:0]           s_mr_wr_index,
  input  wire roce_pkg::mr_ctx_t     s_mr_wr_ctx,
  input  wire logic                  s_mr_wr_valid,
  input  wire logic [15:0]           s_mtt_wr_index,
  input  wire logic [63:0]           s_mtt_wr_pa,
  input  wire logic                  s_mtt_wr_valid,
  // checks, binds, invalidations
  input  wire roce_pkg::mr_req_t     s_req,
  input  wire logic                  s_req_valid,
  output logic                       s_req_ready,
  output roce_pkg::mr_resp_t         m_resp,
  output logic                       m_resp_valid,
  input  wire logic                  m_resp_ready
);
  localparam int MW = $clog2(MAX_MR);
  localparam int TW = $clog2(MTT_DEPTH);

  initial begin
    if ((1 << MW) != MAX_MR || MAX_MR > 32768) $error("mr_table: MAX_MR must be a power of two <= 32768");
    if ((1 << TW) != MTT_DEPTH || MTT_DEPTH > 32768) $error("mr_table: MTT_DEPTH must be a power of two <= 32768");
  end

  // Plain vectors, not an array of packed structs: Yosys 0.23 collapses the
  // latter into one register (DESIGN.md §9); the struct is applied on read.
  logic [roce_pkg::MR_CTX_W-1:0] mr_mem [MAX_MR];
  logic [63:0]       mtt_mem [MTT_DEPTH];

  logic advance;                      // S2 can take S1's request
  assign advance = !m_resp_valid || m_resp_ready;

  // ---- S1: the request and its entries
  logic              s1_valid_q;
  roce_pkg::mr_req_t s1_req_q;
  logic              s1_a_in_q;       // key index below MAX_MR
  logic              s1_has_b_q;      // B has been read: A is in a_q, B in rd_q
  roce_pkg::mr_ctx_t rd_q;            // the registered read of mr_mem
  roce_pkg::mr_ctx_t a_q;             // A while B is read
  logic              b_in_q;          // B's index below MAX_MR

  roce_pkg::mr_ctx_t a;
  /* verilator lint_off UNUSEDSIGNAL */
  roce_pkg::mr_ctx_t b;               // an MR: its window fields (type2, qpn, mr_index, mr_key) are never read
  /* verilator lint_on UNUSEDSIGNAL */
  logic        need_b, b_in, s1_go, s1_take;
  logic [15:0] b_index;
  logic        op_wr;                 // S1's op writes its window as it moves on
  roce_pkg::mr_ctx_t op_ctx;
  logic [MW-1:0] rd_addr;
  logic          wr_en;
  logic [MW-1:0] wr_addr;
  roce_pkg::mr_ctx_t wr_ctx;

  always_comb begin
    a = s1_has_b_q ? a_q : rd_q;
    b = rd_q;
    b_index = (s1_req_q.op == roce_pkg::MR_OP_BIND) ? s1_req_q.mr_key[23:8] : a.mr_index;
    // a BIND reads its MR; a CHECK of a valid window reads the window's MR
    b_in = (s1_req_q.op == roce_pkg::MR_OP_BIND) ? s1_req_q.mr_key[31:8] < 24'(MAX_MR) : a.mr_index < 16'(MAX_MR);
    need_b = s1_valid_q && !s1_has_b_q && s1_a_in_q && a.mw &&
             (s1_req_q.op == roce_pkg::MR_OP_BIND || (s1_req_q.op != roce_pkg::MR_OP_INVALIDATE && a.valid));
  end

  // ---- S1 decision
  logic [2:0]  chk_status;
  logic [63:0] off, page, in_page, page_base, mtt_idx_wide, b_off;
  logic [31:0] run;
  logic [63:0] t_iova;                // the MR whose pages translate (A, or a window's B)
  logic [15:0] t_mtt_base;
  logic [5:0]  t_page_shift;
  logic        a_key_ok, b_key_ok, in_a, in_b;

  always_comb begin
    t_iova = (a.mw && s1_has_b_q) ? b.iova : a.iova;
    t_mtt_base = (a.mw && s1_has_b_q) ? b.mtt_base : a.mtt_base;
    t_page_shift = (a.mw && s1_has_b_q) ? b.page_shift : a.page_shift;
    page = 64'd1 << t_page_shift;
    in_page = s1_req_q.va & (page - 64'd1);
    page_base = t_iova & ~(page - 64'd1);
    mtt_idx_wide = 64'(t_mtt_base) + ((s1_req_q.va - page_base) >> t_page_shift);
    run = (64'(s1_req_q.len) < page - in_page) ? s1_req_q.len : 32'(page - in_page);
    a_key_ok = s1_a_in_q && a.valid && a.key == s1_req_q.key[7:0];
    b_key_ok = s1_has_b_q && b_in_q && b.valid && !b.mw;
    off = s1_req_q.va - a.iova;
    in_a = s1_req_q.va >= a.iova && off <= a.length && 64'(s1_req_q.len) <= a.length - off;
    b_off = s1_req_q.va - b.iova;
    in_b = s1_req_q.va >= b.iova && b_off <= b.length && 64'(s1_req_q.len) <= b.length - b_off;
    op_ctx = a;
    op_wr = 1'b0;
    chk_status = roce_pkg::MR_STATUS_OK;
    unique case (s1_req_q.op)
      roce_pkg::MR_OP_BIND: begin
        if (!s1_a_in_q || !a.mw)
          chk_status = roce_pkg::MR_STATUS_BAD_KEY;
        else if (a.pd != s1_req_q.pd)
          chk_status = roce_pkg::MR_STATUS_BAD_PD;
        else if (a.mw_type2 && (a.valid || s1_req_q.len == 32'd0))
          chk_status = roce_pkg::MR_STATUS_BAD_STATE;
        else if (s1_req_q.len == 32'd0)
          chk_status = roce_pkg::MR_STATUS_OK;     // a type 1 unbind: no MR needed
        else if (!b_key_ok || b.key != s1_req_q.mr_key[7:0])
          chk_status = roce_pkg::MR_STATUS_BAD_KEY;
        else if (b.pd != s1_req_q.pd)
          chk_status = roce_pkg::MR_STATUS_BAD_PD;
        else if (!b.mw_bind || ((s1_req_q.access & (roce_pkg::ACCESS_REMOTE_WRITE | roce_pkg::ACCESS_REMOTE_ATOMIC)) != 4'b0
                               && (b.access & roce_pkg::ACCESS_LOCAL_WRITE) == 4'b0))
          chk_status = roce_pkg::MR_STATUS_NO_ACCESS;
        else if (!in_b)
          chk_status = roce_pkg::MR_STATUS_OUT_OF_BOUNDS;
        if (s1_req_q.op == roce_pkg::MR_OP_BIND && chk_status == roce_pkg::MR_STATUS_OK) begin
          op_wr = 1'b1;
          op_ctx.valid = s1_req_q.len != 32'd0;
          op_ctx.key = s1_req_q.key[7:0];
          op_ctx.access = s1_req_q.access & ~roce_pkg::ACCESS_LOCAL_WRITE;
          op_ctx.iova = s1_req_q.va;
          op_ctx.length = 64'(s1_req_q.len);
          op_ctx.mtt_base = '0;
          op_ctx.page_shift = '0;
          op_ctx.mw_bind = 1'b0;
          op_ctx.qpn = a.mw_type2 ? s1_req_q.qpn : 24'd0;
          op_ctx.mr_index = b_index;
          op_ctx.mr_key = b.key;
          if (s1_req_q.len == 32'd0) begin   // unbound: nothing of a range or an MR kept
            op_ctx.access = '0;
            op_ctx.iova = '0;
            op_ctx.qpn = '0;
            op_ctx.mr_index = '0;
            op_ctx.mr_key = '0;
          end
        end
      end
      roce_pkg::MR_OP_INVALIDATE: begin
        if (!a_key_ok)
          chk_status = roce_pkg::MR_STATUS_BAD_KEY;
        else if (!a.mw || !a.mw_type2)
          chk_status = roce_pkg::MR_STATUS_BAD_STATE;
        else if (a.pd != s1_req_q.pd)
          chk_status = roce_pkg::MR_STATUS_BAD_PD;
        else if (s1_req_q.remote && a.qpn != s1_req_q.qpn)
          chk_status = roce_pkg::MR_STATUS_BAD_KEY;
        else begin
          op_wr = 1'b1;
          op_ctx.valid = 1'b0;
        end
      end
      default: begin  // CHECK (and the reserved op 3, answered as one)
        if (!a_key_ok || (a.mw && (!s1_req_q.remote || (a.mw_type2 && a.qpn != s1_req_q.qpn) ||
                                   !b_key_ok || b.key != a.mr_key)))
          chk_status = roce_pkg::MR_STATUS_BAD_KEY;
        else if (a.pd != s1_req_q.pd)
          chk_status = roce_pkg::MR_STATUS_BAD_PD;
        else if ((s1_req_q.access & ~a.access) != 4'b0)
          chk_status = roce_pkg::MR_STATUS_NO_ACCESS;
        else if (!in_a || (a.mw && !in_b) || mtt_idx_wide >= 64'(MTT_DEPTH))
          chk_status = roce_pkg::MR_STATUS_OUT_OF_BOUNDS;
      end
    endcase
  end

  // one write port: a command write that cycle holds an op's write back a cycle
  assign s1_go = s1_valid_q && !need_b && advance && !(op_wr && s_mr_wr_valid);
  assign s1_take = !s1_valid_q || s1_go;
  assign s_req_ready = s1_take;

  always_comb begin
    rd_addr = need_b ? b_index[MW-1:0] : s_req.key[8 +: MW];
  end

  always_comb begin
    wr_en = 1'b0;
    wr_addr = s_mr_wr_index[MW-1:0];
    wr_ctx = s_mr_wr_ctx;
    if (s_mr_wr_valid && s_mr_wr_index < 16'(MAX_MR)) begin
      wr_en = 1'b1;
    end else if (s1_go && op_wr) begin
      wr_en = 1'b1;
      wr_addr = s1_req_q.key[8 +: MW];  // the window (A) of a BIND or INVALIDATE
      wr_ctx = op_ctx;
    end
  end

  // A write-first (transparent) read: an op's write in this cycle is what the
  // next request must see. In this form Yosys maps it to block RAM.
  always_ff @(posedge clk) begin
    if (wr_en) mr_mem[wr_addr] <= wr_ctx;
    if (need_b || s1_take) rd_q <= (wr_en && wr_addr == rd_addr) ? wr_ctx : mr_mem[rd_addr];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s1_valid_q <= 1'b0;
      s1_req_q <= '0;
      s1_a_in_q <= 1'b0;
      s1_has_b_q <= 1'b0;
      a_q <= '0;
      b_in_q <= 1'b0;
    end else if (need_b) begin
      a_q <= rd_q;
      s1_has_b_q <= 1'b1;
      b_in_q <= b_in;
    end else if (s1_take) begin
      s1_valid_q <= s_req_valid;
      s1_req_q <= s_req;
      s1_a_in_q <= s_req.key[31:8] < 24'(MAX_MR);
      s1_has_b_q <= 1'b0;
      b_in_q <= 1'b0;
    end
  end

  // ---- S2: the response (and the MTT word read as the request moves on)
  logic        s2_valid_q;
  logic [7:0]  s2_tag_q;
  logic [2:0]  s2_status_q;
  logic [63:0] s2_in_page_q;
  logic [31:0] s2_run_q;
  logic        s2_check_q;            // a CHECK: pa/run carry its translation
  logic [63:0] s2_mtt_q;              // registered read of mtt_mem

  always_ff @(posedge clk) begin
    if (s_mtt_wr_valid && s_mtt_wr_index < 16'(MTT_DEPTH)) mtt_mem[s_mtt_wr_index[TW-1:0]] <= s_mtt_wr_pa;
    if (advance) s2_mtt_q <= mtt_mem[mtt_idx_wide[TW-1:0]];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s2_valid_q <= 1'b0;
      s2_tag_q <= '0; s2_status_q <= '0; s2_in_page_q <= '0; s2_run_q <= '0; s2_check_q <= 1'b0;
    end else if (advance) begin
      s2_valid_q <= s1_go;
      s2_tag_q <= s1_req_q.tag;
      s2_status_q <= chk_status;
      s2_in_page_q <= in_page;
      s2_run_q <= run;
      s2_check_q <= s1_req_q.op != roce_pkg::MR_OP_BIND && s1_req_q.op != roce_pkg::MR_OP_INVALIDATE;
    end
  end

  // ---- response
  always_comb begin
    m_resp_valid = s2_valid_q;
    m_resp.tag = s2_tag_q;
    m_resp.status = s2_status_q;
    m_resp.pa = (s2_status_q == roce_pkg::MR_STATUS_OK && s2_check_q) ? s2_mtt_q + s2_in_page_q : 64'd0;
    m_resp.run = (s2_status_q == roce_pkg::MR_STATUS_OK && s2_check_q) ? s2_run_q : 32'd0;
  end
endmodule

`default_nettype wire
