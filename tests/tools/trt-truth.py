#!/usr/bin/env python3
"""trt-truth.py PREFIX LATSCOPE_JSON - checks latscope's TensorRT section against an independent
computation from the same TREx/trtexec files (PREFIX.profile.json, .graph.json, .timing.json,
.profile.metadata.json, .build.metadata.json) - queries with unusable times left out and
counted by reason as a reader must - and the per-query statistics against the
performance summary trtexec itself printed (profile.metadata.json), when both are there.
Python standard library only. Prints one line per failed check; exit 1 on any, 0 otherwise.
"""
import json
import math
import os
import re
import struct
import sys

prefix, out = sys.argv[1], sys.argv[2]
fails = []


def load(sfx):
    p = prefix + sfx
    return json.load(open(p)) if os.path.exists(p) else None


def near(a, b, rel=2e-6, ab=1e-9):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= max(ab, rel * max(abs(a), abs(b)))


def check(what, got, want, **kw):
    if not near(got, want, **kw):
        fails.append(f"{prefix}: {what}: latscope {got}, want {want}")


sec = json.load(open(out))["ranks"][0]["tensorrt"]
prof = load(".profile.json")
graph = load(".graph.json")
timing = load(".timing.json")
pmeta = load(".profile.metadata.json")
bmeta = load(".build.metadata.json")

# ---- layers ------------------------------------------------------------------------------
TYPES = [("FP32", "FP32"), ("Float", "FP32"), ("FP16", "FP16"), ("Half", "FP16"),
         ("BF16", "BF16"), ("FP8", "FP8"), ("FP4", "FP4"), ("UInt8", "UINT8"), ("Int8", "INT8"),
         ("Int32", "INT32"), ("Int64", "INT64"), ("Int4", "INT4"), ("Bool", "BOOL")]


def dtype(fmt):
    best = None
    for word, t in TYPES:
        m = re.search(re.escape(word), fmt, re.I)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), t)
    return best[1] if best else None


info = {}
if graph:
    for L in graph.get("Layers", []):
        if isinstance(L, str):
            info[L] = {}
        else:
            info[L["Name"]] = L


def precision(L):
    for side in ("Inputs", "Outputs"):
        for t in L.get(side, []):
            if "Format/Datatype" in t:
                return dtype(t["Format/Datatype"])
    return None


if prof is not None:
    rows = [r for r in prof if "name" in r]
    count = [r["count"] for r in prof if "count" in r and "name" not in r]
    if count and sec["profile_count"] != count[0]:
        fails.append(f"{prefix}: profile_count {sec['profile_count']}, want {count[0]}")
    if sec["layers_profiled"] != len(rows):
        fails.append(f"{prefix}: layers_profiled {sec['layers_profiled']}, want {len(rows)}")
    total = sum(r["averageMs"] for r in rows)
    check("layers_mean_sum_ms", sec["layers_mean_sum_ms"], total)
    check("layers_total_sum_ms", sec["layers_total_sum_ms"], sum(r["timeMs"] for r in rows))
    byname = {r["name"]: r for r in sec["layer_rows"]}
    if len(byname) != len(rows):
        fails.append(f"{prefix}: {len(byname)} layer rows (run with --top 1000), want {len(rows)}")
    types, precs = {}, {}
    reformat = qdq = 0.0
    nref = 0
    for i, r in enumerate(rows):
        g = byname.get(r["name"])
        L = info.get(r["name"], {})
        if g is None:
            fails.append(f"{prefix}: layer {r['name']!r} missing")
            continue
        check(f"{r['name']}: mean_ms", g["mean_ms"], r["averageMs"])
        check(f"{r['name']}: total_ms", g["total_ms"], r["timeMs"])
        check(f"{r['name']}: percentage", g["percentage"], r["percentage"])
        check(f"{r['name']}: median_ms", g["median_ms"], r.get("medianMs"))
        check(f"{r['name']}: share_pct", g["share_pct"],
              100.0 * r["averageMs"] / total if total else 0.0, rel=0, ab=0.0006)
        if g["index"] != i:
            fails.append(f"{prefix}: {r['name']}: index {g['index']}, want {i}")
        for key, want in (("type", L.get("LayerType")), ("tactic", L.get("TacticName")),
                          ("origin", L.get("Origin")), ("precision", precision(L))):
            if g[key] != want:
                fails.append(f"{prefix}: {r['name']}: {key} {g[key]!r}, want {want!r}")
        t = L.get("LayerType") or "(unknown)"
        p = precision(L) or "(unknown)"
        types[t] = types.get(t, 0.0) + r["averageMs"]
        precs[p] = precs.get(p, 0.0) + r["averageMs"]
        is_qdq = L.get("Origin") == "QDQ"
        ltype = L.get("LayerType")
        if not is_qdq and (ltype == "Reformat" if ltype is not None
                           else r["name"].startswith("Reformatting CopyNode")):
            reformat += r["averageMs"]
            nref += 1
        if is_qdq:
            qdq += r["averageMs"]
    for key, want, name in (("by_type", types, "type"), ("by_precision", precs, "precision")):
        got = {x[name]: x["mean_ms"] for x in sec[key]}
        if set(got) != set(want):
            fails.append(f"{prefix}: {key} keys {sorted(got)}, want {sorted(want)}")
        for k in want:
            check(f"{key} {k}", got.get(k), want[k])
            share = [x["share_pct"] for x in sec[key] if x[name] == k]
            if share:
                check(f"{key} {k} share", share[0], 100.0 * want[k] / total, rel=0, ab=0.0006)
    check("reformat mean_ms", sec["reformat"]["mean_ms"], reformat)
    if sec["reformat"]["layers"] != nref:
        fails.append(f"{prefix}: reformat layers {sec['reformat']['layers']}, want {nref}")
    check("reformat share_pct", sec["reformat"]["share_pct"], 100.0 * reformat / total, rel=0,
          ab=0.0006)
    check("qdq mean_ms", sec["reformat"]["qdq_mean_ms"], qdq)

