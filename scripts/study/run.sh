#!/usr/bin/env bash
# make study: Behemoth's throughput as its flash, its Weight Node's fan-out and its memory
# hierarchy change, a study the paper does not publish.
#
#   scripts/study/run.sh [OUT [FLASHSTREAM [MODEL]]]   (default out/study, build/rel/flashstream,
#                                                      gpt3-like:1x1)
#
# Six sweeps of `flashstream perf` on configs/behemoth-paper.ini with --flash-fit (every point's
# flash sized to hold the model, so a point with fewer channels gets more chips per channel),
# through GNU parallel (scripts/sweep):
#   flash/      the Activation Nodes' FMS: channels x NAND program time (SLC 100 us to
#               TLC-class 700 us) x cache program on and off
#   fanout/     Activation Nodes per Weight Node, 1 to 64
#   sram/ multicast/ tb/ link/   the memory hierarchy: SRAM per core, weight multicast on and
#               off, tensor-buffer channels, fabric link rate
#   models-2k/ models-8k/   LLaMA-3.1-405B, Mixtral-8x7B and DeepSeek-V3 (configs/models/) on
#               Behemoth, the SSD baseline and ideal storage, at 2048 and 8192 tokens
# then OUT/report.md, the knee of every curve and the resource that takes over there, and the
# plots (scripts/study/report.py).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-out/study}
fs=${2:-build/rel/flashstream}
model=${3:-gpt3-like:1x1}
cfg=$here/../../configs/behemoth-paper.ini

"$here/../sweep" --out "$out/flash" --config "$cfg" --model "$model" --storage behemoth \
  --set an_flash.channels=4,8,16,32,64,128 --set an_flash.t_prog_ns=100000,300000,500000,700000 \
  --set an_flash.cache_program=on,off --flashstream "$fs" --no-plots -- --flash-fit
"$here/../sweep" --out "$out/fanout" --config "$cfg" --model "$model" --storage behemoth \
  --set machine.activation_nodes=1,2,4,8,16,32,64 --flashstream "$fs" --no-plots -- --flash-fit
# The memory hierarchy of weight streaming, one key at a time from the paper's machine (a point
# whose program does not fit its tensor buffer is refused, and the report lists it)
"$here/../sweep" --out "$out/sram" --config "$cfg" --model "$model" --storage behemoth \
  --set core.sram_bytes=8388608,33554432,134217728,268435456,536870912,1073741824 --flashstream "$fs" --no-plots -- --flash-fit
"$here/../sweep" --out "$out/multicast" --config "$cfg" --model "$model" --storage behemoth \
  --set machine.multicast=on,off --flashstream "$fs" --no-plots -- --flash-fit
"$here/../sweep" --out "$out/tb" --config "$cfg" --model "$model" --storage behemoth \
  --set tensor_buffer.channels=1,2,4,6,8,16 --flashstream "$fs" --no-plots -- --flash-fit
"$here/../sweep" --out "$out/link" --config "$cfg" --model "$model" --storage behemoth \
  --set fabric.link_mb_per_s=12500,25000,50000,100000,150000,300000 --flashstream "$fs" \
  --no-plots -- --flash-fit
# Today's models, from their Hugging Face config.json, on the three storages at 2k and 8k tokens
models=$here/../../configs/models
hf=$models/llama-3.1-405b.json,$models/mixtral-8x7b-v0.1.json,$models/deepseek-v3.json
for seq in 2048 8192; do
  "$here/../sweep" --out "$out/models-$((seq / 1024))k" --config "$cfg" --model "$hf" \
    --storage behemoth,ssd-raid0,ideal --flashstream "$fs" --no-plots -- --flash-fit --seq "$seq"
done
[ -s "$out/flash/sweep.csv" ] && [ -s "$out/fanout/sweep.csv" ] ||
  { echo "make study: a sweep ran no point (logs in $out/*/points)" >&2; exit 1; }
"$here/report.py" "$out"
