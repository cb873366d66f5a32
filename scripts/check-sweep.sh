#!/usr/bin/env bash
# End-to-end checks of scripts/sweep, printed as TAP lines (scripts/run-tests.sh counts each
# case):
#
#   scripts/check-sweep.sh FLASHSTREAM WORKDIR
#
# Bad input refused in one line before anything runs (an unknown engine, an empty value list,
# a missing binary), and a key flashstream does not know named by the points that failed on
# it, with no sweep.csv; a SIGTERM to the sweep stopping its points; an output directory in use
# by another run refused; a 4-point sweep
# of GPT3-like 1x1 on the ideal storage (2 tensor-buffer channel counts x 2 SRAM sizes)
# through GNU parallel: 4 rows sorted by point, the columns, each
# point's --set in its stats.json, the iteration longer with the smaller SRAM, a PNG per key,
# every point run from the sweep's copy of the binary;
# the same grid through the serial engine, and through a Slurm job array on a one-node Slurm
# (munged, slurmctld and slurmd under WORKDIR, started by scripts/local-slurm.sh and stopped
# by their pid files whatever happens), gives the same sweep.csv but the wall time; the points
# start longest expected first (GPT3-like 2x1 before 1x1) with the rows in point order; a failing
# point is named with its log's end while the others are merged, and the exit status is 1.
# Slurm needs root and a host name that resolves: where it cannot start, its cases fail
# saying what did not start.
#
# The conditions are functions that check() calls by name:
# shellcheck disable=SC2317
set -uo pipefail

fs=${1:?usage: check-sweep.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-sweep.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
sweep=$here/sweep
rm -rf "$work" && mkdir -p "$work"
work=$(cd "$work" && pwd)
slurm=$work/cluster # the one-node Slurm's files
# The Slurm daemons are stopped on any exit, a failed case or a signal included.
trap '"$here/local-slurm.sh" stop "$slurm" >/dev/null 2>&1' EXIT
trap 'exit 130' INT TERM

. "$here/tap.sh"
# refused NAME NEEDLE ARGS...: exit 2, one line on stderr holding NEEDLE, nothing written.
refused() {
  local name=$1 needle=$2
  shift 2
  local log=$work/refused$n.log
  "$sweep" --flashstream "$fs" --out "$work/refused" "$@" >"$log.out" 2>"$log.err"
  local rc=$?
  { echo "exit $rc (want 2), one line with: $needle"; cat "$log.out" "$log.err"; } >"$log"
  if [ "$rc" -eq 2 ] && [ "$(grep -c . "$log.err")" -eq 1 ] && grep -qF -- "$needle" "$log.err" &&
    [ ! -e "$work/refused" ]; then ok "$name"; else not_ok "$name" "$log"; fi
}
# nowall CSV: the CSV without its wall_s column.
nowall() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
           { s = ""; for (i = 1; i <= NF; i++) if (i != w) s = s (s == "" ? "" : ",") $i; print s }' "$1"
}
# same_csv A B: the same rows but the wall time, and a wall_s column in both.
same_csv() {
  head -1 "$1" | grep -q ',wall_s,' && head -1 "$2" | grep -q ',wall_s,' &&
    diff <(nowall "$1") <(nowall "$2") >/dev/null
}

# shellcheck disable=SC2054 # the commas are the sweep's value lists
grid=(--config "$here/../configs/behemoth-paper.ini" --model gpt3-like:1x1 --storage ideal
  --set tensor_buffer.channels=4,8 --set core.sram_bytes=268435456,536870912)
# run NAME ARGS...: the sweep of the grid into WORKDIR/NAME; sets rc; output in NAME.log.
run() {
  local name=$1
  shift
  "$sweep" --flashstream "$fs" "${grid[@]}" --out "$work/$name" "$@" >"$work/$name.log" 2>&1
  rc=$?
}

# ---- bad input
refused "an unknown engine lists the engines" "unknown engine 'pbs'; give one of parallel, slurm, serial" \
  --engine pbs
refused "an empty value list names the key" "--set core.rows: empty value list" --set core.rows=
refused "an empty value in a list names the key" "--set core.rows: an empty value in '64,,128'" \
  --set core.rows=64,,128
refused "a missing binary: how to build it" "make build/rel/flashstream" --flashstream "$work/none"

# a SIGTERM to the sweep's own process stops its points too: none goes on to write results
# after the sweep has said it wrote none (the SSD baseline's points, about 10 s each, are still
# running when the signal comes; what is on disk when the sweep has exited stays as it is)
"$sweep" --flashstream "$fs" --config "$here/../configs/behemoth-paper.ini" --model gpt3-like:1x1 \
  --storage ssd-raid0 --set tensor_buffer.channels=4,6,8,12 -j 2 --out "$work/sig" \
  >"$work/sig.log" 2>&1 &
