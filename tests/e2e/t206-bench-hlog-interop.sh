#!/usr/bin/env bash
# t206-bench-hlog-interop: `latscope bench --hdr-log` against the fixture writes an interval
# log that HdrHistogram's own Python package (PyPI hdrhistogram) reads: every tag's merged
# count equals the JSON result's request count and its p50/max agree with the JSON's.
# SKIPs without python3 + hdrhistogram.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
python3 -c 'import hdrh' 2>/dev/null || skip "python3 with the PyPI package hdrhistogram not available"
T=$TMPDIR
check=$LATSCOPE_SRCDIR/tests/tools/hlog_check.py

start_fixture --service fixed:1ms
set +e
"$LATSCOPE" bench -r 100 --duration 2s -t 1 --hdr-log "$T/run.hlog" --format json "$FX_URL/" \
    >"$T/run.json" 2>"$T/err"
rc=$?
set -e
# 1 = a load point INVALID (e.g. send lag on a loaded machine): the log is still complete.
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/err")"
stop_fixture
head -1 "$T/run.hlog" | grep -qF '#[Histogram log format version 1.3]' || fail "no version line"

read -r n p50_ms max_ms < <(python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
print(p["requests"], p["latency_ms"]["p50"], p["latency_ms"]["max"])' "$T/run.json")
[[ $n -ge 100 ]] || fail "only $n requests"
for tag in lat.sched lat.send send_lag; do
    out=$(python3 "$check" --sum "$T/run.hlog" "$tag") || fail "hdrh cannot read tag $tag: $out"
    read -r cnt p50 p99 max entries <<<"$out"
    [[ $cnt -eq $n ]] || fail "$tag: hdrh counts $cnt values, the JSON result $n requests"
    [[ $entries -ge 2 ]] || fail "$tag: $entries intervals, want >= 2 for 2 s at 1 s windows"
    if [[ $tag == lat.sched ]]; then
        # HdrHistogram's estimator (rank round-half-up, bucket upper edge) vs latscope's
        # (nearest rank): within 3 % + one 512 ns step at p50; the max within 0.1 %.
        awk -v a="$p50" -v b="$p50_ms" 'BEGIN { b *= 1e6; d = a - b; if (d < 0) d = -d;
            exit !(d <= 0.03 * b + 512) }' || fail "p50: hdrh $p50 ns, JSON $p50_ms ms"
        awk -v a="$max" -v b="$max_ms" 'BEGIN { b *= 1e6; d = a - b; if (d < 0) d = -d;
            exit !(d <= 0.001 * b + 1000) }' || fail "max: hdrh $max ns, JSON $max_ms ms"
    fi
done
exit 0
