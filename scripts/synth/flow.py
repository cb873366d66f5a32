#!/usr/bin/env python3
"""FPGA synthesis flow of flashstream: resources and Fmax of every RTL block.

Driven by scripts/synth/run.sh (see there for usage). The flow is table-driven:
scripts/synth/configs.txt lists the configurations (block, parameters, target,
flags); every other module of rtl/*/*.v gets an automatic line in `full`.
The synthesis itself is in the Yosys scripts beside this file (check.ys,
ice40.ys, ice40_dsp.ys, xc7.ys, xc7_hier.ys); this driver elaborates, runs
them, places and routes, reads the logs and writes the report.

For each (top, parameters) the block is first checked, target independent
(check.ys): no latches, no combinational loops or conflicting drivers; its
port list feeds the generated board top. Then each line of the table:

  ice40-*  synth_ice40 of the block. With `pnr` the block is synthesized
           inside the generated board top (rtl/fpga/fpga_harness.v + the
           block as a keep_hierarchy instance, so its own figures stay apart),
           placed and routed by nextpnr-ice40 (--timing-allow-fail: nextpnr
           0.4 exits 1 on a missed target), packed by icepack, and timed by
           icetime. A design too big for the device is reported with
           nextpnr's used/available figures, not as a crash.
  xc7      synth_xilinx resource estimate (no place and route).

Every check prints a TAP line ("ok N - ..." / "not ok N - ..."); the exit code
is 1 when any check failed. Outputs (under --out, default out/synth):
  report.md, results.json   written atomically (temp + rename)
  logs/<run>.<step>.log     every tool run, with its command line on top
  build/<run>/              generated scripts, netlists, .asc, .bin
"""

import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
SYNTH_DIR = os.path.join(REPO, "scripts", "synth")

# Devices. LC/BRAM/DSP capacities are nextpnr-ice40's; the pin files are in
# rtl/fpga/. freq is the default nextpnr target, MHz: above what small blocks
# reach, so that the timing-driven placer works for it (--timing-allow-fail
# keeps a missed target from failing the run); a line of configs.txt sets a
# closer one for big, slow blocks.
TARGETS = {
    "ice40-up5k": {
        "family": "ice40",
        "device": "UP5K-SG48",
        "nextpnr": ["--up5k", "--package", "sg48"],
        "icetime": ["-d", "up5k", "-P", "sg48"],
        "pcf": "rtl/fpga/fpga_up5k_sg48.pcf",
        "dsp": 8,
        "freq": 24.0,
    },
    "ice40-hx8k": {
        "family": "ice40",
        "device": "HX8K-CT256",
        "nextpnr": ["--hx8k", "--package", "ct256"],
        "icetime": ["-d", "hx8k", "-P", "ct256"],
        "pcf": "rtl/fpga/fpga_hx8k_ct256.pcf",
        "dsp": 0,
        "freq": 48.0,
    },
    "xc7": {"family": "xc7", "device": "7-series"},
}

# 7-series capacities (Xilinx DS180/DS182/DS183): LUTs, flip-flops, DSP48E1,
# RAMB36E1, smallest first by LUTs. The xc7 estimate names the first part whose
# every count is large enough; it is a synthesis estimate (no packing, no
# routing, no I/O), so only a first guide.
XC7_PARTS = [
    ("xc7a35t", 20800, 41600, 90, 50),
    ("xc7a50t", 32600, 65200, 120, 75),
    ("xc7k70t", 41000, 82000, 240, 135),
    ("xc7a75t", 47200, 94400, 180, 105),
    ("xc7a100t", 63400, 126800, 240, 135),
    ("xc7k160t", 101400, 202800, 600, 325),
    ("xc7a200t", 134600, 269200, 740, 365),
    ("xc7k325t", 203800, 407600, 840, 445),
    ("xc7k410t", 254200, 508400, 1540, 795),
    ("xc7vx485t", 303600, 607200, 2800, 1030),
]

FLAGS = {"pnr", "fit", "bram", "quick", "hier"}
VALUE_FLAGS = {"freq", "fmin"}
BIG_MEMORY_BITS = 4096  # one SB_RAM40_4K; a memory this big must not be flip-flops

# Ports of the block that the harness drives itself.
CLOCK_PORT = "clk_i"
RESET_PORT = "rst_i"

TIMEOUT_YOSYS = int(os.environ.get("SYNTH_TIMEOUT_YOSYS", "5400"))
TIMEOUT_PNR = int(os.environ.get("SYNTH_TIMEOUT_PNR", "1200"))


class ConfigError(Exception):
    pass


# ---------------------------------------------------------------- helpers
def rel(path):
    return os.path.relpath(path, REPO)


