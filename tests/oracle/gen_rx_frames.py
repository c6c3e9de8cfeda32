#!/usr/bin/python3
"""Build frames for the RX parser, and what the parser must conclude about each.

usage: gen_rx_frames.py OUT_PCAP OUT_JSONL [--seed N] [--no-selfcheck]

Frames are built with Scapy (Ether/Dot1Q/IP/IPv6/UDP/GRH/ARP/TCP); transport
headers come from spec/opcodes.toml and spec/headers.toml; the ICRC is this
directory's own stdlib computation (check_tx_pcap.icrc), which Scapy
cross-checks on RoCEv2/IPv4 in the self-check.

OUT_JSONL: one object per frame, pcap order:
  verdict  "accept" | "bypass" | "drop"
  reason   "NONE" or the spec/constants.toml enum.drop name the parser counts
  what     short description
  and the header fields set (keys as in check_tx_pcap.py: l3, vlan_*, *_mac,
  src_ip/dst_ip as text, tclass, ttl, flow_label, ip_id, udp_sport, opcode,
  se, mig, pad, pkey, fecn, becn, dst_qpn, ack_req, psn, reth_*, swap_add,
  compare, atomic_orig, aeth_*, imm, qkey, src_qpn, pay_len, payload_hex)
  plus tver.  Keys of headers a frame does not carry are 0; `l3` is null on
  bypass frames that are neither IPv4 nor IPv6.  On drop frames the fields
  are those the frame was built from (a truncated frame may not hold them).

Labels follow the parser's check order (first failing check wins):
classify -> TRUNCATED -> IP_CSUM -> IP_HDR -> LEN (UDP len, tl<16, tl%4) ->
TVER -> OPCODE -> LEN (ext headers) -> LEN (payload on a no-payload opcode)
-> PAD -> TOO_LONG -> ICRC.  Frames are shuffled (deterministically for the
seed) so drops and bypasses sit between accepted frames.
"""

import argparse
import ipaddress
import json
import os
import random
import struct
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_tx_pcap as ox  # noqa: E402  spec loader, ICRC, pcap I/O

# payload sizes for LAST/ONLY opcodes: every pad count, the 4096 edge
SIZES = [0, 1, 2, 3, 4, 5, 255, 1024, 4093, 4094, 4095, 4096]
# FIRST/MIDDLE packets carry 4-byte multiples
FM_SIZES = [4, 8, 256, 1024, 4092, 4096]
ENCAPS = [("ipv4", 0), ("ipv4", 1), ("ipv6", 0), ("ipv6", 1), ("rocev1", 0), ("rocev1", 1)]


