#!/usr/bin/env bash
# Many clients at once: `iozone run` under mpirun at 1, 2 and 4 ranks ("all done", the
# aggregate: all bytes ÷ (latest end − earliest start)) against iozone3's throughput
# mode (`iozone -t N`: its "Children see" and "Parent sees" figures) and fio
# (`--numjobs=N --group_reporting`), on the same directory, in alternated rounds:
# 64 KiB buffered write and read, and 4 KiB O_DIRECT random reads. Prints each
# figure's median and our ratio to fio's: the verdict is the median of the rounds' own
# ratios (ours over fio's of the same round, run next to each other), the ratio of the
# medians beside it ("med/med"); the target: 0.95 or more. Beside our aggregate, the
# sum of our ranks' own rates ("Σ ranks", what iozone3's "Children see" adds up), and
# under each row every round's ratio. Then what the
# ranks' meetings and gather cost a cell (examples/meeting_cost.rs: the same collectives
# a run uses) and their share of a cell's time at the default sizes (target: under 1%),
# and how far apart the ranks leave a meeting, on the host's monotonic clock.
#
#   [SIZE=512M] [RANDOM_SIZE=64M] [DIRECT_ROUNDS=9] scripts/bench-clients.sh [DIR] [ROUNDS]
#
# DIR defaults to target/bench-clients (on the filesystem under the checkout); ROUNDS
# (of the buffered rows) to 7, DIRECT_ROUNDS (of the direct random reads) to 9. A round
# of a buffered read of 512 MiB takes 40 ms and lands anywhere in ±15% of the median
# with the shared VM's memory bandwidth; a direct round is the device's moment. With
# 3 and 5 rounds compared as medians of each tool, every execution put one row or
# three under 0.95, never the same rows twice, the two tools' rounds overlapping: the
# tools' medians were each one moment. A round's two figures share their moment, so
# their ratio is what the verdict takes. Needs 4 × SIZE free in DIR. SIZE is large because
# fio times a job in whole milliseconds: a buffered read of 32 MiB from the page cache
# takes two. Runs as root (mpirun --allow-run-as-root); installs Open MPI, fio and
# iozone3 (Debian non-free, through a sources entry added for the install and removed
# after) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."

dir=${1:-target/bench-clients}
rounds=${2:-7}
size=${SIZE:-512M}
random_size=${RANDOM_SIZE:-64M}
direct_rounds=${DIRECT_ROUNDS:-9}

missing=()
command -v mpirun >/dev/null || missing+=(openmpi-bin libopenmpi-dev libclang-dev)
command -v fio >/dev/null || missing+=(fio)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v iozone >/dev/null; then
  # iozone3 is in Debian's non-free component: the same archive and keyring as the
  # system's own entry, for this one install
  echo "installing iozone3 (non-free)" >&2
  entry=/etc/apt/sources.list.d/iozone3-non-free.sources
  uris=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  suites=$(awk '/^Suites:/ {$1=""; print; exit}' /etc/apt/sources.list.d/debian.sources)
  keyring=$(awk '/^Signed-By:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  printf 'Types: deb\nURIs: %s\nSuites:%s\nComponents: non-free\nSigned-By: %s\n' \
    "$uris" "$suites" "$keyring" > "$entry"
  trap 'rm -f "$entry"; apt-get update -qq || true' EXIT
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iozone3 >/dev/null
  rm -f "$entry"
  apt-get update -qq
  trap - EXIT
fi

# a target directory of its own: the feature mpi would have the other scripts' build
# (without it) and this one rebuild the crate each time they alternate
cargo build --release --quiet --features mpi --target-dir target/mpi --bin iozone \
  --example meeting_cost
mkdir -p "$dir"

exec python3 - "$dir" "$rounds" "$size" "$random_size" "$direct_rounds" <<'PY'
import glob, json, os, re, statistics, subprocess, sys

dir, rounds, size, random_size, direct_rounds = sys.argv[1:6]
meet_bin = os.path.abspath("target/mpi/release/examples/meeting_cost")
dir, rounds, direct_rounds = os.path.abspath(dir), int(rounds), int(direct_rounds)
iozone = os.path.abspath("target/mpi/release/iozone")
MiB = 1 << 20
# --bind-to none: Open MPI pins each rank to a core by default (at 2 ranks or fewer),
# where fio's jobs and iozone3's children float; pinned, one rank's 4 KiB direct random
# reads ran at 45-51 MiB/s against 58-71 unpinned and 59-63 without mpirun (10:15, quiet)
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe", "--bind-to", "none",
          "-x", "NO_COLOR=1"]