def write_atomic(path, text):
    """Write text to path through a temporary file and a rename."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def fmt_secs(s):
    s = int(round(s))
    return f"{s // 60} min {s % 60:02d} s" if s >= 60 else f"{s} s"


def run_tool(cmd, cwd, log, timeout):
    """Run cmd in cwd, stdout and stderr to log (command line on top).

    Returns (exit code or None on timeout, seconds)."""
    os.makedirs(os.path.dirname(log), exist_ok=True)
    start = time.monotonic()
    with open(log, "w", encoding="utf-8") as f:
        f.write(f"# cd {shlex.quote(rel(cwd))} && {shlex.join(cmd)}\n")
        f.flush()
        try:
            p = subprocess.Popen(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT)
        except OSError as e:
            f.write(f"\nflow.py: cannot run {cmd[0]}: {e}\n")
            return 127, 0.0
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            f.write(f"\nflow.py: killed after the {timeout} s timeout\n")
            rc = None
    return rc, time.monotonic() - start


def log_error(log):
    """First ERROR line of a tool log, for the report."""
    for line in read_text(log).splitlines():
        if "ERROR" in line:
            return line.strip()[:200]
    return ""


def tool_versions():
    def first_line(cmd):
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
            out = (p.stdout + p.stderr).strip().splitlines()
            return out[0].strip() if out else "?"
        except (OSError, subprocess.TimeoutExpired):
            return "not installed"

    def deb(pkg):
        try:
            p = subprocess.run(["dpkg-query", "-W", "-f=${Version}", pkg],
                               capture_output=True, text=True, timeout=30)
            return p.stdout.strip() or "?"
        except (OSError, subprocess.TimeoutExpired):
            return "?"

    return {
        "yosys": first_line(["yosys", "-V"]),
        "nextpnr-ice40": first_line(["nextpnr-ice40", "--version"]),
        "icestorm": f"fpga-icestorm {deb('fpga-icestorm')} (icepack, icetime)",
    }


def git_describe():
    try:
        sha = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO,
                             capture_output=True, text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "rtl", "scripts/synth"],
                               cwd=REPO, capture_output=True, text=True,
                               timeout=30).stdout.strip()
        return sha + (" + uncommitted RTL/flow changes" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return "?"


# ---------------------------------------------------------------- configurations
class Row:
    """One line of the configuration table."""

    def __init__(self, name, top, params, target, flags, values, origin):
        self.name = name
        self.top = top
        self.params = params  # list of (name, value), in table order
        self.target = target
        self.flags = flags
        self.freq = values.get("freq", TARGETS[target].get("freq"))
        self.fmin = values.get("fmin")
        self.origin = origin  # "configs.txt:12" or "auto"

    @property
    def run_id(self):
        return f"{self.name}.{self.target}"

    @property
    def key(self):
        return (self.top, tuple(self.params))

    @property
    def params_text(self):
        return ",".join(f"{k}={v}" for k, v in self.params) or "-"


def rtl_files():
    return sorted(glob.glob(os.path.join(REPO, "rtl", "*", "*.v")))


def module_file(top):
    hits = glob.glob(os.path.join(REPO, "rtl", "*", f"{top}.v"))
    return hits[0] if hits else None


def parse_params(text, where):
    if text == "-":
        return []
    out = []
    for item in text.split(","):
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=[^,=\s]+", item):
            raise ConfigError(f"{where}: parameter '{item}' is not Name=value "
                              "(accepted: Name=value,Name=value or -)")
        k, v = item.split("=", 1)
        out.append((k, v))
    return out


def load_configs(path):
    rows = []
    seen = set()
    for n, line in enumerate(read_text(path).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = f"{rel(path)}:{n}"
        cols = line.split()
        if len(cols) < 4:
            raise ConfigError(f"{where}: expected 'name top params target [flags]', "
                              f"got {len(cols)} column(s)")
        name, top, params, target = cols[:4]
        if target not in TARGETS:
            raise ConfigError(f"{where}: unknown target '{target}' "
                              f"(accepted: {' '.join(TARGETS)})")
        flags, values = set(), {}
        for fl in cols[4:]:
            if "=" in fl:
                k, v = fl.split("=", 1)
                if k not in VALUE_FLAGS:
                    raise ConfigError(f"{where}: unknown flag '{fl}' (accepted: "
                                      f"{' '.join(sorted(FLAGS))} freq=MHz fmin=MHz)")
                try:
                    values[k] = float(v)
                except ValueError:
                    raise ConfigError(f"{where}: {k}={v} is not a number of MHz") from None
            elif fl in FLAGS:
                flags.add(fl)
            else:
                raise ConfigError(f"{where}: unknown flag '{fl}' (accepted: "
                                  f"{' '.join(sorted(FLAGS))} freq=MHz fmin=MHz)")
        if "pnr" in flags and TARGETS[target]["family"] != "ice40":
            raise ConfigError(f"{where}: pnr needs an ice40 target, not {target}")
        if "hier" in flags and target != "xc7":
            raise ConfigError(f"{where}: hier is for the xc7 target, not {target}")
        if (name, target) in seen:
            raise ConfigError(f"{where}: '{name}' on {target} is listed twice")
        seen.add((name, target))
        rows.append(Row(name, top, parse_params(params, where), target, flags, values, where))
    return rows


def lint_params(module_path):
    """Parameters of a module from its folder's lint-params file: the first form listed."""
    lp = os.path.join(os.path.dirname(module_path), "lint-params")
    mod = os.path.basename(module_path)[:-2]
    for line in read_text(lp).splitlines():
        cols = line.split("#", 1)[0].split()
        if cols and cols[0] == mod:
            return [tuple(c.split("=", 1)) for c in cols[1:] if "=" in c]
    return []


def auto_rows(rows):
    """Every module not already a top in the table: HX8K place and route."""
    tops = {r.top for r in rows}
    out = []
    for f in rtl_files():
        if os.path.basename(os.path.dirname(f)) == "fpga":
            continue
        mod = os.path.basename(f)[:-2]
        if mod in tops:
            continue
        out.append(Row(mod, mod, lint_params(f), "ice40-hx8k", {"pnr"}, {}, "auto"))
    return out


# ---------------------------------------------------------------- parsers
def parse_stat(path):
    """Yosys `stat` output -> {module: {cell type: count}} (+ 'design hierarchy')."""
    mods, cur = {}, None
    for line in read_text(path).splitlines():
        m = re.match(r"^=== (.*) ===$", line.strip())
        if m:
            cur = m.group(1)
            mods[cur] = {}
            continue
        m = re.match(r"^\s+(\S+)\s+(\d+)$", line)
        if cur is not None and m and not line.strip().startswith("Number"):
            mods[cur][m.group(1)] = int(m.group(2))
    return mods


def const_int(text):
    text = text.strip()
    m = re.fullmatch(r"-?\d+", text)
    if m:
        return int(text)
    m = re.fullmatch(r"(\d+)'([01xz]+)", text)
    if m:
        bits = m.group(2).replace("x", "0").replace("z", "0")
        return int(bits, 2)
    return 0


def parse_memories(path):
    """RTLIL dump of $mem_v2 cells -> [{name, size, width, bits, sync_read}]."""
    mems, cur = [], None
    for line in read_text(path).splitlines():
        s = line.strip()
        m = re.match(r"^cell \$mem_v2 (\S+)", s)
        if m:
            cur = {"name": m.group(1), "size": 0, "width": 0, "sync_read": False,
                   "rd_ports": 1, "wr_ports": 1}
            mems.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r"^parameter \\(MEMID|SIZE|WIDTH|RD_CLK_ENABLE|RD_PORTS|WR_PORTS) (.*)$", s)
        if m:
            k, v = m.group(1), m.group(2)
            if k == "MEMID":
                cur["name"] = v.strip('"').lstrip("\\")
            elif k == "SIZE":
                cur["size"] = const_int(v)
            elif k == "WIDTH":
                cur["width"] = const_int(v)
            elif k == "RD_PORTS":
                cur["rd_ports"] = const_int(v)
            elif k == "WR_PORTS":
                cur["wr_ports"] = const_int(v)
            else:
                # Every read port registered (one bit per port).
                bits = v.split("'")[-1]
                cur["sync_read"] = bool(bits) and set(bits) == {"1"}
        elif s == "end":
            cur = None
    for m in mems:
        m["bits"] = m["size"] * m["width"]
    return mems


def parse_ports(path):
    """Yosys `portlist` -> [(direction, width, name)]."""
    ports = []
    for line in read_text(path).splitlines():
        m = re.match(r"^(input|output|inout) \[(\d+):(\d+)\] (\S+)$", line.strip())
        if m:
            w = abs(int(m.group(2)) - int(m.group(3))) + 1
            ports.append((m.group(1), w, m.group(4)))
    return ports


def parse_nextpnr(log):
    text = read_text(log)
    util = {}
    # Utilisation is printed after packing and again at the end: keep the last.
    for m in re.finditer(r"Info:\s+(\S+):\s+(\d+)/\s*(\d+)\s+\d+%", text):
        util[m.group(1)] = (int(m.group(2)), int(m.group(3)))
    fmax = None
    for m in re.finditer(r"Max frequency for clock '([^']+)': ([\d.]+) MHz", text):
        if m.group(1).startswith(CLOCK_PORT):
            fmax = float(m.group(2))  # the last one is post-route
    over = [(k, u, a) for k, (u, a) in util.items() if u > a]
    return {"util": util, "fmax": fmax, "over": over,
            "finished": "Program finished normally" in text}


