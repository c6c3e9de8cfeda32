// dma_rd_arb: the engine's DMA read channel shared by four clients
// (0 = requester: WQEs and payload, 1 = responder: receive WQEs, 2 = the
// responder's READ responses: their data, 3 = read_place: the send WQEs of
// READs whose response data it places).
//
//   s_req0, s_req1 ──► desc_arb2 ──┐
//   s_req2 ────────────────────────┴► desc_arb2 ──┐
//   s_req3 ───────────────────────────────────────┴► desc_arb2 ──► m_req (tag = client)
//   s_axis_rd (tid = tag) ──┬─ tid 0 ──► m_axis_rd0
//                          ├─ tid 1 ──► m_axis_rd1
//                          ├─ tid 2 ──► m_axis_rd2
//                          └─ tid 3 ──► m_axis_rd3     (other tids: dropped)
//
// The host answers reads in request order, so each client gets its own
// responses in its own request order and needs no tag of its own: the
// client's tag field is replaced by its index. tuser (poisoned) goes along.
`default_nettype none

module dma_rd_arb #(
  parameter int DATA_W = 512
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  input  wire roce_pkg::dma_rd_req_t s_req0,
  input  wire logic                  s_req0_valid,
  output logic                       s_req0_ready,
  input  wire roce_pkg::dma_rd_req_t s_req1,
  input  wire logic                  s_req1_valid,
  output logic                       s_req1_ready,
  input  wire roce_pkg::dma_rd_req_t s_req2,
  input  wire logic                  s_req2_valid,
  output logic                       s_req2_ready,
  input  wire roce_pkg::dma_rd_req_t s_req3,
  input  wire logic                  s_req3_valid,
  output logic                       s_req3_ready,
  output roce_pkg::dma_rd_req_t      m_req,
  output logic                       m_req_valid,
  input  wire logic                  m_req_ready,
  input  wire logic [DATA_W-1:0]     s_axis_rd_tdata,
  input  wire logic [DATA_W/8-1:0]   s_axis_rd_tkeep,
  input  wire logic                  s_axis_rd_tlast,
  input  wire logic                  s_axis_rd_tuser,
  input  wire logic [7:0]            s_axis_rd_tid,
  input  wire logic                  s_axis_rd_tvalid,
  output logic                       s_axis_rd_tready,
  output logic [DATA_W-1:0]          m_axis_rd0_tdata,
  output logic [DATA_W/8-1:0]        m_axis_rd0_tkeep,
  output logic                       m_axis_rd0_tlast,
  output logic                       m_axis_rd0_tuser,
  output logic                       m_axis_rd0_tvalid,
  input  wire logic                  m_axis_rd0_tready,
  output logic [DATA_W-1:0]          m_axis_rd1_tdata,
  output logic [DATA_W/8-1:0]        m_axis_rd1_tkeep,
  output logic                       m_axis_rd1_tlast,
  output logic                       m_axis_rd1_tuser,
  output logic                       m_axis_rd1_tvalid,
  input  wire logic                  m_axis_rd1_tready,
  output logic [DATA_W-1:0]          m_axis_rd2_tdata,
  output logic [DATA_W/8-1:0]        m_axis_rd2_tkeep,
  output logic                       m_axis_rd2_tlast,
  output logic                       m_axis_rd2_tuser,
  output logic                       m_axis_rd2_tvalid,
  input  wire logic                  m_axis_rd2_tready,
  output logic [DATA_W-1:0]          m_axis_rd3_tdata,
  output logic [DATA_W/8-1:0]        m_axis_rd3_tkeep,
  output logic                       m_axis_rd3_tlast,
  output logic                       m_axis_rd3_tuser,
  output logic                       m_axis_rd3_tvalid,
  input  wire logic                  m_axis_rd3_tready,
  output logic                       idle
);
  /* verilator lint_off UNUSEDSIGNAL */  // the client's tag is replaced by the client index
  roce_pkg::dma_rd_req_t arb01, arb012, arb_req;
  /* verilator lint_on UNUSEDSIGNAL */
  logic arb01_valid, arb01_ready, arb012_valid, arb012_ready, sel01, sel012, sel0123, idle01, idle012, idle0123;
  logic to0, to1, to2, to3;

  desc_arb2 #(.WIDTH(roce_pkg::DMA_RD_REQ_W)) u_arb01 (
    .clk, .rst,
    .s0(s_req0), .s0_valid(s_req0_valid), .s0_ready(s_req0_ready),
    .s1(s_req1), .s1_valid(s_req1_valid), .s1_ready(s_req1_ready),
    .m(arb01), .m_valid(arb01_valid), .m_ready(arb01_ready), .m_sel(sel01),
    .idle(idle01));
  desc_arb2 #(.WIDTH(roce_pkg::DMA_RD_REQ_W)) u_arb012 (
    .clk, .rst,
    .s0(arb01), .s0_valid(arb01_valid), .s0_ready(arb01_ready),
    .s1(s_req2), .s1_valid(s_req2_valid), .s1_ready(s_req2_ready),
    .m(arb012), .m_valid(arb012_valid), .m_ready(arb012_ready), .m_sel(sel012),
    .idle(idle012));
  desc_arb2 #(.WIDTH(roce_pkg::DMA_RD_REQ_W)) u_arb0123 (
    .clk, .rst,
    .s0(arb012), .s0_valid(arb012_valid), .s0_ready(arb012_ready),
    .s1(s_req3), .s1_valid(s_req3_valid), .s1_ready(s_req3_ready),
    .m(arb_req), .m_valid(m_req_valid), .m_ready(m_req_ready), .m_sel(sel0123),
    .idle(idle0123));
  assign idle = idle01 && idle012 && idle0123;

  always_comb begin
    m_req = arb_req;
    m_req.tag = sel0123 ? 8'd3 : sel012 ? 8'd2 : {7'b0, sel01};
    to0 = s_axis_rd_tid == 8'd0;
    to1 = s_axis_rd_tid == 8'd1;
    to2 = s_axis_rd_tid == 8'd2;
    to3 = s_axis_rd_tid == 8'd3;
    m_axis_rd0_tdata  = s_axis_rd_tdata;
    m_axis_rd0_tkeep  = s_axis_rd_tkeep;
    m_axis_rd0_tlast  = s_axis_rd_tlast;
    m_axis_rd0_tuser  = s_axis_rd_tuser;
    m_axis_rd0_tvalid = s_axis_rd_tvalid && to0;
    m_axis_rd1_tdata  = s_axis_rd_tdata;
    m_axis_rd1_tkeep  = s_axis_rd_tkeep;
    m_axis_rd1_tlast  = s_axis_rd_tlast;
    m_axis_rd1_tuser  = s_axis_rd_tuser;
    m_axis_rd1_tvalid = s_axis_rd_tvalid && to1;
    m_axis_rd2_tdata  = s_axis_rd_tdata;
    m_axis_rd2_tkeep  = s_axis_rd_tkeep;
    m_axis_rd2_tlast  = s_axis_rd_tlast;
    m_axis_rd2_tuser  = s_axis_rd_tuser;
    m_axis_rd2_tvalid = s_axis_rd_tvalid && to2;
    m_axis_rd3_tdata  = s_axis_rd_tdata;
    m_axis_rd3_tkeep  = s_axis_rd_tkeep;
    m_axis_rd3_tlast  = s_axis_rd_tlast;
    m_axis_rd3_tuser  = s_axis_rd_tuser;
    m_axis_rd3_tvalid = s_axis_rd_tvalid && to3;
    s_axis_rd_tready  = to0 ? m_axis_rd0_tready : to1 ? m_axis_rd1_tready : to2 ? m_axis_rd2_tready
                      : to3 ? m_axis_rd3_tready : 1'b1;
  end
endmodule

`default_nettype wire
