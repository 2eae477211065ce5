#!/usr/bin/env bash
# t189-nsys-csv-vs-sqlite: the two Nsight Systems readers agree on real data. From the shared
# nsys 2024.5 export, the sqlite3 CLI writes a cuda_gpu_trace CSV with nsys's columns (the
# kernels, and the copies named by the export's ENUM labels, as `nsys stats --report
# cuda_gpu_trace --format csv` prints them; with its preamble lines), in ns and in the
# `--timeunit us` variant, and a cuda_gpu_kern_sum CSV (totals per kernel name). latscope's
# kernel table and copies from the CSV trace equal those from the SQLite export, to the ns;
# its nsys_stats summary of the kern_sum CSV equals the SQLite's kernel table.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed (scripts/deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
db=$(need_trace nsys/perlmutter-cloverleaf-cuda.sqlite)
if ! "$LATSCOPE" analyze --format json --top 100000 "$db" >"$TMPDIR/sq.json" 2>"$TMPDIR/err"; then
    grep -q "built without SQLite" "$TMPDIR/err" && skip "latscope built without SQLite"
    cat "$TMPDIR/err" >&2
    fail "analyze failed on the export"
fi
gpu_trace() { # DIV DECIMALS UNIT: times divided by DIV, printed with DECIMALS
    local div=$1 dec=$2 u=$3
    echo "Generating SQLite file x.sqlite from x.nsys-rep"
    echo "Processing [x.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/cuda_gpu_trace.py]... "
    sqlite3 -readonly -batch -csv -header "$db" "
    SELECT printf('%.${dec}f', start / $div.0) AS \"Start ($u)\", printf('%.${dec}f', (end - start) / $div.0) AS \"Duration ($u)\",
           CorrId, GrdX, GrdY, GrdZ, BlkX, BlkY, BlkZ, \"Reg/Trd\", \"StcSMem (MB)\", \"DymSMem (MB)\", \"Bytes (MB)\",
           \"Throughput (MBps)\", SrcMemKd, DstMemKd, Device, Ctx, GreenCtx, Strm, Name FROM (
      SELECT K.start, K.end, K.correlationId AS CorrId, K.gridX AS GrdX, K.gridY AS GrdY, K.gridZ AS GrdZ,
             K.blockX AS BlkX, K.blockY AS BlkY, K.blockZ AS BlkZ, K.registersPerThread AS \"Reg/Trd\",
             printf('%.6f', K.staticSharedMemory / 1e6) AS \"StcSMem (MB)\", printf('%.6f', K.dynamicSharedMemory / 1e6) AS \"DymSMem (MB)\",
             NULL AS \"Bytes (MB)\", NULL AS \"Throughput (MBps)\", NULL AS SrcMemKd, NULL AS DstMemKd,
             G.name || ' (' || K.deviceId || ')' AS Device, K.contextId AS Ctx, NULL AS GreenCtx, K.streamId AS Strm, S.value AS Name
      FROM CUPTI_ACTIVITY_KIND_KERNEL K JOIN StringIds S ON S.id = K.demangledName JOIN TARGET_INFO_GPU G ON G.id = K.deviceId
      UNION ALL
      SELECT M.start, M.end, M.correlationId, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
             printf('%.6f', M.bytes / 1e6), printf('%.3f', M.bytes / 1e6 / ((M.end - M.start) / 1e9)), SK.label, DK.label,
             G.name || ' (' || M.deviceId || ')', M.contextId, NULL, M.streamId, '[CUDA memcpy ' || O.label || ']'
      FROM CUPTI_ACTIVITY_KIND_MEMCPY M JOIN ENUM_CUDA_MEMCPY_OPER O ON O.id = M.copyKind
      JOIN ENUM_CUDA_MEM_KIND SK ON SK.id = M.srcKind JOIN ENUM_CUDA_MEM_KIND DK ON DK.id = M.dstKind
      JOIN TARGET_INFO_GPU G ON G.id = M.deviceId) ORDER BY start"
}
gpu_trace 1 0 ns >"$TMPDIR/gpu_trace_ns.csv"
gpu_trace 1000 3 us >"$TMPDIR/gpu_trace_us.csv"
rows=$(sqlite3 -readonly "$db" "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY)")
[[ $(($(wc -l <"$TMPDIR/gpu_trace_ns.csv") - 3)) == "$rows" ]] || fail "the CSV has not $rows rows"
kern() { jq -r '.ranks[0].top_kernels[] | [.name, .type, .count, (.sum_us * 1000 | round)] | join("|")' "$1" | LC_ALL=C sort; }
copies() { jq -c '[.ranks[0].memcpy[] | {kind, memory, count, bytes, time_us}] | sort_by(.kind, .memory)' "$1"; }
kern "$TMPDIR/sq.json" >"$TMPDIR/k.sq"
[[ -s $TMPDIR/k.sq ]] || fail "no kernels from the export?"
for u in ns us; do
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/gpu_trace_$u.csv"
    cp "$TMPDIR/out" "$TMPDIR/csv_$u.json"
    jq -e '.ranks[0].format == "nsys-stats" and .ranks[0].nsys_stats.reports == "cuda_gpu_trace"' "$TMPDIR/csv_$u.json" >/dev/null ||
        fail "$u: not read as cuda_gpu_trace"
    [[ $(jq '.ranks[0].events' "$TMPDIR/csv_$u.json") == "$rows" ]] || fail "$u: events != $rows"
    kern "$TMPDIR/csv_$u.json" >"$TMPDIR/k.$u"
    diff "$TMPDIR/k.sq" "$TMPDIR/k.$u" >&2 || fail "$u: kernel table from the CSV differs from the export's"
    [[ $(copies "$TMPDIR/sq.json") == "$(copies "$TMPDIR/csv_$u.json")" ]] ||
        fail "$u: copies differ: $(copies "$TMPDIR/sq.json") vs $(copies "$TMPDIR/csv_$u.json")"
