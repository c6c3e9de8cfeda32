// dma_wr_arb: the engine's DMA write channel shared by two clients
// (0 = responder: payload, 1 = cq_writer: CQEs).
//
//   s_req0 + s_axis_wr0 ──┐
//                         ├──► m_req (tag = client) + m_axis_wr
//   s_req1 + s_axis_wr1 ──┘
//   s_wr_done ──► counted (cnt_wr_err: the host refused the write)
//
// A client is granted for one request and all of its data beats (up to
// tlast); both move as soon as the grant starts and the grant ends when the
// request and the last beat have been taken, so the data of two requests
// never interleave. Ties go round robin. Combinational, no buffering.
`default_nettype none

module dma_wr_arb #(
  parameter int DATA_W = 512
) (
  input  wire logic                  clk,
  input  wire logic                  rst,
  /* verilator lint_off UNUSEDSIGNAL */  // the clients' tag fields are replaced by the client index
  input  wire roce_pkg::dma_wr_req_t s_req0,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_req0_valid,
  output logic                       s_req0_ready,
  input  wire logic [DATA_W-1:0]     s_axis_wr0_tdata,
  input  wire logic [DATA_W/8-1:0]   s_axis_wr0_tkeep,
  input  wire logic                  s_axis_wr0_tlast,
  input  wire logic                  s_axis_wr0_tvalid,
  output logic                       s_axis_wr0_tready,
  /* verilator lint_off UNUSEDSIGNAL */  // the clients' tag fields are replaced by the client index
  input  wire roce_pkg::dma_wr_req_t s_req1,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_req1_valid,
  output logic                       s_req1_ready,
  input  wire logic [DATA_W-1:0]     s_axis_wr1_tdata,
  input  wire logic [DATA_W/8-1:0]   s_axis_wr1_tkeep,
  input  wire logic                  s_axis_wr1_tlast,
  input  wire logic                  s_axis_wr1_tvalid,
  output logic                       s_axis_wr1_tready,
  output roce_pkg::dma_wr_req_t      m_req,
  output logic                       m_req_valid,
  input  wire logic                  m_req_ready,
  output logic [DATA_W-1:0]          m_axis_wr_tdata,
  output logic [DATA_W/8-1:0]        m_axis_wr_tkeep,
  output logic                       m_axis_wr_tlast,
  output logic                       m_axis_wr_tvalid,
  input  wire logic                  m_axis_wr_tready,
  /* verilator lint_off UNUSEDSIGNAL */  // write-done events are only counted: no client waits on them
  input  wire logic [7:0]            s_wr_done_tag,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_wr_done_error,
  input  wire logic                  s_wr_done_valid,
  output logic                       s_wr_done_ready,
  output logic                       idle,
  output logic [31:0]                cnt_wr_err
);
  logic act_q, gsel_q, rdone_q, ddone_q, prio_q;
  logic active, g, rdone, ddone, rdone_n, ddone_n;
  logic [31:0] cnt_err_q;

  always_comb begin
    // the grant: held (act_q), or starting now with the client that has a request
    if (act_q) begin
      active = 1'b1; g = gsel_q; rdone = rdone_q; ddone = ddone_q;
    end else begin
      active = s_req0_valid || s_req1_valid;
      g = (s_req0_valid && s_req1_valid) ? prio_q : s_req1_valid;
      rdone = 1'b0; ddone = 1'b0;
    end
    m_req       = g ? s_req1 : s_req0;
    m_req.tag   = {7'b0, g};
    m_req_valid = active && !rdone && (g ? s_req1_valid : s_req0_valid);
    s_req0_ready = active && !g && !rdone && m_req_ready;
    s_req1_ready = active && g && !rdone && m_req_ready;
    m_axis_wr_tdata  = g ? s_axis_wr1_tdata : s_axis_wr0_tdata;
    m_axis_wr_tkeep  = g ? s_axis_wr1_tkeep : s_axis_wr0_tkeep;
    m_axis_wr_tlast  = g ? s_axis_wr1_tlast : s_axis_wr0_tlast;
    m_axis_wr_tvalid = active && !ddone && (g ? s_axis_wr1_tvalid : s_axis_wr0_tvalid);
    s_axis_wr0_tready = active && !g && !ddone && m_axis_wr_tready;
    s_axis_wr1_tready = active && g && !ddone && m_axis_wr_tready;
    rdone_n = rdone || (m_req_valid && m_req_ready);
    ddone_n = ddone || (m_axis_wr_tvalid && m_axis_wr_tready && m_axis_wr_tlast);
    s_wr_done_ready = 1'b1;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      act_q <= 1'b0; gsel_q <= 1'b0; rdone_q <= 1'b0; ddone_q <= 1'b0; prio_q <= 1'b0;
      cnt_err_q <= '0;
    end else begin
      if (active) begin
        act_q   <= !(rdone_n && ddone_n);
        gsel_q  <= g;
        rdone_q <= rdone_n;
        ddone_q <= ddone_n;
        if (!act_q) prio_q <= !g;
      end
      if (s_wr_done_valid && s_wr_done_error) cnt_err_q <= cnt_err_q + 32'd1;
    end
  end

  assign cnt_wr_err = cnt_err_q;
  assign idle = !act_q;
endmodule

`default_nettype wire
