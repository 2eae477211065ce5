#!/usr/bin/env bash
# t238-bench-tls: https through OpenSSL against `openssl s_server -www` with a throw-away
# self-signed certificate: --insecure succeeds (HTTP/1.0 answers, one connection per request),
# certificate verification (the default) fails every connect and says so in the counts.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
command -v openssl >/dev/null || skip "openssl command not installed"
need_python
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMPDIR/k.pem" -out "$TMPDIR/c.pem" -days 1 \
    -subj /CN=localhost >/dev/null 2>&1 || skip "openssl cannot create a test certificate"
openssl s_server -accept 127.0.0.1:0 -cert "$TMPDIR/c.pem" -key "$TMPDIR/k.pem" -www \
    >"$TMPDIR/s.out" 2>&1 &
FIXTURE_PIDS+=($!)
for _ in $(seq 1 100); do
    port=$(grep -o 'ACCEPT 127.0.0.1:[0-9]*' "$TMPDIR/s.out" 2>/dev/null | cut -d: -f2 || true)
    [[ -n $port ]] && break
    sleep 0.05
done
[[ -n $port ]] || skip "openssl s_server did not report its port: $(cat "$TMPDIR/s.out")"

expect_rc 0 "$LATSCOPE" bench --insecure -c 1 -n 20 --expect-body "Ciphers" --format json \
    "https://127.0.0.1:$port/"
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 20 and p['errors']['total'] == 0, p
assert p['latency_ms']['p50'] >= p['latency_actual_ms']['p50'] > 0
"
expect_rc 1 "$LATSCOPE" bench -c 1 -n 3 --format json "https://127.0.0.1:$port/"
check_py "$TMPDIR/out" "
p = d['points'][0]
assert p['requests'] == 0 and p['errors']['connect'] >= 3, p['errors']
"
exit 0
