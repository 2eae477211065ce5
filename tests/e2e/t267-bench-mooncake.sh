#!/usr/bin/env bash
# t267-bench-mooncake: --replay of a Mooncake-style trace ("hash_ids", --block-size) against the
# fixture's prefix cache gives exactly the cache hits the trace implies: equal hash ids are
# byte-identical prompt blocks. Lines without hash_ids (synthetic prompts, a "prompt") still
# replay as before. The fixture counts tokens as vLLM does (prefix_cache_queries/hits_total).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
cat >"$TMPDIR/m.jsonl" <<'EOF2'
{"timestamp": 0, "input_length": 40, "output_length": 2, "hash_ids": [1, 2, 3]}
{"timestamp": 40, "input_length": 40, "output_length": 2, "hash_ids": [1, 2, 4]}
{"timestamp": 80, "input_length": 40, "output_length": 2, "hash_ids": [5, 2, 3]}
{"timestamp": 120, "input_length": 40, "output_length": 2, "hash_ids": [1, 2, 3]}
{"timestamp": 160, "input_length": 20, "output_length": 2}
{"timestamp": 200, "prompt": "hello", "output_length": 2}
EOF2
"$LATSCOPE" serve-test openai --prefix-cache --prefix-block 16 --prefill 1ms --token-interval 1ms \
    --port-file "$TMPDIR/o.port" >/dev/null 2>"$TMPDIR/o.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/o.port ]] || { cat "$TMPDIR/o.err"; fail "serve-test openai did not start"; }
U=http://127.0.0.1:$(cat "$TMPDIR/o.port")
# Blocks of 16 tokens on both sides. Lines 2 and 4 share their first two blocks (ids 1, 2) with
# line 1: 32 hit tokens each; line 3 starts with id 5: no hit (a prefix cache needs the whole
# prefix); line 1's third block is partial (8 tokens) and never a full cached block.
for api in completions chat; do
    "$LATSCOPE" bench --target openai "$U/v1/$([[ $api == chat ]] && echo chat/)completions" \
        --replay "$TMPDIR/m.jsonl" --block-size 16 -t 1 --max-send-lag 1000 --metrics-url "$U/metrics" --format json \
        >"$TMPDIR/$api.json" 2>"$TMPDIR/$api.err" || { cat "$TMPDIR/$api.err"; fail "replay $api"; }
done
check_py "$TMPDIR/completions.json" "
p = d['points'][0]
assert p['requests'] == 6 and p['errors']['total'] == 0, (p['requests'], p['errors'])
sm = {x['label']: x['delta'] for x in p['server_metrics']['series'] if 'delta' in x}
# 4 x 40 + 20 + 1 prompt tokens looked up (the fixture: a token per space-led piece)
assert sm['prefix-cache queries'] == 181, sm
assert sm['prefix-cache hits'] == 64, sm
"
check_py "$TMPDIR/chat.json" "
p = d['points'][0]
assert p['requests'] == 6 and p['errors']['total'] == 0, (p['requests'], p['errors'])
sm = {x['label']: x['delta'] for x in p['server_metrics']['series'] if 'delta' in x}
# chat: one role token more per request; the hits do not move
assert sm['prefix-cache queries'] == 187, sm
assert sm['prefix-cache hits'] == 64, sm
"
# --block-size 10 (same fixture, same seed): the 3 ids give 30 tokens (the trace's 40 go beyond
# its blocks: not sent); the server's 16-token blocks now hold 10 + 6 words of two ids, so
# lines 2 and 4 hit one block each (16), and line 5 (a synthetic prompt, seeded by the line)
# hits the block the first run cached: 48.
"$LATSCOPE" bench --target openai "$U/v1/completions" --replay "$TMPDIR/m.jsonl" --block-size 10 \
    -t 1 --max-send-lag 1000 --metrics-url "$U/metrics" --format json >"$TMPDIR/b10.json" 2>"$TMPDIR/b10.err" ||
    { cat "$TMPDIR/b10.err"; fail "replay --block-size 10"; }
check_py "$TMPDIR/b10.json" "
sm = {x['label']: x['delta'] for x in d['points'][0]['server_metrics']['series'] if 'delta' in x}
assert sm['prefix-cache queries'] == 141, sm
assert sm['prefix-cache hits'] == 48, sm
"
expect_rc 2 "$LATSCOPE" bench --target openai "$U/v1/completions" --replay "$TMPDIR/m.jsonl" \
    --block-size 0
contains "$TMPDIR/err" "--block-size 0: expected tokens per block"
printf '{"timestamp": 0, "hash_ids": [1, "x"]}\n' >"$TMPDIR/bad.jsonl"
expect_rc 2 "$LATSCOPE" bench --target openai "$U/v1/completions" --replay "$TMPDIR/bad.jsonl"
contains "$TMPDIR/err" "bad.jsonl:1: \"hash_ids\" must be an array of at most"
exit 0
