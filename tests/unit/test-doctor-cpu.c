/*
 * test-doctor-cpu.c - CPU samples (`latscope trace --cpu`) through the Kineto reader into the
 * doctor's host-side findings: the reader keeps cat "cpu_sample" as LAT_EV_CPU_SAMPLE (on-CPU
 * instants and off-CPU intervals), and cpu-pre-post-processing gains evidence of what the
 * launching thread ran during the GPU idle gaps - and nothing when the samples belong to
 * another thread, fall outside the gaps, or are absent.
 *
 * Timeline (µs), per step s = 0, 10000 (thread 1): ProfilerStep [s, s+10000), preprocess
 * [s+1, s+5991), cudaLaunchKernel [s+6000, s+6010) of a kernel [s+6020, s+9500), postprocess
 * [s+9500, s+9990). Host-late GPU idle: [s, s+6020) and [s+9500, s+10000) = 6520 per step.
 * Samples every 1000 from s+500: k = 0..4 in py:dumps;encode, k = 5 in tokenize, k = 6..8 in
 * py:wait (while the kernel runs: outside the gaps), k = 9 in py:postprocess; one off-CPU
 * interval [s+2800, s+3400). In the gaps: 7 samples per step, 5 under py:dumps, 600 off-CPU:
 * off share 600 / 6520 = 0.0920, py:dumps share of idle = 5/7 x (1 - 0.0920) = 0.6486.
 */
#include "test.h"

#include "core/buf.h"
#include "doctor/doctor.h"
#include "ingest/ingest.h"

#include <stdarg.h>

enum { ALL, OUTSIDE_ONLY, NONE };

static struct lat_trace *load(int which, int sample_tid)
{
    struct lat_buf b = LAT_BUF_INIT;
    buf_printf(&b, "{\"latscope_cpu_sample_hz\":1000,\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,"
                   "\"args\":{\"name\":\"main\"}}");
    const char *root = "_start;main;py:run (serve.py:10)";
    for (int n = 0; n < 2; n++) {
        double s = n * 10000.0;
        buf_printf(&b,
                   ",\n{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\","
                   "\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":10000}",
                   n + 1, s);
        buf_printf(&b,
                   ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"preprocess\",\"pid\":1,"
                   "\"tid\":1,\"ts\":%.1f,\"dur\":5990}",
                   s + 1);
        buf_printf(&b,
                   ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                   "\"pid\":1,\"tid\":1,\"ts\":%.1f,\"dur\":10,\"args\":{\"correlation\":%d}}",
                   s + 6000, n + 1);
        buf_printf(&b,
                   ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,"
                   "\"ts\":%.1f,\"dur\":3480,\"args\":{\"device\":0,\"stream\":7,"
                   "\"correlation\":%d}}",
                   s + 6020, n + 1);
        buf_printf(&b,
                   ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"postprocess\",\"pid\":1,"
                   "\"tid\":1,\"ts\":%.1f,\"dur\":490}",
                   s + 9500);
        if (which == NONE) continue;
        for (int k = 0; k < 10; k++) {
            const char *leaf =
                k < 5    ? "py:preprocess (serve.py:20);py:dumps (json/__init__.py:231);encode"
                : k == 5 ? "py:preprocess (serve.py:22);tokenize"
                : k < 9  ? "py:wait (serve.py:40);cudaStreamSynchronize"
                         : "py:postprocess (serve.py:30)";
            bool in_gap = k < 6 || k == 9;
            if (which == OUTSIDE_ONLY && in_gap) continue;
            buf_printf(&b,
                       ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_sample\",\"name\":\"x\","
                       "\"pid\":1,\"tid\":%d,\"ts\":%.1f,\"args\":{\"stack\":\"%s;%s\","
                       "\"state\":\"on\"}}",
                       sample_tid, s + 500 + 1000.0 * k, root, leaf);
        }
        if (which == ALL)
            buf_printf(&b,
                       ",\n{\"ph\":\"X\",\"cat\":\"cpu_sample\",\"name\":\"read\",\"pid\":1,"
                       "\"tid\":%d,\"ts\":%.1f,\"dur\":600,\"args\":{\"stack\":\"%s;read;"
                       "schedule_[k]\",\"state\":\"off\"}}",
                       sample_tid, s + 2800, root);
    }
    buf_printf(&b, "\n]}");
    struct lat_trace *t = NULL;
    char err[256] = "";
    int rc = ingest_mem(b.data, b.len, "handmade-cpu.json", NULL, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem: %d %s", rc, err);
    buf_fini(&b);
    return t;
}

static struct doc_report *run(struct lat_trace *t)
{
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    doctor_rank(r);
    return r;
}

static const struct doc_finding *find(const struct doc_report *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->f[i].id, id) == 0) return &r->f[i];
    FAIL("no finding %s", id);
}

static bool has_kv(const struct doc_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nkv; i++)
        if (strcmp(f->kv[i].key, key) == 0) return true;
    return false;
}

static const struct doc_kv *kv_of(const struct doc_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nkv; i++)
        if (strcmp(f->kv[i].key, key) == 0) return &f->kv[i];
    FAIL("finding %s has no evidence %s", f->id, key);
}

