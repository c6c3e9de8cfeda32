// The responder test's peer: QP set-up, receive WQEs and request packets,
// each logged with what the scenario means by it (responder_env.h, Intent).
// Nothing here works out how the responder reacts: a message is good, or the
// scenario broke it on purpose and says where and how it must be refused.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "blocks/responder_env.h"
#include "common/desc_flit.h"

namespace rocenic::rsp {
namespace {

using blk::make_mr;

constexpr uint32_t kMask24 = 0xFFFFFF;
constexpr uint8_t kRecv = static_cast<uint8_t>(spec::WcOpcode::kRecv);
constexpr uint8_t kRecvImm = static_cast<uint8_t>(spec::WcOpcode::kRecvRdmaWithImm);
uint8_t st(spec::WcStatus s) { return static_cast<uint8_t>(s); }
uint8_t sy(spec::Aeth a) { return static_cast<uint8_t>(a); }

[[noreturn]] void scenario_error(const char* what) {
  std::fprintf(stderr, "responder scenario error: %s\n", what);
  std::abort();
}

}  // namespace

Peer::Peer(uint64_t seed) : rng_(seed) {
  constexpr uint8_t kLw = 1, kRw = 2, kRr = 4;
  world.mrs = {
      // kRw: local + remote write, 4 KiB pages scattered in bus memory, region not page aligned
      make_mr(1, 0x11, 1, kLw | kRw, 0x100000000100ull, 48 * 1024, 12, 0, 0x7f0000000000ull, 0x3000, true),
      // kRo: local write only (no RDMA WRITE)
      make_mr(2, 0x22, 1, kLw, 0x200000000800ull, 16 * 1024, 12, 20, 0x7f1000000000ull, 0x1000, false),
      // kPd2: another protection domain
      make_mr(3, 0x33, 2, kLw | kRw, 0x300000000000ull, 8 * 1024, 12, 30, 0x7f2000000000ull, 0x1000, false),
      // kBig: 64 KiB pages, starting just before a page end (readable too: a READ after a WRITE)
      make_mr(4, 0x44, 1, kLw | kRw | kRr, 0x40000001f000ull, 96 * 1024, 16, 40, 0x7f3000000000ull, 0x20000, true),
      // kRd: remote read (what READs read; nothing writes it), 4 KiB pages scattered
      make_mr(5, 0x55, 1, kLw | kRr, 0x500000000300ull, 64 * 1024, 12, 50, 0x7f4000000000ull, 0x2000, true),
  };
  for (const MrDef& m : world.mrs)
    for (uint64_t p : m.pages) world.regions.push_back({p, m.page_size()});
  for (uint64_t p : mr(kRd).pages) world.init.push_back({p, bytes(mr(kRd).page_size())});
  // QPs: 1..6 RC (pmtu 256..4096), 7 UC, 8 RC left in INIT, 9 RC whose receive ring the host refuses
  qps.resize(10);
  for (uint32_t n = 1; n < qps.size(); ++n) {
    TQp& q = qps[n];
    q.qpn = n;
    q.type = n == 7 ? 3 : 2;
    q.pmtu = static_cast<uint8_t>(n <= 5 ? n : 1 + rand(5));
    q.access = n == 5 ? 0 : 2 | 4;  // QP 5 grants no remote access
    q.rq_lsz = static_cast<uint8_t>(n % 2 ? 3 : 4);
    q.rq_base = 0x500000000000ull + n * 0x100000ull + 128 * rand(4);
    q.recv_cq = static_cast<uint16_t>(100 + n);
    q.dest_qpn = 0x10000 + n * 7;
    q.min_rnr = static_cast<uint8_t>(rand(32));
    q.sl = static_cast<uint8_t>(rand(16));
    q.l3 = static_cast<uint8_t>(rand(3));
    q.vlan_valid = rand(2) == 1;  // a VLAN GID: ACKs tagged, PCP = SL & 7
    q.vlan_vid = static_cast<uint16_t>(rand(4095));
    q.src_mac = rng_() & 0xFFFFFFFFFFFFull;
    q.dst_mac = rng_() & 0xFFFFFFFFFFFFull;
    for (auto& b : q.src_ip) b = static_cast<uint8_t>(rng_());
    for (auto& b : q.dst_ip) b = static_cast<uint8_t>(rng_());
    q.tclass = static_cast<uint8_t>(rng_());
    q.ttl = static_cast<uint8_t>(rng_());
    q.flow_label = static_cast<uint32_t>(rng_() & 0xFFFFF);
    q.ring_refused = n == 9;
    if (!q.ring_refused) world.regions.push_back({q.rq_base, uint64_t{1} << (q.rq_lsz + spec::kWqeSlotLog2)});
  }
}

std::vector<uint8_t> Peer::bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng_());
  return v;
}

