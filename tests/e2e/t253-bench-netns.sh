#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t253-bench-netns: hosts simulated with network namespaces. The fixture server runs in its
# own namespace and two client "hosts" in two others, all on one bridge (veth pairs). The two
# shards (--shard K/2, --start-at) merged send exactly what one client sends with the same
# seeded schedule (same request count, same window), over a real (virtual) network path.
# Skips unless root with `ip netns` (CAP_NET_ADMIN) and a working bridge.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
[[ $(id -u) -eq 0 ]] || skip "network namespaces need root"
command -v ip >/dev/null || skip "iproute2 (ip) not installed"
"$LATSCOPE" serve-test --help 2>/dev/null | grep -q -- --port || skip "no serve-test in this build"
id=$(($$ % 10000))
ns_fx=lsfx$id ns_c0=lsc0$id ns_c1=lsc1$id br=lsbr$id
net=10.$((77 + id % 100)).$((id / 100 % 250))
cleanup_ns() {
    stop_fixtures
    local n
    for n in $ns_fx $ns_c0 $ns_c1; do ip netns del "$n" 2>/dev/null || true; done
    ip link del "$br" 2>/dev/null || true
}
trap cleanup_ns EXIT
ip netns add $ns_fx 2>/dev/null || skip "cannot create network namespaces here"
ip link add $br type bridge 2>/dev/null || skip "cannot create a bridge here"
ip link set $br up
n=0
for ns in $ns_fx $ns_c0 $ns_c1; do
    [[ $ns == "$ns_fx" ]] || ip netns add $ns
    ip link add v$n$id type veth peer name p$n$id
    ip link set p$n$id master $br up
    ip link set v$n$id netns $ns
    ip -n $ns addr add $net.$((n + 2))/24 dev v$n$id
    ip -n $ns link set v$n$id up
    ip -n $ns link set lo up
    n=$((n + 1))
done
out=$TMPDIR/fx.port
ip netns exec $ns_fx "$LATSCOPE" serve-test --host 0.0.0.0 --port 0 --max-seconds 120s \
    --service exp:1ms --seed 3 >"$out" 2>"$out.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do
    port=$(head -1 "$out" 2>/dev/null | tr -dc 0-9 || true)
    [[ -n $port ]] && break
    sleep 0.05
done
[[ -n ${port:-} ]] || { cat "$out.err" >&2; skip "serve-test did not start in the namespace (--host?)"; }
URL=http://$net.2:$port/
ip netns exec $ns_c0 "$LATSCOPE" bench -c 1 -n 3 --format json "$URL" >"$TMPDIR/probe.json" 2>&1 ||
    true
ok=$(jq_py "$TMPDIR/probe.json" "d['points'][0]['requests']" 2>/dev/null || echo 0)
[[ $ok == 3 ]] || skip "no connectivity between namespaces over the bridge here (firewall?)"

args=(-r 300 --arrival poisson --seed 17 --duration 1500ms -t 1 --max-send-lag $((20 * SAN_MULT))
    --format json)
set +e
ip netns exec $ns_c0 "$LATSCOPE" bench "${args[@]}" "$URL" >"$TMPDIR/single.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "single: exit $rc"; }
start=$(($(date +%s) + 2))
ip netns exec $ns_c0 "$LATSCOPE" bench --shard 0/2 --start-at $start "${args[@]}" "$URL" \
    >"$TMPDIR/s0.json" 2>"$TMPDIR/s0.err" &
p0=$!
ip netns exec $ns_c1 "$LATSCOPE" bench --shard 1/2 --start-at $start "${args[@]}" "$URL" \
    >"$TMPDIR/s1.json" 2>"$TMPDIR/s1.err" &
p1=$!
wait $p0 || true
wait $p1 || true
set +e
"$LATSCOPE" bench merge --format json "$TMPDIR"/s{0,1}.json >"$TMPDIR/m.json" 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err" "$TMPDIR"/s*.err; fail "merge: exit $rc"; }
check_py "$TMPDIR/m.json" "
import json
s = json.load(open('$TMPDIR/single.json'))['points'][0]
p = d['points'][0]
n = lambda q: q['requests'] + q['errors']['total']
assert n(p) == n(s), (n(p), n(s))
assert p['duration_s'] == s['duration_s'], (p['duration_s'], s['duration_s'])
assert 450 - 4 * 450 ** 0.5 <= n(p) <= 450 + 4 * 450 ** 0.5, n(p)
assert p['errors']['total'] == s['errors']['total'] == 0, (p['errors'], s['errors'])
assert [l['index'] for l in p['shards']] == [0, 1]
assert p['valid'] == all(l['valid'] for l in p['shards'])
"
exit 0
