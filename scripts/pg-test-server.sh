#!/usr/bin/env bash
# Starts a throwaway PostgreSQL cluster for the tests and prints the lines to export:
#   eval "$(scripts/pg-test-server.sh)"
# The cluster lives in /tmp/iozone-pg-PORT (initdb as the unprivileged `postgres` user,
# which must reach the directory, so not under a private home or checkout), listens
# on 127.0.0.1:54329 with password authentication, and has a role `iozone` (password
# `iozone-test`, allowed to create databases: each test makes its own) and a database
# `iozone_test`. Running it again reuses a running cluster. Installs PostgreSQL from
# Debian's packages when it is not there.
set -euo pipefail
cd "$(dirname "$0")/.."

port=${IOZONE_PG_PORT:-54329}
dir=${IOZONE_PG_DIR:-/tmp/iozone-pg-$port}

if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "installing postgresql" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
fi
bin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/initdb | sort -V | tail -1)")

as_postgres() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

if ! as_postgres "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
  rm -rf "$dir"
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  pwfile=$(mktemp)
  echo postgres-admin >"$pwfile"
  chmod 644 "$pwfile"
  as_postgres "$bin/initdb" -D "$dir/data" -U postgres --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 >&2
  rm -f "$pwfile"
  as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w start \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=200 -c fsync=off" >&2
  as_postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -q -v ON_ERROR_STOP=1 >&2 <<SQL
CREATE ROLE iozone LOGIN PASSWORD 'iozone-test' CREATEDB;
CREATE DATABASE iozone_test OWNER iozone;
SQL
fi
echo "export IOZONE_TEST_PG=postgres://iozone:iozone-test@127.0.0.1:$port/iozone_test"