const MrDef* Peer::by_key(uint32_t key) const {
  for (const MrDef& m : world.mrs)
    if (m.key() == key) return &m;
  return nullptr;
}

uint64_t Peer::va_in(unsigned m, uint32_t len) {
  const MrDef& d = mr(m);
  const uint64_t lo = d.ctx.iova, hi = d.ctx.iova + d.ctx.length - len;
  if (rand(2)) {  // straddle a page end
    const uint64_t ps = d.page_size();
    const uint64_t b = ((lo + rand(hi - lo + 1)) | (ps - 1)) + 1;
    const uint64_t va = b - 1 - rand(std::max<uint64_t>(len, 1));
    if (va >= lo && va <= hi) return va;
  }
  return lo + rand(hi - lo + 1);
}


uint64_t TWqe::total() const {
  uint64_t t = 0;
  for (const TSge& s : sges) t += s.len;
  return t;
}

// Bytes [off, off + n) of b at va in the region of `key`, as runs of bus memory (split at page ends).
std::vector<std::pair<uint64_t, std::vector<uint8_t>>> Peer::lands(uint32_t key, uint64_t va,
                                                                   const std::vector<uint8_t>& b, size_t off,
                                                                   size_t n) const {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> out;
  const MrDef* m = by_key(key);
  if (!m) scenario_error("payload meant to land in a region the scenario did not register");
  for (size_t i = 0; i < n;) {
    const uint64_t room = m->page_size() - ((va + i) & (m->page_size() - 1));
    const size_t k = static_cast<size_t>(std::min<uint64_t>(room, n - i));
    out.push_back({m->pa(va + i), std::vector<uint8_t>(b.begin() + off + i, b.begin() + off + i + k)});
    i += k;
  }
  return out;
}

// ---- steps: qp_cfg, rq_db and packets never share a step (their relative order
// would depend on the block's timing)
Step& Peer::step_for(unsigned port) {
  const unsigned group = port >= 2 ? 2 : port;
  if (!steps.empty()) {
    Step& s = steps.back();
    bool other = false;
    for (unsigned p = 0; p < 4; ++p)
      if (!s.in[p].empty() && (p >= 2 ? 2u : p) != group) other = true;
    if (!s.host.empty() && group != 1) other = true;
    if (!other) return s;
  }
  steps.emplace_back();
  return steps.back();
}

void Peer::cfg(TQp& q, spec::QpAction a, uint8_t state) {
  spec::QpCfg c;
  c.qpn = static_cast<uint16_t>(q.qpn);
  c.action = static_cast<uint8_t>(a);
  c.state = state;
  c.qp_type = q.type;
  c.pd = q.pd;
  c.send_cq = static_cast<uint16_t>(rng_());
  c.recv_cq = q.recv_cq;
  c.sq_base = rng_();
  c.sq_lsz = static_cast<uint8_t>(rand(16));
  c.rq_base = q.rq_base;
  c.rq_lsz = q.rq_lsz;
  c.access = q.access;
  c.max_dest_rd_atomic = q.max_dest_rd_atomic;
  c.pmtu = q.pmtu;
  c.dest_qpn = q.dest_qpn;
  c.sq_psn = static_cast<uint32_t>(rng_() & kMask24);
  c.rq_psn = q.next_psn;
  c.min_rnr_timer = q.min_rnr;
  c.l3 = q.l3;
  c.vlan_valid = q.vlan_valid;
  c.vlan_vid = q.vlan_vid;
  c.src_mac = q.src_mac;
  c.dst_mac = q.dst_mac;
  c.src_ip = q.src_ip;
  c.dst_ip = q.dst_ip;
  c.tclass = q.tclass;
  c.ttl = q.ttl;
  c.flow_label = q.flow_label;
  c.sl = q.sl;
  step_for(0).in[0].push_back(desc_to_flit(c));
}

