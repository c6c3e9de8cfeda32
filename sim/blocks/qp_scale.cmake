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
# qp_flags, the per-QP flags in LUT-RAM: 16K QPs of 8 flags (2,048 words,
# the requester's size), 2,048 of 4 (the responder's at the engine's
# default) and the smallest (2 QPs of 1 flag, one word).
rocenic_verilate(vl_qp_flags_16k qp_flags none PREFIX Vqp_flags_16k ARGS -GN=16384 -GD=8 -GR=2
  SOURCES ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv)
rocenic_verilate(vl_qp_flags_2k qp_flags none PREFIX Vqp_flags_2k ARGS -GN=2048 -GD=4 -GR=2
  SOURCES ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv)
rocenic_verilate(vl_qp_flags_2 qp_flags none PREFIX Vqp_flags_2 ARGS -GN=2 -GD=1 -GR=2
  SOURCES ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_flags.sv)
# qp_pick, the round-robin pick over a bit per QP in LUT-RAM: 16K QPs with
# one write port and with four (the XOR-banked form), and 32 QPs (one word).
rocenic_verilate(vl_qp_pick_16k qp_pick none PREFIX Vqp_pick_16k ARGS -GN=16384 -GK=1
  SOURCES ${RTL_DIR}/common/rr_first.sv ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_pick.sv)
rocenic_verilate(vl_qp_pick_16k_k4 qp_pick none PREFIX Vqp_pick_16k_k4 ARGS -GN=16384 -GK=4
  SOURCES ${RTL_DIR}/common/rr_first.sv ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_pick.sv)
rocenic_verilate(vl_qp_pick_32_k4 qp_pick none PREFIX Vqp_pick_32_k4 ARGS -GN=32 -GK=4
  SOURCES ${RTL_DIR}/common/rr_first.sv ${RTL_DIR}/common/ram_sweep.sv ${RTL_DIR}/common/qp_pick.sv)
