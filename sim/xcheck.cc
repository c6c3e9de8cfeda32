#include "xcheck.h"

#include <cstdio>
#include <random>
#include <sstream>

#include "common/desc_flit.h"

namespace rocenic {
namespace {

// Offers one port's flits with random idle cycles; holds a flit until taken.
class Driver {
 public:
  Driver(const std::vector<Flit>& flits, uint64_t seed, double idle) : flits_(flits), rng_(seed), idle_(idle) {}
  bool done() const { return next_ >= flits_.size(); }
  // Decide this cycle's valid (only re-rolled once the previous flit was taken).
  bool offer() {
    if (done()) return false;
    if (!offering_) offering_ = std::bernoulli_distribution(1.0 - idle_)(rng_);
    return offering_;
  }
  const Flit& current() const { return flits_[next_]; }
  void taken() {
    ++next_;
    offering_ = false;
  }

 private:
  const std::vector<Flit>& flits_;
  std::mt19937_64 rng_;
  double idle_;
  size_t next_ = 0;
  bool offering_ = false;
};

// Runs one block with its own drivers and collects its output transactions.
class Side {
 public:
  Side(Block& b, const std::vector<std::vector<Flit>>& stim, const XcheckConfig& cfg)
      : b_(b), rng_(cfg.seed * 7919 + 17), stall_(cfg.out_stall), order_(cfg.order) {
    for (size_t i = 0; i < stim.size(); ++i) drivers_.emplace_back(stim[i], cfg.seed * 1000003 + i, cfg.in_idle);
    out_.resize(b.outputs().size());
    open_.resize(b.outputs().size());
  }
  bool inputs_done() const {
    for (const Driver& d : drivers_)
      if (!d.done()) return false;
    return true;
  }
  // One clock cycle; returns true if anything moved on an output.
  bool step() {
    static const Flit kIdle{};
    std::vector<bool> offered(drivers_.size());
    for (size_t i = 0; i < drivers_.size(); ++i) {
      const bool turn = order_.empty() || (pos_ < order_.size() && ((order_[pos_] & ~taken_) >> i & 1u));
      offered[i] = turn && drivers_[i].offer();
      b_.set_input(static_cast<unsigned>(i), offered[i], offered[i] ? drivers_[i].current() : kIdle);
    }
    std::vector<bool> ready(out_.size());
    for (size_t p = 0; p < out_.size(); ++p) {
      ready[p] = !b_.outputs()[p].has_ready || std::bernoulli_distribution(1.0 - stall_)(rng_);
      b_.set_output_ready(static_cast<unsigned>(p), ready[p]);
    }
    b_.eval();
    bool moved = false;
    for (size_t i = 0; i < drivers_.size(); ++i)
      if (offered[i] && b_.input_ready(static_cast<unsigned>(i))) {
        drivers_[i].taken();
        taken_ |= 1u << i;
        if (!order_.empty() && taken_ == order_[pos_]) {
          ++pos_;
          taken_ = 0;
        }
      }
    for (size_t p = 0; p < out_.size(); ++p) {
      if (!ready[p] || !b_.output_valid(static_cast<unsigned>(p))) continue;
      Flit f = b_.output(static_cast<unsigned>(p));
      for (size_t k = 0; k < f.data.size(); ++k)  // lanes outside keep carry no information
        if (b_.outputs()[p].is_stream && !((f.keep >> k) & 1u)) f.data[k] = 0;
      Txn& t = open_[p];
      if (t.flits.empty()) t.first_cycle = b_.cycle();
      t.flits.push_back(std::move(f));
      t.last_cycle = b_.cycle();
      if (!b_.outputs()[p].is_stream || t.flits.back().last) {
        out_[p].push_back(std::move(t));
        t = Txn{};
      }
      moved = true;
      last_out_cycle_ = b_.cycle();
    }
    b_.clock();
    return moved;
  }
  std::vector<std::vector<Txn>>& out() { return out_; }
  uint64_t last_out_cycle() const { return last_out_cycle_; }

