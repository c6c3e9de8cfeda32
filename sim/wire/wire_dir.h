// The wire's directory: where members live, the lock that serialises joins,
// liveness of a member's socket, and the neighbour files. Internal to the
// wire library.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "wire.h"

namespace rocenic::wire::detail {

// "aabbccddeeff": a member's socket name; its neighbour file adds ".addr".
std::string mac_hex(const Mac& m);
bool parse_mac_hex(const std::string& s, Mac* m);

// Creates the wire directory (and its parents, 0700) and checks that it is a
// directory owned by this user. Throws WireError.
void make_wire_dir(const std::string& dir);

// flock() on <dir>/.lock for the lifetime of the object: joins, leaves and
// the sweep of stale members never interleave.
class DirLock {
 public:
  explicit DirLock(const std::string& dir);  // throws WireError
  ~DirLock();
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

 private:
  int fd_ = -1;
};

enum class Liveness { kAbsent, kDead, kLive };
// A datagram connect() to the socket: refused means no process holds it.
Liveness probe(const std::string& sock_path);

struct Member {
  Mac mac{};
  pid_t pid = 0;
  std::vector<Addr> addrs;
};
// Neighbour file: "mac M", "pid P", then one "ip A" line per address.
bool read_member(const std::string& path, Member* m);
void write_member(const std::string& path, const Member& m);  // atomically (rename); throws WireError

// Removes every member whose socket is dead, and neighbour files without a
// socket. Call with the DirLock held.
void sweep(const std::string& dir);
// Members whose socket is live (neighbour file read when present).
std::vector<Member> live_members(const std::string& dir);

}  // namespace rocenic::wire::detail
