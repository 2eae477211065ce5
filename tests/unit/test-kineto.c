/* test-kineto.c - the Kineto/Chrome trace reader on hand-made traces (exact values worked out
 * by hand from tests/data/handmade-*.json), chunk-split and gzip invariance, truncation. */
#include "core/err.h"
#include "ingest/ingest.h"
#include "test.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Reads tests/data/NAME into a malloc'd buffer. */
static char *read_data(const char *name, size_t *n)
{
    const char *src = getenv("LATSCOPE_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/data/%s", src ? src : ".", name);
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    ASSERT(buf);
    ASSERT_EQ_I64(fread(buf, 1, (size_t)len, f), len);
    fclose(f);
    buf[len] = '\0';
    *n = (size_t)len;
    return buf;
}

static struct lat_trace *load_mem(const char *doc, size_t n, size_t chunk, unsigned flags)
{
    struct lat_ingest_opts o = {.flags = flags, .chunk_bytes = chunk};
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    int rc = ingest_mem(doc, n, "handmade", &o, &t, err, sizeof(err));
    if (rc) FAIL("ingest_mem rc %d: %s", rc, err);
    return t;
}

static size_t find_event(const struct lat_trace *t, const char *name, int kind)
{
    for (size_t i = 0; i < t->ev.n; i++)
        if (!strcmp(lat_trace_str(t, t->ev.name[i]), name) && (kind < 0 || t->ev.kind[i] == kind))
            return i;
    FAIL("no event named %s", name);
}

static size_t count_kind(const struct lat_trace *t, int kind)
{
    size_t n = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        n += t->ev.kind[i] == kind;
    return n;
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t fnv_str(uint64_t h, const struct lat_trace *t, uint32_t id)
{
    const char *s = lat_trace_str(t, id);
    return fnv(h, s, strlen(s) + 1);
}

/* A fingerprint of everything the reader produced (string ids resolved to text). */
static uint64_t fingerprint(const struct lat_trace *t)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < t->ev.n; i++) {
        struct lat_event e;
        lat_trace_event(t, i, &e);
        h = fnv(h, &e.ts, sizeof(e.ts));
        h = fnv(h, &e.dur, sizeof(e.dur));
        h = fnv_str(h, t, e.name);
        h = fnv_str(h, t, e.cat);
        h = fnv(h, &e.track, sizeof(e.track));
        h = fnv(h, &e.kind, sizeof(e.kind));
        h = fnv(h, &e.flags, sizeof(e.flags));
        h = fnv(h, &e.stream, sizeof(e.stream));
        h = fnv(h, &e.device, sizeof(e.device));
        h = fnv(h, &e.step, sizeof(e.step));
        h = fnv(h, &e.correlation, sizeof(e.correlation));
        h = fnv(h, &e.external_id, sizeof(e.external_id));
        h = fnv(h, &e.nargs, sizeof(e.nargs));
        h = fnv(h, &e.ph, 1);
        for (uint32_t k = 0; k < e.nargs; k++) {
            const struct lat_arg *a = &t->args[e.args + k];
            h = fnv_str(h, t, a->key);
            h = fnv(h, &a->type, sizeof(a->type));
            h = fnv_str(h, t, a->str);
            h = fnv(h, &a->v.i, sizeof(a->v.i));
        }
    }
    for (size_t i = 0; i < t->ntracks; i++) {
        const struct lat_track *tr = &t->tracks[i];
        h = fnv(h, &tr->pid, sizeof(tr->pid));
        h = fnv(h, &tr->tid, sizeof(tr->tid));
        h = fnv_str(h, t, tr->pid_str);
        h = fnv_str(h, t, tr->tid_str);
        h = fnv_str(h, t, tr->pid_label);
        h = fnv_str(h, t, tr->tid_label);
        h = fnv(h, &tr->gpu, sizeof(tr->gpu));
    }
    for (size_t i = 0; i < t->nflows; i++) {
        h = fnv(h, &t->flows[i].id, sizeof(t->flows[i].id));
        h = fnv(h, &t->flows[i].ts, sizeof(t->flows[i].ts));
        h = fnv(h, &t->flows[i].ph, 1);
    }
    for (size_t i = 0; i < t->nmeta; i++) {
        h = fnv_str(h, t, t->meta[i].key);
        h = fnv_str(h, t, t->meta[i].value);
    }
    h = fnv(h, &t->rank, sizeof(t->rank));
    h = fnv(h, &t->world_size, sizeof(t->world_size));
    h = fnv(h, &t->base_time_ns, sizeof(t->base_time_ns));
    h = fnv(h, &t->dropped, sizeof(t->dropped));
    h = fnv(h, &t->frac_ts, sizeof(t->frac_ts));
    h = fnv(h, &t->ndevices, sizeof(t->ndevices));
    return h;
}

