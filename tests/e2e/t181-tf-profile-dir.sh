#!/usr/bin/env bash
# t181-tf-profile-dir: a TensorFlow/TensorBoard profile directory as TF lays it out
# (LOGDIR/plugins/profile/RUN/HOST.xplane.pb, older TF also HOST.trace.json.gz), built in
# $TMPDIR from copies of the shared TF 2.21 sample: LOGDIR, LOGDIR/plugins/profile and one RUN
# load the latest run with a profile, every host as one process, a HOST.trace.json.gz next to
# its HOST.xplane.pb not read twice; the run and why are said (stderr note, JSON input_notes).
# Event counts are checked against an independent protobuf walk of the .xplane.pb (python3).
# Empty runs and run directories are errors that say what TF writes when.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
command -v python3 >/dev/null || skip "python3 not installed"
dir=$(need_trace tf/tiny_cnn_tf2.21.0)
T() { timeout 60 "$LATSCOPE" "$@"; }
pb=$dir/vm.xplane.pb
js=$dir/tf2.21.0_tiny_cnn.trace_viewer_at.json

log=$TMPDIR/logdir
prof=$log/plugins/profile
old=$prof/2026_11_30_09_00_00
run=$prof/2026_12_01_10_00_00
empty=$prof/2026_12_01_11_00_00 # newest, no profile file (a process that did not stop())
mkdir -p "$old" "$run" "$empty"
cp "$pb" "$old/oldhost.xplane.pb"
cp "$pb" "$run/hosta.xplane.pb"
cp "$pb" "$run/hostb.xplane.pb"
gzip -c "$js" >"$run/hosta.trace.json.gz" # its twin: not read
echo '{}' | gzip >"$run/hosta.memory_profile.json.gz" # other TF tool files (TF 2.2-2.4): not traces
printf '\010\001' >"$run/hosta.overview_page.pb"

# 1. the XEvents of the file, counted by an independent protobuf walk
want=$(python3 - "$pb" <<'PY'
import sys
def varint(b, i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
def fields(b):
    i = 0
    while i < len(b):
        k, i = varint(b, i); num, wt = k >> 3, k & 7
        if wt == 0: v, i = varint(b, i)
        elif wt == 1: v = b[i:i + 8]; i += 8
        elif wt == 5: v = b[i:i + 4]; i += 4
        elif wt == 2: n, i = varint(b, i); v = b[i:i + n]; i += n
        else: raise SystemExit("wire type %d" % wt)
        yield num, v
n = 0
for f, plane in fields(open(sys.argv[1], "rb").read()):          # XSpace.planes = 1
    if f != 1: continue
    for f2, line in fields(plane):                                # XPlane.lines = 3
        if f2 != 3: continue
        for f3, ev in fields(line):                               # XLine.events = 4
            if f3 == 4 and not any(f4 == 5 for f4, _ in fields(ev)):  # not an aggregate
                n += 1
print(n)
PY
)
[[ $want -gt 0 ]] || fail "the protobuf walk found no event"

check() { # check JSON WANT_RUN NHOSTS
    python3 - "$1" "$2" "$3" "$want" <<'PY' || fail "analyze of a TF profile directory (above)"
import json, os, sys
d = json.load(open(sys.argv[1])); run, nh, want = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
bad = []
paths = [r["path"] for r in d["ranks"]]
if len(paths) != nh: bad.append("%d traces, want %d: %s" % (len(paths), nh, paths))
for r in d["ranks"]:
    if os.path.dirname(r["path"]) != run: bad.append("%s is not in run %s" % (r["path"], run))
    if r["format"] != "xplane": bad.append("%s read as %s" % (r["path"], r["format"]))
    if r["events"] != want: bad.append("%s: %d events, the file has %d" % (r["path"], r["events"], want))
    if r["tensorflow"]["steps"] != 7: bad.append("steps %s" % r["tensorflow"]["steps"])
notes = d.get("input_notes") or []
if not any(os.path.basename(run) in n for n in notes): bad.append("no note names the run: %s" % notes)
if d["skipped"]: bad.append("skipped: %s" % d["skipped"])
bad and print("\n".join(bad)); sys.exit(1 if bad else 0)
PY
}

# 2. LOGDIR: the latest run with a profile (the newest run is empty: skipped and said)
expect_rc 0 T analyze --format json "$log"
check "$TMPDIR/out" "$run" 2
contains "$TMPDIR/err" "note: $log: TensorFlow profile run 2026_12_01_10_00_00, the latest of 3"
contains "$TMPDIR/err" "1 newer run without a *.xplane.pb skipped"
contains "$TMPDIR/err" "2 hosts (hosta, hostb): one process each"
contains "$TMPDIR/err" "1 HOST.trace.json.gz not read"
grep -q "latest by name" "$TMPDIR/err" || fail "the note does not say why this run"
# LOGDIR/plugins/profile (with a trailing slash) and the run itself: the same traces
expect_rc 0 T analyze --format json "$prof/"
check "$TMPDIR/out" "$run" 2
expect_rc 0 T analyze --format json "$run"
check "$TMPDIR/out" "$run" 2
# an older run, named: that one
expect_rc 0 T analyze --format json "$old"
check "$TMPDIR/out" "$old" 1
# text: both hosts are reports of their own
expect_rc 0 T analyze "$log"
[[ $(grep -c '^== .*hosta.xplane.pb\|^== .*hostb.xplane.pb' "$TMPDIR/out") -eq 2 ]] ||
    fail "text report lacks a host"
grep -q "trace.json.gz" "$TMPDIR/out" && fail "the twin trace.json.gz was analysed too"

# 3. a run of an older TF: only HOST.trace.json.gz (the trace_viewer JSON), read as TF
tj=$TMPDIR/oldtf/plugins/profile/2021_01_01_00_00_00
mkdir -p "$tj"
gzip -c "$js" >"$tj/host.trace.json.gz"
expect_rc 0 T analyze --format json "$TMPDIR/oldtf"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); r=d['ranks']
assert len(r)==1 and r[0]['format']=='tf-trace-viewer' and r[0]['tensorflow']['steps']==7, r[0]['format']
" "$TMPDIR/out" || fail "an old TF run's trace.json.gz"

