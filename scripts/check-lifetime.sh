#!/usr/bin/env bash
# Checks of the lifetime study (scripts/lifetime/run.sh --quick), printed as TAP lines
# (scripts/run-tests.sh counts each case):
#
#   scripts/check-lifetime.sh FLASHSTREAM WORKDIR
#
# The quick study (the fault-free iteration and the life points at 0, 1/4, 1 and 15 times the V
# stream's rated P/E) runs and writes its CSV, report and plot; the fresh flash's RBER is the
# model's rber0 and it grows with P/E; each node is aged by its own rate (the WN's P/E at a
# point is its rate's, not the ANs'); wear-out takes spares as the years pass (none fresh, some
# at 1/4, more on the busier WN), and the report names the WN as the first limit; the machine
# fails at 1x (the WN's stream has no block left) and the study goes on with bit errors alone;
# at 15x the rating the V stream's RBER stays within the ECC's first decode (an activation lives
# about a minute, not the day it is rated for), none is uncorrectable, and each point's counters
# come from the same number of page decodes as the fault-free iteration's page reads. The same seed gives the same CSV. A bad RATE is refused by the report.
set -uo pipefail

fs=${1:?usage: check-lifetime.sh FLASHSTREAM WORKDIR}
work=${2:?usage: check-lifetime.sh FLASHSTREAM WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
. "$here/tap.sh"

out="$work/quick"
"$here/lifetime/run.sh" --quick "$out" "$fs" >"$work/run.log" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -s "$out/lifetime.csv" ] && [ -s "$out/report.md" ] && [ -s "$out/lifetime.png" ] &&
  [ "$(wc -l <"$out/lifetime.csv")" -eq 4 ] && [ -s "$out/points/1/failed.txt" ]; then
  ok "lifetime --quick: four life points (one failed), their CSV, report and plot"
else
  not_ok "lifetime --quick: four life points (one failed), their CSV, report and plot (exit $rc)" "$work/run.log"
fi

# col MULTIPLE NAME: the value of column NAME at the life point MULTIPLE
col() {
  python3 -c '
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    if r["multiple"] == sys.argv[2]:
        print(r[sys.argv[3]])' "$out/lifetime.csv" "$1" "$2"
}
if python3 -c '
import sys
r0, r1, r15 = (float(x) for x in sys.argv[1:4])
sys.exit(0 if r0 == 1e-8 and r0 < r1 < r15 and r1 < 2.1e-3 else 1)' \
  "$(col 0 an_rber_mean)" "$(col 0.25 an_rber_mean)" "$(col 15 an_rber_mean)" 2>/dev/null &&
  [ "$(col 0.25 an_retries)" = 0 ]; then
  ok "the V stream's RBER grows with P/E; below the rated RBER at 1/4 of its rating, no retry"
else
  not_ok "the V stream's RBER grows with P/E; below the rated RBER at 1/4 of its rating, no retry" "$out/lifetime.csv"
fi
# each node its own P/E: the WN's at 1/4 is its busiest stream's rate x the year, above the ANs'
if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
an = s["an0"]["flash"]["V"]["pe_per_year"]["value"]
wn = max(v["pe_per_year"]["value"] for v in s["wn"]["flash"].values() if "pe_per_year" in v)
pe, wpe = int(sys.argv[2]), int(sys.argv[3])
sys.exit(0 if pe == 500000 and wn > an and abs(wpe - 0.25 * 2e6 / an * wn) <= 1 else 1)' \
  "$out/points/base/stats.json" "$(col 0.25 pe)" "$(col 0.25 wn_pe)" 2>/dev/null &&
  grep -qF "age:pe=$(col 0.25 wn_pe),days=0,node=wn" "$out/points/0.25/stats.json" 2>/dev/null; then
  ok "each node aged by its own P/E rate (the WN's busier than the ANs')"
else
  not_ok "each node aged by its own P/E rate (the WN's busier than the ANs')" "$out/lifetime.csv"
fi
if [ "$(col 0 an_spares_used)" = 0 ] && [ "$(col 0 wn_spares_used)" = 0 ] &&
  [ "$(col 0.25 an_spares_used)" -gt 0 ] 2>/dev/null &&
  [ "$(col 0.25 wn_spares_used)" -gt "$(col 0.25 an_spares_used)" ] 2>/dev/null &&
  grep -qE "^The first limit the flash reaches: at year [0-9.]+ the Weight Node" "$out/report.md" &&
  [ "$(col 15 series)" = bit-errors ]; then
  ok "wear-out: spares used grow with the years, the WN's first and the report says so"
else
  not_ok "wear-out: spares used grow with the years, the WN's first and the report says so" "$out/report.md"
fi
decoded() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["faults"]["pages_decoded"]["value"])' "$1"; }
read_pages() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["V"]["pages_read"]["value"])' "$1"; }
# an activation lives about a minute (the iteration), not the day it is rated for: at 15x the
# rated P/E its bit errors stay within the ECC's first decode
if [ "$(col 15 an_retries)" = 0 ] && [ "$(col 15 uncorrectable)" = 0 ] &&
  python3 -c 'import sys; sys.exit(0 if 1e-5 < float(sys.argv[1]) < 1e-3 else 1)' \
    "$(col 15 an_rber_max)" 2>/dev/null &&
  [ "$(decoded "$out/points/15/stats.json")" = "$(read_pages "$out/points/base/stats.json")" ]; then
  ok "at 15x the rated P/E the RBER is within the first decode, none uncorrectable, every page read decoded"
else
  not_ok "at 15x the rated P/E the RBER is within the first decode, none uncorrectable, every page read decoded" "$out/lifetime.csv"
fi
"$here/lifetime/report.py" "$out" -5 1 >"$work/bad.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -qF "RATE must be > 0 P/E cycles a year, got -5" "$work/bad.log"; then
  ok "report.py refuses a bad RATE naming it"
else
  not_ok "report.py refuses a bad RATE naming it (exit $rc)" "$work/bad.log"
fi
# the same seed draws the same faults: the 1/4 point again gives the same worn blocks, spares
# and retries on every node
worn() {
  python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["stats"]
print(" ".join(",".join(str(s[n]["flash"][g][k]["value"]) for g, k in
                        (("faults", "worn_blocks"), ("faults", "program_failures"),
                         ("V", "spares_used"), ("NV", "spares_used")))
               for n in ("an0", "an1", "an2", "an3")), s["wn"]["flash"]["faults"]["worn_blocks"]["value"])' "$1"
}
mkdir -p "$work/again"
"$fs" perf --config "$here/../configs/behemoth-paper.ini" --model gpt3-like:1x1 --storage behemoth \
  --trace-max 0 --out "$work/again" --fault "age:pe=$(col 0.25 pe),days=0,node=an" \
  --fault "age:pe=$(col 0.25 wn_pe),days=0,node=wn" --fault wear --fault seed:n=1 >"$work/again.log" 2>&1
a=$(worn "$out/points/0.25/stats.json" 2>/dev/null)
b=$(worn "$work/again/stats.json" 2>/dev/null)
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(echo "$a" | cut -d' ' -f1)" != "$(echo "$a" | cut -d' ' -f2)" ]; then
  ok "the same seed draws the same wear-out; two ANs draw their own ($a)"
else
  not_ok "the same seed draws the same wear-out; two ANs draw their own ('$a' vs '$b')" "$work/again.log"
fi
tap_end
