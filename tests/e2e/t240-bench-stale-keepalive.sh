#!/usr/bin/env bash
# t240-bench-stale-keepalive: a server that answers "Connection: keep-alive" and closes anyway
# (llama-server, issue 17 item 1), at once or a little later while the connection is idle.
# Every request still succeeds: a request that met a dead kept-alive connection before any
# response byte is sent again once on a fresh one and counted as stale_retries, never as an
# error of the server (before: about half the requests failed as "reset").
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --keepalive-lie
"$LATSCOPE" bench -c 2 -t 1 -n 200 --format json "$FIXTURE_URL/" >"$TMPDIR/a.json" \
    2>"$TMPDIR/a.err" || { cat "$TMPDIR/a.err"; fail "closed loop against --keepalive-lie"; }
check_py "$TMPDIR/a.json" "
p = d['points'][0]
assert p['requests'] == 200 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert 0 < p['stale_retries'] <= 200, p['stale_retries']
assert p['valid'] is True
"
"$LATSCOPE" bench -c 2 -t 1 -n 50 "$FIXTURE_URL/" >"$TMPDIR/a.txt" 2>/dev/null || fail "text run"
grep -q "stale keep-alive: .* not counted as errors" "$TMPDIR/a.txt" || { cat "$TMPDIR/a.txt"; fail "text line"; }

# Closed 30 ms after each response, in an open loop (connections sit idle between arrivals:
# 10 req/s, constant arrivals; with Poisson arrivals at 40 req/s the fixture reads the next request before its timed close, and such a
# request dropped after the server read it is an error, never re-sent: issue 31, t760).
start_fixture --keepalive-lie=30ms
"$LATSCOPE" bench -r 10 --arrival constant --duration 2s --max-send-lag 1000 -t 1 --format json "$FIXTURE_URL/" \
    >"$TMPDIR/b.json" 2>"$TMPDIR/b.err" || { cat "$TMPDIR/b.err"; fail "open loop against --keepalive-lie=30ms"; }
check_py "$TMPDIR/b.json" "
p = d['points'][0]
assert p['requests'] >= 15 and p['errors']['total'] == 0, (p['requests'], p['errors'])
"

# The LLM case of issue 17: a streaming server that closes after every response (no
# "Connection: close"). Before: "ok 50 errors 50; transport 50" at c=2, VALID.
"$LATSCOPE" serve-test openai --keepalive-lie --prefill 1ms --token-interval 1ms \
    --port-file "$TMPDIR/o.port" >/dev/null 2>"$TMPDIR/o.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/o.port ]] || { cat "$TMPDIR/o.err"; fail "serve-test openai did not start"; }
"$LATSCOPE" bench --target openai "http://127.0.0.1:$(cat "$TMPDIR/o.port")/v1/chat/completions" \
    --input-tokens 8 --output-tokens 4 -c 2 -t 1 -n 100 --format json >"$TMPDIR/o.json" \
    2>"$TMPDIR/o.err2" || { cat "$TMPDIR/o.err2"; fail "openai against --keepalive-lie"; }
check_py "$TMPDIR/o.json" "
p = d['points'][0]
assert p['requests'] == 100 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['llm_errors']['total'] == 0, p['llm_errors']
assert p['stale_retries'] > 0, p['stale_retries']
"
exit 0
