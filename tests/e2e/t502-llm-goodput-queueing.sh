#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t502-llm-goodput-queueing: with 1 sequence slot and 3 clients requests queue behind each other;
# goodput counts the requests meeting every SLO: good/requests and good/duration.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 10ms --token-interval 2ms --max-seqs 1
url="http://127.0.0.1:$FX_PORT/v1/chat/completions"
for slo in "ttft<=30ms,tpot<=50ms" "ttft<=10s" "tpot<=1us"; do
    expect_rc 0 "$LATSCOPE" bench --target openai "$url" --input-tokens 8 --output-tokens 10 \
        -c 3 -n 15 -t 1 --slo "$slo" --format json
    python3 - "$TMPDIR/out" "$slo" <<'PY' || fail "slo $slo: $(cat "$TMPDIR/out")"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]; slo = sys.argv[2]
n = p["requests"] + p["llm_errors"]["total"]
good = p["good_requests"]
assert abs(p["goodput_fraction"] - good / n) < 1e-6
assert abs(p["goodput_rps"] - good / p["llm_duration_s"]) < 1e-3 * max(1, p["goodput_rps"])
# queueing: one request takes 10 + 9 x 2 = 28 ms; the other two clients wait for it
assert p["ttft_ms"]["p50"] > 28 + 10 - 3, p["ttft_ms"]
if slo == "ttft<=10s": assert good == n
elif slo == "tpot<=1us": assert good == 0
else: assert 0 < good < n, good     # only the first request ran without queueing
PY
done
exit 0
