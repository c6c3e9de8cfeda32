#!/bin/sh
# Every named assertion in rtl/ (a label a_...: assert) is compiled into the
# Verilated engine that the tests run (--assert): its name appears in the
# generated C++. Usage: rtl_assertions_compiled.sh RTL_DIR VERILATED_DIR
set -eu
rtl=$1
gen=$2
labels=$(grep -rhoE '\ba_[a-z0-9_]+: assert' "$rtl" | sed 's/: assert//' | sort -u)
if [ -z "$labels" ]; then
  echo "no named assertions found in $rtl" >&2
  exit 1
fi
missing=0
n=0
for l in $labels; do
  n=$((n + 1))
  if ! grep -rqs "\"$l\"" "$gen"; then
    echo "assertion $l is not compiled into $gen (is --assert on?)" >&2
    missing=1
  fi
done
[ "$missing" = 0 ] && echo "$n named assertions compiled in: $(echo $labels | tr '\n' ' ')"
exit $missing
