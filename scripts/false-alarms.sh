#!/usr/bin/env bash
# How often does `iozone compare` cry wolf, and does it see a real slowdown?
#
#   [N=12] [RUN_ARGS="-s 32M -r 4k,64k -n 5"] [IOZONE=BIN] \
#     scripts/false-alarms.sh [--dir DIR] [--load] [--slow maxio|nodelalloc]
#   N=4 RUN_ARGS="-s 8M -r 4k,64k -n 5" scripts/false-alarms.sh      (a quick try)
#
# Records N runs (default 12) of one configuration, one after another, with `iozone run
# $RUN_ARGS` (default `-s 32M -r 4k,64k -n 5`) into DIR/runs.db, measuring in DIR/io
# (DIR defaults to target/false-alarms, on the checkout's disk; relative to the checkout).
# Nothing changes between the runs, so every verdict other than unchanged/inconclusive
# is a false alarm. It compares (`compare --format json`; flagged = any row regression
# or improvement):
#   - every pair of runs i<j alone: a fresh database holding just the two runs (made
#     with export/import), so there is no history to learn the noise from;
#   - every pair i<j with history: in DIR/runs.db, the other N-2 runs present (later
#     runs too: which of them count is for compare to decide);
#   - consecutive groups of 3 runs (N=12: 4 groups), every pair of groups, in runs.db.
# For each: comparisons flagged / total, rows flagged / total, flagged rows per row, and
# the noise_source / noise_pct / min_detectable_pct / runs_baseline / runs_candidate of
# the rows when the binary reports them.
#
# --load: while recording, a background loop sleeps a random 0-6 s, writes a 200 MB
#   file (dd from a prepared random file, conv=fsync) into the directory measured in,
#   removes it, and again. It is stopped when the script ends, however it ends.
#
# --slow MECH (root): a real slowdown of the candidate, the code untouched. An ext4
#   filesystem on a loop device (image DIR/slow.img, 1 GiB written out, `losetup
#   --direct-io=on` so cold reads reach the disk) is mounted on DIR/mnt; the N runs
#   above are recorded there as they are (they are the baseline, and the false-alarm
#   figures come from them), and N candidate runs with MECH applied, alternately
#   (baseline 1, candidate 1, baseline 2, ...: a change of the machine's state, another
#   job starting or ending, lands on both sides instead of passing for the slowdown or
#   hiding it; MECH is switched off and on between the runs):
#     maxio       the loop device's requests capped at 32 KiB (its queue/max_sectors_kb,
#                 1280 by default, set to 32; reset to the default for every baseline run
#                 and at the end, as the setting outlives a detach), invisible to
#                 iozone's environment record. On the 2-core VM this was written on
#                 (the default RUN_ARGS): read 4k/64k, write 64k and rewrite 64k drop
#                 30-47%, write and rewrite 4k 5-14%, reread within 3%. The one to use.
#     nodelalloc  the filesystem remounted -o nodelalloc (blocks allocated at every
#                 write(2)): write rows drop 40-60%, rewrite 4k about 15%, the rest not.
#   Then every (baseline run, candidate run) pair is compared alone (a database of the
#   two) and with history (a database of all N baseline runs plus that one candidate
#   run: what a user has who ran the baseline N times and measures a change once), and
#   every group of 3 baseline runs against every group of 3 candidate runs (a database
#   of all baseline runs plus the candidate group). The true change of a row is the
#   median of the candidate runs' medians over the median of the baseline runs' medians;
#   for rows whose true change is a drop of 15% or more it reports the share flagged
#   regression, and counts improvement verdicts on them (should be zero).
#   Setup and teardown (mount, loop device, image) are the script's; so is cleanup on
#   exit, error or Ctrl-C.
#   Not used: a cgroup io.max/blkio throttle (on the machine this was written on, the
#   io controller is on cgroup v1 only, and the v1 throttle budgets in 100 ms slices:
#   a 32 MiB file is either not slowed at all or slowed 80% or more), dm-delay (not in
#   that kernel).
#
# Left in DIR: runs.db, export.json, run.log (iozone's stderr), cmp/*/*.json (every
# comparison). The binary is ${IOZONE:-target/release/iozone}, built with cargo when
# IOZONE is not set (a relative IOZONE is taken from the checkout). A measurement, not a
# test: exits 0 whatever the rates. About 25 s with the defaults, 50 s with --slow.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

