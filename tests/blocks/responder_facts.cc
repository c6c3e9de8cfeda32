// A responder run against what the scenario meant (Peer::log) and what IBTA
// makes observable, per QP:
//  - every ACK/NAK is addressed from the QP's configuration (source and
//    destination swapped), opcode ACKNOWLEDGE;
//  - a packet meant to be accepted that asks for an ACK gets one with its
//    PSN; a packet meant to be refused gets the NAK the scenario names, at
//    its PSN; a duplicate is re-ACKed (when it asks) with the last PSN
//    accepted, an out-of-sequence packet is NAKed once until a packet is
//    accepted again; MSN counts the messages completed (IBTA 9.7.5.1.2);
//  - receive completions come in posted order with the posted wr_id and the
//    ring index: SUCCESS with the message's length, opcode, immediate and
//    solicited flag for a message meant to complete; the status the scenario
//    names for one meant to fail; WR_FLUSH_ERR for the rest once the QP is in
//    ERR (IBTA 10.3.1 / verbs: a QP in ERR flushes its receive queue);
//  - memory: the payload of every accepted packet where the scenario placed
//    it, the driver's ring writes, and nothing else touched;
//  - an RDMA READ (new, or a duplicate executed again) is answered with
//    READ RESPONSE FIRST/MIDDLE/LAST or ONLY at its PSNs, mtu-sized but the
//    last, AETH (ACK, MSN) on all but MIDDLE, carrying the bytes memory holds
//    at that point of the scenario;
//  - counters agree with the wire and with the scenario's packets;
//  - every DMA write inside one page of a region.
#include <deque>
#include <map>
#include <sstream>

#include "blocks/responder_env.h"
#include "common/desc_flit.h"

namespace rocenic::rsp {
namespace {

constexpr uint32_t kMask24 = 0xFFFFFF;
constexpr uint8_t kSynAck = static_cast<uint8_t>(spec::Aeth::kAck);
constexpr uint8_t kFlush = static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);

const char* nak_counter(uint8_t syn) {
  if ((syn & 0xE0) == static_cast<uint8_t>(spec::Aeth::kRnrNak)) return "rnr_nak_sent";
  switch (static_cast<spec::Aeth>(syn)) {
    case spec::Aeth::kNakInvReq: return "rem_inv_req";
    case spec::Aeth::kNakRemAcc: return "rem_access_err";
    case spec::Aeth::kNakRemOp: return "rem_op_err";
    default: return nullptr;  // PSN sequence NAKs are counted per packet (out_of_sequence)
  }
}

class Walk {
 public:
  Walk(const Peer& p, const RunResult& r) : p_(p), r_(r) {}
  std::string run();

 private:
  struct QpState {  // what the scenario's own actions imply for the QP
    uint32_t msn = 0;
    bool nak_out = false, dead = false;
    uint16_t ci = 0;
    std::deque<uint64_t> rq;  // wr_ids posted and not yet completed
  };

  static spec::RoceTxHdr reply(const TQp& q);
  bool ack(const TQp& q, uint8_t syn, uint32_t psn, uint32_t msn, const std::string& what);
  bool responses(const TQp& q, uint32_t psn, uint32_t msn, const Intent& rd, const std::string& what);
  uint8_t byte_at(uint64_t pa) const;
  bool completion(const TQp& q, const spec::CqCompl& want, bool all_fields, const std::string& what);
  bool flush(const TQp& q, QpState& s, const std::string& what);
  bool message(const TQp& q, QpState& s, const Intent& m, const std::string& what);
  std::string memory() const;
  std::string counters() const;

