#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t271-bench-cancel: clients that give up (issue 17). A seeded share of the requests cancels
# (--cancel-after D on any target, --cancel-after-tokens N on openai streams); a cancelled
# request closes its connection and counts as "cancelled", neither ok nor an error. The
# fixture counts the responses its clients closed before the end: the counts agree exactly.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
stat_of() { curl -s "$1/fixture/stats" | python3 -c "import json,sys; print(json.load(sys.stdin)['$2'])"; }

# http, closed loop: 40 requests, half of them (seeded) cancelled 10 ms after the send of a
# 40 ms response.
start_fixture --service 40ms
"$LATSCOPE" bench -c 2 -t 1 -n 40 --cancel-after 10ms --cancel-share 0.5 --seed 3 \
    --records "$TMPDIR/r.jsonl" --format json "$FIXTURE_URL/" >"$TMPDIR/a.json" 2>"$TMPDIR/a.err" ||
    { cat "$TMPDIR/a.err"; fail "http --cancel-after"; }
aborted=$(stat_of "$FIXTURE_URL" client_aborted)
check_py "$TMPDIR/a.json" "
p = d['points'][0]
c = p['cancelled']
assert 8 <= c <= 32, c
assert c == $aborted, ('bench cancelled', c, 'fixture saw', $aborted)
assert p['requests'] + c == 40 and p['errors']['total'] == 0, (p['requests'], c, p['errors'])
assert p['cancel']['after_ms'] == 10.0 and p['cancel']['share'] == 0.5, p['cancel']
assert p['valid'] is True
assert p['histogram_extremes_ns']['latency'][0] >= 39e6, p['histogram_extremes_ns']  # cancelled: in no latency
"
n=$(grep -c '"error":"cancelled"' "$TMPDIR/r.jsonl")
[[ $n == $(jq_py "$TMPDIR/a.json" "d['points'][0]['cancelled']") ]] || fail "records: $n cancelled"
# The same seed cancels the same requests; another seed others.
"$LATSCOPE" bench -c 2 -t 1 -n 40 --cancel-after 10ms --cancel-share 0.5 --seed 3 \
    --format json "$FIXTURE_URL/" >"$TMPDIR/b.json" 2>/dev/null || fail "second run"
[[ $(jq_py "$TMPDIR/b.json" "d['points'][0]['cancelled']") == $(jq_py "$TMPDIR/a.json" "d['points'][0]['cancelled']") ]] ||
    fail "the same seed cancelled another count"

# Every request cancelled (share 1, the default): VALID, exit 0, none an error.
start_fixture --service 40ms
"$LATSCOPE" bench -c 2 -t 1 -n 20 --cancel-after 5ms --format json "$FIXTURE_URL/" \
    >"$TMPDIR/all.json" 2>"$TMPDIR/all.err" || { cat "$TMPDIR/all.err"; fail "share 1"; }
aborted=$(stat_of "$FIXTURE_URL" client_aborted)
check_py "$TMPDIR/all.json" "
p = d['points'][0]
assert p['cancelled'] == 20 == $aborted and p['requests'] == 0, (p['cancelled'], $aborted)
assert p['errors']['total'] == 0 and p['valid'] is True
"
"$LATSCOPE" bench -c 1 -t 1 -n 4 --cancel-after 5ms "$FIXTURE_URL/" >"$TMPDIR/all.txt" 2>/dev/null ||
    fail "text run"
grep -q "cancelled: 4 requests (share 1, after 5.000 ms; not counted as errors" "$TMPDIR/all.txt" ||
    { cat "$TMPDIR/all.txt"; fail "text line"; }

# Open loop: the same exact agreement.
start_fixture --service 30ms
"$LATSCOPE" bench -r 50 --arrival constant --duration 1s -t 1 --max-send-lag 1000 \
    --cancel-after 10ms --cancel-share 0.5 --format json "$FIXTURE_URL/" >"$TMPDIR/o.json" \
    2>"$TMPDIR/o.err" || { cat "$TMPDIR/o.err"; fail "open loop --cancel-after"; }
aborted=$(stat_of "$FIXTURE_URL" client_aborted)
check_py "$TMPDIR/o.json" "
p = d['points'][0]
assert p['cancelled'] == $aborted and 10 <= p['cancelled'] <= 40, (p['cancelled'], $aborted)
assert p['requests'] + p['cancelled'] == 50 and p['errors']['total'] == 0
"

# openai: close the stream after 5 content tokens (of 20), half of 30 requests.
"$LATSCOPE" serve-test openai --prefill 5ms --token-interval 2ms --port-file "$TMPDIR/oa.port" \
    >/dev/null 2>"$TMPDIR/oa.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/oa.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/oa.port ]] || { cat "$TMPDIR/oa.err"; fail "serve-test openai did not start"; }
OA=http://127.0.0.1:$(cat "$TMPDIR/oa.port")
"$LATSCOPE" bench --target openai "$OA/v1/chat/completions" --input-tokens 8 --output-tokens 20 \
    -c 2 -t 1 -n 30 --cancel-after-tokens 5 --cancel-share 0.5 --seed 7 --format json \
    >"$TMPDIR/oa.json" 2>"$TMPDIR/oa.err2" || { cat "$TMPDIR/oa.err2"; fail "openai --cancel-after-tokens"; }
aborted=$(curl -s "$OA/metrics" | awk '/^fixture:client_aborted_total/ {print $2}')
check_py "$TMPDIR/oa.json" "
p = d['points'][0]
c = p['cancelled']
assert 5 <= c <= 25 and c == $aborted, ('cancelled', c, 'fixture', '$aborted')
assert p['requests'] + c == 30 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['llm_errors']['total'] == 0, p['llm_errors']
assert p['cancel']['after_tokens'] == 5 and p['cancel']['first_ms']['n'] == c, p['cancel']
"
# --cancel-after-tokens needs a target that counts tokens.
"$LATSCOPE" bench -n 1 --cancel-after-tokens 3 "$OA/health" >/dev/null 2>"$TMPDIR/t.err" &&
    fail "--cancel-after-tokens accepted on http"
grep -q -- "--target openai" "$TMPDIR/t.err" || { cat "$TMPDIR/t.err"; fail "message"; }
exit 0
