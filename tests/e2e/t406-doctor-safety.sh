#!/usr/bin/env bash
# t406-doctor-safety: (1) the commands doctor prints are safe to paste: a kernel named
# x';id>/tmp/latscope-PWNED;' (tests/data/handmade-doctor-hostile.json) comes out quoted for
# POSIX sh; each next command parses with `sh -n` and, run with `ncu` replaced by a function
# that prints its arguments, passes the name as one regex argument and runs nothing; raw ESC and
# newlines in names never reach text or markdown output. (2) a write failure exits 2, not 1.
# (3) --threshold KEY=VALUE changes a threshold; an unknown key exits 2 listing the valid keys.
# (4) an input no rule applies to says so and exits 3, never "No significant finding".
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data
hostile=$data/handmade-doctor-hostile.json
pwned=/tmp/latscope-PWNED
rm -f "$pwned"

expect_rc 1 "$LATSCOPE" doctor --format json "$hostile"
python3 - "$TMPDIR/out" "$TMPDIR/cmds" <<'PY' || fail "next commands"
import json, sys
d = json.load(open(sys.argv[1]))
cmds = [f["next_step"] for f in d["findings"] if f["next_step"].startswith("ncu ")]
cmds += [r["ncu"] for f in d["findings"] for r in f["evidence"].get("kernels", []) if "ncu" in r]
assert len(cmds) >= 3, cmds
with open(sys.argv[2], "w") as o:
    for c in cmds:
        o.write(c.replace("<your command>", "true") + "\n")
PY
n=0
while IFS= read -r cmd; do
    sh -n -c "$cmd" || fail "does not parse: $cmd"
    # run it with ncu as a function that prints its arguments, one per line
    sh -c 'ncu() { for a; do printf "%s\n" "$a"; done; }; '"$cmd" >"$TMPDIR/args" 2>&1 || fail "failed: $cmd"
    # the name is one argument, the regex-escaped function name of one of the hostile kernels
    re=$(sed -n '2p' "$TMPDIR/args")
    [[ $(sed -n '1p' "$TMPDIR/args") == --kernel-name ]] || fail "argument 1 of: $cmd"
    [[ $re == "regex:x';id>/tmp/latscope-PWNED;'" || $re == 'regex:evil.\[31mred.line;\$' ]] ||
        { cat "$TMPDIR/args" >&2; fail "name not passed as one argument: $cmd"; }
    [[ $(grep -c '^regex:' "$TMPDIR/args") -eq 1 ]] || fail "regex split: $cmd"
    [[ ! -e $pwned ]] || fail "the printed command ran code: $cmd"
    n=$((n + 1))
done <"$TMPDIR/cmds"
[[ $n -ge 3 ]] || fail "only $n commands checked"

for fmt in text md; do
    expect_rc 1 "$LATSCOPE" doctor --format "$fmt" "$hostile"
    if grep -q $'\033' "$TMPDIR/out"; then fail "raw ESC in $fmt output"; fi
    if grep -q '^line;' "$TMPDIR/out"; then fail "raw newline from a kernel name in $fmt output"; fi
    contains "$TMPDIR/out" 'evil\x1b[31mred\nline'
done
# with colour forced on, the only ESC bytes are doctor's own SGR codes
"$LATSCOPE" doctor "$hostile" >/dev/null || true

# (2) write failures: exit 2 with a message, for stdout and -o.
set +e
"$LATSCOPE" doctor "$data/handmade-doctor-dataloader.json" >/dev/full 2>"$TMPDIR/err"
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "stdout on /dev/full exited $rc, want 2"
contains "$TMPDIR/err" "writing the report"
expect_rc 2 "$LATSCOPE" doctor -o /dev/full --format json "$data/handmade-doctor-dataloader.json"
contains "$TMPDIR/err" "No space left on device"
expect_rc 2 "$LATSCOPE" doctor -o "$TMPDIR/no/such/dir/r.txt" "$data/handmade-doctor-dataloader.json"
contains "$TMPDIR/err" "cannot write the report"
expect_rc 1 "$LATSCOPE" doctor -o "$TMPDIR/r.md" --format md "$data/handmade-doctor-dataloader.json"
[[ ! -s $TMPDIR/out ]] || fail "-o FILE also wrote to stdout"
contains "$TMPDIR/r.md" "### 1. \`dataloader\`"

# (3) thresholds: dataloader at 30 % of the step fires at the default 5 %, not at 40 %.
expect_rc 0 "$LATSCOPE" doctor --format json --threshold dataloader_pct=40 --fail-on never "$data/handmade-doctor-dataloader.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert "dataloader" not in [f["id"] for f in d["findings"]]; t=d["thresholds"]; assert t["dataloader_pct"]==40 and len(t)==34, t; assert {"small_copy_bytes","dtoh_sync_window_us","fp32_speedup","gpu_util_low_pct","mem_pressure","tail_min_steps"} <= set(t)' <"$TMPDIR/out" || fail "--threshold"
# docs/latscope-doctor.md's threshold table names every key
for k in $(python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["thresholds"]))' <"$TMPDIR/out"); do
    grep -qF "| \`$k\` |" "$LATSCOPE_SRCDIR/docs/latscope-doctor.md" || fail "threshold $k not in docs/latscope-doctor.md"
done
expect_rc 2 "$LATSCOPE" doctor --threshold no_such_key=1 "$data/handmade-doctor-dataloader.json"
contains "$TMPDIR/err" "unknown threshold 'no_such_key'"
contains "$TMPDIR/err" "valid threshold keys: host_idle_pct"
expect_rc 2 "$LATSCOPE" doctor --threshold launch_bound_share=7 "$data/handmade-doctor-dataloader.json"
contains "$TMPDIR/err" "outside [0, 1]"

# (4) an input the rules cannot read: not a clean bill, exit 3. (An ORT profile with model_run
# steps is judged by the CPU rules now, ingest/ort.c; one with no node event is not.)
printf '[{"ph":"X","cat":"Session","name":"session_initialization","pid":1,"tid":1,"ts":0,"dur":200},{"ph":"X","cat":"Session","name":"model_loading_uri","pid":1,"tid":1,"ts":300,"dur":100}]\n' >"$TMPDIR/ort.json"
expect_rc 3 "$LATSCOPE" doctor "$TMPDIR/ort.json"
contains "$TMPDIR/out" "No rule applies to this input (an ONNX Runtime profile"
if grep -q "No significant finding" "$TMPDIR/out"; then fail "clean bill for an input no rule applies to"; fi
expect_rc 3 "$LATSCOPE" doctor --format json --fail-on never "$TMPDIR/ort.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["verdict"]=="no rule applies", d["verdict"]; t=d["traces"][0]; assert t["judged"] is False and "ONNX Runtime" in t["what"], t' <"$TMPDIR/out" || fail "JSON verdict"
printf '{"traceEvents":[]}\n' >"$TMPDIR/empty.json"
expect_rc 3 "$LATSCOPE" doctor "$TMPDIR/empty.json"
contains "$TMPDIR/out" "No rule applies to this input"
# a judged trace next to an unjudged one: the findings decide (1); clean + unjudged is 3
expect_rc 1 "$LATSCOPE" doctor "$data/handmade-doctor-dataloader.json" "$TMPDIR/ort.json"
expect_rc 3 "$LATSCOPE" doctor "$data/handmade-doctor-clean.json" "$TMPDIR/ort.json"
contains "$TMPDIR/out" "1 of 2 traces got no rule that applies"
exit 0