def size_kib(text):
    units = {"k": 1, "m": 1024, "g": 1024 * 1024}
    return int(text[:-1]) * units[text[-1].lower()]

def clean():
    for f in glob.glob(os.path.join(dir, "*")):
        if os.path.isfile(f):
            os.remove(f)

def ours(n, workload):
    """Our aggregate ("all done"), MiB/s, per test of the workload."""
    if workload == "buffered 64k":
        args = ["-s", size, "-r", "64k", "-i", "write,read", "--cache", "buffered"]
        tests = {"write": "write", "read": "read"}
    else:
        args = ["-s", random_size, "-r", "4k", "-i", "random", "--cache", "direct"]
        tests = {"random_read": "random read"}
    out = subprocess.run(
        MPIRUN + ["-np", str(n), iozone, "run", *args, "-n", "1", "--warmup", "0",
                  "--no-record", "-q", "--format", "json", "-d", dir],
        check=True, capture_output=True, text=True).stdout
    run = json.loads(out)
    figures = {tests[r["test"]]: r["throughput"] / MiB
               for r in run["results"] if r["test"] in tests}
    # the sum of the ranks' own rates: iozone3's "Children see", beside its figure (one
    # rank's run has no cluster: its rate is the aggregate)
    for test in list(figures):
        figures[(test, "ranks")] = figures[test]
    for cell in (run.get("cluster") or {}).get("figures", []):
        if cell["test"] in tests:
            figures[(tests[cell["test"]], "ranks")] = sum(
                rank["bytes"] / ((rank["end_ns"] - rank["start_ns"]) / 1e9)
                for rank in cell["ranks"]) / MiB
    return figures

def iozone3(n, workload):
    """iozone3 -t N: "Children see" and "Parent sees", MiB/s, per test."""
    files = [os.path.join(dir, f"iozone3.{i}") for i in range(n)]
    if workload == "buffered 64k":
        args = ["-s", f"{size_kib(size)}k", "-r", "64k", "-i", "0", "-i", "1"]
        names = {"initial writers": "write", "readers": "read"}
    else:
        args = ["-s", f"{size_kib(random_size)}k", "-r", "4k", "-I", "-i", "0", "-i", "2"]
        names = {"random readers": "random read"}
    out = subprocess.run(["iozone", "-t", str(n), *args, "-+n", "-F", *files],
                         check=True, capture_output=True, text=True, cwd=dir,
                         timeout=600).stdout
    figures = {}
    for who in ("Children see", "Parent sees"):
        for name, test in names.items():
            m = re.search(rf"{who} throughput for\s+\d+\s+{name}\s*=\s*([\d.]+) kB/sec", out)
            if m:
                figures[(test, who)] = float(m.group(1)) / 1024
    clean()
    return figures

def fio(n, workload):
    """fio --numjobs=N --group_reporting: MiB/s per test."""
    common = ["fio", "--name=clients", "--directory=" + dir, "--numjobs=" + str(n),
              "--group_reporting", "--ioengine=psync", "--fallocate=none",
              "--output-format=json"]
    def job(rw, bs, size, extra=()):
        out = subprocess.run(common + ["--rw=" + rw, "--bs=" + bs, "--size=" + size, *extra],
                             check=True, capture_output=True, text=True).stdout
        kind = "write" if "write" in rw else "read"
        return json.loads(out)["jobs"][0][kind]["bw_bytes"] / MiB
    if workload == "buffered 64k":
        figures = {"write": job("write", "64k", size),
                   # warm, from the page cache, as ours in buffered mode
                   "read": job("read", "64k", size, ["--invalidate=0"])}
    else:
        figures = {"random read": job("randread", "4k", random_size, ["--direct=1"])}
    clean()
    return figures

