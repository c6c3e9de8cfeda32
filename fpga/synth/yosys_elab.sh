#!/usr/bin/env bash
# Yosys elaboration of one RTL top: read every source, resolve the hierarchy
# (every module and package reference must exist) and turn processes into
# netlists. It catches in about a minute what full synthesis finds only after
# many: SystemVerilog that Yosys 0.23 refuses (DESIGN.md §9), a missing
# module, an inferred latch. The default test suite runs it on roce_engine.
#
#   fpga/synth/yosys_elab.sh TOP OUT_DIR SOURCE.sv...
#
# Exit 0 and one line `elab TOP: ok (N cells ...)`, or exit 1 with Yosys's error.
set -euo pipefail
top=${1:?usage: yosys_elab.sh TOP OUT_DIR SOURCE.sv...}
out=${2:?usage: yosys_elab.sh TOP OUT_DIR SOURCE.sv...}
shift 2
[ $# -gt 0 ] || { echo "yosys_elab.sh: no sources given" >&2; exit 2; }
command -v yosys >/dev/null || { echo "yosys_elab.sh: yosys not found (apt-get install yosys)" >&2; exit 2; }
mkdir -p "$out"
log="$out/$top.elab.log"
yosys -q -l "$log" -p "
  read_verilog -sv $*
  hierarchy -check -top $top
  proc
  tee -o $out/$top.elab.stat.txt stat
" >/dev/null 2>&1 || { echo "elab $top: Yosys failed, see $log" >&2; grep -iE 'error|warning: .*implicit' "$log" | head -20 >&2; tail -5 "$log" >&2; exit 1; }
if grep -q '^Latch inferred' "$log"; then
  echo "elab $top: latch inferred:" >&2
  grep '^Latch inferred' "$log" | head -10 >&2
  exit 1
fi
cells=$(awk '/Number of cells:/ {n = $NF} END {print n + 0}' "$out/$top.elab.stat.txt")
echo "elab $top: ok ($cells cells after proc, hierarchy checked, no latches)"
