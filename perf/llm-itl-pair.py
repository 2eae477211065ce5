#!/usr/bin/env python3
"""llm-itl-pair.py - pair `latscope bench --records-detail` with the fixture's `--send-log`.

usage: llm-itl-pair.py RECORDS.jsonl SEND_LOG.jsonl [NAME_PREFIX]

Both files carry CLOCK_MONOTONIC times of the same machine: a record's chunk i arrived at
t0_mono_ns + t_sched_ns + chunks_ms[i] * 1e6 (as stamped by the client at its recv()), and the
fixture's line with the same "id" says when content chunk i was written (send_ns[i], taken just
before the write; write_ns[i] is how long that write took). Per chunk, arrival - send is the
delivery delay (kernel loopback + wake-up + client), split into the fixture's write and
arrival - (send + write), the client's wake-up and read; per pair of consecutive chunks, (client gap) - (fixture send gap) is the client's
inter-token-latency measurement error, free of the fixture's own wake-up jitter.

Prints `name<TAB>value<TAB>unit<TAB>note` lines (perf/run.sh); exits 1 when nothing pairs.
Only error-free records count; percentiles are nearest-rank.
"""
import json
import sys


def pct(xs, q):
    """Nearest-rank percentile of a sorted list (q in 0..100)."""
    if not xs:
        return float("nan")
    k = max(0, -(-len(xs) * q // 100) - 1)
    return xs[min(len(xs) - 1, int(k))]


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    prefix = argv[3] if len(argv) > 3 else "llm.pair"
    sent, lates, writes, late, wdur, after = {}, {}, {}, [], [], []
    with open(argv[2]) as f:
        for n, line in enumerate(f, 1):
            try:
                s = json.loads(line)
                sent[s["id"]] = s["send_ns"]
                lates[s["id"]] = s.get("late_ns") or []
                writes[s["id"]] = s.get("write_ns") or []
            except (ValueError, KeyError, TypeError) as e:
                sys.stderr.write(f"{argv[2]}:{n}: not a send-log line ({e})\n")
                return 1
    cgap, sgap, err, delay = [], [], [], []
    records = unmatched = chunks = 0
    with open(argv[1]) as f:
        for n, line in enumerate(f, 1):
            r = json.loads(line)
            if r.get("error") is not None:
                continue
            records += 1
            rid = r.get("id")
            if rid not in sent or "t0_mono_ns" not in r:
                unmatched += 1
                continue
            base = r["t0_mono_ns"] + r["t_sched_ns"]
            arr = [base + round(ms * 1e6) for ms in r["chunks_ms"]]
            snd = sent[rid]
            lt, wr = lates[rid], writes[rid]
            if len(arr) > len(snd) or any(snd[i] is None for i in range(len(arr))):
                unmatched += 1
                continue
            chunks += len(arr)
            for i, a in enumerate(arr):
                delay.append(a - snd[i])
                if i < len(lt) and lt[i] is not None:
                    late.append(lt[i])
                if i < len(wr) and wr[i] is not None:
                    wdur.append(wr[i])
                    after.append(a - snd[i] - wr[i])
                if i:
                    cg, sg = a - arr[i - 1], snd[i] - snd[i - 1]
                    cgap.append(cg)
                    sgap.append(sg)
                    err.append(cg - sg)
    if not err:
        sys.stderr.write(f"no chunk gaps paired ({records} records, {unmatched} unmatched)\n")
        return 1
    for xs in (cgap, sgap, err, delay, late, wdur, after):
        xs.sort()
    aerr = sorted(abs(x) for x in err)
    us = lambda v: f"{v / 1000:.1f}"
    P = prefix
    out = [
        (f"{P}.paired_chunks", str(chunks), "chunks",
         f"{records} error-free records, {unmatched} without a matching send-log line"),
        (f"{P}.client_itl_p50", us(pct(cgap, 50)), "us", "client chunk gaps, pooled"),
        (f"{P}.client_itl_p99", us(pct(cgap, 99)), "us", ""),
        (f"{P}.fixture_send_gap_p50", us(pct(sgap, 50)), "us", "fixture's actual send gaps"),
        (f"{P}.fixture_send_gap_p99", us(pct(sgap, 99)), "us", ""),
        (f"{P}.itl_p50_minus_send_gap_p50", us(pct(cgap, 50) - pct(sgap, 50)), "us",
         "distribution level"),
        (f"{P}.itl_p99_minus_send_gap_p99", us(pct(cgap, 99) - pct(sgap, 99)), "us", ""),
        (f"{P}.gap_error_p50", us(pct(err, 50)), "us", "per gap: client gap - send gap"),
        (f"{P}.gap_error_p1", us(pct(err, 1)), "us", ""),
        (f"{P}.gap_error_p99", us(pct(err, 99)), "us", ""),
        (f"{P}.gap_error_abs_p99", us(pct(aerr, 99)), "us", "|client gap - send gap|"),
        (f"{P}.gap_error_abs_max", us(aerr[-1]), "us", ""),
        (f"{P}.delivery_delay_p50", us(pct(delay, 50)), "us", "arrival - send, per chunk"),
        (f"{P}.delivery_delay_p99", us(pct(delay, 99)), "us", ""),
        (f"{P}.delivery_delay_max", us(delay[-1]), "us", ""),
    ]
    if late:
        out += [
            (f"{P}.fixture_late_p50", us(pct(late, 50)), "us", "fixture send - planned time"),
            (f"{P}.fixture_late_p99", us(pct(late, 99)), "us", ""),
        ]
    if wdur:
        out += [
            (f"{P}.fixture_write_p50", us(pct(wdur, 50)), "us",
             "fixture's write call (loopback: incl. delivery to the client's socket)"),
            (f"{P}.fixture_write_p99", us(pct(wdur, 99)), "us", ""),
            (f"{P}.arrival_after_write_p50", us(pct(after, 50)), "us",
             "arrival - end of the write: client wake-up and read"),
            (f"{P}.arrival_after_write_p99", us(pct(after, 99)), "us", ""),
        ]
    for name, v, unit, note in out:
        print(f"{name}\t{v}\t{unit}\t{note}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
