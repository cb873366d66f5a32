#!/usr/bin/env bash
# End-to-end checks of the NAND write pipeline in the training loop (machine key write_pipe,
# models/nfw/nfw_time.h), printed as TAP lines (scripts/run-tests.sh counts each case):
#
#   scripts/check-write-pipe.sh FLASHSTREAM WORKDIR
#
# fc-mnist, 2 steps, 2 Activation Nodes, 64 test samples: tlm (the twin), rtl (the verilated
# nfw_lanes_paper and core) and lockstep (both, compared every cycle) give the same simulated
# times and parameters step by step; with write_pipe = off the same steps are shorter, with the
# same parameters (the 8 lanes move 46 GB/s, faster than the FMS's 41.9, but a lane issues a
# program unit only once it has read all of it, so a write ends up to a unit's read, 5 us,
# after the FTL's); the first rtl step's waves of AN 0's datapath (rtl/an's an_top: the DMA and
# the core, waves/an.gtkw) and of its write lanes (<waves>-nfw.fst). The rtl and lockstep runs
# move every DMA command through the RTL DMA (lockstep: beside the DMA twin, every cycle
# compared, every command's cycles checked against tlm's DMA timing), so equal step times mean
# the DMA's timing is the same in all three fidelities.
set -uo pipefail

fs=${1:?usage: check-write-pipe.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-write-pipe.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
configs=$here/../configs
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
case $fs in /*) ;; *) fs=$PWD/$fs ;; esac # the runs write their out/ under $work

. "$here/tap.sh"

# run NAME ARGS...: 2 steps of fc-mnist; its step lines' simulated times and the digest in
# $work/NAME.sim, the whole output in $work/NAME.log.
run() {
  local name=$1
  shift
  (cd "$work" && "$fs" train --config "$configs/fc-mnist.ini" --run "wp-$name" --steps 2 \
    --nodes 2 --no-waves --seed 1 --test-samples 64 "$@") >"$work/$name.log" 2>&1
  local rc=$?
  { sed -n 's/^step .* sim \([0-9.]*\) ms .*/\1/p' "$work/$name.log"
    sed -n 's/.*params digest \([0-9a-f]*\).*/\1/p' "$work/$name.log"; } >"$work/$name.sim"
  return $rc
}

for f in tlm rtl lockstep; do
  check "fc-mnist 2 steps in $f" "$work/$f.log" run "$f" --fidelity "$f"
done
same() { [ "$(wc -l <"$work/tlm.sim")" -eq 3 ] && cmp -s "$work/tlm.sim" "$work/$1.sim"; }
check "rtl: the same step times and parameters as tlm" "$work/rtl.log" same rtl
check "lockstep: the same step times and parameters as tlm" "$work/lockstep.log" same lockstep

check "write_pipe = off: 2 steps" "$work/off.log" run off --set machine.write_pipe=off
shorter() {
  local a b
  a=$(sed -n 2p "$work/tlm.sim")
  b=$(sed -n 2p "$work/off.sim")
  [ "$(sed -n 3p "$work/tlm.sim")" = "$(sed -n 3p "$work/off.sim")" ] &&
    awk -v a="$a" -v b="$b" 'BEGIN { exit !(b + 0 > 0 && b + 0 < a + 0) }'
}
check "write_pipe = off: shorter steps, the same parameters" "$work/off.log" shorter

# Waves of the first rtl step: AN 0's datapath (DMA and core) and, beside it, its NAND write
# pipeline, each with the signals its GTKWave save file shows (scripts/check-waves.sh)
waves() {
  (cd "$work" && "$fs" train --config "$configs/fc-mnist.ini" --run wp-waves --steps 2 \
    --nodes 2 --rtl-steps 1 --waves "$work/w.fst" --wave-cycles 20000 --seed 1 \
    --test-samples 64) >"$work/waves.log" 2>&1 &&
    grep -qF "$work/w-nfw.fst  the same steps of AN 0's NAND write pipeline" "$work/waves.log" &&
    "$here/check-waves.sh" "$work/w.fst" "$here/../waves/an.gtkw" "$work/wc" >>"$work/waves.log" 2>&1 &&
    "$here/check-waves.sh" "$work/w-nfw.fst" "$here/../waves/nfw_lanes.gtkw" "$work/wn" >>"$work/waves.log" 2>&1
}
check "waves of AN 0's datapath (DMA + core) and write pipeline, every save-file signal in them" "$work/waves.log" waves
# That run's rtl step had its inputs preloaded in tlm and the RTL lanes joined by a copy of the
# twin's state (train.c, feed_step): still the tlm run's times and parameters.
joined() {
  { sed -n 's/^step .* sim \([0-9.]*\) ms .*/\1/p' "$work/waves.log"
    sed -n 's/.*params digest \([0-9a-f]*\).*/\1/p' "$work/waves.log"; } >"$work/joined.sim"
  cmp -s "$work/tlm.sim" "$work/joined.sim"
}
check "--rtl-steps 1 (preload in tlm, lanes joined by copy): the same step times and parameters as tlm" "$work/waves.log" joined

tap_end
