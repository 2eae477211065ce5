#!/usr/bin/env bash
# t601-report-chromium: the report pages render in a real browser. Headless Chromium (Debian
# package `chromium`, optional: SKIP without it) loads a trace page, a page of hostile names
# and a bench + HDR log report; for each page the in-page self-check must have run with no
# script error (body data-status="ok", no "Uncaught" on the console), key numbers in the DOM
# equal the JSON outputs, the timeline drew events, hostile names added no element, and a
# flow from a launch to its kernel is found with the trace's launch delay, and a
# 1400x1000 screenshot is a real picture (PNG, not a blank page's few KB).
# LATSCOPE_REPORT_SHOTS=DIR: copy the screenshots there.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"
command -v chromium >/dev/null || skip "chromium not installed (apt-get install chromium)"
command -v jq >/dev/null || skip "jq not installed"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
mult=1
[[ ${LATSCOPE_SAN:-0} == 1 ]] && mult=3

# chrome_dom HTML PAGE: the DOM after the scripts ran, in $T/dom; console in $T/console.
chrome() {
    timeout $((120 * mult)) chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --no-first-run --user-data-dir="$T/chrome-profile" --enable-logging=stderr --v=0 "$@"
}
chrome_dom() {
    chrome --dump-dom "file://$1#page=$2" >"$T/dom" 2>"$T/console" ||
        fail "chromium failed on $1 page $2: $(tail -5 "$T/console")"
    grep -q '<body data-status="ok"' "$T/dom" ||
        fail "$1 page $2: self-check did not pass: $(grep -o '<div id="selfcheck">[^<]*' "$T/dom")"
    ! grep -q 'Uncaught' "$T/console" || fail "$1 page $2: $(grep 'Uncaught' "$T/console")"
    # the rendered document without the page's own script and data (their text would match)
    sed '/id="report-data"/,$d' "$T/dom" >"$T/body"
    grep -q '<div id="selfcheck">self-check ok' "$T/body" || fail "$1 page $2: no self-check marker"
}
chrome_shot() {
    rm -f "$T/shot.png"
    chrome --screenshot="$T/shot.png" --window-size=1400,1000 "file://$1#page=$2" \
        >/dev/null 2>"$T/console" || fail "chromium screenshot failed on $1"
    [[ $(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
        fail "$1 page $2: screenshot is not a PNG"
    local n
    n=$(stat -c %s "$T/shot.png")
    [[ $n -gt 30000 ]] || fail "$1 page $2: screenshot of $n bytes looks blank"
    cp "$T/shot.png" "$T/shot-$(basename "$1" .html)-$2.png"
    # LATSCOPE_REPORT_SHOTS=DIR keeps them (docs/img/ holds the README's, made this way)
    if [[ -n ${LATSCOPE_REPORT_SHOTS:-} ]]; then
        cp "$T/shot.png" "$LATSCOPE_REPORT_SHOTS/report-$(basename "$1" .html)-$2.png"
    fi
}

# ---- a trace page ----
tr=$D/handmade-doctor-launch.json
"$LATSCOPE" report "$tr" -o "$T/a.html" 2>/dev/null || fail "report failed"
chrome_dom "$T/a.html" 0
"$LATSCOPE" analyze --format json "$tr" >"$T/an.json"
want=$(jq -r '.whole.temporal.idle_pct' "$T/an.json" | awk '{ printf "%.2f %%", $1 }')
got=$(grep -o 'data-key="temporal.idle_pct"><b>[^<]*' "$T/dom" | sed 's/.*<b>//')
[[ $got == "$want" ]] || fail "GPU idle in the DOM '$got', analyze says '$want'"
want=$(jq '.ranks[0].events' "$T/an.json")
got=$(grep -o 'data-key="events"><b>[^<]*' "$T/dom" | sed 's/.*<b>//; s/,//g')
[[ $got == "$want" ]] || fail "events in the DOM '$got', analyze says '$want'"
"$LATSCOPE" doctor --format json "$tr" >"$T/doc.json" || true
nf=$(jq '.findings | length' "$T/doc.json")
got=$(grep -o 'data-key="findings"><b>[^<]*' "$T/dom" | sed 's/.*<b>//')
[[ $got == "$nf" ]] || fail "findings in the DOM '$got', doctor says '$nf'"
drawn=$(grep -o '· [0-9]* drawn' "$T/body" | tr -dc 0-9)
[[ -n $drawn && $drawn -gt 0 ]] || fail "the timeline drew nothing"
chrome_shot "$T/a.html" 0
# a kernel name in the top-kernels table finds its first instance on the timeline
chrome_dom "$T/a.html" "0&findtest"
k=$(jq -r '.ranks[0].top_kernels[0].name' "$T/an.json")
grep -qF "findtest $k =&gt; $k" "$T/body" || fail "table link did not select '$k' on the timeline"
# CPU samples: the icicle graph of the top stacks, each stack's leaf drawn
"$LATSCOPE" report "$D/handmade-doctor-cpu.json" -o "$T/cpu.html" 2>/dev/null || fail "report failed"
chrome_dom "$T/cpu.html" 0
grep -q 'CPU samples: 80 samples' "$T/body" || fail "no CPU samples card"
"$LATSCOPE" analyze --format json "$D/handmade-doctor-cpu.json" |
    jq -r '.ranks[0].cpu.top_stacks[].stack | split(";") | last' >"$T/leaves"
[[ -s $T/leaves ]] || fail "no CPU stacks in the analysis"
while IFS= read -r leaf; do
    grep -qF "<title>$leaf · " "$T/body" || fail "flame graph lacks the frame '$leaf'"
done <"$T/leaves"
# two traces: a compare page after the two trace pages
"$LATSCOPE" report "$tr" "$D/handmade-doctor-sync.json" -o "$T/c.html" 2>/dev/null || fail "report failed"
chrome_dom "$T/c.html" 2
grep -q 'Kernels ranked by change of total time' "$T/body" || fail "no compare page"
grep -q 'sm80_xmma_gemm' "$T/body" || fail "compare page lacks the second trace's kernel"
# and the diff page: the latscope diff document drawn, its numbers those diff prints
chrome_dom "$T/c.html" 3
"$LATSCOPE" diff --format json "$tr" "$D/handmade-doctor-sync.json" >"$T/cd.json"
got=$(grep -o 'data-key="diff-rows"><b>[^<]*' "$T/dom" | sed 's/.*<b>//')
[[ $got == $(jq '.rows | length' "$T/cd.json") ]] || fail "diff page: $got metrics, diff has $(jq '.rows | length' "$T/cd.json")"
grep -q 'Ranked contributors: names by change of total time' "$T/body" || fail "no ranked contributors"
op=$(jq -r '[.ops[] | select(.diff_duration_us > 0)][0].name' "$T/cd.json")
[[ $op == null ]] || grep -qF "<title>$op (" "$T/body" || fail "diff page lacks the top contributor '$op'"
for f in $(jq -r '.findings[] | .status + ":" + .id' "$T/cd.json"); do
    grep -q "<td class=\"name\">${f%%:*}</td><td class=\"name\">${f#*:}</td>" "$T/body" ||
        fail "diff page lacks finding $f"
done
chrome_shot "$T/c.html" 3
# the flow of the first kernel: launched by its correlated runtime call, delay from the file
chrome_dom "$T/a.html" "0&flowtest"
want=$(jq -r '. as $d | [.traceEvents[] | select(.cat == "kernel")] | sort_by(.ts) | .[0] as $k |
    [$d.traceEvents[] | select(.cat == "cuda_runtime" and .args.correlation == $k.args.correlation)]
    | .[0] | "launched by \(.name) on pid \(.pid) / thread \(.tid) · launch delay " +
    (($k.ts - .ts) * 1000 | round / 1000 | tostring)' "$tr")
got=$(grep -o '<div id="selfcheck">[^<]*' "$T/dom" | grep -o 'flowtest .*' | sed 's/.*| launched/launched/; s/ µs (arrow.*//')
# jq prints 9 where the page prints 9.000
[[ $(sed 's/\.000$//' <<<"$got") == "$want" ]] || fail "flow: page '$got', trace says '$want'"

# ---- hostile names ----
cat >"$T/nasty.json" <<'EOF'
{"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"</script><script>document.body.setAttribute('data-pwned','1')</script>","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"<img src=x onerror=\"document.title='pwned'\">\u0001\u2028","pid":1,"tid":1,"ts":20,"dur":5},
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"</title><script>x()</script>"}}
]}
EOF
"$LATSCOPE" report "$T/nasty.json" -o "$T/n.html" 2>/dev/null || fail "report failed"
chrome_dom "$T/n.html" 0
! grep -q 'data-pwned' <(grep -o '<body[^>]*>' "$T/dom") || fail "an injected script ran"
[[ $(grep -o '<script' "$T/dom" | wc -l) -eq 2 ]] || fail "a name added a script element"
! grep -q '<img' "$T/dom" || fail "a name added an element"
! grep -q '<title>pwned' "$T/dom" || fail "an injected handler ran"

