#!/usr/bin/env bash
# t503-llm-faults: every fault class the fixture injects (stream cut, error event, malformed
# JSON event, HTTP 503, stall) is counted in its class and the run completes.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 2ms --token-interval 1ms --stall 50ms --seed 7 \
    --faults cut:0.12,error:0.12,malformed:0.12,http:0.12,stall:0.12
set +e
"$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/chat/completions" \
    --input-tokens 8 --output-tokens 8 -c 4 -n 150 -t 1 --format json >"$TMPDIR/out" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || fail "bench exited $rc: $(cat "$TMPDIR/err")"
python3 - "$TMPDIR/out" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
e = p["llm_errors"]
for k in ("stream_cut", "error_event", "malformed", "http"):
    assert e[k] > 0, (k, e)
assert e["total"] == sum(v for k, v in e.items() if k != "total")
# the engine sees the 503s and the cuts too
assert p["errors"]["http_5xx"] == e["http"], (p["errors"], e)
assert p["errors"]["reset"] >= e["stream_cut"], (p["errors"], e)
# stalled streams succeed but show a 50 ms chunk gap
assert p["chunk_gap_ms"]["max"] >= 45, p["chunk_gap_ms"]
assert p["tpot_ms"]["n"] > 0 and p["output_tokens"] > 0
PY
exit 0
