#!/usr/bin/env bash
# exclusive: shares of CPU samples need the CPUs to itself (as t840)
# timeout: 600
# truth: downloads fastapi, uvicorn, onnxruntime, onnx and numpy from PyPI (~80 MB), once into ~/.cache/latscope/venv-ort-server
# t841: bench --server-pid (issue 34) on a real Python inference server: FastAPI + uvicorn +
# onnxruntime (tests/progs/ort_srvprof_server.py, a seeded MLP), where 1 request in 10 is
# padded to a batch of 256 rows by a Python loop (pad_batch) before the model runs on the
# batch. The slow-vs-fast table gives py:pad_batch a significantly larger share; doctor's
# slow-request-code finding names the server's own code (pad_batch, or the handler or model
# call above it when the samples' Python frames came late), never a FastAPI/Starlette/uvicorn
# frame that gains as much share only because it calls the handler; the report shows the card.
# The server's own timers (thread CPU time of the handler, pad_batch and the ORT call) are
# printed beside the shares.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/lib-cpu.sh"
need_cpu
py=$("$SRC/tests/tools/pip-venv.sh" ort-server 'fastapi,uvicorn,onnxruntime,onnx,numpy' \
    fastapi uvicorn onnxruntime onnx numpy) || skip "$py"
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[[ $ver == 3.11 || $ver == 3.12 || $ver == 3.13 ]] || skip "the venv's python is $ver, not 3.11-3.13 (the sampler's Python frames)"

"$py" "$SRC/tests/progs/ort_srvprof_server.py" "$TMPDIR/port" "$TMPDIR/server.log" 256 2>"$TMPDIR/server.err" &
SP=$!
trap 'kill $SP 2>/dev/null; wait 2>/dev/null' EXIT
for _ in $(seq 300); do [[ -s $TMPDIR/port ]] && break; sleep 0.1; done
[[ -s $TMPDIR/port ]] || fail "the ORT server did not start: $(tail -5 "$TMPDIR/server.err")"
URL=http://127.0.0.1:$(cat "$TMPDIR/port")/predict
"$py" -c 'import json; print(json.dumps({"input": [[0.5] * 256]}))' >"$TMPDIR/body.json"

expect_rc 0 "$LATSCOPE" bench "$URL" -d @"$TMPDIR/body.json" -H 'Content-Type: application/json' \
    -n 2000 -c 1 -t 1 --max-client-gap 200 --server-pid $SP --server-slow p90 --format json
cp "$TMPDIR/out" "$TMPDIR/res.json"
check_py "$TMPDIR/res.json" '
sp = d["server_profile"]
assert sp["comparison"] == "ok", sp["comparison"]
f = {x["name"].split(" (")[0]: x for x in sp["functions"]}
log = [list(map(int, l.split())) for l in open("'"$TMPDIR"'/server.log")]
slow = [r for r in log if r[1]]
print("server timers, padded requests: handler %.2f ms CPU, pad_batch %.2f ms, ORT %.2f ms (%d requests)" % (
    sum(r[2] for r in slow) / len(slow) / 1e6, sum(r[3] for r in slow) / len(slow) / 1e6,
    sum(r[4] for r in slow) / len(slow) / 1e6, len(slow)))
for k in ("py:pad_batch", "py:predict", "py:infer"):
    if k in f:
        x = f[k]
        print("%s: fast %.1f %%, slow %.1f %%, change %+.1f [%+.1f, %+.1f]" % (k, x["total_pct_fast"],
              x["total_pct_slow"], x["change_pct_points"], x["ci_lo_pct_points"], x["ci_hi_pct_points"]))
assert sp["slow"]["requests"] >= 150, sp["slow"]
assert "py:pad_batch" in f or "py:predict" in f, list(f)[:10]
k = "py:pad_batch" if "py:pad_batch" in f else "py:predict"
assert f[k]["verdict"] == "larger share", f[k]'

# (exit 1: findings at severity low or above)
expect_rc 1 "$LATSCOPE" doctor --format json "$TMPDIR/res.json"
check_py "$TMPDIR/out" '
fs = [f for f in d["findings"] if f["id"] == "slow-request-code"]
assert len(fs) == 1, [f["id"] for f in d["findings"]]
fn = fs[0]["evidence"]["function"]
print("doctor:", fs[0]["title"])
assert fn.split(" (")[0] in ("py:pad_batch", "py:predict", "py:infer", "py:Session.run"), fn
assert "ort_srvprof_server.py" in fn or "onnxruntime" in fn, fn'

expect_rc 0 "$LATSCOPE" report "$TMPDIR/res.json" -o "$TMPDIR/r.html"
contains "$TMPDIR/r.html" '"server_profile"'
echo ok
