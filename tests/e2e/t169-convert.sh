#!/usr/bin/env bash
# t169-convert: `latscope convert IN -o OUT` (src/cmd-convert.c). Round trip: analyze (and
# doctor) of the converted Kineto JSON give the same numbers as of the original, for a Kineto
# corpus trace (HTA's event_sync), an ONNX Runtime profile (its ORT meaning kept), the nsys
# SQLite export and the CPU stack files; .json.gz is gzip, "-" is stdout; errors: an unwritable
# or directory output is refused before the input is read, unknown output suffix, missing -o,
# two inputs, bad input (nothing written), folded/svg output of a trace without CPU samples.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v jq >/dev/null || skip "jq not installed"

expect_rc 0 "$LATSCOPE" convert --help
contains "$TMPDIR/out" "usage: latscope convert"
"$LATSCOPE" --help 2>&1 | grep -q "convert" || fail "convert is not in latscope's command list"

# same(IN, jq-filter): analyze IN and its conversion; the JSON must be equal but for the path
same() {
    local in=$1 drop=${2:-}
    "$LATSCOPE" convert "$in" -o "$TMPDIR/c.pt.trace.json.gz" 2>"$TMPDIR/conv.err" ||
        { cat "$TMPDIR/conv.err" >&2; fail "convert $in failed"; }
    [[ $(od -An -tx1 -N2 "$TMPDIR/c.pt.trace.json.gz" | tr -d ' ') == 1f8b ]] || fail ".json.gz output is not gzip"
    "$LATSCOPE" analyze --format json --top 100000 "$in" 2>/dev/null | jq -S "del(.ranks[].path) $drop" >"$TMPDIR/a.json" ||
        fail "analyze $in failed"
    "$LATSCOPE" analyze --format json --top 100000 "$TMPDIR/c.pt.trace.json.gz" 2>/dev/null |
        jq -S "del(.ranks[].path) $drop" >"$TMPDIR/b.json" || fail "analyze of the conversion of $in failed"
    [[ $(wc -c <"$TMPDIR/a.json") -gt 200 ]] || fail "analyze of $in says almost nothing"
    diff "$TMPDIR/a.json" "$TMPDIR/b.json" >&2 || fail "analyze differs after convert: $in"
}

n=0
if [[ -e $LATSCOPE_TRACES/hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz ]]; then
    k=$LATSCOPE_TRACES/hta/tests/data/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz
    same "$k"
    jq -e '.ranks[0].launch.count > 0' "$TMPDIR/b.json" >/dev/null || fail "GPU launches lost in the conversion"
    # doctor too (findings, evidence numbers)
    "$LATSCOPE" doctor --format json "$k" 2>/dev/null | jq -S 'del(.. | .path?, .trace?)' >"$TMPDIR/da.json" || true
    "$LATSCOPE" doctor --format json "$TMPDIR/c.pt.trace.json.gz" 2>/dev/null | jq -S 'del(.. | .path?, .trace?)' >"$TMPDIR/db.json" || true
    [[ -s $TMPDIR/da.json ]] || fail "doctor gave nothing on $k"
    diff "$TMPDIR/da.json" "$TMPDIR/db.json" >&2 || fail "doctor differs after convert"
    n=$((n + 1))
fi
ort=$(ls "$LATSCOPE_TRACES"/ort/py/1.32.0/ort1.32.0_transformer_block_par_intra2_*.json 2>/dev/null | head -1 || true)
if [[ -n $ort ]]; then
    same "$ort"
    jq -e '.ranks[0].format == "ort" and (.ranks[0].ort | type) == "object"' "$TMPDIR/b.json" >/dev/null ||
        fail "the converted ORT profile lost its ORT section"
    n=$((n + 1))
fi
db=$LATSCOPE_TRACES/nsys/perlmutter-cloverleaf-cuda.sqlite
if [[ -e $db ]] && "$LATSCOPE" analyze "$db" >/dev/null 2>&1; then
    same "$db" '| del(.ranks[].format)' # nsys -> kineto: the format's name changes, not the numbers
    n=$((n + 1))
fi
for s in cpu-stacks/perf6.1_ort_transformer.perf-script.txt cpu-stacks/pyspy0.4.3_ort_transformer.speedscope.json \
    cpu-stacks/pyspy0.4.3_ort_transformer.raw.txt; do
    [[ -e $LATSCOPE_TRACES/$s ]] || continue
    same "$LATSCOPE_TRACES/$s" '| del(.ranks[].format)'
    jq -e '.ranks[0].cpu.samples > 0' "$TMPDIR/b.json" >/dev/null || fail "no CPU samples after converting $s"
    n=$((n + 1))
done
# a hand-made Kineto trace always (no corpus needed)
same "$LATSCOPE_SRCDIR/tests/data/$(ls "$LATSCOPE_SRCDIR/tests/data" | grep -m1 '^handmade.*\.json$')"

# stdout
"$LATSCOPE" convert "$LATSCOPE_SRCDIR/tests/data/$(ls "$LATSCOPE_SRCDIR/tests/data" | grep -m1 '^handmade.*\.json$')" -o - 2>/dev/null |
    jq -e '.traceEvents | length > 0' >/dev/null || fail "-o - is not a Kineto JSON on stdout"

# errors: the output is checked before the input is read (the input does not even exist here)
expect_rc 2 "$LATSCOPE" convert "$TMPDIR/does-not-exist.json" -o "$TMPDIR/no/such/dir/x.json"
contains "$TMPDIR/err" "cannot write there"
contains "$TMPDIR/err" "nothing was read"
expect_rc 2 "$LATSCOPE" convert "$TMPDIR/does-not-exist.json" -o "$TMPDIR"
contains "$TMPDIR/err" "is a directory"
expect_rc 2 "$LATSCOPE" convert in.json -o "$TMPDIR/x.txt"
contains "$TMPDIR/err" ".json or .json.gz"
expect_rc 2 "$LATSCOPE" convert in.json
contains "$TMPDIR/err" "no output given"
expect_rc 2 "$LATSCOPE" convert a.json b.json -o "$TMPDIR/x.json"
contains "$TMPDIR/err" "one input at a time"
printf '{"traceEvents": [' >"$TMPDIR/cut.json"
expect_rc 2 "$LATSCOPE" convert "$TMPDIR/cut.json" -o "$TMPDIR/out.json"
[[ ! -e $TMPDIR/out.json ]] || fail "a failed conversion left an output file"
h="$LATSCOPE_SRCDIR/tests/data/$(ls "$LATSCOPE_SRCDIR/tests/data" | grep -m1 '^handmade.*\.json$')"
if ! "$LATSCOPE" analyze --format json "$h" 2>/dev/null | jq -e '.ranks[0].cpu' >/dev/null; then
    expect_rc 2 "$LATSCOPE" convert "$h" -o "$TMPDIR/f.svg"
    contains "$TMPDIR/err" "no CPU samples"
    [[ ! -e $TMPDIR/f.svg ]] || fail "an empty flame graph was written"
fi
echo "t169: $n corpus round trips"
