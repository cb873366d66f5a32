#!/usr/bin/env python3
"""The lifetime study's report (scripts/lifetime/run.sh): lifetime.csv, report.md, lifetime.png.

    scripts/lifetime/report.py OUT RATE WRATE

OUT/points/base is the fault-free iteration, OUT/points/<m> the iteration at m times the V
stream's rated P/E cycles (2M), its series in OUT/points/<m>/series (machine: every node aged
by its own rate, wear-out on; bit-errors: the ANs aged alone, no wear-out); RATE is the V
stream's P/E cycles per year, WRATE the Weight Node's busiest stream's. A point whose stats.json
is missing failed (OUT/points/<m>/failed.txt says why). For each point: the year, each node's
P/E cycles, the mean and highest RBER of the pages the Activation Node 0 and the Weight Node
decoded, their read retries and the time those took, the blocks found worn out and the spare
blocks used per node, the superblocks retired (a plane out of spares), and the iteration time
against the fault-free one. The limits: the year each node's busiest stream reaches its P/E
budget, the year a node's spares first run out, the first point that failed, the first point
more than 1% slower; which comes first.
"""
import csv
import json
import os
import subprocess
import sys

BUDGET = 2e6  # the V stream's P/E budget (paper, Table 2)
SLOWER = 1.01


def walk(tree, pre=""):
    for k, v in tree.items():
        if isinstance(v, dict) and "value" not in v:
            yield from walk(v, pre + k + ".")
        else:
            yield pre + k, v["value"]


