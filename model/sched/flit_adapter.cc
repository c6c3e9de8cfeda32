#include "sched/flit_adapter.h"

namespace rocenic::model {

FlitAdapter::FlitAdapter(unsigned data_bytes, Build build) : bytes_(data_bytes), build_(std::move(build)) {
  this->build();
}

FlitAdapter::~FlitAdapter() {
  // Channels and the block refer to the scheduler: they go first.
  outs_.clear();
  ins_.clear();
  block_.reset();
}

void FlitAdapter::build() {
  outs_.clear();
  ins_.clear();
  block_.reset();
  counters_ = nullptr;
  busy_ = nullptr;
  sched_ = std::make_unique<Scheduler>();
  build_(*this);
  in_info_.clear();
  out_info_.clear();
  for (const InPort& p : ins_) in_info_.push_back(p.info);
  for (const OutPort& p : outs_) out_info_.push_back(p.info);
}

void FlitAdapter::reset() { build(); }

void FlitAdapter::add_in(PortInfo info, std::function<bool(const Flit&)> can_push,
                         std::function<void(std::vector<Flit>&, Cycle)> push) {
  InPort p;
  p.info = std::move(info);
  p.can_push = std::move(can_push);
  p.push = std::move(push);
  ins_.push_back(std::move(p));
}

void FlitAdapter::add_out(PortInfo info, std::shared_ptr<void> ch, std::function<bool()> has,
                          std::function<std::vector<Flit>()> flits, std::function<void()> pop,
                          std::function<bool()> empty) {
  OutPort p;
  p.info = std::move(info);
  p.channel = std::move(ch);
  p.has = std::move(has);
  p.flits = std::move(flits);
  p.pop = std::move(pop);
  p.empty = std::move(empty);
  outs_.push_back(std::move(p));
}

void FlitAdapter::in_stream(const char* name, Channel<Packet>& ch) {
  add_in({name, true, true, bytes_}, [&ch](const Flit&) { return ch.can_push(); },
         [&ch](std::vector<Flit>& beats, Cycle t) {
           Packet p;
           p.data = Bytes(beats_to_bytes(beats));
           p.id = beats.front().id;
           for (const Flit& b : beats) p.user = p.user || b.user;
           ch.push(std::move(p), t);
         });
}

void FlitAdapter::in_stream_sized(const char* name, Channel<Packet>& ch, Lengths lengths) {
  const unsigned bytes = bytes_;
  add_in({name, true, true, bytes}, [&ch, lengths](const Flit&) { return !lengths->empty() && ch.can_push(); },
         [&ch, lengths](std::vector<Flit>& beats, Cycle t) {
           const size_t len = lengths->front();
           lengths->pop_front();
           std::vector<uint8_t> data;
           data.reserve(len);
           for (const Flit& b : beats)
             for (size_t i = 0; i < b.data.size() && data.size() < len; ++i) data.push_back(b.data[i]);
           ch.push(Packet{Bytes(std::move(data))}, t);
         });
  ins_.back().complete = [lengths, bytes](const std::vector<Flit>& beats) {
    return beats.size() * bytes >= lengths->front();
  };
}

void FlitAdapter::out_stream(const char* name, Out<Packet>& port, unsigned capacity) {
  auto ch = std::make_shared<Channel<Packet>>(*sched_, capacity);
  port.bind(*ch);
  Channel<Packet>* c = ch.get();
  const unsigned bytes = bytes_;
  Scheduler* s = sched_.get();
  // A packet is stamped with the cycle of its last beat: its first beat is
  // offered as many cycles earlier as it has beats after the first (or as
  // its beat_at says, each beat then no sooner than its gap after the one
  // before was taken).
  auto pr = std::make_shared<StreamProgress>();
  last_stream_ = pr;
  const auto has = [c, s, bytes, pr] {
    if (c->empty()) return false;
    if (pr->offered) return true;  // (offered: it stays until taken)
    const Packet& p = c->front();
    const size_t n = p.data.size();
    const Cycle now = s->now();
    const size_t b = pr->beat;
    bool ok;
    Cycle gap;  // the stage's cycles since the last take this beat needs
    if (p.beat_at.empty() || b >= p.beat_at.size()) {
      const Cycle extra = n > bytes ? (n - 1) / bytes : 0;
      ok = c->next_at() <= now + extra;
      gap = 1;
    } else {
      const Cycle first = c->next_at() - p.beat_at.back();
      ok = now >= first + p.beat_at[b];
      // (the first: its gap after the packet before left, whose last beat held the stage)
      gap = b == 0 ? 1 + p.beat_at[0] : p.beat_at[b] - p.beat_at[b - 1];
    }
    // (the stage moves only in cycles its source is not held)
    // (and never in a cycle it is held: a held cycle after an idle stretch
    // still puts the beat off, as the RTL's source takes none in it)
    if (ok && pr->held && now > pr->last_take) {
      gap += pr->held(pr->last_take, now - 1);
      if (pr->held(now - 1, now - 1) != 0) ok = false;
    }
    pr->offered = ok && now >= pr->last_take + gap;
    return pr->offered;
  };
  add_out({name, true, true, bytes}, ch, has,
          [c, bytes] {
            const Packet& p = c->front();
            auto beats = frame_to_beats(p.data.vec(), bytes, p.user);
            for (Flit& b : beats) b.id = p.id;
            return beats;
          },
          [c, pr, s] {
            c->pop();
            pr->beat = 0;
            pr->last_take = s->now();
            pr->offered = false;
          },
          [c] { return c->empty(); });
  outs_.back().beat_fn = [c, pr, s] {
    c->took_beat();
    ++pr->beat;
    pr->last_take = s->now();
    pr->offered = false;
  };
}

void FlitAdapter::set_input(unsigned port, bool valid, const Flit& flit) {
  InPort& p = ins_[port];
  p.valid = valid;
  if (valid) p.flit = flit;
}

bool FlitAdapter::can_take(unsigned port) {
  InPort& p = ins_[port];
  return !p.beats.empty() || p.can_push(p.flit);  // a credit is taken for the whole packet at its first beat
}

bool FlitAdapter::input_ready(unsigned port) {
  if (!can_take(port)) return false;
  for (const unsigned q : one_of_) {
    if (q == port) break;
    if (ins_[q].valid && can_take(q)) return false;  // a port before it is taken this cycle
  }
  return true;
}

bool FlitAdapter::output_valid(unsigned port) { return outs_[port].has(); }

Flit FlitAdapter::output(unsigned port) {
  OutPort& p = outs_[port];
  if (p.cur.empty()) p.cur = p.flits();
  return p.cur[p.beat];
}

void FlitAdapter::clock() {
  const Cycle now = sched_->now();
  // Every handshake of the cycle is decided on what the world saw, before
  // any of them changes the state (a header announcing its payload's length;
  // an input refused while an output of the block is still offered).
  std::vector<bool> take(ins_.size());
  for (size_t i = 0; i < ins_.size(); ++i) take[i] = ins_[i].valid && input_ready(static_cast<unsigned>(i));
  for (OutPort& p : outs_) {
    if (!p.has() || !(p.ready || !p.info.has_ready)) continue;
    if (p.cur.empty()) p.cur = p.flits();
    if (++p.beat < p.cur.size()) {
      if (p.beat_fn) p.beat_fn();
      continue;
    }
    p.cur.clear();
    p.beat = 0;
    p.pop();
  }
  for (InPort& p : ins_) {
    if (!take[&p - ins_.data()]) continue;
    p.beats.push_back(p.flit);
    if (p.complete ? !p.complete(p.beats) : (p.info.is_stream && !p.flit.last)) continue;
    p.push(p.beats, now);
    p.beats.clear();
  }
  sched_->run_until(now + 1);
}

bool FlitAdapter::idle() const {
  if (!sched_->idle()) return false;
  for (const InPort& p : ins_)
    if (!p.beats.empty()) return false;
  for (const OutPort& p : outs_)
    if (!p.empty()) return false;
  return !busy_ || !busy_();
}

}  // namespace rocenic::model
