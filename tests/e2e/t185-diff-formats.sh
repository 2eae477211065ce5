#!/usr/bin/env bash
# t185-diff-formats: `latscope diff` loads its trace inputs through the same ingest as analyze
# (the formats table of src/ingest/ingest.c, lat_load_traces), so non-JSON traces are compared:
# hand-made before/after pairs of `perf script` text (with perf's "# ..." --header lines, which
# the bench-result sniff took for an HDR log) and of collapsed stacks, whose share changes are
# known by construction; a TensorFlow profile directory; the shared ORT pair (model_run after
# the first run, checked against the raw JSON by python3). A trace against a bench result stays
# a usage error.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
T() { timeout 60 "$LATSCOPE" "$@"; }
command -v python3 >/dev/null || skip "python3 not installed"

# perf_script FILE NA NB: hand-made `perf script` text, NA samples in funcA, NB in funcB (both
# called from main), 2 ms apart, with the --header lines perf writes first
perf_script() {
    local out=$1 na=$2 nb=$3 i t=1000
    {
        echo "# ========"
        echo "# captured on    : Tue Dec  1 10:00:00 2026"
        echo "# ========"
        echo "#"
        for ((i = 0; i < na + nb; i++)); do
            t=$((t + 2))
            printf 'prog  4242  %d.%06d:    2000000 cpu-clock: \n' $((t / 1000)) $(((t % 1000) * 1000))
            if ((i < na)); then
                printf '\t          401000 funcA+0x10 (/opt/app/prog)\n'
            else
                printf '\t          402000 funcB+0x20 (/opt/app/prog)\n'
            fi
            printf '\t          403000 main+0x30 (/opt/app/prog)\n\n'
        done
    } >"$out"
}
perf_script "$TMPDIR/handmade-before.perf-script.txt" 60 40
perf_script "$TMPDIR/handmade-after.perf-script.txt" 20 80
printf 'main;funcA 60\nmain;funcB 40\n' >"$TMPDIR/handmade-before.folded"
printf 'main;funcA 20\nmain;funcB 80\n' >"$TMPDIR/handmade-after.folded"

check_cpu() { # JSON: funcB 40 % -> 80 %, funcA 60 % -> 20 % of the samples, main unchanged
    python3 - "$1" <<'PY' || fail "diff of CPU samples (above)"
import json, sys
d = json.load(open(sys.argv[1])); bad = []
if (d["cpu_samples_before"], d["cpu_samples_after"]) != (100, 100):
    bad.append("samples %s %s" % (d["cpu_samples_before"], d["cpu_samples_after"]))
f = {r["function"]: r for r in d["cpu_functions"]}
want = {"funcA": (60, 20, "smaller share"), "funcB": (40, 80, "larger share"), "main": (100, 100, None)}
for fn, (b, a, verdict) in want.items():
    r = f.get(fn)
    if not r: bad.append("no row for %s: %s" % (fn, list(f))); continue
    if abs(r["total_pct_before"] - b) > 1e-6 or abs(r["total_pct_after"] - a) > 1e-6:
        bad.append("%s: %s -> %s, want %s -> %s" % (fn, r["total_pct_before"], r["total_pct_after"], b, a))
    lo, hi = r["ci_total_pct_points"] if r["ci_total_pct_points"] else (None, None)
    if verdict and (r["verdict"] != verdict or not (lo < a - b < hi) or lo * hi <= 0):
        bad.append("%s: verdict %s, CI %s" % (fn, r["verdict"], r["ci_total_pct_points"]))
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
}

# 1. perf script text (it starts with '#': not an HDR log)
expect_rc 0 T diff --format json "$TMPDIR/handmade-before.perf-script.txt" "$TMPDIR/handmade-after.perf-script.txt"
check_cpu "$TMPDIR/out"
expect_rc 0 T diff "$TMPDIR/handmade-before.perf-script.txt" "$TMPDIR/handmade-after.perf-script.txt"
contains "$TMPDIR/out" "CPU samples: 100 before, 100 after"
grep -q "^  funcB .*larger share" "$TMPDIR/out" || fail "text: funcB not a larger share"
# 2. collapsed stacks: the same samples, the same changes
expect_rc 0 T diff --format json "$TMPDIR/handmade-before.folded" "$TMPDIR/handmade-after.folded"
check_cpu "$TMPDIR/out"
# and across the two formats (the same functions by name)
expect_rc 0 T diff --format json "$TMPDIR/handmade-before.perf-script.txt" "$TMPDIR/handmade-after.folded"
check_cpu "$TMPDIR/out"

# 3. a trace against a bench result: still a usage error naming both
printf '{"target": "http", "points": []}\n' >"$TMPDIR/bench.json"
expect_rc 2 T diff "$TMPDIR/handmade-before.perf-script.txt" "$TMPDIR/bench.json"
contains "$TMPDIR/err" "is a trace"

# 4. the shared ORT pair: model_run after the first run, per side, as the raw JSON has it
ort=$LATSCOPE_TRACES/ort/generated
if [[ -e $ort/ort1.30.0_cpu_tiny_cnn_intra1.json ]]; then
    a=$ort/ort1.30.0_cpu_tiny_cnn_intra1.json b=$ort/ort1.30.0_cpu_tiny_cnn_intra2.json
    expect_rc 0 T diff --format json "$a" "$b"
    python3 - "$TMPDIR/out" "$a" "$b" <<'PY' || fail "diff of two ORT profiles (above)"
import json, sys
d = json.load(open(sys.argv[1])); bad = []
def runs(p):
    r = sorted((e["ts"], e["dur"]) for e in json.load(open(p)) if e.get("cat") == "Session" and e["name"] == "model_run")
    x = [u for _, u in r[1:]]
    return sum(x) / len(x)
row = [r for r in d["rows"] if r["metric"] == "ort.run_us"]
if len(row) != 1: bad.append("no ort.run_us row: %s" % [r["metric"] for r in d["rows"]])
else:
    for side, p in (("before", sys.argv[2]), ("after", sys.argv[3])):
        if abs(row[0][side] - runs(p)) > 1e-3: bad.append("%s %s, raw %s" % (side, row[0][side], runs(p)))
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
fi

# 5. a TensorFlow profile directory per side (the latest run of each)
tf=$LATSCOPE_TRACES/tf/tiny_cnn_tf2.21.0/vm.xplane.pb
if [[ -e $tf ]]; then
    for s in before after; do
        mkdir -p "$TMPDIR/$s/plugins/profile/2026_12_01_10_00_00"
        cp "$tf" "$TMPDIR/$s/plugins/profile/2026_12_01_10_00_00/host.xplane.pb"
    done
    expect_rc 0 T diff --format json "$TMPDIR/before" "$TMPDIR/after"
    python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert (d['steps_before'], d['steps_after']) == (7, 7), (d['steps_before'], d['steps_after'])
assert d['ops'] and all(o['diff_duration_us'] == 0 and o['status'] == 'unchanged' for o in d['ops']), d['ops'][:2]
" "$TMPDIR/out" || fail "diff of two TF profile directories"
    contains "$TMPDIR/err" "TensorFlow profile"
fi
echo ok
