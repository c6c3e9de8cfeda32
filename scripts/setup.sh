#!/usr/bin/env bash
# Make sure the Debian 12 packages rocenic builds and tests with are present.
# As root: installs what is missing. Otherwise: prints the exact apt-get line
# and exits non-zero.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  verilator yosys
  libgtest-dev googletest
  python3 python3-scapy tshark
  libibverbs-dev ibverbs-utils ibverbs-providers perftest infiniband-diags
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "rocenic needs these Debian packages, which are missing:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
