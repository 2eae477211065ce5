#!/usr/bin/env bash
# t163-ingest-nsys: an Nsight Systems SQLite export (nsys 2024.5, CloverLeaf on A100) is read,
# and latscope's numbers equal the ones computed straight from the database with the sqlite3
# CLI, by the definitions of `nsys stats` reports: cuda_gpu_kern_sum (kernel count and total
# time per kernel name and per device), cuda_api_sum (calls and total time per API name, the
# _vNNNN suffix removed), cuda_gpu_mem_size_sum / cuda_gpu_mem_time_sum (copies, bytes and
# time per copy kind). doctor runs on it; .gz of it loads the same; .nsys-rep is named.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
db=$(need_trace nsys/perlmutter-cloverleaf-cuda.sqlite)
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed (scripts/deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
q() { sqlite3 -readonly -batch -noheader -separator '|' "$db" "$1"; }

if ! "$LATSCOPE" analyze --format json --top 100000 "$db" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err"; then
    grep -q "built without SQLite" "$TMPDIR/an.err" && skip "latscope built without SQLite"
    cat "$TMPDIR/an.err" >&2
    fail "analyze failed on the nsys export"
fi
jq -e '.ranks[0].format == "nsys"' "$TMPDIR/an.json" >/dev/null || fail "format is not nsys"
R='.ranks[0]'

# cuda_gpu_kern_sum: per kernel name (demangled), count and total ns
q "SELECT S.value, count(*), sum(K.end - K.start) FROM CUPTI_ACTIVITY_KIND_KERNEL K
   JOIN StringIds S ON S.id = K.demangledName GROUP BY S.value ORDER BY S.value" >"$TMPDIR/k.sql"
[[ -s $TMPDIR/k.sql ]] || fail "no kernels in the export?"
jq -r "$R.top_kernels[] | select(.type != \"MEMORY\") | [.name, .count, (.sum_us * 1000 | round)] | join(\"|\")" \
    "$TMPDIR/an.json" | LC_ALL=C sort >"$TMPDIR/k.lat"
LC_ALL=C sort "$TMPDIR/k.sql" -o "$TMPDIR/k.sql"
diff "$TMPDIR/k.sql" "$TMPDIR/k.lat" >&2 || fail "kernel table differs from cuda_gpu_kern_sum"
# per device: every device of the export, count and total (this export ran on one device of
# four: latscope's whole-trace kernel totals are that device's)
q "SELECT deviceId, count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL GROUP BY deviceId" >"$TMPDIR/kd.sql"
[[ $(wc -l <"$TMPDIR/kd.sql") == 1 ]] || fail "expected kernels on one device: $(cat "$TMPDIR/kd.sql")"
IFS='|' read -r dev kn kt <"$TMPDIR/kd.sql"
got=$(jq -r "[$R.top_kernels[] | select(.type != \"MEMORY\")] | [(map(.count) | add), (map(.sum_us * 1000) | add | round)] | join(\"|\")" "$TMPDIR/an.json")
[[ $got == "$kn|$kt" ]] || fail "device $dev: latscope $got, SQL $kn|$kt"

# cuda_api_sum: per API name without the _vNNNN suffix, calls and total ns
q "SELECT CASE WHEN S.value GLOB '*_v[0-9][0-9][0-9][0-9]' THEN substr(S.value, 1, length(S.value) - 6)
               WHEN S.value GLOB '*_v[0-9][0-9][0-9][0-9][0-9]' THEN substr(S.value, 1, length(S.value) - 7)
               ELSE S.value END AS n, count(*), sum(R.end - R.start)
   FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN StringIds S ON S.id = R.nameId GROUP BY n" |
    LC_ALL=C sort >"$TMPDIR/a.sql"
jq -r "$R.top_ops[] | [.name, .count, (.total_us * 1000 | round)] | join(\"|\")" "$TMPDIR/an.json" |
    LC_ALL=C sort >"$TMPDIR/a.lat"
diff "$TMPDIR/a.sql" "$TMPDIR/a.lat" >&2 || fail "API table differs from cuda_api_sum"
calls=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME")
[[ $(jq "[$R.top_ops[].count] | add" "$TMPDIR/an.json") == "$calls" ]] || fail "runtime calls != $calls"
launches=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN StringIds S ON S.id = R.nameId
              WHERE S.value LIKE 'cudaLaunchKernel%'")
[[ $(jq "$R.launch.count" "$TMPDIR/an.json") == "$launches" ]] || fail "launch count != $launches"

# cuda_gpu_mem_size_sum / cuda_gpu_mem_time_sum: per copy kind, count, bytes and ns
q "SELECT CASE copyKind WHEN 1 THEN 'HtoD' WHEN 2 THEN 'DtoH' WHEN 8 THEN 'DtoD' WHEN 10 THEN 'PtoP'
   WHEN 9 THEN 'HtoH' ELSE 'other' END AS k, count(*), sum(bytes), sum(end - start)
   FROM CUPTI_ACTIVITY_KIND_MEMCPY GROUP BY k" | LC_ALL=C sort >"$TMPDIR/m.sql"
[[ -s $TMPDIR/m.sql ]] || fail "no copies in the export?"
jq -r "$R.memcpy | group_by(.kind)[] | [.[0].kind, (map(.count) | add), (map(.bytes) | add),
       (map(.time_us * 1000) | add | round)] | join(\"|\")" "$TMPDIR/an.json" | LC_ALL=C sort >"$TMPDIR/m.lat"
diff "$TMPDIR/m.sql" "$TMPDIR/m.lat" >&2 || fail "copies differ from cuda_gpu_mem_size_sum"

# syncs: the device-side records and the synchronising calls
ns=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")
[[ $(jq "[$R.syncs.calls[] | select(.device_side) | .count] | add" "$TMPDIR/an.json") == "$ns" ]] ||
    fail "device-side syncs != $ns"

# every row of the read tables is an event (nothing dropped on this file)
rows=$(q "SELECT (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME)
          + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY) + (SELECT count(*) FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION)
          + (SELECT count(*) FROM OSRT_API) + (SELECT count(*) FROM COMPOSITE_EVENTS)")
[[ $(jq "$R.events" "$TMPDIR/an.json") == "$rows" ]] || fail "events $(jq "$R.events" "$TMPDIR/an.json") != rows $rows"
jq -e "$R.dropped.total == 0" "$TMPDIR/an.json" >/dev/null || fail "events dropped"

# doctor reads it; gzip of it gives the same analysis
expect_rc 0 "$LATSCOPE" doctor --fail-on never "$db"
contains "$TMPDIR/out" "(nsys)"
gzip -c "$db" >"$TMPDIR/c.sqlite.gz"
"$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/c.sqlite.gz" >"$TMPDIR/gz.json"
diff <(jq -S 'del(.ranks[].path)' "$TMPDIR/an.json") <(jq -S 'del(.ranks[].path)' "$TMPDIR/gz.json") >&2 ||
    fail "gzip of the export analyses differently"

# a .nsys-rep is named with the export command
printf 'binary' >"$TMPDIR/run.nsys-rep"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/run.nsys-rep"
contains "$TMPDIR/err" "run \`nsys export --type sqlite FILE\`"
echo "kernels $kn ($kt ns) on device $dev, runtime calls $calls, copies $(tr '\n' ' ' <"$TMPDIR/m.sql")"
