#!/usr/bin/env python3
"""Interface constants written both in the RTL and in C must agree (`lint.sh consts`).

Status codes, opcodes, field widths and FIFO depths of an RTL block are also written in C,
where the shims, the twins and the tests use them. The RTL is the source: a localparam that C
mirrors carries the C name in its comment,

    localparam logic [2:0] StatusBadDesc = 3'd1;  // C: DMA_ST_BAD_DESC

and this check reads every such tag in rtl/*/*.v, finds the C definition of the name
(`#define NAME value` or the enum member `NAME = value`) in the files C_FILES matches, and
fails when the values differ, when the name is defined nowhere or twice with different values,
and when a C constant of one of the families in PAIRED_FAMILIES has no tagged localparam. One
localparam per tagged line; several localparams may carry the same tag. Values are integer
literals on both sides (SystemVerilog sized or plain decimal; C decimal or hex with an
optional u/l suffix).

Prints nothing and exits 0 when every pair agrees; otherwise one line per problem, naming both
places and both values, and exits 1.
"""

import glob
import os
import re
import sys

# The C side: every file these patterns match is searched for the tagged names. The C port
# structs and constants of the RTL blocks live in the shim headers, the twins' headers and the
# twins' sources (which keep their FIFO depths private); when they move, change this list.
C_FILES = ["csim/shim/*.h", "models/*/*.h", "models/*/*_twin.c"]

# C constants whose whole family has to be mirrored by tagged localparams: a status code or an
# opcode added in C alone is an error too.
PAIRED_FAMILIES = ["DMA_ST_", "CORE_OK", "CORE_ERR_", "NFW_CFG_"]

RTL_FILES = "rtl/*/*.v"

TAG = re.compile(r"//.*\bC:\s*([A-Z][A-Z0-9_]*)")
LOCALPARAM = re.compile(
    r"\blocalparam\s+(?:(?:int|integer|logic|bit)\s*(?:signed\s*)?(?:\[[^\]]*\]\s*)?)?"
    r"(\w+)\s*=\s*([^,;/]+?)\s*(?:[,;]|$)")
C_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Z][A-Z0-9_]*)\s+([^/]+?)\s*(?:/[*/].*)?$")
C_ENUM = re.compile(r"^\s*([A-Z][A-Z0-9_]*)\s*=\s*([^,}/]+?)\s*(?:[,}].*|/[*/].*)?$")


def sv_value(text):
    """Value of a SystemVerilog integer literal, or None."""
    text = text.replace("_", "").strip()
    m = re.fullmatch(r"(\d+)?'([sS]?)([dDhHbBoO])([0-9a-fA-F]+)", text)
    if m:
        return int(m.group(4), {"d": 10, "h": 16, "b": 2, "o": 8}[m.group(3).lower()])
    if re.fullmatch(r"\d+", text):
        return int(text)
    return None


def c_value(text):
    """Value of a C integer literal (decimal or hex, optional u/l suffixes), or None."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    text = text.rstrip("uUlL")
    try:
        return int(text, 16) if text.lower().startswith("0x") else int(text, 10)
    except ValueError:
        return None


def rtl_tags(problems):
    """[(C name, file:line, localparam name, value)] of every tagged localparam."""
    tags = []
    for path in sorted(glob.glob(RTL_FILES)):
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                tag = TAG.search(line)
                if not tag:
                    continue
                where = f"{path}:{n}"
                code = line[: line.index("//")].rstrip()
                decl = LOCALPARAM.search(code)
                if not decl:
                    problems.append(f"{where}: the tag 'C: {tag.group(1)}' is not on a localparam "
                                    "line (one localparam per tagged line)")
                    continue
                value = sv_value(decl.group(2))
                if value is None:
                    problems.append(f"{where}: localparam {decl.group(1)} = {decl.group(2)} is not "
                                    f"an integer literal; its C twin {tag.group(1)} cannot be "
                                    "compared")
                    continue
                tags.append((tag.group(1), where, decl.group(1), value))
    return tags


def c_defs(problems):
    """{name: [(file:line, value)]} of every #define with a value and every enum member with an
    explicit one; value None when it is not an integer literal."""
    defs = {}
    paths = sorted({p for pattern in C_FILES for p in glob.glob(pattern)})
    if not paths:
        problems.append(f"no C file matches {C_FILES} (scripts/check-consts.py, C_FILES)")
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                m = C_DEFINE.match(line) or C_ENUM.match(line)
                if m:
                    defs.setdefault(m.group(1), []).append((f"{path}:{n}", c_value(m.group(2))))
    return defs


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    problems = []
    tags = rtl_tags(problems)
    defs = c_defs(problems)
    if not tags and not problems:
        problems.append(f"no localparam in {RTL_FILES} carries a '// C: NAME' tag")
    for name, where, param, value in tags:
        found = defs.get(name)
        if not found:
            problems.append(f"{where}: localparam {param} = {value} is tagged C: {name}, but no "
                            f"file of {C_FILES} defines {name}")
            continue
        for c_where, c_val in found:
            if c_val is None:
                problems.append(f"{name}: {c_where} does not define it as an integer literal; "
                                f"{where} has {param} = {value}")
            elif c_val != value:
                problems.append(f"{name}: {where} has {param} = {value}, {c_where} has "
                                f"{name} = {c_val}")
    tagged = {t[0] for t in tags}
    for name, places in sorted(defs.items()):
        if any(name.startswith(f) for f in PAIRED_FAMILIES) and name not in tagged:
            problems.append(f"{places[0][0]}: {name} = {places[0][1]} has no localparam tagged "
                            f"'// C: {name}' in {RTL_FILES}")
    for p in problems:
        print(f"consts: {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