def parse_icetime(log):
    m = re.search(r"Total path delay: ([\d.]+) ns \(([\d.]+) MHz\)", read_text(log))
    return float(m.group(2)) if m else None


def parse_sta(path):
    """Yosys `sta` output -> the longest path's cell delay (ps) and what is on it."""
    text = read_text(path)
    m = re.search(r"Latest arrival time in '[^']*' is (\d+):", text)
    if not m:
        return None
    path_text = text[m.end():text.find("Arrival histogram", m.end())]
    cells = re.findall(r"\((\w+)\.\w+(?:\[\d+\])?->", path_text)
    return {"ps": int(m.group(1)),
            "luts": sum(1 for c in cells if c.startswith("LUT")),
            "carry4": sum(1 for c in cells if c == "CARRY4"),
            "dsp": sum(1 for c in cells if c.startswith("DSP"))}


def sta_text(res):
    """The timing estimate as a table cell: the path's cell delay, ns, and its cells."""
    t = res.get("sta")
    if not t:
        return "-"
    parts = [f"{t['luts']} LUT"] + [f"{t[k]} {n}" for k, n in (("carry4", "CARRY4"),
                                                                 ("dsp", "DSP")) if t[k]]
    return f"{t['ps'] / 1000:.2f} ({', '.join(parts)})"


def ice40_counts(cells):
    ff = sum(v for k, v in cells.items() if k.startswith("SB_DFF"))
    return {
        "lut": cells.get("SB_LUT4", 0),
        "ff": ff,
        "carry": cells.get("SB_CARRY", 0),
        "bram": sum(v for k, v in cells.items() if k.startswith("SB_RAM40_4K")),
        "spram": cells.get("SB_SPRAM256KA", 0),
        "dsp": cells.get("SB_MAC16", 0),
    }


LUTRAM_CELLS = ("RAM16X1D", "RAM32X1D", "RAM64X1D", "RAM128X1D", "RAM256X1S",
                "RAM32M", "RAM64M", "RAM32X1S", "RAM64X1S", "RAM128X1S", "SRL16E", "SRLC32E")


def xc7_counts(cells):
    return {
        # An INV cell is a LUT1 once placed.
        "lut": sum(v for k, v in cells.items() if re.fullmatch(r"LUT[1-6]|INV", k)),
        "ff": sum(v for k, v in cells.items() if re.fullmatch(r"FD[RSCP]E(_1)?", k)),
        "latch": sum(v for k, v in cells.items() if k.startswith("LD")),
        "carry": cells.get("CARRY4", 0),
        "lutram": sum(cells.get(k, 0) for k in LUTRAM_CELLS),
        "dsp": cells.get("DSP48E1", 0),
        "ramb18": cells.get("RAMB18E1", 0),
        "ramb36": cells.get("RAMB36E1", 0),
    }


def smallest_xc7(c):
    bram36 = c["ramb36"] + (c["ramb18"] + 1) // 2
    for name, lut, ff, dsp, bram in XC7_PARTS:
        if c["lut"] + c["lutram"] <= lut and c["ff"] <= ff and c["dsp"] <= dsp and bram36 <= bram:
            return name
    return f"none (> {XC7_PARTS[-1][0]})"


# Write ports of one block RAM: SB_RAM40_4K has one, RAMB18E1/36E1 two.
BRAM_WRITE_PORTS = {"ice40": 1, "xc7": 2}


def mem_text(m):
    why = []
    if not m["sync_read"]:
        why.append("async read")
    if m["wr_ports"] > 1:
        why.append(f"{m['wr_ports']} write ports")
    return f"{m['name']} {m['size']}x{m['width']}" + (f" ({', '.join(why)})" if why else "")


def memories_in_ff(build, family):
    """Memories of BIG_MEMORY_BITS or more left for flip-flops after the
    block-RAM mapping (memories_left.il), and those of them that fail: the
    ones that could have been block RAM (every read registered, no more write
    ports than a block RAM has; read ports can be had by duplication). An
    asynchronous read or a register file with many write ports cannot be block
    RAM by construction: those are reported, not failed."""
    left = [m for m in parse_memories(os.path.join(build, "memories_left.il"))
            if m["bits"] >= BIG_MEMORY_BITS]
    return left, [m for m in left
                  if m["sync_read"] and m["wr_ports"] <= BRAM_WRITE_PORTS[family]]


def check_problems(build):
    m = re.search(r"Found and reported (\d+) problems", read_text(os.path.join(build, "check.txt")))
    return int(m.group(1)) if m else -1


def latches(build):
    return [s for s in read_text(os.path.join(build, "latches.txt")).split()
            if s and not s.startswith("#")]


# Self-test: each check must catch its fixture (scripts/synth/fixtures/).
FIXTURES = [
    ("fx_latch", "check.ys", "the latch check catches a latch"),
    ("fx_loop", "check.ys", "the loop check catches a combinational loop across modules"),
    ("fx_ram_ff", None, "the block-RAM check catches an 8 Kbit RAM left in flip-flops"),
]
# The block-RAM fixture runs the first half of ice40.ys only: mapping 8 Kbit
# to flip-flops and LUTs would take longer than the rest of `run.sh quick`.
ICE40_MEMORY_HALF = "synth_ice40 -run :map_ffram\ntee -q -o memories_left.il dump t:$mem_v2\n"


# ---------------------------------------------------------------- yosys runs
# The RTL the runs read: a copy of rtl/*/*.v taken when the flow starts
# (snapshot_rtl), so that every run of one report sees the same sources even
# while the tree is being edited.
SNAPSHOT = []


def snapshot_rtl(build):
    """Copy the RTL into the run's build folder: the modules (read by every run) and, beside
    them, the files they `include (rtl/*/*.vh, found next to the including file)."""
    dst = os.path.join(build, "rtl")
    shutil.rmtree(dst, ignore_errors=True)
    for f in rtl_files() + sorted(glob.glob(os.path.join(REPO, "rtl", "*", "*.vh"))):
        d = os.path.join(dst, os.path.basename(os.path.dirname(f)))
        os.makedirs(d, exist_ok=True)
        shutil.copy2(f, d)
        if f.endswith(".v"):
            SNAPSHOT.append(os.path.join(d, os.path.basename(f)))


def read_script(top_cmd, extra_files=()):
    files = " ".join(SNAPSHOT + list(extra_files))
    return f"read_verilog -sv -DSYNTHESIS {files}\n{top_cmd}\n"


