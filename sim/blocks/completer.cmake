rocenic_verilate(vl_completer completer none PREFIX Vcompleter SOURCES ${RTL_COMPLETER_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_completer)
