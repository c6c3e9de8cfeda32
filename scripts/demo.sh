#!/usr/bin/env bash
# The demo: RoCE packets of every kind built by the RTL deparser, received by
# the RTL parser, written to a pcap, and decoded by tshark.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
mkdir -p build/demo
build/bin/rocenic-packet-demo build/demo/packets.pcap
echo
# Wireshark's RPC-over-RDMA heuristic claims SEND payloads of a few bytes and
# calls them malformed (see ../shared/golden/README.md); RoCE itself is fine.
tshark_() { tshark --disable-protocol rpcordma -o ip.check_checksum:TRUE "$@" 2>/dev/null; }
echo "== tshark's decoding of build/demo/packets.pcap =="
tshark_ -r build/demo/packets.pcap
echo
echo "== frame 5 (RDMA WRITE LAST with immediate) in full, from the IP header on =="
tshark_ -r build/demo/packets.pcap -V -Y frame.number==5 -O ip,udp,infiniband | sed -n '/^Internet Protocol/,$p'
echo
echo "pcap: build/demo/packets.pcap"
