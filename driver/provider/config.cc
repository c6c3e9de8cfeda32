#include "config.h"

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>

namespace rocenic::driver {
namespace {

int hex_value(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// `groups` groups of exactly `digits` hex digits separated by ':' -> bytes.
bool parse_hex_groups(const std::string& s, unsigned groups, unsigned digits, uint8_t* out) {
  if (s.size() != groups * digits + (groups - 1)) return false;
  unsigned nibble = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if ((i + 1) % (digits + 1) == 0) {
      if (s[i] != ':') return false;
      continue;
    }
    const int v = hex_value(s[i]);
    if (v < 0) return false;
    if (nibble % 2 == 0)
      out[nibble / 2] = static_cast<uint8_t>(v << 4);
    else
      out[nibble / 2] |= static_cast<uint8_t>(v);
    ++nibble;
  }
  return true;
}

std::string hex_groups(const uint8_t* bytes, unsigned n, unsigned bytes_per_group) {
  std::string s;
  char buf[3];
  for (unsigned i = 0; i < n; ++i) {
    if (i && i % bytes_per_group == 0) s += ':';
    std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    s += buf;
  }
  return s;
}

}  // namespace

std::string format_mac(const Mac& mac) { return hex_groups(mac.data(), 6, 1); }

std::string format_guid(uint64_t guid) {
  uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
  return hex_groups(b, 8, 2);
}

std::string format_gid(const Gid& gid) { return hex_groups(gid.data(), 16, 2); }

std::string netdev_name(unsigned vlan) { return vlan ? std::string(kNetdevName) + "." + std::to_string(vlan) : kNetdevName; }

const char* gid_type_sysfs(GidType t) { return t == GidType::kRoceV2 ? "RoCE v2" : "IB/RoCE v1"; }

bool parse_mac(const std::string& s, Mac* mac) { return parse_hex_groups(s, 6, 2, mac->data()); }

bool parse_gid(const std::string& s, Gid* gid) { return parse_hex_groups(s, 8, 4, gid->data()); }

bool parse_guid(const std::string& s, uint64_t* guid) {
  uint8_t b[8];
  if (!parse_hex_groups(s, 4, 4, b)) return false;
  *guid = 0;
  for (uint8_t x : b) *guid = (*guid << 8) | x;
  return true;
}

unsigned mtu_enum(unsigned bytes) {
  for (unsigned e = 1, b = 256; e <= 5; ++e, b *= 2)
    if (bytes == b) return e;
  return 0;
}

std::string format_config(const Config& c) {
  std::ostringstream o;
  o << "# rocenic provider configuration, written by rocenic-run\n";
  o << "mac " << format_mac(c.mac) << "\n";
  o << "mtu " << c.mtu << "\n";
  o << "node_guid " << format_guid(c.node_guid) << "\n";
  o << "wire " << c.wire << "\n";
  if (!c.pcap.empty()) o << "pcap " << c.pcap << "\n";
  if (c.faults.any()) {
    o << std::setprecision(17);
    o << "loss " << c.faults.loss << "\ndup " << c.faults.dup << "\nreorder " << c.faults.reorder << "\ncorrupt "
      << c.faults.corrupt << "\nfault_seed " << c.faults.seed << "\n";
  }
  for (const GidEntry& g : c.gids)
  {
    o << "gid " << g.index << " " << (g.type == GidType::kRoceV2 ? "v2" : "v1") << " " << format_gid(g.gid);
    if (g.vlan) o << " vlan " << g.vlan;
    o << "\n";
  }
  return o.str();
}

bool parse_config(const std::string& text, Config* c, std::string* err) {
  *c = Config{};
  std::istringstream in(text);
  std::string line;
  std::set<std::string> seen;
  std::set<unsigned> gid_indexes;
  for (unsigned lineno = 1; std::getline(in, line); ++lineno) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::string key;
    if (!(words >> key)) continue;
    const std::string where = "line " + std::to_string(lineno) + ": ";
    auto fail = [&](const std::string& what) {
      *err = where + what;
      return false;
    };
    if (key != "gid" && !seen.insert(key).second) return fail("'" + key + "' given twice");
    std::string a, b, d, extra;
    if (key == "mac") {
      if (!(words >> a) || !parse_mac(a, &c->mac)) return fail("mac wants xx:xx:xx:xx:xx:xx");
    } else if (key == "mtu") {
      if (!(words >> c->mtu) || !mtu_enum(c->mtu)) return fail("mtu wants 256, 512, 1024, 2048 or 4096");
    } else if (key == "node_guid") {
      if (!(words >> a) || !parse_guid(a, &c->node_guid)) return fail("node_guid wants xxxx:xxxx:xxxx:xxxx");
    } else if (key == "wire") {
      if (!(words >> c->wire)) return fail("wire wants a name");
    } else if (key == "pcap") {
      if (!(words >> c->pcap)) return fail("pcap wants a file name");
    } else if (key == "loss" || key == "dup" || key == "reorder" || key == "corrupt") {
      double* p = key == "loss" ? &c->faults.loss : key == "dup" ? &c->faults.dup
                  : key == "reorder" ? &c->faults.reorder : &c->faults.corrupt;
      if (!(words >> a)) return fail(key + " wants a probability");
      if (const std::string why = wire::parse_probability(a, p); !why.empty()) return fail(key + " " + why);
    } else if (key == "fault_seed") {
      if (!(words >> a)) return fail("fault_seed wants a number");
      if (const std::string why = wire::parse_seed(a, &c->faults.seed); !why.empty()) return fail("fault_seed " + why);
    } else if (key == "gid") {
      GidEntry g;
      if (!(words >> g.index >> b >> d)) return fail("gid wants INDEX v1|v2 GID");
      if (b == "v1")
        g.type = GidType::kRoceV1;
      else if (b == "v2")
        g.type = GidType::kRoceV2;
      else
        return fail("gid type must be v1 or v2, not '" + b + "'");
      if (!parse_gid(d, &g.gid)) return fail("gid wants 8 groups of 4 hex digits");
      if (!gid_indexes.insert(g.index).second) return fail("gid index " + std::to_string(g.index) + " given twice");
      if (std::string v; words >> v) {
        if (v != "vlan" || !(words >> g.vlan) || g.vlan < 1 || g.vlan > 4094)
          return fail("gid: after the GID only 'vlan VID' (1..4094) may follow");
      }
      c->gids.push_back(g);
    } else {
      return fail("unknown item '" + key + "'");
    }
    if (words >> extra) return fail("unexpected '" + extra + "' after " + key);
  }
  for (const char* required : {"mac", "mtu", "node_guid"})
    if (!seen.count(required)) {
      *err = std::string("'") + required + "' is missing";
      return false;
    }
  return true;
}

bool read_config_file(const std::string& path, Config* c, std::string* err) {
  std::ifstream f(path);
  if (!f) {
    *err = "cannot read " + path;
    return false;
  }
  std::ostringstream text;
  text << f.rdbuf();
  if (!parse_config(text.str(), c, err)) {
    *err = path + ": " + *err;
    return false;
  }
  return true;
}

}  // namespace rocenic::driver
