#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t261-bench-mpi-hlog-records: `mpirun -n 4 latscope bench --mpi --hdr-log H --records R`: rank
# 0 alone writes both; the interval log holds the windows reduced over every rank (its lat.sched
# intervals add up to every rank's successful requests, as the merged result counts them) and
# the records file every rank's requests (one line per request of the whole schedule, on rank
# 0's clock: no negative time, sorted by scheduled time), the same number as one process
# running the same seeded schedule. Skips without mpirun or an MPI build.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
command -v mpirun >/dev/null || skip "mpirun not installed (scripts/deps.sh installs openmpi-bin)"
set +e
"$LATSCOPE" bench --mpi -c 1 -n 1 http://127.0.0.1:9/ >/dev/null 2>"$TMPDIR/probe"
set -e
grep -q "built without MPI" "$TMPDIR/probe" && skip "this latscope was built without MPI"
start_fixture --service exp:1ms --seed 3
MPIRUN=(mpirun --oversubscribe -n 4)
[[ $(id -u) -eq 0 ]] && MPIRUN+=(--allow-run-as-root)
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
args=(-r 300 --arrival poisson --seed 29 --duration 1500ms --window 300ms -t 1
    --max-send-lag $((20 * SAN_MULT)) --format json)
set +e
"$LATSCOPE" bench "${args[@]}" --records "$TMPDIR/one.jsonl" "$FIXTURE_URL/" >"$TMPDIR/one.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "single run: exit $rc"; }
mkdir "$TMPDIR/run"
cd "$TMPDIR/run"
set +e
timeout $((120 * SAN_MULT)) "${MPIRUN[@]}" "$LATSCOPE" bench --mpi "${args[@]}" --hdr-log lat.hlog \
    --records rec.jsonl "$FIXTURE_URL/" >"$TMPDIR/mpi.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "mpirun: exit $rc"; }
# rank 0 alone wrote them (the others share this directory: one file each)
[[ $(ls) == $'lat.hlog\nrec.jsonl' ]] || fail "files written: $(ls | tr '\n' ' ')"
python3 - "$TMPDIR/mpi.json" rec.jsonl lat.hlog "$TMPDIR/one.jsonl" <<'PY' || fail "records / interval log"
import base64, json, sys, zlib
d = json.load(open(sys.argv[1]))
p = d['points'][0]
assert d['distributed']['shards'] == 4
recs = [json.loads(l) for l in open(sys.argv[2])]
one = [json.loads(l) for l in open(sys.argv[4])]
n = p['requests'] + p['errors']['total']
assert len(recs) == n, (len(recs), n)
assert len(recs) == len(one), (len(recs), len(one))  # the same seeded schedule
ts = [r['t_sched_ns'] for r in recs]
assert min(ts) >= 0 and ts == sorted(ts), ts[:5]
assert all(r['t_end_ns'] >= r['t_sched_ns'] and r['latency_ns'] >= 0 for r in recs)
assert sum(1 for r in recs if r['error'] is None) == p['requests']
# the schedule spans the same time as one process's (1.5 s), not 4 x
span = max(ts) - min(ts)
span1 = max(r['t_sched_ns'] for r in one) - min(r['t_sched_ns'] for r in one)
assert abs(span - span1) < 0.2e9, (span, span1)

def count(b64):
    raw = base64.b64decode(b64)
    body = zlib.decompress(raw[8:])
    pos, total = 40, 0
    while pos < len(body):
        v = shift = 0
        while True:
            b = body[pos]; pos += 1
            v |= (b & 0x7f) << shift; shift += 7
            if not b & 0x80: break
        v = (v >> 1) ^ -(v & 1)
        if v > 0: total += v
    return total

sched = send = 0
intervals = 0
for line in open(sys.argv[3]):
    if line.startswith('#') or line.startswith('"') or not line.strip():
        continue
    parts = line.strip().split(',')
    tag = parts[0][4:] if parts[0].startswith('Tag=') else None
    h = parts[-1]
    if tag == 'lat.sched':
        sched += count(h); intervals += 1
    elif tag == 'lat.send':
        send += count(h)
assert intervals >= 3, intervals
assert sched == p['requests'], (sched, p['requests'])
assert send == p['requests'], (send, p['requests'])
PY
exit 0
