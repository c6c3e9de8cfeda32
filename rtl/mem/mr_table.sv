// mr_table: memory regions and their translation. Every local and remote
// access the engine makes is checked here first (IBTA 10.6: key, PD, rights,
// bounds) and its first page translated through the MTT.
//
//   key = index[31:8] | key byte[7:0]          (lkey == rkey, as rxe)
//   MR table[index]  : valid key pd access iova length mtt_base page_shift
//   MTT[mtt_base + p]: bus address of page p of the region (page = 2^page_shift)
//
//   check order (first failure wins):
//     BAD_KEY        index >= MAX_MR, entry not valid, key byte differs
//     BAD_PD         pd differs
//     NO_ACCESS      requested rights not all granted (0 = local read, always granted)
//     OUT_OF_BOUNDS  [va, va+len) not inside [iova, iova+length), or its page beyond the MTT
//   OK: pa = MTT[mtt_base + (va - page_base(iova)) >> page_shift] + va % page,
//       run = min(len, page - va % page)
//
// Pipeline: S1 reads the MR entry, S2 checks and reads the MTT, the response
// leaves from S2 with the MTT word added. Both stages stall together when the
// response is not taken. Table writes (from the command path) are always
// accepted (an index beyond the table is ignored). A request reads its MR
// entry when it enters S1 (an entry written in that cycle reads old) and the
// MTT one cycle later, so the command path must not rewrite an MR or MTT
// entry while requests that use it are in flight -- the model, which reads
// both at once, assumes the same; its cross-check loads tables first.
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
  // checks
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

  logic advance;
  assign advance = !m_resp_valid || m_resp_ready;
  assign s_req_ready = advance;

  // ---- S1: MR entry read
  logic              s1_valid_q;
  roce_pkg::mr_req_t s1_req_q;
  logic              s1_in_range_q;   // key index below MAX_MR
  roce_pkg::mr_ctx_t s1_ctx_q;        // registered read of mr_mem

  always_ff @(posedge clk) begin
    if (s_mr_wr_valid && s_mr_wr_index < 16'(MAX_MR)) mr_mem[s_mr_wr_index[MW-1:0]] <= s_mr_wr_ctx;
    if (advance) s1_ctx_q <= mr_mem[s_req.key[8 +: MW]];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s1_valid_q <= 1'b0;
      s1_req_q <= '0;
      s1_in_range_q <= 1'b0;
    end else if (advance) begin
      s1_valid_q <= s_req_valid;
      s1_req_q <= s_req;
      s1_in_range_q <= s_req.key[31:8] < 24'(MAX_MR);
    end
  end

  // ---- S2: checks, MTT index
  logic [2:0]  chk_status;
  logic [63:0] off, page, in_page, page_base, mtt_idx_wide;
  logic [31:0] run;

  always_comb begin
    page = 64'd1 << s1_ctx_q.page_shift;
    in_page = s1_req_q.va & (page - 64'd1);
    page_base = s1_ctx_q.iova & ~(page - 64'd1);
    off = s1_req_q.va - s1_ctx_q.iova;
    mtt_idx_wide = 64'(s1_ctx_q.mtt_base) + ((s1_req_q.va - page_base) >> s1_ctx_q.page_shift);
    run = (64'(s1_req_q.len) < page - in_page) ? s1_req_q.len : 32'(page - in_page);
    if (!s1_in_range_q || !s1_ctx_q.valid || s1_ctx_q.key != s1_req_q.key[7:0])
      chk_status = roce_pkg::MR_STATUS_BAD_KEY;
    else if (s1_ctx_q.pd != s1_req_q.pd)
      chk_status = roce_pkg::MR_STATUS_BAD_PD;
    else if ((s1_req_q.access & ~s1_ctx_q.access) != 4'b0)
      chk_status = roce_pkg::MR_STATUS_NO_ACCESS;
    else if (s1_req_q.va < s1_ctx_q.iova || off > s1_ctx_q.length ||
             64'(s1_req_q.len) > s1_ctx_q.length - off || mtt_idx_wide >= 64'(MTT_DEPTH))
      chk_status = roce_pkg::MR_STATUS_OUT_OF_BOUNDS;
    else
      chk_status = roce_pkg::MR_STATUS_OK;
  end

  logic        s2_valid_q;
  logic [7:0]  s2_tag_q;
  logic [2:0]  s2_status_q;
  logic [63:0] s2_in_page_q;
  logic [31:0] s2_run_q;
  logic [63:0] s2_mtt_q;              // registered read of mtt_mem

  always_ff @(posedge clk) begin
    if (s_mtt_wr_valid && s_mtt_wr_index < 16'(MTT_DEPTH)) mtt_mem[s_mtt_wr_index[TW-1:0]] <= s_mtt_wr_pa;
    if (advance) s2_mtt_q <= mtt_mem[mtt_idx_wide[TW-1:0]];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      s2_valid_q <= 1'b0;
      s2_tag_q <= '0; s2_status_q <= '0; s2_in_page_q <= '0; s2_run_q <= '0;
    end else if (advance) begin
      s2_valid_q <= s1_valid_q;
      s2_tag_q <= s1_req_q.tag;
      s2_status_q <= chk_status;
      s2_in_page_q <= in_page;
      s2_run_q <= run;
    end
  end

  // ---- response
  always_comb begin
    m_resp_valid = s2_valid_q;
    m_resp.tag = s2_tag_q;
    m_resp.status = s2_status_q;
    m_resp.pa = (s2_status_q == roce_pkg::MR_STATUS_OK) ? s2_mtt_q + s2_in_page_q : 64'd0;
    m_resp.run = (s2_status_q == roce_pkg::MR_STATUS_OK) ? s2_run_q : 32'd0;
  end
endmodule

`default_nettype wire
