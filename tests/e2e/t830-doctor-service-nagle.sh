#!/usr/bin/env bash
# exclusive: real TCP timing (Nagle + delayed ACK) against a local Python server
# t830-doctor-service-nagle: `latscope doctor RESULT.json` on a bench result. A keep-alive
# HTTP/1.1 server writing headers and body in two sends (tests/tools/nagle-server.py) gets
# nagle-delayed-ack first, with its fix; the same server with TCP_NODELAY gets no such finding.
# Asserts on the classification only, never on absolute times.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_py() { # start_py NAME [nodelay]: sets PY_PORT
    python3 "$LATSCOPE_SRCDIR/tests/tools/nagle-server.py" "$TMPDIR/$1.port" ${2:-} &
    FIXTURE_PIDS+=($!)
    local i
    for i in $(seq 1 100); do
        PY_PORT=$({ tr -dc 0-9 <"$TMPDIR/$1.port"; } 2>/dev/null || true)
        [[ -n $PY_PORT ]] && break
        sleep 0.05
    done
    [[ -n $PY_PORT ]] || fail "nagle-server.py did not write its port"
}

start_py nagle
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --format json \
    "http://127.0.0.1:$PY_PORT/"
cp "$TMPDIR/out" "$TMPDIR/nagle.json"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/nagle.json"
check_py "$TMPDIR/out" "
f = d['findings']
assert f and f[0]['id'] == 'nagle-delayed-ack', [x['id'] for x in f]
assert f[0]['severity'] in ('medium', 'high'), f[0]['severity']
assert 'TCP_NODELAY' in f[0]['recommendation']
assert 'latscope bench --records' in f[0]['next_step']
"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/nagle.json"
contains "$TMPDIR/out" "nagle-delayed-ack"
contains "$TMPDIR/out" "per request"
expect_rc 1 "$LATSCOPE" doctor --format md "$TMPDIR/nagle.json"
contains "$TMPDIR/out" "nagle-delayed-ack"

start_py nodelay nodelay
expect_rc 0 "$LATSCOPE" bench -c 1 --duration 1500ms --warmup 200ms --format json \
    "http://127.0.0.1:$PY_PORT/"
cp "$TMPDIR/out" "$TMPDIR/nodelay.json"
"$LATSCOPE" doctor --format json "$TMPDIR/nodelay.json" >"$TMPDIR/nd.out" || true
check_py "$TMPDIR/nd.out" "
ids = [x['id'] for x in d['findings']]
assert 'nagle-delayed-ack' not in ids, ids
"
exit 0
