#!/usr/bin/env bash
# Formal proofs of the handshake contract (rtl/README.md) with Yosys, yosys-smtbmc and Z3.
#
#   run.sh [--quick] OUTDIR [PROOF...]   every proof of rtl/*/formal/proofs, or those named
#   run.sh --list                         the proofs, their depths, cuts and mutants
#
# --quick runs each bounded check to its quick depth (the second of "FULL/QUICK" in the proof
# table), for the proofs whose full depth takes minutes; `make test` runs it so. A proof whose
# quick depth is "-" is left out of it (its model alone costs more than the suite affords).
#
# Each proof is a harness module (rtl/<block>/formal/fv_<name>.sv) around one block: it
# assumes the environment keeps the contract and asserts that the block does. For each proof
# the script prints TAP lines (scripts/run-tests.sh counts them):
#
#   ok 1 - cmn_fifo bmc 24            no assertion fails within 24 cycles of reset
#   ok 2 - cmn_fifo induction 6       the assertions are 6-inductive: they hold forever
#   ok 3 - cmn_fifo mutant drop-beat fails
#                                     the block with a deliberate bug (a one-match perl
#                                     substitution of one RTL file, compiled here only) fails
#                                     the bounded check: the proof can tell it from the real one
#
# Outputs go to OUTDIR/<proof>/ (the Yosys script and log, the SMT-LIB model, the solver's
# logs, a VCD of any failing trace); the source tree is never written. scripts/formal/README.md
# describes each proof and how to run one by hand.
set -uo pipefail
cd "$(dirname "$0")/../.."