def hierarchy_cmd(top, params):
    # The parameters by the chparam command, not hierarchy -chparam: Yosys 0.23's hierarchy fails
    # an internal assertion when the top it re-derives passes parameters to a submodule (sa_grid's
    # sa_pe), as scripts/lint.sh found.
    chp = "".join(f" -set {k} {v}" for k, v in params)
    return (f"chparam{chp} {top}\n" if params else "") + f"hierarchy -check -top {top}"


def yosys(build, log, script_text, commands):
    """Write build/run.ys and run it with Yosys in build/."""
    ys = os.path.join(build, os.path.basename(log).replace(".log", ".ys"))
    write_atomic(ys, script_text)
    cmd = ["yosys", "-s", os.path.basename(ys)]
    commands.append(f"(cd {rel(build)} && yosys -s {os.path.basename(ys)}) > {rel(log)}")
    return run_tool(cmd, build, log, TIMEOUT_YOSYS)


def generate_top(row, ports, path):
    """Board top: fpga_harness + the block, every other port concatenated."""
    ins = [(w, n) for d, w, n in ports if d == "input" and n not in (CLOCK_PORT, RESET_PORT)]
    outs = [(w, n) for d, w, n in ports if d == "output"]
    names = {n for _, _, n in ports}
    bad = [n for d, _, n in ports if d == "inout"]
    if bad:
        raise ConfigError(f"{row.top} has inout ports ({', '.join(bad)}): not supported")
    in_w = max(1, sum(w for w, _ in ins))
    out_w = max(1, sum(w for w, _ in outs))
    conns, lo = [], 0
    for w, n in ins:
        conns.append(f"      .{n}(dut_in[{lo + w - 1}:{lo}])")
        lo += w
    lo = 0
    for w, n in outs:
        conns.append(f"      .{n}(dut_out[{lo + w - 1}:{lo}])")
        lo += w
    # A block without clk_i is combinational: it is timed between the
    # harness's stimulus and signature registers.
    if RESET_PORT in names:
        conns.insert(0, f"      .{RESET_PORT}(dut_rst)")
    if CLOCK_PORT in names:
        conns.insert(0, f"      .{CLOCK_PORT}(clk_i)")
    params = ", ".join(f".{k}({v})" for k, v in row.params)
    inst = f"{row.top} #({params})" if params else row.top
    unused = "" if ins else "  wire unused_in = dut_in[0];\n"
    if RESET_PORT not in names:
        unused += "  wire unused_rst = dut_rst;\n"
    if not outs:
        unused += "  assign dut_out = 1'b0;\n"
    text = f"""// Generated by scripts/synth/flow.py for {row.run_id}: do not edit.
// Board top: {row.top} ({row.params_text}) behind rtl/fpga/fpga_harness.v.
`default_nettype none
module fpga_top (
    input  wire clk_i,
    input  wire rst_i,
    input  wire ser_i,
    output wire sig_o
);
  wire              dut_rst;
  wire [{in_w - 1}:0] dut_in;
  wire [{out_w - 1}:0] dut_out;

  fpga_harness #(.InW({in_w}), .OutW({out_w})) u_harness (
      .clk_i(clk_i), .rst_i(rst_i), .ser_i(ser_i), .sig_o(sig_o),
      .dut_rst_o(dut_rst), .dut_in_o(dut_in), .dut_out_i(dut_out)
  );

  // keep_hierarchy: the block is synthesized as its own module, so its
  // figures are reported apart from the harness.
  (* keep_hierarchy *) {inst} u_dut (
{(","+chr(10)).join(conns)}
  );
{unused}endmodule
`default_nettype wire
"""
    write_atomic(path, text)
    return in_w, out_w


