# responder: RC request packets -> payload placed by DMA, receive completions,
# ACK/NAKs (rtl/xport/), packages first.
set(RTL_RESPONDER_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/base/responder_pkg.sv
  ${RTL_DIR}/common/fifo_fwft.sv
  ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv
  ${RTL_DIR}/common/spec_fifo.sv
  ${RTL_DIR}/common/stream_slice.sv
  ${RTL_DIR}/common/stream_gather.sv
  ${RTL_DIR}/xport/responder_ctrl.sv
  ${RTL_DIR}/xport/responder_place.sv
  ${RTL_DIR}/xport/responder_tx.sv
  ${RTL_DIR}/xport/responder.sv)
