#!/usr/bin/env bash
# Import at scale.
#
#   scripts/bench-import.sh [MB...]     default: 1 10 30 300
#
# Builds an iozone3 auto-mode output of about MB megabytes for each size (the header of
# tests/fixtures/iozone3/auto-n64k-g4m.txt, then one row per (file size, record size)
# pair, no pair twice, 13 figures a row in iozone's column widths), imports it into an
# empty SQLite database and prints the wall time, CPU time and peak memory (maximum
# resident set) /usr/bin/time -v reports, with the load average before it. Targets: the
# 30 MB file in under 3 s, the 300 MB one in under 30 s, each under 100 MiB. On a busy
# machine the wall time says more about the other load than about import: read the CPU
# time too.
#
# Beside each import, its anchor: SQLite inserting the same rows by itself. The sqlite3
# shell copies the results table the import wrote into an empty database of the same
# page size and journal mode (a rollback journal: an import that has the database to
# itself writes in one, docs/recording.md), in the table's key order, through a `WHERE` that keeps
# every row but turns off SQLite's transfer of whole records, so that each row is
# decoded, checked and inserted as an import's are. That is the least any import of
# the file into this schema costs here: no parsing, no binding, no staging.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time" >&2
  apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
if ! command -v sqlite3 >/dev/null; then
  echo "installing sqlite3" >&2
  apt-get update -qq && apt-get install -y -qq sqlite3 >/dev/null
fi
cargo build --release --quiet --bin iozone
iozone=target/release/iozone
fixture=tests/fixtures/iozone3/auto-n64k-g4m.txt
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The fixture's lines up to and including the two header lines of the table.
header_lines=$(grep -n 'kB  reclen' "$fixture" | cut -d: -f1)

# An auto table of about $1 MB: file sizes from 64 kB up, each with record sizes
# 4 kB, 8 kB, … up to the file size, as iozone -a sweeps them but without its upper
# bound, so every (file size, record size) pair is new.
generate() {
  local mb=$1 out=$2
  head -n "$header_lines" "$fixture" >"$out"
  awk -v bytes=$((mb * 1000 * 1000)) 'BEGIN {
    written = 0; file = 64; seed = 1
    while (written < bytes) {
      for (rec = 4; rec <= file && written < bytes; rec *= 2) {
        line = sprintf("%16d%8d", file, rec)
        for (c = 0; c < 13; c++) {
          seed = (seed * 1103515245 + 12345) % 2147483648
          line = line sprintf(c == 7 || c == 8 ? "%10d" : "%9d", 1000000 + seed % 30000000)
        }
        print line
        written += length(line) + 1
      }
      file += 4
    }
  }' >>"$out"
  printf '\niozone test complete.\n' >>"$out"
}

# SECONDS: /usr/bin/time's "[h:]m:ss.ss" as seconds
wall_seconds() {
  echo "$1" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }'
}

# DB IMPORT_SECONDS: the anchor's time for the results DB holds, and the import's ratio
# to it
anchor() {
  local db=$1 import=$2 copy=$work/anchor.db schema rows start end
  rm -f "$copy"*
  schema=$(sqlite3 "$db" "SELECT sql FROM sqlite_schema WHERE name = 'results'" |
    sed 's/"results"/anchor_results/; s/TABLE results /TABLE anchor_results /')
  rows=$(sqlite3 "$db" "SELECT count(*) FROM results")
  sqlite3 "$copy" "PRAGMA page_size = $(sqlite3 "$db" 'PRAGMA page_size')" \
    'PRAGMA journal_mode = DELETE' >/dev/null
  start=$(date +%s.%N)
  sqlite3 "$copy" "ATTACH '$db' AS imported" "$schema" \
    'INSERT INTO anchor_results SELECT * FROM imported.results WHERE run_id IS NOT NULL'
  end=$(date +%s.%N)
  rm -f "$copy"*
  awk -v rows="$rows" -v import="$import" -v start="$start" -v end="$end" 'BEGIN {
    printf "        anchor: sqlite3 inserts the same %d rows in %.2f s; the import took x%.2f\n",
      rows, end - start, import / (end - start)
  }'
}

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1 10 30 300)
for size in "${sizes[@]}"; do
  file=$work/auto-$size.txt
  generate "$size" "$file"
  rm -f "$work/import.db"*
  load=$(cut -d' ' -f1 /proc/loadavg)
  IOZONE_DB=$work/import.db /usr/bin/time -v "$iozone" -q import "$file" 2>"$work/time.txt"
  elapsed=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")
  peak_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  printf '%4s MB (%s bytes): %s wall, %s s user + %s s system, %d MiB peak memory, load %s\n' \
    "$size" "$(stat -c %s "$file")" "$elapsed" "$user" "$sys" $((peak_kb / 1024)) "$load"
  anchor "$work/import.db" "$(wall_seconds "$elapsed")"
done
