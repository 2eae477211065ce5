/* test-kineto-write.c - the Kineto JSON writer: layout, exact µs, args, flows, metadata
 * redaction, invalid UTF-8, gzip by extension. */
#include "test.h"

#include "core/err.h"
#include "export/kineto_write.h"
#include "model/events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t S(struct lat_trace *t, const char *s)
{
    uint32_t id = 0;
    if (lat_trace_intern(t, s, strlen(s), &id)) abort();
    return id;
}

static void add_meta(struct lat_trace *t, const char *k, const char *json)
{
    if (lat_trace_add_meta(t, S(t, k), S(t, json))) abort();
}

/* A runtime call on (pid 42, tid 43) launching a kernel on (device 0, stream 7). */
static struct lat_trace *sample_trace(void)
{
    struct lat_trace *t;
    uint32_t cpu, gpu, ix, dummy;
    if (lat_trace_new(&t)) abort();
    t->base_time_ns = 1700000000000000000LL;
    lat_trace_track(t, 42, 43, 0, 0, false, &cpu);
    t->tracks[cpu].pid_label = S(t, "python3");
    t->tracks[cpu].tid_label = S(t, "main");
    lat_trace_track(t, 0, 7, 0, 0, true, &gpu);
    t->tracks[gpu].pid_label = S(t, "GPU 0");
    t->tracks[gpu].tid_label = S(t, "stream 7");

    struct lat_arg a = {.key = S(t, "cbid"), .type = LAT_ARG_INT, .v.i = 211};
    lat_trace_add_arg(t, &a, &ix);
    a = (struct lat_arg){.key = S(t, "correlation"), .type = LAT_ARG_INT, .v.i = 5};
    lat_trace_add_arg(t, &a, &dummy);
    struct lat_event e = {.ts = 1234567,
                          .dur = 1001,
                          .name = S(t, "cudaLaunchKernel"),
                          .cat = S(t, "cuda_runtime"),
                          .track = 0,
                          .kind = LAT_EV_RUNTIME,
                          .stream = -1,
                          .device = -1,
                          .step = -1,
                          .correlation = 5,
                          .external_id = -1,
                          .args = ix,
                          .nargs = 2,
                          .ph = 'X'};
    lat_trace_add_event(t, &e);

    uint32_t first;
    a = (struct lat_arg){.key = S(t, "grid"), .type = LAT_ARG_RAW, .str = S(t, "[1, 2, 3]")};
    lat_trace_add_arg(t, &a, &first);
    a = (struct lat_arg){
        .key = S(t, "blocks per SM"), .type = LAT_ARG_DOUBLE, .str = S(t, "0.25"), .v.d = 0.25};
    lat_trace_add_arg(t, &a, &ix);
    a = (struct lat_arg){.key = S(t, "big"), .type = LAT_ARG_UINT, .v.u = 18446744073709551615ULL};
    lat_trace_add_arg(t, &a, &ix);
    a = (struct lat_arg){.key = S(t, "flag"), .type = LAT_ARG_BOOL, .v.i = 1};
    lat_trace_add_arg(t, &a, &ix);
    e = (struct lat_event){.ts = 1240000,
                           .dur = 2500,
                           .name = S(t, "bad\xff\xfe name"),
                           .cat = S(t, "kernel"),
                           .track = 1,
                           .kind = LAT_EV_KERNEL,
                           .flags = LAT_EVF_GPU,
                           .stream = 7,
                           .device = 0,
                           .step = -1,
                           .correlation = 5,
                           .external_id = -1,
                           .args = first,
                           .nargs = 4,
                           .ph = 'X'};
    lat_trace_add_event(t, &e);
    e = (struct lat_event){.ts = 5,
                           .name = S(t, "tick"),
                           .cat = S(t, "user_annotation"),
                           .track = 0,
                           .kind = LAT_EV_USER_ANNOTATION,
                           .flags = LAT_EVF_INSTANT,
                           .stream = -1,
                           .device = -1,
                           .step = -1,
                           .correlation = -1,
                           .external_id = -1,
                           .ph = 'i'};
    lat_trace_add_event(t, &e);

    struct lat_flow f = {
        .id = 5, .ts = 1234567, .cat = S(t, "ac2g"), .name = S(t, "ac2g"), .track = 0, .ph = 's'};
    lat_trace_add_flow(t, &f);
    f.ts = 1240000;
    f.track = 1;
    f.ph = 'f';
    f.bind_enclosing = true;
    lat_trace_add_flow(t, &f);