void Peer::setup(TQp& q, bool to_rtr) {
  using A = spec::QpAction;
  q.next_psn = rand(4) == 0 ? static_cast<uint32_t>(kMask24 - rand(8)) : static_cast<uint32_t>(rng_() & kMask24);
  cfg(q, A::kReset, 0);
  cfg(q, A::kToInit, 1);
  q.pi = 0;
  q.rq.clear();
  q.dead = q.live = false;
  q.created = true;
  Intent i;
  i.kind = Intent::kSetup;
  i.qpn = q.qpn;
  log.push_back(i);
  if (!to_rtr) return;
  cfg(q, A::kToRtr, 2);
  q.live = q.type == 2;
  if (rand(2)) cfg(q, A::kToRts, 3);
}

void Peer::to_err(TQp& q) {
  cfg(q, spec::QpAction::kToErr, 6);
  q.dead = true;
  q.live = false;
  q.rq.clear();
  Intent i;
  i.kind = Intent::kToErr;
  i.qpn = q.qpn;
  log.push_back(i);
}

void Peer::db(TQp& q, std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host) {
  Step& s = step_for(1);
  for (auto& h : host) s.host.push_back(std::move(h));
  spec::WqDb d;
  d.qpn = static_cast<uint16_t>(q.qpn);
  d.pi = q.pi;
  s.in[1].push_back(desc_to_flit(d));
}

TWqe Peer::good_wqe(unsigned nsge, uint32_t min_total) {
  TWqe w;
  w.wr_id = rng_();
  w.nsge = static_cast<uint8_t>(nsge);
  uint32_t total = 0;
  for (unsigned i = 0; i < nsge; ++i) {
    const unsigned m = rand(4) == 0 ? kRo : rand(3) == 0 ? kBig : kRw;
    uint32_t len = rand(6) == 0 ? 0 : static_cast<uint32_t>(1 + rand(rand(3) ? 700 : 5000));
    if (i + 1 == nsge && total + len < min_total) len = min_total - total;
    total += len;
    w.sges.push_back({va_in(m, len), len, mr(m).key()});
  }
  return w;
}

void Peer::post(TQp& q, const std::vector<TWqe>& ws) {
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> host;
  Intent i;
  i.kind = Intent::kPost;
  i.qpn = q.qpn;
  for (const TWqe& w : ws) {
    std::vector<uint8_t> b(spec::RecvWqe::kSize, 0);
    spec::RecvWqe r;
    r.wr_id = w.wr_id;
    r.num_sge = w.nsge;
    r.store(b.data());
    for (size_t k = 0; k < w.sges.size() && k < spec::kMaxSge; ++k) {
      spec::Sge s;
      s.addr = w.sges[k].va;
      s.length = w.sges[k].len;
      s.lkey = w.sges[k].lkey;
      s.store(b.data() + spec::kRecvWqeSge0AddrOff + spec::Sge::kSize * k);
    }
    const uint16_t slot = static_cast<uint16_t>(q.pi & ((1u << q.rq_lsz) - 1));
    if (!q.ring_refused) host.push_back({q.rq_base + (uint64_t{slot} << spec::kWqeSlotLog2), b});
    i.wr_ids.push_back(w.wr_id);
    if (!q.dead) q.rq.push_back(w);  // a QP in ERR flushes what a doorbell adds
    ++q.pi;
  }
  log.push_back(i);
  db(q, std::move(host));
}

