// A stand-in for the engine behind the Device interface, for the provider's
// unit tests: the CSR map, the command mailbox with the checks of
// docs/engine.md (first failure wins, same statuses), and a functional data
// path between QPs of this device (loopback: SEND, SEND_WITH_IMM,
// RDMA_WRITE, RDMA_WRITE_WITH_IMM with MR checks), CQEs with the owner
// phase, arming and events, CQ overrun. Frames for other MACs go to the TX
// sink. Everything happens in run(); no timing.
//
// It is not the engine: the real backends replace it in the end-to-end
// tests. What it gives is a check of the provider's side of every contract
// (ring layouts, doorbells, consumer indices, events) in one process.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "device.h"
#include "dma/host_memory.h"

namespace rocenic::test {

class FakeDevice : public Device {
 public:
  struct Limits {
    uint32_t max_qp = 8, max_cq = 8, max_mr = 16, max_pd = 4, max_qp_wr = 64, max_sge = 6, max_cqe = 256,
             max_inline = 96, gid_tbl_len = 16, mtt_depth = 4096;
  };
  FakeDevice() : FakeDevice(Limits{}) {}
  explicit FakeDevice(const Limits& l);

  const char* backend() const override { return "fake"; }
  bool csr_read(uint32_t addr, uint32_t* value) override;
  bool csr_write(uint32_t addr, uint32_t value) override;
  void dma_allow(uint64_t addr, uint64_t len) override { mem_.allow(addr, len); }
  void dma_revoke(uint64_t addr, uint64_t len) override { mem_.revoke(addr, len); }
  void set_tx_sink(FrameSink sink) override { tx_ = std::move(sink); }
  void set_bypass_sink(FrameSink sink) override { bypass_ = std::move(sink); }
  void rx_frame(const uint8_t* frame, size_t len) override {
    rx_frames.emplace_back(frame, frame + len);
    rx_count.fetch_add(1);
  }
  std::vector<DeviceEvent> take_events() override;
  uint64_t run(uint64_t max_cycles) override;
  bool idle() override { return work_.empty(); }
  uint64_t cycles() const override { return cycles_; }
  uint64_t now_ns() const override { return cycles_ * 4; }  // 250 MHz

  // What the tests look at.
  uint64_t dma_refused() const { return mem_.refused(); }
  std::vector<std::vector<uint8_t>> rx_frames;  // read once the engine is idle (Engine::wait_idle)
  std::atomic<size_t> rx_count{0};
  uint32_t commands = 0;          // commands executed
  uint32_t last_cq_ci[256] = {};  // CQ_DB_CI as rung, per CQ
  uint32_t overruns = 0;

 private:
  struct Cq {
    bool valid = false;
    uint64_t base = 0;
    uint8_t lsz = 0;
    uint32_t pi = 0, ci = 0, users = 0;
    uint8_t arm = 0;
  };
  struct Mr {
    bool valid = false;
    uint8_t keybyte = 0;
    uint32_t pd = 0, access = 0, mtt_base = 0, npages = 0;
    uint64_t iova = 0, length = 0;
  };
  struct Qp {
    bool valid = false;
    uint8_t state = 0, sq_lsz = 0, rq_lsz = 0, access = 0;
    uint32_t pd = 0, scq = 0, rcq = 0, dest_qpn = 0;
    uint64_t sq_base = 0, rq_base = 0;
    uint16_t sq_pi = 0, sq_ci = 0, rq_pi = 0, rq_ci = 0;
    std::array<uint8_t, 6> dmac{};
  };
  struct Pd {
    bool used = false;
    uint32_t users = 0;
  };

  uint32_t execute(uint32_t op);  // cmd_status
  uint32_t modify(const uint8_t* a);
  void service_sq(uint32_t qpn);
  void flush_rq(uint32_t qpn);
  void complete(uint32_t cqn, const uint8_t cqe[32], bool solicited);
  // An MR check as mr_table does it: key, PD, rights, bounds; the bytes move by DMA.
  bool mr_ok(uint32_t key, uint32_t pd, uint64_t va, uint64_t len, uint32_t need) const;
  bool gather(uint32_t pd, const uint8_t* wqe, std::vector<uint8_t>* out);
  bool scatter(uint32_t pd, const uint8_t* wqe, const std::vector<uint8_t>& data, bool* too_long);

  Limits lim_;
  ProcessMemory mem_;
  FrameSink tx_, bypass_;
  uint32_t regs_[0x400] = {};  // CSR words up to 0x1000
  std::vector<Pd> pds_;
  std::vector<Cq> cqs_;
  std::vector<Mr> mrs_;
  std::vector<Qp> qps_;
  std::vector<uint64_t> mtt_;
  std::deque<std::pair<char, uint32_t>> work_;  // 'S' send queue / 'R' receive queue of a QP
  std::vector<DeviceEvent> events_;
  uint64_t cycles_ = 0;
};

}  // namespace rocenic::test
