rocenic_verilate(vl_responder responder 512 PREFIX Vresponder SOURCES ${RTL_RESPONDER_SOURCES})
# the payload slicer alone, at the engine's width and a narrow one
rocenic_verilate(vl_stream_slice stream_slice 512 PREFIX Vstream_slice SOURCES ${RTL_DIR}/common/stream_slice.sv)
rocenic_verilate(vl_stream_slice_w128 stream_slice 128 PREFIX Vstream_slice_w128
  SOURCES ${RTL_DIR}/common/stream_slice.sv)
list(APPEND ROCENIC_BLOCK_VL_LIBS vl_responder vl_stream_slice vl_stream_slice_w128)
