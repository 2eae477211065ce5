#!/usr/bin/env bash
# t204-serve-test-http: keep-alive, Connection: close, HTTP/1.0, chunked responses, chunked
# request bodies, and malformed or oversized requests.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/fixture.sh"
command -v curl >/dev/null || skip "curl not installed"
T=$TMPDIR

# keep-alive: 5 requests, one connection
start_fixture --max-body 100
curl -s -o /dev/null -o /dev/null -o /dev/null -o /dev/null -o /dev/null \
    "$FX_URL/a" "$FX_URL/b" "$FX_URL/c" "$FX_URL/d" "$FX_URL/e"
[[ $(curl -s "$FX_URL/fixture/stats" | jnum - connections) -eq 2 ]] ||
    fail "5 keep-alive requests (+1 stats) used more than 2 connections"
# HTTP/1.0 without keep-alive: the server closes
curl -s -0 -D "$T/h10" -o /dev/null "$FX_URL/"
contains "$T/h10" "Connection: close"
# chunked request body is decoded
printf 'hello chunked world' >"$T/in"
[[ $(curl -s -H 'Transfer-Encoding: chunked' --data-binary @"$T/in" "$FX_URL/echo") == \
    "hello chunked world" ]] || fail "chunked request body"
# oversized body: 413
head -c 500 /dev/zero >"$T/big"
[[ $(curl -s -o "$T/e" -w '%{http_code}' --data-binary @"$T/big" "$FX_URL/echo") == 413 ]] ||
    fail "oversized body not 413"
# malformed request line: 400 and close (raw socket through bash's /dev/tcp)
if exec 3<>"/dev/tcp/127.0.0.1/$FX_PORT" 2>/dev/null; then
    printf 'NOT\001HTTP\r\n\r\n' >&3
    timeout 5 cat <&3 >"$T/raw" || true
    exec 3<&-
    contains "$T/raw" "HTTP/1.1 400 Bad Request"
    contains "$T/raw" "Connection: close"
fi
stop_fixture

# --no-keepalive: every response closes its connection
start_fixture --no-keepalive
curl -s -D "$T/hc" -o /dev/null -o /dev/null "$FX_URL/a" "$FX_URL/b"
contains "$T/hc" "Connection: close"
[[ $(curl -s "$FX_URL/fixture/stats" | jnum - connections) -eq 3 ]] ||
    fail "--no-keepalive reused a connection"
stop_fixture

# --chunked: chunked encoding on the wire, the same body after decoding
start_fixture --chunked --body-size 100
curl -s --raw -D "$T/hch" -o "$T/raw" "$FX_URL/"
contains "$T/hch" "Transfer-Encoding: chunked"
head -1 "$T/raw" | grep -q '^32' || fail "first chunk size line: $(head -1 "$T/raw")"
[[ $(curl -s "$FX_URL/" | wc -c) -eq 100 ]] || fail "decoded chunked body length"
body='{"inputs":[{"name":"x","shape":[3],"datatype":"INT32","data":[1,2,3]}]}'
curl -s -d "$body" "$FX_URL/v2/models/simple/infer" >"$T/inf"
"$LATSCOPE" selftest lint-json "$T/inf" >/dev/null || fail "chunked infer response not JSON"
# an SSE stream: 5 events 50 ms apart (>= 200 ms in all), then [DONE]
secs=$(curl -s -N -o "$T/sse" -w '%{time_total}' "$FX_URL/stream?n=5&every=50ms")
awk -v s="$secs" 'BEGIN { exit !(s >= 0.195) }' || fail "stream took $secs s, want >= 0.2"
[[ $(grep -c '^data: {"index":' "$T/sse") -eq 5 ]] || fail "stream events: $(cat "$T/sse")"
contains "$T/sse" "data: [DONE]"
[[ $(curl -s -o /dev/null -w '%{http_code}' "$FX_URL/stream?n=0") == 400 ]] || fail "stream n=0"
stop_fixture
exit 0