/* gzip-compresses data (one member) into a malloc'd buffer. */
static unsigned char *gzip_mem(const char *data, size_t n, size_t *outn)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    ASSERT_EQ_I64(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    unsigned char *out = malloc(cap);
    ASSERT(out);
    z.next_in = (unsigned char *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ASSERT_EQ_I64(deflate(&z, Z_FINISH), Z_STREAM_END);
    *outn = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static const char *arg_str(const struct lat_trace *t, size_t i, const char *key, int type)
{
    const struct lat_arg *a = lat_trace_arg(t, i, key);
    if (!a) FAIL("event %zu has no arg '%s'", i, key);
    if ((int)a->type != type) FAIL("arg '%s' has type %u, want %d", key, a->type, type);
    return lat_trace_str(t, a->str);
}

TEST(kineto_handmade_current_values)
{
    size_t n;
    char *doc = read_data("handmade-kineto-current.json", &n);
    struct lat_ingest_stats st;
    struct lat_ingest_opts o = {.stats = &st};
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(doc, n, "hm", &o, &t, err, sizeof(err)));
    ASSERT_EQ_STR(t->format, "kineto");
    ASSERT_EQ_I64(st.input_events, 25);
    ASSERT_EQ_I64(st.meta_events, 4);
    ASSERT_EQ_I64(t->ev.n, 15);
    ASSERT_EQ_I64(t->dropped, 2); /* the E without a B, the async 'b' */
    ASSERT_EQ_I64(t->nflows, 2);
    ASSERT_EQ_I64(t->rank, 3);
    ASSERT_EQ_I64(t->world_size, 8);
    ASSERT_EQ_I64(t->base_time_ns, 1712195495000000000LL);
    ASSERT(t->frac_ts);

    size_t i = find_event(t, "aten::mm", LAT_EV_CPU_OP);
    ASSERT_EQ_I64(t->ev.ts[i], 1712195495519689047LL);
    ASSERT_EQ_I64(t->ev.dur[i], 63813);
    ASSERT(t->ev.flags[i] & LAT_EVF_FRAC_TS);
    ASSERT_EQ_I64(t->ev.external_id[i], 7);
    ASSERT_EQ_I64(t->ev.stream[i], -1);
    ASSERT_EQ_I64(t->ev.nargs[i], 7);
    ASSERT(!lat_trace_arg(t, i, "External id")); /* promoted to the column */
    ASSERT(!lat_trace_arg(t, i, "Call stack"));  /* bulky: dropped by default */
    ASSERT_EQ_STR(arg_str(t, i, "Input Dims", LAT_ARG_RAW), "[[2,3],[3,4]]");
    ASSERT_EQ_STR(arg_str(t, i, "Input type", LAT_ARG_RAW), "[\"float\",\"float\"]");
    ASSERT_EQ_STR(arg_str(t, i, "Big", LAT_ARG_RAW), "123456789012345678901234");
    ASSERT_EQ_STR(arg_str(t, i, "Ratio", LAT_ARG_DOUBLE), "0.25");
    ASSERT_NEAR(lat_trace_arg(t, i, "Ratio")->v.d, 0.25, 0);
    const struct lat_arg *a = lat_trace_arg(t, i, "Comms Id");
    ASSERT(a && a->type == LAT_ARG_UINT);
    ASSERT_EQ_U64(a->v.u, UINT64_MAX);
    a = lat_trace_arg(t, i, "flag");
    ASSERT(a && a->type == LAT_ARG_BOOL && a->v.i == 1);
    a = lat_trace_arg(t, i, "nothing");
    ASSERT(a && a->type == LAT_ARG_NULL);

    i = find_event(t, "ProfilerStep#3", LAT_EV_USER_ANNOTATION);
    ASSERT_EQ_I64(t->ev.ts[i], 1000500);
    ASSERT_EQ_I64(t->ev.dur[i], 500250);
    ASSERT(t->ev.flags[i] & LAT_EVF_STEP);
    ASSERT_EQ_I64(t->ev.step[i], 3);
    i = find_event(t, "ProfilerStep#3", LAT_EV_GPU_ANNOTATION);
    ASSERT(!(t->ev.flags[i] & LAT_EVF_STEP)); /* GPU copy of the step: not a step */
    ASSERT_EQ_I64(t->ev.step[i], -1);
    ASSERT(t->ev.flags[i] & LAT_EVF_GPU);
    ASSERT_EQ_I64(t->ev.stream[i], -1);
    ASSERT_EQ_I64(t->ev.device[i], 0);

    i = find_event(t, "gemm_kernel", LAT_EV_KERNEL);
    ASSERT_EQ_I64(t->ev.stream[i], 7);
    ASSERT_EQ_I64(t->ev.correlation[i], 42);
    ASSERT_EQ_I64(t->ev.external_id[i], 7);
    ASSERT_EQ_I64(t->ev.device[i], 0);
    ASSERT(t->ev.flags[i] & LAT_EVF_GPU);
    ASSERT_EQ_I64(t->ev.nargs[i], 4);
    ASSERT_EQ_STR(arg_str(t, i, "grid", LAT_ARG_RAW), "[4,1,1]");
    const struct lat_track *tr = &t->tracks[t->ev.track[i]];
    ASSERT(tr->gpu);
    ASSERT_EQ_I64(tr->pid, 0);
    ASSERT_EQ_I64(tr->tid, 7);
    ASSERT_EQ_STR(lat_trace_str(t, tr->pid_label), "GPU 0");
    ASSERT_EQ_STR(lat_trace_str(t, tr->tid_label), "stream 7");

    i = find_event(t, "cudaLaunchKernel", LAT_EV_RUNTIME);
    ASSERT_EQ_I64(t->ev.correlation[i], 42);
    ASSERT_EQ_I64(t->ev.ts[i], 1010000);
    ASSERT(!(t->ev.flags[i] & LAT_EVF_FRAC_TS));
    tr = &t->tracks[t->ev.track[i]];
    ASSERT(!tr->gpu);
    ASSERT_EQ_STR(lat_trace_str(t, tr->pid_label), "python3");
    ASSERT_EQ_STR(lat_trace_str(t, tr->tid_label), "thread 101 (python3)");
    int64_t cbid;
    ASSERT(lat_trace_arg_int(t, i, "cbid", &cbid));
    ASSERT_EQ_I64(cbid, 211);

    i = find_event(t, "Memcpy HtoD (Pinned -> Device)", LAT_EV_MEMCPY);
    ASSERT_EQ_STR(arg_str(t, i, "memory bandwidth (GB/s)", LAT_ARG_DOUBLE), "1.024");
    i = find_event(t, "triton_poi_fused", LAT_EV_CPU_OP);
    ASSERT_EQ_I64(t->ev.stream[i], 0); /* HTA reads args.stream on CPU ops too */
    ASSERT(!(t->ev.flags[i] & LAT_EVF_GPU));
    i = find_event(t, "Activity Buffer Request", LAT_EV_OVERHEAD);
    ASSERT_EQ_I64(t->tracks[t->ev.track[i]].pid, -1);
    i = find_event(t, "PyTorch Profiler (0)", LAT_EV_SPAN);
    tr = &t->tracks[t->ev.track[i]];
    ASSERT_EQ_STR(lat_trace_str(t, tr->pid_str), "Spans");
    ASSERT_EQ_I64(tr->pid, -1);
    i = find_event(t, "odd", LAT_EV_OTHER);
    ASSERT(t->ev.flags[i] & LAT_EVF_NO_DUR);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.cat[i]), "mystery_category");
    i = find_event(t, "[memory]", LAT_EV_INSTANT);
    ASSERT(t->ev.flags[i] & LAT_EVF_INSTANT);
    ASSERT_EQ_I64(t->ev.dur[i], 0);
    i = find_event(t, "Queue Length", LAT_EV_COUNTER);
    ASSERT_EQ_I64(t->ev.ph[i], 'C');
    i = find_event(t, "region", -1);
    ASSERT_EQ_I64(t->ev.ts[i], 2000000);
    ASSERT_EQ_I64(t->ev.dur[i], 10000);
    ASSERT(t->ev.flags[i] & LAT_EVF_BEGIN_END);
    ASSERT(!(t->ev.flags[i] & LAT_EVF_NO_DUR));
    i = find_event(t, "inner", -1);
    ASSERT_EQ_I64(t->ev.ts[i], 2001500);
    ASSERT_EQ_I64(t->ev.dur[i], 500);
    find_event(t, "Record Window End", LAT_EV_INSTANT);

    ASSERT_EQ_I64(t->nflows, 2);
    ASSERT_EQ_I64(t->flows[0].id, 42);
    ASSERT_EQ_I64(t->flows[0].ph, 's');
    ASSERT(!t->flows[0].bind_enclosing);
    ASSERT(t->flows[1].bind_enclosing);
    ASSERT_EQ_I64(t->flows[1].ts, 1020000);

    ASSERT_EQ_I64(t->ndevices, 1);
    ASSERT_EQ_STR(lat_trace_str(t, t->devices[0].name), "Hand GPU");
    ASSERT_EQ_I64(t->devices[0].num_sms, 132);
    ASSERT_EQ_I64(t->devices[0].compute_major, 9);
    ASSERT_EQ_I64(t->devices[0].total_global_mem, 85000000000LL);
    ASSERT_EQ_I64(t->devices[0].shared_mem_per_sm, 233472);

    /* Secrets never reach the model, at any depth. */
    ASSERT(!memmem(t->strs.pool, t->strs.pool_len, "hf_secretvalue123", 17));
    ASSERT(!memmem(t->strs.pool, t->strs.pool_len, "topsecret", 9));
    ASSERT(!memmem(t->strs.pool, t->strs.pool_len, "pw1", 3));
    ASSERT_EQ_STR(ingest_meta_get(t, "metadata"),
                  "{\"HF_TOKEN\":\"REDACTED\",\"PATH\":\"/usr/bin\",\"nested\":{\"db_password\":"
                  "\"REDACTED\"}}");
    ASSERT_EQ_STR(ingest_meta_get(t, "AWS_SECRET_ACCESS_KEY"), "\"REDACTED\"");
    ASSERT_EQ_STR(ingest_meta_get(t, "traceName"), "\"handmade\"");
    ASSERT(!ingest_meta_get(t, "traceEvents"));
    lat_trace_free(t);

    /* --args-all keeps the bulky and the promoted args too; --no-args keeps none. */
    t = load_mem(doc, n, 0, LAT_INGEST_ARGS_ALL);
    i = find_event(t, "aten::mm", LAT_EV_CPU_OP);
    ASSERT_EQ_I64(t->ev.nargs[i], 9);
    ASSERT_EQ_STR(arg_str(t, i, "Call stack", LAT_ARG_STR), "a.py(1): f");
    int64_t ext;
    ASSERT(lat_trace_arg_int(t, i, "External id", &ext));
    ASSERT_EQ_I64(ext, 7);
    lat_trace_free(t);
    t = load_mem(doc, n, 0, LAT_INGEST_NO_ARGS);
    ASSERT_EQ_I64(t->nargs, 0);
    i = find_event(t, "gemm_kernel", LAT_EV_KERNEL);
    ASSERT_EQ_I64(t->ev.correlation[i], 42); /* columns are still filled */
    lat_trace_free(t);
    free(doc);
}

