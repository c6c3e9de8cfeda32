#include "engine/frame_arb2.h"

namespace rocenic::model {

FrameArb2::FrameArb2(unsigned data_bytes) {
  in_info_ = {{"s_axis_0", true, true, data_bytes}, {"s_axis_1", true, true, data_bytes}};
  out_info_ = {{"m_axis", true, true, data_bytes}};
}

}  // namespace rocenic::model