load = lambda: os.getloadavg()[0]
print(f"many clients: iozone (mpirun -np N) vs iozone3 -t N vs fio --numjobs=N, {rounds} "
      f"alternated rounds ({direct_rounds} direct), MiB/s medians, in {dir}")
print(f"load average at the start: {load():.2f}")
print(f"{'workload':<14}{'N':>2}  {'test':<12}{'iozone':>9}{'Σ ranks':>9}{'iozone3':>9}{'parent':>9}"
      f"{'fio':>9}{'ratio':>7}{'med/med':>8}  verdict  load  iozone range / fio range")
misses = 0
cell_ms = {}
for workload in ["buffered 64k", "direct 4k"]:
    for n in [1, 2, 4]:
        a, b, c = {}, {}, {}
        loads = []
        for r in range(rounds if workload == "buffered 64k" else direct_rounds):
            # alternate who goes first, so that no tool always finds the cache warmer
            order = [ours, iozone3, fio][r % 3:] + [ours, iozone3, fio][:r % 3]
            for tool in order:
                figures = tool(n, workload)
                into = {ours: a, iozone3: b, fio: c}[tool]
                for k, v in figures.items():
                    into.setdefault(k, []).append(v)
            loads.append(load())
        for test in sorted(k for k in a if isinstance(k, str)):
            o = statistics.median(a[test])
            f = statistics.median(c[test])
            ratios = [x / y for x, y in zip(a[test], c[test])]
            paired = statistics.median(ratios)
            ranks = statistics.median(a[(test, "ranks")])
            child = statistics.median(b.get((test, "Children see"), [float("nan")]))
            parent = statistics.median(b.get((test, "Parent sees"), [float("nan")]))
            ok = paired >= 0.95
            misses += not ok
            spread = (f"{min(a[test]):.0f}..{max(a[test]):.0f} / "
                      f"{min(c[test]):.0f}..{max(c[test]):.0f}")
            print(f"{workload:<14}{n:>2}  {test:<12}{o:>9.1f}{ranks:>9.1f}{child:>9.1f}{parent:>9.1f}"
                  f"{f:>9.1f}{paired:>7.2f}{o / f:>8.2f}  {'ok  ' if ok else 'MISS'}     "
                  f"{statistics.median(loads):>4.1f}  {spread}")
            print(f"{'':<28}rounds' ratios: {' '.join(f'{x:.2f}' for x in ratios)}")

# what the collectives cost a cell at the default sizes (one file size and record size,
# write and read: four phases): a meeting before each phase and one after the cell, and
# the gather of the ranks' figures, each timed with every rank arriving at once
print()
default = subprocess.run(
    MPIRUN + ["-np", "4", iozone, "run", "-r", "64k", "--cache", "buffered", "-n", "1",
              "--warmup", "0", "--no-record", "-q", "--format", "json", "-d", dir],
    check=True, capture_output=True, text=True).stdout
results = json.loads(default)["results"]
phases_ns = sum(r["elapsed_ns"] for r in results)
for n in [2, 4]:
    meet, gather, spread, spread_max = map(float, subprocess.run(
        MPIRUN + ["-np", str(n), meet_bin], check=True, capture_output=True,
        text=True).stdout.split())
    per_cell = (len(results) + 1) * meet + gather
    share = per_cell * 1e3 / phases_ns * 100
    print(f"{n} ranks: a meeting {meet:.1f} µs, a gather {gather:.1f} µs; a cell's "
          f"{len(results) + 1} meetings and gather {per_cell / 1e3:.3f} ms, {share:.2f}% of "
          f"a default cell's {phases_ns / 1e6:.0f} ms timed at 4 ranks "
          f"({'ok' if share < 1 else 'MISS'}: under 1%)  load {load():.1f}")
    print(f"  ranks left a meeting {spread:.1f} µs apart (median), {spread_max / 1e3:.2f} ms "
          f"at most")
print(f"load average at the end: {load():.2f}")
sys.exit(1 if misses else 0)
PY
