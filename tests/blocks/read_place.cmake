# read_place: RTL vs model in a small reactive world (host memory behind the
# DMA model, MR table), both against what each scenario means (bytes where the
# SGEs and MR pages put them, nothing else touched, done statuses); Verilator
# lint; the Yosys front end; Yosys synthesis (context and payload FIFO must map
# to block RAM).
rocenic_test(test_read_place SOURCES blocks/test_read_place.cc blocks/read_place_env.cc
  LIBS vl_read_place rocenic_sim LABELS xcheck)
add_test(NAME rtl_lint_read_place COMMAND verilator --lint-only -Wall --top-module read_place ${RTL_READ_PLACE_SOURCES})
set_tests_properties(rtl_lint_read_place PROPERTIES LABELS lint)
add_test(NAME yosys_elab_read_place COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --elab read_place
  ${CMAKE_BINARY_DIR}/synth ${RTL_READ_PLACE_SOURCES})
set_tests_properties(yosys_elab_read_place PROPERTIES LABELS "lint;elab" TIMEOUT 60)
add_test(NAME synth_read_place COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh
  --memories "ctx_mem u_pay.mem u_valid.mem" read_place ${CMAKE_BINARY_DIR}/synth ${RTL_READ_PLACE_SOURCES})
set_tests_properties(synth_read_place PROPERTIES LABELS "synth;slow" TIMEOUT 300)
