#!/usr/bin/env bash
# Before against after: every read command, in every format, prints the same bytes, and
# every write stores the same rows.
#
#   scripts/byte-identity.sh BASE_BINARY NEW_BINARY
#
# For a refactoring that must change nothing a user sees. Builds one SQLite database
# with BASE (tiny real runs over tests, record sizes, engines, cache modes, threads,
# auto mode, labels and tags, then every fixture of tests/fixtures and our own JSON and
# CSV exports imported), copies it twice, and runs each read command (history, show,
# compare with --by, -v and --explain, trend, report, export, info, db) in each --format
# with BASE on one copy and NEW on the other. Stdout, stderr, the exit status and any
# file written must be the same byte for byte. Masked, because they differ between any
# two invocations: the copy's directory (b/ or n/, the same length, so no table wraps
# differently), `exported_at`, and the free space `info` reads off the filesystem.
# Then the two copies' data tables must be the same (a read that derives and stores
# something stores the same), an import of every file with NEW must store what BASE
# stores (bar `imported_at`), and a run recorded with NEW must store the parameters,
# result keys and host facts BASE stores for the same arguments and seed (the figures
# measured, the times and the machine's state masked).
#
# One line per check, `same` or `DIFF` (with the first lines of the diff); exits 1 on
# any difference, 2 on bad use. Run it with BASE twice (`byte-identity.sh B B`) to see
# that the masks are enough on this machine.
set -euo pipefail

