#!/usr/bin/env bash
# exclusive: measures LLM stream latency against the fixture (tests/e2e/run.sh runs it alone)
# t842-doctor-service-llm: doctor's LLM service rules on bench results of serve-test openai:
# one batch slot (--max-seqs 1) swept over -c 1,4 makes TTFT grow while TPOT stays
# (llm-ttft-growth, and llm-prefill-vs-decode says the TTFT is queueing); --buffer-stream makes
# every stream one burst (llm-burst-streams, and no nagle-delayed-ack: a stream's time after its
# headers is its decode); --truncate-prompt with latscope's own prompt count and --stop-after
# with --no-ignore-eos make the load not the one asked for (llm-isl-cut); a healthy server at the
# same sweep has none of these, and is decode-bound at LOW.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
ids='ids = [f["id"] for f in d["findings"]]; by = {f["id"]: f for f in d["findings"]}'
bench() { # URL ARGS...: a bench result in $TMPDIR/r.json, doctor's JSON in $TMPDIR/out
    expect_rc 0 "$LATSCOPE" bench --target openai "$@" -t 1 --format json
    cp "$TMPDIR/out" "$TMPDIR/r.json"
    "$LATSCOPE" doctor --format json "$TMPDIR/r.json" >"$TMPDIR/out" || true
}

# one batch slot: at -c 4 a request waits for three others before its prefill
start_fixture --prefill 5ms --token-interval 3ms --max-seqs 1
U=http://127.0.0.1:$FX_PORT/v1/completions
bench "$U" --input-tokens 8 --output-tokens 12 -c 1,4 -n 16
check_py "$TMPDIR/out" "$ids
assert 'llm-ttft-growth' in ids, ids
assert 'llm-burst-streams' not in ids and 'nagle-delayed-ack' not in ids, ids
e = by['llm-ttft-growth']['evidence']
assert e['sweep'] == 'concurrency' and e['low_load'] == 1 and e['high_load'] == 4, e
assert e['ttft_p50_high_ms'] >= 3 * e['ttft_p50_low_ms'] and e['tpot_growth'] < 1.5, e
assert abs(e['queue_wait_p50_ms'] - (e['ttft_p50_high_ms'] - e['ttft_p50_low_ms'])) < 1e-3, e
assert e['queue_wait_p50_ms'] < e['e2e_p50_high_ms'], e
f = by['llm-ttft-growth']
assert 0 < f['saving_pct'] <= 100 and f['severity'] in ('medium', 'high'), f
ph = by['llm-prefill-vs-decode']['evidence']
assert ph['bound'] == 'queueing' and ph['load'] == 'concurrency 4', ph
assert 0 < ph['ttft_queueing_ms'] < ph['ttft_mean_ms'], ph
"
expect_rc 1 "$LATSCOPE" doctor "$TMPDIR/r.json"
contains "$TMPDIR/out" "concurrency 4: 16 requests, latency p50"
contains "$TMPDIR/out" ", TTFT p50 "
stop_fixture

# every stream held until its last token: one burst each
start_fixture --prefill 5ms --token-interval 3ms --buffer-stream
U=http://127.0.0.1:$FX_PORT/v1/completions
bench "$U" --input-tokens 8 --output-tokens 12 -c 2 -n 8
check_py "$TMPDIR/out" "$ids
assert 'llm-burst-streams' in ids and 'nagle-delayed-ack' not in ids, ids
# its TTFT is the buffering: not judged as prefill against decode
assert 'llm-ttft-growth' not in ids and 'llm-prefill-vs-decode' not in ids, ids
e = by['llm-burst-streams']['evidence']
assert e['burst_streams'] == e['streams'] == 8 and e['burst_share_pct'] == 100, e
# the burst comes when the last token is due: TTFT is the whole stream, ITL nothing
assert e['burst_ttft_mean_ms'] > 10 * e['itl_p50_ms'], e
assert by['llm-burst-streams']['severity'] in ('medium', 'high'), by['llm-burst-streams']
"
stop_fixture

# prompts cut to 20 tokens (40 sent, counted by the fixture's /tokenize), answers of 4 of 12
start_fixture --prefill 2ms --token-interval 1ms --tokenize llamacpp --truncate-prompt 20 \
    --stop-after 4
U=http://127.0.0.1:$FX_PORT/v1/completions
bench "$U" --input-tokens 40 --output-tokens 12 -c 1 -n 6 --tokenize-url auto --no-ignore-eos
check_py "$TMPDIR/out" "$ids
assert 'llm-isl-cut' in ids, ids
e = by['llm-isl-cut']['evidence']
assert e['isl_short_requests'] == e['requests'] == 6, e
assert e['isl_server_mean'] < 0.9 * e['isl_sent_mean'], e
assert e['osl_mismatch_requests'] == 6 and e['output_tokens_per_request'] < 12, e
"
stop_fixture

# healthy: no slot limit, prompts within the context, full answers: none of the faults
start_fixture --prefill 5ms --token-interval 3ms --tokenize llamacpp
U=http://127.0.0.1:$FX_PORT/v1/completions
bench "$U" --input-tokens 8 --output-tokens 12 -c 1,4 -n 16 --tokenize-url auto
check_py "$TMPDIR/out" "$ids
for bad in ('llm-ttft-growth', 'llm-burst-streams', 'llm-isl-cut', 'nagle-delayed-ack'):
    assert bad not in ids, ids
f = by['llm-prefill-vs-decode']
assert f['evidence']['bound'] == 'decode' and f['severity'] == 'info', f
assert f['evidence']['prefill_share_pct'] < 50, f
"
expect_rc 0 "$LATSCOPE" doctor "$TMPDIR/r.json"
stop_fixture
exit 0
