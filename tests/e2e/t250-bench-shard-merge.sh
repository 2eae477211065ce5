#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t250-bench-shard-merge: 4 shards (--shard K/4, --start-at) against the fixture, merged with
# `bench merge`, give the single-process result of the same seeded schedule: the same number of
# scheduled requests (exact: the union of the shards' schedules is the single schedule), the
# same rate checks, a valid point when every shard is valid, per-shard lines; closed loop
# splits the connections and the request count; bad merges are refused clearly.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service exp:1ms --seed 3
# 2 shared cores run 4 clients and the server: the send-lag limit is widened so that the
# test is about the split and the merge, not about this machine's scheduling.
LAG=(--max-send-lag $((20 * SAN_MULT)))
args=(-r 400 --arrival poisson --seed 11 --duration 1500ms -t 1 "${LAG[@]}" --format json)

set +e
"$LATSCOPE" bench "${args[@]}" "$FIXTURE_URL/" >"$TMPDIR/single.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "single run: exit $rc"; }

start=$(($(date +%s) + 2))
pids=()
for k in 0 1 2 3; do
    "$LATSCOPE" bench --shard $k/4 --start-at $start "${args[@]}" "$FIXTURE_URL/" \
        >"$TMPDIR/s$k.json" 2>"$TMPDIR/s$k.err" &
    pids+=($!)
done
for k in 0 1 2 3; do
    set +e
    wait "${pids[$k]}"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/s$k.err"; fail "shard $k: exit $rc"; }
done
check_py "$TMPDIR/s2.json" "
assert d['shard'] == {'index': 2, 'count': 4, 'source': '--shard', 'start_at_unix_ns': $start * 10**9}, d['shard']
"
set +e
"$LATSCOPE" bench merge --format json "$TMPDIR"/s{3,1,0,2}.json >"$TMPDIR/m.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "merge: exit $rc"; }
check_py "$TMPDIR/m.json" "
import json
s = json.load(open('$TMPDIR/single.json'))['points'][0]
sh = [json.load(open('$TMPDIR/s%d.json' % k))['points'][0] for k in range(4)]
p = d['points'][0]
assert d['mode'] == 'open' and d['arrival'] == 'poisson' and 'shard' not in d
assert d['distributed']['method'] == 'merge' and d['distributed']['shards'] == 4
# the union of the shards' schedules is the single schedule: the same number of arrivals
n = lambda q: q['requests'] + q['errors']['total']
assert n(p) == n(s), (n(p), n(s))
assert n(p) == sum(n(q) for q in sh)
for c in p['errors']:
    assert p['errors'][c] == sum(q['errors'][c] for q in sh), c
# the same rate checks as a single host (t232): Poisson count within 4 sigma of 600
assert 600 - 4 * 600 ** 0.5 <= n(p) <= 600 + 4 * 600 ** 0.5, n(p)
assert abs(p['achieved_rps'] - s['achieved_rps']) < 400 * 0.05, (p['achieved_rps'], s['achieved_rps'])
# each shard carries a quarter of the schedule
for q in sh: assert 0.15 * n(p) < n(q) < 0.35 * n(p), [n(x) for x in sh]
# start skew: the shards' t0 on the wall clock agree to well under a second
# (relative: a quarter of the 1.5 s point; --start-at ignored would start 2 s early)
assert d['distributed']['max_start_skew_ms'] < 0.25 * 1500, d['distributed']
assert abs(p['t0_unix_ns'] - $start * 10**9) < 10**9, p['t0_unix_ns']
assert p['window_start_unix_ns'] == p['t0_unix_ns'], (p['window_start_unix_ns'], p['t0_unix_ns'])
assert p['duration_s'] == s['duration_s'], (p['duration_s'], s['duration_s'])
# valid exactly when every shard is; one line per shard, sorted
assert p['valid'] == all(q['valid'] for q in sh), (p['valid'], [q['valid'] for q in sh])
assert [l['index'] for l in p['shards']] == [0, 1, 2, 3]
assert [l['requests'] for l in p['shards']] == [q['requests'] for q in sh]
assert p['histograms']['latency'].startswith('HISTF') and p['estimator'] == 'hdr'
assert p['latency_ms']['max'] == max(q['latency_ms']['max'] for q in sh), p['latency_ms']
"
all_valid=$(jq_py "$TMPDIR/m.json" "all(q['valid'] for q in d['points'][0]['shards'])")
[[ $all_valid == True ]] || echo "note: a shard was INVALID on this loaded machine" >&2
# Text: the usual report plus the per-shard lines.
set +e
"$LATSCOPE" bench merge "$TMPDIR"/s{0,1,2,3}.json >"$TMPDIR/m.txt" 2>&1
set -e
grep -q "^point 1: rate 400 req/s" "$TMPDIR/m.txt" || { cat "$TMPDIR/m.txt"; fail "no point line"; }
grep -qE "^  shard +requests" "$TMPDIR/m.txt" || { cat "$TMPDIR/m.txt"; fail "no shard lines"; }
grep -q "merge of 4 shards" "$TMPDIR/m.txt" || fail "no merge summary"

