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
        port + "/pkeys", std::string(hw_counters_dir())})
    if (!t.dir(d)) return false;

  bool ok = t.file("class/infiniband_verbs/abi_version", std::to_string(kUverbsClassAbi)) &&
            t.file(uv + "/ibdev", kIbdevName) && t.file(uv + "/dev", "0:0") &&
            t.file(uv + "/abi_version", std::to_string(kUverbsAbiVersion)) && t.file(ib + "/node_type", "1: CA") &&
            t.file(ib + "/node_guid", format_guid(cfg.node_guid)) &&
            t.file(ib + "/sys_image_guid", format_guid(cfg.node_guid)) && t.file(ib + "/board_id", "ROCENIC-SIM") &&
            t.file(ib + "/hca_type", "rocenic") &&
            t.file(ib + "/node_desc", std::string(kIbdevName) + " simulated RoCEv2 NIC") &&
            t.file(port + "/link_layer", "Ethernet") && t.file(port + "/lid", "0x0") &&
            t.file(port + "/sm_lid", "0x0") && t.file(port + "/lid_mask_count", "0") &&
            t.file(port + "/pkeys/0", "0xffff");
  if (!ok) return false;
  for (const auto& [name, index] : hw_counter_files())
    if (!t.file(hw_counters_dir() + "/" + name, "0")) return false;

  std::vector<const GidEntry*> by_index(gid_tbl_len, nullptr);
  for (const GidEntry& g : cfg.gids) {
    if (g.index >= gid_tbl_len) {
      *err = "GID index " + std::to_string(g.index) + " is beyond the table of " + std::to_string(gid_tbl_len);
      return false;
    }
    by_index[g.index] = &g;
  }
  for (unsigned i = 0; i < gid_tbl_len; ++i) {
    const GidEntry* g = by_index[i];
    const std::string n = std::to_string(i);
    // An unused entry reads as the zero GID (which every reader skips). Its
    // type file still exists: where the kernel answers EINVAL for it,
    // libibverbs' sysfs fallback treats a missing file as an error and
    // ibv_query_gid_table would fail.
    if (!t.file(port + "/gids/" + n, format_gid(g ? g->gid : Gid{})) ||
        !t.file(port + "/gid_attrs/types/" + n, gid_type_sysfs(g ? g->type : GidType::kRoceV1)))
      return false;
    // The netdev of a used entry: the simulated port has none of its own, and
    // libibverbs resolves the name with if_nametoindex(), so it must exist.
    if (g && !t.file(port + "/gid_attrs/ndevs/" + n, "lo")) return false;
  }
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
