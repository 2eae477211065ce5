#!/usr/bin/env bash
# t166-stacks-speedscope: py-spy 0.4.3's speedscope file of an ORT transformer loop (shared
# sample) read as CPU samples (src/ingest/speedscope.c): analyze's CPU section equals what jq
# computes straight from the file (samples per profile, the leaf frame counts, the 0.005 s
# weights = 200 Hz, the thread id in the profile name); doctor names what it is and runs no
# rule (exit 3, no clean bill); the flame graph and folded stacks hold every sample; 0-byte,
# truncated and malformed files fail naming the format and what to do.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
ss=$(need_trace cpu-stacks/pyspy0.4.3_ort_transformer.speedscope.json)
command -v jq >/dev/null || skip "jq not installed"

"$LATSCOPE" analyze --format json --top 100000 "$ss" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
    { cat "$TMPDIR/an.err" >&2; fail "analyze failed on the speedscope file"; }
C='.ranks[0].cpu'
jq -e '.ranks[0].format == "speedscope"' "$TMPDIR/an.json" >/dev/null || fail "format is not speedscope"

# samples: every element of every profile's "samples"
want=$(jq '[.profiles[].samples | length] | add' "$ss")
got=$(jq "$C.samples" "$TMPDIR/an.json")
[[ $want == "$got" && $want -gt 0 ]] || fail "samples: latscope $got, file $want"

# leaf (self) counts per function, file without the line, as py-spy/speedscope frames say with
# the file shortened as py-spy's raw output does (latscope's one frame spelling, model/pyframe.h):
# an absolute path from after its last import root (site-packages, dist-packages, lib/python3.N)
# on, else its basename; a sample with no frame is "[unknown]"
jq -r 'def short: if startswith("/") | not then . else split("/") as $c |
         ([range(1; ($c | length) - 1) | select($c[.] == "site-packages" or $c[.] == "dist-packages" or
           (($c[.] | test("^python3[0-9.]*$")) and ($c[. - 1] == "lib" or $c[. - 1] == "lib64")))] | last) as $r |
         if $r == null then $c[-1] else $c[$r + 1:] | join("/") end end;
       .shared.frames as $f | .profiles[].samples[] |
       if length == 0 then "[unknown]" else ($f[.[-1]] | "py:\(.name) (\(.file | short))") end' "$ss" |
    LC_ALL=C sort | uniq -c | sort -k1,1nr -k2 | awk '{n=$1; $1=""; sub(/^ /,""); print n "\t" $0}' >"$TMPDIR/self.jq"
jq -r "$C.top_functions_self[] | select(.self > 0) | \"\(.self)\t\(.function)\"" "$TMPDIR/an.json" |
    sort -k1,1nr -k2 >"$TMPDIR/self.lat"
diff <(sort "$TMPDIR/self.jq") <(sort "$TMPDIR/self.lat") >&2 || fail "self samples per function differ from the file"
top=$(head -1 "$TMPDIR/self.jq" | cut -f2)
[[ $(jq -r "$C.top_functions_self[0].function" "$TMPDIR/an.json") == "$top" ]] || fail "top self function is not $top"

# total: samples with py:infer_loop (ort_loop.py) anywhere on the stack, counted once
want=$(jq '.shared.frames as $f | [.profiles[].samples[] | select(any(.[]; $f[.].name == "infer_loop"))] | length' "$ss")
got=$(jq "[$C.top_functions_total[] | select(.function | startswith(\"py:infer_loop \"))][0].total" "$TMPDIR/an.json")
[[ $want == "$got" && $want -gt 0 ]] || fail "infer_loop total: latscope $got, file $want"

# the period from the weights (all 0.005 s), the thread from "Thread 2910 \"\""
jq -e '[.profiles[].weights[]] | unique == [0.005]' "$ss" >/dev/null || fail "sample weights changed?"
jq -e "$C.period_us == 5000" "$TMPDIR/an.json" >/dev/null || fail "period is not 5 ms"
tid=$(jq -r '.profiles[0].name | capture("Thread (?<t>[0-9]+)").t' "$ss")
jq -e "$C.threads[0].tid == $tid and $C.threads[0].samples == $(jq '.profiles[0].samples | length' "$ss")" \
    "$TMPDIR/an.json" >/dev/null || fail "thread $tid not found with its samples"

# text: the CPU section
"$LATSCOPE" analyze "$ss" >"$TMPDIR/an.txt" 2>/dev/null || fail "analyze text failed"
contains "$TMPDIR/an.txt" "CPU samples: $(jq "$C.samples" "$TMPDIR/an.json") on-CPU (period 5.000 ms"

# doctor: the CPU-sample rules judge the samples alone (issue 30): the hot function is a finding
# (exit 1), and it is the function analyze ranks first by self samples
expect_rc 1 "$LATSCOPE" doctor "$ss"
contains "$TMPDIR/out" "cpu-hot-function"
contains "$TMPDIR/out" "${top%% (*}"

# flame graph and folded stacks of the same samples
"$LATSCOPE" convert "$ss" -o "$TMPDIR/f.svg" 2>/dev/null || fail "convert to svg failed"
grep -q '^<svg' "$TMPDIR/f.svg" || fail "not an SVG"
# (frames keep their line there: "py:f (file.py:406)")
grep -qF "$(printf '%s' "${top%)}:" | sed 's/&/\&amp;/g; s/</\&lt;/g; s/>/\&gt;/g')" "$TMPDIR/f.svg" ||
    fail "the top function is not in the flame graph"
"$LATSCOPE" convert "$ss" -o "$TMPDIR/f.folded" 2>/dev/null || fail "convert to folded failed"
sum=$(awk '{s += $NF} END {print s}' "$TMPDIR/f.folded")
[[ $sum == $(jq "$C.samples" "$TMPDIR/an.json") ]] || fail "folded stacks hold $sum samples"

# bad files: the format named, and what to do
: >"$TMPDIR/empty.speedscope.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/empty.speedscope.json"
contains "$TMPDIR/err" "a speedscope profile, empty file (0 bytes)"
head -c 20000 "$ss" >"$TMPDIR/cut.json"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.json"
contains "$TMPDIR/err" "a speedscope profile"
contains "$TMPDIR/err" "cut short"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":5}' >"$TMPDIR/bad.json"
expect_rc 2 "$LATSCOPE" doctor "$TMPDIR/bad.json"
contains "$TMPDIR/err" "\"profiles\" is not an array"
echo "t166: $(jq "$C.samples" "$TMPDIR/an.json") samples, top $top"
