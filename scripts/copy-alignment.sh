#!/usr/bin/env bash
# How fast the kernel copies a cached file into buffers at different offsets from a
# 64-byte (in fact a 2 MiB) boundary: the same read(2) loop, only the buffer moved.
#
#   scripts/copy-alignment.sh FILE RECORD OFFSET...
#
# Reads FILE whole in RECORD-byte read(2)s into a buffer OFFSET bytes past a 2 MiB
# boundary, for each OFFSET in turn, three times over, and prints MiB/s for each. Read
# FILE once before, so that it is in the page cache. On the CPU of 12-04 (with FSRM) a
# buffer on a 64-byte boundary took 64 KiB records at a median 8281 MiB/s and one off
# such a boundary at 8994 (docs/benchmarks.md, "The page-cache rows"): why bench-vs-fio.sh
# puts fio's buffers on a page, as iozone's are, wherever the kernel copies.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 FILE RECORD OFFSET..." >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/copy.c" <<'C'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  long record = atol(argv[2]);
  char *map = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED) return perror("mmap"), 1;
  char *base = (char *)(((unsigned long)map + (2 << 20) - 1) & ~((2UL << 20) - 1));
  for (int round = 0; round < 3; round++)
    for (int k = 3; k < argc; k++) {
      long offset = atol(argv[k]);
      int fd = open(argv[1], O_RDONLY);
      if (fd < 0) return perror(argv[1]), 1;
      struct timespec a, b;
      clock_gettime(CLOCK_MONOTONIC, &a);
      long total = 0;
      ssize_t n;
      while ((n = read(fd, base + offset, record)) > 0) total += n;
      clock_gettime(CLOCK_MONOTONIC, &b);
      close(fd);
      double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
      printf("offset %5ld  record %7ld  %6.0f MiB/s\n", offset, record, total / s / 1048576);
    }
  return 0;
}
C
cc -O2 -o "$work/copy" "$work/copy.c"
cat "$1" >/dev/null
"$work/copy" "$@" | sort -k2,2n -s
