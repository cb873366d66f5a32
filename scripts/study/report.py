#!/usr/bin/env python3
"""The study's report (flash, fan-out, memory hierarchy): knees, the resource past each, plots.

    scripts/study/report.py OUT

OUT holds the sweeps (scripts/sweep) of one model on Behemoth: OUT/flash/sweep.csv over the
Activation Nodes' an_flash.channels x an_flash.t_prog_ns x an_flash.cache_program,
OUT/fanout/sweep.csv over
machine.activation_nodes, and, when they ran, the memory hierarchy's: OUT/sram (core.sram_bytes),
OUT/multicast (machine.multicast), OUT/tb (tensor_buffer.channels), OUT/link
(fabric.link_mb_per_s), their refused points listed with their error, and today's models'
(OUT/models-2k, OUT/models-8k: Hugging Face configs on the three storages at 2048 and 8192
tokens: sequences/s per Activation Node, the path that binds, the V stream's lifetime). Writes
OUT/report.md,
OUT/flash.csv, OUT/fanout.csv and the gnuplot PNGs OUT/flash-channels.png and OUT/fanout.png.

A curve's knee is where the resource that bounds it changes: the last point, coming from the
curve's best end, whose throughput is within KNEE_LOSS of the best (a flash curve's best is its
most channels or shortest program time; the fan-out curve's is per Activation Node, at one).
Past it, the resource that took over is the phase whose time per iteration grew the most from
the best point (sweep.csv's phase columns, summed over layers and passes), with the phase the
layers waited on most there.
"""
import csv
import importlib.util
import json
import os
import re
import subprocess
import sys

_spec = importlib.util.spec_from_file_location(
    "paper_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "paper", "report.py"))
PAPER = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(PAPER)

KNEE_LOSS = 0.05
PHASES = ("compute", "weight_fetch", "broadcast", "act_write", "act_read", "reduce", "optimizer")
CH, TP, CP, AN = ("an_flash.channels", "an_flash.t_prog_ns", "an_flash.cache_program",
                  "machine.activation_nodes")


def die(msg):
    print(f"study report: {msg}", file=sys.stderr)
    sys.exit(1)


def read_sweep(path, keys):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"cannot read {path}: {e}")
    for r in rows:
        missing = [k for k in keys if k not in r]
        if missing:
            die(f"{path}: no column {missing[0]} (was the sweep run by scripts/study/run.sh?)")
        r["tput"] = float(r["sequences_per_s"])
        r["dir"] = os.path.dirname(path)
    return rows


def took_over(best, past):
    """The phase that grew most from best to past, and what past's layers waited on."""
    grew = max(PHASES, key=lambda p: float(past[p + "_s"]) - float(best[p + "_s"]))
    delta = float(past[grew + "_s"]) - float(best[grew + "_s"])
    return f"{grew} (+{delta:.1f} s per iteration; layers waited on {past['waited_on']})"


def knee(curve, value, per=lambda r: r["tput"]):
    """curve: rows from the best end to the worst. (knee row, the row past it or None)."""
    best = per(curve[0])
    last = curve[0]
    for r in curve[1:]:
        if per(r) < (1 - KNEE_LOSS) * best:
            return last, r
        last = r
    return last, None


def describe(curve, name, unit, per=lambda r: r["tput"], scale=1.0):
    k, past = knee(curve, name, per)
    kv = float(k[name]) * scale
    if past is None:
        return (f"no knee: within {KNEE_LOSS:.0%} of its best over the whole range; "
                f"bound by {curve[0]['waited_on']}")
    pv = float(past[name]) * scale
    return (f"knee at {kv:g} {unit}; at {pv:g} {unit} {per(past) / per(curve[0]):.2f} of the "
            f"best, and what took over: {took_over(curve[0], past)}")


