#!/usr/bin/env bash
# The whole test suite: set-up, build, then every CTest test (unit, block
# cross-checks, packet oracles, golden captures, lint, synthesis).
#   scripts/test.sh [extra ctest args, e.g. -L xcheck]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
cd build
ctest --output-on-failure -j 2 "$@"
