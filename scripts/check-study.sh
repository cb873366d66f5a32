#!/usr/bin/env bash
# Checks of the study's and the paper report's arithmetic on made-up sweeps, printed as TAP
# lines (scripts/run-tests.sh counts each case):
#
#   scripts/check-study.sh WORKDIR
#
# scripts/study/report.py on two sweeps whose knees are known by construction: a channel curve
# that loses 8% below 16 channels to act_write, a program-time curve with no knee, a fan-out
# curve whose throughput per Activation Node falls past 4 to reduce; its tables, CSVs and
# PNGs; an SRAM sweep's knee and its refused point listed with its error; today's models' table
# (per AN, the budget's binding path, the V lifetime, a refused point); a sweep without the
# study's columns refused by name. scripts/paper/report.py's Figure 8
# cost of one workload against the same arithmetic done by hand.
#
# The conditions are functions that check() calls by name:
# shellcheck disable=SC2317
set -uo pipefail

work=${1:?usage: check-study.sh WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
. "$here/tap.sh"

phases=compute_s,weight_fetch_s,broadcast_s,act_write_s,act_read_s,reduce_s,optimizer_s
# point DIR ID ANS: a point's stats.json holding what the report reads of it.
point() {
  mkdir -p "$1/points/$2"
  echo "{\"config\": {\"machine\": {\"activation_nodes\": $3}}}" >"$1/points/$2/stats.json"
}

# ---- the flash sweep: 4 channel counts x 2 program times, cache on. Per Behemoth (4 ANs):
# 64 and 16 channels 0.0125, 8 channels 0.0115 (0.92, act_write +40 s), 4 channels 0.0100.
flash=$work/s/flash
mkdir -p "$flash"
{
  echo "point,model,storage,an_flash.channels,an_flash.t_prog_ns,an_flash.cache_program,iteration_s,sequences_per_s,wall_s,$phases,waited_on"
  i=0
  for tp in 100000 700000; do
    for ch in 4 8 16 64; do
      case $ch in 4) s=0.0400 w=200 ;; 8) s=0.0460 w=140 ;; *) s=0.0500 w=100 ;; esac
      printf 'p%03d,m:1x1,behemoth,%s,%s,on,1,%s,1,500,10,5,%s,5,5,5,%s\n' "$i" "$ch" "$tp" "$s" "$w" \
        "$([ "$ch" -le 8 ] && echo act_write || echo compute)"
      point "$flash" "$(printf p%03d "$i")" 4
      i=$((i + 1))
    done
  done
} >"$flash/sweep.csv"
# ---- the fan-out sweep: per AN 0.0125 up to 4 ANs, 0.0100 at 8 (reduce +60 s).
fan=$work/s/fanout
mkdir -p "$fan"
{
  echo "point,model,storage,machine.activation_nodes,iteration_s,sequences_per_s,wall_s,$phases,waited_on"
  echo "p000,m:1x1,behemoth,1,1,0.0125,1,500,10,5,100,5,5,5,compute"
  echo "p001,m:1x1,behemoth,2,1,0.0250,1,500,10,5,100,5,5,5,compute"
  echo "p002,m:1x1,behemoth,4,1,0.0500,1,500,10,5,100,5,10,5,compute"
  echo "p003,m:1x1,behemoth,8,1,0.0800,1,500,10,5,100,5,65,5,reduce"
} >"$fan/sweep.csv"

# ---- the SRAM sweep: 512 MiB and 256 MiB at 0.0125 per AN, 128 MiB at 0.0100 (compute +50 s),
# 8 MiB refused (its .rc 1 and the error in its log)
sram=$work/s/sram
mkdir -p "$sram/points"
{
  echo "point,model,storage,core.sram_bytes,iteration_s,sequences_per_s,wall_s,$phases,waited_on"
  echo "p001,m:1x1,behemoth,134217728,1,0.0400,1,550,10,5,100,5,5,5,compute"
  echo "p002,m:1x1,behemoth,268435456,1,0.0500,1,500,10,5,100,5,5,5,compute"
  echo "p003,m:1x1,behemoth,536870912,1,0.0500,1,500,10,5,100,5,5,5,compute"
} >"$sram/sweep.csv"
for i in 1 2 3; do point "$sram" "p00$i" 4; echo 0 >"$sram/points/p00$i.rc"; done
echo 1 >"$sram/points/p000.rc"
echo "flashstream perf: m:1x1: compile: layer 2, forward: the tensor buffer would hold 20 GB" \
  >"$sram/points/p000.log"

