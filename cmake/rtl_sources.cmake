# RTL source lists, packages first. One list per top; shared by Verilator
# builds, the lint test and the synthesis test.
set(RTL_PKGS
  ${RTL_DIR}/base/roce_pkg.sv
  ${RTL_DIR}/base/byte_order_pkg.sv
  ${RTL_DIR}/base/ip_hdr_pkg.sv
  ${RTL_DIR}/base/sgid_pkg.sv)

set(RTL_DEPARSER_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/common/crc32_bytes.sv
  ${RTL_DIR}/net/roce_hdr_build.sv
  ${RTL_DIR}/net/roce_tx_merge.sv
  ${RTL_DIR}/net/roce_icrc_insert.sv
  ${RTL_DIR}/net/roce_deparser.sv)

# Verilate TOP (a module name) from SOURCES into library TARGET, with DATA_W
# (or "none" for a block without a data path). Every build compiles the RTL's
# assertions in (--assert): a broken invariant stops the test that broke it.
#
# Optimisation: Verilator splits its C++ into "fast" code (evaluated every
# cycle) and "slow" code (constructors, initial blocks, tracing set-up). The
# fast code is where simulation time goes; the slow code runs once. Both
# default to -O1, which keeps the block builds quick on the 2-core machines;
# the engine that the driver and the benches clock for millions of cycles
# passes a higher OPT_FAST.
function(rocenic_verilate TARGET TOP DATA_W)
  cmake_parse_arguments(ARG "" "PREFIX;OPT_FAST;OPT_SLOW" "SOURCES;ARGS" ${ARGN})
  if(NOT ARG_OPT_FAST)
    set(ARG_OPT_FAST -O1)
  endif()
  if(NOT ARG_OPT_SLOW)
    set(ARG_OPT_SLOW -O1)
  endif()
  set(PARAM_ARGS)
  if(NOT DATA_W STREQUAL "none")
    set(PARAM_ARGS -GDATA_W=${DATA_W})
  endif()
  add_library(${TARGET} STATIC)
  verilate(${TARGET}
    SOURCES ${ARG_SOURCES}
    TOP_MODULE ${TOP}
    PREFIX ${ARG_PREFIX}
    TRACE_FST
    VERILATOR_ARGS -Wall --assert ${PARAM_ARGS} --x-assign unique --x-initial unique ${ARG_ARGS}
    OPT_FAST ${ARG_OPT_FAST}
    OPT_SLOW ${ARG_OPT_SLOW})
  target_compile_options(${TARGET} PRIVATE -w)
  # Verilator's runtime and generated headers are third-party code to our
  # -Werror builds: consumers see them as system headers.
  target_include_directories(${TARGET} SYSTEM PUBLIC
    ${verilator_DIR}/include ${verilator_DIR}/include/vltstd
    ${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${TARGET}.dir/${ARG_PREFIX}.dir)
endfunction()

set(RTL_PARSER_SOURCES ${RTL_PKGS}
  ${RTL_DIR}/common/crc32_bytes.sv
  ${RTL_DIR}/common/fifo_fwft.sv
  ${RTL_DIR}/common/frame_window_fifo.sv
  ${RTL_DIR}/net/roce_rx_icrc.sv
  ${RTL_DIR}/net/roce_rx_extract.sv
  ${RTL_DIR}/net/roce_rx_check.sv
  ${RTL_DIR}/net/roce_rx_realign.sv
  ${RTL_DIR}/net/roce_parser.sv)

set(RTL_CSR_SOURCES ${RTL_PKGS} ${RTL_DIR}/csr/roce_csr.sv)

set(RTL_MR_SOURCES ${RTL_PKGS} ${RTL_DIR}/mem/mr_table.sv)

set(RTL_CQ_SOURCES ${RTL_PKGS} ${RTL_DIR}/cq/cq_writer.sv)

# Engine blocks: each block's source list lives in its own fragment
# (cmake/blocks/<block>.cmake sets RTL_<BLOCK>_SOURCES), so blocks land
# without editing a shared list.
file(GLOB ROCENIC_BLOCK_SOURCE_LISTS CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/blocks/*.cmake)
foreach(f ${ROCENIC_BLOCK_SOURCE_LISTS})
  include(${f})
endforeach()

# The whole engine: every block's list (packages first in each), then the top.
set(RTL_ENGINE_SOURCES
  ${RTL_CSR_SOURCES} ${RTL_ROCE_CMD_SOURCES} ${RTL_MR_SOURCES} ${RTL_CQ_SOURCES}
  ${RTL_PARSER_SOURCES} ${RTL_DEPARSER_SOURCES}
  ${RTL_DESC_ARB2_SOURCES} ${RTL_TX_ARB_SOURCES} ${RTL_FRAME_ARB2_SOURCES} ${RTL_LOOPBACK_SPLIT_SOURCES}
  ${RTL_RX_DISPATCH_SOURCES} ${RTL_UD_GRH_INSERT_SOURCES} ${RTL_DMA_RD_ARB_SOURCES} ${RTL_DMA_WR_ARB_SOURCES} ${RTL_MR_ARB_SOURCES}
  ${RTL_REQUESTER_SOURCES} ${RTL_RESPONDER_SOURCES} ${RTL_COMPLETER_SOURCES} ${RTL_READ_PLACE_SOURCES}
  ${RTL_DIR}/common/fifo_fwft.sv ${RTL_DIR}/ctrl/qp_err_tap.sv
  ${RTL_DIR}/top/roce_engine.sv)
list(REMOVE_DUPLICATES RTL_ENGINE_SOURCES)
