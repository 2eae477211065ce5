#!/usr/bin/env python3
"""nsys-stats-truth.py CSV CONVERTED.json ANALYZE.json: an `nsys stats --format csv` report read
here independently (Python's csv module after the preamble lines, units from the header)
against what latscope made of it:
  - timeline reports (nvtx_pushpop_trace, cuda_gpu_trace): every row is one event of
    `latscope convert`'s Kineto JSON with the same start, duration (ns), name and thread or
    stream, and per NVTX name the count and total equal analyze's CPU annotation table;
  - summary reports (cuda_gpu_kern_sum, cuda_api_sum, cuda_gpu_mem_time_sum, nvtx_sum, ...):
    every row's count, total, avg, med, min, max, stddev (converted to ns or bytes) and
    percentage equal analyze's nsys_stats section, and so do the report's sums.
Exit 0 when they agree, 1 with the differences."""
import collections
import csv
import io
import json
import re
import sys

MUL = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9,
       "KiB": 1024.0, "MiB": 1048576.0, "GiB": 1073741824.0}


def read(path):
    lines = open(path, encoding="utf-8", errors="replace").read().splitlines()
    start = next(i for i, l in enumerate(lines) if re.search(r'\((ns|us|ms|s|%|MB|B)\)"?,', l))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    hdr, body = rows[0], [r for r in rows[1:] if r]
    cols = {}
    for i, h in enumerate(hdr):
        m = re.match(r"^(.*) \((.*)\)$", h)
        cols[m.group(1) if m else h] = (i, MUL.get(m.group(2)) if m else None)
    return cols, body


def num(row, cols, name):
    i, mul = cols[name]
    v = row[i].strip()
    if v in ("", "-"):
        return None
    return float(v) * (mul or 1)


def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))


def main():
    cols, body = read(sys.argv[1])
    conv = json.load(open(sys.argv[2]))
    an = json.load(open(sys.argv[3]))["ranks"][0]
    bad = []
    if "RangeStack" in cols or ("PID" in cols and "End" in cols):  # NVTX trace
        want = collections.Counter()
        per = collections.defaultdict(lambda: [0, 0])
        for r in body:
            s, e = num(r, cols, "Start"), num(r, cols, "End")
            nm = r[cols["Name"][0]]
            want[(nm, round(s), round(e - s), int(r[cols["PID"][0]]), int(r[cols["TID"][0]]))] += 1
            per[nm][0] += 1
            per[nm][1] += e - s
        got = collections.Counter()
        for ev in conv["traceEvents"]:
            if ev.get("cat") == "user_annotation":
                got[(ev["name"], round(ev["ts"] * 1000), round(ev["dur"] * 1000), ev["pid"], ev["tid"])] += 1
        if want != got:
            bad.append("events differ: only in the CSV %s, only in latscope %s"
                       % (list((want - got).items())[:3], list((got - want).items())[:3]))
        table = {a["name"]: a for a in an["annotations"]["cpu"]}
        for nm, (c, tot) in per.items():
            a = table.get(nm)
            if not a or a["count"] != c or abs(a["sum_us"] * 1000 - tot) > 0.5:
                bad.append("annotation %s: latscope %s, CSV %d rows %d ns" % (nm, a, c, tot))
        print("%d NVTX ranges, %d names, %d ns in all" % (len(body), len(per), sum(v[1] for v in per.values())))
    elif "CorrId" in cols and "Strm" in cols:  # cuda_gpu_trace
        want = collections.Counter()
        for r in body:
            nm = r[cols["Name"][0]]
            kind = "gpu_memcpy" if nm.startswith("[CUDA memcpy") else "gpu_memset" if nm.startswith("[CUDA memset") else "kernel"
            want[(kind, nm if kind == "kernel" else "", round(num(r, cols, "Start")), round(num(r, cols, "Duration")),
                  int(r[cols["Strm"][0]]), int(r[cols["CorrId"][0]]))] += 1
        got = collections.Counter()
        for ev in conv["traceEvents"]:
            if ev.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
                got[(ev["cat"], ev["name"] if ev["cat"] == "kernel" else "", round(ev["ts"] * 1000),
                     round(ev["dur"] * 1000), ev["tid"], ev["args"]["correlation"])] += 1
        if want != got:
            bad.append("GPU events differ: only in the CSV %s, only in latscope %s"
                       % (list((want - got).items())[:3], list((got - want).items())[:3]))
        print("%d GPU rows" % len(body))
    else:  # a summary
        name_col = next(c for c in ("Name", "Operation", "Range") if c in cols)
        count_col = next(c for c in ("Instances", "Num Calls", "Count", "Operations") if c in cols)
        total_col = "Total Time" if "Total Time" in cols else "Total"
        sec = an["nsys_stats"]["summaries"]
        if len(sec) != 1:
            bad.append("%d summaries, want 1" % len(sec))
        sec = sec[0]
        top = {t["name"]: t for t in sec["top"]}
        tsum, csum = 0.0, 0
        for r in body:
            nm = r[cols[name_col][0]]
            t = top.get(nm)
            if t is None:
                bad.append("row %s missing" % nm)
                continue
            tsum += num(r, cols, total_col)
            csum += int(r[cols[count_col][0]])
            if t["count"] != int(r[cols[count_col][0]]):
                bad.append("%s count %s" % (nm, t["count"]))
            for key, col in (("total", total_col), ("avg", "Avg"), ("med", "Med"), ("min", "Min"),
                             ("max", "Max"), ("stddev", "StdDev"), ("time_pct", "Time")):
                if col in cols and not close(t[key], num(r, cols, col)):
                    bad.append("%s %s: latscope %s, CSV %s" % (nm, key, t[key], num(r, cols, col)))
        if sec["rows"] != len(body) or not close(sec["total"], tsum) or sec["count"] != csum:
            bad.append("sums: latscope %s rows %s total %s count, CSV %d %s %d"
                       % (sec["rows"], sec["total"], sec["count"], len(body), tsum, csum))
        if an["nsys_stats"]["timeline"]:
            bad.append("a summary said to have a timeline")
        print("%s: %d rows, total %.0f %s, count %d" % (sec["report"], len(body), tsum, sec["unit"], csum))
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