if [ $# -ne 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
  echo "usage: $0 BASE_BINARY NEW_BINARY (both executable)" >&2
  exit 2
fi
repo=$(cd "$(dirname "$0")/.." && pwd)
fixtures=$repo/tests/fixtures
work=$(mktemp -d "${TMPDIR:-/tmp}/byte-identity.XXXXXX")
# BYTE_IDENTITY_KEEP=1 keeps it, to read what each side printed (b/all, n/all: the last check)
if [ -n "${BYTE_IDENTITY_KEEP:-}" ]; then echo "working in $work"; else trap 'rm -rf "$work"' EXIT; fi
# b/ is BASE's side, n/ NEW's: the binaries are copied in under one name so that argv[0]
# (usage lines, completions) reads the same
mkdir -p "$work/b" "$work/n" "$work/scratch"
cp "$1" "$work/b/iozone"
cp "$2" "$work/n/iozone"
export NO_COLOR=1
unset IOZONE_DB IOZONE_BUSY_TIMEOUT IOZONE_RECORD_RETRY
failures=0
checks=0

# base ARGS…: BASE on the database being built ($work/build.db)
base() { "$work/b/iozone" --db "$work/build.db" "$@"; }

# ---------------------------------------------------------------- the database, by BASE
# tiny runs: a few hundred KiB each, one round, no warm-up (unless the run is about them)
# (-n and --warmup only where the arguments do not say: clap takes each once)
tiny() {
  local args=(-q -d "$work/scratch")
  [[ " $* " == *" --warmup "* ]] || args+=(--warmup 0)
  [[ " $* " == *" -n "* || " $* " == *" --repeat "* ]] || args+=(-n 1)
  echo "${args[@]}"
}
# shellcheck disable=SC2046 # tiny's words
record() { base run $(tiny "$@") "$@" >/dev/null; }
for seed in 1 2 3 4; do
  record -s 64k -r 4k,16k --seed "$seed" -l series -l alpha --tag os=a --note "series $seed"
done
for seed in 5 6 7 8; do
  record -s 64k -r 4k,16k --seed "$seed" -l series -l beta --tag os=b
done
record -s 128k -r 4k -i write,read,random,backward --engine posix,pread --cache flush,buffered -n 2 -l multi --seed 9
record -s 64k -r 4k -i all --engine mmap,stdio --cache buffered -l every-test --seed 10
record -s 64k -r 4k -i all --engine mmap,stdio --cache buffered -l every-test-again --seed 23
record -s 64k -r 4k -t 2 --cache sync -n 2 -l threads --seed 11
record -s 64k -r 4k -t 2 --cache sync -n 2 -l threads-again --seed 24
record -a --min-size 64k -g 256k -l auto --seed 12
record -s 64k -r 4k --order grouped --verify --no-latency --warmup 1 -l grouped --seed 13
record -s 64k -r 4k --repeat auto --precision 50 --max-time 1 -l repeat-auto --seed 14
record -s 64k -r 4k --cache direct -l direct --seed 15 ||
  echo "note: --cache direct refused here; left out" >&2
record -s 64k -r 4k --engine uring --iodepth 4 -l uring --seed 16 ||
  echo "note: --engine uring refused here; left out" >&2
record --seed 17 -i write 1 4096 # the classic positional form
record -s 128k -r 4k --engine posix,pread --seed 18 -l engines-only

# our own exports, from a database of their own (the UUIDs are new to build.db)
own=$work/own.db
"$work/b/iozone" --db "$own" run $(tiny) -s 64k -r 4k --seed 20 -l own-json >/dev/null
"$work/b/iozone" --db "$own" run $(tiny) -s 64k -r 4k --engine posix,pread --seed 21 -l own-json >/dev/null
"$work/b/iozone" --db "$own" run $(tiny) -s 64k -r 4k --cache buffered,flush --seed 22 -l own-csv >/dev/null
"$work/b/iozone" --db "$own" -q export --format json --label own-json -o "$work/own.json"
"$work/b/iozone" --db "$own" -q export --format csv --label own-csv -o "$work/own.csv"

imports=(
  "$fixtures"/iozone3/*.txt
  "$fixtures"/fio/*.json
  "$work/own.json"
  "$work/own.csv"
)
base import -q "${imports[@]}"
base import -q --format classic --host bebox -l dr8 --tag os=beos "$fixtures/classic/bebox-beos-dr8.txt"
base import -q --host pc486 -l freebsd "$fixtures/classic/486dx4-freebsd.txt"

runs=$(sqlite3 "$work/build.db" 'SELECT count(*) FROM runs')
ids=$(sqlite3 "$work/build.db" 'SELECT id FROM runs ORDER BY id')
echo "database: $runs runs recorded and imported with BASE"

# ---------------------------------------------------------------- comparing
cp "$work/build.db" "$work/b/history.db"
cp "$work/build.db" "$work/n/history.db"

# mask FILE: what differs between any two invocations, in place
mask() {
  sed -i -E \
    -e "s#$work/[bn]/#WORK/#g" \
    -e 's#("?exported_at"?[:=,] *"?)[0-9T:.Z-]+#\1EXPORTED_AT#g' \
    -e 's#(free[^0-9]*)[0-9.]+ [KMGT]?i?B \([0-9]+ bytes\)#\1FREE#' \
    -e 's#("free_bytes": )[0-9]+#\1FREE#' \
    "$1"
}

# report NAME DIFF_FILE: one line, and the diff's start when there is one
report() {
  checks=$((checks + 1))
  if [ -s "$2" ]; then
    failures=$((failures + 1))
    echo "DIFF  $1"
    head -n 20 "$2" | sed 's/^/      /'
  else
    echo "same  $1"
  fi
}

# check ARGS…: the command on each side's copy; ARGS may name OUT, the file written
check() {
  local side out
  for side in b n; do
    local dir=$work/$side
    local args=()
    for a in "$@"; do args+=("${a//OUT/$dir/out}"); done
    rm -f "$dir/out"
    set +e
    (cd "$dir" && ./iozone --db "$dir/history.db" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr")
    echo "exit $?" >"$dir/status"
    set -e
    mask "$dir/stdout"
    mask "$dir/stderr"
    if [ -e "$dir/out" ]; then mask "$dir/out"; else echo "(no file)" >"$dir/out"; fi
    [ -z "${BYTE_IDENTITY_KEEP:-}" ] || echo "$(cat "$dir/status"): $*" >>"$work/statuses.$side"
    cat "$dir/status" "$dir/stdout" <(echo "-- stderr") "$dir/stderr" \
      <(echo "-- file") "$dir/out" >"$dir/all"
  done
  diff "$work/b/all" "$work/n/all" >"$work/diff" || true
  report "$*" "$work/diff"
}

formats=(table json csv markdown)

for f in "${formats[@]}"; do
  check history --all --format "$f"
  check history --format "$f" --label series --units kB
  check history --format "$f" --test read --record 4k --limit 3
  check history --format "$f" --host vm --fs ext4 --status complete
  check history --format "$f" --tag os=a --since 2000-01-01 --until 2100-01-01
  check -q history --format "$f" --units B --label nothing-has-this
done
check --color always history --all
check history --all --units GiB
check history --units MiB --color always --limit 4

for id in $ids; do
  for f in "${formats[@]}"; do check show "$id" --format "$f"; done
done
check show latest --units B
check show latest~3 --units kB --color always
check show 999999
check show nonsense-run

compares=(
  "1 5"
  "label:alpha label:beta"
  "1..4 5..8"
  "label:multi label:engines-only"
  "label:every-test label:every-test-again"
  "label:threads label:threads-again"
  "label:threads label:series"
  "label:auto label:alpha"
  "label:own-json label:own-csv"
  "label:dr8 label:freebsd"
  "label:grouped label:alpha"
  "label:repeat-auto label:direct"
  "label:auto label:uring"
)
for pair in "${compares[@]}"; do
  read -r baseline candidate <<<"$pair"
  for f in "${formats[@]}"; do
    check compare "$baseline" "$candidate" --format "$f"
  done
  check -v compare "$baseline" "$candidate"
  check compare --explain "$baseline" "$candidate"
  check compare "$baseline" "$candidate" --ignore-param engine --ignore-param cache --threshold 1 --alpha 0.5
  check compare "$baseline" "$candidate" --ignore-param file_size --ignore-param threads --ignore-param iodepth --units kB
  check compare "$baseline" "$candidate" --fail-on-regression --threshold 0.1 --alpha 0.9
done
for by in host fs kernel; do
  for f in "${formats[@]}"; do
    check compare label:alpha label:beta --by "$by" --format "$f"
    check compare label:series,1..4 label:beta --by "$by" --format "$f"
  done
  check -v compare label:alpha label:beta --by "$by" --explain
done
check compare 1 999999
check compare label:nothing-has-this 1

for f in "${formats[@]}"; do
  check trend --format "$f" --min-runs 2
  check trend --format "$f" --label series --min-runs 2 --min-step 1
  check trend --format "$f" --test write --record 4k --min-runs 3 --all
  check trend --format "$f" --host vm --units kB --limit 5 --min-runs 2
done
check -v trend --min-runs 2
check trend --min-runs 1

check report -o OUT
check report -o OUT --title "A title" --units MiB
check report -o OUT label:series
check report -o OUT label:multi
check report -o OUT 9..14
check report -o OUT label:alpha label:beta --ignore-param engine
check report -o OUT --label series --limit 3 --all
check report -o - label:multi label:engines-only
check report -o OUT --host vm --units kB

for f in json csv; do
  check export --format "$f"
  check export --format "$f" --label series --test read
  check export --format "$f" -o OUT --host vm
  check export --format "$f" --record 16k --status complete --since 2000-01-01
done

for f in table json; do
  check info --format "$f" "$work/scratch"
done
check db check
check db path

# a read that derives and stores something must store the same on both sides
data_tables=(runs results run_summaries run_labels run_tags)
for side in b n; do
  sqlite3 "$work/$side/history.db" ".dump ${data_tables[*]}" >"$work/$side/dump"
done
diff "$work/b/dump" "$work/n/dump" >"$work/diff" || true
report "the database after every read command" "$work/diff"

# ---------------------------------------------------------------- what is stored
# columns SIDE TABLE: the table's columns, bar those that differ between two writes of
# the same thing (the times, the figures measured, the machine's state)
volatile='uuid|started_at|finished_at|imported_at|free_bytes|state_at_start|state_at_end|pid|process_start|elapsed_ns|throughput|lat_p50|lat_p99|lat_p999|lat_max|median|least|greatest|positive_median|log_variance|positives'
stored() { # stored DB TABLE… : the tables' rows, volatile columns out, in a stable order
  local db=$1 table cols
  shift
  for table in "$@"; do
    cols=$(sqlite3 "$db" "SELECT name FROM pragma_table_info('$table')" |
      grep -Ev "^($volatile)\$" | paste -sd, -)
    echo "-- $table: $cols"
    sqlite3 -header "$db" "SELECT $cols FROM $table ORDER BY $cols"
  done
}

# imports: every file, each side into an empty database; stored rows bar imported_at
for side in b n; do
  "$work/$side/iozone" --db "$work/$side/import.db" import -q "${imports[@]}"
  "$work/$side/iozone" --db "$work/$side/import.db" import -q --host bebox -l dr8 --tag os=beos \
    "$fixtures/classic/bebox-beos-dr8.txt"
done
for side in b n; do
  sqlite3 "$work/$side/import.db" ".dump ${data_tables[*]}" |
    sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TIME/g' >"$work/$side/import.dump"
done
diff "$work/b/import.dump" "$work/n/import.dump" >"$work/diff" || true
report "import of every fixture and our JSON and CSV exports: stored rows" "$work/diff"

# a BASE export of the whole built database: every kind of run, as the older binary wrote it
"$work/b/iozone" --db "$work/build.db" -q export --format json -o "$work/base-export.json"
"$work/b/iozone" --db "$work/build.db" -q export --format csv -o "$work/base-export.csv"
for side in b n; do
  for ext in json csv; do
    rm -f "$work/$side/reimport.db"
    "$work/$side/iozone" --db "$work/$side/reimport.db" import -q "$work/base-export.$ext"
    sqlite3 "$work/$side/reimport.db" ".dump ${data_tables[*]}" |
      sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/TIME/g' >"$work/$side/reimport-$ext.dump"
  done
done
for ext in json csv; do
  diff "$work/b/reimport-$ext.dump" "$work/n/reimport-$ext.dump" >"$work/diff" || true
  report "import of BASE's $ext export of the whole database: stored rows" "$work/diff"
done

# runs: the same arguments and seed on each side; parameters, result keys, host facts
recordings=(
  "-s 64k -r 4k,16k -n 2 --seed 31 -l one"
  "-s 128k -r 4k -i write,read,random --engine posix,pread --cache flush,buffered --seed 32"
  "-s 64k -r 4k -i all --engine mmap,stdio --cache buffered --seed 33"
  "-s 64k -r 4k -t 2 --cache sync --seed 34 --tag k=v --note a-note"
  "-a --min-size 64k -g 256k --seed 35"
  "-s 64k -r 4k --order grouped --verify --no-latency --warmup 1 --seed 36"
)
for side in b n; do
  for args in "${recordings[@]}"; do
    # shellcheck disable=SC2046,SC2086 # the arguments are words
    "$work/$side/iozone" --db "$work/$side/record.db" run $(tiny $args) $args >/dev/null
  done
  stored "$work/$side/record.db" "${data_tables[@]}" >"$work/$side/record.rows"
done
diff "$work/b/record.rows" "$work/n/record.rows" >"$work/diff" || true
report "runs recorded with the same arguments and seeds: stored parameters and result keys" "$work/diff"

echo "$checks checks, $failures with a difference"
[ "$failures" -eq 0 ]
