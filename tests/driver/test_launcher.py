#!/usr/bin/env python3
"""Acceptance of the verbs path: unmodified rdma-core tools run through
rocenic-run, as root and as an unprivileged user.

    test_launcher.py BUILD_DIR [unittest args, e.g. a TestCase name]
"""
import ipaddress
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

BUILD = None  # set from argv


def launcher():
    """rocenic-run of this build."""
    return os.path.join(BUILD, "bin", "rocenic-run")


# Wires live in a private directory for the whole run (not the user's).
WIRE_DIR = tempfile.mkdtemp(prefix="rocenic-accept-wires.")
os.chmod(WIRE_DIR, 0o777 | 0o1000)  # the nobody runs share it; each wire inside is made 0700 by its owner


def run(args, user=None, env=None, timeout=120):
    """Runs rocenic-run ARGS (as `user` via setpriv when given)."""
    cmd = [launcher()] + args
    if user:
        cmd = ["setpriv", "--reuid=" + user, "--regid=nogroup", "--clear-groups"] + cmd
    full_env = dict(os.environ)
    # Another user's wires in a directory of their own (a wire directory belongs to one user).
    full_env["ROCENIC_WIRE_DIR"] = os.path.join(WIRE_DIR, "u-" + user) if user else WIRE_DIR
    if env:
        full_env.update(env)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env)


