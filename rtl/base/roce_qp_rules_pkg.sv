// roce_qp_rules_pkg: the RC QP state-transition table of the command processor
// (docs/engine.md "Command mailbox"; IBTA 10.3, Linux ib_modify_qp_is_ok).
//
//   from -> to        required attr_mask bits                   optional bits          action
//   RESET -> INIT     PKEY_INDEX PORT ACCESS_FLAGS              -                      TO_INIT
//   INIT  -> INIT     -                                         PKEY_INDEX PORT ACCESS ATTR
//   INIT  -> RTR      AV PATH_MTU DEST_QPN RQ_PSN               PKEY_INDEX ACCESS      TO_RTR
//                     MAX_DEST_RD_ATOMIC MIN_RNR_TIMER
//   RTR   -> RTS      SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY        ACCESS MIN_RNR_TIMER   TO_RTS
//                     MAX_QP_RD_ATOMIC
//   RTS   -> RTS      -                                         ACCESS MIN_RNR_TIMER   ATTR
//   any   -> RESET    -                                         -                      RESET
//   any   -> ERR      -                                         -                      TO_ERR
//
// STATE is always required; any other pair, a missing required bit or a bit
// outside required | optional | STATE is refused (BAD_STATE).
`default_nettype none

package roce_qp_rules_pkg;
  // attr_mask bits: roce_pkg::QP_ATTR_* (spec/constants.toml qp_attr, the
  // ibv_qp_attr_mask values), widened to the mailbox's 32-bit mask.
  localparam logic [31:0] ATTR_STATE              = 32'(roce_pkg::QP_ATTR_STATE);
  localparam logic [31:0] ATTR_ACCESS_FLAGS       = 32'(roce_pkg::QP_ATTR_ACCESS_FLAGS);
  localparam logic [31:0] ATTR_PKEY_INDEX         = 32'(roce_pkg::QP_ATTR_PKEY_INDEX);
  localparam logic [31:0] ATTR_PORT               = 32'(roce_pkg::QP_ATTR_PORT);
  localparam logic [31:0] ATTR_AV                 = 32'(roce_pkg::QP_ATTR_AV);
  localparam logic [31:0] ATTR_PATH_MTU           = 32'(roce_pkg::QP_ATTR_PATH_MTU);
  localparam logic [31:0] ATTR_TIMEOUT            = 32'(roce_pkg::QP_ATTR_TIMEOUT);
  localparam logic [31:0] ATTR_RETRY_CNT          = 32'(roce_pkg::QP_ATTR_RETRY_CNT);
  localparam logic [31:0] ATTR_RNR_RETRY          = 32'(roce_pkg::QP_ATTR_RNR_RETRY);
  localparam logic [31:0] ATTR_RQ_PSN             = 32'(roce_pkg::QP_ATTR_RQ_PSN);
  localparam logic [31:0] ATTR_MAX_QP_RD_ATOMIC   = 32'(roce_pkg::QP_ATTR_MAX_QP_RD_ATOMIC);
  localparam logic [31:0] ATTR_MIN_RNR_TIMER      = 32'(roce_pkg::QP_ATTR_MIN_RNR_TIMER);
  localparam logic [31:0] ATTR_SQ_PSN             = 32'(roce_pkg::QP_ATTR_SQ_PSN);
  localparam logic [31:0] ATTR_MAX_DEST_RD_ATOMIC = 32'(roce_pkg::QP_ATTR_MAX_DEST_RD_ATOMIC);
  localparam logic [31:0] ATTR_DEST_QPN           = 32'(roce_pkg::QP_ATTR_DEST_QPN);

  // The rule for from -> to, packed as {allowed, action[2:0], required[31:0], optional[31:0]}.
  function automatic logic [67:0] qp_rule(input logic [2:0] from, input logic [7:0] to);
    logic        ok;
    logic [2:0]  act;
    logic [31:0] req, opt;
    ok = 1'b0;
    act = roce_pkg::QP_ACTION_ATTR;
    req = '0;
    opt = '0;
    if (to == 8'(roce_pkg::QP_STATE_RESET)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_RESET;
    end else if (to == 8'(roce_pkg::QP_STATE_ERR)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_TO_ERR;
    end else if (from == roce_pkg::QP_STATE_RESET && to == 8'(roce_pkg::QP_STATE_INIT)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_TO_INIT;
      req = ATTR_PKEY_INDEX | ATTR_PORT | ATTR_ACCESS_FLAGS;
    end else if (from == roce_pkg::QP_STATE_INIT && to == 8'(roce_pkg::QP_STATE_INIT)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_ATTR;
      opt = ATTR_PKEY_INDEX | ATTR_PORT | ATTR_ACCESS_FLAGS;
    end else if (from == roce_pkg::QP_STATE_INIT && to == 8'(roce_pkg::QP_STATE_RTR)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_TO_RTR;
      req = ATTR_AV | ATTR_PATH_MTU | ATTR_DEST_QPN | ATTR_RQ_PSN | ATTR_MAX_DEST_RD_ATOMIC | ATTR_MIN_RNR_TIMER;
      opt = ATTR_PKEY_INDEX | ATTR_ACCESS_FLAGS;
    end else if (from == roce_pkg::QP_STATE_RTR && to == 8'(roce_pkg::QP_STATE_RTS)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_TO_RTS;
      req = ATTR_SQ_PSN | ATTR_TIMEOUT | ATTR_RETRY_CNT | ATTR_RNR_RETRY | ATTR_MAX_QP_RD_ATOMIC;
      opt = ATTR_ACCESS_FLAGS | ATTR_MIN_RNR_TIMER;
    end else if (from == roce_pkg::QP_STATE_RTS && to == 8'(roce_pkg::QP_STATE_RTS)) begin
      ok = 1'b1; act = roce_pkg::QP_ACTION_ATTR;
      opt = ATTR_ACCESS_FLAGS | ATTR_MIN_RNR_TIMER;
    end
    qp_rule = {ok, act, req, opt};
  endfunction

  // The command may move the QP: STATE in the mask, an allowed pair, every
  // required bit present and no bit outside required | optional | STATE.
  function automatic logic mask_ok(input logic allowed, input logic [31:0] req, input logic [31:0] opt,
                                   input logic [31:0] mask);
    mask_ok = allowed && mask[0] && ((mask & req) == req) && ((mask & ~(req | opt | ATTR_STATE)) == 32'b0);
  endfunction
endpackage

`default_nettype wire
