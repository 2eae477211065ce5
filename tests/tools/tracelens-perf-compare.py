#!/usr/bin/env python3
"""Compares latscope's performance model with TraceLens' per-op reference CSVs.

Usage: tracelens-perf-compare.py LATSCOPE TRACELENS_CHECKOUT TRACES_DIR
  TRACELENS_CHECKOUT: a checkout of AMD-AGI/TraceLens (171dd747 was used), which commits
  tests/traces/h100/<trace>_perf_report_csvs/{GEMM,BinaryElementwise,UnaryElementwise,
  Reduce_fwd,Normalization,CONV_fwd}.csv next to its test traces;
  TRACES_DIR: the directory holding tracelens/tests/traces/h100/<trace>.json.gz.
For every CSV row whose (op name, Input Dims) latscope also models, prints whether the FLOPs
(GFLOPS_first), bytes (Data Moved (MB)_first, MB = 2^20 B), calls (name_count) and Σ kernel time
(Kernel Time (µs)_sum, ±0.01 µs per call) agree; rows TraceLens splits by strides are summed.
A one-off check (not run by the tests: the CSVs are not in ../shared); result in
docs/latscope-analyze.md, "Performance model"."""
import collections, csv, json, os, subprocess, sys

lat, tl, traces = sys.argv[1:4]
ref = os.path.join(tl, "tests/traces/h100")
tot = collections.Counter()
for d in sorted(os.listdir(ref)):
    if not d.endswith("_perf_report_csvs"):
        continue
    name = d[: -len("_perf_report_csvs")]
    trace = os.path.join(traces, "tracelens/tests/traces/h100", name + ".json.gz")
    if not os.path.exists(trace):
        continue
    out = subprocess.run([lat, "analyze", "--format", "json", "--top", "100000", trace],
                         capture_output=True, check=True, text=True).stdout
    ours = {}
    for x in json.loads(out)["ranks"][0]["perf_model"]:
        ours.setdefault((x["op"], (x["input_dims"] or "").replace(" ", "")), []).append(x)
    for fam in ("GEMM", "BinaryElementwise", "UnaryElementwise", "Reduce_fwd",
                "Normalization", "CONV_fwd"):
        p = os.path.join(ref, d, fam + ".csv")
        if not os.path.exists(p):
            continue
        rows = collections.defaultdict(list)
        for row in csv.DictReader(open(p)):
            rows[(row["name"], row["Input Dims_first"].replace(" ", ""))].append(row)
        for key, rs in rows.items():
            if key not in ours:
                tot[(fam, "not modelled by latscope")] += 1
                continue
            o = ours[key]
            gf = float(rs[0]["GFLOPS_first"]) * 1e9
            mb = float(rs[0]["Data Moved (MB)_first"]) * 2**20
            n = sum(int(r["name_count"]) for r in rs)
            kt = sum(float(r["Kernel Time (µs)_sum"]) for r in rs)
            cnt = sum(x["count"] for x in o)
            tus = sum(x["time_us"] for x in o)
            tot[(fam, "rows")] += 1
            tot[(fam, "flops equal")] += abs(o[0]["flops"] - gf) <= 1 + 1e-9 * gf
            tot[(fam, "bytes equal")] += abs(o[0]["bytes"] - mb) <= 1 + 1e-9 * mb
            tot[(fam, "calls and time equal")] += cnt == n and abs(tus - kt) <= 0.01 * n
for k in sorted(tot):
    print(f"{k[0]:18} {k[1]:26} {tot[k]}")
