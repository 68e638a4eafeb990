#!/usr/bin/env bash
# Where the spread of cold reads comes from on a virtual machine.
#
#   scripts/cold-reads.sh [FILE] [MiB] [ROUNDS]     default: ./cold-reads.tmp 64 8
#
# Writes FILE (fsynced), then each round: evicts it from the page cache as
# `--cache flush` does (posix_fadvise DONTNEED, through dd iflag=nocache), shows with
# fincore how much of it is still resident (0 B: the guest holds none of it), and reads
# it three ways: buffered in 64 KiB records (what `read` measures), O_DIRECT in 64 KiB,
# O_DIRECT in 4 KiB. A buffered cold read several times faster than an O_DIRECT read of
# the same file, with nothing resident in the guest, is served by a cache below the
# guest (the host's page cache of the virtual disk), which the guest cannot evict: the
# rounds then split into those the host still caches and those it must read from its
# disk. No eviction inside the guest can remove that; more rounds and interleaving can
# only average over it.
set -euo pipefail
f=${1:-./cold-reads.tmp}
mb=${2:-64}
rounds=${3:-8}
trap 'rm -f "$f"' EXIT
dd if=/dev/urandom of="$f" bs=1M count="$mb" conv=fsync status=none
rate() { awk '/copied/ {print $(NF-1), $NF}'; }
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg); readahead $(cat /sys/block/*/queue/read_ahead_kb 2>/dev/null | sort -u | tr '\n' ' ')KiB"
for i in $(seq "$rounds"); do
  dd if="$f" iflag=nocache count=0 status=none
  resident=$(fincore -nb -o RES "$f" | tr -d ' ')
  buffered=$(dd if="$f" of=/dev/null bs=64k 2>&1 | rate)
  direct=$(dd if="$f" of=/dev/null bs=64k iflag=direct 2>&1 | rate)
  direct4k=$(dd if="$f" of=/dev/null bs=4k iflag=direct count=4096 2>&1 | rate)
  echo "round $i: resident after eviction ${resident} B; buffered 64k $buffered; direct 64k $direct; direct 4k (16 MiB) $direct4k"
done
