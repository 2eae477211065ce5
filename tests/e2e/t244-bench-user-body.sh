#!/usr/bin/env bash
# t244-bench-user-body: a user's body and headers are sent as given (issue 17 item 5):
# -d @FILE on a /v2/ URL (the auto-selected kserve target sent its own generated tensor: 110 KB
# instead of the user's 249 KB), -H on the KServe metadata and statistics GETs, and -d with a
# Content-Type: application/json unless -H gives one.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python

# The user's batch-4 tensor: the fixture answers shape [4, 16] (the generated one is [1, 16]).
python3 -c "
import json; print(json.dumps({'inputs':[{'name':'INPUT0','shape':[4,16],'datatype':'FP32','data':[0.5]*64}]}))" \
    >"$TMPDIR/b4.json"
start_fixture --require-json
expect_rc 0 "$LATSCOPE" bench -c 1 -t 1 -n 20 -d @"$TMPDIR/b4.json" --expect-body '"shape":[4, 16]' \
    --format json "$FIXTURE_URL/v2/models/simple/infer"
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 20 and p['errors']['total'] == 0, p['errors']
assert d['target'] == 'kserve', d['target']
"
# Without -d the generated batch-1 tensor goes out (and fails the same body check).
expect_rc 1 "$LATSCOPE" bench -c 1 -t 1 -n 5 --expect-body '"shape":[4, 16]' --format json \
    "$FIXTURE_URL/v2/models/simple/infer"
check_py "$TMPDIR/out" "assert d['points'][0]['errors']['mismatch'] == 5, d['points'][0]['errors']"
# -d and --input both describe the body: refused before the run.
expect_rc 2 "$LATSCOPE" bench -n 1 -d @"$TMPDIR/b4.json" --input INPUT0:-1x16:FP32:zeros \
    "$FIXTURE_URL/v2/models/simple/infer"
contains "$TMPDIR/err" "drop --input"

# -d on the plain target: Content-Type: application/json unless -H says otherwise.
expect_rc 0 "$LATSCOPE" bench -c 1 -t 1 -n 10 -d '{"x":1}' --format json "$FIXTURE_URL/echo"
check_py "$TMPDIR/out" "assert d['points'][0]['errors']['total'] == 0, d['points'][0]['errors']"
expect_rc 1 "$LATSCOPE" bench -c 1 -t 1 -n 10 -d 'x=1' -H 'Content-Type: text/plain' \
    --format json "$FIXTURE_URL/echo"
check_py "$TMPDIR/out" "assert d['points'][0]['errors']['http_4xx'] == 10, d['points'][0]['errors']"

# -H reaches the metadata GET (no --input: the tensor comes from it) and the stats GETs.
start_fixture --require-header 'X-Api-Key: s3cret'
expect_rc 2 "$LATSCOPE" bench --target kserve -n 5 "$FIXTURE_URL/v2/models/simple"
contains "$TMPDIR/err" "answered 401"
expect_rc 0 "$LATSCOPE" bench --target kserve -c 1 -t 1 -n 20 -H 'X-Api-Key: s3cret' \
    --format json "$FIXTURE_URL/v2/models/simple"
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['errors']['total'] == 0, p['errors']
s = p.get('server')
assert s and s.get('count') == 20, s   # the statistics GETs got through too
"
exit 0
