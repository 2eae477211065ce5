#!/usr/bin/env bash
# 10-bench.sh - demo step: start the fixture server, load it for a few seconds with
# `latscope bench` (closed loop at two concurrencies, then an open loop), show the table, stop.
set -euo pipefail
: "${LATSCOPE:?}"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
if ! "$LATSCOPE" serve-test --help 2>/dev/null | grep -q -- --port; then
    step "latscope bench: skipped (serve-test is not in this build)"
    exit 0
fi
tmp=$(mktemp -d /tmp/latscope-demo-bench.XXXXXX)
"$LATSCOPE" serve-test --port 0 --service exp:2ms --workers 4 --max-seconds 60s \
    >"$tmp/port" 2>/dev/null &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
url=http://127.0.0.1:$(head -1 "$tmp/port")/

step "latscope bench: a fixture server (exp. 2 ms service, 4 workers), closed loop, 1 and 8 connections"
echo "\$ latscope bench -c 1,8 --duration 2s $url"
"$LATSCOPE" bench -c 1,8 --duration 2s "$url" || true
echo "(8 connections, 4 workers: req/s stops near 4 x 1/2 ms = 2000; the other requests queue in the server, so latency grows)"

step "latscope bench: open loop, Poisson 300 req/s; latency from the intended send and the actual send"
echo "\$ latscope bench -r 300 --duration 2s --format json $url | (key fields)"
"$LATSCOPE" bench -r 300 --duration 2s --max-send-lag 20 --format json "$url" >"$tmp/r.json" || true
python3 - "$tmp/r.json" <<'PY' 2>/dev/null || cat "$tmp/r.json"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
print(f"  requests {p['requests']}, achieved {p['achieved_rps']:.1f} req/s, errors {p['errors']['total']}")
print(f"  p50/p99 from intended send {p['latency_ms']['p50']:.3f}/{p['latency_ms']['p99']:.3f} ms, "
      f"from actual send {p['latency_actual_ms']['p50']:.3f}/{p['latency_actual_ms']['p99']:.3f} ms")
print(f"  send lag p99 {p['send_lag_ms']['p99']:.3f} ms, client CPU {p['client_cpu_pct']} %, valid {p['valid']}")
PY
