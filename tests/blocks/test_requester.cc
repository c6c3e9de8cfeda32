// The requester, RTL and model, each in its own reactive world (host memory
// behind the DMA timing model, an MR table answering after a random latency,
// a completer stand-in retiring tracked WQEs, random idle on every input and
// random backpressure on every output), with the same seed: every output port
// must carry the same transactions in the same order. Multi-QP order depends
// on timing (round robin, window, retire), so this comparison also relies on
// the model following the RTL's cycles; the tests print whether it did.
//
// Each run is also held against the scenario (requester_env.h: check_expect):
// good WQEs succeed, the ones made to fail fail and flush the rest; sq_track,
// opcodes, PSNs, ack_req/se/RETH/ImmDt placement and header fields carry the
// WQE's; a success's payload is its SGE bytes in host memory; a READ is one
// request for all its PSNs and reads nothing. Which error a failure reports:
// the RTL = model comparison and the directed counts.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include "blocks/requester_env.h"
#include "rtl/requester_rtl.h"
#include "xport/requester.h"

namespace rocenic {
namespace {

using namespace reqtest;
using spec::WrOpcode;

constexpr uint8_t kWrite = static_cast<uint8_t>(WrOpcode::kRdmaWrite);
constexpr uint8_t kWriteImm = static_cast<uint8_t>(WrOpcode::kRdmaWriteWithImm);
constexpr uint8_t kSend = static_cast<uint8_t>(WrOpcode::kSend);
constexpr uint8_t kSendImm = static_cast<uint8_t>(WrOpcode::kSendWithImm);
constexpr uint8_t kRead = static_cast<uint8_t>(WrOpcode::kRdmaRead);

struct Both {
  EnvResult rtl, mdl;
  std::string diff;
  size_t compared = 0;
  size_t same_cycle = 0;  // transactions the model put in the RTL's cycle
  bool cycle_exact = true;
  double rtl_s = 0, mdl_s = 0;  // wall-clock seconds of each run
};

Both run_both(const Builder& b, const EnvConfig& cfg) {
  RequesterRtl rtl(kW);
  // the port and GID table UD WQEs are resolved with (World), in both
  const World& w = b.world;
  rtl.set_port(w.port_mac, w.port_mtu);
  for (unsigned i = 0; i < w.gids.size(); ++i) rtl.set_gid(i, w.gids[i]);
  auto mdl_block = model::make_requester_block(kW, 256, [&w](model::Requester& r) {
    r.set_port(w.port_mac, w.port_mtu);
    for (unsigned i = 0; i < w.gids.size(); ++i) r.set_gid(i, w.gids[i]);
  });
  Block& mdl = *mdl_block;
  Both r;
  using clk = std::chrono::steady_clock;
  const auto t0 = clk::now();
  r.rtl = run_env(rtl, [&] { return rtl.idle(); }, b.world, b.script, cfg);
  const auto t1 = clk::now();
  r.mdl = run_env(mdl, [&] { return mdl.idle(); }, b.world, b.script, cfg);
  r.rtl_s = std::chrono::duration<double>(t1 - t0).count();
  r.mdl_s = std::chrono::duration<double>(clk::now() - t1).count();
  r.diff = compare_runs(rtl, r.rtl, r.mdl, &r.compared);
  for (unsigned p = 0; p < kOuts && r.diff.empty(); ++p)
    for (size_t i = 0; i < r.rtl.out[p].size(); ++i) {
      const bool same = r.rtl.out[p][i].first_cycle == r.mdl.out[p][i].first_cycle;
      r.same_cycle += same;
      if (!same) r.cycle_exact = false;
    }
  return r;
}

void report(const char* name, const Both& r, const std::string& summary) {
  size_t all = 0;
  for (const auto& port : r.rtl.out) all += port.size();
  std::printf("[%s] compared %zu transactions RTL vs model, %s; cycles rtl %llu model %llu (%s: %zu of %zu "
              "transactions in the same cycle); run %.2f s RTL, %.2f s model (incl. the world); %s\n",
              name, r.compared, r.diff.empty() ? "0 divergences" : "DIVERGED",
              static_cast<unsigned long long>(r.rtl.cycles), static_cast<unsigned long long>(r.mdl.cycles),
              r.cycle_exact ? "cycle-exact" : "cycles differ", r.same_cycle, all, r.rtl_s, r.mdl_s, summary.c_str());
}

// Both runs clean, equal, and as the scenario means.
void expect_good(const char* name, const Builder& b, const Both& r) {
  EXPECT_EQ(r.rtl.error, "") << "RTL";
  EXPECT_EQ(r.mdl.error, "") << "model";
  EXPECT_EQ(r.diff, "");
  std::string summary;
  EXPECT_EQ(check_expect(r.rtl, b.qps, &summary), "") << "RTL against the expectation";
  EXPECT_EQ(check_expect(r.mdl, b.qps), "") << "model against the expectation";
  EXPECT_EQ(r.rtl.counters[0].second, r.rtl.out[kHdr].size()) << "TX_PKTS counts the headers";
  report(name, r, summary);
}

WqeSpec wqe(std::mt19937_64& rng, uint8_t op, std::vector<Sge> sges) {
  WqeSpec w;
  w.op = op;
  w.sges = std::move(sges);
  w.signaled = rng() % 4 != 0;
  w.solicited = rng() % 2;
  w.imm = static_cast<uint32_t>(rng());
  w.raddr = rng();
  w.rkey = static_cast<uint32_t>(rng());
  return w;
}

// A READ of `len` bytes into 1..6 SGEs at random addresses with random lkeys:
// they are where the responses will land, so the requester neither reads nor
// checks them (no MR needs to exist).
WqeSpec read_wqe(std::mt19937_64& rng, uint32_t len) {
  const unsigned n = 1 + static_cast<unsigned>(rng() % 6);
  std::vector<uint64_t> cuts{0, len};
  for (unsigned i = 1; i < n; ++i) cuts.push_back(rng() % (uint64_t{len} + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<Sge> sges;
  for (unsigned i = 0; i < n; ++i)
    sges.push_back(Sge{rng(), static_cast<uint32_t>(cuts[i + 1] - cuts[i]), static_cast<uint32_t>(rng())});
  return wqe(rng, kRead, sges);
}

// The payload reads (tag 1: not a WQE fetch, 0, nor a prefetch, 2) of a run, and the bytes they ask for.
size_t payload_reads(const EnvResult& r, uint64_t* bytes = nullptr) {
  size_t n = 0;
  if (bytes) *bytes = 0;
  for (const Txn& t : r.out[kRdReq]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    n += q.tag == spec::kDmaTagPayload;
    if (bytes && q.tag == spec::kDmaTagPayload) *bytes += q.len;
  }
  return n;
}

WqeSpec inline_wqe(std::mt19937_64& rng, uint8_t op, unsigned len) {
  WqeSpec w = wqe(rng, op, {});
  w.inl = true;
  for (unsigned i = 0; i < len; ++i) w.inline_data.push_back(static_cast<uint8_t>(rng()));
  return w;
}

// A scripted run (the script retires): both sides good, and the sq_track
// count at each wait_idle as given, in RTL and model alike.
Both run_scripted(Builder& b, uint64_t seed, const char* what, const std::vector<size_t>& tracks) {
  EnvConfig cfg;
  cfg.seed = seed;
  cfg.auto_retire = false;
  Both r = run_both(b, cfg);
  expect_good(what, b, r);
  EXPECT_EQ(r.rtl.idle_tracks, tracks) << what;
  EXPECT_EQ(r.mdl.idle_tracks, tracks) << what;
  return r;
}

TEST(RequesterXcheck, EveryOpcodeSizeAndMtu) {
  Builder b(11);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000345ull, 200 * 1024, 12, 0x200000000ull);
  for (unsigned pmtu = 1; pmtu <= 5; ++pmtu) {
    const uint16_t qpn = static_cast<uint16_t>(pmtu);
    b.add_qp(qpn, pmtu, 6, pmtu == 3 ? 0xFFFFF0 : static_cast<uint32_t>(rng()), 5);  // QP 3 wraps its PSN
  }
  b.add_qp(6, 1, 6, static_cast<uint32_t>(rng()), 5);  // inline
  for (uint8_t op : {kSend, kSendImm, kWrite, kWriteImm}) {
    for (unsigned pmtu = 1; pmtu <= 5; ++pmtu) {
      const uint32_t mtu = 128u << pmtu;
      for (uint32_t len : {0u, 1u, 255u, 256u, mtu - 1, mtu, mtu + 1, 4096u, 65536u})
        b.post(static_cast<uint16_t>(pmtu), wqe(rng, op, b.sges_in(1, len, 1 + rng() % 3)));
      b.ring(static_cast<uint16_t>(pmtu));
    }
    for (unsigned len : {0u, 1u, 17u, 64u, 65u, 96u}) b.post(6, inline_wqe(rng, op, len));
    b.ring(6);
  }
  // READs: one request each, taking one PSN per response packet (up to 4096 at 1 MiB)
  for (unsigned pmtu = 1; pmtu <= 5; ++pmtu) {
    const uint32_t mtu = 128u << pmtu;
    for (uint32_t len : {0u, 1u, 255u, 256u, mtu - 1, mtu, mtu + 1, 4096u, 65536u, (1u << 20) - 1, 1u << 20})
      b.post(static_cast<uint16_t>(pmtu), read_wqe(rng, len));
    b.post(static_cast<uint16_t>(pmtu), wqe(rng, kSend, b.sges_in(1, 300, 2)));  // after them: its PSN
    b.ring(static_cast<uint16_t>(pmtu));
  }
  EnvConfig cfg;
  cfg.seed = 11;
  const Both r = run_both(b, cfg);
  expect_good("sizes", b, r);
}

TEST(RequesterXcheck, GatherListsAcrossPages) {
  Builder b(23);
  auto& rng = b.rng();
  b.add_mr(2, 7, 0x20000f31ull, 96 * 1024, 12, 0x300000000ull);   // 4 KiB pages, odd start
  b.add_mr(3, 7, 0x30001234ull, 300 * 1024, 16, 0x400000000ull);  // 64 KiB pages: 4 KiB bus cuts inside
  b.add_mr(4, 7, 0x40000007ull, 64 * 1024, 13, 0x500000000ull);   // 8 KiB pages
  for (uint16_t q = 10; q < 13; ++q) b.add_qp(q, 1 + rng() % 5, 7, static_cast<uint32_t>(rng()), 7);
  for (int i = 0; i < 150; ++i) {
    const uint16_t q = static_cast<uint16_t>(10 + rng() % 3);
    const unsigned n = 1 + rng() % 6;
    std::vector<Sge> sges;
    for (unsigned k = 0; k < n; ++k) {
      const uint32_t len = rng() % 5 == 0 ? 0 : static_cast<uint32_t>(1 + rng() % (rng() % 2 ? 300 : 9000));
      const auto s = b.sges_in(2 + rng() % 3, len, 1);
      sges.push_back(s[0]);
    }
    b.post(q, wqe(rng, static_cast<uint8_t>(rng() % 4), sges));
    if (rng() % 3 == 0) b.ring(q);
  }
  for (uint16_t q = 10; q < 13; ++q) b.ring(q);
  EnvConfig cfg;
  cfg.seed = 23;
  const Both r = run_both(b, cfg);
  expect_good("gather", b, r);
}

// Up to 16 SGEs (MAX_SGE): the first 128 bytes of a WQE are fetched first;
// SGEs 6..15 only when num_sge says so (a second read of 16 bytes each).
// Every count 0..16 on SEND, WRITE and READ, SGEs of 0 bytes among them,
// across pages; a gather list of 16 after a rewind into its middle.
TEST(RequesterXcheck, SixteenSgesFetchedPastTheHead) {
  for (const double rewind_p : {0.0, 0.3}) {
    Builder b(61);
    auto& rng = b.rng();
    b.add_mr(1, 5, 0x10000345ull, 256 * 1024, 12, 0x200000000ull);
    b.add_qp(2, 1, 7, static_cast<uint32_t>(rng()), 5);
    b.add_qp(3, 3, 7, static_cast<uint32_t>(rng()), 5);
    for (uint16_t q : {2, 3}) {
      for (unsigned n = 0; n <= spec::kMaxSge; ++n) {
        for (uint8_t op : {kSend, kWrite}) {
          const uint32_t len = n == 0 ? 0 : static_cast<uint32_t>(n * (1 + rng() % 700));
          std::vector<Sge> sges = n == 0 ? std::vector<Sge>{} : b.sges_in(1, len, n);
          if (n > 3) sges[2].len = 0;  // an empty SGE inside the list (the length is the sum)
          b.post(q, wqe(rng, op, sges));
        }
        if (n > 0) {
          WqeSpec r = read_wqe(rng, 100 * n);
          r.sges.resize(n, Sge{rng(), 0, static_cast<uint32_t>(rng())});
          uint64_t left = 100 * n;
          for (unsigned i = 0; i < n; ++i) {  // spread the length over all n
            r.sges[i].len = static_cast<uint32_t>(i + 1 == n ? left : left / (n - i));
            left -= r.sges[i].len;
          }
          b.post(q, r);
        }
      }
      b.ring(q);
    }
    EnvConfig cfg;
    cfg.seed = 61;
    cfg.rewind_p = rewind_p;
    const Both r = run_both(b, cfg);
    expect_good(rewind_p > 0 ? "16 SGEs, rewinds" : "16 SGEs", b, r);
    unsigned tails = 0;
    for (const Txn& t : r.rtl.out[kRdReq]) {
      const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
      tails += q.tag == spec::kDmaTagWqe && (q.addr & ((1u << spec::kWqeSlotLog2) - 1)) == spec::kWqeHead;  // (bases are slot-aligned here)
    }
    EXPECT_GE(tails, 2u * 10u * 3u) << "WQEs with 7..16 SGEs read their tail";
  }
}

// The low-latency post path (SQ_BF_DB, issue 11): a doorbell that carries its
// WQE. The WQE is sent without a fetch when it is its QP's next new one at
// the pick; otherwise (another QP's SQ_BF_DB replaced it, its QP's qp_cfg
// forgot it) it is fetched from the ring as usual. Which way each went shows
// in the WQE reads, which RTL and model must issue alike.
TEST(RequesterXcheck, WqesWrittenWithTheDoorbellAreSentWithoutAFetch) {
  Builder b(71);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 256 * 1024, 12, 0x200000000ull);
  b.add_qp(7, 3, 6, static_cast<uint32_t>(rng()), 5);
  b.add_qp(8, 5, 6, static_cast<uint32_t>(rng()), 5);
  unsigned from_ring = 0;  // WQEs whose head must be read from the ring (fetched or prefetched)
  std::vector<std::pair<uint16_t, uint16_t>> from_bf;  // WQEs sent from SQ_BF: their slot is never read
  const auto bf_kept = [&](uint16_t q) { from_bf.push_back({q, b.qps[q].wqes.back().idx}); };
  // 1. on an idle QP: an inline WRITE, a SEND with two SGEs, a WRITE with 8
  //    SGEs (its tail, SGEs 6 and 7, is still read from the ring), a READ
  b.post(7, inline_wqe(rng, kWrite, 64));
  b.ring_bf(7);
  bf_kept(7);
  b.wait_idle();
  b.post(7, wqe(rng, kSend, b.sges_in(1, 3000, 2)));
  b.ring_bf(7);
  bf_kept(7);
  b.wait_idle();
  b.post(7, wqe(rng, kWriteImm, b.sges_in(1, 5000, 8)));
  b.ring_bf(7);
  bf_kept(7);
  b.wait_idle();
  b.post(7, read_wqe(rng, 9000));
  b.ring_bf(7);
  bf_kept(7);
  b.wait_idle();
  b.retire(7, 4, false, 1);
  // 2. behind WQEs rung the usual way: the last one still comes from SQ_BF
  for (int i = 0; i < 3; ++i) b.post(7, wqe(rng, kWrite, b.sges_in(1, 20000, 3)));
  b.ring(7);
  b.post(7, inline_wqe(rng, kSendImm, 40));
  b.ring_bf(7);
  bf_kept(7);
  from_ring += 3;
  b.wait_idle();
  b.retire(7, 4, false);
  // 3. QP 7 busy with long WRITEs, its SQ_BF WQE replaced by QP 8's before its pick
  for (int i = 0; i < 3; ++i) b.post(7, wqe(rng, kWrite, b.sges_in(1, 40000, 2)));
  b.ring(7);
  b.post(7, inline_wqe(rng, kWrite, 16));
  b.ring_bf(7);
  b.post(8, inline_wqe(rng, kSend, 96));
  b.ring_bf(8);
  bf_kept(8);
  from_ring += 4;
  b.wait_idle();
  b.retire(7, 4, false);
  b.retire(8, 1, false);
  // 4. on a QP in SQD (nothing new starts): the qp_cfg that takes it back to RTS forgets it
  b.cfg_action(8, spec::QpAction::kToSqd);
  b.post(8, inline_wqe(rng, kWrite, 8));
  b.ring_bf(8);
  b.wait(200);
  b.cfg_action(8, spec::QpAction::kAttr);
  from_ring += 1;
  b.wait_idle();
  b.retire(8, 1, false);
  // 5. after a local error (a bad lkey) the QP is in ERR: the next one, written
  //    with its doorbell, is flushed straight from SQ_BF
  WqeSpec bad = wqe(rng, kSend, b.sges_in(1, 100, 1));
  bad.sges[0].lkey ^= 0x01;
  bad.bad = true;
  b.post(8, bad);
  b.ring(8);
  from_ring += 1;
  b.wait_idle();
  b.post(8, inline_wqe(rng, kSend, 8));
  b.ring_bf(8);
  bf_kept(8);
  b.wait_idle();
  const Both r = run_scripted(b, 71, "SQ_BF", {1, 2, 3, 4, 8, 13, 14, 15, 16});
  // the slots read from the ring, by a fetch (tag 0) or a prefetch (tag 2)
  std::set<uint64_t> heads;
  unsigned tails = 0;
  for (const Txn& t : r.rtl.out[kRdReq]) {
    const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
    if (q.tag != 0 && q.tag != 2) continue;
    const uint64_t off = q.addr & ((1u << spec::kWqeSlotLog2) - 1);  // (bases are slot-aligned here)
    if (off == 0) heads.insert(q.addr);
    tails += q.tag == spec::kDmaTagWqe && off == spec::kWqeHead;
  }
  EXPECT_EQ(heads.size(), from_ring) << "WQE heads read from the ring";
  for (const auto& [q, idx] : from_bf) {
    const spec::QpCfg& c = b.qps[q].cfg;
    const uint64_t slot = c.sq_base + (uint64_t{idx & ((1u << c.sq_lsz) - 1)} << spec::kWqeSlotLog2);
    EXPECT_EQ(heads.count(slot), 0u) << "QP " << q << " WQE " << idx << " came with its doorbell, yet was read";
  }
  EXPECT_EQ(tails, 1u) << "the 8-SGE WQE's tail";
}

// UC (issue 10): SENDs and RDMA WRITEs of 0..3 packets and more, with and
// without immediate, on two UC QPs beside an RC one: UC opcodes, no AckReq,
// each WQE tracked once its last packet left (unacked, last_psn =
// first_psn - 1); a READ on a UC QP fails LOC_QP_OP_ERR before any packet
// and the rest of that QP is flushed. RTL = model, and as expect_good says.
TEST(RequesterXcheck, UcQpsSendWithoutAckRequestsAndTrackOnceSent) {
  Builder b(73);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 256 * 1024, 12, 0x200000000ull);
  b.add_qp(4, 3, 6, static_cast<uint32_t>(rng()), 5, true);
  b.add_qp(5, 1, 6, 0xFFFFF0u, 5, true);  // crosses 2^24
  b.add_qp(6, 3, 6, static_cast<uint32_t>(rng()), 5);
  for (uint16_t q : {4, 5, 6})
    for (int i = 0; i < 12; ++i) {
      const uint8_t op = std::array<uint8_t, 4>{kSend, kSendImm, kWrite, kWriteImm}[i % 4];
      const uint32_t len = i < 4 ? 0 : static_cast<uint32_t>(1 + rng() % 5000);
      b.post(q, wqe(rng, op, len ? b.sges_in(1, len, 1 + rng() % 3) : std::vector<Sge>{}));
    }
  WqeSpec r = read_wqe(rng, 100);
  r.bad = true;  // no READ on UC
  b.post(5, r);
  b.post(5, wqe(rng, kSend, b.sges_in(1, 64, 1)));  // flushed behind it
  for (uint16_t q : {4, 5, 6}) b.ring(q);
  EnvConfig cfg;
  cfg.seed = 73;
  const Both res = run_both(b, cfg);
  expect_good("UC", b, res);
  unsigned uc_pkts = 0, unacked = 0;
  for (const Txn& t : res.rtl.out[kHdr]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    if (h.src_qpn == 4 || h.src_qpn == 5) {
      ++uc_pkts;
      EXPECT_TRUE(h.opcode >= 0x20 && h.opcode <= 0x2B) << h.describe();
      EXPECT_FALSE(h.ack_req);
    }
  }
  for (const Txn& t : res.rtl.out[kTrack]) unacked += desc_from_flit<spec::SqTrack>(t.flits[0]).unacked;
  EXPECT_GT(uc_pkts, 24u);
  EXPECT_EQ(unacked, 12u + 12u + 2u) << "every WQE of the UC QPs, the failed READ and the flushed SEND too";
}

// UD (issue 10): each SEND is one datagram to its WQE's address vector,
// resolved through the GID table (RoCE v1, v2/IPv4 on a VLAN, v2/IPv6), with
// a DETH Q_Key (bit 31 set: the QP's own), no AckReq, tracked once sent
// (unacked); its QP's path fields never show. A WRITE, 3 SGEs, 33 inline
// bytes or an unused GID entry fail LOC_QP_OP_ERR before any packet (each on
// its own QP: the WQE behind is flushed); a datagram over the port MTU sends
// nothing and succeeds, its PSN taken (IBTA C10-93.1.1, as rxe). RTL = model,
// and as expect_good says.
TEST(RequesterXcheck, UdQpsSendOneDatagramToTheWqesAddress) {
  Builder b(91);
  auto& rng = b.rng();
  b.world.port_mtu = 3;  // 1024 bytes
  const auto gid = [&](uint8_t type, bool v4, uint16_t vlan) {
    model::GidEntry g;
    g.type = type;
    for (auto& x : g.gid) x = static_cast<uint8_t>(rng());
    if (v4) {
      for (unsigned i = 0; i < 10; ++i) g.gid[i] = 0;
      g.gid[10] = g.gid[11] = 0xFF;
    }
    g.vlan = vlan;
    return g;
  };
  b.world.gids[0] = gid(1, false, 0);                  // RoCE v1
  b.world.gids[1] = gid(2, false, 0);                  // v2/IPv6
  b.world.gids[2] = gid(1, true, 0);                   // v1, IPv4-mapped
  b.world.gids[3] = gid(2, true, (1u << 12) | 7);      // v2/IPv4 on VLAN 7
  b.world.gids[5] = gid(2, false, (1u << 12) | 4000);  // v2/IPv6 on VLAN 4000 (4: unused)
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  const auto av = [&](uint8_t sgid) {
    WqeSpec::Av a;
    a.dest_qpn = static_cast<uint32_t>(rng() & 0xFFFFFF);
    a.qkey = rng() % 3 == 0 ? 0x80000000u | static_cast<uint32_t>(rng()) : static_cast<uint32_t>(rng() & 0x7FFFFFFF);
    for (auto& x : a.dgid) x = static_cast<uint8_t>(rng());
    a.dmac = rng() & 0xFFFFFFFFFFFFull;
    a.sgid = sgid;
    a.hop = static_cast<uint8_t>(rng());
    a.tclass = static_cast<uint8_t>(rng());
    a.sl = static_cast<uint8_t>(rng() % 16);
    a.flow_label = static_cast<uint32_t>(rng());
    return a;
  };
  const uint8_t kSgids[] = {0, 1, 2, 3, 5};
  b.add_ud_qp(4, 6, static_cast<uint32_t>(rng()), 5, 0x11111111);
  b.add_ud_qp(5, 6, 0xFFFFF8u, 5, 0x22222222);  // crosses 2^24
  for (uint16_t q : {4, 5})
    for (int i = 0; i < 20; ++i) {
      const uint8_t op = i % 2 ? kSendImm : kSend;
      const uint32_t len = i < 2 ? 0 : i < 4 ? 1024 : static_cast<uint32_t>(1 + rng() % 1024);
      WqeSpec w = i % 5 == 4 ? inline_wqe(rng, op, len % 33)
                             : wqe(rng, op, len ? b.sges_in(1, len, 1 + rng() % 2) : std::vector<Sge>{});
      w.av = av(kSgids[rng() % 5]);
      b.post(q, w);
    }
  // what UD cannot send: each on a QP of its own, the WQE behind it flushed
  uint16_t qpn = 6;
  const auto refused = [&](WqeSpec w) {
    b.add_ud_qp(qpn, 6, static_cast<uint32_t>(rng()), 5, 0x33);
    w.bad = true;
    if (w.av.dest_qpn == 0) w.av = av(3);
    b.post(qpn, w);
    WqeSpec after = wqe(rng, kSend, b.sges_in(1, 64, 1));
    after.av = av(3);
    b.post(qpn, after);
    ++qpn;
  };
  refused(wqe(rng, kWrite, b.sges_in(1, 64, 1)));
  refused(wqe(rng, kSend, b.sges_in(1, 48, 3)));
  refused(inline_wqe(rng, kSend, 33));
  {  // over the port MTU: nothing sent, no error; the next one goes out
    b.add_ud_qp(qpn, 6, 0xFFFFFF, 5, 0x44);
    WqeSpec big = wqe(rng, kSend, b.sges_in(1, 1025, 2));
    big.av = av(1);
    b.post(qpn, big);
    WqeSpec next = wqe(rng, kSendImm, b.sges_in(1, 100, 1));
    next.av = av(1);
    b.post(qpn, next);
    ++qpn;
  }
  WqeSpec unused = wqe(rng, kSend, b.sges_in(1, 64, 1));
  unused.av = av(4);
  refused(unused);
  for (uint16_t q = 4; q < qpn; ++q) b.ring(q);
  EnvConfig cfg;
  cfg.seed = 91;
  const Both res = run_both(b, cfg);
  expect_good("UD", b, res);
  unsigned datagrams = 0, own_qkey = 0, tagged = 0;
  std::set<unsigned> l3s;
  for (const Txn& t : res.rtl.out[kHdr]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    ++datagrams;
    EXPECT_TRUE(h.opcode == spec::kUdSendOnly || h.opcode == spec::kUdSendOnlyImm) << h.describe();
    EXPECT_FALSE(h.ack_req);
    own_qkey += h.qkey == 0x11111111 || h.qkey == 0x22222222;
    tagged += h.vlan_valid;
    l3s.insert(h.l3);
  }
  EXPECT_EQ(datagrams, 41u) << "one packet per SEND, none for the refused or the one over the MTU";
  EXPECT_GT(own_qkey, 5u) << "bit 31 sends the QP's Q_Key";
  EXPECT_GT(tagged, 5u);
  EXPECT_EQ(l3s.size(), 3u) << "RoCE v1, v2/IPv4, v2/IPv6";
  std::map<uint8_t, unsigned> statuses;
  for (const Txn& t : res.rtl.out[kTrack]) ++statuses[desc_from_flit<spec::SqTrack>(t.flits[0]).status];
  EXPECT_EQ(statuses[static_cast<uint8_t>(spec::WcStatus::kLocQpOpErr)], 4u);
  EXPECT_EQ(statuses[static_cast<uint8_t>(spec::WcStatus::kWrFlushErr)], 4u);
}

// The model's timing is the RTL's (model/xport/requester.cc): WQEs back to
// back, with no idle cycles or backpressure, leave every transaction (the
// WQE reads and prefetches too) alike and in the same cycle on both --
// one-SGE WQEs of two and three packets (page runs translated as they
// come), gather lists of two SGEs at odd addresses, two QPs taking turns. A payload is held to its last beat: the RTL's gather
// sends a packed beat as soon as it fills, the model's Packet goes whole.
TEST(RequesterXcheck, BackToBackWqesAreCycleExact) {
  const char* names[] = {"dma_rd_req", "mr_req", "tx_hdr", "tx_payload", "sq_track", "rd_hint"};
  const char* what[] = {"one SGE, 2-3 packets", "1-2 SGEs at odd addresses", "two QPs"};
  for (int variant = 0; variant < 3; ++variant) {
    Builder b(5);
    auto& rng = b.rng();
    b.add_mr(1, 5, 0x10000000ull, 128 * 1024, 12, 0x200000000ull);
    b.add_qp(60, 3, 7, 100, 5);
    if (variant == 2) b.add_qp(61, 3, 7, 200, 5);
    for (int i = 0; i < 6; ++i) {
      if (variant == 0) b.post(60, wqe(rng, 2, b.sges_in(1, 1064 + 1024 * (i % 2), 1, false)));
      else b.post(60, wqe(rng, 2, b.sges_in(1, 64 + 1000 * (i % 4), 1 + i % 2)));
      if (variant == 2) b.post(61, wqe(rng, 2, b.sges_in(1, 300, 1)));
    }
    b.ring(60);
    if (variant == 2) b.ring(61);
    EnvConfig cfg;
    cfg.in_idle = cfg.out_stall = 0;
    cfg.mr_lat_min = cfg.mr_lat_max = 2;
    cfg.retire_p = 1.0;
    const Both r = run_both(b, cfg);
    ASSERT_EQ(r.diff, "") << what[variant];
    ASSERT_EQ(r.rtl.out[kRdReq].size(), r.mdl.out[kRdReq].size()) << what[variant];
    size_t n = 0, same = 0;
    for (unsigned p = 0; p < kOuts; ++p)
      for (size_t i = 0; i < r.rtl.out[p].size(); ++i, ++n) {
        // (every transaction, the WQE reads and prefetches too, which the
        // random runs leave to timing)
        ASSERT_LT(i, r.mdl.out[p].size()) << what[variant] << ": " << names[p];
        EXPECT_EQ(r.rtl.out[p][i].flits, r.mdl.out[p][i].flits) << what[variant] << ": " << names[p] << " transaction " << i;
        const uint64_t a = p == kPay ? r.rtl.out[p][i].last_cycle : r.rtl.out[p][i].first_cycle;
        const uint64_t m = p == kPay ? r.mdl.out[p][i].last_cycle : r.mdl.out[p][i].first_cycle;
        same += a == m;
        EXPECT_EQ(a, m) << what[variant] << ": " << names[p] << " transaction " << i;
      }
    std::printf("%s: %zu of %zu transactions in the same cycle on RTL and model\n", what[variant], same, n);
  }
}

// While the first fetched head is awaited, PF reads ahead past its two reads
// (requester.sv, pff_q): with 12 QPs of two WQEs rung at once, the heads of
// the other 11 and the first QP's second are asked for before the first head
// is back (two, before pff_q), on RTL and model alike.
TEST(RequesterXcheck, PrefetchFillsWhileTheFirstHeadIsAwaited) {
  Builder b(41);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  for (uint16_t q = 30; q < 42; ++q) b.add_qp(q, 3, 5, static_cast<uint32_t>(rng()), 5);
  for (uint16_t q = 30; q < 42; ++q)
    for (int i = 0; i < 2; ++i) b.post(q, wqe(rng, 2, b.sges_in(1, 64, 1)));
  for (uint16_t q = 30; q < 42; ++q) b.ring(q);
  EnvConfig cfg;
  cfg.in_idle = cfg.out_stall = 0;
  cfg.mr_lat_min = cfg.mr_lat_max = 2;
  cfg.retire_p = 1.0;
  const Both r = run_both(b, cfg);
  ASSERT_EQ(r.diff, "");
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    const char* who = e == &r.rtl ? "rtl" : "model";
    ASSERT_FALSE(e->out[kRdReq].empty()) << who;
    const uint64_t first = e->out[kRdReq][0].first_cycle;
    const auto q0 = desc_from_flit<spec::DmaRdReq>(e->out[kRdReq][0].flits[0]);
    EXPECT_EQ(q0.tag, spec::kDmaTagWqe) << who << ": the first read is a head fetch";
    size_t ahead = 0;
    for (const Txn& t : e->out[kRdReq]) {
      const auto q = desc_from_flit<spec::DmaRdReq>(t.flits[0]);
      ahead += q.tag == spec::kDmaTagPrefetch && t.first_cycle < first + 40;
    }
    EXPECT_EQ(ahead, 12u) << who << ": heads read ahead within 40 cycles of the first fetch";
  }
  EXPECT_EQ(r.rtl.out[kRdReq].size(), r.mdl.out[kRdReq].size());
  for (size_t i = 0; i < std::min(r.rtl.out[kRdReq].size(), r.mdl.out[kRdReq].size()); ++i)
    EXPECT_EQ(r.rtl.out[kRdReq][i].first_cycle, r.mdl.out[kRdReq][i].first_cycle) << "dma_rd_req " << i;
}

