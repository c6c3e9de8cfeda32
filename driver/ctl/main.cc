// rocenic-ctl: the administrator's view of a running simulated NIC, as
// show_gids, the mlx5 tc/ttl attributes, the rdma_cm configfs and the port
// counters give it on a real one. It reads and writes the tree rocenic-run
// made for its program (class/infiniband/rocenic0/...); the provider running
// there applies each change while the program runs (knobs.h).
//
//   rocenic-ctl [--dev PID|WIRE] [--sys DIR] COMMAND
//     list                          running rocenic-run devices
//     show-gids                     the GID table (show_gids' layout)
//     get KNOB                      traffic_class, ttl, roce_enable,
//     set KNOB VALUE...                default_roce_mode, default_roce_tos
//     counters                      port counters, then hw_counters
//
// Without --dev/--sys: $SYSFS_PATH inside rocenic-run, else the only running
// device. Exit 0 on success, 1 when the device or a file cannot be reached,
// 2 for a bad command line or value.
#include <arpa/inet.h>
#include <dirent.h>
#include <glob.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"
#include "knobs.h"
#include "launcher/sysfs_tree.h"

namespace rocenic::driver {
namespace {

constexpr int kExitFail = 1, kExitUsage = 2;

const char* usage() {
  return "usage: rocenic-ctl [--dev PID|WIRE] [--sys DIR] COMMAND\n"
         "  list                      running rocenic-run devices (pid, wire, backend, tree)\n"
         "  show-gids                 the GID table: DEV PORT INDEX GID IPv4 VER DEV (show_gids)\n"
         "  get KNOB                  print a knob\n"
         "  set KNOB VALUE...         change it; the running program sees it at once\n"
         "      traffic_class  N | tclass=N (global, -1 clears) |\n"
         "                     src_ip=A[/BITS],dst_ip=B[/BITS],tclass=N (a rule; -1 removes it;\n"
         "                     src_ip6/dst_ip6 for IPv6); the global value wins, then a rule\n"
         "      ttl            0 (each QP's hop limit) .. 255\n"
         "      roce_enable    1 | 0 (0: UDP 4791 goes to the host, the GID table is empty)\n"
         "      default_roce_mode  'RoCE v2' | 'IB/RoCE v1'   default_roce_tos  0..255\n"
         "  counters                  ports/1/counters, then ports/1/hw_counters\n"
         "  --dev   the rocenic-run process id, or its --wire name (when several run)\n"
         "  --sys   the tree itself (rocenic-run's $SYSFS_PATH)\n";
}

int fail(int code, const std::string& msg) {
  std::fprintf(stderr, "rocenic-ctl: %s\n", msg.c_str());
  return code;
}

struct Running {
  long pid = 0;
  std::string wire, backend, root;  // root: the tree ($SYSFS_PATH)
};

// rocenic-run leaves <tmp>/launcher ("pid N", "wire W", "backend B") beside
// its tree <tmp>/sys; a launcher that is gone left nothing, or a dead pid.
std::vector<Running> running_devices() {
  std::vector<Running> out;
  const char* t = getenv("TMPDIR");
  const std::string pattern = std::string(t && *t ? t : "/tmp") + "/rocenic-run.*/launcher";
  glob_t g{};
  if (glob(pattern.c_str(), 0, nullptr, &g) == 0) {
    for (size_t i = 0; i < g.gl_pathc; ++i) {
      std::ifstream f(g.gl_pathv[i]);
      Running r;
      std::string key, value;
      while (f >> key >> value) {
        if (key == "pid") r.pid = std::atol(value.c_str());
        if (key == "wire") r.wire = value;
        if (key == "backend") r.backend = value;
      }
      std::string dir = g.gl_pathv[i];
      dir.resize(dir.rfind('/'));
      r.root = dir + "/sys";
      if (r.pid > 0 && (kill(static_cast<pid_t>(r.pid), 0) == 0 || errno == EPERM)) out.push_back(r);
    }
  }
  globfree(&g);
  return out;
}

bool find_root(const std::string& dev, const std::string& sys, std::string* root, std::string* err) {
  if (!sys.empty()) {
    *root = sys;
    return true;
  }
  const char* env = getenv("SYSFS_PATH");
  if (dev.empty() && env && *env) {
    *root = env;
    return true;
  }
  std::vector<Running> all = running_devices();
  if (!dev.empty()) {
    for (const Running& r : all)
      if (std::to_string(r.pid) == dev || r.wire == dev) {
        *root = r.root;
        return true;
      }
    *err = "no running rocenic-run device '" + dev + "' (see 'rocenic-ctl list')";
    return false;
  }
  if (all.size() == 1) {
    *root = all[0].root;
    return true;
  }
  *err = all.empty() ? "no rocenic-run device is running" : "several rocenic-run devices run: choose one with --dev";
  return false;
}

const std::string kIb = std::string("class/infiniband/") + kIbdevName;

std::string first_line(const std::string& root, const std::string& rel) {
  std::string text;
  if (!read_file_text(root, rel, &text)) return "";
  return text.substr(0, text.find('\n'));
}

int show_gids(const std::string& root) {
  std::printf("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV\n");
  std::printf("---\t----\t-----\t---\t\t\t\t\t------------ \t---\t---\n");
  const std::string port = kIb + "/ports/1";
  unsigned found = 0;
  for (unsigned i = 0;; ++i) {
    std::string gid_text;
    if (!read_file_text(root, port + "/gids/" + std::to_string(i), &gid_text)) {
      if (i == 0) return fail(kExitFail, root + ": no GID table (is it a rocenic-run tree?)");
      break;
    }
    const std::string gid = gid_text.substr(0, gid_text.find('\n'));
    if (gid == "0000:0000:0000:0000:0000:0000:0000:0000" || gid == "fe80:0000:0000:0000:0000:0000:0000:0000")
      continue;
    const std::string type = first_line(root, port + "/gid_attrs/types/" + std::to_string(i));
    const std::string ver = type == "RoCE v2" ? "v2" : type == "IB/RoCE v1" ? "v1" : type;
    const std::string ndev = first_line(root, port + "/gid_attrs/ndevs/" + std::to_string(i));
    if (gid.rfind("0000:0000:0000:0000:0000:ffff:", 0) == 0) {
      Gid g{};
      parse_gid(gid, &g);
      char v4[INET_ADDRSTRLEN] = "";
      inet_ntop(AF_INET, g.data() + 12, v4, sizeof v4);
      std::printf("%s\t1\t%u\t%s\t%s \t%s\t%s\n", kIbdevName, i, gid.c_str(), v4, ver.c_str(), ndev.c_str());
    } else {
      std::printf("%s\t1\t%u\t%s\t\t\t%s\t%s\n", kIbdevName, i, gid.c_str(), ver.c_str(), ndev.c_str());
    }
    ++found;
  }
  std::printf("n_gids_found=%u\n", found);
  return 0;
}

struct KnobDef {
  const char* name;
  std::string (*path)();
  bool (*write)(const std::string&, Knobs*, std::string*);
  std::string (*show)(const Knobs&);  // the read form
};
const KnobDef kKnobs[] = {
    {"traffic_class", traffic_class_path, write_traffic_class, format_traffic_class},
    {"ttl", ttl_path, write_ttl, [](const Knobs& k) { return std::to_string(k.ttl); }},
    {"roce_enable", roce_enable_path, write_roce_enable,
     [](const Knobs& k) { return std::string(k.roce_enable ? "1" : "0"); }},
    {"default_roce_mode", roce_mode_path, write_roce_mode, [](const Knobs& k) { return format_roce_mode(k.roce_mode_v2); }},
    {"default_roce_tos", roce_tos_path, write_roce_tos, [](const Knobs& k) { return std::to_string(k.roce_tos); }},
};

const KnobDef* knob(const std::string& name) {
  for (const KnobDef& k : kKnobs)
    if (name == k.name) return &k;
  return nullptr;
}

int get_knob(const std::string& root, const KnobDef& k) {
  std::string text;
  if (!read_file_text(root, k.path(), &text)) return fail(kExitFail, root + "/" + k.path() + ": cannot read");
  std::fputs(text.c_str(), stdout);
  if (!text.empty() && text.back() != '\n') std::fputc('\n', stdout);
  return 0;
}

int set_knob(const std::string& root, const KnobDef& k, const std::string& value) {
  Knobs cur;
  std::string err;
  // (a bad file elsewhere does not stop this one: read_knobs keeps reading,
  // and only this knob's file is written)
  if (access((root + "/" + k.path()).c_str(), F_OK) != 0) return fail(kExitFail, root + "/" + k.path() + ": no such file");
  read_knobs(root, &cur, &err);
  const bool was_enabled = cur.roce_enable;
  Knobs next = cur;
  err.clear();
  if (!k.write(value, &next, &err)) return fail(kExitUsage, std::string(k.name) + ": " + err);
  if (!replace_file(root, k.path(), k.show(next), &err)) return fail(kExitFail, err);
  if (next.roce_enable != was_enabled) {
    // the tree's GID files follow at once (the provider also empties the engine's table)
    Config cfg;
    if (!read_config_file(root + "/../config", &cfg, &err)) return fail(kExitFail, err);
    unsigned len = 0;
    while (!first_line(root, kIb + "/ports/1/gids/" + std::to_string(len)).empty()) ++len;
    if (!write_gid_files(root, cfg, len, next.roce_enable, &err)) return fail(kExitFail, err);
  }
  return 0;
}

int counters(const std::string& root) {
  for (const char* sub : {"/ports/1/counters", "/ports/1/hw_counters"}) {
    const std::string dir = root + "/" + kIb + sub;
    DIR* d = opendir(dir.c_str());
    if (!d) return fail(kExitFail, dir + ": " + std::strerror(errno));
    std::vector<std::string> names;
    while (const dirent* e = readdir(d))
      if (e->d_name[0] != '.' && !std::strstr(e->d_name, ".new")) names.emplace_back(e->d_name);
    closedir(d);
    std::sort(names.begin(), names.end());
    std::printf("%s:\n", sub + 1);
    for (const std::string& n : names) std::printf("  %-32s %s\n", n.c_str(), first_line(root, kIb + sub + "/" + n).c_str());
  }
  return 0;
}

int run(int argc, char** argv) {
  std::string dev, sys;
  std::vector<std::string> args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-h" || a == "--help") {
      std::fputs(usage(), stdout);
      return 0;
    }
    if (a == "--dev" || a == "--sys") {
      if (i + 1 >= argc) return fail(kExitUsage, a + " needs a value");
      (a == "--dev" ? dev : sys) = argv[++i];
    } else if (args.empty() && a.rfind("--", 0) == 0) {
      return fail(kExitUsage, "unknown option '" + a + "'\nTry 'rocenic-ctl --help'.");
    } else {
      args.push_back(a);
    }
  }
  if (args.empty()) return fail(kExitUsage, "no command\nTry 'rocenic-ctl --help'.");
  const std::string cmd = args[0];
  if (cmd == "list") {
    if (args.size() != 1) return fail(kExitUsage, "list takes no argument");
    std::printf("PID\tWIRE\tBACKEND\tTREE\n");
    for (const Running& r : running_devices())
      std::printf("%ld\t%s\t%s\t%s\n", r.pid, r.wire.c_str(), r.backend.c_str(), r.root.c_str());
    return 0;
  }
  const bool known = cmd == "show-gids" || cmd == "get" || cmd == "set" || cmd == "counters";
  if (!known) return fail(kExitUsage, "unknown command '" + cmd + "'\nTry 'rocenic-ctl --help'.");
  const KnobDef* k = nullptr;
  if (cmd == "get" || cmd == "set") {
    if (args.size() < 2) return fail(kExitUsage, cmd + " needs a knob: traffic_class, ttl, roce_enable, default_roce_mode, default_roce_tos");
    k = knob(args[1]);
    if (!k) return fail(kExitUsage, "unknown knob '" + args[1] + "' (traffic_class, ttl, roce_enable, default_roce_mode, default_roce_tos)");
    if (cmd == "get" && args.size() != 2) return fail(kExitUsage, "get takes one knob");
    if (cmd == "set" && args.size() < 3) return fail(kExitUsage, std::string("set ") + k->name + " needs a value");
  } else if (args.size() != 1) {
    return fail(kExitUsage, cmd + " takes no argument");
  }
  std::string root, err;
  if (!find_root(dev, sys, &root, &err)) return fail(kExitFail, err);
  if (cmd == "show-gids") return show_gids(root);
  if (cmd == "counters") return counters(root);
  if (cmd == "get") return get_knob(root, *k);
  std::string value = args[2];
  for (size_t i = 3; i < args.size(); ++i) value += " " + args[i];  // "RoCE v2" unquoted
  return set_knob(root, *k, value);
}

}  // namespace
}  // namespace rocenic::driver

int main(int argc, char** argv) { return rocenic::driver::run(argc, argv); }
