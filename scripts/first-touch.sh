#!/usr/bin/env bash
# What the first write to a page of fresh memory costs on this machine, against a
# second write: on a virtual machine whose host takes back the memory its guest frees
# (free page reporting), a page used again after a few seconds idle is backed afresh by
# the host, at several times the cost. Everything written through the page cache pays it
# for each new page: a buffered write test, an import's WAL and database.
#
#   scripts/first-touch.sh [MiB...]     default: 2048 8192
#
# For each size, maps that much anonymous memory in 4 KiB pages, writes one byte a page
# (the first touch: the guest's page fault, zeroing, and the host's if it must back the
# page), then memsets it all (every page already there), and prints both rates. Run it
# twice in a row, then again after 20 s idle, to see the host take the memory back. On
# 12-04: 2 GiB 2.7-2.9 GiB/s first touch (1.3-1.4 us a page); 8 GiB 0.43-0.51 GiB/s
# (7.5-8.9 us) after an idle spell, 1.2-1.9 right after another run; memset 9-10 GiB/s
# throughout (docs/benchmarks.md, bench-import.sh).
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/touch.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  size_t bytes = (size_t)atol(argv[1]) << 20;
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return perror("mmap"), 1;
  madvise(p, bytes, MADV_NOHUGEPAGE);
  double a = now();
  for (size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  double b = now();
  memset(p, 2, bytes);
  double c = now();
  printf("%6s MiB: first touch %6.0f MiB/s (%.2f us a page), memset after %6.0f MiB/s\n",
         argv[1], bytes / (b - a) / 1048576, (b - a) / (bytes / 4096) * 1e6,
         bytes / (c - b) / 1048576);
  return 0;
}
C
cc -O2 -o "$work/touch" "$work/touch.c"
sizes=("$@")
[ $# -gt 0 ] || sizes=(2048 8192)
for size in "${sizes[@]}"; do
  "$work/touch" "$size"
done
