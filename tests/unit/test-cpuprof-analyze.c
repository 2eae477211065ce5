/*
 * test-cpuprof-analyze.c - unit tests of analyze/cpu.c (the CPU section of analyze/doctor)
 * over hand-built traces: self/total counts with recursion, Python line merging, top stacks,
 * per-thread on/off-CPU time, the period estimate, thread and window filters.
 */
#include "test.h"

#include "analyze/cpu.h"
#include "core/err.h"
#include "model/events.h"

static uint32_t str(struct lat_trace *t, const char *s)
{
    uint32_t id;
    if (lat_trace_intern(t, s, strlen(s), &id)) FAIL("intern");
    return id;
}

/* Adds one CPU sample event (on: instant; off: interval of dur). */
static void add(struct lat_trace *t, int64_t tid, lat_ns ts, lat_ns dur, const char *stack,
                bool off)
{
    struct lat_cpu_ids ids;
    ASSERT_RC(lat_cpu_ids_init(t, &ids));
    const char *leaf = strrchr(stack, ';');
    struct lat_cpu_sample s = {.ts = ts,
                               .dur = dur,
                               .stack = str(t, stack),
                               .leaf = str(t, leaf ? leaf + 1 : stack),
                               .off = off};
    ASSERT_RC(lat_trace_track(t, 100, tid, 0, 0, false, &s.track));
    ASSERT_RC(lat_trace_add_cpu_sample(t, &ids, &s, UINT32_MAX, NULL));
}

static const struct lat_cpu_func *find(const struct lat_cpu_func *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(f[i].name, name)) return &f[i];
    return NULL;
}

TEST(cpu_summary_counts)
{
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    /* Thread 1 at 100 Hz (10 ms period): 6 x main;a;b, 3 x main;a;a (recursion), 1 python. */
    lat_ns ts = 1000000;
    for (int i = 0; i < 6; i++, ts += 10000000)
        add(t, 1, ts, 0, "main;a;b", false);
    for (int i = 0; i < 3; i++, ts += 10000000)
        add(t, 1, ts, 0, "main;a;a", false);
    add(t, 1, ts, 0, "main;py:f (x.py:12)", false);
    ts += 10000000;
    add(t, 1, ts, 0, "main;py:f (x.py:14)", false);
    /* Thread 2: 1 sample, 2 off-CPU intervals of 5 ms and 20 ms. */
    add(t, 2, 5000000, 0, "main;c", false);
    add(t, 2, 6000000, 5000000, "main;wait;schedule_[k]", true);
    add(t, 2, 20000000, 20000000, "main;wait;schedule_[k]", true);
    uint32_t tr;
    ASSERT_RC(lat_trace_track(t, 100, 1, 0, 0, false, &tr));
    t->tracks[tr].tid_label = str(t, "worker");
    struct lat_cpu_summary s;
    ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
    ASSERT_EQ_U64(s.samples, 12);
    ASSERT_EQ_U64(s.off_intervals, 2);
    ASSERT_EQ_I64(s.off_ns, 25000000);
    ASSERT_EQ_I64(s.period_ns, 10000000);
    const struct lat_cpu_func *b = find(s.funcs, s.nfuncs, "b");
    const struct lat_cpu_func *a = find(s.funcs, s.nfuncs, "a");
    const struct lat_cpu_func *m = find(s.funcs_total, s.nfuncs_total, "main");
    const struct lat_cpu_func *py = find(s.funcs, s.nfuncs, "py:f (x.py)");
    ASSERT(b && a && m && py);
    ASSERT_EQ_U64(b->self, 6);
    ASSERT_EQ_U64(a->self, 3);
    ASSERT_EQ_U64(a->total, 9); /* recursion counted once per sample */
    ASSERT_EQ_U64(m->total, 12);
    ASSERT_EQ_U64(py->self, 2); /* two lines, one function */
    ASSERT_EQ_STR(s.funcs[0].name, "b");
    ASSERT_EQ_STR(s.funcs_total[0].name, "main");
    ASSERT_EQ_STR(s.stacks[0].stack, "main;a;b");
    ASSERT_EQ_U64(s.stacks[0].samples, 6);
    ASSERT_EQ_U64(s.nthreads, 2);
    ASSERT_EQ_I64(s.threads[0].tid, 1);
    ASSERT_EQ_STR(s.threads[0].label, "worker");
    ASSERT_EQ_STR(s.threads[0].top_func, "b");
    ASSERT_EQ_I64(s.threads[0].on_ns, 11 * 10000000);
    ASSERT_EQ_I64(s.threads[1].off_ns, 25000000);
    ASSERT_EQ_U64(s.threads[1].off_intervals, 2);
    char *txt = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&txt, &len);
    ASSERT_RC(lat_cpu_format_text(&s, f));
    fclose(f);
    ASSERT(strstr(txt, "CPU samples: 12 on-CPU (period 10.000 ms"));
    ASSERT(strstr(txt, "worker"));
    free(txt);
    lat_cpu_summary_fini(&s);

    /* keep_lines: the two Python lines stay apart. */
    struct lat_cpu_opts o = {.tid = -1, .keep_lines = true};
    ASSERT_RC(lat_cpu_summarize(t, &o, &s));
    ASSERT(find(s.funcs, s.nfuncs, "py:f (x.py:12)"));
    lat_cpu_summary_fini(&s);

    /* Thread filter and windows: thread 2 only, window [0, 10 ms) holds its sample and
     * 4 ms of its first off-CPU interval. */
    lat_ns w[1][2] = {{0, 10000000}};
    struct lat_cpu_opts o2 = {.tid = 2, .windows = w, .nwindows = 1, .period_ns = 1000000};
    ASSERT_RC(lat_cpu_summarize(t, &o2, &s));
    ASSERT_EQ_U64(s.samples, 1);
    ASSERT_EQ_U64(s.off_intervals, 1);
    ASSERT_EQ_I64(s.off_ns, 4000000);
    ASSERT_EQ_STR(s.funcs[0].name, "c");
    lat_cpu_summary_fini(&s);
    lat_trace_free(t);
}

TEST(cpu_summary_empty_and_bad)
{
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    struct lat_cpu_summary s;
    ASSERT_RC(lat_cpu_summarize(t, NULL, &s));
    ASSERT_EQ_U64(s.samples, 0);
    ASSERT_EQ_U64(s.nfuncs, 0);
    ASSERT_EQ_I64(s.period_ns, 0);
    lat_cpu_summary_fini(&s);
    struct lat_cpu_opts o = {.tid = -1, .nwindows = 1};
    ASSERT_EQ_I64(lat_cpu_summarize(t, &o, &s), LAT_E_USAGE);
    lat_trace_free(t);
}
