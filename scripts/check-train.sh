#!/usr/bin/env bash
# End-to-end checks of `flashstream train`, printed as TAP lines (scripts/run-tests.sh counts
# each case):
#
#   scripts/check-train.sh FLASHSTREAM WORKDIR
#
# Short runs on a slice of Fashion-MNIST: bad options are refused with exit 2 and a message
# naming the option; the machine description (configs/): a bad key or value refused naming the
# file and line or the --set, the paper's machine refused by training saying why, --show-config
# read back, configs/README.md's key table the program's, configs/fc-mnist.ini the same run as
# no --config, flashbench's --set KEY as --set flash.KEY, its fast path's figures those of
# --exact; --compile_only and --validate_only; a run with an rtl step is bit-identical to the
# golden trainer and its loss falls; a run writes every output (no temporary file left) and the
# effective configuration; a run resumed from a checkpoint ends with the same weights (params
# digest) and losses as one never interrupted; a truncated or foreign checkpoint and a
# conflicting option are refused; a checkpoint that cannot be written (a directory in the way, a
# full disk) fails the run on stderr, naming the checkpoint left intact if any, and so do waves
# that cannot be renamed into place; an --out in use by another run is refused; a diverging run
# stops with exit 1; --fidelity perf runs without the data files and gives the simulated times and
# layers.csv of the same tlm run, and refuses what needs data; SIGINT stops after the current step
# with a checkpoint (exit 130), and before any evaluation says no test accuracy was measured;
# a resumed run keeps only its own history (another run's loss.csv, a step that is not a decimal
# integer refused) and recovers a killed run's from its temporary file; a run extended past its
# cosine trains at the stretched cosine's lr, or at the lr of --sched const --lr, and says so;
# SIGTERM during rtl steps ends the run within 20 s with a checkpoint that resumes; a flash
# geometry or a model the host cannot hold is refused with the figure; plot.sh renders the PNGs. And
# `flashstream model` prints Table 3 and refuses a bad spec (its numbers are test_zoo's). Flash
# faults: read retries cost time, not bits; power loss stops the run with a report and resumes
# bit-exact; program failures are remapped to spares (the fault-free parameters), a plane out of
# spares stops the run naming it; an uncorrectable read falls back to the last checkpoint (the
# fault-free parameters and losses), or stops the run without one; [faults] in the machine
# description is --fault, and --fault overrides it.
set -uo pipefail