TEST(kineto_handmade_2021_layout)
{
    size_t n;
    char *doc = read_data("handmade-kineto-2021.json", &n);
    struct lat_trace *t = load_mem(doc, n, 0, 0);
    ASSERT_EQ_STR(t->format, "kineto-2021");
    ASSERT_EQ_I64(t->ev.n, 7);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_CPU_OP), 2);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_RUNTIME), 1);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_KERNEL), 1);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_MEMCPY), 1);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_MEMSET), 1);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_INSTANT), 1);
    ASSERT(!t->frac_ts);
    ASSERT_EQ_I64(t->rank, -1);
    size_t i = find_event(t, "ProfilerStep#5", LAT_EV_CPU_OP);
    ASSERT_EQ_I64(t->ev.step[i], 5);
    ASSERT_EQ_I64(t->ev.ts[i], 1623143089861000LL);
    const struct lat_track *tr = &t->tracks[t->ev.track[i]];
    ASSERT_EQ_I64(tr->tid, 25738);
    ASSERT_EQ_STR(lat_trace_str(t, tr->tid_str), "25738");
    i = find_event(t, "cudaLaunchKernel", LAT_EV_RUNTIME);
    ASSERT_EQ_I64(t->ev.external_id[i], 2); /* "external id" spelling */
    ASSERT_EQ_I64(t->ev.correlation[i], 311);
    i = find_event(t, "volta_scudnn_128x64_relu", LAT_EV_KERNEL);
    tr = &t->tracks[t->ev.track[i]];
    ASSERT(tr->gpu);
    ASSERT_EQ_I64(tr->tid, 7);
    ASSERT_EQ_STR(lat_trace_str(t, tr->tid_str), "stream 7");
    ASSERT_EQ_I64(t->ev.stream[i], 7);
    ASSERT_EQ_I64(t->ev.external_id[i], 2);
    int64_t occ;
    ASSERT(lat_trace_arg_int(t, i, "theoretical occupancy %", &occ));
    ASSERT_EQ_I64(occ, 25);
    ASSERT_EQ_I64(t->nflows, 2);
    ASSERT_EQ_STR(lat_trace_str(t, t->flows[0].cat), "async");
    ASSERT_EQ_I64(t->ndevices, 1);
    ASSERT_EQ_I64(t->devices[0].num_sms, 80);
    ASSERT_EQ_I64(t->devices[0].compute_major, 7);
    ASSERT_EQ_I64(t->devices[0].max_threads_per_sm, 2048);
    lat_trace_free(t);
    free(doc);
}

