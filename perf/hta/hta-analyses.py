"""hta-analyses.py - runs the HTA analyses that `latscope analyze` reproduces on one trace
directory, for perf/11-analyze.sh (timing) and for cross-checking numbers by hand.

usage: python hta-analyses.py TRACE_DIR   (prints HTA's tables, then "elapsed S maxrss_MB M")
"""
import resource
import sys
import time

from hta.trace_analysis import TraceAnalysis

t0 = time.time()
a = TraceAnalysis(trace_dir=sys.argv[1])
ranks = list(a.t.traces.keys())
print("ranks", ranks)
print(a.get_temporal_breakdown(visualize=False).to_string())
k, kk = a.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
print(k.to_string())
print(kk[["name", "sum (us)", "kernel_type"]].head(12).to_string())
for name, fn in [
    ("idle", lambda: a.get_idle_time_breakdown(ranks=ranks, visualize=False)[0]),
    ("overlap", lambda: a.get_comm_comp_overlap(visualize=False)),
    ("queue", lambda: a.get_queue_length_summary(ranks=ranks)),
]:
    try:
        print(fn().to_string())
    except Exception as e:  # HTA raises on traces without GPU rows
        print(name, "failed:", e)
try:
    for rk, d in a.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False).items():
        print("launch rank", rk, "count", len(d), "median_delay", d["launch_delay"].median(),
              "short", int(((d.cpu_duration <= 50) & (d.gpu_duration < d.cpu_duration)).sum()),
              "runtime_outliers", int((d.cpu_duration > 50).sum()),
              "delay_outliers", int((d.launch_delay > 100).sum()))
except Exception as e:
    print("launch failed:", e)
print("elapsed %.3f maxrss_MB %.1f" % (time.time() - t0,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))
