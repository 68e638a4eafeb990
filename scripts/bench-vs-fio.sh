#!/usr/bin/env bash
# Runs `iozone run` and fio on the same workloads, alternating, several times, and
# prints each pair's medians and the ratio iozone/fio (of the io_uring rows: the median
# of the rounds' own ratios, each round's runs being next to each other in time): one
# I/O at a time (fio's psync against iozone's posix engine), then queue depth (fio's
# io_uring against iozone's uring engine at the same depth), with the ratio of the two
# medians beside it ("med/med"). Also measures what latency recording costs (at depth 1
# and at depth 32) and whether peak memory grows with the file size.
#
#   [SIZE=256M] [URING_SIZE=64M] [SEQ_SIZE=256M] [BUFFERED_SIZE=1G] [ROWS=REGEX]
#   [FLOOR=ROW] [ROUNDS_LOG=FILE] scripts/bench-vs-fio.sh [DIR] [ROUNDS]
#
# DIR defaults to target/bench-vs-fio (on the filesystem under the checkout); ROUNDS
# defaults to 5. ROWS keeps only the rows whose label it matches (Python regex, e.g.
# ROWS='64k read direct qd4|128k read', ROWS='^psync' or ROWS='psync flush 4096': the
# psync rows are labelled "psync CACHE RECORD", the extra sections "fio vs fio",
# "latency" and "memory"). Needs about 1 GiB free in DIR (BUFFERED_SIZE,
# and the memory check). The io_uring rows, all O_DIRECT, at depth 1, 4, 8 and 32: 4 KiB
# random reads and writes of URING_SIZE files, 64 KiB and 128 KiB sequential reads,
# writes and rewrites of SEQ_SIZE files; then 4 KiB random reads through the page cache
# at depth 32, and fio against itself on the 64 KiB reads at depth 4 (FLOOR names
# another io_uring row, e.g. FLOOR='128k write direct qd32'): how far apart two equal
# tools land here. Target: every io_uring row at >= 0.95 of fio. ROUNDS_LOG appends each
# io_uring row's rounds to FILE, a JSON line a row (its label, the time, and each side's
# MiB/s round by round), so rounds of several executions can be pooled.
#
# What each side reads: a file laid out the same way on both sides. iozone's read and
# random tests read the file of their untimed fill, written through the page cache in
# the record size and synced; fio reads a file its fill job wrote the same way (buffered
# writes of the record size and --end_fsync=1), so the filesystem's delayed allocation
# places both, and the page cache holds both in folios of the same size: with large
# folios (ext4 on the kernel of 12-04) a buffered write makes folios as large as itself,
# and fio's 4 KiB random reads at depth 32 of a cached file it had filled in 1 MiB
# writes ran at 3131-3160 MiB/s, of one filled in 4 KiB writes at 2456-2566 (three
# rounds each, alternated; iozone's between them 2758-2914). Neither reads a
# file an O_DIRECT pass laid out (iozone's own write test, or fio filling with 4 MiB
# direct writes), whose extents depend on the order writes completed. The write rows
# both write a new file (fio: --fallocate=none): each write extends it, and ext4 waits
# for an extending direct write before the next (iomap's FORCE_WAIT, the inode locked),
# so at any depth they are one write at a time, on both sides alike. The rewrite rows
# write over the file the first pass wrote (iozone's rewrite; fio's --overwrite=1, its
# file laid out first): the writes a queue can overlap.
#
# Memory: iozone's buffers longer than a page are in transparent huge pages, fio's (its
# default --mem=malloc) in 4 KiB pages; on a virtio disk without indirect descriptors
# a record in scattered pages is one segment per page, and this VM's disk serves such
# a 64 KiB read in twice the time (docs/benchmarks.md). So for records above 4 KiB a third side runs fio with
# --mem=shmhuge, its buffers in huge pages too, shown as "fio huge" with iozone's ratio
# to it (no target: the reference for the engines alone). Run as root, the script
# reserves the huge pages it needs (/proc/sys/vm/nr_hugepages) and gives them back at
# the end; otherwise that column shows "-".
#
# The io_uring rounds alternate who goes first (iozone, fio, fio, iozone, ...; with
# three sides each one in turn), and a round in which other processes moved more than
# 5% as many bytes on DIR's device as the tool measured (8 MiB at least;
# /proc/diskstats) is run again, up to 3 times: a benchmark that shares the disk
# measures the sharing. Every row ends with the load average when it finished.
#
# File sizes: fio times a job in whole milliseconds (its JSON's `runtime`, and
# `bw_bytes` from it), so a job of a few tens of milliseconds reads as faster than it
# was by up to a millisecond's share: every round of a 64 MiB buffered random read at
# depth 32 came out at 3555.6 MiB/s (64 MiB in 18 ms) on 12-04, and the 256 MiB
# buffered psync reads of 64 KiB at 8258.1 MiB/s (31 ms). So the rows that read or
# write through the page cache (psync buffered, and the io_uring buffered row) use
# BUFFERED_SIZE files, which take a quarter of a second or more at those speeds.
#
# Buffers through the page cache: iozone's start on a page, as iozone3's do (and as
# O_DIRECT needs), where fio's default memory is malloc's, 16 bytes past one. On the
# CPU of 12-04 (with FSRM) the kernel copied cached 64 KiB and 4 KiB records into a
# buffer on a 64-byte boundary about 8% more slowly than into one off it (medians; 512 B
# records 6% faster aligned), with the same read(2) loop in C (scripts/copy-alignment.sh,
# docs/benchmarks.md). That is the CPU's copy, not either engine, so wherever the kernel
# copies (psync, and the io_uring buffered row) fio's buffers start on a page too
# (--mem_align=4096).
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

