// rocenic-run: runs an unmodified verbs program against the simulated NIC.
//
// 1. validates the command line (exit 2 with a message naming the problem);
// 2. asks the engine (the chosen backend) for its GID table length;
// 3. writes a private sysfs tree and the provider's configuration into a
//    temporary directory (removed when the program ends);
// 4. checks that no live process on the wire has the port's MAC or addresses;
// 5. runs the program with SYSFS_PATH, RDMAV_DRIVERS, LD_PRELOAD (the shim)
//    and the ROCENIC_* variables set, and returns its exit status; a program
//    killed before it left the wire has its socket removed here.
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "device.h"
#include "gen/roce_spec.h"
#include "options.h"
#include "sysfs_tree.h"
#include "wire.h"

namespace rocenic::driver {
namespace {

constexpr int kExitUsage = 2;
constexpr int kExitSetup = 125;  // the launcher itself failed (as env(1) and docker do)

volatile sig_atomic_t g_child = 0;

void forward_signal(int sig) {
  if (g_child > 0) kill(g_child, sig);
}

int setup_error(const std::string& what) {
  std::fprintf(stderr, "rocenic-run: %s\n", what.c_str());
  return kExitSetup;
}

// <dir of this executable>/../lib, where librocenic-rdmav34.so and the shim live.
bool library_dir(std::string* dir, std::string* err) {
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    *err = std::string("cannot locate the launcher: ") + std::strerror(errno);
    return false;
  }
  exe[n] = '\0';
  std::string d(exe);
  d.resize(d.rfind('/'));
  char real[PATH_MAX];
  if (!realpath((d + "/../lib").c_str(), real)) {
    *err = "no library directory next to the launcher (" + d + "/../lib): " + std::strerror(errno);
    return false;
  }
  *dir = real;
  return true;
}

bool engine_gid_table_len(const std::string& backend, unsigned* len, std::string* err) {
  try {
    std::unique_ptr<Device> dev = make_device(backend);
    uint32_t id = 0, n = 0;
    if (!dev->csr_read(spec::kCsrId, &id) || id != spec::kCsrIdReset) {
      *err = "the '" + backend + "' backend is not a rocenic engine";
      return false;
    }
    if (!dev->csr_read(spec::kCsrCapGidTbl, &n) || n == 0) {
      *err = "the engine does not report its GID table length (CAP_GID_TBL)";
      return false;
    }
    *len = n;
    return true;
  } catch (const std::exception& e) {
    *err = e.what();
    return false;
  }
}

// The pcap path as the program will see it, whatever its working directory.
std::string absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  char cwd[PATH_MAX];
  return getcwd(cwd, sizeof cwd) ? std::string(cwd) + "/" + path : path;
}

[[noreturn]] void exec_program(const Options& o, const std::string& libdir, const std::string& tmp) {
  std::string preload = libdir + "/librocenic-shim.so";
  if (const char* old = getenv("LD_PRELOAD"); old && *old) preload += std::string(":") + old;
  setenv("SYSFS_PATH", (tmp + "/sys").c_str(), 1);
  setenv("RDMAV_DRIVERS", (libdir + "/librocenic").c_str(), 1);
  setenv("LD_PRELOAD", preload.c_str(), 1);
  setenv("ROCENIC_BACKEND", o.backend.c_str(), 1);
  setenv("ROCENIC_CONFIG", (tmp + "/config").c_str(), 1);
  setenv("ROCENIC_WIRE", o.wire.c_str(), 1);
  if (!o.pcap.empty())
    setenv("ROCENIC_PCAP", absolute(o.pcap).c_str(), 1);
  else
    unsetenv("ROCENIC_PCAP");
  std::vector<char*> argv;
  for (const std::string& a : o.command) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execvp(argv[0], argv.data());
  const int e = errno;
  std::fprintf(stderr, "rocenic-run: cannot run '%s': %s\n", argv[0], std::strerror(e));
  _exit(e == ENOENT ? 127 : 126);
}

