#include "knob_watch.h"

#include <sys/stat.h>

#include <cstdlib>

namespace rocenic::driver {
namespace {

// Each file's writer and read form.
struct KnobFile {
  bool (*write)(const std::string&, Knobs*, std::string*);
  std::string (*show)(const Knobs&);
};

const KnobFile& knob_file(size_t i) {
  static const KnobFile files[] = {
      {write_traffic_class, format_traffic_class},
      {write_ttl, [](const Knobs& k) { return std::to_string(k.ttl); }},
      {write_roce_enable, [](const Knobs& k) { return std::string(k.roce_enable ? "1" : "0"); }},
      {write_roce_mode, [](const Knobs& k) { return format_roce_mode(k.roce_mode_v2); }},
      {write_roce_tos, [](const Knobs& k) { return std::to_string(k.roce_tos); }},
  };
  return files[i];
}

std::string trimmed(const std::string& s) {
  const size_t b = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(0, b + 1);
}

}  // namespace

KnobWatch::KnobWatch(std::string root)
    : root_(std::move(root)), files_{traffic_class_path(), ttl_path(), roce_enable_path(), roce_mode_path(), roce_tos_path()},
      seen_(files_.size()) {
  struct stat st {};
  enabled_ = !root_.empty() && stat((root_ + "/" + traffic_class_path()).c_str(), &st) == 0;
}

std::string KnobWatch::default_root() {
  const char* root = std::getenv("SYSFS_PATH");
  return root && *root ? root : "";
}

KnobWatch::Stamp KnobWatch::stamp(const std::string& rel) const {
  struct stat st {};
  Stamp s;
  if (stat((root_ + "/" + rel).c_str(), &st) != 0) return s;
  s.ino = st.st_ino;
  s.size = st.st_size;
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  return s;
}

void KnobWatch::rewrite(const std::string& rel, const std::string& text) {
  std::string why;
  replace_file(root_, rel, text, &why);  // best effort: the tree may be going away
}

bool KnobWatch::load(Knobs* k, std::string* err) {
  if (!enabled_) return true;
  last_ = std::chrono::steady_clock::now();
  bool ok = true;
  for (size_t i = 0; i < files_.size(); ++i) {
    std::string text, why;
    const Stamp before = stamp(files_[i]);
    if (!read_file_text(root_, files_[i], &text)) continue;
    if (!knob_file(i).write(text, k, &why)) {  // refused: the default stays, and shows
      *err += files_[i] + ": " + why + "\n";
      ok = false;
    }
    const std::string shown = knob_file(i).show(*k);
    if (trimmed(text) != shown && stamp(files_[i]) == before) rewrite(files_[i], shown);
    seen_[i] = stamp(files_[i]);
  }
  return ok;
}

bool KnobWatch::poll(Knobs* k, std::string* err) {
  if (!enabled_) return false;
  last_ = std::chrono::steady_clock::now();
  bool changed = false;
  for (size_t i = 0; i < files_.size(); ++i) {
    const Stamp now = stamp(files_[i]);
    if (now == seen_[i]) continue;
    std::string text, why;
    if (!read_file_text(root_, files_[i], &text)) {
      seen_[i] = now;
      continue;
    }
    // `echo x > file` empties the file before it writes: an empty file is a
    // write under way, looked at again at the next tick
    if (trimmed(text).empty()) continue;
    const std::string before = knob_file(i).show(*k);
    if (!knob_file(i).write(text, k, &why)) *err += files_[i] + ": " + why + "\n";
    const std::string after = knob_file(i).show(*k);
    changed = changed || after != before;
    // the read form, unless the file changed again meanwhile (then that
    // write is read at the next tick, the stamp left as it was)
    if (stamp(files_[i]) != now) continue;
    if (trimmed(text) != after) rewrite(files_[i], after);
    seen_[i] = stamp(files_[i]);
  }
  return changed;
}

}  // namespace rocenic::driver