fs=${1:?usage: check-train.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-train.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
small=(--train-samples 1024 --test-samples 256 --progress plain)

. "$here/tap.sh"
# expect NAME STATUS NEEDLE -- ARGS...: `flashstream train ARGS` exits with STATUS, prints NEEDLE.
expect() {
  local name=$1 want=$2 needle=$3
  shift 4
  tap_expect "$name" "$want" "$needle" -- "$fs" train "$@"
}
digest() { sed -n 's/.*params digest \([0-9a-f]*\).*/\1/p' "$1"; }

# ---- options
expect "bad integer" 2 "--steps 'x' is not accepted" -- --steps x
expect "bad enum lists the names" 2 "give one of sgd, adam" -- --opt rmsprop
expect "batch not a multiple of nodes" 2 "is not a multiple of --nodes 4" -- --batch 63
expect "unknown option" 2 "unknown option '--bogus'" -- --bogus
expect "an --out too long to hold is refused, not cut" 2 "give a directory of 1 to 400 characters" \
  -- --out "$work/$(printf 'd%.0s' $(seq 1 420))"
expect "model of the wrong shape" 2 "Fashion-MNIST needs 784 inputs" -- --model mlp:784-10-9
expect "bad hidden list" 2 "item 2 '0'" -- --hidden 256,0

# ---- the machine description
configs="$here/../configs"
expect "--set out of range names key and range" 2 \
  "--set core.rows=100000: core.rows = '100000' is out of range; accepted 1..4096" \
  -- --set core.rows=100000
expect "--set of an unknown section lists them" 2 "unknown section [cores]; accepted: machine," \
  -- --set cores.rows=8
printf '[core]\nrows = 8\n\n[fabric]\nhop_latency_ns = soon\n' >"$work/bad.ini"
expect "a bad value in a file names file and line" 2 \
  "$work/bad.ini:5: fabric.hop_latency_ns = 'soon' is not a decimal number" \
  -- --config "$work/bad.ini"
expect "the paper's machine is refused by training, saying why" 2 \
  "machine.cores_per_node = 16: training runs one core per Activation Node" \
  -- --config "$configs/behemoth-paper.ini"
"$fs" train --config "$configs/behemoth-paper.ini" --set vector_unit.lanes=7 --show-config \
  >"$work/shown.ini" 2>"$work/shown.log"
"$fs" train --config "$work/shown.ini" --show-config >"$work/shown2.ini" 2>>"$work/shown.log"
if grep -q "^lanes = 7 " "$work/shown.ini" && grep -q "^cores_per_node = 16 " "$work/shown.ini" &&
  cmp -s "$work/shown.ini" "$work/shown2.ini"; then
  ok "--show-config prints every key and reads back"
else
  not_ok "--show-config prints every key and reads back" "$work/shown.log"
fi
sed -n '/^<!-- begin: flashstream train --config-keys -->$/,/^<!-- end:/p' "$configs/README.md" |
  sed '1d;$d' >"$work/readme-keys.md"
if "$fs" train --config-keys >"$work/keys.md" 2>&1 && [ -s "$work/keys.md" ] &&
  cmp -s "$work/keys.md" "$work/readme-keys.md"; then
  ok "configs/README.md's key table is flashstream train --config-keys"
else
  diff "$work/readme-keys.md" "$work/keys.md" >"$work/keys.diff"
  not_ok "configs/README.md's key table is flashstream train --config-keys" "$work/keys.diff"
fi
# flashbench: a KEY alone is flash.KEY, after --config (the output without the wall-clock line)
"$fs" flashbench --set channels=16 --size 64m 2>&1 | grep -v wall >"$work/fb-old.txt"
"$fs" flashbench --config "$configs/fc-mnist.ini" --set flash.channels=16 --size 64m 2>&1 |
  grep -v wall >"$work/fb-new.txt"
if grep -q "fms: 16 ch" "$work/fb-new.txt" && cmp -s "$work/fb-old.txt" "$work/fb-new.txt"; then
  ok "flashbench --config fc-mnist.ini --set flash.channels=16 is --set channels=16"
else
  diff "$work/fb-old.txt" "$work/fb-new.txt" >"$work/fb.diff"
  not_ok "flashbench --config fc-mnist.ini --set flash.channels=16 is --set channels=16" \
    "$work/fb.diff"
fi
# Sizes the host cannot hold are refused with the figure, before allocating: here the host is
# made to hold 4 GB (ulimit -v), so the cases do not depend on this machine's memory.
in_4g() { bash -c 'ulimit -v 4000000 && exec "$@"' in_4g "$@"; }
tap_expect "flashbench: a geometry of terabytes of block records is refused at once" 2 \
  "the flash model's record of its 1099511627776 blocks needs " -- \
  in_4g "$fs" flashbench --set channels=64 --set chips_per_chan=64 --set dies_per_chip=16 \
  --set planes_per_die=16 --set blocks_per_plane=1048576 --range 0:4 --size 64k
tap_expect "--validate_only: a model the host cannot hold does not fit" 1 \
  "the model does not fit this host: holding the parameters of mlp:784-16384-16384-16384-10" -- \
  in_4g "$fs" train --validate_only --model mlp:784-16384-16384-16384-10 \
  --set tensor_buffer.size_bytes=1TiB
# flashbench --device ssd: writes wrapping past what the drive holds are not the greedy GC
# model's, which says so instead of printing WA inf beside a measured 1.000; --node wn's stream
# is the WN's own (W), not the AN's V refused as if given
"$fs" flashbench --device ssd --set channels=2 --set chips_per_chan=1 --size 64g --rw write \
  >"$work/fb-wrap.txt" 2>&1
check "flashbench --device ssd: the GC model says it does not apply to writes that wrap" \
  "$work/fb-wrap.txt" bash -c 'grep -qF "ftl: WA 1.000" "$1" && grep -qF "greedy GC model (mean field, models/ssd/README.md): does not apply" "$1" && ! grep -q "WA inf" "$1"' _ "$work/fb-wrap.txt"
# --fault reaches the SSD's NAND (its counters printed); a program fault, which its FTL cannot
# retire, is refused
"$fs" flashbench --device raid0 --fault rber:x=30 --size 64m --rw read >"$work/fb-ssdf.txt" 2>&1
check "flashbench --device raid0 --fault: the SSDs' NAND decodes with bit errors" "$work/fb-ssdf.txt" \
  grep -qE "^  faults: [1-9][0-9]* pages decoded" "$work/fb-ssdf.txt"
tap_expect "flashbench --device ssd --fault program refused, naming what an SSD takes" 2 \
  "the SSD's FTL does not retire a block whose program or erase fails" -- \
  "$fs" flashbench --device ssd --fault program:rate=0.01 --size 64m
"$fs" flashbench --node wn --size 64m >"$work/fb-wn.txt" 2>&1
check "flashbench --node wn runs on the WN's stream W by default" "$work/fb-wn.txt" \
  grep -qF "stream=W (WN," "$work/fb-wn.txt"

# flashbench --device ssd: the SSD is the description's [ssd], its keys in --set parsed as the
# description's (the value of configs/behemoth-paper.ini accepted; bare or ssd.KEY alike), and
# --range refused, not ignored
printf '[ssd]\nop = 0.2\n' >"$work/fb-ssd.ini"
"$fs" flashbench --device ssd --config "$work/fb-ssd.ini" --size 64m >"$work/fb-ssd.txt" 2>&1 &&
  "$fs" flashbench --device ssd --set ssd.sram_bytes=8MiB --set op=0.2 --size 64m \
    >"$work/fb-ssd2.txt" 2>&1
rc=$?
"$fs" flashbench --device ssd --range 10:20 --size 64m >"$work/fb-ssd3.txt" 2>&1
rc3=$?
if [ $rc -eq 0 ] && grep -q "user (op 20%)" "$work/fb-ssd.txt" && grep -q "user (op 20%)" "$work/fb-ssd2.txt" &&
  [ $rc3 -eq 2 ] && grep -q "^flashstream flashbench: --range applies to --device fms only" "$work/fb-ssd3.txt"; then
  ok "flashbench --device ssd takes [ssd] and its keys as the description does; --range refused"
else
  cat "$work/fb-ssd.txt" "$work/fb-ssd2.txt" "$work/fb-ssd3.txt" >"$work/fb-ssd.log"
  not_ok "flashbench --device ssd takes [ssd] and its keys as the description does; --range refused" \
    "$work/fb-ssd.log"
fi

# flashbench: --range wider than 32 bits is refused, not wrapped onto the metadata blocks
"$fs" flashbench --range 4294967296:5 --size 64m >"$work/fb-range.txt" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -qF "range '4294967296:5' is not accepted" "$work/fb-range.txt"; then
  ok "flashbench --range 4294967296:5 is refused"
else
  not_ok "flashbench --range 4294967296:5 is refused (exit $rc)" "$work/fb-range.txt"
fi

# flashbench --fault: a bad specification refused naming it; worn and aged reads retried, with
# the counters and the cost against the same run without faults; an uncorrectable page named
"$fs" flashbench --fault bitrot:x=2 >"$work/fb-fault-bad.txt" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -qF "unknown kind 'bitrot'; accepted rber, age" "$work/fb-fault-bad.txt"; then
  ok "flashbench --fault bitrot:x=2 is refused"
else
  not_ok "flashbench --fault bitrot:x=2 is refused (exit $rc)" "$work/fb-fault-bad.txt"
fi
"$fs" flashbench --rw read --size 64m --fault age:pe=2000000,days=2 >"$work/fb-fault.txt" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -qE "faults: 16384 pages decoded, [1-9][0-9]* read again" "$work/fb-fault.txt" &&
  grep -qE "fault cost: .* ms without faults \(\+[0-9]" "$work/fb-fault.txt"; then
  ok "flashbench --fault: read retries counted and costed"
else
  not_ok "flashbench --fault: read retries counted and costed (exit $rc)" "$work/fb-fault.txt"
fi
"$fs" flashbench --rw read --size 64m --fault age:pe=2000000,days=30 >"$work/fb-fault-unc.txt" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -qF "uncorrectable read: channel 0, die 0, plane 0, block 93, page 0" "$work/fb-fault-unc.txt"; then
  ok "flashbench --fault: an uncorrectable page stops the run naming it"
else
  not_ok "flashbench --fault: an uncorrectable page stops the run naming it (exit $rc)" "$work/fb-fault-unc.txt"
fi

# flashbench: long transfers take the fast path, with exactly the figures of --exact's page by
# page (the output without the wall-clock line), and the fast path engaged
for rw in write read; do
  fbx=(flashbench --rw $rw --bs 256m --iodepth 2 --size 4g --cache-program off)
  "$fs" "${fbx[@]}" >"$work/fb-fast-$rw.txt" 2>&1
  "$fs" "${fbx[@]}" --exact >"$work/fb-exact-$rw.txt" 2>&1
  if grep -q "fast path: [1-9]" "$work/fb-fast-$rw.txt" && ! grep -q "fast path" "$work/fb-exact-$rw.txt" &&
    cmp -s <(grep -v wall "$work/fb-fast-$rw.txt") <(grep -v wall "$work/fb-exact-$rw.txt"); then
    ok "flashbench --rw $rw: the fast path's figures are --exact's"
  else
    diff "$work/fb-exact-$rw.txt" "$work/fb-fast-$rw.txt" >"$work/fb-fast.diff"
    not_ok "flashbench --rw $rw: the fast path's figures are --exact's" "$work/fb-fast.diff"
  fi
done
# wear-out on long writes: the fast path (engaged) draws runs of clean programs, --exact one draw
# per program; both fail programs at the hazard's rate, remapped. 4 GiB = 1,048,576 programs at
# p = 0.5 x h / 768, h = shape / N x F = 100 / 10 x 0.005 = 0.05: 34.6 expected, sd 5.9; both
# within 5 sd
fbw=(flashbench --rw write --bs 256m --iodepth 2 --size 4g --cache-program off
  --fault age:pe=10,days=0 --fault wear:pe=10,bad=0.005,shape=100)
"$fs" "${fbw[@]}" >"$work/fb-wear-fast.txt" 2>&1
rc1=$?
"$fs" "${fbw[@]}" --exact >"$work/fb-wear-exact.txt" 2>&1
rc2=$?
pf() { grep -oE "[0-9]+ program failures" "$1" | cut -d' ' -f1; }
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && grep -q "fast path: [1-9]" "$work/fb-wear-fast.txt" &&
  [ "$(pf "$work/fb-wear-fast.txt")" -ge 6 ] 2>/dev/null && [ "$(pf "$work/fb-wear-fast.txt")" -le 64 ] &&
  [ "$(pf "$work/fb-wear-exact.txt")" -ge 6 ] 2>/dev/null && [ "$(pf "$work/fb-wear-exact.txt")" -le 64 ]; then
  ok "flashbench --fault wear: program failures at the hazard's rate on the fast path and --exact"
else
  not_ok "flashbench --fault wear: program failures at the hazard's rate on the fast path and --exact (exit $rc1 $rc2)" "$work/fb-wear-fast.txt"
fi

# ---- the program and the fit table, without training
expect "--compile_only lists every node's commands" 0 "GEMMs per AN" -- --compile_only
expect "--validate_only on a model that fits" 0 "the model fits" -- --validate_only
expect "--validate_only on one that does not" 1 "K-panel of K = 20000" -- --validate_only --hidden 20000

# ---- a short run and its outputs
a="$work/a"
if "$fs" train "${small[@]}" --steps 6 --ckpt-every 3 --out "$a" >"$work/a.log" 2>&1; then
  ok "short run"
else
  not_ok "short run" "$work/a.log"
fi
missing=""
for f in stats.json layers.csv trace.json loss.csv accuracy.csv timeline.csv checkpoint.ckpt; do
  [ -s "$a/$f" ] || missing+=" $f"
done
if [ -z "$missing" ] && [ -z "$(ls "$a" | grep '\.tmp')" ]; then ok "every output written, no temporary left"; else
  echo "     missing:$missing" >"$work/missing.log"
  not_ok "every output written, no temporary left" "$work/missing.log"
fi
if [ "$(wc -l <"$a/loss.csv")" -eq 7 ] && grep -q "test accuracy" "$work/a.log" &&
  grep -q "where the time went" "$work/a.log" && grep -q "flash endurance" "$work/a.log"; then
  ok "loss per step, accuracy, layer table and endurance figures"
else
  not_ok "loss per step, accuracy, layer table and endurance figures" "$work/a.log"
fi
# The same run on the machine of configs/fc-mnist.ini: the same weights, losses and times.
if "$fs" train "${small[@]}" --steps 6 --config "$configs/fc-mnist.ini" --out "$work/cfg" \
  >"$work/cfg.log" 2>&1 && [ -n "$(digest "$work/a.log")" ] &&
  [ "$(digest "$work/cfg.log")" = "$(digest "$work/a.log")" ] &&
  cmp -s "$a/loss.csv" "$work/cfg/loss.csv" && cmp -s "$a/layers.csv" "$work/cfg/layers.csv"; then
  ok "--config configs/fc-mnist.ini: the same params digest, losses and times as no --config"
else
  echo "     digests: no --config '$(digest "$work/a.log")', --config '$(digest "$work/cfg.log")'" \
    >"$work/cfg.why"
  cat "$work/cfg.log" >>"$work/cfg.why"
  not_ok "--config configs/fc-mnist.ini: the same params digest, losses and times as no --config" \
    "$work/cfg.why"
fi
# python3 is one of the project's dependencies (scripts/setup-deps.sh).
if python3 -c "import json,sys; [json.load(open(f)) for f in sys.argv[1:]]" "$a/stats.json" "$a/trace.json" 2>"$work/json.log"; then
  ok "stats.json and trace.json are JSON"
else
  not_ok "stats.json and trace.json are JSON" "$work/json.log"
fi
if python3 -c "
import json,sys
c=json.load(open(sys.argv[1]))['config']
assert c['core']['rows'] == 8 and c['machine']['activation_nodes'] == 4, c
assert c['tensor_buffer']['size_bytes'] == 16 << 30 and c['storage']['backend'] == 'behemoth', c
assert c['an_flash']['channels'] == 64 and c['wn_flash']['cache_program'] is True, c
" "$a/stats.json" 2>"$work/config-json.log"; then
  ok "stats.json holds the effective configuration"
else
  not_ok "stats.json holds the effective configuration" "$work/config-json.log"
fi

# ---- perf: payload-free, no data files; the times of the tlm run above (its only evaluation
# comes after its last step, so no evaluation time sits between the steps)
p="$work/p"
if "$fs" train "${small[@]}" --steps 6 --fidelity perf --data "$work/no-such-dir" --out "$p" \
  >"$work/p.log" 2>&1 && cmp -s "$a/layers.csv" "$p/layers.csv" &&
  cmp -s <(cut -d, -f1,2,4-6 "$a/loss.csv") <(cut -d, -f1,2,4-6 "$p/loss.csv") &&
  [ "$(cut -d, -f3 "$p/loss.csv" | sort -u | tr '\n' ' ')" = "loss nan " ]; then
  ok "--fidelity perf without data: tlm's layers.csv and step times, loss nan"
else
  diff "$a/layers.csv" "$p/layers.csv" >>"$work/p.log" 2>&1
  not_ok "--fidelity perf without data: tlm's layers.csv and step times, loss nan" "$work/p.log"
fi
expect "--fidelity perf refuses checkpoints" 2 "--fidelity perf with --ckpt-every: perf is timing only" \
  -- "${small[@]}" --steps 6 --fidelity perf --ckpt-every 3 --out "$work/c"

# ---- learning, bit for bit: the first step on the verilated core, then the twins, with the
# golden trainer (models/dnn/dnn_golden) run alongside and compared after every step
g="$work/g"
if "$fs" train "${small[@]}" --steps 30 --rtl-steps 1 --no-waves --golden-check --out "$g" \
  >"$work/g.log" 2>&1 && grep -q "golden check: equal" "$work/g.log"; then
  ok "rtl then tlm steps equal the golden trainer bit for bit"
else
  not_ok "rtl then tlm steps equal the golden trainer bit for bit" "$work/g.log"
fi
# The mean loss of the last 5 steps is below half that of the first 5.
if awk -F, 'NR > 1 { l[NR - 2] = $3; n = NR - 1 }
  END { for (i = 0; i < 5; i++) { a += l[i]; b += l[n - 1 - i] } exit !(n >= 10 && b < a / 2) }' \
  "$g/loss.csv"; then
  ok "the loss falls"
else
  not_ok "the loss falls" "$g/loss.csv"
fi

# ---- resume: 3 steps of a 6-step schedule, checkpoint, 3 more == 6 at once
b="$work/b"
"$fs" train "${small[@]}" --steps 3 --cosine-steps 6 --ckpt-every 3 --out "$b" >"$work/b1.log" 2>&1
"$fs" train "${small[@]}" --steps 6 --resume "$b/checkpoint.ckpt" --out "$b" >"$work/b2.log" 2>&1
da=$(digest "$work/a.log")
db=$(digest "$work/b2.log")
if [ -n "$da" ] && [ "$da" = "$db" ] && cmp -s <(cut -d, -f1-4 "$a/loss.csv") <(cut -d, -f1-4 "$b/loss.csv"); then
  ok "resumed run is bit-identical (digest $da, same losses)"
else
  echo "     digests: uninterrupted '$da', resumed '$db'" >"$work/resume.why"
  cat "$work/b2.log" >>"$work/resume.why"
  not_ok "resumed run is bit-identical" "$work/resume.why"
fi

# ---- flash faults: read retries of a worn, aged flash cost time, not bits; power lost mid-run
# stops it naming the fault, the node, the stream and the step, its last checkpoint intact, and
# resuming from that without the fault gives the fault-free run bit for bit
fc="$work/fault-clean"
"$fs" train "${small[@]}" --steps 8 --ckpt-every 4 --out "$fc" >"$work/fc.log" 2>&1
"$fs" train "${small[@]}" --steps 8 --out "$work/fault-aged" --fault age:pe=2000000,days=3 \
  >"$work/fa.log" 2>&1
retries() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["faults"]["retries"]["value"])' "$1"; }
last_ms() { tail -1 "$1" | cut -d, -f5; }
if [ -n "$(digest "$work/fc.log")" ] && [ "$(digest "$work/fc.log")" = "$(digest "$work/fa.log")" ] &&
  [ "$(retries "$work/fault-aged/stats.json")" -gt 0 ] &&
  awk -v a="$(last_ms "$fc/loss.csv")" -v b="$(last_ms "$work/fault-aged/loss.csv")" 'BEGIN { exit !(b > a) }'; then
  ok "flash read retries: the same parameters, more simulated time"
