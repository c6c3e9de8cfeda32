// Descriptors <-> flits: a descriptor port carries its packed struct as the
// little-endian bytes of the Verilator word array.
#pragma once

#include <vector>

#include "common/block.h"

namespace rocenic {

template <typename Desc>
Flit desc_to_flit(const Desc& d) {
  uint32_t w[Desc::kWords];
  d.pack(w);
  Flit f;
  f.data.resize((Desc::kBits + 7) / 8);
  for (size_t i = 0; i < f.data.size(); ++i) f.data[i] = static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
  return f;
}

template <typename Desc>
Desc desc_from_flit(const Flit& f) {
  uint32_t w[Desc::kWords] = {};
  for (size_t i = 0; i < f.data.size() && i / 4 < Desc::kWords; ++i) w[i / 4] |= uint32_t{f.data[i]} << (8 * (i % 4));
  Desc d;
  d.unpack(w);
  return d;
}

// The n bytes of a flit from `off` on, as a little-endian number (the
// index and address prefixes of table-write ports, AXI4-Lite data).
inline uint64_t flit_le(const Flit& f, unsigned off, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n && off + i < f.data.size(); ++i) v |= uint64_t{f.data[off + i]} << (8 * i);
  return v;
}

// Split a frame into left-aligned beats of `bytes` lanes (unused lanes zero).
inline std::vector<Flit> frame_to_beats(const std::vector<uint8_t>& frame, unsigned bytes, bool user = false) {
  std::vector<Flit> beats;
  for (size_t off = 0; off < frame.size() || (off == 0 && frame.empty()); off += bytes) {
    Flit b;
    b.data.assign(bytes, 0);
    const size_t n = std::min<size_t>(bytes, frame.size() - off);
    for (size_t i = 0; i < n; ++i) b.data[i] = frame[off + i];
    b.keep = n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1);
    b.last = off + bytes >= frame.size();
    b.user = b.last && user;
    beats.push_back(b);
    if (frame.empty()) break;
  }
  return beats;
}

// Bytes of a stream transaction, in order (lanes outside keep skipped).
inline std::vector<uint8_t> beats_to_bytes(const std::vector<Flit>& beats) {
  std::vector<uint8_t> out;
  for (const Flit& b : beats)
    for (size_t i = 0; i < b.data.size(); ++i)
      if ((b.keep >> i) & 1u) out.push_back(b.data[i]);
  return out;
}

}  // namespace rocenic
