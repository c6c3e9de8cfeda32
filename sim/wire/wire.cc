#include "wire.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "pcap.h"
#include "wire_dir.h"

namespace rocenic::wire {

using namespace detail;

namespace {

constexpr int kPeerSndBuf = 4 << 20;  // bytes a peer socket may have in flight (capped by wmem_max)

bool to_sockaddr(const std::string& path, sockaddr_un* sa) {
  *sa = sockaddr_un{};
  sa->sun_family = AF_UNIX;
  if (path.size() >= sizeof sa->sun_path) return false;
  std::memcpy(sa->sun_path, path.c_str(), path.size() + 1);
  return true;
}

bool is_full(int e) { return e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS; }

uint64_t wall_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return uint64_t(ts.tv_sec) * 1000000000u + uint64_t(ts.tv_nsec);
}

std::string who(const Member& m) {
  return "MAC " + format_mac(m.mac) + (m.pid ? ", pid " + std::to_string(m.pid) : std::string());
}

// Throws WireError EADDRINUSE if a live member has this MAC or one of these addresses.
void check_free(const std::string& name, const std::string& dir, const Mac& mac, const std::vector<Addr>& addrs) {
  for (const Member& m : live_members(dir)) {
    if (m.mac == mac)
      throw WireError("MAC " + format_mac(mac) + " is already on wire '" + name + "' (" + who(m) +
                          "): give each process its own --mac or --ip",
                      EADDRINUSE);
    for (const Addr& a : addrs)
      for (const Addr& b : m.addrs)
        if (a == b)
          throw WireError("address " + format_addr(a) + " is already on wire '" + name + "' (" + who(m) + ")",
                          EADDRINUSE);
  }
}

}  // namespace

