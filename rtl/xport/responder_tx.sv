// responder_tx: what the RC responder sends, in verdict order: ACK/NAKs, and
// the READ RESPONSE packets of each RDMA READ with their data from host memory.
//
//   s_job (responder_place's post stage, in verdict order) --> job FIFO (headers)
//     ACK job:  one header, as given
//     READ job: rlen bytes as ceil(rlen / mtu) packets (one ONLY for rlen 0):
//               FIRST / MIDDLE / LAST or ONLY, PSNs from the job's psn, AETH
//               (the job's syndrome and msn) on all but MIDDLE
//   a READ job's walk --> walk FIFO --> walker: pieces that never cross a page
//     run, a 4 KiB bus-address boundary or a response packet's end, from the
//     rkey check's first run; each later run translated here (m_mr_req:
//     rkey, PD, the rest of the READ, REMOTE_READ, remote, the QP); one that
//     fails (the MR changed after the check) and the rest are zero pieces
//   pieces --> dma_rd_req (one per piece with a translation)
//          --> piece FIFO {zero, packet end, len}
// The walk lives here, not in the checker: the checker never waits for the
// responses to leave (over the internal loopback they return through the
// receive path, behind the requests the checker has yet to take).
//   dma read data --> raw buffer --+
//   zero pieces (no read) ---------+--> stream_gather (one packet per response) --> m_axis_pay
//
// Reads are issued only against free space in the raw buffer (RAW_DEPTH
// beats, released one per beat the gather takes), so read data is always
// taken and several reads are outstanding. A response header leaves only
// once all its packet's read beats have arrived, so its payload streams to
// the deparser without a gap. Headers and payload leave on separate ports
// (tx_arb pairs them); the payload of response k follows that of k-1.
`default_nettype none

module responder_tx #(
  parameter int DATA_W      = 512,
  parameter int RAW_DEPTH   = roce_pkg::READ_AHEAD / (DATA_W / 8),  // read-data beats buffered (READ_AHEAD bytes)
  parameter int PIECE_DEPTH = 32,
  parameter int PKT_DEPTH   = 16
) (
  input  wire logic                       clk,
  input  wire logic                       rst,
  input  wire roce_pkg::roce_tx_hdr_t     s_job,        // the ACK, or the READ's first response header
  input  wire logic                       s_job_read,
  input  wire logic [31:0]                s_job_rlen,
  input  wire logic [2:0]                 s_job_pmtu,
  input  wire responder_pkg::rsp_walk_t   s_job_walk,   // a READ's walk
  input  wire logic                       s_job_valid,
  output logic                            s_job_ready,
  output roce_pkg::mr_req_t               m_mr_req,     // a READ's later page runs
  output logic                            m_mr_req_valid,
  input  wire logic                       m_mr_req_ready,
  /* verilator lint_off UNUSEDSIGNAL */  // tag: one request outstanding
  input  wire roce_pkg::mr_resp_t         s_mr_resp,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                       s_mr_resp_valid,
  output logic                            s_mr_resp_ready,
  output roce_pkg::dma_rd_req_t           m_dma_rd_req,
  output logic                            m_dma_rd_req_valid,
  input  wire logic                       m_dma_rd_req_ready,
  input  wire logic [DATA_W-1:0]          s_axis_dma_rd_tdata,
  /* verilator lint_off UNUSEDSIGNAL */  // one read per piece: its beats end at the piece's length
  input  wire logic                       s_axis_dma_rd_tlast,
  input  wire logic                       s_axis_dma_rd_tuser,  // poisoned (cannot happen inside a checked run): sent as read
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                       s_axis_dma_rd_tvalid,
  output logic                            s_axis_dma_rd_tready,
  output roce_pkg::roce_tx_hdr_t          m_hdr,
  output logic                            m_hdr_valid,
  input  wire logic                       m_hdr_ready,
  output logic [DATA_W-1:0]               m_axis_pay_tdata,
  output logic [DATA_W/8-1:0]             m_axis_pay_tkeep,
  output logic                            m_axis_pay_tlast,
  output logic                            m_axis_pay_tvalid,
  input  wire logic                       m_axis_pay_tready,
  output logic                            idle
);
  localparam int W  = DATA_W / 8;
  localparam int WB = $clog2(W);
  localparam int NW = $clog2(RAW_DEPTH) + 1;  // beat counts of the raw buffer
  localparam int PCW = $clog2(PIECE_DEPTH) + 1;
  localparam int PKW = $clog2(PKT_DEPTH) + 1;

  initial begin
    if ((1 << WB) != W || DATA_W < 64) $error("responder_tx: DATA_W must be a power of two >= 64");
    if ($bits(s_job_walk) != responder_pkg::WALK_W) $error("responder_tx: WALK_W is not rsp_walk_t's width");
    // two packets: a packet's pieces (one more beat each at a page cut) always fit beside another's
    if ((1 << (NW - 1)) != RAW_DEPTH || RAW_DEPTH * W < 2 * 4096)
      $error("responder_tx: RAW_DEPTH must be a power of two holding two 4096-byte packets");
  end

  // ---- jobs: the header FSM's FIFO, and the walker's (READs with bytes)
  // (plain vectors: Yosys 0.23 takes no package type inside a module's struct)
  localparam int JD = roce_pkg::RSP_TX_JOBS;
  localparam int JNW = $clog2(JD) + 1;  // job counts
  localparam int HW = roce_pkg::ROCE_TX_HDR_W;
  localparam int JW = HW + 36;                          // {hdr, read, rlen, pmtu}
  localparam int WW = responder_pkg::WALK_W + 59;      // {walk, rlen, pmtu, qpn}
  logic [JW-1:0] jf_in, jf_out;
  logic [WW-1:0] wf_in, wf_out;
  roce_pkg::roce_tx_hdr_t jf_hdr;
  logic          jf_read;
  logic [31:0]   jf_rlen, wf_rlen;
  logic [2:0]    jf_pmtu, wf_pmtu;
  responder_pkg::rsp_walk_t wf_walk;
  logic [23:0]   wf_qpn;
  logic  jf_push, jf_valid, jf_pop, wf_push, wf_valid, wf_pop;
  /* verilator lint_off UNUSEDSIGNAL */  // never low: pushes are counted against the depth
  logic  jf_room, wf_room;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [JNW-1:0] jf_n_q, wf_n_q;
  always_comb begin
    jf_in = {s_job, s_job_read, s_job_rlen, s_job_pmtu};
    wf_in = {s_job_walk, s_job_rlen, s_job_pmtu, s_job.src_qpn};
    {jf_hdr, jf_read, jf_rlen, jf_pmtu} = jf_out;
    {wf_walk, wf_rlen, wf_pmtu, wf_qpn} = wf_out;
  end
  assign s_job_ready = jf_n_q != JNW'(JD) && wf_n_q != JNW'(JD);
  assign jf_push = s_job_valid && s_job_ready;
  assign wf_push = jf_push && s_job_read && s_job_rlen != '0;
  fifo_fwft #(.WIDTH(JW), .DEPTH(JD)) u_jobs (
    .clk, .rst, .s_valid(jf_push), .s_ready(jf_room), .s_data(jf_in),
    .m_valid(jf_valid), .m_ready(jf_pop), .m_data(jf_out));
  fifo_fwft #(.WIDTH(WW), .DEPTH(JD)) u_walks (
    .clk, .rst, .s_valid(wf_push), .s_ready(wf_room), .s_data(wf_in),
    .m_valid(wf_valid), .m_ready(wf_pop), .m_data(wf_out));
  always_ff @(posedge clk) begin
    if (rst) begin
      jf_n_q <= '0; wf_n_q <= '0;
    end else begin
      jf_n_q <= jf_n_q + JNW'(jf_push) - JNW'(jf_pop);
      wf_n_q <= wf_n_q + JNW'(wf_push) - JNW'(wf_pop);
    end
  end

  // ---- the walker: a READ at a time, from the walk FIFO
  responder_pkg::rsp_piece_t wpc;
  logic          wpc_valid, wpc_ready;
  logic          wk_busy_q, wk_zero_q, wk_ask_q, wk_wait_q;
  logic [63:0]   wk_va_q, wk_pa_q;
  logic [31:0]   wk_left_q, wk_run_q, wk_rkey_q;
  logic [15:0]   wk_pd_q;
  logic [23:0]   wk_qpn_q;
  logic [12:0]   wk_pk_q, wk_mtu_q, wk_len, wk_page;
  logic [31:0]   wk_rest;
  always_comb begin
    // to the packet end, the run end or the 4 KiB boundary, whichever comes first
    wk_page = 13'h1000 - {1'b0, wk_pa_q[11:0]};
    wk_len = wk_pk_q;
    if (wk_run_q < {19'b0, wk_len}) wk_len = wk_run_q[12:0];
    if (wk_page < wk_len) wk_len = wk_page;
    wpc.pa = wk_pa_q;
    wpc.len = wk_len;
    wpc.zero = wk_zero_q;
    wpc.pkt_last = wk_len == wk_pk_q;
    wpc_valid = wk_busy_q && wk_run_q != '0;
    wk_rest = wk_left_q - {19'b0, wk_len};
    m_mr_req = '0;
    m_mr_req.key = wk_rkey_q;
    m_mr_req.pd = wk_pd_q;
    m_mr_req.va = wk_va_q;
    m_mr_req.len = wk_left_q;
    m_mr_req.access = roce_pkg::ACCESS_REMOTE_READ;
    m_mr_req.remote = 1'b1;
    m_mr_req.qpn = wk_qpn_q;
    m_mr_req_valid = wk_ask_q;
    s_mr_resp_ready = wk_wait_q;
  end
  assign wf_pop = wf_valid && !wk_busy_q;
  always_ff @(posedge clk) begin
    if (rst) begin
      wk_busy_q <= 1'b0; wk_ask_q <= 1'b0; wk_wait_q <= 1'b0;
    end else begin
      if (wf_pop) begin
        wk_busy_q <= 1'b1;
        wk_zero_q <= 1'b0;
        wk_va_q <= wf_walk.va;
        wk_left_q <= wf_rlen;
        wk_pa_q <= wf_walk.pa;
        wk_run_q <= wf_walk.run;
        wk_rkey_q <= wf_walk.rkey;
        wk_pd_q <= wf_walk.pd;
        wk_qpn_q <= wf_qpn;
        wk_mtu_q <= 13'd128 << wf_pmtu;
        wk_pk_q <= wf_rlen < (32'd128 << wf_pmtu) ? wf_rlen[12:0] : 13'd128 << wf_pmtu;
      end else if (wk_busy_q && wk_run_q == '0 && !wk_ask_q && !wk_wait_q) begin
        wk_ask_q <= 1'b1;          // the next page run's translation
      end else if (wk_ask_q && m_mr_req_ready) begin
        wk_ask_q <= 1'b0;
        wk_wait_q <= 1'b1;
      end else if (wk_wait_q && s_mr_resp_valid) begin
        wk_wait_q <= 1'b0;
        // a run that fails (the MR changed after the rkey check): the rest are zeros
        wk_zero_q <= s_mr_resp.status != roce_pkg::MR_STATUS_OK;
        wk_pa_q <= s_mr_resp.status != roce_pkg::MR_STATUS_OK ? 64'd0 : s_mr_resp.pa;
        wk_run_q <= s_mr_resp.status != roce_pkg::MR_STATUS_OK ? wk_left_q : s_mr_resp.run;
      end else if (wpc_valid && wpc_ready) begin
        wk_pa_q <= wk_pa_q + {51'b0, wk_len};
        wk_run_q <= wk_run_q - {19'b0, wk_len};
        wk_va_q <= wk_va_q + {51'b0, wk_len};
        wk_left_q <= wk_rest;
        if (wk_len != wk_pk_q) wk_pk_q <= wk_pk_q - wk_len;
        else wk_pk_q <= wk_rest < {19'b0, wk_mtu_q} ? wk_rest[12:0] : wk_mtu_q;
        if (wk_rest == '0) wk_busy_q <= 1'b0;
      end
    end
  end

  // ---- issue: one piece at a time from registers (a read and its piece entry)
  logic          rd_v_q;
  roce_pkg::dma_rd_req_t rd_q;
  logic [NW-1:0] raw_free_q;                  // raw beats not promised to a read
  logic [NW-1:0] pk_beats_q;                  // read beats of the packet being issued
  logic [PCW-1:0] pc_n_q;
  logic [PKW-1:0] pk_n_q;
  logic [NW-1:0] pc_beats;
  logic          pc_take, pc_push, pk_push, raw_pop;
  logic [14:0]   pc_in;                       // {zero, packet end, len}
  logic [NW-1:0] pk_in;

  always_comb begin
    pc_beats = wpc.zero ? '0 : NW'((wpc.len + 13'(W - 1)) >> WB);
    wpc_ready = !rd_v_q && raw_free_q >= pc_beats
                && pc_n_q != PCW'(PIECE_DEPTH) && pk_n_q != PKW'(PKT_DEPTH);
    pc_take = wpc_valid && wpc_ready;
    pc_push = pc_take;
    pk_push = pc_take && wpc.pkt_last;
    pc_in = {wpc.zero, wpc.pkt_last, wpc.len};
    pk_in = pk_beats_q + pc_beats;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      rd_v_q <= 1'b0;
      raw_free_q <= NW'(RAW_DEPTH);
      pk_beats_q <= '0;
    end else begin
      if (rd_v_q && m_dma_rd_req_ready) rd_v_q <= 1'b0;
      if (pc_take && !wpc.zero) rd_v_q <= 1'b1;
      raw_free_q <= raw_free_q - (pc_take ? pc_beats : '0) + NW'(raw_pop);
      if (pc_take) pk_beats_q <= wpc.pkt_last ? '0 : pk_in;
    end
  end
  always_ff @(posedge clk) begin
    if (pc_take) begin
      rd_q.tag <= '0;
      rd_q.addr <= wpc.pa;
      rd_q.len <= wpc.len;
    end
  end
  assign m_dma_rd_req = rd_q;
  assign m_dma_rd_req_valid = rd_v_q;

  // ---- buffers (fill levels counted here: fifo_fwft's s_ready reads s_valid)
  logic [DATA_W-1:0] raw_head;
  logic [14:0]   pc_head;
  logic [NW-1:0] pk_head;
  logic          raw_valid, pc_valid, pk_valid, pc_pop, pk_pop;
  /* verilator lint_off UNUSEDSIGNAL */  // never low: reads are issued against free space, pushes against counts
  logic          raw_room, pc_room, pk_room;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [15:0]   raw_in_q, claimed_q;         // read beats arrived, and claimed by headers sent (wrapping)

  assign s_axis_dma_rd_tready = 1'b1;
  fifo_fwft #(.WIDTH(DATA_W), .DEPTH(RAW_DEPTH)) u_raw (
    .clk, .rst, .s_valid(s_axis_dma_rd_tvalid), .s_ready(raw_room), .s_data(s_axis_dma_rd_tdata),
    .m_valid(raw_valid), .m_ready(raw_pop), .m_data(raw_head));
  fifo_fwft #(.WIDTH(15), .DEPTH(PIECE_DEPTH)) u_pc (
    .clk, .rst, .s_valid(pc_push), .s_ready(pc_room), .s_data(pc_in),
    .m_valid(pc_valid), .m_ready(pc_pop), .m_data(pc_head));
  fifo_fwft #(.WIDTH(NW), .DEPTH(PKT_DEPTH)) u_pk (
    .clk, .rst, .s_valid(pk_push), .s_ready(pk_room), .s_data(pk_in),
    .m_valid(pk_valid), .m_ready(pk_pop), .m_data(pk_head));

  // ---- source: each piece as lane-0 beats (read data, or zeros) into the gather
  logic [12:0]   src_off_q, src_rem;
  logic [W-1:0]  src_keep;
  logic          src_end, src_valid, src_ready, src_take, src_zero;
  always_comb begin
    src_zero  = pc_head[14];
    src_rem   = pc_head[12:0] - src_off_q;
    src_end   = src_rem <= 13'(W);
    src_keep  = src_end ? (W'(1) << src_rem[WB-1:0]) - W'(1) : '1;
    if (src_end && src_rem[WB-1:0] == '0) src_keep = '1;
    src_valid = pc_valid && (src_zero || raw_valid);
    src_take  = src_valid && src_ready;
    raw_pop   = src_take && !src_zero;
    pc_pop    = src_take && src_end;
  end
  always_ff @(posedge clk) begin
    if (rst) src_off_q <= '0;
    else if (src_take) src_off_q <= src_end ? '0 : src_off_q + 13'(W);
  end

  stream_gather #(.DATA_W(DATA_W)) u_gather (
    .clk, .rst,
    .s_tdata(src_zero ? '0 : raw_head), .s_tkeep(src_keep), .s_tlast(src_end && pc_head[13]),
    .s_tvalid(src_valid), .s_tready(src_ready),
    .m_tdata(m_axis_pay_tdata), .m_tkeep(m_axis_pay_tkeep), .m_tlast(m_axis_pay_tlast),
    .m_tvalid(m_axis_pay_tvalid), .m_tready(m_axis_pay_tready));

  always_ff @(posedge clk) begin
    if (rst) begin
      pc_n_q <= '0; pk_n_q <= '0;
      raw_in_q <= '0;
    end else begin
      pc_n_q <= pc_n_q + PCW'(pc_push) - PCW'(pc_pop);
      pk_n_q <= pk_n_q + PKW'(pk_push) - PKW'(pk_pop);
      raw_in_q <= raw_in_q + 16'(s_axis_dma_rd_tvalid);
    end
  end

  // ---- headers: a job at a time; a READ job one response header per packet
  logic          busy_q, read_q, hv_q, first_q;
  roce_pkg::roce_tx_hdr_t job_q, hdr_q, rsp;
  logic [31:0]   rem_q;
  logic [12:0]   mtu_q, pay;
  logic          last, can, load;
  logic [15:0]   avail;

  assign jf_pop = jf_valid && !busy_q && !hv_q;
  always_comb begin
    pay = rem_q < {19'b0, mtu_q} ? rem_q[12:0] : mtu_q;
    last = rem_q <= {19'b0, mtu_q};
    avail = raw_in_q - claimed_q;
    can = pay == '0 || (pk_valid && avail >= 16'(pk_head));
    load = busy_q && read_q && (!hv_q || m_hdr_ready) && can;
    pk_pop = load && pay != '0;
    rsp = job_q;
    rsp.opcode = (first_q && last) ? roce_pkg::OP_RC_READ_RESP_ONLY
               : first_q ? roce_pkg::OP_RC_READ_RESP_FIRST
               : last    ? roce_pkg::OP_RC_READ_RESP_LAST
               : roce_pkg::OP_RC_READ_RESP_MIDDLE;
    if (!first_q && !last) begin  // MIDDLE carries no AETH
      rsp.aeth_syndrome = '0;
      rsp.aeth_msn = '0;
    end
    rsp.ack_req = 1'b0;
    rsp.pay_len = pay;
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      busy_q <= 1'b0; hv_q <= 1'b0;
      claimed_q <= '0;
    end else begin
      if (hv_q && m_hdr_ready) hv_q <= 1'b0;
      if (jf_pop) begin
        busy_q <= 1'b1;
        read_q <= jf_read;
        job_q <= jf_hdr;
        rem_q <= jf_rlen;
        mtu_q <= 13'd128 << jf_pmtu;
        first_q <= 1'b1;
        if (!jf_read) begin   // an ACK: out as it is
          hdr_q <= jf_hdr;
          hv_q <= 1'b1;
        end
      end else if (busy_q && !read_q) begin
        if (hv_q && m_hdr_ready) busy_q <= 1'b0;
      end else if (load) begin
        hdr_q <= rsp;
        hv_q <= 1'b1;
        rem_q <= rem_q - {19'b0, pay};
        job_q.psn <= job_q.psn + 24'd1;
        first_q <= 1'b0;
        if (pay != '0) claimed_q <= claimed_q + 16'(pk_head);
        if (last) busy_q <= 1'b0;
      end
    end
  end
  assign m_hdr = hdr_q;
  assign m_hdr_valid = hv_q;

  assign idle = !busy_q && !hv_q && !rd_v_q && raw_free_q == NW'(RAW_DEPTH) && pc_n_q == '0 && pk_n_q == '0
                && !m_axis_pay_tvalid && jf_n_q == '0 && wf_n_q == '0 && !wk_busy_q;
endmodule

`default_nettype wire
