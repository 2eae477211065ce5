#!/usr/bin/env bash
# t277-bench-merge-slices: `bench merge` of two real shard runs (the fixture, --slice, DCGM
# telemetry from the fixture's exporter) merges their time slices and GPU telemetry. Slice k
# of the merge holds both shards' slice k: counts summed (and adding up to the merged point),
# mean and max equal to those of every shard's --records in that window (recomputed here from
# the records alone); p50/p90/p99 "not mergeable" (null) where both shards had requests, never
# a made-up number. The GPU seen by both shards (same UUID) is one device whose statistics are
# those of every sample of the merged series. Different --slice widths are refused (exit 2).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service exp:2ms --fault 5xx:0.05 --seed 5
u=$FIXTURE_URL
args=(-c 2 --duration 1200ms -t 1 --slice 300ms --max-send-lag $((20 * SAN_MULT))
    --max-error-rate 0.9 --gpu-metrics-url "$u/dcgm/metrics" --gpu-interval 200ms --format json)
start=$(($(date +%s) + 2))
for k in 0 1; do
    "$LATSCOPE" bench --shard $k/2 --start-at $start "${args[@]}" --records "$TMPDIR/r$k.jsonl" \
        "$u/x" >"$TMPDIR/s$k.json" 2>"$TMPDIR/s$k.err" &
    eval "p$k=$!"
done
for k in 0 1; do
    set +e
    eval "wait \$p$k"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || { cat "$TMPDIR/s$k.err"; fail "shard $k: exit $rc"; }
done
expect_rc 0 "$LATSCOPE" bench merge --format json "$TMPDIR/s0.json" "$TMPDIR/s1.json"
cp "$TMPDIR/out" "$TMPDIR/m.json"
check_py "$TMPDIR/m.json" "
sh = [json.load(open('$TMPDIR/s%d.json' % k)) for k in (0, 1)]
recs = [[json.loads(l) for l in open('$TMPDIR/r%d.jsonl' % k)] for k in (0, 1)]
p = d['points'][0]
sl = p['slices']
assert p['slices_merged_shards'] == 2 and p['slices_offset_ns'] is None
assert len(sl) == max(len(s['points'][0]['slices']) for s in sh) >= 3
assert sum(x['requests'] for x in sl) == p['requests']
assert sum(x['errors'] for x in sl) == p['errors']['total'] > 0
lat = [[] for _ in sl]
for k in (0, 1):
    sp = sh[k]['points'][0]
    off, w = sp['slices_offset_ns'], round(sp['slice_s'] * 1e9)
    for r in recs[k]:
        if r['error'] is None:
            lat[max(0, min(len(sl) - 1, (r['t_end_ns'] - off) // w))].append(r['latency_ns'])
both = 0
for i, x in enumerate(sl):
    a = [s['points'][0]['slices'][i] for s in sh if i < len(s['points'][0]['slices'])]
    assert x['requests'] == sum(y['requests'] for y in a) == len(lat[i]), (i, x, len(lat[i]))
    assert x['errors'] == sum(y['errors'] for y in a)
    if not lat[i]:
        continue
    assert abs(x['latency_ms']['mean'] - sum(lat[i]) / len(lat[i]) / 1e6) < 1e-5, (i, x)
    assert abs(x['latency_ms']['max'] - max(lat[i]) / 1e6) < 1e-5, (i, x)
    if sum(1 for y in a if y['requests']) > 1:
        both += 1
        assert x['percentiles'] == 'not mergeable', x
        assert x['latency_ms']['p50'] is None and x['latency_ms']['p99'] is None, x
    else:
        assert 'percentiles' not in x and x['latency_ms']['p50'] is not None, x
assert both >= 2, both
# GPU telemetry: one device per UUID, its statistics those of the merged series
t = p['gpu_telemetry']
assert t['available'] and t['scrapes'] == sum(s['points'][0]['gpu_telemetry']['scrapes'] for s in sh)
assert [g['gpu'] for g in t['gpus']] == ['0', '1'], t['gpus']
assert len(t['series']) == sum(len(s['points'][0]['gpu_telemetry']['series']) for s in sh)
assert [x['t_s'] for x in t['series']] == sorted(x['t_s'] for x in t['series'])
for g in t['gpus']:
    v = [x['power_w'] for x in t['series'] if x['gpu'] == g['gpu']]
    st = g['power_w']
    assert st['samples'] == len(v), (st, len(v))
    assert abs(st['mean'] - sum(v) / len(v)) < 1e-6 and st['min'] == min(v) and st['max'] == max(v), (st, v)
# each slice's GPU statistics come from the merged series (first slice from the start)
assert all(len(x['gpus']) == 2 for x in sl)
"
# text: the note on what is not mergeable; CSV: those cells empty
expect_rc 0 "$LATSCOPE" bench merge "$TMPDIR/s0.json" "$TMPDIR/s1.json"
contains "$TMPDIR/out" "percentiles are not mergeable"
expect_rc 0 "$LATSCOPE" bench merge --format csv "$TMPDIR/s0.json" "$TMPDIR/s1.json"
grep -q '^1,0,0.000,0.300,[0-9]*,[0-9]*,[0-9.]*,,,' "$TMPDIR/out" || { cat "$TMPDIR/out"; fail "CSV slice row"; }
# different --slice widths do not merge
python3 - "$TMPDIR/s1.json" "$TMPDIR/s1w.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['points'][0]['slice_s'] = 0.25
json.dump(d, open(sys.argv[2], 'w'))
PY
expect_rc 2 "$LATSCOPE" bench merge "$TMPDIR/s0.json" "$TMPDIR/s1w.json"
contains "$TMPDIR/err" "slices of different widths do not merge"
echo "ok"
