// Hostile frames while an RC connection runs (issue 9): a sends b SENDs and
// WRITEs, data checked, while frames nobody should trust arrive at both
// devices between the real ones:
//   at b (the responder): garbage, truncated headers, bad IPv4 checksums,
//     bad ICRCs, reserved opcodes, requests with PSNs far outside the window
//     (ahead: one PSN sequence NAK; behind: duplicates), requests for QPs
//     that do not exist, and WRITEs outside the MR to a second QP (the first
//     is NAKed with a remote access error and puts that QP in ERR, the rest
//     meet a QP in ERR);
//   at a (the requester): stray ACKs and NAKs with random PSN, MSN and
//     syndrome, READ responses and ATOMIC ACKNOWLEDGEs nothing asked for,
//     responses for QPs that do not exist.
// Every message completes with its data, nothing crashes, cosim shows no
// divergence, and the counters account for every frame: each one that
// arrived ends in exactly one of the parser's drop reasons, the bypass path
// or one of the transport's verdicts, and the hostile kinds whose fate is
// certain are counted exactly.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <stdexcept>

#include "common/bits.h"
#include "net/roce_frame.h"
#include "support/frames.h"
#include "support/two_hosts.h"

namespace rocenic {
namespace {

using namespace spec;
using test::End;
using test::TwoHosts;

constexpr size_t kBuf = 1 << 20;
constexpr uint32_t kPsnA = 100, kPsnB = 200;  // connect_pair's send PSNs
constexpr uint32_t kVictimPsn = 0x345678;
constexpr uint32_t kPhantomQpn = 0xABCDE;      // the victim's peer: no such QP at a

struct Tally {  // hostile frames sent, by fate
  uint64_t to_b = 0, to_a = 0;
  uint64_t parser_b = 0;     // garbage and truncated: some parser drop, or bypass
  uint64_t ip_csum = 0, icrc = 0, opcode = 0;
  uint64_t ahead = 0, behind = 0, no_qp = 0, victim = 0;
  uint64_t stray = 0;        // responses at a that match nothing
};

class Hostile {
 public:
  Hostile(TwoHosts& w, End& a, End& b, uint32_t victim_qpn, uint64_t seed)
      : w_(w), a_(a), b_(b), victim_(victim_qpn), rng_(seed) {}

  // One hostile frame into a device, its kind picked at random.
  void inject(uint64_t b_packets_seen) {
    const unsigned k = static_cast<unsigned>(rng_() % 11);
    if (k <= 7) {
      std::vector<uint8_t> f = for_b(k, b_packets_seen);
      ++t.to_b;
      w_.arrive(true)(f.data(), f.size());
    } else {
      std::vector<uint8_t> f = for_a(k);
      ++t.to_a;
      w_.arrive(false)(f.data(), f.size());
    }
  }
  Tally t;

