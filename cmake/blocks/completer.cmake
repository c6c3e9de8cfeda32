# completer (rtl/xport/completer.sv): ACK/NAK handling, per-QP window of sent WQEs.
set(RTL_COMPLETER_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv ${RTL_DIR}/xport/completer.sv)
