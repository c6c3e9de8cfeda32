# The allocators and round-robin finder at sizes past the engine's 2048 QPs
# (tests/blocks/test_qp_scale.cc): the lowest-free finder with its third step
# (LAT 3) over 4096 and 65536 entries and over one group of 64, and rr_first
# over 16384.
rocenic_verilate(vl_ffz_4096 roce_cmd_ffz none PREFIX Vffz_4096 ARGS -GN=4096 -GLAT=3
  SOURCES ${RTL_DIR}/ctrl/roce_cmd_ffz.sv)
rocenic_verilate(vl_ffz_64 roce_cmd_ffz none PREFIX Vffz_64 ARGS -GN=64 -GLAT=3
  SOURCES ${RTL_DIR}/ctrl/roce_cmd_ffz.sv)
rocenic_verilate(vl_rr_first_16k rr_first none PREFIX Vrr_first_16k ARGS -GN=16384
  SOURCES ${RTL_DIR}/common/rr_first.sv)
rocenic_verilate(vl_ffz_65536 roce_cmd_ffz none PREFIX Vffz_65536 ARGS -GN=65536 -GLAT=3
  SOURCES ${RTL_DIR}/ctrl/roce_cmd_ffz.sv)
