// READ response placement (rtl/xport/read_place.sv) in the event-driven
// model: where an RC requester's RDMA READ response data lands (docs/engine.md,
// "READ response placement"). As Linux rxe's rxe_comp.c copies a READ
// response into the WQE's scatter list (copy_data at the response's offset),
// one command per response packet: find the WQE's SGEs, translate each page
// run, write the payload, answer the READ's last response. An atomic's
// answer (its ATOMIC ACKNOWLEDGE's original value, 8 bytes: one command,
// offset 0, last) lands in its SGEs alike: the send WQE may be a READ or
// either atomic (docs/engine.md, "Atomics").
//
// Inputs: qp_cfg, cmd (rd_place_t) + payload (one Packet per cmd with
// len > 0), dma_rd (one Packet per dma_rd_req, user = poisoned), mr_resp,
// hint (rd_hint_t from the requester: a READ's SGE as its request leaves;
// always taken, written into a direct-mapped table of READ_HINTS entries).
// Outputs: dma_rd_req (send WQE fetches), mr_req (one per page run),
// dma_wr_req + dma_wr_data (one Packet per request), done (rd_done_t).
//
// Two steps, as in the RTL: the control decides one command at a time (the
// WQE from its one-entry cache, the requester's hint, or fetched, the length check, the walk from
// where the WQE's previous command ended or from SGE 0, a translation per
// page run), and placement writes the decided pieces in order, drops the
// rest, and answers a READ's last command once every write before it was
// taken. Timing constants are at the top of read_place.cc.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class ReadPlace : public Process {
 public:
  ReadPlace(Scheduler& s, unsigned data_bytes = 64, unsigned max_qp = 256);

  In<spec::QpCfg> qp_cfg;
  In<spec::RdPlace> cmd;
  In<Packet> payload;
  In<Packet> dma_rd;
  In<spec::MrResp> mr_resp;
  In<spec::RdHint> hint;
  Out<spec::DmaRdReq> dma_rd_req{this};
  Out<spec::MrReq> mr_req{this};
  Out<spec::DmaWrReq> dma_wr_req{this};
  Out<Packet> dma_wr_data{this};
  Out<spec::RdDone> done{this};

  static constexpr unsigned kMaxSge = spec::kMaxSge;
  // SGEs in the first WQE_HEAD bytes (the first read); the rest are read after them
  static constexpr unsigned kHeadSge = (spec::kWqeHead - spec::kSendWqeSge0AddrOff) / spec::Sge::kSize;
  // A hint's table entry: qpn XOR wqe_idx bit-reversed, low bits (as the RTL).
  static unsigned hint_slot(uint16_t qpn, uint16_t idx);

  std::vector<std::pair<std::string, uint32_t>> counters() const;
  // The control takes a qp_cfg or a command only when free.
  bool accepting() const { return st_ == St::kIdle; }
  bool busy() const { return st_ != St::kIdle || !placing_.empty(); }
  void run() override;

 private:
  struct Sge {
    uint64_t addr = 0;
    uint32_t len = 0, lkey = 0;
  };
  struct Qp {
    bool valid = false;
    uint16_t pd = 0;
    uint64_t sq_base = 0;
    uint8_t sq_lsz = 0;
    bool fail = false;  // WQE fail_idx failed with fail_st: its data is dropped until its last command
    uint16_t fail_idx = 0;
    uint8_t fail_st = 0;
    uint8_t epoch = 0;  // RESETs and DESTROYs of this QP number (the completer counts them alike)
  };
  // The last fetched WQE's SGEs, and where its previous command ended.
  struct Cached {
    bool valid = false;
    uint16_t qpn = 0, idx = 0;
    std::array<Sge, kMaxSge> sge{};
    uint64_t total = 0;      // sum of the first num_sge lengths
    bool pos_valid = false;  // the position below is that of message offset `next`
    uint64_t next = 0;
    unsigned sidx = 0;  // SGE, bytes of it before the position
    uint32_t soff = 0;
    uint64_t run_pa = 0;  // the current page run (run_left 0: translate)
    uint32_t run_left = 0;
  };
  struct Piece {
    uint64_t pa = 0;
    uint32_t len = 0;
    Cycle at = 0;  // cut (the RTL hands each piece on as it is cut, before the command is done)
  };
  // What the control decided for one command: its pieces (a prefix of the
  // payload), the rest dropped, maybe the READ's answer.
  struct Job {
    uint32_t len = 0;
    std::deque<Piece> pieces;
    uint32_t written = 0;  // payload bytes handed out so far
    bool popped = false;   // the payload was taken (written or dropped)
    bool last = false;
    spec::RdDone answer;
    Cycle at = 0;  // decided
  };
  enum class St { kIdle, kWqe, kWqeTail, kRun };  // kWqeTail: SGEs 6.., read after the head
  // A hint as kept: the tag, and the SGE when the WQE has just one.
  struct Hint {
    bool valid = false, one_sge = false;
    uint16_t qpn = 0, idx = 0;
    Sge sge;
  };
  // hints taken before `before` are in the table (the RTL writes a hint in
  // the cycle it comes; a command taken in that cycle reads the entry as it was)
  void take_hints(Cycle before);
  bool use_hint();  // the command's WQE from its hint: true if there was one of one SGE

  // control steps
  void on_cfg(const spec::QpCfg& c);
  void on_cmd(const spec::RdPlace& c);
  void after_wqe(const Packet& p);
  void after_wqe_tail(const Packet& p);
  void use_wqe(const Packet& p);  // the whole WQE is in
  Packet wqe_head_;
  void check();  // the length check, then the position
  void walk();   // cut the payload into pieces, asking for page runs as needed
  void after_run(const spec::MrResp& r);
  void fail(uint8_t status);
  void finish();
  // placement: false when it waits (payload not here, an output full, writes not taken)
  bool place(Cycle now);

  Scheduler& s_;
  unsigned bytes_;
  std::vector<Qp> qps_;
  Cached wqe_;
  std::vector<Hint> hints_;

  // control
  St st_ = St::kIdle;
  Cycle ctl_at_ = 0;  // the control's next free cycle
  spec::RdPlace k_;
  bool ok_ = false, old_fail_ = false, failed_ = false, new_fail_ = false;
  uint8_t status_ = 0;
  uint32_t rem_ = 0;  // payload bytes not yet cut into pieces
  Job job_;

  // placement
  std::deque<Job> placing_;
  Cycle place_at_ = 0;  // next free beat of the slicer

  uint32_t c_pieces_ = 0, c_drop_ = 0, c_reads_ = 0, c_hints_ = 0, c_err_ = 0;
};

// read_place as a cycle-level Block (in 0 qp_cfg, 1 cmd, 2 payload, 3
// dma_rd, 4 mr_resp, 5 hint; out 0 dma_rd_req, 1 mr_req, 2 dma_wr_req, 3
// dma_wr_data, 4 done), for the cross-check.
std::unique_ptr<rocenic::Block> make_read_place_block(unsigned data_bytes = 64, unsigned max_qp = 256);

}  // namespace rocenic::model
