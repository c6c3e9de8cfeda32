// Bit-field helpers for packing descriptors into Verilator-style word arrays
// (word 0 = bits 31:0) and for printing them.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

namespace rocenic {

// A 128-bit address in network byte order (byte 0 most significant), as in a
// GID. An IPv4 address is held IPv4-mapped: ::ffff:a.b.c.d.
using Ip128 = std::array<uint8_t, 16>;

inline void put_bits(uint32_t* w, unsigned lsb, unsigned width, uint64_t v) {
  for (unsigned i = 0; i < width; ++i) {
    const unsigned b = lsb + i;
    const uint32_t bit = static_cast<uint32_t>((v >> i) & 1u);
    w[b / 32] = (w[b / 32] & ~(1u << (b % 32))) | (bit << (b % 32));
  }
}

inline uint64_t get_bits(const uint32_t* w, unsigned lsb, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i) {
    const unsigned b = lsb + i;
    v |= static_cast<uint64_t>((w[b / 32] >> (b % 32)) & 1u) << i;
  }
  return v;
}

inline void put_ip(uint32_t* w, unsigned lsb, const Ip128& ip) {
  for (unsigned i = 0; i < 16; ++i) put_bits(w, lsb + 8 * (15 - i), 8, ip[i]);
}

inline Ip128 get_ip(const uint32_t* w, unsigned lsb) {
  Ip128 ip{};
  for (unsigned i = 0; i < 16; ++i) ip[i] = static_cast<uint8_t>(get_bits(w, lsb + 8 * (15 - i), 8));
  return ip;
}

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
