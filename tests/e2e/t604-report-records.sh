#!/usr/bin/env bash
# t604-report-records: a `latscope bench --records` JSONL input gives a page of completions and
# errors per second (and output tokens per second for LLM records): every bin is recomputed here
# from the records with jq, against real runs on the fixture (one healthy, one of HTTP 503s).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
command -v jq >/dev/null || skip "jq not installed"
T=$TMPDIR
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
start_fixture --service exp:1ms --seed 5
for r in ok:/ bad:/status/503; do
    set +e
    "$LATSCOPE" bench -r 200 --duration 2s -t 1 --records "$T/${r%%:*}.jsonl" \
        "$FIXTURE_URL${r#*:}" >/dev/null 2>"$T/berr"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || fail "bench exited $rc: $(cat "$T/berr")"
    [[ -s $T/${r%%:*}.jsonl ]] || fail "no records written"
done
expect_rc 0 "$LATSCOPE" report "$T/ok.jsonl" "$T/bad.jsonl" -o "$T/r.html"
report_self_contained "$T/r.html"
report_data "$T/r.html" >"$T/r.json"
[[ $(jq -r '[.pages[].kind] | join(" ")' "$T/r.json") == "records records" ]] ||
    fail "page kinds: $(jq -c '[.pages[].kind]' "$T/r.json")"
# bins recomputed from the records: [sec of completion, ok, errors, null]
# (seconds from each point's first intended send: a run whose requests all failed writes
# absolute times, so the origin is taken from the records, here as in the report)
bins='group_by(.point) | map(([.[].t_sched_ns] | min) as $t0 | .[0].point as $p |
      [.[] | select(.error != "interrupted") | {s: (((.t_sched_ns - $t0 + (if .latency_ns >= 0 then .latency_ns else 0 end)) / 1e9) | floor), e: (.error != null)}]
      | {point: $p, bins: (group_by(.s) | map(. as $g | [$g[0].s, ([$g[] | select(.e | not)] | length), ([$g[] | select(.e)] | length), null]))})'
for i in 0 1; do
    f=$T/$([[ $i == 0 ]] && echo ok || echo bad).jsonl
    jq -s -c "$bins" "$f" >"$T/want$i"
    # the page's bins are dense (empty seconds too): compare the non-empty ones
    jq -c ".pages[$i].points | map({point, bins: [.bins[] | select(.[1] + .[2] > 0)]})" "$T/r.json" >"$T/got$i"
    diff "$T/want$i" "$T/got$i" >/dev/null || fail "page $i bins: $(head -c 300 "$T/got$i") want $(head -c 300 "$T/want$i")"
    [[ $(jq ".pages[$i].requests" "$T/r.json") -eq $(jq -s '[.[] | select(.error != "interrupted")] | length' "$f") ]] ||
        fail "page $i requests"
done
[[ $(jq '.pages[0].errors' "$T/r.json") -eq 0 ]] || fail "healthy run has errors"
[[ $(jq '.pages[1].errors' "$T/r.json") -eq $(jq '.pages[1].requests' "$T/r.json") ]] &&
    [[ $(jq '.pages[1].requests' "$T/r.json") -gt 0 ]] ||
    fail "every 503 is an error"
jq -e '.pages[1].error_classes | length >= 1' "$T/r.json" >/dev/null || fail "no error class"
# the run of errors spans its 2 s, not hours (its records carry absolute times)
[[ $(jq '.pages[1].points[0].bins | length' "$T/r.json") -le 4 ]] || fail "error run not rebased"
# not records: a JSON line without point / t_sched_ns
printf '{"point":0,"thread":1,"t_sched_ns":"x"}\n' >"$T/junk.jsonl"
set +e
"$LATSCOPE" report "$T/junk.jsonl" -o "$T/bad.html" >/dev/null 2>"$T/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "bad records: exit $rc"
contains "$T/err" "$T/junk.jsonl: line 1"
[[ ! -e $T/bad.html ]] || fail "a report was written"
# ---- LLM records (--records-detail, the OpenAI fixture): output tokens per second ----
if "$LATSCOPE" serve-test openai --help >/dev/null 2>&1; then
    "$LATSCOPE" serve-test openai --port-file "$T/fx.port" --prefill 5ms --token-interval 2ms \
        >/dev/null 2>"$T/fx.err" &
    FIXTURE_PIDS+=($!)
    for _ in $(seq 100); do [[ -s $T/fx.port ]] && break; sleep 0.05; done
    [[ -s $T/fx.port ]] || fail "openai fixture did not start: $(cat "$T/fx.err")"
    set +e
    "$LATSCOPE" bench --target openai "http://127.0.0.1:$(cat "$T/fx.port")/v1/chat/completions" \
        --input-tokens 8 --output-tokens 5 --rate 20,40 --max-send-lag 50 --duration 1s -t 1 \
        --records-detail "$T/llm.jsonl" --format json >/dev/null 2>"$T/lerr"
    rc=$?
    set -e
    [[ $rc -le 1 ]] || fail "LLM bench exited $rc: $(cat "$T/lerr")"
    expect_rc 0 "$LATSCOPE" report "$T/llm.jsonl" -o "$T/l.html"
    report_data "$T/l.html" >"$T/l.json"
    jq -e '.pages[0].llm' "$T/l.json" >/dev/null || fail "LLM records not recognised"
    jq -s -c 'group_by(.point) | map(([.[].t_sched_ns] | min) as $t0 | .[0].point as $p |
        [.[] | select(.error != "interrupted") | {s: (((.t_sched_ns - $t0 + (if .e2e_ms != null then .e2e_ms * 1e6 else 0 end)) / 1e9) | floor),
         e: (.error != null), k: .output_tokens}]
        | {point: $p, bins: (group_by(.s) | map(. as $g | [$g[0].s, ([$g[] | select(.e | not)] | length),
           ([$g[] | select(.e)] | length), ([$g[] | select(.e | not) | .k | select(. > 0)] | add // 0)]))})' \
        "$T/llm.jsonl" >"$T/lwant"
    jq -c '.pages[0].points | map({point, bins: [.bins[] | select(.[1] + .[2] > 0)]})' "$T/l.json" >"$T/lgot"
    diff "$T/lwant" "$T/lgot" >/dev/null || fail "LLM bins: $(head -c 300 "$T/lgot") want $(head -c 300 "$T/lwant")"
    [[ $(jq '[.pages[0].points[].bins[][3]] | add' "$T/l.json") -gt 0 ]] || fail "no tokens counted"
fi
echo "ok"
