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
//   class/infiniband/rocenic0/ports/1/gid_attrs/ndevs/N    used entries: "lo"
//   class/infiniband/rocenic0/ports/1/pkeys/0      "0xffff"
// GID and P_Key queries never reach the provider: these files ARE the GID
// table software sees, and they are written from the same Config the
// provider programs into the engine.
#pragma once

#include <string>

#include "config.h"

namespace rocenic::driver {

constexpr const char* kIbdevName = "rocenic0";
constexpr const char* kUverbsName = "uverbs0";

// Writes the tree under root (an existing directory); files 0644, dirs 0755.
// false with *err naming the path that failed.
bool write_sysfs_tree(const std::string& root, const Config& cfg, unsigned gid_tbl_len, std::string* err);

// Removes a directory tree (the launcher's temp dir). Best effort.
void remove_tree(const std::string& root);

}  // namespace rocenic::driver
