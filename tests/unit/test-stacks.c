/*
 * test-stacks.c - the CPU stack-file readers (ingest/folded.c, perfscript.c, speedscope.c) on
 * hand-made inputs: what lands in the model (samples, stacks, threads, times, the sampling rate)
 * and what analyze's CPU summary (analyze/cpu.h) makes of it, at every chunk size; and the
 * errors for 0-byte, truncated and malformed files. Every expected number is worked out by hand
 * in the comments.
 */
#include "analyze/cpu.h"
#include "core/err.h"
#include "ingest/ingest.h"
#include "ingest/stacks.h"
#include "model/pyframe.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arg_str(const struct lat_trace *t, size_t i, const char *key)
{
    const struct lat_arg *a = lat_trace_arg(t, i, key);
    return a && a->type == LAT_ARG_STR ? lat_trace_str(t, a->str) : NULL;
}

/* Samples (by weight) of event stack `stack` on thread tid (-2: any); NULL: every stack. */
static uint64_t count_stack(const struct lat_trace *t, const char *stack, int64_t tid)
{
    uint64_t n = 0;
    uint32_t kw = strtab_find(&t->strs, "weight", 6);
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        if (tid != -2 && t->tracks[t->ev.track[i]].tid != tid) continue;
        const char *s = arg_str(t, i, "stack");
        if (!stack || (s && !strcmp(s, stack))) n += lat_sample_weight(t, i, kw);
    }
    return n;
}

static uint64_t nsamples(const struct lat_trace *t)
{
    return count_stack(t, NULL, -2);
}

static const struct lat_cpu_func *func(const struct lat_cpu_summary *s, const char *name)
{
    for (size_t i = 0; i < s->nfuncs; i++)
        if (!strcmp(s->funcs[i].name, name)) return &s->funcs[i];
    return NULL;
}

static uint64_t self_of(const struct lat_cpu_summary *s, const char *name)
{
    const struct lat_cpu_func *f = func(s, name);
    return f ? f->self : UINT64_MAX;
}

static const char *track_label(const struct lat_trace *t, int64_t tid)
{
    for (size_t i = 0; i < t->ntracks; i++)
        if (t->tracks[i].tid == tid)
            return t->tracks[i].tid_label ? lat_trace_str(t, t->tracks[i].tid_label) : "";
    return NULL;
}

/* ---- collapsed stacks ---------------------------------------------------------------------- */

/* py-spy --format raw -t style: 7 + 2 + 3 + 4 = 16 samples; a CRLF line, a blank line, an empty
 * stack (" 4": py-spy writes one for samples without Python frames). */
static const char handmade_folded[] =
    "thread (101): MainThread;main (app.py:10);work (app.py:20);spin (app.py:30) 7\n"
    "thread (101): MainThread;main (app.py:10);work (app.py:21) 2\r\n"
    "\n"
    "thread (102): worker;run (w.py:5);0x7f00aa (libc.so.6);memcpy (libc.so.6) 3\n"
    " 4\n";