usage() {
  echo "usage: scripts/formal/run.sh [--quick] OUTDIR [PROOF...] | --list" >&2
  exit 2
}
[ $# -ge 1 ] || usage
# A single check never needs this long (the longest, the DMA's 20 cycles, takes about 10 min on a
# loaded machine); a run that does is a hung solver, reported as a failure (FORMAL_TIMEOUT, s).
limit=${FORMAL_TIMEOUT:-1800}

# The proof table: every rtl/*/formal/proofs, comments and blank lines dropped.
table() { cat rtl/*/formal/proofs | sed -e 's/^[[:space:]]*#.*//' -e '/^[[:space:]]*$/d'; }
proofs() { table | awk '$1 == "proof" { print $2 }'; }
field() { # proof field-number
  table | awk -v p="$1" -v f="$2" '$1 == "proof" && $2 == p { print $f }'
}
params_of() { table | awk -v p="$1" '$1 == "proof" && $2 == p { for (i = 6; i <= NF; i++) print $i }'; }
cuts_of() { table | awk -v p="$1" '$1 == "cut" && $2 == p { for (i = 3; i <= NF; i++) print $i }'; }
peeks_of() { table | awk -v p="$1" '$1 == "peek" && $2 == p { for (i = 3; i <= NF; i++) print $i }'; }
mutants_of() { table | awk -v p="$1" '$1 == "mutant" && $2 == p { print $3 }'; }
mutant_file() { table | awk -v p="$1" -v m="$2" '$1 == "mutant" && $2 == p && $3 == m { print $4 }'; }
mutant_expr() { # the rest of the line after the file: the substitution may hold spaces
  table | awk -v p="$1" -v m="$2" '$1 == "mutant" && $2 == p && $3 == m {
    sub(/^[[:space:]]*mutant[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+[^[:space:]]+[[:space:]]+/, "")
    print }'
}

if [ "$1" = --list ]; then
  for p in $(proofs); do
    printf '%-14s bmc %-3s induction %-3s %s\n' "$p" "$(field "$p" 4)" "$(field "$p" 5)" \
      "$(params_of "$p" | tr '\n' ' ')"
    for c in $(cuts_of "$p"); do printf '    cut %s\n' "$c"; done
    for m in $(mutants_of "$p"); do printf '    mutant %-14s %s\n' "$m" "$(mutant_file "$p" "$m")"; done
  done
  exit 0
fi
quick=0
if [ "$1" = --quick ]; then
  quick=1
  shift
  [ $# -ge 1 ] || usage
fi
case $1 in -*) usage ;; esac
out=$1
shift
selected=("$@")
[ ${#selected[@]} -gt 0 ] || mapfile -t selected < <(proofs)
for p in "${selected[@]}"; do
  [ -n "$(field "$p" 2)" ] || {
    echo "run.sh: no proof named '$p'; the proofs are: $(proofs | tr '\n' ' ')" >&2
    exit 2
  }
done
for tool in yosys yosys-smtbmc z3; do
  command -v "$tool" >/dev/null || {
    echo "run.sh: $tool not found; run: make deps" >&2
    exit 2
  }
done

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { # name, log: the end of the log says which assertion failed, and where
  n=$((n + 1))
  fail=1
  echo "not ok $n - $1"
  [ -f "$2" ] && grep -E 'Assert failed|Assumptions are unsatisfiable|ERROR|rror:|Status' "$2" |
    head -10 | sed 's/^/     /'
  echo "     (log: $2)"
}
secs() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f s", b - a }'; }

# model DIR PROOF RTL-FILE...: the SMT-LIB model DIR/model.smt2 of PROOF's harness over the
# given RTL files (the blocks read as synthesis sees them: SYNTHESIS defined, so the
# simulation-only checks are left out), the peeks connected to the design's registers, the
# cut wires made free inputs (cutpoint: whatever drove them is dropped, so the proof covers
# every value they could take, the real ones among them). The model is lowered to AND gates
# first: Z3 expands Yosys' word-level definitions one into the next, which takes minutes on a
# block the size of the DMA before the first check, and the bit-level model loads in seconds.
model() {
  local dir=$1 p=$2
  shift 2
  local top chp="" connects=""
  top=$(field "$p" 3)
  for kv in $(params_of "$p"); do chp+=" -chparam ${kv%%=*} ${kv#*=}"; done
  local cuts
  cuts=$(cuts_of "$p" | sed 's/^/w:/' | tr '\n' ' ')
  # A design wire is renamed first: `connect` cannot name a wire like dut.mem_q[0].
  local k=0
  for kv in $(peeks_of "$p"); do
    connects+="rename ${kv#*=} fv_peek_$k"$'\n'"connect -set ${kv%%=*} fv_peek_$k"$'\n'
    k=$((k + 1))
  done
  mkdir -p "$dir"
  cat >"$dir/model.ys" <<YS
read_verilog -sv -DSYNTHESIS $*
read_verilog -formal -sv -Irtl/common/formal rtl/common/formal/fv_hs.sv $(ls rtl/*/formal/fv_*.sv | grep -v fv_hs.sv | tr '\n' ' ')
hierarchy -check -top $top$chp
proc
flatten
memory
cd $top
${connects}cd ..
${cuts:+cutpoint $cuts}
prep -top $top
techmap
opt -fast
abc -g AND
opt_clean
async2sync
dffunmap
write_smt2 -wires $dir/model.smt2
YS
  yosys -q -l "$dir/yosys.log" -s "$dir/model.ys" >/dev/null 2>&1
}

# smtbmc LOG ARGS...: yosys-smtbmc with Z3, bounded in time; its exit status.
smtbmc() {
  local log=$1
  shift
  timeout "$limit" yosys-smtbmc -s z3 --presat --noprogress "$@" >"$log" 2>&1
}

mapfile -t rtl < <(ls rtl/*/*.v)
for p in "${selected[@]}"; do
  dir=$out/$p
  rm -rf "$dir"
  bmc=$(field "$p" 4)
  if [ $quick = 1 ]; then bmc=${bmc#*/}; else bmc=${bmc%/*}; fi
  [ "$bmc" = - ] && continue # a proof for `make formal` only
  ind=$(field "$p" 5)
  start=$EPOCHREALTIME
  if ! model "$dir" "$p" "${rtl[@]}"; then
    not_ok "$p model (yosys)" "$dir/yosys.log"
    continue
  fi
  if smtbmc "$dir/bmc.log" -t "$bmc" --dump-vcd "$dir/bmc.vcd" "$dir/model.smt2"; then
    ok "$p bmc $bmc ($(secs "$start"))"
  else
    not_ok "$p bmc $bmc" "$dir/bmc.log"
  fi
  if [ "$ind" != - ]; then
    start=$EPOCHREALTIME
    if smtbmc "$dir/induction.log" -i -t "$ind" --dump-vcd "$dir/induction.vcd" "$dir/model.smt2"; then
      ok "$p induction $ind ($(secs "$start"))"
    else
      not_ok "$p induction $ind" "$dir/induction.log"
    fi
  fi
  for m in $(mutants_of "$p"); do
    mdir=$dir/mutant-$m
    mkdir -p "$mdir"
    file=$(mutant_file "$p" "$m")
    expr=$(mutant_expr "$p" "$m")
    # The substitution must match exactly once: a bug injected where it was meant, or the
    # mutant is stale (its RTL changed) and says so.
    if ! count=$(perl -0777 -ne "\$n = ($expr"g"); print \$n || 0; \$_ =~ 1; open(F, '>', '$mdir/$(basename "$file")') or die; print F \$_;" "$file" 2>"$mdir/perl.log") ||
      [ "$count" != 1 ]; then
      echo "the substitution '$expr' matched ${count:-no} times in $file (must be once)" >"$mdir/perl.log"
      not_ok "$p mutant $m: substitution does not apply" "$mdir/perl.log"
      continue
    fi
    mrtl=()
    for f in "${rtl[@]}"; do
      if [ "$f" = "$file" ]; then mrtl+=("$mdir/$(basename "$file")"); else mrtl+=("$f"); fi
    done
    start=$EPOCHREALTIME
    if ! model "$mdir" "$p" "${mrtl[@]}"; then
      not_ok "$p mutant $m model (yosys)" "$mdir/yosys.log"
      continue
    fi
    smtbmc "$mdir/bmc.log" -t "$bmc" "$mdir/model.smt2"
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -q 'Status: FAILED' "$mdir/bmc.log"; then
      step=$(sed -n 's/.*Checking assertions in step \([0-9]*\).*/\1/p' "$mdir/bmc.log" | tail -1)
      ok "$p mutant $m fails${step:+ (cycle $step)} ($(secs "$start"))"
    else
      echo "the mutant passed the bounded check (exit status $rc): the proof cannot see this bug" >>"$mdir/bmc.log"
      not_ok "$p mutant $m fails" "$mdir/bmc.log"
    fi
  done
done
echo "1..$n"
exit $fail
