#!/usr/bin/env bash
# Builds a history database of RUNS runs (default 100,000) with 20 results each
# through the store interface, then times whole `iozone` commands against it with
# hyperfine: history --limit 50, history --label X, history --host H --since 30d,
# show latest. Targets on a 2-core machine: each under 50 ms; recording one run under
# 10 ms. Reports the database size per run.
#
#   scripts/bench-history.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."

runs=${1:-100000}
db=target/bench-history.db

if ! command -v hyperfine >/dev/null; then
  echo "installing hyperfine" >&2
  apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null
fi
cargo build --release --quiet --bin iozone --example populate_history
target/release/examples/populate_history "$db" "$runs"

# the database is opened once so WAL checkpoints are not part of the first timing
IOZONE_DB=$db target/release/iozone db check >/dev/null

export IOZONE_DB=$db
hyperfine -N --warmup 3 --runs 30 --style basic --export-markdown target/bench-history.md \
  --command-name 'history --limit 50' 'target/release/iozone history --limit 50' \
  --command-name 'history --label X' 'target/release/iozone history --label X' \
  --command-name 'history --host H --since 30d' 'target/release/iozone history --host host-07 --since 30d' \
  --command-name 'show latest' 'target/release/iozone show latest' \
  >/dev/null
cat target/bench-history.md
