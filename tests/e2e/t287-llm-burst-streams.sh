#!/usr/bin/env bash
# exclusive: measures latency against the fixture (tests/e2e/run.sh runs it alone)
# t287-llm-burst-streams: a stream that arrives in one burst is named. `make interop` found
# llama-server's keep-alive streams held ~40 ms and then delivered whole (it does not set
# TCP_NODELAY: Nagle's algorithm waits for the client's delayed ACK): TTFT 40 ms, ITL 0.02 ms,
# where the first request of each connection streamed in 2 ms. latscope measured what a client
# sees; this checks that it also says the TTFT and ITL measure buffering, not the model.
# serve-test openai --buffer-stream holds every event until the last is due.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 5ms --token-interval 3ms --buffer-stream
U=http://127.0.0.1:$FX_PORT/v1/completions
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 2 -n 8 \
    -t 1 --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 8 and p['errors']['total'] == 0, p['errors']
assert p['burst_streams'] == 8, p['burst_streams']
# the burst comes when the last token is due: 5 ms + 11 x 3 ms
assert 37 < p['burst_ttft_mean_ms'] < 80, p['burst_ttft_mean_ms']
assert p['ttft_ms']['p50'] > 37, p['ttft_ms']
"
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 1 -n 3 -t 1
contains "$TMPDIR/out" "note: 3 of 3 streams came in one burst (every token within 1 ms"
stop_fixture
# the same server streaming: no note
start_fixture --prefill 5ms --token-interval 3ms
U=http://127.0.0.1:$FX_PORT/v1/completions
expect_rc 0 "$LATSCOPE" bench --target openai "$U" --input-tokens 8 --output-tokens 12 -c 2 -n 8 \
    -t 1 --format json
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['burst_streams'] == 0 and p['burst_ttft_mean_ms'] is None, p['burst_streams']
"
stop_fixture
exit 0
