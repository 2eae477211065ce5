#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t235-bench-kserve: the KServe v2 target against the fixture: inputs from metadata or --input,
# the Triton statistics breakdown per point, and clear setup errors (exit 2).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:3ms --model simple:FP32:16

# Inputs from GET /v2/models/simple; the target is inferred from the /v2/ path.
expect_rc 0 "$LATSCOPE" bench -c 2 --duration 1s --format json "$FIXTURE_URL/v2/models/simple"
check_py "$TMPDIR/out" "
assert d['target'] == 'kserve'
p = d['points'][0]
assert p['requests'] > 50 and p['errors']['total'] == 0, p
s = p['server']
assert s is not None and s['count'] >= p['requests'], s
assert s['compute_infer_ms'] + s['queue_ms'] + s['compute_input_ms'] + s['compute_output_ms'] > 2.0, s
assert p['latency_actual_ms']['p50'] >= 3.0
"
# Explicit inputs with a batch, root URL plus --model; text shows the server breakdown.
expect_rc 0 "$LATSCOPE" bench --target kserve --model simple --input INPUT0:-1x16:FP32:zeros \
    --batch 4 -n 30 "$FIXTURE_URL"
contains "$TMPDIR/out" "server (Triton stats, per request)"
contains "$TMPDIR/out" "requests 30 "
# Unknown model: setup error, exit 2, says what to do.
expect_rc 2 "$LATSCOPE" bench --target kserve -n 5 "$FIXTURE_URL/v2/models/nope"
contains "$TMPDIR/err" "nope"
# No model anywhere: usage error.
expect_rc 2 "$LATSCOPE" bench --target kserve -n 5 "$FIXTURE_URL/"
contains "$TMPDIR/err" "--model"
exit 0
