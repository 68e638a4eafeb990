#!/usr/bin/env bash
# Runs every ```console block of README.md and compares what the release binary prints
# with what the README shows. Measured figures differ from one execution to the next,
# so numbers are masked (and the table borders and padding that follow their widths);
# words, columns, footers and messages must match. The classic comparison, which
# measures nothing, is also checked byte for byte by `cargo test readme`.
#
# Needs root: the examples run on a tmpfs and on ext4 loop filesystems mounted -o sync
# at the paths the README names (/tmp/regen/…, /tmp/fleet/…), and the fleet example on
# the test PostgreSQL server (scripts/pg-test-server.sh), in a database fleet_demo it
# creates afresh. Usage: scripts/check-readme.sh [--show]  (--show prints each output)
# Outputs are kept in target/check-readme/block-N.txt, to paste into README after a
# change of output.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
show=${1:-}
[ "$(id -u)" = 0 ] || { echo "check-readme: needs root (tmpfs and loop mounts)" >&2; exit 2; }

cargo build --release --quiet
out=$root/target/check-readme
rm -rf "$out" && mkdir -p "$out"
eval "$(scripts/pg-test-server.sh)"
password=$(python3 -c 'import sys, urllib.parse as u; print(u.urlparse(sys.argv[1]).password)' "$IOZONE_TEST_PG")

mounts=()
loops=()
cleanup() {
    for m in "${mounts[@]}"; do umount "$m" 2>/dev/null || true; done
    for l in "${loops[@]}"; do losetup -d "$l" 2>/dev/null || true; done
    psql -q "$IOZONE_TEST_PG" -c 'DROP DATABASE IF EXISTS fleet_demo' 2>/dev/null || true
}
trap cleanup EXIT
tmpfs_at() { mkdir -p "$1"; mount -t tmpfs -o "size=$2" tmpfs "$1"; mounts+=("$1"); }
sync_ext4_at() {
    mkdir -p "$1"
    local image=$out/$(basename "$1").img
    truncate -s "$2" "$image"
    mkfs.ext4 -q -F "$image"
    local loop
    loop=$(losetup --find --show "$image")
    loops+=("$loop")
    mount -o sync "$loop" "$1"
    mounts+=("$1")
}
rm -rf /tmp/regen /tmp/fleet
tmpfs_at /tmp/regen/fast 64m
sync_ext4_at /tmp/regen/slow 64m
mkdir -p /tmp/fleet/alpha
tmpfs_at /tmp/fleet/beta-tmpfs 16m
sync_ext4_at /tmp/fleet/beta-sync-ext4 64m
psql -q "$IOZONE_TEST_PG" -c 'DROP DATABASE IF EXISTS fleet_demo' -c 'CREATE DATABASE fleet_demo'

# Each block runs in a fresh database (unless it exports its own) from the repository
# root, with `iozone` the release binary; what each command prints (stderr, then
# stdout, as a terminal shows status before data) follows its `$ ` line.
python3 - "$root" "$out" "$password" "$show" <<'EOF'
import os, re, subprocess, sys
root, out, password, show = sys.argv[1:5]
text = open(os.path.join(root, "README.md")).read()
blocks = re.findall(r"^```console\n(.*?)^```$", text, re.S | re.M)
env = dict(os.environ, PATH=os.path.join(root, "target/release") + ":" + os.environ["PATH"],
           NO_COLOR="1")

def mask(s):
    # the directory measured is wherever the checkout is
    s = re.sub(r"Measuring [^:]+:", "Measuring DIR:", s)
    s = re.sub(r"[+-]?\d[\d.,]*", "0", s)
    s = re.sub(r"[─═]+", "─", s)
    return re.sub(r" +", " ", s)

failed = 0
for n, block in enumerate(blocks, 1):
    env_block = dict(env, IOZONE_DB=os.path.join(out, f"block-{n}.db"))
    expected, actual = [], []
    for part in re.split(r"^\$ ", block, flags=re.M)[1:]:
        command, _, printed = part.partition("\n")
        run = command.replace("PASSWORD", password)
        if run.startswith("export "):
            name, _, value = run[len("export "):].partition("=")
            env_block[name] = value
            result = ""
        else:
            p = subprocess.run(["bash", "-c", run], cwd=root, env=env_block,
                               capture_output=True, text=True)
            result = p.stderr + p.stdout
        expected.append(f"$ {command}\n{printed}")
        actual.append(f"$ {command}\n{result}")
    actual_text = "".join(actual)
    open(os.path.join(out, f"block-{n}.txt"), "w").write(actual_text)
    if show:
        print(actual_text)
    if mask("".join(expected)) != mask(actual_text):
        failed += 1
        import difflib
        print(f"block {n} differs beyond its figures:")
        sys.stdout.writelines(difflib.unified_diff(
            mask("".join(expected)).splitlines(True), mask(actual_text).splitlines(True),
            "README", "iozone"))
    else:
        print(f"block {n}: matches (figures aside)")
sys.exit(1 if failed else 0)
EOF