def load(path):
    with open(path) as f:
        return dict(walk(json.load(f)["stats"]))


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: report.py OUT RATE WRATE")
    out, rate, wrate = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    if rate <= 0:
        sys.exit("report.py: RATE must be > 0 P/E cycles a year, got %s" % sys.argv[2])
    if wrate <= 0:
        sys.exit("report.py: WRATE must be > 0 P/E cycles a year, got %s" % sys.argv[3])
    pts = os.path.join(out, "points")
    base = load(os.path.join(pts, "base", "stats.json"))
    t0 = base["perf.iteration_ps"] / 1e12
    names = sorted((d for d in os.listdir(pts) if d != "base"), key=float)
    rows, stop, spares_out, failed = [], None, {}, None
    for m in names:
        path = os.path.join(pts, m, "stats.json")
        years = float(m) * BUDGET / rate
        try:
            with open(os.path.join(pts, m, "series")) as f:
                series = f.read().strip()
        except OSError:
            series = "machine"
        if not os.path.exists(path):
            try:
                with open(os.path.join(pts, m, "failed.txt")) as f:
                    why = f.read().strip()
            except OSError:
                why = "failed"
            failed = failed or (years, why)
            stop = stop or (years, "failed")
            continue
        s = load(path)
        t = s["perf.iteration_ps"] / 1e12
        node = lambda n, suf: sum(v for k, v in s.items()
                                  if k.startswith(n + ".flash.") and k.endswith(suf))
        for n in ("an0", "wn"):
            if node(n, ".sb_retired") and n not in spares_out:
                spares_out[n] = years
        rows.append({
            "multiple": m, "series": series, "year": "%.1f" % years,
            "pe": int(round(float(m) * BUDGET)),
            "wn_pe": int(round(years * wrate)) if series == "machine" else 0,
            "an_rber_mean": "%.4g" % s["an0.flash.faults.rber_mean"],
            "an_rber_max": "%.4g" % s["an0.flash.faults.rber_max"],
            "an_retries": s["an0.flash.faults.retries"],
            "an_retry_ms": "%.3f" % (s["an0.flash.faults.retry_ps"] / 1e9),
            "wn_rber_mean": "%.4g" % s["wn.flash.faults.rber_mean"],
            "wn_retries": s["wn.flash.faults.retries"],
            "uncorrectable": s["an0.flash.faults.uncorrectable"] + s["wn.flash.faults.uncorrectable"],
            "an_worn": s.get("an0.flash.faults.worn_blocks", 0),
            "an_spares_used": node("an0", ".spares_used"),
            "wn_worn": s.get("wn.flash.faults.worn_blocks", 0),
            "wn_spares_used": node("wn", ".spares_used"),
            "sb_retired": node("an0", ".sb_retired") + node("wn", ".sb_retired"),
            "iteration_s": "%.3f" % t, "slowdown": "%.4f" % (t / t0),
        })
        if t > SLOWER * t0 and not stop:
            stop = (years, "%.1f%% slower" % (100 * (t / t0 - 1)))
    if not rows:
        sys.exit("report.py: no life point ran (logs in %s)" % pts)
    csv_path = os.path.join(out, "lifetime.csv")
    with open(csv_path + ".tmp", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    os.replace(csv_path + ".tmp", csv_path)

    wear = BUDGET / rate
    wn_life = min(v for k, v in base.items()
                  if k.startswith("wn.flash.") and k.endswith(".lifetime_years") and v > 0)
    lines = ["# Flash lifetime with faults", "",
             "gpt3-like iteration on configs/behemoth-paper.ini: %.3f s fault-free; the ANs' V "
             "stream takes %.0f P/E cycles a year, its 2M budget in %.1f years; the WN's "
             "busiest stream %.0f a year, its budget in %.1f years. Each node is aged by its own "
             "rate, wear-out on (series machine), until a point fails; the points after it age "
             "the ANs alone with no wear-out (series bit-errors)." % (t0, rate, wear, wrate,
                                                                      wn_life), "",
             "| " + " | ".join(rows[0]) + " |",
             "|" + "---|" * len(rows[0])]
    for r in rows:
        lines.append("| " + " | ".join(str(v) for v in r.values()) + " |")
    lines.append("")
    ends = [(wear, "the Activation Nodes' V stream reaches its P/E budget"),
            (wn_life, "the Weight Node's busiest stream reaches its P/E budget")]
    for n, y in sorted(spares_out.items()):
        ends.append((y, "%s runs out of spare blocks in a plane (superblocks retired; first "
                        "seen at this point)" % ("an Activation Node" if n == "an0" else
                                                 "the Weight Node")))
    if failed:
        ends.append((failed[0], "an iteration fails: " + failed[1][:200]))
    if stop and stop[1] != "failed":
        ends.append((stop[0], "bit errors: an iteration " + stop[1]))
    for y, what in sorted(ends):
        lines.append("- year %.1f: %s" % (y, what))
    if not stop:
        lines.append("- no point was more than 1%% slower up to year %s (%sx the V stream's rated "
                     "P/E)" % (rows[-1]["year"], rows[-1]["multiple"]))
    end = min(ends)
    lines.append("")
    lines.append("The first limit the flash reaches: at year %.1f %s." % end)
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plot(out, csv_path, wear)


def plot(out, csv_path, wear):
    png = os.path.join(out, "lifetime.png")
    gp = """
set terminal pngcairo size 900,600
set output '{png}.tmp'
set datafile separator ','
set key top left
set xlabel 'year of service (accelerated: P/E of that year, one iteration)'
set logscale y
set format y '%.0e'
set arrow from {wear}, graph 0 to {wear}, graph 1 nohead dashtype 2
set label 'P/E budget (2M)' at {wear}, graph 0.95 offset 1,0
set ylabel 'raw bit error rate'
set y2label 'read retries per iteration (AN 0)'
set y2tics
set ytics nomirror
set title 'V stream over its lifetime: RBER and read retries'
plot '{csv}' skip 1 using 3:6 with linespoints title 'AN RBER mean', \\
     '' skip 1 using 3:7 with linespoints title 'AN RBER max', \\
     '' skip 1 using 3:($8 > 0 ? $8 : 1/0) axes x1y2 with impulses lw 3 title 'AN retries'
""".format(png=png, csv=csv_path, wear=wear)
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True, capture_output=True)
        os.replace(png + ".tmp", png)
    except (OSError, subprocess.CalledProcessError) as e:
        print("report.py: no plot (gnuplot: %s)" % e, file=sys.stderr)


if __name__ == "__main__":
    main()
