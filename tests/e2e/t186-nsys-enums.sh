#!/usr/bin/env bash
# t186-nsys-enums: the ENUM_* tables of an Nsight Systems export name the numbers of its rows
# (copy kinds, memory kinds, sync types, event classes, NVTX event types), matched to latscope's
# names by their symbols, not by number. A hand-made export whose ENUM tables renumber the
# values (tests/data/nsys/handmade-nsys-enums.sql) is named by them; the same rows without the
# ENUM tables (as schema 2.x) by the built-in numbers; on the shared nsys 2024.5 export the
# built-in tables agree with its ENUM tables (metadata nsys_enums.differ = 0), and every copy and
# sync is named as an independent SQL join of the rows with the ENUM tables says.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v sqlite3 >/dev/null || skip "sqlite3 CLI not installed (scripts/deps.sh installs it)"
command -v jq >/dev/null || skip "jq not installed"
sql=$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-enums.sql
sqlite3 "$TMPDIR/e.sqlite" <"$sql" || fail "sqlite3 could not build the hand-made export"
grep -v ENUM_ "$sql" | sqlite3 "$TMPDIR/n.sqlite" || fail "sqlite3 could not build the copy"
set +e
"$LATSCOPE" convert "$TMPDIR/e.sqlite" -o "$TMPDIR/e.json" 2>"$TMPDIR/err"
rc=$?
set -e
if [[ $rc -ne 0 ]]; then
    grep -q "built without SQLite" "$TMPDIR/err" && skip "latscope built without SQLite"
    cat "$TMPDIR/err" >&2
    fail "convert failed on the hand-made export"
fi
expect_rc 0 "$LATSCOPE" convert "$TMPDIR/n.sqlite" -o "$TMPDIR/n.json"
ev() { jq -r '.traceEvents[] | select(.ph != "M") | [.cat, .name] | join("|")' "$1" | LC_ALL=C sort; }

# named by the export's tables: swapped copy kinds, memory kinds, sync types, event classes;
# a copy kind latscope does not know by its label; NVTX types moved by 100
ev "$TMPDIR/e.json" >"$TMPDIR/e.ev"
cat >"$TMPDIR/e.want" <<'W'
cuda_driver|cuMemcpyHtoD_v2
cuda_runtime|cudaLaunchKernel
cuda_sync|Stream Sync
gpu_memcpy|Memcpy Fabric-to-Device
gpu_memcpy|Memcpy HtoD (Pageable -> Device)
gpu_memset|Memset (Pinned)
kernel|kern(float*)
nvtx_mark|mark
user_annotation|range
W
diff "$TMPDIR/e.want" "$TMPDIR/e.ev" >&2 || fail "the export's ENUM tables were not followed"
jq -e '.traceEvents[] | select(.cat == "user_annotation") | .args.domain == "dom"' "$TMPDIR/e.json" >/dev/null ||
    fail "NVTX domain (NvtxDomainCreate = 175 here) not named"
jq -e '.nsys_enums.source == "export" and (.nsys_enums.tables | length) == 5 and .nsys_enums.differ > 0
       and (.nsys_enums.first_differ | startswith("ENUM_CUDA_MEMCPY_OPER: CUDA_MEMCPY_KIND_DTOH = 1"))' \
    "$TMPDIR/e.json" >/dev/null || fail "nsys_enums metadata: $(jq -c .nsys_enums "$TMPDIR/e.json")"

# without them: the built-in (nsys 2024.5) numbers
ev "$TMPDIR/n.json" >"$TMPDIR/n.ev"
cat >"$TMPDIR/n.want" <<'W'
cuda_driver|cudaLaunchKernel
cuda_runtime|cuMemcpyHtoD_v2
cuda_sync|Context Sync
gpu_memcpy|Memcpy DtoH (Pinned -> Device)
gpu_memcpy|Memcpy Unknown
gpu_memset|Memset (Pageable)
kernel|kern(float*)
nvtx_mark|category
W
diff "$TMPDIR/n.want" "$TMPDIR/n.ev" >&2 || fail "the built-in numbers were not used without ENUM tables"
jq -e '.nsys_enums == {"source": "built-in", "tables": [], "differ": 0}' "$TMPDIR/n.json" >/dev/null ||
    fail "nsys_enums metadata without tables: $(jq -c .nsys_enums "$TMPDIR/n.json")"

