#!/usr/bin/env bash
# t262-bench-gpu-dcgm: --gpu-metrics-url scrapes a DCGM exporter (the fixture's /dcgm/metrics,
# whose values change with every scrape) when each point begins, every --gpu-interval, and
# when it ends. The per-point, per-GPU mean/min/max latscope reports must equal what the
# fixture served, computed here from the fixture's formula and its scrape counter alone
# (src/fixture/dcgm.c); the series carries each scrape's values in order; slices take the
# series' samples of their window; bad URLs are setup errors (exit 2).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service 2ms
u=$FIXTURE_URL
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1,2 --duration 1200ms -t 1 --gpu-metrics-url \
    "$u/dcgm/metrics" --gpu-interval 200ms --slice 400ms --format json
cp "$TMPDIR/out" "$TMPDIR/run.json"
curl_count() { python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]))["scrapes"])' "$1"; }
served=$(curl_count "$u/fixture/dcgm")
check_py "$TMPDIR/run.json" "
served = $served
F = ['sm_clock_mhz', 'mem_clock_mhz', 'gpu_temp_c', 'power_w', 'gpu_util_pct',
     'mem_copy_util_pct', 'fb_free_mib', 'fb_used_mib']
def val(f, k, g):  # the fixture's formula (src/fixture/dcgm.c), written again here
    return {'sm_clock_mhz': 1410 + 15 * (k % 7) - 100 * g, 'mem_clock_mhz': 2619,
            'gpu_temp_c': 40 + k % 11 + g, 'power_w': 150.25 + 3.5 * (k % 9) + 10 * g,
            'gpu_util_pct': (17 * k + 31 * g) % 101, 'mem_copy_util_pct': (5 * k + g) % 50,
            'fb_free_mib': 81559 - (20000 + 100 * k + 7 * g),
            'fb_used_mib': 20000 + 100 * k + 7 * g}[f]
pts = d['points']
assert len(pts) == 2
k = 1  # scrape 0 was latscope's set-up probe
for p in pts:
    t = p['gpu_telemetry']
    assert t['source'] == 'dcgm' and t['available'] and t['scrape_errors'] == 0, t
    n = t['scrapes']
    # begin + end + the 200 ms interval over a 1.2 s point
    assert 5 <= n <= 12, n
    ks = list(range(k, k + n))
    k += n
    assert [g['gpu'] for g in t['gpus']] == ['0', '1'], t['gpus']
    assert t['gpus'][0]['model'] == 'NVIDIA H100 80GB HBM3'
    assert t['gpus'][1]['uuid'].endswith('000000000001')
    for g, gd in enumerate(t['gpus']):
        for f in F:
            vals = [val(f, x, g) for x in ks]
            st = gd[f]
            assert st['samples'] == n, (f, st)
            assert abs(st['mean'] - sum(vals) / n) < 1e-6, (f, g, st, sum(vals) / n)
            assert st['max'] == max(vals) and st['min'] == min(vals), (f, g, st, vals)
        assert 'gr_engine_active' not in gd  # not served: not reported
    # the series: one entry per GPU per scrape, in scrape order, times increasing
    s = t['series']
    assert len(s) == 2 * n, len(s)
    for i, e in enumerate(s):
        assert e['gpu'] == str(i % 2) and e['gpu_util_pct'] == val('gpu_util_pct', ks[i // 2], i % 2), (i, e)
    ts = [e['t_s'] for e in s[::2]]
    assert ts == sorted(ts) and ts[-1] - ts[0] >= 1.0, ts
    # slices: each takes the samples of its window (the first also the begin sample, the
    # last also the end sample); their sample counts add up to the point's
    sl = p['slices']
    tot = 0
    for j, x in enumerate(sl):
        lo = -1e9 if j == 0 else x['start_s']
        hi = 1e9 if j == len(sl) - 1 else x['end_s']
        mine = [e for e in s[::2] if lo <= e['t_s'] < hi]
        g0 = x['gpus'][0]
        if not mine:
            assert 'gpu_util_pct' not in g0, x
            continue
        tot += g0['gpu_util_pct']['samples']
        assert g0['gpu_util_pct']['samples'] == len(mine), (x, mine)
        assert abs(g0['gpu_util_pct']['mean'] - sum(e['gpu_util_pct'] for e in mine) / len(mine)) < 1e-6
    assert tot == n, (tot, n)
# every scrape the fixture served was latscope's: the probe and the points' samples
assert served == k, (served, k)
"
# text and CSV carry the telemetry too
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1 --duration 500ms -t 1 --gpu-metrics-url "$u/dcgm/metrics" \
    --slice 250ms
contains "$TMPDIR/out" "GPU telemetry (dcgm,"
contains "$TMPDIR/out" "gpu 1 NVIDIA H100 80GB HBM3:  util %"
contains "$TMPDIR/out" "slices of 0.25 s"
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1 --duration 500ms -t 1 --gpu-metrics-url "$u/dcgm/metrics" \
    --slice 250ms --format csv
contains "$TMPDIR/out" "GPU,GPU Util Mean,GPU Util Max,Power Mean (W),FB Used Max (MiB)"
# setup errors: not an exporter, an HTTP error, a bad option value
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --gpu-metrics-url "$u/health"
contains "$TMPDIR/err" "no DCGM_FI_DEV_* series"
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --gpu-metrics-url "$u/status/404"
contains "$TMPDIR/err" "HTTP 404"
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --gpu-metrics-url "$u/dcgm/metrics" --gpu-interval 0
contains "$TMPDIR/err" "--gpu-interval"
expect_rc 2 "$LATSCOPE" bench "$u/x" -n 1 --gpu-telemetry rocm
contains "$TMPDIR/err" "expected dcgm"
exit 0
