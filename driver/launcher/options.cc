#include "options.h"

#include <sys/stat.h>

#include <cctype>
#include <set>

namespace rocenic::driver {
namespace {

bool valid_wire_name(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  for (char ch : s)
    if (!(isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.')) return false;
  return s != "." && s != "..";
}

std::string parent_dir(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

const char* usage() {
  return "usage: rocenic-run [--backend model|rtl|cosim] [--wire NAME] [[--vlan VID|none] --ip ADDR]...\n"
         "                   [--mac MAC] [--mtu 256|512|1024|2048|4096] [--pcap FILE]\n"
         "                   [--loss P] [--dup P] [--reorder P] [--corrupt P] [--fault-seed N]\n"
         "                   -- PROGRAM [ARGS...]\n"
         "Runs PROGRAM with the simulated rocenic NIC as its RDMA device rocenic0.\n"
         "  --backend  engine behind the device: model (default), rtl or cosim\n"
         "  --wire     name of the wire the port attaches to (default 'default'); processes\n"
         "             on the same wire exchange Ethernet frames\n"
         "  --ip       an IPv4 or IPv6 address of the port; repeatable; each adds a\n"
         "             RoCE v1 and a RoCE v2 GID after the two link-local ones\n"
         "  --vlan     VLAN id (1..4094) of the --ip addresses after it, or 'none'\n"
         "             (default); their GIDs send 802.1Q frames with PCP = SL & 7\n"
         "  --mac      port MAC (default: derived from the wire name and the IPs)\n"
         "  --mtu      active MTU in bytes (default 1024)\n"
         "  --pcap     capture file: every frame the port sends and receives on the wire\n"
         "  --loss, --dup, --reorder, --corrupt P\n"
         "             a hostile wire: each frame the port sends is dropped, delivered twice,\n"
         "             held back behind the next 1..3 frames, or has one bit flipped, each\n"
         "             with probability P in [0, 1] (default 0)\n"
         "  --fault-seed N  seed of those faults (default 1): the same seed, the same faults\n"
         "Exit status: PROGRAM's; 2 for a bad command line; 125 when the launcher\n"
         "cannot set up; 126/127 when PROGRAM cannot be run / is not found.\n";
}

ParseResult parse_options(const std::vector<std::string>& args, Options* o, std::string* err) {
  *o = Options{};
  std::set<std::string> seen;
  unsigned vlan = 0;  // the --vlan in force
  size_t i = 0;
  for (; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--") break;
    if (a == "-h" || a == "--help") return ParseResult::kHelp;
    if (a.rfind("--", 0) != 0) {
      *err = "'" + a + "' is not an option; put the program after '--' (rocenic-run [options] -- PROGRAM ARGS)";
      return ParseResult::kError;
    }
    std::string value;
    bool has_value = false;
    if (const size_t eq = a.find('='); eq != std::string::npos) {
      value = a.substr(eq + 1);
      a.resize(eq);
      has_value = true;
    }
    static const std::set<std::string> known = {"--backend", "--wire",    "--ip",      "--mac",     "--vlan",
                                                "--mtu",     "--pcap",    "--loss",    "--dup",
                                                "--reorder", "--corrupt", "--fault-seed"};
    if (!known.count(a)) {
      *err = "unknown option '" + a + "'";
      return ParseResult::kError;
    }
    if (!has_value) {
      if (i + 1 >= args.size() || args[i + 1] == "--") {
        *err = "option " + a + " needs a value";
        return ParseResult::kError;
      }
      value = args[++i];
    }
    if (a != "--ip" && a != "--vlan" && !seen.insert(a).second) {
      *err = "option " + a + " given twice";
      return ParseResult::kError;
    }
    std::string why;
    if (a == "--backend") {
      if (value != "model" && value != "rtl" && value != "cosim") {
        *err = "--backend '" + value + "': must be model, rtl or cosim";
        return ParseResult::kError;
      }
      o->backend = value;
    } else if (a == "--wire") {
      if (!valid_wire_name(value)) {
        *err = "--wire '" + value + "': 1 to 64 characters of A-Z a-z 0-9 _ - .";
        return ParseResult::kError;
      }
      o->wire = value;
    } else if (a == "--ip") {
      IpAddr ip;
      if (!parse_ip(value, &ip, &why)) {
        *err = "--ip " + why;
        return ParseResult::kError;
      }
      for (const IpAddr& other : o->ips)
        if (other.bytes == ip.bytes) {
          *err = "--ip '" + value + "' given twice";
          return ParseResult::kError;
        }
      ip.vlan = vlan;
      o->ips.push_back(ip);
    } else if (a == "--vlan") {
      if (value == "none") {
        vlan = 0;
      } else {
        bool digits = !value.empty() && value.size() <= 4;
        for (char ch : value) digits = digits && isdigit(static_cast<unsigned char>(ch));
        const unsigned v = digits ? static_cast<unsigned>(std::stoul(value)) : 0;
        if (v < 1 || v > 4094) {
          *err = "--vlan '" + value + "': must be a VLAN id 1..4094 or 'none'";
          return ParseResult::kError;
        }
        vlan = v;
      }
    } else if (a == "--mac") {
      Mac m;
      if (!parse_port_mac(value, &m, &why)) {
        *err = "--mac " + why;
        return ParseResult::kError;
      }
      o->mac = m;
    } else if (a == "--mtu") {
      unsigned mtu = 0;
      bool digits = !value.empty() && value.size() <= 5;
      for (char ch : value) digits = digits && isdigit(static_cast<unsigned char>(ch));
      if (digits) mtu = static_cast<unsigned>(std::stoul(value));
      if (!mtu_enum(mtu)) {
        *err = "--mtu '" + value + "': must be 256, 512, 1024, 2048 or 4096";
        return ParseResult::kError;
      }
      o->mtu = mtu;
    } else if (a == "--pcap") {
      struct stat st {};
      const std::string dir = parent_dir(value);
      if (value.empty() || value.back() == '/') {
        *err = "--pcap '" + value + "': not a file name";
        return ParseResult::kError;
      }
      if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
        *err = "--pcap '" + value + "': directory '" + dir + "' does not exist";
        return ParseResult::kError;
      }
      o->pcap = value;
    } else if (a == "--loss" || a == "--dup" || a == "--reorder" || a == "--corrupt") {
      double* p = a == "--loss" ? &o->faults.loss : a == "--dup" ? &o->faults.dup
                  : a == "--reorder" ? &o->faults.reorder : &o->faults.corrupt;
      if (const std::string bad = wire::parse_probability(value, p); !bad.empty()) {
        *err = a + " " + bad;
        return ParseResult::kError;
      }
    } else if (a == "--fault-seed") {
      if (const std::string bad = wire::parse_seed(value, &o->faults.seed); !bad.empty()) {
        *err = a + " " + bad;
        return ParseResult::kError;
      }
    }
  }
  if (i >= args.size()) {
    *err = "missing '--' before the program (rocenic-run [options] -- PROGRAM ARGS)";
    return ParseResult::kError;
  }
  o->command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  if (o->command.empty() || o->command[0].empty()) {
    *err = "no program after '--'";
    return ParseResult::kError;
  }
  return ParseResult::kRun;
}

}  // namespace rocenic::driver
