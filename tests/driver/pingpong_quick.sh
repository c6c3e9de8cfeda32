#!/usr/bin/env bash
# A quick end-to-end run in the default suite (the full -n 1000 runs are the
# `slow` driver_accept_Pingpong): unmodified ibv_rc_pingpong -g 3 -c (data
# checked) between two processes on one wire, on every backend, a 4 KiB run
# and a 64 KiB run with completion events. cosim must report 0 divergences.
#   pingpong_quick.sh BUILD_DIR
set -euo pipefail
build=$1
run=$build/bin/rocenic-run
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
one() {  # backend, extra pingpong args...
  local b=$1; shift
  local wire=ppq-$$-$b-$RANDOM port=$((20000 + RANDOM % 20000))
  $run --backend "$b" --wire "$wire" --ip 10.0.0.1 -- ibv_rc_pingpong -g 3 -c -p $port "$@" > "$out/srv" 2>&1 &
  local srv=$! rc=0
  sleep 0.5
  timeout 600 $run --backend "$b" --wire "$wire" --ip 10.0.0.2 -- ibv_rc_pingpong -g 3 -c -p $port "$@" 127.0.0.1 \
    > "$out/cli" 2>&1 || rc=$?
  wait $srv || rc=$?
  if [ $rc -ne 0 ] || ! grep -q "iters in" "$out/cli" || ! grep -q "iters in" "$out/srv"; then
    echo "FAIL $b $*: exit $rc"; cat "$out/srv" "$out/cli"; fail=1; return
  fi
  if [ "$b" = cosim ] && ! grep -q " 0 divergences" "$out/cli"; then
    echo "FAIL $b $*: no '0 divergences' line"; cat "$out/cli"; fail=1; return
  fi
  echo "ok   $b $*: $(grep 'iters in' "$out/cli")$(grep -o 'cosim: .*' "$out/cli" | sed 's/^/ -- /')"
}
for b in model rtl cosim; do
  one "$b" -n 50 -s 4096
  one "$b" -n 20 -s 65536 -e
done
one rtl -n 50 -s 1
exit $fail
