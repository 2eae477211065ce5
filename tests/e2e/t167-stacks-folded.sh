#!/usr/bin/env bash
# t167-stacks-folded: py-spy 0.4.3's raw (collapsed) file of an ORT transformer loop (shared
# sample) and a hand-made stackcollapse file read as CPU samples (src/ingest/folded.c):
# analyze's CPU section equals what awk computes from the lines (the sum of the counts, self
# samples per leaf function with the line number dropped, total of a function counted once per
# line); the format has no times: the period and on-CPU seconds are unknown (null / "-"), never
# 0; doctor's CPU-sample rules name the hot function (exit 1); convert to folded gives the same stacks back; 0-byte,
# truncated and malformed files fail naming the format and what to do.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
raw=$(need_trace cpu-stacks/pyspy0.4.3_ort_transformer.raw.txt)
command -v jq >/dev/null || skip "jq not installed"

"$LATSCOPE" analyze --format json --top 100000 "$raw" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
    { cat "$TMPDIR/an.err" >&2; fail "analyze failed on the raw file"; }
C='.ranks[0].cpu'
jq -e '.ranks[0].format == "collapsed-stacks"' "$TMPDIR/an.json" >/dev/null || fail "format is not collapsed-stacks"
want=$(awk '{s += $NF} END {print s}' "$raw")
got=$(jq "$C.samples" "$TMPDIR/an.json")
[[ $want == "$got" && $want -gt 0 ]] || fail "samples: latscope $got, file $want"
jq -e "$C.period_us == null and $C.on_cpu_us == null and $C.threads[0].on_cpu_us == null" \
    "$TMPDIR/an.json" >/dev/null || fail "a folded file has no times: period/on-CPU must be null"

# self per leaf: "f (file.py:12)" -> "py:f (file.py)"; an empty stack is "[unknown]"
awk '{ n = $NF; s = $0; sub(/ [0-9]+$/, "", s); sub(/^ +/, "", s)
       k = split(s, fr, ";"); leaf = k ? fr[k] : ""
       if (leaf == "") leaf = "[unknown]"
       else { sub(/:[0-9]+\)$/, ")", leaf); leaf = "py:" leaf }
       c[leaf] += n }
     END { for (f in c) print c[f] "\t" f }' "$raw" | LC_ALL=C sort >"$TMPDIR/self.awk"
jq -r "$C.top_functions_self[] | select(.self > 0) | \"\(.self)\t\(.function)\"" "$TMPDIR/an.json" |
    LC_ALL=C sort >"$TMPDIR/self.lat"
diff "$TMPDIR/self.awk" "$TMPDIR/self.lat" >&2 || fail "self samples per function differ from the file"
top=$(sort -k1,1nr "$TMPDIR/self.awk" | head -1)
jq -e --arg f "$(cut -f2 <<<"$top")" --argjson n "$(cut -f1 <<<"$top")" \
    "$C.top_functions_self[0] | .function == \$f and .self == \$n" "$TMPDIR/an.json" >/dev/null ||
    fail "top self function is not $top"
want=$(awk '/infer_loop \(ort_loop\.py:/ {s += $NF} END {print s}' "$raw")
got=$(jq "[$C.top_functions_total[] | select(.function == \"py:infer_loop (ort_loop.py)\")][0].total" "$TMPDIR/an.json")
[[ $want == "$got" ]] || fail "infer_loop total: latscope $got, file $want"

"$LATSCOPE" analyze "$raw" >"$TMPDIR/an.txt" 2>/dev/null || fail "analyze text failed"
contains "$TMPDIR/an.txt" "CPU samples: $(jq "$C.samples" "$TMPDIR/an.json") on-CPU (no sample times: period and on-CPU time unknown)"
grep -Eq "^ +-1 +-1 +- +0\.000 +$(jq "$C.samples" "$TMPDIR/an.json") " "$TMPDIR/an.txt" ||
    { cat "$TMPDIR/an.txt" >&2; fail "the thread row must show '-' for the unknown on-CPU time"; }

# the CPU-sample rules judge them: a hot function, its saving not estimated (no sample times)
expect_rc 1 "$LATSCOPE" doctor "$raw"
contains "$TMPDIR/out" "cpu-hot-function  saving not estimated"

# folded out, folded in: the same stacks and counts (frames in latscope's spelling)
"$LATSCOPE" convert "$raw" -o "$TMPDIR/r.folded" 2>/dev/null || fail "convert to folded failed"
[[ $(awk '{s += $NF} END {print s}' "$TMPDIR/r.folded") == "$(jq "$C.samples" "$TMPDIR/an.json")" ]] ||
    fail "the folded output lost samples"
"$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/r.folded" >"$TMPDIR/an2.json" 2>/dev/null || fail "re-read failed"
diff <(jq -S "$C | del(.period_us)" "$TMPDIR/an.json") <(jq -S "$C | del(.period_us)" "$TMPDIR/an2.json") >&2 ||
    fail "folded -> analyze differs from the original"
"$LATSCOPE" convert "$raw" -o "$TMPDIR/r.svg" 2>/dev/null && grep -q '^<svg' "$TMPDIR/r.svg" || fail "no flame graph"

# a hand-made stackcollapse-perf style file with thread prefixes (py-spy -t)
printf 'thread (7): MainThread;main (a.py:1);hot (a.py:5) 30\nthread (8): w;run (a.py:9) 10\n' >"$TMPDIR/handmade.folded"
"$LATSCOPE" analyze --format json "$TMPDIR/handmade.folded" >"$TMPDIR/h.json" 2>/dev/null || fail "handmade failed"
jq -e "$C.samples == 40 and $C.top_functions_self[0].function == \"py:hot (a.py)\" and
       ([$C.threads[] | {tid, name, samples}] == [{tid: 7, name: \"MainThread\", samples: 30}, {tid: 8, name: \"w\", samples: 10}])" \
    "$TMPDIR/h.json" >/dev/null || { jq "$C" "$TMPDIR/h.json" >&2; fail "thread prefixes not read"; }

: >"$TMPDIR/empty.folded"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/empty.folded"
contains "$TMPDIR/err" "collapsed stacks (py-spy raw / stackcollapse), empty file (0 bytes)"
head -c $(( $(wc -c <"$raw") - 3 )) "$raw" >"$TMPDIR/cut.txt"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.txt"
contains "$TMPDIR/err" "cut short"
printf 'a;b 3\nnot a stack line\n' >"$TMPDIR/bad.folded"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/bad.folded"
contains "$TMPDIR/err" "line 2 does not end in a sample count"
echo "t167: $(jq "$C.samples" "$TMPDIR/an.json") samples, top $(cut -f2 <<<"$top")"