TEST(RequesterXcheck, RoundRobinOverQps) {
  Builder b(31);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  for (uint16_t q = 20; q < 28; ++q) b.add_qp(q, 3, 5, static_cast<uint32_t>(rng()), 5);
  for (uint16_t q = 20; q < 28; ++q)
    for (int i = 0; i < 8; ++i) b.post(q, wqe(rng, kSend, b.sges_in(1, 100 + rng() % 2000, 2)));
  for (uint16_t q = 20; q < 28; ++q) b.ring(q);
  EnvConfig cfg;
  cfg.seed = 31;
  cfg.in_idle = 0;  // doorbells on consecutive cycles: all are in before the first WQE is done
  const Both r = run_both(b, cfg);
  expect_good("round robin", b, r);
  ASSERT_EQ(r.rtl.out[kTrack].size(), 64u);
  for (size_t i = 0; i < 64; ++i)
    EXPECT_EQ(desc_from_flit<spec::SqTrack>(r.rtl.out[kTrack][i].flits[0]).qpn, 20 + i % 8) << "WQE " << i;
}

TEST(RequesterXcheck, WindowOfSixteenWaitsForRetire) {
  Builder b(41);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  b.add_qp(30, 2, 6, static_cast<uint32_t>(rng()), 5);
  b.add_qp(31, 4, 6, static_cast<uint32_t>(rng()), 5);
  for (int i = 0; i < 40; ++i) b.post(30, wqe(rng, kWrite, b.sges_in(1, i % 3 ? 0 : 700, 1)));
  for (int i = 0; i < 20; ++i) b.post(31, wqe(rng, kSendImm, b.sges_in(1, 1 + rng() % 64, 1)));
  b.ring(30);
  b.ring(31);
  b.wait_idle();  // both stop at 16 outstanding
  b.retire(30, 5, false);
  b.wait_idle();
  b.retire(31, 4, false);
  b.wait_idle();
  b.retire(30, 16, false);
  b.wait_idle();
  b.retire(30, 16, false);
  b.wait_idle();
  const Both r = run_scripted(b, 41, "window", {32, 37, 41, 57, 60});
}

