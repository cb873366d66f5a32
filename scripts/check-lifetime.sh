#!/usr/bin/env bash
# Checks of the lifetime study (scripts/lifetime/run.sh --quick), printed as TAP lines
# (scripts/run-tests.sh counts each case):
#
#   scripts/check-lifetime.sh FLASHSTREAM WORKDIR
#
# The quick study (the fault-free iteration and the life points at 0, 1 and 15 times the V
# stream's rated P/E) runs and writes its CSV, report and plot; the fresh flash's RBER is the
# model's rber0 and it grows with P/E; at the rating the mean RBER is below the rated RBER
# (the V stream's data live minutes, not its rated day) and no page needs a retry; at 15x the
# rating pages are retried, none is uncorrectable, and each point's counters come from the same
# number of page decodes as the fault-free iteration's page reads. A bad RATE is refused by the
# report.
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
  [ "$(wc -l <"$out/lifetime.csv")" -eq 4 ]; then
  ok "lifetime --quick: three life points, their CSV, report and plot"
else
  not_ok "lifetime --quick: three life points, their CSV, report and plot (exit $rc)" "$work/run.log"
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
  "$(col 0 an_rber_mean)" "$(col 1 an_rber_mean)" "$(col 15 an_rber_mean)" 2>/dev/null &&
  [ "$(col 1 an_retries)" = 0 ]; then
  ok "the V stream's RBER grows with P/E; at its rating, below the rated RBER, no retry"
else
  not_ok "the V stream's RBER grows with P/E; at its rating, below the rated RBER, no retry" "$out/lifetime.csv"
fi
decoded() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["faults"]["pages_decoded"]["value"])' "$1"; }
read_pages() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["stats"]["an0"]["flash"]["V"]["pages_read"]["value"])' "$1"; }
if [ "$(col 15 an_retries)" -gt 0 ] 2>/dev/null && [ "$(col 15 uncorrectable)" = 0 ] &&
  [ "$(decoded "$out/points/15/stats.json")" = "$(read_pages "$out/points/base/stats.json")" ]; then
  ok "at 15x the rated P/E pages are retried, none uncorrectable, every page read decoded"
else
  not_ok "at 15x the rated P/E pages are retried, none uncorrectable, every page read decoded" "$out/lifetime.csv"
fi
"$here/lifetime/report.py" "$out" -5 >"$work/bad.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -qF "RATE must be > 0 P/E cycles a year, got -5" "$work/bad.log"; then
  ok "report.py refuses a bad RATE naming it"
else
  not_ok "report.py refuses a bad RATE naming it (exit $rc)" "$work/bad.log"
fi
tap_end
