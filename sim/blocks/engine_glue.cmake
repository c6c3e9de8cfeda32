# Engine glue primitives, verilated at DATA_W = 512 (desc_arb2 at its default WIDTH = 64).
rocenic_verilate(vl_desc_arb2 desc_arb2 none PREFIX Vdesc_arb2 SOURCES ${RTL_DESC_ARB2_SOURCES})
rocenic_verilate(vl_tx_arb tx_arb 512 PREFIX Vtx_arb SOURCES ${RTL_TX_ARB_SOURCES})
rocenic_verilate(vl_frame_arb2 frame_arb2 512 PREFIX Vframe_arb2 SOURCES ${RTL_FRAME_ARB2_SOURCES})
rocenic_verilate(vl_loopback_split loopback_split 512 PREFIX Vloopback_split SOURCES ${RTL_LOOPBACK_SPLIT_SOURCES})
rocenic_verilate(vl_rx_dispatch rx_dispatch 512 PREFIX Vrx_dispatch SOURCES ${RTL_RX_DISPATCH_SOURCES})
rocenic_verilate(vl_dma_rd_arb dma_rd_arb 512 PREFIX Vdma_rd_arb SOURCES ${RTL_DMA_RD_ARB_SOURCES})
rocenic_verilate(vl_dma_wr_arb dma_wr_arb 512 PREFIX Vdma_wr_arb SOURCES ${RTL_DMA_WR_ARB_SOURCES})
rocenic_verilate(vl_mr_arb mr_arb none PREFIX Vmr_arb SOURCES ${RTL_MR_ARB_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_desc_arb2 vl_tx_arb vl_frame_arb2 vl_loopback_split vl_rx_dispatch
  vl_dma_rd_arb vl_dma_wr_arb vl_mr_arb)
