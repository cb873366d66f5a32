#!/usr/bin/env bash
# A one-node Slurm on this machine, in a directory of its own, for trying and testing
# `scripts/sweep --engine slurm` without a cluster:
#
#   scripts/local-slurm.sh start DIR   munged, slurmctld and slurmd, every file under DIR;
#                                      prints "export SLURM_CONF=DIR/slurm.conf" once the node
#                                      is idle
#   scripts/local-slurm.sh stop DIR    stops the three daemons by their pid files under DIR
#
# As root (the daemons run as root: SlurmUser=root). Needs Debian's slurm-wlm and munge
# (`make deps`). Nothing outside DIR is touched: a private munge key and socket, state, spool,
# logs and pid files under DIR, and two free TCP ports for slurmctld and slurmd (other Slurms
# on the machine are left alone). No systemd: the daemons are started by hand. Every failure is
# one line, "local-slurm: <what did not start>; <where to look>", and exit 1; a failed start
# stops what it had started.
set -uo pipefail

usage() {
  echo "usage: $0 start|stop DIR" >&2
  exit 2
}
[ $# -eq 2 ] || usage
cmd=$1
dir=$2
fail() {
  echo "local-slurm: $*" >&2
  exit 1
}

# stop NAME...: SIGTERM to each daemon named (by its pid file under DIR/run) at once, wait up
# to 10 s for them all, then SIGKILL any left; their pid files are removed.
stop() {
  local name pid pids=() names=() i
  for name in "$@"; do
    pid=$(cat "$dir/run/$name.pid" 2>/dev/null)
    if [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null
      pids+=("$pid")
      names+=("$name")
    fi
  done
  for ((i = 0; i < 100; i++)); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for i in "${!pids[@]}"; do
    if kill -0 "${pids[$i]}" 2>/dev/null; then
      echo "local-slurm: ${names[$i]} (pid ${pids[$i]}) did not stop in 10 s; killed" >&2
      kill -KILL "${pids[$i]}" 2>/dev/null
    fi
  done
  for name in "$@"; do rm -f "$dir/run/$name.pid"; done
}

# Slurm's daemons first (they may still talk to munged as they stop), then munged.
stop_all() {
  stop slurmd slurmctld
  stop munged
}

case $cmd in
  stop)
    [ -d "$dir" ] || fail "'$dir' is not a directory; give the DIR given to start"
    stop_all
    exit 0
    ;;
  start) ;;
  *) usage ;;
esac

[ "$(id -u)" = 0 ] || fail "not root; the one-node Slurm runs its daemons as root (SlurmUser=root)"
for tool in munged munge unmunge slurmctld slurmd sinfo; do
  command -v "$tool" >/dev/null 2>&1 ||
    fail "$tool not found; install Debian's slurm-wlm and munge (make deps)"
done
mkdir -p "$dir"/{run,log,state,spool,munge} || fail "cannot create the directories under '$dir'"
dir=$(cd "$dir" && pwd)
chmod 700 "$dir/munge"
# A failed start leaves nothing running.
trap 'stop_all' EXIT

host=$(hostname -s 2>/dev/null)
[ -n "$host" ] || fail "hostname -s gives no name; slurmctld needs this machine's short name"
getent hosts "$host" >/dev/null 2>&1 ||
  fail "the host name '$host' does not resolve (getent hosts $host); slurmctld cannot start without it: add it to /etc/hosts"

# ---- munge: a private key and socket
key=$dir/munge/munge.key
sock=$dir/munge/munge.sock
rm -f "$key"
{ head -c 1024 /dev/urandom >"$key" && chmod 400 "$key"; } || fail "cannot write the munge key $key"
# -f: munged refuses to run as root, and the socket's directory is under a world-writable
# /tmp, unless forced.
munged -f --key-file="$key" --socket="$sock" --pid-file="$dir/run/munged.pid" \
  --log-file="$dir/log/munged.log" --seed-file="$dir/munge/munge.seed" >"$dir/log/munged.out" 2>&1 ||
  fail "munged did not start: $(tail -n1 "$dir/log/munged.out"); see $dir/log/munged.log"
munge -n -S "$sock" 2>/dev/null | unmunge -S "$sock" >/dev/null 2>&1 ||
  fail "munged started but a credential does not round-trip through $sock; see $dir/log/munged.log"

# ---- slurm.conf: two free ports, every path under DIR
mapfile -t ports < <(python3 -c '
import socket
ss = [socket.socket() for _ in range(2)]
for s in ss: s.bind(("127.0.0.1", 0))
for s in ss: print(s.getsockname()[1])
')
[ ${#ports[@]} -eq 2 ] || fail "cannot find two free TCP ports on 127.0.0.1"
cpus=$(nproc)
conf=$dir/slurm.conf
cat >"$conf" <<EOF
# A one-node Slurm written by scripts/local-slurm.sh; stop it with: scripts/local-slurm.sh stop $dir
ClusterName=flashstream
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${ports[0]}
SlurmdPort=${ports[1]}
AuthType=auth/munge
AuthInfo=socket=$sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
# sbatch --wait polls every 2 s while its interval is under MinJobAge / 2: keep it at 2 s.
MinJobAge=4
SchedulerParameters=batch_sched_delay=0
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$conf

slurmctld -f "$conf" >"$dir/log/slurmctld.out" 2>&1 ||
  fail "slurmctld did not start: $(tail -n1 "$dir/log/slurmctld.out"); see $dir/log/slurmctld.log"
slurmd -f "$conf" >"$dir/log/slurmd.out" 2>&1 ||
  fail "slurmd did not start: $(tail -n1 "$dir/log/slurmd.out"); see $dir/log/slurmd.log"

# The node is up when sinfo reports it idle: up to 30 s.
state=
for ((i = 0; i < 150; i++)); do
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null | head -n1)
  [ "$state" = idle ] && break
  sleep 0.2
done
if [ "$state" != idle ]; then
  for d in slurmctld slurmd; do
    if ! { [ -s "$dir/run/$d.pid" ] && kill -0 "$(cat "$dir/run/$d.pid")" 2>/dev/null; }; then
      fail "$d did not stay up: $(grep -m1 -iE 'fatal|error' "$dir/log/$d.log" 2>/dev/null || echo 'no error logged'); see $dir/log/$d.log"
    fi
  done
  fail "the node $host is not idle after 30 s (sinfo says '${state:-nothing}'); see $dir/log/slurmctld.log and $dir/log/slurmd.log"
fi
trap - EXIT
echo "export SLURM_CONF=$conf"
