#include "engine/netlist.h"

namespace rocenic::model {

namespace {
constexpr int kMaxSettleRounds = 8;  // longer pass-through chains than this do not exist in the engine
}

// A producer port wired to several consumers is a broadcast, as in the RTL:
// each consumer sees valid only when all of them are ready, and the producer
// sees ready only then too, so the one transfer happens everywhere at once.
void Netlist::settle() {
  for (auto& w : wires_) w.valid = w.ready = false;
  std::vector<bool> all_ready(wires_.size(), true);
  for (int round = 0; round < kMaxSettleRounds; ++round) {
    bool changed = false;
    for (size_t i = 0; i < wires_.size(); ++i) {
      Wire& w = wires_[i];
      const bool v = w.from->output_valid(w.out) && (w.fanout == 1 || all_ready[i]);
      w.to->set_input(w.in, v, v ? w.from->output(w.out) : Flit{});
      changed |= v != w.valid;
      w.valid = v;
    }
    for (auto& b : blocks_) b->eval();
    for (auto& w : wires_) {
      const bool r = w.to->input_ready(w.in);
      changed |= r != w.ready;
      w.ready = r;
    }
    for (size_t i = 0; i < wires_.size(); ++i) {
      bool r = true;
      for (const size_t j : wires_[i].group) r = r && wires_[j].ready;
      all_ready[i] = r;
      wires_[i].from->set_output_ready(wires_[i].out, r);
    }
    for (auto& b : blocks_) b->eval();
    if (!changed && round > 0) return;
  }
}

void Netlist::connect(Block* from, unsigned out_port, Block* to, unsigned in_port) {
  Wire w;
  w.from = from;
  w.out = out_port;
  w.to = to;
  w.in = in_port;
  wires_.push_back(w);
  std::vector<size_t> group;
  for (size_t i = 0; i < wires_.size(); ++i)
    if (wires_[i].from == from && wires_[i].out == out_port) group.push_back(i);
  for (const size_t i : group) {
    wires_[i].group = group;
    wires_[i].fanout = group.size();
  }
}

bool Netlist::idle() const {
  for (const auto& b : blocks_)
    if (!b->idle()) return false;
  for (const auto& w : wires_)
    if (w.valid) return false;
  return true;
}

}  // namespace rocenic::model
