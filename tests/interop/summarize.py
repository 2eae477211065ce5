#!/usr/bin/env python3
"""summarize.py OUT N1 N4: the checks of issue 17's "Done when" on an interop run, and its table.

Reads OUT/runs/ID/ (cmd, rc, time, stderr, and result.json + records.jsonl [+ detail.jsonl] for
latscope, artifacts/ for aiperf, stdout for wrk), writes OUT/summary.json and OUT/summary.md,
prints the markdown, exits 0 when every check held, 1 otherwise. Every number comes from the
files: nothing is assumed about what a run should give except the workload it was asked for.
"""
import glob
import json
import os
import re
import sys

OUT, N1, N4 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
RUNS = os.path.join(OUT, "runs")
OSL = 32  # --output-tokens / --output-tokens-mean of every LLM run
ISL = 16
checks = []


def check(name, ok, detail):
    checks.append({"check": name, "ok": bool(ok), "detail": detail})


def read(path, default=None):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return default


def jsonl(path):
    txt = read(path)
    if txt is None:
        return None
    return [json.loads(l) for l in txt.splitlines() if l.strip()]


def cpu(d):
    t = read(os.path.join(d, "time"), "")
    m = re.search(r"([\d.]+) ([\d.]+) ([\d.]+)\s*$", t)
    return (float(m.group(1)) + float(m.group(2)), float(m.group(3))) if m else (None, None)


def rnd(x, n=3):
    return None if x is None else round(x, n)


def latscope_run(rid, n_want):
    d = os.path.join(RUNS, rid)
    if not os.path.isdir(d):
        return None
    rc = int(read(os.path.join(d, "rc"), "-1").strip() or -1)
    res = {"id": rid, "tool": "latscope", "rc": rc, "cmd": read(os.path.join(d, "cmd"), "").strip(),
           "requests_asked": n_want}
    try:
        j = json.loads(read(os.path.join(d, "result.json"), ""))
        p = j["points"][0]
    except (ValueError, KeyError, IndexError, TypeError):
        res["broken"] = (read(os.path.join(d, "stderr"), "") or "")[-400:]
        return res
    e = p.get("errors", {})
    res.update({
        "view": p.get("metrics_view", "latscope") if "ttft_ms" in p else None,
        "ok": p["requests"], "errors": e.get("total", 0),
        "error_classes": {k: v for k, v in e.items() if k != "total" and v},
        "llm_errors": {k: v for k, v in (p.get("llm_errors") or {}).items() if v},
        "stale_retries": p.get("stale_retries"), "valid": p["valid"],
        "invalid_reason": p.get("invalid_reason"), "client_cpu_pct": p.get("client_cpu_pct"),
        "latency_mean_ms": p["latency_ms"]["mean"] if p.get("latency_ms") else None,
        "latency_actual_mean_ms": p["latency_actual_ms"]["mean"] if p.get("latency_actual_ms") else None,
        "bytes": p.get("bytes"),
    })
    for k in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        if isinstance(p.get(k), dict):
            res[k.replace("_ms", "_mean_ms")] = p[k].get("mean")
    for k in ("output_tokens", "tokens_source", "tokens_source_counts", "input_tokens_mean",
              "input_tokens_source", "osl_mismatch", "isl_short", "first_error"):
        if k in p:
            res[k] = p[k]
    recs = jsonl(os.path.join(d, "records.jsonl")) or []
    res["records"] = len(recs)
    res["records_ok"] = sum(1 for r in recs if r.get("error") is None)
    # send lag of the first wave (t_sched 0: each connection's first request) against the rest
    # (issue 17 item 7: the first request per connection carried the client's start-up lag)
    lag0 = [(r["t_send_ns"] - r["t_sched_ns"]) / 1e6 for r in recs if r.get("t_sched_ns") == 0 and r.get("t_send_ns", -1) >= 0]
    lag1 = [(r["t_send_ns"] - r["t_sched_ns"]) / 1e6 for r in recs if r.get("t_sched_ns", 0) > 0 and r.get("t_send_ns", -1) >= 0]
    res["send_lag_first_wave_max_ms"] = rnd(max(lag0)) if lag0 else None
    res["send_lag_later_max_ms"] = rnd(max(lag1)) if lag1 else None
    det = jsonl(os.path.join(d, "detail.jsonl"))
    if det is not None:
        res["detail_lines"] = len(det)
        oks = [r for r in det if r.get("error") is None]
        res["detail_ok_tokens"] = sorted({r.get("output_tokens") for r in oks})
        res["detail_error_tokens"] = sorted({r.get("output_tokens") for r in det if r.get("error") is not None})
    c, wall = cpu(d)
    res["cpu_s"], res["wall_s"] = c, wall
    if c is not None and n_want:
        res["cpu_ms_per_request"] = rnd(c * 1000 / n_want, 2)
    return res


