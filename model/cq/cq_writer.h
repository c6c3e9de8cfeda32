// The CQ writer (rtl/cq/cq_writer.sv) in the event-driven model:
// completions into CQ rings in host memory (CQE layout:
// docs/spec/layouts.md), with the owner/phase bit, arming and events.
//
// Inputs: cfg (cq_cfg_t), db (cq_db_t: consumer index, arm), compl
// (cq_compl_t). Outputs: dma_wr (dma_wr_req_t) + dma_wr_data (the 32-byte
// CQE), event (cq_event_t: a completion event on an armed CQ, or a CQ error:
// no such CQ, or the ring is full).
//
// One input at a time, in the order they arrived (same cycle: cfg, db,
// completion, as the RTL's priority). Timing, as the RTL: a cfg or db takes one
// cycle; a completion offers its write the cycle after it is taken and its
// event the cycle after that, and the next input is taken once they are out.
#pragma once

#include <memory>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class CqWriter : public Process {
 public:
  CqWriter(Scheduler& s, unsigned max_cq = 256);

  In<spec::CqCfg> cfg;
  In<spec::CqDb> db;
  In<spec::CqCompl> completion;
  Out<spec::DmaWrReq> dma_wr{this};
  Out<Packet> dma_wr_data{this};
  Out<spec::CqEvent> event{this};

  uint32_t cqes() const { return cnt_cqe_; }
  uint32_t cq_errors() const { return cnt_err_; }
  void run() override;

 private:
  struct Ring {
    bool valid = false;
    uint64_t base = 0;
    uint8_t lsz = 0;
    uint32_t pi = 0, ci = 0;
    uint8_t arm = 0;
  };
  void configure(const spec::CqCfg& c);
  bool doorbell(const spec::CqDb& d, Cycle now);  // false: the event output is full
  // false: the outputs it needs are full (run() is woken when they drain).
  bool complete(Cycle now);

  Scheduler& s_;
  std::vector<Ring> rings_;
  Cycle free_at_ = 0;
  uint32_t cnt_cqe_ = 0, cnt_err_ = 0;
};

// The writer as a cycle-level Block (in 0 cfg, 1 db, 2 completion; out 0 dma_wr,
// 1 dma_wr_data, 2 event), for the cross-check against the RTL.
std::unique_ptr<rocenic::Block> make_cq_writer_block(unsigned data_bytes = 64, unsigned max_cq = 256);

}  // namespace rocenic::model