  const Peer& p_;
  const RunResult& r_;
  std::map<uint32_t, std::deque<const Txn*>> acks_, cqes_;  // by QP, in output order
  std::map<uint32_t, QpState> qp_;
  std::map<std::string, uint32_t> count_;
  std::map<uint64_t, uint8_t> mem_;  // bytes that must hold something other than the fill
  std::map<uint64_t, uint8_t> init_;  // World::init
  std::map<const Txn*, const Txn*> pay_of_;  // a response header's payload
  std::string err_;
};

spec::RoceTxHdr Walk::reply(const TQp& q) {
  spec::RoceTxHdr h;
  h.l3 = q.l3;
  h.vlan_valid = q.vlan_valid;
  h.vlan_vid = q.vlan_vid;
  h.vlan_pcp = q.vlan_valid ? q.sl & 7 : 0;
  h.dst_mac = q.dst_mac;
  h.src_mac = q.src_mac;
  h.src_ip = q.src_ip;
  h.dst_ip = q.dst_ip;
  h.tclass = q.tclass;
  h.ttl = q.ttl;
  h.flow_label = q.flow_label;
  h.pkey = 0xFFFF;
  h.dst_qpn = q.dest_qpn;
  h.src_qpn = q.qpn;
  return h;
}

uint8_t Walk::byte_at(uint64_t pa) const {
  if (const auto it = mem_.find(pa); it != mem_.end()) return it->second;
  if (const auto it = init_.find(pa); it != init_.end()) return it->second;
  return p_.world.fill;
}

bool Walk::responses(const TQp& q, uint32_t psn, uint32_t msn, const Intent& rd, const std::string& what) {
  const MrDef& m = p_.mr(rd.rmr);
  const uint32_t mtu = q.mtu();
  const uint32_t npk = std::max<uint32_t>(1, (rd.rlen + mtu - 1) / mtu);
  auto& got = acks_[q.qpn];
  for (uint32_t k = 0; k < npk; ++k) {
    const bool first = k == 0, last = k + 1 == npk;
    const uint32_t n = std::min(mtu, rd.rlen - k * mtu);
    spec::RoceTxHdr h = reply(q);
    h.opcode = first && last ? spec::kRcReadRespOnly
               : first       ? spec::kRcReadRespFirst
               : last        ? spec::kRcReadRespLast
                             : spec::kRcReadRespMiddle;
    h.psn = (psn + k) & kMask24;
    if (first || last) {
      h.aeth_syndrome = kSynAck;
      h.aeth_msn = msn & kMask24;
    }
    h.pay_len = static_cast<uint16_t>(n);
    Txn want;
    want.flits.push_back(desc_to_flit(h));
    const std::string at = what + ", READ response " + std::to_string(k) + " of " + std::to_string(npk);
    if (got.empty() || !(got.front()->flits[0] == want.flits[0])) {
      err_ = at + ": QP " + std::to_string(q.qpn) + " must send\n  " + describe(kAck, want) + "\n  sent: " +
             (got.empty() ? std::string("nothing more") : describe(kAck, *got.front()));
      return false;
    }
    if (n != 0) {
      const auto it = pay_of_.find(got.front());
      std::vector<uint8_t> data(n);
      for (uint32_t i = 0; i < n; ++i) data[i] = byte_at(m.pa(rd.rva + k * mtu + i));
      const std::vector<uint8_t> sent = it == pay_of_.end() ? std::vector<uint8_t>{} : beats_to_bytes(it->second->flits);
      if (sent != data) {
        size_t d = 0;
        while (d < data.size() && d < sent.size() && data[d] == sent[d]) ++d;
        std::ostringstream o;
        o << at << ": payload (" << sent.size() << " of " << n << " bytes) differs from memory at byte " << d
          << " (va 0x" << std::hex << rd.rva + k * mtu + d << ")\n  want "
          << hex_bytes(std::vector<uint8_t>(data.begin() + static_cast<long>(d), data.end()), 32) << "\n  sent "
          << hex_bytes(std::vector<uint8_t>(sent.begin() + static_cast<long>(std::min(d, sent.size())), sent.end()), 32);
        err_ = o.str();
        return false;
      }
    }
    got.pop_front();
  }
  return true;
}

bool Walk::ack(const TQp& q, uint8_t syn, uint32_t psn, uint32_t msn, const std::string& what) {
  spec::RoceTxHdr h;
  h.l3 = q.l3;
  h.vlan_valid = q.vlan_valid;
  h.vlan_vid = q.vlan_vid;
  h.vlan_pcp = q.vlan_valid ? q.sl & 7 : 0;
  h.dst_mac = q.dst_mac;
  h.src_mac = q.src_mac;
  h.src_ip = q.src_ip;
  h.dst_ip = q.dst_ip;
  h.tclass = q.tclass;
  h.ttl = q.ttl;
  h.flow_label = q.flow_label;
  h.opcode = spec::kRcAck;
  h.pkey = 0xFFFF;
  h.dst_qpn = q.dest_qpn;
  h.psn = psn & kMask24;
  h.aeth_syndrome = syn;
  h.aeth_msn = msn & kMask24;
  h.src_qpn = q.qpn;
  Txn want;
  want.flits.push_back(desc_to_flit(h));
  auto& got = acks_[q.qpn];
  if (!got.empty() && got.front()->flits[0] == want.flits[0]) {
    got.pop_front();
    return true;
  }
  err_ = what + ": QP " + std::to_string(q.qpn) + " must send\n  " + describe(kAck, want) + "\n  sent: " +
         (got.empty() ? std::string("nothing more") : describe(kAck, *got.front()));
  return false;
}

bool Walk::completion(const TQp& q, const spec::CqCompl& want_in, bool all_fields, const std::string& what) {
  spec::CqCompl want = want_in;
  want.cq = q.recv_cq;
  want.qp_num = q.qpn;
  auto& got = cqes_[q.qpn];
  if (!got.empty()) {
    const auto c = desc_from_flit<spec::CqCompl>(got.front()->flits[0]);
    // an error completion is defined by its status, wr_id and QP (verbs); our ring index rides along
    const bool same = all_fields ? desc_to_flit(c) == desc_to_flit(want)
                                 : c.cq == want.cq && c.qp_num == want.qp_num && c.status == want.status &&
                                       c.wr_id == want.wr_id && c.wqe_counter == want.wqe_counter;
    if (same) {
      got.pop_front();
      return true;
    }
  }
  err_ = what + ": QP " + std::to_string(q.qpn) + " must complete " + want.describe() + "\n  got: " +
         (got.empty() ? std::string("nothing more")
                      : desc_from_flit<spec::CqCompl>(got.front()->flits[0]).describe());
  return false;
}

bool Walk::flush(const TQp& q, QpState& s, const std::string& what) {
  for (; !s.rq.empty(); s.rq.pop_front(), ++s.ci) {
    spec::CqCompl c;
    c.status = kFlush;
    c.wr_id = q.ring_refused ? 0 : s.rq.front();  // an unreadable ring slot yields no wr_id
    c.wqe_counter = s.ci;
    if (!completion(q, c, false, what + " (flush)")) return false;
  }
  return true;
}

bool Walk::message(const TQp& q, QpState& s, const Intent& m, const std::string& what) {
  if (m.read && m.fail_at < 0) {
    ++count_["rx_pkts"];
    ++count_["rx_read_requests"];
    s.nak_out = false;
    s.msn = (s.msn + 1) & kMask24;
    return responses(q, m.pkts[0].psn, s.msn, m, what);
  }
  const size_t accepted = m.fail_at < 0 ? m.pkts.size() : static_cast<size_t>(m.fail_at);
  for (size_t k = 0; k < accepted; ++k) {
    const Intent::Packet& pk = m.pkts[k];
    ++count_["rx_pkts"];
    s.nak_out = false;
    for (const auto& [a, b] : pk.lands)
      for (size_t i = 0; i < b.size(); ++i) mem_[a + i] = b[i];
    if (m.completes && k + 1 == m.pkts.size()) s.msn = (s.msn + 1) & kMask24;
    if (pk.ack_req && !ack(q, kSynAck, pk.psn, s.msn, what + ", packet " + std::to_string(k))) return false;
  }
  if (m.fail_at < 0) {
    if (!m.consumes) return true;
    if (s.rq.empty()) {
      err_ = what + ": the scenario consumes a receive WQE it never posted";
      return false;
    }
    spec::CqCompl c = m.cqe;
    c.wr_id = s.rq.front();
    c.wqe_counter = s.ci;
    c.src_qp = q.dest_qpn;
    c.sl = q.sl;
    s.rq.pop_front();
    ++s.ci;
    return completion(q, c, true, what);
  }
  const Intent::Packet& bad = m.pkts[static_cast<size_t>(m.fail_at)];
  if (!ack(q, m.nak, bad.psn, s.msn, what + ", refused packet")) return false;
  if (const char* name = nak_counter(m.nak)) ++count_[name];
  if (!m.fatal) return true;
  if (m.consumes) {
    if (s.rq.empty()) {
      err_ = what + ": the scenario fails a receive WQE it never posted";
      return false;
    }
    spec::CqCompl c;
    c.status = m.err_status;
    c.wr_id = q.ring_refused ? 0 : s.rq.front();
    c.wqe_counter = s.ci;
    s.rq.pop_front();
    ++s.ci;
    if (!completion(q, c, false, what + " (its receive WQE)")) return false;
  }
  s.dead = true;
  return flush(q, s, what);
}

std::string Walk::memory() const {
  std::map<uint64_t, uint8_t> want = mem_;
  for (const auto& [a, b] : p_.world.init)
    for (size_t i = 0; i < b.size(); ++i) want[a + i] = b[i];
  for (const Step& st : p_.steps)  // the driver's own writes (receive rings); they share no byte with payload
    for (const auto& [a, b] : st.host)
      for (size_t i = 0; i < b.size(); ++i) want[a + i] = b[i];
  for (size_t i = 0; i < p_.world.regions.size(); ++i) {
    const auto [a, n] = p_.world.regions[i];
    for (uint64_t k = 0; k < n; ++k) {
      const auto it = want.find(a + k);
      const uint8_t w = it == want.end() ? p_.world.fill : it->second;
      if (r_.memory[i][k] == w) continue;
      std::ostringstream s;
      s << "memory at 0x" << std::hex << a + k << ": 0x" << unsigned{r_.memory[i][k]} << ", expected 0x"
        << unsigned{w} << (it == want.end() ? " (must stay untouched)" : " (accepted payload or ring)");
      return s.str();
    }
  }
  for (const Txn& t : r_.out[kWrReq]) {
    const auto w = desc_from_flit<spec::DmaWrReq>(t.flits[0]);
    bool ok = false;
    for (const MrDef& m : p_.world.mrs)
      for (uint64_t pg : m.pages) ok = ok || (w.addr >= pg && w.addr + w.len <= pg + m.page_size());
    if (!ok || w.len == 0) return "a DMA write crosses a page end or leaves the regions: " + w.describe();
  }
  return "";
}

std::string Walk::counters() const {
  for (const auto& [name, v] : r_.counters) {
    const auto it = count_.find(name);
    uint32_t acks = 0;  // ACK/NAKs (READ responses apart)
    for (const Txn& t : r_.out[kAck]) acks += desc_from_flit<spec::RoceTxHdr>(t.flits[0]).opcode == spec::kRcAck;
    const uint32_t want = name == "tx_acks" ? acks
                          : it == count_.end() ? 0
                                               : it->second;
    if (v != want) return "counter " + name + " = " + std::to_string(v) + ", expected " + std::to_string(want);
  }
  return "";
}

std::string Walk::run() {
  size_t pay = 0;
  for (const Txn& t : r_.out[kAck]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    acks_[h.src_qpn].push_back(&t);
    if (h.pay_len != 0 && pay < r_.out[kTxPay].size()) pay_of_[&t] = &r_.out[kTxPay][pay++];
  }
  if (pay != r_.out[kTxPay].size()) return "tx_payload carries more packets than the headers announce";
  for (const auto& [a, b] : p_.world.init)
    for (size_t i = 0; i < b.size(); ++i) init_[a + i] = b[i];
  for (const Txn& t : r_.out[kCq]) cqes_[desc_from_flit<spec::CqCompl>(t.flits[0]).qp_num].push_back(&t);
  for (size_t n = 0; n < p_.log.size(); ++n) {
    const Intent& i = p_.log[n];
    const std::string what = "action " + std::to_string(n);
    if (i.kind == Intent::kStray) {
      ++count_[i.not_ready ? "qp_state" : "no_qp"];
      continue;
    }
    const TQp& q = p_.qps.at(i.qpn);
    QpState& s = qp_[i.qpn];
    bool ok = true;
    switch (i.kind) {
      case Intent::kSetup: s = QpState{}; break;
      case Intent::kToErr:
        s.dead = true;
        ok = flush(q, s, what + " (TO_ERR)");
        break;
      case Intent::kPost:
        for (uint64_t id : i.wr_ids) s.rq.push_back(id);
        if (s.dead) ok = flush(q, s, what + " (doorbell on a QP in ERR)");
        break;
      case Intent::kMessage: ok = message(q, s, i, what); break;
      case Intent::kDuplicate:
        ++count_["duplicate_request"];
        if (i.read && !i.dropped) ++count_["rx_read_requests"];
        if (i.read) ok = i.dropped || responses(q, i.pkts[0].psn, s.msn, i, what + " (duplicate READ)");
        else if (i.pkts[0].ack_req) ok = ack(q, kSynAck, i.reply_psn, s.msn, what + " (duplicate)");
        break;
      case Intent::kAhead:
        ++count_["out_of_sequence"];
        if (!s.nak_out)
          ok = ack(q, static_cast<uint8_t>(spec::Aeth::kNakPsnSeq), i.reply_psn, s.msn, what + " (PSN ahead)");
        s.nak_out = true;
        break;
      case Intent::kStray: break;
    }
    if (!ok) return err_;
  }
  for (const auto& [qpn, left] : acks_)
    if (!left.empty()) return "QP " + std::to_string(qpn) + " sent an ACK/NAK no packet asked for: " +
                              describe(kAck, *left.front());
  for (const auto& [qpn, left] : cqes_)
    if (!left.empty()) return "QP " + std::to_string(qpn) + " wrote a completion nothing called for: " +
                              describe(kCq, *left.front());
  std::string e = memory();
  if (e.empty()) e = counters();
  return e;
}

}  // namespace

std::string check_intents(const Peer& p, const RunResult& r) { return Walk(p, r).run(); }

}  // namespace rocenic::rsp
