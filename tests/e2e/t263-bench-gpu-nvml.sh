#!/usr/bin/env bash
# t263-bench-gpu-nvml: --gpu-telemetry nvml. Without a driver (this machine, or a library path
# that does not exist) the run goes on, exits 0, and says why on stderr and in the JSON. Against
# a mock libnvidia-ml (tests/e2e/data/mock-nvml.c, loaded through LATSCOPE_NVML_LIB) the values
# reported per point are what the mock returned, recomputed here from its formula. A real GPU's
# NVML is not exercised here (no GPU on the test machines).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service 1ms
u=$FIXTURE_URL
# 1. no driver: a library that is not there
LATSCOPE_NVML_LIB=$TMPDIR/none/libnvidia-ml.so.1 expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1 \
    --duration 300ms -t 1 --gpu-telemetry nvml --format json
contains "$TMPDIR/err" "GPU telemetry unavailable: cannot load $TMPDIR/none/libnvidia-ml.so.1"
contains "$TMPDIR/err" "the run goes on without it"
check_py "$TMPDIR/out" "
p = d['points'][0]
t = p['gpu_telemetry']
assert p['requests'] > 0 and p['valid']
assert t['source'] == 'nvml' and t['available'] is False and t['scrapes'] == 0, t
assert 'no NVIDIA driver' in t['unavailable_reason'], t
"
# the text report says so under the point
LATSCOPE_NVML_LIB=$TMPDIR/none/libnvidia-ml.so.1 expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1 \
    --duration 200ms -t 1 --gpu-telemetry nvml
contains "$TMPDIR/out" "GPU telemetry (nvml): unavailable: cannot load"
# the default library on this machine: without a driver the same; with one, telemetry
expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1 --duration 200ms -t 1 --gpu-telemetry nvml --format json
check_py "$TMPDIR/out" "
t = d['points'][0]['gpu_telemetry']
assert t['source'] == 'nvml'
assert t['available'] or t['unavailable_reason'], t
"
# 2. a mock NVML: the real sampling path
command -v gcc >/dev/null || skip "gcc absent (builds the mock NVML)"
gcc -O1 -shared -fPIC -o "$TMPDIR/libmocknvml.so" "$LATSCOPE_SRCDIR/tests/e2e/data/mock-nvml.c" ||
    fail "cannot build the mock NVML"
LATSCOPE_NVML_LIB=$TMPDIR/libmocknvml.so expect_rc 0 "$LATSCOPE" bench "$u/x" -c 1,2 \
    --duration 800ms -t 1 --gpu-telemetry nvml --gpu-interval 100ms --slice 400ms --format json
check_py "$TMPDIR/out" "
k = 0  # the mock's utilization read counter, per device (both advance together)
for p in d['points']:
    t = p['gpu_telemetry']
    assert t['available'] and t['scrape_errors'] == 0, t
    n = t['scrapes']
    assert 4 <= n <= 12, n
    for i, g in enumerate(t['gpus']):
        assert g['gpu'] == str(i) and g['uuid'] == 'GPU-mock-%d' % i and g['model'] == 'Mock H200'
        u = [(7 * x + 3 * i) % 100 for x in range(k, k + n)]
        assert abs(g['gpu_util_pct']['mean'] - sum(u) / n) < 1e-6, (g, u)
        assert g['gpu_util_pct']['max'] == max(u) and g['gpu_util_pct']['min'] == min(u)
        assert g['mem_copy_util_pct']['mean'] == 5 + i
        assert g['power_w']['mean'] == 250 + i and g['power_w']['samples'] == n
        assert g['fb_used_mib']['max'] == 1000 + i and g['fb_free_mib']['min'] == 81559 - 1000 - i
        assert g['sm_clock_mhz']['mean'] == 1980 - 10 * i and g['mem_clock_mhz']['max'] == 2619
        assert g['gpu_temp_c']['mean'] == 50 + i
    k += n
    assert sum(x['gpus'][0]['gpu_util_pct']['samples'] for x in p['slices'] if 'gpu_util_pct' in x['gpus'][0]) == n
"
# nvmlInit failing (driver not loaded) is the same as no driver: said, and the run goes on
LATSCOPE_NVML_LIB=$TMPDIR/libmocknvml.so MOCK_NVML_FAIL_INIT=1 expect_rc 0 "$LATSCOPE" bench \
    "$u/x" -c 1 --duration 200ms -t 1 --gpu-telemetry nvml
contains "$TMPDIR/err" "nvmlInit failed: Driver Not Loaded"
exit 0
