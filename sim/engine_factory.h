// The whole RTL engine as a Block (ports: sim/engine_harness.h). The model
// engine is event-driven: sim/model_world.h.
#pragma once

#include <memory>

#include "common/block.h"

namespace rocenic {

std::unique_ptr<Block> make_engine_rtl();

}  // namespace rocenic
