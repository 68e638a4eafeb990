#!/usr/bin/env bash
# History at scale.
#
#   scripts/bench-history.sh [RUNS]              SQLite (default 100,000 runs)
#   scripts/bench-history.sh --postgres [RUNS]   PostgreSQL (default 1,000,000 runs)
#
# SQLite: builds a database of RUNS runs with 20 results each through the store
# interface, times recording one run, then times `history --limit 50`,
# `history --label X`, `history --host H --since 30d` and `show latest` as whole
# commands with hyperfine, and reports the database size per run. Targets on a
# 2-core machine: each under 50 ms; recording one run under 10 ms.
#
# PostgreSQL (the throwaway server of scripts/pg-test-server.sh): RUNS runs from 1,000
# hosts, then `history --host H --limit 50`, `compare --by host` between two labels of
# 1,000 runs each, and `sync` of 10,000 runs from SQLite into an empty database.
# Targets: history under 100 ms, the fleet compare under 0.5 s, sync at 2,000 runs/s.
#
# Both stores then: the time and peak memory (`/usr/bin/time`, three executions each)
# of the commands that walk the whole history: `history --all --format json`,
# `export --format json`, `trend` and `report --limit 1000` (and `trend --all`,
# `report --all`), each beside its anchor: the same rows dumped by the store's own
# tool (`sqlite3` in `.mode json`; PostgreSQL's `COPY … TO STDOUT` through psql), in
# the walk's order. A listing or an export reads every run whole with its labels, tags
# and results; `trend --all` and `report --all` a series' columns of each run and its
# figures.
# Targets: under 100 MiB each whatever the database's size; `trend` and `report` under
# 1 s on 100,000 runs; at 100,000 SQLite runs `history --all --format json` and
# `export --format json` under 2 s each; at 1,000,000 PostgreSQL runs `export` under
# 40 s and within 2.5 times its anchor.
#
# The PostgreSQL database of RUNS runs is populated once and reused while it holds
# them (populating a million runs takes minutes). BENCH_WALKS (words: history-json,
# history-table, export, trend, trend-all, report, report-all; default all) picks the
# walks, BENCH_TIMES (default 3) the executions of each. On a quiet machine, run the
# PostgreSQL walks without `chrt`: a client in the real-time class keeps the server's
# backend off the cores whenever one of its threads can run (1,000,000-run export
# 41-43 s under `chrt -f 50`, 27-31 s without, the same minutes).
set -euo pipefail
cd "$(dirname "$0")/.."

postgres=false
if [ "${1:-}" = "--postgres" ]; then
  postgres=true
  shift
fi

if ! command -v hyperfine >/dev/null; then
  echo "installing hyperfine" >&2
  apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null
fi
cargo build --release --quiet --bin iozone --example populate_history
iozone=target/release/iozone
populate=target/release/examples/populate_history

times=${BENCH_TIMES:-3}

# SECONDS_VAR COMMAND...: the elapsed time of COMMAND (a function too), output discarded
timed() {
  local var=$1 start end
  shift
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  printf -v "$var" '%.2f' "$(echo "$end - $start" | bc -l)"
}

# NAME ANCHOR COMMAND...: elapsed time and peak memory of $times executions, output
# discarded, each beside the anchor's time (the store's own dump of the same rows,
# timed once before) and the ratio to it
walk() {
  local name=$1 anchor=$2
  shift 2
  case " ${BENCH_WALKS:-$all_walks} " in *" $name "*) ;; *) return 0 ;; esac
  for _ in $(seq "$times"); do
    if ! /usr/bin/time -f '%e %M' -o target/bench-walk.txt "$@" >/dev/null 2>target/bench-walk.err; then
      cat target/bench-walk.err >&2
      return 1
    fi
    read -r seconds kib <target/bench-walk.txt
    printf '%-14s %-44s %7.2f s %6d KiB   anchor %7.2f s   x%.2f   load %s\n' \
      "$name" "$*" "$seconds" "$kib" "$anchor" "$(echo "$seconds / $anchor" | bc -l)" \
      "$(cut -d' ' -f1 /proc/loadavg)"
  done
}
all_walks='history-json history-table export trend trend-all report report-all'

# the commands that walk the whole history, on $IOZONE_DB, beside the anchors: $whole
# (every run whole with its labels, tags and results) and $series (a series' columns
# and the figures)
walks() {
  echo
  echo "anchors ($1): every run whole $whole s; the series' columns $series s"
  walk history-json "$whole" "$iozone" history --all --format json
  walk history-table "$whole" "$iozone" history --all
  walk export "$whole" "$iozone" export --format json
  walk trend "$series" "$iozone" trend
  walk trend-all "$series" "$iozone" trend --all
  walk report "$series" "$iozone" report --limit 1000 -o target/bench-report.html --force
  walk report-all "$series" "$iozone" report --all -o target/bench-report.html --force
}