TEST(kineto_handmade_legacy_and_mtia_strings)
{
    size_t n;
    char *doc = read_data("handmade-legacy.json", &n);
    struct lat_trace *t = load_mem(doc, n, 0, 0);
    ASSERT_EQ_STR(t->format, "pytorch-legacy");
    ASSERT_EQ_I64(t->ev.n, 3);
    ASSERT_EQ_I64(count_kind(t, LAT_EV_CPU_OP), 3);
    ASSERT_EQ_I64(t->ev.step[find_event(t, "ProfilerStep#2", -1)], 2);
    ASSERT_EQ_STR(lat_trace_str(t, t->tracks[0].pid_str), "CPU functions");
    lat_trace_free(t);
    free(doc);

    doc = read_data("handmade-mtia-strings.json", &n);
    t = load_mem(doc, n, 0, 0);
    ASSERT_EQ_I64(t->rank, 5);
    ASSERT_EQ_I64(t->world_size, 16);
    ASSERT_EQ_I64(t->base_time_ns, 1727743122000000000LL);
    size_t i = find_event(t, "job_exe", LAT_EV_DEVICE_OTHER);
    ASSERT(t->ev.flags[i] & LAT_EVF_GPU);
    ASSERT_EQ_I64(t->ev.stream[i], 108);
    ASSERT_EQ_I64(t->ev.ts[i], 3605057436200001LL);
    ASSERT_EQ_I64(t->ev.dur[i], 15863105);
    i = find_event(t, "runFunction - job_prep_and_submit_for_execution", LAT_EV_RUNTIME);
    ASSERT_EQ_I64(t->ev.ts[i], 3605057436108407LL);
    lat_trace_free(t);
    free(doc);
}

