#!/usr/bin/env bash
# 16-bench-llm-slo.sh - demo step: LLM SLOs the MLPerf way (early stopping on p99 TTFT and p99
# TPOT), the highest concurrency meeting a TTFT SLO, and the replay of an Azure LLM inference
# trace, against the OpenAI fixture whose timeline is known (docs/latscope-bench-llm.md).
set -euo pipefail
: "${LATSCOPE:?}"
: "${LATSCOPE_SRCDIR:=$(cd "$(dirname "$0")/.." && pwd)}"
step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
if ! "$LATSCOPE" serve-test openai --help >/dev/null 2>&1; then
    step "LLM SLOs: skipped (serve-test openai not in this build)"
    exit 0
fi
tmp=$(mktemp -d /tmp/latscope-demo-llmslo.XXXXXX)
"$LATSCOPE" serve-test openai --prefill 30ms --token-interval 10ms --max-seqs 4 \
    --port-file "$tmp/port" >/dev/null 2>&1 &
srv=$!
trap 'kill $srv 2>/dev/null; wait $srv 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 1 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
url=http://127.0.0.1:$(cat "$tmp/port")/v1/completions

step "p99 TTFT and p99 TPOT at 99 % confidence (LoadGen early stopping): the point ends once proven"
echo "\$ latscope bench --target openai URL --input-tokens 8 --output-tokens 2 -c 4 --duration 30s --slo 'ttft.p99<=200ms,tpot.p99<=50ms' --confidence 0.99"
"$LATSCOPE" bench --target openai "$url" --input-tokens 8 --output-tokens 2 -c 4 \
    --duration 30s -t 1 --slo 'ttft.p99<=200ms,tpot.p99<=50ms' --confidence 0.99 |
    grep -E '^point|requests [0-9]+ in|SLO|VALID' || true
echo "(459 requests with none over the limit prove a p99 at 99 %: the 30 s point stops after a few s)"

step "the highest concurrency meeting ttft.p99<=80ms (a server with 4 sequence slots)"
echo "\$ latscope bench --target openai URL --input-tokens 8 --output-tokens 8 --find-max -c 1:64 --slo 'ttft.p99<=80ms' --duration 1s"
"$LATSCOPE" bench --target openai "$url" --input-tokens 8 --output-tokens 8 --find-max \
    -c 1:64 --slo 'ttft.p99<=80ms' --duration 1s -t 1 2>/dev/null | grep -E '^point|  SLO|^find-max' || true
echo "(truth: up to 4 clients TTFT = 30 ms prefill; from 5 on a request waits 100 ms for a slot)"

step "replay of an Azure LLM inference trace (AzurePublicDataset CSV; hand-made 7 rows)"
csv=$LATSCOPE_SRCDIR/tests/e2e/data/handmade-azure-conv.csv
head -3 "$csv"
echo "\$ latscope bench --target openai URL --replay handmade-azure-conv.csv --max-send-lag 50"
"$LATSCOPE" bench --target openai "$url" --replay "$csv" --max-send-lag 50 -t 1 |
    grep -E '^point|requests [0-9]+ in|^ttft|^tpot' || true
