# The whole engine under Verilator -Wall lint, as vl_engine is verilated: no
# waived warning (no UNOPTFLAT: forward valid/data and backward ready are
# computed in separate processes in every block, so no false loop appears).
add_test(NAME rtl_lint_engine COMMAND verilator --lint-only -Wall --top-module roce_engine ${RTL_ENGINE_SOURCES})
set_tests_properties(rtl_lint_engine PROPERTIES LABELS lint)
# The whole engine through Yosys's front end (read, hierarchy -check, proc):
# what Yosys 0.23 refuses fails here in under a minute, in the default suite,
# while the full synthesis runs of the big blocks carry the `slow` label.
add_test(NAME yosys_elab_engine COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --elab roce_engine
  ${CMAKE_BINARY_DIR}/synth ${RTL_ENGINE_SOURCES})
set_tests_properties(yosys_elab_engine PROPERTIES LABELS "lint;elab" TIMEOUT 600)
