#!/usr/bin/env bash
# t168-stacks-perf: `perf script` text of perf 6.1 (`perf record -F 499 -g -e cpu-clock`, an ORT
# transformer loop; shared sample) read as CPU samples (src/ingest/perfscript.c): analyze's CPU
# section equals what awk computes from the text (samples = header lines, samples per thread,
# self samples per leaf frame spelt as latscope spells frames: +0x offsets dropped, kernel
# frames "_[k]", "[unknown] (dso)" as "[dso basename]"), the 499 Hz period from perf's period;
# doctor's CPU-sample rules name the hot function (exit 1); the flame graph; a hand-made file without callchains; 0-byte,
# truncated and malformed files fail naming the format and what to do.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
ps=$(need_trace cpu-stacks/perf6.1_ort_transformer.perf-script.txt)
command -v jq >/dev/null || skip "jq not installed"

"$LATSCOPE" analyze --format json --top 100000 "$ps" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
    { cat "$TMPDIR/an.err" >&2; fail "analyze failed on the perf script text"; }
C='.ranks[0].cpu'
jq -e '.ranks[0].format == "perf-script"' "$TMPDIR/an.json" >/dev/null || fail "format is not perf-script"
want=$(awk '/^[^ \t#]/ {n++} END {print n}' "$ps")
got=$(jq "$C.samples" "$TMPDIR/an.json")
[[ $want == "$got" && $want -gt 0 ]] || fail "samples: latscope $got, header lines $want"

# samples per thread (the header's TID)
awk '/^[^ \t#]/ {c[$2]++} END {for (t in c) print t "\t" c[t]}' "$ps" | sort >"$TMPDIR/thr.awk"
jq -r "$C.threads[] | \"\(.tid)\t\(.samples)\"" "$TMPDIR/an.json" | sort >"$TMPDIR/thr.lat"
diff "$TMPDIR/thr.awk" "$TMPDIR/thr.lat" >&2 || fail "samples per thread differ"

# self samples per leaf (the first frame line after a header)
awk 'function name(   sym, dso, k) {
         sym = $2; for (k = 3; k < NF; k++) sym = sym " " $k   # C++ names hold spaces
         dso = $NF; gsub(/^\(|\)$/, "", dso)
         sub(/\+0x[0-9a-f]+$/, "", sym)
         k = (dso ~ /^\[kernel/)
         if (sym == "[unknown]") {
             if (k) return "[unknown]_[k]"
             if (dso == "[unknown]") return "[unknown]"
             sub(/.*\//, "", dso); return "[" dso "]"
         }
         return k ? sym "_[k]" : sym
     }
     /^[^ \t#]/ {leaf = 1; next}
     /^[ \t]+[0-9a-f]+ / && leaf {c[name()]++; leaf = 0}
     /^$/ {leaf = 0}
     END {for (f in c) print c[f] "\t" f}' "$ps" | LC_ALL=C sort >"$TMPDIR/self.awk"
jq -r "$C.top_functions_self[] | select(.self > 0) | \"\(.self)\t\(.function)\"" "$TMPDIR/an.json" |
    LC_ALL=C sort >"$TMPDIR/self.lat"
diff "$TMPDIR/self.awk" "$TMPDIR/self.lat" >&2 || fail "self samples per function differ from the file"
top=$(sort -k1,1nr "$TMPDIR/self.awk" | head -1)
jq -e --arg f "$(cut -f2 <<<"$top")" "$C.top_functions_self[0].function == \$f" "$TMPDIR/an.json" >/dev/null ||
    fail "top self function is not $top"

# the rate from perf's period (ns of cpu-clock, the same on every sample)
per=$(awk '/^[^ \t#]/ {for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {print $(i+1); exit}}' "$ps")
hz=$(( (1000000000 + per / 2) / per ))
jq -e "$C.period_us == $(( 1000000000 / hz )) / 1000" "$TMPDIR/an.json" >/dev/null ||
    fail "period is not 1/$hz s"
first=$(awk '/^[^ \t#]/ {for (i = 1; i < NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) {print $i; exit}}' "$ps")
"$LATSCOPE" convert "$ps" -o "$TMPDIR/p.json" 2>/dev/null || fail "convert failed"
jq -e --arg t "${first%:}" '[.traceEvents[] | select(.cat == "cpu_sample") | .ts] | min == ($t | tonumber) * 1e6' \
    "$TMPDIR/p.json" >/dev/null || fail "the first sample is not at perf's time ${first%:} s"

expect_rc 1 "$LATSCOPE" doctor "$ps"
contains "$TMPDIR/out" "cpu-hot-function"
"$LATSCOPE" convert "$ps" -o "$TMPDIR/p.svg" 2>/dev/null && grep -q '^<svg' "$TMPDIR/p.svg" || fail "no flame graph"
grep -qF "$(cut -f2 <<<"$top")" "$TMPDIR/p.svg" || fail "the top function is not in the flame graph"

# without callchains: the IP on the header line
printf 'a.out 5/6 [000] 1.000001: 1000000 cpu-clock:  401000 spin+0x4 (/t/a.out)\na.out 5/6 [000] 1.001001: 1000000 cpu-clock:  401100 main+0x8 (/t/a.out)\n' >"$TMPDIR/handmade.txt"
"$LATSCOPE" analyze --format json "$TMPDIR/handmade.txt" >"$TMPDIR/h.json" 2>/dev/null || fail "no-callchain file failed"
jq -e "$C.samples == 2 and $C.period_us == 1000 and $C.threads[0].pid == 5 and $C.threads[0].tid == 6 and
       ([$C.top_functions_self[].function] | sort) == [\"main\", \"spin\"]" "$TMPDIR/h.json" >/dev/null ||
    { jq "$C" "$TMPDIR/h.json" >&2; fail "no-callchain samples wrong"; }

: >"$TMPDIR/empty.perf-script.txt"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/empty.perf-script.txt"
contains "$TMPDIR/err" "\`perf script\` text, empty file (0 bytes)"
head -c 5000 "$ps" | head -c -9 >"$TMPDIR/cut.txt"
tail -c 40 "$TMPDIR/cut.txt" | grep -q ')$' && fail "cut in a wrong place"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.txt"
contains "$TMPDIR/err" "cut short"
{ head -20 "$ps"; echo "this is not perf output"; } >"$TMPDIR/bad.txt"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/bad.txt"
contains "$TMPDIR/err" "line 21 is neither a sample header"
echo "t168: $want samples, top $(cut -f2 <<<"$top")"