n=${N:-12}
run_args=${RUN_ARGS:--s 32M -r 4k,64k -n 5}
dir=target/false-alarms
load=false
slow=
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --load) load=true; shift ;;
    --slow) slow=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "false-alarms: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
case $slow in
  '') ;;
  maxio | nodelalloc) ;;
  *) echo "false-alarms: --slow takes maxio or nodelalloc, not $slow" >&2; exit 2 ;;
esac
if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ]; then
  echo "false-alarms: N must be 2 or more" >&2
  exit 2
fi
if [ -n "$slow" ] && [ "$(id -u)" != 0 ]; then
  echo "false-alarms: --slow mounts a loop device: run as root" >&2
  exit 2
fi

if [ -z "${IOZONE:-}" ]; then
  cargo build --release --quiet --bin iozone
fi
iozone=$(realpath "${IOZONE:-target/release/iozone}")

mkdir -p "$dir"
dir=$(realpath "$dir")
if mountpoint -q "$dir/mnt"; then
  echo "false-alarms: $dir/mnt is still mounted (an earlier run killed hard?): umount it and detach its loop device" >&2
  exit 2
fi
rm -rf "$dir/cmp" "$dir/dbs" "$dir/io" "$dir/runs.db" "$dir/runs.db-wal" "$dir/runs.db-shm" \
  "$dir/export.json" "$dir/run.log" "$dir/slow.img" "$dir/load-src.bin" "$dir/load.count"
mkdir -p "$dir/cmp" "$dir/dbs" "$dir/io"
db=$dir/runs.db
io=$dir/io   # where iozone measures (and the load writes)

load_pid='' mnt=''
start_load() {
  if [ ! -e "$dir/load-src.bin" ]; then
    head -c 200M /dev/urandom >"$dir/load-src.bin"
  fi
  # its own session (process group), so cleanup can stop the loop and its dd at once
  # shellcheck disable=SC2016  # expanded by the inner bash
  setsid bash -c '
    while :; do
      sleep "$((RANDOM % 6)).$((RANDOM % 10))"
      dd if="$1" of="$2/load.tmp" bs=1M conv=fsync status=none
      rm -f "$2/load.tmp"
      echo >>"$3"
    done' load "$dir/load-src.bin" "$io" "$dir/load.count" &
  load_pid=$!
  # returns once the loop leads its own process group, so stop_load never misses it
  local _
  for _ in {1..200}; do
    [ "$(ps -o pgid= -p "$load_pid" | tr -d ' ')" = "$load_pid" ] && break
    sleep 0.01
  done
}
stop_load() {
  if [ -n "$load_pid" ]; then
    kill -TERM -- "-$load_pid" 2>/dev/null || kill -TERM "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
    load_pid=''
    rm -f "$io/load.tmp"
  fi
}

cleanup() {
  local status=$?
  set +e
  stop_load
  if [ -n "$mnt" ] && mountpoint -q "$mnt"; then
    umount "$mnt"
  fi
  if [ -n "$slow" ] && [ -e "$dir/slow.img" ]; then
    # every loop device on our image, also one attached just before an interruption;
    # a request size limit set on a loop device outlives the detach: back to the default
    local dev
    for dev in $(losetup -n -O NAME -j "$dir/slow.img"); do
      echo 0 >"/sys/block/${dev#/dev/}/queue/max_sectors_kb"
      losetup -d "$dev"
    done
  fi
  rm -f "$dir/slow.img" "$dir/load-src.bin"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

record_one() { # record_one LABEL I: one run into runs.db, measured in $io
  if [ -t 2 ]; then printf '\r  %s run %d/%d' "$1" "$2" "$n" >&2; fi
  # shellcheck disable=SC2086  # RUN_ARGS is a list of arguments
  if ! "$iozone" --db "$db" run $run_args -d "$io" --label "$1" -q >/dev/null 2>>"$dir/run.log"; then
    tail -n 5 "$dir/run.log" >&2
    exit 1
  fi
}
record() { # record LABEL: N runs into runs.db, measured in $io
  local i
  for ((i = 1; i <= n; i++)); do record_one "$1" "$i"; done
  if [ -t 2 ]; then printf '\r\033[K' >&2; fi
}
if [ -n "$slow" ]; then
  # written out, not sparse: the first runs would otherwise pay for allocating the
  # image's blocks on the disk beneath, and look slower than the later ones
  dd if=/dev/zero of="$dir/slow.img" bs=1M count=1024 conv=fsync status=none
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$dir/slow.img"
  mnt=$dir/mnt
  mkdir -p "$mnt"
  loop_dev=$(losetup --find --show --direct-io=on "$dir/slow.img")
  # the kernel's default request size, whatever an earlier user of this loop device set
  echo 0 >"/sys/block/${loop_dev#/dev/}/queue/max_sectors_kb"
  mount "$loop_dev" "$mnt"
  io=$mnt
fi

slow_on() { # the candidate's setting
  case $slow in
    maxio) echo 32 >"$queue/max_sectors_kb" ;;
    nodelalloc) remount -o nodelalloc ;;
  esac
}
slow_off() { # the baseline's setting
  case $slow in
    maxio) echo 0 >"$queue/max_sectors_kb" ;;
    nodelalloc) remount -o delalloc ;;
  esac
}
remount() { # remount OPTIONS: the load must let go of the filesystem meanwhile
  local loaded=$load_pid
  stop_load
  umount "$mnt"
  mount "$@" "$loop_dev" "$mnt"
  if [ -n "$loaded" ]; then start_load; fi
}

