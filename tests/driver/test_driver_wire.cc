// The wire (sim/wire/wire.h): delivery by MAC, broadcast, jumbo frames,
// back-pressure without loss, the neighbour table, stale members of killed
// processes, and two real processes whose pcaps tshark decodes.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <map>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "wire.h"

namespace rocenic::wire {
namespace {

Mac mac(uint8_t last) { return {0x02, 0x00, 0x00, 0x00, 0x00, last}; }

Addr addr(const char* text) {
  Addr a{};
  EXPECT_TRUE(parse_addr(text, &a)) << text;
  return a;
}

// An Ethernet/IPv4/UDP frame of exactly `len` bytes whose payload counts up from `seed`.
std::vector<uint8_t> frame(const Mac& dst, const Mac& src, size_t len, uint8_t seed) {
  std::vector<uint8_t> f(len, 0);
  std::memcpy(f.data(), dst.data(), 6);
  std::memcpy(f.data() + 6, src.data(), 6);
  f[12] = 0x08;  // IPv4
  const size_t ip_len = len - 14, udp_len = ip_len - 20;
  uint8_t* ip = f.data() + 14;
  ip[0] = 0x45;
  ip[2] = static_cast<uint8_t>(ip_len >> 8);
  ip[3] = static_cast<uint8_t>(ip_len);
  ip[6] = 0x40;  // DF
  ip[8] = 64;
  ip[9] = 17;
  ip[12] = 10, ip[15] = src[5];
  ip[16] = 10, ip[19] = dst[0] & 1 ? 255 : dst[5];
  uint32_t sum = 0;
  for (int i = 0; i < 20; i += 2) sum += uint32_t(ip[i] << 8 | ip[i + 1]);
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  ip[10] = static_cast<uint8_t>(~sum >> 8);
  ip[11] = static_cast<uint8_t>(~sum);
  uint8_t* udp = ip + 20;
  udp[0] = 0x30, udp[1] = 0x39;  // 12345
  udp[2] = 0x30, udp[3] = 0x39;
  udp[4] = static_cast<uint8_t>(udp_len >> 8);
  udp[5] = static_cast<uint8_t>(udp_len);
  for (size_t i = 42; i < len; ++i) f[i] = static_cast<uint8_t>(seed + i);
  return f;
}

std::vector<std::vector<uint8_t>> drain(Wire& w, size_t max = 100000) {
  std::vector<std::vector<uint8_t>> got;
  w.receive([&](const uint8_t* p, size_t n) { got.emplace_back(p, p + n); }, max);
  return got;
}

class WireTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/rocenic-wire-test.XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    base_ = tmpl;
    setenv("ROCENIC_WIRE_DIR", base_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("ROCENIC_WIRE_DIR");
    std::string cmd = "rm -rf '" + base_ + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
  }
  std::unique_ptr<Wire> join(uint8_t last, std::vector<Addr> addrs = {}, const std::string& pcap = "",
                              const std::string& name = "t") {
    Wire::Options o;
    o.name = name;
    o.mac = mac(last);
    o.addrs = std::move(addrs);
    o.pcap = pcap;
    return Wire::join(o);
  }
  std::string base_;
};

TEST_F(WireTest, UnicastReachesOnlyTheMemberWithThatMac) {
  auto a = join(1), b = join(2), c = join(3);
  const auto f = frame(mac(2), mac(1), 100, 7);
  a->send(f.data(), f.size());
  const auto at_b = drain(*b);
  ASSERT_EQ(at_b.size(), 1u);
  EXPECT_EQ(at_b[0], f);
  EXPECT_TRUE(drain(*c).empty());
  EXPECT_TRUE(drain(*a).empty());
  EXPECT_EQ(a->stats().tx_frames, 1u);
  EXPECT_EQ(b->stats().rx_frames, 1u);
}

TEST_F(WireTest, BroadcastAndMulticastReachEveryOtherMember) {
  auto a = join(1), b = join(2), c = join(3);
  const Mac bcast = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, mcast = {0x33, 0x33, 0, 0, 0, 1};
  for (const Mac& dst : {bcast, mcast}) {
    const auto f = frame(dst, mac(1), 64, 1);
    a->send(f.data(), f.size());
    EXPECT_EQ(drain(*b).size(), 1u);
    EXPECT_EQ(drain(*c).size(), 1u);
    EXPECT_TRUE(drain(*a).empty()) << "the sender does not hear its own broadcast";
  }
}

TEST_F(WireTest, JumboFramesUpToTheLimitArriveWhole) {
  auto a = join(1), b = join(2);
  for (size_t len : {size_t{60}, size_t{1514}, size_t{9000}, size_t{9216}, kMaxFrame}) {
    const auto f = frame(mac(2), mac(1), len, static_cast<uint8_t>(len));
    a->send(f.data(), f.size());
    const auto got = drain(*b);
    ASSERT_EQ(got.size(), 1u) << len;
    EXPECT_EQ(got[0], f) << len;
  }
  const auto too_long = frame(mac(2), mac(1), kMaxFrame + 1, 0);
  a->send(too_long.data(), too_long.size());
  EXPECT_TRUE(drain(*b).empty());
  EXPECT_EQ(a->stats().tx_dropped, 1u);
}

TEST_F(WireTest, FramesWaitForASlowPeerAndArriveInOrder) {
  auto a = join(1), b = join(2);
  constexpr int kFrames = 500;  // far beyond a datagram socket's queue (net.unix.max_dgram_qlen)
  for (int i = 0; i < kFrames; ++i) {
    const auto f = frame(mac(2), mac(1), 9000, static_cast<uint8_t>(i));
    a->send(f.data(), f.size());
  }
  EXPECT_TRUE(a->pending());
  std::vector<pollfd> fds;
  a->poll_fds(&fds);
  EXPECT_GE(fds.size(), 2u) << "the full peer is polled for POLLOUT";
  std::vector<std::vector<uint8_t>> got;
  for (int round = 0; round < 10000 && got.size() < kFrames; ++round) {
    for (auto& f : drain(*b)) got.push_back(std::move(f));
    a->flush();
  }
  ASSERT_EQ(got.size(), size_t{kFrames});
  for (int i = 0; i < kFrames; ++i) EXPECT_EQ(got[i], frame(mac(2), mac(1), 9000, static_cast<uint8_t>(i))) << i;
  EXPECT_FALSE(a->pending());
  EXPECT_EQ(a->stats().tx_frames, uint64_t{kFrames});
  EXPECT_GT(a->stats().tx_queued, 0u);
}

TEST_F(WireTest, UnknownDestinationAndOwnMacAreDropped) {
  auto a = join(1);
  const auto f = frame(mac(9), mac(1), 64, 0);
  a->send(f.data(), f.size());
  EXPECT_EQ(a->stats().tx_no_member, 1u);
  const auto self = frame(mac(1), mac(1), 64, 0);
  a->send(self.data(), self.size());
  EXPECT_EQ(a->stats().tx_dropped, 1u);
  EXPECT_TRUE(drain(*a).empty());
}

TEST_F(WireTest, NeighbourTableResolvesLiveMembersOnly) {
  auto a = join(1, {addr("10.0.0.1"), addr("fd00::1")});
  auto b = join(2, {addr("10.0.0.2")});
  Mac m{};
  ASSERT_TRUE(b->resolve(addr("10.0.0.1"), &m));
  EXPECT_EQ(m, mac(1));
  ASSERT_TRUE(b->resolve(addr("fd00::1"), &m));
  EXPECT_EQ(m, mac(1));
  ASSERT_TRUE(a->resolve(addr("10.0.0.2"), &m));
  EXPECT_EQ(m, mac(2));
  ASSERT_TRUE(a->resolve(addr("10.0.0.1"), &m)) << "a member resolves its own address (loopback)";
  EXPECT_FALSE(b->resolve(addr("10.0.0.3"), &m));
  a.reset();
  EXPECT_FALSE(b->resolve(addr("10.0.0.1"), &m)) << "gone with its member";
  EXPECT_EQ(b->members(), std::vector<Mac>{mac(2)});
}


// What Engine::await_waiting_peers looks at before destroying an RC QP.
TEST_F(WireTest, AMemberSeesOnlyOtherLiveMembersWaitOnATimer) {
  auto a = join(1), b = join(2), c = join(3);
  EXPECT_FALSE(a->peers_waiting());
  a->set_waiting(true);
  EXPECT_FALSE(a->peers_waiting()) << "its own timer is not a peer's";
  EXPECT_TRUE(b->peers_waiting());
  EXPECT_TRUE(c->peers_waiting());
  a->set_waiting(false);
  EXPECT_FALSE(b->peers_waiting());
  c->set_waiting(true);
  EXPECT_TRUE(a->peers_waiting());
  c.reset();
  EXPECT_FALSE(a->peers_waiting()) << "a member that left waits on nothing";
}
TEST_F(WireTest, ALiveMacOrAddressIsRefusedWithTheReason) {
  auto a = join(1, {addr("10.0.0.1")});
  try {
    join(1);
    FAIL() << "same MAC joined twice";
  } catch (const WireError& e) {
    EXPECT_EQ(e.errnum, EADDRINUSE);
    EXPECT_NE(std::string(e.what()).find("MAC 02:00:00:00:00:01 is already on wire 't'"), std::string::npos)
        << e.what();
  }
  try {
    join(2, {addr("10.0.0.1")});
    FAIL() << "same address joined twice";
  } catch (const WireError& e) {
    EXPECT_EQ(e.errnum, EADDRINUSE);
    EXPECT_NE(std::string(e.what()).find("address 10.0.0.1 is already on wire"), std::string::npos) << e.what();
  }
  EXPECT_NE(join_conflict("t", mac(1), {}), "");
  EXPECT_EQ(join_conflict("t", mac(2), {addr("10.0.0.2")}), "");
  EXPECT_EQ(join_conflict("other", mac(1), {addr("10.0.0.1")}), "") << "wires are separate";
}

// A process killed with SIGKILL leaves its socket file and neighbour file.
TEST_F(WireTest, StaleMemberOfAKilledProcessIsReplaced) {
  { auto first = join(1); }  // creates the directory
  const std::string dir = wire_dir("t");
  const std::string sock = dir + "/020000000001";
  const int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
  sockaddr_un sa{};
  sa.sun_family = AF_UNIX;
  std::strcpy(sa.sun_path, sock.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa), 0);
  close(fd);  // the file stays, nobody listens: what a killed member leaves
  FILE* f = std::fopen((sock + ".addr").c_str(), "w");
  ASSERT_TRUE(f);
  std::fputs("mac 02:00:00:00:00:01\npid 999999\nip 10.0.0.1\n", f);
  std::fclose(f);

