// req_issue: walks a send WQE's gather list and issues its payload reads.
//
//   message bytes   |<-------------------- length ------------------------->|
//   packets         |<---- mtu ---->|<---- mtu ---->|<---- mtu ---->|<-last->|
//   SGEs            |<--- SGE 0 --->...|<-------- SGE 1 ----------->...       |
//   page runs       one mr_req each (the SGE's first run comes from its check)
//   pieces          one dma_rd_req each: never crosses an SGE end, a page run
//                   end, a 4 KiB bus-address boundary or a packet end
//
// Each piece goes to the piece FIFO ({zero, ends packet, len}) when its read
// is issued; each packet's count of read-data beats goes to the packet FIFO
// when its last piece is issued. Reads are issued only against free space in
// the payload buffer (RAW_DEPTH beats, released one per beat consumed), so
// read data is always taken and several reads are outstanding.
//
// A walk that starts at `offset` (sending again from a packet in the middle
// of the message after a rewind) first steps over the SGEs that end before
// it, a cycle each, then asks for the translation of the page run at the
// offset inside its SGE.
//
// A page run whose translation fails (possible only if the MR changed after
// the check) is not read: its pieces are zero pieces (filled with zeros, no
// DMA), and `err` reports it so that the WQE completes with LOC_PROT_ERR.
`default_nettype none

module req_issue #(
  parameter int DATA_W = 512,
  parameter int RAW_DEPTH = 256
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  // one message: start pulse; the other inputs hold until the walk is done
  input  wire logic                  start,
  input  wire logic [roce_pkg::MAX_SGE*128-1:0] sge_tbl,  // WQE bytes from 32: SGE i at 16*i
  input  wire logic [roce_pkg::MAX_SGE-1:0]     sge_act,  // SGEs that carry bytes (i < num_sge, length > 0)
  input  wire logic [roce_pkg::MAX_SGE*64-1:0]  chk_pa,   // translation of each SGE's first page run
  input  wire logic [roce_pkg::MAX_SGE*32-1:0]  chk_run,
  // the check's answer for SGE chk_now_sge on s_mr_resp in the start's cycle
  // (not yet in chk_pa/chk_run): the walk starts from it
  input  wire logic                  chk_now,
  input  wire logic [4:0]            chk_now_sge,
  input  wire logic [15:0]           pd,
  input  wire logic [31:0]           length,      // > 0
  input  wire logic [31:0]           offset,      // bytes not sent again: a multiple of the mtu, < length
  input  wire logic [3:0]            mtu_lg,      // log2(mtu): 8..12
  output logic                       err,
  // translations of later page runs
  output roce_pkg::mr_req_t          m_mr_req,
  output logic                       m_mr_req_valid,
  input  wire logic                  m_mr_req_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // the tag is not needed: answers come in order
  input  wire roce_pkg::mr_resp_t    s_mr_resp,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_mr_resp_valid,
  output logic                       s_mr_resp_ready,
  // payload reads
  output roce_pkg::dma_rd_req_t      m_dma_rd_req,
  output logic                       m_dma_rd_req_valid,
  input  wire logic                  m_dma_rd_req_ready,
  // piece FIFO push ({zero, pkt_last, len}) and packet FIFO push (read beats of the packet)
  output logic                       pc_push,
  output logic [14:0]                pc_data,
  input  wire logic                  pc_ready,
  output logic                       pk_push,
  output logic [$clog2(RAW_DEPTH):0] pk_need,     // read beats of the packet
  input  wire logic                  pk_ready,
  input  wire logic                  release_beat   // one beat of the payload buffer consumed
);
  localparam int W  = DATA_W / 8;
  localparam int WB = $clog2(W);
  localparam int FW = $clog2(RAW_DEPTH) + 1;
  localparam int NEED_W = FW;
  localparam int NSGE = roce_pkg::MAX_SGE;   // SGEs per WQE (16)

  initial begin
    if ((1 << WB) != W) $error("req_issue: DATA_W/8 must be a power of two");
    if ((1 << (FW - 1)) != RAW_DEPTH) $error("req_issue: RAW_DEPTH must be a power of two");
    if (RAW_DEPTH < 2 * 4096 / W + 32) $error("req_issue: RAW_DEPTH must hold a 4096-byte packet in pieces");
  end

  logic              busy_q, err_q, first_q, run_v_q, zero_q, treq_q, twait_q, seek_q;
  logic [31:0]       off_q;       // seek: bytes still to step over
  logic [4:0]        sge_q;
  logic [63:0]       va_q, pa_q;
  logic [31:0]       sge_rem_q, run_rem_q, msg_rem_q;
  logic [12:0]       pkt_rem_q;
  logic [NEED_W-1:0] need_q;
  logic [FW-1:0]     free_q;

  // SGE i of the table (i < NSGE)
  function automatic logic [63:0] sge_addr(input logic [NSGE*128-1:0] t, input logic [4:0] i);
    sge_addr = t[128*32'(i) +: 64];
  endfunction
  function automatic logic [31:0] sge_len(input logic [NSGE*128-1:0] t, input logic [4:0] i);
    sge_len = t[128*32'(i) + 64 +: 32];
  endfunction
  function automatic logic [31:0] sge_lkey(input logic [NSGE*128-1:0] t, input logic [4:0] i);
    sge_lkey = t[128*32'(i) + 96 +: 32];
  endfunction
  // the first SGE at or after `from` that carries bytes (NSGE: none)
  function automatic logic [4:0] next_act(input logic [NSGE-1:0] m, input logic [4:0] from);
    next_act = 5'(NSGE);
    for (int i = NSGE - 1; i >= 0; i--) if (m[i] && 5'(i) >= from) next_act = 5'(i);
  endfunction
  function automatic logic [12:0] min_mtu(input logic [31:0] x, input logic [3:0] lg);
    min_mtu = (x < (32'd1 << lg)) ? x[12:0] : 13'd1 << lg;
  endfunction

  logic [4:0]  sge_cur, sge_nxt, sge_first;
  logic [12:0] lim, len;
  logic [NEED_W-1:0] beats;
  logic        pend, can, push;

  always_comb begin
    sge_cur = (sge_q < 5'(NSGE)) ? sge_q : 5'd0;
    sge_nxt = next_act(sge_act, sge_q + 5'd1);
    sge_first = next_act(sge_act, 5'd0);

    m_mr_req        = '0;
    m_mr_req.tag    = {3'b001, sge_q};   // a later run of SGE sge_q (an SGE's check: its index)
    m_mr_req.key    = sge_lkey(sge_tbl, sge_cur);
    m_mr_req.pd     = pd;
    m_mr_req.va     = va_q;
    m_mr_req.len    = sge_rem_q;
    m_mr_req_valid  = busy_q && !seek_q && !run_v_q && treq_q;
    s_mr_resp_ready = busy_q && !seek_q && !run_v_q && twait_q;

    // the next piece: up to the run end, the packet end and the 4 KiB boundary
    lim = zero_q ? 13'd4096 : 13'd4096 - {1'b0, pa_q[11:0]};
    len = pkt_rem_q;
    if ({19'b0, len} > run_rem_q) len = run_rem_q[12:0];
    if (len > lim) len = lim;
    beats = zero_q ? '0 : NEED_W'((len + 13'(W - 1)) >> WB);
    pend  = len == pkt_rem_q;
    can   = busy_q && !seek_q && run_v_q && pc_ready && (!pend || pk_ready) && beats <= free_q;
    m_dma_rd_req       = '0;
    m_dma_rd_req.tag   = 8'(roce_pkg::DMA_TAG_PAYLOAD);
    m_dma_rd_req.addr  = pa_q;
    m_dma_rd_req.len   = len;
    m_dma_rd_req_valid = can && !zero_q;
    pc_data = {zero_q, pend, len};
    pk_need = need_q + beats;
  end

  // the push depends on m_dma_rd_req_ready: apart from the block above, which
  // computes the request (no valid depends on a ready)
  assign push    = can && (zero_q || m_dma_rd_req_ready);
  assign pc_push = push;
  assign pk_push = push && pend;

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0;
      err_q <= 1'b0;
      first_q <= 1'b0;
      run_v_q <= 1'b0;
      zero_q <= 1'b0;
      treq_q <= 1'b0;
      twait_q <= 1'b0;
      seek_q <= 1'b0;
      off_q <= '0;
      sge_q <= '0;
      va_q <= '0;
      pa_q <= '0;
      sge_rem_q <= '0;
      run_rem_q <= '0;
      msg_rem_q <= '0;
      pkt_rem_q <= '0;
      need_q <= '0;
      free_q <= FW'(RAW_DEPTH);
    end else begin
      free_q <= free_q - (push ? beats : '0) + (release_beat ? FW'(1) : '0);
      if (start) begin
        busy_q <= 1'b1;
        err_q <= 1'b0;
        sge_q <= sge_first;
        va_q <= sge_addr(sge_tbl, sge_first);
        sge_rem_q <= sge_len(sge_tbl, sge_first);
        first_q <= 1'b1;
        run_v_q <= 1'b0;
        zero_q <= 1'b0;
        treq_q <= 1'b0;
        twait_q <= 1'b0;
        msg_rem_q <= length - offset;
        pkt_rem_q <= min_mtu(length - offset, mtu_lg);
        need_q <= '0;
        seek_q <= offset != 32'd0;
        off_q <= offset;
        if (offset == 32'd0) begin
          // from the start: the first SGE's first run is the check's, at hand
          // (its first piece may be read in the next cycle)
          pa_q <= (chk_now && chk_now_sge == sge_first) ? s_mr_resp.pa : chk_pa[64*32'(sge_first[3:0]) +: 64];
          run_rem_q <= (chk_now && chk_now_sge == sge_first) ? s_mr_resp.run : chk_run[32*32'(sge_first[3:0]) +: 32];
          run_v_q <= 1'b1;
          first_q <= 1'b0;
        end
      end else if (busy_q) begin
        if (seek_q) begin
          // step over the SGEs that end before the offset, then start inside one
          if (off_q >= sge_rem_q) begin
            off_q <= off_q - sge_rem_q;
            sge_q <= sge_nxt;
            va_q <= sge_addr(sge_tbl, (sge_nxt < 5'(NSGE)) ? sge_nxt : 5'd0);
            sge_rem_q <= sge_len(sge_tbl, (sge_nxt < 5'(NSGE)) ? sge_nxt : 5'd0);
          end else begin
            va_q <= va_q + {32'b0, off_q};
            sge_rem_q <= sge_rem_q - off_q;
            seek_q <= 1'b0;
            if (off_q != 32'd0) begin
              first_q <= 1'b0;   // the check translated the SGE's start: ask for the run at the offset
              treq_q <= 1'b1;
            end
          end
        end else if (!run_v_q) begin
          if (first_q) begin
            pa_q <= chk_pa[64*32'(sge_cur) +: 64];
            run_rem_q <= chk_run[32*32'(sge_cur) +: 32];
            zero_q <= 1'b0;
            run_v_q <= 1'b1;
            first_q <= 1'b0;
          end else if (treq_q) begin
            if (m_mr_req_ready) begin
              treq_q <= 1'b0;
              twait_q <= 1'b1;
            end
          end else if (twait_q && s_mr_resp_valid) begin
            twait_q <= 1'b0;
            run_v_q <= 1'b1;
            if (s_mr_resp.status == roce_pkg::MR_STATUS_OK) begin
              pa_q <= s_mr_resp.pa;
              run_rem_q <= s_mr_resp.run;
              zero_q <= 1'b0;
            end else begin
              run_rem_q <= sge_rem_q;
              zero_q <= 1'b1;
              err_q <= 1'b1;
            end
          end
        end else if (push) begin
          pa_q <= pa_q + {51'b0, len};
          va_q <= va_q + {51'b0, len};
          run_rem_q <= run_rem_q - {19'b0, len};
          sge_rem_q <= sge_rem_q - {19'b0, len};
          msg_rem_q <= msg_rem_q - {19'b0, len};
          if (pend) begin
            need_q <= '0;
            pkt_rem_q <= min_mtu(msg_rem_q - {19'b0, len}, mtu_lg);
          end else begin
            need_q <= need_q + beats;
            pkt_rem_q <= pkt_rem_q - len;
          end
          if (run_rem_q == {19'b0, len}) begin
            run_v_q <= 1'b0;
            if (sge_rem_q == {19'b0, len}) begin
              sge_q <= sge_nxt;
              va_q <= sge_addr(sge_tbl, (sge_nxt < 5'(NSGE)) ? sge_nxt : 5'd0);
              sge_rem_q <= sge_len(sge_tbl, (sge_nxt < 5'(NSGE)) ? sge_nxt : 5'd0);
              first_q <= 1'b1;
            end else begin
              treq_q <= 1'b1;
            end
          end
          if (msg_rem_q == {19'b0, len}) busy_q <= 1'b0;
        end
      end
    end
  end

  assign err  = err_q;
endmodule

`default_nettype wire
