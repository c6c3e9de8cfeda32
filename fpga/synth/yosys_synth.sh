#!/usr/bin/env bash
# Open-source synthesis of one RTL top with Yosys for Xilinx UltraScale+
# (synth_xilinx -family xcup), then report resources and a timing proxy.
#
#   fpga/synth/yosys_synth.sh [OPTIONS] TOP OUT_DIR SOURCE.sv...
#   fpga/synth/yosys_synth.sh --elab [--param NAME=VALUE]... [--memories "MODULE:ARRAY..."] TOP OUT_DIR SOURCE.sv...
#
# Options (before TOP, any order):
#   --memories "NAME..."  arrays that must map to RAM (see below); with --elab,
#                         MODULE:ARRAY pairs that must stay memories
#   --param NAME=VALUE    set a parameter of TOP (repeatable; hierarchy -chparam)
#   --uram                let Yosys put large memories into URAM288 (synth_xilinx -uram)
#   --hier                synthesize each module once (no -flatten), then flatten the
#                         mapped netlist for stat and sta: what makes MAX_QP 16384 finish
#                         (the flattened run spends hours in techmap and ABC on one huge
#                         module); no optimization across module boundaries, so its LUT
#                         count is an upper bound of the flattened one
#   --top-paths N         also write OUT_DIR/TOP.paths.txt: the N latest register
#                         endpoints, each path walked back to its start and named by
#                         the RTL blocks it crosses (fpga/synth/sta_paths.py)
#
# --elab stops after Yosys's front end: read every source, resolve the
# hierarchy (every module and package reference must exist) and turn
# processes into netlists. It catches in about a minute what full synthesis
# finds only after many: SystemVerilog that Yosys 0.23 refuses (DESIGN.md §9),
# a missing module, an inferred latch. The default test suite runs it on the
# whole roce_engine; it prints `elab TOP: ok (N cells after proc, ...)`.
#
# With --elab, --memories names MODULE:ARRAY pairs: in every variant of
# MODULE (one per parameter set) ARRAY must still be a memory after the
# front end (a $mem_v2 cell once memory_collect ran), the cheap check, in the
# default suite, of what full synthesis maps to RAM.
#
# Fails (exit 1) on a Yosys error, on any inferred latch, or when an array
# named with --memories was not mapped to RAM (Yosys 0.23 can silently turn an
# array of packed structs into one register: DESIGN.md §9). Prints one line
#   synth TOP: LUT=.. LUTRAM=.. FF=.. BRAM36=.. BRAM18=.. URAM=.. DSP=.. CARRY=.. arrival_ns=..
# LUT counts the LUTs as logic (LUT1..LUT6); LUTRAM the LUTs used as memory
# (distributed RAM and SRLs, each primitive by the LUTs it occupies in a
# SLICEM: RAM64M8 and RAM256X1D 8, RAM64M 4, ...). A device's LUT figure
# (Vivado's "CLB LUTs") is their sum.
# The arrival time comes from `sta` on the flattened netlist: cell delays
# only, no routing -- a proxy for Fmax, not a sign-off figure. Yosys 0.23's
# `sta` has no options and prints one path with ABC's net names
# (OUT_DIR/TOP.sta.txt); --top-paths names it (and the next N-1) in RTL terms.
set -euo pipefail
memories=""
elab=0
chparam=""
uram=""
top_paths=0
flatten=" -flatten"
flatten_mapped=""
while [ $# -gt 0 ]; do
  case "$1" in
    --elab) elab=1; shift ;;
    --memories) memories=${2:?--memories needs a list of array names}; shift 2 ;;
    --param)
      p=${2:?--param needs NAME=VALUE}
      case "$p" in *=*) ;; *) echo "yosys_synth.sh: --param $p: expected NAME=VALUE" >&2; exit 2 ;; esac
      chparam="$chparam -chparam ${p%%=*} ${p#*=}"
      shift 2 ;;
    --uram) uram=" -uram"; shift ;;
    --hier) flatten=""; flatten_mapped="flatten"; shift ;;
    --top-paths) top_paths=${2:?--top-paths needs a number}; shift 2 ;;
    --*) echo "yosys_synth.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
