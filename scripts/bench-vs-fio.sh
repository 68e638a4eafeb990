#!/usr/bin/env bash
# Runs `iozone run` and fio on the same workloads, alternating, several times, and
# prints each pair's medians and the ratio iozone/fio: one I/O at a time (fio's psync
# against iozone's posix engine), then queue depth (fio's io_uring against iozone's
# uring engine at the same depth). Also measures what latency recording costs (at depth
# 1 and at depth 32) and whether peak memory grows with the file size.
#
#   [SIZE=256M] [URING_SIZE=64M] scripts/bench-vs-fio.sh [DIR] [ROUNDS]
#
# DIR defaults to target/bench-vs-fio (on the filesystem under the checkout); ROUNDS
# defaults to 5. Needs about 300 MiB free in DIR (1 GiB for the memory check). The
# io_uring rows use URING_SIZE files: 4 KiB random O_DIRECT at depth 1 and 8 and 32,
# 128 KiB sequential O_DIRECT at depth 8, 4 KiB random reads through the page cache at
# depth 32.
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

exec python3 - "$dir" "$rounds" "$size" "${URING_SIZE:-64M}" <<'PY'
import json, os, resource, statistics, subprocess, sys

dir, rounds, size, uring_size = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
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
print(f"iozone (uring) vs fio (io_uring), {uring_size} file, same depth, {rounds} alternating rounds")
print(f"{'workload':<28}{'iozone':>9}{'fio':>9}{'ratio':>7}{'target':>8}  verdict  iozone range / fio range")

def iozone_uring(test, record, depth, cache, extra=()):
    out = subprocess.run(
        [iozone, "run", "-s", uring_size, "-r", str(record), "-i", test, "-n", "1",
         "--warmup", "0", "--engine", "uring", "--iodepth", str(depth), "--cache", cache,
         "-d", dir, "-q", "--format", "json", "--no-record", *extra],
        check=True, capture_output=True, text=True).stdout
    return json.loads(out)["results"][0]["throughput"] / MiB

def fio_uring(rw, record, depth, direct):
    # iozone's write test makes a new file; its random and read tests run on a file its
    # untimed fill wrote through the page cache: fio's too, so its random writes
    # overwrite allocated blocks instead of filling a sparse file, and its buffered
    # reads find the pages as warm as ours
    if os.path.exists(fio_file):
        os.remove(fio_file)
    if rw != "write":
        subprocess.run(["fio", "--name=fill", "--filename=" + fio_file, "--rw=write",
                        "--bs=1M", "--size=" + uring_size, "--end_fsync=1",
                        "--output-format=json"], check=True, capture_output=True)
    args = ["fio", "--name=" + rw, "--filename=" + fio_file, "--rw=" + rw,
            "--bs=" + str(record), "--size=" + uring_size, "--ioengine=io_uring",
            "--iodepth=" + str(depth), "--direct=" + ("1" if direct else "0"),
            "--fallocate=none", "--output-format=json"]
    if not direct:
        args.append("--invalidate=0")   # buffered reads from the page cache, as ours
    job = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    os.remove(fio_file)
    key = "write" if "write" in rw else "read"
    return job["jobs"][0][key]["bw_bytes"] / MiB

URING = [  # label, fio rw, iozone test, record, depth, direct
    ("4k randread direct qd1", "randread", "random_read", 4096, 1, True),
    ("4k randread direct qd8", "randread", "random_read", 4096, 8, True),
    ("4k randread direct qd32", "randread", "random_read", 4096, 32, True),
    ("4k randwrite direct qd1", "randwrite", "random_write", 4096, 1, True),
    ("4k randwrite direct qd8", "randwrite", "random_write", 4096, 8, True),
    ("4k randwrite direct qd32", "randwrite", "random_write", 4096, 32, True),
    ("128k read direct qd8", "read", "read", 131072, 8, True),
    ("128k write direct qd8", "write", "write", 131072, 8, True),
    ("4k randread buffered qd32", "randread", "random_read", 4096, 32, False),
]
for label, rw, test, record, depth, direct in URING:
    ours, theirs = [], []
    for _ in range(rounds):
        ours.append(iozone_uring(test, record, depth, "direct" if direct else "buffered"))
        theirs.append(fio_uring(rw, record, depth, direct))
    o, f = statistics.median(ours), statistics.median(theirs)
    ratio = o / f
    # 1.0 is the goal; within 5% of it is within this machine's noise
    verdict = "ok  " if ratio >= 1.0 else "near" if ratio >= 0.95 else "MISS"
    misses += verdict == "MISS"
    print(f"{label:<28}{o:>9.1f}{f:>9.1f}{ratio:>7.2f}{1.0:>8.2f}  {verdict}     "
          f"{min(ours):.0f}..{max(ours):.0f} / {min(theirs):.0f}..{max(theirs):.0f}")

print()
print("latency recording cost, 4 KiB random reads direct at depth 32 (per completion / without)")
on, off = [], []
for _ in range(rounds):
    on.append(iozone_uring("random_read", 4096, 32, "direct"))
    off.append(iozone_uring("random_read", 4096, 32, "direct", ["--no-latency"]))
o, f = statistics.median(on), statistics.median(off)
cost = (1 - o / f) * 100
misses += cost > 3.0
print(f"  random_read on {o:8.1f}  off {f:8.1f}  cost {cost:+5.1f}%  (target <= 3%)  {'ok' if cost <= 3.0 else 'MISS'}")

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
