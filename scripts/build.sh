#!/usr/bin/env bash
# Configure (once) and build everything into build/ with Ninja.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
[ -f build/build.ninja ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
# 2 cores: Verilator's C++ is memory-hungry but fits; more jobs only thrash.
ninja -C build -j "${ROCENIC_JOBS:-2}"
