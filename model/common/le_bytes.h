// Little-endian byte vectors for descriptor-style flits. (Filled by index:
// GCC 12 -O3 warns falsely about `vector = {...}` with -Wnonnull.)
#pragma once

#include <cstdint>
#include <vector>

namespace rocenic {

// The low `n` bytes of v, least significant first, then `extra` appended.
inline std::vector<uint8_t> le_bytes(uint32_t v, unsigned n, int extra = -1) {
  std::vector<uint8_t> out(n + (extra >= 0 ? 1 : 0));
  for (unsigned i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(v >> (8 * i));
  if (extra >= 0) out[n] = static_cast<uint8_t>(extra);
  return out;
}

}  // namespace rocenic
