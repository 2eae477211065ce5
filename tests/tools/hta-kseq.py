#!/usr/bin/env python3
# hta-kseq.py TRACE OPERATOR [MIN_LEN]: runs HolisticTraceAnalysis' (f4d0062c on PYTHONPATH)
# get_frequent_cuda_kernel_sequences on one trace (alone in a temporary directory, its own
# rank) and prints one JSON line: the number of patterns and the first rows (pattern, count,
# GPU kernel duration, CPU op duration, us). tests/unit/test-analyze-corpus.c
# (analyze_hta_kernel_sequences) asserts latscope gives the same rows; not run by the suite.
# HTA_KSEQ_PRESORT=stable|quicksort|heapsort: the sort kind of the pandas pre-sort by time in
# HTA's call-stack build (default: HTA's, quicksort), which decides HTA's nesting where its
# comparator is not a consistent order (docs/latscope-analyze.md row 15).
import json, logging, os, shutil, sys, tempfile
import pandas as pd
if os.environ.get("HTA_KSEQ_PRESORT"):
    _kind, _sort = os.environ["HTA_KSEQ_PRESORT"], pd.DataFrame.sort_values
    def _presort(self, by, *a, **k):
        if by == "time" and "kind" in self.columns:
            k["kind"] = _kind
        return _sort(self, by, *a, **k)
    pd.DataFrame.sort_values = _presort
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
path, op = sys.argv[1], sys.argv[2]
min_len = int(sys.argv[3]) if len(sys.argv) > 3 else 3
d = tempfile.mkdtemp()
shutil.copy(path, d)
ta = TraceAnalysis(trace_dir=d)
rank = sorted(ta.t.traces.keys())[0]
df = ta.get_frequent_cuda_kernel_sequences(op, d, min_pattern_len=min_len, rank=rank,
                                           visualize=False)
rows = [] if df is None or df.empty else [
    {"pattern": r["pattern"], "count": int(r["count"]), "gpu": float(r["GPU kernel duration (us)"]),
     "cpu": float(r["CPU op duration (us)"])} for _, r in df.head(5).iterrows()]
print(json.dumps({"trace": path, "operator": op, "rank": int(rank),
                  "patterns": 0 if df is None else len(df), "rows": rows}))
shutil.rmtree(d, ignore_errors=True)