# ---- queries -----------------------------------------------------------------------------
def warmup():
    d = (pmeta or {}).get("inference_options", {}).get("Duration", "")
    m = re.search(r"\(\+ ([0-9.]+)(ms|s) warm up\)", d)
    if not m:
        return None
    return float(m.group(1)) * (1000.0 if m.group(2) == "s" else 1.0)


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def stats(v):
    v = sorted(v)
    n = len(v)
    mean = sum(v) / n
    med = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
    pct = {}
    for p in (90, 95, 99):  # sampleReporting.cpp findPercentile, in float as trtexec
        exclude = int(f32(f32(1 - f32(p / 100)) * n))
        pct[p] = v[max(n - 1 - exclude, 0)]
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / n)
    return {"min": v[0], "max": v[-1], "mean": mean, "median": med, "p90": pct[90],
            "p95": pct[95], "p99": pct[99], "cov_pct": 100 * sd / mean if mean else 0.0}


# which queries a reader must leave out, and why (the first reason found; the names of
# analyze's dropped.by_reason): a start/end time missing, not a number or negative (times are ms
# from the run's start), an end before its start, a negative or non-numeric duration
QKEYS = (["startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
          "startD2hMs", "endD2hMs"], ["h2dMs", "computeMs", "d2hMs"])
QKEYS7 = (["startEnqMs", "endEnqMs", "startInMs", "endInMs", "startComputeMs", "endComputeMs",
           "startOutMs", "endOutMs"], ["inMs", "computeMs", "outMs"])


