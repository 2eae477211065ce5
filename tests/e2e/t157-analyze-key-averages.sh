#!/usr/bin/env bash
# t157-analyze-key-averages: ground truth for the operator tables. For every real PyTorch CPU
# trace of the corpus (torch-cpu/*/NAME.pt.trace.json) with what prof.key_averages() printed for
# the same run (NAME.key_averages.json / .txt), latscope's op table must hold exactly the same
# rows with the same calls, CPU total and self CPU time (exact: latscope prints µs with 3
# decimals, i.e. the trace's ns; the tolerance 0.0005 µs only absorbs key_averages' float
# sums), the same ProfilerStep durations, and, from the .txt tables (printed with 3 decimals,
# so within half a printed digit): the group_by_input_shape rows and the CPU Mem / Self CPU Mem
# columns (profile_memory). Both by default and under --hta-compat --include-last-step (the op
# tables never take HTA's rounding; the step times do, so they are compared by default only).
# tests/tools/torch-truth.sh does the same on a fresh trace.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
dir=$(need_trace torch-cpu)

# key_averages' .txt tables -> TSV: kind name calls self_us self_tol total_us total_tol mem
# mem_tol selfmem selfmem_tol shapes (kind: "t" top tables, "s" the group_by_input_shape one)
ka_txt() {
    awk '
    function us(s,   v) {
        v = s; sub(/(us|ms|s)$/, "", v); v += 0
        if (s ~ /us$/) return v; if (s ~ /ms$/) return v * 1000; return v * 1000000 }
    function tol(s) { if (s ~ /us$/) return 0.0005; if (s ~ /ms$/) return 0.5; return 500 }
    function bytes(s,   v, u) {
        v = s; u = s; sub(/ .*/, "", v); sub(/.* /, "", u); v += 0
        if (u == "KB") v *= 1024; else if (u == "MB") v *= 1048576; else if (u == "GB") v *= 1073741824
        return v }
    function btol(s,   u) {
        u = s; sub(/.* /, "", u)
        if (u == "KB") return 0.005 * 1024; if (u == "MB") return 0.005 * 1048576
        if (u == "GB") return 0.005 * 1073741824; return 0.5 }
    /^-+  / { seps++; if (seps % 3 == 1) table++; next }
    /^ *Name  / {
        n = split($0, h, /  +/); delete col
        for (i = 1; i <= n; i++) col[h[i]] = i
        next }
    /^Self CPU time total/ || /^$/ { next }
    seps % 3 == 2 {
        line = $0; sub(/^ +/, "", line); sub(/ +$/, "", line)
        n = split(line, f, /  +/)
        name = f[col["Name"] - 1]
        if (name ~ /\.\.\.$/) next
        shapes = ("Input Shapes" in col) ? f[col["Input Shapes"] - 1] : ""
        if (shapes ~ /\.\.\.$/) next
        gsub(/ /, "", shapes)
        m = ("CPU Mem" in col) ? f[col["CPU Mem"] - 1] : ""
        sm = ("Self CPU Mem" in col) ? f[col["Self CPU Mem"] - 1] : ""
        printf "%s\t%s\t%s\t%.3f\t%g\t%.3f\t%g\t%s\t%s\t%s\t%s\t%s\n", \
            table == 3 ? "s" : "t", name, f[col["# of Calls"] - 1], \
            us(f[col["Self CPU"] - 1]), tol(f[col["Self CPU"] - 1]), \
            us(f[col["CPU total"] - 1]), tol(f[col["CPU total"] - 1]), \
            m == "" ? "-" : bytes(m), m == "" ? "-" : btol(m), \
            sm == "" ? "-" : bytes(sm), sm == "" ? "-" : btol(sm), shapes == "" ? "-" : shapes
    }' "$1"
}

ntr=0 nops=0 ntxt=0
for ka in "$dir"/*/*.key_averages.json; do
    [[ -e $ka ]] || continue
    base=${ka%.key_averages.json}
    tr=$base.pt.trace.json
    [[ -e $tr ]] || tr=$tr.gz
    [[ -e $tr ]] || continue
    for mode in default compat; do
        opts=()
        [[ $mode == compat ]] && opts=(--hta-compat --include-last-step)
        expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "${opts[@]}" "$tr"
        cp "$TMPDIR/out" "$TMPDIR/l.json"
        bad=$("$LATSCOPE_SRCDIR/tests/tools/ka-compare.sh" "$TMPDIR/l.json" "$ka" "" "$mode")
        [[ -z $bad ]] || fail "$tr ($mode): $bad"
    done
    nops=$((nops + $(jq '.ops | length' "$ka")))

    # the .txt tables: group_by_input_shape rows, and CPU Mem where profile_memory recorded it
    txt=$base.key_averages.txt
    if [[ -e $txt ]]; then
        ka_txt "$txt" >"$TMPDIR/ka.tsv"
        [[ -s $TMPDIR/ka.tsv ]] || fail "$txt: no table rows parsed"
        jq -r '.ranks[0] | (.top_ops[] | ["t", .name, .count, .self_us, .total_us, .cpu_mem_bytes, .self_cpu_mem_bytes, "-"]),
               (.ops_by_shape[] | ["s", .name, .count, .self_us, .total_us, .cpu_mem_bytes, .self_cpu_mem_bytes, (.input_dims // "[]")])
               | @tsv' "$TMPDIR/l.json" >"$TMPDIR/l.tsv"
        res=$(awk -F'\t' '
            function abs(x) { return x < 0 ? -x : x }
            NR == FNR { key = $1 "\t" $2 "\t" ($1 == "s" ? $8 : "-"); row[key] = $0; next }
            {
                key = $1 "\t" $2 "\t" $12; rows++
                if (!(key in row)) { print "no latscope row for " key; bad++; next }
                split(row[key], l, "\t")
                if (l[3] != $3) { print $2 " " $12 ": calls " l[3] " vs " $3; bad++ }
                if (abs(l[4] - $4) > $5) { print $2 " " $12 ": self " l[4] " vs " $4; bad++ }
                if (abs(l[5] - $6) > $7) { print $2 " " $12 ": total " l[5] " vs " $6; bad++ }
                if ($8 != "-" && abs(l[6] - $8) > $9) { print $2 ": CPU Mem " l[6] " vs " $8; bad++ }
                if ($10 != "-" && abs(l[7] - $10) > $11) { print $2 ": Self CPU Mem " l[7] " vs " $10; bad++ }
                if ($8 != "-") mem++
                if ($1 == "s") shp++
            }
            END { if (!bad) print "ok " rows " " shp + 0 " " mem + 0 }' "$TMPDIR/l.tsv" "$TMPDIR/ka.tsv")
        [[ $res == ok* ]] || fail "$txt: $res"
        read -r _ rows shp mem <<<"$res"
        if grep -q "Input Shapes" "$txt"; then
            [[ $shp -gt 0 ]] || fail "$txt: no group_by_input_shape row compared"
        fi
        [[ $base != */memory/* || $mem -gt 0 ]] || fail "$txt: no CPU Mem column compared"
        ntxt=$((ntxt + rows))
    fi
    ntr=$((ntr + 1))
done
[[ $ntr -ge 1 ]] || skip "no torch-cpu trace with key_averages in $dir"
echo "$ntr traces, $nops key_averages rows exact, $ntxt .txt rows within print precision"
exit 0
