// roce_csr: the engine's AXI4-Lite control-and-status registers
// (map: spec/csr.toml, docs/spec/csr.md).
//
//   0x000 ID, VERSION, CTRL, ACK_REQ   identity, roce_enable, ACK coalescing
//   0x020 CAP_*                        device limits (this block's parameters)
//   0x080 PORT_MAC_LO/HI, MTU, CTRL, STATE
//   0x100 RX_* / 0x140 RX_DROP[reason] / 0x200 TX_FRAMES   counters of the packet path
//   0x300 XPORT_CNT[i]                 transport counters (xport_cnt enum)
//   0x400 GID[i]: 8 words each         words 0-3 GID (big-endian), word 4 type
//   0x800 CMD_ARG[0..15], CMD_RES[0..3], CMD_OP, CMD_STATUS   command mailbox -> roce_cmd
//   0x880 SQ_DB, RQ_DB, CQ_DB_CI, CQ_DB                       doorbells -> requester, responder, cq_writer
//   0x900 SQ_BF[0..31], 0x980 SQ_BF_DB   a send WQE written with its doorbell -> requester
//
// Mailbox: writing CMD_OP sends {op, CMD_ARG} to roce_cmd and sets busy until
// its answer comes back; CMD_OP and CMD_ARG writes are refused (SLVERR) while
// busy, so the command the engine executes is exactly the one written.
// Doorbells: a write is taken only once the previous doorbell of the same
// kind has been taken by its block (AW/W wait), so none is lost; they read 0.
// SQ_BF_DB is a send doorbell too (one of SQ_DB / SQ_BF_DB pending at a
// time, so the requester sees producer indices in the order written); it
// hands the requester the SQ_BF words with it (sq_bf_wqe, held: SQ_BF writes
// wait while it is pending). SQ_BF reads back what was written.
//
// One write (AW and W taken together) and one read in flight at a time;
// every access is answered, OKAY or SLVERR: unmapped addresses, writes to
// read-only registers and refused values (MTU outside 1..5, GID type > 2)
// get SLVERR and change nothing. Byte strobes apply to read/write registers.
// addr[1:0] are ignored (registers are 32-bit words).
`default_nettype none

module roce_csr #(
  parameter int DATA_W      = 512,
  parameter int MAX_QP      = 256,
  parameter int MAX_CQ      = 256,
  parameter int MAX_MR      = 1024,
  parameter int MAX_PD      = 256,
  parameter int MAX_QP_WR   = 4096,
  parameter int MAX_SGE     = roce_pkg::MAX_SGE,  // SGEs a send or receive WQE holds (spec/constants.toml)
  parameter int MAX_CQE     = 65536,
  parameter int MAX_INLINE  = 96,   // ... or 96 bytes of inline data
  parameter int GID_TBL_LEN = 16
) (
  input  wire logic                                clk,
  input  wire logic                                rst,
  // AXI4-Lite slave
  /* verilator lint_off UNUSEDSIGNAL */  // addr[1:0]: registers are whole 32-bit words
  input  wire logic [11:0]                         s_axil_awaddr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                                s_axil_awvalid,
  output logic                                     s_axil_awready,
  input  wire logic [31:0]                         s_axil_wdata,
  input  wire logic [3:0]                          s_axil_wstrb,
  input  wire logic                                s_axil_wvalid,
  output logic                                     s_axil_wready,
  output logic [1:0]                               s_axil_bresp,
  output logic                                     s_axil_bvalid,
  input  wire logic                                s_axil_bready,
  /* verilator lint_off UNUSEDSIGNAL */  // addr[1:0]: registers are whole 32-bit words
  input  wire logic [11:0]                         s_axil_araddr,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                                s_axil_arvalid,
  output logic                                     s_axil_arready,
  output logic [31:0]                              s_axil_rdata,
  output logic [1:0]                               s_axil_rresp,
  output logic                                     s_axil_rvalid,
  input  wire logic                                s_axil_rready,
  // counters of the packet path, shown read-only
  input  wire logic [31:0]                         cnt_rx_frames,
  input  wire logic [31:0]                         cnt_rx_roce,
  input  wire logic [31:0]                         cnt_rx_bypass,
  input  wire logic [roce_pkg::DROP_COUNT*32-1:0]  cnt_rx_drop,
  input  wire logic [31:0]                         cnt_tx_frames,
  input  wire logic [roce_pkg::XPORT_CNT_COUNT*32-1:0] cnt_xport,  // index 0 (NONE) unused
  // command mailbox toward roce_cmd
  output roce_pkg::cmd_req_t                       m_cmd,
  output logic                                     m_cmd_valid,
  input  wire logic                                m_cmd_ready,
  input  wire roce_pkg::cmd_resp_t                 s_cmd_resp,
  input  wire logic                                s_cmd_resp_valid,
  output logic                                     s_cmd_resp_ready,
  // doorbells
  output roce_pkg::wq_db_t                         m_sq_db,
  output logic                                     m_sq_db_valid,
  input  wire logic                                m_sq_db_ready,
  output logic                                     m_sq_db_bf,   // with m_sq_db: an SQ_BF_DB, sq_bf_wqe is WQE pi - 1
  output logic [8*roce_pkg::WQE_HEAD-1:0]          sq_bf_wqe,    // SQ_BF word i at [32*i +: 32]
  output roce_pkg::wq_db_t                         m_rq_db,
  output logic                                     m_rq_db_valid,
  input  wire logic                                m_rq_db_ready,
  output roce_pkg::cq_db_t                         m_cq_db,
  output logic                                     m_cq_db_valid,
  input  wire logic                                m_cq_db_ready,
  // configuration for the engine
  output logic                                     roce_enable,
  output logic [47:0]                              port_mac,
  output logic [2:0]                               port_mtu,     // IBV_MTU_*: 1 = 256 .. 5 = 4096
  output logic [3:0]                               ack_req_log2, // ACK_REQ: AckReq every 2^n packets
  output logic                                     link_up,
  output logic [GID_TBL_LEN*128-1:0]               gid_table,    // entry i at [128*i +: 128], byte 0 most significant
  output logic [GID_TBL_LEN*2-1:0]                 gid_type,     // 0 unused, 1 RoCE v1, 2 RoCE v2
  output logic [GID_TBL_LEN*13-1:0]                gid_vlan,     // entry i at [13*i +: 13] = {tagged, vid}
  output logic [8:0]                               tx_tclass,    // TX_TCLASS: {enable, tclass}
  output logic [8:0]                               tx_ttl        // TX_TTL: {enable, ttl}
);
  localparam logic [1:0] OKAY = 2'b00, SLVERR = 2'b10;
  localparam int GID_END = 32'(roce_pkg::CSR_GID) + 32 * GID_TBL_LEN;
  localparam int GI_W = (GID_TBL_LEN > 1) ? $clog2(GID_TBL_LEN) : 1;  // GID entry index width

  initial begin
    if (GID_TBL_LEN < 1 || GID_TBL_LEN > 32) $error("roce_csr: GID_TBL_LEN must be 1..32 (the table spans 0x400..0x7FF)");
  end

  // ---- registers
  logic [31:0]  ctrl_q, mac_lo_q, mac_hi_q, mtu_q, port_ctrl_q, ackr_q;
  logic [8:0]   tx_tclass_q, tx_ttl_q;
  logic [12:0]  gvlan_q [GID_TBL_LEN];
  logic [127:0] gid_q [GID_TBL_LEN];
  logic [1:0]   gtype_q [GID_TBL_LEN];
  logic [511:0] cmd_arg_q;            // CMD_ARG word i at [32*i +: 32]
  logic [7:0]   cmd_op_q, cmd_status_q;
  logic [127:0] cmd_res_q;
  logic         cmd_busy_q, cmd_valid_q;
  logic [31:0]  cq_ci_q;
  roce_pkg::wq_db_t sq_db_q, rq_db_q;
  roce_pkg::cq_db_t cq_db_q;
  logic         sq_db_valid_q, rq_db_valid_q, cq_db_valid_q;
  logic         sq_db_bf_q;                   // the pending send doorbell is an SQ_BF_DB
  logic [8*roce_pkg::WQE_HEAD-1:0] sq_bf_q;   // SQ_BF word i at [32*i +: 32]
  localparam logic [11:0] BF_END = roce_pkg::CSR_SQ_BF + 12'(roce_pkg::WQE_HEAD);

  // ---- read decode: value and whether the address exists
  function automatic logic [31:0] gid_word(input logic [127:0] g, input logic [2:0] w);
    case (w)
      3'd0:    gid_word = g[127:96];
      3'd1:    gid_word = g[95:64];
      3'd2:    gid_word = g[63:32];
      3'd3:    gid_word = g[31:0];
      default: gid_word = '0;
    endcase
  endfunction

  logic [31:0] rd_value;
  logic        rd_ok;
  logic [11:0] ra;
  logic [GI_W-1:0] r_gi;

  always_comb begin
    ra = {s_axil_araddr[11:2], 2'b00};
    rd_value = '0;
    rd_ok = 1'b1;
    r_gi = ra[5 +: GI_W];
    if (ra >= roce_pkg::CSR_GID && 32'(ra) < 32'(GID_END)) begin
      if (ra[4:2] == 3'd4) rd_value = {30'b0, gtype_q[r_gi]};
      else if (ra[4:2] == 3'd5) rd_value = {19'b0, gvlan_q[r_gi]};
      else rd_value = gid_word(gid_q[r_gi], ra[4:2]);
    end else if (ra >= roce_pkg::CSR_RX_DROP && 32'(ra) < 32'(roce_pkg::CSR_RX_DROP) + 4 * roce_pkg::DROP_COUNT) begin
      rd_value = cnt_rx_drop[32 * ((ra - roce_pkg::CSR_RX_DROP) >> 2) +: 32];
    end else if (ra > roce_pkg::CSR_XPORT_CNT && 32'(ra) < 32'(roce_pkg::CSR_XPORT_CNT) + 4 * roce_pkg::XPORT_CNT_COUNT) begin
      rd_value = cnt_xport[32 * ((ra - roce_pkg::CSR_XPORT_CNT) >> 2) +: 32];
    end else if (ra >= roce_pkg::CSR_CMD_ARG && ra < roce_pkg::CSR_CMD_ARG + 12'd64) begin
      rd_value = cmd_arg_q[32 * ra[5:2] +: 32];
    end else if (ra >= roce_pkg::CSR_CMD_RES && ra < roce_pkg::CSR_CMD_RES + 12'd16) begin
      rd_value = cmd_res_q[32 * ra[3:2] +: 32];
    end else if (ra >= roce_pkg::CSR_SQ_BF && ra < BF_END) begin
      rd_value = sq_bf_q[32 * ra[6:2] +: 32];
    end else begin
      case (ra)
        roce_pkg::CSR_ID:             rd_value = roce_pkg::CSR_ID_RESET;
        roce_pkg::CSR_VERSION:        rd_value = roce_pkg::CSR_VERSION_RESET;
        roce_pkg::CSR_CTRL:           rd_value = ctrl_q;
        roce_pkg::CSR_TX_TCLASS:      rd_value = {23'b0, tx_tclass_q};
        roce_pkg::CSR_TX_TTL:         rd_value = {23'b0, tx_ttl_q};
        roce_pkg::CSR_CAP_MAX_QP:     rd_value = 32'(MAX_QP);
        roce_pkg::CSR_CAP_MAX_CQ:     rd_value = 32'(MAX_CQ);
        roce_pkg::CSR_CAP_MAX_MR:     rd_value = 32'(MAX_MR);
        roce_pkg::CSR_CAP_MAX_PD:     rd_value = 32'(MAX_PD);
        roce_pkg::CSR_CAP_MAX_QP_WR:  rd_value = 32'(MAX_QP_WR);
        roce_pkg::CSR_CAP_MAX_SGE:    rd_value = 32'(MAX_SGE);
        roce_pkg::CSR_CAP_MAX_CQE:    rd_value = 32'(MAX_CQE);
        roce_pkg::CSR_CAP_MAX_INLINE: rd_value = 32'(MAX_INLINE);
        roce_pkg::CSR_CAP_GID_TBL:    rd_value = 32'(GID_TBL_LEN);
        roce_pkg::CSR_CAP_DATA_W:     rd_value = 32'(DATA_W);
        roce_pkg::CSR_PORT_MAC_LO:    rd_value = mac_lo_q;
        roce_pkg::CSR_PORT_MAC_HI:    rd_value = mac_hi_q;
        roce_pkg::CSR_PORT_MTU:       rd_value = mtu_q;
        roce_pkg::CSR_ACK_REQ:        rd_value = ackr_q;
        roce_pkg::CSR_PORT_CTRL:      rd_value = port_ctrl_q;
        roce_pkg::CSR_PORT_STATE:     rd_value = port_ctrl_q[roce_pkg::CSR_PORT_CTRL_LINK_UP_BIT] ? 32'd4 : 32'd1;
        roce_pkg::CSR_RX_FRAMES:      rd_value = cnt_rx_frames;
        roce_pkg::CSR_RX_ROCE:        rd_value = cnt_rx_roce;
        roce_pkg::CSR_RX_BYPASS:      rd_value = cnt_rx_bypass;
        roce_pkg::CSR_TX_FRAMES:      rd_value = cnt_tx_frames;
        roce_pkg::CSR_CMD_OP:         rd_value = {24'b0, cmd_op_q};
        roce_pkg::CSR_CMD_STATUS:     rd_value = {cmd_busy_q, 23'b0, cmd_status_q};
        roce_pkg::CSR_SQ_DB, roce_pkg::CSR_RQ_DB, roce_pkg::CSR_CQ_DB, roce_pkg::CSR_SQ_BF_DB: rd_value = '0;
        roce_pkg::CSR_CQ_DB_CI:       rd_value = cq_ci_q;
        default:                      rd_ok = 1'b0;
      endcase
    end
    if (ra == roce_pkg::CSR_RX_DROP) rd_ok = 1'b0;  // reason 0 (NONE) is not a drop
    if (ra >= roce_pkg::CSR_GID && 32'(ra) < 32'(GID_END) && ra[4:2] > 3'd5) rd_value = '0;  // reserved words read 0
  end

  // ---- write decode: the register's new value, and whether it is accepted
  function automatic logic [31:0] merge(input logic [31:0] old, input logic [31:0] d, input logic [3:0] strb);
    for (int b = 0; b < 4; b++) merge[8*b +: 8] = strb[b] ? d[8*b +: 8] : old[8*b +: 8];
  endfunction

  logic [11:0]  wa;
  logic [GI_W-1:0] w_gi;
  logic         wr_ok, wr_fire, wr_wait;
  logic [31:0]  wr_new;
  logic [127:0] gid_new;

  always_comb begin
    wa = {s_axil_awaddr[11:2], 2'b00};
    w_gi = wa[5 +: GI_W];
    wr_ok = 1'b0;
    wr_new = '0;
    gid_new = '0;
    if (wa >= roce_pkg::CSR_GID && 32'(wa) < 32'(GID_END)) begin
      gid_new = gid_q[w_gi];
      case (wa[4:2])
        3'd0: begin wr_new = merge(gid_q[w_gi][127:96], s_axil_wdata, s_axil_wstrb); gid_new[127:96] = wr_new; wr_ok = 1'b1; end
        3'd1: begin wr_new = merge(gid_q[w_gi][95:64],  s_axil_wdata, s_axil_wstrb); gid_new[95:64]  = wr_new; wr_ok = 1'b1; end
        3'd2: begin wr_new = merge(gid_q[w_gi][63:32],  s_axil_wdata, s_axil_wstrb); gid_new[63:32]  = wr_new; wr_ok = 1'b1; end
        3'd3: begin wr_new = merge(gid_q[w_gi][31:0],   s_axil_wdata, s_axil_wstrb); gid_new[31:0]   = wr_new; wr_ok = 1'b1; end
        3'd4: begin
          wr_new = merge({30'b0, gtype_q[w_gi]}, s_axil_wdata, s_axil_wstrb);
          wr_ok = wr_new <= 32'd2;
        end
        3'd5: begin
          wr_new = merge({19'b0, gvlan_q[w_gi]}, s_axil_wdata, s_axil_wstrb);
          wr_ok = wr_new[31:13] == 19'b0 && wr_new[11:0] != 12'hFFF;
        end
        default: wr_ok = 1'b0;
      endcase
    end else begin
      case (wa)
        roce_pkg::CSR_CTRL:        begin wr_new = merge(ctrl_q, s_axil_wdata, s_axil_wstrb);      wr_ok = 1'b1; end
        roce_pkg::CSR_TX_TCLASS:   begin wr_new = merge({23'b0, tx_tclass_q}, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_TX_TTL:      begin wr_new = merge({23'b0, tx_ttl_q}, s_axil_wdata, s_axil_wstrb);    wr_ok = 1'b1; end
        roce_pkg::CSR_PORT_MAC_LO: begin wr_new = merge(mac_lo_q, s_axil_wdata, s_axil_wstrb);    wr_ok = 1'b1; end
        roce_pkg::CSR_PORT_MAC_HI: begin wr_new = merge(mac_hi_q, s_axil_wdata, s_axil_wstrb);    wr_ok = 1'b1; end
        roce_pkg::CSR_PORT_CTRL:   begin wr_new = merge(port_ctrl_q, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_ACK_REQ: begin
          wr_new = merge(ackr_q, s_axil_wdata, s_axil_wstrb);
          wr_ok = wr_new <= 32'd15;
        end
        roce_pkg::CSR_PORT_MTU: begin
          wr_new = merge(mtu_q, s_axil_wdata, s_axil_wstrb);
          wr_ok = wr_new >= 32'd1 && wr_new <= 32'd5;
        end
        roce_pkg::CSR_CMD_OP:   begin wr_new = merge({24'b0, cmd_op_q}, s_axil_wdata, s_axil_wstrb); wr_ok = !cmd_busy_q; end
        roce_pkg::CSR_SQ_DB:    begin wr_new = merge('0, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_SQ_BF_DB: begin wr_new = merge('0, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_RQ_DB:    begin wr_new = merge('0, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_CQ_DB_CI: begin wr_new = merge(cq_ci_q, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        roce_pkg::CSR_CQ_DB:    begin wr_new = merge('0, s_axil_wdata, s_axil_wstrb); wr_ok = 1'b1; end
        default: begin
          if (wa >= roce_pkg::CSR_CMD_ARG && wa < roce_pkg::CSR_CMD_ARG + 12'd64) begin
            wr_new = merge(cmd_arg_q[32 * wa[5:2] +: 32], s_axil_wdata, s_axil_wstrb);
            wr_ok = !cmd_busy_q;
          end else if (wa >= roce_pkg::CSR_SQ_BF && wa < BF_END) begin
            wr_new = merge(sq_bf_q[32 * wa[6:2] +: 32], s_axil_wdata, s_axil_wstrb);
            wr_ok = 1'b1;
          end
        end
      endcase
    end
    // a doorbell waits (AW/W not taken) while the previous one of its kind is still pending
    // (SQ_BF words while the WQE they hold waits to be taken with its SQ_BF_DB)
    wr_wait = ((wa == roce_pkg::CSR_SQ_DB || wa == roce_pkg::CSR_SQ_BF_DB) && sq_db_valid_q)
           || (wa == roce_pkg::CSR_RQ_DB && rq_db_valid_q) || (wa == roce_pkg::CSR_CQ_DB && cq_db_valid_q)
           || (wa >= roce_pkg::CSR_SQ_BF && wa < BF_END && sq_db_valid_q && sq_db_bf_q);
  end

  // ---- AXI4-Lite handshakes
  logic       bvalid_q, rvalid_q;
  logic [1:0] bresp_q, rresp_q;
  logic [31:0] rdata_q;

  assign s_axil_awready = !bvalid_q && s_axil_awvalid && s_axil_wvalid && !wr_wait;
  assign s_axil_wready  = s_axil_awready;
  assign wr_fire        = s_axil_awready;
  assign s_axil_arready = !rvalid_q;
  assign s_axil_bvalid  = bvalid_q;
  assign s_axil_bresp   = bresp_q;
  assign s_axil_rvalid  = rvalid_q;
  assign s_axil_rresp   = rresp_q;
  assign s_axil_rdata   = rdata_q;

  always_ff @(posedge clk) begin
    if (rst) begin
      bvalid_q <= 1'b0; bresp_q <= OKAY; rvalid_q <= 1'b0; rresp_q <= OKAY; rdata_q <= '0;
      ctrl_q <= roce_pkg::CSR_CTRL_RESET;
      mac_lo_q <= roce_pkg::CSR_PORT_MAC_LO_RESET;
      mac_hi_q <= roce_pkg::CSR_PORT_MAC_HI_RESET;
      mtu_q <= roce_pkg::CSR_PORT_MTU_RESET;
      ackr_q <= roce_pkg::CSR_ACK_REQ_RESET;
      port_ctrl_q <= roce_pkg::CSR_PORT_CTRL_RESET;
      tx_tclass_q <= 9'(roce_pkg::CSR_TX_TCLASS_RESET);
      tx_ttl_q <= 9'(roce_pkg::CSR_TX_TTL_RESET);
      for (int i = 0; i < GID_TBL_LEN; i++) begin
        gid_q[i] <= '0;
        gtype_q[i] <= '0;
        gvlan_q[i] <= '0;
      end
      cmd_arg_q <= '0; cmd_op_q <= '0; cmd_status_q <= '0; cmd_res_q <= '0;
      cmd_busy_q <= 1'b0; cmd_valid_q <= 1'b0; cq_ci_q <= '0;
      sq_db_q <= '0; rq_db_q <= '0; cq_db_q <= '0;
      sq_db_valid_q <= 1'b0; rq_db_valid_q <= 1'b0; cq_db_valid_q <= 1'b0;
      sq_db_bf_q <= 1'b0; sq_bf_q <= '0;
    end else begin
      if (m_cmd_valid && m_cmd_ready) cmd_valid_q <= 1'b0;
      if (s_cmd_resp_valid) begin
        cmd_busy_q <= 1'b0;
        cmd_status_q <= s_cmd_resp.status;
        cmd_res_q <= s_cmd_resp.res;
      end
      if (m_sq_db_valid && m_sq_db_ready) sq_db_valid_q <= 1'b0;
      if (m_rq_db_valid && m_rq_db_ready) rq_db_valid_q <= 1'b0;
      if (m_cq_db_valid && m_cq_db_ready) cq_db_valid_q <= 1'b0;
      if (s_axil_bvalid && s_axil_bready) bvalid_q <= 1'b0;
      if (s_axil_rvalid && s_axil_rready) rvalid_q <= 1'b0;
      if (wr_fire) begin
        bvalid_q <= 1'b1;
        bresp_q <= wr_ok ? OKAY : SLVERR;
        if (wr_ok) begin
          if (wa >= roce_pkg::CSR_GID && 32'(wa) < 32'(GID_END)) begin
            if (wa[4:2] == 3'd4) gtype_q[w_gi] <= wr_new[1:0];
            else if (wa[4:2] == 3'd5) gvlan_q[w_gi] <= wr_new[12:0];
            else gid_q[w_gi] <= gid_new;
          end else begin
            case (wa)
              // only defined bits are kept; the rest read 0
              roce_pkg::CSR_CTRL:        ctrl_q <= {31'b0, wr_new[0]};
              roce_pkg::CSR_TX_TCLASS:   tx_tclass_q <= wr_new[8:0];
              roce_pkg::CSR_TX_TTL:      tx_ttl_q <= wr_new[8:0];
              roce_pkg::CSR_PORT_MAC_LO: mac_lo_q <= wr_new;
              roce_pkg::CSR_PORT_MAC_HI: mac_hi_q <= {16'b0, wr_new[15:0]};
              roce_pkg::CSR_PORT_MTU:    mtu_q <= {29'b0, wr_new[2:0]};
              roce_pkg::CSR_ACK_REQ:     ackr_q <= {28'b0, wr_new[3:0]};
              roce_pkg::CSR_PORT_CTRL:   port_ctrl_q <= {31'b0, wr_new[0]};
              roce_pkg::CSR_CMD_OP: begin
                cmd_op_q <= wr_new[7:0];
                cmd_busy_q <= 1'b1;
                cmd_valid_q <= 1'b1;
              end
              roce_pkg::CSR_SQ_DB, roce_pkg::CSR_SQ_BF_DB: begin
                sq_db_q <= {wr_new[15:0], wr_new[31:16]};  // {qpn, pi}
                sq_db_valid_q <= 1'b1;
                sq_db_bf_q <= wa == roce_pkg::CSR_SQ_BF_DB;
              end
              roce_pkg::CSR_RQ_DB: begin
                rq_db_q <= {wr_new[15:0], wr_new[31:16]};  // {qpn, pi}
                rq_db_valid_q <= 1'b1;
              end
              roce_pkg::CSR_CQ_DB_CI: cq_ci_q <= {8'b0, wr_new[23:0]};
              roce_pkg::CSR_CQ_DB: begin
                cq_db_q <= {wr_new[15:0], cq_ci_q[23:0], wr_new[17:16]};  // {cq, ci, arm}
                cq_db_valid_q <= 1'b1;
              end
              default:
                // (decoded writes at fixed places, not a shifter of the whole window)
                if (wa >= roce_pkg::CSR_CMD_ARG && wa < roce_pkg::CSR_CMD_ARG + 12'd64) begin
                  for (int i = 0; i < 16; i++) if (wa[5:2] == 4'(i)) cmd_arg_q[32 * i +: 32] <= wr_new;
                end else if (wa >= roce_pkg::CSR_SQ_BF && wa < BF_END) begin
                  for (int i = 0; i < roce_pkg::WQE_HEAD / 4; i++) if (wa[6:2] == 5'(i)) sq_bf_q[32 * i +: 32] <= wr_new;
                end
            endcase
          end
        end
      end
      if (s_axil_arvalid && s_axil_arready) begin
        rvalid_q <= 1'b1;
        rdata_q <= rd_ok ? rd_value : '0;
        rresp_q <= rd_ok ? OKAY : SLVERR;
      end
    end
  end

  // ---- configuration outputs
  assign roce_enable = ctrl_q[roce_pkg::CSR_CTRL_ROCE_ENABLE_BIT];
  assign port_mac    = {mac_hi_q[15:0], mac_lo_q};
  assign port_mtu    = mtu_q[2:0];
  assign ack_req_log2 = ackr_q[3:0];
  assign link_up     = port_ctrl_q[roce_pkg::CSR_PORT_CTRL_LINK_UP_BIT];
  assign tx_tclass   = tx_tclass_q;
  assign tx_ttl      = tx_ttl_q;
  assign m_cmd = {cmd_op_q, cmd_arg_q};  // {op, args}
  assign m_cmd_valid = cmd_valid_q;
  assign s_cmd_resp_ready = 1'b1;  // one command at a time: its answer is always welcome
  assign m_sq_db = sq_db_q;
  assign m_sq_db_valid = sq_db_valid_q;
  assign m_sq_db_bf = sq_db_bf_q;
  assign sq_bf_wqe = sq_bf_q;
  assign m_rq_db = rq_db_q;
  assign m_rq_db_valid = rq_db_valid_q;
  assign m_cq_db = cq_db_q;
  assign m_cq_db_valid = cq_db_valid_q;

  for (genvar i = 0; i < GID_TBL_LEN; i++) begin : g_gid_out
    assign gid_table[128*i +: 128] = gid_q[i];
    assign gid_type[2*i +: 2] = gtype_q[i];
    assign gid_vlan[13*i +: 13] = gvlan_q[i];
  end
endmodule

`default_nettype wire
