// roce_engine: the whole RoCEv2 RC engine (docs/engine.md has the picture).
// It only instantiates and connects blocks; every decision lives in them.
//
//   AXI4-Lite ─► roce_csr ─► roce_cmd ─ qp_cfg ─► requester / responder / completer / read_place
//                 │ doorbells: SQ ─► requester, RQ ─► responder, CQ ─► cq_writer
//   requester ─┐
//   responder ─┴ tx_arb ─► roce_deparser ─► loopback_split ─► m_axis_tx (MAC)
//                                                  └ own MAC ─┐
//   s_axis_rx (MAC) ──────────────────────────── frame_arb2 ◄─┘ ─► roce_parser ─► rx_dispatch
//        rx_dispatch: responses ─► completer, requests ─► responder; bypass ─► m_axis_byp
//        completer ─ rd_place ─► read_place ◄─ READ response payload (rx_dispatch); rd_done ─► completer
//        requester ─ rd_hint (a READ's SGE, as its request leaves) ─► read_place
//   DMA: dma_rd_arb (requester, responder, responder's READ data, read_place's WQEs),
//        dma_wr_arb (responder, cq_writer, read_place)
//   MR:  mr_arb (requester, responder, read_place, responder's READ walker) ─► mr_table
//   CQEs: desc_arb2 (responder, completer) ─► cq_writer
//
// Ports (one clock, synchronous active-high reset):
//   s_axil_*           AXI4-Lite slave, CSR map docs/spec/csr.md
//   m_dma_rd_req       dma_rd_req_t (tag = client); s_axis_dma_rd_* read data, tid = tag, tuser = poisoned
//   m_dma_wr_req       dma_wr_req_t; m_axis_dma_wr_* its data; s_dma_wr_done_* completion (tag, error)
//   m_axis_tx_*        frames toward the MAC (no FCS); s_axis_rx_* frames from it (tuser = bad frame)
//   m_axis_byp_*       non-RoCE frames toward the host Ethernet path
//   m_event            cq_event_t: completion events and CQ errors
//   now                engine clock cycles, counting up (a free-running counter; a
//                      simulation may jump it forward while idle): the transport timers
//   timer_next/_valid  no transport timer expires before timer_next (none armed
//                      without _valid): how far a simulation may jump `now` while idle
//   idle               nothing in progress anywhere (no timer due): the simulation may stop the clock
`default_nettype none

module roce_engine #(
  parameter int DATA_W      = 512,
  parameter int MAX_QP      = roce_pkg::ENGINE_MAX_QP,
  parameter int MAX_CQ      = 256,
  parameter int MAX_MR      = 1024,
  parameter int MAX_PD      = 256,
  parameter int MAX_QP_WR   = 4096,
  parameter int MAX_CQE     = 65536,
  parameter int MTT_DEPTH   = 4096,
  parameter int GID_TBL_LEN = 16
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  // AXI4-Lite
  input  wire logic [11:0]            s_axil_awaddr,
  input  wire logic                   s_axil_awvalid,
  output logic                        s_axil_awready,
  input  wire logic [31:0]            s_axil_wdata,
  input  wire logic [3:0]             s_axil_wstrb,
  input  wire logic                   s_axil_wvalid,
  output logic                        s_axil_wready,
  output logic [1:0]                  s_axil_bresp,
  output logic                        s_axil_bvalid,
  input  wire logic                   s_axil_bready,
  input  wire logic [11:0]            s_axil_araddr,
  input  wire logic                   s_axil_arvalid,
  output logic                        s_axil_arready,
  output logic [31:0]                 s_axil_rdata,
  output logic [1:0]                  s_axil_rresp,
  output logic                        s_axil_rvalid,
  input  wire logic                   s_axil_rready,
  // DMA read
  output roce_pkg::dma_rd_req_t       m_dma_rd_req,
  output logic                        m_dma_rd_req_valid,
  input  wire logic                   m_dma_rd_req_ready,
  input  wire logic [DATA_W-1:0]      s_axis_dma_rd_tdata,
  input  wire logic [DATA_W/8-1:0]    s_axis_dma_rd_tkeep,
  input  wire logic                   s_axis_dma_rd_tlast,
  input  wire logic                   s_axis_dma_rd_tuser,
  input  wire logic [7:0]             s_axis_dma_rd_tid,
  input  wire logic                   s_axis_dma_rd_tvalid,
  output logic                        s_axis_dma_rd_tready,
  // DMA write
  output roce_pkg::dma_wr_req_t       m_dma_wr_req,
  output logic                        m_dma_wr_req_valid,
  input  wire logic                   m_dma_wr_req_ready,
  output logic [DATA_W-1:0]           m_axis_dma_wr_tdata,
  output logic [DATA_W/8-1:0]         m_axis_dma_wr_tkeep,
  output logic                        m_axis_dma_wr_tlast,
  output logic                        m_axis_dma_wr_tvalid,
  input  wire logic                   m_axis_dma_wr_tready,
  input  wire logic [7:0]             s_dma_wr_done_tag,
  input  wire logic                   s_dma_wr_done_error,
  input  wire logic                   s_dma_wr_done_valid,
  output logic                        s_dma_wr_done_ready,
  // network
  output logic [DATA_W-1:0]           m_axis_tx_tdata,
  output logic [DATA_W/8-1:0]         m_axis_tx_tkeep,
  output logic                        m_axis_tx_tlast,
  output logic                        m_axis_tx_tvalid,
  input  wire logic                   m_axis_tx_tready,
  input  wire logic [DATA_W-1:0]      s_axis_rx_tdata,
  input  wire logic [DATA_W/8-1:0]    s_axis_rx_tkeep,
  input  wire logic                   s_axis_rx_tlast,
  input  wire logic                   s_axis_rx_tuser,
  input  wire logic                   s_axis_rx_tvalid,
  output logic                        s_axis_rx_tready,
  output logic [DATA_W-1:0]           m_axis_byp_tdata,
  output logic [DATA_W/8-1:0]         m_axis_byp_tkeep,
  output logic                        m_axis_byp_tlast,
  output logic                        m_axis_byp_tuser,
  output logic                        m_axis_byp_tvalid,
  input  wire logic                   m_axis_byp_tready,
  // events
  output roce_pkg::cq_event_t         m_event,
  output logic                        m_event_valid,
  input  wire logic                   m_event_ready,
  input  wire logic [47:0]            now,
  output logic [47:0]                 timer_next,
  output logic                        timer_valid,
  output logic                        idle,
  // after reset, until the per-QP flag RAMs are cleared: nothing is taken
  // (the simulation adapters hold rst until it falls)
  output logic                        init_busy
);
  localparam int KW = DATA_W / 8;

  // ---------------------------------------------------------------- CSR + command processor
  logic        roce_enable, link_up;
  logic [47:0] port_mac;
  logic [2:0]  port_mtu;
  logic [3:0]  ack_req_log2;
  logic [GID_TBL_LEN*128-1:0] gid_table;
  logic [GID_TBL_LEN*2-1:0]   gid_type;
  logic [GID_TBL_LEN*13-1:0]  gid_vlan;
  logic [GID_TBL_LEN*143-1:0] gid_typed;  // roce_cmd's view: entry i = {tagged, vid, type, gid}
  logic [8:0]  tx_tclass, tx_ttl;         // TX_TCLASS / TX_TTL: {enable, value}
  for (genvar i = 0; i < GID_TBL_LEN; i++) begin : g_gid
    assign gid_typed[143*i +: 143] = {gid_vlan[13*i +: 13], gid_type[2*i +: 2], gid_table[128*i +: 128]};
  end

  roce_pkg::cmd_req_t  cmd;        logic cmd_valid, cmd_ready;
  roce_pkg::cmd_resp_t cmd_resp;   logic cmd_resp_valid, cmd_resp_ready;
  roce_pkg::wq_db_t    sq_db, rq_db;
  logic                sq_db_valid, sq_db_ready, rq_db_valid, rq_db_ready;
  logic                sq_db_bf;                           // an SQ_BF_DB: sq_bf_wqe is its WQE
  logic [8*roce_pkg::WQE_HEAD-1:0] sq_bf_wqe;
  roce_pkg::cq_db_t    cq_db;      logic cq_db_valid, cq_db_ready;

  logic [31:0] cnt_rx_frames, cnt_rx_roce, cnt_rx_bypass, cnt_tx_frames;
  logic [roce_pkg::DROP_COUNT*32-1:0]      cnt_rx_drop;
  logic [roce_pkg::XPORT_CNT_COUNT*32-1:0] cnt_xport;

  roce_csr #(
    .DATA_W(DATA_W), .MAX_QP(MAX_QP), .MAX_CQ(MAX_CQ), .MAX_MR(MAX_MR), .MAX_PD(MAX_PD),
    .MAX_QP_WR(MAX_QP_WR), .MAX_CQE(MAX_CQE), .GID_TBL_LEN(GID_TBL_LEN)
  ) u_csr (
    .clk, .rst,
    .s_axil_awaddr, .s_axil_awvalid, .s_axil_awready, .s_axil_wdata, .s_axil_wstrb, .s_axil_wvalid,
    .s_axil_wready, .s_axil_bresp, .s_axil_bvalid, .s_axil_bready, .s_axil_araddr, .s_axil_arvalid,
    .s_axil_arready, .s_axil_rdata, .s_axil_rresp, .s_axil_rvalid, .s_axil_rready,
    .cnt_rx_frames, .cnt_rx_roce, .cnt_rx_bypass, .cnt_rx_drop, .cnt_tx_frames, .cnt_xport,
    .m_cmd(cmd), .m_cmd_valid(cmd_valid), .m_cmd_ready(cmd_ready),
    .s_cmd_resp(cmd_resp), .s_cmd_resp_valid(cmd_resp_valid), .s_cmd_resp_ready(cmd_resp_ready),
    .m_sq_db(sq_db), .m_sq_db_valid(sq_db_valid), .m_sq_db_ready(sq_db_ready), .m_sq_db_bf(sq_db_bf), .sq_bf_wqe,
    .m_rq_db(rq_db), .m_rq_db_valid(rq_db_valid), .m_rq_db_ready(rq_db_ready),
    .m_cq_db(cq_db), .m_cq_db_valid(cq_db_valid), .m_cq_db_ready(cq_db_ready),
    .roce_enable, .port_mac, .port_mtu, .ack_req_log2, .link_up, .gid_table, .gid_type, .gid_vlan,
    .tx_tclass, .tx_ttl
  );

  roce_pkg::qp_cfg_t qp_cfg;  logic qp_cfg_valid, qp_cfg_ready;
  logic qp_cfg_ready_req, qp_cfg_ready_resp, qp_cfg_ready_compl, qp_cfg_ready_rdp;
  roce_pkg::cq_cfg_t cq_cfg;  logic cq_cfg_valid, cq_cfg_ready;
  logic [15:0] mr_wr_index, mtt_wr_index;
  roce_pkg::mr_ctx_t mr_wr_ctx;
  logic [63:0] mtt_wr_pa;
  logic mr_wr_valid, mtt_wr_valid;
  logic cmd_idle;

  // A mailbox command waits until every transport failure reported so far
  // was taken (the tap's scanner may need MAX_QP cycles to reach a QP): the
  // host may have seen the error completion already, destroy the QP and
  // create one with its number, which a late report would put in ERR.
  roce_pkg::qp_err_t qp_err;  logic qp_err_valid, qp_err_ready;
  logic idle_err_tap, err_tap_init_busy, cmd_taken_ready;
  assign cmd_ready = cmd_taken_ready && idle_err_tap;
  roce_cmd #(
    .MAX_QP(MAX_QP), .MAX_CQ(MAX_CQ), .MAX_MR(MAX_MR), .MAX_PD(MAX_PD), .MAX_QP_WR(MAX_QP_WR),
    .MAX_CQE(MAX_CQE), .MTT_DEPTH(MTT_DEPTH), .GID_TBL_LEN(GID_TBL_LEN)
  ) u_cmd (
    .clk, .rst,
    .s_cmd(cmd), .s_cmd_valid(cmd_valid && idle_err_tap), .s_cmd_ready(cmd_taken_ready),
    .s_qp_err(qp_err), .s_qp_err_valid(qp_err_valid), .s_qp_err_ready(qp_err_ready),
    .m_resp(cmd_resp), .m_resp_valid(cmd_resp_valid), .m_resp_ready(cmd_resp_ready),
    .m_qp_cfg(qp_cfg), .m_qp_cfg_valid(qp_cfg_valid), .m_qp_cfg_ready(qp_cfg_ready),
    .m_cq_cfg(cq_cfg), .m_cq_cfg_valid(cq_cfg_valid), .m_cq_cfg_ready(cq_cfg_ready),
    .m_mr_wr_index(mr_wr_index), .m_mr_wr_ctx(mr_wr_ctx), .m_mr_wr_valid(mr_wr_valid), .m_mr_wr_ready(1'b1),
    .m_mtt_wr_index(mtt_wr_index), .m_mtt_wr_pa(mtt_wr_pa), .m_mtt_wr_valid(mtt_wr_valid), .m_mtt_wr_ready(1'b1),
    .port_mac, .gid_table(gid_typed),
    .idle(cmd_idle)
  );
  // qp_cfg goes to all four owners (requester, responder, completer,
  // read_place): a fork that offers it to each until each has taken it, and
  // releases roce_cmd once all have. No valid depends on a ready.
  logic [3:0] cfg_taken_q, cfg_valid_to, cfg_ready_from;
  assign cfg_ready_from = {qp_cfg_ready_rdp, qp_cfg_ready_compl, qp_cfg_ready_resp, qp_cfg_ready_req};
  assign cfg_valid_to = {4{qp_cfg_valid}} & ~cfg_taken_q;
  assign qp_cfg_ready = &(cfg_taken_q | cfg_ready_from);
  always_ff @(posedge clk) begin
    if (rst || (qp_cfg_valid && qp_cfg_ready)) cfg_taken_q <= '0;
    else cfg_taken_q <= cfg_taken_q | (cfg_valid_to & cfg_ready_from);
  end

  // ---------------------------------------------------------------- memory regions
  roce_pkg::mr_req_t  mr_req_q, mr_req_r, mr_req_p, mr_req_w, mr_req;
  roce_pkg::mr_resp_t mr_resp_q, mr_resp_r, mr_resp_p, mr_resp_w, mr_resp;
  logic mr_req_w_valid, mr_req_w_ready, mr_resp_w_valid, mr_resp_w_ready;  // the responder's READ walker
  logic mr_req_q_valid, mr_req_q_ready, mr_req_r_valid, mr_req_r_ready, mr_req_p_valid, mr_req_p_ready;
  logic mr_req_valid, mr_req_ready;
  logic mr_resp_q_valid, mr_resp_q_ready, mr_resp_r_valid, mr_resp_r_ready, mr_resp_p_valid, mr_resp_p_ready;
  logic mr_resp_valid, mr_resp_ready;

  mr_table #(.MAX_MR(MAX_MR), .MTT_DEPTH(MTT_DEPTH)) u_mr (
    .clk, .rst,
    .s_mr_wr_index(mr_wr_index), .s_mr_wr_ctx(mr_wr_ctx), .s_mr_wr_valid(mr_wr_valid),
    .s_mtt_wr_index(mtt_wr_index), .s_mtt_wr_pa(mtt_wr_pa), .s_mtt_wr_valid(mtt_wr_valid),
    .s_req(mr_req), .s_req_valid(mr_req_valid), .s_req_ready(mr_req_ready),
    .m_resp(mr_resp), .m_resp_valid(mr_resp_valid), .m_resp_ready(mr_resp_ready)
  );

  mr_arb u_mr_arb (
    .clk, .rst,
    .s_req0(mr_req_q), .s_req0_valid(mr_req_q_valid), .s_req0_ready(mr_req_q_ready),
    .s_req1(mr_req_r), .s_req1_valid(mr_req_r_valid), .s_req1_ready(mr_req_r_ready),
    .s_req2(mr_req_p), .s_req2_valid(mr_req_p_valid), .s_req2_ready(mr_req_p_ready),
    .s_req3(mr_req_w), .s_req3_valid(mr_req_w_valid), .s_req3_ready(mr_req_w_ready),
    .m_req(mr_req), .m_req_valid(mr_req_valid), .m_req_ready(mr_req_ready),
    .s_resp(mr_resp), .s_resp_valid(mr_resp_valid), .s_resp_ready(mr_resp_ready),
    .m_resp0(mr_resp_q), .m_resp0_valid(mr_resp_q_valid), .m_resp0_ready(mr_resp_q_ready),
    .m_resp1(mr_resp_r), .m_resp1_valid(mr_resp_r_valid), .m_resp1_ready(mr_resp_r_ready),
    .m_resp2(mr_resp_p), .m_resp2_valid(mr_resp_p_valid), .m_resp2_ready(mr_resp_p_ready),
    .m_resp3(mr_resp_w), .m_resp3_valid(mr_resp_w_valid), .m_resp3_ready(mr_resp_w_ready),
    .idle(idle_mr_arb)
  );

  // ---------------------------------------------------------------- DMA arbiters
  roce_pkg::dma_rd_req_t rd_req_q, rd_req_r;
  logic rd_req_q_valid, rd_req_q_ready, rd_req_r_valid, rd_req_r_ready;
  logic [DATA_W-1:0] rd_q_tdata, rd_r_tdata;
  logic [KW-1:0] rd_q_tkeep;
  /* verilator lint_off UNUSEDSIGNAL */  // the responder knows each read's length from its request
  logic [KW-1:0] rd_r_tkeep;
  /* verilator lint_on UNUSEDSIGNAL */
  logic rd_q_tlast, rd_q_tuser, rd_q_tvalid, rd_q_tready, rd_r_tlast, rd_r_tuser, rd_r_tvalid, rd_r_tready;
  roce_pkg::dma_rd_req_t rd_req_x;   // the responder's READ data
  logic rd_req_x_valid, rd_req_x_ready;
  logic [DATA_W-1:0] rd_x_tdata;
  /* verilator lint_off UNUSEDSIGNAL */  // the READ data's length is known from its request
  logic [KW-1:0] rd_x_tkeep;
  /* verilator lint_on UNUSEDSIGNAL */
  logic rd_x_tlast, rd_x_tuser, rd_x_tvalid, rd_x_tready;
  roce_pkg::dma_rd_req_t rd_req_p;   // read_place: send WQEs of READs
  logic rd_req_p_valid, rd_req_p_ready;
  logic [DATA_W-1:0] rd_p_tdata;
  /* verilator lint_off UNUSEDSIGNAL */  // a WQE's length is known from its request
  logic [KW-1:0] rd_p_tkeep;
  /* verilator lint_on UNUSEDSIGNAL */
  logic rd_p_tlast, rd_p_tuser, rd_p_tvalid, rd_p_tready;

  dma_rd_arb #(.DATA_W(DATA_W)) u_dma_rd_arb (
    .clk, .rst,
    .s_req0(rd_req_q), .s_req0_valid(rd_req_q_valid), .s_req0_ready(rd_req_q_ready),
    .s_req1(rd_req_r), .s_req1_valid(rd_req_r_valid), .s_req1_ready(rd_req_r_ready),
    .s_req2(rd_req_x), .s_req2_valid(rd_req_x_valid), .s_req2_ready(rd_req_x_ready),
    .s_req3(rd_req_p), .s_req3_valid(rd_req_p_valid), .s_req3_ready(rd_req_p_ready),
    .m_req(m_dma_rd_req), .m_req_valid(m_dma_rd_req_valid), .m_req_ready(m_dma_rd_req_ready),
    .s_axis_rd_tdata(s_axis_dma_rd_tdata), .s_axis_rd_tkeep(s_axis_dma_rd_tkeep), .s_axis_rd_tlast(s_axis_dma_rd_tlast),
    .s_axis_rd_tuser(s_axis_dma_rd_tuser), .s_axis_rd_tid(s_axis_dma_rd_tid), .s_axis_rd_tvalid(s_axis_dma_rd_tvalid),
    .s_axis_rd_tready(s_axis_dma_rd_tready),
    .m_axis_rd0_tdata(rd_q_tdata), .m_axis_rd0_tkeep(rd_q_tkeep), .m_axis_rd0_tlast(rd_q_tlast),
    .m_axis_rd0_tuser(rd_q_tuser), .m_axis_rd0_tvalid(rd_q_tvalid), .m_axis_rd0_tready(rd_q_tready),
    .m_axis_rd1_tdata(rd_r_tdata), .m_axis_rd1_tkeep(rd_r_tkeep), .m_axis_rd1_tlast(rd_r_tlast),
    .m_axis_rd1_tuser(rd_r_tuser), .m_axis_rd1_tvalid(rd_r_tvalid), .m_axis_rd1_tready(rd_r_tready),
    .m_axis_rd2_tdata(rd_x_tdata), .m_axis_rd2_tkeep(rd_x_tkeep), .m_axis_rd2_tlast(rd_x_tlast),
    .m_axis_rd2_tuser(rd_x_tuser), .m_axis_rd2_tvalid(rd_x_tvalid), .m_axis_rd2_tready(rd_x_tready),
    .m_axis_rd3_tdata(rd_p_tdata), .m_axis_rd3_tkeep(rd_p_tkeep), .m_axis_rd3_tlast(rd_p_tlast),
    .m_axis_rd3_tuser(rd_p_tuser), .m_axis_rd3_tvalid(rd_p_tvalid), .m_axis_rd3_tready(rd_p_tready),
    .idle(idle_rd_arb)
  );

  roce_pkg::dma_wr_req_t wr_req_r, wr_req_c;
  logic wr_req_r_valid, wr_req_r_ready, wr_req_c_valid, wr_req_c_ready;
  logic [DATA_W-1:0] wr_r_tdata, wr_c_tdata;
  logic [KW-1:0] wr_r_tkeep;
  logic wr_r_tlast, wr_r_tvalid, wr_r_tready, wr_c_tvalid, wr_c_tready;
  roce_pkg::dma_wr_req_t wr_req_p;   // read_place: READ response data
  logic wr_req_p_valid, wr_req_p_ready;
  logic [DATA_W-1:0] wr_p_tdata;
  logic [KW-1:0] wr_p_tkeep;
  logic wr_p_tlast, wr_p_tvalid, wr_p_tready;
  logic [31:0] cnt_wr_err;

  dma_wr_arb #(.DATA_W(DATA_W)) u_dma_wr_arb (
    .clk, .rst,
    .s_req0(wr_req_r), .s_req0_valid(wr_req_r_valid), .s_req0_ready(wr_req_r_ready),
    .s_axis_wr0_tdata(wr_r_tdata), .s_axis_wr0_tkeep(wr_r_tkeep), .s_axis_wr0_tlast(wr_r_tlast),
    .s_axis_wr0_tvalid(wr_r_tvalid), .s_axis_wr0_tready(wr_r_tready),
    .s_req1(wr_req_c), .s_req1_valid(wr_req_c_valid), .s_req1_ready(wr_req_c_ready),
    .s_axis_wr1_tdata(wr_c_tdata), .s_axis_wr1_tkeep({{(KW-32){1'b0}}, {32{1'b1}}}), .s_axis_wr1_tlast(1'b1),
    .s_axis_wr1_tvalid(wr_c_tvalid), .s_axis_wr1_tready(wr_c_tready),
    .s_req2(wr_req_p), .s_req2_valid(wr_req_p_valid), .s_req2_ready(wr_req_p_ready),
    .s_axis_wr2_tdata(wr_p_tdata), .s_axis_wr2_tkeep(wr_p_tkeep), .s_axis_wr2_tlast(wr_p_tlast),
    .s_axis_wr2_tvalid(wr_p_tvalid), .s_axis_wr2_tready(wr_p_tready),
    .m_req(m_dma_wr_req), .m_req_valid(m_dma_wr_req_valid), .m_req_ready(m_dma_wr_req_ready),
    .m_axis_wr_tdata(m_axis_dma_wr_tdata), .m_axis_wr_tkeep(m_axis_dma_wr_tkeep), .m_axis_wr_tlast(m_axis_dma_wr_tlast),
    .m_axis_wr_tvalid(m_axis_dma_wr_tvalid), .m_axis_wr_tready(m_axis_dma_wr_tready),
    .s_wr_done_tag(s_dma_wr_done_tag), .s_wr_done_error(s_dma_wr_done_error),
    .s_wr_done_valid(s_dma_wr_done_valid), .s_wr_done_ready(s_dma_wr_done_ready),
    .cnt_wr_err(cnt_wr_err),
    .idle(idle_wr_arb)
  );

  // ---------------------------------------------------------------- requester
  roce_pkg::sq_retire_t sq_retire;  logic sq_retire_valid, sq_retire_ready;
  roce_pkg::sq_track_t  sq_track;   logic sq_track_valid, sq_track_ready;
  roce_pkg::sq_track_t  trk_c;      logic trk_c_valid, trk_c_ready;   // (through u_trk_q)
  localparam int TQW = $clog2(roce_pkg::TRK_QUEUE + 2);
  logic [TQW-1:0]       trk_in_q;   // tracks in u_trk_q (for idle)
  roce_pkg::rd_hint_t   rd_hint;    logic rd_hint_valid;   // requester -> read_place: a READ's SGE
  roce_pkg::roce_tx_hdr_t req_hdr;  logic req_hdr_valid, req_hdr_ready;
  logic [DATA_W-1:0] req_pay_tdata;
  logic [KW-1:0]     req_pay_tkeep;
  logic req_pay_tlast, req_pay_tvalid, req_pay_tready;
  logic req_idle, req_init_busy;
  logic [31:0] cnt_tx_pkts;

  requester #(.DATA_W(DATA_W), .MAX_QP(MAX_QP), .GID_TBL_LEN(GID_TBL_LEN)) u_req (
    .clk, .rst, .ack_req_log2, .port_mac, .port_mtu, .gid_table(gid_typed),
    .s_qp_cfg(qp_cfg), .s_qp_cfg_valid(cfg_valid_to[0]), .s_qp_cfg_ready(qp_cfg_ready_req),
    .s_sq_db(sq_db), .s_sq_db_bf(sq_db_bf), .s_sq_bf_wqe(sq_bf_wqe), .s_sq_db_valid(sq_db_valid), .s_sq_db_ready(sq_db_ready),
    .s_sq_retire(sq_retire), .s_sq_retire_valid(sq_retire_valid), .s_sq_retire_ready(sq_retire_ready),
    .s_axis_dma_rd_tdata(rd_q_tdata), .s_axis_dma_rd_tkeep(rd_q_tkeep), .s_axis_dma_rd_tlast(rd_q_tlast),
    .s_axis_dma_rd_tuser(rd_q_tuser), .s_axis_dma_rd_tvalid(rd_q_tvalid), .s_axis_dma_rd_tready(rd_q_tready),
    .s_mr_resp(mr_resp_q), .s_mr_resp_valid(mr_resp_q_valid), .s_mr_resp_ready(mr_resp_q_ready),
    .m_dma_rd_req(rd_req_q), .m_dma_rd_req_valid(rd_req_q_valid), .m_dma_rd_req_ready(rd_req_q_ready),
    .m_mr_req(mr_req_q), .m_mr_req_valid(mr_req_q_valid), .m_mr_req_ready(mr_req_q_ready),
    .m_tx_hdr(req_hdr), .m_tx_hdr_valid(req_hdr_valid), .m_tx_hdr_ready(req_hdr_ready),
    .m_axis_tx_payload_tdata(req_pay_tdata), .m_axis_tx_payload_tkeep(req_pay_tkeep),
    .m_axis_tx_payload_tlast(req_pay_tlast), .m_axis_tx_payload_tvalid(req_pay_tvalid),
    .m_axis_tx_payload_tready(req_pay_tready),
    .m_sq_track(sq_track), .m_sq_track_valid(sq_track_valid), .m_sq_track_ready(sq_track_ready),
    .m_rd_hint(rd_hint), .m_rd_hint_valid(rd_hint_valid),
    .idle(req_idle), .cnt_tx_pkts(cnt_tx_pkts), .init_busy(req_init_busy)
  );

  // ---------------------------------------------------------------- RX: MAC + loopback -> parser -> dispatch
  logic [DATA_W-1:0] lb_tdata, rxm_tdata;
  logic [KW-1:0]     lb_tkeep, rxm_tkeep;
  logic lb_tlast, lb_tvalid, lb_tready, rxm_tlast, rxm_tuser, rxm_tvalid, rxm_tready;

  frame_arb2 #(.DATA_W(DATA_W)) u_rx_merge (
    .clk, .rst,
    .s0_axis_tdata(s_axis_rx_tdata), .s0_axis_tkeep(s_axis_rx_tkeep), .s0_axis_tlast(s_axis_rx_tlast),
    .s0_axis_tuser(s_axis_rx_tuser), .s0_axis_tvalid(s_axis_rx_tvalid), .s0_axis_tready(s_axis_rx_tready),
    .s1_axis_tdata(lb_tdata), .s1_axis_tkeep(lb_tkeep), .s1_axis_tlast(lb_tlast),
    .s1_axis_tuser(1'b0), .s1_axis_tvalid(lb_tvalid), .s1_axis_tready(lb_tready),
    .m_axis_tdata(rxm_tdata), .m_axis_tkeep(rxm_tkeep), .m_axis_tlast(rxm_tlast),
    .m_axis_tuser(rxm_tuser), .m_axis_tvalid(rxm_tvalid), .m_axis_tready(rxm_tready),
    .idle(idle_rx_merge)
  );

  roce_pkg::roce_rx_hdr_t rx_hdr;  logic rx_hdr_valid, rx_hdr_ready;
  logic [DATA_W-1:0] rx_pay_tdata;
  logic [KW-1:0]     rx_pay_tkeep;
  logic rx_pay_tlast, rx_pay_tvalid, rx_pay_tready;
  logic stat_valid, stat_bypass;
  logic [3:0] stat_drop;

  roce_parser #(.DATA_W(DATA_W)) u_parser (
    .clk, .rst, .roce_enable,
    .s_axis_rx_tdata(rxm_tdata), .s_axis_rx_tkeep(rxm_tkeep), .s_axis_rx_tvalid(rxm_tvalid),
    .s_axis_rx_tready(rxm_tready), .s_axis_rx_tlast(rxm_tlast), .s_axis_rx_tuser(rxm_tuser),
    .m_hdr(rx_hdr), .m_hdr_valid(rx_hdr_valid), .m_hdr_ready(rx_hdr_ready),
    .m_axis_pay_tdata(rx_pay_tdata), .m_axis_pay_tkeep(rx_pay_tkeep), .m_axis_pay_tvalid(rx_pay_tvalid),
    .m_axis_pay_tready(rx_pay_tready), .m_axis_pay_tlast(rx_pay_tlast),
    .m_axis_byp_tdata, .m_axis_byp_tkeep, .m_axis_byp_tvalid, .m_axis_byp_tready, .m_axis_byp_tlast,
    .m_axis_byp_tuser,
    .stat_valid, .stat_bypass, .stat_drop,
    .cnt_rx_frames, .cnt_rx_roce, .cnt_rx_bypass, .cnt_rx_drop
  );

  roce_pkg::roce_rx_hdr_t rx_ack, rx_req, rx_ureq;
  logic rx_ack_valid, rx_ack_ready, rx_req_valid, rx_req_ready, rx_ureq_valid, rx_ureq_ready;
  logic [DATA_W-1:0] rq_pay_tdata, uq_pay_tdata;
  logic [KW-1:0]     rq_pay_tkeep;
  /* verilator lint_off UNUSEDSIGNAL */  // the responder knows each packet's length from its header
  logic [KW-1:0]     uq_pay_tkeep;
  /* verilator lint_on UNUSEDSIGNAL */
  logic rq_pay_tlast, rq_pay_tvalid, rq_pay_tready, uq_pay_tlast, uq_pay_tvalid, uq_pay_tready;
  logic [DATA_W-1:0] rs_pay_tdata;   // READ response payload -> read_place
  logic rs_pay_tlast, rs_pay_tvalid, rs_pay_tready;

  rx_dispatch #(.DATA_W(DATA_W)) u_rx_dispatch (
    .clk, .rst,
    .s_rx_hdr(rx_hdr), .s_rx_hdr_valid(rx_hdr_valid), .s_rx_hdr_ready(rx_hdr_ready),
    .s_axis_rx_payload_tdata(rx_pay_tdata), .s_axis_rx_payload_tkeep(rx_pay_tkeep),
    .s_axis_rx_payload_tlast(rx_pay_tlast), .s_axis_rx_payload_tvalid(rx_pay_tvalid),
    .s_axis_rx_payload_tready(rx_pay_tready),
    .m_ack_hdr(rx_ack), .m_ack_hdr_valid(rx_ack_valid), .m_ack_hdr_ready(rx_ack_ready),
    .m_req_hdr(rx_req), .m_req_hdr_valid(rx_req_valid), .m_req_hdr_ready(rx_req_ready),
    .m_axis_req_payload_tdata(rq_pay_tdata), .m_axis_req_payload_tkeep(rq_pay_tkeep),
    .m_axis_req_payload_tlast(rq_pay_tlast), .m_axis_req_payload_tvalid(rq_pay_tvalid),
    .m_axis_req_payload_tready(rq_pay_tready),
    .m_axis_rsp_payload_tdata(rs_pay_tdata), .m_axis_rsp_payload_tlast(rs_pay_tlast),
    .m_axis_rsp_payload_tvalid(rs_pay_tvalid), .m_axis_rsp_payload_tready(rs_pay_tready),
    .idle(idle_dispatch)
  );

  // A UD datagram's GRH in front of its payload (pay_len + 40): the receive buffer gets both
  logic idle_ud_grh;
  ud_grh_insert #(.DATA_W(DATA_W)) u_ud_grh (
    .clk, .rst,
    .s_hdr(rx_req), .s_hdr_valid(rx_req_valid), .s_hdr_ready(rx_req_ready),
    .s_axis_tdata(rq_pay_tdata), .s_axis_tkeep(rq_pay_tkeep), .s_axis_tlast(rq_pay_tlast),
    .s_axis_tvalid(rq_pay_tvalid), .s_axis_tready(rq_pay_tready),
    .m_hdr(rx_ureq), .m_hdr_valid(rx_ureq_valid), .m_hdr_ready(rx_ureq_ready),
    .m_axis_tdata(uq_pay_tdata), .m_axis_tkeep(uq_pay_tkeep), .m_axis_tlast(uq_pay_tlast),
    .m_axis_tvalid(uq_pay_tvalid), .m_axis_tready(uq_pay_tready),
    .idle(idle_ud_grh)
  );

  // ---------------------------------------------------------------- responder
  roce_pkg::roce_tx_hdr_t ack_hdr, ack_hdr_raw;  logic ack_hdr_valid, ack_hdr_ready, ack_raw_valid, ack_raw_ready;
  logic [DATA_W-1:0] ack_pay_tdata;
  logic [KW-1:0]     ack_pay_tkeep;
  logic ack_pay_tlast, ack_pay_tvalid, ack_pay_tready;
  roce_pkg::cq_compl_t compl_r, compl_c, compl_c_raw, compl;
  logic compl_r_valid, compl_r_ready, compl_c_valid, compl_c_ready, compl_valid, compl_ready;
  logic c_raw_valid, c_raw_ready;
  logic resp_idle, resp_init_busy;
  logic [31:0] cnt_tx_acks, cnt_rx_pkts, cnt_no_qp, cnt_qp_state, cnt_out_of_sequence, cnt_duplicate_request,
               cnt_rem_access_err, cnt_rem_inv_req, cnt_rnr_nak_sent, cnt_rem_op_err, cnt_rx_read_requests,
               cnt_qkey_violations;

  responder #(.DATA_W(DATA_W), .MAX_QP(MAX_QP), .RQ_HEADS(roce_pkg::RSP_RQ_HEADS),
              .RQ_AHEAD(roce_pkg::RSP_RQ_AHEAD)) u_resp (
    .clk, .rst,
    .s_qp_cfg(qp_cfg), .s_qp_cfg_valid(cfg_valid_to[1]), .s_qp_cfg_ready(qp_cfg_ready_resp),
    .s_rq_db(rq_db), .s_rq_db_valid(rq_db_valid), .s_rq_db_ready(rq_db_ready),
    .s_rx_hdr(rx_ureq), .s_rx_hdr_valid(rx_ureq_valid), .s_rx_hdr_ready(rx_ureq_ready),
    .s_axis_rx_payload_tdata(uq_pay_tdata),
    .s_axis_rx_payload_tlast(uq_pay_tlast), .s_axis_rx_payload_tvalid(uq_pay_tvalid),
    .s_axis_rx_payload_tready(uq_pay_tready),
    .s_axis_dma_rd_tdata(rd_r_tdata), .s_axis_dma_rd_tlast(rd_r_tlast),
    .s_axis_dma_rd_tuser(rd_r_tuser), .s_axis_dma_rd_tvalid(rd_r_tvalid), .s_axis_dma_rd_tready(rd_r_tready),
    .s_mr_resp(mr_resp_r), .s_mr_resp_valid(mr_resp_r_valid), .s_mr_resp_ready(mr_resp_r_ready),
    .m_dma_rd_req(rd_req_r), .m_dma_rd_req_valid(rd_req_r_valid), .m_dma_rd_req_ready(rd_req_r_ready),
    .m_mr_req(mr_req_r), .m_mr_req_valid(mr_req_r_valid), .m_mr_req_ready(mr_req_r_ready),
    .m_dma_wr_req(wr_req_r), .m_dma_wr_req_valid(wr_req_r_valid), .m_dma_wr_req_ready(wr_req_r_ready),
    .m_axis_dma_wr_tdata(wr_r_tdata), .m_axis_dma_wr_tkeep(wr_r_tkeep), .m_axis_dma_wr_tlast(wr_r_tlast),
    .m_axis_dma_wr_tvalid(wr_r_tvalid), .m_axis_dma_wr_tready(wr_r_tready),
    .m_read_dma_req(rd_req_x), .m_read_dma_req_valid(rd_req_x_valid), .m_read_dma_req_ready(rd_req_x_ready),
    .s_axis_read_dma_tdata(rd_x_tdata), .s_axis_read_dma_tlast(rd_x_tlast), .s_axis_read_dma_tuser(rd_x_tuser),
    .s_axis_read_dma_tvalid(rd_x_tvalid), .s_axis_read_dma_tready(rd_x_tready),
    .m_read_mr_req(mr_req_w), .m_read_mr_req_valid(mr_req_w_valid), .m_read_mr_req_ready(mr_req_w_ready),
    .s_read_mr_resp(mr_resp_w), .s_read_mr_resp_valid(mr_resp_w_valid), .s_read_mr_resp_ready(mr_resp_w_ready),
    .m_tx_hdr(ack_hdr_raw), .m_tx_hdr_valid(ack_raw_valid), .m_tx_hdr_ready(ack_raw_ready),
    .m_axis_tx_payload_tdata(ack_pay_tdata), .m_axis_tx_payload_tkeep(ack_pay_tkeep),
    .m_axis_tx_payload_tlast(ack_pay_tlast), .m_axis_tx_payload_tvalid(ack_pay_tvalid),
    .m_axis_tx_payload_tready(ack_pay_tready),
    .m_cq_compl(compl_r), .m_cq_compl_valid(compl_r_valid), .m_cq_compl_ready(compl_r_ready),
    .idle(resp_idle),
    .cnt_tx_acks, .cnt_rx_pkts, .cnt_no_qp, .cnt_qp_state, .cnt_out_of_sequence, .cnt_duplicate_request,
    .cnt_rem_access_err, .cnt_rem_inv_req, .cnt_rnr_nak_sent, .cnt_rem_op_err, .cnt_rx_read_requests, .cnt_qkey_violations,
    .init_busy(resp_init_busy)
  );

  // ---------------------------------------------------------------- completer
  logic compl_idle;
  logic [31:0] cnt_rx_acks, cnt_nak_received, cnt_packet_seq_err, cnt_unmatched, cnt_retransmits, cnt_retry_exceeded;
  logic [31:0] cnt_ack_timeout, cnt_rnr_nak, cnt_rnr_exceeded, cnt_implied_nak;
  roce_pkg::rd_place_t rd_place;  logic rd_place_valid, rd_place_ready;
  roce_pkg::rd_done_t  rd_done;   logic rd_done_valid, rd_done_ready;

  // The requester's tracks reach the completer through a short queue: the
  // requester queues a new WQE's first header once its track is in (not
  // once the completer, busy with an ACK, takes it). Order holds: the
  // completer takes no ACK while a track waits at the queue's head, and a
  // packet's ACK comes back long after its track (2 cycles) is there.
  fifo_fwft #(.WIDTH($bits(sq_track)), .DEPTH(roce_pkg::TRK_QUEUE)) u_trk_q (
    .clk, .rst, .s_valid(sq_track_valid), .s_ready(sq_track_ready), .s_data(sq_track),
    .m_valid(trk_c_valid), .m_ready(trk_c_ready), .m_data(trk_c));
  always_ff @(posedge clk)
    if (rst) trk_in_q <= '0;
    else trk_in_q <= trk_in_q + TQW'(sq_track_valid && sq_track_ready) - TQW'(trk_c_valid && trk_c_ready);

  completer #(.MAX_QP(MAX_QP)) u_compl (
    .clk, .rst, .now,
    .s_qp_cfg(qp_cfg), .s_qp_cfg_valid(cfg_valid_to[2]), .s_qp_cfg_ready(qp_cfg_ready_compl),
    .s_sq_track(trk_c), .s_sq_track_valid(trk_c_valid), .s_sq_track_ready(trk_c_ready),
    .s_rx_ack(rx_ack), .s_rx_ack_valid(rx_ack_valid), .s_rx_ack_ready(rx_ack_ready),
    .s_rd_done(rd_done), .s_rd_done_valid(rd_done_valid), .s_rd_done_ready(rd_done_ready),
    .m_rd_place(rd_place), .m_rd_place_valid(rd_place_valid), .m_rd_place_ready(rd_place_ready),
    .m_cq_compl(compl_c_raw), .m_cq_compl_valid(c_raw_valid), .m_cq_compl_ready(c_raw_ready),
    .m_sq_retire(sq_retire), .m_sq_retire_valid(sq_retire_valid), .m_sq_retire_ready(sq_retire_ready),
    .idle(compl_idle), .timer_next, .timer_valid,
    .cnt_rx_acks, .cnt_nak_received, .cnt_packet_seq_err, .cnt_unmatched, .cnt_retransmits,
    .cnt_retry_exceeded, .cnt_ack_timeout, .cnt_rnr_nak, .cnt_rnr_exceeded, .cnt_implied_nak
  );

  // ---------------------------------------------------------------- read_place: READ response data -> local SGEs
  logic rdp_idle;
  /* verilator lint_off UNUSEDSIGNAL */  // its own statistics: not among the CSR counters
  logic [31:0] rdp_pieces, rdp_drop_bytes, rdp_wqe_reads, rdp_hint_hits, rdp_errors;
  /* verilator lint_on UNUSEDSIGNAL */

  read_place #(.DATA_W(DATA_W), .MAX_QP(MAX_QP)) u_rdp (
    .clk, .rst,
    .s_qp_cfg(qp_cfg), .s_qp_cfg_valid(cfg_valid_to[3]), .s_qp_cfg_ready(qp_cfg_ready_rdp),
    .s_cmd(rd_place), .s_cmd_valid(rd_place_valid), .s_cmd_ready(rd_place_ready),
    .s_hint(rd_hint), .s_hint_valid(rd_hint_valid),
    .s_axis_pay_tdata(rs_pay_tdata), .s_axis_pay_tlast(rs_pay_tlast), .s_axis_pay_tvalid(rs_pay_tvalid),
    .s_axis_pay_tready(rs_pay_tready),
    .s_axis_dma_rd_tdata(rd_p_tdata), .s_axis_dma_rd_tlast(rd_p_tlast), .s_axis_dma_rd_tuser(rd_p_tuser),
    .s_axis_dma_rd_tvalid(rd_p_tvalid), .s_axis_dma_rd_tready(rd_p_tready),
    .s_mr_resp(mr_resp_p), .s_mr_resp_valid(mr_resp_p_valid), .s_mr_resp_ready(mr_resp_p_ready),
    .m_dma_rd_req(rd_req_p), .m_dma_rd_req_valid(rd_req_p_valid), .m_dma_rd_req_ready(rd_req_p_ready),
    .m_mr_req(mr_req_p), .m_mr_req_valid(mr_req_p_valid), .m_mr_req_ready(mr_req_p_ready),
    .m_dma_wr_req(wr_req_p), .m_dma_wr_req_valid(wr_req_p_valid), .m_dma_wr_req_ready(wr_req_p_ready),
    .m_axis_dma_wr_tdata(wr_p_tdata), .m_axis_dma_wr_tkeep(wr_p_tkeep), .m_axis_dma_wr_tlast(wr_p_tlast),
    .m_axis_dma_wr_tvalid(wr_p_tvalid), .m_axis_dma_wr_tready(wr_p_tready),
    .m_done(rd_done), .m_done_valid(rd_done_valid), .m_done_ready(rd_done_ready),
    .idle(rdp_idle),
    .cnt_pieces(rdp_pieces), .cnt_drop_bytes(rdp_drop_bytes), .cnt_wqe_reads(rdp_wqe_reads),
    .cnt_hint_hits(rdp_hint_hits), .cnt_errors(rdp_errors)
  );

  // ---------------------------------------------------------------- transport failures -> roce_cmd
  // A fatal NAK the responder sends, an error completion of the completer:
  // roce_cmd records the QP's ERR (QUERY_QP) and tells every owner (both
  // queues flush). The tap never holds either stream back.
  qp_err_tap #(.MAX_QP(MAX_QP)) u_err_tap (
    .clk, .rst,
    .s_ack_hdr(ack_hdr_raw), .s_ack_hdr_valid(ack_raw_valid), .s_ack_hdr_ready(ack_raw_ready),
    .m_ack_hdr(ack_hdr), .m_ack_hdr_valid(ack_hdr_valid), .m_ack_hdr_ready(ack_hdr_ready),
    .s_compl(compl_c_raw), .s_compl_valid(c_raw_valid), .s_compl_ready(c_raw_ready),
    .m_compl(compl_c), .m_compl_valid(compl_c_valid), .m_compl_ready(compl_c_ready),
    .m_qp_err(qp_err), .m_qp_err_valid(qp_err_valid), .m_qp_err_ready(qp_err_ready),
    .idle(idle_err_tap), .init_busy(err_tap_init_busy)
  );

  // ---------------------------------------------------------------- completions
  logic compl_sel;
  desc_arb2 #(.WIDTH(roce_pkg::CQ_COMPL_W)) u_compl_arb (
    .clk, .rst,
    .s0(compl_r), .s0_valid(compl_r_valid), .s0_ready(compl_r_ready),
    .s1(compl_c), .s1_valid(compl_c_valid), .s1_ready(compl_c_ready),
    .m(compl), .m_valid(compl_valid), .m_ready(compl_ready), .m_sel(compl_sel),
    .idle(idle_compl_arb)
  );

  logic [31:0] cnt_cqe, cnt_cq_err, cnt_cqe_err;
  cq_writer #(.DATA_W(DATA_W), .MAX_CQ(MAX_CQ)) u_cq (
    .clk, .rst,
    .s_cfg(cq_cfg), .s_cfg_valid(cq_cfg_valid), .s_cfg_ready(cq_cfg_ready),
    .s_db(cq_db), .s_db_valid(cq_db_valid), .s_db_ready(cq_db_ready),
    .s_compl(compl), .s_compl_valid(compl_valid), .s_compl_ready(compl_ready),
    .m_dma_wr(wr_req_c), .m_dma_wr_valid(wr_req_c_valid), .m_dma_wr_ready(wr_req_c_ready),
    .m_axis_dma_wr_tdata(wr_c_tdata), .m_axis_dma_wr_tvalid(wr_c_tvalid), .m_axis_dma_wr_tready(wr_c_tready),
    .m_event, .m_event_valid, .m_event_ready,
    .cnt_cqe, .cnt_cq_err
  );

  // ---------------------------------------------------------------- TX: arbiter -> deparser -> loopback split
  roce_pkg::roce_tx_hdr_t tx_hdr;  logic tx_hdr_valid, tx_hdr_ready;
  logic [DATA_W-1:0] tx_pay_tdata, dp_tdata;
  logic [KW-1:0]     dp_tkeep;
  logic tx_pay_tvalid, tx_pay_tready, dp_tlast, dp_tvalid, dp_tready;
  logic [31:0] cnt_loopback;

  tx_arb #(.DATA_W(DATA_W)) u_tx_arb (
    .clk, .rst,
    .s_ack_hdr(ack_hdr), .s_ack_hdr_valid(ack_hdr_valid), .s_ack_hdr_ready(ack_hdr_ready),
    .s_req_hdr(req_hdr), .s_req_hdr_valid(req_hdr_valid), .s_req_hdr_ready(req_hdr_ready),
    .s_axis_ack_payload_tdata(ack_pay_tdata), .s_axis_ack_payload_tkeep(ack_pay_tkeep),
    .s_axis_ack_payload_tlast(ack_pay_tlast), .s_axis_ack_payload_tvalid(ack_pay_tvalid),
    .s_axis_ack_payload_tready(ack_pay_tready),
    .s_axis_req_payload_tdata(req_pay_tdata), .s_axis_req_payload_tkeep(req_pay_tkeep),
    .s_axis_req_payload_tlast(req_pay_tlast), .s_axis_req_payload_tvalid(req_pay_tvalid),
    .s_axis_req_payload_tready(req_pay_tready),
    .m_tx_hdr(tx_hdr), .m_tx_hdr_valid(tx_hdr_valid), .m_tx_hdr_ready(tx_hdr_ready),
    .m_axis_tx_payload_tdata(tx_pay_tdata), .m_axis_tx_payload_tvalid(tx_pay_tvalid),
    .m_axis_tx_payload_tready(tx_pay_tready),
    .idle(idle_tx_arb)
  );

  // The port's global traffic class and TTL win over every QP's (mlx5's
  // tc/1/traffic_class and tc/1/ttl): applied as the deparser takes a header.
  roce_pkg::roce_tx_hdr_t tx_hdr_qos;
  always_comb begin
    tx_hdr_qos = tx_hdr;
    if (tx_tclass[8]) tx_hdr_qos.tclass = tx_tclass[7:0];
    if (tx_ttl[8]) tx_hdr_qos.ttl = tx_ttl[7:0];
  end

  roce_deparser #(.DATA_W(DATA_W)) u_deparser (
    .clk, .rst,
    .s_hdr(tx_hdr_qos), .s_hdr_valid(tx_hdr_valid), .s_hdr_ready(tx_hdr_ready),
    .s_axis_pay_tdata(tx_pay_tdata), .s_axis_pay_tvalid(tx_pay_tvalid), .s_axis_pay_tready(tx_pay_tready),
    .m_axis_tx_tdata(dp_tdata), .m_axis_tx_tkeep(dp_tkeep), .m_axis_tx_tlast(dp_tlast),
    .m_axis_tx_tvalid(dp_tvalid), .m_axis_tx_tready(dp_tready),
    .cnt_tx_frames
  );

  loopback_split #(.DATA_W(DATA_W)) u_loopback (
    .clk, .rst, .port_mac,
    .s_axis_tdata(dp_tdata), .s_axis_tkeep(dp_tkeep), .s_axis_tlast(dp_tlast),
    .s_axis_tvalid(dp_tvalid), .s_axis_tready(dp_tready),
    .m0_axis_tdata(m_axis_tx_tdata), .m0_axis_tkeep(m_axis_tx_tkeep), .m0_axis_tlast(m_axis_tx_tlast),
    .m0_axis_tvalid(m_axis_tx_tvalid), .m0_axis_tready(m_axis_tx_tready),
    .m1_axis_tdata(lb_tdata), .m1_axis_tkeep(lb_tkeep), .m1_axis_tlast(lb_tlast),
    .m1_axis_tvalid(lb_tvalid), .m1_axis_tready(lb_tready),
    .cnt_loopback,
    .idle(idle_loopback)
  );

  // ---------------------------------------------------------------- counters
  // CQE_ERR: every completion handed to the CQ writer with a status other than SUCCESS
  logic [31:0] cqe_err_q;
  always_ff @(posedge clk) begin
    if (rst) cqe_err_q <= '0;
    else if (compl_valid && compl_ready && compl.status != 8'd0) cqe_err_q <= cqe_err_q + 32'd1;
  end
  assign cnt_cqe_err = cqe_err_q;

  // Completion statuses by side, as mlx5's hw_counters split them:
  // requester (completer) and responder, errors and flushes apart.
  localparam logic [7:0] WC_FLUSH = 8'(roce_pkg::WC_STATUS_WR_FLUSH_ERR);
  logic [31:0] req_cqe_err_q, resp_cqe_err_q, req_flush_q, resp_flush_q, req_rem_acc_q, req_rem_inv_q, resp_len_q;
  logic c_cqe, r_cqe;
  assign c_cqe = compl_c_valid && compl_c_ready;
  assign r_cqe = compl_r_valid && compl_r_ready;
  always_ff @(posedge clk) begin
    if (rst) begin
      req_cqe_err_q <= '0; resp_cqe_err_q <= '0; req_flush_q <= '0; resp_flush_q <= '0;
      req_rem_acc_q <= '0; req_rem_inv_q <= '0; resp_len_q <= '0;
    end else begin
      if (c_cqe && compl_c.status != 8'd0 && compl_c.status != WC_FLUSH) req_cqe_err_q <= req_cqe_err_q + 32'd1;
      if (r_cqe && compl_r.status != 8'd0 && compl_r.status != WC_FLUSH) resp_cqe_err_q <= resp_cqe_err_q + 32'd1;
      if (c_cqe && compl_c.status == WC_FLUSH) req_flush_q <= req_flush_q + 32'd1;
      if (r_cqe && compl_r.status == WC_FLUSH) resp_flush_q <= resp_flush_q + 32'd1;
      if (c_cqe && compl_c.status == 8'(roce_pkg::WC_STATUS_REM_ACCESS_ERR)) req_rem_acc_q <= req_rem_acc_q + 32'd1;
      if (c_cqe && compl_c.status == 8'(roce_pkg::WC_STATUS_REM_INV_REQ_ERR)) req_rem_inv_q <= req_rem_inv_q + 32'd1;
      if (r_cqe && compl_r.status == 8'(roce_pkg::WC_STATUS_LOC_LEN_ERR)) resp_len_q <= resp_len_q + 32'd1;
    end
  end

  always_comb begin
    cnt_xport = '0;
    cnt_xport[32*roce_pkg::XPORT_CNT_TX_PKTS +: 32]           = cnt_tx_pkts;
    cnt_xport[32*roce_pkg::XPORT_CNT_TX_ACKS +: 32]           = cnt_tx_acks;
    cnt_xport[32*roce_pkg::XPORT_CNT_RX_PKTS +: 32]           = cnt_rx_pkts;
    cnt_xport[32*roce_pkg::XPORT_CNT_RX_ACKS +: 32]           = cnt_rx_acks;
    cnt_xport[32*roce_pkg::XPORT_CNT_NO_QP +: 32]             = cnt_no_qp;
    cnt_xport[32*roce_pkg::XPORT_CNT_QP_STATE +: 32]          = cnt_qp_state;
    cnt_xport[32*roce_pkg::XPORT_CNT_OUT_OF_SEQUENCE +: 32]   = cnt_out_of_sequence;
    cnt_xport[32*roce_pkg::XPORT_CNT_DUPLICATE_REQUEST +: 32] = cnt_duplicate_request;
    cnt_xport[32*roce_pkg::XPORT_CNT_REM_ACCESS_ERR +: 32]    = cnt_rem_access_err;
    cnt_xport[32*roce_pkg::XPORT_CNT_REM_INV_REQ +: 32]       = cnt_rem_inv_req;
    cnt_xport[32*roce_pkg::XPORT_CNT_RNR_NAK_SENT +: 32]      = cnt_rnr_nak_sent;
    cnt_xport[32*roce_pkg::XPORT_CNT_REM_OP_ERR +: 32]        = cnt_rem_op_err;
    cnt_xport[32*roce_pkg::XPORT_CNT_RX_READ_REQUESTS +: 32]  = cnt_rx_read_requests;
    cnt_xport[32*roce_pkg::XPORT_CNT_QKEY_VIOLATIONS +: 32]   = cnt_qkey_violations;
    cnt_xport[32*roce_pkg::XPORT_CNT_IMPLIED_NAK_SEQ_ERR +: 32] = cnt_implied_nak;
    cnt_xport[32*roce_pkg::XPORT_CNT_NAK_RECEIVED +: 32]      = cnt_nak_received;
    cnt_xport[32*roce_pkg::XPORT_CNT_PACKET_SEQ_ERR +: 32]    = cnt_packet_seq_err;
    cnt_xport[32*roce_pkg::XPORT_CNT_UNMATCHED_RESPONSE +: 32] = cnt_unmatched;
    cnt_xport[32*roce_pkg::XPORT_CNT_RETRANSMITS +: 32]       = cnt_retransmits;
    cnt_xport[32*roce_pkg::XPORT_CNT_RETRY_EXCEEDED +: 32]    = cnt_retry_exceeded;
    cnt_xport[32*roce_pkg::XPORT_CNT_LOCAL_ACK_TIMEOUT_ERR +: 32] = cnt_ack_timeout;
    cnt_xport[32*roce_pkg::XPORT_CNT_RNR_NAK_RETRY_ERR +: 32] = cnt_rnr_nak;
    cnt_xport[32*roce_pkg::XPORT_CNT_RNR_RETRY_EXCEEDED +: 32] = cnt_rnr_exceeded;
    cnt_xport[32*roce_pkg::XPORT_CNT_CQE_ERR +: 32]           = cnt_cqe_err;
    cnt_xport[32*roce_pkg::XPORT_CNT_LOOPBACK +: 32]          = cnt_loopback;
    cnt_xport[32*roce_pkg::XPORT_CNT_REQ_REMOTE_ACCESS_ERR +: 32] = req_rem_acc_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_REQ_REMOTE_INV_REQ +: 32] = req_rem_inv_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_RESP_LOCAL_LENGTH_ERR +: 32] = resp_len_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_REQ_CQE_ERR +: 32]       = req_cqe_err_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_RESP_CQE_ERR +: 32]      = resp_cqe_err_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_REQ_CQE_FLUSH_ERR +: 32] = req_flush_q;
    cnt_xport[32*roce_pkg::XPORT_CNT_RESP_CQE_FLUSH_ERR +: 32] = resp_flush_q;
  end

  // ---------------------------------------------------------------- idle
  logic idle_mr_arb, idle_rd_arb, idle_wr_arb, idle_rx_merge, idle_dispatch, idle_compl_arb, idle_tx_arb, idle_loopback;
  // The blocks with an idle output say so themselves. For the packet path
  // and the CQ writer the top counts what went in and what came out: frames
  // into the parser vs headers, bypassed frames and drops out; headers into
  // the deparser vs frames out; completions into the CQ writer vs CQEs
  // written and dropped; MR requests vs responses.
  logic [15:0] par_in_q, par_out_q, dep_in_q, dep_out_q, mr_in_q, mr_out_q;
  logic [31:0] cq_in_q;
  always_ff @(posedge clk) begin
    if (rst) begin
      par_in_q <= '0; par_out_q <= '0; dep_in_q <= '0; dep_out_q <= '0; mr_in_q <= '0; mr_out_q <= '0;
      cq_in_q <= '0;
    end else begin
      if (rxm_tvalid && rxm_tready && rxm_tlast) par_in_q <= par_in_q + 16'd1;
      // a header leaving for frame k can meet the drop of frame k+1 (and a
      // bypassed frame's last beat) in the same cycle: each counts
      par_out_q <= par_out_q + 16'(rx_hdr_valid && rx_hdr_ready)
                             + 16'(m_axis_byp_tvalid && m_axis_byp_tready && m_axis_byp_tlast)
                             + 16'(stat_valid && !stat_bypass && stat_drop != 4'd0);
      if (tx_hdr_valid && tx_hdr_ready) dep_in_q <= dep_in_q + 16'd1;
      if (dp_tvalid && dp_tready && dp_tlast) dep_out_q <= dep_out_q + 16'd1;
      if (mr_req_valid && mr_req_ready) mr_in_q <= mr_in_q + 16'd1;
      if (mr_resp_valid && mr_resp_ready) mr_out_q <= mr_out_q + 16'd1;
      if (compl_valid && compl_ready) cq_in_q <= cq_in_q + 32'd1;
    end
  end
  assign init_busy = req_init_busy || resp_init_busy || err_tap_init_busy;
  assign idle = cmd_idle && req_idle && resp_idle && compl_idle && rdp_idle
             && idle_mr_arb && idle_rd_arb && idle_wr_arb && idle_rx_merge && idle_dispatch && idle_compl_arb
             && idle_tx_arb && idle_loopback && idle_ud_grh && !rx_ureq_valid && !uq_pay_tvalid
             && !cmd_valid && !cmd_resp_valid && !sq_db_valid && !rq_db_valid && !cq_db_valid && !qp_cfg_valid
             && par_in_q == par_out_q && dep_in_q == dep_out_q && mr_in_q == mr_out_q
             && cq_in_q == cnt_cqe + cnt_cq_err && !wr_c_tvalid && !wr_req_c_valid && !m_event_valid
             && !rx_pay_tvalid && !rq_pay_tvalid && !rx_ack_valid && !rx_req_valid && !sq_track_valid && trk_in_q == '0
             && !sq_retire_valid && !compl_r_valid && !compl_c_valid && !ack_hdr_valid && !req_hdr_valid
             && !rs_pay_tvalid && !rd_place_valid && !rd_done_valid
             && idle_err_tap && !c_raw_valid && !ack_raw_valid
             && !lb_tvalid && !s_axis_rx_tvalid && !m_dma_rd_req_valid && !m_dma_wr_req_valid
             && !m_axis_dma_wr_tvalid && !s_axis_dma_rd_tvalid && !m_axis_tx_tvalid && !rxm_tvalid;

  // sel and the write-error count are observed through the waveform only
  /* verilator lint_off UNUSEDSIGNAL */
  logic unused_ok;
  assign unused_ok = ^{compl_sel, cnt_wr_err, link_up, cnt_cq_err[0]};
  /* verilator lint_on UNUSEDSIGNAL */
endmodule

`default_nettype wire
