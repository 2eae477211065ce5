#!/usr/bin/env bash
# t202-serve-test-workers: requests beyond the worker pool queue (FIFO), visible in client
# latency, in the fixture counters and in Triton's queue statistics; no pool, no queueing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$TMPDIR
body='{"inputs":[{"name":"INPUT0","shape":[1,2],"datatype":"FP32","data":[1,2]}]}'

burst() { # 6 concurrent inferences; their client latencies (s) in $T/lat
    local i pids=()
    for i in 1 2 3 4 5 6; do
        curl -s -o /dev/null -w '%{time_total}\n' -d "$body" "$FX_URL/v2/models/simple/infer" \
            >"$T/lat.$i" &
        pids+=($!)
    done
    wait "${pids[@]}"
    cat "$T"/lat.? >"$T/lat"
}

# 2 workers x 100 ms, 6 at once: 3 rounds, the slowest >= 300 ms, 4 of them queued
start_fixture --service fixed:100ms --workers 2
t0=$(date +%s%N)
burst
wall_ms=$((($(date +%s%N) - t0) / 1000000))
[[ $wall_ms -ge 295 ]] || fail "6 requests on 2 workers took $wall_ms ms, want >= 300 (3 rounds)"
max=$(sort -g "$T/lat" | tail -1)
awk -v v="$max" 'BEGIN { exit !(v >= 0.19) }' || fail "slowest $max s, want >= 0.2 (queueing)"
curl -s "$FX_URL/fixture/stats" >"$T/fx"
q=$(jnum "$T/fx" queued_requests)
[[ $q -ge 3 ]] || fail "queued_requests $q, want >= 3: $(cat "$T/fx")"
curl -s "$FX_URL/v2/models/simple/stats" >"$T/st"
qns=$(grep -o '"queue":{"count":6,"ns":[0-9]*' "$T/st" | head -1 | grep -o "[0-9]*$")
[[ -n $qns && $qns -ge 300000000 ]] || fail "Triton queue ns '$qns', want >= 300 ms: $(cat "$T/st")"
cns=$(grep -o '"compute_infer":{"count":6,"ns":[0-9]*' "$T/st" | head -1 | grep -o "[0-9]*$")
[[ $cns -eq 600000000 ]] || fail "compute_infer ns $cns, want 6 x 100 ms"
stop_fixture

# no pool: the same burst does not queue
start_fixture --service fixed:100ms
burst
curl -s "$FX_URL/fixture/stats" >"$T/fx"
[[ $(jnum "$T/fx" queued_requests) -eq 0 ]] || fail "queueing without a pool"
[[ $(jnum "$T/fx" in_flight_max) -ge 2 ]] || fail "requests did not overlap: $(cat "$T/fx")"
exit 0
