#!/usr/bin/env bash
# t600-report: `latscope report` writes one self-contained HTML file: no external src/href, no
# network API in the page's own code, a CSP that forbids fetching; the embedded JSON parses and
# its analysis/doctor documents equal `latscope analyze/doctor --format json`; names with
# </script>, quotes and control characters stay data; bench JSON and HDR log pages carry the
# run's numbers; bad input exits 2 naming the file and writes nothing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
command -v jq >/dev/null || skip "jq not installed"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
. "$LATSCOPE_SRCDIR/tests/e2e/report-lib.sh"

# ---- a trace page ----
tr=$D/handmade-doctor-launch.json
expect_rc 0 "$LATSCOPE" report "$tr" -o "$T/a.html"
contains "$T/err" "wrote $T/a.html: "
grep -Eq 'wrote .*: [0-9]+\.[0-9]+ MB, 1 page' "$T/err" || fail "size not reported: $(cat "$T/err")"
[[ ! -e $T/a.html.tmp ]] || fail "temporary file left behind"
report_self_contained "$T/a.html"
report_data "$T/a.html" >"$T/a.json"
jq -e . "$T/a.json" >/dev/null || fail "embedded JSON does not parse"
"$LATSCOPE" analyze --format json "$tr" | jq -S . >"$T/an.json"
jq -S '.pages[0].analysis' "$T/a.json" | diff - "$T/an.json" >/dev/null ||
    fail "embedded analysis differs from analyze --format json"
set +e
"$LATSCOPE" doctor --format json "$tr" >"$T/doc.json"
set -e
jq -S . "$T/doc.json" >"$T/doc.s.json"
jq -S '.pages[0].doctor' "$T/a.json" | diff - "$T/doc.s.json" >/dev/null ||
    fail "embedded doctor findings differ from doctor --format json"
[[ $(jq '.pages[0].doctor.findings | length' "$T/a.json") -ge 1 ]] || fail "no finding embedded"
# the timeline holds every duration event of the file, and the field tables of analyze
want=$(jq '[.traceEvents[] | select(.ph == "X")] | length' "$tr")
[[ $(jq '.pages[0].timeline.events' "$T/a.json") -eq $want ]] || fail "timeline events != $want"
[[ $(jq '[.pages[0].timeline.lanes[].ts | length] | add' "$T/a.json") -eq $want ]] ||
    fail "lane columns do not hold $want events"
[[ $(jq '.pages[0].timeline.levels | length' "$T/a.json") -ge 1 ]] || fail "no LOD level"
# flows: the decoded correlation ids of the GPU lanes are the kernels', those of the CPU lane
# the launches' (the page pairs them up)
dec='def ids: reduce .[] as $v ({p: 0, o: []}; if $v == 0 then . else
         .p += (if $v > 0 then $v else $v + 1 end) | .o += [.p] end) | .o;'
jq -e '[.pages[0].timeline.lanes[] | select(.corr) | (.corr | length) == (.ts | length)] | all' \
    "$T/a.json" >/dev/null || fail "corr column length"
jq -c "$dec"' [.pages[0].timeline.lanes[] | select(.gpu) | .corr | ids[]] | sort' "$T/a.json" \
    >"$T/gpu.ids"
jq -c '[.traceEvents[] | select(.cat == "kernel" and .args.correlation > 0) | .args.correlation]
       | sort' "$tr" | diff - "$T/gpu.ids" >/dev/null || fail "GPU lanes' correlation ids"
jq -c "$dec"' [.pages[0].timeline.lanes[] | select(.gpu | not) | .corr // [] | ids[]] | sort' \
    "$T/a.json" | diff - <(jq -c '[.traceEvents[] | select(.cat == "cuda_runtime" and
    .args.correlation > 0) | .args.correlation] | sort' "$tr") >/dev/null ||
    fail "CPU lanes' correlation ids"
jq -e '.pages[0].fields.steps | map(.key) | index("idle_us") != null' "$T/a.json" >/dev/null ||
    fail "steps field table missing"

# ---- names that try to break out of the page ----
cat >"$T/nasty.json" <<'EOF'
{"traceEvents":[
 {"ph":"X","cat":"cpu_op","name":"</script><script>alert(1)</script>","pid":1,"tid":1,"ts":0,"dur":10},
 {"ph":"X","cat":"cpu_op","name":"q\"uo'te & <b>\u0001\u001f\u2028<!--","pid":1,"tid":1,"ts":20,"dur":5},
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"</title><script>x()</script>"}}
]}
EOF
expect_rc 0 "$LATSCOPE" report "$T/nasty.json" --title '</title><script>alert(2)</script>' \
    -o "$T/n.html"
report_self_contained "$T/n.html"
[[ $(grep -oi '</script' "$T/n.html" | wc -l) -eq 2 ]] || fail "a name closed a script element"
[[ $(grep -oi '<script' "$T/n.html" | wc -l) -eq 2 ]] || fail "a name opened a script element"
! grep -q '<!--' "$T/n.html" || fail "a name opened an HTML comment"
grep -q '<title>latscope report: &lt;/title&gt;&lt;script&gt;alert(2)' "$T/n.html" ||
    fail "title not escaped"
report_data "$T/n.html" >"$T/n.json"
jq -e '.pages[0].timeline.names | index("</script><script>alert(1)</script>") != null' \
    "$T/n.json" >/dev/null || fail "name not kept exactly"
