#!/usr/bin/env bash
# Install the Debian packages flashstream needs, and only those missing.
# Idempotent: when everything is installed it returns at once, silently.
set -euo pipefail

packages=(
  build-essential      # gcc, g++, make
  verilator            # RTL -> C++ models (5.006 on Debian 12)
  iverilog             # second simulator, for lint and portability
  yosys                # synthesis and latch checks
  nextpnr-ice40        # iCE40 place and route
  fpga-icestorm        # icepack, icetime
  fpga-icestorm-chipdb # iCE40 timing databases for icetime
  gtkwave              # waveform viewer and fst2vcd
  libcmocka-dev        # unit and block tests
  zlib1g-dev           # FST writer, gzipped IDX files
  libcjson-dev         # JSON configs and outputs
  libinih-dev          # INI configs
  gnuplot-nox          # plots
  clang-format         # C style check
  python3              # the synthesis flow driver (scripts/synth/flow.py)
  dataset-fashion-mnist # training data, /usr/share/datasets/fashion-mnist
)
names=()
for p in "${packages[@]}"; do names+=("${p%% *}"); done

# One dpkg-query for all: a package it does not list as installed is missing.
installed=" $(dpkg-query -W -f='${db:Status-Status}:${Package} ' "${names[@]}" 2>/dev/null |
  tr ' ' '\n' | sed -n 's/^installed://p' | tr '\n' ' ') "
missing=()
for n in "${names[@]}"; do
  [[ "$installed" == *" $n "* ]] || missing+=("$n")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup-deps: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "setup-deps: need root to install them; run: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "setup-deps: apt-get not found; install these packages by hand: ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "setup-deps: done"
