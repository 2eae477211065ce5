#!/usr/bin/env bash
# t161-ingest-inputs: analyze and doctor load their inputs the same way (src/cli-load.c,
# ingest_paths): a bad file in a directory is reported once and skipped by both and listed in
# their JSON "skipped"; a FIFO named *.json is skipped, never opened (no hang); the same file
# twice is loaded once; a named input that cannot be loaded exits 2 in both, with one path per
# message and no "//"; inputs latscope recognises but cannot read are named with what to do.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tr=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json
T() { timeout 30 "$LATSCOPE" "$@"; } # a blocking open of a FIFO would hang: fail instead

mkdir "$TMPDIR/rk"
cp "$tr" "$TMPDIR/rk/a.json"
echo 'not json' >"$TMPDIR/rk/b.json"
mkfifo "$TMPDIR/rk/c.json"
# both commands: exit 0, the same two warnings, the same JSON "skipped"
expect_rc 0 T analyze --format json "$TMPDIR/rk/"
cp "$TMPDIR/out" "$TMPDIR/a.json"
cp "$TMPDIR/err" "$TMPDIR/a.err"
expect_rc 0 T doctor --fail-on never --format json "$TMPDIR/rk/"
cp "$TMPDIR/out" "$TMPDIR/d.json"
sed 's/^latscope: doctor:/latscope: analyze:/' "$TMPDIR/err" >"$TMPDIR/d.err"
diff "$TMPDIR/a.err" "$TMPDIR/d.err" >&2 || fail "analyze and doctor report a directory differently"
contains "$TMPDIR/a.err" "warning: $TMPDIR/rk/b.json: JSON byte 1: expected 'null'; skipped"
contains "$TMPDIR/a.err" "warning: $TMPDIR/rk/c.json: not a regular file (a FIFO), not opened; skipped"
[[ $(grep -c 'rk/b.json' "$TMPDIR/a.err") == 1 ]] || fail "b.json reported more than once"
! grep -q '//' "$TMPDIR/a.err" "$TMPDIR/a.json" "$TMPDIR/d.json" || fail "a path with //"
for j in a d; do
    [[ $(jq -c '[.skipped[] | [(.path | sub(".*/"; "")), .status]]' "$TMPDIR/$j.json") == \
        '[["b.json","error"],["c.json","not-a-file"]]' ]] || fail "$j: skipped $(jq -c .skipped "$TMPDIR/$j.json")"
done
jq -e '.skipped[0].reason == "JSON byte 1: expected '"'null'"'"' "$TMPDIR/a.json" >/dev/null || fail "reason"
[[ $(jq '.ranks | length' "$TMPDIR/a.json") == 1 ]] || fail "analyze: ranks"
[[ $(jq '.traces | length' "$TMPDIR/d.json") == 1 ]] || fail "doctor: traces"

# the same file named and inside a named directory: loaded once, by both
expect_rc 0 T analyze --format json "$TMPDIR/rk/a.json" "$TMPDIR/rk"
[[ $(jq '.ranks | length' "$TMPDIR/out") == 1 ]] || fail "analyze loaded a file twice"
contains "$TMPDIR/err" "the same file as $TMPDIR/rk/a.json"
expect_rc 0 T doctor --fail-on never --format json "$TMPDIR/rk/a.json" "$TMPDIR/rk"
[[ $(jq '.traces | length' "$TMPDIR/out") == 1 ]] || fail "doctor loaded a file twice"
[[ $(jq -r '.skipped[0].status' "$TMPDIR/out") == same-file ]] || fail "doctor: same-file not listed"

# nothing loadable, or a named input that cannot be loaded: exit 2 in both, nothing on stdout
mkdir "$TMPDIR/bad"
echo '{' >"$TMPDIR/bad/x.json"
for cmd in analyze doctor; do
    expect_rc 2 T $cmd "$TMPDIR/bad"
    contains "$TMPDIR/err" "no trace could be loaded (1 file skipped)"
    [[ ! -s $TMPDIR/out ]] || fail "$cmd: stdout on error"
    expect_rc 2 T $cmd "$TMPDIR/nope.json"
    [[ $(grep -o 'nope.json' "$TMPDIR/err" | wc -l) == 1 ]] || fail "$cmd: path twice: $(cat "$TMPDIR/err")"
    expect_rc 2 T $cmd "$TMPDIR/rk/b.json"
    contains "$TMPDIR/err" "error: $TMPDIR/rk/b.json: JSON byte 1"
    mkdir -p "$TMPDIR/empty"
    expect_rc 2 T $cmd "$TMPDIR/empty/"
    contains "$TMPDIR/err" "$TMPDIR/empty/: no *.json or *.json.gz trace file"
