#!/usr/bin/env bash
# t762-bench-merge-counts: bench merge checks each shard's counters against its histograms
# (issue 31 item 7). Before: a shard claiming 10^12 requests beside a 50-sample histogram
# merged VALID at 3e14 req/s. Now it is refused with the file, the point and both numbers;
# the untouched shards still merge.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture
for k in 0 1; do
    "$LATSCOPE" bench --shard $k/2 -c 2 -t 1 -n 100 --format json "$FIXTURE_URL/" \
        >"$TMPDIR/s$k.json" 2>"$TMPDIR/s$k.err" || { cat "$TMPDIR/s$k.err"; fail "shard $k"; }
done
"$LATSCOPE" bench merge --format json "$TMPDIR/s0.json" "$TMPDIR/s1.json" >"$TMPDIR/m.json" \
    2>"$TMPDIR/m.err" || { cat "$TMPDIR/m.err"; fail "merge of consistent shards"; }
check_py "$TMPDIR/m.json" "
p = d['points'][0]
assert p['requests'] == 100, p['requests']
"
python3 - "$TMPDIR/s1.json" "$TMPDIR/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['points'][0]['requests'] = 10**12
json.dump(d, open(sys.argv[2], 'w'))
PY
set +e
"$LATSCOPE" bench merge --format json "$TMPDIR/s0.json" "$TMPDIR/bad.json" >"$TMPDIR/b.json" \
    2>"$TMPDIR/b.err"
rc=$?
set -e
[[ $rc -ne 0 ]] || { cat "$TMPDIR/b.json"; fail "an inconsistent shard was merged"; }
grep -q 'bad.json: points\[0\]: "requests" is 1000000000000 but its latency histogram holds 50 samples' \
    "$TMPDIR/b.err" || { cat "$TMPDIR/b.err"; fail "no reason naming the shard and both counts"; }
exit 0
