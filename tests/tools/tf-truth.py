"""tf-truth.py OUTDIR - profile a small real TensorFlow model on CPU and save what latscope must
reproduce (tests/e2e/t705-tf-xprof-truth.sh):

  OUTDIR/logs/plugins/profile/RUN/HOST.xplane.pb   what tf.profiler.experimental.start/stop wrote
  OUTDIR/lstm.trace_viewer_at.json   xprof's own conversion of it by the tool TensorBoard's
                                     trace viewer streams ("trace_viewer@"): events named by op
                                     type, args only "uid"/"group_id", nodes in stackFrames
  OUTDIR/lstm.trace_viewer.json      the same by xprof's "trace_viewer" tool: args as strings
                                     ("long_name", "is_eager", "step_num"), a last element {}
  OUTDIR/lstm.framework_op_stats.json  xprof's framework_op_stats (gviz DataTable JSON)
  OUTDIR/truth.json                  {"tf", "xprof", "types": {type: [count, self_us]},
                                      "nodes": {node: [type, count, self_us]}, "graph_ops",
                                      "graph_us", "eager_ops", "eager_us", "steps"}: summed from
                                     framework_op_stats' host rows (TF's own op accounting over
                                     the XSpace: the independent truth; xprof writes the table
                                     twice, with and without the IDLE row: the first one)

The model: an LSTM (32 units) over 8 steps of 16 features, then a 2-layer MLP; 5 steps called
through a tf.function and 3 eager steps, each in a Trace("step", step_num=N, _r=1) region
(TF's documented step marker). Test-only (Python is never needed by latscope itself).
"""
import glob, gzip, json, os, sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy as np
import tensorflow as tf

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
logdir = os.path.join(out, "logs")

inp = tf.keras.Input((8, 16), batch_size=4, name="seq")
x = tf.keras.layers.LSTM(32, name="lstm")(inp)
x = tf.keras.layers.Dense(64, activation="relu", name="fc1")(x)
o = tf.keras.layers.Dense(10, name="fc2")(x)
model = tf.keras.Model(inp, o, name="lstm_mlp")


@tf.function
def infer(batch):
    return model(batch, training=False)


data = np.random.default_rng(0).standard_normal((4, 8, 16)).astype(np.float32)
infer(data)  # trace + warm up outside the profile
model(data, training=False)

tf.profiler.experimental.start(logdir)
step = 0
for _ in range(5):
    with tf.profiler.experimental.Trace("step", step_num=step, _r=1):
        infer(data).numpy()
    step += 1
for _ in range(3):
    with tf.profiler.experimental.Trace("step", step_num=step, _r=1):
        model(data, training=False).numpy()
    step += 1
tf.profiler.experimental.stop()

xp = glob.glob(logdir + "/plugins/profile/*/*.xplane.pb")
assert len(xp) == 1, xp


def tool(name):
    """xprof's own converter (xprof.convert.raw_to_tool_data), every event (resolution 0)."""
    from xprof.convert import raw_to_tool_data as r2t

    data, _ = r2t.xspace_to_tool_data(xp, name, {"trace_viewer_options": {"resolution": 0},
                                                 "use_saved_result": False})
    if isinstance(data, str):
        data = data.encode()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


open(os.path.join(out, "lstm.trace_viewer_at.json"), "wb").write(tool("trace_viewer@"))
open(os.path.join(out, "lstm.trace_viewer.json"), "wb").write(tool("trace_viewer"))
fos = tool("framework_op_stats")
open(os.path.join(out, "lstm.framework_op_stats.json"), "wb").write(fos)

# the truth: framework_op_stats' host rows (TF's own per-op accounting)
d = json.loads(fos)
# xprof writes the table twice: with the IDLE row, then without it; the first one only
tables = (d if isinstance(d, list) else [d])[:1]
ops, nodes, graph_n, graph_us, eager_n, eager_us = {}, {}, 0, 0.0, 0, 0.0
for tb in tables:
    cols = [c.get("id") or c.get("label") for c in tb["cols"]]
    if "type" not in cols or "occurrences" not in cols:
        continue
    for r in tb["rows"]:
        v = dict(zip(cols, [c.get("v") if isinstance(c, dict) else c for c in r["c"]]))
        if v.get("host_or_device") != "Host" or v["type"] == "IDLE":
            continue
        n, us = int(v["occurrences"]), float(v["total_self_time"])
        e = ops.setdefault(v["type"], [0, 0.0])
        e[0] += n
        e[1] += us
        nodes[v["operation"]] = [v["type"], n, us]
        eager = v.get("eager")  # "Execution mode": "Function" (graph) or "Eager"
        if eager == "Eager":
            eager_n += n
            eager_us += us
        else:
            graph_n += n
            graph_us += us
try:
    import importlib.metadata as md

    xv = md.version("xprof")
except Exception:
    xv = "?"
json.dump({"tf": tf.__version__, "xprof": xv, "types": ops, "nodes": nodes, "graph_ops": graph_n, "graph_us": graph_us,
           "eager_ops": eager_n, "eager_us": eager_us, "steps": step},
          open(os.path.join(out, "truth.json"), "w"), indent=1)
print("tf", tf.__version__, "xprof", xv, "graph", graph_n, graph_us, "eager", eager_n, eager_us)
