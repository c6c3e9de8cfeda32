// The MR table (rtl/mem/mr_table.sv) in the event-driven model: memory
// region checks, memory-window binds and invalidations, and MTT
// translation, the IBTA rules of docs/engine.md and rtl/mem/mr_table.sv.
//
// Inputs: mr_wr / mtt_wr (table writes from roce_cmd, always taken), req
// (mr_req_t). Output: resp (mr_resp_t), one per request, in order.
// Timing: a request is answered kLatency cycles after it arrives (the RTL's
// two stages: MR entry, then MTT), one per cycle; a CHECK through a bound
// window and a BIND read a second entry (the MR): one cycle more each. A
// request sees the table writes that arrive in the same cycle; like the RTL,
// the model assumes the command path does not rewrite entries in use.
#pragma once

#include <memory>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

struct MrWrite {
  uint16_t index = 0;
  spec::MrCtx ctx;
};
struct MttWrite {
  uint16_t index = 0;
  uint64_t pa = 0;
};

// The registered regions, the memory windows and their translation table:
// the requests themselves, without timing (tests use them directly).
class MrRegions {
 public:
  explicit MrRegions(unsigned max_mr = 1024, unsigned mtt_depth = 4096) : mr_(max_mr), mtt_(mtt_depth) {}
  // CHECK: an access (key, PD, rights, bounds) and its first page's translation.
  spec::MrResp check(const spec::MrReq& r) const;
  // Any op: CHECK, or BIND / INVALIDATE, which change the window they name.
  spec::MrResp execute(const spec::MrReq& r);
  // Whether the request reads a second entry (a window's MR): one more cycle.
  bool reads_two(const spec::MrReq& r) const;
  void write_mr(unsigned index, const spec::MrCtx& c) {
    if (index < mr_.size()) mr_[index] = c;
  }
  void write_mtt(unsigned index, uint64_t pa) {
    if (index < mtt_.size()) mtt_[index] = pa;
  }
  const spec::MrCtx* entry(uint32_t key) const { return (key >> 8) < mr_.size() ? &mr_[key >> 8] : nullptr; }

 private:
  spec::MrStatus bind(const spec::MrReq& r, spec::MrCtx* out) const;
  spec::MrStatus invalidate(const spec::MrReq& r) const;
  std::vector<spec::MrCtx> mr_;
  std::vector<uint64_t> mtt_;
};

class MrTable : public Process {
 public:
  static constexpr Cycle kLatency = 2;
  static constexpr unsigned kReqCapacity = 1;

  MrTable(Scheduler& s, unsigned max_mr = 1024, unsigned mtt_depth = 4096);

  In<MrWrite> mr_wr;
  In<MttWrite> mtt_wr;
  In<spec::MrReq> req;
  Out<spec::MrResp> resp{this};

  void run() override;

 private:
  Scheduler& s_;
  MrRegions regions_;
  Cycle next_req_ = 0;  // one request a cycle
};

// The table as a cycle-level Block (ports: in 0 mr_wr = 2-byte LE index +
// mr_ctx_t, 1 mtt_wr = 2-byte LE index + 8-byte LE address, 2 req; out 0
// resp), for the cross-check against the RTL.
std::unique_ptr<rocenic::Block> make_mr_table_block(unsigned max_mr = 1024, unsigned mtt_depth = 4096);

}  // namespace rocenic::model
