#!/usr/bin/env bash
# t278-bench-merge-llm-parts: `bench merge` of two --target openai shards (the LLM fixture)
# merges what it used to drop: the input-token keys (the 2 shards send exactly the single run's
# requests, so the merged input_tokens, min, max, mean and per-source counts equal the single
# run's) and the LLM part of the time slices (llm_requests / errors and TTFT/ITL samples
# summed, TTFT mean weighted by samples, percentiles "not mergeable" where both shards had
# requests).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh" # check_py (its start_fixture: llm.sh's below)
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 1ms --max-seqs 8
URL="http://127.0.0.1:$FX_PORT/v1/completions"
common=(--target openai --output-tokens 12:5 --input-tokens 20:8 --seed 9 -t 1
    --max-send-lag 50 --format json --slice 200ms -c 4 -n 60)
run() { # OUT args...
    local out=$1
    shift
    set +e
    "$LATSCOPE" bench "${common[@]}" "$@" "$URL" >"$out" 2>"$out.err"
    local rc=$?
    set -e
    [[ $rc -le 1 ]] || fail "bench $*: exit $rc: $(cat "$out.err")"
}
run "$TMPDIR/single.json"
run "$TMPDIR/s0.json" --shard 0/2 &
p0=$!
run "$TMPDIR/s1.json" --shard 1/2 &
p1=$!
wait $p0 $p1
expect_rc 0 "$LATSCOPE" bench merge --format json "$TMPDIR/s0.json" "$TMPDIR/s1.json"
cp "$TMPDIR/out" "$TMPDIR/m.json"
check_py "$TMPDIR/m.json" "
one = json.load(open('$TMPDIR/single.json'))['points'][0]
sh = [json.load(open('$TMPDIR/s%d.json' % k))['points'][0] for k in (0, 1)]
p = d['points'][0]
assert one['input_tokens'] > 0 and one['input_tokens_source'] == 'usage', one['input_tokens']
for k in ('input_tokens', 'input_tokens_min', 'input_tokens_max', 'input_tokens_mean',
          'input_tokens_source', 'input_tokens_source_counts'):
    assert p[k] == one[k], (k, p[k], one[k])
assert p['input_tokens'] == sum(s['input_tokens'] for s in sh)
sl = p['slices']
assert len(sl) == max(len(s['slices']) for s in sh)
assert sum(x['llm_requests'] for x in sl) == p['requests'] == one['requests']
nm = 0
for i, x in enumerate(sl):
    a = [s['slices'][i] for s in sh if i < len(s['slices'])]
    assert x['llm_requests'] == sum(y['llm_requests'] for y in a)
    assert x['llm_errors'] == sum(y['llm_errors'] for y in a)
    ta = [y['ttft_ms'] for y in a if y['ttft_ms']]
    if not ta:
        assert x['ttft_ms'] is None
        continue
    t = x['ttft_ms']
    assert t['samples'] == sum(y['samples'] for y in ta)
    m = sum(y['mean'] * y['samples'] for y in ta) / t['samples']
    assert abs(t['mean'] - m) < 1e-5, (t, m)
    if len(ta) > 1:
        nm += 1
        assert x['percentiles'] == 'not mergeable' and t['p50'] is None and t['p99'] is None, x
    else:
        assert t['p50'] == ta[0]['p50'] and t['p99'] == ta[0]['p99'], (t, ta)
assert nm >= 1, nm
"
echo "ok"