static const char *const handmade[] = {"handmade-kineto-current.json", "handmade-kineto-2021.json",
                                       "handmade-legacy.json", "handmade-mtia-strings.json"};

TEST(kineto_chunks_and_gzip_same_model)
{
    for (size_t f = 0; f < sizeof(handmade) / sizeof(handmade[0]); f++) {
        size_t n, gzn;
        char *doc = read_data(handmade[f], &n);
        struct lat_trace *t = load_mem(doc, n, 0, 0);
        uint64_t ref = fingerprint(t);
        lat_trace_free(t);
        static const size_t chunks[] = {1, 2, 3, 5, 7, 16, 61, 4096};
        for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
            t = load_mem(doc, n, chunks[c], 0);
            if (fingerprint(t) != ref)
                FAIL("%s: chunk %zu changes the model", handmade[f], chunks[c]);
            lat_trace_free(t);
        }
        unsigned char *gz = gzip_mem(doc, n, &gzn);
        for (size_t c = 0; c < 3; c++) {
            t = load_mem((const char *)gz, gzn, c == 0 ? 0 : c == 1 ? 1 : 13, 0);
            if (fingerprint(t) != ref) FAIL("%s: gzip (chunk case %zu) differs", handmade[f], c);
            lat_trace_free(t);
        }
        /* From a file, threaded and not; and a file of two concatenated gzip members. */
        char name[64];
        snprintf(name, sizeof(name), "t%zu.json.gz", f);
        char path[4096];
        snprintf(path, sizeof(path), "%s", test_write_file(name, gz, gzn));
        for (int th = 0; th < 4; th++) {
            struct lat_ingest_opts o = {.flags = th & 1 ? 0 : LAT_INGEST_NO_THREAD,
                                        .chunk_bytes = th & 2 ? 1 : 100};
            char err[LAT_INGEST_ERRLEN];
            ASSERT_RC(ingest_open(path, &o, &t, err, sizeof(err)));
            ASSERT_EQ_U64(fingerprint(t), ref);
            ASSERT_EQ_STR(t->path, path);
            lat_trace_free(t);
        }
        size_t h = n / 2, g1n, g2n;
        unsigned char *g1 = gzip_mem(doc, h, &g1n), *g2 = gzip_mem(doc + h, n - h, &g2n);
        unsigned char *cat = malloc(g1n + g2n);
        memcpy(cat, g1, g1n);
        memcpy(cat + g1n, g2, g2n);
        t = load_mem((const char *)cat, g1n + g2n, 0, 0);
        ASSERT_EQ_U64(fingerprint(t), ref);
        lat_trace_free(t);
        free(cat);
        free(g1);
        free(g2);
        free(gz);
        free(doc);
    }
}