jq -e '.pages[0].timeline.names | index("q\"uo'"'"'te & <b>\u0001\u001f\u2028<!--") != null' \
    "$T/n.json" >/dev/null || fail "control characters / quotes not kept exactly"
jq -e '.pages[0].timeline.lanes[0].label | contains("</title><script>x()</script>")' \
    "$T/n.json" >/dev/null || fail "thread label not kept"

# ---- bench result + HDR interval log ----
start_fixture --service fixed:1ms
set +e
"$LATSCOPE" bench -r 50,100 --duration 1s -t 1 --hdr-log "$T/run.hlog" --format json \
    "$FIXTURE_URL/" >"$T/run.json" 2>"$T/berr"
rc=$?
set -e
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/berr")"
expect_rc 0 "$LATSCOPE" report "$T/run.json" "$T/run.hlog" -o "$T/b.html"
grep -Eq 'wrote .*, 2 page' "$T/err" || fail "two pages expected: $(cat "$T/err")"
report_self_contained "$T/b.html"
report_data "$T/b.html" >"$T/b.json"
jq -S '.pages[0].bench' "$T/b.json" | diff - <(jq -S . "$T/run.json") >/dev/null ||
    fail "embedded bench result differs from the bench JSON"
[[ $(jq -r '.pages[0].kind + " " + .pages[1].kind' "$T/b.json") == "bench hlog" ]] ||
    fail "page kinds: $(jq -c '[.pages[].kind]' "$T/b.json")"
reqs=$(jq '[.points[].requests] | add' "$T/run.json")
[[ $(jq '.pages[1].tags[] | select(.tag == "lat.sched") | .total' "$T/b.json") -eq $reqs ]] ||
    fail "lat.sched total != $reqs requests"
# the whole-run maximum is the bench's own maximum
bmax=$(jq '[.points[].latency_ms.max] | max' "$T/run.json")
hmax=$(jq '.pages[1].tags[] | select(.tag == "lat.sched") | .max_ms' "$T/b.json")
# (the log's max is the top of its highest bucket: at most 0.1 % above, 3 significant digits)
awk -v a="$bmax" -v b="$hmax" 'BEGIN { d = b - a; exit !(d >= -0.002 && d <= 0.001 * a + 0.002) }' ||
    fail "max: bench $bmax ms, hlog page $hmax ms"
# percentile curve rises and ends at the max
jq -e '.pages[1].tags[0].pct as $p | ([range(1; $p | length)] | all($p[.][1] >= $p[. - 1][1]))
       and ($p[-1][0] == 100)' "$T/b.json" >/dev/null || fail "percentile curve not monotone"

# ---- bad input: exit 2 naming the file, no output written ----
rm -f "$T/bad.html"
expect_rc 2 "$LATSCOPE" report "$T/missing.json" -o "$T/bad.html"
contains "$T/err" "$T/missing.json"
head -c 300 "$tr" >"$T/trunc.json"
expect_rc 2 "$LATSCOPE" report "$T/trunc.json" -o "$T/bad.html"
contains "$T/err" "$T/trunc.json"
printf '{"target":"http","points":[{"requests":1},' >"$T/badbench.json"
expect_rc 2 "$LATSCOPE" report "$T/badbench.json" -o "$T/bad.html"
contains "$T/err" "$T/badbench.json"
printf '{"target":"http","points":3}\n' >"$T/notbench.json"
expect_rc 2 "$LATSCOPE" report "$T/notbench.json" -o "$T/bad.html"
contains "$T/err" "not a \`latscope bench --format json\` result"
printf '#[Histogram log format version 1.3]\nTag=x,0.0,1.0,5.0,HISTFgarbage\n' >"$T/bad.hlog"
expect_rc 2 "$LATSCOPE" report "$T/bad.hlog" -o "$T/bad.html"
contains "$T/err" "$T/bad.hlog: line 2"
expect_rc 2 "$LATSCOPE" report "$tr" "$T/missing.json" -o "$T/bad.html"
[[ ! -e $T/bad.html ]] || fail "a report was written despite a bad input"
expect_rc 2 "$LATSCOPE" report -o "$T/bad.html"
expect_rc 2 "$LATSCOPE" report --bogus "$tr"
expect_rc 0 "$LATSCOPE" report --help
contains "$T/out" "usage: latscope report"

# ---- a corpus trace (skipped silently when the corpus is absent) ----
mt=$LATSCOPE_TRACES/hta/tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz
if [[ -e $mt ]]; then
    expect_rc 0 "$LATSCOPE" report "$mt" -o "$T/m.html"
    report_self_contained "$T/m.html"
    report_data "$T/m.html" >"$T/m.json"
    jq -S '.pages[0].analysis' "$T/m.json" |
        diff - <("$LATSCOPE" analyze --format json "$mt" 2>/dev/null | jq -S .) >/dev/null ||
        fail "mtia: embedded analysis differs from analyze --format json"
    # every level's bins: busy per mille within 0..1000
    jq -e '[.pages[0].timeline.levels[].lanes[].busy[]] | all(. >= 0 and . <= 1000)' \
        "$T/m.json" >/dev/null || fail "mtia: a bin busier than itself"
fi
exit 0
