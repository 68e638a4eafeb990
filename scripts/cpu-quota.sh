#!/usr/bin/env bash
# Does `iozone compare` see a real slowdown once the history holds it? The
# scenario: runs before, then runs slowed by a CPU quota, on one series.
#
#   [N=6] [RUN_ARGS="-s 32M -r 4k,64k -n 5"] [QUOTA=1400] [PERIOD=2000] [IOZONE=BIN] \
#     scripts/cpu-quota.sh [--dir DIR] [--order blocks|alternated]
#   N=2 RUN_ARGS="-s 1M -r 64k -n 3" scripts/cpu-quota.sh      (a quick try)
#
# Root: the slowed runs are started inside a cgroup whose CPU time is capped at QUOTA
# microseconds per PERIOD (default 1400 of 2000, 70% of one CPU: cgroup v2's cpu.max,
# or v1's cpu.cfs_quota_us and cpu.cfs_period_us), which page-cache-bound rows feel
# and the environment diff does not see. N runs `iozone run $RUN_ARGS -l pre` and N
# `-l post` (slowed) are recorded into DIR/runs.db, measuring in DIR/io (DIR defaults
# to target/cpu-quota, on the checkout's disk): all pre runs then all post runs
# (--order blocks, the default), or pre, post, pre, post… (--order alternated). Then,
# in that database (every run present, as a user has it a week later):
#   - the last pre run against the last post run, and against the first post run;
#   - every pre run against every post run (N×N pairs);
#   - three against three: the first and last three pre runs against the first and
#     last three post runs (N ≥ 6).
# Per row: the true change (median of the post runs' medians over the pre runs'), each
# segment's run-to-run deviation (the standard deviation of the log run medians of the
# pre runs and of the post runs, pooled, as a percentage), and how each kind of
# comparison called it. The rates asked of it: single runs flag at least 60% of
# the rows whose true change is a drop of 15% or more and at least 4 times their
# deviation; three against three at least 90% of those of 15% or more and 3 times; no
# slowed row (true drop of 5% or more) is ever called an improvement.
#
# Left in DIR: runs.db, export.json, run.log (iozone's stderr), cmp/*.json (every
# comparison). The binary is ${IOZONE:-target/release/iozone}, built with cargo when
# IOZONE is not set. A measurement, not a test: exits 0 whatever the rates. The cgroup
# is removed on exit, error or Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

n=${N:-6}
run_args=${RUN_ARGS:--s 32M -r 4k,64k -n 5}
quota=${QUOTA:-1400}
period=${PERIOD:-2000}
dir=target/cpu-quota
order=blocks
while [ $# -gt 0 ]; do
  case $1 in
    --dir) dir=$2; shift 2 ;;
    --order) order=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "cpu-quota: unknown argument $1" >&2; usage >&2; exit 2 ;;
  esac
done
case $order in
  blocks | alternated) ;;
  *) echo "cpu-quota: --order takes blocks or alternated, not $order" >&2; exit 2 ;;
esac
if ! [[ $n =~ ^[0-9]+$ ]] || [ "$n" -lt 2 ]; then
  echo "cpu-quota: N must be 2 or more" >&2
  exit 2
fi
if ! [[ $quota =~ ^[0-9]+$ && $period =~ ^[0-9]+$ ]] || [ "$quota" -lt 1000 ] || [ "$period" -lt "$quota" ]; then
  echo "cpu-quota: QUOTA (at least 1000) and PERIOD (at least QUOTA) are microseconds" >&2
  exit 2
fi
if [ "$(id -u)" != 0 ]; then
  echo "cpu-quota: a CPU quota needs a cgroup of its own: run as root" >&2
  exit 2
fi

if [ -z "${IOZONE:-}" ]; then
  cargo build --release --quiet --bin iozone
fi
iozone=$(realpath "${IOZONE:-target/release/iozone}")

mkdir -p "$dir"
dir=$(realpath "$dir")
rm -rf "$dir/cmp" "$dir/io" "$dir/runs.db" "$dir/runs.db-wal" "$dir/runs.db-shm" \
  "$dir/export.json" "$dir/run.log"
mkdir -p "$dir/cmp" "$dir/io"
db=$dir/runs.db