# ---------------------------------------------------------------- the flow
class Flow:
    def __init__(self, out, jobs):
        self.out = out
        self.logs = os.path.join(out, "logs")
        self.build = os.path.join(out, "build")
        self.jobs = jobs
        self.lock = threading.Lock()
        self.tap_n = 0
        self.failed = 0

    def tap(self, ok, text, directive=""):
        with self.lock:
            self.tap_n += 1
            if not ok:
                self.failed += 1
            d = f" # {directive}" if directive else ""
            print(f"{'ok' if ok else 'not ok'} {self.tap_n} - {text}{d}", flush=True)

    def note(self, text):
        with self.lock:
            print(f"# {text}", flush=True)

    # ------------------------------------------------ target-independent checks
    def check(self, row):
        """Elaborate the block, run check.ys, judge latches and loops."""
        tag = f"{row.name}.check"
        build = os.path.join(self.build, tag)
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        log = os.path.join(self.logs, f"{tag}.yosys.log")
        res = {"commands": [], "ok": False}
        script = read_script(hierarchy_cmd(row.top, row.params)) + \
            "tee -q -o ports.txt portlist\n" + \
            f"script {os.path.join(SYNTH_DIR, 'check.ys')}\n"
        rc, secs = yosys(build, log, script, res["commands"])
        res["secs"] = secs
        what = f"{row.top} ({row.params_text})"
        if rc != 0:
            res["error"] = log_error(log) or f"yosys exit {rc}"
            self.tap(False, f"{what}: elaborates ({res['error']}; log {rel(log)})")
            return res
        self.tap(True, f"{what}: elaborates")
        res["ports"] = parse_ports(os.path.join(build, "ports.txt"))
        res["latches"] = latches(build)
        res["problems"] = check_problems(build)
        res["memories"] = parse_memories(os.path.join(build, "memories.il"))
        self.tap(not res["latches"], f"{what}: no latches" +
                 (f" (found: {', '.join(res['latches'][:5])})" if res["latches"] else ""))
        self.tap(res["problems"] == 0, f"{what}: no combinational loops, conflicting or "
                 f"missing drivers (yosys check: {res['problems']} problems; "
                 f"{rel(os.path.join(build, 'check.txt'))})")
        res["ok"] = not res["latches"] and res["problems"] == 0
        return res

    # ------------------------------------------------ self-test of the checks
    def selftest(self):
        for top, ys, text in FIXTURES:
            build = os.path.join(self.build, f"selftest.{top}")
            shutil.rmtree(build, ignore_errors=True)
            os.makedirs(build)
            log = os.path.join(self.logs, f"selftest.{top}.yosys.log")
            fx = os.path.join(SYNTH_DIR, "fixtures", f"{top}.v")
            rc, _ = yosys(build, log, f"read_verilog -sv {fx}\nhierarchy -check -top {top}\n" +
                          (f"script {os.path.join(SYNTH_DIR, ys)}\n" if ys else ICE40_MEMORY_HALF),
                          [])
            if top == "fx_latch":
                caught = bool(latches(build))
            elif top == "fx_loop":
                caught = check_problems(build) > 0 and \
                    "logic loop" in read_text(os.path.join(build, "check.txt"))
            else:
                caught = bool(memories_in_ff(build, "ice40")[1])
            self.tap(rc == 0 and caught, f"self-test: {text} "
                     f"(scripts/synth/fixtures/{top}.v; log {rel(log)})")

    # ------------------------------------------------ one table line
    def synth(self, row, chk):
        tgt = TARGETS[row.target]
        build = os.path.join(self.build, row.run_id)
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        res = {"commands": [], "status": "error", "notes": []}
        what = f"{row.name} {row.target}"
        if "ports" not in chk:
            res["error"] = "does not elaborate"
            self.tap(False, f"{what}: synthesis (the block does not elaborate)")
            return res
        wrapped = "pnr" in row.flags
        extra = []
        if wrapped:
            top_v = os.path.join(build, "fpga_top.v")
            try:
                res["harness"] = generate_top(row, chk["ports"], top_v)
            except ConfigError as e:
                res["error"] = str(e)
                self.tap(False, f"{what}: board top ({e})")
                return res
            extra = [top_v]
            top_cmd = "hierarchy -check -top fpga_top"
        else:
            top_cmd = hierarchy_cmd(row.top, row.params)

        if tgt["family"] == "ice40":
            scripts = ["ice40_dsp.ys", "ice40.ys"] if tgt["dsp"] else ["ice40.ys"]
        else:
            scripts = ["xc7_hier.ys" if "hier" in row.flags else "xc7.ys"]
        log = os.path.join(self.logs, f"{row.run_id}.yosys.log")
        for i, ys in enumerate(scripts):
            rc, secs = yosys(build, log, read_script(top_cmd, extra) +
                             f"script {os.path.join(SYNTH_DIR, ys)}\n", res["commands"])
            res["synth_secs"] = res.get("synth_secs", 0) + secs
            res["script"] = ys
            if ys == "ice40_dsp.ys" and rc != 0:
                # The script stops after the DSP mapping when there are more
                # SB_MAC16 than the device has: synthesize without DSPs.
                m = re.match(r"\s*(\d+) objects", read_text(os.path.join(build, "dsp_count.txt")))
                if m and int(m.group(1)) > tgt["dsp"]:
                    res["notes"].append(f"{m.group(1)} DSP blocks needed > {tgt['dsp']}: "
                                        "multipliers in LUTs")
                    log = os.path.join(self.logs, f"{row.run_id}.nodsp.yosys.log")
                    continue
            break
        if rc != 0:
            res["error"] = (log_error(log) or
                            ("timeout" if rc is None else f"yosys exit {rc}"))
            self.tap(False, f"{what}: synthesis ({res['error']}; log {rel(log)})")
            return res
        self.tap(True, f"{what}: synthesis ({res['script']}, "
                 f"{fmt_secs(res['synth_secs'])})")

        # Figures of the block alone, and of the whole design.
        stat = parse_stat(os.path.join(build, "stat.txt"))
        total = stat.get("design hierarchy") or next(iter(stat.values()), {})
        if wrapped:
            block = [v for k, v in stat.items() if k not in ("fpga_top", "design hierarchy")]
            block_cells = block[0] if block else {}
        else:
            block_cells = total
        counts = ice40_counts if tgt["family"] == "ice40" else xc7_counts
        res["block"] = counts(block_cells)
        res["total"] = counts(total)

        # Block RAM: a big memory left for flip-flops fails the check when it
        # could have been block RAM (memories_in_ff); a `bram` configuration
        # must use block RAM.
        left, bad = memories_in_ff(build, tgt["family"])
        res["memories_in_ff"] = left
        n_bram = (res["block"]["bram"] if tgt["family"] == "ice40"
                  else res["block"]["ramb18"] + res["block"]["ramb36"])
        res["bram_cells"] = n_bram
        ok = not bad and ("bram" not in row.flags or n_bram > 0)
        detail = f"{n_bram} block RAM cells"
        if left:
            detail += "; in flip-flops: " + ", ".join(
                mem_text(m) for m in left[:4])
            ok_left = [m for m in left if m not in bad]
            if ok_left:
                res["notes"].append("in flip-flops (cannot be block RAM): " +
                                    ", ".join(mem_text(m) for m in ok_left[:4]))
        if "bram" in row.flags and not n_bram:
            detail += ", the block's scratchpads should be block RAM"
        self.tap(ok, f"{what}: memories of {BIG_MEMORY_BITS} bits or more map to block RAM ({detail})")
        res["bram_ok"] = ok
        res["status"] = "synthesized"

        if tgt["family"] == "xc7":
            res["xc7_part"] = smallest_xc7(res["block"])
            if "hier" not in row.flags:
                res["sta"] = parse_sta(os.path.join(build, "sta.txt"))
        elif wrapped:
            self.pnr(row, tgt, build, res)
        return res

    def pnr(self, row, tgt, build, res):
        what = f"{row.name} {row.target}"
        pcf = os.path.relpath(os.path.join(REPO, tgt["pcf"]), build)
        log = os.path.join(self.logs, f"{row.run_id}.nextpnr.log")
        cmd = ["nextpnr-ice40", *tgt["nextpnr"], "--pcf", pcf, "--json", "netlist.json",
               "--asc", "fpga_top.asc", "--freq", f"{row.freq:g}", "--timing-allow-fail",
               "--seed", "1"]
        res["commands"].append(f"(cd {rel(build)} && {shlex.join(cmd)}) > {rel(log)} 2>&1")
        rc, secs = run_tool(cmd, build, log, TIMEOUT_PNR)
        res["pnr_secs"] = secs
        p = parse_nextpnr(log)
        res["util"] = p["util"]
        asc = os.path.join(build, "fpga_top.asc")
        if rc is None:
            res["status"] = "timeout"
            res["error"] = f"nextpnr timeout after {TIMEOUT_PNR} s"
        elif p["over"]:
            res["status"] = "does not fit"
            res["over"] = p["over"]
        elif rc != 0 and "utilisation limit" in read_text(log):
            # nextpnr packed the design into the device but could not place
            # it: "Unable to find legal placement ... at utilisation limit".
            res["status"] = "does not fit"
            lc = p["util"].get("ICESTORM_LC", (0, 0))
            res["over"] = [("ICESTORM_LC", lc[0], lc[1])]
            res["notes"].append(f"packed into {lc[0]} of {lc[1]} LCs, no legal placement")
        elif rc != 0 or not os.path.exists(asc):
            res["status"] = "pnr failed"
            res["error"] = log_error(log) or f"nextpnr exit {rc}"
        else:
            res["status"] = "fits"
            res["fmax"] = p["fmax"]
        if res["status"] == "fits":
            self.tap(True, f"{what}: place and route ({self.util_text(res)}, "
                     f"Fmax {res['fmax']} MHz, {fmt_secs(secs)})")
        else:
            # Not fitting (too many cells), not routing or not finishing in
            # time is a finding about the configuration, failed only for a
            # configuration that must fit.
            if res["status"] == "does not fit":
                why = "does not fit: " + ", ".join(f"{k} {u}/{a}" for k, u, a in res["over"])
                if res["notes"]:
                    why += " (" + "; ".join(res["notes"]) + ")"
            else:
                why = f"{res['status']}: {res['error']} ({self.util_text(res)})"
            if "fit" in row.flags:
                self.tap(False, f"{what}: place and route ({why}; log {rel(log)})")
            else:
                self.tap(True, f"{what}: place and route", f"SKIP {why}")
            return

        # Bitstream, then icetime's independent timing estimate.
        log = os.path.join(self.logs, f"{row.run_id}.icepack.log")
        cmd = ["icepack", "fpga_top.asc", "fpga_top.bin.tmp"]
        res["commands"].append(f"(cd {rel(build)} && icepack fpga_top.asc fpga_top.bin)")
        rc, _ = run_tool(cmd, build, log, TIMEOUT_PNR)
        binf = os.path.join(build, "fpga_top.bin")
        if rc == 0:
            os.replace(binf + ".tmp", binf)
            res["bin_bytes"] = os.path.getsize(binf)
        self.tap(rc == 0, f"{what}: bitstream ({rel(binf)}, {res.get('bin_bytes', 0)} bytes)")

        log = os.path.join(self.logs, f"{row.run_id}.icetime.log")
        cmd = ["icetime", *tgt["icetime"], "-p", pcf, "-i", "-t", "fpga_top.asc"]
        res["commands"].append(f"(cd {rel(build)} && {shlex.join(cmd)}) > {rel(log)}")
        run_tool(cmd, build, log, TIMEOUT_PNR)
        res["icetime"] = parse_icetime(log)

        if row.fmin is not None:
            ok = res["fmax"] is not None and res["fmax"] >= row.fmin
            self.tap(ok, f"{what}: post-route Fmax {res['fmax']} MHz >= {row.fmin:g} MHz")

    @staticmethod
    def util_text(res):
        u = res.get("util", {})
        parts = []
        for k in ("ICESTORM_LC", "ICESTORM_RAM", "ICESTORM_DSP"):
            if k in u and (u[k][0] or k == "ICESTORM_LC"):
                parts.append(f"{k.split('_')[1]} {u[k][0]}/{u[k][1]}")
        return ", ".join(parts)

    # ------------------------------------------------ driver
    def run(self, rows):
        """Check every (top, params) once, then every row; in parallel."""
        first = {}
        for r in rows:
            first.setdefault(r.key, r)
        checks = {}
        self.selftest()
        with concurrent.futures.ThreadPoolExecutor(self.jobs) as ex:
            futs = {ex.submit(self.check, r): k for k, r in first.items()}
            for f in concurrent.futures.as_completed(futs):
                checks[futs[f]] = f.result()
            # Biggest runs first, so the long ones do not start last.
            order = sorted(rows, key=lambda r: -self.weight(r))
            futs = {ex.submit(self.synth, r, checks[r.key]): r for r in order}
            results = {}
            for f in concurrent.futures.as_completed(futs):
                results[futs[f].run_id] = f.result()
        return checks, results

    @staticmethod
    def weight(r):
        w = 1
        for k, v in r.params:
            if k in ("Rows", "Cols") and v.isdigit():
                w *= int(v)
        return w * (3 if r.target == "xc7" else 1)