# the shared export: its ENUM tables agree with the built-in ones; names = the SQL join
db=$(need_trace nsys/perlmutter-cloverleaf-cuda.sqlite)
q() { sqlite3 -readonly -batch -noheader -separator '|' "$db" "$1"; }
expect_rc 0 "$LATSCOPE" convert "$db" -o "$TMPDIR/s.json"
jq -e '.nsys_enums.source == "export" and (.nsys_enums.tables | length) == 5 and .nsys_enums.differ == 0' \
    "$TMPDIR/s.json" >/dev/null || fail "shared export: $(jq -c .nsys_enums "$TMPDIR/s.json")"
# copy kind symbol CUDA_MEMCPY_KIND_HTOD -> HtoD, memory kind labels as they are
q "SELECT 'gpu_memcpy|Memcpy ' || CASE O.name WHEN 'CUDA_MEMCPY_KIND_HTOD' THEN 'HtoD' WHEN 'CUDA_MEMCPY_KIND_DTOH' THEN 'DtoH'
          WHEN 'CUDA_MEMCPY_KIND_DTOD' THEN 'DtoD' WHEN 'CUDA_MEMCPY_KIND_HTOH' THEN 'HtoH' WHEN 'CUDA_MEMCPY_KIND_PTOP' THEN 'PtoP'
          ELSE O.label END || ' (' || S.label || ' -> ' || D.label || ')', count(*)
   FROM CUPTI_ACTIVITY_KIND_MEMCPY M JOIN ENUM_CUDA_MEMCPY_OPER O ON O.id = M.copyKind
   JOIN ENUM_CUDA_MEM_KIND S ON S.id = M.srcKind JOIN ENUM_CUDA_MEM_KIND D ON D.id = M.dstKind GROUP BY 1
   UNION ALL
   SELECT 'cuda_sync|' || CASE Y.name WHEN 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE' THEN 'Event Sync'
          WHEN 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT' THEN 'Stream Wait Event'
          WHEN 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE' THEN 'Stream Sync'
          WHEN 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE' THEN 'Context Sync' ELSE 'Unknown Sync' END, count(*)
   FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION Z JOIN ENUM_CUPTI_SYNC_TYPE Y ON Y.id = Z.syncType GROUP BY 1" |
    LC_ALL=C sort >"$TMPDIR/s.sql"
[[ -s $TMPDIR/s.sql ]] || fail "no copies or syncs in the shared export?"
jq -r '.traceEvents[] | select(.cat == "gpu_memcpy" or .cat == "cuda_sync") | [.cat, .name] | join("|")' "$TMPDIR/s.json" |
    LC_ALL=C sort | uniq -c | awk '{c = $1; $1 = ""; sub(/^ /, ""); print $0 "|" c}' | LC_ALL=C sort >"$TMPDIR/s.lat"
diff "$TMPDIR/s.sql" "$TMPDIR/s.lat" >&2 || fail "shared export: copy/sync names differ from the ENUM join"
# runtime vs driver rows by ENUM_NSYS_EVENT_CLASS
drv=$(q "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME R JOIN ENUM_NSYS_EVENT_CLASS C ON C.id = R.eventClass
         WHERE C.name = 'TRACE_PROCESS_EVENT_CUDA_DRIVER'")
[[ $(jq '[.traceEvents[] | select(.cat == "cuda_driver")] | length' "$TMPDIR/s.json") == "$drv" ]] ||
    fail "driver rows != $drv"
echo "shared export: $(tr '\n' ' ' <"$TMPDIR/s.sql"), driver rows $drv"
