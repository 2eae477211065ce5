#!/usr/bin/env bash
# exclusive: compares latency with the test server's configured delay
# t288-bench-grpc: `bench grpc://` (KServe v2 ModelInfer over HTTP/2, issue 36) against
# tests/tools/grpc-v2-server.py: grpcio's server (inputs from ModelMetadata, exact call counts,
# Triton's ModelStatistics as the server breakdown,
# latency near its --delay-ms, many streams on one connection, grpc-status faults by code) and
# the raw HTTP/2 engine for RST_STREAM, GOAWAY and garbage DATA, each counted in its own class.
# Skips when grpcio cannot be installed (tests/tools/grpc-venv.sh); without nghttp2 in the build,
# checks the error that says how to build it.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
S=$LATSCOPE_SRCDIR/tests/tools/grpc-v2-server.py

if ! "$LATSCOPE" version | grep -qE '^ *nghttp2 +yes'; then
    expect_rc 2 "$LATSCOPE" bench grpc://127.0.0.1:1 --model m -n 1
    contains "$TMPDIR/err" "libnghttp2-dev"
    echo "ok (built without nghttp2: the error says how to build it)"
    exit 0
fi
expect_rc 2 "$LATSCOPE" bench --target http grpc://127.0.0.1:1 -n 1
contains "$TMPDIR/err" "grpc:// works with --target kserve only"
expect_rc 2 "$LATSCOPE" bench grpc://127.0.0.1:1 --model m -d '{}' -n 1
contains "$TMPDIR/err" "not with grpc://"

py=$("$LATSCOPE_SRCDIR/tests/tools/grpc-venv.sh") || skip "$py"

# start_server NAME ARGS...: runs the server, sets PORT; its call count is in $TMPDIR/NAME.count
start_server() {
    local name=$1
    shift
    : >"$TMPDIR/$name.out" # before the background job opens it: awk below reads it at once
    "$py" "$S" --count-file "$TMPDIR/$name.count" "$@" >"$TMPDIR/$name.out" 2>"$TMPDIR/$name.err" &
    FIXTURE_PIDS+=($!)
    PORT=
    for _ in $(seq 1 100); do
        PORT=$(awk '/^port /{print $2}' "$TMPDIR/$name.out" 2>/dev/null || true)
        [[ -n $PORT ]] && break
        sleep 0.1
    done
    [[ -n $PORT ]] || { cat "$TMPDIR/$name.err" >&2; fail "$name: the server did not start"; }
}
count() { cat "$TMPDIR/$1.count" 2>/dev/null || echo "none"; }

# 1. correct answers; inputs from ModelMetadata (no --input); exactly -n calls reach the server
start_server ok --model simple
expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model simple -c 4 -t 2 -n 300 \
    --format json --records "$TMPDIR/ok.jsonl"
cp "$TMPDIR/out" "$TMPDIR/ok.json"
[[ $(count ok) -eq 300 ]] || fail "server got $(count ok) ModelInfer calls, want 300"
[[ $(wc -l <"$TMPDIR/ok.jsonl") -eq 300 ]] || fail "records: $(wc -l <"$TMPDIR/ok.jsonl") lines"
check_py "$TMPDIR/ok.json" "
assert d['target'] == 'kserve', d['target']
assert d['workload'].startswith('kserve-grpc ModelInfer simple'), d['workload']
p = d['points'][0]
assert p['requests'] == 300 and p['errors']['total'] == 0, (p['requests'], p['errors'])
g = p['grpc']
assert g['streams'] == 300 and g['status']['OK'] == 300, g
assert 1 <= g['connections'] <= 2, g
assert p['valid'] is True
s = p['server']  # ModelStatistics before and after the point: the server's own per-call times
assert s['count'] == 300, s
assert (s['queue_ms'], s['compute_input_ms'], s['compute_infer_ms'], s['compute_output_ms']) == \
    (0.25, 0.1, 1.0, 0.05), s
"
# an unknown model: ModelMetadata's NOT_FOUND, named
expect_rc 2 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model nosuch -n 1
contains "$TMPDIR/err" "NOT_FOUND"

