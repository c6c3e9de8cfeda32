#!/usr/bin/python3
"""Judge RoCE frames built by the TX deparser against what they should hold.

usage: check_tx_pcap.py PCAP EXPECTED_JSONL

EXPECTED_JSONL has one JSON object per frame, in pcap order (keys: l3, vlan_*,
dst_mac, src_mac, src_ip, dst_ip, tclass, ttl, flow_label, ip_id, udp_sport,
opcode, se, mig, pad, pkey, fecn, becn, dst_qpn, ack_req, psn, reth_*,
swap_add, compare, atomic_orig, aeth_*, imm, qkey, src_qpn, pay_len,
payload_hex).  Which extended headers a frame has follows from its opcode
(spec/opcodes.toml `ext`); keys of absent headers are ignored.

Every frame is judged by three oracles, none of which is the project's code:
  scapy   RoCEv2/IPv4: ICRC via BTH.compute_icrc over the frame trimmed to the
          IP total length, IPv4 header checksum by rebuilding the header; all
          encapsulations: scapy's own BTH/AETH decode.
  own     stdlib: ICRC (CRC-32 over 8 x 0xFF + the L3 packet with the variant
          fields set to 1s) for IPv4, IPv6 and RoCEv1; lengths, UDP checksum
          (0 or valid), minimum-frame padding, extended headers decoded with
          the layouts of spec/headers.toml (the only decoder of the CNP's
          reserved bytes).
  tshark  one run over the whole file: every BTH, extended-header, IP, UDP,
          VLAN and Ethernet field and the payload bytes.

Exit status: 0 all frames passed, 1 some failed, 2 a tool or input is missing.
Needs Python >= 3.11 (tomllib) and Debian's scapy: run with /usr/bin/python3.

The module also holds the spec loader, pcap I/O and ICRC helpers that
gen_rx_frames.py imports.
"""

import ipaddress
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections import Counter, OrderedDict

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC_DIR = os.environ.get("ROCENIC_SPEC_DIR", os.path.join(HERE, "..", "..", "spec"))

# JSON key of each extended-header field (spec/headers.toml names).  AtomicETH
# shares VA/R_Key with RETH and IETH's R_Key travels in `imm`, as in the
# roce_*_hdr structs of spec/structs.toml.
EXT_KEY = {
    ("RETH", "VA"): "reth_va", ("RETH", "RKEY"): "reth_rkey", ("RETH", "DMA_LEN"): "reth_len",
    ("AETH", "SYNDROME"): "aeth_syndrome", ("AETH", "MSN"): "aeth_msn",
    ("ATOMICETH", "VA"): "reth_va", ("ATOMICETH", "RKEY"): "reth_rkey",
    ("ATOMICETH", "SWAP_ADD"): "swap_add", ("ATOMICETH", "COMPARE"): "compare",
    ("ATOMICACKETH", "ORIG"): "atomic_orig",
    ("IMMDT", "IMM"): "imm",
    ("IETH", "RKEY"): "imm",
    ("DETH", "QKEY"): "qkey", ("DETH", "SRC_QP"): "src_qpn",
}

NET_KEYS = ["l3", "vlan_valid", "vlan_pcp", "vlan_vid", "dst_mac", "src_mac", "src_ip", "dst_ip",
            "tclass", "ttl", "flow_label", "ip_id", "udp_sport"]
BTH_KEYS = ["opcode", "se", "mig", "pad", "pkey", "fecn", "becn", "dst_qpn", "ack_req", "psn"]
EXT_KEYS = list(OrderedDict.fromkeys(EXT_KEY.values()))
ALL_KEYS = NET_KEYS + BTH_KEYS + EXT_KEYS + ["pay_len", "payload_hex"]

PCAP_MAGIC_US = 0xA1B2C3D4
PCAP_MAGIC_NS = 0xA1B23C4D
LINKTYPE_ETHERNET = 1


# --------------------------------------------------------------------------- spec

