"""cpu-preprocess-loop.py - a loop whose preprocess() (pure Python) takes most of the CPU and
infer() (json) the rest, for 2 s: the CPU-sample doctor test (tests/e2e/t734-doctor-cpu-samples.sh)
records it with latscope trace --cpu. Test-only."""
import time, json
def preprocess(n):
    s = 0
    for i in range(n):
        s += (i * 7) % 13
    return s
def infer(n):
    return sum(json.dumps({"k": list(range(50))}).count(",") for _ in range(n))
t = time.time()
while time.time() - t < 2.0:
    preprocess(20000)
    infer(60)
