/*
 * librocenic-shim.so: LD_PRELOADed by rocenic-run into the program it runs.
 *
 * libibverbs insists on opening /dev/infiniband/uverbsN, a character device
 * the kernel's ib_uverbs module would provide. Without kernel RDMA (and
 * without root to create device nodes) this shim gives it what it needs:
 *
 *  - stat/open/openat (and their 64-bit and fortified variants) of
 *    /dev/infiniband/uverbs* are redirected to /dev/null, a character device
 *    anyone may open read-write. The fd becomes the context's cmd_fd.
 *  - write() on such a cmd_fd is a uverbs command. The only one libibverbs
 *    issues itself with the rocenic provider is CREATE_COMP_CHANNEL
 *    (ibv_create_comp_channel bypasses the provider); the shim answers it with
 *    the read end of a fresh pipe, as the kernel answers with an event fd.
 *    The write end is kept for the provider, which looks it up with
 *    rocenic_shim_comp_channel_writer(). Any other command fails with ENOSYS
 *    instead of "succeeding" into an unfilled response.
 *  - socket(AF_NETLINK, *, NETLINK_RDMA) fails with EPROTONOSUPPORT, so that
 *    libibverbs enumerates devices from $SYSFS_PATH even on a host whose
 *    kernel has RDMA netlink (where netlink would otherwise win).
 *  - paths under /sys/class/infiniband (libibumad, and so ibstat, has that
 *    path compiled in) are read from $SYSFS_PATH/class/infiniband: open,
 *    stat, access, opendir and scandir are rewritten.
 *  - if_nametoindex/if_indextoname know the simulated port's netdev names
 *    ("rocenet0", "rocenet0.<vid>" for a VLAN: gid_attrs/ndevs), which
 *    libibverbs resolves when it reads a GID entry.
 * Everything else passes straight through to the next definition (libc).
 */
#undef _FORTIFY_SOURCE
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <rdma/ib_user_verbs.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static const char kUverbsPrefix[] = "/dev/infiniband/uverbs";
static const char kNull[] = "/dev/null";