TEST(kineto_cpu_sample_kind)
{
    struct lat_trace *t = load(ALL, 1);
    size_t on = 0, off = 0;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (t->ev.kind[i] != LAT_EV_CPU_SAMPLE) continue;
        if (t->ev.flags[i] & LAT_EVF_INSTANT) {
            on++;
        } else {
            off++;
            ASSERT_EQ_I64(t->ev.dur[i], 600000);
        }
    }
    ASSERT_EQ_U64(on, 20);
    ASSERT_EQ_U64(off, 2);
    lat_trace_free(t);
}

TEST(doctor_cpu_evidence_prepost)
{
    struct lat_trace *t = load(ALL, 1);
    struct doc_report *r = run(t);
    const struct doc_finding *f = find(r, "cpu-pre-post-processing");
    ASSERT_EQ_I64(kv_of(f, "cpu_thread_tid")->i, 1);
    ASSERT_EQ_I64(kv_of(f, "cpu_samples_in_gaps")->i, 14);
    ASSERT_EQ_I64(kv_of(f, "cpu_gap_time_us")->i, 2 * 6520000);
    ASSERT_EQ_I64(kv_of(f, "cpu_off_cpu_us_in_gaps")->i, 1200000);
    ASSERT_NEAR(kv_of(f, "cpu_off_cpu_share_of_gaps")->num, 600.0 / 6520.0, 1e-9);
    ASSERT_EQ_STR(kv_of(f, "cpu_main_function")->str, "py:dumps (json/__init__.py)");
    /* the first row of the function table is the hottest leaf, encode: 10 of 14 samples */
    size_t row = f->nkv;
    for (size_t i = 0; i < f->nkv && row == f->nkv; i++)
        if (f->kv[i].table && !strcmp(f->kv[i].table, "cpu_functions_in_gaps") &&
            !strcmp(f->kv[i].key, "function"))
            row = i;
    ASSERT(row < f->nkv);
    ASSERT_EQ_STR(f->kv[row].str, "encode");
    ASSERT(strstr(f->title, "during 65 % of GPU idle time the launching thread (tid 1) was in "
                            "py:dumps (json/__init__.py) (hottest: encode, 65 %); off-CPU 9 %"));
    /* the samples of wait (k = 6..8, under the kernel) are outside the gaps */
    for (size_t i = 0; i < f->nkv; i++)
        if (f->kv[i].type == DOC_KV_STR && f->kv[i].str) ASSERT(!strstr(f->kv[i].str, "py:wait"));
    /* the trace already has CPU samples: the next step must not ask to record them */
    ASSERT(f->next_step && !strstr(f->next_step, "--cpu"));
    ASSERT(strstr(f->next_step, "latscope analyze"));
    doctor_report_free(r);
    lat_trace_free(t);
}

static void expect_no_cpu_evidence(int which, int tid)
{
    struct lat_trace *t = load(which, tid);
    struct doc_report *r = run(t);
    /* the finding itself does not depend on samples */
    const struct doc_finding *f = find(r, "cpu-pre-post-processing");
    ASSERT(!has_kv(f, "cpu_samples_in_gaps"));
    ASSERT(!strstr(f->title, "during"));
    ASSERT(strstr(f->title, "(pre/post-processing, 6.52 ms per step)"));
    if (which == NONE) ASSERT(f->next_step && strstr(f->next_step, "latscope trace --cuda --cpu"));
    doctor_report_free(r);
    lat_trace_free(t);
}

TEST(doctor_cpu_no_samples)
{
    expect_no_cpu_evidence(NONE, 1);
}

TEST(doctor_cpu_samples_of_another_thread)
{
    expect_no_cpu_evidence(ALL, 2);
}

TEST(doctor_cpu_samples_outside_gaps)
{
    expect_no_cpu_evidence(OUTSIDE_ONLY, 1);
}

/* ---- host-bound-idle and dataloader, and a thread that was only off-CPU in the gaps ----
 * Per step s = 0, 10000 (thread 1): ProfilerStep [s, s+10000); launch [s+100, s+110) of kernel
 * A [s+120, s+2000); py_work op [s+2000, s+5000); launch [s+5000, s+5010) of kernel B
 * [s+5020, s+9900). Host-late idle: [s, s+120), [s+2000, s+5020), [s+9900, s+10000) = 3240,
 * head/tail 220 of it: host-bound-idle. Samples every 1000 from s+500: k = 2..4 in the gap
 * (py:tokenize), the others under a kernel (py:wait). With `dataloader`, the py_work op is a
 * DataLoader __next__ instead and the samples in it are in py:decode. */
