// The wire: an Ethernet segment between processes on one host.
//
// Every process started with the same wire name is a member. A member is an
// AF_UNIX datagram socket in the wire's directory, named by its MAC
// (`<dir>/aabbccddeeff`), plus its neighbour file (`aabbccddeeff.addr`) that
// publishes its MAC and IP addresses, the way ARP/ND would answer for them.
//
//   send(frame)   unicast: to the member whose MAC is the destination (none:
//                 dropped, as a switch that knows no such port); broadcast
//                 and multicast: to every other member. Never blocks: when a
//                 peer's queue is full the frame waits in a per-peer queue
//                 (order kept) until the peer drains; flush() retries.
//   receive(cb)   frames addressed to this member, without blocking.
//   resolve(ip)   the MAC of the live member that owns an address.
//
// Datagrams carry whole frames of up to kMaxFrame bytes (jumbo frames
// included): the transport never splits or caps them below that. With a
// pcap path every frame sent and received is recorded (sim/pcap.h), stamped
// with the member's clock (Options::clock_ns: the NIC's simulated time).
//
// The directory is $ROCENIC_WIRE_DIR/<name>, else $XDG_RUNTIME_DIR/rocenic-wires/<name>
// (if the user may write there), else /tmp/rocenic-<uid>/wires/<name> (0700,
// owned by the user). Members of
// a process killed without cleanup are stale: join() removes them (their
// socket refuses connections), and no lookup ever returns them.
#pragma once

#include <poll.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "wire/activity.h"
#include "wire/faults.h"

namespace rocenic {
class PcapWriter;
}

namespace rocenic::wire {

using Mac = std::array<uint8_t, 6>;
// An IP address in GID form: IPv6 as is, IPv4 as ::ffff:a.b.c.d.
using Addr = std::array<uint8_t, 16>;

// Largest frame (without FCS) the wire carries: the pcap snap length. Far
// above jumbo frames (9216), so no MTU a user can pick is cut short.
constexpr size_t kMaxFrame = 65535;
constexpr size_t kMinFrame = 14;  // an Ethernet header
// Frames waiting for one slow peer before the wire starts dropping (a switch
// buffer): plenty for the engine's bursts, bounded if a peer stops reading.
constexpr size_t kMaxQueuedFrames = 16384;

class WireError : public std::runtime_error {
 public:
  WireError(const std::string& what, int err) : std::runtime_error(what), errnum(err) {}
  int errnum;  // an errno value describing the failure (EADDRINUSE, EACCES, ...)
};

struct WireStats {
  uint64_t tx_frames = 0, rx_frames = 0;  // handed to a peer socket / received
  uint64_t tx_no_member = 0;              // unicast to a MAC nobody on the wire has
  uint64_t tx_dropped = 0;                // too long, too short, to itself, or a peer's queue overflowed
  uint64_t rx_dropped = 0;                // too long or too short
  uint64_t tx_queued = 0;                 // frames that had to wait for a slow peer
  FaultStats faults;                      // what the fault injector did to the frames sent
};

std::string format_mac(const Mac& m);                // "02:aa:bb:cc:dd:ee"
std::string format_addr(const Addr& a);              // "10.0.0.1" (IPv4-mapped) or IPv6 text
bool parse_mac(const std::string& s, Mac* m);        // "02:aa:bb:cc:dd:ee"
bool parse_addr(const std::string& s, Addr* a);      // IPv4 or IPv6 text

// The directory of wire `name` (not created). Throws WireError (EINVAL) for
// a name that is not [A-Za-z0-9_.-]{1,64}.
std::string wire_dir(const std::string& name);

class Wire {
 public:
  struct Options {
    std::string name = "default";
    Mac mac{};
    std::vector<Addr> addrs;  // published in the neighbour table
    std::string pcap;         // "" = no capture
    // The capture's clock in nanoseconds: the simulated time of the NIC on
    // this member (called from the thread that sends and receives). Empty:
    // the host's wall clock.
    std::function<uint64_t()> clock_ns;
    // Faults on the frames this member sends (none by default); the pcap
    // records what the member sent, its peers' captures what arrived.
    FaultConfig faults;
  };
  using FrameFn = std::function<void(const uint8_t* frame, size_t len)>;

  // Joins: creates the directory, removes stale members, refuses a MAC or an
  // address a live member already has (WireError EADDRINUSE, naming it),
  // binds the socket and publishes the neighbour file.
  static std::unique_ptr<Wire> join(const Options& o);
  // Leaves: removes the socket and neighbour file, closes everything, and
  // completes the pcap.
  ~Wire();
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  void send(const uint8_t* frame, size_t len);
  // Up to max frames, without blocking; returns how many were delivered to fn.
  size_t receive(const FrameFn& fn, size_t max);
  // Ends a burst: releases frames the fault injector holds back (reorder)
  // and retries frames waiting for slow peers; true when none is left waiting.
  bool flush();
  bool pending() const;
  // What to poll while idle: the receive socket (POLLIN) and every peer
  // socket with frames waiting (POLLOUT).
  void poll_fds(std::vector<pollfd>* fds) const;
  // Activity (sim/wire/activity.h): this member says whether its NIC is
  // busy; quiet() is true when every live member is idle and every frame
  // sent on the wire has been read (or nothing changed for a while).
  void set_busy(bool busy);
  bool quiet();
  // This member's NIC waits on a transport timer; does another's?
  void set_waiting(bool waiting);
  bool peers_waiting() const;

  // Neighbour table: the MAC of the live member that publishes addr.
  bool resolve(const Addr& addr, Mac* mac) const;
  // The live members' MACs (this one included).
  std::vector<Mac> members() const;

  const std::string& dir() const { return dir_; }
  const Mac& mac() const { return mac_; }
  WireStats stats() const;

 private:
  struct Peer {
    int fd = -1;
    std::deque<std::vector<uint8_t>> queue;
  };
  Wire() = default;
  void capture(const uint8_t* frame, size_t len);
  void route(const uint8_t* frame, size_t len);
  void send_to(const Mac& dst, const uint8_t* frame, size_t len);
  bool drain(Peer& p);  // true when the peer's queue is empty
  void close_peer(const Mac& m);

  std::string dir_, sock_path_, addr_path_;
  Mac mac_{};
  int rx_fd_ = -1;
  mutable std::mutex mu_;  // peers_, stats_, pcap_: send() runs on any thread
  std::map<Mac, Peer> peers_;
  WireStats stats_;
  std::unique_ptr<PcapWriter> pcap_;
  std::function<uint64_t()> clock_ns_;
  std::unique_ptr<FaultInjector> faults_;  // null: a perfect wire
  std::unique_ptr<Activity> activity_;
  std::vector<uint8_t> rx_buf_;
};

// ---- for the launcher (no membership needed)

// "" when a member with this MAC, or owning one of these addresses, could
// join; else a sentence naming the live member in the way.
std::string join_conflict(const std::string& name, const Mac& mac, const std::vector<Addr>& addrs);
// Removes the entries of member `mac` if no live process holds its socket
// (the program was killed before it could leave).
void remove_if_stale(const std::string& name, const Mac& mac);

}  // namespace rocenic::wire
