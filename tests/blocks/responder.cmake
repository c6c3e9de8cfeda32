# responder: RTL vs model in a reactive world (host memory behind the DMA model,
# MR table), both against the scenario's intents and the wire's facts;
# Verilator lint; Yosys synthesis (contexts, SGEs, ACK addressing and the payload
# FIFO must map to block RAM).
rocenic_test(test_responder SOURCES blocks/test_responder.cc blocks/responder_env.cc blocks/responder_peer.cc blocks/responder_facts.cc
  LIBS rocenic_rtl LABELS xcheck)
add_test(NAME rtl_lint_responder COMMAND verilator --lint-only -Wall --top-module responder ${RTL_RESPONDER_SOURCES})
set_tests_properties(rtl_lint_responder PROPERTIES LABELS lint)
# (at the engine's RSP_RQ_HEADS and RSP_RQ_AHEAD, read from spec/: the receive
# WQE prefetch table's tag banks and head banks must map to RAM, as they do in
# roce_engine)
file(STRINGS ${CMAKE_SOURCE_DIR}/spec/constants.toml rsp_rq_heads_line REGEX "^RSP_RQ_HEADS *=")
string(REGEX REPLACE "^RSP_RQ_HEADS *= *([0-9]+).*" "\\1" RSP_RQ_HEADS "${rsp_rq_heads_line}")
file(STRINGS ${CMAKE_SOURCE_DIR}/spec/constants.toml rsp_rq_ahead_line REGEX "^RSP_RQ_AHEAD *=")
string(REGEX REPLACE "^RSP_RQ_AHEAD *= *([0-9]+).*" "\\1" RSP_RQ_AHEAD "${rsp_rq_ahead_line}")
add_test(NAME synth_responder COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --param RQ_HEADS=${RSP_RQ_HEADS}
  --param RQ_AHEAD=${RSP_RQ_AHEAD}
  --memories "ctx_mem sge_mem res_mem addr_mem u_pay.mem pt_mem bank" responder ${CMAKE_BINARY_DIR}/synth ${RTL_RESPONDER_SOURCES})
set_tests_properties(synth_responder PROPERTIES LABELS "synth;slow" TIMEOUT 3600)
# the payload slicer alone (RTL at 512 and 128 bits vs its model)
rocenic_test(test_stream_slice SOURCES blocks/test_stream_slice.cc LIBS rocenic_rtl LABELS xcheck)
add_test(NAME rtl_lint_stream_slice COMMAND verilator --lint-only -Wall --top-module stream_slice
  ${RTL_DIR}/common/stream_slice.sv)
set_tests_properties(rtl_lint_stream_slice PROPERTIES LABELS lint)
