// requester: RC, UC and UD send queues -> request packets (docs/engine.md, "Requester"; UC: UC opcodes, no AckReq,
// tracked once sent; UD: as UC, one packet to the WQE's address vector).
//
//   send WQE (288 bytes in a 512-byte slot, docs/spec/layouts.md)
//     0 wr_id | 8 opcode | 9 flags (signaled, solicited, inline) | 10 num_sge
//     12 imm | 16 remote_addr | 24 rkey | 28 length | 32.. SGEs (addr, length, lkey; up to 16) or inline bytes
//     atomics: SGE 0 (8 bytes) | 48 atomic_cmp_add | 56 atomic_swap
//     UD: SGEs 0..1 or 32 inline bytes | 72 the address vector: dest QPN, Q_Key, dgid, dmac,
//         sgid_index, hop limit, flow label, traffic class, SL
//
//   request packets of one WQE (mtu = 128 << pmtu, n = max(1, ceil(length / mtu)))
//     SEND:  FIRST MIDDLE... LAST[_IMM] | ONLY[_IMM]
//     WRITE: FIRST(RETH) MIDDLE... LAST[_IMM] | ONLY(RETH)[_IMM](RETH)
//     READ:  READ_REQUEST(RETH) alone, no payload: it takes the n PSNs of the n
//            READ RESPONSE packets the responder sends back
//     ATOMIC: CMP_SWAP | FETCH_ADD (AtomicETH) alone, one PSN, answered by an
//            ATOMIC ACKNOWLEDGE; handled as a one-packet READ (docs/engine.md, "Atomics")
//     SEND_WITH_INV: as SEND, the last packet LAST_INV | ONLY_INV with the rkey
//            in its IETH (the WQE's imm, a number)
//     BIND_MW, LOCAL_INV: no packet and no PSN. A new one is executed here:
//            one mr_req (BIND: rkey, remote_addr, length, bind_access,
//            bind_mr_lkey; INVALIDATE: the rkey in imm), then tracked with
//            the answer (SUCCESS, else MW_BIND_ERR / LOC_QP_OP_ERR as rxe),
//            last_psn = first_psn - 1: the completer completes it with the
//            WQE before it. Met again after a rewind it is skipped.
//     UD:    SEND_ONLY[_IMM] with a DETH {Q_Key (bit 31 set: the QP's), this QP}, one
//            packet of at most the port's MTU (a longer one: no packet and no
//            error, IBTA C10-93.1.1, its PSN taken, as rxe), to the WQE's
//            address: the GID entry at its sgid_index gives the encapsulation,
//            the source IP and the VLAN (as roce_cmd resolves an RC path); SENDs
//            only, at most 2 SGEs / 32 inline bytes (else LOC_QP_OP_ERR)
//     PSN next_psn .. next_psn + n - 1; ack_req on the last one and on every PSN
//     ending in ack_req_log2 one bits (CSR ACK_REQ), always on a READ request,
//     and on the first packet of a WQE sent again; se on the last one
//
//   READ_REQUEST from packet k (k > 0: a rewind after responses 0..k-1 arrived)
//     PSN next_psn + k | RETH va = remote_addr + k * mtu, rkey, len = length - k * mtu
//   A READ's SGEs are where its response data lands: nothing is read and no
//   lkey is checked here (the block that places the responses checks them).
//
// The low-latency post path (CSR SQ_BF / SQ_BF_DB, ConnectX's BlueFlame): a
// doorbell may carry the first WQE_HEAD bytes of WQE pi - 1 (s_sq_db_bf,
// s_sq_bf_wqe), also in the ring. The last such WQE is kept (bf_*); when the
// QP's next new WQE is that one, IDLE takes it from there and goes straight
// to DECODE: no fetch. Anything else (a rewind, another WQE, a later
// doorbell's WQE having replaced it) fetches from the ring as usual; a qp_cfg
// for its QP (destroy, reset) forgets it.
//
// WQE prefetch (issue 11): heads are read ahead (tag 2) into a table of NPF
// entries {QP, index, state, bytes}, so that a WQE's head round trip
// overlaps the work of the WQEs before it. PF (right behind a pick's own
// head read), or pfa_q beside the decode and check when the head came with
// the doorbell or from the table (the read port is free then; the walk's
// reads, TAIL and the next pick wait for it), asks for up to two: another QP's next new WQE
// (req_qp_ctx's prefetch pick), else this QP's next ones. A pick of a new
// WQE in the table takes it (PFW waits for its data). A qp_cfg for an
// entry's QP drops it (E_DROP while its data is still coming). Read data
// comes back in request order: a FIFO of the kinds of the reads in flight
// (head, tail, prefetch with its entry, payload) says where each beat goes.
//
// The front end takes one WQE at a time (the states below) and queues its
// packets' headers for the back end (docs/engine.md, "Requester", step 6):
//   IDLE   pick a QP (round robin over eligible ones, req_qp_ctx): a new WQE,
//          one to send again after a rewind (from packet pk_skip), or in ERR
//          the next new one (flushed); the kept SQ_BF WQE -> DECODE; the
//          prefetched one -> DECODE when its head is in (taken in this cycle),
//          else PFW -> DECODE (all reading ahead beside: pfa_q). WB picks too,
//          among the QPs but the one it writes back.
//   FETCH  dma_rd_req of the WQE's first WQE_HEAD bytes (SGEs 0..5), then PF;  WQE: take its beats
//   DECODE first, with num_sge 7..16 (not inline): TAIL fetches SGEs 6.. and
//          DECODE runs again. ERR -> flush; poisoned, bad opcode, bad lengths (an inline READ, a
//          READ over 2^31 bytes, an inline atomic or one not of 8 bytes) ->
//          LOC_QP_OP_ERR; a new READ or atomic while the QP has max_rd_atomic
//          of them outstanding, or a new fenced WQE while it has any -> back
//          to IDLE, not started (wb_defer)
//   CHECK  one mr_req per SGE carrying bytes (not for a READ); any failure ->
//          LOC_PROT_ERR. BIND_MW / LOCAL_INV: their one MR-table operation
//   RUN    a new WQE is tracked first (sq_track: its PSNs; its first header
//          waits for that); req_issue reads the payload ahead (several reads
//          outstanding into the payload buffer); each packet's header is
//          queued (hq) once all its reads are issued, the inline bytes with
//          it (iq), and with the WQE's last its end record (eq: the sq_track
//          it needs should it fail; UC/UD: the one it gets once sent). A
//          READ: its one request header, and with it (an atomic's too)
//          m_rd_hint to read_place: the WQE's SGE, so its responses land
//          without a second fetch of the WQE. The last header queued -> WB.
//   TRACK  only for a failure before any packet: sq_track with its status,
//          once the back end has ended every WQE it holds (be_drained)
//   WB     ci + 1, next_psn, and if new hw + 1 and outstanding + 1 (or ERR);
//          beside it the next pick (as IDLE, but for this QP)
// The back end: a queued header is loaded once all its packet's read data is
// in the buffer; its pieces (or inline bytes) are packed by stream_gather
// into tx_payload; at a WQE's end (its last packet out of the source) its
// sq_track when UC/UD or failed (a failure also puts the QP in ERR,
// req_qp_ctx's s_fail). A qp_cfg waits in cq_q until the back end is empty.
`default_nettype none

module requester #(
  parameter int DATA_W = 512,
  parameter int MAX_QP = 256,
  parameter int GID_TBL_LEN = 16,
  parameter int RAW_DEPTH = 256,   // payload buffer, read-data beats
  parameter int PIECE_DEPTH = 64,  // payload reads outstanding (pieces)
  parameter int PKT_DEPTH = 64,    // packets whose reads are issued, header not yet out
  parameter int HDR_DEPTH = roce_pkg::REQ_HDR_QUEUE  // headers queued for the back end (and WQEs in it)
) (
  input  wire logic                   clk,
  input  wire logic                   rst,
  input  wire logic [3:0]             ack_req_log2,  // CSR ACK_REQ: AckReq on PSNs ending in n one bits
  input  wire logic [47:0]            port_mac,      // UD: the source MAC
  input  wire logic [2:0]             port_mtu,      // UD: CSR PORT_MTU, the largest datagram
  input  wire logic [GID_TBL_LEN*143-1:0] gid_table, // UD: entry i at [143*i +: 143] = {tagged, vid, type, gid}
  input  wire roce_pkg::qp_cfg_t      s_qp_cfg,
  input  wire logic                   s_qp_cfg_valid,
  output logic                        s_qp_cfg_ready,
  input  wire roce_pkg::wq_db_t       s_sq_db,
  input  wire logic                   s_sq_db_bf,    // with s_sq_db: an SQ_BF_DB, s_sq_bf_wqe is WQE pi - 1
  input  wire logic [8*roce_pkg::WQE_HEAD-1:0] s_sq_bf_wqe,
  input  wire logic                   s_sq_db_valid,
  output logic                        s_sq_db_ready,
  input  wire roce_pkg::sq_retire_t   s_sq_retire,
  input  wire logic                   s_sq_retire_valid,
  output logic                        s_sq_retire_ready,
  input  wire logic [DATA_W-1:0]      s_axis_dma_rd_tdata,
  /* verilator lint_off UNUSEDSIGNAL */  // beats are counted from the request lengths; tlast ends a read
  input  wire logic [DATA_W/8-1:0]    s_axis_dma_rd_tkeep,
  /* verilator lint_on UNUSEDSIGNAL */
  input  wire logic                   s_axis_dma_rd_tlast,
  input  wire logic                   s_axis_dma_rd_tuser,  // poisoned
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
  output roce_pkg::roce_tx_hdr_t      m_tx_hdr,
  output logic                        m_tx_hdr_valid,
  input  wire logic                   m_tx_hdr_ready,
  output logic [DATA_W-1:0]           m_axis_tx_payload_tdata,
  output logic [DATA_W/8-1:0]         m_axis_tx_payload_tkeep,
  output logic                        m_axis_tx_payload_tlast,
  output logic                        m_axis_tx_payload_tvalid,
  input  wire logic                   m_axis_tx_payload_tready,
  output roce_pkg::sq_track_t         m_sq_track,
  output logic                        m_sq_track_valid,
  input  wire logic                   m_sq_track_ready,
  output roce_pkg::rd_hint_t          m_rd_hint,     // to read_place, with a READ's (atomic's) request header: its SGE
  output logic                        m_rd_hint_valid,
  output logic                        idle,
  output logic [31:0]                 cnt_tx_pkts,
  output logic                        init_busy   // after reset: the per-QP flag RAMs are being cleared (MAX_QP/8 cycles)
);
  localparam int W  = DATA_W / 8;
  localparam int WB = $clog2(W);
  localparam int QW = $clog2(MAX_QP);
  localparam int NSGE = roce_pkg::MAX_SGE;                          // SGEs a WQE holds (16)
  localparam int HEAD_SGE = (roce_pkg::WQE_HEAD - roce_pkg::SEND_WQE_SGE0_ADDR_OFF) / roce_pkg::SGE_SIZE;  // 6
  localparam int HEAD_BEATS = 8 * roce_pkg::WQE_HEAD / DATA_W;        // the first fetch
  localparam int WQE_PAD = (8 * roce_pkg::SEND_WQE_SIZE + DATA_W - 1) / DATA_W * DATA_W;  // whole beats
  localparam logic [4:0] NONE = 5'(NSGE);                            // next_act: no SGE left
  localparam int NW = $clog2(RAW_DEPTH) + 1;   // beat counts of the payload buffer
  localparam int INL = 8 * roce_pkg::SEND_WQE_SGE0_ADDR_OFF;  // inline bytes / SGEs start here
  localparam int IB = $clog2((96 + W - 1) / W + 1);           // bits of an inline beat's index
  localparam logic [31:0] WINDOW_RIGHTS = {28'b0, roce_pkg::ACCESS_REMOTE_WRITE | roce_pkg::ACCESS_REMOTE_READ |
                                                    roce_pkg::ACCESS_REMOTE_ATOMIC};

  initial begin
    if (DATA_W < 128 || DATA_W > 1024 || (1 << WB) != W) $error("requester: DATA_W must be 128, 256, 512 or 1024");
    // (a read's kind FIFO holds a prefetch's entry in 4 bits; it must hold every read in flight)
    if (roce_pkg::REQ_PF_HEADS < 2 || 2 * PIECE_DEPTH < PIECE_DEPTH + roce_pkg::REQ_PF_HEADS + 2)
      $error("requester: REQ_PF_HEADS must be at least 2 and fit beside the payload pieces in flight");
  end

  localparam logic [3:0] S_IDLE = 4'd0, S_FETCH = 4'd1, S_WQE = 4'd2, S_DECODE = 4'd3,
                         S_CHECK = 4'd4, S_RUN = 4'd5, S_TRACK = 4'd6, S_WB = 4'd7, S_TAIL = 4'd8;
  logic [3:0]  st_q;
  logic [QW-1:0] act_q;
  logic [15:0] act_ci_q;
  logic [23:0] act_psn_q;
  logic [23:0] act_skip_q;     // packets of the WQE not sent again (a rewind into its middle)
  // In the cycle after its pick the WQE's PSN and skip are req_qp_ctx's
  // registered reads (pk_*), kept from then on (act_*_q)
  logic        picked_q;
  logic [23:0] act_psn, act_skip;
  assign act_psn  = picked_q ? pk_psn : act_psn_q;
  assign act_skip = picked_q ? pk_skip : act_skip_q;
  logic        new_q;          // never sent before: tracked
  logic        trk_pend_q;     // RUN: the start of a new WQE waits to be tracked
  logic        amend_q;        // a failure's sq_track amends an earlier one
  /* verilator lint_off UNUSEDSIGNAL */  // byte 11 of a send WQE is reserved
  logic [WQE_PAD-1:0] wqe_q;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [4:0]  beat_q, beats_q;  // the beat expected; the WQE's last beat + 1 (head, or head and tail)
  logic        tail_q;           // the tail (SGEs 6..) is in
  logic        poison_q, sent_q;
  logic [3:0]  status_q;
  logic [4:0]  chk_iss_q, chk_rsp_q;
  logic        chk_err_q;
  logic [NSGE*64-1:0] chk_pa_q;
  logic [NSGE*32-1:0] chk_run_q;
  logic [24:0] hdr_k_q;        // the next header the front end queues
  logic [$clog2(PKT_DEPTH):0] pkr_q;  // packets whose reads are all issued, header not yet queued
  logic        hdr_valid_q;
  roce_pkg::roce_tx_hdr_t hdr_q;
  logic [NW:0] arrived_q;      // read-data beats in the buffer not yet claimed by a header
  logic [1:0]  pend_q;         // headers out whose payload has not left tx_payload
  logic [12:0] src_off_q;
  logic [31:0] cnt_q;
  logic        rd_hint_v_q;
  roce_pkg::rd_hint_t rd_hint_q;

  // ---- per-QP context and scheduler
  logic        pick_valid, any_eligible;
  logic [QW-1:0] pick_qpn;
  logic [15:0] pick_ci;
  logic [23:0] pk_psn, pk_skip;   // of the pick in the cycle before (req_qp_ctx's registered read)
  logic        pick_new;
  /* verilator lint_off UNUSEDSIGNAL */  // req_qp_ctx keeps the send-side attributes only
  roce_pkg::qp_cfg_t cfg;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [2:0]  act_state;
  // the prefetched WQE head: QP, index, its bytes, its read's sequence number
  localparam logic [1:0] K_HEAD = 2'd0, K_TAIL = 2'd1, K_PF = 2'd2, K_PAY = 2'd3;  // kinds of reads in flight
  localparam logic [3:0] S_PF = 4'd9, S_PFW = 4'd10;
  // the prefetch table: NPF heads {state, QP, index, poisoned, bytes}
  localparam int NPF = roce_pkg::REQ_PF_HEADS;
  localparam int PW = $clog2(NPF);
  localparam logic [1:0] E_FREE = 2'd0, E_PEND = 2'd1, E_DONE = 2'd2, E_DROP = 2'd3;  // E_DROP: its data still coming, not kept
  logic [2*NPF-1:0]  pe_st_q;
  logic [QW*NPF-1:0] pe_qpn_q;
  logic [16*NPF-1:0] pe_idx_q;
  logic [NPF-1:0]    pe_poison_q;
  logic [8*roce_pkg::WQE_HEAD-1:0] pe_head_q, pe_head;  // the heads of entries pf_sel_q and pf_sel (g_pe)
  // each entry's QP's PD and whether it is an RC QP (req_qp_ctx's pt_* read
  // at the offer's QP, written the cycle after the read is asked for)
  logic [16*NPF-1:0] pe_pd_q;
  logic [NPF-1:0]    pe_rc_q;
  logic              pfi_q;            // a prefetch read was asked for in the cycle before ...
  logic [PW-1:0]     pfi_slot_q;       // ... into this entry
  logic [15:0]       pt_pd;
  logic              pt_rc, pick_err;
  // A WB pick whose head is in the table asks for its first SGE's check in
  // its own cycle (spec_ask), when the head alone shows that its decode
  // will check that SGE first and nothing else can stop it: an RC QP not in
  // ERR, a SEND or RDMA WRITE, not inline, not fenced, one SGE holding all
  // its bytes (> 0), not poisoned. (In WB no control input is taken, so the
  // QP's state cannot change under it.) Taken (spec_q): DECODE asks for
  // none, and takes the answer should it come already.
  logic              spec_ask, spec_q;
  logic [NPF-1:0]    pe_live, pe_hit, pe_free, pe_act, pe_pq, pe_cfg, pe_ahead, pe_end;
  logic [PW-1:0]     pf_sel_q, pf_sel, pf_slot;  // the entry PFW waits for; the one a pick takes; a free one
  logic              pf_hit, pf_any_free, pf_other;
  // A pick whose head is already in the table takes it in the pick's cycle
  // and decodes it in the next (no PFW cycle); pf_other_pick: the pick's QP
  // keeps another entry.
  logic              pf_now, pf_other_pick;
  // The pick also runs in the write-back cycle (WB), for any QP but the one
  // written back: the next WQE's pick overlaps the last one's write-back.
  logic              eng_pick;
  logic [4:0]        pf_beat_q;        // beat of the prefetch read arriving
  logic [PW-1:0]     pf_in_e;          // ... its entry
  logic [1:0]        pf_n_q;           // reads PF asked for in this visit (at most 2)
  // A pick whose head is here (SQ_BF) or in the table reads ahead beside its
  // WQE's decode and check (pfa_q: the port is free then) rather than in PF
  // before them; the walk's payload reads and TAIL wait for it, the next pick too.
  logic              pfa_q, pf_on;
  // PF's visit after a fetch goes on past its two reads while the fetched
  // head is awaited (S_WQE; the port is free then): the table fills while
  // the first WQEs of many QPs come in, not two heads per fetch.
  logic              pff_q;
  logic [15:0]       ra_x_q;           // the next index of this QP to read ahead
  // the candidate: another QP's next new WQE (req_qp_ctx's prefetch pick), else this QP's next one
  logic              cand_ok, cand_a, cand_b;
  logic              cfg_take, pf_issue;  // a qp_cfg taken; a prefetch read asked for (PF)
  logic [QW-1:0]     cand_qpn, pf_pick_qpn;
  logic [15:0]       cand_idx, act_pi, pf_pick_hw;
  logic [63:0]       cand_addr, pf_sq_base;
  logic [4:0]        pf_sq_lsz;
  logic              pf_pick_valid, pf_want;
  // a read PF offers is held until the port takes it (its QP's qp_cfg meanwhile: not kept)
  logic              pfo_q, pfo_a_q, pfo_drop_q, off_a, off_drop;
  logic [QW-1:0]     pfo_qpn_q, off_qpn;
  logic [15:0]       pfo_idx_q, off_idx;
  logic [63:0]       pfo_addr_q, off_addr;
  // reads in flight, in order: {kind, prefetch sequence number}
  logic        rk_push, rk_pop, rk_valid, rd_take;
  logic [PW+1:0] rk_in, rk_head;  // {kind, prefetch entry}
  logic [1:0]  rk_kind;
  // the last WQE written with its doorbell (SQ_BF): QP, index, its first WQE_HEAD bytes
  logic        bf_valid_q, bf_hit;
  logic [QW-1:0] bf_qpn_q;
  logic [15:0] bf_idx_q;
  logic [8*roce_pkg::WQE_HEAD-1:0] bf_wqe_q;
  logic        wb_en, wb_err, wb_defer;
  roce_pkg::sq_track_t fe_trk;   // the front end's sq_track: a new WQE's start, a failure before any packet
  logic [4:0]  act_rd_out;
  // A qp_cfg is applied once the back end is empty (its QP's packets and WQE
  // ends must not outlive a RESET); no new pick meanwhile, so that it drains.
  // One waiting is held in a register (cq_q): the port takes a qp_cfg
  // whenever that is free, so its ready does not hang on the back end.
  logic        cfg_drain, cq_valid_q, cq_valid, cq_ready;
  roce_pkg::qp_cfg_t cq_q, cq_in;


  // ---- the WQE's fields
  logic [63:0] w_wr_id, w_raddr;
  logic [7:0]  w_op, w_nsge;
  /* verilator lint_off UNUSEDSIGNAL */  // flags: bit 2 inline and bit 3 fence are the requester's
  logic [7:0]  w_flags;
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0] w_imm, w_rkey, w_len;
  logic [NSGE*128-1:0] sge_tbl;
  logic [NSGE-1:0] sge_act;
  logic [34:0] sge_sum;
  logic [63:0] w_cmp_add, w_swap;
  logic        w_inline, w_fence, op_ok, op_send, op_imm, op_read, op_atom, op_cas, op_rdat, need_pkts;
  logic        op_bind, op_local, op_sinv;
  logic        uc;         // a UC QP: UC opcodes, no AckReq, tracked once sent (no ACK answers it)
  logic        ud;         // a UD QP: as UC, one packet to the WQE's address vector
  logic        unrel;      // UC or UD: nothing answers
  logic [7:0]  w_ud_sgid;
  logic [142:0] ud_gid;    // the GID entry at its sgid_index
  logic        ud_bad;     // UD: not a SEND, too many SGEs or inline bytes, or an unusable GID entry
  logic        ud_long;    // UD: longer than the port MTU: not sent, completes (IBTA C10-93.1.1)
  logic [2:0]  port_mtu_q; // UD: CSR PORT_MTU taken as the WQE's last beat arrives (its decode's)
  logic [31:0] w_bind_lkey, w_bind_acc;
  logic [NSGE-1:0] sge_chk;  // the CHECK walk: SGEs with bytes, or slot 0 for a local operation
  logic        need_tail, dec_go;  // DECODE: fetch the tail first; decide now
  logic [12:0] tail_len;
  logic [2:0]  pm;
  logic [3:0]  mtu_lg;
  logic [12:0] mtu, last_len;
  logic [24:0] npk;
  logic [3:0]  dec_status;

  // UD: the GID entry at the WQE's sgid_index (outside the decode block: its
  // results depend on the entry); an index beyond the table is refused
  assign w_ud_sgid = wqe_q[8*roce_pkg::SEND_WQE_UD_SGID_INDEX_OFF +: 8];
  sgid_lookup #(.GID_TBL_LEN(GID_TBL_LEN)) u_sgid (.gid_table, .index(w_ud_sgid), .entry(ud_gid));

  function automatic logic [4:0] next_act(input logic [NSGE-1:0] m, input logic [4:0] from);
    next_act = NONE;
    for (int i = NSGE - 1; i >= 0; i--) if (m[i] && 5'(i) >= from) next_act = 5'(i);
  endfunction

  always_comb begin
    w_wr_id  = wqe_q[8*roce_pkg::SEND_WQE_WR_ID_OFF +: 64];
    w_op     = wqe_q[8*roce_pkg::SEND_WQE_OPCODE_OFF +: 8];
    w_flags  = wqe_q[8*roce_pkg::SEND_WQE_FLAGS_OFF +: 8];
    w_nsge   = wqe_q[8*roce_pkg::SEND_WQE_NUM_SGE_OFF +: 8];
    w_imm    = wqe_q[8*roce_pkg::SEND_WQE_IMM_OFF +: 32];
    w_raddr  = wqe_q[8*roce_pkg::SEND_WQE_REMOTE_ADDR_OFF +: 64];
    w_rkey   = wqe_q[8*roce_pkg::SEND_WQE_RKEY_OFF +: 32];
    w_len    = wqe_q[8*roce_pkg::SEND_WQE_LENGTH_OFF +: 32];
    w_cmp_add = wqe_q[8*roce_pkg::SEND_WQE_ATOMIC_CMP_ADD_OFF +: 64];
    w_swap   = wqe_q[8*roce_pkg::SEND_WQE_ATOMIC_SWAP_OFF +: 64];
    w_bind_lkey = wqe_q[8*roce_pkg::SEND_WQE_BIND_MR_LKEY_OFF +: 32];
    w_bind_acc  = wqe_q[8*roce_pkg::SEND_WQE_BIND_ACCESS_OFF +: 32];
    sge_tbl  = wqe_q[8*roce_pkg::SEND_WQE_SIZE-1:INL];
    w_inline = w_flags[2];
    // SGEs 6.. lie past the first fetch: fetched (TAIL) only when used
    need_tail = st_q == S_DECODE && !tail_q && !poison_q && !w_inline && w_nsge > 8'(HEAD_SGE) && w_nsge <= 8'(NSGE);
    dec_go    = st_q == S_DECODE && !need_tail;
    tail_len  = 13'(roce_pkg::SGE_SIZE) * (13'(w_nsge) - 13'(HEAD_SGE));
    w_fence  = w_flags[3];
    uc       = cfg.qp_type == roce_pkg::QP_TYPE_UC;
    ud       = cfg.qp_type == roce_pkg::QP_TYPE_UD;
    unrel    = uc || ud;
    op_read  = w_op == 8'(roce_pkg::WR_OPCODE_RDMA_READ);
    op_cas   = w_op == 8'(roce_pkg::WR_OPCODE_ATOMIC_CMP_AND_SWP);
    op_atom  = op_cas || w_op == 8'(roce_pkg::WR_OPCODE_ATOMIC_FETCH_AND_ADD);
    op_rdat  = op_read || op_atom;       // answered by responses: a max_rd_atomic credit, no payload
    op_bind  = w_op == 8'(roce_pkg::WR_OPCODE_BIND_MW);
    op_local = op_bind || w_op == 8'(roce_pkg::WR_OPCODE_LOCAL_INV);
    op_sinv  = w_op == 8'(roce_pkg::WR_OPCODE_SEND_WITH_INV);
    op_ok    = w_op <= 8'd9;             // every wr_opcode value
    op_send  = w_op == 8'(roce_pkg::WR_OPCODE_SEND) || w_op == 8'(roce_pkg::WR_OPCODE_SEND_WITH_IMM) || op_sinv;
    op_imm   = w_op == 8'(roce_pkg::WR_OPCODE_SEND_WITH_IMM) || w_op == 8'(roce_pkg::WR_OPCODE_RDMA_WRITE_WITH_IMM);
    ud_bad   = (w_op != 8'(roce_pkg::WR_OPCODE_SEND) && w_op != 8'(roce_pkg::WR_OPCODE_SEND_WITH_IMM)) ||
               (w_inline ? w_len > 32'(roce_pkg::UD_MAX_INLINE) : w_nsge > 8'(roce_pkg::UD_MAX_SGE)) ||
               w_ud_sgid >= 8'(GID_TBL_LEN) || !sgid_pkg::gid_usable(ud_gid[129:128]);
    sge_sum  = '0;
    for (int i = 0; i < NSGE; i++) begin
      // a READ's (an atomic's) SGEs receive its response data later: none is checked or read here
      sge_act[i] = !op_rdat && !op_local && 8'(i) < w_nsge && sge_tbl[128*i + 64 +: 32] != 32'd0;
      if (8'(i) < w_nsge) sge_sum = sge_sum + 35'(sge_tbl[128*i + 64 +: 32]);
    end
    sge_chk  = op_local ? NSGE'(1) : sge_act;
    need_pkts = !w_inline && !op_rdat && !op_local && w_len != 32'd0;
    // path MTU 256 .. 4096 (values outside 1..5 are clamped; roce_cmd refuses them)
    // (UD: the port's MTU as the WQE's decode saw it, a datagram is one packet)
    pm       = ud ? port_mtu_q : cfg.pmtu;
    pm       = (pm < 3'd1) ? 3'd1 : (pm > 3'd5) ? 3'd5 : pm;
    mtu_lg   = 4'd7 + {1'b0, pm};
    mtu      = 13'd1 << mtu_lg;
    npk      = (w_len == 32'd0 || ud) ? 25'd1 : 25'((w_len - 32'd1) >> mtu_lg) + 25'd1;  // (UD: one PSN)
    ud_long  = ud && w_len > {19'b0, mtu};
    last_len = (w_len == 32'd0) ? 13'd0 : ((w_len[12:0] - 13'd1) & (mtu - 13'd1)) + 13'd1;

    if (act_state == roce_pkg::QP_STATE_ERR)      dec_status = roce_pkg::WC_STATUS_WR_FLUSH_ERR;
    else if (poison_q || !op_ok)                  dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    // UC carries SENDs and RDMA WRITEs only (IBTA 9.8; no invalidate)
    else if (uc && (op_rdat || op_sinv))          dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    // UD: SEND and SEND with immediate, the address vector past SGE 1 (IBTA 9.8)
    else if (ud && ud_bad)                        dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    // a READ lands in its SGEs (never inline) and asks for at most 2^31 bytes (IBTA's largest message)
    else if (op_read && (w_inline || w_len > 32'(roce_pkg::MAX_MSG)))
                                                  dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    // an atomic's answer is 8 bytes, landing in its one SGE (never inline; a
    // second SGE would lie where the operands are)
    else if (op_atom && (w_inline || w_len != 32'd8 || w_nsge != 8'd1))
                                                  dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    // a local operation has no SGE and no payload; a window gets remote rights only
    else if (op_local)                            dec_status = (op_bind && (w_bind_acc & ~WINDOW_RIGHTS) != 32'd0)
                                                               ? roce_pkg::WC_STATUS_MW_BIND_ERR
                                                               : roce_pkg::WC_STATUS_SUCCESS;
    else if (w_inline ? w_len > 32'd96 : (w_nsge > 8'(NSGE) || sge_sum != {3'b0, w_len}))
                                                  dec_status = roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
    else                                          dec_status = roce_pkg::WC_STATUS_SUCCESS;
  end

  req_qp_ctx #(.MAX_QP(MAX_QP), .NPF(NPF)) u_ctx (
    .clk, .rst,
    .s_qp_cfg(cq_in), .s_qp_cfg_valid(cq_valid), .s_qp_cfg_ready(cq_ready),
    .s_sq_db, .s_sq_db_valid, .s_sq_db_ready,
    .s_fail_valid(fail_pend_q), .s_fail_qpn(bt_q.qpn), .s_fail_ready(fail_ready),
    .s_sq_retire, .s_sq_retire_valid, .s_sq_retire_ready,
    .eng_idle(eng_pick && !cfg_drain && !pfa_q), .eng_qpn(act_q), .cfg_wait(!be_empty),
    .pick_valid, .pick_qpn, .pick_ci, .pk_psn, .pk_skip, .pick_new, .cfg, .act_state, .act_rd_out, .wb_defer,
    .act_pi, .pt_ra(off_qpn), .pt_pd, .pt_rc, .pick_err, .pt_live(pe_live), .pt_qpn(pe_qpn_q), .pt_set(pf_issue), .pt_set_drop(off_drop), .pt_set_qpn(off_qpn),
    .pt_out(pfm_out), .pt_out_qpn(pfm_qpn), .pt_cfg(pfm_cfg), .pt_cfg_qpn(QW'(cq_in.qpn)), .pf_pick_valid, .pf_pick_qpn, .pf_pick_hw, .pf_sq_base, .pf_sq_lsz,
    .wb_en, .wb_ci(act_ci_q + 16'd1), .wb_psn(sent_q ? act_psn + npk[23:0] : act_psn), .wb_new(new_q),
    .wb_read(op_rdat), .wb_err,
    .any_eligible, .init_busy);

  // ---- payload path: issuer -> read data buffer -> source -> gather
  logic        iss_err, iss_start;
  roce_pkg::mr_req_t iss_mr_req;
  logic        iss_mr_req_valid, iss_mr_resp_ready;
  roce_pkg::dma_rd_req_t iss_rd_req;
  logic        iss_rd_req_valid;
  logic        pc_push, pc_ready, pk_push, pk_ready;
  logic [14:0] pc_in, pc_head;
  logic [NW-1:0] pk_in, pk_head;
  logic        pc_valid, pk_valid, raw_valid;
  logic [DATA_W:0] raw_head;
  logic        raw_push, raw_pop, pc_pop, pk_pop;
  logic        go_run, chk_last_ok;
  logic [31:0] iss_offset;   // bytes of the message not sent again (a READ: not asked for again)
  // Fill levels are counted here rather than taken from the FIFOs' s_ready, whose
  // comb block also reads s_valid (a false loop for Verilator): the same limit.
  logic [$clog2(PIECE_DEPTH):0] pc_cnt_q;
  logic [$clog2(PKT_DEPTH):0]   pk_cnt_q;
  /* verilator lint_off UNUSEDSIGNAL */  // never low: see pc_cnt_q and req_issue's free space
  logic        raw_room, pc_room, pk_room;
  /* verilator lint_on UNUSEDSIGNAL */
  assign pc_ready = pc_cnt_q != ($clog2(PIECE_DEPTH) + 1)'(PIECE_DEPTH);
  assign pk_ready = pk_cnt_q != ($clog2(PKT_DEPTH) + 1)'(PKT_DEPTH);
  always_ff @(posedge clk) begin
    if (rst) begin
      pc_cnt_q <= '0;
      pk_cnt_q <= '0;
    end else begin
      pc_cnt_q <= pc_cnt_q + ($clog2(PIECE_DEPTH) + 1)'(pc_push) - ($clog2(PIECE_DEPTH) + 1)'(pc_pop);
      pk_cnt_q <= pk_cnt_q + ($clog2(PKT_DEPTH) + 1)'(pk_push) - ($clog2(PKT_DEPTH) + 1)'(pk_pop);
    end
  end

  req_issue #(.DATA_W(DATA_W), .RAW_DEPTH(RAW_DEPTH)) u_issue (
    .clk, .rst, .start(iss_start), .sge_tbl, .sge_act, .chk_pa(chk_pa_q), .chk_run(chk_run_q),
    .chk_now(chk_last_ok), .chk_now_sge(chk_rsp_q),
    .pd(cfg.pd), .length(w_len), .offset(iss_offset), .mtu_lg, .err(iss_err),
    .m_mr_req(iss_mr_req), .m_mr_req_valid(iss_mr_req_valid), .m_mr_req_ready(m_mr_req_ready && st_q != S_CHECK && !dec_ask && !spec_ask),
    .s_mr_resp, .s_mr_resp_valid(s_mr_resp_valid && st_q != S_CHECK && !(st_q == S_DECODE && spec_q)), .s_mr_resp_ready(iss_mr_resp_ready),
    .m_dma_rd_req(iss_rd_req), .m_dma_rd_req_valid(iss_rd_req_valid),
    .m_dma_rd_req_ready(m_dma_rd_req_ready && st_q != S_FETCH && st_q != S_TAIL && !pf_on),
    .pc_push, .pc_data(pc_in), .pc_ready, .pk_push, .pk_need(pk_in), .pk_ready, .release_beat(raw_pop));

  fifo_fwft #(.WIDTH(DATA_W + 1), .DEPTH(RAW_DEPTH)) u_raw (
    .clk, .rst, .s_valid(raw_push), .s_ready(raw_room), .s_data({s_axis_dma_rd_tuser, s_axis_dma_rd_tdata}),
    .m_valid(raw_valid), .m_ready(raw_pop), .m_data(raw_head));
  fifo_fwft #(.WIDTH(15), .DEPTH(PIECE_DEPTH)) u_pc (
    .clk, .rst, .s_valid(pc_push), .s_ready(pc_room), .s_data(pc_in),
    .m_valid(pc_valid), .m_ready(pc_pop), .m_data(pc_head));
  fifo_fwft #(.WIDTH(NW), .DEPTH(PKT_DEPTH)) u_pk (
    .clk, .rst, .s_valid(pk_push), .s_ready(pk_room), .s_data(pk_in),
    .m_valid(pk_valid), .m_ready(pk_pop), .m_data(pk_head));

  // ---- back end: the queued headers leave in order, each once its packet's
  // read data is all in the buffer; their payloads (read pieces, or the
  // inline bytes queued with the header) follow through the gather; at each
  // WQE's end its sq_track when it needs one (UC/UD: tracked once sent; a
  // failed page run or poisoned read data: LOC_PROT_ERR, an amend on RC)
  localparam int HQ_W = 4 + roce_pkg::ROCE_TX_HDR_W;   // {needs read data, inline, has payload, WQE's last, header}
  localparam int IQ_W = 7 + 768;                       // {length, inline bytes}
  localparam int EQ_W = 1 + roce_pkg::SQ_TRACK_W;      // {its walk failed, the WQE's sq_track}
  localparam int INL_DEPTH = roce_pkg::REQ_INL_QUEUE;
  localparam int HC = $clog2(HDR_DEPTH) + 1;
  localparam int IC = $clog2(INL_DEPTH) + 1;
  logic          hq_push, hq_valid, hq_pop, iq_push, iq_valid, iq_pop, eq_push, eq_valid, eq_pop;
  logic [HQ_W-1:0] hq_in, hq_head;
  logic [IQ_W-1:0] iq_in, iq_head;
  logic [EQ_W-1:0] eq_in, eq_head;
  logic [HC-1:0] hq_cnt_q, eq_cnt_q;
  logic [IC-1:0] iq_cnt_q;
  /* verilator lint_off UNUSEDSIGNAL */  // never low: the counts above gate every push
  logic          hq_room, iq_room, eq_room;
  /* verilator lint_on UNUSEDSIGNAL */
  logic          hh_need, hh_inl, hh_pay, hh_wend;   // the queue head's
  // the source's order: one entry per header loaded, {has payload, inline, WQE's last}
  logic [11:0]   sq_q;
  logic [2:0]    sq_n_q;
  logic          sq_pay, sq_inl, sq_wend, sq_pop, wdone, w_poison;
  logic          be_perr_q;    // poisoned read data met in the WQE being sourced
  logic          fail_pend_q, fail_ready;  // a WQE the back end failed: its QP enters ERR (req_qp_ctx)
  logic          bt_valid_q;   // the back end's sq_track
  roce_pkg::sq_track_t bt_q, eq_rec, end_rec;
  logic          eq_err, be_empty, be_drained, end_hold;

  fifo_fwft #(.WIDTH(HQ_W), .DEPTH(HDR_DEPTH)) u_hq (
    .clk, .rst, .s_valid(hq_push), .s_ready(hq_room), .s_data(hq_in),
    .m_valid(hq_valid), .m_ready(hq_pop), .m_data(hq_head));
  fifo_fwft #(.WIDTH(IQ_W), .DEPTH(INL_DEPTH)) u_iq (
    .clk, .rst, .s_valid(iq_push), .s_ready(iq_room), .s_data(iq_in),
    .m_valid(iq_valid), .m_ready(iq_pop), .m_data(iq_head));
  fifo_fwft #(.WIDTH(EQ_W), .DEPTH(HDR_DEPTH)) u_eq (
    .clk, .rst, .s_valid(eq_push), .s_ready(eq_room), .s_data(eq_in),
    .m_valid(eq_valid), .m_ready(eq_pop), .m_data(eq_head));
  assign {hh_need, hh_inl, hh_pay, hh_wend} = hq_head[HQ_W-1 -: 4];
  assign {sq_pay, sq_inl, sq_wend} = sq_q[2:0];
  assign {eq_err, eq_rec} = eq_head;

  // source: the current piece (or the inline bytes) as lane-0-aligned beats
  logic [DATA_W-1:0] src_data;
  logic [W-1:0]  src_keep;
  logic [12:0]   src_len, src_rem;
  logic          src_valid, src_ready, src_take, src_end, src_pkt_last, src_zero;
  logic [(1 << IB) * DATA_W-1:0] inl_ext;

  always_comb begin
    inl_ext      = {{((1 << IB) * DATA_W - 768){1'b0}}, iq_head[767:0]};   // inline: WQE bytes 32..127
    src_zero     = !sq_inl && pc_head[14];
    src_pkt_last = sq_inl || pc_head[13];
    src_len      = sq_inl ? {6'b0, iq_head[IQ_W-1 -: 7]} : pc_head[12:0];
    src_rem      = src_len - src_off_q;
    src_end      = src_rem <= 13'(W);
    src_keep     = src_end ? (W'(1) << src_rem[WB-1:0]) - W'(1) : '1;
    if (src_end && src_rem[WB-1:0] == '0) src_keep = '1;
    if (sq_inl)        src_data = inl_ext[32'(src_off_q[WB +: IB]) * DATA_W +: DATA_W];
    else if (src_zero) src_data = '0;
    else               src_data = raw_head[DATA_W-1:0];
    // (a WQE's last payload waits while its end is held: end_hold)
    src_valid = sq_n_q != 3'd0 && sq_pay && !(sq_wend && end_hold) &&
                (sq_inl ? iq_valid : (pc_valid && (src_zero || raw_valid)));
    // the buffer has room for every beat: req_issue reads only against free space
    raw_push  = rd_take && rk_kind == K_PAY;
  end
  // (handshakes in assigns of their own: see rk below)
  assign src_take = src_valid && src_ready;
  assign raw_pop  = src_take && !sq_inl && !src_zero;
  assign pc_pop   = src_take && !sq_inl && src_end;
  assign iq_pop   = src_take && sq_inl && src_end;
  // an entry leaves the order with its payload's last beat; one without
  // payload once its header was taken (it is not the one still in hdr_q)
  assign sq_pop   = sq_n_q != 3'd0 && (sq_pay ? src_take && src_end && src_pkt_last
                                              : !(hdr_valid_q && sq_n_q == 3'd1) && !(sq_wend && end_hold));
  assign wdone    = sq_pop && sq_wend;   // a WQE's last packet is out of the back end
  // A WQE's end waits while the back end's sq_track register or a failure is
  // out, and while the front end offers a new WQE's sq_track (an offer on
  // the port never changes before it is taken)
  assign end_hold = bt_valid_q || fail_pend_q || (st_q == S_RUN && trk_pend_q);
  assign eq_pop   = wdone;
  assign w_poison = be_perr_q || (raw_pop && raw_head[DATA_W]);
  assign be_drained = eq_cnt_q == '0 && !bt_valid_q && !fail_pend_q;
  assign be_empty = be_drained && hq_cnt_q == '0 && sq_n_q == 3'd0 && !hdr_valid_q && pend_q == 2'd0;

  always_ff @(posedge clk) begin
    if (rst) begin
      sq_n_q <= '0;
      be_perr_q <= 1'b0;
      fail_pend_q <= 1'b0;
      bt_valid_q <= 1'b0;
      hq_cnt_q <= '0;
      iq_cnt_q <= '0;
      eq_cnt_q <= '0;
    end else begin
      hq_cnt_q <= hq_cnt_q + HC'(hq_push) - HC'(hq_pop);
      iq_cnt_q <= iq_cnt_q + IC'(iq_push) - IC'(iq_pop);
      eq_cnt_q <= eq_cnt_q + HC'(eq_push) - HC'(eq_pop);
      sq_n_q <= sq_n_q + 3'(hdr_load) - 3'(sq_pop);
      if (wdone) be_perr_q <= 1'b0;
      else if (raw_pop && raw_head[DATA_W]) be_perr_q <= 1'b1;
      if (wdone) bt_valid_q <= eq_rec.unacked || eq_err || w_poison;
      else if (m_sq_track_ready) bt_valid_q <= 1'b0;
      // a failure also puts its QP in ERR at once (nothing new starts; what
      // the back end still holds goes, and the completer flushes it)
      if (wdone) fail_pend_q <= eq_err || w_poison;
      else if (fail_ready) fail_pend_q <= 1'b0;
    end
    // (entries shift down as the head leaves; a new one goes behind the rest)
    if (sq_pop) sq_q <= {3'b0, sq_q[11:3]};
    if (hdr_load) sq_q[3*32'(3'(sq_n_q - 3'(sq_pop))) +: 3] <= {hh_pay, hh_inl, hh_wend};
    if (wdone) begin
      bt_q <= eq_rec;
      bt_q.status <= (eq_err || w_poison) ? 8'(roce_pkg::WC_STATUS_LOC_PROT_ERR) : 8'(roce_pkg::WC_STATUS_SUCCESS);
    end
  end

  stream_gather #(.DATA_W(DATA_W)) u_gather (
    .clk, .rst,
    .s_tdata(src_data), .s_tkeep(src_keep), .s_tlast(src_end && src_pkt_last),
    .s_tvalid(src_valid), .s_tready(src_ready),
    .m_tdata(m_axis_tx_payload_tdata), .m_tkeep(m_axis_tx_payload_tkeep), .m_tlast(m_axis_tx_payload_tlast),
    .m_tvalid(m_axis_tx_payload_tvalid), .m_tready(m_axis_tx_payload_tready));

  // ---- headers
  roce_pkg::roce_tx_hdr_t hdr_d;
  logic        hdr_first, hdr_last, hdr_can, hdr_load, pay_done, hq_can, hq_wend, hq_inl_d, fe_trk_go, fe_trk_valid;
  logic [12:0] hdr_pay;
  logic [15:0] ack_mask;  // the n low PSN bits that must all be ones for an AckReq mid-message
  assign ack_mask = (16'd1 << ack_req_log2) - 16'd1;

  always_comb begin
    hdr_first = hdr_k_q == 25'd0;
    hdr_last  = hdr_k_q == npk - 25'd1;
    hdr_pay   = op_rdat ? 13'd0 : hdr_last ? last_len : mtu;
    hdr_d = '0;
    hdr_d.l3         = cfg.l3;
    hdr_d.vlan_valid = cfg.vlan_valid;
    hdr_d.vlan_vid   = cfg.vlan_vid;
    hdr_d.vlan_pcp   = cfg.vlan_valid ? cfg.sl[2:0] : 3'd0;  // PCP = SL & 7
    hdr_d.dst_mac    = cfg.dst_mac;
    hdr_d.src_mac    = cfg.src_mac;
    hdr_d.src_ip     = cfg.src_ip;
    hdr_d.dst_ip     = cfg.dst_ip;
    hdr_d.tclass     = cfg.tclass;
    hdr_d.ttl        = cfg.ttl;
    hdr_d.flow_label = cfg.flow_label;
    if (op_read)
      hdr_d.opcode = roce_pkg::OP_RC_READ_REQ;
    else if (op_atom)
      hdr_d.opcode = op_cas ? roce_pkg::OP_RC_CMP_SWAP : roce_pkg::OP_RC_FETCH_ADD;
    else if (op_send)
      hdr_d.opcode = (hdr_first && hdr_last) ? (op_imm ? roce_pkg::OP_RC_SEND_ONLY_IMM
                                               : op_sinv ? roce_pkg::OP_RC_SEND_ONLY_INV : roce_pkg::OP_RC_SEND_ONLY)
                   : hdr_first ? roce_pkg::OP_RC_SEND_FIRST
                   : hdr_last  ? (op_imm ? roce_pkg::OP_RC_SEND_LAST_IMM
                                  : op_sinv ? roce_pkg::OP_RC_SEND_LAST_INV : roce_pkg::OP_RC_SEND_LAST)
                   : roce_pkg::OP_RC_SEND_MIDDLE;
    else
      hdr_d.opcode = (hdr_first && hdr_last) ? (op_imm ? roce_pkg::OP_RC_WRITE_ONLY_IMM : roce_pkg::OP_RC_WRITE_ONLY)
                   : hdr_first ? roce_pkg::OP_RC_WRITE_FIRST
                   : hdr_last  ? (op_imm ? roce_pkg::OP_RC_WRITE_LAST_IMM : roce_pkg::OP_RC_WRITE_LAST)
                   : roce_pkg::OP_RC_WRITE_MIDDLE;
    if (uc) hdr_d.opcode = hdr_d.opcode | 8'h20;  // the UC opcodes: the RC ones + 0x20
    if (ud) begin
      // one packet to the WQE's address vector, resolved as roce_cmd resolves a path
      hdr_d.opcode     = op_imm ? roce_pkg::OP_UD_SEND_ONLY_IMM : roce_pkg::OP_UD_SEND_ONLY;
      hdr_d.l3         = sgid_pkg::gid_l3(ud_gid[129:128], ud_gid[127:0]);
      hdr_d.vlan_valid = ud_gid[142];
      hdr_d.vlan_vid   = ud_gid[141:130];
      hdr_d.vlan_pcp   = ud_gid[142] ? wqe_q[8*roce_pkg::SEND_WQE_UD_SL_OFF +: 3] : 3'd0;
      hdr_d.src_mac    = port_mac;
      hdr_d.src_ip     = ud_gid[127:0];
      hdr_d.dst_mac    = byte_order_pkg::be48(wqe_q[8*roce_pkg::SEND_WQE_UD_DMAC_OFF +: 48]);
      hdr_d.dst_ip     = byte_order_pkg::be128(wqe_q[8*roce_pkg::SEND_WQE_UD_DGID_OFF +: 128]);
      hdr_d.tclass     = wqe_q[8*roce_pkg::SEND_WQE_UD_TRAFFIC_CLASS_OFF +: 8];
      hdr_d.ttl        = wqe_q[8*roce_pkg::SEND_WQE_UD_HOP_LIMIT_OFF +: 8];
      hdr_d.flow_label = wqe_q[8*roce_pkg::SEND_WQE_UD_FLOW_LABEL_OFF +: 20];
    end
    hdr_d.se      = hdr_last && w_flags[1] && (op_send || op_imm);
    hdr_d.pkey    = 16'(roce_pkg::DEFAULT_PKEY);
    hdr_d.dst_qpn = ud ? wqe_q[8*roce_pkg::SEND_WQE_UD_DEST_QPN_OFF +: 24] : cfg.dest_qpn;
    // DETH (UD): the WR's Q_Key, or with its bit 31 set the QP's own (IBTA 10.2.5)
    hdr_d.qkey    = !ud ? 32'd0 : wqe_q[8*roce_pkg::SEND_WQE_UD_QKEY_OFF + 31] ? cfg.qkey
                                     : wqe_q[8*roce_pkg::SEND_WQE_UD_QKEY_OFF +: 32];
    hdr_d.psn     = act_psn + hdr_k_q[23:0];
    // ACK coalescing: the last packet of a message, and every 2^n-th PSN of a long one;
    // a READ request always (its responses are the answer it asks for); the
    // first packet of a WQE sent again (a rewind: the responder may be past
    // it, and answers a duplicate only when asked -- its ACK says how far)
    hdr_d.ack_req = !unrel && (hdr_last || op_rdat || (hdr_d.psn[15:0] | ~ack_mask) == 16'hFFFF
                            || (!new_q && hdr_k_q == {1'b0, act_skip}));  // UC/UD: nothing answers
    if (op_read) begin
      // from packet k (a rewind): the responses 0..k-1 arrived, ask for the rest
      hdr_d.reth_va   = w_raddr + {32'b0, iss_offset};
      hdr_d.reth_rkey = w_rkey;
      hdr_d.reth_len  = w_len - iss_offset;
    end else if (op_atom) begin
      // AtomicETH: CMP_SWAP swaps in atomic_swap when the remote value equals
      // atomic_cmp_add; FETCH_ADD adds atomic_cmp_add
      hdr_d.reth_va   = w_raddr;
      hdr_d.reth_rkey = w_rkey;
      hdr_d.swap_add  = op_cas ? w_swap : w_cmp_add;
      hdr_d.compare   = op_cas ? w_cmp_add : 64'd0;
    end else if (!op_send && hdr_first) begin
      hdr_d.reth_va   = w_raddr;
      hdr_d.reth_rkey = w_rkey;
      hdr_d.reth_len  = w_len;
    end
    if (op_imm && hdr_last) hdr_d.imm = byte_order_pkg::be32(w_imm);  // the WQE's bytes, in order, on the wire
    if (op_sinv && hdr_last) hdr_d.imm = w_imm;   // IETH: the rkey, a number (invalidate_rkey)
    hdr_d.pay_len = hdr_pay;
    hdr_d.src_qpn = 24'(act_q);

    // The front end queues a packet's header in the cycle its last read is issued
    // (or at once without read data), behind room for it, its inline bytes
    // and, on the WQE's last, the WQE's end record; a new WQE's first header
    // waits for its sq_track.
    hq_wend  = op_rdat || hdr_k_q == npk - 25'd1;
    hq_inl_d = w_inline && hdr_pay != 13'd0;
    hq_can   = st_q == S_RUN && hdr_k_q < npk && hq_cnt_q != HC'(HDR_DEPTH) &&
               (!hq_inl_d || iq_cnt_q != IC'(INL_DEPTH)) && (!hq_wend || eq_cnt_q != HC'(HDR_DEPTH)) &&
               (!need_pkts || pkr_q != '0 || pk_push);
    hq_in    = {need_pkts, hq_inl_d, hdr_pay != 13'd0, hq_wend, hdr_d};
    iq_in    = {w_len[6:0], sge_tbl[767:0]};
    // the back end loads a header once all read data of its packet is in the buffer
    hdr_can  = hq_valid && pend_q != 2'd2 && sq_n_q != 3'd4 &&
               (!hh_need || (pk_valid && arrived_q >= {1'b0, pk_head}));
    hdr_load = (!hdr_valid_q || m_tx_hdr_ready) && hdr_can;
    pk_pop   = hdr_load && hh_need;
    hq_pop   = hdr_load;
    pay_done = m_axis_tx_payload_tvalid && m_axis_tx_payload_tready && m_axis_tx_payload_tlast;
  end
  assign hq_push = hq_can && (!trk_pend_q || fe_trk_go);
  assign iq_push = hq_push && hq_inl_d;
  assign eq_push = hq_push && hq_wend;
  assign eq_in   = {need_pkts && iss_err, end_rec};

  // ---- engine
  logic [31:0] qidx;
  logic [4:0]  chk_sel, chk_first;
  logic        dec_ask;  // DECODE asks the first SGE check itself (the WQE goes on to CHECK)
  always_comb begin
    chk_first = next_act(sge_chk, 5'd0);
    chk_sel = (st_q != S_CHECK) ? chk_first : (chk_iss_q < NONE) ? chk_iss_q : 5'd0;
    qidx = {16'b0, act_ci_q} & ((32'd1 << cfg.sq_lsz) - 32'd1);
    // a new READ or atomic beyond max_rd_atomic is not started: it waits for a
    // credit. A new fenced WQE (IBV_SEND_FENCE) waits until every earlier READ
    // and atomic has completed: it then sees what they read, and they do not
    // see it (the responder lets later operations overtake a READ's data).
    wb_defer = dec_go && dec_status == roce_pkg::WC_STATUS_SUCCESS && new_q &&
               ((op_rdat && act_rd_out >= cfg.max_rd_atomic) || (w_fence && act_rd_out != 5'd0));
    // (CHECK runs in the cycle its last answer comes, if every answer was good)
    chk_last_ok = st_q == S_CHECK && s_mr_resp_valid && chk_rsp_q != NONE &&
                  next_act(sge_chk, chk_rsp_q + 5'd1) == NONE && s_mr_resp.status == roce_pkg::MR_STATUS_OK && !chk_err_q;
    go_run = !op_local && !ud_long &&
             ((dec_go && dec_status == roce_pkg::WC_STATUS_SUCCESS && !wb_defer
               && (w_inline || sge_act == '0)) ||
              chk_last_ok || (st_q == S_CHECK && chk_rsp_q == NONE && !chk_err_q));
    iss_start = go_run && need_pkts;
    // (not a local operation: its one request is built from the WQE in CHECK)
    // (go_run's DECODE term, not go_run: that also follows the check's answers)
    dec_ask = dec_go && dec_status == roce_pkg::WC_STATUS_SUCCESS && !wb_defer && !ud_long && !op_local
              && !w_inline && sge_act != '0 && chk_first != NONE && !spec_q;
    iss_offset = {8'b0, act_skip} << mtu_lg;
    wb_en  = st_q == S_WB;
    wb_err = status_q == roce_pkg::WC_STATUS_LOC_QP_OP_ERR || status_q == roce_pkg::WC_STATUS_LOC_PROT_ERR ||
             status_q == roce_pkg::WC_STATUS_MW_BIND_ERR;

    m_dma_rd_req = iss_rd_req;
    m_dma_rd_req_valid = iss_rd_req_valid;
    if (st_q == S_FETCH || st_q == S_TAIL) begin
      m_dma_rd_req      = '0;
      m_dma_rd_req.tag  = 8'(roce_pkg::DMA_TAG_WQE);
      m_dma_rd_req.addr = cfg.sq_base + ({32'b0, qidx} << roce_pkg::WQE_SLOT_LOG2)
                          + (st_q == S_TAIL ? 64'(roce_pkg::WQE_HEAD) : 64'd0);
      m_dma_rd_req.len  = st_q == S_TAIL ? tail_len : 13'(roce_pkg::WQE_HEAD);
      m_dma_rd_req_valid = 1'b1;
    end
    if (pf_on) begin
      m_dma_rd_req      = '0;
      m_dma_rd_req.tag  = 8'(roce_pkg::DMA_TAG_PREFETCH);
      m_dma_rd_req.addr = off_addr;
      m_dma_rd_req.len  = 13'(roce_pkg::WQE_HEAD);
      m_dma_rd_req_valid = pf_want;
    end
    fe_trk = '0;
    fe_trk.qpn       = 16'(act_q);
    fe_trk.wqe_idx   = act_ci_q;
    fe_trk.first_psn = act_psn;
    fe_trk.last_psn  = (!unrel && (st_q == S_RUN || sent_q)) ? act_psn + npk[23:0] - 24'd1 : act_psn - 24'd1;
    fe_trk.wr_id     = w_wr_id;
    fe_trk.wc_opcode = (w_op == 8'(roce_pkg::WR_OPCODE_RDMA_WRITE) || w_op == 8'(roce_pkg::WR_OPCODE_RDMA_WRITE_WITH_IMM))
                           ? roce_pkg::WC_OPCODE_RDMA_WRITE
                           : (w_op == 8'(roce_pkg::WR_OPCODE_RDMA_READ)) ? roce_pkg::WC_OPCODE_RDMA_READ
                           : op_cas ? roce_pkg::WC_OPCODE_COMP_SWAP
                           : op_atom ? roce_pkg::WC_OPCODE_FETCH_ADD
                           : op_bind ? roce_pkg::WC_OPCODE_BIND_MW
                           : op_local ? roce_pkg::WC_OPCODE_LOCAL_INV
                           : roce_pkg::WC_OPCODE_SEND;
    fe_trk.signaled  = w_flags[0];
    fe_trk.byte_len  = op_local ? 32'd0 : w_len;
    fe_trk.status    = 8'(status_q);
    fe_trk.amend     = st_q == S_TRACK && amend_q;
    fe_trk.unacked   = unrel;
    // the WQE's end record for the back end (queued with its last header):
    // its sq_track if it turns out to need one there (status and amend as a
    // failure after its packets would have; UC/UD: the track once sent)
    end_rec = fe_trk;
    end_rec.last_psn = unrel ? act_psn - 24'd1 : act_psn + npk[23:0] - 24'd1;
    end_rec.status   = 8'(roce_pkg::WC_STATUS_SUCCESS);
    end_rec.amend    = !unrel;
    // a failure is tracked once the back end's WQEs are (UC/UD: in order), behind its sq_track
    fe_trk_valid = (st_q == S_TRACK && be_drained) || (st_q == S_RUN && trk_pend_q);
  end

  // The MR port: the walk's page runs, else the SGE checks (DECODE's first,
  // CHECK's), a local operation's, or the pick's (spec_ask). (A block of its
  // own: in the engine's, spec_ask would join the pick to the decode in one
  // false loop for Verilator.)
  always_comb begin
    m_mr_req = iss_mr_req;
    m_mr_req_valid = iss_mr_req_valid;
    s_mr_resp_ready = iss_mr_resp_ready;
    if (st_q == S_CHECK || dec_ask) begin
      m_mr_req        = '0;
      m_mr_req.tag    = {3'b0, chk_sel};
      m_mr_req.key    = sge_tbl[128*32'(chk_sel) + 96 +: 32];
      m_mr_req.pd     = cfg.pd;
      m_mr_req.va     = sge_tbl[128*32'(chk_sel) +: 64];
      m_mr_req.len    = sge_tbl[128*32'(chk_sel) + 64 +: 32];
      m_mr_req.access = 4'd0;
      if (op_local) begin
        // BIND: the window (new rkey) onto [remote_addr, +length) of the MR
        // bind_mr_lkey; INVALIDATE: the window whose rkey is in imm
        m_mr_req.op     = op_bind ? roce_pkg::MR_OP_BIND : roce_pkg::MR_OP_INVALIDATE;
        m_mr_req.key    = op_bind ? w_rkey : w_imm;
        m_mr_req.va     = op_bind ? w_raddr : 64'd0;
        m_mr_req.len    = op_bind ? w_len : 32'd0;
        m_mr_req.access = op_bind ? 4'(w_bind_acc & WINDOW_RIGHTS) : 4'd0;
        m_mr_req.qpn    = 24'(act_q);
        m_mr_req.mr_key = op_bind ? w_bind_lkey : 32'd0;
      end
      m_mr_req_valid  = dec_ask || chk_iss_q != NONE;
    end
    if (spec_ask) begin
      m_mr_req        = '0;
      m_mr_req.tag    = 8'd0;
      m_mr_req.key    = pe_head[INL + 8 * roce_pkg::SGE_LKEY_OFF +: 32];
      m_mr_req.pd     = pe_pd_q[16*32'(pf_sel) +: 16];
      m_mr_req.va     = pe_head[INL + 8 * roce_pkg::SGE_ADDR_OFF +: 64];
      m_mr_req.len    = pe_head[INL + 8 * roce_pkg::SGE_LENGTH_OFF +: 32];
      m_mr_req.access = 4'd0;
      m_mr_req_valid  = 1'b1;
    end
    if (st_q == S_CHECK) s_mr_resp_ready = chk_rsp_q != NONE;
    if (st_q == S_DECODE && spec_q) s_mr_resp_ready = 1'b1;  // (the answer to the pick's ask, come early)
  end

  // Read data in request order: a prefetch's beats whenever they come, a
  // WQE's head and tail while it waits for them, payload while it runs.
  // (Assigns of their own: in the engine's comb block they would join the
  // request and data handshakes into one false loop for Verilator.)
  assign rk_kind = rk_head[PW+1:PW];
  assign s_axis_dma_rd_tready = rk_valid && (rk_kind == K_PF || rk_kind == K_PAY || st_q == S_WQE);
  assign rd_take = s_axis_dma_rd_tvalid && s_axis_dma_rd_tready;
  assign rk_pop  = rd_take && s_axis_dma_rd_tlast;
  assign rk_push = m_dma_rd_req_valid && m_dma_rd_req_ready;
  assign rk_in   = pf_on ? {K_PF, pf_slot} : st_q == S_FETCH ? {K_HEAD, PW'(0)}
                 : st_q == S_TAIL ? {K_TAIL, PW'(0)} : {K_PAY, PW'(0)};
  assign pf_in_e = rk_head[PW-1:0];

  // (handshakes in assigns of their own: in the comb block above they would
  // join the request's valid to its ready for Verilator)
  assign cq_in = cq_valid_q ? cq_q : s_qp_cfg;
  assign cq_valid = cq_valid_q || s_qp_cfg_valid;
  assign cfg_take = cq_valid && cq_ready;
  assign cfg_drain = cq_valid && !be_empty;
  assign s_qp_cfg_ready = !cq_valid_q;
  // sq_track: the back end's first (it ends WQEs queued before the front end's)
  assign m_sq_track       = bt_valid_q ? bt_q : fe_trk;
  assign m_sq_track_valid = bt_valid_q || fe_trk_valid;
  assign fe_trk_go        = st_q == S_RUN && trk_pend_q && !bt_valid_q && m_sq_track_ready;
  assign pf_on    = st_q == S_PF || pfa_q || pff_q;
  assign pf_issue = pf_on && m_dma_rd_req_ready && pf_want;

  assign eng_pick = st_q == S_IDLE || st_q == S_WB;
  assign bf_hit = eng_pick && pick_valid && bf_valid_q && pick_new && pick_qpn == bf_qpn_q && pick_ci == bf_idx_q;
  assign pf_hit = eng_pick && pick_valid && !bf_hit && pick_new && pe_hit != '0;
  assign pf_now = pf_hit && pe_st_q[2*32'(pf_sel) +: 2] == E_DONE;
  logic [7:0] sp_op, sp_nsge;
  logic [1:0] sp_flags;   // inline, fence
  logic [31:0] sp_len, sp_len0;
  always_comb begin
    sp_op    = pe_head[8*roce_pkg::SEND_WQE_OPCODE_OFF +: 8];
    sp_flags = pe_head[8*roce_pkg::SEND_WQE_FLAGS_OFF + 2 +: 2];
    sp_nsge  = pe_head[8*roce_pkg::SEND_WQE_NUM_SGE_OFF +: 8];
    sp_len   = pe_head[8*roce_pkg::SEND_WQE_LENGTH_OFF +: 32];
    sp_len0  = pe_head[INL + 8 * roce_pkg::SGE_LENGTH_OFF +: 32];
    spec_ask = st_q == S_WB && pf_now && !pick_err && pe_rc_q[pf_sel] && !pe_poison_q[pf_sel] && !iss_mr_req_valid &&
               (sp_op == 8'(roce_pkg::WR_OPCODE_SEND) || sp_op == 8'(roce_pkg::WR_OPCODE_SEND_WITH_IMM) ||
                sp_op == 8'(roce_pkg::WR_OPCODE_SEND_WITH_INV) || sp_op == 8'(roce_pkg::WR_OPCODE_RDMA_WRITE) ||
                sp_op == 8'(roce_pkg::WR_OPCODE_RDMA_WRITE_WITH_IMM)) &&
               sp_flags == 2'b00 && sp_nsge == 8'd1 && sp_len0 != 32'd0 && sp_len0 == sp_len;
  end

  // The prefetch table. A pick of a new WQE whose head is there (or on its
  // way) takes it (PFW waits for its data, then DECODE, with the reads
  // ahead beside it: pfa_q). PF (or pfa_q) reads up to two heads ahead
  // into free entries: another QP's next new WQE (req_qp_ctx's prefetch
  // pick: round robin from the pick pointer over QPs with new WQEs, but for
  // this QP and those already in the table), else this QP's next ones (ra_x,
  // while this WQE is new, more are posted and fewer than NPF are ahead).
  // Neither the kept SQ_BF WQE nor one in the table is read again; a qp_cfg
  // for an entry's QP drops it (its data, if still coming, is not kept).
  always_comb begin
    pf_sel = '0;
    pf_slot = '0;
    pf_any_free = 1'b0;
    for (int i = NPF - 1; i >= 0; i--) begin
      pe_live[i] = pe_st_q[2*i +: 2] == E_PEND || pe_st_q[2*i +: 2] == E_DONE;
      pe_hit[i]  = pe_live[i] && pe_qpn_q[QW*i +: QW] == pick_qpn && pe_idx_q[16*i +: 16] == pick_ci;
      pe_act[i]  = pe_live[i] && pe_qpn_q[QW*i +: QW] == act_q;
      pe_pq[i]   = pe_live[i] && pe_qpn_q[QW*i +: QW] == pick_qpn;
      pe_free[i] = pe_st_q[2*i +: 2] == E_FREE;
      pe_cfg[i]  = cfg_take && cq_in.qpn == 16'(pe_qpn_q[QW*i +: QW]);
      // (the pick's QP's heads after its WQE: read ahead from past them)
      pe_ahead[i] = pe_live[i] && pe_qpn_q[QW*i +: QW] == pick_qpn && pe_idx_q[16*i +: 16] - pick_ci - 16'd1 < 16'(NPF);
      // (its read's last beat arrives now)
      pe_end[i]  = rd_take && rk_kind == K_PF && s_axis_dma_rd_tlast && pf_in_e == PW'(i);
      if (pe_hit[i]) pf_sel = PW'(i);
      if (pe_free[i]) begin
        pf_slot = PW'(i);
        pf_any_free = 1'b1;
      end
    end
    // (the entry PFW takes: does its QP keep another?)
    pf_other = (pe_act & ~(NPF'(1) << pf_sel_q)) != '0;
    pf_other_pick = (pe_pq & ~(NPF'(1) << pf_sel)) != '0;
    cand_a = pf_pick_valid && !(bf_valid_q && bf_qpn_q == pf_pick_qpn && bf_idx_q == pf_pick_hw);
    cand_b = new_q && ra_x_q != act_pi && ra_x_q - act_ci_q < 16'(NPF) &&
             !(bf_valid_q && bf_qpn_q == act_q && bf_idx_q == ra_x_q);
    cand_qpn = cand_a ? pf_pick_qpn : act_q;
    cand_idx = cand_a ? pf_pick_hw : ra_x_q;
    cand_ok  = (cand_a || cand_b) && pf_any_free;
    cand_addr = (cand_a ? pf_sq_base : cfg.sq_base) +
                ({48'b0, cand_idx & 16'((17'd1 << (cand_a ? pf_sq_lsz : cfg.sq_lsz)) - 17'd1)} << roce_pkg::WQE_SLOT_LOG2);
    off_a    = pfo_q ? pfo_a_q : cand_a;
    off_qpn  = pfo_q ? pfo_qpn_q : cand_qpn;
    off_idx  = pfo_q ? pfo_idx_q : cand_idx;
    off_addr = pfo_q ? pfo_addr_q : cand_addr;
    pf_want  = pfo_q || (cand_ok && (pf_n_q != 2'd2 || pff_q));
  end
  // (dropped: its QP's qp_cfg taken while it was held, or in its cycle)
  assign off_drop = (pfo_q && pfo_drop_q) || (cfg_take && cq_in.qpn == 16'(off_qpn));

  /* verilator lint_off UNUSEDSIGNAL */  // never full: reads in flight are at most the payload pieces, NPF prefetches, a head and a tail
  logic rk_room;
  /* verilator lint_on UNUSEDSIGNAL */
  fifo_fwft #(.WIDTH(PW + 2), .DEPTH(2 * PIECE_DEPTH)) u_rk (
    .clk, .rst, .s_valid(rk_push), .s_ready(rk_room), .s_data(rk_in),
    .m_valid(rk_valid), .m_ready(rk_pop), .m_data(rk_head));

  always_ff @(posedge clk) begin
    // (every write below at a variable place is a loop of decoded writes at
    // fixed places: Yosys turns `v[i*W +: W] <= d` into a shifter of d and
    // of its mask as wide as v, tens of thousands of cells on a wide v)
    for (int b = 0; b < WQE_PAD / DATA_W; b++)
      if (st_q == S_WQE && rd_take && !rk_kind[1] && beat_q == 5'(b)) wqe_q[b * DATA_W +: DATA_W] <= s_axis_dma_rd_tdata;
    if (bf_hit) wqe_q[8*roce_pkg::WQE_HEAD-1:0] <= bf_wqe_q;
    if (st_q == S_PFW && pe_st_q[2*32'(pf_sel_q) +: 2] == E_DONE) wqe_q[8*roce_pkg::WQE_HEAD-1:0] <= pe_head_q;
    if (pf_now) wqe_q[8*roce_pkg::WQE_HEAD-1:0] <= pe_head;
    for (int i = 0; i < NPF; i++)
      if (pf_issue && pf_slot == PW'(i)) begin
        pe_qpn_q[QW*i +: QW] <= off_qpn;
        pe_idx_q[16*i +: 16] <= off_idx;
      end
    pfi_slot_q <= pf_slot;
    for (int i = 0; i < NPF; i++)
      if (pfi_q && pfi_slot_q == PW'(i)) begin  // (its QP's read of the cycle before)
        pe_pd_q[16*i +: 16] <= pt_pd;
        pe_rc_q[i] <= pt_rc;
      end
    if (pf_on && pf_want && !m_dma_rd_req_ready && !pfo_q) begin
      pfo_a_q <= cand_a;
      pfo_qpn_q <= cand_qpn;
      pfo_idx_q <= cand_idx;
      pfo_addr_q <= cand_addr;
    end
    if (!cq_valid_q) cq_q <= s_qp_cfg;
    if (s_sq_db_valid && s_sq_db_ready && s_sq_db_bf) begin
      bf_qpn_q <= QW'(s_sq_db.qpn);
      bf_idx_q <= s_sq_db.pi - 16'd1;
      bf_wqe_q <= s_sq_bf_wqe;
    end
    if (hdr_load) hdr_q <= hq_head[roce_pkg::ROCE_TX_HDR_W-1:0];
    if (hq_push) begin
      // where the READ's (atomic's) responses land, as read_place would fetch it
      rd_hint_q.qpn     <= 16'(act_q);
      rd_hint_q.wqe_idx <= act_ci_q;
      rd_hint_q.one_sge <= w_nsge == 8'd1;
      rd_hint_q.addr    <= sge_tbl[8 * roce_pkg::SGE_ADDR_OFF +: 64];
      rd_hint_q.length  <= sge_tbl[8 * roce_pkg::SGE_LENGTH_OFF +: 32];
      rd_hint_q.lkey    <= sge_tbl[8 * roce_pkg::SGE_LKEY_OFF +: 32];
    end
    for (int i = 0; i < NSGE; i++)
      if ((st_q == S_CHECK && s_mr_resp_valid && chk_rsp_q == 5'(i)) ||
          (st_q == S_DECODE && spec_q && s_mr_resp_valid && chk_first == 5'(i))) begin
        chk_pa_q[64*i +: 64] <= s_mr_resp.pa;
        chk_run_q[32*i +: 32] <= s_mr_resp.run;
      end
  end

  // The prefetched heads in LUT-RAM, an array per beat of a head: a beat is
  // written in its read's cycle, a pick reads its entry's whole head
  // asynchronously (as the flip-flops did). 32 heads of 1,024 bits in
  // flip-flops were 32K of them and two 32:1 muxes 1,024 bits wide.
  for (genvar b = 0; b < HEAD_BEATS; b++) begin : g_pe
    logic [DATA_W-1:0] pe_wqe_mem [NPF];
    always_ff @(posedge clk)
      if (rd_take && rk_kind == K_PF && pe_st_q[2*32'(pf_in_e) +: 2] == E_PEND && pf_beat_q == 5'(b))
        pe_wqe_mem[pf_in_e] <= s_axis_dma_rd_tdata;
    assign pe_head_q[b*DATA_W +: DATA_W] = pe_wqe_mem[pf_sel_q];
    assign pe_head[b*DATA_W +: DATA_W]   = pe_wqe_mem[pf_sel];
  end

  // A QP with a live entry in the table is not the prefetch's candidate
  // (req_qp_ctx keeps its candidates as a bitmap): its entries as they are
  // and as they change, the last one of a QP taken (PFW's or the pick's, a
  // QP of pfm_qpn: pfm_out) or dropped by its qp_cfg (pfm_cfg).
  logic pfm_out, pfm_cfg;
  logic [QW-1:0] pfm_qpn;
  always_comb begin
    pfm_out = (st_q == S_PFW && pe_st_q[2*32'(pf_sel_q) +: 2] == E_DONE && !pf_other) || (pf_now && !pf_other_pick);
    pfm_qpn = pf_now ? pick_qpn : act_q;
    pfm_cfg = cfg_take && 32'(cq_in.qpn) < 32'(MAX_QP);
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      st_q <= S_IDLE;
      act_q <= '0;
      act_ci_q <= '0;
      act_psn_q <= '0;
      act_skip_q <= '0;
      picked_q <= 1'b0;
      new_q <= 1'b0;
      trk_pend_q <= 1'b0;
      amend_q <= 1'b0;
      beat_q <= '0;
      beats_q <= '0;
      tail_q <= 1'b0;
      poison_q <= 1'b0;
      sent_q <= 1'b0;
      status_q <= '0;
      chk_iss_q <= '0;
      chk_rsp_q <= '0;
      chk_err_q <= 1'b0;
      hdr_k_q <= '0;
      hdr_valid_q <= 1'b0;
      arrived_q <= '0;
      pkr_q <= '0;
      pend_q <= '0;
      src_off_q <= '0;
      cnt_q <= '0;
      rd_hint_v_q <= 1'b0;
      port_mtu_q <= 3'd3;
      bf_valid_q <= 1'b0;
      pe_st_q <= '0;
      pe_poison_q <= '0;
      pf_sel_q <= '0;
      pf_beat_q <= '0;
      pf_n_q <= '0;
      pfa_q <= 1'b0;
      pff_q <= 1'b0;
      ra_x_q <= '0;
      pfo_q <= 1'b0;
      pfo_drop_q <= 1'b0;
      cq_valid_q <= 1'b0;
      pfi_q <= 1'b0;
      spec_q <= 1'b0;
    end else begin
      pfi_q <= pf_issue;
      spec_q <= spec_ask && m_mr_req_ready;
      cq_valid_q <= cq_valid && !cq_ready;
      // the prefetch table: an entry asked for (PF; dropped at once if its
      // QP's qp_cfg is taken in that cycle), its beats, taken by PFW (its
      // QP leaves pfm_q with its last entry), dropped with its QP's qp_cfg
      if (rd_take && rk_kind == K_PF) begin
        pf_beat_q <= s_axis_dma_rd_tlast ? 5'd0 : pf_beat_q + 5'd1;
        for (int i = 0; i < NPF; i++)
          if (pf_in_e == PW'(i)) begin
            if (pe_st_q[2*i +: 2] == E_PEND) begin
              if (s_axis_dma_rd_tuser) pe_poison_q[i] <= 1'b1;
              if (s_axis_dma_rd_tlast) pe_st_q[2*i +: 2] <= E_DONE;
            end else if (s_axis_dma_rd_tlast) begin
              pe_st_q[2*i +: 2] <= E_FREE;   // (E_DROP: its read is over)
            end
          end
      end
      for (int i = 0; i < NPF; i++) begin
        if (st_q == S_PFW && pf_sel_q == PW'(i) && pe_st_q[2*i +: 2] == E_DONE) pe_st_q[2*i +: 2] <= E_FREE;
        if (pf_now && pf_sel == PW'(i)) pe_st_q[2*i +: 2] <= E_FREE;
      end
      for (int i = 0; i < NPF; i++)
        if (pe_cfg[i] && pe_live[i]) pe_st_q[2*i +: 2] <= (pe_st_q[2*i +: 2] == E_PEND && !pe_end[i]) ? E_DROP : E_FREE;
      for (int i = 0; i < NPF; i++)
        if (pf_issue && pf_slot == PW'(i)) begin
          pe_st_q[2*i +: 2] <= off_drop ? E_DROP : E_PEND;
          pe_poison_q[i] <= 1'b0;
        end
      if (pf_issue) begin
        if (!off_a) ra_x_q <= ra_x_q + 16'd1;
      end
      if (pf_issue) begin
        pfo_q <= 1'b0;
        pfo_drop_q <= 1'b0;
      end else if (pf_on && pf_want) begin
        pfo_q <= 1'b1;
        pfo_drop_q <= off_drop;
      end
      // the kept SQ_BF WQE: taken by its pick, forgotten with its QP's qp_cfg, replaced by the next one
      if (bf_hit || (cfg_take && cq_in.qpn == 16'(bf_qpn_q))) bf_valid_q <= 1'b0;
      if (s_sq_db_valid && s_sq_db_ready && s_sq_db_bf) bf_valid_q <= 32'(s_sq_db.qpn) < 32'(MAX_QP);
      if (m_tx_hdr_valid && m_tx_hdr_ready) cnt_q <= cnt_q + 32'd1;
      rd_hint_v_q <= hq_push && op_rdat;
      if (go_run) begin
        hdr_k_q <= {1'b0, act_skip};
        trk_pend_q <= new_q && !unrel;  // UC/UD: tracked once its packets left
        pkr_q <= '0;
      end
      // the back end
      arrived_q <= arrived_q + (raw_push ? (NW + 1)'(1) : '0) - (pk_pop ? {1'b0, pk_head} : '0);
      if (hdr_load) hdr_valid_q <= 1'b1;
      else if (m_tx_hdr_ready) hdr_valid_q <= 1'b0;
      pend_q <= pend_q + ((hdr_load && hh_pay) ? 2'd1 : 2'd0) - (pay_done ? 2'd1 : 2'd0);
      if (src_take) src_off_q <= src_end ? 13'd0 : src_off_q + 13'(W);
      if (pf_issue && !pff_q) pf_n_q <= pf_n_q + 2'd1;
      // (the visit ends in the cycle it finds none, or with the head's last beat)
      if (pff_q && (!pf_want || (rd_take && !rk_kind[1] && beat_q == beats_q - 5'd1))) pff_q <= 1'b0;
      if (pfa_q && (!pf_want || (pf_issue && pf_n_q == 2'd1))) pfa_q <= 1'b0;  // (as PF leaves)
      picked_q <= pick_valid;
      if (picked_q) begin
        act_psn_q <= pk_psn;
        act_skip_q <= pk_skip;
      end
      case (st_q)
        S_IDLE, S_WB: if (pick_valid) begin
          act_q <= pick_qpn;
          act_ci_q <= pick_ci;
          new_q <= pick_new;
          amend_q <= !pick_new;
          st_q <= S_FETCH;
          pf_n_q <= '0;
          pf_sel_q <= pf_sel;
          // read ahead from the WQE after it, past those already in the table
          ra_x_q <= pick_ci + 16'd1 + 16'($countones(pe_ahead));
          if (bf_hit || pf_hit) begin  // its head is here (SQ_BF) or on its way (prefetched)
            beat_q <= 5'(HEAD_BEATS);
            beats_q <= 5'(HEAD_BEATS);
            tail_q <= 1'b0;
            poison_q <= 1'b0;
            port_mtu_q <= port_mtu;
            st_q <= (bf_hit || pf_now) ? S_DECODE : S_PFW;
            pfa_q <= bf_hit || pf_now;
            if (pf_now) poison_q <= pe_poison_q[pf_sel];
          end
        end else begin
          st_q <= S_IDLE;  // (WB: the write-back is this cycle's)
        end
        S_PFW: if (pe_st_q[2*32'(pf_sel_q) +: 2] == E_DONE) begin  // the prefetched head is in (wqe_q takes it)
          poison_q <= pe_poison_q[pf_sel_q];
          port_mtu_q <= port_mtu;
          st_q <= S_DECODE;
          pfa_q <= 1'b1;
        end
        S_PF: if (!pf_want || (pf_issue && pf_n_q == 2'd1)) begin  // up to two reads ahead, then on
          st_q <= S_WQE;
          pff_q <= pf_issue;   // (more beside the head's wait)
        end
        S_FETCH: if (m_dma_rd_req_ready) begin
          beat_q <= '0;
          beats_q <= 5'(HEAD_BEATS);
          tail_q <= 1'b0;
          poison_q <= 1'b0;
          st_q <= cand_ok ? S_PF : S_WQE;  // a prefetch to ask for: right behind
        end
        S_TAIL: if (m_dma_rd_req_ready && !pfa_q) begin
          // its beats land after the head's (WQE_HEAD is a whole number of beats)
          beats_q <= 5'(HEAD_BEATS) + 5'((tail_len + 13'(W - 1)) >> WB);
          tail_q <= 1'b1;
          st_q <= S_WQE;
        end
        S_WQE: if (rd_take && !rk_kind[1]) begin  // (a head or tail beat; payload goes to the back end)
          port_mtu_q <= port_mtu;
          poison_q <= poison_q || s_axis_dma_rd_tuser;
          beat_q <= beat_q + 5'd1;
          if (beat_q == beats_q - 5'd1) st_q <= S_DECODE;
        end
        S_DECODE: if (need_tail) begin
          st_q <= S_TAIL;
        end else begin
          sent_q <= 1'b0;
          status_q <= dec_status;
          chk_iss_q <= ((dec_ask && m_mr_req_ready) || spec_q) ? next_act(sge_chk, chk_first + 5'd1) : chk_first;
          chk_rsp_q <= chk_first;
          chk_err_q <= 1'b0;
          if (spec_q && s_mr_resp_valid) begin  // the pick's ask answered already
            chk_rsp_q <= next_act(sge_chk, chk_first + 5'd1);
            chk_err_q <= s_mr_resp.status != roce_pkg::MR_STATUS_OK;
          end
          if (dec_status != roce_pkg::WC_STATUS_SUCCESS) st_q <= S_TRACK;
          else if (wb_defer) st_q <= S_IDLE;   // not started: picked again once a READ finishes
          else if (ud_long) begin              // no packet; tracked as sent (its PSN taken)
            sent_q <= 1'b1;
            st_q <= S_TRACK;
          end
          else if (op_local && !new_q) st_q <= S_WB;  // executed when new: not again after a rewind
          else st_q <= go_run ? S_RUN : S_CHECK;
        end
        S_CHECK: begin
          if (m_mr_req_valid && m_mr_req_ready) chk_iss_q <= next_act(sge_chk, chk_iss_q + 5'd1);
          if (s_mr_resp_valid && chk_rsp_q != NONE) begin
            chk_rsp_q <= next_act(sge_chk, chk_rsp_q + 5'd1);
            if (s_mr_resp.status != roce_pkg::MR_STATUS_OK) chk_err_q <= 1'b1;
          end
          if (chk_last_ok && !op_local) begin
            st_q <= S_RUN;
          end else if (chk_rsp_q == NONE) begin
            if (op_local) begin
              // done: tracked with its status (rxe's: MW_BIND_ERR, LOC_QP_OP_ERR)
              status_q <= !chk_err_q ? roce_pkg::WC_STATUS_SUCCESS
                        : op_bind ? roce_pkg::WC_STATUS_MW_BIND_ERR : roce_pkg::WC_STATUS_LOC_QP_OP_ERR;
              st_q <= S_TRACK;
            end else if (chk_err_q) begin
              status_q <= roce_pkg::WC_STATUS_LOC_PROT_ERR;
              st_q <= S_TRACK;
            end else begin
              st_q <= S_RUN;
            end
          end
        end
        S_RUN: begin
          if (fe_trk_go) begin
            trk_pend_q <= 1'b0;
            amend_q <= 1'b1;   // from now on its failure is an amend
          end
          pkr_q <= pkr_q + ($clog2(PKT_DEPTH) + 1)'(pk_push) - ($clog2(PKT_DEPTH) + 1)'(hq_push && need_pkts);
          if (hq_push) begin
            hdr_k_q <= op_rdat ? npk : hdr_k_q + 25'd1;   // a READ's one request covers all its PSNs
            // its last header queued: the front end is done with it (what
            // its packets meet from now on, the back end tracks)
            if (hq_wend) begin
              sent_q <= 1'b1;
              status_q <= roce_pkg::WC_STATUS_SUCCESS;
              st_q <= S_WB;
            end
          end
        end
        S_TRACK: if (be_drained && m_sq_track_ready) st_q <= S_WB;
        default: st_q <= S_IDLE;
      endcase
    end
  end

  assign m_tx_hdr       = hdr_q;
  assign m_rd_hint      = rd_hint_q;
  assign m_rd_hint_valid = rd_hint_v_q;
  assign m_tx_hdr_valid = hdr_valid_q;
  assign idle           = st_q == S_IDLE && !init_busy && !pfa_q && !any_eligible && !rk_valid && be_empty;
  assign cnt_tx_pkts    = cnt_q;

`ifndef SYNTHESIS
  // Invariant, compiled into every Verilated build (--assert): the FIFO of
  // the kinds of reads in flight never overflows (a prefetch's data would
  // then go astray)
  always_ff @(posedge clk) begin
    if (!rst && rk_push)
      a_req_reads_in_flight_fit: assert (rk_room) else $error("a_req_reads_in_flight_fit");
    // the pick's SGE check is asked only for a WQE whose decode checks that SGE first
    if (!rst && st_q == S_DECODE && spec_q)
      a_req_spec_check_used: assert (dec_go && dec_status == roce_pkg::WC_STATUS_SUCCESS && !wb_defer && !ud_long &&
                                     !op_local && !w_inline && chk_first == 5'd0) else $error("a_req_spec_check_used");
    // a WQE's end in the back end finds its record (queued with its last header)
    if (!rst && wdone)
      a_req_wqe_end_recorded: assert (eq_valid) else $error("a_req_wqe_end_recorded");
  end
`endif
endmodule

`default_nettype wire
