#!/usr/bin/env bash
# t245-bench-small-fixes: issue 17 item 7's smaller ones: --no-stream has no TPOT/ITL samples
# (was 0.000 for every request), "1 thread" (was "1 threads"), the CSV of --target openai has
# TTFT/ITL/TPOT/E2E columns, and --metrics-url on a 404 says "HTTP 404".
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 2ms
URL="http://127.0.0.1:$FX_PORT/v1/chat/completions"

expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
    --no-stream -c 1 -n 5 -t 1
grep -Eq "^tpot +- +0  \(no samples\)" "$TMPDIR/out" || fail "no-stream tpot: $(cat "$TMPDIR/out")"
grep -Eq "^itl +- +0  \(no samples\)" "$TMPDIR/out" || fail "no-stream itl: $(cat "$TMPDIR/out")"
grep -q "(closed, 1 thread)" "$TMPDIR/out" || fail "thread count grammar: $(head -1 "$TMPDIR/out")"
for v in vllm genai-perf; do
    expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
        --no-stream -c 1 -n 5 -t 1 --metrics-compat $v --format json
    python3 - "$TMPDIR/out" <<'PY' || fail "no-stream $v: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
assert p["no_tpot_requests"] == 5, p["no_tpot_requests"]
PY
done
# Streaming still has them.
expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
    -c 1 -n 5 -t 2
grep -Eq "^tpot +- +5 " "$TMPDIR/out" || fail "stream tpot: $(cat "$TMPDIR/out")"
grep -q "(closed, 2 threads)" "$TMPDIR/out" || fail "2 threads: $(head -1 "$TMPDIR/out")"

# CSV: the perf_analyzer columns first, then the LLM ones.
expect_rc 0 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 \
    -c 1,2 -n 10 -t 1 --format csv
python3 - "$TMPDIR/out" <<'PY' || fail "csv: $(cat "$TMPDIR/out")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) == 2, rows
for r in rows:
    assert list(r)[:2] == ["Concurrency", "Inferences/Second"], list(r)
    ttft, itl, tpot = float(r["TTFT p50"]), float(r["ITL p50"]), float(r["TPOT p50"])
    assert ttft >= 5000, r            # prefill 5 ms, in us
    assert 1500 <= itl and 1500 <= tpot, r   # 2 ms per token
    assert float(r["E2E p50"]) >= ttft and float(r["Output Tokens/Second"]) > 0, r
PY
# The plain target's CSV has no LLM columns.
"$LATSCOPE" serve-test --port 0 --max-seconds 60s >"$TMPDIR/g.port" 2>/dev/null &
GP=$!
trap 'kill $FX_PID $GP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 100); do [[ -s $TMPDIR/g.port ]] && break; sleep 0.05; done
G=$(head -1 "$TMPDIR/g.port" | tr -dc 0-9)
expect_rc 0 "$LATSCOPE" bench -c 1 -n 10 -t 1 --format csv "http://127.0.0.1:$G/"
head -1 "$TMPDIR/out" | grep -q "TTFT" && fail "http CSV has LLM columns"

# --metrics-url answering 404: the status, not "malformed".
expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 4 -n 2 \
    --metrics-url "http://127.0.0.1:$G/status/404"
contains "$TMPDIR/err" "the server answered HTTP 404"
exit 0