class Spec:
    """spec/*.toml, read with tomllib: opcode table, header layouts, constants."""

    def __init__(self, spec_dir=SPEC_DIR):
        def load(name):
            with open(os.path.join(spec_dir, name), "rb") as f:
                return tomllib.load(f)
        hdr = load("headers.toml")
        self.hdr = {}
        for name, h in hdr.items():
            fields = {f["name"]: (f["off"], f["width"]) for f in h.get("fields", [])}
            self.hdr[name] = {"size": h["size"], "fields": fields}
        self.ops = {}
        for op in load("opcodes.toml")["opcode"]:
            op = dict(op)
            op["ext_bytes"] = sum(self.hdr[e]["size"] for e in op["ext"])
            self.ops[op["value"]] = op
        const = load("constants.toml")
        self.c = const["const"]
        self.drop = {v["name"]: v["value"] for v in const["enum"]["drop"]["values"]}
        self.l3_names = {v["name"].lower(): v["value"] for v in const["enum"]["l3"]["values"]}
        self.bth_size = self.size("BTH")
        self.icrc_size = self.size("ICRC")

    def size(self, h):
        return self.hdr[h]["size"]

    def off(self, h, field):
        return self.hdr[h]["fields"][field][0]

    def get(self, buf, base, h, field):
        """Big-endian field `field` of header `h` starting at buf[base]."""
        off, width = self.hdr[h]["fields"][field]
        n = width // 8
        return int.from_bytes(buf[base + off: base + off + n], "big")

    def put(self, buf, base, h, field, value):
        off, width = self.hdr[h]["fields"][field]
        n = width // 8
        buf[base + off: base + off + n] = (value & ((1 << width) - 1)).to_bytes(n, "big")

    def ext_bytes(self, opcode, rec):
        """Extended headers of `opcode` in wire order, filled from JSON keys."""
        out = bytearray()
        for e in self.ops[opcode]["ext"]:
            b = bytearray(self.size(e))
            for field in self.hdr[e]["fields"]:
                self.put(b, 0, e, field, rec.get(EXT_KEY[(e, field)], 0))
            out += b
        return bytes(out)

    def decode_ext(self, opcode, buf, base):
        """JSON keys of the extended headers at buf[base:], plus raw CNP bytes."""
        out = {}
        for e in self.ops[opcode]["ext"]:
            for field in self.hdr[e]["fields"]:
                out[EXT_KEY[(e, field)]] = self.get(buf, base, e, field)
            if not self.hdr[e]["fields"]:
                out["rsvd_" + e.lower()] = bytes(buf[base: base + self.size(e)]).hex()
            base += self.size(e)
        return out


# --------------------------------------------------------------------------- pcap

def read_pcap(path):
    """Frames of a classic pcap (either byte order, us or ns), or pcapng via scapy."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        raise ValueError("%s: not a pcap file" % path)
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
        end = "<"
    elif struct.unpack(">I", data[:4])[0] in (PCAP_MAGIC_US, PCAP_MAGIC_NS):
        end = ">"
    elif magic == 0x0A0D0D0A:
        from scapy.utils import RawPcapNgReader
        return [bytes(pkt) for pkt, _ in RawPcapNgReader(path)]
    else:
        raise ValueError("%s: not a pcap file (magic %08x)" % (path, magic))
    linktype = struct.unpack(end + "I", data[20:24])[0]
    if linktype != LINKTYPE_ETHERNET:
        raise ValueError("%s: linktype %d, expected 1 (Ethernet)" % (path, linktype))
    frames, pos = [], 24
    while pos + 16 <= len(data):
        incl = struct.unpack(end + "I", data[pos + 8: pos + 12])[0]
        frames.append(data[pos + 16: pos + 16 + incl])
        pos += 16 + incl
    return frames


def write_pcap(path, frames):
    """Classic pcap, Ethernet, deterministic timestamps (1 us apart)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", PCAP_MAGIC_US, 2, 4, 0, 0, 262144, LINKTYPE_ETHERNET))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)))
            f.write(fr)


# --------------------------------------------------------------------------- frame geometry

def l2_info(sp, frame):
    """(vlan_valid, pcp, vid, ethertype, l3 offset) after at most one 802.1Q tag."""
    eth = sp.size("ETH")
    if len(frame) < eth:
        return None
    et = sp.get(frame, 0, "ETH", "ETHERTYPE")
    if et == sp.c["ETHERTYPE_VLAN"]:
        # the VLAN header sits after the source MAC: its TPID is the outer EtherType
        vb, vs = sp.off("ETH", "ETHERTYPE"), sp.size("VLAN")
        if len(frame) < eth + vs:
            return None
        tci = sp.get(frame, vb, "VLAN", "TCI")
        inner = int.from_bytes(frame[vb + vs: vb + vs + 2], "big")
        return (1, tci >> 13, tci & 0xFFF, inner, eth + vs)
    return (0, 0, 0, et, eth)