TEST(kineto_every_truncation_is_a_clean_error)
{
    size_t n, gzn;
    char *doc = read_data("handmade-kineto-current.json", &n);
    size_t end = n;
    while (end > 0 && (doc[end - 1] == '\n' || doc[end - 1] == ' '))
        end--;
    for (size_t cut = 0; cut < end; cut++) {
        struct lat_trace *t = (struct lat_trace *)1;
        char err[LAT_INGEST_ERRLEN] = "";
        int rc = ingest_mem(doc, cut, "cut", NULL, &t, err, sizeof(err));
        if (rc != LAT_E_TRUNCATED || t != NULL || !strstr(err, "byte"))
            FAIL("cut at %zu: rc %d (%s)", cut, rc, err);
    }
    unsigned char *gz = gzip_mem(doc, n, &gzn);
    for (size_t cut = 1; cut < gzn - 1; cut += 7) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN] = "";
        int rc = ingest_mem(gz, cut, "cut.gz", NULL, &t, err, sizeof(err));
        if (cut < 10) continue; /* a cut inside the gzip header may not even look like gzip */
        if (rc != LAT_E_GZIP || !strstr(err, "truncated gzip"))
            FAIL("gzip cut at %zu: rc %d (%s)", cut, rc, err);
    }
    /* Corrupt gzip data (a flipped byte in the middle). */
    gz[gzn / 2] ^= 0x55;
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN] = "";
    int rc = ingest_mem(gz, gzn, "bad.gz", NULL, &t, err, sizeof(err));
    ASSERT(rc < 0);
    free(gz);
    free(doc);
}

