#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine for the tests of `srun` launches and
# prints the line to export:
#   eval "$(scripts/slurm-test-cluster.sh)"
# Its configuration, state and logs live in /tmp/iozone-slurm (the controller and the
# node daemon run as root, the node is this host with its CPUs, and tasks may
# outnumber them: `srun -O`); clients find it through SLURM_CONF. Running it again
# reuses a running cluster. Installs Slurm and MUNGE (its authentication) from Debian's
# packages when they are not there, and starts munged when it does not run. As root.
set -euo pipefail

dir=${IOZONE_SLURM_DIR:-/tmp/iozone-slurm}
conf=$dir/slurm.conf

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  echo "installing slurm-wlm" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >&2
fi

if ! pgrep -x munged >/dev/null; then
  [ -s /etc/munge/munge.key ] || mungekey --create >&2
  mkdir -p /run/munge
  chown munge: /run/munge /etc/munge/munge.key 2>/dev/null || true
  runuser -u munge -- munged >&2
fi

export SLURM_CONF=$conf
if ! scontrol ping 2>/dev/null | grep -q UP; then
  pkill -x slurmd 2>/dev/null || true
  pkill -x slurmctld 2>/dev/null || true
  rm -rf "$dir"
  mkdir -p "$dir/ctld" "$dir/d"
  host=$(hostname -s)
  cat >"$conf" <<CONF
ClusterName=iozone-test
SlurmctldHost=$host
AuthType=auth/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
ReturnToService=2
SlurmUser=root
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=56817
SlurmdPort=56818
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
  slurmctld -f "$conf" >&2
  slurmd -f "$conf" >&2
  for _ in $(seq 50); do
    sinfo -h -o %t 2>/dev/null | grep -q idle && break
    sleep 0.2
  done
  sinfo -h -o %t | grep -q idle || { echo "the Slurm node did not come up: see $dir" >&2; exit 1; }
fi
echo "export SLURM_CONF=$conf"
