#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t515-bench-find-max-concurrency: `--find-max --concurrency LO:HI` on a plain HTTP target, with
# every probe early-stopped by `--confidence` (the two compose). The fixture's truth: 4 workers,
# a fixed 100 ms service time. Up to 4 clients never queue (latency 100 ms); with 5 or more at
# least one request in five queues for a busy worker's residual service time (up to 200 ms), so
# p90 <= 150 ms holds at 4 and fails at 5. Passing probes end as soon as "p90 <= 150 ms" is proven at 99 % (44 requests with
# none over: the LoadGen table in load-testing.md), before their 200-request limit. Probes:
# 3 (met), 6 (missed, measured again), then bisection 4 (met), 5 (missed, again). No assertion
# on time (loaded CI).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
start_fixture --service fixed:100ms --workers 4
# (--max-client-gap 1000: the test is about the search; a loaded machine's client gap of
# 20-40 ms would make every probe client-INVALID, and the search rightly inconclusive)
expect_rc 0 "$LATSCOPE" bench "$FIXTURE_URL/" --find-max -c 3:16 --slo 'p90<=150ms' \
    --confidence 0.99 -n 200 --duration 60s -t 1 --max-client-gap 1000 --format json
python3 - "$TMPDIR/out" <<'PY' || fail "result above (JSON in the run's \$TMPDIR/out)"
import json, sys
d = json.load(open(sys.argv[1]))
fm, pts = d["find_max"], d["points"]
assert fm["search"] == "concurrency" and fm["slo"] == "p90<=150ms", fm
assert fm["max_concurrency"] == 4 and fm["lowest_failing_concurrency"] == 5, fm
# a pass proven at 0.99 is not measured again, a miss is (issue 31: near the boundary); a
# probe the loaded client could not drive (client gap) is no verdict and comes again too
cs = [p["concurrency"] for p in pts]
assert list(dict.fromkeys(cs)) == [3, 6, 4, 5], cs
assert [p["concurrency"] for p in pts if not p["invalid_client"]] == [3, 6, 6, 4, 5, 5], cs
assert fm["range"]["low"] == 4 and fm["range"]["high"] == 5 and fm["range"]["confidence"] == 0.99, fm
for p in pts:
    t = p["slo"]["terms"][0]
    assert p["slo"]["confidence"] == 0.99, p["slo"]
    if p["concurrency"] <= 4:
        # proven early: at least 44 requests, none over, before the 200-request limit
        assert t["verdict"] == "pass" and p["stopped_by_rule"], (p["concurrency"], p["slo"])
        assert 44 <= p["requests"] < 200, p["requests"]
    else:
        # over the SLO; not necessarily a whole extra service time: a queued request waits
        # for the residual service of a busy worker (176 ms seen on an idle machine)
        assert t["verdict"] == "fail" and t["observed_ms"] > 150, (p["concurrency"], t)
assert fm["goodput_rps"] is None and fm["goodput_fraction"] is None, fm  # no per-request SLO
PY
exit 0