class Gen:
    def __init__(self, seed):
        self.sp = ox.Spec()
        self.rng = random.Random(seed)
        self.out = []          # (frame bytes, record)
        from scapy.layers.l2 import Ether, Dot1Q, ARP
        from scapy.layers.inet import IP, UDP, TCP
        from scapy.layers.inet6 import IPv6, IPv6ExtHdrHopByHop
        from scapy.packet import Raw
        from scapy.contrib.roce import GRH
        self.L = dict(Ether=Ether, Dot1Q=Dot1Q, ARP=ARP, IP=IP, UDP=UDP, TCP=TCP, IPv6=IPv6,
                      HBH=IPv6ExtHdrHopByHop, Raw=Raw, GRH=GRH)

    # ------------------------------------------------------------------ fields
    def mac(self):
        b = bytes([0x02]) + self.rng.randbytes(5)
        return ox.mac_text(b)

    def ip6(self):
        r = self.rng.random()
        if r < 0.15:       # IPv4-mapped GID
            b = bytes(10) + b"\xff\xff" + bytes([10]) + self.rng.randbytes(3)
        elif r < 0.3:
            b = b"\xfe\x80" + bytes(6) + self.rng.randbytes(8)
        else:
            b = b"\xfd" + self.rng.randbytes(15)
        return str(ipaddress.IPv6Address(b))

    def fields(self, l3, vlan, opcode):
        r, sp = self.rng, self.sp
        f = {k: 0 for k in ox.ALL_KEYS}
        f.update(l3=l3, vlan_valid=vlan, vlan_pcp=r.randrange(8) if vlan else 0,
                 vlan_vid=r.randrange(1, 4095) if vlan else 0,
                 dst_mac=self.mac(), src_mac=self.mac(),
                 tclass=r.randrange(256), ttl=r.randrange(1, 256),
                 opcode=opcode, se=r.randrange(2), mig=r.randrange(2),
                 pkey=sp.c["DEFAULT_PKEY"] if r.random() < 0.5 else r.randrange(1 << 16),
                 fecn=r.randrange(2), becn=r.randrange(2), dst_qpn=r.randrange(1 << 24),
                 ack_req=r.randrange(2), psn=r.randrange(1 << 24), tver=sp.c["BTH_TVER"],
                 payload_hex="")
        if l3 == "ipv4":
            f.update(src_ip="10.%d.%d.%d" % tuple(r.randbytes(3)),
                     dst_ip="192.168.%d.%d" % tuple(r.randbytes(2)),
                     ip_id=r.randrange(1 << 16))
        else:
            f.update(src_ip=self.ip6(), dst_ip=self.ip6(), flow_label=r.randrange(1 << 20))
        if l3 != "rocev1":
            f["udp_sport"] = sp.c["ROCE_SPORT_BASE"] | r.randrange(1 << 14)
        op = sp.ops.get(opcode)
        for e in (op["ext"] if op else []):
            for field, (_, width) in sp.hdr[e]["fields"].items():
                f[ox.EXT_KEY[(e, field)]] = r.randrange(1 << width)
        return f

    def set_payload(self, f, n, pad=None):
        f["pay_len"] = n
        f["pad"] = (-n) & 3 if pad is None else pad
        f["payload_hex"] = self.rng.randbytes(n).hex()

    # ------------------------------------------------------------------ build
    def transport(self, f, extra=b""):
        """BTH + extended headers + payload + pad bytes (no ICRC)."""
        sp = self.sp
        bth = bytearray(sp.bth_size)
        sp.put(bth, 0, "BTH", "OPCODE", f["opcode"])
        # FLAGS: SE[7] M[6] PadCnt[5:4] TVer[3:0]
        sp.put(bth, 0, "BTH", "FLAGS", f["se"] << 7 | f["mig"] << 6 | (f["pad"] & 3) << 4 | f["tver"] & 15)
        sp.put(bth, 0, "BTH", "PKEY", f["pkey"])
        sp.put(bth, 0, "BTH", "FB_RSVD", f["fecn"] << 7 | f["becn"] << 6)   # resv6 = 0
        sp.put(bth, 0, "BTH", "DEST_QP", f["dst_qpn"])
        sp.put(bth, 0, "BTH", "ACK_PSN", f["ack_req"] << 31 | f["psn"])
        ext = sp.ext_bytes(f["opcode"], f) if f["opcode"] in sp.ops else b""
        return bytes(bth) + ext + bytes.fromhex(f["payload_hex"]) + bytes(f["pad"]) + extra

    def l2(self, f, ethertype):
        L = self.L
        if f["vlan_valid"]:
            return (L["Ether"](dst=f["dst_mac"], src=f["src_mac"], type=self.sp.c["ETHERTYPE_VLAN"])
                    / L["Dot1Q"](prio=f["vlan_pcp"], vlan=f["vlan_vid"], type=ethertype))
        return L["Ether"](dst=f["dst_mac"], src=f["src_mac"], type=ethertype)

    def frame(self, f, tp, udp_len=None, udp_csum=0, grh_nh=None, grh_ver=6, dport=None,
              ipv4_flags=None, good_icrc=True):
        """Frame bytes for fields f and transport bytes tp (ICRC appended)."""
        L, sp, c = self.L, self.sp, self.sp.c
        dport = c["UDP_PORT_ROCEV2"] if dport is None else dport
        icrc_ph = b"\0" * sp.icrc_size
        # the IPv4 flags the parser must report (roce_rx_hdr ip_flags: reserved, DF, MF)
        f["ip_flags"] = ((c["IPV4_FLAGS_DF"] if ipv4_flags is None else ipv4_flags) >> 13) if f["l3"] == "ipv4" else 0

        def pkt(icrc):
            body = L["Raw"](tp + icrc)
            if f["l3"] == "ipv4":
                flags = c["IPV4_FLAGS_DF"] if ipv4_flags is None else ipv4_flags
                return (self.l2(f, c["ETHERTYPE_IPV4"])
                        / L["IP"](tos=f["tclass"], ttl=f["ttl"], id=f["ip_id"], flags=flags >> 13,
                                  frag=flags & 0x1FFF, proto=c["IP_PROTO_UDP"],
                                  src=f["src_ip"], dst=f["dst_ip"])
                        / L["UDP"](sport=f["udp_sport"], dport=dport, len=udp_len, chksum=udp_csum)
                        / body)
            if f["l3"] == "ipv6":
                return (self.l2(f, c["ETHERTYPE_IPV6"])
                        / L["IPv6"](tc=f["tclass"], fl=f["flow_label"], hlim=f["ttl"],
                                    nh=c["IP_PROTO_UDP"], src=f["src_ip"], dst=f["dst_ip"])
                        / L["UDP"](sport=f["udp_sport"], dport=dport, len=udp_len, chksum=udp_csum)
                        / body)
            return (self.l2(f, c["ETHERTYPE_ROCEV1"])
                    / L["GRH"](ipver=grh_ver, tclass=f["tclass"], flowlabel=f["flow_label"],
                               paylen=len(tp) + sp.icrc_size,
                               nexthdr=c["GRH_NXTHDR_IBA"] if grh_nh is None else grh_nh,
                               hoplmt=f["ttl"], sgid=int(ipaddress.IPv6Address(f["src_ip"])),
                               dgid=int(ipaddress.IPv6Address(f["dst_ip"])))
                    / body)

        raw = bytes(pkt(icrc_ph))
        g = self.geom(raw, f)
        l3, rl = g
        icrc = ox.icrc(sp, f["l3"], raw[l3: l3 + rl]) if good_icrc else icrc_ph
        # ICRC masks the UDP checksum: the rebuild (udp_csum=None recomputes it) keeps it valid
        return bytearray(bytes(pkt(icrc)))

    def geom(self, raw, f):
        sp = self.sp
        l3 = sp.size("ETH") + (sp.size("VLAN") if f["vlan_valid"] else 0)
        if f["l3"] == "ipv4":
            return l3, sp.get(raw, l3, "IPV4", "TOTAL_LEN")
        return l3, sp.size("IPV6") + sp.get(raw, l3, "IPV6", "PAYLOAD_LEN")

    def emit(self, fr, f, verdict, reason, what, pad60=True):
        if pad60 and len(fr) < self.sp.c["MIN_FRAME"]:
            fr = bytes(fr) + bytes(self.sp.c["MIN_FRAME"] - len(fr))
        rec = {"verdict": verdict, "reason": reason, "what": what}
        assert reason in self.sp.drop, reason
        rec.update({k: f[k] for k in ox.ALL_KEYS})
        rec["tver"] = f["tver"]
        rec["ip_flags"] = f.get("ip_flags", 0)
        self.out.append((bytes(fr), rec))

    def fix_ipv4_csum(self, fr, l3):
        sp = self.sp
        sp.put(fr, l3, "IPV4", "CSUM", ox.ipv4_csum(fr[l3: l3 + sp.size("IPV4")]))

    def refresh_icrc(self, fr, f):
        l3, rl = self.geom(fr, f)
        fr[l3 + rl - 4: l3 + rl] = ox.icrc(self.sp, f["l3"], fr[l3: l3 + rl])

    def udp_csum_choice(self, f):
        # IPv4: mostly 0 as RoCE NICs send, sometimes a valid one; IPv6: 0
        return None if f["l3"] == "ipv4" and self.rng.random() < 0.3 else 0

    # ------------------------------------------------------------------ good frames
    def good(self):
        sp, r = self.sp, self.rng
        for i, (val, op) in enumerate(sorted(sp.ops.items())):
            for k, (l3, vlan) in enumerate(ENCAPS):
                if not op["payload"]:
                    sizes = [0, 0]
                elif op["seg"] in ("first", "middle"):
                    sizes = [FM_SIZES[(k + i) % len(FM_SIZES)], 4 * r.randint(1, 1024)]
                else:
                    j = (2 * (k + i)) % len(SIZES)
                    sizes = [SIZES[j], SIZES[j + 1], r.randint(6, 4092)]
                for n in sizes:
                    f = self.fields(l3, vlan, val)
                    self.set_payload(f, n)
                    flags = None
                    if l3 == "ipv4" and r.random() < 0.1:
                        flags = 0                      # DF clear: still no fragment
                    fr = self.frame(f, self.transport(f), udp_csum=self.udp_csum_choice(f),
                                    ipv4_flags=flags)
                    self.emit(fr, f, "accept", "NONE", "%s %s%s pay %d%s" % (
                        op["name"], l3, "+vlan" if vlan else "", n, " DF clear" if flags == 0 else ""))
        # bytes after the IP-declared end are ignored
        for l3, vlan, op, n in (("ipv4", 0, "RC_SEND_ONLY", 0), ("ipv4", 1, "RC_WRITE_ONLY", 37),
                                ("ipv6", 0, "UD_SEND_ONLY", 100), ("rocev1", 0, "RC_ACK", 0),
                                ("rocev1", 1, "RC_SEND_LAST", 3)):
            f = self.fields(l3, vlan, self.opval(op))
            self.set_payload(f, n if sp.ops[f["opcode"]]["payload"] else 0)
            fr = self.frame(f, self.transport(f))
            fr += bytes(max(0, 60 - len(fr))) + r.randbytes(r.randint(1, 12))
            self.emit(fr, f, "accept", "NONE", "%s %s trailing bytes after IP end" % (op, l3))

    def opval(self, name):
        return next(v for v, o in self.sp.ops.items() if o["name"] == name)

    def pick(self, l3, vlan, pred=lambda o: True, n=None):
        """Random table opcode satisfying pred, fields, payload of n bytes (random if None)."""
        ops = [v for v, o in sorted(self.sp.ops.items()) if pred(o)]
        f = self.fields(l3, vlan, self.rng.choice(ops))
        op = self.sp.ops[f["opcode"]]
        if not op["payload"]:
            n = 0
        elif n is None:
            n = self.rng.randint(1, 600)
        if op["seg"] in ("first", "middle"):
            n -= n % 4
        self.set_payload(f, n)
        return f

    # ------------------------------------------------------------------ drop frames
    def bad(self):
        sp, r = self.sp, self.rng
        with_pay = lambda o: o["payload"]                          # noqa: E731
        only_last = lambda o: o["payload"] and o["seg"] in ("last", "only")  # noqa: E731

        for l3, vlan in ENCAPS:
            tag = l3 + ("+vlan" if vlan else "")
            # ICRC: one ICRC byte flipped; one payload byte flipped; one header byte flipped
            for _ in range(2):
                f = self.pick(l3, vlan)
                fr = self.frame(f, self.transport(f), udp_csum=self.udp_csum_choice(f))
                l3o, rl = self.geom(fr, f)
                b = r.randrange(4)
                fr[l3o + rl - 4 + b] ^= 1 << r.randrange(8)
                self.emit(fr, f, "drop", "ICRC", "%s ICRC byte %d flipped" % (tag, b))
            for _ in range(2):
                f = self.pick(l3, vlan, with_pay, r.randint(1, 1500))
                fr = self.frame(f, self.transport(f))
                l3o, rl = self.geom(fr, f)
                pstart = l3o + rl - 4 - f["pad"] - f["pay_len"]
                fr[pstart + r.randrange(f["pay_len"])] ^= 1 << r.randrange(8)
                self.emit(fr, f, "drop", "ICRC", "%s payload byte flipped" % tag)
            f = self.pick(l3, vlan)
            tp = self.transport(f)
            fr = self.frame(f, tp)
            l3o, rl = self.geom(fr, f)
            bth = l3o + rl - sp.icrc_size - len(tp)
            fr[bth + sp.off("BTH", "ACK_PSN") + 1 + r.randrange(3)] ^= 1 << r.randrange(8)   # PSN
            self.emit(fr, f, "drop", "ICRC", "%s BTH PSN bit flipped" % tag)

            # TRUNCATED: cut in the middle of the BTH (not padded: a short frame)
            for _ in range(2):
                f = self.pick(l3, vlan)
                fr = self.frame(f, self.transport(f))
                l3o, rl = self.geom(fr, f)
                bth = l3o + rl - len(self.transport(f)) - 4
                self.emit(fr[:bth + r.randint(1, 11)], f, "drop", "TRUNCATED",
                          "%s cut inside the BTH" % tag, pad60=False)
            # TRUNCATED: cut before the IP-declared end (1 byte, the ICRC, half the payload)
            for cut in ("1", "4", "half"):
                f = self.pick(l3, vlan, with_pay, r.randint(40, 2000))
                fr = self.frame(f, self.transport(f))
                l3o, rl = self.geom(fr, f)
                end = l3o + rl
                new = end - (int(cut) if cut != "half" else (f["pay_len"] + 4) // 2)
                self.emit(fr[:new], f, "drop", "TRUNCATED", "%s cut %s bytes before IP end"
                          % (tag, end - new), pad60=False)

            # LEN: transport length not a multiple of 4 (payload bytes without pad)
            f = self.pick(l3, vlan, only_last, r.randint(1, 300))
            x = r.randint(1, 3)
            fr = self.frame(f, self.transport(f, extra=bytes(x)))
            self.emit(fr, f, "drop", "LEN", "%s transport length %%4 == %d" % (tag, (f["pay_len"] + f["pad"] + x) % 4))
            # LEN: payload on an opcode that carries none
            f = self.pick(l3, vlan, lambda o: not o["payload"])
            x = 4 * r.randint(1, 4)
            fr = self.frame(f, self.transport(f, extra=r.randbytes(x)))
            self.emit(fr, f, "drop", "LEN", "%s %d payload bytes on %s" % (tag, x, sp.ops[f["opcode"]]["name"]))
            # TOO_LONG
            n, pad = r.choice([(4100, 0), (4097, 3), (4200, 0), (4099, 1)])
            f = self.pick(l3, vlan, only_last, n)
            fr = self.frame(f, self.transport(f))
            self.emit(fr, f, "drop", "TOO_LONG", "%s payload %d" % (tag, n))

        # LEN: transport shorter than BTH + ICRC (BTH only, no ICRC bytes)
        for l3, vlan in ENCAPS[::2]:
            f = self.pick(l3, vlan, lambda o: not o["ext"] and o["payload"], 0)
            tp = self.transport(f)[:8]
            fr = self.frame(f, tp, good_icrc=False)          # 8 BTH bytes + 4 = a 12-byte transport
            self.emit(fr, f, "drop", "LEN", "%s transport 12 bytes (< BTH+ICRC)" % l3)
        # LEN: extended headers cut by the IP length (tl >= 16, %4 == 0, < 12+ext+4)
        for l3, vlan, name in (("ipv4", 0, "RC_WRITE_ONLY"), ("ipv6", 1, "RC_CMP_SWAP"),
                               ("rocev1", 0, "UD_SEND_ONLY_IMM"), ("ipv4", 1, "RC_ATOMIC_ACK")):
            f = self.fields(l3, vlan, self.opval(name))
            self.set_payload(f, 0)
            ext = sp.ops[f["opcode"]]["ext_bytes"]
            keep = 4 * r.randrange(0, ext // 4)
            tp = self.transport(f)[:sp.bth_size + keep]
            fr = self.frame(f, tp)
            self.emit(fr, f, "drop", "LEN", "%s %s with %d of %d ext bytes" % (l3, name, keep, ext))
        # LEN: UDP length inconsistent with the IP length
        for l3, vlan, d in (("ipv4", 0, 4), ("ipv4", 1, -4), ("ipv4", 0, 1), ("ipv6", 0, -4),
                            ("ipv6", 1, 4), ("ipv6", 0, 2)):
            f = self.pick(l3, vlan, only_last, r.randint(8, 300))
            tp = self.transport(f)
            udp_len = sp.size("UDP") + len(tp) + sp.icrc_size + d
            fr = self.frame(f, tp, udp_len=udp_len)
            self.emit(fr, f, "drop", "LEN", "%s UDP length %+d vs IP length" % (l3, d))

        # IP_CSUM
        for vlan in (0, 1, 0, 1):
            f = self.pick("ipv4", vlan)
            fr = self.frame(f, self.transport(f))
            l3o = self.geom(fr, f)[0]
            ck = sp.get(fr, l3o, "IPV4", "CSUM")
            sp.put(fr, l3o, "IPV4", "CSUM", ck ^ (1 << r.randrange(16)))
            self.emit(fr, f, "drop", "IP_CSUM", "ipv4%s header checksum wrong" % ("+vlan" if vlan else ""))

        # IP_HDR: RoCEv1 GRH next header != 0x1B or version != 6 (ICRC recomputed)
        for vlan, nh, ver in ((0, 0x11, 6), (1, 0x3B, 6), (0, 0x06, 6), (0, 0x1B, 4), (1, 0x1B, 7)):
            f = self.pick("rocev1", vlan)
            fr = self.frame(f, self.transport(f), grh_nh=nh, grh_ver=ver)
            self.emit(fr, f, "drop", "IP_HDR", "rocev1 GRH version %d next header 0x%02x" % (ver, nh))

        # TVER != 0
        for i, (l3, vlan) in enumerate(ENCAPS + ENCAPS[:2]):
            f = self.pick(l3, vlan)
            f["tver"] = [1, 1, 2, 15, 1, 8, 3, 1][i]
            fr = self.frame(f, self.transport(f))
            self.emit(fr, f, "drop", "TVER", "%s BTH TVer %d" % (l3, f["tver"]))

        # OPCODE: every value not in the table, with consistent lengths and a good ICRC
        unknown = [v for v in range(256) if v not in sp.ops]
        for i, v in enumerate(unknown):
            l3, vlan = ENCAPS[i % len(ENCAPS)]
            f = self.fields(l3, vlan, v)
            self.set_payload(f, 4 * r.randint(1, 16), pad=0)
            fr = self.frame(f, self.transport(f))
            self.emit(fr, f, "drop", "OPCODE", "%s unknown opcode 0x%02x" % (l3, v))

        # PAD: pad count on FIRST/MIDDLE packets (pay + pad keeps tl % 4 == 0)
        fm = [v for v, o in sorted(sp.ops.items()) if o["seg"] in ("first", "middle")]
        for i, v in enumerate(fm):
            l3, vlan = ENCAPS[i % len(ENCAPS)]
            f = self.fields(l3, vlan, v)
            pad = r.randint(1, 3)
            self.set_payload(f, 4 * r.randint(1, 256) - pad, pad=pad)
            fr = self.frame(f, self.transport(f))
            self.emit(fr, f, "drop", "PAD", "%s %s pad %d" % (l3, sp.ops[v]["name"], pad))
        # PAD: pad larger than the payload (pwp = 0), on payload and no-payload opcodes
        for i, (l3, vlan) in enumerate(ENCAPS):
            f = self.pick(l3, vlan, only_last if i % 2 == 0 else (lambda o: not o["payload"]), 0)
            f["pad"] = r.randint(1, 3)
            f["pay_len"] = 0
            tp = self.transport(f)[: -f["pad"]]                   # pad count set, no pad bytes
            fr = self.frame(f, tp)
            self.emit(fr, f, "drop", "PAD", "%s %s pad %d > payload 0" % (
                l3, sp.ops[f["opcode"]]["name"], f["pad"]))

    # ------------------------------------------------------------------ bypass frames
    def bypass(self):
        sp, r, L, c = self.sp, self.rng, self.L, self.sp.c
        for l3, vlan, port in (("ipv4", 0, 4790), ("ipv4", 1, 4792), ("ipv6", 0, 4790), ("ipv6", 1, 4792)):
            f = self.pick(l3, vlan)
            fr = self.frame(f, self.transport(f), dport=port)
            self.emit(fr, f, "bypass", "NONE", "%s UDP dport %d, RoCE content" % (l3, port))
        for vlan in (0, 1):
            f = self.fields("ipv4", vlan, 0)
            p = self.l2(f, 0x0806) / L["ARP"](hwsrc=f["src_mac"], psrc=f["src_ip"], pdst=f["dst_ip"])
            self.emit(bytes(p), self.nonroce(f, None), "bypass", "NONE", "ARP request")
        f = self.fields("ipv4", 0, 0)
        p = (self.l2(f, c["ETHERTYPE_IPV4"]) / L["IP"](src=f["src_ip"], dst=f["dst_ip"], ttl=64, id=1)
             / L["TCP"](sport=18515, dport=c["UDP_PORT_ROCEV2"]) / L["Raw"](r.randbytes(40)))
        self.emit(bytes(p), self.nonroce(f, "ipv4"), "bypass", "NONE", "IPv4 TCP to port 4791")
        f = self.fields("ipv6", 1, 0)
        p = (self.l2(f, c["ETHERTYPE_IPV6"]) / L["IPv6"](src=f["src_ip"], dst=f["dst_ip"])
             / L["TCP"](sport=18515, dport=c["UDP_PORT_ROCEV2"]) / L["Raw"](r.randbytes(40)))
        self.emit(bytes(p), self.nonroce(f, "ipv6"), "bypass", "NONE", "IPv6 TCP to port 4791")
        # IPv4 with options (IHL 6) to 4791
        for vlan in (0, 1):
            f = self.pick("ipv4", vlan)
            tp = self.transport(f)
            p = (self.l2(f, c["ETHERTYPE_IPV4"])
                 / L["IP"](tos=f["tclass"], ttl=f["ttl"], id=f["ip_id"], flags="DF", src=f["src_ip"],
                           dst=f["dst_ip"], options=[b"\x01\x01\x01\x00"])   # NOP NOP NOP EOL
                 / L["UDP"](sport=f["udp_sport"], dport=c["UDP_PORT_ROCEV2"], chksum=0)
                 / L["Raw"](tp + bytes(4)))
            self.emit(bytes(p), f, "bypass", "NONE", "IPv4 IHL 6 (options) to 4791")
        # IPv4 fragments to 4791: first fragment (MF) and a later one (offset != 0)
        for flags, what in ((0x2000, "MF set, offset 0"), (0x0000 | 185, "offset 185*8"),
                            (0x4000 | 0x2000, "DF+MF set")):
            f = self.pick("ipv4", r.randrange(2))
            fr = self.frame(f, self.transport(f), ipv4_flags=flags)
            self.emit(fr, f, "bypass", "NONE", "IPv4 fragment to 4791 (%s)" % what)
        # IPv6 with a hop-by-hop header before UDP 4791
        f = self.pick("ipv6", 0)
        p = (self.l2(f, c["ETHERTYPE_IPV6"]) / L["IPv6"](src=f["src_ip"], dst=f["dst_ip"], hlim=f["ttl"])
             / L["HBH"]() / L["UDP"](sport=f["udp_sport"], dport=c["UDP_PORT_ROCEV2"], chksum=0)
             / L["Raw"](self.transport(f) + bytes(4)))
        self.emit(bytes(p), f, "bypass", "NONE", "IPv6 hop-by-hop then UDP 4791")
        # IPv6 EtherType but IP version 4 in the header
        f = self.pick("ipv6", 0)
        fr = self.frame(f, self.transport(f))
        l3o = self.geom(fr, f)[0]
        fr[l3o] = 0x40 | (fr[l3o] & 0x0F)
        self.emit(fr, f, "bypass", "NONE", "EtherType 0x86DD with IP version 4")
        # a second 802.1Q tag or an 802.1ad S-tag in front of RoCE: not classified
        for outer in (c["ETHERTYPE_VLAN"], 0x88A8):
            f = self.pick("ipv4", 1)
            fr = self.frame(f, self.transport(f))
            e = sp.size("ETH")
            tag = struct.pack("!HH", outer, r.randrange(1, 4095))
            fr = fr[:e - 2] + tag + fr[e - 2:]            # outer tag, then the original 0x8100 tag
            self.emit(fr, self.nonroce(f, "ipv4"), "bypass", "NONE",
                      "RoCE behind two tags (outer 0x%04x)" % outer)
        # an unrelated EtherType (LLDP) and runt frames
        f = self.fields("ipv4", 0, 0)
        p = self.l2(f, 0x88CC) / L["Raw"](r.randbytes(46))
        self.emit(bytes(p), self.nonroce(f, None), "bypass", "NONE", "LLDP EtherType 0x88CC")
        for n in (20, 13):
            f = self.fields("ipv4", 0, 0)
            fr = bytes(self.l2(f, c["ETHERTYPE_IPV4"])) + r.randbytes(n)
            self.emit(fr[:n], self.nonroce(f, None), "bypass", "NONE", "runt frame of %d bytes" % n,
                      pad60=False)

    def nonroce(self, f, l3):
        """Fields of a bypass frame that carries no RoCE transport."""
        g = {k: 0 for k in ox.ALL_KEYS}
        g.update(l3=l3, payload_hex="", tver=0)
        for k in ("vlan_valid", "vlan_pcp", "vlan_vid", "dst_mac", "src_mac"):
            g[k] = f[k]
        if l3:
            g.update(src_ip=f["src_ip"], dst_ip=f["dst_ip"])
        else:
            g.update(src_ip="", dst_ip="")
        return g


def label(sp, fr):
    """The parser's verdict re-derived from the frame bytes alone (the check
    order of the module doc), independent of how the frame was built."""
    g = ox.roce_geometry(sp, fr)
    if g is None:
        return "bypass", "NONE"
    l3, rl, bth, tl, kind = g["l3off"], g["rl"], g["bth"], g["tl"], g["l3"]
    if len(fr) < l3 + rl or len(fr) < bth + sp.bth_size:
        return "drop", "TRUNCATED"
    if kind == "ipv4" and ox.ipv4_csum(fr[l3: l3 + sp.size("IPV4")]) != sp.get(fr, l3, "IPV4", "CSUM"):
        return "drop", "IP_CSUM"
    if kind == "rocev1" and (fr[l3] >> 4 != 6 or sp.get(fr, l3, "IPV6", "NEXT_HDR") != sp.c["GRH_NXTHDR_IBA"]):
        return "drop", "IP_HDR"
    if kind != "rocev1" and sp.get(fr, l3 + g["iphdr"], "UDP", "LEN") != rl - g["iphdr"]:
        return "drop", "LEN"
    if tl < sp.bth_size + sp.icrc_size or tl % 4:
        return "drop", "LEN"
    flags = sp.get(fr, bth, "BTH", "FLAGS")
    if flags & 0x0F != sp.c["BTH_TVER"]:
        return "drop", "TVER"
    op = sp.ops.get(sp.get(fr, bth, "BTH", "OPCODE"))
    if op is None:
        return "drop", "OPCODE"
    if tl < sp.bth_size + op["ext_bytes"] + sp.icrc_size:
        return "drop", "LEN"
    pwp = tl - sp.bth_size - sp.icrc_size - op["ext_bytes"]
    if not op["payload"] and pwp:
        return "drop", "LEN"
    pad = flags >> 4 & 3
    if (pad and op["seg"] in ("first", "middle")) or pad > pwp:
        return "drop", "PAD"
    if pwp - pad > sp.c["MAX_PAYLOAD"]:
        return "drop", "TOO_LONG"
    if ox.icrc(sp, kind, fr[l3: l3 + rl]) != fr[l3 + rl - sp.icrc_size: l3 + rl]:
        return "drop", "ICRC"
    return "accept", "NONE"


def selfcheck(sp, pcap, recs, frames):
    """Labels agree with label() re-derived from the bytes; Scapy's ICRC
    agrees on RoCEv2/IPv4 accept frames; tshark decodes every accept frame
    with the opcode set."""
    errors = []
    from scapy.layers.l2 import Ether
    from scapy.contrib.roce import BTH
    for i, (fr, rec) in enumerate(zip(frames, recs), 1):
        got = label(sp, fr)
        if got != (rec["verdict"], rec["reason"]):
            errors.append("frame %d (%s): labelled %s/%s, bytes say %s/%s"
                          % (i, rec["what"], rec["verdict"], rec["reason"], got[0], got[1]))
        if rec["verdict"] != "accept" or got[0] != "accept":
            continue
        g = ox.roce_geometry(sp, fr)
        l3, rl = g["l3off"], g["rl"]
        if g["l3"] == "ipv4":
            p = Ether(fr[:l3 + rl])
            if p[BTH].compute_icrc(None) != fr[l3 + rl - 4: l3 + rl]:
                errors.append("frame %d: scapy ICRC mismatch" % i)
    try:
        out = subprocess.run(["tshark", "-n", "-r", pcap, "-T", "fields", "-e", "infiniband.bth.opcode"],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError) as x:
        print("warning: tshark self-check skipped: %s" % x, file=sys.stderr)
        return errors
    for i, rec in enumerate(recs):
        if rec["verdict"] == "accept":
            got = out[i].split(",")[0] if i < len(out) else ""
            if got != str(rec["opcode"]):
                errors.append("frame %d (%s): tshark opcode %r" % (i + 1, rec["what"], got))
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_pcap")
    ap.add_argument("out_jsonl")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-selfcheck", action="store_true")
    a = ap.parse_args()
    if ox.tomllib is None:
        print("error: needs Python >= 3.11 (tomllib); run with /usr/bin/python3", file=sys.stderr)
        return 2
    try:
        import logging
        logging.getLogger("scapy.runtime").setLevel(logging.ERROR)
        g = Gen(a.seed)
    except ImportError as x:
        print("error: scapy not importable by %s: %s; run with /usr/bin/python3" % (sys.executable, x),
              file=sys.stderr)
        return 2
    g.good()
    g.bad()
    g.bypass()
    g.rng.shuffle(g.out)
    frames = [fr for fr, _ in g.out]
    recs = [rec for _, rec in g.out]
    ox.write_pcap(a.out_pcap, frames)
    with open(a.out_jsonl, "w") as f:
        for rec in recs:
            f.write(json.dumps(rec, sort_keys=False) + "\n")
    cats = {}
    for rec in recs:
        key = rec["verdict"] + ("" if rec["reason"] == "NONE" else " " + rec["reason"])
        cats[key] = cats.get(key, 0) + 1
    for k in sorted(cats):
        print("%-16s %5d" % (k, cats[k]))
    print("total            %5d frames -> %s, %s" % (len(recs), a.out_pcap, a.out_jsonl))
    if not a.no_selfcheck:
        errs = selfcheck(g.sp, a.out_pcap, recs, frames)
        for e in errs[:20]:
            print("self-check: " + e, file=sys.stderr)
        if errs:
            print("self-check FAILED: %d problems" % len(errs), file=sys.stderr)
            return 1
        print("self-check ok: labels re-derived, ICRC (own + scapy on IPv4) valid, "
              "tshark opcode matches on every accept frame")
    return 0


if __name__ == "__main__":
    sys.exit(main())
