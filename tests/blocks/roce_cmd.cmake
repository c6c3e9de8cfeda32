# roce_cmd: cross-check with the model, Verilator lint, Yosys synthesis (the
# QP context, MR key/PD words and reference counts must map to block RAM).
rocenic_test(test_roce_cmd SOURCES blocks/test_roce_cmd.cc LIBS rocenic_rtl LABELS xcheck)
add_test(NAME rtl_lint_roce_cmd COMMAND verilator --lint-only -Wall --top-module roce_cmd ${RTL_ROCE_CMD_SOURCES})
set_tests_properties(rtl_lint_roce_cmd PROPERTIES LABELS lint)
add_test(NAME synth_roce_cmd COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh
  --memories "ref_mem mr_mem qp_mem" roce_cmd ${CMAKE_BINARY_DIR}/synth ${RTL_ROCE_CMD_SOURCES})
set_tests_properties(synth_roce_cmd PROPERTIES LABELS "synth;slow" TIMEOUT 3600)
