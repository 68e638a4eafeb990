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
# `report --all`).
# Targets: under 100 MiB each whatever the database's size; `trend` and `report` under
# 1 s on 100,000 runs.
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

# NAME COMMAND...: elapsed time and peak memory of three executions, output discarded
walk() {
  local name=$1
  shift
  for _ in 1 2 3; do
    /usr/bin/time -f '%e s %M KiB' -o target/bench-walk.txt "$@" >/dev/null
    printf '%-36s %s\n' "$name" "$(cat target/bench-walk.txt)"
  done
}

# the commands that walk the whole history, on $IOZONE_DB
walks() {
  echo
  walk 'history --all --format json' "$iozone" history --all --format json
  walk 'history --all (table)' "$iozone" history --all
  walk 'export --format json' "$iozone" export --format json
  walk 'trend' "$iozone" trend
  walk 'trend --all' "$iozone" trend --all
  walk 'report --limit 1000' "$iozone" report --limit 1000 -o target/bench-report.html
  walk 'report --all' "$iozone" report --all -o target/bench-report.html
}

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
  walks
  exit 0
fi

runs=${1:-1000000}
eval "$(scripts/pg-test-server.sh)"
base=${IOZONE_TEST_PG%/*}
fresh_db() {
  PGPASSWORD=iozone-test psql "$IOZONE_TEST_PG" -q -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
  echo "$base/$1"
}

fleet=$(fresh_db iozone_bench_fleet)
echo "populating PostgreSQL with $runs runs from 1,000 hosts"
$populate "$fleet" "$runs" 1000
export IOZONE_DB=$fleet
hyperfine -N --warmup 2 --runs 10 --style basic --export-markdown target/bench-fleet.md \
  --command-name 'history --host H --limit 50' "$iozone history --host host-0007 --limit 50" \
  --command-name 'compare --by host (1,000 hosts)' "$iozone compare before after --by host --format json" \
  >/dev/null
cat target/bench-fleet.md
walks

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