def flash_section(rows, out):
    tprogs = sorted({int(r[TP]) for r in rows})
    chans = sorted({int(r[CH]) for r in rows})
    at = {(int(r[CH]), int(r[TP]), r[CP]): r for r in rows}
    caches = [c for c in ("on", "off") if any(r[CP] == c for r in rows)]
    text = ["## The Activation Nodes' flash: channels x NAND program time x cache program", "",
            "Sequences/s per Behemoth (one Activation Node of 16 cores); the Activation Nodes' "
            "FMS swept, the Weight Node's as configured; every point's flash fitted to the "
            "model, so fewer channels means more chips on each (its capacity and dies stay "
            "about the same, its channel bandwidth falls).", "",
            "| tPROG (us) | cache | " + " | ".join(f"{c} ch" for c in chans) + " |",
            "|---|---|" + "---|" * len(chans)]
    with open(os.path.join(out, "flash.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["t_prog_us", "cache_program"] + [f"ch{c}" for c in chans])
        for tp in tprogs:
            for c in caches:
                vals = [at[(ch, tp, c)]["tput"] / an_of(at[(ch, tp, c)]) if (ch, tp, c) in at
                        else None for ch in chans]
                cells = [f"{v:.5f}" if v is not None else "-" for v in vals]
                text.append(f"| {tp / 1000:g} | {c} | " + " | ".join(cells) + " |")
                w.writerow([tp / 1000, c] + [f"{v:.6g}" if v is not None else "" for v in vals])
    text += ["", "Knees against channels (one curve per program time and cache setting):", ""]
    for tp in tprogs:
        for c in caches:
            curve = [at[(ch, tp, c)] for ch in reversed(chans) if (ch, tp, c) in at]
            text.append(f"- tPROG {tp / 1000:g} us, cache {c}: "
                        + describe(curve, CH, "channels"))
    text += ["", "Knees against program time (one curve per channel count and cache setting):",
             ""]
    for ch in chans:
        for c in caches:
            curve = [at[(ch, tp, c)] for tp in tprogs if (ch, tp, c) in at]
            text.append(f"- {ch} channels, cache {c}: "
                        + describe(curve, TP, "us", scale=1e-3))
    return text + [""]


def an_of(r):
    """The point's Activation Nodes, from its stats.json (the flash sweep does not vary them)."""
    path = os.path.join(r["dir"], "points", r["point"], "stats.json")
    try:
        with open(path) as f:
            return int(json.load(f)["config"]["machine"]["activation_nodes"])
    except (OSError, ValueError, KeyError) as e:
        die(f"cannot read the Activation Nodes of {path}: {e}")


def fanout_section(rows, out):
    rows = sorted(rows, key=lambda r: int(r[AN]))
    for r in rows:
        r["per_an"] = r["tput"] / int(r[AN])
    text = ["## Fan-out: Activation Nodes per Weight Node", "",
            "| ANs | sequences/s | per AN | of 1 AN's | waited on |", "|---|---|---|---|---|"]
    one = rows[0]["per_an"]
    with open(os.path.join(out, "fanout.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["activation_nodes", "sequences_per_s", "per_an"] + [p + "_s" for p in PHASES])
        for r in rows:
            text.append(f"| {r[AN]} | {r['tput']:.5f} | {r['per_an']:.5f} | "
                        f"{r['per_an'] / one:.2f} | {r['waited_on']} |")
            w.writerow([r[AN], f"{r['tput']:.6g}", f"{r['per_an']:.6g}"]
                       + [r[p + "_s"] for p in PHASES])
    text += ["", "- Sequences/s per Activation Node: "
             + describe(rows, AN, "ANs", per=lambda r: r["per_an"]), ""]
    return text


# The memory-hierarchy sweeps: (directory, key, unit, scale for the printed value, what it is)
HIERARCHY = (
    ("sram", "core.sram_bytes", "MiB", 1 / 2**20, "SRAM per core"),
    ("tb", "tensor_buffer.channels", "GB/s", 25.6, "an Activation Node's tensor buffer, 25.6 GB/s a channel"),
    ("link", "fabric.link_mb_per_s", "GB/s", 1e-3, "the fabric's links, each direction"),
)


def refused(sweep_dir):
    """The points of a sweep that did not run: (point, the first line of their error)."""
    out = []
    points = os.path.join(sweep_dir, "points")
    for name in sorted(os.listdir(points)) if os.path.isdir(points) else []:
        if not name.endswith(".rc"):
            continue
        with open(os.path.join(points, name)) as f:
            if f.read().strip() == "0":
                continue
        log = os.path.join(points, name[:-3] + ".log")
        lines = [l.strip() for l in open(log)] if os.path.exists(log) else []
        said = [l for l in lines if l.startswith("flashstream") and "ignored:" not in l]
        why = said[-1] if said else lines[-1] if lines else ""
        out.append((name[:-3], why))
    return out


def hierarchy_section(out):
    text = ["## The memory hierarchy of weight streaming", "",
            "One key at a time from the paper's machine (sequences/s per Activation Node; "
            "refused points did not fit their tensor buffer, or their SRAM, and name where):", ""]
    for d, key, unit, scale, what in HIERARCHY:
        path = os.path.join(out, d, "sweep.csv")
        rows = read_sweep(path, (key,)) if os.path.exists(path) else []
        rows.sort(key=lambda r: -float(r[key]))
        text += [f"### {what}", "", f"| {key} | {unit} | sequences/s per AN | waited on |",
                 "|---|---|---|---|"]
        for r in rows:
            r["per_an"] = r["tput"] / an_of(r)
            text.append(f"| {r[key]} | {float(r[key]) * scale:g} | {r['per_an']:.5f} | "
                        f"{r['waited_on']} |")
        for point, why in refused(os.path.join(out, d)):
            text.append(f"| {point} | - | refused | {why} |")
        if rows:
            text += ["", "- " + describe(rows, key, unit, per=lambda r: r["per_an"], scale=scale)]
        text.append("")
    path = os.path.join(out, "multicast", "sweep.csv")
    rows = read_sweep(path, ("machine.multicast",)) if os.path.exists(path) else []
    text += ["### Multicast of the weights to the 16 cores of an AN", "",
             "| machine.multicast | sequences/s per AN | waited on |", "|---|---|---|"]
    for r in rows:
        text.append(f"| {r['machine.multicast']} | {r['tput'] / an_of(r):.5f} | {r['waited_on']} |")
    for point, why in refused(os.path.join(out, "multicast")):
        text.append(f"| {point} | refused | {why} |")
    return text + [""]


def point_stats(r):
    """A point's stats.json: {counter: value} and {section.key: value} (the paper report's
    reader)."""
    return PAPER.load_stats(os.path.join(r["dir"], "points", r["point"], "stats.json"))


def binding(stats):
    """The budget's path that an iteration of only compute would overload most, and by how
    much: its need over its peak."""
    paths = {k.split(".")[1] for k in stats if k.startswith("budget.") and k.endswith(".need_per_s")}
    ratio = {p: stats[f"budget.{p}.need_per_s"] / stats[f"budget.{p}.peak_per_s"]
             for p in paths if stats.get(f"budget.{p}.peak_per_s")}
    if not ratio:
        return "-"
    p = max(ratio, key=ratio.get)
    return f"{p} ({ratio[p]:.2f}x)"


def models_section(out):
    """Today's models (models-2k, models-8k), when they ran."""
    text = []
    for d, seq in (("models-2k", 2048), ("models-8k", 8192)):
        path = os.path.join(out, d, "sweep.csv")
        if not os.path.isdir(os.path.join(out, d)):
            continue
        if not text:
            text = ["## Today's models", "",
                    "Hugging Face configs (configs/models/) on the paper's machine: sequences/s "
                    "per Activation Node; the bandwidth budget's busiest path, the one whose rate "
                    "an iteration of only compute would need most of (need / its peak); the V "
                    "stream's "
                    "lifetime at the run's write rate (Behemoth's FMS). Refused points did not "
                    "fit their tensor buffer and name where.", ""]
        text += [f"### {seq} tokens a sequence", "",
                 "| model | storage | sequences/s per AN | busiest path | V stream, years |",
                 "|---|---|---|---|---|"]
        for r in read_sweep(path, ()) if os.path.exists(path) else []:
            stats, cfg = point_stats(r)
            ans = int(cfg["machine.activation_nodes"])
            years = stats.get("an0.flash.V.lifetime_years", 0)
            text.append(f"| {os.path.basename(r['model'])} | {r['storage']} | "
                        f"{r['tput'] / ans:.4g} | {binding(stats)} | "
                        f"{f'{years:.3g}' if years else '-'} |")
        for point, why in refused(os.path.join(out, d)):
            why = re.sub(r"/\S*/", "", why)  # a config's directory says nothing here
            text.append(f"| {point} | - | refused | {why} | - |")
        text.append("")
    return text


def plots(out):
    # One data file per curve: gnuplot plots columns, flash.csv has a curve per row.
    rows = list(csv.reader(open(os.path.join(out, "flash.csv"))))
    head, body = rows[0], rows[1:]
    chans = [int(h[2:]) for h in head[2:]]
    lines = []
    for i, r in enumerate(body):
        path = os.path.join(out, f".curve{i}.dat")
        with open(path, "w") as f:
            for ch, v in zip(chans, r[2:]):
                if v:
                    f.write(f"{ch} {v}\n")
        dash = 1 if r[1] == "on" else 2
        lines.append(f"'{path}' using 1:2 with linespoints dt {dash} lc {i // 2 + 1} "
                     f"title 'tPROG {r[0]} us, cache {r[1]}'")
    script = f"""
set terminal pngcairo size 900,500
set key outside right
set grid
set output '{out}/flash-channels.png'
set title 'Sequences/s per Behemoth against flash channels (dashed: no cache program)'
set xlabel 'channels'
set ylabel 'sequences/s per AN'
set logscale x 2
plot {", ".join(lines)}
unset logscale x
set output '{out}/fanout.png'
set title 'Sequences/s per Activation Node against Activation Nodes per Weight Node'
set xlabel 'Activation Nodes'
set logscale x 2
set datafile separator ','
plot '{out}/fanout.csv' every ::1 using 1:3 with linespoints title 'per AN'
"""
    r = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    for i in range(len(body)):
        os.remove(os.path.join(out, f".curve{i}.dat"))
    if r.returncode:
        die(f"gnuplot failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")


def main():
    if len(sys.argv) != 2:
        print("usage: scripts/study/report.py OUT", file=sys.stderr)
        sys.exit(2)
    out = sys.argv[1]
    flash = read_sweep(os.path.join(out, "flash", "sweep.csv"), (CH, TP, CP))
    fan = read_sweep(os.path.join(out, "fanout", "sweep.csv"), (AN,))
    model = flash[0]["model"] if flash else "?"
    text = [f"# Behemoth's flash and fan-out: {model} on configs/behemoth-paper.ini", "",
            f"A knee is the last point, from a curve's best end, within {KNEE_LOSS:.0%} of its "
            "best; past it, the phase whose time per iteration grew most from the best point "
            "is the resource that took over.", ""]
    text += flash_section(flash, out)
    text += fanout_section(fan, out)
    text += hierarchy_section(out)
    text += models_section(out)
    plots(out)
    text += ["Plots: flash-channels.png, fanout.png; data: flash.csv, fanout.csv, and each "
             "sweep's sweep.csv.", ""]
    tmp = os.path.join(out, "report.md.tmp")
    with open(tmp, "w") as f:
        f.write("\n".join(text))
    os.replace(tmp, os.path.join(out, "report.md"))
    print(f"study report: wrote {out}/report.md")


if __name__ == "__main__":
    main()