  auto b = join(2);
  Mac m{};
  EXPECT_FALSE(b->resolve(addr("10.0.0.1"), &m)) << "a dead member answers no neighbour query";
  auto a = join(1, {addr("10.0.0.1")});  // takes the stale place
  ASSERT_TRUE(b->resolve(addr("10.0.0.1"), &m));
  const auto fr = frame(mac(1), mac(2), 64, 3);
  b->send(fr.data(), fr.size());
  EXPECT_EQ(drain(*a).size(), 1u);

  remove_if_stale("t", mac(2));  // alive: kept
  EXPECT_EQ(access((dir + "/020000000002").c_str(), F_OK), 0);
}

TEST_F(WireTest, LeavingRemovesItsFiles) {
  const std::string dir = wire_dir("t");
  { auto a = join(1, {addr("10.0.0.1")}); }
  std::string cmd = "ls -A '" + dir + "' | grep -v '^.lock$' | wc -l";
  FILE* p = popen(cmd.c_str(), "r");
  int n = -1;
  ASSERT_EQ(std::fscanf(p, "%d", &n), 1);
  pclose(p);
  EXPECT_EQ(n, 0);
}

TEST_F(WireTest, BadNamesAndMacsAreRefused) {
  EXPECT_THROW(join(1, {}, "", "a/b"), WireError);
  EXPECT_THROW(join(1, {}, "", ""), WireError);
  EXPECT_THROW(join(1, {}, "", std::string(65, 'x')), WireError);
  Wire::Options o;
  o.mac = {0x03, 0, 0, 0, 0, 1};
  EXPECT_THROW(Wire::join(o), WireError);
  EXPECT_THROW(join(1, {}, base_ + "/no/such/dir/x.pcap"), WireError);
}