TEST(RequesterXcheck, LocalErrorsThenFlush) {
  Builder b(53);
  auto& rng = b.rng();
  const uint32_t good = b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  const uint32_t other_pd = b.add_mr(2, 6, 0x20000000ull, 16 * 1024, 12, 0x300000000ull);
  // MR 3's second page is beyond the MTT: the SGE check passes, the later page run fails
  b.add_mr(3, 5, 0x30000800ull, 6000, 12, 0x400000000ull, true, 4095);
  b.add_mr(4, 5, 0x40000000ull, 16 * 1024, 12, 0x500000000ull, false);  // host refuses its pages
  for (uint16_t q = 40; q < 57; ++q) b.add_qp(q, 1 + q % 5, 4, static_cast<uint32_t>(rng()), 5);
  const auto sg = [&](uint32_t len) { return b.sges_in(1, len, 2); };
  for (uint16_t q = 40; q < 57; ++q) {
    b.post(q, wqe(rng, static_cast<uint8_t>(rng() % 4), sg(1 + rng() % 3000)));
    WqeSpec w = wqe(rng, kSend, sg(500));
    bool poison = false;
    switch (q) {
      case 40:  // the key byte of the second SGE is stale
        w.sges = {b.sges_in(1, 250, 1)[0], b.sges_in(1, 250, 1)[0]};
        w.sges[1].lkey = good ^ 0x01;
        break;
      case 41:  // the first SGE runs one byte past the MR
        w.sges = {Sge{0x10000000ull + 64 * 1024 - 10, 11, good}, b.sges_in(1, 489, 1)[0]};
        break;
      case 42: w.sges = b.sges_in(2, 500, 2); (void)other_pd; break;  // the QP's PD is 5
      case 43: w = inline_wqe(rng, kRead, 8); break;  // a READ lands in SGEs, never inline
      case 44: w.op = 10; break;  // past SEND_WITH_INV: no such opcode
      case 45: w.sges = sg(600); w.sges.resize(16, w.sges[0]); w.nsge_override = 17; break;
      case 46: w.len_override = 499; break;
      case 47: w = inline_wqe(rng, kSend, 96); w.len_override = 97; break;
      case 48: poison = true; break;
      case 49: w = wqe(rng, kWrite, {Sge{0x30000800ull, 6000, (3u << 8) | b.mr(3).ctx.key}}); break;
      case 50: w = wqe(rng, kWriteImm, b.sges_in(4, 5000, 3)); break;
      case 51: w.sges.push_back(Sge{0xdead, 0, 0x12345}); break;  // zero length: never checked
      case 52:  // a READ of more than 2^31 bytes (IBTA's largest message)
        w = wqe(rng, kRead, {Sge{0x1000, 1u << 30, 0x777}, Sge{0x1000, (1u << 30) + 1, 0x777}});
        break;
      case 53: w = read_wqe(rng, 5000); w.len_override = 4999; break;  // SGEs do not add up to the length
      case 54: w = read_wqe(rng, 700); w.sges.resize(16, w.sges[0]); w.nsge_override = 17; break;
      case 55: w = read_wqe(rng, 3000); break;  // unregistered lkeys: a READ checks none of them
      case 56:  // a READ of exactly 2^31 bytes: 2^31 / mtu PSNs
        w = wqe(rng, kRead, {Sge{0x1000, 1u << 30, 0x777}, Sge{0x1000, 1u << 30, 0x777}});
        break;
    }
    w.bad = q != 51 && q != 55 && q != 56;
    b.post(q, w, poison);
    b.post(q, wqe(rng, kSend, sg(64)));
    b.post(q, inline_wqe(rng, kWrite, 8));
    b.ring(q);
  }
  EnvConfig cfg;
  cfg.seed = 53;
  const Both r = run_both(b, cfg);
  expect_good("local errors", b, r);
  unsigned prot = 0, qp_op = 0, flush = 0;
  for (const auto& t : r.rtl.out[kTrack]) {
    const auto s = static_cast<spec::WcStatus>(desc_from_flit<spec::SqTrack>(t.flits[0]).status);
    prot += s == spec::WcStatus::kLocProtErr;
    qp_op += s == spec::WcStatus::kLocQpOpErr;
    flush += s == spec::WcStatus::kWrFlushErr;
  }
  EXPECT_EQ(prot, 5u);   // QPs 40, 41, 42, 49, 50
  EXPECT_EQ(qp_op, 9u);  // QPs 43..48, 52..54
  EXPECT_EQ(flush, 28u);
}

