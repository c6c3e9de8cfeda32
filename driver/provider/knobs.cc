#include "knobs.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace rocenic::driver {
namespace {

const std::string kIb = std::string("class/infiniband/") + "rocenic0";
const std::string kCm = std::string("kernel/config/rdma_cm/") + "rocenic0" + "/ports/1";

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// A decimal integer with an optional '-', nothing else.
bool parse_int(const std::string& s, long lo, long hi, long* v) {
  if (s.empty() || s.size() > 6) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j)
    if (s[j] < '0' || s[j] > '9') return false;
  *v = std::stol(s);
  return *v >= lo && *v <= hi;
}

// "a.b.c.d[/bits]" (v6 false) or an IPv6 address[/bits].
bool parse_prefix(const std::string& s, bool v6, Gid* g, unsigned* bits, std::string* err) {
  const size_t slash = s.find('/');
  const std::string addr = s.substr(0, slash);
  const unsigned max_bits = v6 ? 128 : 32;
  *g = Gid{};
  if (v6) {
    in6_addr a{};
    if (inet_pton(AF_INET6, addr.c_str(), &a) != 1) return *err = "'" + addr + "' is not an IPv6 address", false;
    std::memcpy(g->data(), a.s6_addr, 16);
  } else {
    in_addr a{};
    if (inet_pton(AF_INET, addr.c_str(), &a) != 1) return *err = "'" + addr + "' is not an IPv4 address", false;
    (*g)[10] = (*g)[11] = 0xff;
    std::memcpy(g->data() + 12, &a.s_addr, 4);
  }
  *bits = max_bits;
  if (slash != std::string::npos) {
    long b = 0;
    if (!parse_int(s.substr(slash + 1), 0, max_bits, &b))
      return *err = "'" + s.substr(slash + 1) + "' is not a prefix length 0.." + std::to_string(max_bits), false;
    *bits = static_cast<unsigned>(b);
  }
  // host bits cleared: 10.0.0.5/8 is the rule 10.0.0.0/8
  const unsigned first = v6 ? 0 : 12;
  for (unsigned b = *bits; b < max_bits; ++b) (*g)[first + b / 8] &= static_cast<uint8_t>(~(0x80u >> (b % 8)));
  return true;
}

std::string format_prefix(const Gid& g, unsigned bits, bool v6) {
  char buf[INET6_ADDRSTRLEN] = "";
  if (v6)
    inet_ntop(AF_INET6, g.data(), buf, sizeof buf);
  else
    inet_ntop(AF_INET, g.data() + 12, buf, sizeof buf);
  std::string s = buf;
  if (bits != (v6 ? 128u : 32u)) s += "/" + std::to_string(bits);
  return s;
}

// addr (a GID) inside prefix p/bits of a v4 (mapped) or v6 rule.
bool in_prefix(const Gid& addr, const Gid& p, unsigned bits, bool v6) {
  const unsigned first = v6 ? 0 : 12, total = v6 ? 128 : 32;
  bool mapped = addr[10] == 0xff && addr[11] == 0xff;  // ::ffff:a.b.c.d, an IPv4 address
  for (int i = 0; i < 10; ++i) mapped = mapped && addr[i] == 0;
  if (mapped != !v6) return false;  // an IPv4 rule never matches an IPv6 address, and back
  for (unsigned b = 0; b < bits && b < total; ++b) {
    const unsigned byte = first + b / 8, bit = 7 - b % 8;
    if (((addr[byte] >> bit) & 1) != ((p[byte] >> bit) & 1)) return false;
  }
  return true;
}

bool same_match(const TcRule& a, const TcRule& b) {
  return a.v6 == b.v6 && a.has_src == b.has_src && a.has_dst == b.has_dst && (!a.has_src || (a.src == b.src && a.src_bits == b.src_bits)) &&
         (!a.has_dst || (a.dst == b.dst && a.dst_bits == b.dst_bits));
}