else
  not_ok "flash read retries: the same parameters, more simulated time" "$work/fa.log"
fi
# power lost halfway through step 5 (loss.csv's fifth column: the simulated time at each
# step's end, us)
t4=$(sed -n 6p "$fc/loss.csv" | cut -d, -f5)
t5=$(sed -n 7p "$fc/loss.csv" | cut -d, -f5)
at=$(awk -v a="$t4" -v b="$t5" 'BEGIN { printf "%.0fus", (a + b) / 2 }')
fp="$work/fault-power"
"$fs" train "${small[@]}" --steps 8 --ckpt-every 4 --out "$fp" --fault "power:at=$at" >"$work/fp.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qE "step 5 failed: (wn|an[0-9]+): .*stream '[A-Z]+'.* LPN [0-9]+: power lost at" "$work/fp.log" &&
  [ -s "$fp/checkpoint.ckpt" ]; then
  ok "power lost in step 5 stops the run naming the fault, node, stream and step"
else
  not_ok "power lost in step 5 stops the run naming the fault, node, stream and step (exit $rc)" "$work/fp.log"
fi
"$fs" train "${small[@]}" --steps 8 --ckpt-every 4 --resume "$fp/checkpoint.ckpt" --out "$fp" >"$work/fp2.log" 2>&1
if [ -n "$(digest "$work/fc.log")" ] && [ "$(digest "$work/fc.log")" = "$(digest "$work/fp2.log")" ]; then
  ok "resumed from the last checkpoint after power loss: the fault-free run's parameters"
