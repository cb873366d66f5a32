#!/usr/bin/env bash
# End-to-end checks of `flashstream perf`, printed as TAP lines (scripts/run-tests.sh counts each
# case):
#
#   scripts/check-perf.sh FLASHSTREAM WORKDIR
#
# Bad options refused with exit 2 and a message naming them (a model spec, a storage); the
# default run (the built-in machine, its write-pipeline twin) refused at once saying what to give; a
# GPT3-like 1x1 iteration on the paper's machine, ideal, on the Behemoth storage and on the SSD
# arrays (storage ssd-raid0): the last line's format, every output file written and none left
# half-written, layers.csv with its blocks, gemms.csv with every GEMM kind, lifespan.csv with
# every activation read back after it was written, the ideal run the faster; the bandwidth
# budget's bytes the resources' counters; --validate_only's table, and a tensor buffer too small
# refused naming the layer, neither writing output; the same run twice
# gives the same files; --flash-fit gives the Weight Node the chips a larger model needs, and
# names an SSD grain the drive cannot take; a Weight Node too small for the model is refused
# naming the stream; a file-size limit is an error naming the file, nothing half-written; an output directory in
# use by another run is refused; LLaMA-3.1-8B from its config.json runs (its ignored fields
# named), Mistral past its sliding window is refused; a SIGTERM mid-run leaves nothing, no
# temporary either.
set -uo pipefail