std::unique_ptr<Wire> Wire::join(const Options& o) {
  std::unique_ptr<Wire> w(new Wire);
  w->dir_ = wire_dir(o.name);
  w->mac_ = o.mac;
  w->clock_ns_ = o.clock_ns;
  if (o.faults.any()) w->faults_ = std::make_unique<FaultInjector>(o.faults);
  if (o.mac[0] & 1) throw WireError("MAC " + format_mac(o.mac) + " is a multicast address", EINVAL);
  w->sock_path_ = w->dir_ + "/" + mac_hex(o.mac);
  w->addr_path_ = w->sock_path_ + ".addr";
  sockaddr_un sa;
  if (!to_sockaddr(w->sock_path_, &sa))
    throw WireError("wire socket path " + w->sock_path_ + " is longer than " + std::to_string(sizeof sa.sun_path - 1) +
                        " bytes: set ROCENIC_WIRE_DIR to a shorter directory",
                    ENAMETOOLONG);
  if (!o.pcap.empty()) {
    try {
      w->pcap_ = std::make_unique<PcapWriter>(o.pcap);
    } catch (const std::exception& e) {
      throw WireError(std::string(e.what()) + ": " + std::strerror(errno), errno ? errno : EIO);
    }
  }
  make_wire_dir(w->dir_);
  {
    DirLock lock(w->dir_);
    sweep(w->dir_);
    check_free(o.name, w->dir_, o.mac, o.addrs);
    w->rx_fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (w->rx_fd_ < 0) throw WireError(std::string("wire socket: ") + std::strerror(errno), errno);
    unlink(w->sock_path_.c_str());  // swept: nothing live there
    if (bind(w->rx_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      throw WireError("cannot bind " + w->sock_path_ + ": " + std::strerror(errno), errno);
    w->activity_ = std::make_unique<Activity>(w->sock_path_ + ".act");
    Member me;
    me.mac = o.mac;
    me.pid = getpid();
    me.addrs = o.addrs;
    try {
      write_member(w->addr_path_, me);
    } catch (...) {
      unlink(w->sock_path_.c_str());
      throw;
    }
  }
  w->rx_buf_.resize(kMaxFrame + 1);
  return w;
}

Wire::~Wire() {
  if (rx_fd_ >= 0) {
    try {
      DirLock lock(dir_);
      unlink(sock_path_.c_str());
      unlink(addr_path_.c_str());
      activity_.reset();
    } catch (const WireError&) {  // the directory went away: nothing left to remove
    }
    close(rx_fd_);
  }
  for (auto& [mac, p] : peers_)
    if (p.fd >= 0) close(p.fd);
  pcap_.reset();  // completes the file
}

void Wire::capture(const uint8_t* frame, size_t len) {
  if (pcap_) pcap_->write(std::vector<uint8_t>(frame, frame + len), clock_ns_ ? clock_ns_() : wall_ns());
}

void Wire::close_peer(const Mac& m) {
  auto it = peers_.find(m);
  if (it == peers_.end()) return;
  close(it->second.fd);
  peers_.erase(it);
}

bool Wire::drain(Peer& p) {
  while (!p.queue.empty()) {
    const std::vector<uint8_t>& f = p.queue.front();
    const ssize_t n = ::send(p.fd, f.data(), f.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && is_full(errno)) return false;
    if (n == static_cast<ssize_t>(f.size())) {
      ++stats_.tx_frames;
      activity_->sent();
    } else
      ++stats_.tx_dropped;  // the peer went away with frames waiting for it
    p.queue.pop_front();
  }
  return true;
}

void Wire::send_to(const Mac& dst, const uint8_t* frame, size_t len) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto it = peers_.find(dst);
    if (it == peers_.end()) {
      sockaddr_un sa;
      if (!to_sockaddr(dir_ + "/" + mac_hex(dst), &sa)) {
        ++stats_.tx_no_member;
        return;
      }
      const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (fd < 0) {
        ++stats_.tx_dropped;
        return;
      }
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &kPeerSndBuf, sizeof kPeerSndBuf);
      if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0) {
        close(fd);
        ++stats_.tx_no_member;  // nobody (alive) has that MAC on this wire
        return;
      }
      it = peers_.emplace(dst, Peer{fd, {}}).first;
    }
    Peer& p = it->second;
    if (!p.queue.empty()) {  // keep the order: behind what already waits
      if (p.queue.size() >= kMaxQueuedFrames) {
        ++stats_.tx_dropped;
        return;
      }
      p.queue.emplace_back(frame, frame + len);
      ++stats_.tx_queued;
      drain(p);
      return;
    }
    ssize_t n;
    do {
      n = ::send(p.fd, frame, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    if (n == static_cast<ssize_t>(len)) {
      ++stats_.tx_frames;
      activity_->sent();
      return;
    }
    if (n < 0 && is_full(errno)) {
      p.queue.emplace_back(frame, frame + len);
      ++stats_.tx_queued;
      return;
    }
    // The member this socket reached has left; a new one may hold the MAC now.
    close_peer(dst);
  }
  ++stats_.tx_no_member;
}

void Wire::send(const uint8_t* frame, size_t len) {
  std::lock_guard<std::mutex> lock(mu_);
  if (len < kMinFrame || len > kMaxFrame) {
    ++stats_.tx_dropped;
    return;
  }
  capture(frame, len);
  if (faults_)
    faults_->pass(frame, len, [this](const uint8_t* f, size_t n) { route(f, n); });
  else
    route(frame, len);
}

void Wire::route(const uint8_t* frame, size_t len) {
  Mac dst;
  std::memcpy(dst.data(), frame, 6);
  if (dst[0] & 1) {  // broadcast / multicast: every other member
    for (const Member& m : live_members(dir_))
      if (m.mac != mac_) send_to(m.mac, frame, len);
  } else if (dst == mac_) {
    ++stats_.tx_dropped;  // a port never hears its own frames back
  } else {
    send_to(dst, frame, len);
  }
}

