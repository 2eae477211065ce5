#!/usr/bin/env python3
# hta-parity.py ROOT TRACE...: runs HolisticTraceAnalysis (f4d0062c on PYTHONPATH, pandas 2.x)
# on each trace (alone in a temporary directory, as one rank) and prints one JSON line per trace
# with what `latscope analyze --hta-compat` reproduces: the temporal breakdown, the idle-time
# breakdown per stream, the kernel-type buckets, the launch statistics and the queue-length
# summary (us, HTA's own rounding). TRACE is relative to ROOT (../shared/traces); the line names
# it that way. An analysis that raises is recorded as {"error": "..."}.
#
# tests/tools/hta-parity.sh runs it over every Kineto trace of the corpus and writes
# tests/data/hta-parity.jsonl, which tests/e2e/t192-analyze-hta-parity.sh compares latscope
# against. Not run by the test suite (HTA is not a dependency; docs/latscope-analyze.md).
import json, logging, math, os, shutil, sys, tempfile, time

logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis  # noqa: E402


def num(x):
    x = float(x)
    if math.isnan(x):
        return None
    return int(x) if x == int(x) else round(x, 6)


def guard(fn):
    try:
        return fn()
    except Exception as e:  # HTA raises on traces without GPU rows and the like
        return {"error": "%s: %s" % (type(e).__name__, str(e)[:200])}


def run(root, rel):
    d = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(root, rel), d)
        t0 = time.time()
        ta = TraceAnalysis(trace_dir=d)
        rank = sorted(ta.t.traces.keys())[0]
        out = {"trace": rel, "rank": int(rank)}

        def temporal():
            df = ta.get_temporal_breakdown(visualize=False)
            r = df.iloc[0]
            return {k: num(r[k + "(us)"]) for k in ["idle_time", "compute_time", "non_compute_time", "kernel_time"]}

        def idle():
            df = ta.get_idle_time_breakdown(ranks=[rank], visualize=False)[0]
            res = {}
            for _, r in df.iterrows():
                s = res.setdefault(str(int(r["stream"])), {})
                s[r["idle_category"]] = num(r["idle_time"])
            return res

        def ktypes():
            k, _ = ta.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
            return {r["kernel_type"]: num(r["sum"]) for _, r in k.iterrows()}

        def launch():
            res = ta.get_cuda_kernel_launch_stats(ranks=[rank], visualize=False)
            dd = res.get(rank)
            if dd is None:
                return {"count": 0}
            return {"count": int(len(dd)),
                    "short": int(((dd.cpu_duration <= 50) & (dd.gpu_duration < dd.cpu_duration)).sum()),
                    "runtime_outliers": int((dd.cpu_duration > 50).sum()),
                    "delay_outliers": int((dd.launch_delay > 100).sum()),
                    "median_delay": num(dd["launch_delay"].median()) if len(dd) else None}

        def queue():
            df = ta.get_queue_length_summary(ranks=[rank])
            if df is None:
                return None
            res = {}
            for idx, r in df.iterrows():
                stream = idx[1] if isinstance(idx, tuple) else r.get("stream")
                q = lambda k: num(r[("queue_length", k)])
                res[str(int(stream))] = {"count": q("count"), "mean": q("mean"), "max": q("max")}
            return res

        for key, fn in [("temporal", temporal), ("idle", idle), ("ktypes", ktypes),
                        ("launch", launch), ("queue", queue)]:
            out[key] = guard(fn)
        out["hta_seconds"] = round(time.time() - t0, 2)
        return out
    except Exception as e:
        return {"trace": rel, "error": "%s: %s" % (type(e).__name__, str(e)[:200])}
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    root = sys.argv[1]
    for rel in sys.argv[2:]:
        print(json.dumps(run(root, rel), sort_keys=True), flush=True)
