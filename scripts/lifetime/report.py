#!/usr/bin/env python3
"""The lifetime study's report (scripts/lifetime/run.sh): lifetime.csv, report.md, lifetime.png.

    scripts/lifetime/report.py OUT RATE

OUT/points/base is the fault-free iteration, OUT/points/<m> the iteration at m times the V
stream's rated P/E cycles (2M); RATE is the V stream's P/E cycles per year. A point whose
stats.json is missing failed (its log says why). For each point: the year, the P/E cycles,
the mean and highest RBER of the pages the Activation Node 0 and the Weight Node decoded, their
read retries and the time those took, the spare blocks used over every node's streams, and the
iteration time against the fault-free one. The year the flash stops keeping up is the first
point more than 1% slower, or that failed; the year the V stream reaches its P/E budget (the FTL
retires its blocks then) is printed beside it.
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
    if len(sys.argv) != 3:
        sys.exit("usage: report.py OUT RATE")
    out, rate = sys.argv[1], float(sys.argv[2])
    if rate <= 0:
        sys.exit("report.py: RATE must be > 0 P/E cycles a year, got %s" % sys.argv[2])
    pts = os.path.join(out, "points")
    base = load(os.path.join(pts, "base", "stats.json"))
    t0 = base["perf.iteration_ps"] / 1e12
    names = sorted((d for d in os.listdir(pts) if d != "base"), key=float)
    rows, stop = [], None
    for m in names:
        path = os.path.join(pts, m, "stats.json")
        years = float(m) * BUDGET / rate
        if not os.path.exists(path):
            stop = stop or (years, "failed")
            continue
        s = load(path)
        t = s["perf.iteration_ps"] / 1e12
        spares = sum(v for k, v in s.items() if k.endswith(".spares_used"))
        rows.append({
            "multiple": m, "year": "%.1f" % years, "pe": int(round(float(m) * BUDGET)),
            "an_rber_mean": "%.4g" % s["an0.flash.faults.rber_mean"],
            "an_rber_max": "%.4g" % s["an0.flash.faults.rber_max"],
            "an_retries": s["an0.flash.faults.retries"],
            "an_retry_ms": "%.3f" % (s["an0.flash.faults.retry_ps"] / 1e9),
            "wn_rber_mean": "%.4g" % s["wn.flash.faults.rber_mean"],
            "wn_retries": s["wn.flash.faults.retries"],
            "uncorrectable": s["an0.flash.faults.uncorrectable"] + s["wn.flash.faults.uncorrectable"],
            "spares_used": spares,
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
             "stream takes %.0f P/E cycles a year, its 2M budget in %.1f years (the WN's "
             "busiest stream's in %.1f years)." % (t0, rate, wear, wn_life), "",
             "| x rated P/E | year | P/E | AN RBER mean | AN RBER max | AN retries | "
             "AN retry ms | WN RBER mean | WN retries | uncorrectable | spares used | "
             "iteration s | slowdown |",
             "|" + "---|" * 13]
    for r in rows:
        lines.append("| " + " | ".join(str(v) for v in r.values()) + " |")
    lines.append("")
    if stop:
        lines.append("The flash stops keeping up at year %.1f (%s), %.1fx its rated life; the V "
                     "stream reaches its P/E budget at year %.1f, when the FTL retires its "
                     "blocks." % (stop[0], stop[1], stop[0] / wear, wear))
    else:
        lines.append("No point was more than 1%% slower: as far as bit errors go the flash keeps "
                     "up to year %s at least (%sx its rated P/E); its P/E budget ends the V "
                     "stream at year %.1f, before bit errors slow it." %
                     (rows[-1]["year"], rows[-1]["multiple"], wear))
    ends = [(wear, "the Activation Nodes' V stream reaches its P/E budget"),
            (wn_life, "the Weight Node's busiest stream reaches its P/E budget")]
    if stop:
        ends.append((stop[0], "bit errors: an iteration " + stop[1]))
    end = min(ends)
    lines.append("")
    lines.append("The flash meets its throughput until year %.1f: then %s." % end)
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
plot '{csv}' skip 1 using 2:4 with linespoints title 'AN RBER mean', \\
     '' skip 1 using 2:5 with linespoints title 'AN RBER max', \\
     '' skip 1 using 2:($6 > 0 ? $6 : 1/0) axes x1y2 with impulses lw 3 title 'AN retries'
""".format(png=png, csv=csv_path, wear=wear)
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True, capture_output=True)
        os.replace(png + ".tmp", png)
    except (OSError, subprocess.CalledProcessError) as e:
        print("report.py: no plot (gnuplot: %s)" % e, file=sys.stderr)


if __name__ == "__main__":
    main()
