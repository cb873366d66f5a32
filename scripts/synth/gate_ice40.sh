#!/usr/bin/env bash
# The iCE40 netlist of one RTL block, for post-synthesis simulation.
#
#   gate_ice40.sh TOP 'Name=value ...' OUT.v
#
# Yosys reads every RTL file (rtl/*/*.v, the board wrapper of rtl/fpga/ aside), sets the
# parameters on TOP, runs synth_ice40 (LUT4s, carries, flip-flops and block RAMs; no DSPs, as
# on an HX8K) and writes the flattened netlist as Verilog without attributes, a block RAM's
# undefined initial contents as zeros (what icepack programs). The Makefile's
# vgate verilates it with Yosys' models of those cells (ice40/cells_sim.v), behind the RTL's
# shim, and runs the RTL's block test on it. OUT is written whole or not at all; the log is
# OUT's name with .log.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 3 ] || { echo "usage: $0 TOP 'Name=value ...' OUT.v" >&2; exit 2; }
top=$1 params=$2 out=$3

chparam=
for p in $params; do
    chparam+=" -chparam ${p%%=*} ${p#*=}"
done
rtl=$(ls rtl/*/*.v | grep -v '^rtl/fpga/' | tr '\n' ' ')
incs=$(ls -d rtl/*/ | grep -v '^rtl/fpga/' | sed 's/^/-I/' | tr '\n' ' ')

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
if ! yosys -qq -l "${out%.v}.log" -p "read_verilog -sv -DSYNTHESIS $incs $rtl
    hierarchy -check -top $top$chparam
    synth_ice40 -top $top
    setundef -zero -params
    write_verilog -noattr $tmp" >/dev/null; then
    echo "$0: synth_ice40 of $top ($params) failed; see ${out%.v}.log" >&2
    exit 1
fi
mv "$tmp" "$out"
