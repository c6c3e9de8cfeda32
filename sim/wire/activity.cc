#include "activity.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "wire.h"

namespace rocenic::wire {
namespace {

uint64_t mono_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count());
}

// Maps a slot file read-only; nullptr if it is not there (yet, or any more).
const ActivitySlot* map_slot(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  void* p = mmap(nullptr, sizeof(ActivitySlot), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  return p == MAP_FAILED ? nullptr : static_cast<const ActivitySlot*>(p);
}

struct Snapshot {
  bool complete = true, idle = true;
  uint64_t changes = 0, sent = 0, received = 0;
};

Snapshot read_all(const std::vector<const ActivitySlot*>& slots) {
  Snapshot s;
  for (const ActivitySlot* a : slots) {
    if (!a) {
      s.complete = false;
      continue;
    }
    s.changes += a->changes.load();
    s.idle = s.idle && a->busy.load() == 0;
    s.sent += a->sent.load();
    s.received += a->received.load();
  }
  return s;
}

}  // namespace

Activity::Activity(const std::string& path) : path_(path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw WireError("cannot create " + path + ": " + std::strerror(errno), errno);
  if (ftruncate(fd, sizeof(ActivitySlot)) != 0) {
    const int e = errno;
    close(fd);
    throw WireError("cannot size " + path + ": " + std::strerror(e), e);
  }
  void* p = mmap(nullptr, sizeof(ActivitySlot), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (p == MAP_FAILED) throw WireError("cannot map " + path + ": " + std::strerror(errno), errno);
  slot_ = static_cast<ActivitySlot*>(p);  // zero-filled: idle, nothing sent or read
}

Activity::~Activity() {
  if (slot_) munmap(slot_, sizeof(ActivitySlot));
  unlink(path_.c_str());
}

void Activity::set_busy(bool busy) {
  if (slot_->busy.load() == static_cast<uint32_t>(busy)) return;
  slot_->busy.store(busy);
  slot_->changes.fetch_add(1);
}

bool Activity::others_waiting(const std::vector<std::string>& paths) const {
  bool waiting = false;
  for (const std::string& p : paths) {
    if (p == path_) continue;
    if (const ActivitySlot* a = map_slot(p)) {
      waiting = waiting || a->waiting.load() != 0;
      munmap(const_cast<ActivitySlot*>(a), sizeof(ActivitySlot));
    }
  }
  return waiting;
}

bool Activity::quiet(const std::vector<std::string>& paths) {
  std::vector<const ActivitySlot*> slots;
  for (const std::string& p : paths) slots.push_back(p == path_ ? slot_ : map_slot(p));
  const Snapshot a = read_all(slots), b = read_all(slots);
  for (size_t i = 0; i < slots.size(); ++i)
    if (slots[i] && slots[i] != slot_) munmap(const_cast<ActivitySlot*>(slots[i]), sizeof(ActivitySlot));
  if (a.changes != b.changes || !b.idle) {
    last_changes_ = 0;
    unchanged_since_ns_ = 0;
    return false;
  }
  if (b.complete && b.sent == b.received) return true;
  // Unbalanced (a member died with frames unread, or one is joining): quiet
  // once nothing has changed for a while.
  const uint64_t now = mono_ns();
  if (unchanged_since_ns_ == 0 || b.changes != last_changes_) {
    last_changes_ = b.changes;
    unchanged_since_ns_ = now;
    return false;
  }
  return now - unchanged_since_ns_ >= kSettledNs;
}

}  // namespace rocenic::wire