sig_pid=$!
sleep 2
kill -TERM "$sig_pid"
wait "$sig_pid"
rc_sig=$?
sig_files() { find "$work/sig" -type f | sort; }
sig_at_exit=$(sig_files)
sleep 3
sig_ok() {
  [ "$rc_sig" -eq 130 ] && grep -q "interrupted; no sweep.csv written" "$work/sig.log" &&
    [ ! -e "$work/sig/sweep.csv" ] && [ -z "$(find "$work/sig" -name '*.rc')" ] &&
    [ "$(sig_files)" = "$sig_at_exit" ] && ! pgrep -f "$work/sig" >/dev/null
}
check "SIGTERM to the sweep stops its points: exit 130, no point's results written after" \
  "$work/sig.log" sig_ok

# an output directory in use by another run (its lock held, as flashstream's) is refused, its
# earlier results left alone
mkdir -p "$work/busy" && echo kept >"$work/busy/sweep.csv"
busy_ok() {
  flock "$work/busy/.flashstream.lock" "$sweep" --flashstream "$fs" --out "$work/busy" \
    --storage ideal --engine serial >"$work/busy.log" 2>&1
  local rc=$?
  [ "$rc" -eq 1 ] && grep -qF "the output directory '$work/busy' is in use by another run" \
    "$work/busy.log" && [ "$(cat "$work/busy/sweep.csv")" = kept ] && [ ! -e "$work/busy/points" ]
}
check "an output directory in use by another run is refused" "$work/busy.log" busy_ok

"$sweep" --flashstream "$fs" --out "$work/badkey" --storage ideal --engine serial \
  --set core.bogus=1,2 >"$work/badkey.log" 2>&1
rc=$?
badkey_ok() {
  [ "$rc" -eq 1 ] && [ ! -e "$work/badkey/sweep.csv" ] &&
    grep -q "point p000 (gpt3-like:1x1 ideal core.bogus=1) failed with exit status 2" "$work/badkey.log" &&
    grep -q "point p001 .*core.bogus=2" "$work/badkey.log" &&
    grep -q "unknown key .bogus. in \[core\]" "$work/badkey.log"
}
check "an unknown key: flashstream's error named by point, exit 1, no sweep.csv" "$work/badkey.log" badkey_ok

# ---- 4 points through GNU parallel
run parallel --engine parallel -j 2
csv=$work/parallel/sweep.csv
columns="point,model,storage,tensor_buffer.channels,core.sram_bytes,iteration_s,sequences_per_s,wall_s,compute_s,weight_fetch_s,broadcast_s,act_write_s,act_read_s,reduce_s,optimizer_s,waited_on"
parallel_ok() {
  [ "$rc" -eq 0 ] && [ "$(head -1 "$csv")" = "$columns" ] &&
    [ "$(tail -n +2 "$csv" | cut -d, -f1 | tr "\n" " ")" = "p000 p001 p002 p003 " ] &&
    [ "$(tail -n +2 "$csv" | cut -d, -f4,5 | tr "\n" " ")" = "4,268435456 4,536870912 8,268435456 8,536870912 " ]
}
check "parallel: exit 0, 4 rows sorted by point, the columns" "$work/parallel.log" parallel_ok
# Each row: its figures numbers, waited_on a phase; the point's --set in its stats.json.
rows_ok() {
  python3 - "$work/parallel" <<'EOF'
import csv, json, sys
out = sys.argv[1]
phases = {"compute", "weight_fetch", "broadcast", "act_write", "act_read", "reduce", "optimizer"}
rows = list(csv.DictReader(open(f"{out}/sweep.csv")))
for r in rows:
    for c in ("iteration_s", "sequences_per_s", "wall_s", "compute_s", "optimizer_s"):
        float(r[c])
    assert float(r["iteration_s"]) > 0 and float(r["compute_s"]) > 0, r
    assert r["waited_on"] in phases, r
    cfg = json.load(open(f"{out}/points/{r['point']}/stats.json"))["config"]
    assert str(cfg["tensor_buffer"]["channels"]) == r["tensor_buffer.channels"], r
    assert str(cfg["core"]["sram_bytes"]) == r["core.sram_bytes"], r
    assert cfg["storage"]["backend"] == "ideal", r
by = {(r["tensor_buffer.channels"], r["core.sram_bytes"]): r for r in rows}
small, large = "268435456", "536870912"
for ch in ("4", "8"):  # the larger SRAM holds a layer whole: a shorter iteration
    assert float(by[(ch, small)]["iteration_s"]) > float(by[(ch, large)]["iteration_s"]), ch
    assert float(by[(ch, small)]["sequences_per_s"]) < float(by[(ch, large)]["sequences_per_s"]), ch
EOF
}
check "parallel: every figure a number, each point's --set in its stats.json, the larger SRAM faster" \
  "$work/parallel.log" rows_ok
