// The 40-byte GRH a UD datagram's receive buffer starts with (IBTA
// 11.4.1.1), rebuilt from the parsed header as rtl/common/ud_grh_insert.sv
// does: a RoCEv1 or RoCEv2/IPv6 datagram's IPv6 header (GRH); for RoCEv2/IPv4
// 20 zero bytes and its IPv4 header (no options, its flag bits), as Linux rxe
// and mlx5 place it.
#pragma once

#include <array>
#include <cstdint>

#include "gen/roce_spec.h"

namespace rocenic::model {

bool is_ud_request(uint8_t opcode);
std::array<uint8_t, spec::kGrhBytes> ud_grh(const spec::RoceRxHdr& h);

}  // namespace rocenic::model