size_t Wire::receive(const FrameFn& fn, size_t max) {
  size_t n = 0;
  while (n < max) {
    const ssize_t r = recv(rx_fd_, rx_buf_.data(), rx_buf_.size(), MSG_DONTWAIT | MSG_TRUNC);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;  // EAGAIN: nothing more
    }
    const size_t len = static_cast<size_t>(r);
    {
      std::lock_guard<std::mutex> lock(mu_);
      activity_->set_busy(true);  // before the count: a frame read is work until the NIC idles again
      activity_->received();
      if (len < kMinFrame || len > kMaxFrame) {
        ++stats_.rx_dropped;
        continue;
      }
      ++stats_.rx_frames;
      capture(rx_buf_.data(), len);
    }
    fn(rx_buf_.data(), len);  // without mu_: fn may send (through the engine)
    ++n;
  }
  return n;
}

bool Wire::flush() {
  std::lock_guard<std::mutex> lock(mu_);
  if (faults_) faults_->release_held([this](const uint8_t* f, size_t n) { route(f, n); });
  bool empty = true;
  for (auto& [mac, p] : peers_) empty = drain(p) && empty;
  return empty;
}

bool Wire::pending() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (faults_ && faults_->holding()) return true;
  for (const auto& [mac, p] : peers_)
    if (!p.queue.empty()) return true;
  return false;
}

void Wire::poll_fds(std::vector<pollfd>* fds) const {
  fds->push_back({rx_fd_, POLLIN, 0});
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [mac, p] : peers_)
    if (!p.queue.empty()) fds->push_back({p.fd, POLLOUT, 0});
}

void Wire::set_busy(bool busy) {
  std::lock_guard<std::mutex> lock(mu_);
  activity_->set_busy(busy);
}

bool Wire::quiet() {
  if (pending()) return false;
  std::vector<std::string> paths;
  for (const Member& m : live_members(dir_)) paths.push_back(dir_ + "/" + mac_hex(m.mac) + ".act");
  std::lock_guard<std::mutex> lock(mu_);
  return activity_->quiet(paths);
}

void Wire::set_waiting(bool waiting) {
  std::lock_guard<std::mutex> lock(mu_);
  activity_->set_waiting(waiting);
}

bool Wire::peers_waiting() const {
  std::vector<std::string> paths;
  for (const Member& m : live_members(dir_)) paths.push_back(dir_ + "/" + mac_hex(m.mac) + ".act");
  std::lock_guard<std::mutex> lock(mu_);
  return activity_->others_waiting(paths);
}

bool Wire::resolve(const Addr& addr, Mac* mac) const {
  for (const Member& m : live_members(dir_))
    for (const Addr& a : m.addrs)
      if (a == addr) {
        *mac = m.mac;
        return true;
      }
  return false;
}

std::vector<Mac> Wire::members() const {
  std::vector<Mac> out;
  for (const Member& m : live_members(dir_)) out.push_back(m.mac);
  return out;
}

WireStats Wire::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  WireStats s = stats_;
  if (faults_) s.faults = faults_->stats();
  return s;
}

std::string join_conflict(const std::string& name, const Mac& mac, const std::vector<Addr>& addrs) {
  try {
    const std::string dir = wire_dir(name);
    make_wire_dir(dir);
    DirLock lock(dir);
    sweep(dir);
    check_free(name, dir, mac, addrs);
  } catch (const WireError& e) {
    return e.what();
  }
  return "";
}

void remove_if_stale(const std::string& name, const Mac& mac) {
  try {
    const std::string dir = wire_dir(name);
    DirLock lock(dir);
    const std::string sock = dir + "/" + mac_hex(mac);
    if (probe(sock) == Liveness::kDead) {
      unlink(sock.c_str());
      unlink((sock + ".addr").c_str());
      unlink((sock + ".act").c_str());
    }
  } catch (const WireError&) {  // no directory: nothing to remove
  }
}

}  // namespace rocenic::wire
