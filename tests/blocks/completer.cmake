rocenic_test(test_completer SOURCES blocks/test_completer.cc LIBS rocenic_rtl LABELS xcheck)
add_test(NAME rtl_lint_completer COMMAND verilator --lint-only -Wall --top-module completer ${RTL_COMPLETER_SOURCES})
set_tests_properties(rtl_lint_completer PROPERTIES LABELS lint)
add_test(NAME synth_completer COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --memories "ctx_mem win_mem u_full.mem"
  completer ${CMAKE_BINARY_DIR}/synth ${RTL_COMPLETER_SOURCES})
set_tests_properties(synth_completer PROPERTIES LABELS synth TIMEOUT 300)
