#include "hw_counters.h"

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

void HwCounterFiles::publish(const std::function<bool(uint32_t, uint32_t*)>& read) {
  if (!enabled_) return;
  last_ = std::chrono::steady_clock::now();
  for (size_t i = 0; i < files_.size(); ++i) {
    uint32_t v = 0;
    if (!read(spec::kCsrXportCnt + 4 * files_[i].second, &v) || shown_[i] == static_cast<int64_t>(v)) continue;
    const std::string path = dir_ + "/" + files_[i].first, tmp = path + "." + std::to_string(getpid()) + ".new";
    FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) continue;  // the tree is gone (the launcher cleans up): nothing to show it to
    const bool ok = std::fprintf(f, "%u\n", v) > 0;
    if (std::fclose(f) == 0 && ok && std::rename(tmp.c_str(), path.c_str()) == 0) shown_[i] = v;
  }
}

}  // namespace rocenic::driver
