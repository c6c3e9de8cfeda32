// The private sysfs tree rocenic-run points libibverbs at ($SYSFS_PATH).
//
// libibverbs 44 without RDMA netlink scans $SYSFS_PATH/class/infiniband_verbs
// and reads (DESIGN.md §6):
//   class/infiniband_verbs/abi_version             uverbs ABI (3..6): 6
//   class/infiniband_verbs/uverbs0/ibdev           "rocenic0"
//   class/infiniband_verbs/uverbs0/dev             "0:0" (no device-number check)
//   class/infiniband_verbs/uverbs0/abi_version     the provider's ABI: 1
//   class/infiniband/rocenic0/node_type            "1: CA"
//   class/infiniband/rocenic0/node_guid            "xxxx:xxxx:xxxx:xxxx"
//   class/infiniband/rocenic0/board_id
//   class/infiniband/rocenic0/ports/1/gids/N               every N < gid_tbl_len
//   class/infiniband/rocenic0/ports/1/gid_attrs/types/N    every N < gid_tbl_len
//   class/infiniband/rocenic0/ports/1/gid_attrs/ndevs/N    used entries: "rocenet0" or "rocenet0.VID"
//   class/infiniband/rocenic0/ports/1/pkeys/0      "0xffff"
//   class/infiniband/rocenic0/ports/1/hw_counters/NAME   "0" at launch; the
//       provider rewrites them while the program runs (driver/provider/hw_counters.h)
// GID and P_Key queries never reach the provider: these files ARE the GID
// table software sees, and they are written from the same Config the
// provider programs into the engine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "config.h"
#include "gen/roce_spec.h"

namespace rocenic::driver {

constexpr const char* kIbdevName = "rocenic0";
constexpr const char* kUverbsName = "uverbs0";

// Where port 1's hw_counters live, below the tree's root.
inline std::string hw_counters_dir() { return std::string("class/infiniband/") + kIbdevName + "/ports/1/hw_counters"; }

// The hw_counters files: each transport counter that has a Linux name
// (spec/constants.toml, xport_cnt `linux`), with its xport_cnt index.
inline std::vector<std::pair<std::string, unsigned>> hw_counter_files() {
  std::vector<std::pair<std::string, unsigned>> v;
  for (unsigned i = 1; i < spec::kXportCntCount; ++i)
    if (const char* name = spec::linux_name(static_cast<spec::XportCnt>(i)); *name) v.emplace_back(name, i);
  return v;
}

// Writes the tree under root (an existing directory); files 0644, dirs 0755.
// false with *err naming the path that failed.
bool write_sysfs_tree(const std::string& root, const Config& cfg, unsigned gid_tbl_len, std::string* err);

// Removes a directory tree (the launcher's temp dir). Best effort.
void remove_tree(const std::string& root);

}  // namespace rocenic::driver
