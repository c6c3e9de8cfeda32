// Moving bytes between Flits and Verilator port types (CData..QData or
// VlWide<N>), so that RTL adapters work for any DATA_W.
#pragma once

#include <verilated.h>

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

}  // namespace rocenic::vl
