// dma_wr_arb: the engine's DMA write channel shared by three clients
// (0 = responder: payload, 1 = cq_writer: CQEs, 2 = read_place: READ
// response data).
//
//   s_req0 + s_axis_wr0 ──┐
//   s_req1 + s_axis_wr1 ──┼──► m_req (tag = client) + m_axis_wr
//   s_req2 + s_axis_wr2 ──┘
//   s_wr_done ──► counted (cnt_wr_err: the host refused the write)
//
// A client is granted for one request and all of its data beats (up to
// tlast); both move as soon as the grant starts and the grant ends when the
// request and the last beat have been taken, so the data of two requests
// never interleave. A grant starts only for a client whose request and first
// data beat are both valid: the responder and read_place queue a write's
// request before its data, which comes from the receive payload stream they
// share, so a grant waiting for data could wait on the other client's
// payload ahead of it, whose write waits for the grant (a deadlock). Once a
// packet's first beat is there, the rest of it is in the client's FIFO or at
// the head of that stream. Ties go round robin (the search starts after the
// client granted last). Combinational, no buffering.
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
  /* verilator lint_off UNUSEDSIGNAL */  // the clients' tag fields are replaced by the client index
  input  wire roce_pkg::dma_wr_req_t s_req2,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                  s_req2_valid,
  output logic                       s_req2_ready,
  input  wire logic [DATA_W-1:0]     s_axis_wr2_tdata,
  input  wire logic [DATA_W/8-1:0]   s_axis_wr2_tkeep,
  input  wire logic                  s_axis_wr2_tlast,
  input  wire logic                  s_axis_wr2_tvalid,
  output logic                       s_axis_wr2_tready,
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
  logic       act_q, rdone_q, ddone_q;
  logic [1:0] gsel_q, last_q;           // the grant held; the client granted last (round robin)
  logic       active, rdone, ddone, rdone_n, ddone_n;
  logic [1:0] g, first;
  logic [2:0] rv;                       // clients with a request ...
  logic [2:0] ready_to_go;              // ... and its first data beat
  logic [31:0] cnt_err_q;

  always_comb begin
    rv = {s_req2_valid, s_req1_valid, s_req0_valid};
    ready_to_go = rv & {s_axis_wr2_tvalid, s_axis_wr1_tvalid, s_axis_wr0_tvalid};
    // the first client ready to go after the one granted last
    first = 2'd0;
    case (last_q)
      2'd0:    first = ready_to_go[1] ? 2'd1 : ready_to_go[2] ? 2'd2 : 2'd0;
      2'd1:    first = ready_to_go[2] ? 2'd2 : ready_to_go[0] ? 2'd0 : 2'd1;
      default: first = ready_to_go[0] ? 2'd0 : ready_to_go[1] ? 2'd1 : 2'd2;
    endcase
    // the grant: held (act_q), or starting now with that client
    if (act_q) begin
      active = 1'b1; g = gsel_q; rdone = rdone_q; ddone = ddone_q;
    end else begin
      active = |ready_to_go;
      g = first;
      rdone = 1'b0; ddone = 1'b0;
    end
    case (g)
      2'd0:    begin m_req = s_req0; m_axis_wr_tdata = s_axis_wr0_tdata; m_axis_wr_tkeep = s_axis_wr0_tkeep;
                     m_axis_wr_tlast = s_axis_wr0_tlast; end
      2'd1:    begin m_req = s_req1; m_axis_wr_tdata = s_axis_wr1_tdata; m_axis_wr_tkeep = s_axis_wr1_tkeep;
                     m_axis_wr_tlast = s_axis_wr1_tlast; end
      default: begin m_req = s_req2; m_axis_wr_tdata = s_axis_wr2_tdata; m_axis_wr_tkeep = s_axis_wr2_tkeep;
                     m_axis_wr_tlast = s_axis_wr2_tlast; end
    endcase
    m_req.tag   = {6'b0, g};
    m_req_valid = active && !rdone && rv[g];
    s_req0_ready = active && g == 2'd0 && !rdone && m_req_ready;
    s_req1_ready = active && g == 2'd1 && !rdone && m_req_ready;
    s_req2_ready = active && g == 2'd2 && !rdone && m_req_ready;
    m_axis_wr_tvalid = active && !ddone && (g == 2'd0 ? s_axis_wr0_tvalid : g == 2'd1 ? s_axis_wr1_tvalid
                                                                          : s_axis_wr2_tvalid);
    s_axis_wr0_tready = active && g == 2'd0 && !ddone && m_axis_wr_tready;
    s_axis_wr1_tready = active && g == 2'd1 && !ddone && m_axis_wr_tready;
    s_axis_wr2_tready = active && g == 2'd2 && !ddone && m_axis_wr_tready;
    rdone_n = rdone || (m_req_valid && m_req_ready);
    ddone_n = ddone || (m_axis_wr_tvalid && m_axis_wr_tready && m_axis_wr_tlast);
    s_wr_done_ready = 1'b1;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      act_q <= 1'b0; gsel_q <= 2'd0; rdone_q <= 1'b0; ddone_q <= 1'b0; last_q <= 2'd2;
      cnt_err_q <= '0;
    end else begin
      if (active) begin
        act_q   <= !(rdone_n && ddone_n);
        gsel_q  <= g;
        rdone_q <= rdone_n;
        ddone_q <= ddone_n;
        if (!act_q) last_q <= g;
      end
      if (s_wr_done_valid && s_wr_done_error) cnt_err_q <= cnt_err_q + 32'd1;
    end
  end

  assign cnt_wr_err = cnt_err_q;
  assign idle = !act_q;
endmodule

`default_nettype wire
