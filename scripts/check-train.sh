#!/usr/bin/env bash
# End-to-end checks of `flashstream train`, printed as TAP lines (scripts/run-tests.sh counts
# each case):
#
#   scripts/check-train.sh FLASHSTREAM WORKDIR
#
# Short runs on a slice of Fashion-MNIST: bad options are refused with exit 2 and a message
# naming the option; --compile_only and --validate_only; a run with an rtl step is bit-identical
# to the golden trainer and its loss falls; a run writes every output (no temporary file left);
# a run resumed from a
# checkpoint ends with the same weights (params digest) and losses as one never interrupted; a
# truncated or foreign checkpoint and a conflicting option are refused; SIGINT stops after the
# current step with a checkpoint (exit 130); plot.sh renders the PNGs. And `flashstream model`
# prints Table 3 and refuses a bad spec (its numbers are test_zoo's).
set -uo pipefail

fs=${1:?usage: check-train.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-train.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
small=(--train-samples 1024 --test-samples 256 --progress plain)

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # name, log file
  n=$((n + 1))
  fail=1
  echo "not ok $n - $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -20 "$2" | sed 's/^/     /'
}
# expect NAME STATUS NEEDLE -- ARGS...: the command exits with STATUS and prints NEEDLE.
expect() {
  local name=$1 want=$2 needle=$3
  shift 4
  local log="$work/$n.log"
  "$fs" train "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -eq "$want" ] && grep -qF -- "$needle" "$log"; then ok "$name"; else
    echo "     exit $rc (want $want), looking for: $needle" >"$log.why"
    cat "$log" >>"$log.why"
    not_ok "$name" "$log.why"
  fi
}
digest() { sed -n 's/.*params digest \([0-9a-f]*\).*/\1/p' "$1"; }

# ---- options
expect "bad integer" 2 "--steps 'x' is not accepted" -- --steps x
expect "bad enum lists the names" 2 "give one of sgd, adam" -- --opt rmsprop
expect "batch not a multiple of nodes" 2 "is not a multiple of --nodes 4" -- --batch 63
expect "unknown option" 2 "unknown option '--bogus'" -- --bogus
expect "model of the wrong shape" 2 "Fashion-MNIST needs 784 inputs" -- --model mlp:784-10-9
expect "bad hidden list" 2 "item 2 '0'" -- --hidden 256,0

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
if [ -z "$missing" ] && [ -z "$(ls "$a" | grep '\.tmp$')" ]; then ok "every output written, no temporary left"; else
  echo "     missing:$missing" >"$work/missing.log"
  not_ok "every output written, no temporary left" "$work/missing.log"
fi
if [ "$(wc -l <"$a/loss.csv")" -eq 7 ] && grep -q "test accuracy" "$work/a.log" &&
  grep -q "where the time went" "$work/a.log" && grep -q "flash endurance" "$work/a.log"; then
  ok "loss per step, accuracy, layer table and endurance figures"
else
  not_ok "loss per step, accuracy, layer table and endurance figures" "$work/a.log"
fi
# python3 is one of the project's dependencies (scripts/setup-deps.sh).
if python3 -c "import json,sys; [json.load(open(f)) for f in sys.argv[1:]]" "$a/stats.json" "$a/trace.json" 2>"$work/json.log"; then
  ok "stats.json and trace.json are JSON"
else
  not_ok "stats.json and trace.json are JSON" "$work/json.log"
fi

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

# ---- refusals
head -c 1000 "$a/checkpoint.ckpt" >"$work/trunc.ckpt"
expect "truncated checkpoint refused" 1 "is truncated" -- "${small[@]}" --steps 9 --resume "$work/trunc.ckpt" --out "$work/c"
cp "$a/loss.csv" "$work/foreign.ckpt"
expect "foreign file refused" 1 "is not a flashstream checkpoint" -- "${small[@]}" --steps 9 --resume "$work/foreign.ckpt" --out "$work/c"
expect "conflicting option refused" 1 "a different --lr would not continue" -- "${small[@]}" --steps 9 --lr 0.5 --resume "$a/checkpoint.ckpt" --out "$work/c"
expect "different data set refused" 1 "give --train-samples 1024" -- --train-samples 2048 --test-samples 256 --steps 9 --resume "$a/checkpoint.ckpt" --out "$work/c"

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

# ---- plots (gnuplot is one of the project's dependencies)
if "$here/plots/plot.sh" "$a" >"$work/plot.log" 2>&1 && [ -s "$a/loss.png" ] && [ -s "$a/timeline.png" ]; then
  ok "plot.sh renders the PNGs"
else
  not_ok "plot.sh renders the PNGs" "$work/plot.log"
fi

# ---- flashstream model
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

echo "1..$n"
exit $fail
