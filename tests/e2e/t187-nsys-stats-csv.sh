#!/usr/bin/env bash
# t187-nsys-stats-csv: `nsys stats --format csv` reports are read (src/ingest/nsys-csv.c). The
# shared nsys NVTX push/pop trace (nbody-nvtx_trace.csv) and the hand-made reports of
# tests/data/nsys/handmade-nsys-stats-*.csv (modelled on nsys's documented columns, with its
# preamble lines and --timeunit us/ms/s variants) are checked against an independent reading of
# the same CSV (tests/tools/nsys-stats-truth.py): every trace row is one event with its start,
# duration and thread/stream, NVTX totals per name equal analyze's annotation table; every
# summary row's count/total/avg/med/min/max/stddev/percentage equals analyze's nsys_stats
# section. The text report says that timeline analyses need the SQLite export; a cut, empty or
# unknown report fails saying so; gzip of a report reads the same.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
truth=$LATSCOPE_SRCDIR/tests/tools/nsys-stats-truth.py
check() {
    expect_rc 0 "$LATSCOPE" convert "$1" -o "$TMPDIR/conv.json"
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$1"
    cp "$TMPDIR/out" "$TMPDIR/an.json"
    python3 "$truth" "$1" "$TMPDIR/conv.json" "$TMPDIR/an.json" >"$TMPDIR/truth" 2>&1 ||
        { cat "$TMPDIR/truth" >&2; fail "$1: latscope differs from the CSV"; }
    echo "$(basename "$1"): $(head -1 "$TMPDIR/truth")"
}
n=0
for f in "$LATSCOPE_SRCDIR"/tests/data/nsys/handmade-nsys-stats-*.csv; do check "$f"; n=$((n + 1)); done
[[ $n -eq 5 ]] || fail "$n hand-made reports, want 5"

# the summaries: the note about the timeline, the table's total row
f=$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-stats-cuda_gpu_kern_sum.csv
expect_rc 0 "$LATSCOPE" analyze "$f"
contains "$TMPDIR/out" "nsys stats  cuda_gpu_kern_sum (times in the file: ns)"
contains "$TMPDIR/out" "the timeline analyses (idle time, launches, overlap, queues, critical path) need the SQLite export"
contains "$TMPDIR/out" "relu_kernel(float*, int)"
# a GPU trace runs the timeline analyses: 2 kernels of 400 us on stream 7, 3 copies/memsets
f=$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-stats-cuda_gpu_trace.csv
expect_rc 0 "$LATSCOPE" analyze --format json "$f"
python3 - "$TMPDIR/out" <<'PY' || fail "cuda_gpu_trace: timeline analyses"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
k = [x for x in r["top_kernels"] if x["type"] != "MEMORY"]
assert len(k) == 1 and k[0]["count"] == 2 and abs(k[0]["sum_us"] - 400) < 1e-9, k
assert sorted(m["kind"] for m in r["memcpy"]) == ["DtoH", "HtoD", "Memset"], r["memcpy"]
assert r["nsys_stats"]["timeline"] is True and r["nsys_stats"]["summaries"] == []
PY
# several reports in one stream (nsys stats --format csv without --output), osrt_sum named
{
    echo " ** CUDA API Summary (cuda_api_sum):"
    echo
    tail -n +2 "$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-stats-cuda_api_sum-us.csv"
    echo
    echo " ** OS Runtime Summary (osrt_sum):"
    echo
    echo '"Time (%)","Total Time (ns)","Num Calls","Avg (ns)","Med (ns)","Min (ns)","Max (ns)","StdDev (ns)","Name"'
    echo '"100.0","900","3","300.0","300.0","200","400","100.0","ioctl"'
    echo
    echo " ** CUDA Kernel Exec Trace (cuda_kern_exec_trace):"
    echo
    echo '"API Start (ns)","API Dur (ns)","Kernel Start (ns)","Kernel Name"'
    echo '1,2,3,"k"'
} >"$TMPDIR/multi.csv"
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/multi.csv"
python3 - "$TMPDIR/out" <<'PY' || fail "two reports in one file"
import json, sys
s = json.load(open(sys.argv[1]))["ranks"][0]["nsys_stats"]
assert [x["report"] for x in s["summaries"]] == ["cuda_api_sum", "osrt_sum"], s
assert s["summaries"][1]["top"][0]["total"] == 900 and s["summaries"][0]["count"] == 102, s
assert s["not_read"] == "cuda_kern_exec_trace", s
PY
# gzip reads the same
gzip -c "$f" >"$TMPDIR/t.csv.gz"
expect_rc 0 "$LATSCOPE" analyze --format json "$TMPDIR/t.csv.gz"
python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["ranks"][0]; assert a["events"] == 5, a["events"]' "$TMPDIR/out" ||
    fail "gzip of the GPU trace"

# bad inputs: header without rows, a cut quoted row, an unknown report, 0 bytes
head -n 3 "$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-stats-cuda_gpu_kern_sum.csv" >"$TMPDIR/hdr.csv"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/hdr.csv"
contains "$TMPDIR/err" "with a header but no row: truncated, or the report was empty"
head -c 500 "$LATSCOPE_SRCDIR/tests/data/nsys/handmade-nsys-stats-cuda_gpu_kern_sum.csv" >"$TMPDIR/cut.csv"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.csv"
contains "$TMPDIR/err" "ends inside a quoted field"
printf 'Processing [r.sqlite] with [/x/cuda_kern_exec_trace.py]...\n"Kernel Start (ns)","Kernel Dur (ns)","Name"\n1,2,"k"\n' >"$TMPDIR/unk.csv"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/unk.csv"
contains "$TMPDIR/err" "(cuda_kern_exec_trace) that latscope does not read"

# the shared NVTX trace (131 ranges): the rows as events, the totals per name
db=$(need_trace nsys/nbody-nvtx_trace.csv)
check "$db"
# cut inside an unquoted row: the rows before it load, the cut one is counted as dropped
head -c 3000 "$db" >"$TMPDIR/nvcut.csv"
expect_rc 0 "$LATSCOPE" analyze "$TMPDIR/nvcut.csv"
contains "$TMPDIR/err" "1 event dropped"