int run(const Options& o) {
  std::string err, libdir;
  if (!library_dir(&libdir, &err)) return setup_error(err);
  for (const char* lib : {"/librocenic-rdmav34.so", "/librocenic-shim.so"})
    if (access((libdir + lib).c_str(), R_OK) != 0)
      return setup_error(libdir + lib + ": " + std::strerror(errno) + " (build the 'rocenic-run' target)");

  unsigned gid_tbl_len = 0;
  if (!engine_gid_table_len(o.backend, &gid_tbl_len, &err)) return setup_error(err);
  if (gid_entries_needed(o.ips.size()) > gid_tbl_len) {
    std::fprintf(stderr,
                 "rocenic-run: --ip: %zu addresses need %u GID entries, the engine's table holds %u "
                 "(at most %u addresses)\n",
                 o.ips.size(), gid_entries_needed(o.ips.size()), gid_tbl_len, (gid_tbl_len - 2) / 2);
    return kExitUsage;
  }

  Config cfg;
  cfg.mac = o.mac ? *o.mac : default_mac(o.wire, o.ips);
  cfg.mtu = o.mtu;
  cfg.node_guid = node_guid_of(cfg.mac);
  cfg.wire = o.wire;
  cfg.pcap = absolute(o.pcap);
  cfg.faults = o.faults;
  cfg.gids = gid_table(cfg.mac, o.ips);

  // Two members with one MAC or address would make the wire ambiguous: say
  // so now, naming the other process, rather than at ibv_open_device.
  wire::Mac wmac;
  std::copy(cfg.mac.begin(), cfg.mac.end(), wmac.begin());
  std::vector<wire::Addr> waddrs;
  for (const IpAddr& ip : o.ips) {
    wire::Addr a;
    std::copy(ip.bytes.begin(), ip.bytes.end(), a.begin());
    waddrs.push_back(a);
  }
  if (const std::string conflict = wire::join_conflict(o.wire, wmac, waddrs); !conflict.empty()) {
    std::fprintf(stderr, "rocenic-run: --wire %s: %s\n", o.wire.c_str(), conflict.c_str());
    return kExitUsage;
  }

  const char* tmpdir = getenv("TMPDIR");
  std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/rocenic-run.XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return setup_error("cannot create a directory from " + tmpl + ": " + std::strerror(errno));
  const std::string tmp(buf.data());
  chmod(tmp.c_str(), 0755);  // the program may run as another user (setpriv, su)
  bool ok = mkdir((tmp + "/sys").c_str(), 0755) == 0 && chmod((tmp + "/sys").c_str(), 0755) == 0;
  if (!ok) err = tmp + "/sys: " + std::strerror(errno);
  ok = ok && write_sysfs_tree(tmp + "/sys", cfg, gid_tbl_len, &err);
  if (ok) {
    std::ofstream f(tmp + "/config");
    f << format_config(cfg);
    f.close();
    ok = static_cast<bool>(f) && chmod((tmp + "/config").c_str(), 0644) == 0;
    if (!ok) err = tmp + "/config: cannot write";
  }
  if (!ok) {
    remove_tree(tmp);
    return setup_error(err);
  }
  {
    // who runs this tree: rocenic-ctl finds running devices by it
    std::ofstream f(tmp + "/launcher");
    f << "pid " << getpid() << "\nwire " << o.wire << "\nbackend " << o.backend << "\n";
    f.close();
    if (!f || chmod((tmp + "/launcher").c_str(), 0644) != 0) {
      remove_tree(tmp);
      return setup_error(tmp + "/launcher: cannot write");
    }
  }

  // Signals aimed at the launcher go to the program; the launcher stays to
  // collect its status and remove the tree.
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);

  const pid_t child = fork();
  if (child < 0) {
    remove_tree(tmp);
    return setup_error(std::string("fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    sa.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaction(sig, &sa, nullptr);
    exec_program(o, libdir, tmp);
  }
  g_child = child;
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  remove_tree(tmp);
  wire::remove_if_stale(o.wire, wmac);  // killed before it could leave the wire
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    // The provider prints the cosim summary when the program closes its
    // device or exits; a signal leaves no chance to.
    if (o.backend == "cosim")
      std::fprintf(stderr, "rocenic-run: cosim: the program was killed by signal %d before it could report the "
                           "comparison\n", WTERMSIG(status));
    return 128 + WTERMSIG(status);  // as shells report it
  }
  return kExitSetup;
}

}  // namespace
}  // namespace rocenic::driver

int main(int argc, char** argv) {
  using namespace rocenic::driver;
  Options o;
  std::string err;
  switch (parse_options(std::vector<std::string>(argv + 1, argv + argc), &o, &err)) {
    case ParseResult::kHelp:
      std::fputs(usage(), stdout);
      return 0;
    case ParseResult::kError:
      std::fprintf(stderr, "rocenic-run: %s\nTry 'rocenic-run --help'.\n", err.c_str());
      return 2;
    case ParseResult::kRun:
      break;
  }
  return run(o);
}
