// rocenic-run's command line:
//   rocenic-run [--backend model|rtl|cosim] [--wire NAME] [[--vlan VID|none] --ip ADDR]...
//               [--mac MAC] [--mtu 256|512|1024|2048|4096] [--pcap FILE]
//               [--loss P] [--dup P] [--reorder P] [--corrupt P] [--fault-seed N]
//               -- PROGRAM [ARGS...]
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "addresses.h"
#include "wire/faults.h"

namespace rocenic::driver {

struct Options {
  std::string backend = "model";
  std::string wire = "default";
  std::vector<IpAddr> ips;  // each with the --vlan in force before it
  std::optional<Mac> mac;  // unset: default_mac(wire, ips)
  unsigned mtu = 1024;     // the engine's reset value (PORT_MTU = IBV_MTU_1024)
  std::string pcap;
  wire::FaultConfig faults;  // on the frames this process's port sends
  std::vector<std::string> command;  // PROGRAM ARGS...
};

enum class ParseResult { kRun, kHelp, kError };

// kError with *err naming the option and what is wrong with it.
ParseResult parse_options(const std::vector<std::string>& args, Options* o, std::string* err);
const char* usage();

}  // namespace rocenic::driver