struct bad_case {
    const char *doc;
    int rc;
    const char *msg;
};

TEST(kineto_bad_inputs_name_the_problem)
{
    static const struct bad_case cases[] = {
        {"", LAT_E_TRUNCATED, "empty input"},
        {"{\"traceEvents\": [{\"ph\": \"X\" \"ts\": 1}]}", LAT_E_BAD_JSON,
         "byte 28: expected ',' or '}'"},
        {"{\"schemaVersion\": 1}", LAT_E_NOT_TRACE, "no \"traceEvents\""},
        {"42", LAT_E_NOT_TRACE, "single number"},
        {"[{\"count\": 3}, {\"name\": \"x\", \"timeMs\": 1.5}]", LAT_E_NOT_TRACE,
         "trtexec --exportProfile"},
        {"{\"nodes\": [], \"schema\": \"1.0.1\"}", LAT_E_NOT_TRACE, "Chakra"},
        {"[] []", LAT_E_BAD_JSON, "after the end"},
        {"{\"traceEvents\": []} x", LAT_E_BAD_JSON, "after the end"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN] = "";
        int rc = ingest_mem(cases[i].doc, strlen(cases[i].doc), "bad", NULL, &t, err, sizeof(err));
        if (rc != cases[i].rc || !strstr(err, cases[i].msg) || strncmp(err, "bad: ", 5) != 0)
            FAIL("case %zu: rc %d, err '%s'", i, rc, err);
    }
    /* Valid edge cases: empty event list, invalid UTF-8 in a name, deep args, odd ids. */
    const char ok[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\xff\xfe\", \"ts\": 1, "
                      "\"dur\": 2, \"pid\": 1.5, \"tid\": 18446744073709551615, \"args\": "
                      "{\"d\": [[[[[[[[[[1]]]]]]]]]]}}, {\"ph\": \"s\", \"id\": \"0x10\", "
                      "\"ts\": 1, \"pid\": 1, \"tid\": 1}, 5, \"str\"]}";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(ok, sizeof(ok) - 1, "ok", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_I64(t->ev.n, 1);
    ASSERT_EQ_I64(t->dropped, 2);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "k\xff\xfe");
    ASSERT_EQ_I64(t->flows[0].id, 16);
    ASSERT_EQ_STR(lat_trace_str(t, t->tracks[t->ev.track[0]].pid_str), "1.5");
    lat_trace_free(t);
    ASSERT_RC(ingest_mem("{\"traceEvents\": []}", 19, "e", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_I64(t->ev.n, 0);
    lat_trace_free(t);
    ASSERT_EQ_I64(ingest_open("/nonexistent/x.json", NULL, &t, err, sizeof(err)), -ENOENT);
    ASSERT(strstr(err, "/nonexistent/x.json: cannot open"));
    ASSERT_EQ_I64(ingest_step_number("ProfilerStep#12", 15), 12);
    ASSERT_EQ_I64(ingest_step_number("ProfilerStep#", 13), -1);
    ASSERT_EQ_I64(ingest_step_number("ProfilerStepX", 13), -1);
}

TEST(kineto_dir_ranks)
{
    const char *dir = test_tmpdir();
    char sub[2048], path[4200];
    snprintf(sub, sizeof(sub), "%s/ranks", dir);
    ASSERT_RC(mkdir(sub, 0700));
    static const char *const files[][2] = {
        {"a-rank3.json", "handmade-kineto-current.json"},
        {"b-rank5.json", "handmade-mtia-strings.json"},
        {"c-norank.json", "handmade-kineto-2021.json"},
        {"d-dup3.json", "handmade-kineto-current.json"},
    };
    for (size_t i = 0; i < 4; i++) {
        size_t n;
        char *doc = read_data(files[i][1], &n);
        snprintf(path, sizeof(path), "%s/%s", sub, files[i][0]);
        FILE *f = fopen(path, "wb");
        ASSERT(f);
        fwrite(doc, 1, n, f);
        fclose(f);
        free(doc);
    }
    snprintf(path, sizeof(path), "%s/e-broken.json.gz", sub);
    FILE *f = fopen(path, "wb");
    fputs("\x1f\x8b garbage", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/notes.txt", sub);
    f = fopen(path, "wb");
    fputs("ignored", f);
    fclose(f);
    struct lat_ingest_set *s;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_dir(sub, NULL, &s, err, sizeof(err)));
    ASSERT_EQ_I64(s->n, 5);
    ASSERT_EQ_I64(s->files[0].status, LAT_INGEST_OK);
    ASSERT_EQ_I64(s->files[0].rank, 3);
    ASSERT_EQ_I64(s->files[1].rank, 5);
    ASSERT_EQ_I64(s->files[2].status, LAT_INGEST_NO_RANK);
    ASSERT_EQ_I64(s->files[2].rank, 0);
    ASSERT(s->files[2].trace);
    ASSERT_EQ_I64(s->files[3].status, LAT_INGEST_DUP_RANK);
    ASSERT(!s->files[3].trace);
    ASSERT(strstr(s->files[3].err, "has the same rank (3)"));
    ASSERT_EQ_I64(s->files[4].status, LAT_INGEST_ERROR);
    ASSERT_EQ_I64(s->files[4].rc, LAT_E_GZIP);
    ingest_set_free(s);
    snprintf(path, sizeof(path), "%s/empty", dir);
    ASSERT_RC(mkdir(path, 0700));
    ASSERT_EQ_I64(ingest_dir(path, NULL, &s, err, sizeof(err)), LAT_E_NOT_FOUND);
}

TEST(kineto_member_order_does_not_matter)
{
    /* Generic Chrome writers may put "args" before "ph": the M label must still apply, and a
     * regular event's args.name stays an arg. Duplicate keys: the last one wins. */
    const char doc[] =
        "[{\"args\": {\"name\": \"late ph\"}, \"name\": \"thread_name\", \"pid\": 5, \"tid\": 6, "
        "\"ph\": \"M\"}, {\"args\": {\"name\": \"argname\"}, \"ts\": 1, \"name\": \"x\", \"pid\": "
        "5, "
        "\"tid\": 6, \"dur\": 1, \"ph\": \"X\", \"dur\": 3}]";
    struct lat_trace *t = load_mem(doc, sizeof(doc) - 1, 0, 0);
    ASSERT_EQ_I64(t->ev.n, 1);
    ASSERT_EQ_I64(t->ev.dur[0], 3000);
    ASSERT_EQ_STR(lat_trace_str(t, t->tracks[t->ev.track[0]].tid_label), "late ph");
    ASSERT_EQ_STR(arg_str(t, 0, "name", LAT_ARG_STR), "argname");
    ASSERT_EQ_I64(t->ev.nargs[0], 1);
    lat_trace_free(t);
}

TEST(kineto_us_double_matches_strtod)
{
    /* Cases where whole + fraction / 1000.0 is one ulp off the parser's double (seen in
     * nccl_data.json.gz), epoch timestamps, negatives and extremes. */
    static const int64_t cases[] = {26577,
                                    5722,
                                    7472,
                                    7403,
                                    0,
                                    1,
                                    999,
                                    -26577,
                                    1712195495519689047LL,
                                    3605057436108407LL,
                                    9007199254740993LL,
                                    INT64_MAX,
                                    INT64_MIN + 1};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int64_t ns = cases[i];
        uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        char txt[64];
        snprintf(txt, sizeof(txt), "%s%llu.%03llu", ns < 0 ? "-" : "",
                 (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
        double want = strtod(txt, NULL), got = ingest_ns_to_us_double(ns);
        if (want != got) FAIL("%s: %.17g != strtod %.17g", txt, got, want);
    }
    /* And a sweep of random values of every magnitude. */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t ns = (int64_t)(x >> (x % 50));
        uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
        char txt[64];
        snprintf(txt, sizeof(txt), "%s%llu.%03llu", ns < 0 ? "-" : "",
                 (unsigned long long)(a / 1000), (unsigned long long)(a % 1000));
        if (strtod(txt, NULL) != ingest_ns_to_us_double(ns)) FAIL("%s differs", txt);
    }
}
