#!/usr/bin/env bash
# Checks of scripts/setup-deps.sh on the machines a new user may have, printed as TAP lines
# (scripts/run-tests.sh counts each case):
#
#   scripts/check-setup-deps.sh WORKDIR [SETUP_SCRIPT]
#
# The real script runs with a PATH that holds only stub dpkg-query, apt-get and id commands
# and links to the few real tools it uses, so no case can reach the real package manager.
# The stubs act as Debian's do: dpkg-query reports the installed packages it is asked about
# and exits 1 when any name is unknown; apt-get records its arguments and fails as told.
set -uo pipefail

work=${1:?usage: check-setup-deps.sh WORKDIR [SETUP_SCRIPT]}
here=$(cd "$(dirname "$0")" && pwd)
script=${2:-$here/setup-deps.sh}
rm -rf "$work" && mkdir -p "$work/bin"
bin=$work/bin
aptlog=$work/apt.log

# The names the script needs, read from the script itself.
mapfile -t all < <(sed -n '/^packages=(/,/^)/{/^ /s/^ *\([^ #]*\).*/\1/p}' "$script")

for tool in bash sed tr grep tail rm mktemp cat; do
  ln -s "$(command -v "$tool")" "$bin/$tool"
done

# dpkg-query -W -f FORMAT NAME...: one FORMAT line per known name, exit 1 if any is unknown.
cat >"$bin/dpkg-query" <<'EOF'
#!/bin/bash
fmt='${Package}\n'
while [ $# -gt 0 ]; do
  case $1 in
    -f) fmt=$2; shift 2 ;;
    -f=*) fmt=${1#-f=}; shift ;;
    -f*) fmt=${1#-f}; shift ;;
    --showformat=*) fmt=${1#--showformat=}; shift ;;
    -*) shift ;;
    *) break ;;
  esac
done
rc=0
for name in "$@"; do
  if [[ " $STUB_INSTALLED " == *" $name "* ]]; then
    line=${fmt//'${db:Status-Status}'/installed}
    printf '%b' "${line//'${Package}'/$name}"
  else
    echo "dpkg-query: no packages found matching $name" >&2
    rc=1
  fi
done
exit $rc
EOF
# apt-get: record the call; `update` exits STUB_UPDATE_RC, `install` names STUB_ABSENT as
# unknown or exits STUB_INSTALL_RC.
cat >"$bin/apt-get" <<EOF
#!/bin/bash
echo "\$*" >>"$aptlog"
case " \$* " in
  *" update "*) [ "\${STUB_UPDATE_RC:-0}" = 0 ] || echo "E: The repository is not signed." >&2
                exit "\${STUB_UPDATE_RC:-0}" ;;
  *" install "*) if [ -n "\${STUB_ABSENT:-}" ]; then
                   echo "E: Unable to locate package \$STUB_ABSENT" >&2; exit 100
                 fi
                 [ "\${STUB_INSTALL_RC:-0}" = 0 ] || echo "E: Sub-process /usr/bin/dpkg returned an error code (1)" >&2
                 exit "\${STUB_INSTALL_RC:-0}" ;;
esac
EOF
printf '#!/bin/bash\n[ "$1" = -u ] && echo "${STUB_UID:-0}" || echo "uid=${STUB_UID:-0}"\n' >"$bin/id"
chmod +x "$bin/dpkg-query" "$bin/apt-get" "$bin/id"

n=0
fail=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); fail=1; echo "not ok $n - $1"; sed 's/^/     /' "$work/out"; }

# run VAR=value...: the script under the stubs; sets rc, out (stdout and stderr), err
# (stderr) and apt (the calls of apt-get).
run() {
  rm -f "$aptlog" && touch "$aptlog"
  env -i PATH="$bin" HOME="$work" TMPDIR="$work" "$@" bash "$script" >"$work/out" 2>"$work/err"
  rc=$?
  cat "$work/err" >>"$work/out"
  out=$(cat "$work/out")
  err=$(cat "$work/err")
  apt=$(cat "$aptlog")
}
# check NAME CONDITION...: one case, passed when every condition holds.
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else not_ok "$name (rc $rc)"; fi
}
# A failure is one line on stderr that names the problem, and the script exits 1.
one_line_failure() { [ "$rc" -eq 1 ] && [ "$(grep -c . <<<"$err")" -eq 1 ] && grep -q "$1" <<<"$err"; }

[ ${#all[@]} -ge 10 ] || { echo "not ok 1 - read the package list of $script (got ${#all[@]} names)"; exit 1; }

# Packages the build cannot do without, so a pruned list fails here, not at compile time:
# models/sc (SystemC/TLM-2.0) compiles against libsystemc-dev's headers and library.
rc=0
check "the list holds libsystemc-dev (models/sc)" eval '[[ " ${all[*]} " == *" libsystemc-dev "* ]]'

run STUB_INSTALLED="${all[*]}"
check "everything installed: silent, exit 0, apt-get not called" \
  eval '[ "$rc" -eq 0 ] && [ -z "$out" ] && [ -z "$apt" ]'

run STUB_INSTALLED="${all[*]:2}"
check "some missing: apt-get installs exactly those, exit 0" \
  eval '[ "$rc" -eq 0 ] && grep -qx "update -qq" <<<"$apt" &&
        grep -qx "install -y -qq --no-install-recommends ${all[0]} ${all[1]}" <<<"$apt" &&
        grep -q "installing missing Debian packages: ${all[0]} ${all[1]}\$" <<<"$out"'

run STUB_INSTALLED=""
check "nothing installed, dpkg-query exits 1: installs everything, exit 0" \
  eval '[ "$rc" -eq 0 ] && grep -qx "install -y -qq --no-install-recommends ${all[*]}" <<<"$apt"'

run STUB_INSTALLED="${all[*]:1}" STUB_UID=1000
check "not root: the exact sudo line, apt-get not called" \
  eval 'one_line_failure "run: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${all[0]}\$" &&
        [ -z "$apt" ]'

run STUB_INSTALLED="${all[*]}" STUB_UID=1000
check "not root, everything installed: silent, exit 0" eval '[ "$rc" -eq 0 ] && [ -z "$out" ]'

run STUB_INSTALLED="" STUB_UPDATE_RC=100
check "apt-get update fails: its exit status, no install" \
  eval 'one_line_failure "apt-get update.* failed (exit status 100: E: The repository is not signed.)" &&
        ! grep -q install <<<"$apt"'

run STUB_INSTALLED="" STUB_INSTALL_RC=100
check "apt-get install fails: its exit status and the line to run" \
  eval 'one_line_failure "apt-get install.* failed (exit status 100: E: Sub-process .*run by hand.*apt-get install -y"'

run STUB_INSTALLED="" STUB_ABSENT=dataset-fashion-mnist
check "a package the archive lacks: named, with the Debian release needed" \
  eval 'one_line_failure "archive has no package dataset-fashion-mnist (.*Debian 12"'

rm "$bin/apt-get"
run STUB_INSTALLED="${all[*]:1}"
check "no apt-get: the packages to install by hand" \
  eval 'one_line_failure "apt-get not found; install these Debian packages by hand: ${all[0]}\$"'

rm "$bin/dpkg-query"
run STUB_INSTALLED=""
check "no dpkg-query: not Debian, the packages named" \
  eval 'one_line_failure "not a Debian system.*${all[0]}"'

exit $fail