png() { [ "$(head -c 4 "$1" 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]; }
plots_ok() {
  png "$work/parallel/plots/tensor_buffer.channels.png" && png "$work/parallel/plots/core.sram_bytes.png" &&
    ! find "$work/parallel" -name "*.tmp*" | grep -q .
}
check "parallel: a PNG per swept key, no temporary file left" "$work/parallel.log" plots_ok
# The points ran the sweep's own copy of the binary (a rebuild meanwhile cannot fail them).
copy_ok() {
  cmp -s "$fs" "$work/parallel/flashstream" && python3 - "$work/parallel" <<'EOF'
import json, sys
out = sys.argv[1]
points = json.load(open(f"{out}/points.json"))["points"]
assert points and all(p["argv"][0] == f"{out}/flashstream" for p in points), points[0]["argv"]
EOF
}
check "parallel: every point ran the sweep's copy of the binary" "$work/parallel.log" copy_ok

# ---- the same grid, serially
run serial --engine serial
serial_ok() { [ "$rc" -eq 0 ] && same_csv "$csv" "$work/serial/sweep.csv"; }
check "serial: the same sweep.csv as parallel but wall_s" "$work/serial.log" serial_ok

# ---- the start order: the larger model first, the rows still in point order
"$sweep" --flashstream "$fs" --out "$work/order" --storage ideal --engine serial \
  --model gpt3-like:1x1,gpt3-like:2x1 >"$work/order.log" 2>&1
rc=$?
order_ok() {
  [ "$rc" -eq 0 ] && [ "$(grep -o "^sweep: p00[01] done" "$work/order.log" | tr "\n" " ")" = \
    "sweep: p001 done sweep: p000 done " ] &&
    [ "$(tail -n +2 "$work/order/sweep.csv" | cut -d, -f1,2 | tr "\n" " ")" = \
      "p000,gpt3-like:1x1 p001,gpt3-like:2x1 " ]
}
check "start order: the 2x1 model's point runs first, sweep.csv in point order" "$work/order.log" order_ok

# ---- a failing point among good ones
"$sweep" --flashstream "$fs" --out "$work/partial" --storage ideal --set core.rows=128,0 \
  >"$work/partial.log" 2>&1
rc=$?
partial_ok() {
  [ "$rc" -eq 1 ] && [ "$(tail -n +2 "$work/partial/sweep.csv" | cut -d, -f1,4)" = "p000,128" ] &&
    grep -q "point p001 (gpt3-like:1x1 ideal core.rows=0) failed with exit status 2" "$work/partial.log" &&
    grep -q "core.rows = .0. is out of range" "$work/partial.log"
}
check "a failing point: named with its log's end, the others merged, exit 1" "$work/partial.log" partial_ok

# ---- the same grid through a Slurm job array on a one-node Slurm
if "$here/local-slurm.sh" start "$slurm" >"$work/slurm-start.log" 2>&1; then
  ok "one-node Slurm up: munged, slurmctld and slurmd running, the node idle"
  slurm_up=1
else
  not_ok "one-node Slurm did not start: $(tail -n1 "$work/slurm-start.log")" "$work/slurm-start.log"
  slurm_up=0
fi
if [ $slurm_up -eq 1 ]; then
  export SLURM_CONF=$slurm/slurm.conf
  run slurm --engine slurm
  slurm_ok() {
    [ "$rc" -eq 0 ] && grep -q "submitted batch job [0-9]*, an array of 4 tasks" "$work/slurm.log" &&
      [ "$(find "$work/slurm/slurm" -name "[0-3].out" | wc -l)" -eq 4 ] && same_csv "$csv" "$work/slurm/sweep.csv"
  }
  check "slurm: a 4-task array, the same sweep.csv as parallel but wall_s" "$work/slurm.log" slurm_ok
else
  not_ok "slurm: not run, the one-node Slurm did not start (above)"
fi
pids=$(cat "$slurm"/run/*.pid 2>/dev/null | tr '\n' ' ')
"$here/local-slurm.sh" stop "$slurm" >"$work/slurm-stop.log" 2>&1
stopped() { # the 3 daemons of the pid files gone, and their pid files
  [ "$(wc -w <<<"$pids")" -eq 3 ] || return 1
  for p in $pids; do ! kill -0 "$p" 2>/dev/null || return 1; done
  ! ls "$slurm"/run/*.pid >/dev/null 2>&1
}
if [ $slurm_up -eq 1 ]; then
  check "one-node Slurm stopped: the daemons of its 3 pid files gone" "$work/slurm-stop.log" stopped
else
  not_ok "one-node Slurm stop: not checked, it did not start (above)"
fi

tap_end
