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
set_tests_properties(yosys_elab_engine PROPERTIES LABELS "lint;elab" TIMEOUT 180)
# Every named RTL assertion is compiled into the engine the tests run.
add_test(NAME rtl_assertions_compiled COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/blocks/rtl_assertions_compiled.sh
  ${RTL_DIR} ${CMAKE_BINARY_DIR}/sim/CMakeFiles/vl_engine.dir/Vroce_engine.dir)
set_tests_properties(rtl_assertions_compiled PROPERTIES LABELS lint)
