# read_place, verilated alone for its cross-check. Not added to
# ROCENIC_BLOCK_VL_LIBS: nothing but test_read_place uses it until the block
# joins the engine.
rocenic_verilate(vl_read_place read_place 512 PREFIX Vread_place SOURCES ${RTL_READ_PLACE_SOURCES})
