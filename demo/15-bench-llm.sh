#!/usr/bin/env bash
# 15-bench-llm.sh - demo step: an OpenAI-compatible streaming fixture with a known timeline
# (50 ms prefill, a token every 10 ms, 4 sequence slots), loaded by `latscope bench --target
# openai` with 8 clients: TTFT shows the queueing, TPOT/ITL the decode pace, goodput the SLO.
set -euo pipefail
: "${LATSCOPE:?}"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
"$LATSCOPE" bench --help >/tmp/latscope-demo-llm-help.$$ 2>/dev/null || true
if ! grep -q openai /tmp/latscope-demo-llm-help.$$ ||
    ! "$LATSCOPE" serve-test openai --help >/dev/null 2>&1; then
    rm -f /tmp/latscope-demo-llm-help.$$
    step "latscope bench --target openai: skipped (not in this build)"
    exit 0
fi
rm -f /tmp/latscope-demo-llm-help.$$
tmp=$(mktemp -d /tmp/latscope-demo-llm.XXXXXX)
"$LATSCOPE" serve-test openai --prefill 50ms --token-interval 10ms --max-seqs 4 \
    --port-file "$tmp/port" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
base=http://127.0.0.1:$(cat "$tmp/port")

step "latscope bench --target openai: streaming chat completions, 8 clients on a server with 4 slots"
echo "\$ latscope bench --target openai $base/v1/chat/completions --input-tokens 64 --output-tokens 32 -c 8 --duration 3s --slo 'ttft<=200ms,tpot<=20ms' --metrics-url $base/metrics"
"$LATSCOPE" bench --target openai "$base/v1/chat/completions" --input-tokens 64 \
    --output-tokens 32 -c 8 --duration 3s -t 1 --slo 'ttft<=200ms,tpot<=20ms' \
    --metrics-url "$base/metrics" || true
echo "(truth: TTFT = 50 ms prefill + one whole request of queueing (50 + 31 x 10 = 360 ms) once the"
echo " 4 slots are busy; TPOT = ITL = 10 ms; the server reports 4 running and 4 waiting requests)"

step "the same run with vLLM's metric definitions (pooled ITL, numpy percentiles, send anchor)"
"$LATSCOPE" bench --target openai "$base/v1/chat/completions" --input-tokens 64 \
    --output-tokens 32 -c 8 --duration 2s -t 1 --metrics-compat vllm --format json \
    >"$tmp/v.json" || true
python3 - "$tmp/v.json" <<'PY' 2>/dev/null || cat "$tmp/v.json"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
f = lambda k: f"p50 {p[k]['p50']:.2f} ms, p99 {p[k]['p99']:.2f} ms (N {p[k]['n']})"
print(f"  vLLM view: TTFT {f('ttft_ms')}; TPOT {f('tpot_ms')}; ITL {f('itl_ms')}")
PY
