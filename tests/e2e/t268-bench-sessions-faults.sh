#!/usr/bin/env bash
# t268-bench-sessions-faults: sessions under the server behaviours of issue 17. A server that
# closes kept-alive connections (llama-server): a turn that met a dead connection is sent again
# once on a fresh one (stale_retries) and its session goes on with the same history (no
# session fails, ISL exact). Failing turns (HTTP 503 faults): the session is abandoned
# ("failed"), the user starts the next one, and every request is still accounted for.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
printf '{"turns":[{"text":"a b c d"},{"text":"e f"},{"text":"g"}]}\n' >"$TMPDIR/s.jsonl"
start_openai() {
    rm -f "$TMPDIR/o.port"
    "$LATSCOPE" serve-test openai --prefill 1ms --token-interval 1ms "$@" \
        --port-file "$TMPDIR/o.port" >/dev/null 2>"$TMPDIR/o.err" &
    FIXTURE_PIDS+=($!)
    for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
    [[ -s $TMPDIR/o.port ]] || { cat "$TMPDIR/o.err"; fail "serve-test openai did not start"; }
    U=http://127.0.0.1:$(cat "$TMPDIR/o.port")/v1/chat/completions
}
start_openai --keepalive-lie
"$LATSCOPE" bench --target openai "$U" --sessions "$TMPDIR/s.jsonl" -c 2 -t 1 -n 30 \
    --output-tokens 4 --think-time 2ms --format json >"$TMPDIR/a.json" 2>"$TMPDIR/a.err" ||
    { cat "$TMPDIR/a.err"; fail "sessions against --keepalive-lie"; }
check_py "$TMPDIR/a.json" "
p = d['points'][0]; s = p['sessions']
assert p['requests'] == 30 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert p['stale_retries'] > 0, p['stale_retries']
# 30 turns over 2 users: at most one session per user still open when the count is reached
assert s['failed'] == 0 and s['completed'] >= 8 and s['started'] - s['completed'] <= 2, s
assert sum(t['requests'] for t in s['turns']) == 30 and all(t['ok'] == t['requests'] for t in s['turns']), s
# 1 + spaces: 'a b c d' = 4; + 4 reply tokens + 'e f' (1 space) = 9; + 4 + 0 = 13
assert [t['isl_mean'] for t in s['turns']] == [4.0, 9.0, 13.0], s['turns']
"
start_openai --faults http:0.2 --seed 3
"$LATSCOPE" bench --target openai "$U" --sessions "$TMPDIR/s.jsonl" -c 2 -t 1 -n 60 \
    --output-tokens 4 --format json >"$TMPDIR/b.json" 2>"$TMPDIR/b.err" || true
check_py "$TMPDIR/b.json" "
p = d['points'][0]; s = p['sessions']
e = p['errors']['total']
assert p['requests'] + e == 60 and 0 < e < 30, (p['requests'], p['errors'])  # requests: the ok ones
# every failed turn abandons its session (sessions still open at the end are neither)
assert s['failed'] >= e - 2 and s['failed'] <= e, (s, e)
assert sum(t['requests'] for t in s['turns']) == 60, s['turns']
assert sum(t['requests'] - t['ok'] for t in s['turns']) == e, s['turns']
assert s['started'] >= s['completed'] + s['failed'], s
# a session's turn k+1 only follows a successful turn k
assert s['turns'][1]['requests'] <= s['turns'][0]['ok'] and s['turns'][2]['requests'] <= s['turns'][1]['ok'], s['turns']
"
exit 0
