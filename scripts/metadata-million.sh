#!/usr/bin/env bash
# One million files in one directory, in bounded memory, and every one removed.
#
#   scripts/metadata-million.sh [DIR] [FILES]      default: a fresh ext4 on /dev/shm, 1000000
#
# Runs `iozone run -i create,stat,readdir,unlink --files FILES --dirs 1` (one round, no
# warm-up, buffered, not recorded) under /usr/bin/time and prints its peak resident
# set; fails when it is 100 MiB or more, when the run fails, or when anything of the
# tree is left (names in DIR, and inodes: the filesystem's count of used inodes must be
# what it was). Without DIR (root needed) it makes an ext4 of 1.1 million inodes on a
# loop device backed by /dev/shm, so the run measures the filesystem and not this
# machine's disk, and removes it at the end. Memory the run holds per file would show
# here: a million files at even 100 bytes each is 95 MiB.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
files=${2:-1000000}
limit_kib=$((100 * 1024))
cleanup=()
# undone last first: the log, the mount, its directory, its image
trap 'for ((i = ${#cleanup[@]} - 1; i >= 0; i--)); do eval "${cleanup[i]}"; done' EXIT
if [ -n "${1:-}" ]; then
  dir=$1
else
  img=$(mktemp /dev/shm/iozone-million.XXXXXX.img)
  dir=$(mktemp -d)
  cleanup+=("rm -f $img" "rmdir $dir" "umount $dir")
  # (undone as umount, rmdir, rm)
  truncate -s 4G "$img"
  mkfs.ext4 -q -F -N $((files + files / 10 + 64)) "$img"
  mount -o loop "$img" "$dir"
fi
cargo build --release --quiet --manifest-path "$here/Cargo.toml"
iozone=$here/target/release/iozone
used_before=$(df --output=iused "$dir" | tail -1 | tr -d ' ')
echo "$(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg); $files files in one directory of $dir ($(df --output=fstype "$dir" | tail -1))"
log=$(mktemp)
cleanup+=("rm -f $log")
/usr/bin/time -v -o "$log" "$iozone" run --no-record -n 1 --warmup 0 --cache buffered \
  -i create,stat,readdir,unlink --files "$files" --dirs 1 -d "$dir"
peak_kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")
used_after=$(df --output=iused "$dir" | tail -1 | tr -d ' ')
left=$(find "$dir" -mindepth 1 -maxdepth 1 -name 'iozone-*' | wc -l)
echo "peak RSS $((peak_kib / 1024)) MiB ($peak_kib KiB), wall $wall; inodes used before $used_before, after $used_after; entries left $left"
[ "$peak_kib" -lt "$limit_kib" ] || { echo "FAIL: peak RSS is not under 100 MiB"; exit 1; }
[ "$left" -eq 0 ] && [ "$used_after" -eq "$used_before" ] || { echo "FAIL: the tree was not removed"; exit 1; }
echo "OK: under 100 MiB, nothing left"
