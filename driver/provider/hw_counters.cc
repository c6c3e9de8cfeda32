#include "hw_counters.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "gen/roce_spec.h"
#include "launcher/sysfs_tree.h"

namespace rocenic::driver {

HwCounterFiles::HwCounterFiles(std::string dir)
    : dir_(std::move(dir)), files_(hw_counter_files()), shown_(files_.size(), -1) {
  struct stat st {};
  enabled_ = !dir_.empty() && stat(dir_.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string HwCounterFiles::default_dir() {
  const char* root = std::getenv("SYSFS_PATH");
  if (!root || !*root) return "";
  return std::string(root) + "/" + hw_counters_dir();
}

namespace {

bool replace_number(const std::string& path, uint64_t v) {
  const std::string tmp = path + "." + std::to_string(getpid()) + ".new";
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;  // the tree is gone (the launcher cleans up): nothing to show it to
  char text[32];
  const int n = std::snprintf(text, sizeof text, "%llu\n", static_cast<unsigned long long>(v));
  // 0644 whatever the umask: the program may run as another user
  const bool ok = fchmod(fd, 0644) == 0 && write(fd, text, static_cast<size_t>(n)) == n;
  if (close(fd) == 0 && ok && std::rename(tmp.c_str(), path.c_str()) == 0) return true;
  unlink(tmp.c_str());
  return false;
}

}  // namespace

void HwCounterFiles::publish(const std::function<bool(uint32_t, uint32_t*)>& read, const PortCounters& pc) {
  if (!enabled_) return;
  last_ = std::chrono::steady_clock::now();
  // ports/1/counters (a sibling of hw_counters): the data counters in
  // octets divided by 4, as IBTA's PortCounters and the kernel show them
  uint64_t rcv_errors = 0;
  for (unsigned r = 1; r < spec::kDropCount; ++r) {
    uint32_t v = 0;
    if (read(spec::kCsrRxDrop + 4 * r, &v)) rcv_errors += v;
  }
  const std::pair<const char*, uint64_t> port[] = {
      {"port_xmit_data", pc.xmit_bytes / 4},
      {"port_rcv_data", pc.rcv_bytes / 4},
      {"port_xmit_packets", pc.xmit_packets},
      {"port_rcv_packets", pc.rcv_packets},
      {"unicast_xmit_packets", pc.xmit_packets - pc.xmit_multicast},
      {"unicast_rcv_packets", pc.rcv_packets - pc.rcv_multicast},
      {"multicast_xmit_packets", pc.xmit_multicast},
      {"multicast_rcv_packets", pc.rcv_multicast},
      {"port_rcv_errors", rcv_errors},
  };
  if (port_shown_.empty())
    for (const auto& [name, v] : port) port_shown_.emplace_back(name, -1);
  const std::string pdir = dir_.substr(0, dir_.rfind('/')) + "/counters";
  for (size_t i = 0; i < port_shown_.size(); ++i)
    if (port_shown_[i].second != static_cast<int64_t>(port[i].second) &&
        replace_number(pdir + "/" + port_shown_[i].first, port[i].second))
      port_shown_[i].second = static_cast<int64_t>(port[i].second);
  for (size_t i = 0; i < files_.size(); ++i) {
    uint32_t v = 0;
    if (!read(spec::kCsrXportCnt + 4 * files_[i].second, &v) || shown_[i] == static_cast<int64_t>(v)) continue;
    if (replace_number(dir_ + "/" + files_[i].first, v)) shown_[i] = v;
  }
}

}  // namespace rocenic::driver
