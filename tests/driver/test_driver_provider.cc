// The provider's internals, linked directly: the engine it programs (read
// back over csr_read on every backend) and the ops table. The verbs
// themselves are checked on a fake engine (test_driver_verbs) and through
// libibverbs on the real backends (verbs_errno, test_launcher.py).
#include <gtest/gtest.h>

#include <cstdio>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "addresses.h"
#include "gen/roce_spec.h"
#include "provider.h"

namespace rocenic::driver {
namespace {

Config test_config() {
  Config c;
  EXPECT_TRUE(parse_mac("02:12:34:56:78:9a", &c.mac));
  c.mtu = 2048;
  c.node_guid = node_guid_of(c.mac);
  IpAddr v4, v6;
  std::string err;
  EXPECT_TRUE(parse_ip("10.1.2.3", &v4, &err));
  EXPECT_TRUE(parse_ip("2001:db8::7", &v6, &err));
  c.gids = gid_table(c.mac, {v4, v6});
  return c;
}

// The engines these tests open join a wire: a private directory, not the user's.
class WireDir : public ::testing::Environment {
 public:
  void SetUp() override {
    char tmpl[] = "/tmp/rocenic-provider-test.XXXXXX";
    ASSERT_TRUE(mkdtemp(tmpl));
    dir_ = tmpl;
    setenv("ROCENIC_WIRE_DIR", dir_.c_str(), 1);
  }
  void TearDown() override { EXPECT_EQ(std::system(("rm -rf '" + dir_ + "'").c_str()), 0); }

