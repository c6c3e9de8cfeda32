rocenic_test(test_engine_glue SOURCES blocks/test_engine_glue.cc LIBS rocenic_rtl LABELS xcheck)
foreach(top ${RTL_ENGINE_GLUE_TOPS})
  string(TOUPPER ${top} TOP_UC)
  add_test(NAME rtl_lint_${top} COMMAND verilator --lint-only -Wall --top-module ${top} ${RTL_${TOP_UC}_SOURCES})
  set_tests_properties(rtl_lint_${top} PROPERTIES LABELS lint)
  add_test(NAME synth_${top} COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh ${top}
    ${CMAKE_BINARY_DIR}/synth ${RTL_${TOP_UC}_SOURCES})
  set_tests_properties(synth_${top} PROPERTIES LABELS synth TIMEOUT 300)
endforeach()