else
  not_ok "resumed from the last checkpoint after power loss: the fault-free run's parameters" "$work/fp2.log"
fi

# program failures: each failed block remapped to a spare with its data copied over, counted,
# and the training result the fault-free run's bit for bit; a plane out of spares stops the run
# naming the node, the stream, the LPN, the block and the step
"$fs" train "${small[@]}" --steps 8 --out "$work/fault-prog" --fault program:rate=0.01 \
  >"$work/fprog.log" 2>&1
remaps() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["wn"]["flash"]["O"]["program_remaps"]["value"])' "$1"; }
if [ -n "$(digest "$work/fc.log")" ] && [ "$(digest "$work/fc.log")" = "$(digest "$work/fprog.log")" ] &&
  [ "$(remaps "$work/fault-prog/stats.json")" -gt 0 ]; then
  ok "program failures remapped to spares: the fault-free run's parameters"
else
  not_ok "program failures remapped to spares: the fault-free run's parameters" "$work/fprog.log"
fi
# each node draws its own faults (flash_fault_node_seed): the four ANs, doing the same
# operations, do not all take the same spares
if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
n = [tuple(v["spares_used"]["value"] for v in s["an%d" % i]["flash"].values() if "spares_used" in v)
     for i in range(4)]
sys.exit(0 if len(set(n)) > 1 else 1)' "$work/fault-prog/stats.json" 2>/dev/null; then
  ok "nodes of the same kind draw their own program failures"
