// The provider's eye on the knob files of rocenic-run's tree (knobs.h):
// while a program runs, the simulation thread asks every kPeriod whether a
// file changed (its inode, size or modification time), applies what was
// written to the knobs it holds, and rewrites the file in its read form. A
// write that is not valid is dropped (the file shows the state held again)
// and reported.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include "knobs.h"

namespace rocenic::driver {

class KnobWatch {
 public:
  static constexpr std::chrono::milliseconds kPeriod{100};

  // root: the tree ($SYSFS_PATH); "" or a tree without knob files: nothing
  // is watched.
  explicit KnobWatch(std::string root);
  static std::string default_root();  // $SYSFS_PATH, or ""
  const std::string& root() const { return root_; }
  bool enabled() const { return enabled_; }
  bool due() const { return enabled_ && std::chrono::steady_clock::now() - last_ >= kPeriod; }

  // Reads every knob file once (the state the launcher or rocenic-ctl left)
  // and leaves each in its read form. false with *err when a file is bad: k
  // keeps the default for it, and the file shows that.
  bool load(Knobs* k, std::string* err);
  // Applies the files that changed since the last look to *k; true when
  // *k changed. *err collects what was refused.
  bool poll(Knobs* k, std::string* err);

 private:
  struct Stamp {
    ino_t ino = 0;
    off_t size = -1;
    int64_t mtime_ns = -1;
    bool operator==(const Stamp& o) const { return ino == o.ino && size == o.size && mtime_ns == o.mtime_ns; }
    bool operator!=(const Stamp& o) const { return !(*this == o); }
  };
  Stamp stamp(const std::string& rel) const;
  void rewrite(const std::string& rel, const std::string& text);

  std::string root_;
  bool enabled_ = false;
  std::chrono::steady_clock::time_point last_{};
  std::vector<std::string> files_;
  std::vector<Stamp> seen_;
};

}  // namespace rocenic::driver