    struct lat_device d = {.id = 0,
                           .name = S(t, "NVIDIA H200"),
                           .compute_major = 9,
                           .compute_minor = 0,
                           .num_sms = 132,
                           .max_threads_per_block = 1024,
                           .max_threads_per_sm = 2048,
                           .regs_per_block = 65536,
                           .regs_per_sm = 65536,
                           .warp_size = 32,
                           .shared_mem_per_block = 49152,
                           .shared_mem_per_sm = 233472,
                           .total_global_mem = 150000000000LL};
    lat_trace_add_device(t, &d);
    add_meta(t, "latscope_command", "[\"python\",\"x.py\"]");
    add_meta(t, "HF_TOKEN", "\"hf_abcdef\"");
    add_meta(t, "schemaVersion", "7"); /* reserved: not written twice */
    return t;
}

static char *write_to_string(const struct lat_trace *t, bool pretty)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    struct kineto_write_opts o = {.pretty = pretty, .gzip = 0};
    if (!f || kineto_write_stream(t, f, &o)) abort();
    fclose(f);
    return s;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

TEST(kineto_write_layout_and_fields)
{
    struct lat_trace *t = sample_trace();
    char *s = write_to_string(t, false);
    const char *head =
        "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA H200\"";
    ASSERT(strncmp(s, head, strlen(head)) == 0);
    ASSERT_EQ_I64(count(s, "\"schemaVersion\""), 1);
    ASSERT(strstr(s, "\"numSms\":132"));
    ASSERT(strstr(s, "\"maxThreadsPerMultiprocessor\":2048"));
    ASSERT(strstr(s, "\"baseTimeNanoseconds\":1700000000000000000"));
    ASSERT(strstr(s, "\"displayTimeUnit\":\"ms\""));
    ASSERT(strstr(s, "\"latscope_command\":[\"python\",\"x.py\"]"));
    /* Secrets never leave. */
    ASSERT(strstr(s, "\"HF_TOKEN\":\"REDACTED\""));
    ASSERT(!strstr(s, "hf_abcdef"));
    /* Exact µs with three decimals from ns. */
    ASSERT(strstr(s, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
                     "\"pid\":42,\"tid\":43,\"ts\":1234.567,\"dur\":1.001,"
                     "\"args\":{\"cbid\":211,\"correlation\":5}}"));
    ASSERT(strstr(s, "\"ts\":1240.000,\"dur\":2.500"));
    ASSERT(strstr(s, "\"grid\":[1, 2, 3],\"blocks per SM\":0.25,"
                     "\"big\":18446744073709551615,\"flag\":true"));
    /* Invalid UTF-8 becomes U+FFFD. */
    ASSERT(strstr(s, "\"name\":\"bad\xef\xbf\xbd\xef\xbf\xbd name\""));
    ASSERT(strstr(s, "{\"ph\":\"i\",\"cat\":\"user_annotation\",\"name\":\"tick\",\"pid\":42,"
                     "\"tid\":43,\"ts\":0.005,\"s\":\"t\"}"));
    ASSERT(strstr(s, "{\"ph\":\"s\",\"id\":5,\"pid\":42,\"tid\":43,\"ts\":1234.567,"
                     "\"cat\":\"ac2g\",\"name\":\"ac2g\"}"));
    ASSERT(strstr(s, "{\"ph\":\"f\",\"id\":5,\"pid\":0,\"tid\":7,\"ts\":1240.000,"
                     "\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}"));
    ASSERT(strstr(s, "\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0.000,\"pid\":42,\"tid\":0,"
                     "\"args\":{\"name\":\"python3\"}"));
    ASSERT(strstr(s, "\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0.000,\"pid\":0,\"tid\":7,"
                     "\"args\":{\"name\":\"stream 7\"}"));
    ASSERT(strstr(s, "\"name\":\"process_sort_index\",\"ph\":\"M\",\"ts\":0.000,\"pid\":0,"
                     "\"tid\":0,\"args\":{\"sort_index\":16777216}"));
    size_t n = strlen(s);
    ASSERT(n > 2 && s[n - 1] == '\n' && s[n - 2] == '}');
    free(s);
    lat_trace_free(t);
}