else
  not_ok "nodes of the same kind draw their own program failures" "$work/fault-prog/stats.json"
fi
"$fs" train "${small[@]}" --steps 8 --out "$work/fault-prog-out" --fault program:rate=0.5 \
  >"$work/fprog-out.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qE "step [0-9]+ failed: (wn|an[0-9]+): stream '[A-Z]+' write at LPN [0-9]+: .* block [0-9]+: program of page [0-9]+ .*failed: no spare block left in this plane" "$work/fprog-out.log"; then
  ok "a plane out of spares stops the run naming the node, stream, LPN, block and step"
else
  not_ok "a plane out of spares stops the run naming the node, stream, LPN, block and step (exit $rc)" "$work/fprog-out.log"
fi

# an uncorrectable flash read falls back to the run's last checkpoint and resumes from it, the
# fault draws reseeded, until the run ends: the fault-free parameters and losses, the fallbacks
# counted; without a checkpoint the run stops naming the page. (The ages and seeds are chosen so
# that the first uncorrectable page comes after step 0, or in step 0: each node draws from its
# own seed, flash_fault_node_seed, and with seed 5 at 5.4 days the first comes in step 4.)
"$fs" train "${small[@]}" --steps 8 --ckpt-every 1 --out "$work/fault-unc" \
  --fault age:pe=2000000,days=5.4 --fault seed:n=5 >"$work/func.log" 2>&1
rc=$?
fallbacks() { python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))["stats"]["train"]; print(t["flash_fallbacks"]["value"] if t["flash_fallback_lost_ps"]["value"] > 0 else 0)' "$1"; }
if [ $rc -eq 0 ] && grep -qE "step [1-9][0-9]* failed: .*uncorrectable read: channel" "$work/func.log" &&
  grep -q "falling back to the checkpoint of step" "$work/func.log" &&
  [ "$(digest "$work/fc.log")" = "$(digest "$work/func.log")" ] &&
  [ "$(cut -d, -f1-3 "$fc/loss.csv")" = "$(cut -d, -f1-3 "$work/fault-unc/loss.csv")" ] &&
  [ "$(cut -d, -f1-3 "$fc/layers.csv")" = "$(cut -d, -f1-3 "$work/fault-unc/layers.csv")" ] &&
  [ "$(fallbacks "$work/fault-unc/stats.json")" -ge 1 ]; then
  ok "uncorrectable reads fall back to the last checkpoint: the fault-free parameters and losses"
else
  not_ok "uncorrectable reads fall back to the last checkpoint: the fault-free parameters and losses (exit $rc)" "$work/func.log"
fi
"$fs" train "${small[@]}" --steps 8 --ckpt-every 1 --out "$work/fault-unc0" \
  --fault age:pe=2000000,days=5.8 >"$work/func0.log" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -qE "step 0 failed: (wn|an[0-9]+): .*stream '[A-Z]+' at LPN [0-9]+: .*uncorrectable read: channel [0-9]+, die [0-9]+, plane [0-9]+, block [0-9]+, page [0-9]+" "$work/func0.log" &&
  ! grep -q "falling back" "$work/func0.log"; then
  ok "an uncorrectable read before any checkpoint stops the run naming node, stream, LPN, page, step"
else
  not_ok "an uncorrectable read before any checkpoint stops the run naming node, stream, LPN, page, step (exit $rc)" "$work/func0.log"
fi

# the machine description's [faults]: the same run as --fault; --fault overrides it; a malformed
# value refused naming the file, the line and what is accepted
printf '[faults]\nprogram = rate=0.01\n' >"$work/faults.ini"
"$fs" train "${small[@]}" --steps 8 --out "$work/fault-ini" --config "$work/faults.ini" \
  >"$work/fini.log" 2>&1
"$fs" train "${small[@]}" --steps 8 --out "$work/fault-ini-off" --config "$work/faults.ini" \
  --fault program:rate=0 >"$work/fini-off.log" 2>&1
pfail() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["wn"]["flash"]["faults"]["program_failures"]["value"])' "$1"; }
if [ -n "$(digest "$work/fprog.log")" ] && grep -q "params digest" "$work/fini.log" &&
  [ "$(grep 'params digest' "$work/fprog.log")" = "$(grep 'params digest' "$work/fini.log")" ] &&
  [ "$(pfail "$work/fault-ini/stats.json")" = "$(pfail "$work/fault-prog/stats.json")" ] &&
  [ "$(pfail "$work/fault-ini-off/stats.json")" = 0 ]; then
  ok "[faults] program = rate=0.01 is --fault program:rate=0.01; --fault overrides it"
else
  not_ok "[faults] program = rate=0.01 is --fault program:rate=0.01; --fault overrides it" "$work/fini.log"
fi
printf '[faults]\nage = pe=2000000,days=2\n' >"$work/faults-age.ini"
"$fs" flashbench --rw read --size 64m --config "$work/faults-age.ini" >"$work/fb-ini.txt" 2>&1
"$fs" flashbench --rw read --size 64m --config "$work/faults-age.ini" --fault rber:x=0 >"$work/fb-ini-off.txt" 2>&1
if grep -q "faults: 16384 pages decoded" "$work/fb-fault.txt" &&
  [ "$(grep 'faults:' "$work/fb-fault.txt")" = "$(grep 'faults:' "$work/fb-ini.txt")" ] &&
  grep -qF "faults: 16384 pages decoded, 0 read again" "$work/fb-ini-off.txt"; then
  ok "flashbench: [faults] is --fault; --fault rber:x=0 turns its bit errors off"
