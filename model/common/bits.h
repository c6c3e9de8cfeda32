// Value helpers of the generated descriptors (gen/roce_spec.h): the 128-bit
// address type and the printers their describe() uses. Packing into
// Verilator-style word arrays is generated field by field, word-wise.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rocenic {

// A 128-bit address in network byte order (byte 0 most significant), as in a
// GID. An IPv4 address is held IPv4-mapped: ::ffff:a.b.c.d.
using Ip128 = std::array<uint8_t, 16>;

inline Ip128 ipv4_mapped(uint32_t v4) {
  Ip128 ip{};
  ip[10] = ip[11] = 0xFF;
  for (int i = 0; i < 4; ++i) ip[12 + i] = static_cast<uint8_t>(v4 >> (24 - 8 * i));
  return ip;
}

inline std::string hex_string(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

inline std::string ip_to_string(const Ip128& ip) {
  std::string s;
  char b[8];
  for (unsigned i = 0; i < 16; i += 2) {
    std::snprintf(b, sizeof b, "%s%02x%02x", i ? ":" : "", ip[i], ip[i + 1]);
    s += b;
  }
  return s;
}

}  // namespace rocenic
