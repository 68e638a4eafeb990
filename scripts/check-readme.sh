#!/usr/bin/env bash
# Runs every ```console block of README.md and of the guide's pages (docs/*.md) and
# compares what the release binary prints with what the page shows. Measured figures
# differ from one execution to the next, so numbers are masked (and the table borders
# and padding that follow their widths), and so is what depends on the moment rather
# than on the program: the busy-machine warnings, the noisy marks (`~`) and their hint,
# the machine's state under "What changed", the form of a p-value (<0.001 or 0.002
# (0.005)), the order of a table's rows, which row is a host's worst. Words, columns,
# footers and messages must match. The classic comparison, which measures nothing, is also checked byte for byte
# by `cargo test readme`.
#
# Needs root: the examples measure on filesystems mounted at the neutral paths the pages
# name, set up afresh before each block — /mnt/data (ext4 on a loop device), /mnt/scratch
# (tmpfs), and for the fleet example /mnt/alpha and /mnt/beta-tmpfs (tmpfs) and
# /mnt/beta-sync (ext4 mounted -o sync) — and run the fleet example on the test
# PostgreSQL server (scripts/pg-test-server.sh), in a database fleet_demo it creates
# afresh. A path already mounted is refused, never mounted over.
#
# Usage: scripts/check-readme.sh [--show|--update] [PAGE...]
#   --show    prints each output
#   --update  writes each block's output into its page (after a change of output; take
#             it on a quiet machine, and read the diff before committing it)
#   PAGE      README.md or docs/NAME.md; all of them by default
# Outputs are also kept in target/check-readme/PAGE-N.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
mode=
case "${1:-}" in --show|--update) mode=${1#--}; shift ;; esac
pages=("$@")
[ ${#pages[@]} -gt 0 ] || pages=(README.md docs/*.md)
[ "$(id -u)" = 0 ] || { echo "check-readme: needs root (tmpfs and loop mounts)" >&2; exit 2; }

targets=(/mnt/data /mnt/scratch /mnt/alpha /mnt/beta-tmpfs /mnt/beta-sync)
for t in "${targets[@]}"; do
    if mountpoint -q "$t" 2>/dev/null; then
        echo "check-readme: $t is already a mount point; unmount it first" >&2
        exit 2
    fi
done

cargo build --release --quiet
out=$root/target/check-readme
rm -rf "$out" && mkdir -p "$out"
eval "$(scripts/pg-test-server.sh)"
password=$(python3 -c 'import sys, urllib.parse as u; print(u.urlparse(sys.argv[1]).password)' "$IOZONE_TEST_PG")

made=()
loops=()
cleanup() {
    for t in "${targets[@]}"; do umount "$t" 2>/dev/null || true; done
    for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
    for d in "${made[@]}"; do rmdir "$d" 2>/dev/null || true; done
    psql -q "$IOZONE_TEST_PG" -c 'DROP DATABASE IF EXISTS fleet_demo' 2>/dev/null || true
}
trap cleanup EXIT
for t in "${targets[@]}"; do
    [ -d "$t" ] || { mkdir -p "$t"; made+=("$t"); }
done
# One loop device per ext4 filesystem, made once; each block gets it freshly formatted.
ext4_loop() {
    local image=$out/$(basename "$1").img
    truncate -s "$2" "$image"
    losetup --find --show "$image"
}
data_loop=$(ext4_loop /mnt/data 256m); loops+=("$data_loop")
sync_loop=$(ext4_loop /mnt/beta-sync 64m); loops+=("$sync_loop")

# Before each block: every filesystem unmounted, made anew and mounted with its
# options, so that no block sees what another left (a remount, files, free space).
fresh_mounts() {
    for t in "${targets[@]}"; do umount "$t" 2>/dev/null || true; done
    mkfs.ext4 -q -F "$data_loop" && mount "$data_loop" /mnt/data
    mount -t tmpfs -o size=64m tmpfs /mnt/scratch
    mount -t tmpfs -o size=16m tmpfs /mnt/alpha
    mount -t tmpfs -o size=16m tmpfs /mnt/beta-tmpfs
    mkfs.ext4 -q -F "$sync_loop" && mount -o sync "$sync_loop" /mnt/beta-sync
    PGOPTIONS='-c client_min_messages=warning' psql -q "$IOZONE_TEST_PG" \
        -c 'DROP DATABASE IF EXISTS fleet_demo' -c 'CREATE DATABASE fleet_demo'
}

# Each block runs in a fresh database (unless it exports its own) from the repository
# root, with `iozone` the release binary; what each command prints (stderr, then
# stdout, as a terminal shows status before data) follows its `$ ` line.
failed=0
for page in "${pages[@]}"; do
    count=$(grep -c '^```console$' "$page" || true)
    for ((n = 1; n <= count; n++)); do
        fresh_mounts
        python3 - "$root" "$out" "$password" "$mode" "$page" "$n" <<'EOF' || failed=1
import os, re, subprocess, sys
root, out, password, mode, page, n = sys.argv[1:7]
n = int(n)
text = open(os.path.join(root, page)).read()
block = re.findall(r"^```console\n(.*?)^```$", text, re.S | re.M)[n - 1]
name = f"{page.replace('docs/', '').removesuffix('.md')}-{n}"
env = dict(os.environ, PATH=os.path.join(root, "target/release") + ":" + os.environ["PATH"],
           NO_COLOR="1", IOZONE_DB=os.path.join(out, f"{name}.db"))

def mask(s):
    # the directory measured is wherever the page says, but a run from the checkout
    # names the checkout
    s = re.sub(r"Measuring [^:]+:", "Measuring DIR:", s)
    # what the moment decides: a busy machine, noisy cells, the machine's state
    s = re.sub(r"^warning: the machine is busy.*\n", "", s, flags=re.M)
    s = re.sub(r"^~ noisy.*\n", "", s, flags=re.M)
    s = re.sub(r"^│ machine\.at_(start|end) .*\n(│ +┆.*\n)*", "", s, flags=re.M)
    s = s.replace(" ~ ", " ")
    s = re.sub(r"[+-]?\d[\d.,]*", "0", s)
    s = re.sub(r"<?0 \(0\)|<0", "0", s)
    # which row is a host's worst is for the figures to say
    s = re.sub(r"┆ [a-z_]+ (0 [KMG]i?B 0 [KMG]i?B)", r"┆ TEST \1", s)
    s = re.sub(r"[─═]+", "─", s)
    s = re.sub(r" +", " ", s)
    # rows sorted by their figures may come in another order
    lines, rows, result = s.split("\n"), [], []
    for line in lines + [""]:
        if line.startswith("│"):
            rows.append(line)
            continue
        result += sorted(rows) + [line]
        rows = []
    return "\n".join(result[:-1])

expected, actual = [], []
for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
    command, _, printed = part.partition("\n")
    run = command.replace("PASSWORD", password)
    if run.startswith("export "):
        key, _, value = run[len("export "):].partition("=")
        env[key] = value
        result = ""
    else:
        p = subprocess.run(["bash", "-c", run], cwd=root, env=env,
                           capture_output=True, text=True)
        result = p.stderr + p.stdout
    expected.append(f"$ {command}\n{printed}")
    actual.append(f"$ {command}\n{result}")
actual_text = "".join(actual)
open(os.path.join(out, f"{name}.txt"), "w").write(actual_text)
if mode == "show":
    print(actual_text)
if mode == "update":
    # the page as it is now: blocks before this one may have been rewritten
    text = open(os.path.join(root, page)).read()
    spans = [m.span(1) for m in re.finditer(r"^```console\n(.*?)^```$", text, re.S | re.M)]
    start, end = spans[n - 1]
    open(os.path.join(root, page), "w").write(text[:start] + actual_text + text[end:])
    print(f"{page} block {n}: written")
    sys.exit(0)
if mask("".join(expected)) != mask(actual_text):
    import difflib
    print(f"{page} block {n} differs beyond its figures:")
    sys.stdout.writelines(difflib.unified_diff(
        mask("".join(expected)).splitlines(True), mask(actual_text).splitlines(True),
        page, "iozone"))
    sys.exit(1)
print(f"{page} block {n}: matches (figures aside)")
EOF
    done
done
exit $failed