# 2. latency ~ the server's delay; 8 calls in flight on one connection (multiplexing)
start_server slow --delay-ms 20 --workers 16
expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model m --input INPUT0:1x4:FP32 \
    -c 8 -t 1 --grpc-connections 1 -n 160 --format json
cp "$TMPDIR/out" "$TMPDIR/slow.json"
check_py "$TMPDIR/slow.json" "
p = d['points'][0]
assert p['requests'] == 160, p['errors']
p50 = p['latency_ms']['p50']
assert 19 <= p50 <= 20 + 60 * $SAN_MULT, p50
g = p['grpc']
assert g['connections'] == 1 and g['max_streams_per_connection'] >= 2, g
"

# 3. grpc-status faults: every 4th call UNAVAILABLE (14)
start_server status --status-every 4 --status-code 14
expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model m --input INPUT0:1x4:FP32 \
    -c 1 -n 40 --format json
cp "$TMPDIR/out" "$TMPDIR/status.json"
check_py "$TMPDIR/status.json" "
p = d['points'][0]
e = p['errors']
assert p['requests'] == 30 and e['grpc_status'] == 10 and e['total'] == 10, e
s = p['grpc']['status']
assert s['UNAVAILABLE'] == 10 and s['OK'] == 30 and sum(s.values()) == 40, s
"

# 4. the raw engine: RST_STREAM, GOAWAY, garbage DATA on every 5th call, one call at a time
for f in rst:rst_stream goaway:goaway garbage:malformed; do
    kind=${f%%:*} cls=${f#*:}
    start_server "$kind" --engine raw "--$kind-every" 5
    expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model m --input INPUT0:1x4:FP32 \
        -c 1 -n 50 --format json
    cp "$TMPDIR/out" "$TMPDIR/$kind.json"
    [[ $(count "$kind") -eq 50 ]] || fail "$kind: server got $(count "$kind") calls, want 50"
    check_py "$TMPDIR/$kind.json" "
p = d['points'][0]
e = p['errors']
assert p['requests'] == 40 and e['$cls'] == 10 and e['total'] == 10, ('$kind', e)
if '$kind' == 'goaway':  # each GOAWAY closes its connection: the next call opens another
    assert p['grpc']['connections'] == 10, p['grpc']
"
done

# 5. over --timeout: timeout class, the stream reset (CANCEL), its connection kept
start_server late --delay-ms 400
expect_rc 1 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model m --input INPUT0:1x4:FP32 \
    -c 1 -t 1 -n 3 --timeout 100ms --format json
cp "$TMPDIR/out" "$TMPDIR/late.json"
check_py "$TMPDIR/late.json" "
p = d['points'][0]
assert p['errors']['timeout'] == 3 and p['errors']['total'] == 3, p['errors']
assert p['grpc']['connections'] == 1, p['grpc']
"

# --cancel-after: the cancelled calls' streams are reset (RST_STREAM CANCEL) on a kept connection
expect_rc 0 "$LATSCOPE" bench "grpc://127.0.0.1:$PORT" --model m --input INPUT0:1x4:FP32 \
    -c 2 -t 1 -n 20 --timeout 2s --cancel-after 100ms --cancel-share 0.5 --format json
cp "$TMPDIR/out" "$TMPDIR/cancel.json"
check_py "$TMPDIR/cancel.json" "
p = d['points'][0]
assert p['errors']['total'] == 0 and p['cancelled'] > 0 and p['requests'] > 0, p['errors']
assert p['requests'] + p['cancelled'] == 20, (p['requests'], p['cancelled'])
assert p['grpc']['connections'] == 1, p['grpc']
"

# 6. nothing listening: connect errors with their reason; the metadata call says so
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
expect_rc 1 "$LATSCOPE" bench "grpc://127.0.0.1:$dead" --model m --input INPUT0:1x4:FP32 -c 1 -n 5
contains "$TMPDIR/out" "connect 5 [Connection refused]"
expect_rc 2 "$LATSCOPE" bench "grpc://127.0.0.1:$dead" --model m -n 1
contains "$TMPDIR/err" "ModelMetadata: cannot connect: Connection refused"
echo "ok"