exec python3 - "$dir" "$rounds" "$size" "${URING_SIZE:-64M}" "${SEQ_SIZE:-256M}" "${ROWS:-}" \
  "${BUFFERED_SIZE:-1G}" "${ROUNDS_LOG:-}" <<'PY'
import atexit, json, os, re, statistics, subprocess, sys, time

dir, rounds, size, uring_size, seq_size, rows, buffered_size, rounds_log = sys.argv[1:9]
rounds = int(rounds)

def wanted(label):
    return re.search(rows, label) is not None
iozone = os.path.abspath("target/release/iozone")
fio_file = os.path.join(dir, "fio.tmp")
MiB = 1 << 20

def psync_size(cache):
    return buffered_size if cache == "buffered" else size

def iozone_run(record, cache, extra=()):
    out = subprocess.run(
        [iozone, "run", "-s", psync_size(cache), "-r", str(record), "-i", "write,read", "-n", "1",
         "--cache", cache, "-d", dir, "-q", "--format", "json", *extra],
        check=True, capture_output=True, text=True).stdout
    results = json.loads(out)["results"]
    return {r["test"]: r["throughput"] / MiB for r in results}

def fio_job(rw, record, cache):
    args = ["fio", "--name=" + rw, "--filename=" + fio_file, "--rw=" + rw,
            "--bs=" + str(record), "--size=" + psync_size(cache), "--ioengine=psync",
            "--fallocate=none", "--output-format=json", "--mem_align=4096"]
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

def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])

def target(record, cache):
    return 1.3 if record == 512 and cache == "buffered" else 1.0

psync = [(c, r) for c in ["buffered", "flush"] for r in [512, 4096, 65536] if wanted(f"psync {c} {r}")]
if psync:
    print(f"iozone vs fio (psync), {size} file ({buffered_size} buffered), {rounds} alternating "
          f"rounds, MiB/s medians, in {dir}, "
          f"load {load()} at {time.strftime('%H:%M')}")
    print(f"{'cache':<9}{'record':>7}  {'test':<6}{'iozone':>9}{'fio':>9}{'ratio':>7}{'target':>8}  "
          f"verdict  iozone range / fio range   load")
