#!/usr/bin/env python3
"""trt-dumpprofile-truth.py LOG ANALYZE.json: the --dumpProfile table of a trtexec log, read
here independently (regular expressions, Python standard library), against latscope's TensorRT
section of the same log: the profiled iterations, every layer's total / mean / median /
percentage as printed (the mean recomputed as total / iterations where trtexec printed it with
fewer than 4 decimals), and the sum of the layer totals against the table's own "Total" row.
Exit 0 when they agree, 1 with the differences, 77 when the log has no such table."""
import json
import re
import sys

NUM = r"(\d+(?:\.\d*)?)"


def read_table(path):
    prefix = re.compile(r"^(?:\[[^\]]*\] \[[A-Z]\] )?(?:\[TRT\] )*\s*")
    lines = [prefix.sub("", l.rstrip("\r\n").rstrip()) for l in open(path, errors="replace")]
    iters, rows, total, layout = None, [], None, None
    for i, l in enumerate(lines):
        m = re.match(r"=== Profile \((\d+) iterations \) ===", l)
        if m and iters is None:
            iters = int(m.group(1))
            j = i + 1
            while j < len(lines) and not lines[j]:
                j += 1
            hdr = lines[j]
            name_first = hdr.startswith("Layer")
            nnum = 4 if "Median" in hdr else 3
            layout = (name_first, nnum)
            for l2 in lines[j + 1:]:
                if name_first:
                    m2 = re.match(r"^(.*\S)" + (r"\s+" + NUM) * nnum + r"$", l2)
                    if not m2:
                        break
                    name, nums = m2.group(1), [m2.group(k + 2) for k in range(nnum)]
                else:
                    m2 = re.match(r"^" + r"\s*".join([NUM] * nnum) + r"\s+(\S.*)$", l2)
                    if not m2:
                        break
                    name, nums = m2.group(nnum + 1), [m2.group(k + 1) for k in range(nnum)]
                if name == "Total":
                    total = float(nums[0])
                    break
                rows.append((name, nums))
    return iters, rows, total, layout


def main():
    iters, rows, total, layout = read_table(sys.argv[1])
    if iters is None:
        print("no --dumpProfile table")
        return 77
    trt = json.load(open(sys.argv[2]))["ranks"][0]["tensorrt"]
    bad = []
    if trt["profile_count"] != iters:
        bad.append("iterations %s != %s" % (trt["profile_count"], iters))
    if trt["layers_profiled"] != len(rows):
        bad.append("layers %s != %d" % (trt["layers_profiled"], len(rows)))
    by = {r["name"]: r for r in trt["layer_rows"]}
    seen = {}
    for idx, (name, nums) in enumerate(rows):
        # a name seen before is its own row, named "NAME #ROW" (ROW: its index in the table)
        k = seen.get(name, 0)
        seen[name] = k + 1
        r = by.get(name if k == 0 else "%s #%d" % (name, idx))
        if r is None:
            bad.append("layer %r missing" % name)
            continue
        t, avg = float(nums[0]), float(nums[1])
        dec = len(nums[1].split(".")[1]) if "." in nums[1] else 0
        if dec < 4 and abs(t / iters - avg) <= 0.5 * 10 ** -dec * (1 + 1e-9):
            avg = t / iters
        want = {"total_ms": t, "mean_ms": avg, "percentage": float(nums[-1]),
                "median_ms": float(nums[2]) if layout[1] == 4 else None}
        for key, v in want.items():
            got = r[key]
            if v is None or got is None:
                if v != got:
                    bad.append("%s %s: %s != %s" % (name, key, got, v))
            elif abs(got - v) > 1e-6 * max(1.0, abs(v)):
                bad.append("%s %s: %s != %s" % (name, key, got, v))
    s = sum(float(n[0]) for _, n in rows)
    if abs(trt["layers_total_sum_ms"] - s) > 1e-6 * max(1.0, s):
        bad.append("sum of totals %s != %s" % (trt["layers_total_sum_ms"], s))
    if total is not None and abs(s - total) > 0.01 * len(rows) + 1e-9:
        bad.append("the table's Total row %s is not the sum of its rows %s" % (total, s))
    for b in bad:
        print(b)
    print("%d layers, %d iterations, total %.2f ms (Total row %s)" % (len(rows), iters, s, total))
    return 1 if bad else 0


sys.exit(main())
