// The engine's glue primitives (rtl/common/), one model class each.
#pragma once

#include "engine/desc_arb2.h"
#include "engine/dma_rd_arb.h"
#include "engine/dma_wr_arb.h"
#include "engine/frame_arb2.h"
#include "engine/loopback_split.h"
#include "engine/mr_arb.h"
#include "engine/rx_dispatch.h"
#include "engine/tx_arb.h"
