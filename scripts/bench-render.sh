#!/usr/bin/env bash
# Rendering a run whose text is huge.
#
#   scripts/bench-render.sh [BYTES...]     default: 100000 1000000 10000000
#
# Records one tiny run, exports it, and for each size imports it again with a label of
# BYTES characters and no space (the worst case for a table, which cannot wrap it at a
# space) and a note of BYTES characters of words, into an empty SQLite database. Then
# times `show`, `show --format markdown`, `history`, `history --all` and `report` on
# it (CPU seconds, user + system, from /usr/bin/time) and counts the bytes each
# writes. Rendering must grow linearly with the text (reading it from the database
# does), not with its square: before the cells were cut ahead of the table's layout,
# `show` of a 10 MB label never finished.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/time ]; then
  echo "installing GNU time" >&2
  apt-get update -qq && apt-get install -y -qq time >/dev/null
fi
cargo build --release --quiet --bin iozone
iozone=$(realpath target/release/iozone)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mkdir "$work/dir"
IOZONE_DB=$work/base.db "$iozone" -q run -s 64k -r 4k -n 1 --warmup 0 -i write,read -d "$work/dir" >/dev/null
IOZONE_DB=$work/base.db "$iozone" export --format json >"$work/base.json"

sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100000 1000000 10000000)
printf '%10s  %-28s %8s %12s\n' "text" "command" "CPU s" "output bytes"
for size in "${sizes[@]}"; do
  python3 - "$work/base.json" "$work/big.json" "$size" <<'PY'
import json, sys, uuid
source, target, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
document = json.load(open(source))
run = document["runs"][0]
run["uuid"] = str(uuid.uuid4())
run["labels"] = [("label-without-a-space-" * (size // 22 + 1))[:size]]
run["note"] = ("a note of words. " * (size // 17 + 1))[:size]
json.dump(document, open(target, "w"))
PY
  db=$work/big-$size.db
  IOZONE_DB=$db "$iozone" -q import "$work/big.json"
  for command in "show 1" "show 1 --format markdown" "history" "history --all" \
    "report -o $work/report.html"; do
    IOZONE_DB=$db /usr/bin/time -f '%U %S' -o "$work/time.txt" \
      "$iozone" -q --color never $command >"$work/out.txt"
    cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$work/time.txt")
    bytes=$(stat -c %s "$work/out.txt")
    [[ $command == report* ]] && bytes=$(stat -c %s "$work/report.html")
    printf '%10s  %-28s %8s %12s\n' "$size" "${command%% -o *}" "$cpu" "$bytes"
  done
done