else
  not_ok "flashbench: [faults] is --fault; --fault rber:x=0 turns its bit errors off" "$work/fb-ini.txt"
fi
printf '[core]\nrows = 8\n[faults]\nprogram = rate=2\n' >"$work/faults-bad.ini"
expect "a malformed [faults] value names file, line and what is accepted" 2 \
  "faults-bad.ini:4: faults.program: --fault 'program:rate=2': rate=2; accepted a number in 0..1" \
  -- --config "$work/faults-bad.ini"

# ---- refusals
head -c 1000 "$a/checkpoint.ckpt" >"$work/trunc.ckpt"
expect "truncated checkpoint refused" 1 "is truncated" -- "${small[@]}" --steps 9 --resume "$work/trunc.ckpt" --out "$work/c"
cp "$a/loss.csv" "$work/foreign.ckpt"
expect "foreign file refused" 1 "is not a flashstream checkpoint" -- "${small[@]}" --steps 9 --resume "$work/foreign.ckpt" --out "$work/c"
expect "conflicting option refused" 1 "a different --wd would not continue" -- "${small[@]}" --steps 9 --wd 0.5 --resume "$a/checkpoint.ckpt" --out "$work/c"
# the checkpoint records the machine it ran on: another one is refused naming the keys that
# differ and writes nothing; --machine-change goes on, stats.json naming the step and the keys
expect "resume on another machine refused, naming the key and both values" 1 \
  "the checkpoint ran on another machine: 1 key differs: core.period_ns (the checkpoint's 1.25, now 1)" -- \
  "${small[@]}" --steps 9 --set core.period_ns=1 --resume "$a/checkpoint.ckpt" --out "$work/mc"
check "a refused resume writes nothing" "$work/mc.log" test ! -e "$work/mc/stats.json"
printf '[core]\nperiod_ns = 2\n[flash]\nchannels = 4\n' >"$work/chan4.ini"
"$fs" train "${small[@]}" --steps 2 --ckpt-every 2 --config "$work/chan4.ini" --out "$work/chan4" \
  >"$work/chan4.log" 2>&1
expect "resume without the run's --config refused, the keys listed" 1 \
  "3 keys differ: core.period_ns (the checkpoint's 2, now 1.25), an_flash.channels (the checkpoint's 4, now 64), wn_flash" -- \
  "${small[@]}" --steps 9 --resume "$work/chan4/checkpoint.ckpt" --out "$work/mc"
"$fs" train "${small[@]}" --steps 9 --set core.period_ns=1 --machine-change \
  --resume "$a/checkpoint.ckpt" --out "$work/mc2" >"$work/mc2.log" 2>&1
mc_ok() {
  grep -qF "resume: the machine changes at step $1 (--machine-change): 1 key: core.period_ns" "$work/mc2.log" &&
    python3 -c 'import json, sys; m = json.load(open(sys.argv[1]))["meta"]
assert m["machine_changed_at_step"] == sys.argv[2] and m["machine_before"] == "core.period_ns=1.25", m' \
      "$work/mc2/stats.json" "$1"
}
check "--machine-change: the run goes on, stats.json names the step and the earlier value" \
  "$work/mc2.log" mc_ok "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["train"]["first_step"]["value"])' "$work/mc2/stats.json" 2>/dev/null)"
expect "--machine-change without --resume refused" 2 "--machine-change is an option of --resume" -- \
  "${small[@]}" --steps 2 --machine-change --out "$work/mc3"

# ---- the history a resumed run keeps: only this run's rows, checked; a killed run's recovered
h="$work/hist"
mkdir -p "$h"
"$fs" train "${small[@]}" --steps 6 --lr 0.01 --out "$work/other" >/dev/null 2>&1
cp "$work/other/loss.csv" "$h/loss.csv"
expect "resume refuses another run's loss.csv" 1 \
  "loss.csv is not the history of this checkpoint's run: line 7: step 5 trained at lr" -- \
  "${small[@]}" --steps 8 --resume "$a/checkpoint.ckpt" --out "$h"
sed 's/^2,/+2,/' "$a/loss.csv" >"$h/loss.csv"
expect "resume refuses a history step that is not a decimal integer" 1 \
  "line 4: step '+2' is not a decimal integer" -- \
  "${small[@]}" --steps 8 --resume "$a/checkpoint.ckpt" --out "$h"
# A FIFO in loss.csv's place is refused at once, not waited on (no writer ever comes).
h2="$work/hist-fifo"
mkdir -p "$h2" && mkfifo "$h2/loss.csv"
tap_expect "resume refuses a FIFO as loss.csv instead of blocking" 1 \
  "is a FIFO (named pipe), not a regular file" -- \
  timeout 60 "$fs" train "${small[@]}" --steps 8 --resume "$a/checkpoint.ckpt" --out "$h2"
# A run killed (SIGKILL) after a checkpoint: its rows, flushed at the checkpoint, are in its
# temporary loss.csv; the next resume recovers them: the history is every step, once.
k="$work/killed"
"$fs" train "${small[@]}" --steps 40 --ckpt-every 4 --log-every 1 --out "$k" >"$work/killed.log" 2>&1 &
pid=$!
for _ in $(seq 1 200); do
  grep -q "^step *1[3-9]/" "$work/killed.log" 2>/dev/null && break
  sleep 0.1
done
kill -KILL "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
"$fs" train "${small[@]}" --steps 40 --resume "$k/checkpoint.ckpt" --out "$k" >"$work/killed2.log" 2>&1
check "a killed run's history is recovered from its temporary file" "$work/killed2.log" \
  bash -c 'grep -qF "resume: recovered the history of steps 0.." "$1" &&
    [ "$(cut -d, -f1 "$2" | tail -n +2 | tr "\n" " ")" = "$(seq -s " " 0 39) " ] &&
    ! ls "$3" | grep -q "^loss.csv.tmp"' _ "$work/killed2.log" "$k/loss.csv" "$k"

