#!/usr/bin/env bash
# t183-perfmodel: the performance model in analyze (JSON perf_model, text section) and doctor's
# below-peak rule, on the hand-made traces (numbers worked out in
# tests/data/gen-handmade-perfmodel.py) and on TraceLens' real H100 bert-small trace (call count
# and kernel time of TraceLens' own GEMM.csv reference row).
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
data=$LATSCOPE_SRCDIR/tests/data

expect_rc 0 "$LATSCOPE" analyze --format json "$data/handmade-perfmodel-fires.json"
python3 - "$TMPDIR/out" <<'PY' || fail "perf_model JSON (fires)"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
rows = {x["op"]: x for x in r["perf_model"]}
assert r["perf_model_total"] == 2 and r["perf_model_instances"] == 6, r["perf_model_total"]
mm = rows["aten::mm"]
assert (mm["m"], mm["n"], mm["k"], mm["count"]) == (2000, 2050, 4096, 3), mm
assert mm["flops"] == 2 * 2000 * 2050 * 4096, mm["flops"]
assert mm["bytes"] == (2000 * 4096 + 4096 * 2050 + 2000 * 2050) * 2, mm["bytes"]
assert mm["time_us"] == 900 and mm["gpu_time"] is True, mm
tf = 3 * 2 * 2000 * 2050 * 4096 / 900e-6 / 1e12
assert abs(mm["tflops"] - tf) < 1e-5, (mm["tflops"], tf)
assert mm["device"] == "NVIDIA H100 80GB HBM3" and mm["precision"] == "BF16", mm
assert mm["peak_tflops"] == 989.4 and mm["peak_gb_per_s"] == 3350, mm
assert abs(mm["pct_peak_flops"] - 100 * tf / 989.4) < 1e-3, mm["pct_peak_flops"]
assert mm["bound"] == "compute" and mm["pct_of_bound"] == mm["pct_peak_flops"], mm
add = rows["aten::add"]
assert add["family"] == "elementwise" and add["bound"] == "memory", add
assert add["bytes"] == 3 * 2000 * 2050 * 2 and add["flops"] == 2000 * 2050, add
assert add["precision"] == "FP32 vector", add
PY
expect_rc 0 "$LATSCOPE" analyze "$data/handmade-perfmodel-fires.json"
contains "$TMPDIR/out" "performance model (6 op instances, 2 shapes, 960 us)"
contains "$TMPDIR/out" "  mm M=2000 N=2050 K=4096"

# doctor: fires on the 11 % GEMM with N = 2050, not on the 69 % one, not with the threshold at 10
expect_rc 0 "$LATSCOPE" doctor --format json --fail-on never "$data/handmade-perfmodel-fires.json"
python3 - "$TMPDIR/out" <<'PY' || fail "below-peak finding"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["id"] == "below-peak"]
assert len(f) == 1, [x["id"] for x in d["findings"]]
f = f[0]
assert "aten::mm reaches 11 % of peak BF16" in f["title"] and "N not a multiple of 8" in f["title"], f["title"]
want = 300 * (1 - 2 * 2000 * 2050 * 4096 / 300e-6 / 989.4e12)
assert abs(f["saving_us_per_step"] - want) < 0.01, (f["saving_us_per_step"], want)
assert f["severity"] == "high", f["severity"]
assert d["thresholds"]["perf_peak_pct"] == 40, d["thresholds"]
PY
expect_rc 0 "$LATSCOPE" doctor --format json --fail-on never "$data/handmade-perfmodel-clean.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert "below-peak" not in [f["id"] for f in d["findings"]]' <"$TMPDIR/out" || fail "below-peak on the clean trace"
expect_rc 0 "$LATSCOPE" doctor --format json --fail-on never --threshold perf_peak_pct=10 "$data/handmade-perfmodel-fires.json"
python3 -c 'import json,sys; d=json.load(sys.stdin); assert "below-peak" not in [f["id"] for f in d["findings"]]' <"$TMPDIR/out" || fail "perf_peak_pct=10 still fires"

# real trace: TraceLens' GEMM.csv row aten::addmm 141x512x512 (name_count 17, Kernel Time sum
# 98.718 µs) of tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001
bert=$(need_trace tracelens/tests/traces/h100/gaunernst_bert-small-uncased__1016001.json.gz)
expect_rc 0 "$LATSCOPE" analyze --format json --top 50 "$bert"
python3 - "$TMPDIR/out" <<'PY' || fail "perf_model on the bert trace"
import json, sys
r = json.load(open(sys.argv[1]))["ranks"][0]
g = [x for x in r["perf_model"] if x["op"] == "aten::addmm" and x["shape"] == "M=141 N=512 K=512"]
assert len(g) == 1, [x["shape"] for x in r["perf_model"]]
g = g[0]
assert g["count"] == 17 and abs(g["time_us"] - 98.718) < 0.01, g
assert abs(g["flops"] - 0.0739968e9) < 1 and abs(g["bytes"] - 0.7763671875 * 2**20) < 1, g
assert g["bound"] == "memory" and g["device"] == "NVIDIA H100 80GB HBM3", g
for x in r["perf_model"]:
    for k in ("pct_peak_flops", "pct_peak_bw", "pct_of_bound"):
        assert x[k] is None or 0 <= x[k] <= 100, (x["op"], k, x[k])
PY
exit 0