def start(args):
    """Starts rocenic-run ARGS in the background (stdout/stderr captured)."""
    env = dict(os.environ)
    env["ROCENIC_WIRE_DIR"] = WIRE_DIR
    return subprocess.Popen([launcher()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, proc, timeout=120):
    """Until something listens on TCP `port` (the server side of a verbs test), or proc ended."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        out = subprocess.run(["ss", "-ltnH", "sport = :%d" % port], capture_output=True, text=True).stdout
        if out.strip():
            return True
        time.sleep(0.1)
    return False


_wires = [0]


def new_wire(tag):
    _wires[0] += 1
    return "%s-%d-%d" % (tag, os.getpid(), _wires[0])


def client_server(tool_args, backend="model", timeout=900, pcaps=None, wire=None, faults=None):
    """Runs TOOL as server (10.0.0.1) and client (10.0.0.2) on one wire, each under
    rocenic-run (with FAULTS, a list of launcher fault options, on both; each its own
    --fault-seed); returns (server, client) as (returncode, stdout, stderr)."""
    wire = wire or new_wire("cs")
    port = free_port()
    common = ["--backend", backend, "--wire", wire]
    pcap = lambda i: ["--pcap", pcaps[i]] if pcaps else []
    fault = lambda i: (faults + ["--fault-seed", str(11 + i)]) if faults else []
    server = start(common + ["--ip", "10.0.0.1"] + pcap(0) + fault(0) + ["--"] + tool_args + ["-p", str(port)])
    if not wait_listening(port, server):
        server.kill()
        out, err = server.communicate()
        return (server.returncode, out, err), (None, "", "server never listened")
    client = start(common + ["--ip", "10.0.0.2"] + pcap(1) + fault(1) + ["--"] + tool_args +
                   ["-p", str(port), "127.0.0.1"])
    results = []
    for p in (server, client):
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            err += "\n(killed after %d s)" % timeout
        results.append((p.returncode, out, err))
    return results[0], results[1]


def csr_caps(backend):
    out = subprocess.run([os.path.join(BUILD, "bin", "csr_caps"), backend], capture_output=True, text=True,
                         check=True).stdout
    return {k: int(v) for k, v in (line.split() for line in out.splitlines())}


def devinfo_fields(text):
    """First value of every 'key: value' line of ibv_devinfo -v."""
    fields = {}
    for line in text.splitlines():
        m = re.match(r"\s*([a-z_]+):\s+(.*\S)\s*$", line)
        if m and m.group(1) not in fields:
            fields[m.group(1)] = m.group(2)
    return fields


def devinfo_gids(text):
    return {int(i): (gid, t) for i, gid, t in re.findall(r"GID\[\s*(\d+)\]:\s+(\S+), (RoCE v[12])", text)}


def eui64_link_local(mac):
    b = bytes(int(x, 16) for x in mac.split(":"))
    iid = bytes([b[0] ^ 2]) + b[1:3] + b"\xff\xfe" + b[3:]
    return ipaddress.IPv6Address(b"\xfe\x80" + bytes(6) + iid)


def gid_of_ip(ip):
    a = ipaddress.ip_address(ip)
    return ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + a.packed) if a.version == 4 else a


MAC = "02:aa:bb:cc:dd:ee"
GUID = "00aa:bbff:fecc:ddee"


class Devices(unittest.TestCase):
    def test_ibv_devices_lists_rocenic0_with_the_node_guid(self):
        r = run(["--mac", MAC, "--", "ibv_devices"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"\brocenic0\s+" + GUID.replace(":", "") + r"\b")

    def test_node_guid_follows_the_default_mac_of_wire_and_ip(self):
        a = run(["--wire", "w1", "--ip", "10.0.0.1", "--", "ibv_devices"]).stdout
        b = run(["--wire", "w1", "--ip", "10.0.0.1", "--", "ibv_devices"]).stdout
        c = run(["--wire", "w1", "--ip", "10.0.0.2", "--", "ibv_devices"]).stdout
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)


class Devinfo(unittest.TestCase):
    def check_devinfo(self, backend="model", mtu=1024, ips=("10.1.2.3", "fd00::5"), user=None):
        args = ["--backend", backend, "--mac", MAC, "--mtu", str(mtu)]
        for ip in ips:
            args += ["--ip", ip]
        r = run(args + ["--", "ibv_devinfo", "-v"], user=user)
        self.assertEqual(r.returncode, 0, r.stderr)
        f = devinfo_fields(r.stdout)
        caps = csr_caps(backend)
        self.assertEqual(f["hca_id"], "rocenic0")
        self.assertEqual(f["node_guid"], GUID)
        self.assertEqual(f["fw_ver"], "%d.%d" % (caps["version"] >> 8, caps["version"] & 0xff))
        self.assertEqual(f["link_layer"], "Ethernet")
        self.assertEqual(f["state"], "PORT_ACTIVE (4)")
        mtu_enum = {256: 1, 512: 2, 1024: 3, 2048: 4, 4096: 5}[mtu]
        self.assertEqual(f["active_mtu"], "%d (%d)" % (mtu, mtu_enum))
        self.assertEqual(f["max_mtu"], "4096 (5)")
        for key in ("max_qp", "max_cq", "max_mr", "max_pd", "max_qp_wr", "max_sge", "max_cqe", "gid_tbl_len"):
            self.assertEqual(int(f[key]), caps[key], key)
        self.assertEqual(int(f["max_mw"]), caps["max_mr"], "windows are entries of the MR table")
        self.assertIn("MEM_WINDOW_TYPE_2B", r.stdout)  # device_cap_flags: type 1 and type 2B windows
        self.assertEqual(f["port_lid"], "0")
        self.assertEqual(f["atomic_cap"], "ATOMIC_HCA (1)")  # CMP_AND_SWP, FETCH_AND_ADD
        gids = devinfo_gids(r.stdout)
        expect = {0: (eui64_link_local(MAC), "RoCE v1"), 1: (eui64_link_local(MAC), "RoCE v2")}
        for n, ip in enumerate(ips):
            expect[2 + 2 * n] = (gid_of_ip(ip), "RoCE v1")
            expect[3 + 2 * n] = (gid_of_ip(ip), "RoCE v2")
        self.assertEqual({i: (ipaddress.IPv6Address(g), t) for i, (g, t) in gids.items()}, expect)

    def test_model(self):
        self.check_devinfo()

    def test_rtl_mtu_256(self):
        self.check_devinfo(backend="rtl", mtu=256)

    def test_cosim_mtu_4096_single_ipv4(self):
        self.check_devinfo(backend="cosim", mtu=4096, ips=("192.168.0.7",))

    @unittest.skipUnless(os.geteuid() == 0, "switching to nobody needs root")
    def test_unprivileged_user(self):
        self.check_devinfo(user="nobody", mtu=2048)


class GidTableAgreement(unittest.TestCase):
    def test_engine_gid_table_equals_the_sysfs_files(self):
        # The provider's ROCENIC_GID_DUMP hook prints the engine's table (read
        # back over csr_read) on stderr; the shell prints the sysfs files.
        script = ('ROCENIC_GID_DUMP=1 ibv_devinfo >/dev/null || exit 9; '
                  'd=$SYSFS_PATH/class/infiniband/rocenic0/ports/1; '
                  'for f in $d/gids/*; do n=${f##*/}; '
                  'echo "$n $(cat $f) $(cat $d/gid_attrs/ndevs/$n 2>/dev/null || echo -) '
                  '$(cat $d/gid_attrs/types/$n)"; done')
        r = run(["--mac", MAC, "--ip", "10.0.0.9", "--ip", "2001:db8::1", "--vlan", "300", "--ip", "172.16.0.1",
                 "--", "sh", "-c", script])
        self.assertEqual(r.returncode, 0, r.stderr)
        engine = {}
        for i, t, g, v in re.findall(r"rocenic: engine GID\[(\d+)\] type (\d) (\S+) vlan (0x[0-9a-f]+)", r.stderr):
            engine[int(i)] = (g, int(t), int(v, 16))
        sysfs = {}
        for line in r.stdout.splitlines():
            n, gid, ndev, typ = line.split(" ", 3)
            sysfs[int(n)] = (gid, typ, ndev)
        self.assertEqual(len(engine), csr_caps("model")["gid_tbl_len"])
        self.assertEqual(sorted(engine), sorted(sysfs))
        type_text = {1: "IB/RoCE v1", 2: "RoCE v2"}
        for i in engine:
            self.assertEqual(engine[i][0], sysfs[i][0], "GID[%d]" % i)
            if engine[i][1]:  # used: the type and the VLAN (the netdev's) agree too; unused: zero GID
                self.assertEqual(type_text[engine[i][1]], sysfs[i][1], "GID[%d] type" % i)
                vlan = engine[i][2]
                self.assertEqual(sysfs[i][2], "rocenet0.%d" % (vlan & 0xFFF) if vlan else "rocenet0", "GID[%d] VLAN" % i)
                self.assertEqual(vlan, 0x1000 | 300 if i in (6, 7) else 0, "GID[%d]: only 172.16.0.1 is on VLAN 300" % i)
            else:
                self.assertEqual(set(sysfs[i][0]) - {":"}, {"0"}, "GID[%d] unused" % i)
        self.assertEqual(sum(1 for v in engine.values() if v[1]), 8)


class Launcher(unittest.TestCase):
    def assert_usage_error(self, args, needle):
        r = run(args)
        self.assertEqual(r.returncode, 2, "%s: %s" % (args, r.stderr))
        self.assertIn(needle, r.stderr, args)

    def test_bad_options_exit_2_naming_the_problem(self):
        self.assert_usage_error(["--ip", "10.0.0.300", "--", "true"], "--ip '10.0.0.300' is not an IPv4 or IPv6")
        self.assert_usage_error(["--mac", "aa:bb", "--", "true"], "--mac 'aa:bb' is not a MAC address")
        self.assert_usage_error(["--mac", "03:00:00:00:00:01", "--", "true"], "multicast MAC")
        self.assert_usage_error(["--mtu", "9000", "--", "true"], "--mtu '9000': must be")
        self.assert_usage_error(["--backend", "verilog", "--", "true"], "--backend 'verilog': must be model, rtl")
        self.assert_usage_error(["--mtu", "1024", "true"], "'true' is not an option")
        self.assert_usage_error(["--mtu", "1024"], "missing '--'")
        self.assert_usage_error(["--"], "no program after '--'")
        self.assert_usage_error(["--pcap", "/no/such/dir/x.pcap", "--", "true"], "does not exist")
        ips = []
        for n in range(20):
            ips += ["--ip", "10.0.0.%d" % (n + 1)]
        self.assert_usage_error(ips + ["--", "true"], "GID entries")

    def test_exit_status_is_the_programs(self):
        self.assertEqual(run(["--", "sh", "-c", "exit 7"]).returncode, 7)
        self.assertEqual(run(["--", "sh", "-c", "kill -TERM $$"]).returncode, 128 + 15)
        r = run(["--", "/no/such/program"])
        self.assertEqual(r.returncode, 127)
        self.assertIn("cannot run '/no/such/program'", r.stderr)

    def test_environment_and_tree_removed_at_exit(self):
        r = run(["--backend", "rtl", "--wire", "lab", "--pcap", "rel.pcap", "--", "sh", "-c",
                 'echo "$SYSFS_PATH|$RDMAV_DRIVERS|$ROCENIC_BACKEND|$ROCENIC_WIRE|$ROCENIC_PCAP|$LD_PRELOAD"; '
                 'find "$SYSFS_PATH" -type f ! -perm 0644; find "$SYSFS_PATH" -type d ! -perm 0755; '
                 'cat "$ROCENIC_CONFIG"'])
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        sysfs, drivers, backend, wire, pcap, preload = lines[0].split("|")
        self.assertEqual(drivers, os.path.join(os.path.realpath(os.path.join(BUILD, "lib")), "librocenic"))
        self.assertEqual((backend, wire), ("rtl", "lab"))
        self.assertEqual(pcap, os.path.join(os.getcwd(), "rel.pcap"))
        self.assertTrue(preload.endswith("/librocenic-shim.so"), preload)
        self.assertTrue(lines[1].startswith("#"), "every file 0644 and dir 0755: %s" % lines[1:3])
        self.assertIn("wire lab", r.stdout)
        self.assertFalse(os.path.exists(sysfs), "the tree is removed at exit")


class VerbsSmoke(unittest.TestCase):
    def smoke(self, user=None, backend="model"):
        r = run(["--backend", backend, "--mtu", "512", "--ip", "10.0.0.1", "--ip", "10.0.0.2", "--",
                 os.path.join(BUILD, "bin", "verbs_smoke"), "--mtu", "512", "--ips", "2"], user=user)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_smoke: ok", r.stdout)

    def test_root(self):
        self.smoke()

    @unittest.skipUnless(os.geteuid() == 0, "switching to nobody needs root")
    def test_unprivileged_rtl(self):
        self.smoke(user="nobody", backend="rtl")

    def test_bad_backend_fails_open_with_einval_and_a_message(self):
        r = run(["--", "env", "ROCENIC_BACKEND=verilog", os.path.join(BUILD, "bin", "verbs_smoke"),
                 "--expect-open-error"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("rocenic: ", r.stderr)
        self.assertIn("verilog", r.stderr)


class Launcher2(unittest.TestCase):
    """The wire as the launcher sees it."""

    def test_a_live_mac_or_address_on_the_wire_is_refused_and_a_killed_member_cleaned(self):
        wire = new_wire("dup")
        port = free_port()
        server = start(["--wire", wire, "--ip", "10.0.0.5", "--", "ibv_rc_pingpong", "-g", "3", "-p", str(port)])
        try:
            self.assertTrue(wait_listening(port, server), "the first member is up")
            r = run(["--wire", wire, "--ip", "10.0.0.5", "--", "true"])
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("is already on wire '%s'" % wire, r.stderr)
            r = run(["--wire", wire, "--ip", "10.0.0.6", "--mac", "02:00:00:00:00:66", "--", "true"])
            self.assertEqual(r.returncode, 0, r.stderr)
            # The program dies without leaving the wire; the launcher removes what it left.
            child = subprocess.run(["pgrep", "-P", str(server.pid)], capture_output=True, text=True).stdout.split()
            self.assertEqual(len(child), 1, child)
            os.kill(int(child[0]), signal.SIGKILL)
            server.communicate(timeout=60)
            self.assertEqual(server.returncode, 128 + signal.SIGKILL)
        finally:
            if server.poll() is None:
                server.kill()
                server.communicate()
        left = [f for f in os.listdir(os.path.join(WIRE_DIR, wire)) if f != ".lock"]
        self.assertEqual(left, [], "the launcher removed the killed member's socket and neighbour file")
        r = run(["--wire", wire, "--ip", "10.0.0.5", "--", "ibv_devinfo"])
        self.assertEqual(r.returncode, 0, r.stderr)


class VerbsErrno(unittest.TestCase):
    def check(self, backend):
        r = run(["--backend", backend, "--ip", "10.0.0.1", "--wire", new_wire("errno"), "--",
                 os.path.join(BUILD, "bin", "verbs_check"), "errno"], timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_check errno: ok", r.stdout)
        self.assertIn("has address 203.0.113.77", r.stderr, "unresolvable GID: a clear message")

    def test_model(self):
        self.check("model")

    def test_rtl(self):
        self.check("rtl")


class Loopback(unittest.TestCase):
    """Two QPs of one device: frames to the port's own MAC turn back inside the engine."""

    def check(self, backend, *args):
        r = run(["--backend", backend, "--ip", "10.0.0.1", "--wire", new_wire("loop"), "--",
                 os.path.join(BUILD, "bin", "verbs_check"), "loopback"] + list(args), timeout=900)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_check loopback: ok", r.stdout)
        return r

    def test_model(self):
        self.check("model", "--iters", "300", "--size", "4096")

    def test_model_events_64k(self):
        self.check("model", "--iters", "200", "--size", "65536", "--events")

    def test_model_one_byte(self):
        self.check("model", "--iters", "100", "--size", "1")

    def test_model_wr_api(self):
        self.check("model", "--iters", "100", "--size", "4096", "--wr-api")

    def test_model_sixteen_sges(self):
        # gathered from and scattered into 16 pieces (max_sge), through post_send and ibv_wr_*
        self.check("model", "--iters", "60", "--size", "20000", "--sges", "16")
        self.check("model", "--iters", "30", "--size", "20000", "--sges", "16", "--wr-api")

    def test_model_unprivileged(self):
        if os.geteuid() != 0:
            self.skipTest("switching to nobody needs root")
        r = run(["--backend", "model", "--ip", "10.0.0.1", "--wire", new_wire("nobody"), "--",
                 os.path.join(BUILD, "bin", "verbs_check"), "loopback", "--events"], user="nobody", timeout=900)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_check loopback: ok", r.stdout)

    def test_rtl(self):
        self.check("rtl", "--iters", "30", "--size", "4096")

    def test_rtl_sixteen_sges(self):
        self.check("rtl", "--iters", "12", "--size", "20000", "--sges", "16")


class UcPingpong(unittest.TestCase):
    """Issue 10: unmodified ibv_uc_pingpong on RoCE v2/IPv4 (GID 3): UC SENDs only, nothing acknowledged."""

    def check(self, backend, iters):
        d = tempfile.mkdtemp(prefix="rocenic-uc.")
        pcaps = [os.path.join(d, "s.pcap"), os.path.join(d, "c.pcap")]
        (sr, sout, serr), (cr, cout, cerr) = client_server(
            ["ibv_uc_pingpong", "-d", "rocenic0", "-g", "3", "-n", str(iters)], backend, timeout=600, pcaps=pcaps)
        self.assertEqual(sr, 0, "server: " + sout + serr)
        self.assertEqual(cr, 0, "client: " + cout + cerr)
        ops = [int(x[0]) for x in tshark_fields(pcaps[1], ["infiniband.bth.opcode"])]
        self.assertGreater(len(ops), iters)
        self.assertTrue(all(0x20 <= op <= 0x2B for op in ops), "UC opcodes only, no ACK: %s" % sorted(set(ops)))
        print("%s ibv_uc_pingpong -n %d: %d UC packets, opcodes %s; %s" % (
            backend, iters, len(ops), sorted(set(ops)), cout.strip().splitlines()[-1]), file=sys.stderr)
        shutil.rmtree(d, ignore_errors=True)

    def test_model(self):
        self.check("model", 500)

    def test_rtl(self):
        self.check("rtl", 50)


class UdPingpong(unittest.TestCase):
    """Issue 10: unmodified ibv_ud_pingpong on every GID index (link-local v1/v2, IPv4 v1/v2,
    IPv6 v1/v2), model and rtl: UD SEND ONLY datagrams with a DETH, nothing acknowledged; and
    our datagrams decode in tshark as Soft-RoCE's do (tests/data/golden ud_v4_s512 / ud_v6_s512)."""

    # the seeds' table: 0/1 link-local v1/v2, 2/3 IPv4 v1/v2, 4/5 IPv6 v1/v2
    ETHERTYPES = {0: "0x8915", 1: "0x86dd", 2: "0x8915", 3: "0x0800", 4: "0x8915", 5: "0x86dd"}
    # what a datagram's decode must agree on with the golden capture's (ibv_ud_pingpong -s 512)
    FIELDS = ["frame.len", "eth.type", "ip.flags", "ip.ttl", "ip.dsfield", "ipv6.tclass", "ipv6.flow", "ipv6.hlim",
              "ipv6.nxt", "udp.dstport", "udp.checksum", "infiniband.bth.opcode", "infiniband.bth.se",
              "infiniband.bth.m", "infiniband.bth.padcnt", "infiniband.bth.tver", "infiniband.bth.p_key",
              "infiniband.bth.a", "infiniband.deth.q_key"]

    def run_pair(self, backend, gid, iters, size=512):
        d = tempfile.mkdtemp(prefix="rocenic-ud.")
        pcaps = [os.path.join(d, "s.pcap"), os.path.join(d, "c.pcap")]
        wire = new_wire("ud")
        port = free_port()
        common = ["--backend", backend, "--wire", wire]
        tool = ["ibv_ud_pingpong", "-d", "rocenic0", "-g", str(gid), "-n", str(iters), "-s", str(size)]
        server = start(common + ["--ip", "10.0.0.1", "--ip", "fd00::1", "--pcap", pcaps[0], "--"] + tool +
                       ["-p", str(port)])
        if not wait_listening(port, server):
            server.terminate()
            self.fail("server never listened: %s" % (server.communicate(),))
        client = start(common + ["--ip", "10.0.0.2", "--ip", "fd00::2", "--pcap", pcaps[1], "--"] + tool +
                       ["-p", str(port), "127.0.0.1"])
        res = []
        for p in (client, server):
            try:
                out, err = p.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                p.terminate()
                out, err = p.communicate()
                err += "\n(terminated after 300 s)"
            res.append((p.returncode, out, err))
        (cr, cout, cerr), (sr, sout, serr) = res
        self.assertEqual((sr, cr), (0, 0), "GID %d: %s" % (gid, sout + serr + cout + cerr))
        return pcaps, cout

    def check_every_gid_index(self, backend, iters):
        for gid, ethertype in self.ETHERTYPES.items():
            pcaps, cout = self.run_pair(backend, gid, iters)
            frames = tshark_fields(pcaps[1], ["eth.type", "infiniband.bth.opcode", "infiniband.bth.a",
                                              "infiniband.deth.q_key"])
            self.assertEqual(len(frames), 2 * iters, "GID %d: a datagram each way per iteration" % gid)
            self.assertEqual({f[0] for f in frames}, {ethertype}, "GID %d" % gid)
            self.assertEqual({f[1:] for f in frames}, {("100", "0", "0x0000000011111111")},
                             "GID %d: UD SEND ONLY, no AckReq, ibv_ud_pingpong's Q_Key" % gid)
            print("%s ibv_ud_pingpong GID %d: %d datagrams on %s; %s" % (
                backend, gid, len(frames), ethertype, cout.strip().splitlines()[-1]), file=sys.stderr)

    def test_every_gid_index_model(self):
        self.check_every_gid_index("model", 20)

    def test_every_gid_index_rtl(self):
        self.check_every_gid_index("rtl", 10)

    def test_datagrams_decode_as_soft_roce_s(self):
        golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "golden")
        for gid, capture in ((3, "ud_v4_s512"), (5, "ud_v6_s512")):
            pcaps, cout = self.run_pair("model", gid, 10)
            want = set(tshark_fields(os.path.join(golden, capture + ".pcap"), self.FIELDS, "infiniband.bth.opcode == 100"))
            got = set(tshark_fields(pcaps[1], self.FIELDS, "infiniband.bth.opcode == 100"))
            self.assertEqual(len(want), 1, want)
            self.assertEqual(got, want, "GID %d against %s" % (gid, capture))
            srcqp = {int(q, 16) for (q,) in tshark_fields(pcaps[1], ["infiniband.deth.srcqp"])}
            qpns = {int(q, 16) for q in re.findall(r"QPN (0x[0-9a-f]+)", cout)}
            self.assertEqual(srcqp, qpns, "each side's DETH names its own QP (as ibv_ud_pingpong printed them)")
            print("GID %d datagrams decode as %s's: %s" % (gid, capture, sorted(want)[0]), file=sys.stderr)


