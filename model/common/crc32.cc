#include "common/crc32.h"

#include <array>

namespace rocenic {
namespace {

// Slice-by-8 tables: kTables[0] is the classic byte-at-a-time table of the
// reflected polynomial; kTables[k][b] is the CRC contribution of byte b
// followed by k zero bytes, so eight bytes fold in with eight independent
// lookups. The model checks an ICRC and an FCS on every frame it moves, and
// the byte-at-a-time loop was three quarters of a long lossy run's time.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1u) ? 0xEDB88320u : 0u);
    t[0][i] = c;
  }
  for (size_t k = 1; k < t.size(); ++k)
    for (uint32_t i = 0; i < 256; ++i) t[k][i] = (t[k - 1][i] >> 8) ^ t[0][t[k - 1][i] & 0xFFu];
  return t;
}

const Tables kTables = make_tables();

inline uint32_t byte_step(uint32_t crc, uint8_t b) { return kTables[0][(crc ^ b) & 0xFFu] ^ (crc >> 8); }

}  // namespace

uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    // little-endian assembly from bytes, so the result does not depend on the host's order
    const uint32_t lo = crc ^ (uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24);
    const uint32_t hi = uint32_t(p[4]) | uint32_t(p[5]) << 8 | uint32_t(p[6]) << 16 | uint32_t(p[7]) << 24;
    crc = kTables[7][lo & 0xFFu] ^ kTables[6][(lo >> 8) & 0xFFu] ^ kTables[5][(lo >> 16) & 0xFFu] ^
          kTables[4][lo >> 24] ^ kTables[3][hi & 0xFFu] ^ kTables[2][(hi >> 8) & 0xFFu] ^
          kTables[1][(hi >> 16) & 0xFFu] ^ kTables[0][hi >> 24];
  }
  for (; n > 0; ++p, --n) crc = byte_step(crc, *p);
  return crc;
}

}  // namespace rocenic
