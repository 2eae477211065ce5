#!/usr/bin/env bash
# t506-llm-metrics-url: --metrics-url scrapes the server's Prometheus endpoint around and during
# each point and reports the known vLLM series next to the client metrics.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 20ms --token-interval 10ms --max-seqs 2
base="http://127.0.0.1:$FX_PORT"
expect_rc 0 "$LATSCOPE" bench --target openai "$base/v1/completions" --input-tokens 8 \
    --output-tokens 50 -c 4 --duration 2500ms -t 1 --metrics-url "$base/metrics" --format json
python3 - "$TMPDIR/out" <<'PY' || fail "result: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
m = p["server_metrics"]
assert m is not None and m["scrapes"] >= 2 and m["scrape_errors"] == 0, m
s = {x["label"]: x for x in m["series"]}
# 4 clients on 2 sequence slots: 2 running, 2 waiting most of the time
assert s["running requests"]["metric"] == "vllm:num_requests_running"
assert s["running requests"]["max"] == 2, s
assert s["waiting requests"]["max"] >= 1, s
# the server's generated-token counter moved by what the client received, within the requests
# that straddle the point's end
gen = s["generated tokens"]["delta"]
assert abs(gen - p["output_tokens"]) <= 4 * 50, (gen, p["output_tokens"])
PY
# A URL that is not a Prometheus endpoint is a setup error (exit 2) naming the URL.
expect_rc 2 "$LATSCOPE" bench --target openai "$base/v1/completions" --input-tokens 8 \
    --output-tokens 5 -n 1 --metrics-url "$base/v1/models"
contains "$TMPDIR/err" "/v1/models"
exit 0