// Errors from outside (sq_retire with error, qp_cfg TO_ERR / RESET / DESTROY)
// land at times that depend on the run: here the check is RTL == model plus
// what holds whatever the timing.
TEST(RequesterXcheck, RetireErrorsAndQpCfgMidStream) {
  Builder b(67);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 128 * 1024, 12, 0x200000000ull);
  for (uint16_t q = 60; q < 66; ++q) b.add_qp(q, 1 + rng() % 5, 7, static_cast<uint32_t>(rng()), 5);
  const auto post_some = [&](uint16_t q, int n) {
    for (int i = 0; i < n; ++i) b.post(q, wqe(rng, static_cast<uint8_t>(rng() % 5), b.sges_in(1, rng() % 5000, 2)));
    b.ring(q);
  };
  for (uint16_t q = 60; q < 66; ++q) post_some(q, 20);
  b.wait(3000);
  b.cfg_action(61, spec::QpAction::kToErr);
  b.wait(2000);
  for (auto a : {spec::QpAction::kReset, spec::QpAction::kToInit, spec::QpAction::kToRtr, spec::QpAction::kToRts})
    b.cfg_action(62, a);
  post_some(62, 10);
  b.cfg_action(63, spec::QpAction::kDestroy);
  b.wait(4000);
  post_some(64, 10);
  EnvConfig cfg;
  cfg.seed = 67;
  cfg.nak_p = 0.03;
  // No random stalls here: the completer stand-in decides cycle by cycle
  // (which WQEs a retire covers, a NAK), so RTL and model must meet each
  // decision in the same cycle. Under random backpressure the model's
  // payloads, whole Packets, leave a few cycles off the RTL's beats, and with
  // several WQEs in flight the decisions then part. Backpressure with errors
  // and rewinds is covered by RandomMix and the tests above.
  cfg.in_idle = cfg.out_stall = 0.0;
  const Both r = run_both(b, cfg);
  EXPECT_EQ(r.rtl.error, "");
  EXPECT_EQ(r.mdl.error, "");
  EXPECT_EQ(r.diff, "");
  // every SUCCESS track has its packets, PSNs ending at last_psn (a READ: one
  // request at first_psn for its PSNs); failures and flushes send none
  std::map<uint32_t, std::vector<spec::RoceTxHdr>> hdrs;
  for (const auto& t : r.rtl.out[kHdr]) {
    const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
    hdrs[h.src_qpn].push_back(h);
  }
  std::map<uint32_t, size_t> used;
  unsigned flushed = 0;
  for (const auto& t : r.rtl.out[kTrack]) {
    const auto tr = desc_from_flit<spec::SqTrack>(t.flits[0]);
    if (tr.status != 0) {
      flushed += tr.status == static_cast<uint8_t>(spec::WcStatus::kWrFlushErr);
      continue;
    }
    const unsigned mtu = 128u << b.qps.at(tr.qpn).cfg.pmtu;
    const uint32_t psns = std::max<uint32_t>(1, (tr.byte_len + mtu - 1) / mtu);
    const bool read = tr.wc_opcode == static_cast<uint8_t>(spec::WcOpcode::kRdmaRead);
    const uint32_t npk = read ? 1 : psns;
    EXPECT_EQ((tr.last_psn - tr.first_psn + 1) & 0xFFFFFF, psns) << "QP " << tr.qpn << " WQE " << tr.wqe_idx;
    auto& hs = hdrs[tr.qpn];
    size_t& u = used[tr.qpn];
    ASSERT_LE(u + npk, hs.size()) << "QP " << tr.qpn << " WQE " << tr.wqe_idx;
    for (uint32_t i = 0; i < npk; ++i, ++u) {
      EXPECT_EQ(hs[u].psn, (tr.last_psn - (psns - 1 - i)) & 0xFFFFFF) << "QP " << tr.qpn << " WQE " << tr.wqe_idx;
      EXPECT_EQ(hs[u].opcode == spec::kRcReadReq, read) << "QP " << tr.qpn << " WQE " << tr.wqe_idx;
    }
  }
  for (const auto& [q, hs] : hdrs) EXPECT_EQ(used[q], hs.size()) << "QP " << q << ": packets outside SUCCESS WQEs";
  EXPECT_GT(flushed, 10u);
  report("retire errors", r, std::to_string(r.rtl.out[kTrack].size()) + " WQEs, " + std::to_string(flushed) +
                                 " flushed, " + std::to_string(r.rtl.out[kHdr].size()) + " packets");
}