def roce_geometry(sp, frame):
    """Classify like the RX parser.  None if not RoCE, else a dict with
    l3 ("ipv4"|"ipv6"|"rocev1"), l2 fields, l3off, rl (L3 packet length per its
    header), bth (offset), tl (transport length BTH..ICRC)."""
    l2 = l2_info(sp, frame)
    if l2 is None:
        return None
    vv, pcp, vid, et, l3 = l2
    g = {"vlan_valid": vv, "vlan_pcp": pcp, "vlan_vid": vid, "l3off": l3}
    v4, v6, udp = sp.size("IPV4"), sp.size("IPV6"), sp.size("UDP")
    if et == sp.c["ETHERTYPE_IPV4"]:
        if len(frame) < l3 + v4 + udp:
            return None
        if (frame[l3] != 0x45 or sp.get(frame, l3, "IPV4", "PROTO") != sp.c["IP_PROTO_UDP"]
                or sp.get(frame, l3, "IPV4", "FLAGS_FRAG") & 0x3FFF
                or sp.get(frame, l3 + v4, "UDP", "DPORT") != sp.c["UDP_PORT_ROCEV2"]):
            return None
        g.update(l3="ipv4", rl=sp.get(frame, l3, "IPV4", "TOTAL_LEN"), iphdr=v4, bth=l3 + v4 + udp)
    elif et == sp.c["ETHERTYPE_IPV6"]:
        if len(frame) < l3 + v6 + udp:
            return None
        if (frame[l3] >> 4 != 6 or sp.get(frame, l3, "IPV6", "NEXT_HDR") != sp.c["IP_PROTO_UDP"]
                or sp.get(frame, l3 + v6, "UDP", "DPORT") != sp.c["UDP_PORT_ROCEV2"]):
            return None
        g.update(l3="ipv6", rl=v6 + sp.get(frame, l3, "IPV6", "PAYLOAD_LEN"), iphdr=v6, bth=l3 + v6 + udp)
    elif et == sp.c["ETHERTYPE_ROCEV1"]:
        if len(frame) < l3 + v6:
            return None
        g.update(l3="rocev1", rl=v6 + sp.get(frame, l3, "IPV6", "PAYLOAD_LEN"), iphdr=v6, bth=l3 + v6)
    else:
        return None
    g["tl"] = g["rl"] - (g["bth"] - l3)
    return g


def icrc(sp, kind, l3pkt):
    """ICRC (4 wire bytes) of an L3 packet (IP/GRH header .. ICRC inclusive)."""
    m = bytearray(l3pkt[:-sp.icrc_size])
    if kind == "ipv4":
        for f in ("TOS", "TTL"):
            m[sp.off("IPV4", f)] = 0xFF
        c = sp.off("IPV4", "CSUM")
        m[c: c + 2] = b"\xff\xff"
        udp = sp.size("IPV4")
    else:
        m[0] |= 0x0F                                   # TClass high nibble
        m[1:4] = b"\xff\xff\xff"                       # TClass low nibble, flow label
        m[sp.off("IPV6", "HOP_LIMIT")] = 0xFF
        udp = sp.size("IPV6") if kind == "ipv6" else None
    if udp is not None:
        c = udp + sp.off("UDP", "CSUM")
        m[c: c + 2] = b"\xff\xff"
        bth = udp + sp.size("UDP")
    else:
        bth = sp.size("IPV6")
    m[bth + sp.off("BTH", "FB_RSVD")] = 0xFF           # FECN, BECN, resv6
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)


def ones_sum(data):
    if len(data) % 2:
        data = bytes(data) + b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def ipv4_csum(hdr):
    h = bytearray(hdr)
    h[10:12] = b"\0\0"
    return (~ones_sum(h)) & 0xFFFF


