// CRC-32 (IEEE 802.3, reflected) and the RoCE invariant CRC (ICRC).
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocenic {

// Advance a raw CRC-32 state (no init/final inversion) over n bytes.
uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n);

// Standard CRC-32 of a buffer (init ~0, final ~), as zlib.crc32.
inline uint32_t crc32(const uint8_t* p, size_t n) { return ~crc32_update(0xFFFFFFFFu, p, n); }

}  // namespace rocenic
