# requester: RTL vs model in a reactive world (DMA model, MR table, completer
# stand-in), checked against docs/engine.md; Verilator lint; Yosys synthesis
# (the payload buffer and the per-QP attributes must map to block RAM, the
# per-QP indexes to LUT RAM).
rocenic_test(test_requester SOURCES blocks/test_requester.cc blocks/requester_env.cc blocks/requester_expect.cc LIBS rocenic_rtl LABELS xcheck)
add_test(NAME rtl_lint_requester COMMAND verilator --lint-only -Wall --top-module requester ${RTL_REQUESTER_SOURCES})
set_tests_properties(rtl_lint_requester PROPERTIES LABELS lint)
add_test(NAME synth_requester COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh
  --memories "u_raw.mem cfg_mem pi_mem ci_mem psn_mem rwps_mem pdt_mem outst_mem state_mem u_flags.mem u_flags_x.mem u_start.mem pe_wqe_mem" requester
  ${CMAKE_BINARY_DIR}/synth ${RTL_REQUESTER_SOURCES})
set_tests_properties(synth_requester PROPERTIES LABELS "synth;slow" TIMEOUT 3600)
