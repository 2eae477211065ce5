#!/usr/bin/env bash
# t203-serve-test-faults: every injected fault kind is what a client observes, and a mix of
# faults by fraction is drawn at about those fractions and counted by the server.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$TMPDIR

# one request; sets RC (curl exit), CODE (HTTP status or 000), SECS, SIZE
one() {
    set +e
    local w
    w=$(curl -s -o "$T/body" --max-time 5 -w '%{http_code} %{time_total} %{size_download}' "$1")
    RC=$?
    set -e
    read -r CODE SECS SIZE <<<"$w"
}
fault_count() { curl -s "$FX_URL/fixture/stats" | grep -o "\"$1\":[0-9]*" | tail -1 | cut -d: -f2; }

start_fixture --fault reset:1
one "$FX_URL/"
[[ $RC -eq 56 && $CODE == 000 ]] || fail "reset: curl rc $RC code $CODE, want 56 (recv failure)"
[[ $(fault_count reset) -eq 1 ]] || fail "reset not counted"
stop_fixture

start_fixture --fault close:1 --body-size 1000
one "$FX_URL/"
[[ $RC -eq 18 && $SIZE -lt 1000 && $SIZE -gt 0 ]] ||
    fail "close mid-body: curl rc $RC size $SIZE, want 18 (partial file) with 0 < size < 1000"
stop_fixture

start_fixture --fault 5xx:1
one "$FX_URL/"
[[ $RC -eq 0 && $CODE == 503 ]] || fail "5xx: rc $RC code $CODE"
contains "$T/body" "injected fault"
stop_fixture

start_fixture --fault slow_headers:1 --slow-headers 300ms
one "$FX_URL/"
[[ $RC -eq 0 && $CODE == 200 ]] || fail "slow headers: rc $RC code $CODE"
awk -v s="$SECS" 'BEGIN { exit !(s >= 0.29) }' || fail "slow headers took $SECS s, want >= 0.3"
stop_fixture

start_fixture --fault garbage:1
one "$FX_URL/"
[[ $RC -ne 0 && $CODE == 000 ]] || fail "garbage: curl rc $RC code $CODE, want an error"
stop_fixture

start_fixture --fault stall:1 --stall 500ms
one "$FX_URL/"
[[ $RC -eq 52 ]] || fail "stall: curl rc $RC, want 52 (empty reply after the stall)"
awk -v s="$SECS" 'BEGIN { exit !(s >= 0.49) }' || fail "stall ended after $SECS s, want >= 0.5"
stop_fixture

# A mix by fraction over 200 requests: each kind near its share, all counted, none lost.
start_fixture --fault 5xx:0.25,reset:0.15 --seed 3
n503=0 nreset=0 n200=0
for i in $(seq 200); do
    one "$FX_URL/"
    case "$RC:$CODE" in
    0:503) n503=$((n503 + 1)) ;;
    0:200) n200=$((n200 + 1)) ;;
    56:000) nreset=$((nreset + 1)) ;;
    *) fail "unexpected outcome rc $RC code $CODE" ;;
    esac
done
[[ $n503 -ge 30 && $n503 -le 72 ]] || fail "503s: $n503 of 200, want ~50"
[[ $nreset -ge 14 && $nreset -le 48 ]] || fail "resets: $nreset of 200, want ~30"
[[ $(fault_count 5xx) -eq $n503 && $(fault_count reset) -eq $nreset ]] ||
    fail "server counted $(fault_count 5xx) 5xx / $(fault_count reset) resets, client saw $n503 / $nreset"
[[ $((n503 + nreset + n200)) -eq 200 ]] || fail "lost requests"
exit 0