# ---- today's models at 2k: one point run (its stats.json with a budget and a V lifetime),
# one refused; the fabric up would need 3x its peak, the WN's flash 1.5x
mod=$work/s/models-2k
mkdir -p "$mod/points/p000"
echo "point,model,storage,iteration_s,sequences_per_s,wall_s,$phases,waited_on" >"$mod/sweep.csv"
echo "p000,/x/configs/models/m.json,behemoth,10,0.4000,1,5,1,1,1,1,1,1,compute" >>"$mod/sweep.csv"
cat >"$mod/points/p000/stats.json" <<'EOF'
{"config": {"machine": {"activation_nodes": 4}},
 "stats": {"budget.fabric_up.need_per_s": {"value": 300}, "budget.fabric_up.peak_per_s": {"value": 100},
           "budget.wn_flash_read.need_per_s": {"value": 150}, "budget.wn_flash_read.peak_per_s": {"value": 100},
           "an0.flash.V.lifetime_years": {"value": 6.25}}}
EOF
echo 0 >"$mod/points/p000.rc"
echo 1 >"$mod/points/p001.rc"
echo "flashstream perf: hf:big: compile: layer 2, forward: the tensor buffer would hold 30 GB" \
  >"$mod/points/p001.log"

log=$work/study.log
"$here/study/report.py" "$work/s" >"$log" 2>&1
rc=$?
rep=$work/s/report.md
cat "$rep" >>"$log" 2>/dev/null
has() { grep -qF -- "$1" "$rep"; }
check "study report written" "$log" test "$rc" -eq 0 -a -s "$rep"
check "channel knee at 16, act_write past it" "$log" \
  has "tPROG 100 us, cache on: knee at 16 channels; at 8 channels 0.92 of the best, and what took over: act_write (+40.0 s"
check "no knee over the program times" "$log" \
  has "64 channels, cache on: no knee: within 5% of its best over the whole range; bound by compute"
check "fan-out knee at 4 ANs, reduce past it" "$log" \
  has "knee at 4 ANs; at 8 ANs 0.80 of the best, and what took over: reduce (+60.0 s"
check "per-Behemoth table row" "$log" has "| 100 | on | 0.01000 | 0.01150 | 0.01250 | 0.01250 |"
pngs() { [ -s "$work/s/flash-channels.png" ] && [ -s "$work/s/fanout.png" ] && [ -s "$work/s/flash.csv" ] && [ -s "$work/s/fanout.csv" ]; }
sram_ok() {
  grep -qF "knee at 256 MiB; at 128 MiB 0.80 of the best, and what took over: compute (+50.0 s" "$rep" &&
    grep -qF "| p000 | - | refused | flashstream perf: m:1x1: compile: layer 2, forward:" "$rep"
}
check "SRAM knee at 256 MiB, compute past it; the refused point named with its error" "$log" sram_ok
check "plots and CSVs" "$log" pngs
models_ok() {
  has "| m.json | behemoth | 0.1 | fabric_up (3.00x) | 6.25 |" &&
    has "| p001 | - | refused | flashstream perf: hf:big: compile: layer 2, forward:"
}
check "today's models: per AN, the path that binds, the V lifetime, the refused point" "$log" models_ok
sed -i 's/machine.activation_nodes/machine.other/' "$fan/sweep.csv"
tap_expect "a sweep without the study's column refused" 1 "no column machine.activation_nodes" -- \
  "$here/study/report.py" "$work/s"

# ---- Figure 8: 1e9 parameters, 4 ANs, 16 GiB tensor buffers, 1 sequence per AN writing
# 10 GiB of V; flash: AN 1 TiB, WN 2 TiB. By hand: (14e9 + 10 GiB) / 16 GiB = 1.4 -> 2
# devices, 32 GiB x 13.16 = 421.12 $; Behemoth 5 x 16 x 3.29 = 263.2 $ + 6144 GiB x 0.30 =
# 1843.2 $, 2106.4 $.
fig8() {
  PYTHONDONTWRITEBYTECODE=1 python3 - "$here/paper" >"$work/fig8.log" 2>&1 <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import report
class P:
    n_an = 4
    iter_s = 100.0
    stats = {"wn.opt.params": 1e9, "perf.sequences_per_s": 0.04,
             "an0.flash.V.pages_written": 10 * 2**30 // 4096}
    cfg = {"tensor_buffer.size_bytes": 16 * 2**30}
for node, chips in (("an", 1), ("wn", 2)):
    for k, v in (("channels", 64), ("chips_per_chan", chips), ("dies_per_chip", 1),
                 ("planes_per_die", 8), ("blocks_per_plane", 512), ("pages_per_block", 1024),
                 ("page_bytes", 4096)):
        P.cfg[f"{node}_flash.{k}"] = v
devices, tpu, beh, _ = report.memory_cost(P(), report.prices(), 3.65)
print(devices, round(tpu, 2), round(beh, 2))
sys.exit(0 if (devices, round(tpu, 2), round(beh, 2)) == (2, 421.12, 2106.4) else 1)
EOF
}
check "Figure 8's cost of one workload, by hand" "$work/fig8.log" fig8

tap_end