// req_qp_ctx reads pi and state at the pick (block RAM) and then follows
// every write of the engine's QP (act_pi, act_state): a doorbell or a
// retire's error that lands in the pick's own cycle must be seen. Swept
// over the cycles around a pick (an IDLE pick: control inputs are taken
// beside it): a second doorbell while WQE 0 is picked (WQE 1 must still be
// sent: the write-back's has_new reads act_pi), and a retire with error
// while WQE 1 is picked (flushed when it lands before WQE 1's decode, its
// fetch ~130 cycles after the pick; sent when long after) -- RTL and model
// alike, both outcomes met.
TEST(RequesterXcheck, DoorbellsAndRetireErrorsInEveryCycleAroundAPick) {
  unsigned sent = 0, flushed = 0;
  std::vector<unsigned> delays;
  for (unsigned d = 0; d < 16; ++d) delays.push_back(d);
  delays.push_back(400);  // (long after WQE 1's fetch and decode)
  for (const unsigned d : delays) {
    for (int kind = 0; kind < 2; ++kind) {
      Builder b(90 + d);
      auto& rng = b.rng();
      b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
      b.add_qp(70, 3, 5, static_cast<uint32_t>(rng()), 5);
      b.post(70, wqe(rng, kWrite, b.sges_in(1, 64, 1)));
      b.ring(70);
      if (kind == 0) {
        b.wait(d);
        b.post(70, wqe(rng, kWrite, b.sges_in(1, 64, 1)));
        b.ring(70);
      } else {
        b.wait_idle();
        b.post(70, wqe(rng, kWrite, b.sges_in(1, 64, 1)));
        b.ring(70);
        b.wait(d);
        b.retire(70, 1, true);
      }
      b.wait_idle();
      EnvConfig cfg;
      cfg.seed = 90 + d;
      cfg.auto_retire = false;
      cfg.in_idle = cfg.out_stall = 0.0;
      const Both r = run_both(b, cfg);
      const std::string what = std::string(kind == 0 ? "doorbell" : "retire error") + " after " + std::to_string(d);
      EXPECT_EQ(r.rtl.error, "") << what;
      EXPECT_EQ(r.mdl.error, "") << what;
      EXPECT_EQ(r.diff, "") << what;
      ASSERT_EQ(r.rtl.out[kTrack].size(), 2u) << what << ": both WQEs tracked";
      const auto t1 = desc_from_flit<spec::SqTrack>(r.rtl.out[kTrack][1].flits[0]);
      EXPECT_EQ(t1.wqe_idx, 1u) << what;
      if (kind == 0) {
        EXPECT_EQ(t1.status, 0u) << what << ": WQE 1 sent";
        EXPECT_EQ(r.rtl.out[kHdr].size(), 2u) << what;
      } else {
        (t1.status == 0 ? sent : flushed)++;
        EXPECT_TRUE(t1.status == 0 || t1.status == static_cast<uint8_t>(spec::WcStatus::kWrFlushErr)) << what;
        EXPECT_EQ(r.rtl.out[kHdr].size(), t1.status == 0 ? 2u : 1u) << what;
      }
    }
  }
  EXPECT_GT(sent, 0u) << "a retire error after WQE 1's decode leaves it sent";
  EXPECT_GT(flushed, 0u) << "a retire error by WQE 1's pick flushes it";
  std::printf("retire error at 17 delays: WQE 1 sent %u times, flushed %u times\n", sent, flushed);
}

// The outputs of a run up to its n-th header (and the payloads of those
// headers); sq_track and everything else whole.
EnvResult first_headers(const EnvResult& r, size_t n) {
  EnvResult c = r;
  c.out[kHdr].resize(std::min(n, r.out[kHdr].size()));
  size_t pays = 0;
  for (const Txn& t : c.out[kHdr]) pays += desc_from_flit<spec::RoceTxHdr>(t.flits[0]).pay_len > 0;
  c.out[kPay].resize(std::min(pays, r.out[kPay].size()));
  return c;
}

