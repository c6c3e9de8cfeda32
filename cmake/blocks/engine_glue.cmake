# Engine glue primitives (rtl/common/): arbiters, splitters and dispatchers
# between the transport blocks. One list per top; mr_arb and dma_rd_arb
# instantiate desc_arb2 (a list joining several tops needs list(REMOVE_DUPLICATES)).
set(RTL_DESC_ARB2_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/desc_arb2.sv)
set(RTL_TX_ARB_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/tx_arb.sv)
set(RTL_FRAME_ARB2_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/frame_arb2.sv)
set(RTL_LOOPBACK_SPLIT_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/loopback_split.sv)
set(RTL_RX_DISPATCH_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/rx_dispatch.sv)
set(RTL_DMA_RD_ARB_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/desc_arb2.sv ${RTL_DIR}/common/dma_rd_arb.sv)
set(RTL_DMA_WR_ARB_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/dma_wr_arb.sv)
set(RTL_MR_ARB_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/desc_arb2.sv ${RTL_DIR}/common/mr_arb.sv)
set(RTL_UD_GRH_INSERT_SOURCES ${RTL_PKGS} ${RTL_DIR}/common/fifo_fwft.sv ${RTL_DIR}/common/stream_gather.sv
  ${RTL_DIR}/common/ud_grh_insert.sv)
set(RTL_ENGINE_GLUE_TOPS desc_arb2 tx_arb frame_arb2 loopback_split rx_dispatch ud_grh_insert dma_rd_arb dma_wr_arb
  mr_arb)
