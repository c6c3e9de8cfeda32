// read_place: where an RC requester's RDMA READ response data lands
// (docs/engine.md, "READ response placement"). The completer hands it one
// command per READ RESPONSE packet it accepted (or drops); the payload is
// written into the local SGEs of the READ's send WQE.
//
//   s_cmd {qpn, wqe_idx, offset, len, last, drop}   s_axis_pay: len bytes from lane 0
//     |    s_hint (the requester: a READ's SGE)        |
//     v     v                                           v
//   read_place_ctrl (contexts, WQE hints, fetch    payload FIFO (PAY_DEPTH beats:
//     and cache, checks, walk, mr_req per run)        a 4096-byte packet and more)
//     | pieces {pa, len, last, drop}                    |
//     +--> req FIFO  --> m_dma_wr_req                   |
//     +--> desc FIFO --> stream_slice <-----------------+
//     |                    +--> m_axis_dma_wr (each piece from lane 0, tlast on its end)
//     +--> done FIFO --> m_done (a READ's last command: once every write
//                                issued before it was taken)
//
//   READ message bytes [offset, offset + len) of WQE wqe_idx
//     SGE 0 |....|  SGE 1 ||  SGE 2 |..........|  ...   (offsets run through the
//     SGEs in order, empty ones included); a piece never crosses an SGE end or
//     a page-run end, so each lands in one translated run.
//
// The payload waits in its FIFO while the control stage translates, so
// several commands' checks overlap the placement of the one before.
`default_nettype none

module read_place #(
  parameter int DATA_W    = 512,
  parameter int MAX_QP    = 256,
  parameter int PAY_DEPTH = 128   // payload FIFO beats, power of two (two 4096-byte packets at 512 bits)
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::rd_place_t    s_cmd,
  input  wire logic                   s_cmd_valid,
  output logic                        s_cmd_ready,
  input  wire roce_pkg::rd_hint_t     s_hint,           // from the requester: a READ's (atomic's) SGE; no ready
  input  wire logic                   s_hint_valid,
  input  wire logic [DATA_W-1:0]      s_axis_pay_tdata,
  input  wire logic                   s_axis_pay_tlast,
  input  wire logic                   s_axis_pay_tvalid,
  output logic                        s_axis_pay_tready,
  input  wire logic [DATA_W-1:0]      s_axis_dma_rd_tdata,
  input  wire logic                   s_axis_dma_rd_tlast,
  input  wire logic                   s_axis_dma_rd_tuser,   // poisoned: the host refused the read
  input  wire logic                   s_axis_dma_rd_tvalid,
  output logic                        s_axis_dma_rd_tready,
  input  wire roce_pkg::mr_resp_t     s_mr_resp,
  input  wire logic                   s_mr_resp_valid,
  output logic                        s_mr_resp_ready,
  output roce_pkg::dma_rd_req_t       m_dma_rd_req,
  output logic                        m_dma_rd_req_valid,
  input  wire logic                   m_dma_rd_req_ready,
  output roce_pkg::mr_req_t           m_mr_req,
  output logic                        m_mr_req_valid,
  input  wire logic                   m_mr_req_ready,
  output roce_pkg::dma_wr_req_t       m_dma_wr_req,
  output logic                        m_dma_wr_req_valid,
  input  wire logic                   m_dma_wr_req_ready,
  output logic [DATA_W-1:0]           m_axis_dma_wr_tdata,
  output logic [DATA_W/8-1:0]         m_axis_dma_wr_tkeep,
  output logic                        m_axis_dma_wr_tlast,
  output logic                        m_axis_dma_wr_tvalid,
  input  wire logic                   m_axis_dma_wr_tready,
  output roce_pkg::rd_done_t          m_done,
  output logic                        m_done_valid,
  input  wire logic                   m_done_ready,
  output logic                        idle,
  output logic [31:0]                 cnt_pieces,       // DMA write pieces issued
  output logic [31:0]                 cnt_drop_bytes,   // payload bytes discarded
  output logic [31:0]                 cnt_wqe_reads,    // send WQEs fetched
  output logic [31:0]                 cnt_hint_hits,    // commands whose WQE came from a hint (not fetched)
  output logic [31:0]                 cnt_errors        // done answers with a status other than SUCCESS
);
  localparam int PAW = $clog2(PAY_DEPTH);
  localparam int QD = 4;                          // piece and done queues (DEPTH; capacity counted here)
  localparam int DESC_W = 15;                     // {len, last, drop}
  localparam int REQ_W = 64 + 13;                 // {pa, len}
  localparam int POST_W = $bits(m_done) + 8;      // {done, pieces issued before it}

  initial begin
    if ((1 << PAW) != PAY_DEPTH || PAY_DEPTH * DATA_W < 8 * roce_pkg::MAX_PAYLOAD)
      $error("read_place: PAY_DEPTH must be a power of two holding a 4096-byte payload");
  end

  // ---- payload FIFO; tready from the beat count (a register)
  logic [DATA_W:0] pay_out;
  logic pay_v, pay_take, pay_push;
  /* verilator lint_off UNUSEDSIGNAL */  // always 1 while pay_n_q < PAY_DEPTH
  logic pay_rdy;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [PAW+1:0] pay_n_q;
  assign s_axis_pay_tready = pay_n_q < (PAW + 2)'(PAY_DEPTH);
  assign pay_push = s_axis_pay_tvalid && s_axis_pay_tready;
  fifo_fwft #(.WIDTH(DATA_W + 1), .DEPTH(PAY_DEPTH)) u_pay (
    .clk, .rst,
    .s_valid(pay_push), .s_ready(pay_rdy), .s_data({s_axis_pay_tlast, s_axis_pay_tdata}),
    .m_valid(pay_v), .m_ready(pay_take), .m_data(pay_out));

  // ---- control
  logic [63:0] pc_pa;
  logic [12:0] pc_len;
  logic pc_last, pc_drop, pc_v, pc_rdy, c_idle;
  roce_pkg::rd_done_t dn;
  logic dn_v, dn_rdy;

  read_place_ctrl #(.DATA_W(DATA_W), .MAX_QP(MAX_QP)) u_ctrl (
    .clk, .rst,
    .s_qp_cfg, .s_qp_cfg_valid, .s_qp_cfg_ready,
    .s_cmd, .s_cmd_valid, .s_cmd_ready, .s_hint, .s_hint_valid,
    .s_dma_rd_tdata(s_axis_dma_rd_tdata), .s_dma_rd_tlast(s_axis_dma_rd_tlast),
    .s_dma_rd_tuser(s_axis_dma_rd_tuser), .s_dma_rd_tvalid(s_axis_dma_rd_tvalid),
    .s_dma_rd_tready(s_axis_dma_rd_tready),
    .s_mr_resp, .s_mr_resp_valid, .s_mr_resp_ready,
    .m_dma_rd_req, .m_dma_rd_req_valid, .m_dma_rd_req_ready,
    .m_mr_req, .m_mr_req_valid, .m_mr_req_ready,
    .m_pc_pa(pc_pa), .m_pc_len(pc_len), .m_pc_last(pc_last), .m_pc_drop(pc_drop),
    .m_pc_valid(pc_v), .m_pc_ready(pc_rdy),
    .m_done(dn), .m_done_valid(dn_v), .m_done_ready(dn_rdy),
    .idle(c_idle), .cnt_pieces, .cnt_drop_bytes, .cnt_wqe_reads, .cnt_hint_hits, .cnt_errors);

  // ---- queues. fifo_fwft shows a push two cycles later and computes s_ready
  // from its pointers: occupancy is counted here, and a piece goes to both
  // queues at once when both counts have room.
  logic [3:0] desc_n_q, req_n_q, post_n_q;
  logic desc_push, req_push, post_push, desc_v, desc_take, req_v, post_v, post_pop;
  /* verilator lint_off UNUSEDSIGNAL */  // never 0 while the counts have room
  logic desc_rdy, req_rdy, post_rdy;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [DESC_W-1:0] desc_out;
  logic [REQ_W-1:0] req_out;
  logic [POST_W-1:0] post_out;
  logic [7:0] iss_q, data_done_q, req_done_q;    // pieces issued / whose data / whose request was taken

  assign pc_rdy = desc_n_q < 4'(QD) && req_n_q < 4'(QD);
  assign desc_push = pc_v && pc_rdy;
  assign req_push = pc_v && pc_rdy && !pc_drop;
  assign dn_rdy = post_n_q < 4'(QD);
  assign post_push = dn_v && dn_rdy;

  fifo_fwft #(.WIDTH(DESC_W), .DEPTH(QD)) u_desc (
    .clk, .rst, .s_valid(desc_push), .s_ready(desc_rdy), .s_data({pc_len, pc_last, pc_drop}),
    .m_valid(desc_v), .m_ready(desc_take), .m_data(desc_out));
  fifo_fwft #(.WIDTH(REQ_W), .DEPTH(QD)) u_req (
    .clk, .rst, .s_valid(req_push), .s_ready(req_rdy), .s_data({pc_pa, pc_len}),
    .m_valid(req_v), .m_ready(m_dma_wr_req_ready), .m_data(req_out));
  fifo_fwft #(.WIDTH(POST_W), .DEPTH(QD)) u_post (
    .clk, .rst, .s_valid(post_push), .s_ready(post_rdy), .s_data({dn, iss_q}),
    .m_valid(post_v), .m_ready(post_pop), .m_data(post_out));

  assign m_dma_wr_req.tag = '0;
  assign m_dma_wr_req.addr = req_out[REQ_W-1:13];
  assign m_dma_wr_req.len = req_out[12:0];
  assign m_dma_wr_req_valid = req_v;

  // ---- payload slicer: each piece from lane 0 with its own tlast; a drop
  // descriptor discards the rest of the packet
  logic desc_rdy_sl, sl_idle;
  /* verilator lint_off UNUSEDSIGNAL */  // pieces are counted by their tlast
  logic sl_end;
  /* verilator lint_on UNUSEDSIGNAL */
  assign desc_take = desc_v && desc_rdy_sl;
  stream_slice #(.DATA_W(DATA_W)) u_slice (
    .clk, .rst,
    .s_desc_len(desc_out[14:2]), .s_desc_last(desc_out[1]), .s_desc_drop(desc_out[0]),
    .s_desc_valid(desc_v), .s_desc_ready(desc_rdy_sl),
    .s_axis_tdata(pay_out[DATA_W-1:0]), .s_axis_tlast(pay_out[DATA_W]), .s_axis_tvalid(pay_v),
    .s_axis_tready(pay_take),
    .m_axis_tdata(m_axis_dma_wr_tdata), .m_axis_tkeep(m_axis_dma_wr_tkeep),
    .m_axis_tlast(m_axis_dma_wr_tlast), .m_axis_tvalid(m_axis_dma_wr_tvalid),
    .m_axis_tready(m_axis_dma_wr_tready), .m_end(sl_end), .idle(sl_idle));

  // ---- done: the head of the done FIFO leaves once the writes of every
  // piece issued before it were taken (counts compared modulo 256: fewer
  // than 128 pieces are ever in flight)
  logic [7:0] post_seq;
  assign post_seq = post_out[7:0];
  assign m_done = post_out[POST_W-1:8];
  assign m_done_valid = post_v && 8'(data_done_q - post_seq) < 8'd128 && 8'(req_done_q - post_seq) < 8'd128;
  assign post_pop = m_done_valid && m_done_ready;

  always_ff @(posedge clk) begin
    if (rst) begin
      pay_n_q <= '0;
      desc_n_q <= '0; req_n_q <= '0; post_n_q <= '0;
      iss_q <= '0; data_done_q <= '0; req_done_q <= '0;
    end else begin
      pay_n_q <= pay_n_q + (PAW + 2)'(pay_push) - (PAW + 2)'(pay_v && pay_take);
      desc_n_q <= desc_n_q + 4'(desc_push) - 4'(desc_take);
      req_n_q <= req_n_q + 4'(req_push) - 4'(req_v && m_dma_wr_req_ready);
      post_n_q <= post_n_q + 4'(post_push) - 4'(post_pop);
      if (req_push) iss_q <= iss_q + 8'd1;
      if (m_axis_dma_wr_tvalid && m_axis_dma_wr_tready && m_axis_dma_wr_tlast) data_done_q <= data_done_q + 8'd1;
      if (req_v && m_dma_wr_req_ready) req_done_q <= req_done_q + 8'd1;
    end
  end

  assign idle = c_idle && desc_n_q == '0 && req_n_q == '0 && post_n_q == '0 && pay_n_q == '0 && sl_idle;

`ifndef SYNTHESIS
  // Invariant, compiled into every Verilated build (--assert)
  always_ff @(posedge clk) begin
    if (!rst) begin
      // the modulo-256 comparison above holds: fewer than 128 pieces in flight
      a_rp_pieces_in_flight: assert (8'(iss_q - data_done_q) < 8'd128 && 8'(iss_q - req_done_q) < 8'd128)
        else $error("a_rp_pieces_in_flight");
    end
  end
`endif

endmodule

`default_nettype wire
