#!/usr/bin/env bash
# 90-report.sh - `latscope report`: the demo ends by writing one self-contained HTML file with a
# trace page (a HAND-MADE launch-bound trace, and the real MTIA trace when the shared corpus is
# present), a bench page and an HDR log page from a short run against the fixture, and says
# where it is (LATSCOPE_DEMO_OUT, default /tmp).
set -euo pipefail
root=${LATSCOPE_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
L=${LATSCOPE:-$root/build/latscope}
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
out=${LATSCOPE_DEMO_OUT:-/tmp}/latscope-demo-report.html
tmp=$(mktemp -d /tmp/latscope-demo-report.XXXXXX)
srv=
trap '[[ -n $srv ]] && { kill $srv 2>/dev/null; wait $srv 2>/dev/null; }; rm -rf "$tmp"' EXIT
inputs=("$root/tests/data/handmade-doctor-launch.json")
mt=${LATSCOPE_TRACES:-$root/../shared/traces}/hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
[[ -f $mt ]] && inputs+=("$mt")
if "$L" serve-test --help 2>/dev/null | grep -q -- --port; then
    "$L" serve-test --port 0 --service exp:2ms --workers 4 --max-seconds 30s >"$tmp/port" 2>/dev/null &
    srv=$!
    for _ in $(seq 1 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
    "$L" bench -r 100,300 --duration 1s --max-send-lag 20 --hdr-log "$tmp/run.hlog" --format json \
        "http://127.0.0.1:$(head -1 "$tmp/port")/" >"$tmp/run.json" 2>/dev/null || true
    [[ -s $tmp/run.json ]] && inputs+=("$tmp/run.json" "$tmp/run.hlog")
fi
step "latscope report: one HTML file (timeline, breakdowns, findings, load curves), nothing to fetch"
echo "\$ latscope report ${inputs[*]##*/} -o $out"
"$L" report "${inputs[@]}" -o "$out"
echo "open it in a browser: file://$out"
