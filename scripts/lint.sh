#!/usr/bin/env bash
# Static checks of the RTL and the C sources.
#
#   lint.sh verilator  verilator --lint-only -Wall on every module
#   lint.sh iverilog   iverilog -g2012 elaborates every module
#   lint.sh yosys      yosys elaborates every module (coarse synthesis); no latches or loops
#   lint.sh format     clang-format check of every C/C++ source
#   lint.sh consts     interface constants of the RTL equal their C twins (scripts/check-consts.py:
#                      a localparam tagged "// C: NAME" against NAME's #define or enum value)
#   lint.sh blocks     every RTL block has its places (rtl/README.md, "Adding an RTL block")
#   lint.sh all        all of the above
#   lint.sh c-sources  list the C/C++ sources (for make format)
#
# Each module is checked as a top with its default parameters; a module
# whose defaults are too big for a quick generic synthesis, or that has
# forms its defaults do not build, lists them in rtl/<block>/lint-params
# ("module Param=value ...", one line a form: each is checked).
set -uo pipefail
cd "$(dirname "$0")/.."

rtl_files() { ls rtl/*/*.v; }
rtl_dirs() { for d in rtl/*/; do printf -- '-y %s ' "${d%/}"; done; }
module_of() { basename "$1" .v; }
# The parameter sets a module is checked with, one line each ("Param=value ..."), from the
# lint-params file of its folder; one empty line (the defaults) when it lists none.
forms_of() {
  local f=$1 m l=""
  m=$(module_of "$f")
  [ -f "$(dirname "$f")/lint-params" ] &&
    l=$(awk -v m="$m" '$1 == m { $1 = ""; sub(/^ /, ""); print }' "$(dirname "$f")/lint-params")
  printf '%s\n' "$l"
}
# Each file with each of its forms: "file|params" lines.
rtl_forms() {
  local f p
  for f in $(rtl_files); do
    while IFS= read -r p; do echo "$f|$p"; done < <(forms_of "$f")
  done
}
form_name() { echo "$1${2:+ ($2)}"; }
prefixed() { # prefix, words: each word with the prefix (nothing for no words)
  local x=$1 w
  shift
  for w in "$@"; do printf -- '%s%s ' "$x" "$w"; done
}

# Results print as TAP lines, so the test runner counts each check.
fail=0
n=0
check() { # name, command...
  local name=$1
  shift
  n=$((n + 1))
  if out=$("$@" 2>&1); then
    echo "ok $n - $name"
  else
    echo "not ok $n - $name"
    echo "$out" | head -40 | sed 's/^/     /'
    fail=1
  fi
}

lint_verilator() {
  local fp f p
  for fp in $(rtl_forms | tr ' ' '#'); do
    f=${fp%%|*} p=${fp#*|} p=${p//#/ }
    # shellcheck disable=SC2046,SC2086
    check "verilator $(form_name "$f" "$p")" verilator --lint-only -Wall $(rtl_dirs) \
      $(prefixed -G $p) --top-module "$(module_of "$f")" "$f"
  done
}

lint_iverilog() {
  local fp f p
  for fp in $(rtl_forms | tr ' ' '#'); do
    f=${fp%%|*} p=${fp#*|} p=${p//#/ }
    # shellcheck disable=SC2046,SC2086
    check "iverilog $(form_name "$f" "$p")" iverilog -g2012 -grelative-include -o /dev/null \
      $(rtl_dirs) -Y .v $(prefixed "-P$(module_of "$f")." $p) -s "$(module_of "$f")" "$f"
  done
}

# Elaboration and the coarse half of `synth` (proc, flatten, word-level optimization) are
# where latches and combinational loops show; technology mapping (the fine half) is the
# synthesis flow's job (scripts/synth/, `make synth`) and would take five times longer here.
yosys_one() { # file, params: elaborate, fail on errors, latches or combinational loops
  local f=$1 m chp="" p
  m=$(module_of "$f")
  # The parameters by the chparam command, not hierarchy -chparam: Yosys 0.23's hierarchy
  # fails an internal assertion when the top it re-derives passes parameters to a submodule
  # (sa_grid's sa_pe).
  for p in $2; do chp+=" -set ${p%%=*} ${p#*=}"; done
  yosys -q -l /dev/stdout -p "
    read_verilog -sv -DSYNTHESIS $(rtl_files | tr '\n' ' ');
    ${chp:+chparam $chp $m;}
    hierarchy -check -top $m;
    synth -run coarse:fine;
    check -assert;
    select -assert-none t:\$dlatch t:\$adlatch t:\$_DLATCH_* t:\$_DLATCHSR_*" >/dev/null
}

lint_yosys() {
  local fp f p
  for fp in $(rtl_forms | tr ' ' '#'); do
    f=${fp%%|*} p=${fp#*|} p=${p//#/ }
    check "yosys $(form_name "$f" "$p")" yosys_one "$f" "$p"
  done
}

c_sources() {
  git ls-files --cached --others --exclude-standard \
    'csim/*.[ch]' 'csim/*.[ch]pp' 'models/*.[ch]' 'models/*.[ch]pp' 'testbench/*.[ch]' 2>/dev/null |
    while read -r f; do [ -f "$f" ] && echo "$f"; done
}

lint_format() {
  local files
  files=$(c_sources)
  # shellcheck disable=SC2086
  check "clang-format ($(echo "$files" | wc -w) files)" clang-format --dry-run --Werror $files
}

lint_consts() {
  check "consts (RTL localparams tagged // C: NAME against the C definitions)" \
    python3 scripts/check-consts.py
}

# Each simulated RTL block (a folder with a block.mk) in every place of the recipe: its README
# and formal proofs beside the RTL, its shims csim/shim/<block>*, its C models (twin, timing,
# RTL backend) in models/<block>/, a block test testbench/<block>/test_*_rtl.c, a GTKWave save
# file waves/<block>*.gtkw.
lint_blocks() {
  local d b missing
  for d in rtl/*/; do
    b=$(basename "$d")
    [ -f "$d/block.mk" ] || continue
    missing=""
    [ -f "$d/README.md" ] || missing+=" rtl/$b/README.md"
    [ -d "$d/formal" ] || missing+=" rtl/$b/formal/"
    compgen -G "csim/shim/$b*.h" >/dev/null || missing+=" csim/shim/$b*.h"
    compgen -G "models/$b/*.c" >/dev/null || missing+=" models/$b/*.c"
    compgen -G "testbench/$b/test_*_rtl.c" >/dev/null || missing+=" testbench/$b/test_*_rtl.c"
    compgen -G "waves/$b*.gtkw" >/dev/null || missing+=" waves/$b*.gtkw"
    check "block $b has its places" bash -c '[ -z "$1" ] || { echo "missing:$1"; exit 1; }' - "$missing"
  done
}

case "${1:-all}" in
verilator) lint_verilator ;;
iverilog) lint_iverilog ;;
yosys) lint_yosys ;;
format) lint_format ;;
consts) lint_consts ;;
blocks) lint_blocks ;;
c-sources) c_sources; exit 0 ;;
all) lint_verilator; lint_iverilog; lint_yosys; lint_format; lint_consts; lint_blocks ;;
*) echo "lint.sh: unknown check '$1' (accepted: verilator iverilog yosys format consts blocks all c-sources)" >&2; exit 2 ;;
esac
exit $fail