# ---- bench + HDR log ----
start_fixture --service fixed:1ms
set +e
"$LATSCOPE" bench -r 50,100 --duration 1s -t 1 --hdr-log "$T/run.hlog" --format json \
    "$FIXTURE_URL/" >"$T/run.json" 2>"$T/berr"
rc=$?
set -e
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/berr")"
"$LATSCOPE" report "$T/run.json" "$T/run.hlog" -o "$T/b.html" 2>/dev/null || fail "report failed"
chrome_dom "$T/b.html" 0
got=$(grep -o 'data-key="points"><b>[^<]*' "$T/dom" | sed 's/.*<b>//')
[[ $got == "$(jq '.points | length' "$T/run.json")" ]] || fail "points in the DOM: '$got'"
grep -q 'Latency by percentile' "$T/body" || fail "no percentile plot"
chrome_shot "$T/b.html" 0
chrome_dom "$T/b.html" 1
got=$(grep -o 'data-key="intervals"><b>[^<]*' "$T/dom" | sed 's/.*<b>//')
want=$(grep -c '^Tag=' "$T/run.hlog")
[[ $got == "$want" ]] || fail "intervals in the DOM '$got', the log has $want"
grep -q 'over time' "$T/body" || fail "no over-time plot"
chrome_shot "$T/b.html" 1
stop_fixtures

