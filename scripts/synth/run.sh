#!/usr/bin/env bash
# FPGA synthesis of the RTL blocks: resources and Fmax, with regression checks.
#
#   run.sh quick              the smallest configuration (the PE on an UP5K):
#                             checks, synth_ice40, nextpnr, icepack; < 2 min.
#                             Part of `make test`. Report: out/synth/quick/
#   run.sh full               every configuration of configs.txt whose RTL has
#                             landed, plus every other module of rtl/*/*.v on
#                             an HX8K (`make synth`). Report: out/synth/report.md
#   run.sh list               the configurations and which are ready or pending
#
# Options: --only NAME[,NAME]  only these configurations
#          -j N                N runs at a time (default $SYNTH_JOBS, else the
#                              number of cores)
#          --out DIR           output folder
#
# Prints one TAP line per check ("ok N - ..." / "not ok N - ...") and exits 1
# when any check failed: a latch, a combinational loop or conflicting driver,
# a big memory left in flip-flops, a tool error, a missed `fmin`, or a `fit`
# configuration that does not fit. A configuration that merely does not fit
# its device is reported as such, with nextpnr's figures (TAP "# SKIP").
# The flow itself is scripts/synth/flow.py and the Yosys scripts beside it.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 scripts/synth/flow.py "$@"
