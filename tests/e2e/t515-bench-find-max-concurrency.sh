#!/usr/bin/env bash
# t515-bench-find-max-concurrency: `--find-max --concurrency LO:HI` on a plain HTTP target, with
# every probe early-stopped by `--confidence` (the two compose). The fixture's truth: 4 workers,
# a fixed 50 ms service time. Up to 4 clients never queue (latency 50 ms); with 5 or more at
# least one request in five waits a whole service time (100 ms), so p90 <= 75 ms holds at 4 and
# fails at 5. Passing probes end as soon as "p90 <= 75 ms" is proven at 99 % (44 requests with
# none over: the LoadGen table in load-testing.md), before their 4 s duration. Probes: 3 (met),
# 6 (missed), then bisection 4 (met), 5 (missed).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:50ms --workers 4
expect_rc 0 "$LATSCOPE" bench "$FIXTURE_URL/" --find-max -c 3:16 --slo 'p90<=75ms' \
    --confidence 0.99 --duration 4s -t 1 --format json
python3 - "$TMPDIR/out" <<'PY' || fail "result above (JSON in the run's \$TMPDIR/out)"
import json, sys
d = json.load(open(sys.argv[1]))
fm, pts = d["find_max"], d["points"]
assert fm["search"] == "concurrency" and fm["slo"] == "p90<=75ms", fm
assert fm["max_concurrency"] == 4 and fm["lowest_failing_concurrency"] == 5, fm
assert [p["concurrency"] for p in pts] == [3, 6, 4, 5], [p["concurrency"] for p in pts]
for p in pts:
    t = p["slo"]["terms"][0]
    assert p["slo"]["confidence"] == 0.99, p["slo"]
    if p["concurrency"] <= 4:
        # proven early: at least 44 requests, none over, before the 4 s duration
        assert t["verdict"] == "pass" and p["stopped_by_rule"], (p["concurrency"], p["slo"])
        assert p["requests"] >= 44 and p["duration_s"] < 3.5, (p["requests"], p["duration_s"])
    else:
        assert t["verdict"] == "fail" and t["observed_ms"] >= 90, (p["concurrency"], t)
assert fm["goodput_rps"] is None and fm["goodput_fraction"] is None, fm  # no per-request SLO
PY
exit 0