def udp_csum(kind, l3hdr, udp_seg):
    """UDP checksum of `udp_seg` (header with csum field zeroed + data)."""
    if kind == "ipv4":
        pseudo = l3hdr[12:20] + struct.pack("!BBH", 0, 17, len(udp_seg))
    else:
        pseudo = l3hdr[8:40] + struct.pack("!IxxxB", len(udp_seg), 17)
    c = (~ones_sum(bytes(pseudo) + bytes(udp_seg))) & 0xFFFF
    return c or 0xFFFF


def mac_text(b):
    return ":".join("%02x" % x for x in b)


def norm_ip(s):
    return str(ipaddress.ip_address(s.strip()))


# --------------------------------------------------------------------------- checks

def own_checks(sp, n, frame, e, bad):
    """Stdlib decode: lengths, ICRC, UDP checksum, padding, extended headers."""
    g = roce_geometry(sp, frame)
    if g is None:
        bad.append((n, "own:classify", e.get("l3"), "not a RoCE frame"))
        return None
    def eq(check, exp, got):
        if exp != got:
            bad.append((n, check, exp, got))
    eq("own:l3", e["l3"], g["l3"])
    eq("own:vlan_valid", int(bool(e["vlan_valid"])), g["vlan_valid"])
    if e["vlan_valid"]:
        eq("own:vlan_pcp", e["vlan_pcp"], g["vlan_pcp"])
        eq("own:vlan_vid", e["vlan_vid"], g["vlan_vid"])
    l3, rl, bth = g["l3off"], g["rl"], g["bth"]
    want_len = max(sp.c["MIN_FRAME"], l3 + rl)
    eq("own:frame_len", want_len, len(frame))
    if len(frame) < l3 + rl or len(frame) < bth + sp.bth_size:
        return g
    if len(frame) > l3 + rl:
        eq("own:min_frame_padding_zero", "00" * (len(frame) - l3 - rl), frame[l3 + rl:].hex())
    op = sp.ops.get(e["opcode"])
    ext = op["ext_bytes"] if op else 0
    eq("own:transport_len", sp.bth_size + ext + e["pay_len"] + e["pad"] + sp.icrc_size, g["tl"])
    if g["l3"] == "ipv4":
        hdr = frame[l3: l3 + sp.size("IPV4")]
        eq("own:ipv4_flags_frag", sp.c["IPV4_FLAGS_DF"], sp.get(frame, l3, "IPV4", "FLAGS_FRAG"))
        eq("own:ipv4_csum", ipv4_csum(hdr), sp.get(frame, l3, "IPV4", "CSUM"))
    else:
        nh = sp.get(frame, l3, "IPV6", "NEXT_HDR")
        eq("own:ip_version", 6, frame[l3] >> 4)
        eq("own:next_header", sp.c["GRH_NXTHDR_IBA"] if g["l3"] == "rocev1" else sp.c["IP_PROTO_UDP"], nh)
    if g["l3"] != "rocev1":
        u = l3 + g["iphdr"]
        eq("own:udp_len", rl - g["iphdr"], sp.get(frame, u, "UDP", "LEN"))
        ck = sp.get(frame, u, "UDP", "CSUM")
        if ck:
            seg = bytearray(frame[u: l3 + rl])
            seg[6:8] = b"\0\0"
            eq("own:udp_csum", udp_csum(g["l3"], frame[l3: l3 + g["iphdr"]], seg), ck)
    got_icrc = bytes(frame[l3 + rl - sp.icrc_size: l3 + rl]).hex()
    eq("own:icrc", icrc(sp, g["l3"], frame[l3: l3 + rl]).hex(), got_icrc)
    if op:
        dec = sp.decode_ext(e["opcode"], frame, bth + sp.bth_size)
        for k, v in dec.items():
            if k.startswith("rsvd_"):
                eq("own:" + k, "00" * (len(v) // 2), v)
            else:
                eq("own:" + k, e[k], v)
        p0 = bth + sp.bth_size + ext
        want, got = bytes.fromhex(e["payload_hex"]), bytes(frame[p0: p0 + e["pay_len"]])
        if want != got:
            k = next((j for j in range(min(len(want), len(got))) if want[j] != got[j]), min(len(want), len(got)))
            bad.append((n, "own:payload", "%d bytes, byte %d = %s" % (len(want), k, want[k:k + 1].hex() or "-"),
                        "byte %d = %s" % (k, got[k:k + 1].hex() or "-")))
    return g


SCAPY = None


def scapy_checks(sp, n, frame, e, g, bad):
    """Scapy: ICRC and IPv4 checksum (RoCEv2/IPv4), BTH/AETH decode (all)."""
    Ether, IP = SCAPY["Ether"], SCAPY["IP"]
    BTH, AETH = SCAPY["BTH"], SCAPY["AETH"]
    end = g["l3off"] + g["rl"]
    try:
        p = Ether(bytes(frame[:end]))      # trimmed: trailer padding fools compute_icrc
    except Exception as x:                 # noqa: BLE001 - report any dissection error
        bad.append((n, "scapy:dissect", "ok", repr(x)))
        return
    if BTH not in p:
        bad.append((n, "scapy:bth", "BTH layer", p.summary()))
        return
    b = p[BTH]
    for check, key, val in (("opcode", "opcode", b.opcode), ("se", "se", b.solicited),
                            ("mig", "mig", b.migreq), ("pad", "pad", b.padcount),
                            ("pkey", "pkey", b.pkey), ("fecn", "fecn", b.fecn),
                            ("becn", "becn", b.becn), ("dst_qpn", "dst_qpn", b.dqpn),
                            ("ack_req", "ack_req", b.ackreq), ("psn", "psn", b.psn)):
        if int(e[key]) != int(val):
            bad.append((n, "scapy:" + check, int(e[key]), int(val)))
    if b.version != sp.c["BTH_TVER"]:
        bad.append((n, "scapy:tver", sp.c["BTH_TVER"], b.version))
    if AETH in p:
        if p[AETH].syndrome != e["aeth_syndrome"]:
            bad.append((n, "scapy:aeth_syndrome", e["aeth_syndrome"], p[AETH].syndrome))
        if p[AETH].msn != e["aeth_msn"]:
            bad.append((n, "scapy:aeth_msn", e["aeth_msn"], p[AETH].msn))
    if g["l3"] != "ipv4":
        return
    want = bytes(frame[end - sp.icrc_size: end]).hex()
    got = b.compute_icrc(None).hex()
    if want != got:
        bad.append((n, "scapy:icrc", got, want))
    ip = p[IP].copy()
    ip.remove_payload()
    stored = ip.chksum
    ip.chksum = None
    rebuilt = IP(bytes(ip)).chksum
    if stored != rebuilt:
        bad.append((n, "scapy:ipv4_csum", rebuilt, stored))


# tshark fields: (name, field).  One run, `-E aggregator=|` separates repeated
# occurrences (e.g. the IMMDT tree and its item share a name; BTH's and DETH's
# reserved bytes are both infiniband.reserved).
TS_FIELDS = [
    "frame.number", "frame.protocols", "eth.dst", "eth.src", "eth.type", "vlan.priority", "vlan.id", "vlan.etype",
    "ip.src", "ip.dst", "ip.dsfield", "ip.ttl", "ip.id", "ip.proto", "ip.checksum.status",
    "ipv6.src", "ipv6.dst", "ipv6.tclass", "ipv6.flow", "ipv6.hlim", "ipv6.nxt",
    "udp.srcport", "udp.dstport",
    "infiniband.grh.ipver", "infiniband.grh.tclass", "infiniband.grh.flowlabel",
    "infiniband.grh.nxthdr", "infiniband.grh.hoplmt", "infiniband.grh.sgid", "infiniband.grh.dgid",
    "infiniband.bth.opcode", "infiniband.bth.se", "infiniband.bth.m", "infiniband.bth.padcnt",
    "infiniband.bth.tver", "infiniband.bth.p_key", "infiniband.reserved", "infiniband.bth.destqp",
    "infiniband.bth.a", "infiniband.bth.psn",
    "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
    "infiniband.aeth.syndrome", "infiniband.aeth.msn",
    "infiniband.atomiceth.swapdt", "infiniband.atomiceth.cmpdt",
    "infiniband.atomicacketh.origremdt", "infiniband.immdt", "infiniband.ieth",
    "infiniband.deth.q_key", "infiniband.deth.srcqp",
    "infiniband.payload", "data.data",
]

# extended header -> [(tshark field, JSON key)]
TS_EXT = {
    "RETH": [("infiniband.reth.va", "reth_va"), ("infiniband.reth.r_key", "reth_rkey"),
             ("infiniband.reth.dmalen", "reth_len")],
    "AETH": [("infiniband.aeth.syndrome", "aeth_syndrome"), ("infiniband.aeth.msn", "aeth_msn")],
    "ATOMICETH": [("infiniband.reth.va", "reth_va"), ("infiniband.reth.r_key", "reth_rkey"),
                  ("infiniband.atomiceth.swapdt", "swap_add"), ("infiniband.atomiceth.cmpdt", "compare")],
    "ATOMICACKETH": [("infiniband.atomicacketh.origremdt", "atomic_orig")],
    "IMMDT": [("infiniband.immdt", "imm:bytes")],
    "IETH": [("infiniband.ieth", "imm:bytes")],
    "DETH": [("infiniband.deth.q_key", "qkey"), ("infiniband.deth.srcqp", "src_qpn")],
    "CNP_RSVD": [],            # tshark shows CNP as "Unknown (129)": own check only
}


def tshark_payload_heuristics():
    """Protocols with a heuristic on infiniband.payload (SMB Direct, iSER,
    NVMe-oF, ...): disabled, so payload bytes stay plain data whatever they
    look like.  `ethertype` is kept: Ethernet itself needs it."""
    try:
        out = subprocess.run(["tshark", "-G", "heuristic-decodes"], capture_output=True,
                             text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    names = []
    for ln in out.splitlines():
        col = ln.split("\t")
        if len(col) >= 2 and col[0] == "infiniband.payload" and col[1] not in ("ethertype", "infiniband"):
            names.append(col[1])
    return names


def run_tshark(pcap):
    cmd = ["tshark", "-n", "-r", pcap, "-o", "ip.check_checksum:TRUE",
           "-T", "fields", "-E", "separator=,", "-E", "aggregator=|", "-E", "quote=n"]
    for proto in tshark_payload_heuristics():
        cmd += ["--disable-protocol", proto]
    for f in TS_FIELDS:
        cmd += ["-e", f]
    # "Ethernet over InfiniBand" reads the first two payload bytes as an EtherType
    r = subprocess.run(cmd + ["--disable-heuristic", "eth_over_ib"], capture_output=True, text=True)
    if r.returncode != 0 and "eth_over_ib" in r.stderr:
        r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("tshark failed (%d): %s" % (r.returncode, r.stderr.strip()[-500:]))
    rows = []
    for ln in r.stdout.splitlines():
        vals = ln.split(",")
        if len(vals) != len(TS_FIELDS):
            raise RuntimeError("tshark line with %d fields, expected %d: %.200s"
                               % (len(vals), len(TS_FIELDS), ln))
        rows.append(dict(zip(TS_FIELDS, vals)))
    return rows


def ts_int(s):
    """tshark numeric text (decimal, 0x.., True/False) -> int; first occurrence."""
    s = s.split("|")[0].strip()
    if s in ("True", "False"):
        return int(s == "True")
    return int(s, 0)


def tshark_checks(sp, n, row, e, bad):
    def eq(check, exp, raw, conv=ts_int):
        if raw == "":
            bad.append((n, "tshark:" + check, exp, "(absent)"))
            return
        try:
            got = conv(raw)
        except ValueError:
            got = raw
        if got != exp:
            bad.append((n, "tshark:" + check, exp, got))

    if "infiniband" not in row["frame.protocols"].split(":"):
        bad.append((n, "tshark:protocols", "...:infiniband", row["frame.protocols"]))
        return
    eq("dst_mac", e["dst_mac"].lower(), row["eth.dst"], str.lower)
    eq("src_mac", e["src_mac"].lower(), row["eth.src"], str.lower)
    if e["vlan_valid"]:
        eq("vlan_pcp", e["vlan_pcp"], row["vlan.priority"])
        eq("vlan_vid", e["vlan_vid"], row["vlan.id"])
    elif row["vlan.id"]:
        bad.append((n, "tshark:vlan", "no tag", row["vlan.id"]))
    l3 = e["l3"]
    if l3 == "ipv4":
        eq("src_ip", norm_ip(e["src_ip"]), row["ip.src"], norm_ip)
        eq("dst_ip", norm_ip(e["dst_ip"]), row["ip.dst"], norm_ip)
        eq("tclass", e["tclass"], row["ip.dsfield"])
        eq("ttl", e["ttl"], row["ip.ttl"])
        eq("ip_id", e["ip_id"], row["ip.id"])
        eq("ip_proto", sp.c["IP_PROTO_UDP"], row["ip.proto"])
        eq("ip_checksum_status(1=good)", 1, row["ip.checksum.status"])
    elif l3 == "ipv6":
        eq("src_ip", norm_ip(e["src_ip"]), row["ipv6.src"], norm_ip)
        eq("dst_ip", norm_ip(e["dst_ip"]), row["ipv6.dst"], norm_ip)
        eq("tclass", e["tclass"], row["ipv6.tclass"])
        eq("flow_label", e["flow_label"], row["ipv6.flow"])
        eq("ttl", e["ttl"], row["ipv6.hlim"])
        eq("ipv6_next_header", sp.c["IP_PROTO_UDP"], row["ipv6.nxt"])
    else:
        eq("ethertype", sp.c["ETHERTYPE_ROCEV1"], row["vlan.etype" if e["vlan_valid"] else "eth.type"])
        eq("grh_ipver", 6, row["infiniband.grh.ipver"])
        eq("src_ip", norm_ip(e["src_ip"]), row["infiniband.grh.sgid"], norm_ip)
        eq("dst_ip", norm_ip(e["dst_ip"]), row["infiniband.grh.dgid"], norm_ip)
        eq("tclass", e["tclass"], row["infiniband.grh.tclass"])
        eq("flow_label", e["flow_label"], row["infiniband.grh.flowlabel"])
        eq("ttl", e["ttl"], row["infiniband.grh.hoplmt"])
        eq("grh_next_header", sp.c["GRH_NXTHDR_IBA"], row["infiniband.grh.nxthdr"])
    if l3 != "rocev1":
        eq("udp_sport", e["udp_sport"], row["udp.srcport"])
        eq("udp_dport", sp.c["UDP_PORT_ROCEV2"], row["udp.dstport"])
    # BTH
    for key, f in (("opcode", "opcode"), ("se", "se"), ("mig", "m"), ("pad", "padcnt"),
                   ("pkey", "p_key"), ("dst_qpn", "destqp"), ("ack_req", "a"), ("psn", "psn")):
        eq(key, int(e[key]), row["infiniband.bth." + f])
    eq("tver", sp.c["BTH_TVER"], row["infiniband.bth.tver"])
    fb = row["infiniband.reserved"].split("|")[0]          # BTH byte 4: FECN BECN resv6
    eq("fecn", int(e["fecn"]), fb, lambda s: int(s, 16) >> 7 & 1)
    eq("becn", int(e["becn"]), fb, lambda s: int(s, 16) >> 6 & 1)
    op = sp.ops.get(e["opcode"])
    if op is None:
        return
    for ext in op["ext"]:
        for field, key in TS_EXT[ext]:
            if key.endswith(":bytes"):
                key = key.split(":")[0]
                eq(key, e[key], row[field], lambda s: int(s.split("|")[0].replace(":", ""), 16))
            else:
                eq(key, e[key], row[field])
    # tshark's payload (data.data, or infiniband.payload) runs to the ICRC: pad included
    got = (row["infiniband.payload"] or row["data.data"]).split("|")[0].replace(":", "").lower()
    want = e["payload_hex"].lower()
    if len(got) != 2 * (e["pay_len"] + e["pad"]) or not got.startswith(want):
        k = next((j for j in range(0, min(len(got), len(want)), 2) if got[j:j + 2] != want[j:j + 2]),
                 min(len(got), len(want))) // 2
        bad.append((n, "tshark:payload", "%d bytes + %d pad (%s...)" % (e["pay_len"], e["pad"], want[:16]),
                    "%d bytes incl. pad, first difference at byte %d (%s...)" % (len(got) // 2, k, got[:16])))


def load_expected(path):
    recs = []
    with open(path) as f:
        for i, ln in enumerate(f, 1):
            if ln.strip():
                try:
                    recs.append(json.loads(ln))
                except json.JSONDecodeError as x:
                    raise ValueError("%s:%d: %s" % (path, i, x)) from None
    return recs


def setup_scapy():
    global SCAPY
    import logging
    logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
    from scapy.layers.l2 import Ether, Dot1Q
    from scapy.layers.inet import IP
    from scapy.packet import Raw, bind_layers
    from scapy.contrib.roce import BTH, AETH, GRH
    bind_layers(Dot1Q, GRH, type=0x8915)       # scapy binds GRH to Ether only
    SCAPY = {"Ether": Ether, "IP": IP, "Raw": Raw, "BTH": BTH, "AETH": AETH, "GRH": GRH}


def tools_or_exit():
    if tomllib is None:
        print("error: needs Python >= 3.11 (tomllib); run with /usr/bin/python3", file=sys.stderr)
        sys.exit(2)
    try:
        setup_scapy()
    except ImportError as x:
        print("error: scapy (python3-scapy, scapy.contrib.roce) not importable by %s: %s\n"
              "       run with /usr/bin/python3 (Debian's python3-scapy)" % (sys.executable, x),
              file=sys.stderr)
        sys.exit(2)
    if shutil.which("tshark") is None:
        print("error: tshark not found on PATH (Debian package tshark)", file=sys.stderr)
        sys.exit(2)


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print("usage: check_tx_pcap.py PCAP EXPECTED_JSONL  (see the module docstring)", file=sys.stderr)
        return 2
    tools_or_exit()
    pcap, jpath = argv[1], argv[2]
    try:
        sp = Spec()
        frames = read_pcap(pcap)
        exp = load_expected(jpath)
        rows = run_tshark(pcap)
    except (OSError, ValueError, RuntimeError) as x:
        print("error: %s" % x, file=sys.stderr)
        return 2

    bad = []
    per_op, per_op_bad = Counter(), Counter()
    passed = failed = 0
    total = max(len(frames), len(exp))
    if len(frames) != len(exp):
        print("warning: pcap has %d frames, %s has %d records" % (len(frames), jpath, len(exp)))
    if len(rows) != len(frames):
        print("warning: tshark gave %d rows for %d frames" % (len(rows), len(frames)))
    for i in range(total):
        n = i + 1
        fb = []
        if i >= len(frames) or i >= len(exp):
            fb.append((n, "frame_count", "frame and record", "missing frame" if i >= len(frames) else "missing record"))
            op_name = "(unmatched)"
        else:
            frame, e = frames[i], exp[i]
            l3 = e.get("l3")
            if isinstance(l3, int) or isinstance(l3, str) and l3.isdigit():   # enum value
                l3 = {v: k for k, v in sp.l3_names.items()}.get(int(l3), l3)
            if isinstance(l3, str):
                e["l3"] = l3.lower()
            missing = [k for k in ALL_KEYS if k not in e]
            op = sp.ops.get(e.get("opcode"))
            op_name = "%s (0x%02x)" % (op["name"], op["value"]) if op else "opcode %r (not in table)" % e.get("opcode")
            if missing:
                fb.append((n, "expected_keys", "all keys", "missing " + ",".join(missing)))
            else:
                if op is None:
                    fb.append((n, "expected_opcode", "opcode in spec/opcodes.toml", e["opcode"]))
                g = own_checks(sp, n, frame, e, fb)
                if g is not None and len(frame) >= g["l3off"] + g["rl"]:
                    scapy_checks(sp, n, frame, e, g, fb)
                if i < len(rows):
                    tshark_checks(sp, n, rows[i], e, fb)
                else:
                    fb.append((n, "tshark:row", "row", "missing"))
        per_op[op_name] += 1
        if fb:
            failed += 1
            per_op_bad[op_name] += 1
            bad.extend(fb)
        else:
            passed += 1

    for name in sorted(per_op, key=lambda s: (s.startswith("("), s.split("(0x")[-1], s)):
        print("%-32s %5d checked, %5d failed" % (name, per_op[name], per_op_bad[name]))
    if bad:
        print("first failing frames (frame, check: expected vs got):")
        shown = []
        for b in bad:
            if b[0] not in shown:
                shown.append(b[0])
        for fnum in shown[:10]:
            mine = [b for b in bad if b[0] == fnum]
            for _, check, want, got in mine[:5]:
                w, g = str(want), str(got)
                if len(w) > 80 or len(g) > 80:
                    w, g = w[:80] + "...", g[:80] + "..."
                print("  frame %d, %s: expected %s, got %s" % (fnum, check, w, g))
            if len(mine) > 5:
                print("  frame %d: ... and %d more" % (fnum, len(mine) - 5))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