# Refused merges: a shard missing, a shard twice, not a bench result.
expect_fail() {
    local why=$1
    shift
    set +e
    "$LATSCOPE" bench merge "$@" >/dev/null 2>"$TMPDIR/err"
    rc=$?
    set -e
    [[ $rc -eq 2 ]] || fail "merge $*: exit $rc, expected 2"
    grep -q "$why" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "merge $*: no '$why'"; }
}
expect_fail "shards of 4, but 3" "$TMPDIR"/s{0,1,2}.json
expect_fail "both shard 1" "$TMPDIR"/s{0,1,1,3}.json
echo '{"points": [' >"$TMPDIR/bad.json"
expect_fail "bad.json: truncated" "$TMPDIR/bad.json"
expect_fail "No such file" "$TMPDIR/none.json"

# Closed loop: 6 connections over 4 shards (2 2 1 1), 200 requests (50 each).
pids=()
for k in 0 1 2 3; do
    "$LATSCOPE" bench --shard $k/4 -c 6 -n 200 -t 1 --format json "$FIXTURE_URL/" \
        >"$TMPDIR/c$k.json" 2>"$TMPDIR/c$k.err" &
    pids+=($!)
done
for k in 0 1 2 3; do wait "${pids[$k]}" || true; done
"$LATSCOPE" bench merge --format json "$TMPDIR"/c{0,1,2,3}.json >"$TMPDIR/cm.json" || true
check_py "$TMPDIR/cm.json" "
import json
sh = [json.load(open('$TMPDIR/c%d.json' % k))['points'][0] for k in range(4)]
assert [q['concurrency'] for q in sh] == [2, 2, 1, 1], [q['concurrency'] for q in sh]
p = d['points'][0]
assert d['mode'] == 'closed' and p['concurrency'] == 6, p['concurrency']
assert p['requests'] + p['errors']['total'] == 200, p
"

# --shard auto from a launcher's environment; --start-at in the past; too few connections.
SLURM_PROCID=1 SLURM_NTASKS=2 "$LATSCOPE" bench --shard auto -c 2 -n 10 -t 1 --format json \
    "$FIXTURE_URL/" >"$TMPDIR/a.json" || true
check_py "$TMPDIR/a.json" "
assert d['shard']['index'] == 1 and d['shard']['count'] == 2, d['shard']
assert d['shard']['source'] == 'SLURM_PROCID/SLURM_NTASKS', d['shard']
assert d['points'][0]['requests'] + d['points'][0]['errors']['total'] == 5
"
set +e
"$LATSCOPE" bench --shard 0/2 --start-at $(($(date +%s) - 5)) -r 10 --duration 1s \
    "$FIXTURE_URL/" >/dev/null 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "start-at.*ago" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "past start: exit $rc"; }
set +e
"$LATSCOPE" bench --shard 0/4 -c 3 -n 10 "$FIXTURE_URL/" >/dev/null 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "without a connection" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "c<N: exit $rc"; }
set +e
"$LATSCOPE" bench --shard 4/4 -c 4 "$FIXTURE_URL/" >/dev/null 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "below N" "$TMPDIR/err" || { cat "$TMPDIR/err"; fail "4/4: exit $rc"; }
exit 0
