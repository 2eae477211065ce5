#!/usr/bin/env bash
# t766-bench-llm-one-throughput: one point, one throughput (issue 31 item 5). An LLM point
# printed "1 in 0.154 s = 6.5 req/s" and "0.171 req/s over 5.839 s" for the same requests: the
# LLM rates now divide by the point's own duration_s, in a closed and an open loop. Ratios of
# numbers from the same run only.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
need_python
"$LATSCOPE" serve-test openai --prefill 5ms --token-interval 1ms --port-file "$TMPDIR/o.port" \
    >/dev/null 2>"$TMPDIR/o.err" &
FIXTURE_PIDS+=($!)
for _ in $(seq 100); do [[ -s $TMPDIR/o.port ]] && break; sleep 0.05; done
[[ -s $TMPDIR/o.port ]] || { cat "$TMPDIR/o.err"; fail "serve-test openai did not start"; }
URL=http://127.0.0.1:$(cat "$TMPDIR/o.port")/v1/chat/completions
for load in "-c 2 -n 20" "-r 20 --duration 1s"; do
    # shellcheck disable=SC2086
    "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 4 -t 1 $load \
        --format json >"$TMPDIR/a.json" 2>"$TMPDIR/a.err" || [[ $? -eq 1 ]] || { cat "$TMPDIR/a.err"; fail "$load"; }
    check_py "$TMPDIR/a.json" "
p = d['points'][0]
assert p['llm_duration_s'] == p['duration_s'], (p['llm_duration_s'], p['duration_s'])
assert abs(p['requests_per_s'] - p['achieved_rps']) <= 0.002 * p['achieved_rps'] + 0.001, (p['requests_per_s'], p['achieved_rps'])
assert abs(p['output_tokens_per_s'] * p['duration_s'] - p['output_tokens']) <= 0.01 * p['output_tokens'] + 0.01, p
"
    # shellcheck disable=SC2086
    "$LATSCOPE" bench --target openai "$URL" --input-tokens 8 --output-tokens 4 -t 1 $load \
        >"$TMPDIR/a.txt" 2>/dev/null || true
    python3 - "$TMPDIR/a.txt" <<'PY' || { cat "$TMPDIR/a.txt"; fail "text: two throughputs ($load)"; }
import re, sys
t = open(sys.argv[1]).read()
a = re.search(r"requests \d+ in ([\d.]+) s = ([\d.]+) req/s", t)
b = re.search(r"([\d.]+) req/s over ([\d.]+) s", t)
assert a and b, t
assert a.group(1) == b.group(2), (a.groups(), b.groups())
assert abs(float(a.group(2)) - float(b.group(1))) <= 0.1, (a.groups(), b.groups())
PY
done
exit 0
