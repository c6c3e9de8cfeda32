// The model's CRC-32 (Ethernet FCS, RoCE ICRC): the sliced bulk loop against
// a bit-at-a-time reference at every length and alignment, and the ICRC's
// masked prefix against masking every byte, for IPv4, IPv6 and RoCEv1.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "common/crc32.h"
#include "net/icrc.h"

namespace rocenic {
namespace {

uint32_t crc_bitwise(uint32_t crc, const uint8_t* p, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    crc ^= p[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ ((crc & 1u) ? 0xEDB88320u : 0u);
  }
  return crc;
}

// The ICRC as IBTA states it: every byte, masked where the spec says.
uint32_t icrc_reference(const uint8_t* l3, size_t len, spec::L3 kind) {
  std::vector<uint8_t> buf(8, 0xFF);
  for (size_t i = 0; i + 4 < len; ++i) {
    uint8_t b = l3[i];
    if (icrc_masked(i, kind)) b = i == 0 ? static_cast<uint8_t>(b | 0x0F) : 0xFF;
    buf.push_back(b);
  }
  return ~crc_bitwise(0xFFFFFFFFu, buf.data(), buf.size());
}

TEST(Crc32, CheckValue) {
  const char* s = "123456789";
  EXPECT_EQ(crc32(reinterpret_cast<const uint8_t*>(s), 9), 0xCBF43926u);
}

TEST(Crc32, SlicedLoopMatchesBitwiseAtEveryLengthAndAlignment) {
  std::mt19937 rng(7);
  std::vector<uint8_t> data(300);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  for (size_t off = 0; off < 8; ++off)
    for (size_t n = 0; n + off <= data.size(); ++n)
      ASSERT_EQ(crc32_update(0x12345678u, data.data() + off, n), crc_bitwise(0x12345678u, data.data() + off, n))
          << "offset " << off << " length " << n;
}

TEST(Crc32, NoMaskedByteBeyondTheHeaders) {
  EXPECT_EQ(kIcrcMaskedPrefix, 53u);  // IPv6 40 + UDP 8 + the BTH's reserved byte at 4, + 1
  for (spec::L3 kind : {spec::L3::kIpv4, spec::L3::kIpv6, spec::L3::kRocev1})
    for (size_t o = kIcrcMaskedPrefix; o < 9000; ++o) ASSERT_FALSE(icrc_masked(o, kind)) << o;
}

TEST(Crc32, IcrcMatchesByteByByteMaskingAtEveryLength) {
  std::mt19937 rng(11);
  std::vector<uint8_t> frame(400);
  for (auto& b : frame) b = static_cast<uint8_t>(rng());
  for (spec::L3 kind : {spec::L3::kIpv4, spec::L3::kIpv6, spec::L3::kRocev1})
    for (size_t len = 4; len <= frame.size(); ++len)
      ASSERT_EQ(roce_icrc(frame.data(), len, kind), icrc_reference(frame.data(), len, kind)) << "length " << len;
}

}  // namespace
}  // namespace rocenic
