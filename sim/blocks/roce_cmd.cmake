# roce_cmd: Verilated with its default parameters (no data path), and with
# 4096 QPs: past 2048 its lowest-free finders take their third step (LAT 3)
# and it waits SETTLE = 4 cycles after a bitmap change
# (RoceCmdXcheck.QpNumbersPastTwoThousandQps).
rocenic_verilate(vl_roce_cmd roce_cmd none PREFIX Vroce_cmd SOURCES ${RTL_ROCE_CMD_SOURCES})
rocenic_verilate(vl_roce_cmd_4k roce_cmd none PREFIX Vroce_cmd_4k ARGS -GMAX_QP=4096 SOURCES ${RTL_ROCE_CMD_SOURCES})
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_roce_cmd vl_roce_cmd_4k)