// Go-back-N in the requester: a rewind sends the WQEs again from a packet in
// the middle of one (MIDDLE/LAST opcodes, no RETH, the payload from the SGE
// and offset where that packet begins, across a PSN wrap), without tracking
// them again; every packet sent again equals its first transmission.
TEST(RequesterXcheck, RewindSendsAgainFromThePacket) {
  Builder b(31);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000345ull, 64 * 1024, 12, 0x300000000ull);
  const uint32_t psn0 = 0xFFFFFE;
  b.add_qp(1, 1, 4, psn0, 5);  // MTU 256
  b.post(1, wqe(rng, kSend, b.sges_in(1, 1000, 3)));      // PSNs psn0 .. +3
  b.post(1, wqe(rng, kWrite, b.sges_in(1, 600, 2)));      // +4 .. +6
  b.post(1, wqe(rng, kSend, b.sges_in(1, 0, 1)));         // +7
  b.post(1, wqe(rng, kWriteImm, b.sges_in(1, 256, 4)));   // +8
  b.ring(1);
  b.wait_idle();
  b.rewind(1, 0, psn0, 2);                 // packets 2, 3 of WQE 0 and the rest: 7
  b.wait_idle();
  b.rewind(1, 1, psn0 + 4, 1);             // packets 1, 2 of WQE 1 and the rest: 4
  b.wait_idle();
  b.retire(1, 4, false);
  b.wait_idle();
  EnvConfig cfg;
  cfg.seed = 31;
  cfg.auto_retire = false;
  const Both r = run_both(b, cfg);
  EXPECT_EQ(r.rtl.error, "") << "RTL";
  EXPECT_EQ(r.mdl.error, "") << "model";
  EXPECT_EQ(r.diff, "");
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    const char* side = e == &r.rtl ? "rtl" : "model";
    ASSERT_EQ(e->out[kHdr].size(), 9u + 7u + 4u) << side;
    EXPECT_EQ(e->out[kTrack].size(), 4u) << side << ": a WQE sent again is not tracked again";
    EXPECT_EQ(check_expect(first_headers(*e, 9), b.qps), "") << side << ": the first transmissions";
    // every packet sent again equals the first one with its PSN, but for
    // AckReq: the first packet of each WQE sent again asks for an ACK (the
    // responder may be past it and answers a duplicate only when asked)
    std::vector<std::pair<spec::RoceTxHdr, std::vector<uint8_t>>> pk;
    size_t pay = 0;
    for (const Txn& t : e->out[kHdr]) {
      const auto h = desc_from_flit<spec::RoceTxHdr>(t.flits[0]);
      std::vector<uint8_t> bytes;
      if (h.pay_len > 0) bytes = beats_to_bytes(e->out[kPay][pay++].flits);
      pk.emplace_back(h, bytes);
    }
    const std::vector<unsigned> again = {2, 3, 4, 5, 6, 7, 8, 5, 6, 7, 8};
    for (size_t i = 0; i < again.size(); ++i) {
      const auto& [h, bytes] = pk[9 + i];
      const auto& [h0, bytes0] = pk[again[i]];
      EXPECT_EQ(h.psn, (psn0 + again[i]) & 0xFFFFFF) << side << " resent packet " << i;
      const bool wqe_start = i == 0 || again[i] < again[i - 1] || h.opcode == spec::kRcSendFirst ||
                             h.opcode == spec::kRcSendOnly || h.opcode == spec::kRcSendOnlyImm ||
                             h.opcode == spec::kRcWriteFirst || h.opcode == spec::kRcWriteOnly ||
                             h.opcode == spec::kRcWriteOnlyImm;
      EXPECT_EQ(h.ack_req, wqe_start ? 1 : h0.ack_req) << side << " resent packet " << i << ": AckReq";
      auto same = h;
      same.ack_req = h0.ack_req;
      EXPECT_TRUE(same == h0) << side << " resent packet " << i << ": header " << h.describe() << " vs "
                              << h0.describe();
      EXPECT_EQ(bytes, bytes0) << side << " resent packet " << i << ": payload";
    }
  }
  report("rewind", r, "");
}

// The request headers of a run, in order.
std::vector<spec::RoceTxHdr> headers(const EnvResult& r) {
  std::vector<spec::RoceTxHdr> v;
  for (const Txn& t : r.out[kHdr]) v.push_back(desc_from_flit<spec::RoceTxHdr>(t.flits[0]));
  return v;
}

// Go-back-N into a READ: the responses before packet k arrived, so the
// request goes again from the first missing byte (IBTA 9.7.4.1.4, as rxe's
// req_retry): PSN first + k, va remote_addr + k * mtu, length - k * mtu;
// from k = 0 the whole request again. The WQEs after it are sent again whole.
// Nothing is tracked again, and a READ reads no payload and asks for no MR.
TEST(RequesterXcheck, RewindIntoTheMiddleOfARead) {
  Builder b(97);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000345ull, 64 * 1024, 12, 0x300000000ull);
  const uint32_t psn0 = 0xFFFFFD;
  b.add_qp(3, 1, 4, psn0, 5);  // MTU 256
  b.post(3, wqe(rng, kSend, b.sges_in(1, 600, 2)));  // WQE 0: PSNs psn0 .. +2
  WqeSpec r1 = read_wqe(rng, 1000);                  // WQE 1: +3 .. +6 (4 responses)
  r1.raddr = 0xFFFFFFFFFFFFFF80ull;                  // the va moves on across 2^64
  b.post(3, r1);
  b.post(3, wqe(rng, kWrite, b.sges_in(1, 300, 1)));  // WQE 2: +7, +8
  b.post(3, read_wqe(rng, 0));                        // WQE 3: +9
  const WqeSpec r4 = read_wqe(rng, 5000);             // WQE 4: +10 .. +29 (20 responses)
  b.post(3, r4);
  b.ring(3);
  b.wait_idle();
  b.rewind(3, 1, psn0 + 3, 2);   // READ 1 from response 2, then WQEs 2..4
  b.wait_idle();
  b.rewind(3, 4, psn0 + 10, 19);  // READ 4 from its last response
  b.wait_idle();
  b.rewind(3, 1, psn0 + 3, 0, 1);  // WQE 0 acknowledged; READ 1 whole, then WQEs 2..4
  b.wait_idle();
  b.retire(3, 4, false);
  b.wait_idle();
  EnvConfig cfg;
  cfg.seed = 97;
  cfg.auto_retire = false;
  const Both r = run_both(b, cfg);
  expect_good("rewind into a READ", b, r);
  const auto m = [](uint32_t x) { return x & 0xFFFFFF; };
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    const char* side = e == &r.rtl ? "rtl" : "model";
    const auto h = headers(*e);
    // first pass 3 + 1 + 2 + 1 + 1, then READ 1 from 2 and 2 + 1 + 1, READ 4 from 19, READ 1 whole and 2 + 1 + 1
    ASSERT_EQ(h.size(), 8u + 5u + 1u + 5u) << side;
    EXPECT_EQ(e->out[kTrack].size(), 5u) << side << ": a WQE sent again is not tracked again";
    uint64_t read_bytes = 0;
    payload_reads(*e, &read_bytes);
    EXPECT_EQ(read_bytes, 600u + 300u + 300u + 300u) << side << ": the SEND's and the WRITE's bytes only";
    const auto is_read = [&](const spec::RoceTxHdr& x, uint32_t psn, uint64_t va, uint32_t len, uint32_t rkey) {
      return x.opcode == spec::kRcReadReq && x.psn == m(psn) && x.reth_va == va && x.reth_len == len &&
             x.reth_rkey == rkey && x.pay_len == 0 && x.ack_req && !x.se && x.imm == 0;
    };
    EXPECT_TRUE(is_read(h[3], psn0 + 3, r1.raddr, 1000, r1.rkey)) << side << ": " << h[3].describe();
    EXPECT_TRUE(is_read(h[7], psn0 + 10, r4.raddr, 5000, r4.rkey)) << side << ": " << h[7].describe();
    EXPECT_TRUE(is_read(h[8], psn0 + 5, r1.raddr + 512, 488, r1.rkey)) << side << ": " << h[8].describe();
    EXPECT_TRUE(is_read(h[13], psn0 + 29, r4.raddr + 19 * 256, 136, r4.rkey)) << side << ": " << h[13].describe();
    EXPECT_TRUE(h[14] == h[3]) << side << ": READ 1 from response 0 is the first request: " << h[14].describe();
    EXPECT_TRUE(h[12] == h[7] && h[18] == h[7]) << side << ": READ 4 whole after the rewinds before it";
    for (size_t i : {9u, 10u, 15u, 16u}) EXPECT_EQ(h[i].psn, m(psn0 + 7 + (i == 10 || i == 16))) << side;
  }
}

// A WQE that reads nothing (a READ, an inline or an empty WQE) after another
// QP's WQE whose later page run failed its translation: that failure is the
// other WQE's, not theirs.
TEST(RequesterXcheck, NothingToReadAfterAFailedPageRunSucceeds) {
  Builder b(71);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
  // MR 3's second page is beyond the MTT: the SGE check passes, the later page run fails
  b.add_mr(3, 5, 0x30000800ull, 6000, 12, 0x400000000ull, true, 4095);
  b.add_qp(36, 1, 4, static_cast<uint32_t>(rng()), 5);
  b.add_qp(37, 2, 4, static_cast<uint32_t>(rng()), 5);
  WqeSpec w = wqe(rng, kWrite, {Sge{0x30000800ull, 6000, (3u << 8) | b.mr(3).ctx.key}});
  w.bad = true;
  b.post(36, w);
  b.ring(36);
  b.wait_idle();
  b.post(37, read_wqe(rng, 3000));
  b.post(37, inline_wqe(rng, kSend, 20));
  b.post(37, wqe(rng, kSend, b.sges_in(1, 0, 1)));
  b.post(37, read_wqe(rng, 0));
  b.ring(37);
  EnvConfig cfg;
  cfg.seed = 71;
  const Both r = run_both(b, cfg);
  expect_good("nothing to read after a failed run", b, r);
}