 private:
  Block& b_;
  std::vector<Driver> drivers_;
  std::mt19937_64 rng_;
  double stall_;
  const std::vector<uint32_t>& order_;
  size_t pos_ = 0;
  uint32_t taken_ = 0;  // ports of the current order step already taken
  std::vector<std::vector<Txn>> out_;
  std::vector<Txn> open_;
  uint64_t last_out_cycle_ = 0;
};

bool same(const Txn& a, const Txn& b) {
  if (a.flits.size() != b.flits.size()) return false;
  for (size_t i = 0; i < a.flits.size(); ++i)
    if (!(a.flits[i] == b.flits[i])) return false;
  return true;
}

std::string default_describe(const Txn& t) {
  std::ostringstream s;
  s << t.flits.size() << " flit(s), bytes " << beats_to_bytes(t.flits).size() << ": " << hex_bytes(beats_to_bytes(t.flits));
  // a flit without keep bits (a descriptor port): its raw data
  if (t.flits.size() == 1 && beats_to_bytes(t.flits).empty()) s << "data " << hex_bytes(t.flits[0].data);
  if (!t.flits.empty() && t.flits.back().user) s << " (user)";
  return s.str();
}

}  // namespace

std::string hex_bytes(const std::vector<uint8_t>& v, size_t max) {
  std::string s;
  char b[4];
  for (size_t i = 0; i < v.size() && i < max; ++i) {
    std::snprintf(b, sizeof b, "%02x", v[i]);
    s += b;
  }
  if (v.size() > max) s += "...";
  return s;
}

std::vector<std::vector<Txn>> drive_block(Block& b, const std::vector<std::vector<Flit>>& stimulus,
                                          const XcheckConfig& cfg, uint64_t* last_cycle) {
  Side side(b, stimulus, cfg);
  uint64_t quiet = 0;
  for (uint64_t c = 0; c < cfg.max_cycles; ++c) {
    const bool moved = side.step();
    quiet = (moved || !side.inputs_done()) ? 0 : quiet + 1;
    if (quiet >= cfg.quiet_cycles) break;
  }
  if (last_cycle) *last_cycle = side.last_out_cycle();
  return std::move(side.out());
}

XcheckResult xcheck_run(const BlockFactory& make_rtl, const BlockFactory& make_model,
                        const std::vector<std::vector<Flit>>& stimulus, const XcheckConfig& cfg) {
  XcheckResult r;
  auto rtl = make_rtl();
  auto model = make_model();
  Side rs(*rtl, stimulus, cfg), ms(*model, stimulus, cfg);
  const size_t nports = rtl->outputs().size();
  std::vector<size_t> checked(nports, 0);
  uint64_t quiet = 0, cycle = 0;
  auto describe = [&](unsigned p, const Txn& t) { return cfg.describe ? cfg.describe(p, t) : default_describe(t); };

  for (; cycle < cfg.max_cycles && r.ok; ++cycle) {
    const bool moved = rs.step() | ms.step();
    quiet = (moved || !rs.inputs_done() || !ms.inputs_done()) ? 0 : quiet + 1;
    for (unsigned p = 0; p < nports && r.ok; ++p) {
      auto& a = rs.out()[p];
      auto& b = ms.out()[p];
      for (; checked[p] < a.size() && checked[p] < b.size(); ++checked[p]) {
        const Txn& x = a[checked[p]];
        const Txn& y = b[checked[p]];
        if (same(x, y)) {
          ++r.compared;
          continue;
        }
        std::ostringstream s;
        s << "DIVERGENCE on output port " << p << " (" << rtl->outputs()[p].name << "), transaction #"
          << checked[p] << "\n  rtl   (cycles " << x.first_cycle << ".." << x.last_cycle << "): " << describe(p, x)
          << "\n  model (cycles " << y.first_cycle << ".." << y.last_cycle << "): " << describe(p, y) << "\n";
        const auto xb = beats_to_bytes(x.flits), yb = beats_to_bytes(y.flits);
        size_t at = 0;
        while (at < xb.size() && at < yb.size() && xb[at] == yb[at]) ++at;
        s << "  first difference at byte " << at << " of " << xb.size() << " (rtl) / " << yb.size() << " (model)\n";
        r.ok = false;
        r.report = s.str();
        if (!cfg.fst_path.empty()) {
          // Re-run the RTL side alone, deterministically, tracing the window.
          auto again = make_rtl();
          Side replay(*again, stimulus, cfg);
          const uint64_t from = x.first_cycle > cfg.fst_window ? x.first_cycle - cfg.fst_window : 0;
          bool tracing = false;
          for (uint64_t c = 0; c <= x.last_cycle + 8; ++c) {
            if (c == from) tracing = again->open_trace(cfg.fst_path);
            replay.step();
          }
          again->close_trace();
          if (tracing)
            r.report += "  waveform: " + cfg.fst_path + " (cycles " + std::to_string(from) + ".." +
                        std::to_string(x.last_cycle + 8) + ")\n";
        }
        break;
      }
    }
    if (quiet >= cfg.quiet_cycles) break;
  }
  r.rtl_cycles = rs.last_out_cycle();
  r.model_cycles = ms.last_out_cycle();
  if (r.ok) {
    std::ostringstream s;
    for (unsigned p = 0; p < nports; ++p) {
      if (rs.out()[p].size() != ms.out()[p].size()) {
        r.ok = false;
        s << "DIVERGENCE on output port " << p << " (" << rtl->outputs()[p].name << "): rtl sent "
          << rs.out()[p].size() << " transactions, model " << ms.out()[p].size() << "\n";
      }
    }
    const auto rc = rtl->counters(), mc = model->counters();
    for (size_t i = 0; i < rc.size() && i < mc.size(); ++i)
      if (rc[i] != mc[i]) {
        r.ok = false;
        s << "DIVERGENCE in counter " << rc[i].first << ": rtl " << rc[i].second << ", model " << mc[i].second << "\n";
      }
    if (cycle >= cfg.max_cycles) {
      r.ok = false;
      s << "TIMEOUT after " << cycle << " cycles: a side stopped making progress\n";
    }
    if (r.ok)
      s << "compared " << r.compared << " transactions, 0 divergences; last output at cycle rtl " << r.rtl_cycles
        << ", model " << r.model_cycles << "\n";
    r.report = s.str();
  }
  r.rtl_out = std::move(rs.out());
  r.model_out = std::move(ms.out());
  return r;
}

}  // namespace rocenic
