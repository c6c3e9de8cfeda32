#include "wire_dir.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rocenic::wire {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

bool valid_name(const std::string& s) {
  if (s.empty() || s.size() > 64 || s == "." || s == "..") return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) return false;
  return true;
}

}  // namespace

std::string format_mac(const Mac& m) {
  char b[18];
  std::snprintf(b, sizeof b, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

bool parse_mac(const std::string& s, Mac* m) {
  unsigned v[6];
  char tail;
  if (s.size() != 17 ||
      std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &tail) != 6)
    return false;
  for (int i = 0; i < 6; ++i) (*m)[i] = static_cast<uint8_t>(v[i]);
  return true;
}

std::string format_addr(const Addr& a) {
  static const uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  char b[INET6_ADDRSTRLEN];
  if (std::memcmp(a.data(), kMapped, 12) == 0) return inet_ntop(AF_INET, a.data() + 12, b, sizeof b);
  return inet_ntop(AF_INET6, a.data(), b, sizeof b);
}

bool parse_addr(const std::string& s, Addr* a) {
  a->fill(0);
  if (inet_pton(AF_INET, s.c_str(), a->data() + 12) == 1) {
    (*a)[10] = (*a)[11] = 0xff;
    return true;
  }
  return inet_pton(AF_INET6, s.c_str(), a->data()) == 1;
}

std::string wire_dir(const std::string& name) {
  if (!valid_name(name)) throw WireError("wire name '" + name + "': 1 to 64 characters of A-Z a-z 0-9 _ - .", EINVAL);
  if (const char* d = std::getenv("ROCENIC_WIRE_DIR"); d && *d) return std::string(d) + "/" + name;
  // The user's runtime directory when it is theirs to write (not one inherited
  // across su/setpriv from another user).
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x && access(x, W_OK | X_OK) == 0)
    return std::string(x) + "/rocenic-wires/" + name;
  return "/tmp/rocenic-" + std::to_string(getuid()) + "/wires/" + name;
}

namespace detail {

std::string mac_hex(const Mac& m) {
  char b[13];
  std::snprintf(b, sizeof b, "%02x%02x%02x%02x%02x%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
  return b;
}

bool parse_mac_hex(const std::string& s, Mac* m) {
  if (s.size() != 12) return false;
  for (int i = 0; i < 6; ++i) {
    unsigned v = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = s[2 * i + k];
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
      if (d < 0) return false;
      v = v * 16 + static_cast<unsigned>(d);
    }
    (*m)[i] = static_cast<uint8_t>(v);
  }
  return true;
}

void make_wire_dir(const std::string& dir) {
  // mkdir -p, each component we create 0700 (a wire is private to its user).
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    const std::string part = dir.substr(0, pos);
    if (mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw WireError("cannot create the wire directory " + part + ": " + errno_text(errno), errno);
  }
  struct stat st {};
  if (lstat(dir.c_str(), &st) != 0)
    throw WireError("wire directory " + dir + ": " + errno_text(errno), errno);
  if (!S_ISDIR(st.st_mode)) throw WireError("wire directory " + dir + " is not a directory", ENOTDIR);
  if (st.st_uid != geteuid())
    throw WireError("wire directory " + dir + " belongs to another user (uid " + std::to_string(st.st_uid) +
                        "); set ROCENIC_WIRE_DIR to a directory of your own",
                    EACCES);
}

DirLock::DirLock(const std::string& dir) {
  const std::string path = dir + "/.lock";
  fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd_ < 0) throw WireError("cannot open " + path + ": " + errno_text(errno), errno);
  while (flock(fd_, LOCK_EX) != 0)
    if (errno != EINTR) {
      const int e = errno;
      close(fd_);
      throw WireError("cannot lock " + path + ": " + errno_text(e), e);
    }
}

DirLock::~DirLock() {
  if (fd_ >= 0) close(fd_);  // releases the lock
}

Liveness probe(const std::string& sock_path) {
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  if (sock_path.size() >= sizeof sa.sun_path) return Liveness::kAbsent;
  std::memcpy(sa.sun_path, sock_path.c_str(), sock_path.size() + 1);
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Liveness::kLive;  // cannot tell: never remove what may be alive
  const int rc = connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  const int e = errno;
  close(fd);
  if (rc == 0) return Liveness::kLive;
  if (e == ECONNREFUSED) return Liveness::kDead;
  if (e == ENOENT) return Liveness::kAbsent;
  return Liveness::kLive;  // EACCES and the like: someone's, leave it alone
}

bool read_member(const std::string& path, Member* m) {
  std::ifstream f(path);
  if (!f) return false;
  *m = Member{};
  bool have_mac = false;
  std::string line;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string key, value;
    if (!(in >> key >> value)) continue;
    if (key == "mac") {
      have_mac = parse_mac(value, &m->mac);
    } else if (key == "pid") {
      m->pid = static_cast<pid_t>(std::atol(value.c_str()));
    } else if (key == "ip") {
      Addr a;
      if (parse_addr(value, &a)) m->addrs.push_back(a);
    }
  }
  return have_mac;
}

void write_member(const std::string& path, const Member& m) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::trunc);
    f << "mac " << format_mac(m.mac) << "\npid " << m.pid << "\n";
    for (const Addr& a : m.addrs) f << "ip " << format_addr(a) << "\n";
    f.close();
    if (!f) throw WireError("cannot write " + tmp, EIO);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    unlink(tmp.c_str());
    throw WireError("cannot publish " + path + ": " + errno_text(e), e);
  }
}

namespace {

// Every entry of the directory, by name.
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) out.emplace_back(e->d_name);
    closedir(d);
  }
  return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

void sweep(const std::string& dir) {
  for (const std::string& name : entries(dir)) {
    Mac m;
    const std::string path = dir + "/" + name;
    if (parse_mac_hex(name, &m)) {
      if (probe(path) == Liveness::kDead) {
        unlink(path.c_str());
        unlink((path + ".addr").c_str());
        unlink((path + ".act").c_str());
      }
    } else if ((ends_with(name, ".addr") || ends_with(name, ".act")) && name.size() > 12 &&
               parse_mac_hex(name.substr(0, 12), &m) && name[12] == '.') {
      if (probe(dir + "/" + name.substr(0, 12)) == Liveness::kAbsent) unlink(path.c_str());
    } else if (ends_with(name, ".addr.tmp")) {
      unlink(path.c_str());  // a writer died between write and rename (we hold the lock)
    }
  }
}

std::vector<Member> live_members(const std::string& dir) {
  std::vector<Member> out;
  for (const std::string& name : entries(dir)) {
    Mac m;
    if (!parse_mac_hex(name, &m)) continue;
    if (probe(dir + "/" + name) != Liveness::kLive) continue;
    Member mem;
    if (!read_member(dir + "/" + name + ".addr", &mem) || mem.mac != m) {
      mem = Member{};
      mem.mac = m;
    }
    out.push_back(mem);
  }
  return out;
}

}  // namespace detail
}  // namespace rocenic::wire
