#!/usr/bin/env python3
"""Judge every RoCE frame of a pcap (e.g. the demo's wire capture): Scapy's
BTH.compute_icrc must equal the frame's ICRC (RoCEv2/IPv4), our own stdlib
ICRC must too (every encapsulation), and tshark must decode the file without
a malformed-packet warning.

    /usr/bin/python3 tests/oracle/check_icrc_pcap.py FILE.pcap

Exit 0 and one summary line when every frame is good; 1 with the bad frames
listed otherwise; 2 when a tool is missing.
"""
import subprocess
import sys

import check_tx_pcap as oracle


def main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: check_icrc_pcap.py PCAP", file=sys.stderr)
        return 2
    oracle.tools_or_exit()
    sp = oracle.Spec()
    frames = oracle.read_pcap(argv[1])
    BTH, Ether = oracle.SCAPY["BTH"], oracle.SCAPY["Ether"]
    bad, roce, scapy_ok = [], 0, 0
    for n, frame in enumerate(frames, 1):
        g = oracle.roce_geometry(sp, frame)
        if g is None:
            continue
        roce += 1
        end = g["l3off"] + g["rl"]
        want = bytes(frame[end - sp.icrc_size: end])
        own = oracle.icrc(sp, g["l3"], frame[g["l3off"]: end])
        if own != want:
            bad.append((n, "own ICRC", own.hex(), want.hex()))
        if g["l3"] == "ipv4":
            got = Ether(bytes(frame[:end]))[BTH].compute_icrc(None)
            if got != want:
                bad.append((n, "scapy ICRC", got.hex(), want.hex()))
            else:
                scapy_ok += 1
    out = subprocess.run(["tshark", "-r", argv[1], "-Y", "_ws.malformed || _ws.expert.severity >= error",
                          "--disable-protocol", "rpcordma"], capture_output=True, text=True)
    malformed = [l for l in out.stdout.splitlines() if l.strip()]
    if out.returncode != 0:
        bad.append((0, "tshark", "exit 0", "exit %d: %s" % (out.returncode, out.stderr.strip()[:200])))
    for line in malformed:
        bad.append((0, "tshark malformed", "", line))
    for n, what, expect, got in bad[:20]:
        print("frame %d: %s: expected %s, got %s" % (n, what, expect, got))
    if roce == 0:
        print("no RoCE frames in %s" % argv[1])
        return 1
    print("%d frames, %d RoCE: %d ICRCs good by Scapy (RoCEv2/IPv4), %d by our own ICRC; tshark: %d malformed"
          % (len(frames), roce, scapy_ok, roce - sum(1 for b in bad if b[1] == "own ICRC"), len(malformed)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
