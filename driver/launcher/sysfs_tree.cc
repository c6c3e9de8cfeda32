#include "sysfs_tree.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "config.h"
#include "knobs.h"

namespace rocenic::driver {
namespace {

constexpr unsigned kUverbsClassAbi = 6;  // IB_USER_VERBS_ABI_VERSION; libibverbs accepts 3..6

class TreeWriter {
 public:
  TreeWriter(const std::string& root, std::string* err) : root_(root), err_(err) {}

  bool dir(const std::string& rel) {
    const std::string p = root_ + "/" + rel;
    if (mkdir(p.c_str(), 0755) != 0 && errno != EEXIST) return fail(p);
    // mkdir honours the umask; the tree must be readable by every user.
    if (chmod(p.c_str(), 0755) != 0) return fail(p);
    return true;
  }

  bool file(const std::string& rel, const std::string& content) {
    const std::string p = root_ + "/" + rel;
    const int fd = open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return fail(p);
    const std::string text = content + "\n";  // sysfs attributes end in a newline
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && fchmod(fd, 0644) == 0;
    if (close(fd) != 0 || !ok) return fail(p);
    return true;
  }

 private:
  bool fail(const std::string& path) {
    *err_ = path + ": " + std::strerror(errno);
    return false;
  }
  std::string root_;
  std::string* err_;
};

}  // namespace

bool write_sysfs_tree(const std::string& root, const Config& cfg, unsigned gid_tbl_len, std::string* err) {
  TreeWriter t(root, err);
  const std::string uv = std::string("class/infiniband_verbs/") + kUverbsName;
  const std::string ib = std::string("class/infiniband/") + kIbdevName;
  const std::string port = ib + "/ports/1";
  for (const std::string& d :
       {std::string("class"), std::string("class/infiniband_verbs"), uv, std::string("class/infiniband"), ib,
        ib + "/ports", port, port + "/gids", port + "/gid_attrs", port + "/gid_attrs/types", port + "/gid_attrs/ndevs",
        port + "/pkeys", std::string(hw_counters_dir()), port + "/counters", ib + "/tc", ib + "/tc/1", ib + "/device",
        std::string("kernel"), std::string("kernel/config"), std::string("kernel/config/rdma_cm"),
        std::string("kernel/config/rdma_cm/") + kIbdevName, std::string("kernel/config/rdma_cm/") + kIbdevName + "/ports",
        std::string("kernel/config/rdma_cm/") + kIbdevName + "/ports/1"})
    if (!t.dir(d)) return false;

  const uint32_t kEngineVersion = spec::kCsrVersionReset;
  const std::string fw_version = std::to_string((kEngineVersion >> 8) & 0xff) + "." + std::to_string(kEngineVersion & 0xff);
  char hw_revision[16];
  std::snprintf(hw_revision, sizeof hw_revision, "0x%x", kEngineVersion);  // as ibv_devinfo shows hw_ver
  bool ok = t.file("class/infiniband_verbs/abi_version", std::to_string(kUverbsClassAbi)) &&
            t.file(uv + "/ibdev", kIbdevName) && t.file(uv + "/dev", "0:0") &&
            t.file(uv + "/abi_version", std::to_string(kUverbsAbiVersion)) && t.file(ib + "/node_type", "1: CA") &&
            t.file(ib + "/node_guid", format_guid(cfg.node_guid)) &&
            t.file(ib + "/sys_image_guid", format_guid(cfg.node_guid)) && t.file(ib + "/board_id", "ROCENIC-SIM") &&
            t.file(ib + "/hca_type", "rocenic") &&
            t.file(ib + "/node_desc", std::string(kIbdevName) + " simulated RoCEv2 NIC") &&
            t.file(port + "/link_layer", "Ethernet") && t.file(port + "/lid", "0x0") &&
            t.file(port + "/sm_lid", "0x0") && t.file(port + "/lid_mask_count", "0") &&
            t.file(port + "/pkeys/0", "0xffff") &&
            // what ibstat (libibumad) reads besides: the engine's register-map
            // version as firmware, and the port as ibv_query_port reports it
            // (4X EDR = 100 Gb/s, Active/LinkUp while the program runs)
            t.file(ib + "/fw_ver", fw_version) && t.file(ib + "/hw_rev", hw_revision) &&
            t.file(port + "/state", "4: ACTIVE") && t.file(port + "/phys_state", "5: LinkUp") &&
            t.file(port + "/rate", "100 Gb/sec (4X EDR)") && t.file(port + "/sm_sl", "0") &&
            t.file(port + "/cap_mask", "0x04000000");  // IBV_PORT_IP_BASED_GIDS, as ibv_query_port
  if (!ok) return false;
  for (const auto& [name, index] : hw_counter_files())
    if (!t.file(hw_counters_dir() + "/" + name, "0")) return false;

  for (const char* name : {"port_xmit_data", "port_rcv_data", "port_xmit_packets", "port_rcv_packets",
                           "unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets",
                           "multicast_rcv_packets", "port_rcv_errors"})
    if (!t.file(port + "/counters/" + name, "0")) return false;
  return write_knob_files(root, Knobs{}, err) && write_gid_files(root, cfg, gid_tbl_len, true, err);
  return true;
}

void remove_tree(const std::string& root) {
  nftw(
      root.c_str(),
      [](const char* path, const struct stat*, int, struct FTW*) {
        remove(path);  // keep going: remove what can be removed
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

}  // namespace rocenic::driver
