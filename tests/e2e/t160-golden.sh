#!/usr/bin/env bash
# t160-golden: whole outputs of `analyze` and `doctor` (text, JSON, markdown; stdout, stderr and
# exit status) on the hand-made traces of tests/data and a few corpus traces, compared with the
# golden files in tests/e2e/expected/. Any changed, added or dropped line or JSON key fails and
# the unified diff is printed. Outputs are normalised first (tests/e2e/golden-norm.sh: source and
# corpus paths, the version, timing lines).
#
# Update mode: LATSCOPE_UPDATE_GOLDEN=1 rewrites the golden files from the current binary (corpus
# goldens only when the corpus is present); review the diff with `git diff tests/e2e/expected`
# before committing: a golden change is a change of what latscope prints.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
exp=$LATSCOPE_SRCDIR/tests/e2e/expected
norm=$LATSCOPE_SRCDIR/tests/e2e/golden-norm.sh
update=${LATSCOPE_UPDATE_GOLDEN:-0}
mkdir -p "$exp"

# Corpus traces (relative to $LATSCOPE_TRACES): small, but each exercises a different path.
# NAME=PATH, PATH relative to $LATSCOPE_TRACES: small, but each exercises a different path.
corpus=(
    inference_rank_1=hta/tests/data/trace_file_list/inference_rank_1.json.gz # 2022 categories
    amd_mi250=hta/tests/data/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz # ROCm names
    triton=hta/tests/data/triton_example/triton_example.json.gz # Triton, driver-API launches
    cpu_only=hta/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz # no GPU
    event_sync=hta/tests/data/critical_path/cuda_event_sync/event_sync_trace.json.gz # syncs
    ns_resolution=hta/tests/data/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz
    trace_filter_dir=hta/tests/data/trace_filter # a directory of 2 ranks
    ort_tiny_cnn=ort/generated/ort1.30.0_cpu_tiny_cnn_intra1.json # ONNX Runtime profile
    torch_cpu_2threads=torch-cpu/threads/mnv3_2threads.pt.trace.json # CPU-only PyTorch
    trt_resnet_fp16=trt/trex/examples/pytorch/resnet/A100/fp16 # TensorRT: one TREx engine (a directory)
    trt_log=trt/superbench/tensorrt_inference.2.log # TensorRT: a trtexec 8.6 log
    tf_xplane=tf/tiny_cnn_tf2.21.0/vm.xplane.pb # TensorFlow .xplane.pb (protobuf)
    tf_trace_viewer=tf/tiny_cnn_tf2.21.0/tf2.21.0_tiny_cnn.trace_viewer_at.json # TF's Chrome JSON
)

n=0 bad=0 skipped=0
declare -A seen=()
# one NAME ARGS...: runs latscope ARGS, compares (or writes) expected/NAME.
one() {
    local name=$1; shift
    seen[$name]=1
    n=$((n + 1))
    local got=$TMPDIR/got.$name
    set +e
    "$LATSCOPE" "$@" >"$TMPDIR/o" 2>"$TMPDIR/e"
    local rc=$?
    set -e
    {
        cat "$TMPDIR/o"
        echo "--- stderr"
        cat "$TMPDIR/e"
        echo "--- exit $rc"
    } | bash "$norm" >"$got"
    if [[ $update == 1 ]]; then
        cp "$got" "$exp/$name"
        return
    fi
    if [[ ! -f $exp/$name ]]; then
        echo "FAIL $name: no golden file (run with LATSCOPE_UPDATE_GOLDEN=1 to create it)" >&2
        bad=$((bad + 1))
    elif ! diff -u --label "expected/$name" --label "got: latscope $*" "$exp/$name" "$got" >&2; then
        bad=$((bad + 1))
    fi
}

# every output of both commands on one input; NAME is the golden prefix
all_outputs() {
    local name=$1 in=$2
    one "$name.analyze.txt" analyze "$in"
    one "$name.analyze.json" analyze --format json --pretty "$in"
    one "$name.doctor.txt" doctor --fail-on never "$in"
    one "$name.doctor.json" doctor --fail-on never --format json "$in"
    one "$name.doctor.md" doctor --fail-on never --format md "$in"
}

for f in "$LATSCOPE_SRCDIR"/tests/data/*.json; do
    all_outputs "data-$(basename "$f" .json)" "$f"
done
# compact JSON (one line), and options that change what is printed
basic=$LATSCOPE_SRCDIR/tests/data/handmade-analyze-basic.json
one data-handmade-analyze-basic.analyze-compact.json analyze --format json "$basic"
one data-handmade-analyze-basic.analyze-opts.txt analyze --include-last-step --top 1 --hta-compat "$basic"
one data-handmade-analyze-basic.doctor-failon.txt doctor "$basic"
# two files given one by one are two ranks
one data-two-ranks.analyze.txt analyze "$basic" "$LATSCOPE_SRCDIR/tests/data/handmade-kineto-current.json"
# errors: a missing file, a file that is not a trace
one err-missing.analyze.txt analyze "$TMPDIR/no-such.json"
one err-missing.doctor.txt doctor "$TMPDIR/no-such.json"
printf '{"traceEvents": [' >"$TMPDIR/trunc.json"
one err-truncated.analyze.txt analyze "$TMPDIR/trunc.json"
one err-truncated.doctor.txt doctor "$TMPDIR/trunc.json"
# a directory with one good and one bad rank file, named with a trailing slash
mkdir -p "$TMPDIR/rk"
cp "$basic" "$TMPDIR/rk/a.json"
echo 'not json' >"$TMPDIR/rk/b.json"
one err-dir-bad-file.analyze.txt analyze "$TMPDIR/rk/"
one err-dir-bad-file.analyze.json analyze --format json --pretty "$TMPDIR/rk/"
one err-dir-bad-file.doctor.txt doctor "$TMPDIR/rk/"
one err-dir-bad-file.doctor.json doctor --format json "$TMPDIR/rk/"
# recognised but unreadable formats are named
printf 'SQLite format 3\0rest' >"$TMPDIR/prof.sqlite"
one err-sqlite.analyze.txt analyze "$TMPDIR/prof.sqlite"
one err-sqlite.doctor.txt doctor "$TMPDIR/prof.sqlite"
# -v adds the timing line (its seconds are normalised)
one data-handmade-analyze-basic.analyze-verbose.txt -v analyze "$basic"

for c in "${corpus[@]}"; do
    name=corpus-${c%%=*} rel=${c#*=}
    if [[ ! -e $LATSCOPE_TRACES/$rel ]]; then
        skipped=$((skipped + 1))
        for g in "$exp/$name".*; do [[ -e $g ]] && seen[$(basename "$g")]=1; done
        continue
    fi
    all_outputs "$name" "$LATSCOPE_TRACES/$rel"
done

# a golden file that no case produces any more is a dropped output
for g in "$exp"/*; do
    [[ -e $g ]] || continue
    b=$(basename "$g")
    [[ -n ${seen[$b]:-} ]] && continue
    if [[ $update == 1 ]]; then
        rm -f "$g"
    else
        echo "FAIL $b: golden file without a case (dropped output?)" >&2
        bad=$((bad + 1))
    fi
done

if [[ $update == 1 ]]; then
    echo "updated $n golden files in tests/e2e/expected ($skipped corpus traces absent)"
    exit 0
fi
((bad == 0)) || fail "$bad of $n outputs differ from tests/e2e/expected (diff above; LATSCOPE_UPDATE_GOLDEN=1 rewrites them)"
echo "$n outputs identical to the goldens ($skipped corpus traces absent, skipped)"
