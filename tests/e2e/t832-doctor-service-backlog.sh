#!/usr/bin/env bash
# exclusive: the kernel's SYN retransmit timing against a local Python server
# timeout: 120
# t832-doctor-service-backlog: listen-backlog. A server with listen backlog 1 that accepts one
# connection every 300 ms (hostile-http.py backlog) makes connects wait for the SYN retransmit:
# doctor names listen-backlog first, with the backlog/somaxconn fix and the numbers from the run,
# and never calls the point client-limited. A server with a 1024 backlog that accepts at once
# (service-server.py) gets no listen-backlog finding at the same load.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/hostile-http.py" backlog "$TMPDIR/port" "$TMPDIR/count" 60 &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/port ]] || fail "hostile server did not start"
set +e
timeout 60 "$LATSCOPE" bench -r 50 --duration 2s -t 1 --format json \
    "http://127.0.0.1:$(cat "$TMPDIR/port")/" >"$TMPDIR/bl.json" 2>"$TMPDIR/bl.err"
set -e
check_py "$TMPDIR/bl.json" "assert d['points'][0]['backlog']['slow_connects'] >= 1"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/bl.json"
check_py "$TMPDIR/out" "
f = d['findings']
ids = [x['id'] for x in f]
assert ids[0] == 'listen-backlog', ids
assert 'client-limited' not in ids, ids
b = f[0]
assert b['severity'] == 'high', b['severity']
assert 'somaxconn' in b['recommendation'] and 'backlog' in b['recommendation']
assert b['next_step']
src = json.load(open('$TMPDIR/bl.json'))['points'][0]['backlog']
ev = b['evidence']
assert ev['slow_connects'] == src['slow_connects'], (ev, src)
assert abs(ev['connect_max_ms'] - src['connect_max_ms']) < 0.01, (ev, src)
assert str(src['slow_connects']) in b['title'], (b['title'], src)
assert 0 < b['saving_pct'] <= 100, b['saving_pct']
"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/bl.json"
contains "$TMPDIR/out" "listen-backlog"
contains "$TMPDIR/out" "SYN retransmit"
# negative: a server that accepts at once (backlog 1024)
start_service ok churn 1000000
# (--max-send-lag: this machine's load must not make the point client-INVALID)
expect_rc 0 "$LATSCOPE" bench -r 50 --duration 2s -t 1 --max-send-lag 1000 --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/ok.json"
check_py "$TMPDIR/ok.json" "assert d['points'][0]['backlog']['slow_connects'] == 0"
ids=$(doctor_ids "$TMPDIR/ok.json")
[[ " $ids " != *" listen-backlog "* ]] || fail "listen-backlog on a server that accepts at once: $ids"
exit 0
