#!/usr/bin/env bash
# t367-stacks-perf-live: a fresh `perf record -g -e cpu-clock` of tests/progs/hot.c (threads
# mode: two busy threads; skips without perf or the permission to record), through `perf
# script`: latscope's samples per thread and self samples of the top symbols equal what `perf
# report` itself prints for the same perf.data (--no-children --sort pid / sym), kernel symbols
# spelt "name_[k]"; and the period is the -F rate.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"
command -v perf >/dev/null || skip "perf not installed (Debian: linux-perf)"
command -v cc >/dev/null || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPDIR/hot" "$LATSCOPE_SRCDIR/tests/progs/hot.c" || fail "cannot build hot.c"
if ! perf record -F 499 -g -e cpu-clock -o "$TMPDIR/p.data" -- "$TMPDIR/hot" 1 threads >"$TMPDIR/rec.out" 2>&1; then
    skip "perf record not permitted here: $(tail -1 "$TMPDIR/rec.out")"
fi
perf script -i "$TMPDIR/p.data" >"$TMPDIR/p.txt" 2>/dev/null || fail "perf script failed"
report() { perf report -i "$TMPDIR/p.data" --stdio --no-children -n -g none --sort "$1" 2>/dev/null | grep -v '^#' | grep -v '^$'; }
"$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/p.txt" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
    { cat "$TMPDIR/an.err" >&2; fail "analyze failed on perf script output"; }
C='.ranks[0].cpu'

# per thread: perf report --sort pid prints "N  TID:comm"
report pid | awk '{split($3, a, ":"); print a[1] "\t" $2}' | sort >"$TMPDIR/thr.perf"
jq -r "$C.threads[] | \"\(.tid)\t\(.samples)\"" "$TMPDIR/an.json" | sort >"$TMPDIR/thr.lat"
[[ -s $TMPDIR/thr.perf ]] || fail "perf report printed no thread"
diff "$TMPDIR/thr.perf" "$TMPDIR/thr.lat" >&2 || fail "samples per thread differ from perf report"
total=$(awk '{s += $2} END {print s}' "$TMPDIR/thr.perf")
jq -e "$C.samples == $total" "$TMPDIR/an.json" >/dev/null || fail "total samples differ from perf report ($total)"

# the top symbols by self samples: "N  [.] sym" / "[k] sym"
report sym | head -3 | awk '{n = $2; k = ($3 == "[k]"); $1 = $2 = $3 = ""; sub(/^ +/, ""); sub(/ +$/, "")
                            print (k ? $0 "_[k]" : $0) "\t" n}' >"$TMPDIR/sym.perf"
while IFS=$'\t' read -r sym n; do
    [[ $sym == 0x* ]] && continue # an address perf could not name: latscope says [dso]
    got=$(jq --arg f "$sym" "[$C.top_functions_self[] | select(.function == \$f)][0].self // 0" "$TMPDIR/an.json")
    [[ $got == "$n" ]] || fail "self samples of $sym: latscope $got, perf report $n"
done <"$TMPDIR/sym.perf"
[[ $(head -1 "$TMPDIR/sym.perf" | cut -f1) == spin ]] || fail "perf report's top symbol is not spin?"
jq -e "$C.period_us == $(( 1000000000 / 499 )) / 1000" "$TMPDIR/an.json" >/dev/null || fail "period is not 1/499 s"
echo "t367: $total samples, $(wc -l <"$TMPDIR/thr.perf") threads, top $(head -1 "$TMPDIR/sym.perf")"
