// A verbs program run under rocenic-run: goes through libibverbs exactly as
// an application does and checks what the provider answers.
//   verbs_smoke --mtu BYTES --ips N     the normal checks
//   verbs_smoke --expect-open-error     ibv_open_device must fail with EINVAL
// Prints each failed check and exits 1 if any failed.
#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device.h"
#include "gen/roce_spec.h"

namespace {

int failures = 0;

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "FAIL %s:%d: %s (errno %d)\n", __FILE__, __LINE__, #cond, errno); \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

uint32_t csr(rocenic::Device& d, uint32_t addr) {
  uint32_t v = 0;
  CHECK(d.csr_read(addr, &v));
  return v;
}

int open_fds() {
  int n = 0;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (readdir(d)) ++n;
    closedir(d);
  }
  return n;
}

ibv_device* find_rocenic(ibv_device** list) {
  for (int i = 0; list && list[i]; ++i)
    if (std::strcmp(ibv_get_device_name(list[i]), "rocenic0") == 0) return list[i];
  return nullptr;
}

void check_queries(ibv_context* ctx, ibv_device* dev, unsigned mtu_enum, unsigned n_ips) {
  // An engine of the same backend, read directly: what the verbs must report.
  std::unique_ptr<rocenic::Device> ref = rocenic::make_device(std::getenv("ROCENIC_BACKEND"));
  namespace s = rocenic::spec;
  ibv_device_attr a{};
  CHECK(ibv_query_device(ctx, &a) == 0);
  CHECK(a.max_qp == static_cast<int>(csr(*ref, s::kCsrCapMaxQp)));
  CHECK(a.max_cq == static_cast<int>(csr(*ref, s::kCsrCapMaxCq)));
  CHECK(a.max_mr == static_cast<int>(csr(*ref, s::kCsrCapMaxMr)));
  CHECK(a.max_pd == static_cast<int>(csr(*ref, s::kCsrCapMaxPd)));
  CHECK(a.max_qp_wr == static_cast<int>(csr(*ref, s::kCsrCapMaxQpWr)));
  CHECK(a.max_sge == static_cast<int>(csr(*ref, s::kCsrCapMaxSge)));
  CHECK(a.max_cqe == static_cast<int>(csr(*ref, s::kCsrCapMaxCqe)));
  const uint32_t version = csr(*ref, s::kCsrVersion);
  const std::string fw = std::to_string((version >> 8) & 0xff) + "." + std::to_string(version & 0xff);
  CHECK(fw == a.fw_ver);
  CHECK(a.atomic_cap == IBV_ATOMIC_HCA);  // CMP_AND_SWP, FETCH_AND_ADD: atomic against each other
  CHECK(a.phys_port_cnt == 1);
  CHECK(a.node_guid == ibv_get_device_guid(dev));

  ibv_device_attr_ex ax{};
  CHECK(ibv_query_device_ex(ctx, nullptr, &ax) == 0);
  CHECK(std::memcmp(&ax.orig_attr, &a, sizeof a) == 0);
  CHECK(ax.phys_port_cnt_ex == 1);

  ibv_port_attr p{};
  CHECK(ibv_query_port(ctx, 1, &p) == 0);
  CHECK(p.state == IBV_PORT_ACTIVE);
  CHECK(p.active_mtu == static_cast<ibv_mtu>(mtu_enum));
  CHECK(p.max_mtu == IBV_MTU_4096);
  CHECK(p.link_layer == IBV_LINK_LAYER_ETHERNET);
  CHECK(p.gid_tbl_len == static_cast<int>(csr(*ref, s::kCsrCapGidTbl)));
  CHECK(p.lid == 0 && p.pkey_tbl_len == 1);
  ibv_port_attr none{};
  CHECK(ibv_query_port(ctx, 2, &none) == EINVAL);  // one port only

  // GID table and P_Key through libibverbs' sysfs path.
  std::vector<ibv_gid_entry> entries(static_cast<size_t>(p.gid_tbl_len) + 1);
  const ssize_t n = ibv_query_gid_table(ctx, entries.data(), entries.size(), 0);
  CHECK(n == static_cast<ssize_t>(2 + 2 * n_ips));
  for (ssize_t i = 0; i < n; ++i) {
    CHECK(entries[i].gid_index == static_cast<uint32_t>(i));
    CHECK(entries[i].gid_type == (i % 2 ? IBV_GID_TYPE_ROCE_V2 : IBV_GID_TYPE_ROCE_V1));
  }
  uint16_t pkey = 0;
  CHECK(ibv_query_pkey(ctx, 1, 0, &pkey) == 0 && pkey == 0xffff);
}

void check_pds(ibv_context* ctx, ibv_context* second) {
  ibv_device_attr a{};
  CHECK(ibv_query_device(ctx, &a) == 0);
  std::vector<ibv_pd*> pds;
  // Both contexts draw from the one engine: its CAP_MAX_PD bounds the sum.
  for (int i = 0; i < a.max_pd; ++i) {
    ibv_pd* pd = ibv_alloc_pd(i % 2 ? second : ctx);
    CHECK(pd != nullptr);
    if (pd) pds.push_back(pd);
  }
  errno = 0;
  CHECK(ibv_alloc_pd(ctx) == nullptr && errno == ENOMEM);
  for (ibv_pd* pd : pds) CHECK(ibv_dealloc_pd(pd) == 0);
  ibv_pd* again = ibv_alloc_pd(ctx);
  CHECK(again != nullptr);
  if (again) CHECK(ibv_dealloc_pd(again) == 0);
}

