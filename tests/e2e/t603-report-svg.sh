#!/usr/bin/env bash
# t603-report-svg: `latscope report --format svg --plot NAME INPUT` writes one well-formed SVG
# (xmllint --noout, Debian libxml2-utils; the check is skipped without it) whose points and bars
# are the input's numbers: counted and compared here independently, from the bench JSON with jq
# and from `latscope analyze --format json`. Bad combinations exit 2 and write nothing.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
. "$LATSCOPE_SRCDIR/tests/e2e/bench-fixture.sh"
command -v jq >/dev/null || skip "jq not installed"
T=$TMPDIR
D=$LATSCOPE_SRCDIR/tests/data
wellformed() {
    if command -v xmllint >/dev/null; then
        xmllint --noout "$1" 2>"$T/xml" || fail "$1 is not well-formed XML: $(head -3 "$T/xml")"
    fi
    head -c 5 "$1" | grep -q '<?xml' || fail "$1 does not start with an XML declaration"
    grep -q '<svg xmlns="http://www.w3.org/2000/svg"' "$1" || fail "$1 is no SVG"
}
# attr FILE CLASS ATTR: the values of ATTR of the elements of CLASS, one a line
attr() { grep -o "class=\"$2\"[^>]*" "$1" | grep -o " $3=\"[^\"]*\"" | sed 's/.*="//; s/"$//'; }

start_fixture --service exp:2ms --seed 3
set +e
"$LATSCOPE" bench -r 50,100 --duration 1s -t 1 --format json "$FIXTURE_URL/" >"$T/run.json" 2>"$T/berr"
rc=$?
set -e
[[ $rc -eq 0 || $rc -eq 1 ]] || fail "bench exited $rc: $(cat "$T/berr")"

# ---- percentiles: one point per percentile the JSON has, intended and actual send ----
expect_rc 0 "$LATSCOPE" report --format svg --plot percentiles "$T/run.json" -o "$T/p.svg"
contains "$T/err" "wrote $T/p.svg: percentiles plot"
wellformed "$T/p.svg"
want=$(jq '[.points[] | (.latency_ms, .latency_actual_ms) | select(. != null) |
           .p50, .p90, .p95, .p99, .["p99.9"], .max | select(. != null)] | length' "$T/run.json")
[[ $want -gt 0 ]] || fail "the bench JSON has no percentiles"
[[ $(attr "$T/p.svg" pt data-y | wc -l) -eq $want ]] ||
    fail "percentile points: $(attr "$T/p.svg" pt data-y | wc -l), the JSON has $want"
# the values are the JSON's (data-y of series 0 = the first point's intended latency)
jq -r '.points[0].latency_ms | .p50, .p90, .p95, .p99, .["p99.9"], .max' "$T/run.json" >"$T/want0"
grep -o 'class="pt" data-series="0"[^>]*' "$T/p.svg" | grep -o 'data-y="[^"]*"' |
    sed 's/.*="//; s/"$//' >"$T/got0"
paste "$T/want0" "$T/got0" | awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 1e-6 * ($1 + 1)) bad = 1 }
    END { exit bad || NR != 6 }' || fail "series 0 values: $(paste "$T/want0" "$T/got0" | tr '\n' ' ')"

# ---- load: p50 and p99 at each point's achieved throughput ----
expect_rc 0 "$LATSCOPE" report --format svg --plot load "$T/run.json" -o "$T/l.svg"
wellformed "$T/l.svg"
n=$(jq '.points | length' "$T/run.json")
[[ $(attr "$T/l.svg" pt data-x | wc -l) -eq $((2 * n)) ]] || fail "load points != 2 x $n"
diff <(jq -r '.points[].achieved_rps' "$T/run.json" | awk '{ printf "%.4f\n", $1 }') \
    <(grep -o 'class="pt" data-series="0"[^>]*' "$T/l.svg" | grep -o 'data-x="[^"]*"' |
        sed 's/.*="//; s/"$//' | awk '{ printf "%.4f\n", $1 }') >/dev/null ||
    fail "load x are not the points' achieved_rps"

# ---- steps: one bar part per step and non-zero category, as analyze has them ----
tr=$D/handmade-doctor-launch.json
expect_rc 0 "$LATSCOPE" report --format svg --plot steps "$tr" -o "$T/s.svg"
wellformed "$T/s.svg"
"$LATSCOPE" analyze --format json "$tr" >"$T/an.json"
want=$(jq '[.ranks[0].steps[] | .gpu_compute_us, .comm_us, .copies_us, .gpu_other_us,
            .cpu_only_us, .idle_us | select(. > 0)] | length' "$T/an.json")
[[ $want -gt 0 ]] || fail "analyze has no step parts"
[[ $(attr "$T/s.svg" bar data-v | wc -l) -eq $want ]] ||
    fail "step bars: $(attr "$T/s.svg" bar data-v | wc -l), analyze has $want"
diff <(jq -r '.ranks[0].steps[] | .gpu_compute_us, .comm_us, .copies_us, .gpu_other_us,
             .cpu_only_us, .idle_us | select(. > 0) | . / 1000' "$T/an.json" |
        awk '{ printf "%.3f\n", $1 }') \
    <(attr "$T/s.svg" bar data-v | awk '{ printf "%.3f\n", $1 }') >/dev/null ||
    fail "step bar values differ from analyze (ms)"

# ---- names that would break the XML stay text ----
cat >"$T/nasty.json" <<'EOF2'
{"traceEvents":[
 {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
 {"ph":"X","cat":"kernel","name":"k<&>\"","pid":0,"tid":7,"ts":10,"dur":20}]}
EOF2
cp "$T/nasty.json" "$T/a<&>b.json"
expect_rc 0 "$LATSCOPE" report --format svg --plot steps "$T/a<&>b.json" -o "$T/n.svg"
wellformed "$T/n.svg"
grep -q 'a&lt;&amp;&gt;b.json' "$T/n.svg" || fail "file name not escaped in the title"

# ---- bad combinations: exit 2, nothing written ----
expect_rc 2 "$LATSCOPE" report --format svg --plot steps "$T/run.json" -o "$T/bad.svg"
contains "$T/err" "wants a trace"
expect_rc 2 "$LATSCOPE" report --format svg --plot percentiles "$tr" -o "$T/bad.svg"
contains "$T/err" "this is a trace"
expect_rc 2 "$LATSCOPE" report --format svg "$tr" -o "$T/bad.svg"
expect_rc 2 "$LATSCOPE" report --plot steps "$tr" -o "$T/bad.svg"
expect_rc 2 "$LATSCOPE" report --format svg --plot steps "$tr" "$tr" -o "$T/bad.svg"
expect_rc 2 "$LATSCOPE" report --format png --plot steps "$tr" -o "$T/bad.svg"
expect_rc 2 "$LATSCOPE" report --format svg --plot bogus "$tr" -o "$T/bad.svg"
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":2}]}\n' >"$T/nostep.json"
expect_rc 2 "$LATSCOPE" report --format svg --plot steps "$T/nostep.json" -o "$T/bad.svg"
contains "$T/err" "no ProfilerStep"
[[ ! -e $T/bad.svg ]] || fail "a plot was written despite an error"
echo "ok"
