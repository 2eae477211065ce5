#!/usr/bin/env bash
# exclusive
# t764-bench-listen-backlog: a server whose listen backlog overflows (issue 31 item 3; Python's
# http.server: backlog 5, ListenOverflows 2-37) is not blamed on the client. The hostile server
# has backlog 1 and accepts one connection every 300 ms: SYNs beyond it are dropped and
# retransmitted after 1 s. bench reports the slow connects and this host's ListenOverflows /
# ListenDrops, and the INVALID reason names the server's backlog (invalid_client false), never
# "the client did not keep the schedule". Asserts counters (the kernel's 1 s SYN retransmit
# makes a connect slow whatever the load), not latencies.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
python3 "$LATSCOPE_SRCDIR/tests/tools/hostile-http.py" backlog "$TMPDIR/port" "$TMPDIR/count" 60 &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/port ]] || fail "hostile server did not start"
URL=http://127.0.0.1:$(cat "$TMPDIR/port")/
set +e
timeout 60 "$LATSCOPE" bench -r 50 --duration 2s -t 1 --format json "$URL" >"$TMPDIR/a.json" \
    2>"$TMPDIR/a.err"
rc=$?
set -e
[[ $rc -eq 1 ]] || { cat "$TMPDIR/a.err"; fail "bench exit $rc, want 1 (INVALID)"; }
netstat_ok=0
grep -q ListenOverflows /proc/net/netstat 2>/dev/null && netstat_ok=1
check_py "$TMPDIR/a.json" "
p = d['points'][0]
b = p['backlog']
assert b['slow_connects'] >= 1 and b['connect_max_ms'] >= 900, b
if $netstat_ok:
    assert b['listen_overflows'] >= 1 and b['listen_drops'] >= 1, b
assert p['valid'] is False and p['invalid_client'] is False, p['invalid_reason']
assert 'listen backlog overflowed' in p['invalid_reason'], p['invalid_reason']
assert 'did not keep the schedule' not in p['invalid_reason'], p['invalid_reason']
"
exit 0