class AddressHandles(unittest.TestCase):
    """verbs_check ah: ibv_create_ah to the port's own GID and a link-local one; refusals with
    Linux's errno (EINVAL port/GRH/index, ENODATA unused entry, ETIMEDOUT unresolvable)."""

    def test_model(self):
        r = run(["--ip", "10.0.0.1", "--wire", new_wire("ah"), "--", os.path.join(BUILD, "bin", "verbs_check"), "ah"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_check ah: ok", r.stdout)

    def test_ibv_devinfo_reports_max_ah(self):
        r = run(["--ip", "10.0.0.1", "--", "ibv_devinfo", "-v"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(devinfo_fields(r.stdout)["max_ah"], str(0x3fff))


class MemoryWindows(unittest.TestCase):
    """verbs_check mw: windows of both types bound, written through, invalidated (LOCAL_INV and the
    peer's SEND_WITH_INV) and unbound, between two QPs of one device."""

    def check(self, backend, *args):
        r = run(["--backend", backend, "--ip", "10.0.0.1", "--wire", new_wire("mw"), "--",
                 os.path.join(BUILD, "bin", "verbs_check"), "mw"] + list(args), timeout=600)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("verbs_check mw: ok", r.stdout)

    def test_model(self):
        self.check("model")

    def test_model_wr_api(self):
        self.check("model", "--wr-api")

    def test_rtl(self):
        self.check("rtl")


def pingpong_args(size, iters, events):
    return ["ibv_rc_pingpong", "-d", "rocenic0", "-g", "3", "-c", "-n", str(iters), "-s", str(size)] + \
        (["-e"] if events else [])


class PingpongBase:
    """Issue 3's acceptance: unmodified ibv_rc_pingpong -g 3 -c (data checked), two
    processes on one wire, 1000 iterations of 1, 4096 and 65536 bytes, polling and
    with completion events (-e). One CTest group per backend, so CTest can run
    them side by side (a pingpong keeps about one core busy)."""
    backend = None

    def check(self, size, events, iters=1000):
        (sr, sout, serr), (cr, cout, cerr) = client_server(pingpong_args(size, iters, events), self.backend,
                                                           timeout=1800)
        self.assertEqual(sr, 0, "server: " + sout + serr)
        self.assertEqual(cr, 0, "client: " + cout + cerr)
        for out in (sout, cout):
            self.assertRegex(out, r"%d bytes in [0-9.]+ seconds" % (2 * size * iters))
            self.assertRegex(out, r"%d iters in [0-9.]+ seconds" % iters)
        if self.backend == "cosim":
            for err in (serr, cerr):
                m = re.search(r"rocenic: cosim: (\d+) transactions compared, 0 divergences", err)
                self.assertTrue(m, "no cosim summary with 0 divergences: " + err[-2000:])
                self.assertGreater(int(m.group(1)), 0)
        # the figure for docs/performance.md, visible with ctest -V
        print("%s -s %d%s: %s" % (self.backend, size, " -e" if events else "",
                                  re.search(r"[0-9.]+ usec/iter", cout).group(0)), file=sys.stderr)

    def test_1(self):
        self.check(1, False)

    def test_1_events(self):
        self.check(1, True)

    def test_4096(self):
        self.check(4096, False)

    def test_4096_events(self):
        self.check(4096, True)

    def test_65536(self):
        self.check(65536, False)

    def test_65536_events(self):
        self.check(65536, True)


class PingpongModel(PingpongBase, unittest.TestCase):
    backend = "model"


class PingpongRtl(PingpongBase, unittest.TestCase):
    backend = "rtl"


class PingpongCosim(PingpongBase, unittest.TestCase):
    backend = "cosim"


HOSTILE = ["--loss", "0.02", "--dup", "0.01", "--reorder", "0.01", "--corrupt", "0.005"]


class LossyBase:
    """Issue 9: a hostile wire (2 % drop, 1 % duplicate, 1 % reorder, 0.5 % bit
    flips on the frames of both processes). Unmodified ibv_rc_pingpong -c (data
    checked) and the seven perftest tools of the acceptance complete: go-back-N
    on PSN sequence NAKs, the local ACK timeout when a tail is lost (simulated
    time jumps once the wire is quiet), duplicate READs executed again and
    duplicate atomics answered from the replay cache. `bw_iters` / `lat_iters`
    size the runs to the backend's speed (the RTL simulates ~30x slower)."""
    backend = None
    bw_iters = lat_iters = None

    def run_tool(self, args, summary):
        (sr, sout, serr), (cr, cout, cerr) = client_server(args, self.backend, timeout=1500, faults=HOSTILE)
        self.assertEqual(sr, 0, "server: " + sout + serr[-3000:])
        self.assertEqual(cr, 0, "client: " + cout + cerr[-3000:])
        m = re.search(summary, cout)
        self.assertTrue(m, "a result line: " + cout)
        print("%s %s (hostile wire): %s" % (self.backend, " ".join(args[:1] + args[5:]), m.group(0).strip()),
              file=sys.stderr)

    def perftest(self, tool, size, iters, extra=()):
        self.run_tool([tool, "-d", "rocenic0", "-x", "3", "-F", "-n", str(iters)] + list(extra),
                      r"\n\s*%d\s+%d\s+[0-9.]+\s+[0-9.]+.*" % (size, iters))

    def test_pingpong_65536(self):
        self.run_tool(pingpong_args(65536, 200, False), r"200 iters in [0-9.]+ seconds = [0-9.]+ usec/iter")

    def test_ib_write_bw(self):
        self.perftest("ib_write_bw", 65536, self.bw_iters)

    def test_ib_send_bw(self):
        self.perftest("ib_send_bw", 65536, self.bw_iters)

    def test_ib_read_bw(self):
        self.perftest("ib_read_bw", 65536, self.bw_iters)

    def test_ib_read_lat(self):
        self.perftest("ib_read_lat", 2, self.lat_iters)

    def test_ib_atomic_bw_fetch_add(self):
        self.perftest("ib_atomic_bw", 8, self.bw_iters, ["-A", "FETCH_AND_ADD"])

    def test_ib_atomic_bw_cmp_swap(self):
        self.perftest("ib_atomic_bw", 8, self.bw_iters, ["-A", "CMP_AND_SWAP"])

    def test_ib_atomic_lat(self):
        self.perftest("ib_atomic_lat", 8, self.lat_iters)


class LossyModel(LossyBase, unittest.TestCase):
    backend = "model"
    bw_iters = lat_iters = 1000


class LossyRtl(LossyBase, unittest.TestCase):
    backend = "rtl"
    bw_iters, lat_iters = 100, 200


HW_COUNTERS = sorted([
    "duplicate_request", "implied_nak_seq_err", "local_ack_timeout_err", "out_of_buffer", "out_of_sequence",
    "packet_seq_err",
    "req_cqe_error", "req_cqe_flush_error", "req_remote_access_errors", "req_remote_invalid_request",
    "resp_cqe_error", "resp_cqe_flush_error", "resp_local_length_error", "resp_remote_access_errors",
    "retry_exceeded_err", "retry_rnr_exceeded_err", "rnr_nak_retry_err", "rx_read_requests"])

# Runs the tool, then prints every hw_counters file of the process's tree as
# NAME:VALUE (the tool's arguments follow; its exit status is kept).
COUNTERS_AFTER = ('"$@"; rc=$?; cd "$SYSFS_PATH/class/infiniband/rocenic0/ports/1/hw_counters" && '
                  'for f in *; do echo "hw_counter $f:$(cat $f)"; done; exit $rc')


class HwCounters(unittest.TestCase):
    """Issue 9: the port's hw_counters as files where Linux puts them
    (ports/1/hw_counters/, mlx5 and rxe names), written by the provider from
    the engine's counters; on a hostile wire they show the recovery."""

    def counters(self, text):
        return {m.group(1): int(m.group(2)) for m in re.finditer(r"hw_counter (\w+):(\d+)", text)}

    def run_pingpong(self, faults):
        tool = ["sh", "-c", COUNTERS_AFTER, "sh"] + pingpong_args(65536, 100, False)
        (sr, sout, serr), (cr, cout, cerr) = client_server(tool, "model", timeout=300, faults=faults)
        self.assertEqual(sr, 0, "server: " + sout + serr[-3000:])
        self.assertEqual(cr, 0, "client: " + cout + cerr[-3000:])
        return self.counters(sout), self.counters(cout)

    def test_every_file_and_what_a_hostile_wire_shows(self):
        server, client = self.run_pingpong(HOSTILE)
        for side in (server, client):
            self.assertEqual(sorted(side), HW_COUNTERS)
            # the run succeeded: no error completions, no QP gave up
            for name in ("req_cqe_error", "resp_cqe_error", "req_cqe_flush_error", "resp_cqe_flush_error",
                         "retry_exceeded_err", "retry_rnr_exceeded_err", "req_remote_access_errors",
                         "resp_remote_access_errors", "req_remote_invalid_request", "resp_local_length_error"):
                self.assertEqual(side[name], 0, name)
        both = lambda n: server[n] + client[n]
        # 2 % of ~13,000 frames lost, 1 % duplicated: each leaves its trace
        self.assertGreater(both("packet_seq_err") + both("local_ack_timeout_err"), 0)
        self.assertGreater(both("out_of_sequence"), 0)
        self.assertGreater(both("duplicate_request"), 0)
        print("hw_counters after ibv_rc_pingpong -s 65536 -n 100 on a hostile wire: server %s; client %s" %
              ({k: v for k, v in server.items() if v}, {k: v for k, v in client.items() if v}), file=sys.stderr)

    def test_a_clean_wire_shows_no_error(self):
        server, client = self.run_pingpong(None)
        for side in (server, client):
            self.assertEqual(sorted(side), HW_COUNTERS)
            self.assertEqual({k: v for k, v in side.items() if v}, {})


def ctl():
    return os.path.join(BUILD, "bin", "rocenic-ctl")


def tshark_fields(pcap, fields, filt="infiniband"):
    """One tuple per frame matching filt: the fields' values as tshark prints them."""
    out = subprocess.run(["tshark", "-r", pcap, "-Y", filt, "-T", "fields"] + sum([["-e", f] for f in fields], []),
                         capture_output=True, text=True, check=True).stdout
    return [tuple(line.split("\t")) for line in out.splitlines()]


class RoceAdmin(unittest.TestCase):
    """Issue 10: RoCE as administrators configure it. VLAN GIDs (PCP = SL & 7),
    the port's traffic_class (global value, src/dst rules) and ttl written
    with rocenic-ctl while programs run, v1 against v2, roce_enable, ibstat,
    show-gids and the port counters under ports/1/counters."""

    def pair(self, server_opts, client_opts, server_tool, client_tool, between=None, backend="model", timeout=300):
        """server_tool under rocenic-run server_opts, then (after `between(server_proc)`) client_tool
        under client_opts, both on a new wire with pcaps; returns (server, client, pcaps)."""
        wire = new_wire("adm")
        port = free_port()
        d = tempfile.mkdtemp(prefix="rocenic-admin.")
        pcaps = [os.path.join(d, "server.pcap"), os.path.join(d, "client.pcap")]
        common = ["--backend", backend, "--wire", wire]
        server = start(common + server_opts + ["--pcap", pcaps[0], "--"] + server_tool + ["-p", str(port)])
        if not wait_listening(port, server):
            server.kill()
            self.fail("server never listened: %s" % (server.communicate(),))
        if between:
            between(server)
        client = start(common + client_opts + ["--pcap", pcaps[1], "--"] + client_tool + ["-p", str(port), "127.0.0.1"])
        res = []
        for p in (client, server):
            try:
                out, err = p.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                p.terminate()  # the launcher forwards it to the program (a SIGKILL would orphan it)
                out, err = p.communicate()
                err += "\n(terminated after %d s)" % timeout
            res.append((p.returncode, out, err))
        return res[1], res[0], pcaps

    def ctl(self, *args, check=True):
        r = subprocess.run([ctl()] + list(args), capture_output=True, text=True, timeout=30,
                           env=dict(os.environ, ROCENIC_WIRE_DIR=WIRE_DIR))
        if check:
            self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def pingpong(self, gid, *extra):
        return ["ibv_rc_pingpong", "-d", "rocenic0", "-g", str(gid), "-n", "20"] + list(extra)

    def check_vlan(self, backend):
        opts = lambda ip: ["--ip", "10.0.0.%d" % ip, "--vlan", "100", "--ip", "10.1.0.%d" % ip, "--ip", "fd01::%d" % ip]
        for gid, sl, l3 in ((4, 5, "v1"), (5, 10, "v4"), (7, 3, "v6")):
            (sr, sout, serr), (cr, cout, cerr), pcaps = self.pair(
                opts(1), opts(2), self.pingpong(gid, "-l", str(sl)), self.pingpong(gid, "-l", str(sl)), backend=backend)
            self.assertEqual((sr, cr), (0, 0), sout + serr + cout + cerr)
            frames = tshark_fields(pcaps[1], ["vlan.id", "vlan.priority", "vlan.etype", "infiniband.bth.opcode"])
            self.assertGreater(len(frames), 40)
            for f in frames:
                self.assertEqual(f[:2], ("100", str(sl & 7)), "every frame (requests and ACKs) on VLAN 100, PCP %d" % (sl & 7))
            self.assertIn("17", [f[3] for f in frames], "ACKs are tagged too")
            inner = {"v1": "0x8915", "v4": "0x0800", "v6": "0x86dd"}[l3]
            self.assertTrue(all(f[2] == inner for f in frames), "%s inside the tag: %s" % (inner, frames[0]))
            print("%s VLAN 100 GID %d SL %d: %d frames, PCP %d, %s" % (backend, gid, sl, len(frames), sl & 7, inner),
                  file=sys.stderr)

    def test_vlan_pcp_model(self):
        self.check_vlan("model")

    def test_vlan_pcp_rtl(self):
        self.check_vlan("rtl")

    def check_every_gid_index(self, backend):
        # the seeds' table: 0/1 link-local v1/v2, 2/3 IPv4 v1/v2, 4/5 IPv6 v1/v2
        want = {0: "0x8915", 1: "0x86dd", 2: "0x8915", 3: "0x0800", 4: "0x8915", 5: "0x86dd"}
        for gid, ethertype in want.items():
            (sr, sout, serr), (cr, cout, cerr), pcaps = self.pair(
                ["--ip", "10.0.0.1", "--ip", "fd00::1"], ["--ip", "10.0.0.2", "--ip", "fd00::2"],
                self.pingpong(gid), self.pingpong(gid), backend=backend)
            self.assertEqual((sr, cr), (0, 0), "GID %d: %s" % (gid, sout + serr + cout + cerr))
            types = {t for (t,) in tshark_fields(pcaps[1], ["eth.type"])}
            self.assertEqual(types, {ethertype}, "GID %d" % gid)
        print("%s ibv_rc_pingpong passes on GID indexes 0..5 (v1/v2 link-local, IPv4, IPv6)" % backend,
              file=sys.stderr)

    def test_rc_pingpong_on_every_gid_index_model(self):
        self.check_every_gid_index("model")

    def test_rc_pingpong_on_every_gid_index_rtl(self):
        self.check_every_gid_index("rtl")

    def test_v1_client_against_v2_server_fails(self):
        (sr, sout, serr), (cr, cout, cerr), _ = self.pair(["--ip", "10.0.0.1"], ["--ip", "10.0.0.2"], self.pingpong(3),
                                                           self.pingpong(2), timeout=60)
        self.assertNotEqual(cr, 0, "a RoCE v1 QP must not reach a v2 QP: " + cout)
        self.assertIn("retry counter exceeded", cerr)

    def test_traffic_class_global_wins_over_rules_and_applies_live(self):
        # the server's knob is set while it runs (its QP does not exist yet: the
        # global value is the engine's, so it reaches ACKs of live QPs too); the
        # client sets a rule, and a global value over it, before it connects
        def set_server(server):
            self.ctl("--dev", str(server.pid), "set", "traffic_class", "106")
            self.ctl("--dev", str(server.pid), "set", "ttl", "64")
            self.assertEqual(self.ctl("--dev", str(server.pid), "get", "traffic_class").stdout, "Global tclass=106\n")
            time.sleep(1.0)  # the provider looks at the files every 100 ms (KnobWatch::kPeriod)
        rule_client = ["sh", "-c", ctl() + " set traffic_class src_ip=10.0.0.0/24,dst_ip=10.0.0.1,tclass=96 && "
                       + ctl() + " set traffic_class src_ip=10.9.0.0/16,tclass=8 && exec \"$@\"", "sh"] + self.pingpong(3)
        (sr, sout, serr), (cr, cout, cerr), pcaps = self.pair(["--ip", "10.0.0.1"], ["--ip", "10.0.0.2"],
                                                               self.pingpong(3), rule_client, between=set_server)
        self.assertEqual((sr, cr), (0, 0), sout + serr + cout + cerr)
        by_src = {}
        for src, ds, ttl in tshark_fields(pcaps[1], ["ip.src", "ip.dsfield", "ip.ttl"]):
            by_src.setdefault(src, set()).add((ds, ttl))
        self.assertEqual(by_src["10.0.0.1"], {("0x6a", "64")}, "server: global tclass 106 and ttl 64")
        self.assertEqual(by_src["10.0.0.2"], {("0x60", "64")},
                         "client: the first matching rule (96), the route's hop limit (as Linux resolves it)")
        # global over rule
        glob_client = ["sh", "-c", ctl() + " set traffic_class src_ip=10.0.0.0/24,tclass=96 && " + ctl() +
                       " set traffic_class tclass=40 && exec \"$@\"", "sh"] + self.pingpong(3)
        (sr, sout, serr), (cr, cout, cerr), pcaps = self.pair(["--ip", "10.0.0.1"], ["--ip", "10.0.0.2"],
                                                               self.pingpong(3), glob_client)
        self.assertEqual((sr, cr), (0, 0), sout + serr + cout + cerr)
        client_ds = {ds for src, ds in tshark_fields(pcaps[1], ["ip.src", "ip.dsfield"]) if src == "10.0.0.2"}
        self.assertEqual(client_ds, {"0x28"}, "the global value (40) wins over the rule (96)")
        server_ds = {ds for src, ds in tshark_fields(pcaps[1], ["ip.src", "ip.dsfield"]) if src == "10.0.0.1"}
        self.assertEqual(server_ds, {"0x00"})

    def test_rules_remove_and_bad_values(self):
        tool = ["sh", "-c", "; ".join([
            ctl() + " set traffic_class src_ip6=fd00::/8,dst_ip6=fd00::1,tclass=32",
            ctl() + " set traffic_class src_ip=10.0.0.0/8,tclass=8",
            ctl() + " set traffic_class src_ip=10.0.0.0/8,tclass=-1",
            ctl() + " get traffic_class",
            ctl() + " set traffic_class src_ip=10.0.0.0/40,tclass=8; echo rc=$?",
            ctl() + " set ttl 256; echo rc=$?",
            ctl() + " set roce_enable 2; echo rc=$?",
            ctl() + " set default_roce_mode RoCE v3; echo rc=$?",
            ctl() + " set default_roce_mode IB/RoCE v1", ctl() + " get default_roce_mode",
            ctl() + " set default_roce_tos 184", ctl() + " get default_roce_tos",
            ctl() + " frob; echo rc=$?"])]
        r = run(["--ip", "10.0.0.1", "--"] + tool)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Global tclass=-1\nsrc_ip6=fd00::/8,dst_ip6=fd00::1,tclass=32\n", r.stdout)
        self.assertEqual(r.stdout.count("rc=2"), 5, r.stdout + r.stderr)
        self.assertIn("IB/RoCE v1\n184\n", r.stdout)
        for needle in ("prefix length", "ttl '256'", "roce_enable '2'", "RoCE v3", "unknown command 'frob'"):
            self.assertIn(needle, r.stderr)

    def test_roce_enable_0_empties_the_gid_table_and_bypasses_roce(self):
        off = ["sh", "-c", ctl() + " set roce_enable 0 && sleep 0.5 && ibv_devinfo -v && exec \"$@\"", "sh"]
        (sr, sout, serr), (cr, cout, cerr), _ = self.pair(["--ip", "10.0.0.1"], ["--ip", "10.0.0.2"],
                                                           off + self.pingpong(0), self.pingpong(0), timeout=60)
        self.assertEqual(devinfo_gids(sout), {}, "no GID while RoCE is off")
        self.assertNotEqual(cr, 0, "the peer's RoCE frames went to the host, not the engine")
        r = run(["--ip", "10.0.0.1", "--", "sh", "-c", ctl() + " set roce_enable 0 && " + ctl() +
                 " set roce_enable 1 && ibv_devinfo -v"])
        self.assertEqual(len(devinfo_gids(r.stdout)), 4, "back on: the table again")

    def test_ibstat_show_gids_and_port_counters(self):
        r = run(["--ip", "10.0.0.1", "--vlan", "7", "--ip", "fd00::1", "--", "sh", "-c",
                 "ibstat && " + ctl() + " show-gids"])
        self.assertEqual(r.returncode, 0, r.stderr)
        for needle in ("CA 'rocenic0'", "\tNumber of ports: 1", "\t\tState: Active", "\t\tPhysical state: LinkUp",
                       "\t\tRate: 100", "\t\tLink layer: Ethernet", "\tNode GUID: 0x"):
            self.assertIn(needle, r.stdout)
        self.assertIn("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4 \t\tVER\tDEV\n", r.stdout)
        self.assertIn("rocenic0\t1\t3\t0000:0000:0000:0000:0000:ffff:0a00:0001\t10.0.0.1 \tv2\trocenet0\n", r.stdout)
        self.assertIn("rocenic0\t1\t4\tfd00:0000:0000:0000:0000:0000:0000:0001\t\t\tv1\trocenet0.7\n", r.stdout)
        self.assertIn("n_gids_found=6", r.stdout)
        # the port counters count what the port put on the wire (the pcap holds it all)
        after = ('"$@"; rc=$?; sleep 0.5; cd "$SYSFS_PATH/class/infiniband/rocenic0/ports/1/counters" && '
                 'for f in *; do echo "port_counter $f:$(cat $f)"; done; exit $rc')
        (sr, sout, serr), (cr, cout, cerr), pcaps = self.pair(["--ip", "10.0.0.1"], ["--ip", "10.0.0.2"],
                                                               ["sh", "-c", after, "sh"] + self.pingpong(3),
                                                               ["sh", "-c", after, "sh"] + self.pingpong(3))
        self.assertEqual((sr, cr), (0, 0), serr + cerr)
        c = {m.group(1): int(m.group(2)) for m in re.finditer(r"port_counter (\w+):(\d+)", cout)}
        # what the client (10.0.0.2) put on the wire, as its pcap holds it
        sizes = [int(n) for (n,) in tshark_fields(pcaps[1], ["frame.len"], "ip.src == 10.0.0.2")]
        self.assertEqual(c["port_xmit_packets"], len(sizes))
        self.assertEqual(c["port_xmit_data"], sum(sizes) // 4)
        self.assertGreater(c["port_rcv_packets"], 0)
        self.assertEqual(c["unicast_xmit_packets"], c["port_xmit_packets"])
        print("client port counters after ibv_rc_pingpong -n 20: %s" % c, file=sys.stderr)


class PerftestBase:
    """Unmodified perftest at its defaults (bandwidth: 5000 iterations of 64 KiB; ib_read_lat:
    1000 of 2 bytes; ib_atomic_bw and ib_atomic_lat: 8-byte FETCH_AND_ADD or CMP_AND_SWAP),
    two processes; ROCENIC_PERFTEST_ITERS=N shortens a run."""
    backend = None

    def check(self, tool, size=65536, extra=()):
        iters = os.environ.get("ROCENIC_PERFTEST_ITERS")
        args = [tool, "-d", "rocenic0", "-x", "3", "-F"] + list(extra) + (["-n", iters] if iters else [])
        (sr, sout, serr), (cr, cout, cerr) = client_server(args, self.backend, timeout=3000)
        self.assertEqual(sr, 0, "server: " + sout + serr)
        self.assertEqual(cr, 0, "client: " + cout + cerr)
        line = re.search(r"\n\s*%d\s+\d+\s+[0-9.]+\s+[0-9.]+.*" % size, cout)
        self.assertTrue(line, "a result line for %d bytes: %s" % (size, cout))
        print("%s %s: %s" % (self.backend, tool, line.group(0).strip()), file=sys.stderr)

    def test_ib_write_bw(self):
        self.check("ib_write_bw")

    def test_ib_send_bw(self):
        self.check("ib_send_bw")

    def test_ib_read_bw(self):
        self.check("ib_read_bw")

    def test_ib_read_lat(self):  # 1000 READs of 2 bytes, one at a time
        self.check("ib_read_lat", size=2)

    def test_ib_atomic_bw_fetch_add(self):  # 8-byte atomics, 16 outstanding (max_rd_atomic)
        self.check("ib_atomic_bw", size=8, extra=["-A", "FETCH_AND_ADD"])

    def test_ib_atomic_bw_cmp_swap(self):
        self.check("ib_atomic_bw", size=8, extra=["-A", "CMP_AND_SWAP"])

    def test_ib_atomic_lat(self):  # one at a time
        self.check("ib_atomic_lat", size=8)


class PerftestModel(PerftestBase, unittest.TestCase):
    backend = "model"


class PerftestRtl(PerftestBase, unittest.TestCase):
    backend = "rtl"


class WirePcap(unittest.TestCase):
    def test_both_captures_decode_as_rocev2(self):
        d = tempfile.mkdtemp(prefix="rocenic-pcap.")
        try:
            pcaps = [os.path.join(d, "server.pcap"), os.path.join(d, "client.pcap")]
            (sr, sout, serr), (cr, cout, cerr) = client_server(pingpong_args(4096, 20, False), "model", pcaps=pcaps)
            self.assertEqual((sr, cr), (0, 0), serr + cerr)
            for pcap in pcaps:
                out = subprocess.run(["tshark", "-r", pcap, "-T", "fields", "-e", "ip.src", "-e", "ip.dst",
                                      "-e", "udp.dstport", "-e", "infiniband.bth.opcode"],
                                     capture_output=True, text=True, check=True).stdout
                rows = [l.split("\t") for l in out.splitlines()]
                self.assertGreater(len(rows), 40, pcap)
                for src, dst, dport, opcode in rows:
                    self.assertEqual({src, dst}, {"10.0.0.1", "10.0.0.2"}, pcap)
                    self.assertEqual(dport, "4791", pcap)
                    self.assertNotEqual(opcode, "", "tshark decodes the BTH")
                # 4096-byte messages at the default MTU 1024: FIRST/MIDDLE/LAST, and ACKs (17).
                self.assertIn("17", {r[3] for r in rows})
        finally:
            shutil.rmtree(d)


class Cosim(unittest.TestCase):
    def test_summary_at_exit(self):
        r = run(["--backend", "cosim", "--ip", "10.0.0.1", "--wire", new_wire("cosim"), "--",
                 os.path.join(BUILD, "bin", "verbs_check"), "loopback", "--iters", "6", "--size", "2048"],
                timeout=900)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        m = re.search(r"rocenic: cosim: (\d+) transactions compared, 0 divergences", r.stderr)
        self.assertTrue(m, r.stderr)
        self.assertGreater(int(m.group(1)), 0)


if __name__ == "__main__":
    BUILD = os.path.abspath(sys.argv.pop(1))
    try:
        unittest.main(verbosity=2)
    finally:
        shutil.rmtree(WIRE_DIR, ignore_errors=True)