# The anchors' statements, in the walks' order (newest first; a series' walk host by
# host): the runs, then the rows beside them, each joined to its run for the order.
order='ORDER BY r.started_at DESC, r.id DESC'
whole_sql=(
  "SELECT r.* FROM runs r $order"
  "SELECT x.* FROM runs r JOIN run_labels x ON x.run_id = r.id $order"
  "SELECT x.* FROM runs r JOIN run_tags x ON x.run_id = r.id $order"
  "SELECT x.* FROM runs r JOIN results x ON x.run_id = r.id $order"
)
series_sql=(
  "SELECT r.id, r.started_at, r.hostname, r.fs_type, r.mount_point, r.iodepth, r.threads FROM runs r ORDER BY r.hostname"
  "SELECT x.run_id, x.test, x.file_size, x.record_size, x.repetition, x.engine, x.cache, x.throughput FROM runs r JOIN results x ON x.run_id = r.id ORDER BY r.hostname, r.id"
)

if ! $postgres; then
  runs=${1:-100000}
  db=target/bench-history.db
  $populate "$db" "$runs"
  # opened once so WAL checkpoints are not part of the first timing
  IOZONE_DB=$db $iozone db check >/dev/null
  export IOZONE_DB=$db
  hyperfine -N --warmup 3 --runs 30 --style basic --export-markdown target/bench-history.md \
    --command-name 'history --limit 50' "$iozone history --limit 50" \
    --command-name 'history --label X' "$iozone history --label X" \
    --command-name 'history --host H --since 30d' "$iozone history --host host-0007 --since 30d" \
    --command-name 'show latest' "$iozone show latest" \
    >/dev/null
  cat target/bench-history.md
  # sqlite3 COMMAND…: each statement's rows as JSON, one after another
  dump_sqlite() {
    local statement
    for statement in "$@"; do sqlite3 -readonly "$db" '.mode json' "$statement"; done
  }
  timed whole dump_sqlite "${whole_sql[@]}"
  timed series dump_sqlite "${series_sql[@]}"
  walks 'sqlite3 .mode json'
  exit 0
fi

runs=${1:-1000000}
eval "$(scripts/pg-test-server.sh)"
base=${IOZONE_TEST_PG%/*}
fresh_db() {
  PGPASSWORD=iozone-test psql "$IOZONE_TEST_PG" -q -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
  echo "$base/$1"
}

fleet=$base/iozone_bench_fleet
# the runs populated: RUNS, 50 recorded one at a time, and two per host
expected=$((runs + 50 + 2 * 1000))
held=$(PGPASSWORD=iozone-test psql "$fleet" -Atc 'SELECT count(*) FROM iozone.runs' 2>/dev/null || echo 0)
if [ "$held" = "$expected" ]; then
  echo "reusing the PostgreSQL database of $held runs"
else
  fleet=$(fresh_db iozone_bench_fleet)
  echo "populating PostgreSQL with $runs runs from 1,000 hosts"
  $populate "$fleet" "$runs" 1000
fi
export IOZONE_DB=$fleet
hyperfine -N --warmup 2 --runs 10 --style basic --export-markdown target/bench-fleet.md \
  --command-name 'history --host H --limit 50' "$iozone history --host host-0007 --limit 50" \
  --command-name 'compare --by host (1,000 hosts)' "$iozone compare before after --by host --format json" \
  >/dev/null
cat target/bench-fleet.md
# COPY (statement) TO STDOUT of each statement, in the schema
dump_postgres() {
  local statement
  for statement in "$@"; do
    PGPASSWORD=iozone-test psql "$fleet" -q -c "SET search_path = iozone" -c "COPY ($statement) TO STDOUT"
  done
}
timed whole dump_postgres "${whole_sql[@]}"
timed series dump_postgres "${series_sql[@]}"
walks 'COPY … TO STDOUT'

echo
lite=target/bench-sync.db
$populate "$lite" 10000 >/dev/null
total=$(IOZONE_DB=$lite $iozone history --all --format csv | tail -n +2 | wc -l)
target_db=$(fresh_db iozone_bench_sync)
start=$(date +%s.%N)
IOZONE_DB=$lite $iozone sync --to "$target_db"
end=$(date +%s.%N)
awk -v n="$total" -v a="$start" -v b="$end" \
  'BEGIN { printf "sync of %d runs into PostgreSQL: %.2f s, %.0f runs/s\n", n, b - a, n / (b - a) }'