def aiperf_metric(j, tag, stat="avg"):
    m = j.get(tag)
    if isinstance(m, dict):
        return m.get(stat)
    recs = j.get("records")
    if isinstance(recs, dict) and isinstance(recs.get(tag), dict):
        return recs[tag].get(stat)
    return None


def aiperf_run(rid, n_want):
    d = os.path.join(RUNS, rid)
    if not os.path.isdir(d):
        return None
    rc = int(read(os.path.join(d, "rc"), "-1").strip() or -1)
    res = {"id": rid, "tool": "aiperf", "view": "aiperf", "rc": rc, "requests_asked": n_want,
           "cmd": read(os.path.join(d, "cmd"), "").strip()}
    f = sorted(glob.glob(os.path.join(d, "artifacts", "**", "profile_export_aiperf.json"), recursive=True))
    if not f:
        out = (read(os.path.join(d, "stdout"), "") or "") + (read(os.path.join(d, "stderr"), "") or "")
        m = re.search(r"All (\d+) inference request\(s\) failed", out)
        if m:
            # aiperf ran and failed every request (it exits 1 and writes no profile export):
            # a fact about aiperf against this server, reported, not a broken run
            res.update({"ok": 0, "errors": int(m.group(1)), "all_failed": True,
                        "aiperf_version": read(os.path.join(OUT, "versions.txt"), "").split("aiperf ")[-1].split()[0]
                        if "aiperf " in read(os.path.join(OUT, "versions.txt"), "") else None})
            c, wall = cpu(d)
            res["cpu_s"], res["wall_s"] = c, wall
            return res
        res["broken"] = out[-600:]
        return res
    j = json.load(open(f[0]))
    res["aiperf_version"] = j.get("aiperf_version")
    ok = aiperf_metric(j, "request_count")
    err = aiperf_metric(j, "error_request_count")
    res.update({
        "ok": int(ok) if ok is not None else 0, "errors": int(err) if err is not None else 0,
        "ttft_mean_ms": aiperf_metric(j, "time_to_first_token"),
        "itl_mean_ms": aiperf_metric(j, "inter_token_latency"),
        "e2e_mean_ms": aiperf_metric(j, "request_latency"),
        "osl_mean": aiperf_metric(j, "output_sequence_length"),
        "isl_mean": aiperf_metric(j, "input_sequence_length"),
        "error_summary": [{"count": e.get("count"), "type": (e.get("error_details") or {}).get("type"),
                           "message": ((e.get("error_details") or {}).get("message") or "")[:160]}
                          for e in (j.get("error_summary") or [])],
    })
    recs = sorted(glob.glob(os.path.join(d, "artifacts", "**", "profile_export.jsonl"), recursive=True))
    if recs:
        rr = jsonl(recs[0]) or []
        res["records"] = len(rr)
        res["records_error"] = sum(1 for r in rr if r.get("error"))
        osl = sorted({(r.get("metrics") or {}).get("output_sequence_length", {}).get("value")
                      for r in rr if not r.get("error") and (r.get("metrics") or {}).get("output_sequence_length")})
        res["ok_osl_values"] = osl
    c, wall = cpu(d)
    res["cpu_s"], res["wall_s"] = c, wall
    if c is not None and n_want:
        res["cpu_ms_per_request"] = rnd(c * 1000 / n_want, 2)
    return res


