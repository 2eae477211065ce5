#!/usr/bin/env bash
# t279-bench-mpi-slices: `mpirun -n 2 latscope bench --mpi --slice D` with GPU telemetry (the
# fixture's DCGM exporter) reports on rank 0 what one process would: the slices are cut from
# every rank's records (their counts add up to the job's point, and each slice's p50/p90/p99/
# max are the nearest-rank values of the gathered --records of that window, recomputed here),
# and the telemetry holds every rank's scrapes (the fixture's own scrape counter, less the two
# set-up probes), one device per UUID whose statistics are those of the merged series.
# Skips when mpirun or the MPI build is absent.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
if grep -q "built without MPI" "$TMPDIR/probe"; then
    skip "this latscope was built without MPI (libopenmpi-dev missing at build time)"
fi
start_fixture --service exp:2ms --fault 5xx:0.05 --seed 4
u=$FIXTURE_URL
MPIRUN=(mpirun --oversubscribe -n 2)
[[ $(id -u) -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
set +e
timeout $((90 * SAN_MULT)) "${MPIRUN[@]}" "$LATSCOPE" bench --mpi -c 4 --duration 1200ms -t 1 \
    --slice 300ms --max-send-lag $((20 * SAN_MULT)) --max-error-rate 0.9 \
    --gpu-metrics-url "$u/dcgm/metrics" --gpu-interval 200ms --records "$TMPDIR/all.jsonl" \
    --format json "$u/x" >"$TMPDIR/mpi.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "mpirun: exit $rc"; }
served=$(python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["scrapes"])' "$u/fixture/dcgm")
check_py "$TMPDIR/mpi.json" "
import math
served = $served
recs = [json.loads(l) for l in open('$TMPDIR/all.jsonl')]
p = d['points'][0]
assert d['distributed']['shards'] == 2 if 'distributed' in d else True
assert len(p['shards']) == 2, p.get('shards')
sl = p['slices']
assert p['slices_complete'] is True and len(sl) >= 3
assert sum(x['requests'] for x in sl) == p['requests'] and p['requests'] > 0
assert sum(x['errors'] for x in sl) == p['errors']['total'] > 0
assert 'percentiles' not in sl[0]
off, w = p['slices_offset_ns'], round(p['slice_s'] * 1e9)
mine = [r for r in recs if r['error'] != 'interrupted']
assert len(mine) == p['requests'] + p['errors']['total']
by = [[] for _ in sl]
err = [0] * len(sl)
for r in mine:
    k = max(0, min(len(sl) - 1, (r['t_end_ns'] - off) // w))
    if r['error'] is None:
        by[k].append(r['latency_ns'])
    else:
        err[k] += 1
for k, x in enumerate(sl):
    v = sorted(by[k])
    assert x['requests'] == len(v) and x['errors'] == err[k], (k, x, len(v), err[k])
    def nr(q):
        return v[max(1, math.ceil(q / 100 * len(v))) - 1] / 1e6
    for q, key in ((50, 'p50'), (90, 'p90'), (99, 'p99')):
        assert abs(x['latency_ms'][key] - nr(q)) < 1e-6, (k, key, x['latency_ms'][key], nr(q))
    assert abs(x['latency_ms']['max'] - v[-1] / 1e6) < 1e-6
t = p['gpu_telemetry']
assert t['available'] and t['scrape_errors'] == 0, t
assert t['scrapes'] == served - 2, (t['scrapes'], served)  # every rank's, less 2 probes
assert [g['gpu'] for g in t['gpus']] == ['0', '1'], t['gpus']
assert len(t['series']) == 2 * t['scrapes'], (len(t['series']), t['scrapes'])
ts = [x['t_s'] for x in t['series']]
assert ts == sorted(ts) and ts[0] > -1 and ts[-1] < p['duration_s'] + 1, (ts[0], ts[-1])
for g in t['gpus']:
    v = [x['gpu_util_pct'] for x in t['series'] if x['gpu'] == g['gpu']]
    st = g['gpu_util_pct']
    assert st['samples'] == len(v) and abs(st['mean'] - sum(v) / len(v)) < 1e-6, (st, len(v))
    assert st['min'] == min(v) and st['max'] == max(v)
assert all(len(x['gpus']) == 2 for x in sl)
"
echo "ok"
