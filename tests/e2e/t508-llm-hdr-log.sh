#!/usr/bin/env bash
# t508-llm-hdr-log: with --hdr-log, each openai load point adds one interval per LLM metric
# (ttft/e2e .sched/.send, tpot, itl, chunk_gap) next to the request-latency tags.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/llm.sh"
need_llm
start_fixture --prefill 10ms --token-interval 2ms
expect_rc 0 "$LATSCOPE" bench --target openai "http://127.0.0.1:$FX_PORT/v1/completions" \
    --input-tokens 8 --output-tokens 10 -c 2 -n 20 -t 1 --hdr-log "$TMPDIR/run.hlog" --format json
contains "$TMPDIR/run.hlog" "Tag=lat.sched,"
grep -q "^Tag=ttft.sched," "$TMPDIR/run.hlog" ||
    fail "no ttft.sched interval in the --hdr-log file"
for tag in ttft.sched ttft.send e2e.sched e2e.send tpot itl chunk_gap; do
    [[ $(grep -c "^Tag=$tag," "$TMPDIR/run.hlog") -eq 1 ]] || fail "tag $tag: $(cat "$TMPDIR/run.hlog")"
done
grep "^Tag=" "$TMPDIR/run.hlog" | grep -qv ',HISTF' && fail "an entry is not V2 compressed"
exit 0
