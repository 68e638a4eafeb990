#!/usr/bin/env bash
# What a change to the timed loop costs: runs two iozone binaries (A and B, e.g. a
# build with the progress counter and one with it taken out) alternately, ROUNDS
# times, on the workloads where a per-operation cost shows most: 512 B records through
# the page cache (write and read, about a microsecond an operation) and 4 KiB random
# reads through the page cache on io_uring at depth 32. Prints each side's median
# MiB/s, every round's figures, and B's cost relative to A.
#
#   scripts/ab-cost.sh A_BINARY B_BINARY [DIR] [ROUNDS]   (SIZE=256M by default)
set -euo pipefail
cd "$(dirname "$0")/.."

[[ $# -ge 2 ]] || { echo "usage: scripts/ab-cost.sh A_BINARY B_BINARY [DIR] [ROUNDS]" >&2; exit 2; }
a=$(realpath "$1")
b=$(realpath "$2")
dir=$(realpath -m "${3:-target/ab-cost}")
rounds=${4:-5}
mkdir -p "$dir"

python3 - "$a" "$b" "$dir" "$rounds" "${SIZE:-256M}" <<'PY'
import json, statistics, subprocess, sys

a, b, dir, rounds, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
MiB = 1 << 20
workloads = {
    "512 B buffered": ["-r", "512", "-i", "write,read", "--cache", "buffered"],
    "4 KiB random read, uring qd32, buffered": [
        "-r", "4k", "-i", "random", "--cache", "buffered", "--engine", "uring", "--iodepth", "32"],
}

def run(binary, args):
    out = subprocess.run(
        [binary, "run", "--no-record", "-s", size, "-n", "1", "-d", dir, "-q",
         "--format", "json", *args],
        check=True, capture_output=True, text=True).stdout
    return {r["test"]: r["throughput"] / MiB for r in json.loads(out)["results"]}

for name, args in workloads.items():
    figures = {"A": [], "B": []}
    for _ in range(rounds):
        figures["A"].append(run(a, args))
        figures["B"].append(run(b, args))
    print(f"{name} (MiB/s, {rounds} alternated rounds)")
    for test in figures["A"][0]:
        fa = [f[test] for f in figures["A"]]
        fb = [f[test] for f in figures["B"]]
        ma, mb = statistics.median(fa), statistics.median(fb)
        print(f"  {test:<12} A {ma:8.1f}  B {mb:8.1f}  B's cost {(1 - mb / ma) * 100:+5.1f}%")
        print(f"  {'':<12} A rounds {' '.join(f'{x:.0f}' for x in fa)}")
        print(f"  {'':<12} B rounds {' '.join(f'{x:.0f}' for x in fb)}")
PY
