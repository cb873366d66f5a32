#!/usr/bin/env bash
# Install the Debian packages flashstream needs, and only those missing.
#
# Idempotent: when everything is installed it returns at once, silently, and
# needs neither root nor apt-get. Otherwise it says what it installs, and every
# way it can fail prints one line, "setup-deps: <what failed>; <what to do>",
# and exits 1. scripts/check-setup-deps.sh runs this script against stub
# dpkg-query, apt-get and id commands to check each of those paths.
set -uo pipefail # no -e: every failure below is handled and explained

packages=(
  build-essential       # gcc, g++, make
  verilator             # RTL -> C++ models (5.006 on Debian 12)
  iverilog              # second simulator, for lint and portability
  yosys                 # synthesis and latch checks; yosys-smtbmc for the formal proofs
  z3                    # SMT solver of the formal proofs (make formal)
  nextpnr-ice40         # iCE40 place and route
  fpga-icestorm         # icepack, icetime
  fpga-icestorm-chipdb  # iCE40 timing databases for icetime
  gtkwave               # waveform viewer and fst2vcd
  libcmocka-dev         # unit and block tests
  zlib1g-dev            # FST writer, gzipped IDX files
  libcjson-dev          # JSON configs and outputs
  libinih-dev           # INI configs
  libsystemc-dev        # SystemC 2.3 / TLM-2.0 (C++17 build on Debian 12): models/sc's bridge
  gnuplot-nox           # plots
  clang-format          # C style check
  clang                 # the fuzz harnesses (make fuzz; clang 14 on Debian 12)
  libclang-rt-14-dev    # clang's libFuzzer and sanitizer runtimes (only recommended by clang-14)
  python3               # the synthesis flow driver (scripts/synth/flow.py), scripts/sweep
  parallel              # GNU parallel: the sweep's default engine (scripts/sweep)
  slurm-wlm             # Slurm (slurmctld, slurmd, sbatch): the sweep's job-array engine
  munge                 # Slurm's authentication daemon, for the one-node Slurm of the tests
  dataset-fashion-mnist # training data, /usr/share/datasets/fashion-mnist
)
names=()
for p in "${packages[@]}"; do names+=("${p%% *}"); done

fail() { # one line on stderr, then exit 1
  echo "setup-deps: $*" >&2
  exit 1
}

if ! command -v dpkg-query >/dev/null 2>&1; then
  fail "dpkg-query not found: this is not a Debian system; install the equivalents of these Debian packages by hand: ${names[*]}"
fi

# One dpkg-query for all. It lists the packages it knows and exits non-zero
# when any name is unknown (never installed), so its status says nothing here:
# a package it does not report as installed is missing.
installed=" $(dpkg-query -W --showformat='${db:Status-Status}:${Package}\n' "${names[@]}" 2>/dev/null |
  sed -n 's/^installed://p' | tr '\n' ' ') "
missing=()
for n in "${names[@]}"; do
  [[ "$installed" == *" $n "* ]] || missing+=("$n")
done
[ ${#missing[@]} -eq 0 ] && exit 0

install_line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
  fail "missing Debian packages and not root; run: sudo apt-get update && sudo $install_line"
fi
if ! command -v apt-get >/dev/null 2>&1; then
  fail "apt-get not found; install these Debian packages by hand: ${missing[*]}"
fi

echo "setup-deps: installing missing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp "${TMPDIR:-/tmp}/setup-deps.XXXXXX") || fail "cannot create a temporary file in ${TMPDIR:-/tmp}; set TMPDIR to a writable directory"
trap 'rm -f "$log"' EXIT

apt-get update -qq >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  fail "'apt-get update' failed (exit status $rc: $(grep -m1 '^E:' "$log" || tail -n1 "$log")); check the network and /etc/apt/sources.list, then run: make deps"
fi

apt-get install -y -qq --no-install-recommends "${missing[@]}" >"$log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  # apt-get names a package the archive lacks in one of two ways.
  absent=$(sed -n -e 's/^E: Unable to locate package \(.*\)$/\1/p' \
    -e "s/^E: Package '\\(.*\\)' has no installation candidate\$/\\1/p" "$log" | tr '\n' ' ')
  if [ -n "$absent" ]; then
    fail "the Debian archive has no package ${absent% } (flashstream needs Debian 12 'bookworm' with the main component in /etc/apt/sources.list)"
  fi
  fail "'apt-get install' failed (exit status $rc: $(grep -m1 '^E:' "$log" || tail -n1 "$log")); run by hand to see why: $install_line"
fi
echo "setup-deps: installed ${#missing[@]} packages"
