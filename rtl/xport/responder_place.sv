// responder_place: the placement stage of the RC responder. Carries out the
// checker's verdicts (responder_ctrl) in packet order:
//
//   verdict --> issuer --+--> dma_wr_req (one per piece)
//                        +--> stream_slice descriptors --> dma_wr data (payload cut into pieces)
//                        |      (or one drop descriptor: the payload is discarded)
//                        +--> post queue --> cq_compl, job (ACK/NAK, or READ with its walk:
//                                            responder_tx reads it) (once the packet's requests
//                                            and data, and every earlier packet's, have been taken:
//                                            a READ sees the writes before it)
//
// An atomic's verdict (no payload) carries its one 8-byte write: the value is
// sent as its own data beat (ab_v_q), after every earlier beat of the slicer,
// and its ATOMIC ACKNOWLEDGE (orig) follows once that write was taken.
//
// A completion or ACK never leaves before the data it reports: a post entry
// of a packet with data waits until that packet's last request and last data
// beat were taken. Consecutive packets stream without gaps: the issuer runs
// ahead of the slicer through small queues.
//
// The ACK's addressing comes from a RAM written on qp_cfg (the checker applies
// qp_cfg only while this stage is drained).
`default_nettype none

module responder_place #(
  parameter int DATA_W = 512,
  parameter int MAX_QP = 256
) (
  input  wire logic                         clk,
  input  wire logic                         rst,
  input  wire responder_pkg::rsp_verdict_t  s_vd,
  input  wire roce_pkg::cq_compl_t          s_vd_cqe,
  input  wire logic                         s_vd_valid,
  output logic                              s_vd_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // zero, pkt_last: a READ's, made by responder_tx's walker
  input  wire responder_pkg::rsp_piece_t    s_pc,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                         s_pc_valid,
  output logic                              s_pc_ready,
  input  wire logic [DATA_W-1:0]            s_pay_tdata,
  input  wire logic                         s_pay_tlast,
  input  wire logic                         s_pay_tvalid,
  output logic                              s_pay_tready,
  input  wire logic                         s_addr_we,
  input  wire logic [$clog2(MAX_QP)-1:0]    s_addr_wa,
  input  wire responder_pkg::rsp_addr_t     s_addr_wd,
  output roce_pkg::dma_wr_req_t             m_dma_wr_req,
  output logic                              m_dma_wr_req_valid,
  input  wire logic                         m_dma_wr_req_ready,
  output logic [DATA_W-1:0]                 m_axis_dma_wr_tdata,
  output logic [DATA_W/8-1:0]               m_axis_dma_wr_tkeep,
  output logic                              m_axis_dma_wr_tlast,
  output logic                              m_axis_dma_wr_tvalid,
  input  wire logic                         m_axis_dma_wr_tready,
  output roce_pkg::roce_tx_hdr_t            m_job,        // the ACK, or a READ's first response header
  output logic                              m_job_read,
  output logic [31:0]                       m_job_rlen,
  output logic [2:0]                        m_job_pmtu,
  output responder_pkg::rsp_walk_t          m_job_walk,
  output logic                              m_job_valid,
  input  wire logic                         m_job_ready,
  output roce_pkg::cq_compl_t               m_cq,
  output logic                              m_cq_valid,
  input  wire logic                         m_cq_ready,
  output logic                              idle,
  output logic [31:0]                       cnt_tx_acks
);
  localparam int QW = $clog2(MAX_QP);
  localparam int DESC_W = 15;                               // {len, last, drop}
  localparam int REQ_W = $bits(m_dma_wr_req) + 1;          // {req, last of packet}

  typedef struct packed {
    logic [15:0]         qpn;
    logic                has_data;  // wait for the data of packets up to sequence number seq
    logic [7:0]          seq;
    logic                cqe_v;     // (the cq_compl_t travels beside: Yosys 0.23 takes no
    logic                ack_v;     //  package type inside a module's struct)
    logic [7:0]          syn;
    logic [23:0]         psn;
    logic [23:0]         msn;
    logic                read;      // a READ: its responses (rlen bytes, pmtu) instead of an ACK
    logic [31:0]         rlen;
    logic [2:0]          pmtu;
    logic [63:0]         rva;       // ... and its walk (responder_pkg::rsp_walk_t)
    logic [31:0]         rkey;
    logic [15:0]         rpd;
    logic [63:0]         rpa;
    logic [31:0]         rrun;
    logic                atomic;    // an ATOMIC ACKNOWLEDGE with orig
    logic [63:0]         orig;
  } post_t;

  // ---- issuer: works on the verdict at the head of its FIFO (popped when done):
  // each piece goes to the request queue and the slicer's descriptor queue (each
  // takes it when it has room), then the post entry. Valids come from registers
  // only, so no ready feeds back into a valid.
  logic cur_v_q, cur_v_d, fin_q, fin_d, drop_q, drop_d, post_q, post_d;
  logic dsent_q, dsent_d, rsent_q, rsent_d;  // the current piece's descriptor / request is queued
  logic [5:0] left_q, left_d;
  logic [7:0] iss_seq_q, iss_seq_d;       // packets with data issued
  logic [7:0] data_done_q, req_done_q;    // ... whose last data beat / last request was taken
  logic ab_v_q;                           // an atomic's data beat waits to leave
  logic [63:0] ab_data_q;
  logic ab_set, ab_take;

  logic desc_push, desc_rdy, req_push, req_rdy, post_push, post_rdy, d_ok, r_ok;
  logic [DESC_W-1:0] desc_in;
  logic [REQ_W-1:0]  req_in;
  post_t             post_in;

  // an atomic's data is its own beat, once the slicer has nothing before it
  // (a payload to drop goes to the slicer for an atomic's verdict too)
  assign desc_push = cur_v_q && (drop_q || (!s_vd.atomic && left_q != '0 && s_pc_valid && !dsent_q));

  assign req_push  = cur_v_q && !drop_q && left_q != '0 && s_pc_valid && !rsent_q;
  assign post_push = cur_v_q && !drop_q && left_q == '0 && post_q;
  assign desc_in   = drop_q ? {s_vd.pay_len, 1'b1, 1'b1} : {s_pc.len, left_q == 6'd1, 1'b0};
  assign req_in    = {8'd0, s_pc.pa, s_pc.len, left_q == 6'd1};
  assign s_vd_ready = fin_q;
  always_comb begin
    post_in.qpn = s_vd.qpn;
    // a READ waits like a packet with data: for every earlier packet's writes
    // (its reads must see them; packets without an entry of their own too)
    post_in.has_data = (s_vd.exec && s_vd.npieces != '0) || s_vd.read;
    post_in.seq = iss_seq_q;
    post_in.cqe_v = s_vd.cqe_v;
    post_in.ack_v = s_vd.ack_v;
    post_in.syn = s_vd.syn;
    post_in.psn = s_vd.psn;
    post_in.msn = s_vd.msn;
    post_in.read = s_vd.read;
    post_in.rlen = s_vd.rlen;
    post_in.pmtu = s_vd.pmtu;
    post_in.rva = s_vd.rva;
    post_in.rkey = s_vd.rkey;
    post_in.rpd = s_vd.rpd;
    post_in.rpa = s_vd.rpa;
    post_in.rrun = s_vd.rrun;
    post_in.atomic = s_vd.atomic;
    post_in.orig = s_vd.orig;
  end

  always_comb begin
    cur_v_d = cur_v_q; fin_d = 1'b0; drop_d = drop_q; post_d = post_q; left_d = left_q;
    dsent_d = dsent_q; rsent_d = rsent_q;
    iss_seq_d = iss_seq_q;
    s_pc_ready = 1'b0;
    d_ok = (desc_push && desc_rdy) || ab_set;
    r_ok = req_push && req_rdy;
    if (fin_q) begin
      cur_v_d = 1'b0;  // popped in this cycle
    end else if (!cur_v_q) begin
      if (s_vd_valid) begin
        cur_v_d = 1'b1;
        left_d = s_vd.exec ? s_vd.npieces : 6'd0;
        drop_d = !s_vd.exec && s_vd.pay_len != '0;
        post_d = s_vd.cqe_v || s_vd.ack_v || s_vd.read;
      end
    end else begin
      if (drop_q) begin
        if (d_ok) drop_d = 1'b0;
      end else if (left_q != '0) begin
        if (s_pc_valid) begin
          if ((dsent_q || d_ok) && (rsent_q || r_ok)) begin
            s_pc_ready = 1'b1;
            left_d = left_q - 6'd1;
            dsent_d = 1'b0;
            rsent_d = 1'b0;
            if (left_q == 6'd1) iss_seq_d = iss_seq_q + 8'd1;
          end else begin
            dsent_d = dsent_q || d_ok;
            rsent_d = rsent_q || r_ok;
          end
        end
      end else if (post_q) begin
        if (post_rdy) post_d = 1'b0;
      end
      fin_d = !drop_d && left_d == '0 && !post_d;
    end
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      cur_v_q <= 1'b0; fin_q <= 1'b0; drop_q <= 1'b0; post_q <= 1'b0; left_q <= '0;
      dsent_q <= 1'b0; rsent_q <= 1'b0;
      iss_seq_q <= '0;
      ab_v_q <= 1'b0;
    end else begin
      if (ab_set) ab_v_q <= 1'b1;
      else if (ab_take) ab_v_q <= 1'b0;
      cur_v_q <= cur_v_d; fin_q <= fin_d; drop_q <= drop_d; post_q <= post_d; left_q <= left_d;
      dsent_q <= dsent_d; rsent_q <= rsent_d;
      iss_seq_q <= iss_seq_d;
    end
  end

  // ---- queues (occupancy counted here: fifo_fwft shows a push two cycles later)
  logic [DESC_W-1:0] desc_out;
  logic desc_v, desc_take;
  logic [REQ_W-1:0] req_out;
  logic req_v;
  post_t post_out;
  roce_pkg::cq_compl_t post_cq_out;
  logic post_v, post_pop;
  logic [3:0] desc_n_q, req_n_q, post_n_q;       // (RSP_PLACE_QUEUE <= 15)

  fifo_fwft #(.WIDTH(DESC_W), .DEPTH(roce_pkg::RSP_PLACE_QUEUE)) u_desc (
    .clk, .rst, .s_valid(desc_push), .s_ready(desc_rdy), .s_data(desc_in),
    .m_valid(desc_v), .m_ready(desc_take), .m_data(desc_out));
  fifo_fwft #(.WIDTH(REQ_W), .DEPTH(roce_pkg::RSP_PLACE_QUEUE)) u_req (
    .clk, .rst, .s_valid(req_push), .s_ready(req_rdy), .s_data(req_in),
    .m_valid(req_v), .m_ready(m_dma_wr_req_ready), .m_data(req_out));
  fifo_fwft #(.WIDTH($bits(post_in) + $bits(s_vd_cqe)), .DEPTH(roce_pkg::RSP_PLACE_QUEUE)) u_post (
    .clk, .rst, .s_valid(post_push), .s_ready(post_rdy), .s_data({s_vd_cqe, post_in}),
    .m_valid(post_v), .m_ready(post_pop), .m_data({post_cq_out, post_out}));

  assign m_dma_wr_req = req_out[REQ_W-1:1];
  assign m_dma_wr_req_valid = req_v;

  // ---- payload slicer
  logic desc_rdy_sl, sl_end, sl_idle;
  logic [DATA_W-1:0] sl_tdata;
  logic [DATA_W/8-1:0] sl_tkeep;
  logic sl_tlast, sl_tvalid;
  assign desc_take = desc_v && desc_rdy_sl;
  stream_slice #(.DATA_W(DATA_W)) u_slice (
    .clk, .rst,
    .s_desc_len(desc_out[14:2]), .s_desc_last(desc_out[1]), .s_desc_drop(desc_out[0]),
    .s_desc_valid(desc_v), .s_desc_ready(desc_rdy_sl),
    .s_axis_tdata(s_pay_tdata), .s_axis_tlast(s_pay_tlast), .s_axis_tvalid(s_pay_tvalid),
    .s_axis_tready(s_pay_tready),
    .m_axis_tdata(sl_tdata), .m_axis_tkeep(sl_tkeep),
    .m_axis_tlast(sl_tlast), .m_axis_tvalid(sl_tvalid),
    .m_axis_tready(m_axis_dma_wr_tready && !ab_v_q), .m_end(sl_end), .idle(sl_idle));
  // the atomic's beat goes first: the slicer's later pieces wait behind it
  assign m_axis_dma_wr_tdata  = ab_v_q ? DATA_W'(ab_data_q) : sl_tdata;
  assign m_axis_dma_wr_tkeep  = ab_v_q ? (DATA_W/8)'(8'hFF) : sl_tkeep;
  assign m_axis_dma_wr_tlast  = ab_v_q || sl_tlast;
  assign m_axis_dma_wr_tvalid = ab_v_q || sl_tvalid;
  assign ab_take = ab_v_q && m_axis_dma_wr_tready;
  assign ab_set = cur_v_q && s_vd.atomic && left_q != '0 && s_pc_valid && !dsent_q && !ab_v_q
                  && desc_n_q == '0 && sl_idle;
  always_ff @(posedge clk) if (ab_set) ab_data_q <= s_vd.adata;

  always_ff @(posedge clk) begin
    if (rst) begin
      desc_n_q <= '0; req_n_q <= '0; post_n_q <= '0;
      data_done_q <= '0; req_done_q <= '0;
    end else begin
      desc_n_q <= desc_n_q + 4'(desc_push && desc_rdy) - 4'(desc_take);
      req_n_q  <= req_n_q + 4'(req_push && req_rdy) - 4'(req_v && m_dma_wr_req_ready);
      post_n_q <= post_n_q + 4'(post_push && post_rdy) - 4'(post_pop);
      if ((sl_tvalid && m_axis_dma_wr_tready && !ab_v_q && sl_end) || ab_take) data_done_q <= data_done_q + 8'd1;
      if (req_v && m_dma_wr_req_ready && req_out[0]) req_done_q <= req_done_q + 8'd1;
    end
  end

  // ---- post: completions and ACK/NAKs, in verdict order, from the head of the
  // post FIFO (popped once sent): first the QP's ACK addressing is read, then
  // both are offered
  logic [$bits(s_addr_wd)-1:0] addr_mem [MAX_QP];
  responder_pkg::rsp_addr_t addr_rd_q;
  logic emit_q, ack_done_q, cq_done_q;
  logic head_ok, start, ack_take, cq_take;
  logic [31:0] c_acks_q;

  // seq is the packet's number: reached once the done counts are at or past it
  assign head_ok = !post_out.has_data
                   || (8'(data_done_q - post_out.seq) < 8'd128 && 8'(req_done_q - post_out.seq) < 8'd128);
  assign start = post_v && head_ok && !emit_q;
  logic job_v;
  assign job_v = post_out.ack_v || post_out.read;
  assign m_job_valid = emit_q && job_v && !ack_done_q;
  assign m_cq_valid = emit_q && post_out.cqe_v && !cq_done_q;
  assign m_cq = post_cq_out;
  assign ack_take = m_job_valid && m_job_ready;
  assign cq_take = m_cq_valid && m_cq_ready;
  assign post_pop = emit_q && (!job_v || ack_done_q || ack_take) && (!post_out.cqe_v || cq_done_q || cq_take);
  always_comb begin
    m_job = '0;
    m_job.l3 = addr_rd_q.l3;
    m_job.vlan_valid = addr_rd_q.vlan_valid;
    m_job.vlan_vid = addr_rd_q.vlan_vid;
    m_job.vlan_pcp = addr_rd_q.vlan_pcp;
    m_job.dst_mac = addr_rd_q.dst_mac;
    m_job.src_mac = addr_rd_q.src_mac;
    m_job.src_ip = addr_rd_q.src_ip;
    m_job.dst_ip = addr_rd_q.dst_ip;
    m_job.tclass = addr_rd_q.tclass;
    m_job.ttl = addr_rd_q.ttl;
    m_job.flow_label = addr_rd_q.flow_label;
    m_job.opcode = post_out.atomic ? roce_pkg::OP_RC_ATOMIC_ACK : roce_pkg::OP_RC_ACK;
    m_job.atomic_orig = post_out.orig;
    m_job.pkey = 16'(roce_pkg::DEFAULT_PKEY);
    m_job.dst_qpn = addr_rd_q.dest_qpn;
    m_job.psn = post_out.psn;
    m_job.aeth_syndrome = post_out.syn;
    m_job.aeth_msn = post_out.msn;
    m_job.src_qpn = 24'(post_out.qpn);
    m_job_read = post_out.read;
    m_job_rlen = post_out.rlen;
    m_job_pmtu = post_out.pmtu;
    m_job_walk.va = post_out.rva;
    m_job_walk.rkey = post_out.rkey;
    m_job_walk.pd = post_out.rpd;
    m_job_walk.pa = post_out.rpa;
    m_job_walk.run = post_out.rrun;
  end

  always_ff @(posedge clk) begin
    if (s_addr_we) addr_mem[s_addr_wa] <= s_addr_wd;
    if (start) addr_rd_q <= addr_mem[post_out.qpn[QW-1:0]];
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      emit_q <= 1'b0; ack_done_q <= 1'b0; cq_done_q <= 1'b0;
      c_acks_q <= '0;
    end else begin
      if (start) begin
        emit_q <= 1'b1;
        ack_done_q <= 1'b0;
        cq_done_q <= 1'b0;
      end else if (emit_q) begin
        if (ack_take) ack_done_q <= 1'b1;
        if (cq_take) cq_done_q <= 1'b1;
        if (post_pop) emit_q <= 1'b0;
      end
      if (ack_take && !post_out.read) c_acks_q <= c_acks_q + 32'd1;
    end
  end

  assign idle = !cur_v_q && desc_n_q == '0 && req_n_q == '0 && post_n_q == '0 && !emit_q && sl_idle && !ab_v_q;
  assign cnt_tx_acks = c_acks_q;
endmodule

`default_nettype wire
