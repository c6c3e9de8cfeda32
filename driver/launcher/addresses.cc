#include "addresses.h"

#include <arpa/inet.h>

#include <cstring>

namespace rocenic::driver {

bool parse_ip(const std::string& s, IpAddr* ip, std::string* err) {
  *ip = IpAddr{};
  ip->text = s;
  in_addr v4{};
  in6_addr v6{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    const uint32_t host = ntohl(v4.s_addr);
    if (host == 0) {
      *err = "'" + s + "' is the unspecified address";
      return false;
    }
    if ((host >> 28) == 0xE || host == 0xFFFFFFFFu) {
      *err = "'" + s + "' is a multicast or broadcast address";
      return false;
    }
    ip->bytes[10] = ip->bytes[11] = 0xff;  // ::ffff:a.b.c.d
    std::memcpy(&ip->bytes[12], &v4.s_addr, 4);
    return true;
  }
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    ip->v6 = true;
    std::memcpy(ip->bytes.data(), v6.s6_addr, 16);
    const Gid zero{};
    if (ip->bytes == zero) {
      *err = "'" + s + "' is the unspecified address";
      return false;
    }
    if (ip->bytes[0] == 0xff) {
      *err = "'" + s + "' is a multicast address";
      return false;
    }
    return true;
  }
  *err = "'" + s + "' is not an IPv4 or IPv6 address";
  return false;
}

bool parse_port_mac(const std::string& s, Mac* mac, std::string* err) {
  if (!parse_mac(s, mac)) {
    *err = "'" + s + "' is not a MAC address (want xx:xx:xx:xx:xx:xx, hex)";
    return false;
  }
  if ((*mac)[0] & 1) {
    *err = "'" + s + "' is a multicast MAC (bit 0 of the first byte is set)";
    return false;
  }
  if (*mac == Mac{}) {
    *err = "'" + s + "' is the all-zero MAC";
    return false;
  }
  return true;
}

Mac default_mac(const std::string& wire, const std::vector<IpAddr>& ips) {
  // FNV-1a 64 over "wire" and each address's bytes, with separators.
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](uint8_t b) {
    h ^= b;
    h *= 0x100000001b3ull;
  };
  for (char ch : wire) mix(static_cast<uint8_t>(ch));
  for (const IpAddr& ip : ips) {
    mix('/');
    for (uint8_t b : ip.bytes) mix(b);
  }
  Mac m;
  m[0] = 0x02;  // locally administered, unicast
  for (int i = 1; i < 6; ++i) m[i] = static_cast<uint8_t>(h >> (8 * (i - 1)));
  return m;
}

uint64_t eui64(const Mac& mac) {
  const uint8_t b[8] = {static_cast<uint8_t>(mac[0] ^ 0x02), mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]};
  uint64_t v = 0;
  for (uint8_t x : b) v = (v << 8) | x;
  return v;
}

std::vector<GidEntry> gid_table(const Mac& mac, const std::vector<IpAddr>& ips) {
  std::vector<GidEntry> t;
  Gid link_local{};
  link_local[0] = 0xfe;
  link_local[1] = 0x80;
  const uint64_t id = eui64(mac);
  for (int i = 0; i < 8; ++i) link_local[8 + i] = static_cast<uint8_t>(id >> (56 - 8 * i));
  unsigned index = 0;
  auto add_pair = [&](const Gid& g, unsigned vlan) {
    t.push_back({index++, GidType::kRoceV1, g, vlan});
    t.push_back({index++, GidType::kRoceV2, g, vlan});
  };
  add_pair(link_local, 0);
  for (const IpAddr& ip : ips) add_pair(ip.bytes, ip.vlan);
  return t;
}

}  // namespace rocenic::driver
