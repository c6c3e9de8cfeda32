# roce_cmd: the command processor (rtl/ctrl/), packages first.
set(RTL_ROCE_CMD_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/base/roce_qp_rules_pkg.sv
  ${RTL_DIR}/ctrl/roce_cmd_ffz.sv
  ${RTL_DIR}/ctrl/alloc_bitmap.sv
  ${RTL_DIR}/ctrl/sgid_lookup.sv
  ${RTL_DIR}/ctrl/roce_cmd.sv)