runs = {}
servers = [s for s in ("lcp", "lcpnoint", "llamaserver") if os.path.isdir(os.path.join(RUNS, s + "-c1"))]
for s in servers:
    for suffix, n in (("-c1-events", N1), ("-c1", N1), ("-c4", N4), ("-c1-aiperf-view", N1),
                      ("-c4-aiperf-view", N4), ("-overctx", 5)):
        r = latscope_run(s + suffix, n)
        if r:
            runs[r["id"]] = r
    for c, n in ((1, N1), (4, N4)):
        r = aiperf_run("%s-c%d-aiperf" % (s, c), n)
        if r:
            runs[r["id"]] = r
for kind in ("kserve", "kserve-b8", "plain"):
    for c, n in ((1, N1), (4, N4)):
        r = latscope_run("ort-%s-c%d" % (kind, c), n)
        if r:
            runs[r["id"]] = r

# ---------- checks ----------
for rid, r in runs.items():
    if r.get("broken") is not None:
        check("%s ran" % rid, False, "no result: " + r["broken"])
        continue
    if r["tool"] == "latscope":
        n = r["requests_asked"]
        acc = r["ok"] + r["errors"]
        check("%s: every request accounted for" % rid, acc == n and r["records"] == n,
              "ok %d + errors %d = %d of %d asked; %d --records lines" % (r["ok"], r["errors"], acc, n, r["records"]))
        check("%s: --records agree with the summary" % rid, r["records_ok"] == r["ok"],
              "records without error %d, summary ok %d" % (r["records_ok"], r["ok"]))
        want_rc = 0 if r["valid"] else 1
        check("%s: exit status" % rid, r["rc"] == want_rc,
              "rc %d, valid %s (%s)" % (r["rc"], r["valid"], r.get("invalid_reason")))
        ec = r["error_classes"]
        check("%s: no stale-connection error" % rid, ec.get("reset", 0) == 0 and ec.get("connect", 0) == 0
              and r["llm_errors"].get("transport", 0) == 0,
              "reset %d, connect %d, transport %d; stale_retries %s" % (ec.get("reset", 0), ec.get("connect", 0),
                                                                       r["llm_errors"].get("transport", 0), r["stale_retries"]))
        if r.get("view") is not None:
            check("%s: engine and LLM counters agree" % rid, r["errors"] == r["llm_errors"].get("total", 0),
                  "engine errors %d, llm_errors %s" % (r["errors"], r["llm_errors"]))
            if "detail_ok_tokens" in r:
                check("%s: no incomplete answer counted ok (records-detail)" % rid,
                      r["detail_ok_tokens"] in ([], [OSL]),
                      "output_tokens of ok requests %s (want %d each), of failed %s" %
                      (r["detail_ok_tokens"], OSL, r["detail_error_tokens"]))
            if "overctx" in rid:
                fe = r.get("first_error") or {}
                # Two honest outcomes: the server refuses (llama-cpp-python: HTTP 400), every
                # request fails, INVALID, rc 1; or it cuts the prompt and answers (llama-server):
                # then every success must be named isl_short.
                short = (r.get("isl_short") or {}).get("requests", 0)
                check("%s: over-context prompts all fail (INVALID, rc 1) or every success is isl_short" % rid,
                      (r["ok"] == 0 and r["errors"] == n and not r["valid"] and r["rc"] == 1) or
                      (r["ok"] > 0 and short == r["ok"]),
                      "ok %d errors %d valid %s rc %d isl_short %s; first error %s %s: %s" %
                      (r["ok"], r["errors"], r["valid"], r["rc"], r.get("isl_short"), fe.get("class"),
                       fe.get("http_status"), (fe.get("message") or "")[:120]))
            elif "events" in rid:
                if r["ok"]:
                    check("%s: honest without a counter (events)" % rid,
                          r.get("tokens_source") in ("events", "usage") and r.get("output_tokens") == OSL * r["ok"],
                          "source %s, output_tokens %s for %d ok (want %d)" %
                          (r.get("tokens_source"), r.get("output_tokens"), r["ok"], OSL * r["ok"]))
            else:
                if r["ok"]:
                    check("%s: exact output tokens (--tokenize-url auto)" % rid,
                          r.get("tokens_source") in ("tokenize-endpoint", "usage") and
                          r.get("output_tokens") == OSL * r["ok"],
                          "source %s, output_tokens %s for %d ok (want %d)" %
                          (r.get("tokens_source"), r.get("output_tokens"), r["ok"], OSL * r["ok"]))
                    check("%s: exact input tokens" % rid, r.get("input_tokens_mean") == ISL,
                          "input_tokens_mean %s (source %s), want %d" %
                          (r.get("input_tokens_mean"), r.get("input_tokens_source"), ISL))
    else:
        n = r["requests_asked"]
        check("%s: aiperf accounted for every request" % rid, r["ok"] + r["errors"] == n,
              "ok %d + errors %d of %d (rc %d)" % (r["ok"], r["errors"], n, r["rc"]))
        if r.get("ok_osl_values") is not None and r["ok"]:
            check("%s: aiperf's output tokens of ok requests" % rid, r["ok_osl_values"] == [OSL],
                  "values %s (want %d)" % (r["ok_osl_values"], OSL))

