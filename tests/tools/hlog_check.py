#!/usr/bin/env python3
"""hlog_check.py - checks a latscope .hlog with HdrHistogram's own Python package (hdrhistogram).

usage: hlog_check.py LOG EXPECTED
       hlog_check.py --sum LOG TAG      prints "<total count> <p50> <p99> <max>" of all
                                        entries tagged TAG, merged (values as in the log)
       hlog_check.py --write LOG        writes a 3-entry log with hdrh's HistogramLogWriter
                                        and prints "<total> <p50> <p99> <max>" per entry
EXPECTED has one line per entry: "<tag or -> <total> <p>=<value> ..." where the values are
what latscope computed with HdrHistogram's estimator (hist_value_at_percentile_hdr).
The log is read with hdrh.log.HistogramLogReader (header, BaseTime, tags) and every entry's
total count and percentiles must match exactly. Exit 0 = match, 1 = mismatch, 77 = hdrh absent.
"""
import sys

try:
    from hdrh.histogram import HdrHistogram
    from hdrh.log import HistogramLogReader
except ImportError:
    print("hdrhistogram (PyPI) not installed")
    sys.exit(77)


def sum_tag(log, tag):
    ref = HdrHistogram(1000, 3600 * 10**9, 3)
    reader = HistogramLogReader(log, ref)
    merged = None
    n = 0
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        if (h.get_tag() or "") != tag:
            continue
        n += 1
        if merged is None:
            merged = HdrHistogram(h.lowest_trackable_value, h.highest_trackable_value,
                                  h.significant_figures)
        merged.add(h)
    if merged is None:
        print(f"no entries tagged {tag}")
        return 1
    print(merged.get_total_count(), merged.get_value_at_percentile(50),
          merged.get_value_at_percentile(99), merged.get_max_value(), n)
    return 0


def write_log(path):
    from hdrh.log import HistogramLogWriter
    import random
    rnd = random.Random(7)
    with open(path, "w") as f:
        w = HistogramLogWriter(f)
        w.output_log_format_version()
        w.output_base_time(1767189312000)
        w.output_comment("[written by hdrh for latscope's reader test]")
        w.output_legend()
        for k in range(3):
            h = HdrHistogram(1000, 3600 * 10**9, 3)
            for _ in range(1000 + 1000 * k):
                h.record_value(int(20000 + rnd.expovariate(1 / (1e6 * (k + 1)))))
            w.output_interval_histogram(h, start_time_stamp_sec=float(k),
                                        end_time_stamp_sec=float(k + 1))
            print(h.get_total_count(), h.get_value_at_percentile(50),
                  h.get_value_at_percentile(99), h.get_max_value())
    return 0


def main():
    if sys.argv[1] == "--write":
        return write_log(sys.argv[2])
    if sys.argv[1] == "--sum":
        return sum_tag(sys.argv[2], sys.argv[3])
    log, expected = sys.argv[1], sys.argv[2]
    want = [l.split() for l in open(expected) if l.strip()]
    ref = HdrHistogram(1000, 3600 * 10**9, 3)
    reader = HistogramLogReader(log, ref)
    got = []
    while True:
        h = reader.get_next_interval_histogram()
        if h is None:
            break
        got.append(h)
    if len(got) != len(want):
        print(f"entries: hdrh read {len(got)}, expected {len(want)}")
        return 1
    bad = 0
    for i, (h, w) in enumerate(zip(got, want)):
        tag = h.get_tag() or "-"
        if tag != w[0]:
            print(f"entry {i}: tag {tag} != {w[0]}"); bad += 1
        if h.get_total_count() != int(w[1]):
            print(f"entry {i}: total {h.get_total_count()} != {w[1]}"); bad += 1
        for pv in w[2:]:
            p, v = pv.split("=")
            hv = h.get_value_at_percentile(float(p))
            if hv != int(v):
                print(f"entry {i} ({tag}): p{p} hdrh {hv} != latscope {v}"); bad += 1
    if reader.get_start_time_sec() <= 0:
        print("StartTime not parsed"); bad += 1
    print(f"hdrh: {len(got)} entries checked, {bad} mismatches")
    return 1 if bad else 0


sys.exit(main())
