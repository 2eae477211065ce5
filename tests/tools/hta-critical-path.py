#!/usr/bin/env python3
# hta-critical-path.py TRACE ANNOTATION INSTANCE: runs HTA's critical_path_analysis (HolisticTraceAnalysis
# at f4d0062c on PYTHONPATH, pandas 2.x, networkx 3.x) on one trace and prints one JSON line:
# graph nodes/edges, critical-path nodes, path length (sum of edge weights, us), the
# bound_by split of get_critical_path_breakdown() and its edge types. INSTANCE "None" = HTA's
# default. docs/critical-path.md lists its output on the corpus; tests/unit/test-critpath.c
# asserts latscope gives the same numbers. Not run by the test suite (HTA is not a dependency).
import sys, os, shutil, tempfile, json, logging
logging.disable(logging.WARNING)
from hta.trace_analysis import TraceAnalysis
def run(path, annotation, inst):
    d = tempfile.mkdtemp()
    shutil.copy(path, d)
    ta = TraceAnalysis(trace_dir=d)
    rank = list(ta.t.traces.keys())[0]
    r = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=inst)
    if r is None:
        return {"trace": path, "annotation": annotation, "instance": inst, "error": "none"}
    g, ok = r
    out = {"trace": path, "annotation": annotation, "instance": inst, "ok": ok,
           "nodes": g.number_of_nodes(), "edges": g.number_of_edges(),
           "cp_nodes": len(g.critical_path_nodes)}
    if ok:
        tot = sum(g.edges[u, v]["weight"] for u, v in zip(g.critical_path_nodes, g.critical_path_nodes[1:]))
        out["cp_length"] = float(tot)
        edf = g.get_critical_path_breakdown()
        out["by_type"] = {k: float(v) for k, v in edf.groupby("bound_by").duration.sum().items()}
        out["edge_types"] = {k: int(v) for k, v in edf.groupby("type").duration.count().items()}
    return out
if __name__ == "__main__":
    path, ann, inst = sys.argv[1], sys.argv[2], sys.argv[3]
    inst = None if inst == "None" else int(inst)
    print(json.dumps(run(path, ann, inst)), flush=True)
