#!/usr/bin/env bash
# The demo: two simulated hosts, each an unmodified ibv_rc_pingpong on its own
# rocenic engine (the Verilated RTL), joined by a simulated wire; the wire's
# frames go to a pcap that tshark decodes and Scapy checks (every ICRC).
#   scripts/demo.sh [model|rtl|cosim]      (default rtl)
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:-rtl}
scripts/build.sh
mkdir -p build/demo
pcap=build/demo/pingpong.pcap
wire=demo-$$
rm -f "$pcap"
run=build/bin/rocenic-run
args=(-g 3 -n 100 -s 4096 -c)
echo "== ibv_rc_pingpong ${args[*]} between 10.0.0.1 (server) and 10.0.0.2 (client) on the $backend backend =="
$run --backend "$backend" --wire "$wire" --ip 10.0.0.1 --pcap "$pcap" -- ibv_rc_pingpong "${args[@]}" \
  > build/demo/server.txt 2>&1 &
server=$!
sleep 1
status=0
$run --backend "$backend" --wire "$wire" --ip 10.0.0.2 -- ibv_rc_pingpong "${args[@]}" 127.0.0.1 \
  > build/demo/client.txt 2>&1 || status=$?
wait $server || status=$?
echo "-- server --"; cat build/demo/server.txt
echo "-- client --"; cat build/demo/client.txt
[ $status -eq 0 ] || { echo "ibv_rc_pingpong failed (exit $status)"; exit $status; }
echo
# Wireshark's RPC-over-RDMA heuristic claims SEND payloads of a few bytes and
# calls them malformed (see tests/data/golden/README.md); RoCE itself is fine.
tshark_() { tshark --disable-protocol rpcordma -o ip.check_checksum:TRUE "$@" 2>/dev/null; }
echo "== the first frames of $pcap, as tshark decodes them =="
tshark_ -r "$pcap" -c 12
echo "..."
echo "frames: $(tshark_ -r "$pcap" | wc -l)"
echo
echo "== Scapy's verdict on every ICRC =="
/usr/bin/python3 tests/oracle/check_icrc_pcap.py "$pcap"
echo
echo "pcap: $pcap"
