// roce_cmd: the command processor behind the CSR mailbox (docs/engine.md
// "Command mailbox"). It allocates protection domains, completion queues,
// memory regions and queue pairs, checks every command, keeps the master QP
// context, and tells the blocks that hold the live state what changed.
//
//   op          checks (first failure wins)                          writes            res
//   ALLOC_PD    free PD (NO_RESOURCES)                               -                 PD
//   DEALLOC_PD  allocated (NOT_FOUND), no MR/QP uses it (BUSY)       -
//   CREATE_CQ   log_size, base % 32 (BAD_PARAM), free CQ             cq_cfg valid      CQ
//   DESTROY_CQ  exists (NOT_FOUND), no QP uses it (BUSY)             cq_cfg invalid
//   REG_MR      PD (NOT_FOUND), access/length/pages (BAD_PARAM),     mr_wr             key
//               free MR index (NO_RESOURCES)
//   DEREG_MR    index allocated to a region and key byte matches     mr_wr invalid
//               (NOT_FOUND)
//   ALLOC_MW    PD (NOT_FOUND), type 1 or 2 (BAD_PARAM), free MR     mr_wr window      rkey
//               index (NO_RESOURCES)
//   DEALLOC_MW  index allocated to a window (NOT_FOUND); the key     mr_wr invalid
//               byte is not checked (the MR table's BINDs change it):
//               arg0's (the last bind's) becomes the slot's last key byte
//   WRITE_MTT   1 <= count <= 6, inside the MTT (BAD_PARAM)          mtt_wr x count
//   CREATE_QP   RC/UC/UD (BAD_PARAM), PD + CQs (NOT_FOUND), sizes/bases    qp_cfg RESET      QPN
//               (BAD_PARAM), free QP (NO_RESOURCES)
//   MODIFY_QP   exists (NOT_FOUND), transition + mask (BAD_STATE),   qp_cfg + action
//               attribute values (BAD_PARAM)
//   QUERY_QP    exists (NOT_FOUND)                                   -                 state sq_psn rq_psn dest_qpn
//   DESTROY_QP  exists (NOT_FOUND)                                   qp_cfg DESTROY
//   (qp_err)    an internal MODIFY_QP to ERR for a QP a transport failure put in ERR
//               (s_qp_err): no answer; nothing when the QP is gone, in RESET or in ERR
//   NOP answers OK, any other op BAD_OP. A refused command writes nothing and
//   answers res = 0. Transitions and masks: roce_qp_rules_pkg. MODIFY_QP with AV
//   resolves the address from the GID entry at sgid_index: type 1 -> ROCEV1,
//   type 2 with ::ffff:a.b.c.d -> IPV4, type 2 otherwise -> IPV6 (types 0 and
//   3 are refused); src_ip = that GID, src_mac = port_mac; dst_ip, dst_mac,
//   ttl, tclass, flow_label and sl come from the command.
//
// One command at a time:
//   IDLE -> RD    checks that need no RAM word; RAM reads issued (RD waits
//                 while the lowest-free finders catch up with a bitmap change)
//        -> EVAL  the RAM words arrive: final status; bitmaps, MR words and
//                 the outgoing descriptors are updated
//        -> REF   reference counts (PD, CQ) read-modify-written one by one
//        -> OUT   the table writes, one after another, each until taken (the
//                 QP context RAM takes the qp_cfg being sent)
//        -> RESP  the answer, after every table write was taken
// Per-QP and per-MR state and the reference counts live in single-port RAMs
// with a registered read (block RAM); the allocation bitmaps are registers
// (they reset). After reset the MR key bytes are cleared one per cycle
// (MAX_MR cycles) before the first command is taken.
`default_nettype none

module roce_cmd #(
  parameter int MAX_QP      = 256,
  parameter int MAX_CQ      = 256,
  parameter int MAX_MR      = 1024,
  parameter int MAX_PD      = 256,
  parameter int MAX_QP_WR   = 4096,
  parameter int MAX_CQE     = 65536,
  parameter int MTT_DEPTH   = 4096,
  parameter int GID_TBL_LEN = 16
) (
  input  wire logic                        clk,
  input  wire logic                        rst,
  input  wire roce_pkg::cmd_req_t          s_cmd,
  input  wire logic                        s_cmd_valid,
  output logic                             s_cmd_ready,
  output roce_pkg::cmd_resp_t              m_resp,
  output logic                             m_resp_valid,
  input  wire logic                        m_resp_ready,
  input  wire roce_pkg::qp_err_t           s_qp_err,     // taken before a mailbox command
  input  wire logic                        s_qp_err_valid,
  output logic                             s_qp_err_ready,
  output roce_pkg::qp_cfg_t                m_qp_cfg,
  output logic                             m_qp_cfg_valid,
  input  wire logic                        m_qp_cfg_ready,
  output roce_pkg::cq_cfg_t                m_cq_cfg,
  output logic                             m_cq_cfg_valid,
  input  wire logic                        m_cq_cfg_ready,
  output logic [15:0]                      m_mr_wr_index,
  output roce_pkg::mr_ctx_t                m_mr_wr_ctx,
  output logic                             m_mr_wr_valid,
  input  wire logic                        m_mr_wr_ready,
  output logic [15:0]                      m_mtt_wr_index,
  output logic [63:0]                      m_mtt_wr_pa,
  output logic                             m_mtt_wr_valid,
  input  wire logic                        m_mtt_wr_ready,
  // static configuration
  input  wire logic [47:0]                 port_mac,     // first byte on the wire in [47:40]
  input  wire logic [GID_TBL_LEN*143-1:0]  gid_table,    // entry i at [143*i +: 143] = {tagged, vid, type, gid}
  output logic                             idle
);
  localparam int QW = $clog2(MAX_QP);
  localparam int CW = $clog2(MAX_CQ);
  localparam int MW = $clog2(MAX_MR);
  localparam int PW = $clog2(MAX_PD);
  localparam int XW = (PW > CW ? PW : CW) + 1;      // reference-count address {is_cq, index}
  localparam int CTX_W = roce_pkg::QP_CFG_W - 19;   // qp_cfg_t without qpn and action
  localparam int RC_W = 16;                         // reference count
  localparam int KW = 9 + PW;                       // MR word {key byte, window, pd}
  localparam logic [7:0] MAX_WR_LSZ = 8'($clog2(MAX_QP_WR));
  localparam logic [7:0] MAX_CQ_LSZ = 8'($clog2(MAX_CQE));
  // The lowest-free finders take one more step past 2048 entries (roce_cmd_ffz)
  localparam int FFZ_LAT = (MAX_QP > 2048) ? 3 : 2;
  localparam logic [2:0] SETTLE = 3'(FFZ_LAT + 1);

  initial begin
    if ((1 << QW) != MAX_QP || MAX_QP < 2 || MAX_QP > 65536) $error("roce_cmd: MAX_QP must be a power of two in 2..65536");
    if ((1 << CW) != MAX_CQ || MAX_CQ < 2 || MAX_CQ > 1024) $error("roce_cmd: MAX_CQ must be a power of two in 2..1024");
    if ((1 << MW) != MAX_MR || MAX_MR < 2 || MAX_MR > 1024) $error("roce_cmd: MAX_MR must be a power of two in 2..1024");
    if ((1 << PW) != MAX_PD || MAX_PD < 2 || MAX_PD > 1024) $error("roce_cmd: MAX_PD must be a power of two in 2..1024");
    if (MTT_DEPTH < 1 || MTT_DEPTH > 32768) $error("roce_cmd: MTT_DEPTH must be 1..32768 (16-bit MTT index)");
    if (GID_TBL_LEN < 1 || GID_TBL_LEN > 255) $error("roce_cmd: GID_TBL_LEN must be 1..255");
  end

  // ---- operations and statuses as 8-bit values (CMD_OP / CMD_STATUS bytes)
  localparam logic [7:0] OP_NOP        = 8'(roce_pkg::CMD_OP_NOP);
  localparam logic [7:0] OP_ALLOC_PD   = 8'(roce_pkg::CMD_OP_ALLOC_PD);
  localparam logic [7:0] OP_DEALLOC_PD = 8'(roce_pkg::CMD_OP_DEALLOC_PD);
  localparam logic [7:0] OP_CREATE_CQ  = 8'(roce_pkg::CMD_OP_CREATE_CQ);
  localparam logic [7:0] OP_DESTROY_CQ = 8'(roce_pkg::CMD_OP_DESTROY_CQ);
  localparam logic [7:0] OP_REG_MR     = 8'(roce_pkg::CMD_OP_REG_MR);
  localparam logic [7:0] OP_DEREG_MR   = 8'(roce_pkg::CMD_OP_DEREG_MR);
  localparam logic [7:0] OP_ALLOC_MW   = 8'(roce_pkg::CMD_OP_ALLOC_MW);
  localparam logic [7:0] OP_DEALLOC_MW = 8'(roce_pkg::CMD_OP_DEALLOC_MW);
  localparam logic [7:0] OP_WRITE_MTT  = 8'(roce_pkg::CMD_OP_WRITE_MTT);
  localparam logic [7:0] OP_CREATE_QP  = 8'(roce_pkg::CMD_OP_CREATE_QP);
  localparam logic [7:0] OP_MODIFY_QP  = 8'(roce_pkg::CMD_OP_MODIFY_QP);
  localparam logic [7:0] OP_QUERY_QP   = 8'(roce_pkg::CMD_OP_QUERY_QP);
  localparam logic [7:0] OP_DESTROY_QP = 8'(roce_pkg::CMD_OP_DESTROY_QP);
  localparam logic [7:0] ST_OK     = 8'(roce_pkg::CMD_STATUS_OK);
  localparam logic [7:0] ST_BAD_OP = 8'(roce_pkg::CMD_STATUS_BAD_OP);
  localparam logic [7:0] ST_PARAM  = 8'(roce_pkg::CMD_STATUS_BAD_PARAM);
  localparam logic [7:0] ST_NO_RES = 8'(roce_pkg::CMD_STATUS_NO_RESOURCES);
  localparam logic [7:0] ST_STATE  = 8'(roce_pkg::CMD_STATUS_BAD_STATE);
  localparam logic [7:0] ST_BUSY   = 8'(roce_pkg::CMD_STATUS_BUSY);
  localparam logic [7:0] ST_NF     = 8'(roce_pkg::CMD_STATUS_NOT_FOUND);

  localparam logic [3:0] S_INIT = 4'd0, S_IDLE = 4'd1, S_RD = 4'd2, S_EVAL = 4'd3, S_REF_RD = 4'd4,
                         S_REF_WR = 4'd5, S_OUT_QP = 4'd6, S_OUT_CQ = 4'd7, S_OUT_MR = 4'd8,
                         S_OUT_MTT = 4'd9, S_RESP = 4'd10;

  function automatic logic [XW-1:0] pd_ref(input logic [PW-1:0] pd);
    pd_ref = {1'b0, (XW-1)'(pd)};
  endfunction
  function automatic logic [XW-1:0] cq_ref(input logic [CW-1:0] cq);
    cq_ref = {1'b1, (XW-1)'(cq)};
  endfunction

  logic [3:0]          state_q;
  logic [2:0]          settle_q;   // cycles until the lowest-free answers match the bitmaps
  logic [MW-1:0]       init_q;
  roce_pkg::cmd_req_t  cmd_q;
  logic                internal_q; // cmd_q is a qp_err's MODIFY_QP to ERR: no answer

  // A qp_err as the command it stands for: MODIFY_QP {qpn, attr_mask STATE, qp_state ERR}.
  roce_pkg::cmd_req_t  err_cmd;
  always_comb begin
    err_cmd = '0;
    err_cmd.op = OP_MODIFY_QP;
    err_cmd.args[8*roce_pkg::CMD_MODIFY_QP_QPN_OFF +: 16] = s_qp_err.qpn;
    err_cmd.args[8*roce_pkg::CMD_MODIFY_QP_ATTR_MASK_OFF +: 32] = roce_qp_rules_pkg::ATTR_STATE;
    err_cmd.args[8*roce_pkg::CMD_MODIFY_QP_QP_STATE_OFF +: 8] = 8'(roce_pkg::QP_STATE_ERR);
  end

  // ---- allocation bitmaps (registers: they must reset; alloc_bitmap) and their lowest free entry
  logic [MAX_PD-1:0] pd_used_q;
  logic [MAX_CQ-1:0] cq_used_q;
  logic [MAX_QP-1:0] qp_used_q;
  logic [MAX_MR-1:0] mr_used_q;
  logic          pd_free_c, cq_free_c, qp_free_c, mr_free_c;
  logic [PW-1:0] pd_idx_c;
  logic [CW-1:0] cq_idx_c;
  logic [QW-1:0] qp_idx_c;
  logic [MW-1:0] mr_idx_c;
  logic          pd_free_q, cq_free_q, qp_free_q, mr_free_q;
  logic [PW-1:0] pd_idx_q;
  logic [CW-1:0] cq_idx_q;
  logic [QW-1:0] qp_idx_q;
  logic [MW-1:0] mr_idx_q;

  roce_cmd_ffz #(.N(MAX_PD), .LAT(FFZ_LAT)) u_ffz_pd (.clk(clk), .used(pd_used_q), .found(pd_free_c), .idx(pd_idx_c));
  roce_cmd_ffz #(.N(MAX_CQ), .LAT(FFZ_LAT)) u_ffz_cq (.clk(clk), .used(cq_used_q), .found(cq_free_c), .idx(cq_idx_c));
  // QPNs 0 and 1 are never handed out: IBTA reserves them for the SMI and the
  // GSI (tools such as Wireshark decode traffic to QP 1 as MADs).
  roce_cmd_ffz #(.N(MAX_QP), .LAT(FFZ_LAT)) u_ffz_qp (.clk(clk), .used(qp_used_q | MAX_QP'(3)), .found(qp_free_c), .idx(qp_idx_c));
  roce_cmd_ffz #(.N(MAX_MR), .LAT(FFZ_LAT)) u_ffz_mr (.clk(clk), .used(mr_used_q), .found(mr_free_c), .idx(mr_idx_c));

  // Registered. The answer trails a bitmap change by SETTLE cycles (FFZ_LAT
  // in the finder, one here): RD waits until settle_q has counted them down.
  always_ff @(posedge clk) begin
    pd_free_q <= pd_free_c; pd_idx_q <= pd_idx_c;
    cq_free_q <= cq_free_c; cq_idx_q <= cq_idx_c;
    qp_free_q <= qp_free_c; qp_idx_q <= qp_idx_c;
    mr_free_q <= mr_free_c; mr_idx_q <= mr_idx_c;
  end

  // ---- RAMs: single port, registered read
  logic [RC_W-1:0]  ref_mem [1 << XW];   // references to PD p at {0, p}, to CQ c at {1, c}
  logic [KW-1:0]    mr_mem  [MAX_MR];    // {key byte of the last registration, window, pd}
  // (block RAM, never LUT-RAM: with -uram Yosys 0.23 maps the 16K-QP table to
  // its LUT-RAM single-port template, which then fails on the depth)
  (* ram_style = "block" *)
  logic [CTX_W-1:0] qp_mem  [MAX_QP];    // the master QP context (qp_cfg_t[CTX_W-1:0])
  logic             ref_we, ref_re, mr_we, mr_re, qp_we, qp_re;
  logic [XW-1:0]    ref_addr;
  logic [MW-1:0]    mr_addr;
  logic [QW-1:0]    qp_addr;
  logic [RC_W-1:0]  ref_wdata, ref_rd_q;
  logic [KW-1:0]    mr_wdata, mr_rd_q;
  logic [CTX_W-1:0] qp_wdata, qp_rd_q;

  always_ff @(posedge clk) begin
    if (ref_we) ref_mem[ref_addr] <= ref_wdata;
    if (ref_re) ref_rd_q <= ref_mem[ref_addr];
  end
  always_ff @(posedge clk) begin
    if (mr_we) mr_mem[mr_addr] <= mr_wdata;
    if (mr_re) mr_rd_q <= mr_mem[mr_addr];
  end
  always_ff @(posedge clk) begin
    if (qp_we) qp_mem[qp_addr] <= qp_wdata;
    if (qp_re) qp_rd_q <= qp_mem[qp_addr];
  end

  // ---- command fields (byte k of the argument block is args[8k +: 8])
  logic [7:0]  op;
  logic [31:0] a0;
  always_comb begin
    op = cmd_q.op;
    a0 = cmd_q.args[31:0];
  end

  // CREATE_CQ
  logic [63:0] cq_base;
  logic [7:0]  cq_lsz;
  // REG_MR
  logic [63:0] mr_iova, mr_len, mr_last, mr_need;
  logic [31:0] mr_pd, mr_acc, mr_mtt, mr_np;
  logic [7:0]  mr_ps;
  // ALLOC_MW (its pd is a0)
  logic [7:0]  mw_type;
  // WRITE_MTT
  logic [31:0] mtt_index, mtt_count;
  // CREATE_QP
  logic [63:0] qp_sq_base, qp_rq_base;
  logic [31:0] qp_pd, qp_scq, qp_rcq;
  logic [7:0]  qp_type, qp_sq_lsz, qp_rq_lsz;
  // MODIFY_QP
  // (fields wider than their qp_cfg_t field are truncated to it)
  logic [31:0] m_mask;
  logic [23:0] m_dest_qpn, m_rq_psn, m_sq_psn;
  logic [31:0] m_qkey;
  logic [19:0] m_flow_label;
  logic [7:0]  m_state, m_pmtu, m_access, m_sgid, m_hop, m_tclass, m_port;
  logic [3:0]  m_sl;
  logic [4:0]  m_rnr, m_timeout;
  logic [2:0]  m_retry, m_rnr_retry;
  logic [7:0]  m_rd_atom, m_dest_rd_atom;
  logic [15:0] m_pkey;
  logic [47:0] m_dmac;
  logic [127:0] m_dgid;

  always_comb begin
    cq_base    = cmd_q.args[8*roce_pkg::CMD_CREATE_CQ_BASE_OFF +: 64];
    cq_lsz     = cmd_q.args[8*roce_pkg::CMD_CREATE_CQ_LOG_SIZE_OFF +: 8];
    mr_iova    = cmd_q.args[8*roce_pkg::CMD_REG_MR_IOVA_OFF +: 64];
    mr_len     = cmd_q.args[8*roce_pkg::CMD_REG_MR_LENGTH_OFF +: 64];
    mr_pd      = cmd_q.args[8*roce_pkg::CMD_REG_MR_PD_OFF +: 32];
    mr_acc     = cmd_q.args[8*roce_pkg::CMD_REG_MR_ACCESS_OFF +: 32];
    mr_mtt     = cmd_q.args[8*roce_pkg::CMD_REG_MR_MTT_BASE_OFF +: 32];
    mr_np      = cmd_q.args[8*roce_pkg::CMD_REG_MR_NPAGES_OFF +: 32];
    mr_ps      = cmd_q.args[8*roce_pkg::CMD_REG_MR_PAGE_SHIFT_OFF +: 8];
    mw_type    = cmd_q.args[8*roce_pkg::CMD_ALLOC_MW_TYPE_OFF +: 8];
    mtt_index  = cmd_q.args[8*roce_pkg::CMD_WRITE_MTT_INDEX_OFF +: 32];
    mtt_count  = cmd_q.args[8*roce_pkg::CMD_WRITE_MTT_COUNT_OFF +: 32];
    qp_sq_base = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_SQ_BASE_OFF +: 64];
    qp_rq_base = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_RQ_BASE_OFF +: 64];
    qp_pd      = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_PD_OFF +: 32];
    qp_scq     = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_SEND_CQ_OFF +: 32];
    qp_rcq     = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_RECV_CQ_OFF +: 32];
    qp_type    = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_QP_TYPE_OFF +: 8];
    qp_sq_lsz  = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_SQ_LSZ_OFF +: 8];
    qp_rq_lsz  = cmd_q.args[8*roce_pkg::CMD_CREATE_QP_RQ_LSZ_OFF +: 8];
    m_mask     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_ATTR_MASK_OFF +: 32];
    m_state    = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_QP_STATE_OFF +: 8];
    m_pmtu     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_PATH_MTU_OFF +: 8];
    m_access   = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_ACCESS_OFF +: 8];
    m_sgid     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_SGID_INDEX_OFF +: 8];
    m_dest_qpn = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_DEST_QPN_OFF +: 24];
    m_rq_psn   = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_RQ_PSN_OFF +: 24];
    m_sq_psn   = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_SQ_PSN_OFF +: 24];
    m_qkey     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_QKEY_OFF +: 32];
    // MAC and GID travel in network order: byte 0 is the most significant
    m_dmac     = byte_order_pkg::be48(cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_DMAC_OFF +: 48]);
    m_hop      = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_HOP_LIMIT_OFF +: 8];
    m_tclass   = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_TRAFFIC_CLASS_OFF +: 8];
    m_dgid     = byte_order_pkg::be128(cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_DGID_OFF +: 128]);
    m_flow_label = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_FLOW_LABEL_OFF +: 20];
    m_sl       = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_SL_OFF +: 4];
    m_rnr      = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_MIN_RNR_TIMER_OFF +: 5];
    m_timeout  = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_TIMEOUT_OFF +: 5];     // IBTA field widths: the rest
    m_retry    = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_RETRY_CNT_OFF +: 3];   // of the byte is ignored
    m_rnr_retry = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_RNR_RETRY_OFF +: 3];
    m_rd_atom      = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_MAX_RD_ATOMIC_OFF +: 8];
    m_dest_rd_atom = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_MAX_DEST_RD_ATOMIC_OFF +: 8];
    m_port     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_PORT_NUM_OFF +: 8];
    m_pkey     = cmd_q.args[8*roce_pkg::CMD_MODIFY_QP_PKEY_INDEX_OFF +: 16];
  end

  // ---- RD: every check that needs no RAM word
  // The GID entry at sgid_index (an index beyond the table is refused below).
  logic [142:0] gid_sel;
  sgid_lookup #(.GID_TBL_LEN(GID_TBL_LEN)) u_sgid (.gid_table, .index(m_sgid), .entry(gid_sel));

  localparam int OW = (PW > CW ? PW : CW) > (QW > MW ? QW : MW) ? (PW > CW ? PW : CW) : (QW > MW ? QW : MW);
  logic [31:0]  pd_look, cq_look;
  logic         pd_ok, cq_ok, rcq_ok, a0_qp_ok, a0_mr_ok;
  logic         cq_bad, mr_bad, mtt_bad, qp_bad;
  logic [142:0] gid_e;
  logic         av_bad, mod_pbad;
  logic [1:0]   l3;
  logic [7:0]   st1;
  logic [OW-1:0] obj_idx;   // the bitmap entry the command sets or clears
  logic         obj_set;

  always_comb begin
    // one lookup per bitmap and index (CREATE_QP needs two CQs)
    pd_look = op == OP_REG_MR ? mr_pd : op == OP_CREATE_QP ? qp_pd : a0;
    cq_look = op == OP_CREATE_QP ? qp_scq : a0;
    pd_ok    = pd_look < 32'(MAX_PD) && pd_used_q[pd_look[PW-1:0]];
    cq_ok    = cq_look < 32'(MAX_CQ) && cq_used_q[cq_look[CW-1:0]];
    rcq_ok   = qp_rcq < 32'(MAX_CQ) && cq_used_q[qp_rcq[CW-1:0]];
    a0_qp_ok = a0 < 32'(MAX_QP) && qp_used_q[a0[QW-1:0]];
    a0_mr_ok = a0[31:8] < 24'(MAX_MR) && mr_used_q[a0[8 +: MW]];

    case (op)
      OP_ALLOC_PD:  obj_idx = OW'(pd_idx_q);
      OP_CREATE_CQ: obj_idx = OW'(cq_idx_q);
      OP_REG_MR, OP_ALLOC_MW:    obj_idx = OW'(mr_idx_q);
      OP_CREATE_QP: obj_idx = OW'(qp_idx_q);
      OP_DEREG_MR, OP_DEALLOC_MW: obj_idx = OW'(a0[8 +: MW]);
      default:      obj_idx = a0[OW-1:0];
    endcase
    obj_set = op == OP_ALLOC_PD || op == OP_CREATE_CQ || op == OP_REG_MR || op == OP_ALLOC_MW || op == OP_CREATE_QP;

    cq_bad = cq_lsz > MAX_CQ_LSZ || cq_base[4:0] != 5'b0;

    // IBTA: remote write or atomic rights need local write; pages of 4 KiB..1 GiB;
    // the region must not wrap and its npages MTT entries must cover it.
    // Bits 0..3 are the access enum, bit 4 ACCESS_MW_BIND.
    mr_last = mr_iova + mr_len - 64'd1;
    mr_need = (mr_last >> mr_ps[4:0]) - (mr_iova >> mr_ps[4:0]) + 64'd1;
    mr_bad = mr_acc[31:5] != 27'b0 || ((mr_acc[1] || mr_acc[3]) && !mr_acc[0]) || mr_len == 64'b0 ||
             mr_ps < 8'd12 || mr_ps > 8'd30 || mr_last < mr_iova || mr_need > {32'b0, mr_np} ||
             {1'b0, mr_mtt} + {1'b0, mr_np} > 33'(MTT_DEPTH);

    mtt_bad = mtt_count == 32'b0 || mtt_count > 32'd6 || {1'b0, mtt_index} + {1'b0, mtt_count} > 33'(MTT_DEPTH);

    qp_bad = qp_sq_lsz > MAX_WR_LSZ || qp_rq_lsz > MAX_WR_LSZ || qp_sq_base[8:0] != 9'b0 || qp_rq_base[8:0] != 9'b0;  // 512-byte slots

    // MODIFY_QP attribute values (only those named in the mask)
    gid_e = gid_sel;
    // a GID entry in use is RoCE v1 (1) or v2 (2); 3 is no defined type
    av_bad = m_sgid >= 8'(GID_TBL_LEN) || !sgid_pkg::gid_usable(gid_e[129:128]);
    l3 = sgid_pkg::gid_l3(gid_e[129:128], gid_e[127:0]);
    mod_pbad = ((m_mask & roce_qp_rules_pkg::ATTR_PATH_MTU) != 0 && (m_pmtu < 8'd1 || m_pmtu > 8'd5)) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_AV) != 0 && av_bad) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_PORT) != 0 && m_port != 8'd1) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_PKEY_INDEX) != 0 && m_pkey != 16'd0) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_ACCESS_FLAGS) != 0 && m_access[7:4] != 4'b0) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_MAX_QP_RD_ATOMIC) != 0 && m_rd_atom > 8'(roce_pkg::MAX_QP_RD_ATOM)) ||
               ((m_mask & roce_qp_rules_pkg::ATTR_MAX_DEST_RD_ATOMIC) != 0
                && m_dest_rd_atom > 8'(roce_pkg::MAX_QP_RD_ATOM));

    case (op)
      OP_NOP:        st1 = ST_OK;
      OP_ALLOC_PD:   st1 = pd_free_q ? ST_OK : ST_NO_RES;
      OP_DEALLOC_PD: st1 = pd_ok ? ST_OK : ST_NF;
      OP_CREATE_CQ:  st1 = cq_bad ? ST_PARAM : cq_free_q ? ST_OK : ST_NO_RES;
      OP_DESTROY_CQ: st1 = cq_ok ? ST_OK : ST_NF;
      OP_REG_MR:     st1 = !pd_ok ? ST_NF : mr_bad ? ST_PARAM : mr_free_q ? ST_OK : ST_NO_RES;
      OP_DEREG_MR, OP_DEALLOC_MW: st1 = a0_mr_ok ? ST_OK : ST_NF;
      OP_ALLOC_MW:   st1 = !pd_ok ? ST_NF : (mw_type != 8'd1 && mw_type != 8'd2) ? ST_PARAM :
                           mr_free_q ? ST_OK : ST_NO_RES;
      OP_WRITE_MTT:  st1 = mtt_bad ? ST_PARAM : ST_OK;
      OP_CREATE_QP:  st1 = (qp_type != 8'(roce_pkg::QP_TYPE_RC) && qp_type != 8'(roce_pkg::QP_TYPE_UC) &&
                            qp_type != 8'(roce_pkg::QP_TYPE_UD)) ? ST_PARAM : !(pd_ok && cq_ok && rcq_ok) ? ST_NF :
                           qp_bad ? ST_PARAM : qp_free_q ? ST_OK : ST_NO_RES;
      OP_MODIFY_QP, OP_QUERY_QP, OP_DESTROY_QP: st1 = a0_qp_ok ? ST_OK : ST_NF;
      default:       st1 = ST_BAD_OP;
    endcase
  end

  logic [7:0]   st1_q;
  logic [OW-1:0] obj_idx_q;
  logic         obj_set_q;
  logic         mod_pbad_q;
  logic [1:0]   l3_q;
  logic [127:0] gid_q;
  logic [12:0]  vlan_q;  // the entry's {tagged, vid}

  // ---- EVAL: the RAM words are in; final status and the new contents
  roce_pkg::qp_cfg_t cur, merged, fresh, gone;
  roce_pkg::mr_ctx_t mr_ctx, mw_ctx;
  roce_pkg::cq_cfg_t cq_new, cq_gone;
  roce_qp_rules_pkg::qp_rule_t rule;
  logic [7:0]   status, key_old, key_new;
  logic         mw_old;
  logic         ok;
  logic [127:0] res;

  always_comb begin
    cur = {16'b0, 3'b0, qp_rd_q};
    rule = roce_qp_rules_pkg::qp_rule(cur.state, m_state, cur.qp_type);
    key_old = mr_rd_q[KW-1 -: 8];
    mw_old  = mr_rd_q[PW];
    key_new = key_old == 8'd255 ? 8'd1 : key_old + 8'd1;   // 0 (never registered) -> 1

    status = st1_q;
    if (st1_q == ST_OK) begin
      case (op)
        OP_DEALLOC_PD, OP_DESTROY_CQ: if (ref_rd_q != '0) status = ST_BUSY;
        OP_DEREG_MR:  if (mw_old || key_old != a0[7:0]) status = ST_NF;
        OP_DEALLOC_MW: if (!mw_old) status = ST_NF;
        OP_MODIFY_QP: begin
          if (!roce_qp_rules_pkg::mask_ok(rule.ok, rule.required, rule.optional, m_mask)) status = ST_STATE;
          else if (mod_pbad_q) status = ST_PARAM;
          // a failure reported for a QP reset or already failed since changes nothing
          if (internal_q && (cur.state == roce_pkg::QP_STATE_RESET || cur.state == roce_pkg::QP_STATE_ERR))
            status = ST_STATE;
        end
        default: ;
      endcase
    end
    ok = status == ST_OK;

    // MODIFY_QP: the stored context with the masked attributes merged in
    merged = cur;
    merged.qpn = a0[15:0];
    merged.action = rule.action;
    merged.state = m_state[2:0];
    if ((m_mask & roce_qp_rules_pkg::ATTR_ACCESS_FLAGS) != 0) merged.access = m_access[3:0];
    if ((m_mask & roce_qp_rules_pkg::ATTR_AV) != 0) begin
      merged.l3 = l3_q;
      merged.src_ip = gid_q;
      merged.vlan_valid = vlan_q[12];
      merged.vlan_vid = vlan_q[11:0];
      merged.src_mac = port_mac;
      merged.dst_ip = m_dgid;
      merged.dst_mac = m_dmac;
      merged.ttl = m_hop;
      merged.tclass = m_tclass;
      merged.flow_label = m_flow_label;
      merged.sl = m_sl;
    end
    if ((m_mask & roce_qp_rules_pkg::ATTR_PATH_MTU) != 0) merged.pmtu = m_pmtu[2:0];
    if ((m_mask & roce_qp_rules_pkg::ATTR_DEST_QPN) != 0) merged.dest_qpn = m_dest_qpn;
    if ((m_mask & roce_qp_rules_pkg::ATTR_RQ_PSN) != 0) merged.rq_psn = m_rq_psn;
    if ((m_mask & roce_qp_rules_pkg::ATTR_SQ_PSN) != 0) merged.sq_psn = m_sq_psn;
    if ((m_mask & roce_qp_rules_pkg::ATTR_QKEY) != 0) merged.qkey = m_qkey;
    if ((m_mask & roce_qp_rules_pkg::ATTR_MIN_RNR_TIMER) != 0) merged.min_rnr_timer = m_rnr;
    if ((m_mask & roce_qp_rules_pkg::ATTR_TIMEOUT) != 0) merged.timeout = m_timeout;
    if ((m_mask & roce_qp_rules_pkg::ATTR_RETRY_CNT) != 0) merged.retry_cnt = m_retry;
    if ((m_mask & roce_qp_rules_pkg::ATTR_RNR_RETRY) != 0) merged.rnr_retry = m_rnr_retry;
    if ((m_mask & roce_qp_rules_pkg::ATTR_MAX_QP_RD_ATOMIC) != 0) merged.max_rd_atomic = m_rd_atom[4:0];
    if ((m_mask & roce_qp_rules_pkg::ATTR_MAX_DEST_RD_ATOMIC) != 0) merged.max_dest_rd_atomic = m_dest_rd_atom[4:0];

    // CREATE_QP: a new context in RESET
    fresh = '0;
    fresh.qpn = 16'(qp_idx_q);
    fresh.action = roce_pkg::QP_ACTION_RESET;
    fresh.state = roce_pkg::QP_STATE_RESET;
    fresh.qp_type = qp_type[2:0];
    fresh.pd = qp_pd[15:0];
    fresh.send_cq = qp_scq[15:0];
    fresh.recv_cq = qp_rcq[15:0];
    fresh.sq_base = qp_sq_base;
    fresh.sq_lsz = qp_sq_lsz[4:0];
    fresh.rq_base = qp_rq_base;
    fresh.rq_lsz = qp_rq_lsz[4:0];

    // DESTROY_QP: the last context, for the owners to invalidate
    gone = cur;
    gone.qpn = a0[15:0];
    gone.action = roce_pkg::QP_ACTION_DESTROY;

    // CREATE_CQ / DESTROY_CQ
    cq_new = '0;
    cq_new.cq = 16'(cq_idx_q);
    cq_new.valid = 1'b1;
    cq_new.base = cq_base;
    cq_new.log_size = cq_lsz[4:0];
    cq_gone = '0;
    cq_gone.cq = a0[15:0];

    // REG_MR: the new MR table entry
    mr_ctx = '0;
    mr_ctx.valid = 1'b1;
    mr_ctx.key = key_new;
    mr_ctx.pd = mr_pd[15:0];
    mr_ctx.access = mr_acc[3:0];
    mr_ctx.mw_bind = mr_acc[4];
    mr_ctx.iova = mr_iova;
    mr_ctx.length = mr_len;
    mr_ctx.mtt_base = mr_mtt[15:0];
    mr_ctx.page_shift = mr_ps[5:0];

    // ALLOC_MW: an unbound window (valid once a BIND makes it so)
    mw_ctx = '0;
    mw_ctx.key = key_new;
    mw_ctx.pd = a0[15:0];
    mw_ctx.mw = 1'b1;
    mw_ctx.mw_type2 = mw_type == 8'd2;

    res = '0;
    if (ok) begin
      case (op)
        OP_ALLOC_PD:  res[31:0] = 32'(pd_idx_q);
        OP_CREATE_CQ: res[31:0] = 32'(cq_idx_q);
        OP_REG_MR, OP_ALLOC_MW: res[31:0] = {24'(mr_idx_q), key_new};
        OP_CREATE_QP: res[31:0] = 32'(qp_idx_q);
        OP_QUERY_QP:  res = {8'b0, cur.dest_qpn, 8'b0, cur.rq_psn, 8'b0, cur.sq_psn, 29'b0, cur.state};
        default: ;
      endcase
    end
  end

  // ---- reference-count updates: up to three read-modify-writes
  logic [3*XW-1:0] ref_list_q;
  logic [1:0]      ref_n_q, ref_i_q;
  logic            ref_dec_q;
  logic [3:0]      ref_next_q;
  logic [XW-1:0]   ref_cur;

  always_comb begin
    case (ref_i_q)
      2'd0:    ref_cur = ref_list_q[0 +: XW];
      2'd1:    ref_cur = ref_list_q[XW +: XW];
      default: ref_cur = ref_list_q[2*XW +: XW];
    endcase
  end

  // ---- RAM ports
  always_comb begin
    ref_we = 1'b0; ref_re = 1'b0; ref_addr = '0; ref_wdata = '0;
    mr_we = 1'b0; mr_re = 1'b0; mr_addr = '0; mr_wdata = '0;
    qp_we = 1'b0; qp_re = 1'b0; qp_addr = '0; qp_wdata = '0;
    case (state_q)
      S_INIT: begin
        mr_we = 1'b1;
        mr_addr = init_q;
      end
      S_RD: begin
        ref_re = 1'b1;
        ref_addr = op == OP_DESTROY_CQ ? cq_ref(a0[CW-1:0]) : pd_ref(a0[PW-1:0]);
        mr_re = 1'b1;
        mr_addr = (op == OP_REG_MR || op == OP_ALLOC_MW) ? mr_idx_q : a0[8 +: MW];
        qp_re = 1'b1;
        qp_addr = a0[QW-1:0];
      end
      S_EVAL: begin
        if (ok && op == OP_ALLOC_PD) begin
          ref_we = 1'b1;
          ref_addr = pd_ref(pd_idx_q);
        end
        if (ok && op == OP_CREATE_CQ) begin
          ref_we = 1'b1;
          ref_addr = cq_ref(cq_idx_q);
        end
        if (ok && op == OP_REG_MR) begin
          mr_we = 1'b1;
          mr_addr = mr_idx_q;
          mr_wdata = {key_new, 1'b0, mr_pd[PW-1:0]};
        end
        if (ok && op == OP_ALLOC_MW) begin
          mr_we = 1'b1;
          mr_addr = mr_idx_q;
          mr_wdata = {key_new, 1'b1, a0[PW-1:0]};
        end
        if (ok && op == OP_DEALLOC_MW) begin
          // the next tenant's key byte moves past the freed window's
          mr_we = 1'b1;
          mr_addr = a0[8 +: MW];
          mr_wdata = {a0[7:0], mr_rd_q[KW-9:0]};
        end
      end
      S_OUT_QP: begin
        // the new master context is the one sent (DESTROY_QP rewrites it unchanged)
        qp_we = 1'b1;
        qp_addr = cfg_q.qpn[QW-1:0];
        qp_wdata = cfg_q[CTX_W-1:0];
      end
      S_REF_RD: begin
        ref_re = 1'b1;
        ref_addr = ref_cur;
      end
      S_REF_WR: begin
        ref_we = 1'b1;
        ref_addr = ref_cur;
        ref_wdata = ref_dec_q ? ref_rd_q - RC_W'(1) : ref_rd_q + RC_W'(1);
      end
      default: ;
    endcase
  end

  // ---- outputs
  roce_pkg::cmd_resp_t resp_q;
  roce_pkg::qp_cfg_t   cfg_q;
  roce_pkg::cq_cfg_t   cq_cfg_q;
  logic [15:0]         mr_wr_index_q;
  roce_pkg::mr_ctx_t   mr_wr_ctx_q;
  logic [2:0]          mtt_i_q;
  logic [63:0]         mtt_pa;

  logic [63:0] pa_arr [8];   // the page addresses, an array so that the read is a mux tree
  for (genvar i = 0; i < 8; i++) begin : g_pa
    if (i < 6) begin : g_page
      assign pa_arr[i] = cmd_q.args[8*roce_pkg::CMD_WRITE_MTT_PA0_OFF + 64*i +: 64];
    end else begin : g_none
      assign pa_arr[i] = '0;
    end
  end
  assign mtt_pa = pa_arr[mtt_i_q];

  // ---- the bitmaps: in EVAL, when the command succeeds, one entry is set or
  // cleared at the index decided in RD (alloc_bitmap: words of 64 bits, not
  // used_q[i] <= in the sequencer, which Yosys's front end turns into a case
  // over every index, nor N-bit one-hot masks, which it makes N-bit shifters).
  logic bm_pd, bm_cq, bm_mr, bm_qp;
  always_comb begin
    bm_pd = state_q == S_EVAL && ok && (op == OP_ALLOC_PD || op == OP_DEALLOC_PD);
    bm_cq = state_q == S_EVAL && ok && (op == OP_CREATE_CQ || op == OP_DESTROY_CQ);
    bm_mr = state_q == S_EVAL && ok && (op == OP_REG_MR || op == OP_DEREG_MR || op == OP_ALLOC_MW || op == OP_DEALLOC_MW);
    bm_qp = state_q == S_EVAL && ok && (op == OP_CREATE_QP || op == OP_DESTROY_QP);
  end
  alloc_bitmap #(.N(MAX_PD)) u_pd_used (.clk(clk), .rst(rst), .we(bm_pd), .idx(obj_idx_q[PW-1:0]), .wbit(obj_set_q), .used(pd_used_q));
  alloc_bitmap #(.N(MAX_CQ)) u_cq_used (.clk(clk), .rst(rst), .we(bm_cq), .idx(obj_idx_q[CW-1:0]), .wbit(obj_set_q), .used(cq_used_q));
  alloc_bitmap #(.N(MAX_MR)) u_mr_used (.clk(clk), .rst(rst), .we(bm_mr), .idx(obj_idx_q[MW-1:0]), .wbit(obj_set_q), .used(mr_used_q));
  alloc_bitmap #(.N(MAX_QP)) u_qp_used (.clk(clk), .rst(rst), .we(bm_qp), .idx(obj_idx_q[QW-1:0]), .wbit(obj_set_q), .used(qp_used_q));

  // ---- the sequencer
  always_ff @(posedge clk) begin
    if (rst) begin
      state_q <= S_INIT;
      settle_q <= SETTLE;
      init_q <= '0;
      cmd_q <= '0;
      internal_q <= 1'b0;
      st1_q <= '0; obj_idx_q <= '0; obj_set_q <= 1'b0; mod_pbad_q <= 1'b0; l3_q <= '0; gid_q <= '0; vlan_q <= '0;
      ref_list_q <= '0; ref_n_q <= '0; ref_i_q <= '0; ref_dec_q <= 1'b0; ref_next_q <= S_RESP;
      resp_q <= '0; cfg_q <= '0; cq_cfg_q <= '0; mr_wr_index_q <= '0; mr_wr_ctx_q <= '0; mtt_i_q <= '0;
    end else begin
      if (settle_q != 3'd0) settle_q <= settle_q - 3'd1;
      case (state_q)
        S_INIT: begin
          init_q <= init_q + MW'(1);
          if (init_q == MW'(MAX_MR - 1)) state_q <= S_IDLE;
        end
        S_IDLE: if (s_qp_err_valid) begin
          cmd_q <= err_cmd;
          internal_q <= 1'b1;
          state_q <= S_RD;
        end else if (s_cmd_valid) begin
          cmd_q <= s_cmd;
          internal_q <= 1'b0;
          state_q <= S_RD;
        end
        S_RD: if (settle_q == 3'd0) begin
          st1_q <= st1;
          obj_idx_q <= obj_idx;
          obj_set_q <= obj_set;
          mod_pbad_q <= mod_pbad;
          l3_q <= l3;
          gid_q <= gid_e[127:0];
          vlan_q <= gid_e[142:130];
          state_q <= S_EVAL;
        end
        S_EVAL: begin
          resp_q.status <= status;
          resp_q.res <= res;
          ref_i_q <= '0;
          mtt_i_q <= '0;
          state_q <= S_RESP;
          if (ok) begin
            // one bitmap entry set or cleared, at an index decided in RD
            settle_q <= SETTLE;
            // (the bitmaps themselves: bm_* below)
            case (op)
              OP_CREATE_CQ: begin
                cq_cfg_q <= cq_new;
                state_q <= S_OUT_CQ;
              end
              OP_DESTROY_CQ: begin
                cq_cfg_q <= cq_gone;
                state_q <= S_OUT_CQ;
              end
              OP_REG_MR, OP_ALLOC_MW: begin
                mr_wr_index_q <= 16'(mr_idx_q);
                mr_wr_ctx_q <= op == OP_ALLOC_MW ? mw_ctx : mr_ctx;
                ref_list_q <= {(2*XW)'(0), pd_ref(pd_look[PW-1:0])};   // REG_MR's pd, ALLOC_MW's (a0)
                ref_n_q <= 2'd1;
                ref_dec_q <= 1'b0;
                ref_next_q <= S_OUT_MR;
                state_q <= S_REF_RD;
              end
              OP_DEREG_MR, OP_DEALLOC_MW: begin
                mr_wr_index_q <= 16'(a0[8 +: MW]);
                mr_wr_ctx_q <= '0;
                ref_list_q <= {(2*XW)'(0), pd_ref(mr_rd_q[PW-1:0])};
                ref_n_q <= 2'd1;
                ref_dec_q <= 1'b1;
                ref_next_q <= S_OUT_MR;
                state_q <= S_REF_RD;
              end
              OP_WRITE_MTT: state_q <= S_OUT_MTT;
              OP_CREATE_QP: begin
                cfg_q <= fresh;
                ref_list_q <= {cq_ref(qp_rcq[CW-1:0]), cq_ref(qp_scq[CW-1:0]), pd_ref(qp_pd[PW-1:0])};
                ref_n_q <= 2'd3;
                ref_dec_q <= 1'b0;
                ref_next_q <= S_OUT_QP;
                state_q <= S_REF_RD;
              end
              OP_MODIFY_QP: begin
                cfg_q <= merged;
                state_q <= S_OUT_QP;
              end
              OP_DESTROY_QP: begin
                cfg_q <= gone;
                ref_list_q <= {cq_ref(cur.recv_cq[CW-1:0]), cq_ref(cur.send_cq[CW-1:0]), pd_ref(cur.pd[PW-1:0])};
                ref_n_q <= 2'd3;
                ref_dec_q <= 1'b1;
                ref_next_q <= S_OUT_QP;
                state_q <= S_REF_RD;
              end
              default: ;
            endcase
          end
        end
        S_REF_RD: state_q <= S_REF_WR;
        S_REF_WR: begin
          ref_i_q <= ref_i_q + 2'd1;
          state_q <= ref_i_q + 2'd1 == ref_n_q ? ref_next_q : S_REF_RD;
        end
        S_OUT_QP:  if (m_qp_cfg_ready) state_q <= S_RESP;
        S_OUT_CQ:  if (m_cq_cfg_ready) state_q <= S_RESP;
        S_OUT_MR:  if (m_mr_wr_ready) state_q <= S_RESP;
        S_OUT_MTT: if (m_mtt_wr_ready) begin
          mtt_i_q <= mtt_i_q + 3'd1;
          if (mtt_i_q + 3'd1 == mtt_count[2:0]) state_q <= S_RESP;
        end
        S_RESP: if (m_resp_ready || internal_q) state_q <= S_IDLE;
        default: state_q <= S_IDLE;
      endcase
    end
  end

  assign s_qp_err_ready = state_q == S_IDLE;
  assign s_cmd_ready    = state_q == S_IDLE && !s_qp_err_valid;
  assign m_resp         = resp_q;
  assign m_resp_valid   = state_q == S_RESP && !internal_q;
  assign m_qp_cfg       = cfg_q;
  assign m_qp_cfg_valid = state_q == S_OUT_QP;
  assign m_cq_cfg       = cq_cfg_q;
  assign m_cq_cfg_valid = state_q == S_OUT_CQ;
  assign m_mr_wr_index  = mr_wr_index_q;
  assign m_mr_wr_ctx    = mr_wr_ctx_q;
  assign m_mr_wr_valid  = state_q == S_OUT_MR;
  assign m_mtt_wr_index = mtt_index[15:0] + 16'(mtt_i_q);
  assign m_mtt_wr_pa    = mtt_pa;
  assign m_mtt_wr_valid = state_q == S_OUT_MTT;
  assign idle           = state_q == S_IDLE;
endmodule

`default_nettype wire
