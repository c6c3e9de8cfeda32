# roce_cmd: Verilated with its default parameters (no data path).
rocenic_verilate(vl_roce_cmd roce_cmd none PREFIX Vroce_cmd SOURCES ${RTL_ROCE_CMD_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_roce_cmd)
