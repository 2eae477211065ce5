#!/usr/bin/env python3
"""mutate-real.py - mutated real files through the sanitizer build (issue 32's mutation driver).

    tests/tools/mutate-real.py [--latscope build-san/latscope] [--traces DIR] [--seconds N]
                               [--seed S] [--max-bytes B] [--no-ledger]

Picks the real samples under DIR (default ../shared/traces) of at most B bytes (default 200 000;
.gz members are decompressed first) whose kind latscope reads (JSON, CSV, perf script / folded /
trtexec / ncu text, xplane.pb), and until N seconds have passed (default 60) writes one mutant of a
random file under its original name (the name routes the sniffing) and runs `latscope analyze`
and `latscope doctor` on it. A mutant is one of:
  flip     1-8 random bytes replaced by random bytes
  cut      the file truncated at a random offset
  swap     two JSON values (numbers or strings) or two CSV fields of a line exchanged
  dup      a random slice repeated in place
  drop     a random slice removed
A run fails when latscope dies of a signal, exits other than 0-3, takes more than 60 s, or prints a
sanitizer report (AddressSanitizer, LeakSanitizer, "runtime error:"); the mutant is kept in
build-san/mutate-crashes/ with the command and its stderr. The count of runs and the result go to
docs/fuzz-ledger.tsv as target `mutate-real` (then tests/tools/fuzz-ledger.sh --update), unless
--no-ledger. Exit 1 on any failure, 77 when no sanitizer build or no real files are there.
"""
import argparse
import gzip
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KINDS = (".json", ".csv", ".txt", ".log", ".folded", ".pb")
SAN_MARKS = (b"AddressSanitizer", b"LeakSanitizer", b"runtime error:", b"UndefinedBehaviorSanitizer")
VALUE = re.compile(rb'-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\\n]|\\.){0,200}"')


def pick_files(traces, max_bytes):
    out = []
    for d, _, names in os.walk(traces):
        for n in sorted(names):
            p = os.path.join(d, n)
            base = n[:-3] if n.endswith(".gz") else n
            if not base.endswith(KINDS) or n.endswith(".py") or n == "README.md":
                continue
            try:
                if n.endswith(".gz"):
                    if os.path.getsize(p) > max_bytes:
                        continue
                    data = gzip.open(p).read(max_bytes + 1)
                else:
                    if os.path.getsize(p) > max_bytes:
                        continue
                    data = open(p, "rb").read()
            except (OSError, EOFError, gzip.BadGzipFile):
                continue
            if 0 < len(data) <= max_bytes:
                out.append((base, data))
    return out


def mutate(rng, data):
    n = len(data)
    kind = rng.choice(("flip", "cut", "swap", "dup", "drop"))
    b = bytearray(data)
    if kind == "flip":
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(n)] = rng.randrange(256)
    elif kind == "cut":
        b = b[: rng.randrange(n)]
    elif kind == "swap":
        text = bytes(b)
        if b"," in text[:4096] and not text.lstrip().startswith((b"{", b"[")):
            lines = text.split(b"\n")
            i = rng.randrange(len(lines))
            f = lines[i].split(b",")
            if len(f) > 1:
                x, y = rng.sample(range(len(f)), 2)
                f[x], f[y] = f[y], f[x]
                lines[i] = b",".join(f)
            b = bytearray(b"\n".join(lines))
        else:
            spans = [m.span() for m in VALUE.finditer(text, 0, min(n, 1 << 20))]
            if len(spans) > 1:
                (a0, a1), (c0, c1) = sorted(rng.sample(spans, 2))
                if a1 <= c0:
                    b = bytearray(text[:a0] + text[c0:c1] + text[a1:c0] + text[a0:a1] + text[c1:])
    elif kind == "dup":
        i = rng.randrange(n)
        j = min(n, i + rng.randint(1, 4096))
        b = b[:j] + b[i:j] + b[j:]
    else:
        i = rng.randrange(n)
        j = min(n, i + rng.randint(1, 4096))
        b = b[:i] + b[j:]
    return kind, bytes(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--latscope", default=os.path.join(ROOT, "build-san", "latscope"))
    ap.add_argument("--traces", default=os.environ.get("LATSCOPE_TRACES", os.path.join(ROOT, "..", "shared", "traces")))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--max-bytes", type=int, default=200000)
    ap.add_argument("--no-ledger", action="store_true")
    a = ap.parse_args()
    if not os.access(a.latscope, os.X_OK):
        print("mutate-real: skip: no sanitizer build at %s (make SAN=address,undefined)" % a.latscope)
        return 77
    files = pick_files(a.traces, a.max_bytes)
    if not files:
        print("mutate-real: skip: no real files under %s" % a.traces)
        return 77
    rng = random.Random(a.seed)
    crashes = os.path.join(ROOT, "build-san", "mutate-crashes")
    work = tempfile.mkdtemp(prefix="latscope-mutate.")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", UBSAN_OPTIONS="halt_on_error=1")
    runs = fails = 0
    kinds = {}
    t0 = time.monotonic()
    try:
        while time.monotonic() - t0 < a.seconds:
            name, data = rng.choice(files)
            kind, mutant = mutate(rng, data)
            kinds[kind] = kinds.get(kind, 0) + 1
            path = os.path.join(work, name)
            with open(path, "wb") as f:
                f.write(mutant)
            for cmd in ("analyze", "doctor"):
                runs += 1
                why = None
                try:
                    p = subprocess.run([a.latscope, cmd, path], stdout=subprocess.DEVNULL,
                                       stderr=subprocess.PIPE, env=env, timeout=60)
                    if p.returncode < 0:
                        why = "signal %d" % -p.returncode
                    elif p.returncode > 3:
                        why = "exit %d" % p.returncode
                    elif any(m in p.stderr for m in SAN_MARKS):
                        why = "sanitizer report"
                    err = p.stderr
                except subprocess.TimeoutExpired as e:
                    why, err = "over 60 s", e.stderr or b""
                if why:
                    fails += 1
                    os.makedirs(crashes, exist_ok=True)
                    keep = os.path.join(crashes, "%d-%s-%s" % (runs, kind, name))
                    shutil.copyfile(path, keep)
                    with open(keep + ".why", "wb") as f:
                        f.write(("latscope %s %s: %s (seed %d)\n" % (cmd, name, why, a.seed)).encode() + err[-8000:])
                    print("mutate-real: FAIL %s %s (%s): %s" % (cmd, name, kind, why), file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    secs = time.monotonic() - t0
    print("mutate-real: %d runs on %d real files in %.0f s (seed %d; %s), %d failed" % (
        runs, len(files), secs, a.seed, ", ".join("%s %d" % kv for kv in sorted(kinds.items())), fails))
    if not a.no_ledger:
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        result = "ok" if not fails else "crash:build-san/mutate-crashes"
        with open(os.path.join(ROOT, "docs", "fuzz-ledger.tsv"), "a") as f:
            f.write("%s\t%s\tmutate-real\t%d\t%d\t0\t0\t%s\n" % (
                time.strftime("%Y-%m-%dT%H:%MZ", time.gmtime()), commit, secs, runs, result))
        subprocess.run([os.path.join(ROOT, "tests", "tools", "fuzz-ledger.sh"), "--update"], check=False)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
