#!/usr/bin/env bash
# The whole test suite: set-up, build, then every CTest test (unit, block
# cross-checks, the engine on every backend, verbs programs through the
# launcher, packet oracles, golden captures, lint, synthesis).
#   scripts/test.sh                  everything except the tests labelled `slow`
#   scripts/test.sh --slow           everything, `slow` included (Yosys runs of the big blocks:
#                                    requester ~6 min, responder ~12 min, read_place, roce_cmd
#                                    ~6 min, parser and deparser ~6 min each; the whole
#                                    engine, synth_engine (label synth_top) ~36 min, 14 GB, and
#                                    synth_engine_16k (synth_top, 16,384 QPs) ~76 min, 19 GB)
#   scripts/test.sh -L xcheck        one label (xcheck, engine, driver, accept, oracle, golden, lint, synth,
#                                    synth_top, slow; -L is a regex: synth matches synth_top too)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
exclude=(-LE slow)
if [ "${1:-}" = "--slow" ]; then
  exclude=()
  shift
fi
if [ $# -gt 0 ]; then
  exec ctest --output-on-failure -j 2 "$@"
fi
# Synthesis first, so its figures print before the closing summary
# (CTest shows a passing test's output only with -V).
ctest --output-on-failure -j 2 -L synth "${exclude[@]}"
echo; echo "== Yosys synthesis (UltraScale+) =="; cat synth/*.summary.txt; echo
ctest --output-on-failure -j 2 -LE "synth${exclude[1]:+|${exclude[1]}}"
