// A GID table entry (CSR GID: the address, its type, its VLAN word) and what
// it says about the frames of a QP, or of a UD work request, that uses it.
// roce_cmd resolves an RC/UC QP's path with it, the requester a UD WQE's
// address vector (as rtl/base/sgid_pkg.sv).
#pragma once

#include <cstdint>

#include "common/bits.h"
#include "gen/roce_spec.h"

namespace rocenic::model {

struct GidEntry {
  Ip128 gid{};
  uint8_t type = 0;   // 0 unused, 1 RoCE v1, 2 RoCE v2 (3: no defined type)
  uint16_t vlan = 0;  // CSR GID word 5: bit 12 tagged, 11:0 the VLAN id

  bool usable() const { return type == 1 || type == 2; }
  bool tagged() const { return (vlan >> 12) & 1u; }
  uint16_t vid() const { return vlan & 0xFFFu; }
  // RoCE v1 -> ROCEV1; v2 with an IPv4-mapped GID (::ffff:a.b.c.d) -> IPV4, else IPV6
  spec::L3 l3() const {
    if (type == 1) return spec::L3::kRocev1;
    for (unsigned i = 0; i < 10; ++i)
      if (gid[i]) return spec::L3::kIpv6;
    return gid[10] == 0xFF && gid[11] == 0xFF ? spec::L3::kIpv4 : spec::L3::kIpv6;
  }
};

}  // namespace rocenic::model
