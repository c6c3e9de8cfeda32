// The port's hw_counters, as files: rocenic-run's sysfs tree holds
// class/infiniband/rocenic0/ports/1/hw_counters/<name> (the names mlx5 and
// rxe give them, from spec/constants.toml's xport_cnt `linux` keys), where
// Linux shows a real NIC's. The kernel reads those attributes on demand; the
// simulated NIC has no kernel, so the provider writes them: while the engine
// runs (at most every kPeriod, when its simulation thread has a moment) and
// once more when the device closes. Each file is replaced whole (written
// beside, then renamed), so a reader never sees half a number.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace rocenic::driver {

// The port's own counters (ports/1/counters/, the names of the kernel's
// core/sysfs.c): frames and bytes where the port meets the wire, counted by
// the provider, which carries every frame between the engine's MAC ports and
// the wire. Frames the engine loops back to itself never reach the port
// (as on a ConnectX). port_rcv_errors is the engine's RX_DROP total.
struct PortCounters {
  uint64_t xmit_bytes = 0, xmit_packets = 0, rcv_bytes = 0, rcv_packets = 0;
  uint64_t xmit_multicast = 0, rcv_multicast = 0;
};

class HwCounterFiles {
 public:
  static constexpr std::chrono::milliseconds kPeriod{200};

  // dir: the hw_counters directory ("" or missing: publishing does nothing).
  explicit HwCounterFiles(std::string dir);
  // $SYSFS_PATH's hw_counters directory of port 1 ("" without SYSFS_PATH).
  static std::string default_dir();
  // Reads every counter (read(addr, &value), false: unreadable) and rewrites
  // the files whose value changed. due(): kPeriod has passed since the last.
  // With the port counters pc, ports/1/counters/ too.
  void publish(const std::function<bool(uint32_t, uint32_t*)>& read, const PortCounters& pc);
  bool due() const { return enabled_ && std::chrono::steady_clock::now() - last_ >= kPeriod; }

 private:
  std::string dir_;
  bool enabled_ = false;
  std::vector<std::pair<std::string, unsigned>> files_;  // name, xport_cnt index (owned: used at exit too)
  std::vector<int64_t> shown_;  // value in each file (-1: not written yet)
  std::vector<std::pair<std::string, int64_t>> port_shown_;  // ports/1/counters: name, value shown
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace rocenic::driver