// Lines of `tshark -r PCAP -T fields -e ...`.
std::vector<std::string> tshark(const std::string& pcap, const std::string& fields) {
  std::string cmd = "tshark -r '" + pcap + "' -T fields " + fields + " 2>/dev/null";
  std::vector<std::string> lines;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return lines;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) {
    std::string l(buf);
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    lines.push_back(l);
  }
  pclose(p);
  return lines;
}

// Two processes: the child echoes every frame back; both capture; tshark reads the captures.
TEST_F(WireTest, TwoProcessesExchangeJumboFramesAndTsharkDecodesThePcaps) {
  const std::vector<size_t> sizes = {60, 1514, 4200, 9000, 9000, 9216};
  const std::string pa = base_ + "/a.pcap", pb = base_ + "/b.pcap";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int rc = 1;
    try {
      auto b = join(2, {addr("10.0.0.2")}, pb);
      char ok = 1;
      if (write(ready[1], &ok, 1) != 1) _exit(1);
      size_t echoed = 0;
      while (echoed < sizes.size()) {
        std::vector<pollfd> fds;
        b->poll_fds(&fds);
        if (poll(fds.data(), fds.size(), 10000) <= 0) break;
        b->flush();
        echoed += b->receive(
            [&](const uint8_t* p, size_t n) {
              std::vector<uint8_t> back(p, p + n);
              std::memcpy(back.data(), p + 6, 6);  // to the sender
              std::memcpy(back.data() + 6, p, 6);  // from us
              b->send(back.data(), back.size());
            },
            100);
      }
      while (b->pending()) {
        std::vector<pollfd> fds;
        b->poll_fds(&fds);
        poll(fds.data(), fds.size(), 100);
        b->flush();
      }
      rc = echoed == sizes.size() ? 0 : 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: %s\n", e.what());
    }
    _exit(rc);
  }
  char ok = 0;
  ASSERT_EQ(read(ready[0], &ok, 1), 1);
  {
    auto a = join(1, {addr("10.0.0.1")}, pa);
    Mac peer{};
    ASSERT_TRUE(a->resolve(addr("10.0.0.2"), &peer));
    EXPECT_EQ(peer, mac(2));
    for (size_t i = 0; i < sizes.size(); ++i) {
      const auto f = frame(peer, mac(1), sizes[i], static_cast<uint8_t>(i));
      a->send(f.data(), f.size());
    }
    std::vector<std::vector<uint8_t>> got;
    for (int round = 0; round < 1000 && got.size() < sizes.size(); ++round) {
      std::vector<pollfd> fds;
      a->poll_fds(&fds);
      poll(fds.data(), fds.size(), 20);
      a->flush();
      for (auto& f : drain(*a)) got.push_back(std::move(f));
    }
    ASSERT_EQ(got.size(), sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      auto expect = frame(mac(1), mac(2), sizes[i], static_cast<uint8_t>(i));
      std::memcpy(expect.data() + 14, got[i].data() + 14, 20);  // IP addresses stay the sender's
      EXPECT_EQ(got[i], expect) << "frame " << i;
    }
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;

  // Each capture holds the frames out and back, decoded as Ethernet/IPv4/UDP.
  for (const std::string& pcap : {pa, pb}) {
    const auto lines = tshark(pcap, "-e frame.len -e eth.src -e eth.dst -e ip.len -e udp.length");
    ASSERT_EQ(lines.size(), 2 * sizes.size()) << pcap;
    size_t jumbo = 0;
    for (const std::string& l : lines) {
      std::istringstream in(l);
      size_t flen = 0, iplen = 0, udplen = 0;
      std::string src, dst;
      ASSERT_TRUE(in >> flen >> src >> dst >> iplen >> udplen) << l;
      EXPECT_EQ(iplen, flen - 14) << l;
      EXPECT_EQ(udplen, flen - 34) << l;
      EXPECT_TRUE((src == "02:00:00:00:00:01" && dst == "02:00:00:00:00:02") ||
                  (src == "02:00:00:00:00:02" && dst == "02:00:00:00:00:01"))
          << l;
      jumbo += flen >= 9000;
    }
    EXPECT_EQ(jumbo, 6u) << pcap;
  }
}

}  // namespace
}  // namespace rocenic::wire

