// Addresses of the simulated port: IP parsing, the default MAC, the node
// GUID and the GID table layout.
//
// GID table (the ConnectX layout): index 0/1 = link-local fe80::/64 with the
// modified EUI-64 interface id of the MAC, RoCE v1 then v2; then two entries
// (v1, v2) per --ip in the order given: IPv4 as IPv4-mapped ::ffff:a.b.c.d,
// IPv6 as given; an address given after --vlan VID has its pair on that VLAN.
#pragma once

#include <string>
#include <vector>

#include "config.h"

namespace rocenic::driver {

struct IpAddr {
  bool v6 = false;
  Gid bytes{};  // IPv4: ::ffff:a.b.c.d (the GID form); IPv6: the address
  std::string text;
  unsigned vlan = 0;  // 0: untagged; else the --vlan in force when --ip was given
};

// false with *err saying what is wrong (not an address, unspecified, multicast).
bool parse_ip(const std::string& s, IpAddr* ip, std::string* err);
// false with *err; refuses multicast and all-zero MACs.
bool parse_port_mac(const std::string& s, Mac* mac, std::string* err);

// Locally administered unicast MAC 02:xx:xx:xx:xx:xx from a hash of the wire
// name and the IP addresses: the same inputs always give the same MAC.
Mac default_mac(const std::string& wire, const std::vector<IpAddr>& ips);
// Modified EUI-64 (RFC 4291): MAC with ff:fe inserted and the U/L bit flipped.
uint64_t eui64(const Mac& mac);
// The node GUID is the MAC's EUI-64 (what Soft-RoCE derives too).
inline uint64_t node_guid_of(const Mac& mac) { return eui64(mac); }

// Entries needed for these addresses: 2 + 2 per IP.
inline unsigned gid_entries_needed(size_t n_ips) { return 2 + 2 * static_cast<unsigned>(n_ips); }
std::vector<GidEntry> gid_table(const Mac& mac, const std::vector<IpAddr>& ips);

}  // namespace rocenic::driver