 private:
  RoceTxHdr base(bool to_b) {
    RoceTxHdr h;
    h.l3 = static_cast<uint8_t>(L3::kIpv4);
    h.dst_mac = to_b ? test::kMacB : test::kMacA;
    h.src_mac = to_b ? test::kMacA : test::kMacB;
    h.src_ip = ipv4_mapped(to_b ? test::kIpA : test::kIpB);
    h.dst_ip = ipv4_mapped(to_b ? test::kIpB : test::kIpA);
    h.ttl = 64;
    h.pkey = 0xFFFF;
    h.src_qpn = static_cast<uint32_t>(rng_() & 0xFFFFFF);
    return h;
  }
  uint32_t rnd(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  std::vector<uint8_t> payload(size_t n) {
    std::vector<uint8_t> p(n);
    for (auto& x : p) x = static_cast<uint8_t>(rng_());
    return p;
  }
  std::vector<uint8_t> frame(const RoceTxHdr& h) {
    const std::vector<uint8_t> p = payload(h.pay_len);
    return roce_frame(h, p.data());
  }
  // A well-formed SEND ONLY to b's connection, PSN far from anything real.
  RoceTxHdr send_to_b() {
    RoceTxHdr h = base(true);
    h.opcode = kRcSendOnly;
    h.dst_qpn = b_.qp->qpn;
    h.psn = (kPsnA + 0x400000 + rnd(0x400000)) & 0xFFFFFF;
    h.pay_len = static_cast<uint16_t>(1 + rnd(256));
    return h;
  }

  std::vector<uint8_t> for_b(unsigned k, uint64_t seen) {
    switch (k) {
      case 0: {  // garbage behind a plausible Ethernet header
        std::vector<uint8_t> f = payload(14 + rnd(300));
        static const uint16_t kTypes[] = {0x0800, 0x86DD, 0x8915, 0x8100};
        const uint16_t et = rnd(5) == 4 ? static_cast<uint16_t>(rng_()) : kTypes[rnd(4)];
        for (int i = 0; i < 6; ++i) f[i] = static_cast<uint8_t>(test::kMacB >> (40 - 8 * i));
        f[12] = static_cast<uint8_t>(et >> 8);
        f[13] = static_cast<uint8_t>(et);
        ++t.parser_b;
        return f;
      }
      case 1: {  // a request cut inside its headers (Ethernet, IPv4, UDP, BTH end where the payload begins)
        std::vector<uint8_t> f = frame(send_to_b());
        f.resize(test::kIpv4At + 1 + rnd(test::kPayloadAt - test::kIpv4At - 1));
        ++t.parser_b;
        return f;
      }
      case 2: {  // IPv4 header checksum wrong
        std::vector<uint8_t> f = frame(send_to_b());
        f[test::kIpv4At + 10] ^= static_cast<uint8_t>(1u << rnd(8));
        ++t.ip_csum;
        return f;
      }
      case 3: {  // a payload bit flipped: the ICRC no longer matches
        RoceTxHdr h = send_to_b();
        std::vector<uint8_t> f = frame(h);
        f[test::kPayloadAt + rnd(h.pay_len)] ^= static_cast<uint8_t>(1u << rnd(8));
        ++t.icrc;
        return f;
      }
      case 4: {  // a reserved opcode (RC 0x15, 0x18..0x1F; UC/UD gaps), ICRC right
        static const uint8_t kReserved[] = {0x15, 0x18, 0x1C, 0x1F, 0x2C, 0x3F, 0x60, 0x7F, 0xC0, 0xE0};
        RoceTxHdr h = send_to_b();
        std::vector<uint8_t> f = frame(h);
        uint8_t op = kReserved[rnd(sizeof kReserved)];
        if (kOpcodes[op].valid) throw std::logic_error("test: opcode " + std::to_string(op) + " is not reserved");
        f[test::kBthOpcodeAt] = op;
        test::refresh_icrc_ipv4(f);
        ++t.opcode;
        return f;
      }
      case 5: {  // the connection's QP, PSN far ahead of or behind the expected one, no ACK asked
        RoceTxHdr h = send_to_b();
        const bool ahead = rnd(2) == 0;
        const uint32_t epsn = static_cast<uint32_t>(kPsnA + seen);  // about where b expects
        h.psn = (ahead ? epsn + 0x200000 + rnd(0x400000) : epsn - 0x200000 - rnd(0x400000)) & 0xFFFFFF;
        if (rnd(2)) {
          h.opcode = kRcWriteOnly;
          h.reth_va = rng_();
          h.reth_rkey = static_cast<uint32_t>(rng_());
          h.reth_len = h.pay_len;
        }
        ++(ahead ? t.ahead : t.behind);
        return frame(h);
      }
      case 6: {  // a QP that does not exist
        RoceTxHdr h = send_to_b();
        h.dst_qpn = 0x1000 + rnd(0xFFF000);
        ++t.no_qp;
        return frame(h);
      }
      default: {  // a WRITE outside b's MR, to the second QP
        RoceTxHdr h = base(true);
        h.opcode = kRcWriteOnly;
        h.dst_qpn = victim_;
        h.psn = kVictimPsn;
        h.ack_req = 1;
        h.pay_len = static_cast<uint16_t>(1 + rnd(1024));
        h.reth_va = b_.buf->addr() + kBuf + rnd(1 << 20);
        h.reth_rkey = b_.mr.key;
        h.reth_len = h.pay_len;
        ++t.victim;
        return frame(h);
      }
    }
  }

  std::vector<uint8_t> for_a(unsigned k) {
    RoceTxHdr h = base(false);
    h.dst_qpn = k == 10 ? 0x1000 + rnd(0xFFF000) : a_.qp->qpn;
    h.psn = (kPsnA + 0x400000 + rnd(0x400000)) & 0xFFFFFF;  // never in a's window
    h.aeth_syndrome = static_cast<uint8_t>(rng_());
    h.aeth_msn = static_cast<uint32_t>(rng_() & 0xFFFFFF);
    static const uint8_t kOps[] = {kRcAck, kRcAck, kRcReadRespFirst, kRcReadRespMiddle, kRcReadRespLast,
                                   kRcReadRespOnly, kRcAtomicAck};
    h.opcode = kOps[rnd(sizeof kOps)];
    const OpInfo& oi = kOpcodes[h.opcode];
    if (oi.payload) h.pay_len = static_cast<uint16_t>(h.opcode == kRcReadRespFirst || h.opcode == kRcReadRespMiddle
                                                          ? 1024
                                                          : rnd(1025));
    h.atomic_orig = rng_();
    ++t.stray;
    return frame(h);
  }

  TwoHosts& w_;
  End& a_;
  End& b_;
  uint32_t victim_;
  std::mt19937_64 rng_;
};

uint64_t parser_drops(host::EngineHost& h) {
  uint64_t n = 0;
  for (unsigned r = 1; r < kDropCount; ++r) n += h.csr(kCsrRxDrop + 4 * r);
  return n;
}
// What the responder and completer did with the packets that reached them: one verdict each.
uint64_t transport_verdicts(host::EngineHost& h) {
  uint64_t n = 0;
  for (XportCnt c : {XportCnt::kRxPkts, XportCnt::kNoQp, XportCnt::kQpState, XportCnt::kOutOfSequence,
                     XportCnt::kDuplicateRequest, XportCnt::kRemAccessErr, XportCnt::kRemInvReq,
                     XportCnt::kRnrNakSent, XportCnt::kRemOpErr, XportCnt::kRxAcks})
    n += h.counter(c);
  return n;
}

struct Config {
  std::string backend;
  unsigned hostile = 0;   // at least this many hostile frames
  unsigned messages = 0;
  uint64_t seed = 1;
};

void run(const Config& cfg) {
  TwoHosts w(cfg.backend, 3);
  End a, b;
  a.make(*w.a, kBuf);
  b.make(*w.b, kBuf);
  test::fill(*a.buf, kBuf, static_cast<uint32_t>(cfg.seed));
  test::connect_pair(*w.a, a, test::kMacA, test::kIpA, *w.b, b, test::kMacB, test::kIpB, 3);
  // b's second QP, in RTS toward a QP a does not have
  auto victim = w.b->create_qp(b.pd, *b.scq, *b.rcq, 4, 4);
  host::Path vp;
  vp.dest_qpn = kPhantomQpn;
  vp.dmac = test::kMacA;
  vp.dgid = host::ipv4_gid(test::kIpA);
  vp.sq_psn = 1;
  vp.rq_psn = kVictimPsn;
  w.b->connect(*victim, vp);

  // the traffic: messages of 0..16 KiB, SEND or WRITE, into distinct places of b's buffer
  std::mt19937_64 r(cfg.seed * 7 + 1);
  struct Msg {
    bool send;
    uint32_t len, off;
  };
  std::vector<Msg> msgs;
  uint64_t packets = 0;
  for (uint32_t off = 0; msgs.size() < cfg.messages;) {
    Msg m{r() % 2 == 0, static_cast<uint32_t>(r() % (16 * 1024 + 1)), off};
    if (off + m.len > kBuf) off = m.off = 0;
    off = (off + m.len + 63) & ~63u;
    msgs.push_back(m);
    packets += m.len == 0 ? 1 : (m.len + 1023) / 1024;
  }
  const unsigned per_frame = static_cast<unsigned>((cfg.hostile + packets - 1) / packets);
  Hostile hostile(w, a, b, victim->qpn, cfg.seed);
  uint64_t real_to_b = 0, real_to_a = 0;
  w.pass = [&](bool from_a, const uint8_t* f, size_t n) {
    // the real frame, then hostile ones behind it
    w.arrive(from_a)(f, n);
    ++(from_a ? real_to_b : real_to_a);
    if (from_a)
      for (unsigned i = 0; i < per_frame; ++i) hostile.inject(real_to_b);
    return false;
  };

  // in rounds of 16 messages (the send queue's depth), each checked
  std::vector<uint8_t> image(kBuf, 0);
  for (size_t i = 0; i < msgs.size(); i += 16) {
    const size_t end = std::min(msgs.size(), i + 16);
    std::memset(b.buf->data(), 0, kBuf);
    std::fill(image.begin(), image.end(), 0);
    for (size_t j = i; j < end; ++j) {
      const Msg& m = msgs[j];
      const uint32_t src = static_cast<uint32_t>(r() % (kBuf - m.len + 1));
      std::memcpy(image.data() + m.off, a.buf->data() + src, m.len);
      if (m.send) w.b->post_recv(*b.qp, j, {{b.buf->addr() + m.off, m.len, b.mr.key}});
      std::vector<Sge> sg;
      if (m.len) sg.push_back({a.buf->addr() + src, m.len, a.mr.key});
      w.a->post_send(*a.qp,
                     test::send_wqe(m.send ? WrOpcode::kSend : WrOpcode::kRdmaWrite, j, m.len,
                                    b.buf->addr() + m.off, b.mr.key),
                     sg);
    }
    w.settle(true, 10000);
    SCOPED_TRACE("round of messages " + std::to_string(i));
    const auto sc = w.a->poll(*a.scq);
    ASSERT_EQ(sc.size(), end - i);
    for (const Cqe& c : sc) ASSERT_EQ(c.status, 0) << "wr " << c.wr_id << ": " << to_string(static_cast<WcStatus>(c.status));
    const auto rc = w.b->poll(*b.rcq);
    size_t k = 0;
    for (size_t j = i; j < end; ++j) {
      if (!msgs[j].send) continue;
      ASSERT_LT(k, rc.size());
      ASSERT_EQ(rc[k].status, 0);
      ASSERT_EQ(rc[k].wr_id, j);
      ASSERT_EQ(rc[k].byte_len, msgs[j].len);
      ++k;
    }
    ASSERT_EQ(k, rc.size());
    ASSERT_EQ(0, std::memcmp(b.buf->data(), image.data(), kBuf)) << "b's memory";
  }
  const Tally& t = hostile.t;
  ASSERT_GE(t.to_a + t.to_b, cfg.hostile);

  // Every frame that arrived is accounted for, once.
  const uint64_t in_b = real_to_b + t.to_b, in_a = real_to_a + t.to_a;
  EXPECT_EQ(parser_drops(*w.b) + w.b->csr(kCsrRxBypass) + transport_verdicts(*w.b), in_b);
  EXPECT_EQ(parser_drops(*w.a) + w.a->csr(kCsrRxBypass) + transport_verdicts(*w.a), in_a);
  // The kinds whose fate is certain, exactly.
  EXPECT_EQ(w.b->csr(kCsrRxDrop + 4 * static_cast<unsigned>(Drop::kIpCsum)), t.ip_csum);
  EXPECT_EQ(w.b->csr(kCsrRxDrop + 4 * static_cast<unsigned>(Drop::kIcrc)), t.icrc);
  EXPECT_EQ(w.b->csr(kCsrRxDrop + 4 * static_cast<unsigned>(Drop::kOpcode)), t.opcode);
  EXPECT_EQ(parser_drops(*w.b) + w.b->csr(kCsrRxBypass), t.parser_b + t.ip_csum + t.icrc + t.opcode);
  EXPECT_EQ(w.b->counter(XportCnt::kNoQp), t.no_qp);
  EXPECT_EQ(w.b->counter(XportCnt::kOutOfSequence), t.ahead);
  EXPECT_GE(w.b->counter(XportCnt::kDuplicateRequest), t.behind);
  EXPECT_EQ(w.b->counter(XportCnt::kRemAccessErr), t.victim ? 1u : 0u) << "the victim's first WRITE";
  EXPECT_EQ(w.b->counter(XportCnt::kQpState), t.victim ? t.victim - 1 : 0) << "the victim in ERR";
  EXPECT_EQ(w.b->counter(XportCnt::kRxPkts), packets);
  // a: the stray responses, and the victim's NAK to a QP a does not have,
  // match nothing; so may a PSN sequence NAK a request far ahead drew when
  // a had nothing outstanding at that PSN
  EXPECT_GE(w.a->counter(XportCnt::kUnmatchedResponse), t.stray + (t.victim ? 1 : 0));
  EXPECT_LE(w.a->counter(XportCnt::kUnmatchedResponse), t.stray + (t.victim ? 1 : 0) + t.ahead);
  EXPECT_EQ(parser_drops(*w.a) + w.a->csr(kCsrRxBypass), 0u);
  EXPECT_EQ(w.da->divergence(), "");
  EXPECT_EQ(w.db->divergence(), "");
  std::printf("%s: %zu messages (%llu packets) with %llu hostile frames (%llu at b, %llu at a): parser/bypass %llu, "
              "ip csum %llu, icrc %llu, opcode %llu, ahead %llu, behind %llu, no QP %llu, victim %llu, stray "
              "responses %llu; retransmits %u%s\n",
              cfg.backend.c_str(), msgs.size(), static_cast<unsigned long long>(packets),
              static_cast<unsigned long long>(t.to_a + t.to_b), static_cast<unsigned long long>(t.to_b),
              static_cast<unsigned long long>(t.to_a), static_cast<unsigned long long>(t.parser_b),
              static_cast<unsigned long long>(t.ip_csum), static_cast<unsigned long long>(t.icrc),
              static_cast<unsigned long long>(t.opcode), static_cast<unsigned long long>(t.ahead),
              static_cast<unsigned long long>(t.behind), static_cast<unsigned long long>(t.no_qp),
              static_cast<unsigned long long>(t.victim), static_cast<unsigned long long>(t.stray),
              w.a->counter(XportCnt::kRetransmits),
              cfg.backend == "cosim" ? (", " + std::to_string(w.da->compared() + w.db->compared()) +
                                        " transactions compared, 0 divergences")
                                           .c_str()
                                     : "");
}

class HostileFrames : public ::testing::TestWithParam<std::string> {};

// The acceptance figures: 100,000 hostile frames on the model, 10,000 on rtl and cosim.
TEST_P(HostileFrames, ConnectionCompletesAndEveryFrameIsCounted) {
  const bool model = GetParam() == "model";
  run({GetParam(), model ? 100000u : 10000u, model ? 400u : 160u, 5});
}
INSTANTIATE_TEST_SUITE_P(Backends, HostileFrames, ::testing::Values("model", "rtl", "cosim"));

}  // namespace
}  // namespace rocenic
