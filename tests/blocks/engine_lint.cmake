# The whole engine under Verilator -Wall lint, as vl_engine is verilated: no
# waived warning (no UNOPTFLAT: forward valid/data and backward ready are
# computed in separate processes in every block, so no false loop appears).
add_test(NAME rtl_lint_engine COMMAND verilator --lint-only -Wall --top-module roce_engine ${RTL_ENGINE_SOURCES})
set_tests_properties(rtl_lint_engine PROPERTIES LABELS lint)
# The whole engine through Yosys's front end (read, hierarchy -check, proc):
# what Yosys 0.23 refuses fails here in under a minute, in the default suite,
# while the full synthesis runs of the big blocks carry the `slow` label.
# It runs at MAX_QP 16384, the size issue 11 asks the engine to reach (about
# 3.5 minutes and 1.5 GB since the per-QP flags are written through one-hot
# masks; 256, what synth_engine measures, takes 1.5 minutes): Verilator
# lints the engine at its default 2048 above, and at 16384 and 65536 below.
# It also checks that the per-QP tables (and the other arrays the blocks'
# synth_* runs require in RAM) are still memories after the front end, in
# every parameter variant of their module (fifo_fwft: all 22 of them): the
# cheap, default-suite form of those runs' --memories check.
set(ENGINE_MEMORIES
  req_qp_ctx:cfg_mem req_qp_ctx:pi_mem req_qp_ctx:ci_mem req_qp_ctx:psn_mem req_qp_ctx:outst_mem
  req_qp_ctx:state_mem req_qp_ctx:hw_mem req_qp_ctx:ring_mem req_qp_ctx:rwps_mem req_qp_ctx:pdt_mem requester:pe_wqe_mem
  responder_ctrl:ctx_mem responder_ctrl:sge_mem responder_ctrl:res_mem responder_ctrl:pt_mem responder_ctrl:bank
  responder_place:addr_mem completer:ctx_mem completer:win_mem completer:tmr_mem
  read_place_ctrl:ctx_mem read_place_ctrl:hint_mem roce_cmd:ref_mem roce_cmd:mr_mem roce_cmd:qp_mem
  mr_table:mr_mem mr_table:mtt_mem cq_writer:base_mem cq_writer:lsz_mem cq_writer:pi_mem cq_writer:ci_mem
  cq_writer:arm_mem frame_window_fifo:mem fifo_fwft:mem qp_flags:mem qp_pick:mem)
string(REPLACE ";" " " ENGINE_MEMORIES "${ENGINE_MEMORIES}")
add_test(NAME yosys_elab_engine COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --elab --param MAX_QP=16384
  --memories "${ENGINE_MEMORIES}" roce_engine ${CMAKE_BINARY_DIR}/synth ${RTL_ENGINE_SOURCES})
set_tests_properties(yosys_elab_engine PROPERTIES LABELS "lint;elab" TIMEOUT 900)
# Every named RTL assertion is compiled into the engine the tests run.
add_test(NAME rtl_assertions_compiled COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/blocks/rtl_assertions_compiled.sh
  ${RTL_DIR} ${CMAKE_BINARY_DIR}/sim/CMakeFiles/vl_engine.dir/Vroce_engine.dir)
set_tests_properties(rtl_assertions_compiled PROPERTIES LABELS lint)
# The whole engine through full synthesis (issue 11): one flattened top at
# DATA_W 512 and MAX_QP 256 (the measured size; the engine's default
# ENGINE_MAX_QP is larger), with the five latest register paths named by
# block (synth/roce_engine.paths.txt). About 36 minutes and 14 GB of memory
# on the 2-core machine (docs/performance.md), far more than the default suite
# may spend, so it carries `slow` (scripts/test.sh --slow runs it with the other
# synth tests) and its own label `synth_top` (scripts/test.sh -L synth_top; not a
# name with "engine" in it: -L is a regex, and -L engine must not start a 36-minute run).
add_test(NAME synth_engine COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh
  --param DATA_W=512 --param MAX_QP=256 --top-paths 5 roce_engine ${CMAKE_BINARY_DIR}/synth ${RTL_ENGINE_SOURCES})
set_tests_properties(synth_engine PROPERTIES LABELS "synth;slow;synth_top" TIMEOUT 10800)
# ... and at the engine's 16K QPs (issue 11's figure): --hier (each module
# mapped once, the netlist flattened for stat and sta), --uram (the per-QP
# tables in UltraRAM). Its own directory keeps the summaries apart. 1 h 16 min
# and 19.3 GB of memory on the 2-core, 24 GB machine (docs/performance.md),
# so `slow` too.
add_test(NAME synth_engine_16k COMMAND ${CMAKE_SOURCE_DIR}/fpga/synth/yosys_synth.sh --hier --uram
  --param DATA_W=512 --param MAX_QP=16384 --top-paths 5 roce_engine ${CMAKE_BINARY_DIR}/synth_16k ${RTL_ENGINE_SOURCES})
set_tests_properties(synth_engine_16k PROPERTIES LABELS "synth;slow;synth_top" TIMEOUT 18000)
# Past the engine's 2048 QPs (issue 11): the allocator and the round-robin
# pick against plain loops (the finder at 64, 4096 and 65536 entries, the pick at 16384), and the whole engine under
# Verilator -Wall lint at 16384 and 65536 QPs (the parameter range).
rocenic_test(test_qp_scale SOURCES blocks/test_qp_scale.cc LIBS vl_ffz_4096 vl_ffz_65536 vl_ffz_64 vl_rr_first_16k
  vl_qp_flags_16k vl_qp_flags_2k vl_qp_flags_2 vl_qp_pick_16k vl_qp_pick_16k_k4 vl_qp_pick_32_k4 LABELS unit)
foreach(q 16384 65536)
  add_test(NAME rtl_lint_engine_qp${q} COMMAND verilator --lint-only -Wall --top-module roce_engine -GMAX_QP=${q}
    ${RTL_ENGINE_SOURCES})
  set_tests_properties(rtl_lint_engine_qp${q} PROPERTIES LABELS lint)
endforeach()
