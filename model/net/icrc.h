// The RoCE invariant CRC (IBTA Vol.1 7.8.1, RoCEv2 Annex A17.4.5).
//
// CRC-32 over 8 bytes of 0xFF (standing in for the LRH) followed by the L3
// packet up to but not including the ICRC, with the fields that routers may
// change replaced by 1s: IPv4 TOS, TTL and header checksum; IPv6/GRH traffic
// class, flow label and hop limit; the UDP checksum; BTH resv8a (FECN/BECN
// byte). Sent least-significant byte first.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gen/roce_spec.h"

namespace rocenic {

// `l3` points at the IPv4/IPv6 header (RoCEv2) or GRH (RoCEv1); `l3_len` is
// the L3 packet's length including the 4 ICRC bytes at its end.
uint32_t roce_icrc(const uint8_t* l3, size_t l3_len, spec::L3 kind);

// Byte offsets (from the L3 start) of the masked bytes, for RTL mask tables and tests.
bool icrc_masked(size_t off_from_l3, spec::L3 kind);

// Every masked byte lies before this offset: the last is the BTH's reserved
// byte behind an IPv6 header (40 + 8 + 4). roce_icrc masks this prefix and
// runs the bulk CRC over the rest.
inline constexpr size_t kIcrcMaskedPrefix = spec::kIpv6Size + spec::kUdpSize + spec::kBthFbRsvdOff + 1;

}  // namespace rocenic
