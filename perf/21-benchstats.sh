#!/usr/bin/env bash
# 21-benchstats.sh - histogram, hlog, schedule, pacing and early-stopping costs (perf-stats.c),
# and the fixture server (`latscope serve-test`): throughput under wrk and timer accuracy.
# Prints name<TAB>value<TAB>unit<TAB>note lines; never asserts. wrk is optional (Debian: wrk).
set -uo pipefail
: "${LATSCOPE:?}" "${LATSCOPE_SRCDIR:?}"
root=$LATSCOPE_SRCDIR
make -C "$root" --no-print-directory -s build/perf-stats >&2 || exit 1
"$root/build/perf-stats"

command -v wrk >/dev/null || { echo -e "fixture.wrk\tskipped\t\twrk not installed"; exit 0; }
tmp=$(mktemp -d /tmp/latscope-perf-fx.XXXXXX)
pid=
cleanup() { [[ -n $pid ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
start() {
    "$LATSCOPE" serve-test --port 0 --max-seconds 60 "$@" >"$tmp/out" 2>/dev/null &
    pid=$!
    for _ in $(seq 100); do [[ -s $tmp/out ]] && break; sleep 0.05; done
    port=$(head -1 "$tmp/out")
}
stop() { kill "$pid"; wait "$pid" 2>/dev/null; pid=; }
rps() { awk '/Requests\/sec/ { print $2 }' "$1"; }
lat_ms() { # wrk's average latency in ms
    awk '/Latency/ { v = $2; if (v ~ /us$/) { sub(/us$/, "", v); v /= 1000 }
         else if (v ~ /ms$/) sub(/ms$/, "", v); else if (v ~ /s$/) { sub(/s$/, "", v); v *= 1000 }
         print v; exit }' "$1"
}

start --threads 1
wrk -t1 -c32 -d5s "http://127.0.0.1:$port/" >"$tmp/w1" 2>&1
echo -e "fixture.rps_1thread_c32\t$(rps "$tmp/w1")\treq/s\twrk -t1 -c32, fixed:0, 16 B bodies"
stop
start --threads 2
wrk -t2 -c64 -d5s "http://127.0.0.1:$port/" >"$tmp/w2" 2>&1
echo -e "fixture.rps_2threads_c64\t$(rps "$tmp/w2")\treq/s\twrk -t2 -c64"
stop
for spin in 0 50us; do
    start --service fixed:2ms --spin "$spin"
    wrk -t1 -c1 -d4s "http://127.0.0.1:$port/" >"$tmp/w3" 2>&1
    echo -e "fixture.fixed2ms_mean_spin$spin\t$(lat_ms "$tmp/w3")\tms\twrk -c1 mean latency, service fixed:2ms"
    stop
done
start
wrk -t1 -c1 -d3s "http://127.0.0.1:$port/" >"$tmp/w4" 2>&1
echo -e "fixture.fixed0_mean\t$(lat_ms "$tmp/w4")\tms\twrk -c1 mean latency, no service time (loopback RTT)"
stop
