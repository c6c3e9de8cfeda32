// What the members of a wire are doing, in shared memory: how the
// simulation threads of separate processes agree that the wire is quiet.
//
// Each member publishes a slot (<dir>/<mac>.act, 32 bytes, mmap'd): frames
// it handed to peer sockets, frames it read from its own, and whether its
// NIC is busy (engine running, frames held back). The wire is quiet when
// every live member is idle and every frame sent has been read: nothing can
// arrive any more, so a NIC waiting for a response can let its transport
// timer expire (simulated time is per process and stands still while a NIC
// idles; without this a lost frame would wait for ever, and with a
// wall-clock guess a slow peer would see spurious timeouts).
//
// A snapshot is taken twice and kept only if no slot changed between the
// reads (each slot counts its changes). Counts of a member that died with
// frames unread never balance: a snapshot that stays unchanged, all idle,
// for kSettledNs counts as quiet too. kSettledNs is long (5 s): a live
// member starved of the CPU also leaves frames unread, and taking that for
// quiet lets the peer's timers expire spuriously (on a loaded 2-core
// machine a 0.5 s wait was seen to exhaust ibv_rc_pingpong's retry count).
//
// A slot also says whether its NIC waits on a transport timer (a request
// not yet acknowledged). A program about to destroy an RC QP looks at its
// peers' flags: the peer may be waiting for this QP's ACK, the last one
// lost on a lossy wire (see Engine::await_waiting_peers).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace rocenic::wire {

struct ActivitySlot {
  std::atomic<uint64_t> changes;   // bumped after every other field changes
  std::atomic<uint64_t> sent;      // frames handed to peer sockets
  std::atomic<uint64_t> received;  // datagrams read from the own socket
  std::atomic<uint32_t> busy;      // 1: the NIC has work or frames waiting
  std::atomic<uint32_t> waiting;   // 1: a transport timer is armed (a request awaits its answer)
};
static_assert(std::atomic<uint64_t>::is_always_lock_free, "slots are shared between processes");

class Activity {
 public:
  static constexpr uint64_t kSettledNs = 5'000'000'000;

  // Creates (or re-creates) the member's slot file; throws WireError.
  explicit Activity(const std::string& path);
  ~Activity();
  Activity(const Activity&) = delete;
  Activity& operator=(const Activity&) = delete;

  void sent() { bump(slot_->sent); }
  void received() { bump(slot_->received); }
  void set_busy(bool busy);
  void set_waiting(bool waiting) { slot_->waiting.store(waiting); }
  // Whether any slot among `paths` but this one's waits on a transport timer.
  bool others_waiting(const std::vector<std::string>& paths) const;
  // Whether every slot among `paths` (the live members', this one's
  // included) is idle with the wire drained.
  bool quiet(const std::vector<std::string>& paths);

 private:
  template <typename T>
  void bump(std::atomic<T>& f) {
    f.fetch_add(1);
    slot_->changes.fetch_add(1);
  }
  std::string path_;
  ActivitySlot* slot_ = nullptr;
  // the last snapshot that did not balance: its change total, and since when
  uint64_t last_changes_ = 0, unchanged_since_ns_ = 0;
};

}  // namespace rocenic::wire
