#!/usr/bin/env bash
# t173-ncu: a real `ncu --csv` details page (B200, CC 10.0; ==PROF== lines and the program's
# output before the CSV, ragged metric and rule rows) loads, and analyze's Nsight Compute
# section equals an independent parse of the same file with Python's csv module, for every
# launch: duration (unit converted to ns), SM / memory / DRAM throughput, achieved and
# theoretical occupancy, registers per thread, block and grid size, waves per SM, the bound by
# ncu's 60 % SOL rule, the occupancy limiter, and the rule results sorted by estimated speedup.
# The same file gzipped loads the same; a truncated copy fails with a clear message.
. "$LATSCOPE_SRCDIR/tests/e2e/lib.sh"
f=$(need_trace ncu/cublaslt_ncu.log)
command -v python3 >/dev/null || skip "python3 not installed"

"$LATSCOPE" analyze --format json "$f" >"$TMPDIR/an.json" 2>"$TMPDIR/an.err" ||
    { cat "$TMPDIR/an.err" >&2; fail "analyze failed on the ncu report"; }

python3 - "$f" "$TMPDIR/an.json" <<'EOF' || fail "latscope's ncu section differs from the CSV"
import csv, json, math, sys
path, js = sys.argv[1], sys.argv[2]
lines = open(path, encoding="utf-8").read().split("\n")
start = next(i for i, l in enumerate(lines) if l.startswith('"ID","Process ID"'))
rows = list(csv.reader("\n".join(lines[start:]).splitlines(True)))
hdr, rows = rows[0], [r for r in rows[1:] if r]
col = {h: i for i, h in enumerate(hdr)}
def get(r, k):
    i = col[k]
    return r[i] if i < len(r) else ""
scale = {"ns": 1, "nsecond": 1, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6, "s": 1e9, "second": 1e9}
launches = {}
for r in rows:
    l = launches.setdefault(int(get(r, "ID")), {"kernel": get(r, "Kernel Name"), "m": {}, "rules": [],
                                              "block": get(r, "Block Size"), "grid": get(r, "Grid Size")})
    if get(r, "Rule Name"):
        sp = get(r, "Estimated Speedup")
        l["rules"].append((get(r, "Rule Name"), float(sp) if sp else None, get(r, "Rule Description")))
    elif get(r, "Metric Name"):
        l["m"].setdefault(get(r, "Metric Name"), (get(r, "Metric Unit"), get(r, "Metric Value")))
ncu = json.load(open(js))["ranks"][0]["ncu"]
assert ncu["launches"] == len(launches), (ncu["launches"], len(launches))
assert [k["id"] for k in ncu["kernels"]] == sorted(launches), "launch IDs"
def close(a, b, what):
    if b is None:
        assert a is None, (what, a, b)
        return
    assert a is not None and abs(a - b) <= 1e-6 * max(1, abs(b)), (what, a, b)
def num(l, name):
    v = l["m"].get(name)
    return float(v[1].replace(",", "")) if v else None
total = 0
for k in ncu["kernels"]:
    l = launches[k["id"]]
    assert k["kernel"] == l["kernel"]
    u, v = l["m"]["Duration"]
    dur_ns = round(float(v.replace(",", "")) * scale[u])
    total += dur_ns
    close(k["duration_us"] * 1000, dur_ns, "duration")
    sm, mem = num(l, "Compute (SM) Throughput"), num(l, "Memory Throughput")
    close(k["sm_throughput_pct"], sm, "SM %")
    close(k["memory_throughput_pct"], mem, "memory %")
    close(k["dram_throughput_pct"], num(l, "DRAM Throughput"), "DRAM %")
    close(k["achieved_occupancy_pct"], num(l, "Achieved Occupancy"), "achieved occupancy")
    close(k["theoretical_occupancy_pct"], num(l, "Theoretical Occupancy"), "theoretical occupancy")
    close(k["registers_per_thread"], num(l, "Registers Per Thread"), "registers")
    close(k["block_size"], num(l, "Block Size"), "block size")
    close(k["grid_size"], num(l, "Grid Size"), "grid size")
    close(k["waves_per_sm"], num(l, "Waves Per SM"), "waves")
    assert k["block"] == "[" + l["block"].strip("()") + "]", (k["block"], l["block"])
    assert k["grid"] == "[" + l["grid"].strip("()") + "]", (k["grid"], l["grid"])
    bound = "latency" if sm < 60 and mem < 60 else ("compute" if sm >= mem else "memory")
    assert k["bound"] == bound, (k["bound"], bound)
    lim = {"registers": "Block Limit Registers", "shared memory": "Block Limit Shared Mem",
           "warps": "Block Limit Warps", "SM blocks": "Block Limit SM", "barriers": "Block Limit Barriers"}
    have = {n: num(l, m) for n, m in lim.items() if num(l, m) is not None}
    lo = min(have.values())
    want = "+".join(n for n in lim if n in have and have[n] == lo)
    assert k["occupancy_limiter"] == want, (k["occupancy_limiter"], want)
    want_rules = sorted(l["rules"], key=lambda x: (x[1] is None, -(x[1] or 0), x[0]))
    got = [(r["name"], r["estimated_speedup_pct"], r["description"]) for r in k["rules"]]
    assert len(got) == len(want_rules), (len(got), len(want_rules))
    for g, w in zip(got, want_rules):
        assert g[0] == w[0] and g[2] == w[2], (g[0], w[0])
        close(g[1], w[1], "speedup of " + w[0])
    sp = [w[1] for w in want_rules if w[1] is not None]
    close(k["max_estimated_speedup_pct"], max(sp) if sp else None, "max speedup")
close(ncu["total_duration_us"] * 1000, total, "total")
print("ok", len(launches), "launches")
EOF

# text report names the bound and the top rule
"$LATSCOPE" analyze "$f" >"$TMPDIR/an.txt" 2>&1 || fail "text analyze failed"
contains "$TMPDIR/an.txt" "Nsight Compute  1 launch (details page)"
contains "$TMPDIR/an.txt" "81.25% TheoreticalOccupancy"

# gzip: the same section
gzip -c "$f" >"$TMPDIR/r.csv.gz"
"$LATSCOPE" analyze --format json "$TMPDIR/r.csv.gz" >"$TMPDIR/gz.json" 2>/dev/null || fail "gzip failed"
python3 -c 'import json,sys; a,b=(json.load(open(x))["ranks"][0]["ncu"] for x in sys.argv[1:]); sys.exit(a != b)' \
    "$TMPDIR/an.json" "$TMPDIR/gz.json" || fail "gzip copy gives another ncu section"

# truncated inside a quoted rule description: a clear error, exit 2
head -c 9000 "$f" >"$TMPDIR/cut.csv"
expect_rc 2 "$LATSCOPE" analyze "$TMPDIR/cut.csv"
contains "$TMPDIR/err" "ends inside a quoted field"
exit 0