# --golden-check fails, naming the step and both digests, when the two differ (the test hook
# flips a bit of the golden trainer's weights before step 2).
FLASHSTREAM_TEST_GOLDEN_PERTURB=2 tap_expect "--golden-check fails when the machine and the golden differ" 1 \
  "--golden-check: step 2 differs from the golden trainer: loss" -- \
  "$fs" train "${small[@]}" --steps 4 --golden-check --out "$work/gbad"

# ---- extending a finished run: its cosine (6 steps) is stretched over the new length, not
# continued at lr 0; --sched const --lr X keeps a constant lr instead. Either is said.
e="$work/ext"
"$fs" train "${small[@]}" --steps 12 --resume "$a/checkpoint.ckpt" --out "$e" >"$work/ext.log" 2>&1
check "resume --steps past the end of the cosine stretches it over the new length" "$work/ext.log" \
  grep -qF "cosine over 12 steps (was lr 0.002, cosine over 6 steps), stretched over the longer run" \
  "$work/ext.log"
# step 6 of a 12-step cosine from 0.002 is 0.001 (the middle), not 0
check "the extended steps train at the stretched cosine's lr" "$e/loss.csv" \
  awk -F, 'NR > 1 { n++; if ($4 + 0 <= 0) bad = 1 } $1 == 6 && $4 != "0.0009999999" { bad = 1 }
    END { exit !(n == 6 && !bad) }' "$e/loss.csv"
"$fs" train "${small[@]}" --steps 9 --sched const --lr 0.0005 --resume "$a/checkpoint.ckpt" \
  --out "$work/ext2" >"$work/ext2.log" 2>&1
check "resume with --sched const --lr continues at that lr and says so" "$work/ext2.log" \
  bash -c 'grep -qF "lr schedule lr 0.0005, constant (was lr 0.002, cosine over 6 steps)" "$1" &&
    [ "$(cut -d, -f4 "$2" | sort -u | tr "\n" " ")" = "0.0005 lr " ]' _ "$work/ext2.log" "$work/ext2/loss.csv"
expect "a machine of other nodes refused, named by its key" 1 "the machine description says 2; a different machine.activation_nodes would not continue" -- \
  "${small[@]}" --steps 9 --set machine.activation_nodes=2 --resume "$a/checkpoint.ckpt" --out "$work/c"
expect "different data set refused" 1 "give --train-samples 1024" -- --train-samples 2048 --test-samples 256 --steps 9 --resume "$a/checkpoint.ckpt" --out "$work/c"

# ---- a checkpoint that cannot be written fails the run, on stderr even with --progress quiet
# run_err NAME STATUS ARGS...: `flashstream train ARGS` exits with STATUS; its stderr in NAME.err.
run_err() {
  local name=$1 want=$2
  shift 2
  "$fs" train "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  echo "exit $rc (want $want)" >>"$work/$name.err"
  [ "$rc" -eq "$want" ]
}
ce="$work/ce"
mkdir -p "$ce/checkpoint.ckpt"
if run_err ckpt-dir 1 "${small[@]}" --progress quiet --steps 3 --ckpt-every 3 --out "$ce" &&
  grep -qF "step 3: checkpoint cannot write '$ce/checkpoint.ckpt'" "$work/ckpt-dir.err" &&
  grep -qF "(no checkpoint was written)" "$work/ckpt-dir.err" && ! grep -q intact "$work/ckpt-dir.err"; then
  ok "a directory in the way of the checkpoint fails the run, said on stderr with --progress quiet"
else
  not_ok "a directory in the way of the checkpoint fails the run, said on stderr with --progress quiet" \
    "$work/ckpt-dir.err"
fi
# Disk full: a file size limit makes the checkpoint's write fail with EFBIG (SIGXFSZ ignored).
cf="$work/cf"
mkdir -p "$cf"
cp "$a/checkpoint.ckpt" "$cf/checkpoint.ckpt"
if (
  trap '' XFSZ
  ulimit -f 64
  run_err ckpt-full 1 "${small[@]}" --progress quiet --steps 9 --ckpt-every 3 \
    --resume "$cf/checkpoint.ckpt" --out "$cf"
) && grep -qF "step 9: checkpoint cannot write" "$work/ckpt-full.err" &&
  grep -qF "(the checkpoint resumed from, step 6, is intact)" "$work/ckpt-full.err" &&
  cmp -s "$a/checkpoint.ckpt" "$cf/checkpoint.ckpt"; then
  ok "a full disk fails the run and leaves the checkpoint resumed from intact"
else
  not_ok "a full disk fails the run and leaves the checkpoint resumed from intact" "$work/ckpt-full.err"
fi

# A waveform file that cannot be moved into place (a directory of its name) fails the run.
mkdir -p "$work/waves.fst"
if run_err waves-dir 1 "${small[@]}" --steps 1 --rtl-steps 1 --waves "$work/waves.fst" \
  --out "$work/w" && grep -qF "cannot write the waves '$work/waves.fst'" "$work/waves-dir.err" &&
  [ ! -e "$work/waves.fst.tmp" ] && ! grep -q gtkwave "$work/waves-dir.out"; then
  ok "waves that cannot be renamed into place fail the run, not reported as written"
else
  not_ok "waves that cannot be renamed into place fail the run, not reported as written" \
    "$work/waves-dir.err"
fi

# An output directory in use by another run (its lock held) is refused.
mkdir -p "$work/busy"
if flock "$work/busy/.flashstream.lock" \
  "$fs" train "${small[@]}" --steps 1 --out "$work/busy" >"$work/busy.log" 2>&1; then
  rc=0
else
  rc=$?
fi
if [ "$rc" -eq 1 ] && grep -qF "the output directory '$work/busy' is in use by another run" \
  "$work/busy.log" && [ ! -e "$work/busy/loss.csv" ]; then
  ok "an output directory in use by another run is refused"
else
  echo "     exit $rc (want 1)" >>"$work/busy.log"
  not_ok "an output directory in use by another run is refused" "$work/busy.log"
fi

# ---- divergence: a loss that is not finite or absurd stops the run
if run_err diverge 1 "${small[@]}" --steps 10 --lr 1000 --out "$work/g2" &&
  grep -qF "training diverged" "$work/diverge.err"; then
  ok "a diverging run stops with a message and exit 1"
else
  not_ok "a diverging run stops with a message and exit 1" "$work/diverge.err"
fi

