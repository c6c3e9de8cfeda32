// Model of rtl/xport/req_issue.sv, cycle for cycle: walks a send WQE's gather
// list, asks the MR table for each later page run, and issues the payload
// reads as pieces that never cross an SGE end, a page-run end, a 4 KiB
// bus-address boundary or a packet end -- only against free space in the
// payload buffer.
#pragma once

#include <array>
#include <cstdint>

#include "gen/roce_spec.h"

namespace rocenic::model {

// What one message's walk needs (held by the engine for the whole walk).
struct IssueMsg {
  std::array<uint64_t, 6> addr{}, chk_pa{};
  std::array<uint32_t, 6> len{}, lkey{}, chk_run{};
  uint8_t act = 0;  // SGEs that carry bytes
  uint16_t pd = 0;
  uint32_t length = 0;
  unsigned mtu_lg = 8;
};

// A piece as the piece FIFO holds it, and the packet FIFO's entry.
struct Piece {
  bool zero = false, pkt_last = false;
  uint16_t len = 0;
};

class ReqIssue {
 public:
  ReqIssue(unsigned data_bytes, unsigned raw_depth) : w_(data_bytes), raw_depth_(raw_depth) { reset(); }
  void reset();

  struct Comb {
    bool mr_req_valid = false, mr_resp_ready = false;
    spec::MrReq mr_req;
    bool rd_valid = false, push = false, pend = false;
    spec::DmaRdReq rd;
    Piece piece;
    unsigned beats = 0, pk_need = 0;
  };
  // pc_ready / pk_ready: room in the piece and packet FIFOs; rd_ready: the DMA takes a request.
  Comb comb(const IssueMsg& m, bool pc_ready, bool pk_ready, bool rd_ready) const;
  void clock(const IssueMsg& m, const Comb& c, bool start, bool mr_req_ready, bool mr_resp_valid,
             const spec::MrResp& resp, bool release_beat);
  bool err() const { return err_; }

 private:
  static unsigned next_act(uint8_t mask, unsigned from);
  static uint16_t min_mtu(uint32_t x, unsigned lg) { return x < (1u << lg) ? static_cast<uint16_t>(x) : 1u << lg; }

  unsigned w_, raw_depth_;
  bool busy_ = false, err_ = false, first_ = false, run_v_ = false, zero_ = false, treq_ = false, twait_ = false;
  unsigned sge_ = 0;
  uint64_t va_ = 0, pa_ = 0;
  uint32_t sge_rem_ = 0, run_rem_ = 0, msg_rem_ = 0;
  uint16_t pkt_rem_ = 0;
  unsigned need_ = 0, free_ = 0;
};

}  // namespace rocenic::model
