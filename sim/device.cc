#include "device.h"

#include <sstream>
#include <stdexcept>

#include "common/le_bytes.h"
#include "csr/roce_csr.h"
#include "rtl/roce_csr_rtl.h"

namespace rocenic {
namespace {

constexpr uint64_t kMaxCyclesPerAccess = 1000;  // a CSR access that takes longer is a hung design

struct Answer {
  bool ok = false;
  uint32_t data = 0;
  uint64_t cycles = 0;
};

// One AXI4-Lite transaction on a block with ports AW, W, AR in and B, R out.
Answer axil_access(Block& b, bool is_write, uint32_t addr, uint32_t data) {
  Flit a, w;
  a.data = le_bytes(addr, 2);
  w.data = le_bytes(data, 4, 0x0F);
  const Flit idle{};
  bool addr_pending = true;
  Answer ans;
  for (uint64_t c = 0; c < kMaxCyclesPerAccess; ++c) {
    b.set_input(0, is_write && addr_pending, is_write ? a : idle);
    b.set_input(1, is_write && addr_pending, is_write ? w : idle);
    b.set_input(2, !is_write && addr_pending, is_write ? idle : a);
    b.set_output_ready(0, is_write);
    b.set_output_ready(1, !is_write);
    b.eval();
    if (addr_pending && b.input_ready(is_write ? 0 : 2)) addr_pending = false;
    const unsigned resp_port = is_write ? 0 : 1;
    if (b.output_valid(resp_port)) {
      const Flit r = b.output(resp_port);
      if (is_write) {
        ans.ok = r.data[0] == 0;
      } else {
        ans.data = r.data[0] | (r.data[1] << 8) | (r.data[2] << 16) | (uint32_t{r.data[3]} << 24);
        ans.ok = r.data[4] == 0;
      }
      b.clock();
      ans.cycles = c + 1;
      return ans;
    }
    b.clock();
  }
  std::ostringstream s;
  s << "rocenic: no AXI4-Lite response to the " << (is_write ? "write of" : "read of") << " CSR 0x" << std::hex << addr
    << " within " << std::dec << kMaxCyclesPerAccess << " cycles";
  throw std::runtime_error(s.str());
}

class SingleDevice : public Device {
 public:
  SingleDevice(const char* name, std::unique_ptr<Block> b) : name_(name), b_(std::move(b)) {}
  const char* backend() const override { return name_; }
  bool csr_read(uint32_t addr, uint32_t* value) override {
    const Answer a = axil_access(*b_, false, addr, 0);
    *value = a.ok ? a.data : 0;
    return a.ok;
  }
  bool csr_write(uint32_t addr, uint32_t value) override { return axil_access(*b_, true, addr, value).ok; }
  uint64_t cycles() const override { return b_->cycle(); }

 private:
  const char* name_;
  std::unique_ptr<Block> b_;
};

// RTL and model side by side: the RTL answers, the model is compared with it.
class CosimDevice : public Device {
 public:
  CosimDevice() : rtl_(std::make_unique<RoceCsrRtl>()), model_(std::make_unique<model::RoceCsr>()) {}
  const char* backend() const override { return "cosim"; }
  bool csr_read(uint32_t addr, uint32_t* value) override {
    const Answer r = axil_access(*rtl_, false, addr, 0);
    const Answer m = axil_access(*model_, false, addr, 0);
    check("read", addr, 0, r, m);
    *value = r.ok ? r.data : 0;
    return r.ok;
  }
  bool csr_write(uint32_t addr, uint32_t value) override {
    const Answer r = axil_access(*rtl_, true, addr, value);
    const Answer m = axil_access(*model_, true, addr, value);
    check("write", addr, value, r, m);
    return r.ok;
  }
  uint64_t cycles() const override { return rtl_->cycle(); }
  uint64_t compared() const override { return compared_; }
  std::string divergence() const override { return divergence_; }

 private:
  void check(const char* what, uint32_t addr, uint32_t value, const Answer& r, const Answer& m) {
    if (r.ok == m.ok && r.data == m.data) {
      ++compared_;
      return;
    }
    if (!divergence_.empty()) return;  // the first one is the one that matters
    std::ostringstream s;
    s << "DIVERGENCE at CSR " << what << " #" << compared_ << " addr 0x" << std::hex << addr;
    if (std::string(what) == "write") s << " value 0x" << value;
    s << ": rtl " << (r.ok ? "OKAY" : "SLVERR") << " 0x" << r.data << ", model " << (m.ok ? "OKAY" : "SLVERR") << " 0x"
      << m.data << std::dec << " (rtl cycle " << rtl_->cycle() << ")";
    divergence_ = s.str();
  }

  std::unique_ptr<Block> rtl_, model_;
  uint64_t compared_ = 0;
  std::string divergence_;
};

}  // namespace

std::unique_ptr<Device> make_device(const std::string& backend) {
  if (backend == "model") return std::make_unique<SingleDevice>("model", std::make_unique<model::RoceCsr>());
  if (backend == "rtl") return std::make_unique<SingleDevice>("rtl", std::make_unique<RoceCsrRtl>());
  if (backend == "cosim") return std::make_unique<CosimDevice>();
  throw std::invalid_argument("rocenic: unknown backend '" + backend + "' (use model, rtl or cosim)");
}

}  // namespace rocenic