// One line of traffic_class text, applied to k.
bool traffic_class_line(const std::string& line, Knobs* k, std::string* err) {
  long v = 0;
  if (line.rfind("Global tclass=", 0) == 0) {
    if (!parse_int(line.substr(14), -1, 255, &v)) return *err = "'" + line + "': tclass must be -1..255", false;
    k->global_tclass = static_cast<int>(v);
    return true;
  }
  if (parse_int(line, -1, 255, &v)) {
    k->global_tclass = static_cast<int>(v);
    return true;
  }
  TcRule r;
  bool has_tclass = false;
  std::stringstream ss(line);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    const size_t eq = item.find('=');
    if (eq == std::string::npos) return *err = "'" + item + "': want key=value (src_ip, dst_ip, src_ip6, dst_ip6, tclass)", false;
    const std::string key = item.substr(0, eq), val = item.substr(eq + 1);
    if (key == "tclass") {
      if (!parse_int(val, -1, 255, &v)) return *err = "tclass '" + val + "': must be -1..255", false;
      r.tclass = static_cast<int>(v);
      has_tclass = true;
    } else if (key == "src_ip" || key == "dst_ip" || key == "src_ip6" || key == "dst_ip6") {
      const bool v6 = key.back() == '6', src = key[0] == 's';
      if ((r.has_src || r.has_dst) && r.v6 != v6) return *err = "a rule is IPv4 (src_ip, dst_ip) or IPv6 (src_ip6, dst_ip6), not both", false;
      r.v6 = v6;
      if (src ? r.has_src : r.has_dst) return *err = key + " given twice", false;
      if (!parse_prefix(val, v6, src ? &r.src : &r.dst, src ? &r.src_bits : &r.dst_bits, err)) return false;
      (src ? r.has_src : r.has_dst) = true;
    } else {
      return *err = "unknown key '" + key + "' (want src_ip, dst_ip, src_ip6, dst_ip6, tclass)", false;
    }
  }
  if (!has_tclass) return *err = "'" + line + "': a rule needs tclass=N", false;
  if (!r.has_src && !r.has_dst) {  // "tclass=N": the global value
    k->global_tclass = r.tclass;
    return true;
  }
  for (size_t i = 0; i < k->rules.size(); ++i)
    if (same_match(k->rules[i], r)) {
      if (r.tclass < 0)
        k->rules.erase(k->rules.begin() + static_cast<long>(i));
      else
        k->rules[i].tclass = r.tclass;
      return true;
    }
  if (r.tclass < 0) return *err = "'" + line + "': no such rule to remove", false;
  k->rules.push_back(r);
  return true;
}

}  // namespace

std::string traffic_class_path() { return kIb + "/tc/1/traffic_class"; }
std::string ttl_path() { return kIb + "/tc/1/ttl"; }
std::string roce_enable_path() { return kIb + "/device/roce_enable"; }
std::string roce_mode_path() { return kCm + "/default_roce_mode"; }
std::string roce_tos_path() { return kCm + "/default_roce_tos"; }

std::string format_traffic_class(const Knobs& k) {
  std::string s = "Global tclass=" + std::to_string(k.global_tclass);
  for (const TcRule& r : k.rules) {
    s += "\n";
    if (r.has_src) s += std::string(r.v6 ? "src_ip6=" : "src_ip=") + format_prefix(r.src, r.src_bits, r.v6) + ",";
    if (r.has_dst) s += std::string(r.v6 ? "dst_ip6=" : "dst_ip=") + format_prefix(r.dst, r.dst_bits, r.v6) + ",";
    s += "tclass=" + std::to_string(r.tclass);
  }
  return s;
}

std::string format_roce_mode(bool v2) { return v2 ? "RoCE v2" : "IB/RoCE v1"; }

bool write_traffic_class(const std::string& text, Knobs* k, std::string* err) {
  Knobs n = *k;
  std::stringstream ss(text);
  std::string line;
  bool any = false;
  while (std::getline(ss, line)) {
    line = trim(line);
    if (line.empty()) continue;
    if (!any && line.rfind("Global tclass=", 0) == 0) {  // the read form: a whole state
      n.global_tclass = -1;
      n.rules.clear();
    }
    any = true;
    if (!traffic_class_line(line, &n, err)) return false;
  }
  if (!any) return *err = "empty: want N, tclass=N or a rule src_ip=A[/BITS],dst_ip=B[/BITS],tclass=N", false;
  *k = n;
  return true;
}

bool write_ttl(const std::string& text, Knobs* k, std::string* err) {
  long v = 0;
  if (!parse_int(trim(text), 0, 255, &v)) return *err = "ttl '" + trim(text) + "': must be 0 (none) .. 255", false;
  k->ttl = static_cast<unsigned>(v);
  return true;
}

bool write_roce_enable(const std::string& text, Knobs* k, std::string* err) {
  const std::string t = trim(text);
  if (t != "0" && t != "1") return *err = "roce_enable '" + t + "': must be 0 or 1", false;
  k->roce_enable = t == "1";
  return true;
}

bool write_roce_mode(const std::string& text, Knobs* k, std::string* err) {
  const std::string t = trim(text);
  if (t == "RoCE v2") {
    k->roce_mode_v2 = true;
  } else if (t == "IB/RoCE v1") {
    k->roce_mode_v2 = false;
  } else {
    return *err = "default_roce_mode '" + t + "': must be 'RoCE v2' or 'IB/RoCE v1'", false;
  }
  return true;
}

