// mr_arb: the MR table shared by two clients (0 = requester, 1 = responder).
//
//   s_req0, s_req1 (tag[6:0] the client's) ──► desc_arb2 ──► m_req (tag[7] = client)
//   s_resp (tag[7] = client) ──► m_resp0 / m_resp1 (tag[7] cleared)
//
// mr_table answers in request order and returns the tag; bit 7 routes the
// answer back. Combinational, no buffering.
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
  output logic                    idle
);
  /* verilator lint_off UNUSEDSIGNAL */  // tag bit 7 of a client's request is replaced by the client index
  roce_pkg::mr_req_t arb_req;
  /* verilator lint_on UNUSEDSIGNAL */
  roce_pkg::mr_resp_t resp;
  logic arb_sel, to1;

  desc_arb2 #(.WIDTH(roce_pkg::MR_REQ_W)) u_arb (
    .clk, .rst,
    .s0(s_req0), .s0_valid(s_req0_valid), .s0_ready(s_req0_ready),
    .s1(s_req1), .s1_valid(s_req1_valid), .s1_ready(s_req1_ready),
    .m(arb_req), .m_valid(m_req_valid), .m_ready(m_req_ready), .m_sel(arb_sel),
    .idle);

  always_comb begin
    m_req = arb_req;
    m_req.tag = {arb_sel, arb_req.tag[6:0]};
    to1 = s_resp.tag[7];
    resp = s_resp;
    resp.tag = {1'b0, s_resp.tag[6:0]};
    m_resp0 = resp;
    m_resp1 = resp;
    m_resp0_valid = s_resp_valid && !to1;
    m_resp1_valid = s_resp_valid && to1;
    s_resp_ready = to1 ? m_resp1_ready : m_resp0_ready;
  end
endmodule

`default_nettype wire