# the cgroup: v2 where the unified hierarchy has the cpu controller, else v1's cpu one
cgroup=''
if [ -e /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  cgroup=/sys/fs/cgroup/iozone-cpu-quota-$$
  grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control || echo +cpu >/sys/fs/cgroup/cgroup.subtree_control
  mkdir "$cgroup"
  echo "$quota $period" >"$cgroup/cpu.max"
  limit="cgroup v2 cpu.max $quota $period"
elif [ -d /sys/fs/cgroup/cpu ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
  cgroup=/sys/fs/cgroup/cpu/iozone-cpu-quota-$$
  mkdir "$cgroup"
  echo "$period" >"$cgroup/cpu.cfs_period_us"
  echo "$quota" >"$cgroup/cpu.cfs_quota_us"
  limit="cgroup v1 cpu.cfs_quota_us $quota of cpu.cfs_period_us $period"
else
  echo "cpu-quota: no cgroup cpu controller found (v2 cpu.max or v1 cpu.cfs_quota_us)" >&2
  exit 2
fi
cleanup() {
  local status=$?
  # the slowed runs have ended: an empty cgroup is removed
  if [ -n "$cgroup" ] && [ -d "$cgroup" ]; then rmdir "$cgroup" 2>/dev/null || true; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

record_one() { # record_one LABEL I [slowed]: one run into runs.db, measured in DIR/io
  if [ -t 2 ]; then printf '\r  %s run %d/%d' "$1" "$2" "$n" >&2; fi
  local -a cmd=("$iozone" --db "$db" run)
  # shellcheck disable=SC2206  # RUN_ARGS is a list of arguments
  cmd+=($run_args -d "$dir/io" --label "$1" -q)
  if [ "${3:-}" = slowed ]; then
    # the shell joins the cgroup, then becomes iozone: the quota holds from its start
    # shellcheck disable=SC2016  # expanded by the inner sh
    cmd=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cgroup" "${cmd[@]}")
  fi
  if ! "${cmd[@]}" >/dev/null 2>>"$dir/run.log"; then
    tail -n 5 "$dir/run.log" >&2
    exit 1
  fi
}

t0=$(date +%s)
if [ "$order" = blocks ]; then
  for ((i = 1; i <= n; i++)); do record_one pre "$i"; done
  for ((i = 1; i <= n; i++)); do record_one post "$i" slowed; done
else
  for ((i = 1; i <= n; i++)); do
    record_one pre "$i"
    record_one post "$i" slowed
  done
fi
if [ -t 2 ]; then printf '\r\033[K' >&2; fi
t1=$(date +%s)
"$iozone" --db "$db" export --format json -o "$dir/export.json" -q

mapfile -t pre < <(python3 - "$dir/export.json" pre <<'PY'
import json, sys
runs = sorted(json.load(open(sys.argv[1]))["runs"], key=lambda r: (r["started_at"], r["id"]))
print("\n".join(str(r["id"]) for r in runs if sys.argv[2] in r["labels"]))
PY
)
mapfile -t post < <(python3 - "$dir/export.json" post <<'PY'
import json, sys
runs = sorted(json.load(open(sys.argv[1]))["runs"], key=lambda r: (r["started_at"], r["id"]))
print("\n".join(str(r["id"]) for r in runs if sys.argv[2] in r["labels"]))
PY
)
if [ "${#pre[@]}" != "$n" ] || [ "${#post[@]}" != "$n" ]; then
  echo "cpu-quota: expected $n runs a side in $dir/export.json, found ${#pre[@]} and ${#post[@]}" >&2
  exit 1
fi

compare() { # compare OUT BASELINE CANDIDATE
  "$iozone" --db "$db" compare "$2" "$3" --format json >"$dir/cmp/$1.json"
}
join() { local IFS=,; echo "$*"; }
compare "last-last" "${pre[n - 1]}" "${post[n - 1]}"
compare "last-first" "${pre[n - 1]}" "${post[0]}"
for ((i = 0; i < n; i++)); do
  for ((j = 0; j < n; j++)); do
    compare "pair-$((i + 1))-$((j + 1))" "${pre[i]}" "${post[j]}"
  done
done
if [ "$n" -ge 6 ]; then
  for g in first last; do
    for h in first last; do
      if [ $g = first ]; then b=$(join "${pre[@]:0:3}"); else b=$(join "${pre[@]: -3}"); fi
      if [ $h = first ]; then c=$(join "${post[@]:0:3}"); else c=$(join "${post[@]: -3}"); fi
      compare "group-$g-$h" "$b" "$c"
    done
  done
fi
t2=$(date +%s)

python3 - "$dir" "$n" "$run_args" "$order" "$limit" "$iozone" "$((t1 - t0))" "$((t2 - t1))" <<'PY'
import collections, glob, json, math, os, statistics as st, sys

d, n, run_args, order, limit, iozone, t_rec, t_cmp = sys.argv[1:]
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
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else f"{a}/0"

doc = json.load(open(f"{d}/export.json"))
runs = sorted(doc["runs"], key=lambda r: (r["started_at"], r["id"]))
version = runs[0].get("tool_version", "?") if runs else "?"

def run_medians(rs):
    """row key -> the runs' medians (bytes/s), in time order"""
    out = collections.defaultdict(list)
    for r in rs:
        per = collections.defaultdict(list)
        for x in r["results"]:
            per[key(x)].append(x["throughput"])
        for k, v in per.items():
            out[k].append(st.median(v))
    return out

pre = run_medians([r for r in runs if "pre" in r["labels"]])
post = run_medians([r for r in runs if "post" in r["labels"]])
true, dev = {}, {}
for k in pre:
    if k not in post:
        continue
    true[k] = st.median(post[k]) / st.median(pre[k]) - 1
    # each segment's spread of its run medians (log scale), pooled
    ss = sum(sum((math.log(x) - st.mean(map(math.log, s))) ** 2 for x in s) for s in (pre[k], post[k]))
    dev[k] = math.expm1(math.sqrt(ss / (len(pre[k]) + len(post[k]) - 2)))

def rows_of(pattern):
    out = []
    for f in sorted(glob.glob(f"{d}/cmp/{pattern}.json")):
        out.extend(json.load(open(f))["rows"])
    return out

kinds = [
    ("last pre vs last post", "last-last", 4),
    ("last pre vs first post", "last-first", 4),
    (f"every pre vs every post ({n * n} pairs)", "pair-*", 4),
    ("3 against 3 (4 comparisons)", "group-*", 3),
]
print(f"== iozone compare against a CPU quota: {n} runs `-l pre`, {n} `-l post` slowed ({order})")
print(f"   `{run_args}` in {d}/io; {limit}; {iozone} ({version})")
print(f"   recorded in {t_rec} s, compared in {t_cmp} s")
print()
print("Per row: the true change (median of the post runs' medians over the pre runs'), the")
print("run-to-run deviation within the segments (pre and post runs, pooled), and how often")
print("each comparison called the row a regression (R) or an improvement (I):")
header = f"  {'':<25}{'true':>8}{'dev':>7}" + "".join(f"{label.split(' (')[0][:22]:>24}" for label, *_ in kinds)
print(header)
for k in sorted(true, key=lambda k: true[k]):
    cells = []
    for _, pattern, _ in kinds:
        rows = [r for r in rows_of(pattern) if key(r) == k]
        reg = sum(r["verdict"] == "regression" for r in rows)
        imp = sum(r["verdict"] == "improvement" for r in rows)
        cells.append(f"{reg}R {imp}I of {len(rows)}")
    print(f"  {name(k):<25}{100 * true[k]:>+7.1f}%{100 * dev[k]:>6.1f}%" + "".join(f"{c:>24}" for c in cells))
print()
wrong = 0
verdicts = []
for label, pattern, times in kinds:
    rows = [r for r in rows_of(pattern) if key(r) in true]
    if not rows:
        continue
    big = [r for r in rows if true[key(r)] <= -0.15 and -true[key(r)] >= times * dev[key(r)]]
    found = sum(r["verdict"] == "regression" for r in big)
    slowed = [r for r in rows if true[key(r)] <= -0.05]
    wrong += sum(r["verdict"] == "improvement" for r in slowed)
    want = 0.9 if times == 3 else 0.6
    ok = "ok" if big and found >= want * len(big) else ("-" if not big else "BELOW")
    verdicts.append(ok)
    sources = collections.Counter(str(r.get("noise_source", "")).split(" since")[0] for r in rows)
    print(f"{label}: rows with a true drop >= 15% and >= {times}x their deviation flagged regression "
          f"{pct(found, len(big))} (asked: {100 * want:.0f}%) {ok}")
    print(f"    noise_source: {', '.join(f'{s} {c}' for s, c in sources.most_common())}")
print(f"improvement verdicts on slowed rows (true drop >= 5%): {wrong} (must be 0)")
PY
