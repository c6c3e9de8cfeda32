// The choice state shared by the engine's combinational arbiters (RTL:
// rtl/common/desc_arb2.sv, frame_arb2.sv, tx_arb.sv): a choice once offered
// is held until taken (or, for frames, until tlast is taken), and round robin
// remembers which input wins the next tie.
#pragma once

namespace rocenic::model {

struct ArbLock {
  bool lock = false;
  unsigned sel_q = 0;
  unsigned prio = 0;  // round robin: the input that wins a tie

  // Round robin between two inputs.
  unsigned rr(bool v0, bool v1) const { return lock ? sel_q : (v0 && v1) ? prio : (v1 ? 1u : 0u); }
  // Input `first` wins whenever it is valid.
  unsigned fixed(bool v_first, unsigned first) const { return lock ? sel_q : (v_first ? first : 1u - first); }
  // End of a cycle in which input `sel` offered (valid) and was taken or not;
  // `end` = the transfer ends the unit (a descriptor, or a frame's tlast).
  void offered(unsigned sel, bool taken, bool end) {
    lock = !(taken && end);
    sel_q = sel;
    if (taken && end) prio = 1u - sel;
  }
  void reset() { *this = ArbLock{}; }
};

}  // namespace rocenic::model
