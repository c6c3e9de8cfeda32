#!/usr/bin/env bash
# Wall time of unmodified `ibv_rc_pingpong -g 3 -c -n N -s S` between two
# simulated hosts, per backend (issue 3's figure). Prints one line per
# backend; never judges.
#   bench/pingpong_wall.sh [N] [S] [backends...]     (default 1000 4096 model rtl cosim)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}; s=${2:-4096}; shift $(( $# > 2 ? 2 : $# ))
backends=("$@"); [ ${#backends[@]} -gt 0 ] || backends=(model rtl cosim)
run=build/bin/rocenic-run
[ -x "$run" ] || { echo "build first: scripts/build.sh" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "ibv_rc_pingpong -g 3 -c -n $n -s $s, two processes on one wire ($(nproc) cores)"
for b in "${backends[@]}"; do
  wire=bench-$$-$b
  start=$(date +%s.%N)
  $run --backend "$b" --wire "$wire" --ip 10.0.0.1 -- ibv_rc_pingpong -g 3 -c -n "$n" -s "$s" > "$out/srv" 2>&1 &
  srv=$!
  sleep 0.5
  rc=0
  $run --backend "$b" --wire "$wire" --ip 10.0.0.2 -- ibv_rc_pingpong -g 3 -c -n "$n" -s "$s" 127.0.0.1 \
    > "$out/cli" 2>&1 || rc=$?
  wait $srv || rc=$?
  end=$(date +%s.%N)
  usec=$(grep -o '[0-9.]* usec/iter' "$out/cli" | head -1 || true)
  printf '%-6s wall %6.1f s   %s   exit %d\n' "$b" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" "${usec:-no figure}" "$rc"
  [ $rc -eq 0 ] || { cat "$out/srv" "$out/cli" >&2; }
done
