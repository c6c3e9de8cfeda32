// Prints the engine's capability registers, read with csr_read on a fresh
// Device of the given backend: the values ibv_devinfo must show.
//   csr_caps [model|rtl|cosim]
#include <cstdio>
#include <stdexcept>

#include "device.h"
#include "gen/roce_spec.h"

int main(int argc, char** argv) {
  namespace s = rocenic::spec;
  try {
    auto dev = rocenic::make_device(argc > 1 ? argv[1] : "model");
    const struct {
      const char* name;
      uint32_t addr;
    } regs[] = {{"max_qp", s::kCsrCapMaxQp},   {"max_cq", s::kCsrCapMaxCq},       {"max_mr", s::kCsrCapMaxMr},
                {"max_pd", s::kCsrCapMaxPd},   {"max_qp_wr", s::kCsrCapMaxQpWr},  {"max_sge", s::kCsrCapMaxSge},
                {"max_cqe", s::kCsrCapMaxCqe}, {"gid_tbl_len", s::kCsrCapGidTbl}, {"version", s::kCsrVersion}};
    for (const auto& r : regs) {
      uint32_t v = 0;
      if (!dev->csr_read(r.addr, &v)) return std::fprintf(stderr, "csr_caps: SLVERR reading %s\n", r.name), 1;
      std::printf("%s %u\n", r.name, v);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "csr_caps: %s\n", e.what());
    return 1;
  }
  return 0;
}