# the user's body (issue 17 item 5): a batch-8 KServe body must get the batch-8 answer every time
for c in (1, 4):
    r = runs.get("ort-kserve-b8-c%d" % c)
    ans = read(os.path.join(RUNS, "kserve-b8.answer"))
    if r and not r.get("broken") and ans is not None:
        check("ort-kserve-b8-c%d: the -d @FILE body was sent (batch-8 answers)" % c,
              r["ok"] and r["bytes"] == r["ok"] * len(ans.encode()),
              "response bytes %s for %d ok, the batch-8 answer is %d bytes" % (r["bytes"], r["ok"], len(ans.encode())))
    r = runs.get("ort-plain-c%d" % c)
    ans = read(os.path.join(RUNS, "plain-b1.answer"))
    if r and not r.get("broken") and ans is not None:
        check("ort-plain-c%d: plain JSON answers" % c, r["ok"] and r["bytes"] == r["ok"] * len(ans.encode()),
              "response bytes %s for %d ok, one answer is %d bytes" % (r["bytes"], r["ok"], len(ans.encode())))

# wrk (optional)
wrk = {}
for c in (1, 4):
    t = read(os.path.join(RUNS, "ort-plain-c%d-wrk" % c, "stdout"))
    if t:
        m = re.search(r"Latency\s+([\d.]+)(us|ms|s)", t)
        q = re.search(r"(\d+) requests in", t)
        if m and q:
            v = float(m.group(1)) * {"us": 1e-3, "ms": 1, "s": 1e3}[m.group(2)]
            wrk["c%d" % c] = {"latency_mean_ms": v, "requests": int(q.group(1))}

# ---------- table ----------
def f(x, n=1):
    return "-" if x is None else ("%.*f" % (n, x))


lines = ["| server | c | tool (view) | ok | errors (classes) | TTFT mean ms | ITL mean ms | E2E mean ms | "
         "output tokens (source) | client CPU ms/req | rc |", "|---|---|---|---|---|---|---|---|---|---|---|"]