misses = 0
for cache, record in psync:
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
              f"{'ok  ' if ok else 'MISS'}     {spread:<26}{load()}", flush=True)

def bytes_of(text):
    return int(text[:-1]) << {"K": 10, "M": 20, "G": 30}[text[-1]]

def device_of(path):
    """The /proc/diskstats name of the device holding `path`, or None (a memory fs)."""
    st = os.stat(path)
    major, minor = os.major(st.st_dev), os.minor(st.st_dev)
    for line in open("/proc/diskstats"):
        f = line.split()
        if int(f[0]) == major and int(f[1]) == minor:
            return f[2]
    return None

device = device_of(dir)

def device_bytes():
    """Bytes read and written on DIR's device so far, by every process."""
    if device is None:
        return 0
    for line in open("/proc/diskstats"):
        f = line.split()
        if f[2] == device:
            return (int(f[5]) + int(f[9])) * 512
    return 0

def measured(run, own):
    """run()'s figure, and the bytes other processes moved on the device meanwhile:
    all the device moved, less the `own` bytes the tool moves itself."""
    before = device_bytes()
    figure = run()
    return figure, max(0, device_bytes() - before - own)

def shared(foreign, own):
    return device is not None and foreign > max(8 << 20, own // 20)

def iozone_uring(test, record, depth, cache, file_size, extra=()):
    # a rewrite is the second pass of the write test, over the file the first wrote
    run_test = "write" if test == "rewrite" else test
    out = subprocess.run(
        [iozone, "run", "-s", file_size, "-r", str(record), "-i", run_test, "-n", "1",
         "--warmup", "0", "--engine", "uring", "--iodepth", str(depth), "--cache", cache,
         "-d", dir, "-q", "--format", "json", "--no-record", *extra],
        check=True, capture_output=True, text=True).stdout
    results = json.loads(out)["results"]
    return next(r for r in results if r["test"] == test)["throughput"] / MiB

def iozone_own(test, file_size):
    # read and write are followed by reread and rewrite; a test that reads is preceded
    # by the untimed fill
    phases = 2 if test in ("read", "write", "rewrite") else 1
    return bytes_of(file_size) * (phases + (test != "write"))

def fio_fill(file_size, record):
    if os.path.exists(fio_file):
        os.remove(fio_file)
    subprocess.run(["fio", "--name=fill", "--filename=" + fio_file, "--rw=write",
                    "--bs=" + str(record), "--size=" + file_size, "--end_fsync=1",
                    "--output-format=json"], check=True, capture_output=True)

def fio_uring(rw, record, depth, direct, file_size, extra=()):
    # iozone's write test makes a new file; its random and read tests run on a file its
    # untimed fill wrote through the page cache: fio's too, so its random writes
    # overwrite allocated blocks instead of filling a sparse file, and its buffered
    # reads find the pages as warm as ours
    if os.path.exists(fio_file):
        os.remove(fio_file)
    if rw != "write" or "--overwrite=1" in extra:
        fio_fill(file_size, record)
    args = ["fio", "--name=" + rw, "--filename=" + fio_file, "--rw=" + rw,
            "--bs=" + str(record), "--size=" + file_size, "--ioengine=io_uring",
            "--iodepth=" + str(depth), "--direct=" + ("1" if direct else "0"),
            "--fallocate=none", "--output-format=json", *extra]
    if not direct:
        args.append("--invalidate=0")   # buffered reads from the page cache, as ours
        args.append("--mem_align=4096")  # the buffers on a page, as ours (above)
    job = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    os.remove(fio_file)
    key = "write" if "write" in rw else "read"
    return job["jobs"][0][key]["bw_bytes"] / MiB

def fio_own(rw, file_size, overwrite=False):
    return bytes_of(file_size) * (1 + (rw != "write" or overwrite))

def fio_side(rw, test, record, depth, direct, file_size, extra=()):
    """fio's side of an io_uring row: its run, and the bytes it moves. A rewrite is fio's
    overwrite: its file laid out first (untimed), as our rewrite's."""
    over = ["--overwrite=1"] if test == "rewrite" else []
    return (lambda: fio_uring(rw, record, depth, direct, file_size, [*extra, *over]),
            fio_own(rw, file_size, bool(over)))

def alternated(*sides):
    """`rounds` rounds of every side (a run and the bytes it moves), who goes first
    taking turns (two sides: iozone, fio, fio, iozone, ...), each round run again (up
    to 3 times) while any side shared the device; returns each side's figures, the
    rounds run again, and how many still shared the device."""
    figures, again, still = [[] for _ in sides], 0, 0
    for i in range(rounds):
        turn = i % len(sides)
        order = list(range(turn, len(sides))) + list(range(turn))
        for attempt in range(4):
            got = {k: measured(sides[k][0], sides[k][1]) for k in order}
            busy = any(shared(got[k][1], sides[k][1]) for k in order)
            if not busy or attempt == 3:
                break
            again += 1
        still += busy
        for k, figure in enumerate(figures):
            figure.append(got[k][0])
    return (*figures, again, still)

print()
print(f"iozone (uring) vs fio (io_uring), same depth, {rounds} alternated rounds, "
      f"load {load()} at {time.strftime('%H:%M')}")
print(f"{'workload':<28}{'iozone':>9}{'fio':>9}{'ratio':>7}{'med/med':>8}{'target':>8}  verdict  "
      f"iozone range / fio range    {'fio huge':>9}{'ratio':>7}  {'again':<13}load")

URING = []  # label, fio rw, iozone test, record, depth, direct, file size
for depth in [1, 4, 8, 32]:
    URING += [
        (f"4k randread direct qd{depth}", "randread", "random_read", 4096, depth, True, uring_size),
        (f"4k randwrite direct qd{depth}", "randwrite", "random_write", 4096, depth, True, uring_size),
        (f"64k read direct qd{depth}", "read", "read", 65536, depth, True, seq_size),
        (f"64k write direct qd{depth}", "write", "write", 65536, depth, True, seq_size),
        (f"128k read direct qd{depth}", "read", "read", 131072, depth, True, seq_size),
        (f"128k write direct qd{depth}", "write", "write", 131072, depth, True, seq_size),
        (f"64k rewrite direct qd{depth}", "write", "rewrite", 65536, depth, True, seq_size),
        (f"128k rewrite direct qd{depth}", "write", "rewrite", 131072, depth, True, seq_size),
    ]
URING.append(("4k randread buffered qd32", "randread", "random_read", 4096, 32, False, buffered_size))

def paired(ours, theirs):
    """The median of the rounds' own ratios: each round's two runs are next to each
    other in time, so a drift of the device between rounds (which moved fio against
    itself by 0.75..1.17 between executions) divides out instead of landing in one
    side's median."""
    return statistics.median(o / t for o, t in zip(ours, theirs))

def logged(label, ours, theirs, huge):
    if rounds_log:
        with open(rounds_log, "a") as log:
            row = {"label": label, "at": time.strftime("%Y-%m-%dT%H:%M:%S"), "iozone": ours,
                   "fio": theirs, "fio_huge": huge}
            log.write(json.dumps(row) + "\n")

def report(label, ours, theirs, huge, again, still, want):
    logged(label, ours, theirs, huge)
    o, f = statistics.median(ours), statistics.median(theirs)
    ratio = paired(ours, theirs)
    verdict = "    " if want is None else "ok  " if ratio >= want else "MISS"
    target = "" if want is None else f"{want:.2f}"
    spread = f"{min(ours):.0f}..{max(ours):.0f} / {min(theirs):.0f}..{max(theirs):.0f}"
    h = f"{statistics.median(huge):>9.1f}{paired(ours, huge):>7.2f}" if huge else f"{'-':>9}{'-':>7}"
    flag = f"{again}" + (f" ({still} shared)" if still else "")
    print(f"{label:<28}{o:>9.1f}{f:>9.1f}{ratio:>7.2f}{o / f:>8.2f}{target:>8}  {verdict}     "
          f"{spread:<26}{h}  {flag:<13}{load()}", flush=True)
    return verdict == "MISS"

def huge_pages(pages):
    """Reserves at least `pages` huge pages for fio's --mem=shmhuge and gives them back
    at exit; False where that is not possible (not root, no hugetlbfs, no memory)."""
    knob = "/proc/sys/vm/nr_hugepages"
    try:
        before = int(open(knob).read())
        if before < pages:
            open(knob, "w").write(str(pages))
            atexit.register(lambda: open(knob, "w").write(str(before)))
        return int(open(knob).read()) >= pages
    except OSError:
        return False

# fio's buffers for a job (depth x record, 4 MiB at most) and its shared memory fit
# in far fewer; shmhuge rounds each up to whole 2 MiB pages
huge = any(wanted(row[0]) and row[3] > 4096 for row in URING) and huge_pages(16)

for label, rw, test, record, depth, direct, file_size in URING:
    if not wanted(label):
        continue
    cache = "direct" if direct else "buffered"
    ours = (lambda: iozone_uring(test, record, depth, cache, file_size),
            iozone_own(test, file_size))
    theirs = fio_side(rw, test, record, depth, direct, file_size)
    if huge and record > 4096:
        in_huge = fio_side(rw, test, record, depth, direct, file_size, ["--mem=shmhuge"])
        a, b, c, again, still = alternated(ours, theirs, in_huge)
    else:
        (a, b, again, still), c = alternated(ours, theirs), None
    misses += report(label, a, b, c, again, still, 0.95)

# the noise floor: fio against itself, the same way, on the row FLOOR names
floor = os.environ.get("FLOOR", "64k read direct qd4")
if wanted("fio vs fio"):
    rows_named = [row for row in URING if row[0] == floor]
    if not rows_named:
        sys.exit(f"FLOOR={floor!r} names no io_uring row")
    side = fio_side(*rows_named[0][1:])
    a, b, again, still = alternated(side, side)
    report(f"fio vs fio, {floor}", a, b, None, again, still, None)

def taking_turns(i):
    """Whether round `i`'s first run records latency, then its second: who goes first
    takes turns, as in the rows above, so that what a run leaves behind (its file's
    deletion, writeback) falls on each side alike."""
    return [i % 2 == 0, i % 2 == 1]

def without(latency):
    return [] if latency else ["--no-latency"]

if wanted("latency"):
    print()
    print("latency recording cost, 4 KiB random reads direct at depth 32 (per completion / without)")
    on, off = [], []
    for i in range(rounds):
        for latency in taking_turns(i):
            (on if latency else off).append(iozone_uring(
                "random_read", 4096, 32, "direct", uring_size, without(latency)))
    o, f = statistics.median(on), statistics.median(off)
    cost = (1 - o / f) * 100
    misses += cost > 3.0
    print(f"  random_read on {o:8.1f}  off {f:8.1f}  cost {cost:+5.1f}%  (target <= 3%)  {'ok' if cost <= 3.0 else 'MISS'}")

    print()
    print("latency recording cost, 512 B buffered (iozone with sampled latency / without)")
    on, off = {"write": [], "read": []}, {"write": [], "read": []}
    for i in range(rounds):
        for latency in taking_turns(i):
            figures = iozone_run(512, "buffered", without(latency))
            for test, side in (on if latency else off).items():
                side.append(figures[test])
    for test in ["write", "read"]:
        o, f = statistics.median(on[test]), statistics.median(off[test])
        cost = (1 - o / f) * 100
        ok = cost <= 3.0
        misses += not ok
        print(f"  {test:<6} on {o:8.1f}  off {f:8.1f}  cost {cost:+5.1f}%  (target <= 3%)  {'ok' if ok else 'MISS'}")

if wanted("memory"):
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
print(f"load {load()} at {time.strftime('%H:%M')}")
print("all targets met" if misses == 0 else f"{misses} target(s) missed")
PY