void Peer::pkt(const TQp& q, uint8_t op, uint32_t psn, const std::vector<uint8_t>& pay, bool ack_req, bool se,
               uint64_t va, uint32_t rkey, uint32_t rlen, uint32_t imm) {
  spec::RoceRxHdr h;
  // the QP's encapsulation (another one is not its peer's: dropped as NO_QP,
  // test_engine_encap); fields the responder must not depend on get noise
  h.l3 = q.l3;
  h.src_mac = rng_() & 0xFFFFFFFFFFFFull;
  h.ttl = static_cast<uint8_t>(rng_());
  h.udp_sport = static_cast<uint16_t>(rng_());
  h.pkey = 0xFFFF;
  h.opcode = op;
  h.se = se;
  h.dst_qpn = q.qpn;
  h.ack_req = ack_req;
  h.psn = psn & kMask24;
  const bool reth = spec::kOpcodes[op].valid && (spec::kOpcodes[op].ext & spec::kExtReth);
  h.reth_va = reth ? va : rng_();
  h.reth_rkey = reth ? rkey : static_cast<uint32_t>(rng_());
  h.reth_len = reth ? rlen : static_cast<uint32_t>(rng_());
  h.imm = imm;
  h.pay_len = static_cast<uint16_t>(pay.size());
  Step& s = step_for(2);
  s.in[2].push_back(desc_to_flit(h));
  if (!pay.empty())
    for (Flit& f : frame_to_beats(pay, 64)) s.in[3].push_back(std::move(f));
}

// ---- requests
Intent Peer::message(const TQp& q) const {
  Intent m;
  m.kind = Intent::kMessage;
  m.qpn = q.qpn;
  return m;
}

// The scenario means the message's last packet so far to be refused with `nak`.
void Peer::refuse(TQp& q, Intent& m, uint8_t nak, bool consumes, uint8_t status) {
  m.fail_at = static_cast<int>(m.pkts.size()) - 1;
  m.nak = nak;
  m.fatal = true;
  m.consumes = consumes;
  m.err_status = status;
  log.push_back(m);
  q.dead = true;
  q.live = false;
  q.rq.clear();
}

void Peer::send(TQp& q, uint32_t len, bool imm, bool se) {
  if (!q.live) scenario_error("a SEND to a QP that is not ready (use stray)");
  const uint32_t mtu = q.mtu();
  const uint32_t npk = std::max<uint32_t>(1, (len + mtu - 1) / mtu);
  const std::vector<uint8_t> data = bytes(len);
  const uint32_t immv = static_cast<uint32_t>(rng_());
  auto op = [&](uint32_t k) -> uint8_t {
    if (npk == 1) return imm ? spec::kRcSendOnlyImm : spec::kRcSendOnly;
    if (k == 0) return spec::kRcSendFirst;
    return k + 1 < npk ? spec::kRcSendMiddle : imm ? spec::kRcSendLastImm : spec::kRcSendLast;
  };
  auto slice = [&](uint32_t k) {
    const uint32_t off = k * mtu, n = std::min(mtu, len - off);
    return std::vector<uint8_t>(data.begin() + off, data.begin() + off + n);
  };
  Intent m = message(q);
  m.completes = true;
  if (q.rq.empty()) {  // nothing posted: receiver not ready; the requester would wait and send it again
    pkt(q, op(0), q.next_psn, slice(0), true, se && npk == 1, 0, 0, 0, immv);
    m.pkts.push_back({q.next_psn, true, {}});
    m.fail_at = 0;
    m.nak = static_cast<uint8_t>(sy(spec::Aeth::kRnrNak) | q.min_rnr);
    log.push_back(m);
    return;
  }
  const TWqe& w = q.rq.front();
  // where the scenario broke the WQE: the packet that reaches past its buffers or into a broken SGE
  uint64_t bad_at = UINT64_MAX, at = 0;
  for (const TSge& s : w.sges) {
    if (s.broken && bad_at == UINT64_MAX) bad_at = at;
    at += s.len;
  }
  const bool unusable = w.nsge > spec::kMaxSge || q.ring_refused;
  for (uint32_t k = 0; k < npk; ++k) {
    const uint32_t off = k * mtu, n = std::min(mtu, len - off);
    const bool last = k + 1 == npk;
    const bool ack_req = last || rand(8) == 0;
    const uint32_t psn = (q.next_psn + k) & kMask24;
    pkt(q, op(k), psn, slice(k), ack_req, se && last, 0, 0, 0, immv);
    m.pkts.push_back({psn, ack_req, {}});
    if (k == 0 && unusable) return refuse(q, m, sy(spec::Aeth::kNakRemOp), true, st(spec::WcStatus::kLocQpOpErr));
    const bool too_long = off + n > w.total(), broken = off + n > bad_at;
    if (too_long && broken) scenario_error("one packet both overruns the buffers and reaches a broken SGE");
    if (too_long) return refuse(q, m, sy(spec::Aeth::kNakInvReq), true, st(spec::WcStatus::kLocLenErr));
    if (broken) return refuse(q, m, sy(spec::Aeth::kNakRemOp), true, st(spec::WcStatus::kLocProtErr));
    // bytes [off, off + n) of the message land in the SGEs in order
    uint64_t sge_at = 0;
    for (const TSge& s : w.sges) {
      const uint64_t lo = std::max<uint64_t>(sge_at, off), hi = std::min<uint64_t>(sge_at + s.len, off + n);
      if (lo < hi)
        for (auto& l : lands(s.lkey, s.va + (lo - sge_at), data, lo, hi - lo)) m.pkts.back().lands.push_back(l);
      sge_at += s.len;
    }
  }
  m.consumes = true;
  m.cqe.opcode = kRecv;
  m.cqe.byte_len = len;
  m.cqe.imm = imm ? immv : 0;
  m.cqe.wc_flags = imm ? 2 : 0;
  m.cqe.solicited = se;
  log.push_back(m);
  q.rq.pop_front();
  q.next_psn = (q.next_psn + npk) & kMask24;
}