def isnum(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def why_bad(x):
    ks, ds = QKEYS7 if "startInMs" in x else QKEYS
    for k in ks:
        if k not in x:
            return "no_time"
        if not isnum(x[k]):
            return "bad_time"
        if x[k] < 0:
            return "negative_time"
    for a, b in zip(ks[0::2], ks[1::2]):
        if x[b] < x[a]:
            return "negative_dur"
    for k in ds:
        if k in x and x[k] is not None and not isnum(x[k]):
            return "bad_time"
        if k in x and isnum(x[k]) and x[k] < 0:
            return "negative_dur"
    return None


if timing is not None and sec["queries"] is None:
    fails.append(f"{prefix}: no queries section")
elif timing is not None:
    q = sec["queries"]
    w = warmup()
    reasons = {}
    for x in timing:
        r = why_bad(x)
        if r:
            reasons[r] = reasons.get(r, 0) + 1
    nbad = sum(reasons.values())
    rank_dropped = json.load(open(out))["ranks"][0]["dropped"]
    if q["dropped"] != nbad or rank_dropped["queries"] != nbad:
        fails.append(f"{prefix}: dropped queries {q['dropped']} (rank {rank_dropped['queries']}), "
                     f"want {nbad}")
    for r, n in reasons.items():
        if rank_dropped["by_reason"].get(r) != n:
            fails.append(f"{prefix}: dropped.by_reason.{r} {rank_dropped['by_reason'].get(r)}, "
                         f"want {n}")
    timing = [x for x in timing if not why_bad(x)]
    kept = [x for x in timing if w is None or x["startComputeMs"] >= w]
    if q["count"] != len(timing) or q["kept"] != len(kept):
        fails.append(f"{prefix}: queries {q['count']}/{q['kept']}, want {len(timing)}/{len(kept)}")
    metrics = {
        "h2d_ms": [x["h2dMs"] for x in kept],
        "gpu_compute_ms": [x["computeMs"] for x in kept],
        "d2h_ms": [x["d2hMs"] for x in kept],
        "latency_ms": [x["h2dMs"] + x["computeMs"] + x["d2hMs"] for x in kept],
        "enqueue_ms": [x["endEnqMs"] - x["startEnqMs"] for x in kept],
    }
    # end to end: D2H end (its start + its duration) minus H2D start
    metrics["end_to_end_ms"] = [x["startD2hMs"] + x["d2hMs"] - x["startH2dMs"] for x in kept]
    for k, v in metrics.items():
        want = stats(v)
        for s, wv in want.items():
            if s == "cov_pct":
                check(f"{k}.{s}", q[k][s], wv, rel=0, ab=0.0006)
            else:
                check(f"{k}.{s}", q[k][s], wv, rel=1e-6, ab=2e-9)
    wall = kept[-1]["startD2hMs"] + kept[-1]["d2hMs"] - kept[0]["startH2dMs"]
    check("walltime_ms", q["walltime_ms"], wall, rel=1e-7, ab=2e-6)
    check("throughput_qps", q["throughput_qps"], len(kept) / (wall / 1000.0), rel=1e-6)
    # trtexec's own summary of the same run (TREx: min, max, mean, median, [p90, p95,] p99)
    ps = (pmeta or {}).get("performance_summary")
    if ps and w is not None and not nbad:  # (of all the queries trtexec measured)
        for name, k in (("GPU Compute Time", "gpu_compute_ms"), ("Latency", "latency_ms")):
            arr = ps[name]
            keys = ["min", "max", "mean", "median"] + (["p90", "p95", "p99"] if len(arr) == 7
                                                       else ["p99"])
            for s, tv in zip(keys, arr):
                # trtexec prints 6 significant digits; its mean is a float sum
                check(f"trtexec {name} {s}", q[k][s], tv, rel=2e-5 if s == "mean" else 1e-5)
        check("trtexec Throughput", q["throughput_qps"], ps["Throughput"], rel=1e-5)

# ---- the printed summary as read -------------------------------------------------------------
if pmeta and "performance_summary" in pmeta:
    ps = pmeta["performance_summary"]
    s = sec["summary"]
    check("summary throughput", s["throughput_qps"], ps["Throughput"])
    check("summary walltime", s["walltime_s"], ps["Total Host Walltime"])
    for name, k in (("Latency", "latency_ms"), ("Enqueue Time", "enqueue_ms"),
                    ("H2D Latency", "h2d_ms"), ("GPU Compute Time", "gpu_compute_ms"),
                    ("D2H Latency", "d2h_ms")):
        arr = ps[name]
        keys = ["min", "max", "mean", "median"] + (["p90", "p95", "p99"] if len(arr) == 7
                                                   else ["p99"])
        for st, tv in zip(keys, arr):
            check(f"summary {name} {st}", s[k][st], tv)
if bmeta:
    if sec["build_precision"] != bmeta["build_options"]["Precision"]:
        fails.append(f"{prefix}: build_precision {sec['build_precision']!r}")

for f in fails[:40]:
    print(f)
if len(fails) > 40:
    print(f"... {len(fails) - 40} more")
sys.exit(1 if fails else 0)
