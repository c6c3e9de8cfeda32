// Editing RoCE frames in tests: after a header byte of a frame built by
// roce_frame() (model/net/roce_frame.h) was changed on purpose, its ICRC is
// made right again, so that only the edit is wrong.
#pragma once

#include <cstdint>
#include <vector>

#include "gen/roce_spec.h"
#include "net/icrc.h"

namespace rocenic::test {

// Offsets of an untagged RoCEv2/IPv4 frame: the IPv4 header, the BTH opcode,
// the first payload byte after a 12-byte BTH.
constexpr size_t kIpv4At = 14, kBthOpcodeAt = 14 + 20 + 8, kPayloadAt = kBthOpcodeAt + 12;

// Rewrites the ICRC of an untagged RoCEv2/IPv4 frame from its IPv4 total length.
inline void refresh_icrc_ipv4(std::vector<uint8_t>& f) {
  const size_t len = (size_t{f[kIpv4At + 2]} << 8) | f[kIpv4At + 3];
  const uint32_t c = roce_icrc(f.data() + kIpv4At, len, spec::L3::kIpv4);
  for (int i = 0; i < 4; ++i) f[kIpv4At + len - 4 + i] = static_cast<uint8_t>(c >> (8 * i));
}

}  // namespace rocenic::test