# ---------------------------------------------------------------- report
def cell(v):
    return "-" if v is None else str(v)


def harness_ff(res):
    """Flip-flops the board harness adds (the whole design minus the block)."""
    if "total" not in res or "block" not in res or "util" not in res:
        return ""
    return f" (+{res['total']['ff'] - res['block']['ff']} FF)"


def make_report(mode, rows, pending, checks, results, versions, wall, jobs, argv):
    now = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
    L = []
    L.append("# FPGA synthesis report\n")
    L.append(f"Generated {now} by `{' '.join(argv)}` ({mode}) at commit {git_describe()}; "
             f"wall time {fmt_secs(wall)} with {jobs} job(s) on {os.cpu_count()} cores.\n")
    L.append("Tools: " + "; ".join(f"{v}" for v in versions.values()) + ".\n")

    ice = [r for r in rows if TARGETS[r.target]["family"] == "ice40"]
    xc7 = [r for r in rows if r.target == "xc7"]
    summary = []
    for t in [t for t in TARGETS if TARGETS[t]["family"] == "ice40"]:
        rs = [r for r in ice if r.target == t and "pnr" in r.flags and r.origin != "auto"]
        fit = [r.name for r in rs if results.get(r.run_id, {}).get("status") == "fits"]
        nofit = [f"{r.name} ({', '.join(f'{k} {u}/{a}' for k, u, a in results[r.run_id]['over'])})"
                 for r in rs if results.get(r.run_id, {}).get("status") == "does not fit"]
        other = [f"{r.name} ({results.get(r.run_id, {}).get('status', 'error')})" for r in rs
                 if results.get(r.run_id, {}).get("status") not in ("fits", "does not fit")]
        if rs:
            summary.append(f"- {TARGETS[t]['device']}: fits: {', '.join(fit) or 'none'}; "
                           f"does not fit: {', '.join(nofit) or 'none'}"
                           + (f"; failed: {', '.join(other)}" if other else ""))
    for r in xc7:
        part = results.get(r.run_id, {}).get("xc7_part")
        if part:
            summary.append(f"- {r.name} on 7-series: smallest part {part}")
    if summary:
        L.append("## Summary\n")
        L.extend(summary)
        L.append("")
    if ice:
        L.append("## iCE40\n")
        L.append("Block figures (LUT4, FF, carry, BRAM, DSP) are synth_ice40's for the block "
                 "alone. With place and route the block sits in the board harness "
                 "(`rtl/fpga/fpga_harness.v`, 4 pins) as its own module; *LCs placed* is "
                 "nextpnr's count for the whole board top, harness included (its flip-flops "
                 "in brackets: the stimulus shift register and the signature), and *Fmax* "
                 "nextpnr's post-route figure for the block's clock (`--seed 1`); *icetime* "
                 "is icestorm's independent estimate of the same placed design.\n")
        L.append("| block | config | params | device | LUT4 | FF | carry | BRAM | DSP "
                 "| LCs placed | Fmax MHz | icetime MHz | fits |")
        L.append("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
        for r in ice:
            res = results.get(r.run_id, {})
            b = res.get("block", {})
            u = res.get("util", {})
            lc = u.get("ICESTORM_LC")
            st = res.get("status", "error")
            if st == "fits":
                fit = "yes"
            elif st == "does not fit":
                fit = "**no**: " + ", ".join(f"{k} {a}/{c}" for k, a, c in res["over"])
            elif st == "synthesized":
                fit = "(synthesis only)"
            else:
                fit = f"**{st}**: {res.get('error', '')}"
            notes = res.get("notes", [])
            if notes:
                fit += " (" + "; ".join(notes) + ")"
            L.append(f"| {r.top} | {r.name} | {r.params_text} | {TARGETS[r.target]['device']} "
                     f"| {cell(b.get('lut'))} | {cell(b.get('ff'))} | {cell(b.get('carry'))} "
                     f"| {cell(b.get('bram'))} | {cell(b.get('dsp'))} "
                     f"| {f'{lc[0]}/{lc[1]}' if lc else '-'}{harness_ff(res)} | {cell(res.get('fmax'))} "
                     f"| {cell(res.get('icetime'))} | {fit} |")
        L.append("")
    if xc7:
        L.append("## Xilinx 7-series (estimate)\n")
        L.append("`synth_xilinx -family xc7 -noiopad` of the block alone, flattened "
                 "(`-flatten`) unless marked *hier.*, where each distinct module is "
                 "synthesized once and counted per instance (flattened, an 8x8 array was still in "
                 "the SAT-based `share` pass, quadratic in the number of PEs, after 16 "
                 "minutes). *LUT* counts LUT1-6 and INV cells; *LUT RAM* the distributed-RAM and SRL cells (each one or a few LUTs of a SLICEM). No place and route, so no Fmax (but a logic-delay estimate, below); *fits* names the smallest "
                 "7-series part (by LUTs) with enough LUTs (logic + LUT RAM), FFs, DSP48E1 and 36 Kb "
                 "block RAMs.\n")
        L.append("| block | config | params | LUT | FF | CARRY4 | LUT RAM | DSP48E1 "
                 "| RAMB36E1 | RAMB18E1 | fits | logic delay ns (est.) |")
        L.append("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|")
        for r in xc7:
            res = results.get(r.run_id, {})
            b = res.get("block", {})
            fit = res.get("xc7_part") or f"**{res.get('status', 'error')}**: {res.get('error', '')}"
            if res.get("notes"):
                fit += " (" + "; ".join(res["notes"]) + ")"
            mode_txt = " (hier.)" if "hier" in r.flags else ""
            L.append(f"| {r.top} | {r.name}{mode_txt} | {r.params_text} | {cell(b.get('lut'))} "
                     f"| {cell(b.get('ff'))} | {cell(b.get('carry'))} | {cell(b.get('lutram'))} "
                     f"| {cell(b.get('dsp'))} | {cell(b.get('ramb36'))} "
                     f"| {cell(b.get('ramb18'))} | {fit} | {sta_text(res)} |")
        L.append("")
        L.append("*logic delay*: an estimate of the longest register-to-register (or port) "
                 "path, not an Fmax: Yosys' `sta` on the flattened netlist with the cell delays "
                 "of the Artix-7 timing models in Yosys' cell library (Project X-Ray's "
                 "database, `xilinx/cells_sim.v`), no routing delay, no clock-to-out or setup: a lower "
                 "bound on the clock period. Not computed for *hier.* runs.\n")

    L.append("## Checks\n")
    L.append("Per block and parameters, on the elaborated and flattened design "
             "(`scripts/synth/check.ys`): latches inferred by `proc`; `check` "
             "(combinational loops, conflicting or missing drivers); memories. Per target: "
             f"no memory of {BIG_MEMORY_BITS} bits or more that could be block RAM "
             "(every read registered, no more write ports than a block RAM has) may be "
             "left for flip-flops, and a block marked `bram` must use block RAM. A memory "
             "that cannot be block RAM (asynchronous read, a register file with many write "
             "ports) is noted in the tables above, not failed.\n")
    L.append("| block | params | latches | check problems | memories (elaborated) | block RAM mapping |")
    L.append("|---|---|---:|---:|---|---|")
    for key, chk in checks.items():
        top, params = key
        ptxt = ",".join(f"{k}={v}" for k, v in params) or "-"
        mems = chk.get("memories", [])
        mtxt = ", ".join(mem_text(m) for m in mems[:4]) or "none"
        if len(mems) > 4:
            mtxt += f", +{len(mems) - 4}"
        bram = []
        for r in rows:
            if r.key == key and r.run_id in results and "bram_ok" in results[r.run_id]:
                bram.append(f"{r.target} {'ok' if results[r.run_id]['bram_ok'] else '**FAIL**'}")
        if "error" in chk:
            L.append(f"| {top} | {ptxt} | **does not elaborate**: {chk['error']} | | | |")
            continue
        L.append(f"| {top} | {ptxt} | {len(chk['latches'])} | {chk['problems']} | {mtxt} "
                 f"| {', '.join(bram) or '-'} |")
    L.append("")

    if pending:
        L.append("## Pending\n")
        L.append("Lines of `scripts/synth/configs.txt` whose top is not in `rtl/` yet; they "
                 "run as soon as `rtl/*/<top>.v` exists.\n")
        for r in pending:
            L.append(f"- {r.name} on {r.target}: `{r.top}` ({r.params_text})")
        L.append("")

    L.append("## Reproduce\n")
    L.append("Everything: `scripts/synth/run.sh full` (this report: `make synth`); one "
             "configuration: `scripts/synth/run.sh full --only NAME`. Each run below lists "
             "its exact commands, run from the repository root; the generated `.ys` files "
             "(in the run's build folder) read every file of `rtl/*/*.v` with `read_verilog "
             "-sv -DSYNTHESIS` from `out/synth/build/rtl/`, the copy of `rtl/` taken when "
             "the flow started (so every run saw the same sources), elaborate, and call the "
             "scripts of `scripts/synth/`. Logs: `out/synth/logs/`.\n")
    L.append("<details><summary>commands per run</summary>\n")
    seen = set()
    for r in rows:
        for tag, cmds in ((f"{r.name}.check", checks.get(r.key, {}).get("commands", [])),
                          (r.run_id, results.get(r.run_id, {}).get("commands", []))):
            if tag in seen or not cmds:
                continue
            seen.add(tag)
            L.append(f"{tag}:\n\n```sh")
            L.extend(cmds)
            L.append("```\n")
    L.append("</details>\n")
    return "\n".join(L)


DOC_BEGIN = "<!-- synth-tables: written by `make synth`; edit the flow, not these lines -->"
DOC_END = "<!-- synth-tables end -->"


def doc_tables(rows, results, versions):
    """The summary tables of the configured runs (not the automatic HX8K rows), for the docs."""
    day = datetime.date.today().isoformat()
    L = [DOC_BEGIN, "",
         f"Measured by `make synth` on {day}: {versions.get('yosys', 'yosys')}, "
         f"{versions.get('nextpnr-ice40', 'nextpnr-ice40')}.", "",
         "iCE40 (block figures from `synth_ice40`; LCs placed include the board wrapper; Fmax "
         "post-route, `--seed 1`):", "",
         "| block, configuration | device | LUT4 | FF | BRAM | DSP | LCs placed | Fmax MHz | fits |",
         "|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        if TARGETS[r.target]["family"] != "ice40" or r.origin == "auto":
            continue
        res = results.get(r.run_id, {})
        b = res.get("block", {})
        lc = res.get("util", {}).get("ICESTORM_LC")
        st = res.get("status", "error")
        fit = {"fits": "yes", "does not fit": "**no**", "synthesized": "(synthesis only)"}.get(
            st, f"**{st}**")
        L.append(f"| `{r.top}` {r.name} | {TARGETS[r.target]['device'].split('-')[0]} "
                 f"| {cell(b.get('lut'))} | {cell(b.get('ff'))} | {cell(b.get('bram'))} "
                 f"| {cell(b.get('dsp'))} | {f'{lc[0]}/{lc[1]}' if lc else '-'} "
                 f"| {cell(res.get('fmax'))} | {fit} |")
    L += ["", "Xilinx 7-series estimates (*hier.*: each distinct module synthesized once and "
          "counted per instance):", "",
          "| block, configuration | LUT | FF | DSP48E1 | RAMB36E1 | smallest part "
          "| logic delay ns (est.) |",
          "|---|---:|---:|---:|---:|---|---|"]
    for r in rows:
        if r.target != "xc7" or r.origin == "auto":
            continue
        res = results.get(r.run_id, {})
        b = res.get("block", {})
        hier = " (hier.)" if "hier" in r.flags else ""
        part = res.get("xc7_part") or f"**{res.get('status', 'error')}**"
        L.append(f"| `{r.top}` {r.name}{hier} | {cell(b.get('lut'))} | {cell(b.get('ff'))} "
                 f"| {cell(b.get('dsp'))} | {cell(b.get('ramb36'))} | {part} | {sta_text(res)} |")
    L += ["", "*logic delay* (an estimate, not an Fmax): the cell delays of the longest path "
          "between registers and ports by Yosys' `sta`, with the Artix-7 timing models of its "
          "cell library (Project X-Ray's database); no routing delay, no clock-to-out or "
          "setup: a lower bound on the clock period; flattened runs only.", "", DOC_END]
    return "\n".join(L)


def update_doc(path, tables):
    """Replace the marked block of path with tables; the rest of the file is kept byte for byte."""
    text = read_text(path)
    i, j = text.find(DOC_BEGIN), text.find(DOC_END)
    if i < 0 or j < i:
        raise ConfigError(f"{rel(path)} has no block from '{DOC_BEGIN}' to '{DOC_END}' "
                          "to write the tables into")
    write_atomic(path, text[:i] + tables + text[j + len(DOC_END):])


def results_json(rows, pending, checks, results, versions, wall):
    out = {"versions": versions, "wall_secs": round(wall, 1), "runs": [], "pending": []}
    for r in rows:
        res = dict(results.get(r.run_id, {}))
        res.pop("commands", None)
        out["runs"].append({"name": r.name, "top": r.top, "params": r.params_text,
                            "target": r.target, "flags": sorted(r.flags), **res})
    for r in pending:
        out["pending"].append({"name": r.name, "top": r.top, "target": r.target})
    out["checks"] = [{"top": k[0], "params": ",".join(f"{a}={b}" for a, b in k[1]),
                      **{kk: vv for kk, vv in v.items() if kk != "commands"}}
                     for k, v in checks.items()]
    return json.dumps(out, indent=1, default=str) + "\n"


# ---------------------------------------------------------------- main
def main(argv):
    ap = argparse.ArgumentParser(prog="run.sh", description="FPGA synthesis of the RTL blocks.")
    ap.add_argument("mode", choices=["quick", "full", "list"])
    ap.add_argument("--only", default="", help="comma-separated configuration names")
    ap.add_argument("-j", "--jobs", type=int, default=None,
                    help="runs at a time (default $SYNTH_JOBS, else the number of cores)")
    ap.add_argument("--out", default=None, help="output folder (default out/synth, "
                    "out/synth/quick for quick)")
    ap.add_argument("--configs", default=os.path.join(SYNTH_DIR, "configs.txt"))
    ap.add_argument("--doc", default=None, help="after a full run of every configuration, "
                    "rewrite the summary tables in this Markdown file (between its "
                    "synth-tables markers)")
    a = ap.parse_args(argv[1:])
    if a.doc and (a.mode != "full" or a.only):
        print("flow.py: --doc needs a full run of every configuration (mode full, no --only): "
              "the tables must come from one run", file=sys.stderr)
        return 2
    if a.doc and not (DOC_BEGIN in read_text(a.doc) and DOC_END in read_text(a.doc)):
        print(f"flow.py: {a.doc} needs the lines '{DOC_BEGIN}' and '{DOC_END}' around the "
              "place for the tables", file=sys.stderr)
        return 2

    try:
        rows = load_configs(a.configs)
    except ConfigError as e:
        print(f"flow.py: {e}", file=sys.stderr)
        return 2
    if a.mode in ("full", "list"):
        rows += auto_rows(rows)
    else:
        rows = [r for r in rows if "quick" in r.flags]
    if a.only:
        want = set(a.only.split(","))
        unknown = want - {r.name for r in rows}
        if unknown:
            print(f"flow.py: no configuration named {', '.join(sorted(unknown))} "
                  f"(known: {' '.join(sorted({r.name for r in rows}))})", file=sys.stderr)
            return 2
        rows = [r for r in rows if r.name in want]
    present = [r for r in rows if module_file(r.top)]
    pending = [r for r in rows if not module_file(r.top)]

    if a.mode == "list":
        for r in rows:
            state = "pending (no rtl/*/%s.v)" % r.top if r in pending else "ready"
            print(f"{r.name:14} {r.top:14} {r.params_text:18} {r.target:11} "
                  f"{' '.join(sorted(r.flags)):18} {state}")
        return 0

    out = a.out or os.path.join(REPO, "out", "synth", *(["quick"] if a.mode == "quick" else []))
    out = os.path.realpath(out)
    for tool in ("yosys", "nextpnr-ice40", "icepack", "icetime"):
        if not shutil.which(tool):
            print(f"flow.py: {tool} not found; run `make deps` (scripts/setup-deps.sh)",
                  file=sys.stderr)
            return 2
    start = time.monotonic()
    versions = tool_versions()
    for r in pending:
        print(f"# pending: {r.name} on {r.target} (no rtl/*/{r.top}.v yet)", flush=True)
    jobs = a.jobs or int(os.environ.get("SYNTH_JOBS", "0")) or os.cpu_count() or 1
    flow = Flow(out, max(1, jobs))
    snapshot_rtl(flow.build)
    checks, results = flow.run(present)
    wall = time.monotonic() - start
    mode = "quick" if a.mode == "quick" else "full"
    cmdline = ["scripts/synth/run.sh", *argv[1:]]
    write_atomic(os.path.join(out, "report.md"),
                 make_report(mode, present, pending, checks, results, versions, wall,
                             flow.jobs, cmdline))
    write_atomic(os.path.join(out, "results.json"),
                 results_json(present, pending, checks, results, versions, wall))
    if a.doc:
        update_doc(a.doc, doc_tables(present, results, versions))
    print(f"1..{flow.tap_n}")
    print(f"# {flow.tap_n - flow.failed} of {flow.tap_n} checks passed in {fmt_secs(wall)}; "
          f"report: {rel(os.path.join(out, 'report.md'))}")
    return 1 if flow.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