bool write_roce_tos(const std::string& text, Knobs* k, std::string* err) {
  long v = 0;
  if (!parse_int(trim(text), 0, 255, &v)) return *err = "default_roce_tos '" + trim(text) + "': must be 0..255", false;
  k->roce_tos = static_cast<unsigned>(v);
  return true;
}

int rule_tclass(const Knobs& k, const Gid& sgid, const Gid& dgid) {
  for (const TcRule& r : k.rules)
    if ((!r.has_src || in_prefix(sgid, r.src, r.src_bits, r.v6)) && (!r.has_dst || in_prefix(dgid, r.dst, r.dst_bits, r.v6)))
      return r.tclass;
  return -1;
}

bool read_file_text(const std::string& root, const std::string& rel, std::string* text) {
  std::ifstream f(root + "/" + rel);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  *text = ss.str();
  return true;
}

bool replace_file(const std::string& root, const std::string& rel, const std::string& text, std::string* err) {
  const std::string path = root + "/" + rel, tmp = path + "." + std::to_string(getpid()) + ".new";
  // 0644 whatever the umask: the program may run as another user (setpriv, su)
  const int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0 || fchmod(fd, 0644) != 0) {
    *err = tmp + ": " + std::strerror(errno);
    if (fd >= 0) {
      close(fd);
      unlink(tmp.c_str());
    }
    return false;
  }
  FILE* f = fdopen(fd, "w");
  if (!f) {
    *err = tmp + ": " + std::strerror(errno);
    close(fd);
    unlink(tmp.c_str());
    return false;
  }
  const bool ok = std::fprintf(f, "%s\n", text.c_str()) >= 0;
  if (std::fclose(f) != 0 || !ok || std::rename(tmp.c_str(), path.c_str()) != 0) {
    *err = path + ": " + std::strerror(errno);
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

bool read_knobs(const std::string& root, Knobs* k, std::string* err) {
  bool ok = true;
  struct File {
    std::string rel;
    bool (*write)(const std::string&, Knobs*, std::string*);
  };
  const File files[] = {{traffic_class_path(), write_traffic_class}, {ttl_path(), write_ttl},
                        {roce_enable_path(), write_roce_enable},     {roce_mode_path(), write_roce_mode},
                        {roce_tos_path(), write_roce_tos}};
  for (const File& f : files) {
    std::string text, why;
    if (!read_file_text(root, f.rel, &text)) continue;
    if (!f.write(text, k, &why)) {  // the others are still read
      *err += f.rel + ": " + why + "\n";
      ok = false;
    }
  }
  return ok;
}

bool write_knob_files(const std::string& root, const Knobs& k, std::string* err) {
  return replace_file(root, traffic_class_path(), format_traffic_class(k), err) &&
         replace_file(root, ttl_path(), std::to_string(k.ttl), err) &&
         replace_file(root, roce_enable_path(), k.roce_enable ? "1" : "0", err) &&
         replace_file(root, roce_mode_path(), format_roce_mode(k.roce_mode_v2), err) &&
         replace_file(root, roce_tos_path(), std::to_string(k.roce_tos), err);
}

bool write_gid_files(const std::string& root, const Config& cfg, unsigned gid_tbl_len, bool enabled, std::string* err) {
  const std::string port = kIb + "/ports/1";
  std::vector<const GidEntry*> by_index(gid_tbl_len, nullptr);
  for (const GidEntry& g : cfg.gids) {
    if (g.index >= gid_tbl_len)
      return *err = "GID index " + std::to_string(g.index) + " is beyond the table of " + std::to_string(gid_tbl_len), false;
    if (enabled) by_index[g.index] = &g;
  }
  for (unsigned i = 0; i < gid_tbl_len; ++i) {
    const GidEntry* g = by_index[i];
    const std::string n = std::to_string(i), ndev = root + "/" + port + "/gid_attrs/ndevs/" + n;
    // An unused entry reads as the zero GID (which every reader skips). Its
    // type file still exists: where the kernel answers EINVAL for it,
    // libibverbs' sysfs fallback treats a missing file as an error and
    // ibv_query_gid_table would fail. It has no ndevs file.
    if (!replace_file(root, port + "/gids/" + n, format_gid(g ? g->gid : Gid{}), err) ||
        !replace_file(root, port + "/gid_attrs/types/" + n, gid_type_sysfs(g ? g->type : GidType::kRoceV1), err))
      return false;
    if (g) {
      // the simulated port's netdev (config.h); libibverbs resolves the name
      // with if_nametoindex(), which the shim answers
      if (!replace_file(root, port + "/gid_attrs/ndevs/" + n, netdev_name(g->vlan), err)) return false;
    } else if (unlink(ndev.c_str()) != 0 && errno != ENOENT) {
      return *err = ndev + ": " + std::strerror(errno), false;
    }
  }
  return true;
}

}  // namespace rocenic::driver