TEST(stacks_folded_handmade)
{
    for (size_t chunk = 0; chunk <= 7; chunk++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        struct lat_ingest_opts o = {.chunk_bytes = chunk};
        ASSERT_RC(ingest_mem(handmade_folded, sizeof(handmade_folded) - 1, "handmade.folded", &o,
                             &t, err, sizeof(err)));
        ASSERT_EQ_STR(t->format, "collapsed-stacks");
        ASSERT_EQ_U64(t->ev.n, 4); /* one event per line, of weight COUNT */
        ASSERT_EQ_U64(nsamples(t), 16);
        for (size_t i = 0; i < t->ev.n; i++) {
            ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_CPU_SAMPLE);
            ASSERT_EQ_I64(t->ev.ts[i], 0); /* no timestamps in the format */
            ASSERT_EQ_STR(arg_str(t, i, "state"), "on");
        }
        ASSERT_EQ_U64(
            count_stack(t, "py:main (app.py:10);py:work (app.py:20);py:spin (app.py:30)", 101), 7);
        ASSERT_EQ_U64(count_stack(t, "py:main (app.py:10);py:work (app.py:21)", 101), 2);
        ASSERT_EQ_U64(count_stack(t, "py:run (w.py:5);[libc.so.6];memcpy", 102), 3);
        ASSERT_EQ_U64(count_stack(t, "[unknown]", -1), 4);
        ASSERT_EQ_STR(track_label(t, 101), "MainThread");
        ASSERT_EQ_STR(track_label(t, 102), "worker");
        ASSERT(strstr(ingest_meta_get(t, "latscope_stacks"), "\"timestamps\":false"));

        struct lat_cpu_summary s;
        ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
        ASSERT_EQ_U64(s.samples, 16);
        ASSERT_EQ_I64(s.period_ns, 0); /* unknown: no times */
        ASSERT_EQ_U64(s.funcs[0].self, 7);
        ASSERT_EQ_STR(s.funcs[0].name, "py:spin (app.py)");
        const struct lat_cpu_func *w = func(&s, "py:work (app.py)"); /* lines 20 and 21 merged */
        ASSERT(w != NULL);
        uint64_t wself = w ? w->self : 0, wtotal = w ? w->total : 0;
        ASSERT_EQ_U64(wself, 2);
        ASSERT_EQ_U64(wtotal, 9);
        ASSERT_EQ_U64(self_of(&s, "memcpy"), 3);
        ASSERT_EQ_U64(self_of(&s, "[unknown]"), 4);
        ASSERT_EQ_U64(s.nthreads, 3);
        ASSERT_EQ_I64(s.threads[0].tid, 101);
        ASSERT_EQ_U64(s.threads[0].samples, 9);
        lat_cpu_summary_fini(&s);
        lat_trace_free(t);
    }
}

TEST(stacks_folded_plain_and_errors)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    /* stackcollapse-perf.pl output: frames kept as they are, one anonymous thread */
    static const char plain[] = "python;[libc.so.6];do_syscall_64_[k] 5\npython;main 1\n";
    ASSERT_RC(ingest_mem(plain, sizeof(plain) - 1, "handmade", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 2);
    ASSERT_EQ_U64(nsamples(t), 6);
    ASSERT_EQ_U64(count_stack(t, "python;[libc.so.6];do_syscall_64_[k]", -1), 5);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "do_syscall_64_[k]");
    lat_trace_free(t);

    static const char bad[] = "a;b 3\nc;d x\n";
    ASSERT_EQ_I64(
        ingest_mem(bad, sizeof(bad) - 1, "handmade-bad.folded", NULL, &t, err, sizeof(err)),
        LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "collapsed stacks") && strstr(err, "line 2"));
    static const char cut[] = "a;b 3\nc;d";
    ASSERT_EQ_I64(
        ingest_mem(cut, sizeof(cut) - 1, "handmade-cut.folded", NULL, &t, err, sizeof(err)),
        LAT_E_TRUNCATED);
    ASSERT(strstr(err, "cut short"));
    ASSERT_EQ_I64(ingest_mem("", 0, "handmade-empty.folded", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "collapsed stacks") && strstr(err, "0 bytes"));
    ASSERT_EQ_I64(ingest_mem("\x01\x02\x03", 3, "handmade-bin.folded", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "collapsed stacks") && strstr(err, "line 1"));
}

/* Weights are kept, never expanded (ingest/stacks.h): "a;b 19999999" is one event of weight
 * 19999999, at any size of file; the sum of a file's weights is at most STK_MAX_WEIGHT (2^53),
 * across lines too. The event cap (STK_CAP_*) is for events a reader makes of its own. */