// ---------------------------------------------------------------- a hostile wire

namespace rocenic::wire {
namespace {

// Frames carry their send number at byte 20 (past the Ethernet header).
std::vector<uint8_t> numbered(uint32_t n, size_t len = 80) {
  std::vector<uint8_t> f(len, 0x5A);
  for (int i = 0; i < 6; ++i) f[i] = static_cast<uint8_t>(0x02 + i);
  std::memcpy(f.data() + 20, &n, 4);
  return f;
}
uint32_t number(const std::vector<uint8_t>& f) {
  uint32_t n;
  std::memcpy(&n, f.data() + 20, 4);
  return n;
}

std::vector<std::vector<uint8_t>> run_faults(const FaultConfig& c, uint32_t frames, FaultStats* st,
                                             unsigned burst = 16) {
  FaultInjector inj(c);
  std::vector<std::vector<uint8_t>> out;
  const FaultInjector::Emit emit = [&](const uint8_t* f, size_t n) { out.emplace_back(f, f + n); };
  for (uint32_t i = 0; i < frames; ++i) {
    const auto f = numbered(i);
    inj.pass(f.data(), f.size(), emit);
    if ((i + 1) % burst == 0) inj.release_held(emit);
  }
  inj.release_held(emit);
  *st = inj.stats();
  return out;
}

TEST(FaultInjector, NoFaultsIsAPerfectWire) {
  FaultStats st;
  const auto out = run_faults(FaultConfig{}, 1000, &st);
  ASSERT_EQ(out.size(), 1000u);
  for (uint32_t i = 0; i < out.size(); ++i) EXPECT_EQ(out[i], numbered(i));
}

TEST(FaultInjector, SameSeedSameFaultsOtherSeedOthers) {
  FaultConfig c;
  c.loss = c.dup = c.reorder = c.corrupt = 0.1;
  c.seed = 7;
  FaultStats a, b, d;
  const auto x = run_faults(c, 5000, &a), y = run_faults(c, 5000, &b);
  EXPECT_EQ(x, y);
  c.seed = 8;
  EXPECT_NE(run_faults(c, 5000, &d), x);
}

// Every fault at its rate (binomial bounds, 6 sigma) and as described: a
// lost frame never arrives, a duplicate arrives twice and no more, a
// reordered one arrives at most 3 frames late, nothing comes from nowhere.
TEST(FaultInjector, LossDupReorderAtTheirRatesAndBounded) {
  FaultConfig c;
  c.loss = 0.02;
  c.dup = 0.01;
  c.reorder = 0.01;
  c.seed = 3;
  const uint32_t n = 200000;
  FaultStats st;
  const auto out = run_faults(c, n, &st, 1000);
  auto near = [&](uint64_t got, double p, uint64_t base) {
    const double mean = p * static_cast<double>(base), sd = std::sqrt(mean * (1 - p));
    return std::abs(static_cast<double>(got) - mean) < 6 * sd + 1;
  };
  EXPECT_EQ(st.passed, n);
  EXPECT_TRUE(near(st.dropped, c.loss, n)) << st.dropped;
  EXPECT_TRUE(near(st.duplicated, c.dup, n - st.dropped)) << st.duplicated;
  EXPECT_TRUE(near(st.reordered, c.reorder, n - st.dropped)) << st.reordered;
  EXPECT_EQ(st.corrupted, 0u);
  EXPECT_EQ(out.size(), n - st.dropped + st.duplicated);
  std::map<uint32_t, unsigned> seen;
  uint64_t late = 0;
  for (const auto& f : out) {
    const uint32_t id = number(f);
    ASSERT_LT(id, n);
    ASSERT_EQ(f, numbered(id)) << "frame " << id << " changed";
    const bool first = seen.find(id) == seen.end();
    ASSERT_LE(++seen[id], 2u) << "frame " << id << " arrived three times";
    // at most 3 later frames (lost ones do not count) arrive before it
    unsigned passed_by = 0;
    for (auto it = seen.upper_bound(id); it != seen.end() && passed_by <= 3; ++it) ++passed_by;
    if (first && passed_by > 3) ADD_FAILURE() << "frame " << id << " arrived after more than 3 later frames";
    if (first && passed_by > 0) ++late;
  }
  EXPECT_EQ(seen.size(), n - st.dropped) << "every frame not lost arrives";
  EXPECT_GT(late, 0u) << "reordered frames arrive after later ones";
  std::printf("faults over %u frames: %llu dropped, %llu duplicated, %llu reordered (%llu arrived late)\n", n,
              static_cast<unsigned long long>(st.dropped), static_cast<unsigned long long>(st.duplicated),
              static_cast<unsigned long long>(st.reordered), static_cast<unsigned long long>(late));
}

// A corrupted frame differs from what was sent in exactly one bit, past the
// Ethernet header (it still reaches its port); the others are untouched.
TEST(FaultInjector, CorruptionFlipsOneBitPastTheEthernetHeader) {
  FaultConfig c;
  c.corrupt = 0.3;
  c.seed = 5;
  FaultStats st;
  const auto out = run_faults(c, 20000, &st);
  ASSERT_EQ(out.size(), 20000u);
  uint64_t flipped = 0;
  for (uint32_t i = 0; i < out.size(); ++i) {
    const auto orig = numbered(i);
    unsigned bits = 0;
    for (size_t k = 0; k < orig.size(); ++k) {
      bits += static_cast<unsigned>(__builtin_popcount(out[i][k] ^ orig[k]));
      if (k < 14) {
        ASSERT_EQ(out[i][k], orig[k]) << "a bit flipped in the Ethernet header of frame " << i;
      }
    }
    ASSERT_LE(bits, 1u);
    flipped += bits;
  }
  EXPECT_EQ(flipped, st.corrupted);
  EXPECT_GT(st.corrupted, 5000u);
}

}  // namespace
}  // namespace rocenic::wire

