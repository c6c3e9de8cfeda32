// The whole engine as a Block (ports: sim/engine_harness.h), in either language.
#pragma once

#include <memory>

#include "common/block.h"

namespace rocenic {

std::unique_ptr<Block> make_engine_model();
std::unique_ptr<Block> make_engine_rtl();

}  // namespace rocenic
