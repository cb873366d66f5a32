#!/usr/bin/env bash
# make paper: Behemoth's evaluation (FAST '21) on the simulator.
#
#   scripts/paper/run.sh [OUT [FLASHSTREAM]]      (default out/paper, build/rel/flashstream)
#
# Runs the 12 workloads of Table 3 on the three storages of Figure 9 (the SSD baseline, Behemoth,
# ideal) in perf mode on configs/behemoth-paper.ini, each node's flash sized to hold the model
# (--flash-fit), as one sweep through GNU parallel (scripts/sweep), then writes OUT/report.md,
# a CSV per figure and the plots (scripts/paper/report.py).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-out/paper}
fs=${2:-build/rel/flashstream}
models=gpt3-like:1x1,gpt3-like:1x2,gpt3-like:1x4,gpt3-like:2x1,gpt3-like:2x2,gpt3-like:2x4
models+=,t5-like:1x1,t5-like:1x2,t5-like:1x4,t5-like:2x1,t5-like:2x2,t5-like:2x4

# A point that cannot run (a model no array of 64 SSDs holds) is named in the report with its
# reason; the report needs the rest.
"$here/../sweep" --out "$out" --config "$here/../../configs/behemoth-paper.ini" \
  --model "$models" --storage ssd-raid0,behemoth,ideal --flashstream "$fs" --no-plots \
  -- --flash-fit
[ -s "$out/sweep.csv" ] || { echo "make paper: no point ran (their logs are in $out/points)" >&2; exit 1; }
"$here/report.py" "$out"