void Peer::write(TQp& q, unsigned m, uint64_t va, uint32_t len, bool imm, Meant meant, uint32_t rkey_override) {
  if (!q.live) scenario_error("a WRITE to a QP that is not ready (use stray)");
  const uint32_t mtu = q.mtu();
  const uint32_t npk = std::max<uint32_t>(1, (len + mtu - 1) / mtu);
  const uint32_t rkey = rkey_override ? rkey_override : mr(m).key();
  const std::vector<uint8_t> data = bytes(len);
  const uint32_t immv = static_cast<uint32_t>(rng_());
  const bool se = rand(2);
  auto op = [&](uint32_t k) -> uint8_t {
    if (npk == 1) return imm ? spec::kRcWriteOnlyImm : spec::kRcWriteOnly;
    if (k == 0) return spec::kRcWriteFirst;
    return k + 1 < npk ? spec::kRcWriteMiddle : imm ? spec::kRcWriteLastImm : spec::kRcWriteLast;
  };
  // a QP that grants no REMOTE_WRITE refuses every WRITE
  const bool refused = meant == Meant::kRefused || !(q.access & static_cast<uint8_t>(spec::Access::kRemoteWrite));
  Intent msg = message(q);
  msg.completes = true;
  for (uint32_t k = 0; k < npk; ++k) {
    const uint32_t off = k * mtu, n = std::min(mtu, len - off);
    const std::vector<uint8_t> pay(data.begin() + off, data.begin() + off + n);
    const bool last = k + 1 == npk;
    const bool ack_req = last || rand(8) == 0;
    const uint32_t psn = (q.next_psn + k) & kMask24;
    pkt(q, op(k), psn, pay, ack_req, se && last, va, rkey, len, immv);
    msg.pkts.push_back({psn, ack_req, {}});
    if (k == 0 && refused) return refuse(q, msg, sy(spec::Aeth::kNakRemAcc), false, 0);
    if (last && imm) {
      if (q.rq.empty()) {  // receiver not ready: the requester waits, the driver posts, the packet comes again
        msg.fail_at = static_cast<int>(k);
        msg.nak = static_cast<uint8_t>(sy(spec::Aeth::kRnrNak) | q.min_rnr);
        log.push_back(msg);
        post(q, {good_wqe(static_cast<unsigned>(rand(3)))});
        pkt(q, op(k), psn, pay, ack_req, se && last, va, rkey, len, immv);
        msg = message(q);
        msg.completes = true;
        msg.pkts.push_back({psn, ack_req, {}});
      }
      if (q.rq.front().nsge > spec::kMaxSge || q.ring_refused)
        return refuse(q, msg, sy(spec::Aeth::kNakRemOp), true, st(spec::WcStatus::kLocQpOpErr));
      msg.consumes = true;
      msg.cqe.opcode = kRecvImm;
      msg.cqe.byte_len = len;
      msg.cqe.imm = immv;
      msg.cqe.wc_flags = 2;
      msg.cqe.solicited = se;
    }
    if (n) msg.pkts.back().lands = lands(rkey, va + off, data, off, n);
  }
  log.push_back(msg);
  if (msg.consumes) q.rq.pop_front();
  q.next_psn = (q.next_psn + npk) & kMask24;
}

