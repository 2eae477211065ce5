#!/usr/bin/env bash
# 22-bench-distributed.sh - multi-host bench on one machine (issue #21), never asserted: the
# same total open-loop rate driven by 1 process and by 4 MPI ranks / 4 --shard processes +
# `bench merge`, against the fixture (fixed service time). Reports per setup the achieved
# rate, the merged send-lag p50/p99, the start skew, and the cost of combining the results
# (MPI reduction per point on rank 0, `bench merge` wall time).
# Knobs: DIST_PERF_RATE (default 2000), DIST_PERF_SECONDS (5), DIST_PERF_RANKS (4).
# Prints name<TAB>value<TAB>unit<TAB>note lines.
set -uo pipefail
: "${LATSCOPE:?}"
rate=${DIST_PERF_RATE:-2000}
secs=${DIST_PERF_SECONDS:-5}
ranks=${DIST_PERF_RANKS:-4}
tmp=$(mktemp -d /tmp/latscope-perf-dist.XXXXXX)
pids=()
cleanup() {
    local p
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
out() { printf '%s\t%s\t%s\t%s\n' "$@"; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

"$LATSCOPE" serve-test --port 0 --max-seconds 600s --service fixed:1ms >"$tmp/port" 2>/dev/null &
pids+=($!)
for _ in $(seq 100); do [[ -s $tmp/port ]] && break; sleep 0.05; done
url=http://127.0.0.1:$(head -1 "$tmp/port" | tr -dc 0-9)/
args=(-r "$rate" --arrival poisson --seed 3 --duration "${secs}s" --exact 0 --format json)
report() { # NAME FILE NOTE
    local f=$2
    out "$1.achieved_rps" "$(jget "$f" "d['points'][0]['achieved_rps']")" "req/s" "$3"
    out "$1.requests" "$(jget "$f" "d['points'][0]['requests'] + d['points'][0]['errors']['total']")" "" "$3"
    out "$1.send_lag_p50" "$(jget "$f" "d['points'][0]['send_lag_ms']['p50']")" "ms" "$3"
    out "$1.send_lag_p99" "$(jget "$f" "d['points'][0]['send_lag_ms']['p99']")" "ms" "$3"
    out "$1.valid" "$(jget "$f" "d['points'][0]['valid']")" "" \
        "$(jget "$f" "d['points'][0]['invalid_reason'] or '$3'")"
}
"$LATSCOPE" bench -t 2 "${args[@]}" "$url" >"$tmp/one.json" 2>/dev/null
report single "$tmp/one.json" "1 process, 2 threads, $rate req/s"

if command -v mpirun >/dev/null; then
    extra=()
    [[ $(id -u) -eq 0 ]] && extra+=(--allow-run-as-root)
    OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none \
        mpirun --oversubscribe "${extra[@]}" -n "$ranks" "$LATSCOPE" bench --mpi -t 1 \
        "${args[@]}" "$url" >"$tmp/mpi.json" 2>/dev/null
    if [[ -s $tmp/mpi.json ]]; then
        report mpi "$tmp/mpi.json" "$ranks MPI ranks x 1 thread on $(nproc) cores"
        out mpi.reduce "$(jget "$tmp/mpi.json" "d['distributed']['reduce_ms']")" "ms" "rank 0, one point"
        out mpi.start_skew "$(jget "$tmp/mpi.json" "d['distributed']['max_start_skew_ms']")" "ms" ""
        out mpi.clock_offset "$(jget "$tmp/mpi.json" "d['distributed']['max_clock_offset_ms']")" "ms" "ping-pong estimate, one host"
    fi
fi

start=$(($(date +%s) + 2))
sp=()
for ((k = 0; k < ranks; k++)); do
    "$LATSCOPE" bench --shard $k/$ranks --start-at $start -t 1 "${args[@]}" "$url" \
        >"$tmp/s$k.json" 2>/dev/null &
    sp+=($!)
done
wait "${sp[@]}"
t0=$(date +%s%N)
"$LATSCOPE" bench merge --format json "$tmp"/s*.json >"$tmp/merged.json" 2>/dev/null
t1=$(date +%s%N)
report merge "$tmp/merged.json" "$ranks --shard processes + bench merge"
out merge.wall "$(((t1 - t0) / 1000000))" "ms" "bench merge of $ranks results"
out merge.start_skew "$(jget "$tmp/merged.json" "d['distributed']['max_start_skew_ms']")" "ms" "--start-at"
