#!/usr/bin/env bash
# timeout: 60
# t839-diff-service-findings: `latscope diff` of two bench results runs doctor's service rules on
# both sides (the path of `latscope doctor`) and lists the findings as resolved / new: a server
# closing kept-alive connections every 10 responses, then one that keeps them: keepalive-churn
# "resolved"; the other way round: "new"; text, md and JSON. Counts only (stale_retries), no
# timing. HDR logs carry no service evidence: no service findings section for them.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/service-server.sh"
need_python
start_service churn churn 10
expect_rc 0 "$LATSCOPE" bench -c 2 -n 2000 --warmup 50ms --format json "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/before.json"
start_service kept churn 1000000
expect_rc 0 "$LATSCOPE" bench -c 2 -n 2000 --warmup 50ms --format json --hdr-log "$TMPDIR/after.hlog" \
    "$SVC_URL"
cp "$TMPDIR/out" "$TMPDIR/after.json"
set +e
"$LATSCOPE" diff "$TMPDIR/before.json" "$TMPDIR/after.json" >"$TMPDIR/d.txt" 2>"$TMPDIR/d.err"
[[ $? -le 1 ]] || { cat "$TMPDIR/d.err"; fail "diff failed"; }
"$LATSCOPE" diff --format json "$TMPDIR/before.json" "$TMPDIR/after.json" >"$TMPDIR/d.json" 2>/dev/null
"$LATSCOPE" diff --format json "$TMPDIR/after.json" "$TMPDIR/before.json" >"$TMPDIR/r.json" 2>/dev/null
"$LATSCOPE" diff --format md "$TMPDIR/before.json" "$TMPDIR/after.json" >"$TMPDIR/d.md" 2>/dev/null
"$LATSCOPE" diff "$TMPDIR/before.json" "$TMPDIR/after.hlog" >"$TMPDIR/h.txt" 2>"$TMPDIR/h.err"
set -e
contains "$TMPDIR/d.txt" "doctor findings (service rules)"
grep -Eq '^  resolved +keepalive-churn: concurrency 2' "$TMPDIR/d.txt" ||
    { cat "$TMPDIR/d.txt"; fail "keepalive-churn not resolved in the text diff"; }
contains "$TMPDIR/d.md" "keepalive-churn"
check_py "$TMPDIR/d.json" "
f = {x['id']: x for x in d['findings']}
k = f['keepalive-churn']
assert k['status'] == 'resolved' and k['load'] == 'concurrency 2', k
assert k['before'] and k['after'] is None, k
"
check_py "$TMPDIR/r.json" "
k = [x for x in d['findings'] if x['id'] == 'keepalive-churn'][0]
assert k['status'] == 'new' and k['before'] is None and k['after'], k
"
if [[ -s $TMPDIR/h.txt ]]; then
    ! grep -q "service rules" "$TMPDIR/h.txt" || fail "service findings for an HDR log"
fi
exit 0