t0=$(date +%s)
if $load; then start_load; fi
slow_what=
if [ -z "$slow" ]; then
  record baseline
else
  queue=/sys/block/${loop_dev#/dev/}/queue
  case $slow in
    maxio) slow_what="$loop_dev's requests capped at 32 KiB (queue/max_sectors_kb $(cat "$queue/max_sectors_kb") -> 32)" ;;
    nodelalloc) slow_what="the loop filesystem remounted -o nodelalloc" ;;
  esac
  # alternated, so a change of the machine's state lands on both sides alike instead of
  # passing for (or hiding) the slowdown
  for ((i = 1; i <= n; i++)); do
    slow_off
    record_one baseline "$i"
    slow_on
    record_one candidate "$i"
  done
  slow_off
  if [ -t 2 ]; then printf '\r\033[K' >&2; fi
fi
t1=$(date +%s)
stop_load
"$iozone" --db "$db" export --format json -o "$dir/export.json" -q

# Databases to compare in, as export documents: dbs/NAME.json; dbs/uuids lists the runs.
python3 - "$dir" "$n" "$slow" <<'PY'
import json, sys
d, n, slow = sys.argv[1], int(sys.argv[2]), sys.argv[3]
doc = json.load(open(f"{d}/export.json"))
runs = sorted(doc["runs"], key=lambda r: (r["started_at"], r["id"]))
base = [r for r in runs if "baseline" in r["labels"] and r["status"] == "complete"]
cand = [r for r in runs if "candidate" in r["labels"] and r["status"] == "complete"]
if len(base) != n or len(cand) != (n if slow else 0):
    sys.exit(f"false-alarms: expected {n} complete runs a side in {d}/export.json, found {len(base)} and {len(cand)}")
def write(name, subset):
    json.dump(dict(doc, runs=subset), open(f"{d}/dbs/{name}.json", "w"))
with open(f"{d}/dbs/uuids", "w") as f:
    for side, rs in (("b", base), ("c", cand)):
        for r in rs:
            print(side, r["uuid"], file=f)
for i in range(len(base)):
    for j in range(i + 1, len(base)):
        write(f"pair-{i+1}-{j+1}", [base[i], base[j]])
