// The configuration rocenic-run hands to the provider (file named by
// $ROCENIC_CONFIG): the port's MAC and MTU, the node GUID and the GID table
// the provider programs into the engine. The same GID table is what the
// launcher writes into the private sysfs tree, where libibverbs reads it.
//
// Text format, one item per line, '#' starts a comment:
//   mac 02:5a:11:c3:9e:07
//   mtu 1024
//   node_guid 005a:11ff:fec3:9e07
//   wire default
//   pcap /tmp/x.pcap            (optional)
//   loss 0.02                   (optional, with dup, reorder, corrupt, fault_seed:
//   fault_seed 7                 faults on the frames this port sends, sim/wire/faults.h)
//   gid 0 v1 fe80:0000:0000:0000:005a:11ff:fec3:9e07
//   gid 1 v2 fe80:0000:0000:0000:005a:11ff:fec3:9e07
//   gid 4 v1 0000:0000:0000:0000:0000:ffff:0a00:0001 vlan 100   (an address on VLAN 100)
// Only used entries are listed; every other index is unused (zero GID).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "wire/faults.h"

namespace rocenic::driver {

// uverbsN/abi_version in the sysfs tree, and the only ABI the provider matches.
constexpr uint32_t kUverbsAbiVersion = 1;

using Mac = std::array<uint8_t, 6>;
using Gid = std::array<uint8_t, 16>;  // network byte order, as in union ibv_gid

// Engine's GID entry type (CSR GID word 4) and the sysfs gid_attrs/types text.
enum class GidType : uint32_t { kUnused = 0, kRoceV1 = 1, kRoceV2 = 2 };

struct GidEntry {
  unsigned index = 0;
  GidType type = GidType::kUnused;
  Gid gid{};
  unsigned vlan = 0;  // 0: untagged; 1..4094: the entry's VLAN (frames carry 802.1Q, PCP = SL & 7)
};

// The simulated port's netdev, as gid_attrs/ndevs names it: "rocenet0", or
// "rocenet0.<vid>" for a VLAN's entries (as Linux names VLAN devices). The
// shim answers if_nametoindex() for these names (libibverbs resolves them).
constexpr const char* kNetdevName = "rocenet0";
std::string netdev_name(unsigned vlan);
// CSR GID word 5 of an entry: bit 12 tagged, bits 11:0 the VID.
inline uint32_t gid_vlan_word(unsigned vlan) { return vlan ? (1u << 12) | (vlan & 0xFFFu) : 0u; }

struct Config {
  Mac mac{};
  unsigned mtu = 1024;  // bytes: 256, 512, 1024, 2048 or 4096
  uint64_t node_guid = 0;
  std::string wire = "default";
  std::string pcap;  // empty: none
  wire::FaultConfig faults;  // none by default: a perfect wire
  std::vector<GidEntry> gids;
};

// Text forms shared by the config file, the sysfs tree and the tests.
std::string format_mac(const Mac& mac);
std::string format_guid(uint64_t guid);  // "xxxx:xxxx:xxxx:xxxx" (sysfs node_guid)
std::string format_gid(const Gid& gid);  // "xxxx:...:xxxx" (8 groups, sysfs gids/N)
const char* gid_type_sysfs(GidType t);   // "IB/RoCE v1", "RoCE v2"
bool parse_mac(const std::string& s, Mac* mac);
bool parse_gid(const std::string& s, Gid* gid);  // the format_gid form
bool parse_guid(const std::string& s, uint64_t* guid);

// IBV_MTU_* (1..5) of a byte size, 0 when it is not one of the five.
unsigned mtu_enum(unsigned bytes);

std::string format_config(const Config& c);
// false with *err naming the line and what is wrong.
bool parse_config(const std::string& text, Config* c, std::string* err);
bool read_config_file(const std::string& path, Config* c, std::string* err);

}  // namespace rocenic::driver
