#include "net/icrc.h"

#include <vector>

#include "common/crc32.h"

namespace rocenic {

bool icrc_masked(size_t o, spec::L3 kind) {
  using namespace spec;
  switch (kind) {
    case L3::kIpv4: {
      const size_t udp = kIpv4Size, bth = kIpv4Size + kUdpSize;
      return o == kIpv4TosOff || o == kIpv4TtlOff || o == kIpv4CsumOff || o == kIpv4CsumOff + 1 ||
             o == udp + kUdpCsumOff || o == udp + kUdpCsumOff + 1 || o == bth + kBthFbRsvdOff;
    }
    case L3::kIpv6: {
      const size_t udp = kIpv6Size, bth = kIpv6Size + kUdpSize;
      return o <= 3 || o == kIpv6HopLimitOff || o == udp + kUdpCsumOff || o == udp + kUdpCsumOff + 1 ||
             o == bth + kBthFbRsvdOff;
    }
    case L3::kRocev1:
      return o <= 3 || o == kIpv6HopLimitOff || o == kIpv6Size + kBthFbRsvdOff;
  }
  return false;
}

uint32_t roce_icrc(const uint8_t* l3, size_t l3_len, spec::L3 kind) {
  static const uint8_t kLrhStandIn[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  uint32_t c = crc32_update(0xFFFFFFFFu, kLrhStandIn, 8);
  const size_t n = l3_len >= 4 ? l3_len - 4 : 0;
  const size_t head = n < kIcrcMaskedPrefix ? n : kIcrcMaskedPrefix;
  uint8_t masked[kIcrcMaskedPrefix];
  for (size_t i = 0; i < head; ++i) {
    uint8_t b = l3[i];
    // IPv6 byte 0 keeps its version nibble: only the traffic class half is masked.
    if (icrc_masked(i, kind)) b = (i == 0) ? static_cast<uint8_t>(b | 0x0F) : 0xFF;
    masked[i] = b;
  }
  c = crc32_update(c, masked, head);
  c = crc32_update(c, l3 + head, n - head);
  return ~c;
}

}  // namespace rocenic
