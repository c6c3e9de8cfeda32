// Moving bytes between Flits and Verilator port types (CData..QData or
// VlWide<N>), so that RTL adapters work for any DATA_W.
#pragma once

#include <verilated.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace rocenic::vl {

template <typename T>
void put_bytes(T& port, const std::vector<uint8_t>& bytes) {
  if constexpr (std::is_integral_v<T>) {
    T v = 0;
    for (size_t i = 0; i < bytes.size() && i < sizeof(T); ++i) v |= static_cast<T>(T{bytes[i]} << (8 * i));
    port = v;
  } else {
    constexpr size_t kWords = sizeof(port.m_storage) / sizeof(port.m_storage[0]);
    for (size_t w = 0; w < kWords; ++w) port[w] = 0;
    for (size_t i = 0; i < bytes.size() && i / 4 < kWords; ++i) port[i / 4] |= uint32_t{bytes[i]} << (8 * (i % 4));
  }
}

template <typename T>
std::vector<uint8_t> get_bytes(const T& port, size_t n) {
  std::vector<uint8_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      out[i] = static_cast<uint8_t>(static_cast<uint64_t>(port) >> (8 * i));
    } else {
      out[i] = static_cast<uint8_t>(port[i / 4] >> (8 * (i % 4)));
    }
  }
  return out;
}

// The GID table entries the Verilated blocks have (their GID_TBL_LEN default).
constexpr unsigned kGidTblLen = 16;

// The engine's GID table port (roce_cmd, requester): entry i at
// [143*i +: 143] = {tagged, vid[11:0], type[1:0], gid[127:0]}, GID byte 0 in
// bits 127:120; vlan as CSR GID word 5 (bit 12 tagged, 11:0 VID).
template <typename T>
void put_gid_entry(T& table, unsigned i, const std::array<uint8_t, 16>& gid, uint8_t type, uint16_t vlan) {
  const auto put = [&](unsigned lsb, unsigned width, uint32_t v) {
    for (unsigned b = 0; b < width; ++b) {
      const unsigned at = lsb + b;
      table[at / 32] = (table[at / 32] & ~(1u << (at % 32))) | (((v >> b) & 1u) << (at % 32));
    }
  };
  for (unsigned k = 0; k < 16; ++k) put(143 * i + 8 * (15 - k), 8, gid[k]);
  put(143 * i + 128, 2, type & 3u);
  put(143 * i + 130, 13, vlan & 0x1FFFu);
}

}  // namespace rocenic::vl
