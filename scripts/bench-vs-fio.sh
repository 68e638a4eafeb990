#!/usr/bin/env bash
# Runs `iozone run` and fio (psync engine) on the same workloads, alternating, several
# times, and prints each pair's medians and the ratio iozone/fio. Also measures what
# latency recording costs and whether peak memory grows with the file size.
#
#   scripts/bench-vs-fio.sh [DIR] [ROUNDS]
#
# DIR defaults to target/bench-vs-fio (on the filesystem under the checkout); ROUNDS
# defaults to 5. Needs about 300 MiB free in DIR (1 GiB for the memory check).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-target/bench-vs-fio}
rounds=${2:-5}
size=${SIZE:-256M}

if ! command -v fio >/dev/null; then
  echo "installing fio" >&2
  apt-get update -qq && apt-get install -y -qq fio >/dev/null
fi
cargo build --release --quiet
mkdir -p "$dir"

exec python3 - "$dir" "$rounds" "$size" <<'PY'
import json, os, resource, statistics, subprocess, sys

dir, rounds, size = sys.argv[1], int(sys.argv[2]), sys.argv[3]
iozone = os.path.abspath("target/release/iozone")
fio_file = os.path.join(dir, "fio.tmp")
MiB = 1 << 20

def iozone_run(record, cache, extra=()):
    out = subprocess.run(
        [iozone, "run", "-s", size, "-r", str(record), "-i", "write,read", "-n", "1",
         "--cache", cache, "-d", dir, "-q", "--format", "json", *extra],
        check=True, capture_output=True, text=True).stdout
    results = json.loads(out)["results"]
    return {r["test"]: r["throughput"] / MiB for r in results}

def fio_job(rw, record, cache):
    args = ["fio", "--name=" + rw, "--filename=" + fio_file, "--rw=" + rw,
            "--bs=" + str(record), "--size=" + size, "--ioengine=psync",
            "--fallocate=none", "--output-format=json"]
    if rw == "write" and cache == "flush":
        args.append("--end_fsync=1")   # the write's time includes its fsync, as ours
    if rw == "read":
        # flush: evicted before the read, as ours; buffered: warm, as ours
        args.append("--invalidate=" + ("1" if cache == "flush" else "0"))
    job = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    return job["jobs"][0][rw]["bw_bytes"] / MiB

def fio_run(record, cache):
    if os.path.exists(fio_file):
        os.remove(fio_file)   # write creates a new file, as iozone's write test does
    figures = {"write": fio_job("write", record, cache), "read": fio_job("read", record, cache)}
    os.remove(fio_file)
    return figures

def target(record, cache):
    return 1.3 if record == 512 and cache == "buffered" else 1.0

print(f"iozone vs fio (psync), {size} file, {rounds} alternating rounds, MiB/s medians, in {dir}")
print(f"{'cache':<9}{'record':>7}  {'test':<6}{'iozone':>9}{'fio':>9}{'ratio':>7}{'target':>8}  verdict  iozone range / fio range")
misses = 0
for cache in ["buffered", "flush"]:
    for record in [512, 4096, 65536]:
        ours = {"write": [], "read": []}
        theirs = {"write": [], "read": []}
        for _ in range(rounds):
            a = iozone_run(record, cache)
            b = fio_run(record, cache)
            for test in ours:
                ours[test].append(a[test])
                theirs[test].append(b[test])
        for test in ["write", "read"]:
            o, f = statistics.median(ours[test]), statistics.median(theirs[test])
            ratio, want = o / f, target(record, cache)
            ok = ratio >= want
            misses += not ok
            spread = (f"{min(ours[test]):.0f}..{max(ours[test]):.0f} / "
                      f"{min(theirs[test]):.0f}..{max(theirs[test]):.0f}")
            print(f"{cache:<9}{record:>7}  {test:<6}{o:>9.1f}{f:>9.1f}{ratio:>7.2f}{want:>8.2f}  "
                  f"{'ok  ' if ok else 'MISS'}     {spread}")

print()
print("latency recording cost, 512 B buffered (iozone with sampled latency / without)")
on, off = {"write": [], "read": []}, {"write": [], "read": []}
for _ in range(rounds):
    a = iozone_run(512, "buffered")
    b = iozone_run(512, "buffered", ["--no-latency"])
    for test in on:
        on[test].append(a[test])
        off[test].append(b[test])
for test in ["write", "read"]:
    o, f = statistics.median(on[test]), statistics.median(off[test])
    cost = (1 - o / f) * 100
    ok = cost <= 3.0
    misses += not ok
    print(f"  {test:<6} on {o:8.1f}  off {f:8.1f}  cost {cost:+5.1f}%  (target <= 3%)  {'ok' if ok else 'MISS'}")

print()
print("peak memory (max RSS of the iozone process), 4 KiB records, buffered")
def peak_rss(file_size):
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execv(iozone, [iozone, "run", "-s", file_size, "-r", "4k", "-i", "all", "-n", "1",
                          "--cache", "buffered", "-d", dir, "-q"])
    _, status, usage = os.wait4(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, f"iozone failed for {file_size}"
    return usage.ru_maxrss / 1024   # KiB -> MiB
small, large = peak_rss("32M"), peak_rss("1G")
ok = large <= small * 1.05 + 1
misses += not ok
print(f"  32 MiB file: {small:.1f} MiB   1 GiB file: {large:.1f} MiB   {'ok' if ok else 'MISS'}")
print()
print("all targets met" if misses == 0 else f"{misses} target(s) missed")
PY
