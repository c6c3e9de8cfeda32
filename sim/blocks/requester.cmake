# requester: Verilated at DATA_W = 512 with its default MAX_QP and buffer sizes.
rocenic_verilate(vl_requester requester 512 PREFIX Vrequester SOURCES ${RTL_REQUESTER_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_requester)
