#!/usr/bin/env bash
# t701-perf-script-no-callchain: `perf script` of a `perf record` WITHOUT -g writes one line per
# sample, its COMM right-aligned (the line starts with blanks) and no blank line between samples.
# A real recording of tests/progs/hot.c (threads mode) without and with -g: latscope's sample count
# equals `perf report`'s sample count and the lines/blocks of `perf script`, and its self samples
# per function equal `perf report --sort sym -F sample,sym` (the independent check). Skips when
# perf or a C compiler is missing, or perf cannot record here (perf_event_paranoid, containers).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v perf >/dev/null || skip "perf not installed (Debian: linux-perf)"
command -v jq >/dev/null || skip "jq not installed"
command -v cc >/dev/null || skip "no C compiler"
cc -O1 -g -fno-omit-frame-pointer -pthread -o "$TMPDIR/hot" "$LATSCOPE_SRCDIR/tests/progs/hot.c" || fail "cannot build hot.c"
rec() { # rec NAME [perf record options]: perf.data and perf script text
    local n=$1; shift
    perf record -q -F 499 -e cpu-clock "$@" -o "$TMPDIR/$n.data" -- "$TMPDIR/hot" 1 threads >/dev/null 2>"$TMPDIR/$n.rec" ||
        skip "perf cannot record here ($(tail -1 "$TMPDIR/$n.rec"); perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null))"
    perf script -i "$TMPDIR/$n.data" >"$TMPDIR/$n.perf-script.txt" 2>/dev/null || fail "perf script failed"
    perf report -i "$TMPDIR/$n.data" --stdio --no-children --sort sym -F sample,sym 2>/dev/null |
        awk '!/^#/ && NF >= 3 { s = $3; for (i = 4; i <= NF; i++) s = s " " $i; if ($2 == "[k]") s = s "_[k]"; print s "\t" $1 }' |
        LC_ALL=C sort >"$TMPDIR/$n.self.want"
    # the total: the per-symbol sample counts summed ("# Samples: 1K" rounds above 999)
    awk -F'\t' '{ s += $2 } END { print s + 0 }' "$TMPDIR/$n.self.want" >"$TMPDIR/$n.want"
    # a plain name (no .perf-script suffix): the content must say what it is
    cp "$TMPDIR/$n.perf-script.txt" "$TMPDIR/$n.txt"
    expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/$n.txt"
    mv "$TMPDIR/out" "$TMPDIR/$n.json"
    # and by its name (the reader alone, whatever the content sniff says)
    expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/$n.perf-script.txt"
    mv "$TMPDIR/out" "$TMPDIR/$n.named.json"
}
check() { # check NAME HOW-perf-script-COUNTS
    local n=$1 want got lines=$2
    want=$(cat "$TMPDIR/$n.want")
    [[ $want -gt 10 ]] || skip "perf recorded only $want samples"
    [[ $lines == "$want" ]] || fail "$n: perf script has $lines samples, perf report $want"
    got=$(jq '.ranks[0].cpu.samples' "$TMPDIR/$n.json")
    [[ $got == "$want" ]] || fail "$n: latscope read $got CPU samples, perf report says $want"
    got=$(jq '.ranks[0].cpu.samples' "$TMPDIR/$n.named.json")
    [[ $got == "$want" ]] || fail "$n (.perf-script.txt): latscope read $got CPU samples, perf report says $want"
    nf=$(jq '.ranks[0].cpu.distinct_functions' "$TMPDIR/$n.json")
    jq -r '.ranks[0].cpu.top_functions_self[] | select(.self > 0) | "\(.function)\t\(.self)"' "$TMPDIR/$n.json" |
        LC_ALL=C sort >"$TMPDIR/$n.self.got"
    # every function perf report lists by samples, when latscope's list holds them all
    if [[ $(wc -l <"$TMPDIR/$n.self.got") -lt $nf ]]; then
        awk -F'\t' 'NR == FNR { g[$1] = $2; next } ($1 in g) && g[$1] != $2 { print; bad = 1 } END { exit bad }' \
            "$TMPDIR/$n.self.got" "$TMPDIR/$n.self.want" >&2 || fail "$n: self samples differ from perf report"
    else
        diff "$TMPDIR/$n.self.want" "$TMPDIR/$n.self.got" >&2 || fail "$n: self samples per function differ from perf report"
    fi
}
rec nog
# without -g: one line per sample (none blank), the first indented (COMM right-aligned)
head -1 "$TMPDIR/nog.txt" | grep -q '^ ' || echo "note: COMM not padded in this perf's output" >&2
check nog "$(grep -vc '^\s*$' "$TMPDIR/nog.txt")"
rec g -g
check g "$(grep -c '^[^[:space:]]' "$TMPDIR/g.txt")"
echo ok
