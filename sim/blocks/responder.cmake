rocenic_verilate(vl_responder responder 512 PREFIX Vresponder SOURCES ${RTL_RESPONDER_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_responder)
