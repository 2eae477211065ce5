"""phases.py - a Python program whose phases are known, for the CPU sampler's attribution test.

Each round runs three phases, each timed by the program itself with time.thread_time() (CPU
time of this thread, what cpu-clock samples measure):
  py_phase      a pure Python loop (interpreter frames only)
  zlib_phase    zlib.compress of a buffer (native code: deflate in libz)
  hash_phase    hashlib.sha256 over a buffer, called from a Python loop (native, OpenSSL)
Phase lengths vary randomly from round to round (about 1-6 ms each), so samples taken at a
fixed period cannot alias onto one phase. At the end the program writes its own shares (each
phase's CPU time over the sum of the three) as JSON to the file named by argv[2].
Usage: python3 phases.py CPU_SECONDS OUT.json [WEIGHTS]   (WEIGHTS "py,zlib,hash", e.g. 3,2,1)
       python3 phases.py rN OUT.json      N rounds of fixed work (no calibration), for overhead
                                          measurements (perf/30-cpuprof.sh): loop_wall_s
"""
import hashlib
import json
import random
import resource
import sys
import time
import zlib

random.seed(7)
DATA = bytes(random.getrandbits(8) for _ in range(1 << 16)) * 4  # 256 KiB, compressible-ish


def py_phase(n):
    s = 0
    for i in range(n):
        s += i * i % 7
    return s


def zlib_phase(n):
    out = 0
    for _ in range(n):
        out += len(zlib.compress(DATA[: 1 << 16], 6))
    return out


def hash_phase(n):
    h = hashlib.sha256()
    for _ in range(n):
        h.update(DATA)
    return h.digest()


def calibrate(fn, arg, ms):
    """How many units of fn take about ms milliseconds of CPU."""
    t0 = time.thread_time()
    fn(arg)
    dt = max(time.thread_time() - t0, 1e-6)
    return max(1, int(arg * ms / 1000.0 / dt))


def main():
    arg = sys.argv[1] if len(sys.argv) > 1 else "3"
    rounds = int(arg[1:]) if arg.startswith("r") else 0
    seconds = 0.0 if rounds else float(arg)
    out = sys.argv[2] if len(sys.argv) > 2 else None
    w = [float(x) for x in (sys.argv[3] if len(sys.argv) > 3 else "3,2,1").split(",")]
    if rounds:
        units = [20000, 2, 2]  # fixed work: the same in every run
    else:
        units = [calibrate(py_phase, 20000, 1.0), calibrate(zlib_phase, 4, 1.0),
                 calibrate(hash_phase, 4, 1.0)]
    spent = [0.0, 0.0, 0.0]
    fns = [py_phase, zlib_phase, hash_phase]
    end = time.thread_time() + seconds
    w0 = time.perf_counter()
    done = 0
    while (done < rounds) if rounds else (time.thread_time() < end):
        done += 1
        for k in range(3):
            n = max(1, int(units[k] * w[k] * random.uniform(0.5, 2.0)))
            t0 = time.thread_time()
            fns[k](n)
            spent[k] += time.thread_time() - t0
    wall = time.perf_counter() - w0
    tot = sum(spent)
    res = {"py_phase": spent[0] / tot, "zlib_phase": spent[1] / tot, "hash_phase": spent[2] / tot,
           "cpu_s": tot, "loop_wall_s": wall}
    ru = resource.getrusage(resource.RUSAGE_SELF)
    res["rusage_s"] = ru.ru_utime + ru.ru_stime  # the whole process, startup included
    if out:
        with open(out, "w") as f:
            json.dump(res, f)
    else:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
