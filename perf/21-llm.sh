#!/usr/bin/env bash
# 21-llm.sh - `latscope bench --target openai` against the OpenAI fixture on loopback:
#  (1) N concurrent streams at 50 tokens/s each (token interval 20 ms): measured chunk gap
#      p50/p99 minus the true 20 ms, client CPU;
#  (2) zero prefill, one stream: TTFT p50/p99 = loopback + fixture + client floor.
# Prints name<TAB>value<TAB>unit<TAB>note lines; never asserts. LLM_STREAMS overrides N (1000).
set -euo pipefail
L=${LATSCOPE:?}
tmp=$(mktemp -d)
trap 'kill $fx 2>/dev/null || true; rm -rf "$tmp"' EXIT
"$L" bench --help >"$tmp/help" 2>/dev/null || true
if ! grep -q openai "$tmp/help" || ! "$L" serve-test openai --help >/dev/null 2>&1; then
    printf 'llm.skipped\t0\t-\tbench --target openai not wired (docs/latscope-bench-llm.md)\n'
    exit 0
fi
ulimit -n 65536 2>/dev/null || true
n=${LLM_STREAMS:-1000}
run() { # $1 fixture args, $2 bench args
    "$L" serve-test openai --port-file "$tmp/port" $1 >/dev/null 2>&1 &
    fx=$!
    for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
    # shellcheck disable=SC2086
    "$L" bench --target openai "http://127.0.0.1:$(cat "$tmp/port")/v1/completions" $2 \
        --format json >"$tmp/out" 2>/dev/null || true
    kill $fx; wait $fx 2>/dev/null || true
    rm -f "$tmp/port"
}
run "--prefill 0 --token-interval 20ms" "--input-tokens 16 --output-tokens 100 -c $n -t 2 --duration 10s --warmup 3s"
python3 - "$tmp/out" "$n" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]; n = sys.argv[2]
g = p["chunk_gap_ms"]
print(f"llm.streams{n}.chunk_gap_p50_minus_true\t{(g['p50'] - 20) * 1000:.1f}\tus\t{n} streams x 50 tok/s, true gap 20 ms")
print(f"llm.streams{n}.chunk_gap_p99_minus_true\t{(g['p99'] - 20) * 1000:.1f}\tus\tfixture wake-up jitter included")
print(f"llm.streams{n}.tokens_per_s\t{p['output_tokens_per_s']:.0f}\ttok/s\t")
print(f"llm.streams{n}.client_cpu\t{p['client_cpu_pct']:.0f}\t%\t100 = one core")
PY
run "--prefill 0 --token-interval 1ms" "--input-tokens 16 --output-tokens 2 -c 1 -t 1 --duration 5s --warmup 1s"
python3 - "$tmp/out" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
t = p["ttft_send_ms"]
print(f"llm.ttft_floor_p50\t{t['p50'] * 1000:.1f}\tus\tzero prefill, 1 stream: loopback + fixture + client")
print(f"llm.ttft_floor_p99\t{t['p99'] * 1000:.1f}\tus\t")
PY