# ---- SIGINT: stop after the current step, checkpoint, exit 130
d="$work/d"
"$fs" train "${small[@]}" --epochs 50 --log-every 1 --out "$d" >"$work/d.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  grep -q "^step" "$work/d.log" 2>/dev/null && break
  sleep 0.2
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && [ -s "$d/checkpoint.ckpt" ] && grep -q "interrupted after step" "$work/d.log"; then
  ok "SIGINT: checkpoint and exit 130"
else
  echo "     exit $rc" >"$work/int.why"
  cat "$work/d.log" >>"$work/int.why"
  not_ok "SIGINT: checkpoint and exit 130" "$work/int.why"
fi

# An interrupt before the first evaluation (the epoch has 937 steps) says no evaluation ran.
"$fs" train --train-samples 60000 --test-samples 256 --progress plain --steps 900 --log-every 1 \
  --out "$work/d2" >"$work/d2.log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do
  grep -q "^step" "$work/d2.log" 2>/dev/null && break
  sleep 0.2
done
kill -INT "$pid" 2>/dev/null
wait "$pid"
rc=$?
if [ "$rc" -eq 130 ] && grep -qF "no test accuracy (the run stopped before any evaluation)" "$work/d2.log" &&
  ! grep -q "test accuracy 0.0000" "$work/d2.log"; then
  ok "an interrupt before any evaluation reports no test accuracy, not 0"
else
  echo "     exit $rc" >"$work/int2.why"
  cat "$work/d2.log" >>"$work/int2.why"
  not_ok "an interrupt before any evaluation reports no test accuracy, not 0" "$work/int2.why"
fi

# SIGTERM during rtl steps (the slowest kind, seconds each): the run stops within a bound (one
# step, the checkpoint), with a checkpoint a resumed run accepts and continues from.
d="$work/term"
"$fs" train "${small[@]}" --steps 8 --rtl-steps 8 --no-waves --log-every 1 --out "$d" \
  >"$work/term.log" 2>&1 &
pid=$!
for _ in $(seq 1 150); do
  grep -q "^step" "$work/term.log" 2>/dev/null && break
  sleep 0.2
done
t0=$(date +%s%N)
kill -TERM "$pid" 2>/dev/null
wait "$pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
echo "     exit $rc after ${ms} ms (want 130 within 20000)" >"$work/term.why"
if [ "$rc" -eq 130 ] && [ "$ms" -lt 20000 ] && grep -q "interrupted after step" "$work/term.log" &&
  "$fs" train "${small[@]}" --resume "$d/checkpoint.ckpt" --steps 9 --out "$d" >>"$work/term.why" 2>&1; then
  ok "SIGTERM during rtl steps: exit within 20 s with a checkpoint that resumes"
else
  cat "$work/term.log" >>"$work/term.why"
  not_ok "SIGTERM during rtl steps: exit within 20 s with a checkpoint that resumes" "$work/term.why"
fi

# ---- plots (gnuplot is one of the project's dependencies)
if "$here/plots/plot.sh" "$a" >"$work/plot.log" 2>&1 && [ -s "$a/loss.png" ] && [ -s "$a/timeline.png" ]; then
  ok "plot.sh renders the PNGs"
else
  not_ok "plot.sh renders the PNGs" "$work/plot.log"
fi

# ---- flashstream model
# A resumed run's layers.csv goes on from its checkpoint with the rows before it kept: one
# run of steps, as loss.csv's (a run interrupted at step 3 and resumed to 6).
"$fs" train "${small[@]}" --steps 3 --cosine-steps 6 --ckpt-every 3 --out "$work/lr" \
  >"$work/lr.log" 2>&1 &&
  "$fs" train "${small[@]}" --resume "$work/lr/checkpoint.ckpt" --steps 6 --out "$work/lr" \
    >>"$work/lr.log" 2>&1
rc_lr=$?
if [ "$rc_lr" -eq 0 ] && [ "$(cut -d, -f1 "$work/lr/layers.csv" | uniq | tr '\n' ' ')" = "step 0 1 2 3 4 5 " ] &&
  [ "$(cut -d, -f1 "$work/lr/loss.csv" | tr '\n' ' ')" = "step 0 1 2 3 4 5 " ]; then
  ok "a resumed run's layers.csv goes on from the checkpoint, the earlier rows kept"
else
  not_ok "a resumed run's layers.csv goes on from the checkpoint, the earlier rows kept" "$work/lr.log"
fi

# A file-size limit (ulimit -f; SIGXFSZ left as it is): the checkpoint's write fails as a full
# disk's would, the run ends with exit 1 naming the file, no temporary left.
bash -c 'ulimit -f 16; exec "$@"' - "$fs" train "${small[@]}" --steps 6 --ckpt-every 3 \
  --out "$work/xfsz" >"$work/xfsz.log" 2>&1
rc_xfsz=$?
if [ "$rc_xfsz" -eq 1 ] && grep -q "checkpoint.ckpt.*failed: File too large" "$work/xfsz.log" &&
  [ -z "$(find "$work/xfsz" -name '*.tmp.*')" ] && [ ! -e "$work/xfsz/checkpoint.ckpt" ]; then
  ok "a file-size limit is an error naming the file, nothing half-written"
else
  not_ok "a file-size limit is an error naming the file, nothing half-written" "$work/xfsz.log"
fi

"$fs" model --table >"$work/model.log" 2>&1
rc_table=$?
"$fs" model --model gpt3-like:3x1 >>"$work/model.log" 2>&1
rc_bad=$?
if [ "$rc_table" -eq 0 ] && grep -q "^t5-like:2x4 " "$work/model.log" && [ "$rc_bad" -eq 2 ] &&
  grep -qF "width W 3 is not accepted" "$work/model.log"; then
  ok "model: --table, and a bad spec refused"
else
  not_ok "model: --table, and a bad spec refused" "$work/model.log"
fi

# ---- cosim: an output it cannot write is an error, never a run that exits 0 without it
mkdir -p "$work/wavedir"
tap_expect "cosim --waves on a directory refused at once" 2 \
  "--waves $work/wavedir is a directory; give the FST file to write" -- \
  "$fs" cosim --waves "$work/wavedir"
tap_expect "cosim: waves it cannot write are an error, nothing left" 1 \
  "cannot write waves to '$work/no-dir/x.fst'" -- "$fs" cosim --beats 1000 --waves "$work/no-dir/x.fst"

tap_end