if cand:
    write("base", base)
    for i in range(len(base)):
        for j in range(len(cand)):
            write(f"slow-{i+1}-{j+1}", [base[i], cand[j]])
    for j in range(len(cand)):
        write(f"slowhist-{j+1}", base + [cand[j]])
    for g in range(len(cand) // 3):
        write(f"slowgroup-{g+1}", base + cand[3 * g:3 * g + 3])
PY
mapfile -t b < <(awk '$1 == "b" { print "uuid:" $2 }' "$dir/dbs/uuids")
mapfile -t c < <(awk '$1 == "c" { print "uuid:" $2 }' "$dir/dbs/uuids")

compare() { # compare DB OUT BASELINE CANDIDATE
  "$iozone" --db "$1" compare "$3" "$4" --format json >"$2"
}
alone() { # alone DOC OUT BASELINE CANDIDATE: in a fresh database made from DOC
  local tmp=$dir/dbs/tmp.db
  rm -f "$tmp" "$tmp-wal" "$tmp-shm"
  "$iozone" --db "$tmp" import "$1" -q >/dev/null
  compare "$tmp" "$2" "$3" "$4"
  rm -f "$tmp" "$tmp-wal" "$tmp-shm"
}
group() { # group ARRAY-NAME G: the selector pooling runs 3G-2..3G
  local -n runs=$1
  local s=${runs[3 * $2 - 3]},${runs[3 * $2 - 2]},${runs[3 * $2 - 1]}
  echo "$s"
}

mkdir -p "$dir"/cmp/{pairs-alone,pairs-history,groups}
hist_db=$db
if [ -n "$slow" ]; then
  # the false-alarm comparisons see the baseline runs only
  hist_db=$dir/dbs/base.db
  "$iozone" --db "$hist_db" import "$dir/dbs/base.json" -q >/dev/null
fi
for ((i = 1; i <= n; i++)); do
  for ((j = i + 1; j <= n; j++)); do
    alone "$dir/dbs/pair-$i-$j.json" "$dir/cmp/pairs-alone/$i-$j.json" "${b[i - 1]}" "${b[j - 1]}"
    compare "$hist_db" "$dir/cmp/pairs-history/$i-$j.json" "${b[i - 1]}" "${b[j - 1]}"
  done
done
groups=$((n / 3))
for ((g = 1; g <= groups; g++)); do
  for ((h = g + 1; h <= groups; h++)); do
    compare "$hist_db" "$dir/cmp/groups/$g-$h.json" "$(group b "$g")" "$(group b "$h")"
  done
done
if [ -n "$slow" ]; then
  mkdir -p "$dir"/cmp/{slow-alone,slow-history,slow-groups}
  for ((j = 1; j <= n; j++)); do
    hdb=$dir/dbs/slowhist-$j.db
    "$iozone" --db "$hdb" import "$dir/dbs/slowhist-$j.json" -q >/dev/null
    for ((i = 1; i <= n; i++)); do
      alone "$dir/dbs/slow-$i-$j.json" "$dir/cmp/slow-alone/$i-$j.json" "${b[i - 1]}" "${c[j - 1]}"
      compare "$hdb" "$dir/cmp/slow-history/$i-$j.json" "${b[i - 1]}" "${c[j - 1]}"
    done
  done
  for ((h = 1; h <= groups; h++)); do
    gdb=$dir/dbs/slowgroup-$h.db
    "$iozone" --db "$gdb" import "$dir/dbs/slowgroup-$h.json" -q >/dev/null
    for ((g = 1; g <= groups; g++)); do
      compare "$gdb" "$dir/cmp/slow-groups/$g-$h.json" "$(group b "$g")" "$(group c "$h")"
    done
  done
fi
t3=$(date +%s)
rm -rf "$dir/dbs"   # derived from export.json; the comparisons stay in cmp/

fs=$(findmnt -n -o FSTYPE,SOURCE -T "$io" | awk '{ print $1 " on " $2 }')
loaded=no
if $load; then
  loaded=$( (cat "$dir/load.count" 2>/dev/null || true) | wc -l)
fi
python3 - "$dir" "$n" "$run_args" "$slow" "$slow_what" "$loaded" "$fs" "$iozone" \
  "$((t1 - t0))" "$((t3 - t1))" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import collections, glob, json, os, statistics as st, sys

d, n, run_args, slow, slow_what, load, fs, iozone, t_rec, t_cmp, loadavg = sys.argv[1:]
n = int(n)
FLAG = ("regression", "improvement")

def size(b):
    for unit, k in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if b >= 1 << k and b % (1 << k) == 0:
            return f"{b >> k} {unit}"
    return f"{b} B"

def key(row):
    return (row["test"], row["file_size"], row["record_size"])

def name(k):
    return f"{k[0]:<8}{size(k[1]):>8} {size(k[2]):>7}"

def pct(a, b):
    return f"{a}/{b} ({100 * a / b:.1f}%)" if b else f"{a}/0"

def load_cat(cat, want_b, want_c):
    out = []
    for f in sorted(glob.glob(f"{d}/cmp/{cat}/*.json")):
        doc = json.load(open(f))
        got = (len(doc["baseline"]["runs"]), len(doc["candidate"]["runs"]))
        if got != (want_b, want_c):
            sys.exit(f"false-alarms: {f} compares {got[0]} against {got[1]} runs, not {want_b} against {want_c}")
        out.append(doc)
    return out

doc = json.load(open(f"{d}/export.json"))
runs = sorted(doc["runs"], key=lambda r: (r["started_at"], r["id"]))
version = runs[0].get("tool_version", "?") if runs else "?"

def run_medians(rs):
    """row key -> list of per-run medians (bytes/s)"""
    out = collections.defaultdict(list)
    for r in rs:
        per = collections.defaultdict(list)
        for x in r["results"]:
            per[key(x)].append(x["throughput"])
        for k, v in per.items():
            out[k].append(st.median(v))
    return out

def loads(rs):
    xs = [r["state_at_start"]["load_1m"] for r in rs if (r.get("state_at_start") or {}).get("load_1m") is not None]
    return f"{min(xs):.1f}..{max(xs):.1f}" if xs else "not recorded"

base = [r for r in runs if "baseline" in r["labels"]]
cand = [r for r in runs if "candidate" in r["labels"]]

def extras(rows):
    """the newer per-row fields, summarised, when the binary reports them"""
    parts = []
    # "history: 11 runs" and the like: counted by kind, with the range of N
    src, hist = collections.Counter(), []
    for r in rows:
        if r.get("noise_source") is not None:
            kind, _, rest = str(r["noise_source"]).partition(":")
            src[kind] += 1
            if rest.split() and rest.split()[0].isdigit():
                hist.append(int(rest.split()[0]))
    if src:
        span = f" ({min(hist)}..{max(hist)} runs)" if hist else ""
        parts.append("noise_source " + ", ".join(
            f"{k} {v}{span if k == 'history' else ''}" for k, v in src.most_common()))
    for field in ("noise_pct", "min_detectable_pct"):
        xs = [r[field] for r in rows if r.get(field) is not None]
        if xs:
            parts.append(f"{field} median {st.median(xs):.1f} ({min(xs):.1f}..{max(xs):.1f})")
    for field in ("runs_baseline", "runs_candidate"):
        xs = [r[field] for r in rows if r.get(field) is not None]
        if xs:
            parts.append(f"{field} {min(xs)}..{max(xs)}" if min(xs) != max(xs) else f"{field} {xs[0]}")
    return "; ".join(parts)

def summary(cmps):
    rows = [r for c in cmps for r in c["rows"]]
    flagged = sum(any(r["verdict"] in FLAG for r in c["rows"]) for c in cmps)
    return flagged, len(cmps), sum(r["verdict"] in FLAG for r in rows), len(rows), rows

where = f"{d}/mnt" if slow else f"{d}/io"
print(f"== iozone compare false alarms: {n} runs of `{run_args}` one after another")
load = "no background load" if load == "no" else f"background load ({load} writes of 200 MB completed)"
print(f"   in {where} ({fs}), {load}; {iozone} ({version})")
print(f"   recorded in {t_rec} s" + (f" ({n} baseline and {n} candidate runs, alternated)" if slow else "")
      + f", compared in {t_cmp} s; load average (1 min) at the runs' starts {loads(runs)}, now {loadavg}")
if slow:
    print(f"   (--slow: these {n} runs are the baseline runs, on the loop filesystem before the slowdown)")

g = n // 3
npairs = n * (n - 1) // 2
cats = [
    ("pairs-alone", f"alone (a database of the 2 runs)", 1, 1),
    ("pairs-history", f"with history (the {n}-run database)", 1, 1),
    ("groups", f"3v3 (the {n}-run database)", 3, 3),
]
res = {}
print()
print(f"Every pair of single runs i<j ({npairs} comparisons); groups of 3 consecutive runs ({g} group{'s' if g != 1 else ''}, "
      f"{g * (g - 1) // 2} comparison{'' if g * (g - 1) // 2 == 1 else 's'}"
      f"{'' if n % 3 == 0 else f', the last {n % 3} run(s) left out'})")
print(f"  {'':<36}{'comparisons flagged':>22}{'rows flagged':>22}")
for cat, label, wb, wc in cats:
    res[cat] = summary(load_cat(cat, wb, wc))
    f, t, rf, rt, rows = res[cat]
    print(f"  {label:<36}{pct(f, t):>22}{pct(rf, rt):>22}")
if any(extras(res[cat][4]) for cat, *_ in cats):
    for cat, label, _, _ in cats:
        print(f"  {label.split(' (')[0]}: {extras(res[cat][4]) or '-'}")
else:
    print("  (rows carry no noise_source, noise_pct, min_detectable_pct, runs_baseline/runs_candidate: not in this binary)")

keys = sorted({key(r) for cat, *_ in cats for r in res[cat][4]})
if keys:
    print("Flagged rows per row (regressions+improvements) and the changes flagged:")
    print(f"  {'':<25}{'alone':>8}{'history':>9}{'3v3':>7}   change of flagged rows (alone)")
    for k in keys:
        cells, changes = [], []
        for cat, *_ in cats:
            rows = [r for r in res[cat][4] if key(r) == k]
            reg = sum(r["verdict"] == "regression" for r in rows)
            imp = sum(r["verdict"] == "improvement" for r in rows)
            cells.append(f"{reg}+{imp}")
            if cat == "pairs-alone":
                changes = sorted(r["change_pct"] for r in rows if r["verdict"] in FLAG)
        span = f"{changes[0]:+.1f}..{changes[-1]:+.1f}%" if changes else "-"
        print(f"  {name(k):<25}{cells[0]:>8}{cells[1]:>9}{cells[2]:>7}   {span}")

detect = {}
bad_improvements = 0
if slow:
    bm, cm = run_medians(base), run_medians(cand)
    true = {k: st.median(cm[k]) / st.median(bm[k]) - 1 for k in bm if k in cm}
    scats = [("slow-alone", "alone", 1, 1), ("slow-history", "with history", 1, 1), ("slow-groups", "3v3", 3, 3)]
    srows = {cat: summary(load_cat(cat, wb, wc))[4] for cat, _, wb, wc in scats}
    print()
    print(f"== --slow {slow}: candidate runs on the same filesystem, {slow_what}")
    print(f"   {len(base)} baseline and {len(cand)} candidate runs; {len(base) * len(cand)} pairs compared alone "
          f"(a database of the 2 runs) and with history (all baseline runs + that candidate run); "
          f"{g * g} 3v3 (all baseline runs + the 3 candidate runs)")
    print("True change per row = median of candidate runs' medians / median of baseline runs' medians - 1;")
    print("then how many comparisons call the row a regression (R) or an improvement (I):")
    print(f"  {'':<25}{'base MiB/s':>11}{'cand MiB/s':>11}{'true':>8}{'alone R/I':>16}{'history R/I':>16}{'3v3 R/I':>12}")
    for k in sorted(true, key=lambda k: true[k]):
        cells = []
        for cat, *_ in scats:
            rows = [r for r in srows[cat] if key(r) == k]
            reg = sum(r["verdict"] == "regression" for r in rows)
            imp = sum(r["verdict"] == "improvement" for r in rows)
            cells.append(f"{reg}/{imp} of {len(rows)}")
        print(f"  {name(k):<25}{st.median(bm[k]) / 2**20:>11.0f}{st.median(cm[k]) / 2**20:>11.0f}"
              f"{100 * true[k]:>+7.1f}%{cells[0]:>16}{cells[1]:>16}{cells[2]:>12}")
    for cat, label, *_ in scats:
        dropped = [r for r in srows[cat] if key(r) in true and true[key(r)] <= -0.15]
        steady = [r for r in srows[cat] if key(r) in true and abs(true[key(r)]) < 0.05]
        detect[label] = (sum(r["verdict"] == "regression" for r in dropped), len(dropped))
        bad_improvements += sum(r["verdict"] == "improvement" for r in dropped)
        print(f"  {label}: rows with a true drop >= 15% flagged regression {pct(*detect[label])}; "
              f"rows with |true change| < 5% flagged {pct(sum(r['verdict'] in FLAG for r in steady), len(steady))}")
        if extras(srows[cat]):
            print(f"    {extras(srows[cat])}")

print()
new_fields = any("noise_source" in r for cat, *_ in cats for r in res[cat][4])
print("== summary" + ("" if new_fields else " (rows carry no noise_source: the statistics before the rewrite)"))
print(f"false alarms, single-run comparisons alone:        {pct(*res['pairs-alone'][:2])}")
print(f"false alarms, single-run comparisons with history: {pct(*res['pairs-history'][:2])}")
print(f"false alarms, 3v3 comparisons:                     {pct(*res['groups'][:2])}")
if slow:
    print(f"rows with a true drop >= 15% flagged regression ({slow}): alone {pct(*detect['alone'])}, "
          f"with history {pct(*detect['with history'])}, 3v3 {pct(*detect['3v3'])}")
    print(f"improvement verdicts on rows with a true drop >= 15%: {bad_improvements} (must be 0)")
PY
