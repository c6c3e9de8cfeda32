#!/usr/bin/env bash
# The whole test suite: set-up, build, then every CTest test (unit, block
# cross-checks, packet oracles, golden captures, lint, synthesis).
#   scripts/test.sh                  everything
#   scripts/test.sh -L xcheck        one label (xcheck, oracle, golden, lint, synth)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
if [ $# -gt 0 ]; then
  exec ctest --output-on-failure -j 2 "$@"
fi
# Synthesis first, so its figures print before the closing summary
# (CTest shows a passing test's output only with -V).
ctest --output-on-failure -j 2 -L synth
echo; echo "== Yosys synthesis (UltraScale+) =="; cat synth/*.summary.txt; echo
ctest --output-on-failure -j 2 -LE synth
