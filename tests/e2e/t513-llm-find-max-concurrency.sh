#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# san: skip (a 49 s find-max search timed against the fixture; the openai target runs under the sanitizers in t500, t502, t516, the concurrency search in t515)
# t513-llm-find-max-concurrency: `--find-max --concurrency LO:HI` searches whole concurrencies
# (closed loop) with the rate search's algorithm (double from LO, then bisect) and reports the
# knee and the goodput there. The fixture's truth: 4 sequence slots, each request held
# 100 ms prefill + 7 x 30 ms = 310 ms. Up to 4 clients never queue: TTFT = 100 ms. With 5 or
# more clients one request in five (or more) waits a whole request: TTFT = 410 ms. A TTFT SLO of
# 250 ms (150 ms from both: loaded machines stretch the fixture's sleeps) therefore holds at
# concurrency 4 and fails at 5: the answer must be exactly 4, found by the probes 1, 2, 4, 8 (fail), 6 (fail), 5 (fail).
# The SLO is on p90 (one request in five waits from 5 clients on: p90 = 410 ms): a p99 would need
# 100 samples per probe (docs/metrics.md "Enough samples"), 31 s at concurrency 1. Every probe
# is measured twice (an LLM term has no early-stopping claim: each verdict is repeated).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 100ms --token-interval 30ms --max-seqs 4
URL="http://127.0.0.1:$FX_PORT/v1/completions"
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 --find-max \
    --concurrency 1:64 --slo 'ttft.p90<=250ms' --duration 1500ms -t 1 --format json \
    >"$TMPDIR/out" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 0 ]] || fail "find-max exited $rc: $(cat "$TMPDIR/err")"
python3 - "$TMPDIR/out" <<'PY' || fail "result above (JSON in the run's \$TMPDIR/out)"
import json, sys
d = json.load(open(sys.argv[1]))
fm, pts = d["find_max"], d["points"]
assert d["mode"] == "find-max", d["mode"]
assert fm["search"] == "concurrency", fm
assert fm["max_concurrency"] == 4 and fm["lowest_failing_concurrency"] == 5, fm
assert fm["max_rate"] is None and fm["knee_rate"] is None and fm["lowest_failing_rate"] is None, fm
probes = [p["concurrency"] for p in pts]
assert list(dict.fromkeys(probes)) == [1, 2, 4, 8, 6, 5], probes  # bracket-then-bisect, whole steps
assert all(probes.count(c) >= 2 for c in probes), probes          # each verdict measured again
assert fm["range"]["low"] == 4 and fm["range"]["high"] == 5 and not fm["range"]["inconclusive"], fm
assert all(p["rate"] is None for p in pts), [p["rate"] for p in pts]
best = pts[fm["point"]]
assert best["concurrency"] == 4 and best["slo"]["pass"], best["slo"]
assert 95 <= best["ttft_ms"]["p90"] < 250, best["ttft_ms"]
for p in pts:
    ok = p["concurrency"] <= 4
    assert p["slo"]["pass"] == ok, (p["concurrency"], p["slo"])
    if not ok:  # the queued requests wait a whole request: ~410 ms
        assert p["slo"]["terms"][0]["observed_ms"] >= 300, p["slo"]
# goodput at the knee: every request met ttft <= 250 ms; 4 clients x 3.2 req/s each at most
assert fm["goodput_fraction"] == 1.0, fm
assert 4 <= fm["goodput_rps"] <= 13.5 and fm["achieved_rps"] >= fm["goodput_rps"], fm
PY

# Text output, and a start N instead of a range (probes 4 pass, 8, 6, 5 fail).
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 --find-max \
    -c 4 --slo 'ttft.p90<=250ms' --duration 1500ms -t 1 >"$TMPDIR/out2" 2>"$TMPDIR/err2"
rc=$?
set -e
[[ $rc -eq 0 ]] || fail "find-max -c 4 exited $rc: $(cat "$TMPDIR/err2")"
contains "$TMPDIR/out2" "find-max: highest concurrency meeting ttft.p90<=250ms: 4 (point "
contains "$TMPDIR/out2" "find-max: the knee lies between 4 (met in every measurement) and 5 (missed in every measurement)"
contains "$TMPDIR/out2" "find-max: at the knee"

# Even the lowest concurrency misses: exit 1, said plainly.
set +e
"$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 8 --find-max \
    -c 1:2 --slo 'ttft.p90<=10ms' -n 4 -t 1 >"$TMPDIR/out3" 2>"$TMPDIR/err3"
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "unmet find-max exited $rc: $(cat "$TMPDIR/err3")"
contains "$TMPDIR/out3" "find-max: no probed concurrency met ttft.p90<=10ms"

# Range errors are usage errors that say what to write.
for bad in 1:64:2 0:8 8:4 1.5:4 1,2; do
    expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --find-max -c "$bad" --slo 'ttft.p99<=1s'
    contains "$TMPDIR/err" "--concurrency"
done
expect_rc 2 "$LATSCOPE" bench --target openai "$URL" --find-max -c 1:8 --max-rate 5 \
    --slo 'ttft.p99<=1s'
contains "$TMPDIR/err" "LO:HI"
exit 0
