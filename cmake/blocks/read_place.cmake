# read_place: RDMA READ response payload -> the READ WQE's local SGEs by DMA
# (rtl/xport/), packages first.
set(RTL_READ_PLACE_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/common/fifo_fwft.sv
  ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv
  ${RTL_DIR}/common/stream_slice.sv
  ${RTL_DIR}/xport/read_place_ctrl.sv
  ${RTL_DIR}/xport/read_place.sv)