// READs only: one request each, no payload read, no MR asked, nothing on
// tx_payload, and the window of 16 WQEs holds them as it holds the others.
TEST(RequesterXcheck, ReadsReadNothingAndFillTheWindow) {
  Builder b(83);
  auto& rng = b.rng();
  b.add_qp(33, 5, 6, 0xFFFFFF, 5);
  b.add_qp(34, 2, 6, static_cast<uint32_t>(rng()), 5);
  for (int i = 0; i < 20; ++i) b.post(33, read_wqe(rng, static_cast<uint32_t>(rng() % 100000)));
  for (int i = 0; i < 3; ++i) b.post(34, read_wqe(rng, 1u << 20));
  b.ring(33);
  b.ring(34);
  b.wait_idle();  // QP 33 stops at 16 outstanding (max_rd_atomic 16 too)
  b.retire(33, 3, false, 3);
  b.wait_idle();
  b.retire(33, 16, false, 16);
  b.retire(34, 3, false, 3);
  b.wait_idle();
  const Both r = run_scripted(b, 83, "READs only", {19, 22, 23});
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    EXPECT_EQ(payload_reads(*e), 0u);
    EXPECT_EQ(e->out[kRdReq].size(), 23u) << "the WQE fetches only";
    EXPECT_TRUE(e->out[kMrReq].empty());
    EXPECT_TRUE(e->out[kPay].empty());
    EXPECT_EQ(e->out[kHdr].size(), 23u);
  }
}

// SQD: what started finishes (a rewind into a READ is asked for again), nothing
// new starts until the QP is back in RTS.
TEST(RequesterXcheck, SqdAsksForAReadAgainButStartsNothingNew) {
  Builder b(89);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x300000000ull);
  const uint32_t psn0 = 1000;
  b.add_qp(35, 3, 4, psn0, 5);  // MTU 1024
  const WqeSpec r0 = read_wqe(rng, 3000);  // PSNs psn0 .. +2
  b.post(35, r0);
  b.post(35, wqe(rng, kWrite, b.sges_in(1, 2000, 2)));  // +3, +4
  b.ring(35);
  b.wait_idle();
  b.cfg_action(35, spec::QpAction::kToSqd);
  b.post(35, read_wqe(rng, 10));                     // +5: waits for RTS
  b.post(35, wqe(rng, kSend, b.sges_in(1, 10, 1)));  // +6
  b.ring(35);
  b.wait_idle();
  b.rewind(35, 0, psn0, 1);  // READ 0 from response 1, the WRITE again
  b.wait_idle();
  b.cfg_action(35, spec::QpAction::kAttr);  // SQD -> RTS
  b.wait_idle();
  b.retire(35, 4, false);
  b.wait_idle();
  const Both r = run_scripted(b, 89, "SQD", {2, 2, 2, 4, 4});
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    const auto h = headers(*e);
    ASSERT_EQ(h.size(), 3u + 3u + 2u);
    EXPECT_EQ(h[3].opcode, spec::kRcReadReq);
    EXPECT_EQ(h[3].psn, psn0 + 1);
    EXPECT_EQ(h[3].reth_va, r0.raddr + 1024);
    EXPECT_EQ(h[3].reth_len, 3000u - 1024u);
    EXPECT_EQ(h[6].opcode, spec::kRcReadReq);
    EXPECT_EQ(h[6].psn, psn0 + 5);
    EXPECT_EQ(h[7].psn, psn0 + 6);
  }
}

// max_rd_atomic (as rxe's rd_atomic): a new READ beyond the QP's READs
// outstanding is not started (its WQE was fetched and is fetched again
// later), and the WQEs behind it wait in order; a retire that finishes a
// READ (rd_count) lets the next one go. Resending is never held back.
TEST(RequesterXcheck, MaxRdAtomicHoldsTheNextReadBackUntilOneFinishes) {
  Builder b(97);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x300000000ull);
  const uint32_t psn0 = 0xFFFFFE;
  b.add_qp(36, 3, 5, psn0, 5);  // MTU 1024
  b.qps[36].cfg.max_rd_atomic = 2;
  b.cfg_action(36, spec::QpAction::kAttr);
  for (int i = 0; i < 3; ++i) b.post(36, read_wqe(rng, 100 + 1000 * i));  // PSNs +0, +1..2, +3..5
  b.post(36, wqe(rng, kWrite, b.sges_in(1, 2000, 2)));                     // +6, +7
  b.post(36, read_wqe(rng, 10));                                           // +8
  b.ring(36);
  b.wait_idle();                      // READs 0 and 1 out; READ 2 waits
  b.rewind(36, 0, psn0, 0, 0);        // sending again is not held back
  b.wait_idle();
  b.retire(36, 1, false, 1);          // READ 0 done: READ 2 and the WRITE go; READ 4 waits
  b.wait_idle();
  b.retire(36, 1, false, 1);          // READ 1 done: READ 4 goes
  b.wait_idle();
  b.retire(36, 3, false, 2);
  b.wait_idle();
  const Both r = run_scripted(b, 97, "max_rd_atomic 2", {2, 2, 4, 5, 5});
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    EXPECT_EQ(e->out[kRdReq].size() - payload_reads(*e), 5u + 2u + 2u)
        << "READs 2 and 4 fetched twice, READs 0 and 1 again for the rewind";
    const auto h = headers(*e);
    ASSERT_EQ(h.size(), 2u + 2u + 1u + 2u + 1u);
    EXPECT_EQ(h[2].opcode, spec::kRcReadReq);  // the two sent again
    EXPECT_EQ(h[2].psn, psn0);
    EXPECT_EQ(h[4].opcode, spec::kRcReadReq);  // READ 2
    EXPECT_EQ(h[4].psn, (psn0 + 3) & 0xFFFFFF);
    EXPECT_EQ(h[7].opcode, spec::kRcReadReq);  // READ 4, last
    EXPECT_EQ(h[7].psn, (psn0 + 8) & 0xFFFFFF);
  }
}

// IBV_SEND_FENCE: a new fenced WQE is not started while any READ or atomic
// of its QP is outstanding (so it sees what they read, and they do not see
// it); the WQEs behind it wait in order. Unfenced WQEs after a READ go at once.
TEST(RequesterXcheck, AFencedWqeWaitsForEveryReadAndAtomicToFinish) {
  Builder b(98);
  auto& rng = b.rng();
  b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x300000000ull);
  const uint32_t psn0 = 1000;
  b.add_qp(37, 3, 5, psn0, 5);  // MTU 1024, max_rd_atomic 16
  b.post(37, read_wqe(rng, 3000));                          // PSNs +0..2
  b.post(37, read_wqe(rng, 200));                           // +3 (an atomic counts as a READ: rd_out)
  b.post(37, wqe(rng, kWrite, b.sges_in(1, 500, 1)));       // +4: not fenced, goes
  WqeSpec fenced = wqe(rng, kSend, b.sges_in(1, 700, 2));
  fenced.fence = true;
  b.post(37, fenced);                                       // +5: waits for both READs
  b.post(37, wqe(rng, kWrite, b.sges_in(1, 100, 1)));       // +6: behind it
  b.ring(37);
  b.wait_idle();
  b.retire(37, 1, false, 1);  // the first READ done: the second is still outstanding
  b.wait_idle();
  b.retire(37, 1, false, 1);  // the second done: the SEND and the WRITE behind it go
  b.wait_idle();
  b.retire(37, 3, false, 0);
  b.wait_idle();
  WqeSpec late = wqe(rng, kSend, b.sges_in(1, 50, 1));  // fenced with nothing outstanding: goes at once
  late.fence = true;
  b.post(37, late);
  b.ring(37);
  b.wait_idle();
  const Both r = run_scripted(b, 98, "fence", {3, 3, 5, 5, 6});
  for (const EnvResult* e : {&r.rtl, &r.mdl}) {
    const auto h = headers(*e);
    ASSERT_EQ(h.size(), 1u + 1u + 1u + 1u + 1u + 1u);
    EXPECT_EQ(h[3].opcode, spec::kRcSendOnly) << "the fenced SEND, after both READs retired";
    EXPECT_EQ(h[3].psn, psn0 + 5);
    EXPECT_EQ(h[5].psn, psn0 + 7);
  }
}