static void ev(struct lat_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct lat_buf *b, const char *fmt, ...)
{
    va_list ap;
    buf_puts(b, ",\n");
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

static struct lat_trace *load_mid(bool dataloader, bool off_only)
{
    struct lat_buf b = LAT_BUF_INIT;
    buf_printf(&b, "{\"latscope_cpu_sample_hz\":1000,\"traceEvents\":[\n"
                   "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,"
                   "\"args\":{\"name\":\"main\"}}");
    const char *work =
        dataloader ? "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" : "py_work";
    const char *gap_stack = dataloader ? "main;py:__next__ (dataloader.py:600);py:decode "
                                         "(img.py:7);jpeg_decode"
                                       : "main;py:step (srv.py:3);py:tokenize (tok.py:9)";
    for (int n = 0; n < 2; n++) {
        double s = n * 10000.0;
        ev(&b,
           "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,"
           "\"tid\":1,\"ts\":%.1f,\"dur\":10000}",
           n + 1, s);
        for (int k = 0; k < 2; k++) {
            double l = s + (k ? 5000 : 100), kt = l + 20, kd = k ? 4880 : 1880;
            ev(&b,
               "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
               "\"tid\":1,\"ts\":%.1f,\"dur\":10,\"args\":{\"correlation\":%d}}",
               l, 2 * n + k + 1);
            ev(&b,
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
               "\"ts\":%.1f,\"dur\":%.1f,\"args\":{\"device\":0,\"stream\":7,"
               "\"correlation\":%d}}",
               k, kt, kd, 2 * n + k + 1);
        }
        ev(&b,
           "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":%.1f,"
           "\"dur\":3000}",
           work, s + 2000);
        if (off_only) {
            ev(&b,
               "{\"ph\":\"X\",\"cat\":\"cpu_sample\",\"name\":\"futex\",\"pid\":1,\"tid\":1,"
               "\"ts\":%.1f,\"dur\":2800,\"args\":{\"stack\":\"main;futex_wait;schedule_[k]\","
               "\"state\":\"off\"}}",
               s + 2100);
            continue;
        }
        for (int k = 0; k < 10; k++) {
            bool gap = k >= 2 && k <= 4;
            ev(&b,
               "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"cpu_sample\",\"name\":\"x\",\"pid\":1,"
               "\"tid\":1,\"ts\":%.1f,\"args\":{\"stack\":\"%s\",\"state\":\"on\"}}",
               s + 500 + 1000.0 * k, gap ? gap_stack : "main;py:wait (srv.py:20)");
        }
    }
    buf_printf(&b, "\n]}");
    struct lat_trace *t = NULL;
    char err[256] = "";
    int rc = ingest_mem(b.data, b.len, "handmade-cpu-mid.json", NULL, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem: %d %s", rc, err);
    buf_fini(&b);
    return t;
}

TEST(doctor_cpu_evidence_host_bound_idle)
{
    struct lat_trace *t = load_mid(false, false);
    struct doc_report *r = run(t);
    const struct doc_finding *f = find(r, "host-bound-idle");
    ASSERT_EQ_I64(kv_of(f, "cpu_samples_in_gaps")->i, 6);
    ASSERT_EQ_I64(kv_of(f, "cpu_gap_time_us")->i, 2 * 3240000);
    ASSERT_EQ_STR(kv_of(f, "cpu_main_function")->str, "py:tokenize (tok.py)");
    /* no off-CPU interval: 100 % of the on-CPU time, the tokenizer is the leaf (no "hottest") */
    ASSERT(strstr(f->title, "; during 100 % of GPU idle time the launching thread (tid 1) was in "
                            "py:tokenize (tok.py)"));
    ASSERT(!strstr(f->title, "hottest"));
    ASSERT(!strstr(f->title, "off-CPU"));
    doctor_report_free(r);
    lat_trace_free(t);
}

TEST(doctor_cpu_evidence_off_cpu_only)
{
    struct lat_trace *t = load_mid(false, true);
    struct doc_report *r = run(t);
    const struct doc_finding *f = find(r, "host-bound-idle");
    ASSERT_EQ_I64(kv_of(f, "cpu_samples_in_gaps")->i, 0);
    ASSERT(!has_kv(f, "cpu_main_function"));
    /* 2800 of the 3240 µs gap time per step: 86 % */
    ASSERT_NEAR(kv_of(f, "cpu_off_cpu_share_of_gaps")->num, 2800.0 / 3240.0, 1e-9);
    ASSERT(strstr(f->title, "; during 86 % of GPU idle time the launching thread (tid 1) was "
                            "off-CPU (blocked or waiting for a CPU)"));
    doctor_report_free(r);
    lat_trace_free(t);
}

TEST(doctor_cpu_evidence_dataloader)
{
    struct lat_trace *t = load_mid(true, false);
    struct doc_report *r = run(t);
    const struct doc_finding *f = find(r, "dataloader");
    /* windows: the DataLoader op [s+2000, s+5000) minus the launch [s+5000, s+5010): 3000 */
    ASSERT_EQ_I64(kv_of(f, "cpu_gap_time_us")->i, 2 * 3000000);
    ASSERT_EQ_I64(kv_of(f, "cpu_samples_in_gaps")->i, 6);
    ASSERT_EQ_STR(kv_of(f, "cpu_main_function")->str, "py:decode (img.py)");
    ASSERT(strstr(f->title, "was in py:decode (img.py) (hottest: jpeg_decode, 100 %)"));
    doctor_report_free(r);
    lat_trace_free(t);
}