#define MAX_FDS 4096
/* fd -> role: 0 none, 1 uverbs cmd_fd, 2 comp channel read end (peer = write end) */
static _Atomic unsigned char fd_role[MAX_FDS];
static int channel_peer[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* next_fn(const char* name) { return dlsym(RTLD_NEXT, name); }
#define NEXT(name, type) ((type)next_fn(name))

static int redirected(const char* path) { return path && strncmp(path, kUverbsPrefix, sizeof kUverbsPrefix - 1) == 0; }

/* /sys/class/infiniband... -> $SYSFS_PATH/class/infiniband... (buf holds the
 * rewritten path); any other path, or no SYSFS_PATH, is returned as is. */
static const char kSysClassIb[] = "/sys/class/infiniband";
#define SYS_PATH_MAX 4096
static const char* sysfs_root; /* $SYSFS_PATH, read once at load (no getenv in the hooks) */
__attribute__((constructor)) static void read_sysfs_root(void) {
  const char* r = getenv("SYSFS_PATH");
  sysfs_root = r && *r ? strdup(r) : NULL;
}

static const char* sys_path(const char* path, char* buf) {
  if (!path || strncmp(path, kSysClassIb, sizeof kSysClassIb - 1) != 0) return path;
  /* exactly class/infiniband (not infiniband_mad, _verbs, _cm) */
  const char next = path[sizeof kSysClassIb - 1];
  if (next != '\0' && next != '/') return path;
  const char* root = sysfs_root;
  if (!root) return path;
  const size_t rl = strlen(root), pl = strlen(path) - 4; /* without "/sys" */
  if (rl + pl + 1 > SYS_PATH_MAX) return path;
  memcpy(buf, root, rl);
  memcpy(buf + rl, path + 4, pl + 1);
  return buf;
}

static int role_of(int fd) {
  return fd >= 0 && fd < MAX_FDS ? atomic_load_explicit(&fd_role[fd], memory_order_relaxed) : 0;
}

static void set_role(int fd, unsigned char role) {
  if (fd >= 0 && fd < MAX_FDS) atomic_store_explicit(&fd_role[fd], role, memory_order_relaxed);
}

static int track_cmd_fd(int fd) {
  set_role(fd, 1);
  return fd;
}

/* An fd number the shim did not hand out: forget any stale role (its old
 * holder may have been closed behind our back, e.g. by libc internally). */
static int untracked(int fd) {
  if (role_of(fd)) set_role(fd, 0);
  return fd;
}

/* ---- open family: mode is only meaningful with O_CREAT/O_TMPFILE */
static mode_t mode_arg(int flags, va_list ap) {
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

typedef int (*open_fn)(const char*, int, ...);
typedef int (*openat_fn)(int, const char*, int, ...);

#define DEFINE_OPEN(fname)                                               \
  EXPORT int fname(const char* path, int flags, ...) {                   \
    va_list ap;                                                          \
    va_start(ap, flags);                                                 \
    mode_t mode = mode_arg(flags, ap);                                   \
    va_end(ap);                                                          \
    open_fn real = NEXT(#fname, open_fn);                                \
    char sbuf[SYS_PATH_MAX];                                             \
    if (redirected(path)) return track_cmd_fd(real(kNull, flags, mode)); \
    return untracked(real(sys_path(path, sbuf), flags, mode));           \
  }
DEFINE_OPEN(open)
DEFINE_OPEN(open64)

#define DEFINE_OPENAT(fname)                                                       \
  EXPORT int fname(int dirfd, const char* path, int flags, ...) {                  \
    va_list ap;                                                                    \
    va_start(ap, flags);                                                           \
    mode_t mode = mode_arg(flags, ap);                                             \
    va_end(ap);                                                                    \
    openat_fn real = NEXT(#fname, openat_fn);                                      \
    char sbuf[SYS_PATH_MAX];                                                       \
    if (redirected(path)) return track_cmd_fd(real(AT_FDCWD, kNull, flags, mode)); \
    return untracked(real(dirfd, sys_path(path, sbuf), flags, mode));              \
  }
DEFINE_OPENAT(openat)
DEFINE_OPENAT(openat64)

/* _FORTIFY_SOURCE builds of the program call these instead. */
#define DEFINE_OPEN_2(fname)                                                 \
  EXPORT int fname(const char* path, int flags) {                            \
    int (*real)(const char*, int) = NEXT(#fname, int (*)(const char*, int)); \
    char sbuf[SYS_PATH_MAX];                                                 \
    if (redirected(path)) return track_cmd_fd(real(kNull, flags));           \
    return untracked(real(sys_path(path, sbuf), flags));                     \
  }
DEFINE_OPEN_2(__open_2)
DEFINE_OPEN_2(__open64_2)

#define DEFINE_OPENAT_2(fname)                                                         \
  EXPORT int fname(int dirfd, const char* path, int flags) {                           \
    int (*real)(int, const char*, int) = NEXT(#fname, int (*)(int, const char*, int)); \
    char sbuf[SYS_PATH_MAX];                                                           \
    if (redirected(path)) return track_cmd_fd(real(AT_FDCWD, kNull, flags));           \
    return untracked(real(dirfd, sys_path(path, sbuf), flags));                        \
  }
DEFINE_OPENAT_2(__openat_2)
DEFINE_OPENAT_2(__openat64_2)

/* ---- stat family (glibc >= 2.33 exports stat/lstat/fstatat; older
 * binaries call the __xstat versioned wrappers). */
#define DEFINE_STAT(fname, st_type)                                                                  \
  EXPORT int fname(const char* path, struct st_type* buf) {                                          \
    int (*real)(const char*, struct st_type*) = NEXT(#fname, int (*)(const char*, struct st_type*)); \
    char sbuf[SYS_PATH_MAX];                                                                         \
    return real(redirected(path) ? kNull : sys_path(path, sbuf), buf);                               \
  }
DEFINE_STAT(stat, stat)
DEFINE_STAT(stat64, stat64)
DEFINE_STAT(lstat, stat)
DEFINE_STAT(lstat64, stat64)

#define DEFINE_FSTATAT(fname, st_type)                                                           \
  EXPORT int fname(int dirfd, const char* path, struct st_type* buf, int flags) {                \
    int (*real)(int, const char*, struct st_type*, int) =                                        \
        NEXT(#fname, int (*)(int, const char*, struct st_type*, int));                           \
    char sbuf[SYS_PATH_MAX];                                                                     \
    return redirected(path) ? real(AT_FDCWD, kNull, buf, flags)                                  \
                            : real(dirfd, sys_path(path, sbuf), buf, flags);                     \
  }
DEFINE_FSTATAT(fstatat, stat)
DEFINE_FSTATAT(fstatat64, stat64)

#define DEFINE_XSTAT(fname, st_type)                                                                           \
  EXPORT int fname(int ver, const char* path, struct st_type* buf) {                                           \
    int (*real)(int, const char*, struct st_type*) = NEXT(#fname, int (*)(int, const char*, struct st_type*)); \
    char sbuf[SYS_PATH_MAX];                                                                                   \
    return real(ver, redirected(path) ? kNull : sys_path(path, sbuf), buf);                                    \
  }
DEFINE_XSTAT(__xstat, stat)
DEFINE_XSTAT(__xstat64, stat64)
DEFINE_XSTAT(__lxstat, stat)
DEFINE_XSTAT(__lxstat64, stat64)

/* ---- directories and access() under /sys/class/infiniband */
EXPORT DIR* opendir(const char* path) {
  DIR* (*real)(const char*) = NEXT("opendir", DIR * (*)(const char*));
  char sbuf[SYS_PATH_MAX];
  return real(sys_path(path, sbuf));
}

typedef int (*dirent_filter)(const struct dirent*);
typedef int (*dirent_compar)(const struct dirent**, const struct dirent**);
EXPORT int scandir(const char* path, struct dirent*** list, dirent_filter filter, dirent_compar compar) {
  int (*real)(const char*, struct dirent***, dirent_filter, dirent_compar) =
      NEXT("scandir", int (*)(const char*, struct dirent***, dirent_filter, dirent_compar));
  char sbuf[SYS_PATH_MAX];
  return real(sys_path(path, sbuf), list, filter, compar);
}

typedef int (*dirent64_filter)(const struct dirent64*);
typedef int (*dirent64_compar)(const struct dirent64**, const struct dirent64**);
EXPORT int scandir64(const char* path, struct dirent64*** list, dirent64_filter filter, dirent64_compar compar) {
  int (*real)(const char*, struct dirent64***, dirent64_filter, dirent64_compar) =
      NEXT("scandir64", int (*)(const char*, struct dirent64***, dirent64_filter, dirent64_compar));
  char sbuf[SYS_PATH_MAX];
  return real(sys_path(path, sbuf), list, filter, compar);
}

EXPORT int access(const char* path, int mode) {
  int (*real)(const char*, int) = NEXT("access", int (*)(const char*, int));
  char sbuf[SYS_PATH_MAX];
  return real(sys_path(path, sbuf), mode);
}

/* ---- the simulated port's netdev names: "rocenet0" and "rocenet0.<vid>"
 * (driver/provider/config.h). Their indexes are NETDEV_INDEX_BASE + vid, far
 * above what a host hands out. */
static const char kNetdev[] = "rocenet0";
#define NETDEV_INDEX_BASE 0x7ff00000u

static int simulated_netdev(const char* name, unsigned* vid) {
  if (!name || strncmp(name, kNetdev, sizeof kNetdev - 1) != 0) return 0;
  const char* p = name + sizeof kNetdev - 1;
  if (*p == '\0') {
    *vid = 0;
    return 1;
  }
  if (*p++ != '.' || *p < '1' || *p > '9') return 0;
  unsigned v = 0;
  for (; *p; ++p) {
    if (*p < '0' || *p > '9' || v > 4094) return 0;
    v = v * 10 + (unsigned)(*p - '0');
  }
  if (v < 1 || v > 4094) return 0;
  *vid = v;
  return 1;
}

EXPORT unsigned int if_nametoindex(const char* name) {
  unsigned vid = 0;
  if (simulated_netdev(name, &vid)) return NETDEV_INDEX_BASE + vid;
  unsigned int (*real)(const char*) = NEXT("if_nametoindex", unsigned int (*)(const char*));
  return real(name);
}

EXPORT char* if_indextoname(unsigned int index, char* name) {
  if (index >= NETDEV_INDEX_BASE && index <= NETDEV_INDEX_BASE + 4094) {
    const unsigned vid = index - NETDEV_INDEX_BASE;
    if (vid == 0)
      snprintf(name, 16, "%s", kNetdev);
    else
      snprintf(name, 16, "%s.%u", kNetdev, vid);
    return name;
  }
  char* (*real)(unsigned int, char*) = NEXT("if_indextoname", char* (*)(unsigned int, char*));
  return real(index, name);
}

/* ---- uverbs commands written to a cmd_fd */
static ssize_t answer_command(const void* buf, size_t count) {
  struct ib_uverbs_cmd_hdr hdr;
  struct ib_uverbs_create_comp_channel cmd;
  if (count < sizeof hdr) {
    errno = EINVAL;
    return -1;
  }
  memcpy(&hdr, buf, sizeof hdr);
  if (hdr.command != IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL) {
    errno = ENOSYS; /* not emulated: fail rather than leave a response unfilled */
    return -1;
  }
  if (count < sizeof hdr + sizeof cmd) {
    errno = EINVAL;
    return -1;
  }
  memcpy(&cmd, (const char*)buf + sizeof hdr, sizeof cmd);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return -1;
  if (fds[0] >= MAX_FDS) {
    close(fds[0]);
    close(fds[1]);
    errno = EMFILE;
    return -1;
  }
  pthread_mutex_lock(&lock);
  channel_peer[fds[0]] = fds[1];
  set_role(fds[0], 2);
  pthread_mutex_unlock(&lock);
  struct ib_uverbs_create_comp_channel_resp resp;
  memset(&resp, 0, sizeof resp);
  resp.fd = (__u32)fds[0];
  memcpy((void*)(uintptr_t)cmd.response, &resp, sizeof resp);
  return (ssize_t)count;
}

EXPORT ssize_t write(int fd, const void* buf, size_t count) {
  if (role_of(fd) == 1) return answer_command(buf, count);
  ssize_t (*real)(int, const void*, size_t) = NEXT("write", ssize_t(*)(int, const void*, size_t));
  return real(fd, buf, count);
}

EXPORT int close(int fd) {
  int (*real)(int) = NEXT("close", int (*)(int));
  const int role = role_of(fd);
  if (role) {
    pthread_mutex_lock(&lock);
    if (role == 2 && channel_peer[fd] >= 0) {
      real(channel_peer[fd]);
      channel_peer[fd] = -1;
    }
    set_role(fd, 0);
    pthread_mutex_unlock(&lock);
  }
  return real(fd);
}

/* The write end of a completion channel's fd (the read end the application
 * holds as ibv_comp_channel::fd), or -1 with errno EBADF. The provider writes
 * struct ib_uverbs_comp_event_desc records there. */
EXPORT int rocenic_shim_comp_channel_writer(int channel_fd) {
  int peer = -1;
  pthread_mutex_lock(&lock);
  if (role_of(channel_fd) == 2) peer = channel_peer[channel_fd];
  pthread_mutex_unlock(&lock);
  if (peer < 0) errno = EBADF;
  return peer;
}

/* dup2/dup3 onto a tracked number replace what the shim tracked there. */
EXPORT int dup2(int oldfd, int newfd) {
  int (*real)(int, int) = NEXT("dup2", int (*)(int, int));
  const int fd = real(oldfd, newfd);
  return fd >= 0 && fd != oldfd ? untracked(fd) : fd;
}

EXPORT int dup3(int oldfd, int newfd, int flags) {
  int (*real)(int, int, int) = NEXT("dup3", int (*)(int, int, int));
  const int fd = real(oldfd, newfd, flags);
  return fd >= 0 ? untracked(fd) : fd;
}

EXPORT int socket(int domain, int type, int protocol) {
  if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
    errno = EPROTONOSUPPORT;
    return -1;
  }
  int (*real)(int, int, int) = NEXT("socket", int (*)(int, int, int));
  return real(domain, type, protocol);
}