top=${1:?usage: yosys_synth.sh [OPTIONS] TOP OUT_DIR SOURCE.sv...}
out=${2:?usage: yosys_synth.sh [OPTIONS] TOP OUT_DIR SOURCE.sv...}
shift 2
[ $# -gt 0 ] || { echo "yosys_synth.sh: no sources given" >&2; exit 2; }
command -v yosys >/dev/null || { echo "yosys_synth.sh: yosys not found (apt-get install yosys)" >&2; exit 2; }
mkdir -p "$out"
if [ $elab = 1 ]; then
  log="$out/$top.elab.log"
  # (memory_dff and memory_collect take seconds: every array still an array
  # after the front end becomes one $mem_v2 cell, named MODULE/ARRAY)
  yosys -q -l "$log" -p "
    read_verilog -sv $*
    hierarchy -check -top $top$chparam
    proc
    tee -o $out/$top.elab.stat.txt stat
    memory_dff
    memory_collect
    tee -o $out/$top.elab.mems.txt select -list t:\$mem_v2
    tee -o $out/$top.elab.mods.txt ls
  " >/dev/null 2>&1 || { echo "elab $top: Yosys failed, see $log" >&2; grep -i 'error' "$log" | head -20 >&2; exit 1; }
  if grep -q '^Latch inferred' "$log"; then
    echo "elab $top: latch inferred:" >&2
    grep '^Latch inferred' "$log" | head -10 >&2
    exit 1
  fi
  kept=0
  for m in $memories; do
    case "$m" in *:*) ;; *) echo "yosys_synth.sh: --elab --memories $m: expected MODULE:ARRAY" >&2; exit 2 ;; esac
    mod=${m%%:*} arr=${m#*:}
    # Every variant of MODULE (MODULE, or $paramod...\MODULE[\params] per
    # parameter set) must hold ARRAY as a memory: .../ARRAY, or
    # .../g_x[0].ARRAY in a generate block.
    # (ls: "N modules:", then one per line, indented by two spaces)
    variants=$(awk '/^  / { print substr($0, 3) }' "$out/$top.elab.mods.txt" | grep -E "(^|\\\\)$mod(\\\\.*)?\$" || true)
    if [ -z "$variants" ]; then
      echo "elab $top: --memories $m: no module $mod in $top" >&2
      exit 1
    fi
    while IFS= read -r v; do
      # (the prefix through ENVIRON: awk -v would read \f in \fifo_fwft as a form feed)
      if ! P="$v/" awk 'index($0, ENVIRON["P"]) == 1 { print substr($0, length(ENVIRON["P"]) + 1) }' \
             "$out/$top.elab.mems.txt" \
           | grep -qE "(^|\.)$arr\$"; then
        echo "elab $top: array '$arr' of module $v is not a memory after the front end" \
             "(Yosys made it registers: DESIGN.md §9; kept: $out/$top.elab.mems.txt)" >&2
        exit 1
      fi
      kept=$((kept + 1))
    done <<< "$variants"
  done
  cells=$(awk '/Number of cells:/ {n = $NF} END {print n + 0}' "$out/$top.elab.stat.txt")
  echo "elab $top: ok ($cells cells after proc, hierarchy checked, no latches, $kept named arrays kept as memories)"
  exit 0
fi
log="$out/$top.yosys.log"
set_params=""
[ -z "$chparam" ] || set_params="hierarchy -check -top $top$chparam"
write_netlist=""
[ "$top_paths" = 0 ] || write_netlist="write_rtlil $out/$top.sta.il"
yosys -q -l "$log" -p "
  read_verilog -sv $*
  $set_params
  synth_xilinx -family xcup$flatten -noiopad -noclkbuf$uram -top $top
  $flatten_mapped
  tee -o $out/$top.stat.txt stat
  tee -o $out/$top.sta.txt sta
  $write_netlist
" >/dev/null 2>&1 || { echo "synth $top: Yosys failed, see $log" >&2; tail -20 "$log" >&2; exit 1; }

# Yosys says "Latch inferred for signal ..." when a process leaves one behind
# (and "No latch inferred ..." when it does not); a mapped latch is an LDCE/LDPE cell.
if grep -q '^Latch inferred' "$log" || grep -qE '^ +(LDCE|LDPE) ' "$out/$top.stat.txt"; then
  echo "synth $top: latch inferred (see $log)" >&2
  exit 1
fi
for m in $memories; do
  if ! grep -qE "mapping memory .*\.$m via" "$log"; then
    echo "synth $top: array '$m' was not mapped to RAM (see $log)" >&2
    exit 1
  fi
done
count() { awk -v c="$1" '$1 ~ "^"c"$" {s += $2} $2 ~ "^"c"$" {s += $1} END {print s + 0}' "$out/$top.stat.txt"; }
luts=0
for l in LUT1 LUT2 LUT3 LUT4 LUT5 LUT6; do luts=$((luts + $(count "$l"))); done
ffs=0
for f in FDRE FDSE FDCE FDPE; do ffs=$((ffs + $(count "$f"))); done
arrival=$(grep -oE 'Latest arrival time in .* is [0-9.]+' "$out/$top.sta.txt" | grep -oE '[0-9.]+$' | tail -1)
arrival_ns=n/a
[ -n "$arrival" ] && arrival_ns=$(awk -v a="$arrival" 'BEGIN {printf "%.1f", a / 1000}')
carry=$(( $(count CARRY4) + $(count CARRY8) ))
muxf=$(( $(count MUXF7) + $(count MUXF8) + $(count MUXF9) ))
uram_n=$(( $(count URAM288) + $(count URAM288_BASE) ))
lutram=0
for m in RAM64M8:8 RAM32M16:8 RAM256X1D:8 RAM256X1S:4 RAM128X1D:4 RAM128X1S:2 RAM64M:4 RAM32M:4 \
         RAM64X1D:2 RAM64X1S:1 RAM32X1D:2 RAM32X1S:1 SRL16E:1 SRLC32E:1; do
  lutram=$((lutram + ${m#*:} * $(count "${m%%:*}")))
done
summary="synth $top: LUT=$luts LUTRAM=$lutram FF=$ffs BRAM36=$(count RAMB36E2) BRAM18=$(count RAMB18E2) URAM=$uram_n DSP=$(count DSP48E2)"
summary="$summary CARRY=$carry MUXF=$muxf arrival_ns=$arrival_ns"
summary="$summary (cell delays only, no routing; MUXF/CARRY have no timing arcs in Yosys)"
echo "$summary" | tee "$out/$top.summary.txt"
if [ "$top_paths" -gt 0 ]; then
  # The netlist carries sta's arrival times (wire attribute sta_arrival).
  python3 "$(dirname "$0")/sta_paths.py" "$out/$top.sta.il" "$top_paths" > "$out/$top.paths.txt" \
    || { echo "synth $top: sta_paths.py failed" >&2; exit 1; }
  rm -f "$out/$top.sta.il"
  grep '^path ' "$out/$top.paths.txt" | head -3
fi