void Peer::read(TQp& q, unsigned m, uint64_t va, uint32_t len, Meant meant, uint32_t rkey_override) {
  if (!q.live) scenario_error("a READ to a QP that is not ready (use stray)");
  const uint32_t mtu = q.mtu();
  const uint32_t npk = std::max<uint32_t>(1, (len + mtu - 1) / mtu);
  const uint32_t rkey = rkey_override ? rkey_override : mr(m).key();
  pkt(q, spec::kRcReadReq, q.next_psn, {}, true, false, va, rkey, len);
  Intent msg = message(q);
  msg.completes = true;
  msg.pkts.push_back({q.next_psn, true, {}});
  // a QP that grants no REMOTE_READ refuses every READ
  if (!(q.access & static_cast<uint8_t>(spec::Access::kRemoteRead)))
    return refuse(q, msg, sy(spec::Aeth::kNakRemAcc), false, 0);
  // no READ resources (max_dest_rd_atomic 0): invalid request, before the rkey is looked at (rxe)
  if (q.max_dest_rd_atomic == 0) return refuse(q, msg, sy(spec::Aeth::kNakInvReq), false, 0);
  if (meant == Meant::kRefused) return refuse(q, msg, sy(spec::Aeth::kNakRemAcc), false, 0);
  msg.read = true;
  msg.rmr = m;
  msg.rva = va;
  msg.rlen = len;
  log.push_back(msg);
  q.next_psn = (q.next_psn + npk) & kMask24;
}

void Peer::atomic(TQp& q, uint64_t va, uint32_t rkey, bool cas, uint64_t swap_add, uint64_t compare, int64_t psn,
                  uint32_t pay_len) {
  spec::RoceRxHdr h;
  h.l3 = q.l3;
  h.src_mac = rng_() & 0xFFFFFFFFFFFFull;
  h.pkey = 0xFFFF;
  h.opcode = cas ? spec::kRcCmpSwap : spec::kRcFetchAdd;
  h.dst_qpn = q.qpn;
  h.ack_req = true;
  h.psn = static_cast<uint32_t>(psn < 0 ? q.next_psn : psn) & kMask24;
  h.reth_va = va;
  h.reth_rkey = rkey;
  h.swap_add = swap_add;
  h.compare = compare;
  h.pay_len = static_cast<uint16_t>(pay_len);
  Step& s = step_for(2);
  s.in[2].push_back(desc_to_flit(h));
  if (pay_len)
    for (Flit& f : frame_to_beats(bytes(pay_len), 64)) s.in[3].push_back(std::move(f));
  if (psn < 0) q.next_psn = (q.next_psn + 1) & kMask24;
}

void Peer::read_too_long(TQp& q) {
  if (!q.live) scenario_error("a READ to a QP that is not ready (use stray)");
  pkt(q, spec::kRcReadReq, q.next_psn, {}, true, false, mr(kRd).ctx.iova, mr(kRd).key(),
      spec::kMaxMsg + 1 + static_cast<uint32_t>(rand(0xFFFFFFFFu - spec::kMaxMsg)));
  Intent msg = message(q);
  msg.pkts.push_back({q.next_psn, true, {}});
  refuse(q, msg, sy(spec::Aeth::kNakInvReq), false, 0);
}

void Peer::write_first(TQp& q, unsigned m, uint64_t va, uint32_t rlen) {
  if (!q.live) scenario_error("a WRITE to a QP that is not ready (use stray)");
  const uint32_t mtu = q.mtu();
  const std::vector<uint8_t> data = bytes(mtu);
  const bool ack_req = rand(4) == 0;
  pkt(q, spec::kRcWriteFirst, q.next_psn, data, ack_req, false, va, mr(m).key(), rlen);
  Intent msg = message(q);
  msg.pkts.push_back({q.next_psn, ack_req, lands(mr(m).key(), va, data, 0, mtu)});
  log.push_back(msg);
  q.next_psn = (q.next_psn + 1) & kMask24;
}