# 4. run names that are not TF times: the newest by modification time, said so
mt=$TMPDIR/named/plugins/profile
mkdir -p "$mt/zzz-first" "$mt/aaa-second"
cp "$pb" "$mt/zzz-first/h1.xplane.pb"
cp "$pb" "$mt/aaa-second/h2.xplane.pb"
touch -d '2020-01-01 00:00' "$mt/zzz-first"
touch -d '2021-01-01 00:00' "$mt/aaa-second"
expect_rc 0 T analyze --format json "$TMPDIR/named"
check "$TMPDIR/out" "$mt/aaa-second" 1
contains "$TMPDIR/err" "latest by modification time"

# 5. doctor reads the same run, and says so
set +e; T doctor "$log" >"$TMPDIR/out" 2>"$TMPDIR/err"; rc=$?; set -e
[[ $rc -le 1 ]] || { cat "$TMPDIR/err"; fail "doctor on a TF profile directory exited $rc"; }
contains "$TMPDIR/err" "TensorFlow profile run 2026_12_01_10_00_00"
contains "$TMPDIR/out" "hosta.xplane.pb"

# 6. errors: an empty run, runs none of which has a profile, a profile dir without runs
expect_rc 2 T analyze "$empty"
contains "$TMPDIR/err" "a TensorFlow profile run without a *.xplane.pb"
contains "$TMPDIR/err" "tf.profiler.experimental.stop()"
[[ ! -s $TMPDIR/out ]] || fail "stdout not empty on an error"
mkdir -p "$TMPDIR/none/plugins/profile/2026_01_01_00_00_00" "$TMPDIR/none/plugins/profile/2026_01_02_00_00_00"
expect_rc 2 T analyze "$TMPDIR/none"
contains "$TMPDIR/err" "2 TensorFlow profile runs, none with a *.xplane.pb"
mkdir -p "$TMPDIR/noruns/plugins/profile"
expect_rc 2 T doctor "$TMPDIR/noruns"
contains "$TMPDIR/err" "a TensorFlow profile directory without a run"
# a truncated host file in the run: skipped with the reader's reason, the other host analysed
cp -r "$run" "$prof/2026_12_01_10_30_00"
head -c 5000 "$pb" >"$prof/2026_12_01_10_30_00/hostb.xplane.pb"
expect_rc 0 T analyze --format json "$log"
python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert len(d['ranks'])==1 and d['ranks'][0]['path'].endswith('10_30_00/hosta.xplane.pb'), d['ranks']
assert len(d['skipped'])==1 and 'not a valid TensorFlow .xplane.pb' in d['skipped'][0]['reason'], d['skipped']
" "$TMPDIR/out" || fail "a truncated host file"
contains "$TMPDIR/err" "hostb.xplane.pb: not a valid TensorFlow .xplane.pb"
echo ok