 private:
  std::string dir_;
};
const auto* const g_wire_dir = ::testing::AddGlobalTestEnvironment(new WireDir);

class EngineOnBackend : public ::testing::TestWithParam<const char*> {};

// What the engine holds after programming, read back over CSR, is exactly the
// configuration: every used entry with its type, every other entry unused.
TEST_P(EngineOnBackend, ProgramsMacMtuLinkAndTheWholeGidTable) {
  Config cfg = test_config();
  cfg.gids.back().vlan = 7;  // an address on VLAN 7: GID word 5
  std::string err;
  int errnum = -1;
  std::unique_ptr<Engine> eng = Engine::open(GetParam(), cfg, &err, &errnum);
  ASSERT_TRUE(eng) << err;
  EXPECT_EQ(errnum, 0);
  Caps caps;
  ASSERT_TRUE(eng->read_caps(&caps));
  std::string expect;
  for (unsigned i = 0; i < caps.gid_tbl_len; ++i) {
    unsigned type = 0, vlan = 0;
    Gid gid{};
    for (const GidEntry& g : cfg.gids)
      if (g.index == i) type = static_cast<unsigned>(g.type), gid = g.gid, vlan = gid_vlan_word(g.vlan);
    char v[16];
    std::snprintf(v, sizeof v, "0x%x", vlan);
    expect += "rocenic: engine GID[" + std::to_string(i) + "] type " + std::to_string(type) + " " + format_gid(gid) +
              " vlan " + v + "\n";
  }
  EXPECT_EQ(eng->dump_gid_table(), expect);

  PortStatus port;
  ASSERT_TRUE(eng->read_port(&port));
  EXPECT_EQ(port.state, static_cast<uint32_t>(IBV_PORT_ACTIVE));
  EXPECT_EQ(port.mtu, static_cast<uint32_t>(IBV_MTU_2048));

  // The capabilities equal what an independent engine of the same backend reports.
  std::unique_ptr<Device> dev = make_device(GetParam());
  uint32_t v = 0;
  ASSERT_TRUE(dev->csr_read(spec::kCsrCapMaxQp, &v));
  EXPECT_EQ(caps.max_qp, v);
  ASSERT_TRUE(dev->csr_read(spec::kCsrCapMaxPd, &v));
  EXPECT_EQ(caps.max_pd, v);
  ASSERT_TRUE(dev->csr_read(spec::kCsrCapGidTbl, &v));
  EXPECT_EQ(caps.gid_tbl_len, v);
  ASSERT_TRUE(dev->csr_read(spec::kCsrVersion, &v));
  EXPECT_EQ(caps.version, v);
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineOnBackend, ::testing::Values("model", "rtl", "cosim"));

TEST(Engine, BadBackendIsEinvalWithTheBackendNamesInTheMessage) {
  std::string err;
  int errnum = 0;
  EXPECT_FALSE(Engine::open("fpga", test_config(), &err, &errnum));
  EXPECT_EQ(errnum, EINVAL);
  EXPECT_NE(err.find("model"), std::string::npos) << err;
}

TEST(Engine, GidIndexBeyondTheEngineTableIsEinval) {
  Config c = test_config();
  c.gids.push_back({1000, GidType::kRoceV2, {}});
  std::string err;
  int errnum = 0;
  EXPECT_FALSE(Engine::open("model", c, &err, &errnum));
  EXPECT_EQ(errnum, EINVAL);
  EXPECT_NE(err.find("GID index 1000"), std::string::npos) << err;
}

TEST(OpsTable, EveryOneOfThe76EntriesIsSet) {
  const verbs_context_ops& ops = context_ops();
  void* slots[76];
  static_assert(sizeof slots == sizeof ops);
  std::memcpy(slots, &ops, sizeof slots);
  for (unsigned i = 0; i < 76; ++i) EXPECT_NE(slots[i], nullptr) << "entry " << i;
  EXPECT_EQ(ops.alloc_pd, &alloc_pd);
  EXPECT_EQ(ops.dealloc_pd, &dealloc_pd);
  EXPECT_EQ(ops.reg_mr, &reg_mr);
  EXPECT_EQ(ops.dereg_mr, &dereg_mr);
  EXPECT_EQ(ops.alloc_mw, &alloc_mw);
  EXPECT_EQ(ops.bind_mw, &bind_mw);
  EXPECT_EQ(ops.dealloc_mw, &dealloc_mw);
  EXPECT_EQ(ops.create_cq, &create_cq);
  EXPECT_EQ(ops.destroy_cq, &destroy_cq);
  EXPECT_EQ(ops.poll_cq, &poll_cq);
  EXPECT_EQ(ops.req_notify_cq, &req_notify_cq);
  EXPECT_EQ(ops.create_qp, &create_qp);
  EXPECT_EQ(ops.create_qp_ex, &create_qp_ex);
  EXPECT_EQ(ops.destroy_qp, &destroy_qp);
  EXPECT_EQ(ops.modify_qp, &modify_qp);
  EXPECT_EQ(ops.query_qp, &query_qp);
  EXPECT_EQ(ops.post_send, &post_send);
  EXPECT_EQ(ops.post_recv, &post_recv);
  EXPECT_EQ(ops.query_port, &query_port);
  EXPECT_EQ(ops.query_device_ex, &query_device_ex);
  EXPECT_EQ(ops.free_context, &free_context);
}

// Not-yet-supported verbs answer EOPNOTSUPP in each verb's own convention.
TEST(OpsTable, UnsupportedVerbsSayEopnotsupp) {
  const verbs_context_ops& ops = context_ops();
  errno = 0;
  EXPECT_EQ(ops.create_srq(nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  errno = 0;
  EXPECT_EQ(ops.create_wq(nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  errno = 0;
  EXPECT_EQ(ops.create_cq_ex(nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  errno = 0;
  EXPECT_EQ(ops.alloc_td(nullptr, nullptr), nullptr);
  EXPECT_EQ(errno, EOPNOTSUPP);
  EXPECT_EQ(ops.resize_cq(nullptr, 4), EOPNOTSUPP);
  EXPECT_EQ(ops.modify_srq(nullptr, nullptr, 0), EOPNOTSUPP);
  ibv_recv_wr rwr{};
  ibv_recv_wr* rbad = nullptr;
  EXPECT_EQ(ops.post_srq_recv(nullptr, &rwr, &rbad), EOPNOTSUPP);
  EXPECT_EQ(rbad, &rwr);
  EXPECT_EQ(ops.query_qp_data_in_order(nullptr, IBV_WR_SEND, 0), 0);
  errno = 0;
  EXPECT_EQ(ops.rereg_mr(nullptr, 0, nullptr, nullptr, 0, 0), IBV_REREG_MR_ERR_INPUT);
  EXPECT_EQ(errno, EOPNOTSUPP);
}

}  // namespace
}  // namespace rocenic::driver
