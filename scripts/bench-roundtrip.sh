#!/usr/bin/env bash
# Export → import at scale.
#
#   scripts/bench-roundtrip.sh [RUNS]     default: 100,000
#
# Builds a SQLite database of RUNS runs of 20 results (examples/populate_history.rs,
# as scripts/bench-history.sh does, plus its 40 fleet runs), then pipes
# `export --format json` into `import -` into an empty database, each side under
# /usr/bin/time -v, and prints each side's wall time, CPU time and peak memory
# (maximum resident set). Then exports the new database and compares it with a second
# export of the first, all but the `exported_at` line and the runs' ids (see `digest`),
# and checks that the new database numbered its runs in the export's order. Then the
# same with the CSV export, whose second export must be the first byte for byte. Targets: peak memory under 200 MiB on both sides, the two exports
# the same. On a busy machine the wall time says
# more about the other load than about the round trip: read the CPU time too.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time" >&2
  apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
cargo build --release --quiet --bin iozone --example populate_history
iozone=target/release/iozone
runs=${1:-100000}
# under target/, on disk: the databases and the WAL of a 100,000-run import take a few GB
work=$(mktemp -d -p target bench-roundtrip.XXXXXX)
trap 'rm -rf "$work"' EXIT
first=$work/first.db
second=$work/second.db

target/release/examples/populate_history "$first" "$runs"
# opened once so that a WAL checkpoint is not part of the timing
IOZONE_DB=$first $iozone db check >/dev/null

echo
echo "IOZONE_DB=$first iozone export --format json | IOZONE_DB=$second iozone import -"
IOZONE_DB=$first /usr/bin/time -v -o "$work/export.time" "$iozone" export --format json |
  IOZONE_DB=$second /usr/bin/time -v -o "$work/import.time" "$iozone" import -

# SIDE: what /usr/bin/time -v said of it
side() {
  local file=$work/$1.time
  local elapsed peak_kb user sys
  elapsed=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$file")
  peak_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$file")
  user=$(sed -n 's/.*User time (seconds): //p' "$file")
  sys=$(sed -n 's/.*System time (seconds): //p' "$file")
  printf '%-7s %s wall, %s s user + %s s system, %.1f MiB peak memory\n' \
    "$1:" "$elapsed" "$user" "$sys" "$(awk -v k="$peak_kb" 'BEGIN { print k / 1024 }')"
}
side export
side import

# DB NAME: the export of DB without its exported_at line (the header's fourth) and the
# runs' ids, digested; its size in bytes in $work/NAME.size, each run's UUID and id in
# $work/NAME.ids. The import numbers runs in the export's order, oldest first, so a run
# keeps its id only when the first database numbered its runs in that order too, and
# populate_history's does not (it adds its 40 fleet runs last, with older start times).
digest() {
  IOZONE_DB=$1 "$iozone" export --format json |
    LC_ALL=C awk -v size="$work/$2.size" -v ids="$work/$2.ids" '
      { bytes += length($0) + 1 }
      NR == 4 && /^  "exported_at": / { next }
      /^      "id": [0-9]+,$/ { id = $2 + 0; next }
      /^      "uuid": / { print $2, id > ids }
      { print }
      END { print bytes > size }' |
    sha256sum | cut -d' ' -f1
}
echo
once=$(digest "$first" first)
twice=$(digest "$second" second)
count=$(wc -l <"$work/first.ids")
echo "export of $count runs: $(cat "$work/first.size") bytes"
# the new database numbers its runs 1, 2, 3 … in the export's order
if ! awk '$2 != NR { exit 1 }' "$work/second.ids"; then
  echo "the new database did not number its runs in the export's order" >&2
  exit 1
fi
if [ "$once" = "$twice" ]; then
  echo "the second export is the first but for exported_at and the ids, the new ones 1 to $count ($once)"
else
  echo "the second export DIFFERS from the first ($once, $twice)" >&2
  exit 1
fi

# the CSV export, the same way: it has no ids and no timestamp of its own
third=$work/third.db
echo
echo "IOZONE_DB=$first iozone export --format csv | IOZONE_DB=$third iozone import -"
IOZONE_DB=$first /usr/bin/time -v -o "$work/export.time" "$iozone" export --format csv |
  IOZONE_DB=$third /usr/bin/time -v -o "$work/import.time" "$iozone" import -
side export
side import
csv_once=$(IOZONE_DB=$first "$iozone" export --format csv | sha256sum | cut -d' ' -f1)
csv_twice=$(IOZONE_DB=$third "$iozone" export --format csv | sha256sum | cut -d' ' -f1)
if [ "$csv_once" != "$csv_twice" ]; then
  echo "the second CSV export DIFFERS from the first ($csv_once, $csv_twice)" >&2
  exit 1
fi
echo "the second CSV export is the first ($csv_once)"
