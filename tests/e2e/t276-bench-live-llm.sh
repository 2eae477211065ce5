#!/usr/bin/env bash
# t276-bench-live-llm: the live view of --target openai on a pseudo-terminal adds each window's
# TTFT p50/p99 and output tokens/s: with every request generating exactly 12 tokens, tokens/s
# over requests/s is 12 (each window's counts come from the same requests), and no window's
# TTFT p99 exceeds the point's max; the line is erased at the end; on a pipe nothing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
command -v script >/dev/null || skip "util-linux script missing (no pseudo-terminal to test on)"
start_fixture --prefill 5ms --token-interval 1ms --max-seqs 8
URL="http://127.0.0.1:$FX_PORT/v1/completions"
args="--target openai --output-tokens 12 --input-tokens 20:8 --seed 9 -t 1 -c 4 \
    --duration 1500ms --window 200ms --max-send-lag 50 --format json"
TERM=xterm script -q -e -c "stty cols 200 2>/dev/null; '$LATSCOPE' bench $args '$URL' \
    >'$TMPDIR/r.json'" /dev/null >"$TMPDIR/pty" </dev/null || true
python3 - "$TMPDIR/pty" "$TMPDIR/r.json" <<'PY' || fail "openai live view: $(cat -A "$TMPDIR/pty" | head -c 3000)"
import json, re, sys
raw = open(sys.argv[1], 'rb').read().decode('utf-8', 'replace')
p = json.load(open(sys.argv[2]))['points'][0]
st = re.compile(r'\r\x1b\[Kpoint 1/1 c=4  ([0-9.]+)/1\.5s  ([0-9.]+) req/s  p50/p99 \S+ ms  '
                r'errors 0  ttft p50/p99 ([0-9.]+)/([0-9.]+) ms  ([0-9.]+) tok/s')
lines = list(st.finditer(raw))
assert len(lines) >= 4, len(lines)
rest = st.sub('', raw).replace('\r\x1b[K', '')
assert rest.strip() == '', repr(rest[:300])
assert raw.rstrip('\n').endswith('\r\x1b[K'), repr(raw[-80:])
assert p['output_tokens'] == 12 * p['requests'] and p['requests'] > 0, (p['output_tokens'], p['requests'])
rps = sum(float(m.group(2)) for m in lines)
tps = sum(float(m.group(5)) for m in lines)
assert rps > 0 and abs(tps / rps - 12) <= 0.6, (tps, rps)
t = p['ttft_ms']
for m in lines:
    a, b = float(m.group(3)), float(m.group(4))
    assert a <= b, m.group(0)
    # the window histograms' values are within 1 % of a request's own TTFT
    assert b <= t['max'] * 1.02 + 0.01, (m.group(0), t)
PY
# stderr a pipe: nothing of it
"$LATSCOPE" bench $args "$URL" 2>&1 >/dev/null | cat >"$TMPDIR/pipe"
! grep -q $'\033' "$TMPDIR/pipe" || fail "a live line went into a pipe: $(cat -A "$TMPDIR/pipe")"
echo "ok"