done

# recognised but not readable: the error names the format and what to do (both commands)
f=$TMPDIR/fmt
mkdir "$f"
printf 'SQLite format 3\0rest of the header' >"$f/prof.sqlite"
gzip -c "$f/prof.sqlite" >"$f/prof.sqlite.gz"
printf '\x0a\x05hello\x12\x00' >"$f/host.xplane.pb"
printf 'binary' >"$f/run.nsys-rep"
printf '\x08\x07\x12\x04onnx' >"$f/model.onnx"
printf 'Start (ns),End (ns),Name\n1,2,main\n' >"$f/report.csv"
printf 'Start,End,Name\n1,2,main\n' >"$f/plain.csv"
printf 'python  3231  1228.318493:    2004008 cpu-clock: \n\t           fe521 [unknown] (/usr/bin/python3.11)\n\n' >"$f/perf.txt"
printf '{"$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}' >"$f/ss.json"
printf '[\n  { "count" : 1 }\n, { "name" : "Conv_0", "timeMs" : 0.5 }\n]\n' >"$f/trt.json"
check() { # FILE TEXT...
    local file=$1; shift
    for cmd in analyze doctor; do
        expect_rc 2 T $cmd "$file"
        for want in "$@"; do contains "$TMPDIR/err" "$want"; done
        [[ $(grep -o "$(basename "$file")" "$TMPDIR/err" | wc -l) == 1 ]] || fail "path twice: $(cat "$TMPDIR/err")"
    done
}
check "$f/prof.sqlite" "an SQLite database that SQLite cannot read" "nsys export --type sqlite"
check "$f/prof.sqlite.gz" "gzip of an SQLite database"
check "$f/host.xplane.pb" "not a valid TensorFlow .xplane.pb" "tf.profiler wrote" # read by xplane.c (t165)
check "$f/run.nsys-rep" "an Nsight Systems report" "run \`nsys export --type sqlite FILE\`"
check "$f/model.onnx" "an ONNX model, not a profile" "enable_profiling"
check "$f/report.csv" "an \`nsys stats\` CSV report (of an unknown kind) that latscope does not read" "nsys export --type sqlite"
check "$f/plain.csv" "CSV text"
# CPU stack files are read since issue 15 (t166-t169): a bad one is named with what is wrong
expect_rc 0 T analyze "$f/perf.txt"
contains "$TMPDIR/out" "CPU samples: 1 on-CPU"
check "$f/ss.json" "a speedscope profile" "no \"profiles\""
# a trtexec profile row without its times: the TensorRT reader says what is missing
check "$f/trt.json" "trtexec --exportProfile file: layer \"Conv_0\" has no numeric timeMs and averageMs"
# the same from the corpus, when present
S=$LATSCOPE_TRACES
if [[ -f $S/nsys/nbody-nvtx_trace.csv ]]; then # read since issue 16 (src/ingest/nsys-csv.c; t187)
    expect_rc 0 T analyze --format json "$S/nsys/nbody-nvtx_trace.csv"
    contains "$TMPDIR/out" '"format":"nsys-stats"'
fi
p=$S/trt/trex/examples/pytorch/resnet/A100/fp32/resnet.onnx.engine.profile.json
if [[ -f $p ]]; then # read since issue 16 (src/ingest/trt.c; t170-t172)
    expect_rc 0 T analyze --format json "$p"
    contains "$TMPDIR/out" '"format":"tensorrt"'
fi
# a bad file in a directory is skipped with the same reason
cp "$f/prof.sqlite" "$TMPDIR/rk/z.json"
expect_rc 0 T analyze --format json "$TMPDIR/rk"
jq -e '.skipped[] | select(.path | endswith("z.json")) | .reason | startswith("an SQLite database")' "$TMPDIR/out" >/dev/null || fail "sqlite in a directory"
exit 0