namespace rocenic::wire {
namespace {

// Through two members: the faulty member's frames arrive as its injector
// says; flush() releases what it holds; the other direction stays perfect.
TEST_F(WireTest, FaultsOnOneMembersFramesArriveAsCounted) {
  Wire::Options o;
  o.name = "t";
  o.mac = mac(1);
  o.faults.loss = 0.1;
  o.faults.dup = 0.1;
  o.faults.reorder = 0.2;
  o.faults.seed = 11;
  auto a = Wire::join(o);
  auto b = join(2);
  std::vector<uint8_t> f(100, 0);
  const Mac to = mac(2);
  std::memcpy(f.data(), to.data(), 6);
  std::memcpy(f.data() + 6, mac(1).data(), 6);
  size_t got = 0;
  for (int i = 0; i < 400; ++i) {
    f[30] = static_cast<uint8_t>(i);
    a->send(f.data(), f.size());
    if (i % 10 == 9) {
      a->flush();
      got += drain(*b).size();
    }
  }
  while (a->pending()) {
    a->flush();
    got += drain(*b).size();
  }
  got += drain(*b).size();
  const WireStats s = a->stats();
  EXPECT_EQ(s.faults.passed, 400u);
  EXPECT_GT(s.faults.dropped, 0u);
  EXPECT_GT(s.faults.duplicated, 0u);
  EXPECT_GT(s.faults.reordered, 0u);
  EXPECT_EQ(got, 400 - s.faults.dropped + s.faults.duplicated);
  // the way back has no faults
  std::vector<uint8_t> r(f);
  std::memcpy(r.data(), mac(1).data(), 6);
  std::memcpy(r.data() + 6, to.data(), 6);
  size_t back = 0;
  for (int i = 0; i < 50; ++i) {
    b->send(r.data(), r.size());
    back += drain(*a).size();
  }
  while (b->pending()) {
    b->flush();
    back += drain(*a).size();
  }
  back += drain(*a).size();
  EXPECT_EQ(back, 50u);
}

}  // namespace
}  // namespace rocenic::wire
