#!/usr/bin/env bash
# t201-serve-test-service-times: the configured service-time distributions, as the server
# draws them (its counters) and as a client sees them (curl timings), and their seeding.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$TMPDIR

# N requests over one keep-alive connection; one time_total (s) per line in $T/times.
hit() {
    local n=$1 url=$2 args=() i
    for ((i = 0; i < n; i++)); do args+=(-o /dev/null -w '%{time_total}\n' "$url"); done
    curl -s "${args[@]}" >"$T/times"
    [[ $(wc -l <"$T/times") -eq $n ]] || fail "expected $n timings"
}
# mean of the server-side service times in ms
server_mean_ms() {
    curl -s "$FX_URL/fixture/stats" >"$T/fx"
    awk -v s="$(jnum "$T/fx" service_ns_total)" -v n="$(jnum "$T/fx" served)" \
        'BEGIN { printf "%.4f", s / n / 1e6 }'
}
within() { # within VALUE LO HI WHAT
    awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v >= lo && v <= hi) }' ||
        fail "$4: $1 not in [$2, $3]"
}

# fixed: every client latency is at least the service time
start_fixture --service fixed:20ms
hit 10 "$FX_URL/"
min=$(sort -g "$T/times" | head -1)
med=$(sort -g "$T/times" | sed -n 5p)
within "$min" 0.020 10 "fixed:20ms min client latency (s)"
within "$med" 0.020 0.200 "fixed:20ms median client latency (s)"
within "$(server_mean_ms)" 20 20 "fixed:20ms server mean (ms)"
stop_fixture

# exponential: server-drawn mean within 15 % of 4 ms over 300 draws (sd of the mean 5.8 %)
start_fixture --service exp:4ms --seed 11
hit 300 "$FX_URL/"
m=$(server_mean_ms)
within "$m" 3.4 4.6 "exp:4ms server mean (ms)"
cmean=$(awk '{ s += $1 } END { printf "%.4f", s / NR * 1000 }' "$T/times")
within "$cmean" "$(awk -v m="$m" 'BEGIN { print m * 0.95 }')" 1000 "exp:4ms client mean (ms)"
stop_fixture

# uniform: mean 4 ms, no client latency below 2 ms
start_fixture --service uniform:2ms:6ms --seed 5
hit 200 "$FX_URL/"
within "$(server_mean_ms)" 3.7 4.3 "uniform:2ms:6ms server mean (ms)"
within "$(sort -g "$T/times" | head -1)" 0.002 10 "uniform min client latency (s)"
stop_fixture

# bimodal: about 20 % of requests take >= 30 ms
start_fixture --service bimodal:1ms:30ms:0.2 --seed 9
hit 200 "$FX_URL/"
slow=$(awk '$1 >= 0.030 { n++ } END { print n + 0 }' "$T/times")
within "$slow" 20 64 "bimodal slow requests of 200"
stop_fixture

# the same seed gives the same service times (sequential requests, one thread)
for run in 1 2; do
    start_fixture --service exp:1ms --seed 42
    hit 50 "$FX_URL/"
    curl -s "$FX_URL/fixture/stats" >"$T/fx$run"
    stop_fixture
done
[[ $(jnum "$T/fx1" service_ns_total) -eq $(jnum "$T/fx2" service_ns_total) ]] ||
    fail "same seed, different service times"
start_fixture --service exp:1ms --seed 43
hit 50 "$FX_URL/"
curl -s "$FX_URL/fixture/stats" >"$T/fx3"
[[ $(jnum "$T/fx1" service_ns_total) -ne $(jnum "$T/fx3" service_ns_total) ]] ||
    fail "different seeds, same service times"
exit 0
