#!/usr/bin/env bash
# timeout: 60
# t836-doctor-service-errors: error-burst. A server that answers 500 to every request between
# 1.0 and 1.5 s of its life (service-server.py errors-burst) gets error-burst from bench --slice
# windows: the burst's errors and window from the run, the error class (http_5xx) named. A server
# that answers 500 to every 10th request all along (errors-spread) gets none: its errors are
# not bunched in time. Counts only.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service burst errors-burst 1.0 1.5
set +e
"$LATSCOPE" bench -c 2 --duration 3s --warmup 100ms --slice 250ms --format json "$SVC_URL" \
    >"$TMPDIR/burst.json" 2>"$TMPDIR/burst.err"
set -e
check_py "$TMPDIR/burst.json" "assert d['points'][0]['errors']['http_5xx'] >= 10"
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/burst.json"
check_py "$TMPDIR/out" "
f = [x for x in d['findings'] if x['id'] == 'error-burst']
assert f, [x['id'] for x in d['findings']]
f = f[0]
p = json.load(open('$TMPDIR/burst.json'))['points'][0]
ev = f['evidence']
assert ev['errors'] == p['errors']['total'] and ev['http_5xx_errors'] == p['errors']['http_5xx']
assert ev['errors_in_burst'] >= 0.8 * ev['errors'], ev
assert ev['burst_end_s'] - ev['burst_start_s'] <= 0.25 * 3 + 0.01, ev
assert f['severity'] == 'medium' and f['next_step']
"
start_service spread errors-spread 10
set +e
"$LATSCOPE" bench -c 2 --duration 3s --warmup 100ms --slice 250ms --format json "$SVC_URL" \
    >"$TMPDIR/spread.json" 2>"$TMPDIR/spread.err"
set -e
check_py "$TMPDIR/spread.json" "assert d['points'][0]['errors']['http_5xx'] >= 10"
ids=$(doctor_ids "$TMPDIR/spread.json")
[[ " $ids " != *" error-burst "* ]] || fail "error-burst on errors spread over the run: $ids"
exit 0