fs=${1:?usage: check-perf.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-perf.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
paper="$here/../configs/behemoth-paper.ini"
rm -rf "$work" && mkdir -p "$work"

. "$here/tap.sh"
# expect NAME STATUS NEEDLE -- ARGS...: `flashstream perf ARGS` exits with STATUS, prints NEEDLE.
expect() {
  local name=$1 want=$2 needle=$3
  shift 4
  tap_expect "$name" "$want" "$needle" -- "$fs" perf "$@"
}

# ---- options
expect "a bad model spec names it and what is accepted" 2 "width W 3 is not accepted" \
  -- --model gpt3-like:3x1
expect "a bad storage lists the names" 2 "give one of behemoth, ssd-raid0, ideal" \
  -- --storage tape
expect "a bad --set names the key" 2 "core.rows = '0' is out of range" \
  -- --config "$paper" --set core.rows=0
# the built-in machine times its flash writes with the write pipeline's twin, page by page: the
# default model is refused at once, saying what to give, not timed for an hour
start=$EPOCHREALTIME
expect "the default run is refused at once, naming the key and the paper's machine" 1 \
  "Give --set machine.write_pipe=off (the flash's own write path, as configs/behemoth-paper.ini has it) or --config configs/behemoth-paper.ini" \
  -- --out "$work/default"
check "... within a second" /dev/null \
  awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { exit !(b - a < 1) }'

# ---- GPT3-like 1x1 on the paper's machine
run() { # NAME OUTDIR ARGS...
  local name=$1 out=$2
  shift 2
  "$fs" perf --config "$paper" --model gpt3-like:1x1 --out "$out" "$@" >"$out.log" 2>&1
}
line_re='^perf: gpt3-like:1x1 on [a-z0-9-]+: [0-9.]+ s per iteration simulated, [0-9.e+-]+ sequences/s \([0-9.e+-]+ per Activation Node\), wall [0-9.]+ s$'
sim_s() { sed -n 's/^perf: .*: \([0-9.]*\) s per iteration simulated.*/\1/p' "$1"; }

run ideal "$work/ideal" --storage ideal
rc_ideal=$?
run behemoth "$work/beh"
rc_beh=$?
check "ideal run: exit 0 and the last line" "$work/ideal.log" \
  bash -c "[ $rc_ideal -eq 0 ] && tail -1 '$work/ideal.log' | grep -Eq '$line_re'"
check "behemoth run: exit 0 and the last line" "$work/beh.log" \
  bash -c "[ $rc_beh -eq 0 ] && tail -1 '$work/beh.log' | grep -Eq '$line_re'"
files_ok() {
  local d=$1
  for f in stats.json layers.csv gemms.csv lifespan.csv trace.json; do [ -s "$d/$f" ] || return 1; done
  ! ls "$d" | grep -q '\.tmp' || return 1
  head -1 "$d/layers.csv" | grep -q '^step,layer,block,pass,' || return 1
  # 98 layers x 2 passes; the decoders named
  [ "$(tail -n +2 "$d/layers.csv" | wc -l)" -eq 196 ] && grep -q ',decoder,fwd,' "$d/layers.csv"
}
check "every output written, none half-written; layers.csv per block" "$work/beh.log" \
  files_ok "$work/beh"
check "gemms.csv: the 7 GEMM kinds of a GPT layer and the head" "$work/beh.log" \
  bash -c "[ \$(cut -d, -f1 '$work/beh/gemms.csv' | tail -n +2 | sort -u | wc -l) -eq 7 ]"
lifespans_ok() { # every activation read back after it was written; 386 records on AN 0
  awk -F, 'NR > 1 { n++; if ($8 < 0 || $7 < $6) bad++ } END { exit !(n >= 386 && !bad) }' "$1"
}
check "lifespan.csv: every activation read back after it was written" "$work/beh.log" \
  lifespans_ok "$work/beh/lifespan.csv"
check "the ideal storage is the faster" "$work/beh.log" \
  awk -v a="$(sim_s "$work/ideal.log")" -v b="$(sim_s "$work/beh.log")" 'BEGIN { exit !(a > 0 && a < b) }'
check "the flash endurance table lists the streams" "$work/beh.log" \
  grep -q "wn.flash.O" "$work/beh.log"

# ---- the bandwidth budget: each path's bytes per iteration are its resources' counters, and
# its table is printed
budget_ok() {
  grep -q '^bandwidth budget per iteration' "$work/beh.log" && python3 - "$work/beh/stats.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
b, v = s["budget"], lambda d: d["value"]
tb = lambda n: sum(v(x["bytes"]) for x in s[n]["tb"].values() if isinstance(x, dict) and "bytes" in x)
want = {
    "wn_flash_read": v(s["wn"]["flash"]["bytes_read"]),
    "wn_flash_write": v(s["wn"]["flash"]["bytes_written"]),
    "wn_tensor_buffer": tb("wn"),
    "fabric_down": v(s["fabric"]["bytes_down"]),
    "fabric_up": v(s["fabric"]["bytes_up"]),
    "an_tensor_buffer": tb("an0"),
    "an_flash_write": v(s["an0"]["flash"]["bytes_written"]),
    "an_flash_read": v(s["an0"]["flash"]["bytes_read"]),
}
for path, bytes_ in want.items():
    assert bytes_ > 0 and v(b[path]["amount"]) == bytes_, (path, v(b[path]["amount"]), bytes_)
busy = v(b["an_core_array"]["busy_s"]) * 1e12
assert abs(busy - v(s["an0"]["core"]["busy_ps"])) <= 1, busy
it = v(s["perf"]["iteration_ps"]) * 1e-12
for path in want:
    assert 0 <= v(b[path]["util"]) <= 1 and v(b[path]["busy_s"]) <= it * 1.000001, path
EOF
}
check "the bandwidth budget's bytes are the resources' counters" "$work/beh.log" budget_ok

# ---- --validate_only: what every layer holds against the capacities; a buffer too small is
# refused naming the first layer that does not fit, with no output written
expect "--validate_only prints what each layer holds" 0 "3-96 decoder       bwd" \
  -- --config "$paper" --model gpt3-like:1x1 --validate_only --out "$work/val"
expect "a tensor buffer too small is refused naming the layer" 1 \
  "compile: layer 1, forward: the tensor buffer would hold 2.47 GB" \
  -- --config "$paper" --model gpt3-like:1x1 --set tensor_buffer.size_bytes=2GiB --out "$work/small-tb"
nothing_written() { [ ! -e "$work/small-tb" ] && [ ! -e "$work/val" ]; }
check "a refused program and --validate_only write no output" "$work/small-tb.log" nothing_written

# ---- a file-size limit (ulimit -f, as batch systems set; the shell leaves SIGXFSZ as it is): an
# error naming the file, exit 1, no temporary left
xfsz_ok() {
  bash -c 'ulimit -f 200; exec "$@"' - "$fs" perf --config "$paper" --model gpt3-like:1x1 \
    --storage ideal --out "$work/xfsz" >"$work/xfsz.log" 2>&1
  local rc=$?
  [ "$rc" -eq 1 ] && grep -q "stats.json.*failed: File too large" "$work/xfsz.log" &&
    [ -z "$(find "$work/xfsz" -name '*.tmp.*')" ] && [ ! -e "$work/xfsz/stats.json" ]
}
check "a file-size limit is an error naming the file, nothing half-written" "$work/xfsz.log" xfsz_ok

# ---- an output directory in use by another run (its lock held, as train's) is refused, its
# files left alone
mkdir -p "$work/busy" && echo kept >"$work/busy/stats.json"
busy_ok() {
  flock "$work/busy/.flashstream.lock" "$fs" perf --config "$paper" --model gpt3-like:1x1 \
    --storage ideal --out "$work/busy" >"$work/busy.log" 2>&1
  local rc=$?
  [ "$rc" -eq 1 ] && grep -qF "the output directory '$work/busy' is in use by another run" \
    "$work/busy.log" && [ "$(cat "$work/busy/stats.json")" = kept ]
}
check "an output directory in use by another run is refused" "$work/busy.log" busy_ok

# ---- the same on every node's SSD RAID 0 (the paper's baseline, at the file's grain of 16 pages)
run ssd "$work/ssd" --storage ssd-raid0
rc_ssd=$?
check "ssd-raid0 run: exit 0 and the last line" "$work/ssd.log" \
  bash -c "[ $rc_ssd -eq 0 ] && tail -1 '$work/ssd.log' | grep -Eq '$line_re'"

# ---- determinism: the same run twice, the same files (but the wall time)
run again "$work/ideal2" --storage ideal
# stats.json but the command line and the value of the wall time
strip() { awk '/"command":/ { next } /"wall_s":/ { skip = 1; print; next } skip { skip = 0; next } 1' "$1"; }
same() {
  for f in layers.csv gemms.csv lifespan.csv; do cmp -s "$work/ideal/$f" "$work/ideal2/$f" || return 1; done
  diff <(strip "$work/ideal/stats.json") <(strip "$work/ideal2/stats.json") >/dev/null
}
check "the same run twice gives the same files" "$work/ideal2.log" same

# ---- --flash-fit: the smallest flash that holds the model
expect "--flash-fit sizes the Weight Node to GPT3-like 2x1" 0 \
  "flash     Weight Node 12.01 TiB (4 chips per channel), each Activation Node 2.00 TiB (2), fitted" \
  -- --config "$paper" --model gpt3-like:2x1 --flash-fit --storage behemoth --out "$work/fit" --trace-max 0

# ---- a drive the SSD grain cannot make is named as such, not as one too small to fit
expect "--flash-fit names an SSD grain that does not divide the block" 1 \
  "pages_per_block = 768 is not a multiple of it" \
  -- --config "$paper" --model gpt3-like:1x1 --flash-fit --storage ssd-raid0 \
  --set storage.ssd_grain=512 --out "$work/grain"

# ---- a Weight Node too small for the model
expect "a Weight Node too small is refused naming the stream" 1 "stream 'M' is full" \
  -- --config "$paper" --set wn_flash.channels=128 --set wn_flash.chips_per_chan=1 \
  --model gpt3-like:1x1 --out "$work/small"
check "... and says what makes it fit (--flash-fit)" "$work/$((n - 1)).log" \
  grep -qF "(--flash-fit gives each node the chips per channel its streams need)" "$work/$((n - 1)).log"

# ---- a Hugging Face config.json: timed, its ignored fields named, a bad one refused
llama="$here/../configs/models/llama-3.1-8b.json"
"$fs" perf --config "$paper" --model "$llama" --storage ideal --out "$work/llama" \
  >"$work/llama.log" 2>&1
rc_llama=$?
hf_ok() {
  [ "$rc_llama" -eq 0 ] &&
    tail -1 "$work/llama.log" | grep -Eq '^perf: hf:llama-3.1-8b on ideal: [0-9.]+ s per iteration' &&
    grep -qF "fields that do not change the timing, ignored: attention_dropout, bos_token_id" "$work/llama.log" &&
    grep -q '^ffn_up,' "$work/llama/gemms.csv"
}
check "a Hugging Face config.json runs; its ignored fields are named" "$work/llama.log" hf_ok
expect "... a sequence longer than its sliding window is refused naming the field" 2 \
  "field sliding_window is 4096, less than the 8192 tokens asked" \
  -- --config "$paper" --model "$here/../configs/models/mistral-7b-v0.1.json" --seq 8192 \
  --out "$work/mistral"

# a SIGTERM mid-run: exit 130, nothing written and no temporary left (the SSD baseline's run,
# seconds long, is still going after 2 s)
"$fs" perf --config "$paper" --model gpt3-like:1x1 --storage ssd-raid0 --out "$work/term" \
  >"$work/term.log" 2>&1 &
term_pid=$!
sleep 2
kill -TERM "$term_pid"
wait "$term_pid"
rc_term=$?
term_ok() {
  [ "$rc_term" -eq 130 ] && grep -qF "flashstream perf: interrupted; no output written" "$work/term.log" &&
    [ -z "$(find "$work/term" -type f ! -name .flashstream.lock 2>/dev/null)" ]
}
check "SIGTERM mid-run: exit 130, no output and no temporary left" "$work/term.log" term_ok

tap_end
