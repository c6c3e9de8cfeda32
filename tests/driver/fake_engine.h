// A fake engine behind the Device interface, for unit tests of the
// provider alone: the CSR map the provider programs and queries (ID,
// capabilities, port, GID table as written), and a command mailbox that
// records every command with its argument words and answers as the test
// says. It executes nothing: WQEs stay in the provider's rings and CQEs
// appear only where the test writes them, so what the provider wrote is
// read back exactly as it left it, and no engine change can move a result.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include "device.h"
#include "gen/roce_spec.h"

namespace rocenic::test {

class FakeEngine : public Device {
 public:
  // The capability registers it reports.
  static constexpr uint32_t kMaxQp = 64, kMaxCq = 64, kMaxMr = 256, kMaxPd = 16, kMaxQpWr = 1024, kMaxSge = spec::kMaxSge,
                            kMaxCqe = 4096, kMaxInline = 96, kGidTbl = 16;
  // Windows come from their own part of the index space, with a key byte
  // of their own, so a test tells a window's rkey from a region's.
  static constexpr uint32_t kFirstMwIndex = 200, kMwKeyByte = 0x05;

  struct Command {
    spec::CmdOp op;
    std::array<uint32_t, 16> args;  // CMD_ARG words as written before CMD_OP
  };

  const char* backend() const override { return "fake"; }

  bool csr_read(uint32_t addr, uint32_t* v) override {
    *v = read(addr);
    return true;
  }
  bool csr_write(uint32_t addr, uint32_t v) override {
    if (addr >= spec::kCsrCmdArg && addr < spec::kCsrCmdArg + 64) {
      args_[(addr - spec::kCsrCmdArg) / 4] = v;
    } else if (addr == spec::kCsrCmdOp) {
      execute(static_cast<spec::CmdOp>(v));
    } else if (addr == spec::kCsrSqDb || addr == spec::kCsrSqBfDb) {
      sq_doorbells.push_back(v);
      if (addr == spec::kCsrSqBfDb) bf_doorbells.push_back({v, bf_writes_});
      bf_writes_.clear();
    } else if (addr >= spec::kCsrSqBf && addr < spec::kCsrSqBf + spec::kWqeHead) {
      bf_writes_.emplace_back(addr - spec::kCsrSqBf, v);
    } else {
      regs_[addr] = v;
    }
    return true;
  }

  void dma_allow(uint64_t, uint64_t) override {}
  void dma_revoke(uint64_t, uint64_t) override {}
  void set_tx_sink(FrameSink) override {}
  void set_bypass_sink(FrameSink) override {}
  void rx_frame(const uint8_t*, size_t) override {}
  std::vector<DeviceEvent> take_events() override { return {}; }
  uint64_t run(uint64_t) override { return 0; }
  bool idle() override { return true; }
  uint64_t timer_at() override { return UINT64_MAX; }
  void skip_to(uint64_t) override {}
  uint64_t cycles() const override { return 0; }
  uint64_t now_ns() const override { return 0; }

  // What the tests look at and script (under the provider's engine mutex
  // while it runs a verb; read between verbs).
  std::vector<Command> commands;
  std::vector<uint32_t> sq_doorbells;  // SQ_DB and SQ_BF_DB values: qpn | pi << 16
  // Each SQ_BF_DB: its value and the SQ_BF writes (byte offset, word) since the last send doorbell.
  struct BfDoorbell {
    uint32_t value = 0;
    std::vector<std::pair<uint32_t, uint32_t>> words;
  };
  std::vector<BfDoorbell> bf_doorbells;
  spec::CmdStatus next_status = spec::CmdStatus::kOk;  // the next command's answer (then OK again)

  // The last command of `op`, or nullptr.
  const Command* last(spec::CmdOp op) const {
    for (auto it = commands.rbegin(); it != commands.rend(); ++it)
      if (it->op == op) return &*it;
    return nullptr;
  }

 private:
  std::vector<std::pair<uint32_t, uint32_t>> bf_writes_;  // SQ_BF writes since the last send doorbell

  uint32_t read(uint32_t addr) const {
    switch (addr) {
      case spec::kCsrId: return spec::kCsrIdReset;
      case spec::kCsrVersion: return spec::kCsrVersionReset;
      case spec::kCsrCapMaxQp: return kMaxQp;
      case spec::kCsrCapMaxCq: return kMaxCq;
      case spec::kCsrCapMaxMr: return kMaxMr;
      case spec::kCsrCapMaxPd: return kMaxPd;
      case spec::kCsrCapMaxQpWr: return kMaxQpWr;
      case spec::kCsrCapMaxSge: return kMaxSge;
      case spec::kCsrCapMaxCqe: return kMaxCqe;
      case spec::kCsrCapMaxInline: return kMaxInline;
      case spec::kCsrCapGidTbl: return kGidTbl;
      case spec::kCsrPortState: return 4;  // IBV_PORT_ACTIVE
      case spec::kCsrCmdStatus: return status_;
      default: break;
    }
    if (addr >= spec::kCsrCmdRes && addr < spec::kCsrCmdRes + 16) return res_[(addr - spec::kCsrCmdRes) / 4];
    auto it = regs_.find(addr);
    return it == regs_.end() ? 0 : it->second;
  }

  // Records the command and answers it: a fresh object number, or a key of
  // index << 8 | key byte, in res0.
  void execute(spec::CmdOp op) {
    commands.push_back({op, args_});
    res_ = {};
    status_ = static_cast<uint32_t>(next_status);
    next_status = spec::CmdStatus::kOk;
    if (status_) return;
    switch (op) {
      case spec::CmdOp::kAllocPd: res_[0] = next_pd_++; break;
      case spec::CmdOp::kCreateCq: res_[0] = next_cq_++; break;
      case spec::CmdOp::kCreateQp: res_[0] = next_qp_++; break;
      case spec::CmdOp::kRegMr: res_[0] = next_mr_++ << 8 | 1; break;
      case spec::CmdOp::kAllocMw: res_[0] = next_mw_++ << 8 | kMwKeyByte; break;
      default: break;
    }
  }

  std::array<uint32_t, 16> args_{};
  std::array<uint32_t, 4> res_{};
  uint32_t status_ = 0;
  uint32_t next_pd_ = 0, next_cq_ = 0, next_qp_ = 1, next_mr_ = 1, next_mw_ = kFirstMwIndex;
  std::map<uint32_t, uint32_t> regs_;  // every other register as written
};

}  // namespace rocenic::test