TEST(stacks_folded_weight_kept)
{
    ASSERT_EQ_U64(stk_cap_of(0), STK_CAP_FIXED);
    ASSERT_EQ_U64(stk_cap_of(STK_CAP_FIXED / STK_CAP_PER_BYTE), STK_CAP_FIXED);
    ASSERT_EQ_U64(stk_cap_of(STK_CAP_FIXED / STK_CAP_PER_BYTE + 1),
                  (STK_CAP_FIXED / STK_CAP_PER_BYTE + 1) * STK_CAP_PER_BYTE);
    ASSERT_EQ_U64(stk_cap_of(UINT64_MAX), STK_MAX_SAMPLES);
    ASSERT_EQ_U64(stk_cap_of(STK_MAX_SAMPLES / STK_CAP_PER_BYTE + 1), STK_MAX_SAMPLES);

    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN], in[96];
    int n = snprintf(in, sizeof(in), "a;b 19999999\na;c 1\na;b 3\n");
    ASSERT_RC(ingest_mem(in, (size_t)n, "handmade.folded", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 3);
    ASSERT_EQ_U64(nsamples(t), 20000003);
    ASSERT_EQ_U64(count_stack(t, "a;b", -2), 20000002);
    ASSERT_EQ_U64(t->ev.nargs[1], 2); /* a count of 1: no weight arg */
    struct lat_cpu_summary s;
    ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
    ASSERT_EQ_U64(s.samples, 20000003);
    ASSERT_EQ_U64(self_of(&s, "b"), 20000002);
    ASSERT_EQ_U64(self_of(&s, "c"), 1);
    ASSERT_EQ_U64(s.funcs_total[0].total, 20000003); /* a */
    ASSERT_EQ_U64(s.threads[0].samples, 20000003);
    lat_cpu_summary_fini(&s);
    lat_trace_free(t);
    /* exactly 2^53 loads; one more sample, on one line or over two, is refused */
    n = snprintf(in, sizeof(in), "a;b %llu\n", STK_MAX_WEIGHT);
    ASSERT_RC(ingest_mem(in, (size_t)n, "handmade-max.folded", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(nsamples(t), STK_MAX_WEIGHT);
    lat_trace_free(t);
    n = snprintf(in, sizeof(in), "a;b %llu\n", STK_MAX_WEIGHT + 1);
    ASSERT_EQ_I64(ingest_mem(in, (size_t)n, "handmade-big.folded", NULL, &t, err, sizeof(err)),
                  LAT_E_OVERFLOW);
    ASSERT(strstr(err, "handmade-big.folded") && strstr(err, "line 1") &&
           strstr(err, "count 9007199254740993") && strstr(err, "2^53"));
    n = snprintf(in, sizeof(in), "a;b %llu\na;c 2\n", STK_MAX_WEIGHT - 1);
    ASSERT_EQ_I64(ingest_mem(in, (size_t)n, "handmade-two.folded", NULL, &t, err, sizeof(err)),
                  LAT_E_OVERFLOW);
    ASSERT(strstr(err, "line 2") && strstr(err, "count 2"));
    /* speedscope: one sample of a huge weight (unit "none" = a sample count): one event */
    static const char ss[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{"
        "\"type\":\"sampled\",\"name\":\"t\",\"unit\":\"none\",\"startValue\":0,\"endValue\":1,"
        "\"samples\":[[0],[0]],\"weights\":[19999999,1]}],"
        "\"shared\":{\"frames\":[{\"name\":\"f\",\"file\":\"/a/m.py\",\"line\":1}]}}";
    ASSERT_RC(
        ingest_mem(ss, sizeof(ss) - 1, "handmade-big.speedscope.json", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 2);
    ASSERT_EQ_U64(nsamples(t), 20000000);
    ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
    ASSERT_EQ_U64(s.samples, 20000000);
    lat_cpu_summary_fini(&s);
    lat_trace_free(t);
}

/* ---- perf script --------------------------------------------------------------------------- */

/* 4 samples of one cpu-clock event at period 250000 ns (4000 Hz): pid/tid/cpu headers, a comm
 * with a space, [unknown] symbols with and without a dso, a kernel frame, and a last sample
 * without callchain (the IP on the header line). */
static const char handmade_perf[] =
    "# ========\n"
    "# captured on    : handmade\n"
    "python 100/101 [002] 10.000100:     250000 cpu-clock: \n"
    "\t          4005d0 spin+0x10 (/opt/app/a.out)\n"
    "\t          400600 main+0x20 (/opt/app/a.out)\n"
    "\t          7f0000 [unknown] (/usr/lib/libc.so.6)\n"
    "\n"
    "python 100/101 [002] 10.000350:     250000 cpu-clock: \n"
    "\tffffffff81000010 do_syscall_64+0x71 ([kernel.kallsyms])\n"
    "\t          400600 main+0x20 (/opt/app/a.out)\n"
    "\t          7f0000 [unknown] ([unknown])\n"
    "\n"
    "worker thread 100/102 [003] 10.000400:     250000 cpu-clock: \n"
    "\t          400700 _ZN3foo3barEv (/opt/app/a.out)\n"
    "\n"
    "python 100/101 [002] 10.000600:     250000 cpu-clock:            4005d0 spin+0x10 "
    "(/opt/app/a.out)\n";

TEST(stacks_perf_script_handmade)
{
    for (size_t chunk = 0; chunk <= 7; chunk++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        struct lat_ingest_opts o = {.chunk_bytes = chunk};
        ASSERT_RC(ingest_mem(handmade_perf, sizeof(handmade_perf) - 1, "handmade.perf-script.txt",
                             &o, &t, err, sizeof(err)));
        ASSERT_EQ_STR(t->format, "perf-script");
        ASSERT_EQ_U64(t->ev.n, 4);
        ASSERT_EQ_U64(count_stack(t, "[libc.so.6];main;spin", 101), 1);
        ASSERT_EQ_U64(count_stack(t, "[unknown];main;do_syscall_64_[k]", 101), 1);
        ASSERT_EQ_U64(count_stack(t, "_ZN3foo3barEv", 102), 1);
        ASSERT_EQ_U64(count_stack(t, "spin", 101), 1);
        ASSERT_EQ_I64(t->ev.ts[0], INT64_C(10000100000)); /* 10.000100 s, exact ns */
        ASSERT_EQ_I64(t->ev.ts[3], INT64_C(10000600000));
        ASSERT_EQ_I64(t->tracks[t->ev.track[0]].pid, 100);
        ASSERT_EQ_STR(track_label(t, 102), "worker thread");
        ASSERT_EQ_STR(ingest_meta_get(t, "latscope_cpu_sample_hz"), "4000");
        struct lat_cpu_summary s;
        ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
        ASSERT_EQ_U64(s.samples, 4);
        ASSERT_EQ_I64(s.period_ns, 250000);
        ASSERT_EQ_STR(s.funcs[0].name, "spin");
        ASSERT_EQ_U64(s.funcs[0].self, 2);
        /* main and spin are on 2 samples each: the tie goes by name */
        ASSERT_EQ_STR(s.funcs_total[0].name, "main");
        ASSERT_EQ_U64(s.funcs_total[0].total, 2);
        lat_cpu_summary_fini(&s);
        lat_trace_free(t);
    }
}

TEST(stacks_perf_script_variants_and_errors)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    /* TID only, no period, another event: pid -1, no rate in the metadata */
    static const char tidonly[] = "perf 12 10.5: cycles: \n\t 4005d0 main (/a)\n";
    ASSERT_RC(ingest_mem(tidonly, sizeof(tidonly) - 1, "handmade", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 1);
    ASSERT_EQ_I64(t->ev.ts[0], INT64_C(10500000000));
    ASSERT_EQ_I64(t->tracks[t->ev.track[0]].pid, -1);
    ASSERT_EQ_I64(t->tracks[t->ev.track[0]].tid, 12);
    ASSERT(ingest_meta_get(t, "latscope_cpu_sample_hz") == NULL);
    lat_trace_free(t);

    static const char garbage[] = "perf 12 10.5: cycles: \n\t 4005d0 main (/a)\n\nhello world\n";
    ASSERT_EQ_I64(ingest_mem(garbage, sizeof(garbage) - 1, "handmade", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "`perf script` text") && strstr(err, "line 4"));
    static const char cut[] = "perf 12 10.5: cycles: \n\t 4005d0 main (/a)\n\t 4005e0 start+0x";
    ASSERT_EQ_I64(ingest_mem(cut, sizeof(cut) - 1, "handmade", NULL, &t, err, sizeof(err)),
                  LAT_E_TRUNCATED);
    ASSERT(strstr(err, "cut short"));
    ASSERT_EQ_I64(ingest_mem("", 0, "handmade.perf-script.txt", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "`perf script` text") && strstr(err, "0 bytes"));
}

/* `perf record` without -g: one line per sample, COMM right-aligned (so indented), no blank
 * line between samples (the layout perf 6.x writes; t701 records a real one); an indented
 * srcline after a sample is no sample. 4 samples, not 1 (issue 29). */
TEST(stacks_perf_script_no_callchain_handmade)
{
    static const char in[] =
        "            spin 30575 10394.539971:    2004008 cpu-clock:  ffffffff822621b4 "
        "irqentry_exit_to_user_mode+0x114 ([kernel.kallsyms])\n"
        "            spin 30575 10394.544399:    2004008 cpu-clock:      5634d707e162 leaf+0x29 "
        "(/tmp/spin)\n"
        "  spin.c:3\n"
        "            spin 30575 10394.546399:    2004008 cpu-clock:      5634d707e152 leaf+0x19 "
        "(/tmp/spin)\n"
        " python3.12-dbg 30576 10394.548399:    2004008 cpu-clock:      5634d707e152 [unknown] "
        "(/usr/bin/python3.12)\n";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    /* no name: the content alone says what it is */
    ASSERT_RC(ingest_mem(in, sizeof(in) - 1, NULL, NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "perf-script");
    ASSERT_EQ_U64(t->ev.n, 4);
    ASSERT_EQ_U64(count_stack(t, "leaf", 30575), 2);
    ASSERT_EQ_U64(count_stack(t, "irqentry_exit_to_user_mode_[k]", 30575), 1);
    ASSERT_EQ_U64(count_stack(t, "[python3.12]", 30576), 1);
    ASSERT_EQ_STR(track_label(t, 30576), "python3.12-dbg");
    lat_trace_free(t);
}

/* ---- speedscope ---------------------------------------------------------------------------- */

/* Two sampled profiles, "profiles" before "shared" as py-spy writes them. Profile 0 (py-spy
 * thread 11): samples at 0, 10, 20, 30 ms; profile 1 ("other", ms): one sample at 5 ms. */
static const char handmade_ss[] =
    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":["
    "{\"type\":\"sampled\",\"name\":\"Thread 11 \\\"MainThread\\\"\",\"unit\":\"seconds\","
    "\"startValue\":0.0,\"endValue\":0.04,\"samples\":[[0,1],[0,1],[0,1,2],[]],"
    "\"weights\":[0.01,0.01,0.01,0.01]},"
    "{\"type\":\"sampled\",\"name\":\"other\",\"unit\":\"milliseconds\",\"startValue\":5,"
    "\"endValue\":7,\"samples\":[[3]],\"weights\":[2]}],"
    "\"shared\":{\"frames\":[{\"name\":\"<module>\",\"file\":\"/a/m.py\",\"line\":1},"
    "{\"name\":\"f\",\"file\":\"/a/m.py\",\"line\":5},"
    "{\"name\":\"g\",\"file\":\"/a/m.py\",\"line\":9,\"col\":null},"
    "{\"name\":\"0x7f1\",\"file\":\"libc.so.6\"}]},\"exporter\":\"py-spy@0.4.3\"}";

TEST(stacks_speedscope_sampled_handmade)
{
    for (size_t chunk = 0; chunk <= 7; chunk++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        struct lat_ingest_opts o = {.chunk_bytes = chunk};
        ASSERT_RC(ingest_mem(handmade_ss, sizeof(handmade_ss) - 1, "handmade.speedscope.json", &o,
                             &t, err, sizeof(err)));
        ASSERT_EQ_STR(t->format, "speedscope");
        ASSERT_EQ_U64(t->ev.n, 5);
        ASSERT_EQ_U64(count_stack(t, "py:<module> (m.py:1);py:f (m.py:5)", 11), 2);
        ASSERT_EQ_U64(count_stack(t, "py:<module> (m.py:1);py:f (m.py:5);py:g (m.py:9)", 11), 1);
        ASSERT_EQ_U64(count_stack(t, "[unknown]", 11), 1);
        ASSERT_EQ_U64(count_stack(t, "[libc.so.6]", 1), 1); /* tid = profile index */
        ASSERT_EQ_I64(t->ev.ts[0], 0);
        ASSERT_EQ_I64(t->ev.ts[1], 10000000);
        ASSERT_EQ_I64(t->ev.ts[3], 30000000);
        ASSERT_EQ_I64(t->ev.ts[4], 5000000);
        ASSERT_EQ_STR(track_label(t, 11), "MainThread");
        ASSERT_EQ_STR(track_label(t, 1), "other");
        /* weights differ (10 ms and 2 ms): no rate in the metadata */
        ASSERT(ingest_meta_get(t, "latscope_cpu_sample_hz") == NULL);
        lat_trace_free(t);
    }
}

TEST(stacks_speedscope_evented_handmade)
{
    /* a open over [0, 1) ms, b inside it over [0.25, 0.75): sampled every 100 µs at 0..900:
     * "a" at 0, 100, 200, 800, 900 (5), "a;b" at 300..700 (5). */
    static const char ev[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"shared\":{"
        "\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]},\"profiles\":[{\"type\":\"evented\","
        "\"name\":\"e\",\"unit\":\"milliseconds\",\"startValue\":0,\"endValue\":1,\"events\":["
        "{\"type\":\"O\",\"frame\":0,\"at\":0},{\"type\":\"O\",\"frame\":1,\"at\":0.25},"
        "{\"type\":\"C\",\"frame\":1,\"at\":0.75},{\"type\":\"C\",\"frame\":0,\"at\":1}]}]}";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(ev, sizeof(ev) - 1, "handmade", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 10);
    ASSERT_EQ_U64(count_stack(t, "a", -2), 5);
    ASSERT_EQ_U64(count_stack(t, "a;b", -2), 5);
    ASSERT_EQ_STR(ingest_meta_get(t, "latscope_cpu_sample_hz"), "10000");
    struct lat_cpu_summary s;
    ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
    ASSERT_EQ_I64(s.period_ns, 100000);
    lat_cpu_summary_fini(&s);
    lat_trace_free(t);

    /* one py-spy-like profile at 100 Hz: the rate comes from the weights */
    static const char one[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{"
        "\"type\":\"sampled\",\"name\":\"Thread 5 \\\"\\\"\",\"unit\":\"seconds\",\"startValue\":"
        "0,\"endValue\":0.02,\"samples\":[[0],[0]],\"weights\":[0.01,0.01]}],\"shared\":{"
        "\"frames\":[{\"name\":\"x\",\"file\":\"x.py\",\"line\":3}]}}";
    ASSERT_RC(ingest_mem(one, sizeof(one) - 1, "handmade", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(ingest_meta_get(t, "latscope_cpu_sample_hz"), "100");
    ASSERT_EQ_U64(count_stack(t, "py:x (x.py:3)", 5), 2);
    ASSERT_EQ_STR(track_label(t, 5), ""); /* py-spy's empty name: no label */
    lat_trace_free(t);
}

TEST(stacks_speedscope_errors)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    size_t n = sizeof(handmade_ss) - 1;
    ASSERT_EQ_I64(ingest_mem(handmade_ss, n - 40, "handmade", NULL, &t, err, sizeof(err)),
                  LAT_E_TRUNCATED);
    ASSERT(strstr(err, "speedscope") && strstr(err, "cut short"));
    static const char bytes[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{"
        "\"type\":\"sampled\",\"unit\":\"bytes\",\"samples\":[[0]],\"weights\":[64]}],"
        "\"shared\":{\"frames\":[{\"name\":\"malloc\"}]}}";
    ASSERT_EQ_I64(ingest_mem(bytes, sizeof(bytes) - 1, "handmade", NULL, &t, err, sizeof(err)),
                  LAT_E_UNSUPPORTED);
    ASSERT(strstr(err, "memory profile"));
    static const char badidx[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{"
        "\"type\":\"sampled\",\"unit\":\"none\",\"samples\":[[7]],\"weights\":[1]}],"
        "\"shared\":{\"frames\":[{\"name\":\"a\"}]}}";
    ASSERT_EQ_I64(ingest_mem(badidx, sizeof(badidx) - 1, "handmade", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "refers to frame 7 of 1"));
    ASSERT_EQ_I64(ingest_mem("", 0, "handmade.speedscope.json", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "speedscope") && strstr(err, "0 bytes"));
}

/* ---- the shared samples: counts equal to the files' own ------------------------------------- */

TEST(stacks_shared_samples_load)
{
    char raw[4096], ss[4096], perf[4096];
    snprintf(raw, sizeof(raw), "%s",
             test_shared_path("cpu-stacks/pyspy0.4.3_ort_transformer.raw.txt"));
    snprintf(ss, sizeof(ss), "%s",
             test_shared_path("cpu-stacks/pyspy0.4.3_ort_transformer.speedscope.json"));
    snprintf(perf, sizeof(perf), "%s",
             test_shared_path("cpu-stacks/perf6.1_ort_transformer.perf-script.txt"));
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    /* the numbers the files hold (t167/t166/t168 recompute them with awk/python) */
    ASSERT_RC(ingest_open(raw, NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(nsamples(t), 749); /* sum of the counts */
    lat_trace_free(t);
    ASSERT_RC(ingest_open(ss, NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 767); /* samples of its one profile */
    ASSERT_EQ_STR(ingest_meta_get(t, "latscope_cpu_sample_hz"), "200"); /* weights 0.005 s */
    lat_trace_free(t);
    ASSERT_RC(ingest_open(perf, NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 1035);                                       /* header lines */
    ASSERT_EQ_STR(ingest_meta_get(t, "latscope_cpu_sample_hz"), "499"); /* period 2004008 */
    lat_trace_free(t);
}

/* ---- one frame-naming convention (model/pyframe.h) ------------------------------------------ */

TEST(pyframe_name_spelling)
{
    char b[64];
    ASSERT_EQ_U64(lat_py_frame_name(b, sizeof(b), "Enc.forward", 11, "/opt/x/enc.py", 13, 7),
                  strlen("py:Enc.forward (enc.py:7)"));
    ASSERT_EQ_STR(b, "py:Enc.forward (enc.py:7)");
    lat_py_frame_name(b, sizeof(b), "f", 1, "json/encoder.py", 15, -1); /* py-spy raw's path */
    ASSERT_EQ_STR(b, "py:f (json/encoder.py)");
    const char *full = "/usr/lib/python3.11/json/encoder.py";
    lat_py_frame_name(b, sizeof(b), "f", 1, full, strlen(full), 3);
    ASSERT_EQ_STR(b, "py:f (json/encoder.py:3)");
    full = "/opt/v/lib/python3.11/site-packages/np/linalg/__init__.py";
    lat_py_frame_name(b, sizeof(b), "f", 1, full, strlen(full), 3);
    ASSERT_EQ_STR(b, "py:f (np/linalg/__init__.py:3)");
    full = "/usr/lib/python3/dist-packages/a/b.py"; /* Debian's python3 packages */
    lat_py_frame_name(b, sizeof(b), "f", 1, full, strlen(full), 3);
    ASSERT_EQ_STR(b, "py:f (a/b.py:3)");
    full = "/home/u/python3/x.py"; /* python3 not under lib/: no import root */
    lat_py_frame_name(b, sizeof(b), "f", 1, full, strlen(full), 3);
    ASSERT_EQ_STR(b, "py:f (x.py:3)");
    lat_py_frame_name(b, sizeof(b), "_load", 5, "<frozen importlib._bootstrap>", 29, 690);
    ASSERT_EQ_STR(b, "py:_load (<frozen importlib._bootstrap>:690)");
    lat_py_frame_name(b, sizeof(b), "<module>", 8, "m.py", 4, 1);
    ASSERT_EQ_STR(b, "py:<module> (m.py:1)");
    /* cut short as snprintf: the length it needs, a NUL inside the buffer */
    ASSERT_EQ_U64(lat_py_frame_name(b, 8, "tokenize", 8, "/a/p.py", 7, 22),
                  strlen("py:tokenize (p.py:22)"));
    ASSERT_EQ_STR(b, "py:toke");
    ASSERT_EQ_U64(lat_py_frame_name(NULL, 0, "f", 1, "p.py", 4, 3), strlen("py:f (p.py:3)"));
}

/* The same frame of the same program as py-spy writes it in each of its formats (hand-made in
 * py-spy 0.4.3's spellings: speedscope keeps the absolute co_filename, raw the path relative to
 * its sys.path entry) and as a CPython 3.12 perf trampoline in `perf script`: every reader gives
 * the name `trace --cpu` gives the frame (cpuprof.c spells its frames with lat_py_frame_name()
 * from the co_filename and line it reads), so `latscope diff` matches them by name. */
static const char pyspy_ss[] =
    "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":[{\"type\":"
    "\"sampled\",\"name\":\"Thread 7 \\\"MainThread\\\"\",\"unit\":\"seconds\",\"startValue\":0,"
    "\"endValue\":0.01,\"samples\":[[0,1,2]],\"weights\":[0.01]}],\"shared\":{\"frames\":["
    "{\"name\":\"<module>\",\"file\":\"/abs/path/phase_torch.py\",\"line\":40},"
    "{\"name\":\"Enc.tokenize\",\"file\":\"/abs/path/phase_torch.py\",\"line\":22},"
    "{\"name\":\"JSONEncoder.encode\",\"file\":\"/usr/lib/python3.11/json/encoder.py\","
    "\"line\":201}]},"
    "\"exporter\":\"py-spy@0.4.3\"}";
static const char pyspy_raw[] = "<module> (phase_torch.py:40);Enc.tokenize (phase_torch.py:22);"
                                "JSONEncoder.encode (json/encoder.py:201) 1\n";
static const char perf_tramp[] =
    "python 100/101 [002] 10.000100:     250000 cpu-clock: \n"
    "\t          4005d0 py::Enc.tokenize:/abs/path/phase_torch.py+0x10 "
    "(/tmp/perf-100.map)\n"
    "\t          400600 py::<module>:/abs/path/phase_torch.py+0x20 "
    "(/tmp/perf-100.map)\n";

TEST(stacks_pyspy_names_equal_own_capture)
{
    char own_mod[128], own_tok[128], own_enc[128], own_stack[400];
    /* what trace --cpu's frame reader makes of the co_filename and line it reads */
    const char *prog = "/abs/path/phase_torch.py", *lib = "/usr/lib/python3.11/json/encoder.py";
    lat_py_frame_name(own_mod, sizeof(own_mod), "<module>", 8, prog, strlen(prog), 40);
    lat_py_frame_name(own_tok, sizeof(own_tok), "Enc.tokenize", 12, prog, strlen(prog), 22);
    lat_py_frame_name(own_enc, sizeof(own_enc), "JSONEncoder.encode", 18, lib, strlen(lib), 201);
    snprintf(own_stack, sizeof(own_stack), "%s;%s;%s", own_mod, own_tok, own_enc);
    ASSERT_EQ_STR(own_stack, "py:<module> (phase_torch.py:40);py:Enc.tokenize (phase_torch.py:22);"
                             "py:JSONEncoder.encode (json/encoder.py:201)");
    struct {
        const char *data, *name;
        size_t n;
    } in[] = {
        {pyspy_ss, "handmade-pyspy.speedscope.json", sizeof(pyspy_ss) - 1},
        {pyspy_raw, "handmade-pyspy.raw.txt", sizeof(pyspy_raw) - 1},
    };
    for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        struct lat_ingest_opts o = {0};
        ASSERT_RC(ingest_mem(in[k].data, in[k].n, in[k].name, &o, &t, err, sizeof(err)));
        ASSERT_EQ_U64(count_stack(t, own_stack, -2), nsamples(t));
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), own_enc);
        lat_trace_free(t);
    }
    /* perf's trampolines carry no line: the name analyze merges every line into */
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    struct lat_ingest_opts o = {0};
    ASSERT_RC(ingest_mem(perf_tramp, sizeof(perf_tramp) - 1, "handmade.perf-script.txt", &o, &t,
                         err, sizeof(err)));
    ASSERT_EQ_U64(
        count_stack(t, "py:<module> (phase_torch.py);py:Enc.tokenize (phase_torch.py)", -2), 1);
    lat_trace_free(t);
}
