// mr_arb: the MR table shared by four clients (0 = requester, 1 =
// responder's checker, 2 = read_place: where READ response data lands, 3 =
// the responder's READ walker: the later page runs of the READs it answers).
//
//   s_req0, s_req1 ──► desc_arb2 ──┐
//   s_req2 ────────────────────────┴► desc_arb2 ──┐
//   s_req3 ───────────────────────────────────────┴► desc_arb2 ──► m_req (tag[7:6] = client)
//   s_resp (tag[7:6] = client) ──► m_resp0 .. m_resp3 (tag[7:6] cleared)
//
// mr_table answers in request order and returns the tag; bits 7:6 route the
// answer back, so a client has tag[5:0] for its own use. Combinational, no
// buffering.
`default_nettype none

module mr_arb (
  input  wire logic               clk,
  input  wire logic               rst,
  input  wire roce_pkg::mr_req_t  s_req0,
  input  wire logic               s_req0_valid,
  output logic                    s_req0_ready,
  input  wire roce_pkg::mr_req_t  s_req1,
  input  wire logic               s_req1_valid,
  output logic                    s_req1_ready,
  input  wire roce_pkg::mr_req_t  s_req2,
  input  wire logic               s_req2_valid,
  output logic                    s_req2_ready,
  input  wire roce_pkg::mr_req_t  s_req3,
  input  wire logic               s_req3_valid,
  output logic                    s_req3_ready,
  output roce_pkg::mr_req_t       m_req,
  output logic                    m_req_valid,
  input  wire logic               m_req_ready,
  input  wire roce_pkg::mr_resp_t s_resp,
  input  wire logic               s_resp_valid,
  output logic                    s_resp_ready,
  output roce_pkg::mr_resp_t      m_resp0,
  output logic                    m_resp0_valid,
  input  wire logic               m_resp0_ready,
  output roce_pkg::mr_resp_t      m_resp1,
  output logic                    m_resp1_valid,
  input  wire logic               m_resp1_ready,
  output roce_pkg::mr_resp_t      m_resp2,
  output logic                    m_resp2_valid,
  input  wire logic               m_resp2_ready,
  output roce_pkg::mr_resp_t      m_resp3,
  output logic                    m_resp3_valid,
  input  wire logic               m_resp3_ready,
  output logic                    idle
);
  /* verilator lint_off UNUSEDSIGNAL */  // tag bits 7:6 of a client's request are replaced by the client index
  roce_pkg::mr_req_t arb01, arb012, arb_req;
  /* verilator lint_on UNUSEDSIGNAL */
  roce_pkg::mr_resp_t resp;
  logic arb01_valid, arb01_ready, arb012_valid, arb012_ready, sel01, sel012, sel0123, idle01, idle012, idle0123;
  logic [1:0] from012;
  logic [1:0] to;

  desc_arb2 #(.WIDTH(roce_pkg::MR_REQ_W)) u_arb01 (
    .clk, .rst,
    .s0(s_req0), .s0_valid(s_req0_valid), .s0_ready(s_req0_ready),
    .s1(s_req1), .s1_valid(s_req1_valid), .s1_ready(s_req1_ready),
    .m(arb01), .m_valid(arb01_valid), .m_ready(arb01_ready), .m_sel(sel01),
    .idle(idle01));
  // the client index of 0..2 travels in tag[7:6] through the last stage
  always_comb begin
    from012 = sel012 ? 2'd2 : {1'b0, sel01};
  end
  roce_pkg::mr_req_t arb012_in;
  always_comb begin
    arb012_in = arb012;
    arb012_in.tag = {from012, arb012.tag[5:0]};
  end
  desc_arb2 #(.WIDTH(roce_pkg::MR_REQ_W)) u_arb012 (
    .clk, .rst,
    .s0(arb01), .s0_valid(arb01_valid), .s0_ready(arb01_ready),
    .s1(s_req2), .s1_valid(s_req2_valid), .s1_ready(s_req2_ready),
    .m(arb012), .m_valid(arb012_valid), .m_ready(arb012_ready), .m_sel(sel012),
    .idle(idle012));
  desc_arb2 #(.WIDTH(roce_pkg::MR_REQ_W)) u_arb0123 (
    .clk, .rst,
    .s0(arb012_in), .s0_valid(arb012_valid), .s0_ready(arb012_ready),
    .s1(s_req3), .s1_valid(s_req3_valid), .s1_ready(s_req3_ready),
    .m(arb_req), .m_valid(m_req_valid), .m_ready(m_req_ready), .m_sel(sel0123),
    .idle(idle0123));
  assign idle = idle01 && idle012 && idle0123;

  always_comb begin
    m_req = arb_req;
    m_req.tag = {sel0123 ? 2'd3 : arb_req.tag[7:6], arb_req.tag[5:0]};
    to = s_resp.tag[7:6];
    resp = s_resp;
    resp.tag = {2'b0, s_resp.tag[5:0]};
    m_resp0 = resp;
    m_resp1 = resp;
    m_resp2 = resp;
    m_resp3 = resp;
    m_resp0_valid = s_resp_valid && to == 2'd0;
    m_resp1_valid = s_resp_valid && to == 2'd1;
    m_resp2_valid = s_resp_valid && to == 2'd2;
    m_resp3_valid = s_resp_valid && to == 2'd3;
    s_resp_ready = to == 2'd0 ? m_resp0_ready : to == 2'd1 ? m_resp1_ready : to == 2'd2 ? m_resp2_ready
                 : m_resp3_ready;
  end
endmodule

`default_nettype wire