done

# cuda_gpu_kern_sum (nsys's definition: per demangled name; time % of the kernel total)
{
    echo "Processing [x.sqlite] with [/opt/nvidia/nsight-systems/2024.5.1/host-linux-x64/reports/cuda_gpu_kern_sum.py]... "
    sqlite3 -readonly -batch -csv -header "$db" "
    WITH k AS (SELECT S.value AS name, K.end - K.start AS d FROM CUPTI_ACTIVITY_KIND_KERNEL K JOIN StringIds S ON S.id = K.demangledName),
         t AS (SELECT sum(d) AS all_ns FROM k)
    SELECT printf('%.1f', 100.0 * sum(d) / t.all_ns) AS \"Time (%)\", sum(d) AS \"Total Time (ns)\", count(*) AS Instances,
           printf('%.1f', avg(d)) AS \"Avg (ns)\", min(d) AS \"Min (ns)\", max(d) AS \"Max (ns)\", name AS Name
    FROM k, t GROUP BY name ORDER BY sum(d) DESC"
} >"$TMPDIR/kern_sum.csv"
expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/kern_sum.csv"
jq -r '.ranks[0].nsys_stats.summaries[0].top[] | [.name, .count, .total] | join("|")' "$TMPDIR/out" |
    LC_ALL=C sort >"$TMPDIR/k.sum"
jq -r '.ranks[0].top_kernels[] | select(.type != "MEMORY") | [.name, .count, (.sum_us * 1000 | round)] | join("|")' \
    "$TMPDIR/sq.json" | LC_ALL=C sort >"$TMPDIR/k.sqc"
diff "$TMPDIR/k.sqc" "$TMPDIR/k.sum" >&2 || fail "kern_sum summary differs from the export's kernel table"
echo "$rows GPU rows (ns and us CSV = SQLite); $(wc -l <"$TMPDIR/k.sum") kernel names in kern_sum = SQLite"