// Memory windows (IBTA 10.6.7): BIND_MW and LOCAL_INV are executed in the
// requester -- one MR-table operation each, no packet, no PSN, tracked with
// the answer -- and SEND_WITH_INV is a SEND whose last packet carries the
// rkey (IETH). Binds and invalidations act on the world's MR table, so a
// second bind of a bound type 2 window or a second invalidation fails;
// refusals give MW_BIND_ERR (bind) and LOC_QP_OP_ERR (invalidate), as rxe,
// and flush the rest of their QP. Run once plain and once with rewinds: a
// local operation met again after a rewind is not executed again (a second
// BIND of a type 2 window would fail).
TEST(RequesterXcheck, MemoryWindowsBindInvalidateAndSendWithInvalidate) {
  for (const double rewind_p : {0.0, 0.3}) {
    Builder b(41);
    auto& rng = b.rng();
    constexpr uint8_t kLocalInv = static_cast<uint8_t>(WrOpcode::kLocalInv);
    constexpr uint8_t kBindMw = static_cast<uint8_t>(WrOpcode::kBindMw);
    constexpr uint8_t kSendInv = static_cast<uint8_t>(WrOpcode::kSendWithInv);
    const uint32_t mr = b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
    b.allow_binds(1, 1 | 2 | 4);  // local write, remote write and read: windows may get them
    const uint32_t plain = b.add_mr(2, 5, 0x20000000ull, 8192, 12, 0x300000000ull);  // no MW_BIND
    const auto bind = [&](uint32_t rkey, uint32_t lkey, uint64_t va, uint32_t len, uint32_t acc, bool bad) {
      WqeSpec w = wqe(rng, kBindMw, {});
      w.rkey = rkey;
      w.bind_lkey = lkey;
      w.raddr = va;
      w.len_override = len;
      w.bind_access = acc;
      w.bad = bad;
      return w;
    };
    const auto local_inv = [&](uint32_t rkey, bool bad) {
      WqeSpec w = wqe(rng, kLocalInv, {});
      w.imm = rkey;
      w.bad = bad;
      return w;
    };
    const auto next_key = [](uint32_t k) { return (k & ~0xFFu) | ((k + 1) & 0xFFu); };  // ibv_inc_rkey
    // QP 2: bind, use, invalidate, bind again, send with invalidate; a type 1 window bound twice
    b.add_qp(2, 3, 6, static_cast<uint32_t>(rng()), 5);
    uint32_t w2 = b.add_window(10, 5, true);
    uint32_t w1 = b.add_window(11, 5, false);
    for (int round = 0; round < 3; ++round) {
      w2 = next_key(w2);
      b.post(2, bind(w2, mr, 0x10000100ull + 64 * round, 4096, 2 | 4, false));
      b.post(2, wqe(rng, kWrite, b.sges_in(1, 700, 2)));
      b.post(2, local_inv(w2, false));
      w2 = next_key(w2);
      b.post(2, bind(w2, mr, 0x10002000ull, 100, 2, false));
      b.post(2, wqe(rng, kSendInv, b.sges_in(1, 1500 * round, 3)));  // (0 bytes, 1500: FIRST..LAST_INV, ...)
      b.post(2, local_inv(w2, false));
      w1 = next_key(w1);
      b.post(2, bind(w1, mr, 0x10000000ull, 64 * 1024, 4, false));  // a type 1 window is bound again freely
    }
    b.ring(2);
    // QP 3: a bind onto an MR without MW_BIND fails (MW_BIND_ERR); the rest flushes
    b.add_qp(3, 1, 4, static_cast<uint32_t>(rng()), 5);
    const uint32_t w3 = b.add_window(12, 5, true);
    b.post(3, wqe(rng, kSend, b.sges_in(1, 300, 1)));
    b.post(3, bind(next_key(w3), plain, 0x20000000ull, 64, 2, true));
    b.post(3, wqe(rng, kSend, b.sges_in(1, 300, 1)));
    b.ring(3);
    // QP 4: invalidating a region's key fails (LOC_QP_OP_ERR): user MRs cannot be invalidated
    b.add_qp(4, 2, 4, static_cast<uint32_t>(rng()), 5);
    b.post(4, local_inv(plain, true));
    b.post(4, wqe(rng, kWrite, b.sges_in(1, 10, 1)));
    b.ring(4);
    // QP 6: a window with local write rights is refused at decode (MW_BIND_ERR)
    b.add_qp(6, 2, 4, static_cast<uint32_t>(rng()), 5);
    const uint32_t w6 = b.add_window(13, 5, true);
    b.post(6, bind(next_key(w6), mr, 0x10000000ull, 64, 1 | 2, true));
    b.ring(6);
    EnvConfig cfg;
    cfg.seed = 41;
    cfg.rewind_p = rewind_p;
    // With rewinds, no random stalls: the completer stand-in's retires (and
    // the rewinds they carry) follow the cycles the tracks leave, and under
    // random stalls the model's track after a WQE's payload (held whole to
    // its last beat) can be a cycle or two off the RTL's -- enough to move a
    // rewind across a pick, and the two runs then see different retires.
    if (rewind_p > 0) cfg.in_idle = cfg.out_stall = 0;
    const Both r = run_both(b, cfg);
    expect_good(rewind_p > 0 ? "windows, rewinds" : "windows", b, r);
    // the statuses rxe reports, in RTL and model alike
    std::map<uint8_t, unsigned> st;
    for (const Txn& t : r.rtl.out[kTrack]) ++st[desc_from_flit<spec::SqTrack>(t.flits[0]).status];
    EXPECT_EQ(st[static_cast<uint8_t>(spec::WcStatus::kMwBindErr)], 2u);
    EXPECT_EQ(st[static_cast<uint8_t>(spec::WcStatus::kLocQpOpErr)], 1u);
    unsigned binds = 0, invs = 0;
    for (const Txn& t : r.rtl.out[kMrReq]) {
      const auto q = desc_from_flit<spec::MrReq>(t.flits[0]);
      binds += q.op == static_cast<uint8_t>(spec::MrOp::kBind);
      invs += q.op == static_cast<uint8_t>(spec::MrOp::kInvalidate);
    }
    EXPECT_EQ(binds, 9u + 1u) << "each BIND_MW once (the decode-refused one asks nothing), none again after a rewind";
    EXPECT_EQ(invs, 6u + 1u) << "each LOCAL_INV once";
  }
}

TEST(RequesterXcheck, RandomMix) {
  bool reasked = false;
  for (uint64_t seed : {101u, 102u, 103u}) {
    Builder b(seed);
    auto& rng = b.rng();
    b.add_mr(1, 9, 0x10000011ull, 256 * 1024, 12, 0x200000000ull);
    b.add_mr(2, 9, 0x90000000ull, 256 * 1024, 14, 0x600000000ull);
    for (uint16_t q = 70; q < 86; ++q) b.add_qp(q, 1 + rng() % 5, 5 + rng() % 3, static_cast<uint32_t>(rng()), 9);
    for (int i = 0; i < 300; ++i) {
      const uint16_t q = static_cast<uint16_t>(70 + rng() % 16);
      const uint8_t op = static_cast<uint8_t>(rng() % 5);
      if (op == kRead) {
        // 0 B .. 1 MiB; now and then inline, which a READ cannot be
        const uint32_t len = rng() % 8 == 0 ? static_cast<uint32_t>(rng() % ((1u << 20) + 1))
                                            : static_cast<uint32_t>(rng() % 5000);
        WqeSpec w = read_wqe(rng, len);
        if (rng() % 40 == 0) {
          w = inline_wqe(rng, kRead, static_cast<unsigned>(rng() % 97));
          w.bad = true;
        }
        b.post(q, w);
      } else if (rng() % 5 == 0) {
        b.post(q, inline_wqe(rng, op, static_cast<unsigned>(rng() % 97)));
      } else {
        const uint32_t len = rng() % 8 == 0 ? static_cast<uint32_t>(rng() % 40000) : static_cast<uint32_t>(rng() % 1500);
        WqeSpec w = wqe(rng, op, b.sges_in(1 + rng() % 2, len, 1 + rng() % 6));
        if (rng() % 60 == 0 && w.sges[0].len != 0) {  // an MR index nobody registered: a protection error
          w.sges[0].lkey ^= 0x100;
          w.bad = true;
        }
        b.post(q, w);
      }
      if (rng() % 4 == 0) b.ring(q);
      if (rng() % 50 == 0) b.wait(rng() % 500);
    }
    for (uint16_t q = 70; q < 86; ++q) b.ring(q);
    EnvConfig cfg;
    cfg.seed = seed;
    cfg.in_idle = 0.1 * (seed - 100);
    cfg.out_stall = 0.15 * (seed - 100);
    cfg.rewind_p = 0.2;  // go-back-N among the traffic, also into WQEs still being sent
    const Both r = run_both(b, cfg);
    expect_good(("random " + std::to_string(seed)).c_str(), b, r);
    std::string sum;
    check_expect(r.rtl, b.qps, &sum);
    EXPECT_EQ(sum.find("(+0 sent again)"), std::string::npos) << "the run must send packets again: " << sum;
    reasked |= sum.find("(+0 asked again") == std::string::npos;
  }
  EXPECT_TRUE(reasked) << "the runs must ask for a READ again from a response in its middle";
}

// Figures: a 64 KiB WRITE alone (no stalls) -- payload bytes per cycle from the
// first payload read to the last payload beat, against the DMA model's 52.
TEST(Requester, Streams64KiBWriteNearDmaBandwidth) {
  for (unsigned pmtu : {5u, 3u, 1u}) {
    Builder b(77);
    b.add_mr(1, 5, 0x10000000ull, 64 * 1024, 12, 0x200000000ull);
    b.add_qp(90, pmtu, 4, 1000, 5);
    b.post(90, wqe(b.rng(), kWrite, {Sge{0x10000000ull, 65536, (1u << 8) | b.mr(1).ctx.key}}));
    b.ring(90);
    EnvConfig cfg;
    cfg.seed = 77;
    cfg.in_idle = cfg.out_stall = 0;
    const Both r = run_both(b, cfg);
    expect_good("64 KiB WRITE", b, r);
    double bpc[2] = {0, 0};
    uint64_t span[2] = {0, 0};
    const EnvResult* runs[2] = {&r.rtl, &r.mdl};
    for (int s = 0; s < 2; ++s) {
      uint64_t first = 0;
      for (const auto& t : runs[s]->out[kRdReq])
        if (desc_from_flit<spec::DmaRdReq>(t.flits[0]).tag == spec::kDmaTagPayload) {
          first = t.first_cycle;
          break;
        }
      span[s] = runs[s]->out[kPay].back().last_cycle + 1 - first;
      bpc[s] = 65536.0 / static_cast<double>(span[s]);
    }
    std::printf("64 KiB WRITE, mtu %u: %zu packets; payload %llu cycles RTL (%.1f bytes/cycle), %llu model "
                "(%.1f); DMA model %.1f bytes/cycle\n",
                128u << pmtu, r.rtl.out[kHdr].size(), static_cast<unsigned long long>(span[0]), bpc[0],
                static_cast<unsigned long long>(span[1]), bpc[1], cfg.dma.gbytes_per_s * 1e3 / cfg.dma.clock_mhz);
    EXPECT_GT(bpc[0], 0.85 * 52) << "a multi-packet WRITE streams near the DMA bandwidth";
  }
}

}  // namespace
}  // namespace rocenic
