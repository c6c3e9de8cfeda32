#include "engine_factory.h"

#include "rtl/roce_engine_rtl.h"

namespace rocenic {

std::unique_ptr<Block> make_engine_rtl() { return std::make_unique<RoceEngineRtl<>>(); }

}  // namespace rocenic