for s in servers:
    for c in (1, 4):
        for rid in ("%s-c%d-events" % (s, c), "%s-c%d" % (s, c), "%s-c%d-aiperf-view" % (s, c), "%s-c%d-aiperf" % (s, c)):
            r = runs.get(rid)
            if not r or r.get("broken") is not None:
                continue
            if r["tool"] == "latscope":
                tool = "latscope (%s%s)" % (r.get("view") or "-", ", events" if "events" in rid else "")
                errs = "%d (%s)" % (r["errors"], ", ".join("%s %d" % kv for kv in r["error_classes"].items()) or "-")
                if r.get("stale_retries"):
                    errs += "; stale_retries %d" % r["stale_retries"]
                toks = "%s (%s)" % (r.get("output_tokens"), r.get("tokens_source"))
            else:
                tool = "aiperf %s" % (r.get("aiperf_version") or "")
                errs = "%d (%s)" % (r["errors"], ", ".join("%s %s" % (e["type"], e["count"]) for e in r.get("error_summary") or []) or
                                      ("all failed" if r.get("all_failed") else "-"))
                toks = "%s/req (client tokenizer)" % f(r.get("osl_mean"))
            lines.append("| %s | %d | %s | %d | %s | %s | %s | %s | %s | %s | %d |" % (
                s, c, tool, r["ok"], errs, f(r.get("ttft_mean_ms"), 2), f(r.get("itl_mean_ms"), 2),
                f(r.get("e2e_mean_ms"), 2), toks, f(r.get("cpu_ms_per_request"), 1), r["rc"]))
table = "\n".join(lines)
olines = ["| workload | c | ok | errors | latency mean ms (intended / actual send) | response bytes | client CPU ms/req | rc |",
          "|---|---|---|---|---|---|---|---|"]
for kind in ("kserve", "kserve-b8", "plain"):
    for c in (1, 4):
        r = runs.get("ort-%s-c%d" % (kind, c))
        if not r or r.get("broken") is not None:
            continue
        olines.append("| %s | %d | %d | %d | %s / %s | %s | %s | %d |" % (
            kind, c, r["ok"], r["errors"], f(r.get("latency_mean_ms"), 2), f(r.get("latency_actual_mean_ms"), 2),
            r.get("bytes"), f(r.get("cpu_ms_per_request"), 1), r["rc"]))
for c, w in sorted(wrk.items()):
    olines.append("| plain (wrk, 5 s) | %s | %d | - | - / %s | - | - | - |" % (c[1:], w["requests"], f(w["latency_mean_ms"], 2)))
otable = "\n".join(olines)

failed = [c for c in checks if not c["ok"]]
notes = []
for rid, r in runs.items():
    if r.get("all_failed"):
        notes.append("%s: aiperf failed all %d requests (rc %d, no profile export): see its stdout; "
                     "latscope's runs on the same server say whether the server answered" % (rid, r["errors"], r["rc"]))
    a, b = r.get("send_lag_first_wave_max_ms"), r.get("send_lag_later_max_ms")
    if a is not None and b is not None and a > 1.0 and a > 10 * max(b, 0.001):
        notes.append("%s: the first request of each connection was sent %.3f ms late (later requests at most "
                     "%.3f ms): the worker woke late for the point's start (connections are opened before it); "
                     "a closed loop's later requests are scheduled when the worker sees their predecessor end, "
                     "so their lag is ~0 by construction" % (rid, a, b))
md = ["# latscope interop run", "", "versions:", "", "```", (read(os.path.join(OUT, "versions.txt"), "") or "").strip(), "```", "",
      "## LLM servers", "", table, "", "## FastAPI + onnxruntime", "", otable, "",
      "## Checks: %d of %d held" % (len(checks) - len(failed), len(checks)), ""]
for c in checks:
    md.append("- %s %s: %s" % ("ok  " if c["ok"] else "FAIL", c["check"], c["detail"]))
if notes:
    md += ["", "## Notes (not checks)", ""] + ["- " + n for n in notes]
srvfail = read(os.path.join(OUT, "server-failures"))
if srvfail:
    md += ["", "Servers that did not start: " + srvfail.strip().replace("\n", "; ")]
md = "\n".join(md) + "\n"
with open(os.path.join(OUT, "summary.md"), "w") as fh:
    fh.write(md)
with open(os.path.join(OUT, "summary.json"), "w") as fh:
    json.dump({"runs": runs, "wrk": wrk, "checks": checks, "notes": notes, "failed": len(failed)}, fh, indent=1)
print(md)
print("interop: %d checks, %d failed; %s" % (len(checks), len(failed), os.path.join(OUT, "summary.json")))
sys.exit(1 if failed or not checks else 0)