# ---- an LLM run (the OpenAI fixture): TTFT/ITL/TPOT pages draw without error ----
if "$LATSCOPE" serve-test openai --help >/dev/null 2>&1; then
    "$LATSCOPE" serve-test openai --port-file "$T/fx.port" --prefill 20ms --token-interval 5ms \
        >/dev/null 2>"$T/fx.err" &
    FIXTURE_PIDS+=($!)
    for _ in $(seq 100); do [[ -s $T/fx.port ]] && break; sleep 0.05; done
    [[ -s $T/fx.port ]] || fail "openai fixture did not start: $(cat "$T/fx.err")"
    set +e
    "$LATSCOPE" bench --target openai "http://127.0.0.1:$(cat "$T/fx.port")/v1/chat/completions" \
        --input-tokens 8 --output-tokens 5 --rate 10,20 --max-send-lag 50 --duration 1s -t 1 \
        --records-detail "$T/llm.jsonl" --format json >"$T/llm.json" 2>"$T/lerr"
    rc=$?
    set -e
    [[ $rc -eq 0 || $rc -eq 1 ]] || fail "LLM bench exited $rc: $(cat "$T/lerr")"
    "$LATSCOPE" report "$T/llm.json" -o "$T/l.html" 2>/dev/null || fail "report failed"
    chrome_dom "$T/l.html" 0
    for h in 'TTFT by percentile' 'ITL by percentile' 'TPOT by percentile' 'TTFT vs load' \
        'LLM throughput and goodput'; do
        grep -q "$h" "$T/body" || fail "LLM page lacks '$h'"
    done
    # its records: errors and output tokens per second, the request count in the DOM
    "$LATSCOPE" report "$T/llm.jsonl" -o "$T/lr.html" 2>/dev/null || fail "report failed"
    chrome_dom "$T/lr.html" 0
    for h in 'Completed requests per second' 'Errors per second' 'Output tokens per second'; do
        grep -q "$h" "$T/body" || fail "records page lacks '$h'"
    done
    got=$(grep -o 'data-key="requests"><b>[^<]*' "$T/dom" | sed 's/.*<b>//; s/,//g')
    [[ $got == $(jq -s '[.[] | select(.error != "interrupted")] | length' "$T/llm.jsonl") ]] ||
        fail "records page: $got requests"
    chrome_shot "$T/lr.html" 0
fi
exit 0
