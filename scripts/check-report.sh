#!/usr/bin/env bash
# Checks `iozone report` end to end in a real browser: records a few small real runs
# in two labelled groups (A: flush, B: sync) into a scratch database, writes the HTML
# report comparing them, and loads it in headless Chromium with no network. Fails when
# the file references anything outside itself, when Chromium logs an error about the
# page (the report's Content-Security-Policy turns any attempted fetch into a console
# message), or when the DOM lacks the charts. Leaves a screenshot for a human to look at.
#
#   scripts/check-report.sh [OUT_DIR]     (default target/check-report)
set -euo pipefail
cd "$(dirname "$0")/.."

out=$(realpath -m "${1:-target/check-report}")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "check-report: $*" >&2
  exit 1
}

if ! command -v chromium >/dev/null; then
  echo "installing chromium" >&2
  apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi
cargo build --release --quiet --bin iozone
iozone=target/release/iozone

# Real runs, small enough to take seconds: two groups of five that differ in cache
# mode, so the comparison has something to say (sync makes writes slower) and each
# side is drawn as its median and range.
export IOZONE_DB=$tmp/h.db
mkdir -p "$tmp/data"
for _ in 1 2 3 4 5; do
  $iozone run -s 1M -r 4k,64k -n 3 -l A -q -d "$tmp/data" >/dev/null
done
for _ in 1 2 3 4 5; do
  $iozone run -s 1M -r 4k,64k -n 3 -l B --cache sync -q -d "$tmp/data" >/dev/null
done

# The groups differ in cache mode, which is part of the row key: without dropping it
# from the match the two sides have no row in common.
report_args=(A B -o "$out/report.html")
help=$($iozone report --help)
if [[ $help == *--ignore-param* ]]; then
  report_args+=(--ignore-param cache)
fi
$iozone report "${report_args[@]}"
html=$out/report.html
[[ -s $html ]] || fail "no report written at $html"

# Self-contained: nothing that a browser would fetch.
if grep -nE 'src=|<link|<script|https?://|url\(|@import' "$html" >&2; then
  fail "the report references something outside itself (lines above)"
fi

# Console messages are about the page (it has no script, so any is a CSP violation or
# a load error); ERROR lines are too unless they are the sandbox's GPU and D-Bus noise.
noise='dbus|bus\.cc|object_proxy|gpu|viz|vaapi|gl_|angle|sandbox|zygote|ozone|crashpad|power_monitor|idle_linux'
chromium_flags=(
  --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
  --disable-background-networking --disable-component-update --disable-sync
  --host-resolver-rules='MAP * ~NOTFOUND' --enable-logging=stderr --v=0
)
load() { # load STDERR_LOG FLAG...: one Chromium run on the report, with a fresh profile
  local err=$1
  shift
  chromium "${chromium_flags[@]}" --user-data-dir="$(mktemp -d -p "$tmp")" "$@" \
    "file://$html" 2>"$err"
  local problems
  problems=$(grep -E ':CONSOLE|net::ERR_|Failed to load|Refused to' "$err" || true)
  problems+=$(grep -E ':ERROR:' "$err" | grep -vE "$noise" || true)
  if [[ -n $problems ]]; then
    echo "$problems" >&2
    fail "Chromium reported problems loading the page (full log: $err)"
  fi
}

load "$out/chromium-dom.log" --dump-dom >"$out/report.dom.html"
load "$out/chromium-screenshot.log" --screenshot="$out/report.png" --window-size=1280,2400
[[ -s $out/report.png ]] || fail "Chromium wrote no screenshot"

# The DOM as the browser built it: a chart per test, a legend, the comparison.
dom=$out/report.dom.html
count() { grep -o "$1" "$dom" | wc -l; }
charts=$(count '<figure class="chart throughput">')
for test in write read; do # the default tests include both
  grep -q "<h3>$test</h3>" "$dom" || fail "no $test chart in the DOM"
done
(( $(count '<svg') >= charts )) || fail "throughput figures without an svg"
# two groups: each chart has a legend, a median line and a band per side, and the
# sides' colours differ
for side in baseline candidate; do
  (( $(count "<ul class=\"legend $side\">") == charts )) || fail "a throughput chart without the $side's legend"
  (( $(count "<polyline class=\"series $side\"") >= charts )) || fail "a throughput chart without the $side's line"
  (( $(count "<polygon class=\"band $side\"") >= charts )) || fail "a throughput chart without the $side's band"
done
colours() { grep -o "<polyline class=\"series $1\"[^>]*stroke=\"#[0-9a-f]*\"" "$dom" | grep -o '#[0-9a-f]*' | sort -u; }
if [[ -n $(comm -12 <(colours baseline) <(colours candidate)) ]]; then
  fail "the two sides share a colour"
fi
grep -q '<table class="rows">' "$dom" \
  || fail "no comparison table: A and B had no row in common (does 'report' take --ignore-param?)"
grep -q 'class="chart changes"' "$dom" || fail "no change chart in the comparison"
if grep -qE 'NaN|Infinity' "$dom"; then
  fail "the DOM contains NaN or Infinity"
fi

echo "check-report: ok: $charts throughput charts, the comparison and its chart, no page errors"
echo "report:     $html"
echo "screenshot: $out/report.png"