void Peer::duplicate(TQp& q) {
  const uint32_t psn = (q.next_psn - 1 - static_cast<uint32_t>(rand(rand(2) ? 4 : 1u << 22))) & kMask24;
  const uint8_t ops[] = {spec::kRcSendOnly, spec::kRcWriteOnly, spec::kRcSendMiddle, spec::kRcWriteLast,
                         spec::kRcReadReq};
  const uint8_t op = ops[rand(5)];
  const bool ack_req = rand(2);
  Intent i;
  i.kind = Intent::kDuplicate;
  i.qpn = q.qpn;
  i.pkts.push_back({psn, ack_req, {}});
  i.reply_psn = (q.next_psn - 1) & kMask24;
  if (op == spec::kRcReadReq) {
    // executed again from its own RETH (the requester asks again from a packet in the
    // middle); dropped without a NAK when its rkey or the QP's rights refuse it
    const uint32_t n = static_cast<uint32_t>(rand(4) == 0 ? 0 : 1 + rand(3 * q.mtu()));
    const bool bad_key = rand(6) == 0 && n != 0;
    i.read = true;
    i.rmr = kRd;
    i.rva = va_in(kRd, n);
    i.rlen = n;
    // dropped too: one whose responses would reach PSNs not used yet (no READ of the past asked for them)
    const uint32_t npk = std::max<uint32_t>(1, (n + q.mtu() - 1) / q.mtu());
    i.dropped = bad_key || !(q.access & static_cast<uint8_t>(spec::Access::kRemoteRead)) ||
                ((q.next_psn - psn) & kMask24) < npk;
    pkt(q, op, psn, {}, ack_req, false, i.rva, bad_key ? mr(kRw).key() : mr(kRd).key(), n);
  } else {
    const uint32_t n = static_cast<uint32_t>(1 + rand(q.mtu()));
    pkt(q, op, psn, bytes(n), ack_req, false, va_in(kRw, n), mr(kRw).key(), n);
  }
  log.push_back(i);
}

void Peer::ahead(TQp& q) {
  const uint32_t psn = (q.next_psn + 1 + static_cast<uint32_t>(rand(rand(2) ? 4 : (1u << 23) - 2))) & kMask24;
  const uint32_t n = static_cast<uint32_t>(rand(q.mtu() + 1));
  const bool ack_req = rand(2);
  pkt(q, rand(2) ? spec::kRcSendOnly : spec::kRcWriteOnly, psn, bytes(n), ack_req, false, va_in(kRw, n),
      mr(kRw).key(), n);
  Intent i;
  i.kind = Intent::kAhead;
  i.qpn = q.qpn;
  i.pkts.push_back({psn, ack_req, {}});
  i.reply_psn = q.next_psn;
  log.push_back(i);
}

void Peer::bad_opcode(TQp& q, uint8_t op, uint32_t pay_len) {
  if (!q.live) scenario_error("a request to a QP that is not ready (use stray)");
  const bool ack_req = rand(2);
  pkt(q, op, q.next_psn, bytes(pay_len), ack_req, false, va_in(kRw, pay_len), mr(kRw).key(), pay_len);
  Intent m = message(q);
  m.pkts.push_back({q.next_psn, ack_req, {}});
  refuse(q, m, sy(spec::Aeth::kNakInvReq), false, 0);
}

void Peer::stray(uint32_t qpn, uint8_t op) {
  const bool known_rc = qpn < qps.size() && qps[qpn].created && qps[qpn].type == 2;
  if (known_rc && qps[qpn].live) scenario_error("a stray packet to a QP that is ready");
  TQp q;
  q.qpn = qpn;
  pkt(q, op, static_cast<uint32_t>(rng_()), bytes(rand(200)), true, false, 0, 0, 0);
  Intent i;
  i.kind = Intent::kStray;
  i.qpn = qpn;
  i.not_ready = known_rc;
  log.push_back(i);
}

}  // namespace rocenic::rsp
