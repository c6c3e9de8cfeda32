# requester: RC, UC and UD send queues -> request packets (rtl/xport/), packages first.
set(RTL_REQUESTER_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/common/fifo_fwft.sv
  ${RTL_DIR}/common/stream_gather.sv
  ${RTL_DIR}/ctrl/sgid_lookup.sv
  ${RTL_DIR}/common/rr_first.sv
  ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv
  ${RTL_DIR}/common/qp_pick.sv
  ${RTL_DIR}/xport/req_qp_ctx.sv
  ${RTL_DIR}/xport/req_issue.sv
  ${RTL_DIR}/xport/requester.sv)
