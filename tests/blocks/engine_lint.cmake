# The whole engine under Verilator -Wall lint, as vl_engine is verilated: no
# waived warning (no UNOPTFLAT: forward valid/data and backward ready are
# computed in separate processes in every block, so no false loop appears).
add_test(NAME rtl_lint_engine COMMAND verilator --lint-only -Wall --top-module roce_engine ${RTL_ENGINE_SOURCES})
set_tests_properties(rtl_lint_engine PROPERTIES LABELS lint)