// The data-path objects exist; what the engine does not have yet says EOPNOTSUPP.
void check_objects_and_unsupported(ibv_context* ctx) {
  ibv_pd* pd = ibv_alloc_pd(ctx);
  CHECK(pd != nullptr);
  if (!pd) return;
  static char buf[64];
  ibv_mr* mr = ibv_reg_mr(pd, buf, sizeof buf, IBV_ACCESS_LOCAL_WRITE);
  CHECK(mr != nullptr);
  ibv_cq* cq = ibv_create_cq(ctx, 16, nullptr, nullptr, 0);
  CHECK(cq != nullptr);
  ibv_qp_init_attr qa{};
  qa.qp_type = IBV_QPT_RC;
  qa.send_cq = qa.recv_cq = cq;
  qa.cap.max_send_wr = qa.cap.max_recv_wr = 4;
  qa.cap.max_send_sge = qa.cap.max_recv_sge = 1;
  ibv_qp* qp = cq ? ibv_create_qp(pd, &qa) : nullptr;
  CHECK(qp != nullptr);
  ibv_srq_init_attr sa{};
  errno = 0;
  CHECK(ibv_create_srq(pd, &sa) == nullptr && errno == EOPNOTSUPP);
  ibv_ah_attr aa{};  // no GRH (and port 0): refused as the kernel refuses it on RoCE
  errno = 0;
  CHECK(ibv_create_ah(pd, &aa) == nullptr && errno == EINVAL);
  ibv_mw* mw = ibv_alloc_mw(pd, IBV_MW_TYPE_2);  // windows exist (verbs_check mw uses them)
  CHECK(mw != nullptr);
  if (mw) CHECK(ibv_dealloc_mw(mw) == 0);
  errno = 0;
  CHECK(ibv_alloc_mw(pd, static_cast<ibv_mw_type>(3)) == nullptr && errno == EINVAL);
  if (qp) CHECK(ibv_destroy_qp(qp) == 0);
  if (cq) CHECK(ibv_destroy_cq(cq) == 0);
  if (mr) CHECK(ibv_dereg_mr(mr) == 0);
  CHECK(ibv_dealloc_pd(pd) == 0);
}

// ibv_create_comp_channel never reaches the provider: the shim answers it
// with a pipe, whose write end the provider will find through the shim.
void check_comp_channel(ibv_context* ctx) {
  ibv_comp_channel* ch = ibv_create_comp_channel(ctx);
  CHECK(ch != nullptr);
  if (!ch) return;
  struct stat st {};
  CHECK(fstat(ch->fd, &st) == 0 && S_ISFIFO(st.st_mode));
  auto writer = reinterpret_cast<int (*)(int)>(dlsym(RTLD_DEFAULT, "rocenic_shim_comp_channel_writer"));
  CHECK(writer != nullptr);
  if (writer) {
    const int wfd = writer(ch->fd);
    CHECK(wfd >= 0);
    const uint64_t token = 0x1122334455667788ull;
    uint64_t got = 0;
    CHECK(write(wfd, &token, sizeof token) == sizeof token);
    CHECK(read(ch->fd, &got, sizeof got) == sizeof got && got == token);
    CHECK(ibv_destroy_comp_channel(ch) == 0);
    CHECK(fcntl(wfd, F_GETFD) == -1 && errno == EBADF);  // closed with the channel
  } else {
    ibv_destroy_comp_channel(ch);
  }
}

}  // namespace

int main(int argc, char** argv) {
  unsigned mtu = 1024, n_ips = 0;
  bool expect_open_error = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--mtu" && i + 1 < argc)
      mtu = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--ips" && i + 1 < argc)
      n_ips = static_cast<unsigned>(std::atoi(argv[++i]));
    else if (a == "--expect-open-error")
      expect_open_error = true;
    else
      return std::fprintf(stderr, "usage: verbs_smoke [--mtu N] [--ips N] [--expect-open-error]\n"), 2;
  }
  unsigned mtu_enum = 1;
  for (unsigned b = 256; b < mtu; b *= 2) ++mtu_enum;

  int num = 0;
  ibv_device** list = ibv_get_device_list(&num);
  CHECK(list != nullptr);
  ibv_device* dev = find_rocenic(list);
  CHECK(dev != nullptr);
  if (!dev) return 1;
  const int fds_before = open_fds();
  errno = 0;
  ibv_context* ctx = ibv_open_device(dev);
  if (expect_open_error) {
    CHECK(ctx == nullptr && errno == EINVAL);
    if (ctx) ibv_close_device(ctx);
  } else {
    CHECK(ctx != nullptr);
    if (!ctx) return 1;
    struct stat st {};
    CHECK(fstat(ctx->async_fd, &st) == 0 && S_ISFIFO(st.st_mode));
    ibv_context* second = ibv_open_device(dev);
    CHECK(second != nullptr);
    check_queries(ctx, dev, mtu_enum, n_ips);
    if (second) {
      check_pds(ctx, second);
      CHECK(ibv_close_device(second) == 0);
    }
    check_objects_and_unsupported(ctx);
    check_comp_channel(ctx);
    CHECK(ibv_close_device(ctx) == 0);
    CHECK(open_fds() == fds_before);  // cmd_fd, async_fd and its pipe's write end all closed
  }
  ibv_free_device_list(list);
  std::printf("verbs_smoke: %s\n", failures ? "FAILED" : "ok");
  return failures ? 1 : 0;
}