TEST(kineto_write_negative_and_string_tracks)
{
    struct lat_trace *t;
    uint32_t tr, name, cat;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(lat_trace_intern(t, "Spans", 5, &name));
    ASSERT_RC(lat_trace_track(t, -1, 0, name, 0, false, &tr));
    ASSERT_RC(lat_trace_intern(t, "x", 1, &name));
    ASSERT_RC(lat_trace_intern(t, "overhead", 8, &cat));
    struct lat_event e = {.ts = -1500,
                          .dur = -3,
                          .name = name,
                          .cat = cat,
                          .track = tr,
                          .stream = -1,
                          .device = -1,
                          .step = -1,
                          .correlation = -1,
                          .external_id = -1};
    ASSERT_RC(lat_trace_add_event(t, &e));
    char *s = write_to_string(t, true);
    ASSERT(strstr(s, "\"pid\": \"Spans\""));
    ASSERT(strstr(s, "\"ts\": -1.500"));
    ASSERT(strstr(s, "\"dur\": 0.000")); /* negative durations are clamped */
    ASSERT(strstr(s, "\"deviceProperties\": []"));
    free(s);
    lat_trace_free(t);
}

TEST(kineto_write_gzip_by_extension)
{
    struct lat_trace *t = sample_trace();
    char plain[4096], gz[4096];
    snprintf(plain, sizeof(plain), "%s/t.json", test_tmpdir());
    snprintf(gz, sizeof(gz), "%s/t.json.gz", test_tmpdir());
    ASSERT_RC(kineto_write_file(t, plain, NULL));
    ASSERT_RC(kineto_write_file(t, gz, NULL));
    FILE *f = fopen(plain, "rb");
    ASSERT(f);
    static char a[1 << 16], b[1 << 16];
    size_t na = fread(a, 1, sizeof(a), f);
    fclose(f);
    ASSERT(na > 100 && a[0] == '{');
    gzFile z = gzopen(gz, "rb");
    ASSERT(z);
    int nb = gzread(z, b, sizeof(b));
    gzclose(z);
    ASSERT_EQ_I64(nb, (int64_t)na);
    ASSERT_MEM_EQ(a, b, na);
    f = fopen(gz, "rb");
    unsigned char magic[2] = {0, 0};
    ASSERT(f && fread(magic, 1, 2, f) == 2);
    fclose(f);
    ASSERT(magic[0] == 0x1f && magic[1] == 0x8b);
    /* Unwritable path: a clear errno, no crash. */
    ASSERT_EQ_I64(kineto_write_file(t, "/nonexistent-dir/x.json", NULL), -ENOENT);
    ASSERT_EQ_I64(kineto_write_file(t, "", NULL), LAT_E_USAGE);
    lat_trace_free(t);
}

TEST(kineto_write_many_events_streams)
{
    /* More than one 64 KiB flush: the output stays one valid document with every event. */
    struct lat_trace *t;
    uint32_t tr, name, cat;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT_RC(lat_trace_track(t, 1, 1, 0, 0, false, &tr));
    ASSERT_RC(lat_trace_intern(t, "op", 2, &name));
    ASSERT_RC(lat_trace_intern(t, "cpu_op", 6, &cat));
    for (int i = 0; i < 20000; i++) {
        struct lat_event e = {.ts = (lat_ns)i * 1000 + 1,
                              .dur = 7,
                              .name = name,
                              .cat = cat,
                              .track = tr,
                              .stream = -1,
                              .device = -1,
                              .step = -1,
                              .correlation = -1,
                              .external_id = -1,
                              .ph = 'X'};
        ASSERT_RC(lat_trace_add_event(t, &e));
    }
    char path[4096];
    snprintf(path, sizeof(path), "%s/many.json.gz", test_tmpdir());
    ASSERT_RC(kineto_write_file(t, path, NULL));
    gzFile z = gzopen(path, "rb");
    ASSERT(z);
    size_t cap = 4 << 20, n = 0;
    char *buf = malloc(cap);
    int r;
    while ((r = gzread(z, buf + n, (unsigned)(cap - n - 1))) > 0)
        n += (size_t)r;
    gzclose(z);
    buf[n] = 0;
    ASSERT_EQ_I64(count(buf, "\"cat\":\"cpu_op\""), 20000);
    ASSERT(strstr(buf, "\"ts\":19999.001,\"dur\":0.007"));
    ASSERT(buf[n - 2] == '}');
    free(buf);
    lat_trace_free(t);
}
