// The launcher's pieces: option validation, address derivation, GID table
// layout, the configuration format and the sysfs tree it writes.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "addresses.h"
#include "config.h"
#include "knobs.h"
#include "options.h"
#include "sysfs_tree.h"

namespace rocenic::driver {
namespace {

ParseResult parse(std::vector<std::string> args, Options* o, std::string* err) { return parse_options(args, o, err); }

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(LauncherOptions, AcceptsEveryOptionInBothForms) {
  Options o;
  std::string err;
  ASSERT_EQ(parse({"--backend", "rtl", "--wire=w1", "--ip", "10.0.0.1", "--ip=fd00::2", "--mac", "02:aa:bb:cc:dd:ee",
                   "--mtu=4096", "--pcap", "/tmp/x.pcap", "--loss", "0.02", "--dup=0.01", "--reorder", "1",
                   "--corrupt", "5e-3", "--fault-seed", "42", "--", "prog", "-a", "--b"},
                  &o, &err),
            ParseResult::kRun)
      << err;
  EXPECT_EQ(o.backend, "rtl");
  EXPECT_EQ(o.wire, "w1");
  ASSERT_EQ(o.ips.size(), 2u);
  EXPECT_FALSE(o.ips[0].v6);
  EXPECT_TRUE(o.ips[1].v6);
  ASSERT_TRUE(o.mac.has_value());
  EXPECT_EQ(format_mac(*o.mac), "02:aa:bb:cc:dd:ee");
  EXPECT_EQ(o.mtu, 4096u);
  EXPECT_EQ(o.pcap, "/tmp/x.pcap");
  EXPECT_DOUBLE_EQ(o.faults.loss, 0.02);
  EXPECT_DOUBLE_EQ(o.faults.dup, 0.01);
  EXPECT_DOUBLE_EQ(o.faults.reorder, 1.0);
  EXPECT_DOUBLE_EQ(o.faults.corrupt, 0.005);
  EXPECT_EQ(o.faults.seed, 42u);
  EXPECT_EQ(o.command, (std::vector<std::string>{"prog", "-a", "--b"}));
}

TEST(LauncherOptions, DefaultsAreModelWireDefaultMtu1024) {
  Options o;
  std::string err;
  ASSERT_EQ(parse({"--", "ibv_devices"}, &o, &err), ParseResult::kRun);
  EXPECT_EQ(o.backend, "model");
  EXPECT_EQ(o.wire, "default");
  EXPECT_EQ(o.mtu, 1024u);
  EXPECT_FALSE(o.mac.has_value());
  EXPECT_TRUE(o.ips.empty());
}

// Every bad command line is refused with a message naming what is wrong.
TEST(LauncherOptions, RefusesBadValuesNamingTheProblem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--ip", "10.0.0.256", "--", "p"}, "--ip '10.0.0.256' is not an IPv4 or IPv6 address"},
      {{"--ip", "0.0.0.0", "--", "p"}, "unspecified"},
      {{"--ip", "::", "--", "p"}, "unspecified"},
      {{"--ip", "224.0.0.1", "--", "p"}, "multicast"},
      {{"--ip", "ff02::1", "--", "p"}, "multicast"},
      {{"--ip", "10.0.0.1", "--ip", "10.0.0.1", "--", "p"}, "given twice"},
      {{"--mac", "02:00:00:00:00", "--", "p"}, "is not a MAC address"},
      {{"--mac", "02:00:00:00:00:zz", "--", "p"}, "is not a MAC address"},
      {{"--mac", "01:00:5e:00:00:01", "--", "p"}, "multicast MAC"},
      {{"--mac", "00:00:00:00:00:00", "--", "p"}, "all-zero"},
      {{"--mtu", "1500", "--", "p"}, "--mtu '1500': must be 256, 512, 1024, 2048 or 4096"},
      {{"--mtu", " 1024", "--", "p"}, "--mtu"},
      {{"--backend", "fpga", "--", "p"}, "--backend 'fpga': must be model, rtl or cosim"},
      {{"--wire", "a/b", "--", "p"}, "--wire 'a/b'"},
      {{"--pcap", "/nonexistent-dir/x.pcap", "--", "p"}, "does not exist"},
      {{"--loss", "1.5", "--", "p"}, "--loss '1.5': a probability between 0 and 1"},
      {{"--loss", "-0.1", "--", "p"}, "--loss '-0.1': a probability between 0 and 1"},
      {{"--dup", "abc", "--", "p"}, "--dup 'abc': a probability"},
      {{"--reorder", "nan", "--", "p"}, "--reorder 'nan'"},
      {{"--corrupt", "", "--", "p"}, "--corrupt ''"},
      {{"--corrupt", "0.1", "--corrupt", "0.2", "--", "p"}, "given twice"},
      {{"--fault-seed", "-1", "--", "p"}, "--fault-seed '-1': an unsigned decimal number"},
      {{"--fault-seed", "99999999999999999999999", "--", "p"}, "--fault-seed"},
      {{"--frob", "--", "p"}, "unknown option '--frob'"},
      {{"--mtu", "--", "p"}, "option --mtu needs a value"},
      {{"--mtu", "512", "--mtu", "512", "--", "p"}, "given twice"},
      {{"ibv_devinfo"}, "put the program after '--'"},
      {{"--mtu", "512"}, "missing '--'"},
      {{"--mtu", "512", "--"}, "no program after '--'"},
  };
  for (const auto& [args, expect] : cases) {
    Options o;
    std::string err;
    EXPECT_EQ(parse(args, &o, &err), ParseResult::kError) << args[0];
    EXPECT_NE(err.find(expect), std::string::npos) << "message: " << err << "\nexpected: " << expect;
  }
}

TEST(LauncherAddresses, DefaultMacIsLocallyAdministeredAndDeterministic) {
  IpAddr a, b;
  std::string err;
  ASSERT_TRUE(parse_ip("10.0.0.1", &a, &err));
  ASSERT_TRUE(parse_ip("10.0.0.2", &b, &err));
  const Mac m1 = default_mac("w", {a});
  EXPECT_EQ(m1, default_mac("w", {a}));
  EXPECT_EQ(m1[0], 0x02);  // locally administered, unicast
  EXPECT_NE(m1, default_mac("w", {b}));
  EXPECT_NE(m1, default_mac("x", {a}));
}

TEST(LauncherAddresses, NodeGuidIsTheModifiedEui64OfTheMac) {
  Mac m;
  ASSERT_TRUE(parse_mac("00:11:22:33:44:55", &m));
  EXPECT_EQ(format_guid(node_guid_of(m)), "0211:22ff:fe33:4455");
  ASSERT_TRUE(parse_mac("02:aa:bb:cc:dd:ee", &m));
  EXPECT_EQ(format_guid(node_guid_of(m)), "00aa:bbff:fecc:ddee");
}

TEST(LauncherAddresses, GidTableIsLinkLocalThenTwoEntriesPerAddress) {
  Mac m;
  ASSERT_TRUE(parse_mac("02:aa:bb:cc:dd:ee", &m));
  IpAddr v4, v6;
  std::string err;
  ASSERT_TRUE(parse_ip("192.168.7.9", &v4, &err));
  ASSERT_TRUE(parse_ip("fd00::1:2", &v6, &err));
  const std::vector<GidEntry> t = gid_table(m, {v4, v6});
  ASSERT_EQ(t.size(), 6u);
  const char* expect[] = {"fe80:0000:0000:0000:00aa:bbff:fecc:ddee", "fe80:0000:0000:0000:00aa:bbff:fecc:ddee",
                          "0000:0000:0000:0000:0000:ffff:c0a8:0709", "0000:0000:0000:0000:0000:ffff:c0a8:0709",
                          "fd00:0000:0000:0000:0000:0000:0001:0002", "fd00:0000:0000:0000:0000:0000:0001:0002"};
  for (unsigned i = 0; i < 6; ++i) {
    EXPECT_EQ(t[i].index, i);
    EXPECT_EQ(t[i].type, i % 2 ? GidType::kRoceV2 : GidType::kRoceV1);
    EXPECT_EQ(format_gid(t[i].gid), expect[i]);
  }
}

TEST(DriverConfig, RoundTripsAndRefusesBadLines) {
  Config c;
  ASSERT_TRUE(parse_mac("02:01:02:03:04:05", &c.mac));
  c.mtu = 2048;
  c.node_guid = 0x0001'02ff'fe03'0405ull;
  c.wire = "lab";
  c.pcap = "/tmp/p.pcap";
  c.faults.loss = 0.02;
  c.faults.corrupt = 1e-5;
  c.faults.seed = 0xFFFFFFFFFFFFFFFFull;
  c.gids = gid_table(c.mac, {});
  Config back;
  std::string err;
  ASSERT_TRUE(parse_config(format_config(c), &back, &err)) << err;
  EXPECT_EQ(back.mac, c.mac);
  EXPECT_EQ(back.mtu, 2048u);
  EXPECT_EQ(back.node_guid, c.node_guid);
  EXPECT_EQ(back.wire, "lab");
  EXPECT_EQ(back.pcap, "/tmp/p.pcap");
  EXPECT_EQ(back.faults.loss, 0.02);
  EXPECT_EQ(back.faults.corrupt, 1e-5);
  EXPECT_EQ(back.faults.dup, 0.0);
  EXPECT_EQ(back.faults.seed, 0xFFFFFFFFFFFFFFFFull);
  ASSERT_EQ(back.gids.size(), 2u);
  EXPECT_EQ(back.gids[1].gid, c.gids[1].gid);
  EXPECT_EQ(back.gids[1].type, GidType::kRoceV2);

  const std::string base = "mac 02:00:00:00:00:01\nmtu 1024\nnode_guid 0000:00ff:fe00:0001\n";
  EXPECT_FALSE(parse_config(base + "colour blue\n", &back, &err));
  EXPECT_NE(err.find("line 4: unknown item 'colour'"), std::string::npos) << err;
  EXPECT_FALSE(parse_config(base + "gid 0 v3 fe80:0000:0000:0000:0000:0000:0000:0001\n", &back, &err));
  EXPECT_FALSE(parse_config(base + "gid 0 v1 fe80::1\n", &back, &err));
  EXPECT_FALSE(parse_config(base + "gid 0 v1 fe80:0000:0000:0000:0000:0000:0000:0001\n"
                                   "gid 0 v2 fe80:0000:0000:0000:0000:0000:0000:0001\n",
                            &back, &err));
  EXPECT_FALSE(parse_config("mtu 1024\nnode_guid 0000:00ff:fe00:0001\n", &back, &err));
  EXPECT_NE(err.find("'mac' is missing"), std::string::npos) << err;
  EXPECT_FALSE(parse_config(base + "mtu 1024\n", &back, &err));
}

TEST(SysfsTree, HasWhatLibibverbsReadsForEveryGidIndex) {
  char tmpl[] = "/tmp/rocenic-test-sysfs.XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string root = tmpl;
  Config c;
  ASSERT_TRUE(parse_mac("02:aa:bb:cc:dd:ee", &c.mac));
  c.node_guid = node_guid_of(c.mac);
  IpAddr v4;
  std::string err;
  ASSERT_TRUE(parse_ip("10.9.8.7", &v4, &err));
  c.gids = gid_table(c.mac, {v4});
  ASSERT_TRUE(write_sysfs_tree(root, c, 8, &err)) << err;

  const std::string uv = root + "/class/infiniband_verbs/uverbs0/";
  const std::string ib = root + "/class/infiniband/rocenic0/";
  EXPECT_EQ(read_file(root + "/class/infiniband_verbs/abi_version"), "6\n");
  EXPECT_EQ(read_file(uv + "ibdev"), "rocenic0\n");
  EXPECT_EQ(read_file(uv + "dev"), "0:0\n");
  EXPECT_EQ(read_file(uv + "abi_version"), "1\n");
  EXPECT_EQ(read_file(ib + "node_type"), "1: CA\n");
  EXPECT_EQ(read_file(ib + "node_guid"), "00aa:bbff:fecc:ddee\n");
  EXPECT_EQ(read_file(ib + "ports/1/pkeys/0"), "0xffff\n");
  EXPECT_EQ(read_file(ib + "ports/1/gids/2"), "0000:0000:0000:0000:0000:ffff:0a09:0807\n");
  EXPECT_EQ(read_file(ib + "ports/1/gid_attrs/types/3"), "RoCE v2\n");
  EXPECT_EQ(read_file(ib + "ports/1/gid_attrs/ndevs/3"), "rocenet0\n");
  // the knobs in their read form, the counters, what ibstat reads
  EXPECT_EQ(read_file(ib + "tc/1/traffic_class"), "Global tclass=-1\n");
  EXPECT_EQ(read_file(ib + "tc/1/ttl"), "0\n");
  EXPECT_EQ(read_file(ib + "device/roce_enable"), "1\n");
  EXPECT_EQ(read_file(root + "/kernel/config/rdma_cm/rocenic0/ports/1/default_roce_mode"), "RoCE v2\n");
  EXPECT_EQ(read_file(root + "/kernel/config/rdma_cm/rocenic0/ports/1/default_roce_tos"), "0\n");
  EXPECT_EQ(read_file(ib + "ports/1/counters/port_xmit_data"), "0\n");
  EXPECT_EQ(read_file(ib + "ports/1/state"), "4: ACTIVE\n");
  EXPECT_EQ(read_file(ib + "ports/1/phys_state"), "5: LinkUp\n");
  EXPECT_EQ(read_file(ib + "ports/1/rate"), "100 Gb/sec (4X EDR)\n");
  for (unsigned i = 4; i < 8; ++i) {  // unused: zero GID, a type, no netdev
    const std::string n = std::to_string(i);
    EXPECT_EQ(read_file(ib + "ports/1/gids/" + n), "0000:0000:0000:0000:0000:0000:0000:0000\n");
    EXPECT_EQ(read_file(ib + "ports/1/gid_attrs/types/" + n), "IB/RoCE v1\n");
    struct stat st;
    EXPECT_NE(stat((ib + "ports/1/gid_attrs/ndevs/" + n).c_str(), &st), 0);
  }
  struct stat st;
  ASSERT_EQ(stat((ib + "ports/1/gids/7").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
  ASSERT_EQ(stat((ib + "ports/1/gids").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
  EXPECT_NE(stat((ib + "ports/1/gids/8").c_str(), &st), 0);  // nothing past gid_tbl_len

  // roce_enable 0 empties the table (no netdev files), 1 restores it
  ASSERT_TRUE(write_gid_files(root, c, 8, false, &err)) << err;
  EXPECT_EQ(read_file(ib + "ports/1/gids/2"), "0000:0000:0000:0000:0000:0000:0000:0000\n");
  EXPECT_NE(stat((ib + "ports/1/gid_attrs/ndevs/2").c_str(), &st), 0);
  ASSERT_TRUE(write_gid_files(root, c, 8, true, &err)) << err;
  EXPECT_EQ(read_file(ib + "ports/1/gids/2"), "0000:0000:0000:0000:0000:ffff:0a09:0807\n");
  ASSERT_EQ(stat((ib + "ports/1/gids/2").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);

  // A configured index past the table is refused.
  c.gids.push_back({9, GidType::kRoceV1, {}});
  EXPECT_FALSE(write_sysfs_tree(root, c, 8, &err));
  remove_tree(root);
  EXPECT_NE(stat(root.c_str(), &st), 0);
}

TEST(LauncherAddresses, VlanTagsTheAddressesAfterIt) {
  std::vector<std::string> args = {"--ip", "10.0.0.1", "--vlan", "100", "--ip", "10.1.0.1", "--ip", "fd00::1",
                                   "--vlan", "none", "--ip", "10.2.0.1", "--", "true"};
  Options o;
  std::string err;
  ASSERT_EQ(parse_options(args, &o, &err), ParseResult::kRun) << err;
  ASSERT_EQ(o.ips.size(), 4u);
  EXPECT_EQ(o.ips[0].vlan, 0u);
  EXPECT_EQ(o.ips[1].vlan, 100u);
  EXPECT_EQ(o.ips[2].vlan, 100u);
  EXPECT_EQ(o.ips[3].vlan, 0u);
  Mac m;
  ASSERT_TRUE(parse_mac("02:aa:bb:cc:dd:ee", &m));
  const std::vector<GidEntry> t = gid_table(m, o.ips);
  ASSERT_EQ(t.size(), 10u);
  for (unsigned i = 0; i < 10; ++i) EXPECT_EQ(t[i].vlan, (i >= 4 && i <= 7) ? 100u : 0u) << i;
  EXPECT_EQ(netdev_name(0), "rocenet0");
  EXPECT_EQ(netdev_name(100), "rocenet0.100");
  EXPECT_EQ(gid_vlan_word(100), 0x1064u);
  EXPECT_EQ(gid_vlan_word(0), 0u);
  // the config file carries the VLAN
  Config c;
  c.mac = m;
  c.node_guid = node_guid_of(m);
  c.gids = t;
  Config back;
  ASSERT_TRUE(parse_config(format_config(c), &back, &err)) << err;
  ASSERT_EQ(back.gids.size(), 10u);
  EXPECT_EQ(back.gids[5].vlan, 100u);
  EXPECT_EQ(back.gids[8].vlan, 0u);
  for (const char* bad : {"0", "4095", "x", "-3"}) {
    std::vector<std::string> a = {"--vlan", bad, "--ip", "10.0.0.1", "--", "true"};
    EXPECT_EQ(parse_options(a, &o, &err), ParseResult::kError) << bad;
    EXPECT_NE(err.find("--vlan"), std::string::npos) << err;
  }
}

TEST(Knobs, TrafficClassGlobalWinsThenTheFirstMatchingRule) {
  Knobs k;
  std::string err;
  Gid a{}, b{}, v6{};
  a[10] = a[11] = 0xff;
  a[12] = 10;
  a[15] = 2;  // ::ffff:10.0.0.2
  b = a;
  b[12] = 11;  // ::ffff:11.0.0.2
  v6[0] = 0xfd;
  v6[15] = 1;  // fd00::1
  EXPECT_EQ(rule_tclass(k, a, b), -1) << "nothing set: the QP's own";
  ASSERT_TRUE(write_traffic_class("src_ip=10.0.0.0/8,dst_ip=11.0.0.2,tclass=96", &k, &err)) << err;
  ASSERT_TRUE(write_traffic_class("dst_ip=11.0.0.0/16,tclass=40", &k, &err)) << err;
  ASSERT_TRUE(write_traffic_class("src_ip6=fd00::/16,tclass=8", &k, &err)) << err;
  EXPECT_EQ(rule_tclass(k, a, b), 96);
  EXPECT_EQ(rule_tclass(k, b, b), 40) << "the second rule: the first's source does not match";
  EXPECT_EQ(rule_tclass(k, v6, v6), 8);
  EXPECT_EQ(rule_tclass(k, a, a), -1) << "no rule matches";
  EXPECT_EQ(format_traffic_class(k),
            "Global tclass=-1\nsrc_ip=10.0.0.0/8,dst_ip=11.0.0.2,tclass=96\n"
            "dst_ip=11.0.0.0/16,tclass=40\nsrc_ip6=fd00::/16,tclass=8");
  ASSERT_TRUE(write_traffic_class("106", &k, &err));
  EXPECT_EQ(k.global_tclass, 106);
  EXPECT_EQ(rule_tclass(k, a, b), 96) << "the global value is the engine's (TX_TCLASS), not a QP's";
  ASSERT_TRUE(write_traffic_class("tclass=-1", &k, &err));
  EXPECT_EQ(rule_tclass(k, a, b), 96);
  // a rule given again replaces its tclass; -1 removes it
  ASSERT_TRUE(write_traffic_class("src_ip=10.0.0.0/8,dst_ip=11.0.0.2,tclass=100", &k, &err));
  EXPECT_EQ(rule_tclass(k, a, b), 100);
  ASSERT_TRUE(write_traffic_class("src_ip=10.0.0.0/8,dst_ip=11.0.0.2,tclass=-1", &k, &err));
  EXPECT_EQ(rule_tclass(k, a, b), 40);
  // an IPv6 rule never matches an IPv4 address (IPv4-mapped GID), and back
  Knobs k6;
  ASSERT_TRUE(write_traffic_class("src_ip6=::/0,tclass=9", &k6, &err));
  EXPECT_EQ(rule_tclass(k6, a, a), -1);
  EXPECT_EQ(rule_tclass(k6, v6, v6), 9);
  // host bits are cleared: 10.0.0.5/8 is the rule 10.0.0.0/8
  ASSERT_TRUE(write_traffic_class("src_ip=10.0.0.5/8,tclass=1", &k6, &err));
  EXPECT_NE(format_traffic_class(k6).find("src_ip=10.0.0.0/8,tclass=1"), std::string::npos);
  ASSERT_TRUE(write_traffic_class("src_ip=10.0.0.0/8,tclass=-1", &k6, &err)) << err;
  EXPECT_EQ(format_traffic_class(k6), "Global tclass=-1\nsrc_ip6=::/0,tclass=9");
  // the read form is a whole state
  Knobs r;
  ASSERT_TRUE(write_traffic_class(format_traffic_class(k), &r, &err)) << err;
  EXPECT_EQ(format_traffic_class(r), format_traffic_class(k));
  ASSERT_TRUE(write_traffic_class("Global tclass=3", &r, &err));
  EXPECT_TRUE(r.rules.empty());
  EXPECT_EQ(r.global_tclass, 3);
  // bad writes change nothing
  const std::string before = format_traffic_class(k);
  for (const char* bad : {"256", "-2", "tclass=", "src_ip=10.0.0.0/33,tclass=1", "src_ip=10.0.0.1",
                          "colour=red,tclass=1", "src_ip=10.0.0.1,src_ip6=fd00::1,tclass=1",
                          "src_ip=1.2.3.4,tclass=-1", ""}) {
    EXPECT_FALSE(write_traffic_class(bad, &k, &err)) << bad;
    EXPECT_EQ(format_traffic_class(k), before) << bad;
  }
}

TEST(Knobs, TtlRoceEnableAndRdmaCmDefaults) {
  Knobs k;
  std::string err;
  ASSERT_TRUE(write_ttl("64\n", &k, &err));
  EXPECT_EQ(k.ttl, 64u);
  EXPECT_FALSE(write_ttl("256", &k, &err));
  EXPECT_FALSE(write_ttl("-1", &k, &err));
  EXPECT_EQ(k.ttl, 64u);
  ASSERT_TRUE(write_roce_enable("0", &k, &err));
  EXPECT_FALSE(k.roce_enable);
  EXPECT_FALSE(write_roce_enable("yes", &k, &err));
  ASSERT_TRUE(write_roce_mode("IB/RoCE v1\n", &k, &err));
  EXPECT_FALSE(k.roce_mode_v2);
  EXPECT_EQ(format_roce_mode(k.roce_mode_v2), "IB/RoCE v1");
  EXPECT_FALSE(write_roce_mode("RoCE v3", &k, &err));
  ASSERT_TRUE(write_roce_tos("184", &k, &err));
  EXPECT_EQ(k.roce_tos, 184u);
  EXPECT_FALSE(write_roce_tos("300", &k, &err));
}

}  // namespace
}  // namespace rocenic::driver
