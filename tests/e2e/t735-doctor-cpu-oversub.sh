#!/usr/bin/env bash
# t735-doctor-cpu-oversub: cpu-oversubscription on the real PyTorch 2.15 CPU traces of
# $LATSCOPE_TRACES/torch-cpu (recorded on a loaded 2-core VM): the transformer's
# native_layer_norm/add_ on 8x128x256 take ~12 ms per call for ~2-3 MB, resnet18's relu_/add_ on
# 1x128x28x28 ~2-3 ms while the same ops on other shapes stream tens of GB/s. Each slow op row
# equals analyze's performance-model row (bytes per call, time per call) and streams under
# cpu_min_gbps; the saving is an estimate. Skips without the corpus.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
tc=${LATSCOPE_TRACES:-}/torch-cpu
[[ -d $tc/transformer && -d $tc/resnet18_b1 ]] || skip "no \$LATSCOPE_TRACES/torch-cpu"
for f in "$tc"/transformer/transformer_enc_b8_s128.pt.trace.json "$tc"/resnet18_b1/resnet18_b1.pt.trace.json; do
    set +e
    "$LATSCOPE" doctor --format json "$f" >"$TMPDIR/d.json" 2>"$TMPDIR/err"
    rc=$?
    set -e
    [[ $rc -eq 1 ]] || { cat "$TMPDIR/err" >&2; fail "$f: doctor exited $rc"; }
    expect_rc 0 "$LATSCOPE" analyze --format json --top 100000 "$f"
    cp "$TMPDIR/out" "$TMPDIR/a.json"
    python3 - "$TMPDIR/d.json" "$TMPDIR/a.json" <<'PY' || fail "$f"
import json, sys
d, a = (json.load(open(p)) for p in sys.argv[1:3])
f = [x for x in d["findings"] if x["id"] == "cpu-oversubscription"]
if not f:
    sys.exit("no cpu-oversubscription")
f = f[0]
lim = d["thresholds"]["cpu_min_gbps"] if "thresholds" in d else 1.0
pm = {(r["op"], r["shape"]): r for r in a["ranks"][0]["perf_model"]}
bad = []
for r in f["evidence"]["slow_ops"]:
    p = pm.get((r["op"], r["shape"]))
    if p is None:
        bad.append(f"{r['op']} {r['shape']}: not in analyze's performance model")
        continue
    if p["bytes"] != r["bytes_per_call"] or p["count"] != r["calls"]:
        bad.append(f"{r['op']}: bytes/calls {r['bytes_per_call']}/{r['calls']} vs {p['bytes']}/{p['count']}")
    if abs(p["time_us"] / p["count"] - r["us_per_call"]) > 0.002:
        bad.append(f"{r['op']}: {r['us_per_call']} us per call vs {p['time_us'] / p['count']}")
    if not (r["gb_per_s"] < lim and r["bytes_per_call"] >= 262144):
        bad.append(f"{r['op']}: {r['gb_per_s']} GB/s, {r['bytes_per_call']} B")
if f["saving_bound"] != "estimate":
    bad.append("saving_bound")
if bad: print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
done
echo "cpu-oversubscription on the transformer and resnet18 traces"
exit 0
