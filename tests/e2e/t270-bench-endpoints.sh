#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t270-bench-endpoints: several endpoints in one run (replicas with no balancer, issue 17).
# Two fixture servers: round-robin splits the requests evenly (open loop, one thread: exactly
# in turn); least-inflight sends more to the fast one when the other is slower; a dead
# endpoint's connect errors are its own, not a crash; kserve takes several endpoints too; each
# endpoint's line has its own time to first byte (openai: first token).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service 1ms
A=$FIXTURE_URL
start_fixture --service 1ms
B=$FIXTURE_URL
start_fixture --service 20ms
SLOW=$FIXTURE_URL

# Round-robin, open loop, one thread: 100 constant arrivals alternate, 50 each.
"$LATSCOPE" bench -r 100 --arrival constant --duration 1s -t 1 --max-send-lag 1000 \
    --format json "$A/" "$B/" >"$TMPDIR/rr.json" 2>"$TMPDIR/rr.err" ||
    { cat "$TMPDIR/rr.err"; fail "round-robin open loop"; }
check_py "$TMPDIR/rr.json" "
p = d['points'][0]
e = p['endpoints']
assert p['balance'] == 'round-robin', p['balance']
assert [x['url'] for x in e] == ['$A/', '$B/'], e
assert p['requests'] == 100 and p['errors']['total'] == 0, (p['requests'], p['errors'])
assert [x['requests'] for x in e] == [50, 50], [x['requests'] for x in e]
assert sum(x['requests'] for x in e) == p['requests']
assert all(x['latency_ms']['p50'] > 0.9 for x in e), e
"
# The fixtures' own counts agree: each served its half.
for u in "$A" "$B"; do
    n=$(curl -s "$u/fixture/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["served"])')
    [[ $n == 50 ]] || fail "$u served $n requests, expected 50"
done

# Closed loop, round-robin: the connections are spread over the endpoints (--endpoint form).
"$LATSCOPE" bench -c 4 -t 2 -n 400 --format json "$A/" --endpoint "$B/" >"$TMPDIR/c.json" \
    2>"$TMPDIR/c.err" || { cat "$TMPDIR/c.err"; fail "round-robin closed loop"; }
check_py "$TMPDIR/c.json" "
p = d['points'][0]
n = [x['requests'] for x in p['endpoints']]
assert sum(n) == p['requests'] == 400, n
assert min(n) >= 120, n   # two connections each, equal servers
"

# Least-inflight against a fast and a slow endpoint: most requests go to the fast one; with
# round-robin each gets half.
for bal in least-inflight round-robin; do
    "$LATSCOPE" bench -r 150 --arrival constant --duration 2s -t 1 --max-send-lag 1000 \
        --balance $bal --format json "$A/" "$SLOW/" >"$TMPDIR/$bal.json" 2>"$TMPDIR/$bal.err" ||
        { cat "$TMPDIR/$bal.err"; fail "--balance $bal"; }
done
check_py "$TMPDIR/least-inflight.json" "
p = d['points'][0]
fast, slow = [x['requests'] for x in p['endpoints']]
assert p['balance'] == 'least-inflight'
assert fast + slow == p['requests'] == 300, (fast, slow)
assert fast > 2 * slow and slow > 0, (fast, slow)
"
check_py "$TMPDIR/round-robin.json" "
p = d['points'][0]
fast, slow = [x['requests'] for x in p['endpoints']]
assert (fast, slow) == (150, 150), (fast, slow)
"

# A dead endpoint (nothing listens): its requests fail as its own connect errors.
DEAD=http://127.0.0.1:$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
rc=0
"$LATSCOPE" bench -c 2 -t 1 -n 200 --format json "$A/" "$DEAD/" >"$TMPDIR/dead.json" \
    2>"$TMPDIR/dead.err" || rc=$?
[[ $rc == 0 || $rc == 1 ]] || { cat "$TMPDIR/dead.err"; fail "dead endpoint: exit $rc"; }
check_py "$TMPDIR/dead.json" "
p = d['points'][0]
good, dead = p['endpoints']
assert good['errors']['total'] == 0 and good['requests'] == p['requests'] > 0, good
assert dead['requests'] == 0 and dead['errors']['connect'] == dead['errors']['total'] > 0, dead
assert p['errors']['total'] == dead['errors']['total'], (p['errors'], dead)
"
"$LATSCOPE" bench -c 2 -t 1 -n 50 "$A/" "$DEAD/" >"$TMPDIR/dead.txt" 2>/dev/null || true
grep -q "endpoints (round-robin)" "$TMPDIR/dead.txt" || { cat "$TMPDIR/dead.txt"; fail "text table"; }
grep -q "$DEAD/ .*(connect [0-9]*)" "$TMPDIR/dead.txt" || { cat "$TMPDIR/dead.txt"; fail "dead line"; }

# kserve: the same path on both; metadata and statistics come from the first endpoint.
"$LATSCOPE" bench -c 2 -t 1 -n 100 --format json "$A/v2/models/simple/infer" \
    "$B/v2/models/simple/infer" >"$TMPDIR/k.json" 2>"$TMPDIR/k.err" ||
    { cat "$TMPDIR/k.err"; fail "kserve with two endpoints"; }
check_py "$TMPDIR/k.json" "
p = d['points'][0]
assert d['target'] == 'kserve'
n = [x['requests'] for x in p['endpoints']]
assert sum(n) == p['requests'] == 100 and min(n) > 0, n
"
# Per endpoint, the time to first byte (http) and to first token (openai): a fixture with
# 40 ms prefill shows it on its own line, the 5 ms one on its line.
check_py "$TMPDIR/least-inflight.json" "
fast, slow = d['points'][0]['endpoints']
# each at least its fixture's time, and the 5 ms one below the 20 ms one measured with it
assert 0.9 < fast['ttfb_ms']['p50'] < slow['ttfb_ms']['p50'] and slow['ttfb_ms']['p50'] > 19, (fast, slow)
assert 'ttft_ms' not in fast
"
for pf in 5ms 40ms; do
    "$LATSCOPE" serve-test openai --prefill $pf --token-interval 1ms --port-file "$TMPDIR/oa$pf.port" \
        >/dev/null 2>"$TMPDIR/oa$pf.err" &
    FIXTURE_PIDS+=($!)
    for _ in $(seq 100); do [[ -s $TMPDIR/oa$pf.port ]] && break; sleep 0.05; done
    [[ -s $TMPDIR/oa$pf.port ]] || { cat "$TMPDIR/oa$pf.err"; fail "serve-test openai did not start"; }
done
O5=http://127.0.0.1:$(cat "$TMPDIR/oa5ms.port")/v1/completions
O40=http://127.0.0.1:$(cat "$TMPDIR/oa40ms.port")/v1/completions
"$LATSCOPE" bench --target openai "$O5" "$O40" --input-tokens 8 --output-tokens 10 -c 2 -t 1 \
    -n 20 --format json >"$TMPDIR/oa.json" 2>"$TMPDIR/oa.err" || { cat "$TMPDIR/oa.err"; fail "openai, two endpoints"; }
check_py "$TMPDIR/oa.json" "
p = d['points'][0]
a, b = p['endpoints']
assert a['requests'] + b['requests'] == 20 and b['requests'] > 0, (a, b)  # one connection each
assert 'ttfb_ms' not in a
assert 4.5 < a['ttft_ms']['p50'] < b['ttft_ms']['p50'] and 39.5 < b['ttft_ms']['p50'], (a['ttft_ms'], b['ttft_ms'])
assert a['ttft_ms']['p99'] < a['latency_ms']['p99'], a
"
"$LATSCOPE" bench --target openai "$O5" "$O40" --input-tokens 8 --output-tokens 10 -c 2 -t 1 \
    -n 10 >"$TMPDIR/oa.txt" 2>/dev/null || { cat "$TMPDIR/oa.txt"; fail "openai text"; }
grep -q "ttft p50  ttft p99" "$TMPDIR/oa.txt" || { cat "$TMPDIR/oa.txt"; fail "ttft columns"; }
# CSV: a table of its own, one row per endpoint, after the point table and one empty line
"$LATSCOPE" bench --target openai "$O5" "$O40" --input-tokens 8 --output-tokens 10 -c 2 -t 1 \
    -n 10 --format csv >"$TMPDIR/oa.csv" 2>/dev/null || { cat "$TMPDIR/oa.csv"; fail "openai csv"; }
python3 - "$TMPDIR/oa.csv" "$O5" "$O40" <<'PY' || { cat "$TMPDIR/oa.csv"; fail "endpoints csv"; }
import csv, sys
text = open(sys.argv[1]).read()
main, eps = text.split("\n\n")[:2]
rows = list(csv.DictReader(eps.strip().splitlines()))
assert [r["Endpoint"] for r in rows] == sys.argv[2:4], rows
assert sum(int(r["Requests"]) for r in rows) == 10, rows
fast, slow = (float(r["TTFT p50"]) for r in rows)   # us, as the main table
assert 4500 < fast < slow and slow > 39500, (fast, slow)
PY

# Other paths are refused (they are not replicas of one server).
"$LATSCOPE" bench -n 1 "$A/" "$B/other" >/dev/null 2>"$TMPDIR/p.err" && fail "another path accepted"
grep -q "first URL's scheme and path" "$TMPDIR/p.err" || { cat "$TMPDIR/p.err"; fail "path message"; }
exit 0
