// The TX back end (rtl/net/roce_deparser.sv) in the event-driven model: a
// header descriptor and its payload in, the RoCE frame out (headers from the
// generated tables, pad, ICRC; model/net/roce_frame.h).
//
// Inputs: hdr (roce_tx_hdr_t), pay (pay_len bytes; none when pay_len = 0).
// Output: tx (one Packet per frame). Timing: the first beat leaves kLatency
// cycles after the header and the payload's first beat are both there, then
// a beat a cycle; frames follow each other without gaps.
#pragma once

#include <memory>

#include "common/block.h"
#include "gen/roce_spec.h"
#include "sched/port.h"

namespace rocenic::model {

class RoceDeparser : public Process {
 public:
  static constexpr Cycle kLatency = 3;

  RoceDeparser(Scheduler& s, unsigned data_bytes = 64);

  In<spec::RoceTxHdr> hdr;
  In<Packet> pay;
  Out<Packet> tx{this};

  uint32_t tx_frames() const { return tx_frames_; }
  // The port's global traffic class and TTL (CSR TX_TCLASS / TX_TTL: bit 8
  // enable, 7:0 the value), applied to each header as it is taken. In the RTL
  // the engine top applies them between tx_arb and the deparser.
  void set_override(uint16_t tclass, uint16_t ttl) {
    tclass_ovr_ = tclass;
    ttl_ovr_ = ttl;
  }
  void run() override;

 private:
  Scheduler& s_;
  unsigned bytes_;
  Cycle out_free_ = 0;  // the next cycle a first beat may leave
  uint32_t tx_frames_ = 0;
  uint16_t tclass_ovr_ = 0, ttl_ovr_ = 0;
  bool latched_ = false;  // the front header's values are taken
  uint16_t lt_tclass_ = 0, lt_ttl_ = 0;
};

// The deparser as a cycle-level Block (in 0 s_hdr, 1 s_axis_pay; out 0
// m_axis_tx), for the cross-checks.
std::unique_ptr<rocenic::Block> make_roce_deparser_block(unsigned data_bytes = 64);

}  // namespace rocenic::model
