// responder_pkg: formats internal to the RC responder (rtl/xport/responder*.sv).
// Not wire or host formats (those come from spec/ through roce_pkg): what the
// checker stage hands the placement stage, and the per-QP context it keeps.
package responder_pkg;

  localparam logic [1:0] KIND_NONE  = 2'd0;   // no message in progress
  localparam logic [1:0] KIND_SEND  = 2'd1;
  localparam logic [1:0] KIND_WRITE = 2'd2;

  localparam int unsigned MAX_SGE = 16;       // SGEs in a receive WQE (roce_pkg::MAX_SGE; responder_ctrl checks)
  localparam int unsigned HEAD_SGE = 6;       // ... in its first WQE_HEAD bytes (the first fetch)
  localparam int unsigned PIECE_W = 79;       // rsp_piece_t
  localparam int unsigned WALK_W = 208;       // rsp_walk_t
  localparam int unsigned RES_N = 16;         // replay cache entries per QP (MAX_QP_RD_ATOM)

  // Per-QP context (one RAM word per QP): attributes from qp_cfg, receive
  // queue indexes, PSN state and the message in progress.
  typedef struct packed {
    // attributes
    logic [2:0]  state;       // qp_state enum (the responder's own view: ERR sticks)
    logic [15:0] pd;
    logic [3:0]  access;
    logic [2:0]  pmtu;
    logic [63:0] rq_base;
    logic [4:0]  rq_lsz;
    logic [15:0] recv_cq;
    logic [23:0] dest_qpn;
    logic [4:0]  min_rnr;
    logic [3:0]  sl;
    logic        rd_res;      // max_dest_rd_atomic > 0: READ requests are answered
    logic [31:0] qkey;        // UD: the Q_Key a datagram must carry
    // receive queue and sequence state
    logic [15:0] pi;
    logic [15:0] ci;
    logic [23:0] epsn;
    logic [23:0] msn;
    logic        nak;         // a PSN sequence NAK was sent since the last good packet
    logic [3:0]  res_wp;      // atomic replay cache: the next entry written (a ring)
    logic [4:0]  res_n;       // ... entries valid (0..RES_N)
    logic [1:0]  kind;        // KIND_*
    logic        drop;        // UC: the rest of the current message is dropped (a packet of it was)
    // SEND in progress: the receive WQE at ci (its SGEs live in the SGE RAM)
    logic [63:0] wr_id;
    logic [4:0]  nsge;
    logic [34:0] total;       // sum of the SGE lengths
    logic [34:0] placed;      // bytes placed so far
    logic [3:0]  sidx;        // current SGE
    logic [31:0] soff;        // bytes placed into it
    // WRITE in progress
    logic [63:0] va;          // next byte's address
    logic [31:0] left;        // RETH length not yet written
    logic [31:0] rkey;
    logic [31:0] rlen;        // RETH length
    // translation of the current page run (SEND and WRITE)
    logic [63:0] xpa;
    logic [31:0] xleft;       // bytes left in the run (0: ask the MR table)
  } rsp_ctx_t;

  // One DMA piece. SEND/WRITE: a write that never crosses an SGE or page-run
  // end. READ: a read that never crosses a page-run end, a 4 KiB bus-address
  // boundary or a response packet's end.
  typedef struct packed {
    logic        zero;        // READ: the run's translation failed (the MR changed after the
                              // rkey check): zeros are sent, nothing is read
    logic        pkt_last;    // READ: the last piece of a response packet
    logic [63:0] pa;
    logic [12:0] len;         // 1..4096
  } rsp_piece_t;

  // The checker's verdict on one request packet, in packet order.
  typedef struct packed {
    logic [15:0]         qpn;
    logic [12:0]         pay_len;   // a payload of this many bytes follows (0: none)
    logic                exec;      // place it (npieces pieces) or drop it
    logic [5:0]          npieces;   // up to 32: 16 SGEs, each split once by a page end
    logic                cqe_v;     // with a completion (cq_compl_t beside the verdict: Yosys 0.23
                                    // takes no other package's type inside a package)
    logic                ack_v;     // send an ACK/NAK after the data
    logic [7:0]          syn;
    logic [23:0]         psn;
    logic [23:0]         msn;
    logic                read;      // an RDMA READ: responses psn.. (msn in their AETH); responder_tx
    logic [31:0]         rlen;      // walks its rlen bytes from rva (rkey, rpd, the QP qpn), starting
    logic [2:0]          pmtu;      // with the rkey check's first page run {rpa, rrun}
    logic [63:0]         rva;
    logic [31:0]         rkey;
    logic [15:0]         rpd;
    logic [63:0]         rpa;
    logic [31:0]         rrun;
    logic                atomic;    // the ACK is an ATOMIC ACKNOWLEDGE carrying orig; with exec,
    logic [63:0]         orig;      // the one 8-byte piece writes adata (no payload follows)
    logic [63:0]         adata;
  } rsp_verdict_t;

  // A READ's walk, from its verdict to responder_tx: the bytes at va (rkey,
  // PD) and the first page run the rkey check translated.
  typedef struct packed {
    logic [63:0] va;
    logic [31:0] rkey;
    logic [15:0] pd;
    logic [63:0] pa;
    logic [31:0] run;
  } rsp_walk_t;

  // The addressing of a QP's ACKs (from qp_cfg).
  typedef struct packed {
    logic [1:0]   l3;
    logic         vlan_valid;
    logic [11:0]  vlan_vid;
    logic [2:0]   vlan_pcp;   // sl & 7
    logic [47:0]  src_mac;
    logic [47:0]  dst_mac;
    logic [127:0] src_ip;
    logic [127:0] dst_ip;
    logic [7:0]   tclass;
    logic [7:0]   ttl;
    logic [19:0]  flow_label;
    logic [23:0]  dest_qpn;
  } rsp_addr_t;

endpackage
