/* test-ingest-hostile.c - the trace reader on hostile hand-made inputs (issue 14): nested
 * values where scalars belong, unusable ts/dur (counted by reason, never silently lost; a
 * wrong time unit or mostly unusable events fail), time bounds that keep every consumer's
 * ts + dur arithmetic in int64, size caps, and gzip errors that name the real reason. Every
 * expected number is worked out by hand from tests/data/handmade-{nested-values,bad-times}.json
 * (see the comments). */
#include "analyze/analysis.h"
#include "core/err.h"
#include "ingest/ingest.h"
#include "test.h"
#include "json/tok.h"

#include <errno.h>
#include <zlib.h>

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

static unsigned char *gzip_buf(const void *src, size_t n, size_t *outn)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    ASSERT(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    size_t cap = deflateBound(&z, n) + 64;
    unsigned char *out = malloc(cap);
    ASSERT(out);
    z.next_in = (unsigned char *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    ASSERT(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *outn = cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

static int load(const char *doc, size_t n, size_t chunk, struct lat_trace **t, char *err,
                size_t errsz)
{
    struct lat_ingest_opts o = {.chunk_bytes = chunk};
    err[0] = '\0';
    return ingest_mem(doc, n, "hostile", &o, t, err, errsz);
}

static size_t count_named(const struct lat_trace *t, const char *name)
{
    size_t k = 0;
    for (size_t i = 0; i < t->ev.n; i++)
        k += !strcmp(lat_trace_str(t, t->ev.name[i]), name);
    return k;
}

/* The model's time contract: every consumer may add ts + dur and subtract any two times. */
static void check_bounds(const struct lat_trace *t)
{
    for (size_t i = 0; i < t->ev.n; i++) {
        ASSERT_OP_I64(t->ev.ts[i], >=, LAT_TS_MIN);
        ASSERT_OP_I64(t->ev.ts[i], <=, LAT_TS_MAX);
        ASSERT_OP_I64(t->ev.dur[i], >=, 0);
        ASSERT_OP_I64(t->ev.dur[i], <=, LAT_DUR_MAX);
        ASSERT(!(t->ev.flags[i] & LAT_EVF_READER_TMP));
    }
    for (size_t i = 0; i < t->nflows; i++) {
        ASSERT_OP_I64(t->flows[i].ts, >=, LAT_TS_MIN);
        ASSERT_OP_I64(t->flows[i].ts, <=, LAT_TS_MAX);
    }
    uint64_t sum = 0;
    for (int r = 0; r < LAT_DROP_REASON_COUNT; r++)
        sum += t->drops[r];
    ASSERT_EQ_U64(sum, t->dropped);
}

TEST(hostile_nested_values_are_skipped_whole)
{
    size_t n;
    char *doc = read_data("handmade-nested-values.json", &n);
    static const size_t chunks[] = {0, 1, 2, 3, 5, 7, 13, 64};
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        int rc = load(doc, n, chunks[c], &t, err, sizeof(err));
        if (rc) FAIL("chunk %zu: rc %d: %s", chunks[c], rc, err);
        /* kept: "real" (cat ignored), the kernel at 20 (name ignored), "op", the kernel at 80 */
        ASSERT_EQ_U64(t->ev.n, 4);
        /* nothing inside a nested value became an event or a field */
        ASSERT_EQ_U64(count_named(t, "ghost") + count_named(t, "ghost2") + count_named(t, "g"), 0);
        size_t kernels = 0;
        for (size_t i = 0; i < t->ev.n; i++) {
            if (t->ev.kind[i] != LAT_EV_KERNEL) continue;
            kernels++;
            ASSERT(t->ev.dur[i] == 5000 || t->ev.dur[i] == 2000); /* never the ghost's 5 s */
        }
        ASSERT_EQ_U64(kernels, 2);
        size_t real = 0;
        for (size_t i = 0; i < t->ev.n; i++)
            if (!strcmp(lat_trace_str(t, t->ev.name[i]), "real")) {
                real++;
                ASSERT_EQ_I64(t->ev.kind[i], LAT_EV_OTHER);
                ASSERT_EQ_I64(t->ev.ts[i], 10000);
                ASSERT_EQ_I64(t->ev.dur[i], 5000);
                ASSERT_EQ_I64(t->tracks[t->ev.track[i]].pid, 1);
            }
        ASSERT_EQ_U64(real, 1);
        /* dropped: ph object (no phase), ts object, ts [], dur array, flow with an object id */
        ASSERT_EQ_U64(t->dropped, 5);
        ASSERT_EQ_U64(t->drops[LAT_DROP_NO_PHASE], 1);
        ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_TS], 2);
        ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_DUR], 1);
        ASSERT_EQ_U64(t->drops[LAT_DROP_FLOW_NO_ID], 1);
        ASSERT_EQ_U64(t->drops_gpu, 4); /* the four with cat "kernel" */
        ASSERT_EQ_U64(t->nflows, 0);
        /* cat, name, ph, id, bp (flow), pid, tid, args, bp (op), name true */
        ASSERT_EQ_U64(t->bad_fields, 10);
        check_bounds(t);
        lat_trace_free(t);
    }
    free(doc);
}

TEST(hostile_nested_value_keeps_the_next_event)
{
    /* The 2-event case: the object in "ts" used to be read as members of the event,
     * which ended early and lost the second kernel. */
    static const char doc[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"ts\":{\"a\":1,"
        "\"ph\":\"X\",\"b\":[{\"ts\":3}]},\"dur\":5,\"pid\":0,\"tid\":7},{\"ph\":\"X\",\"cat\":"
        "\"kernel\",\"name\":\"k2\",\"ts\":20,\"dur\":5,\"pid\":0,\"tid\":7}]}";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(load(doc, sizeof(doc) - 1, 0, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 1);
    ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "k2");
    ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_TS], 1);
    lat_trace_free(t);
    /* "ts": [] on the only event: a clear error (most events unusable), not "internal error" */
    static const char one[] = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":[],\"dur\":1}]}";
    int rc = load(one, sizeof(one) - 1, 0, &t, err, sizeof(err));
    ASSERT_EQ_I64(rc, LAT_E_BAD_EVENTS);
    if (!strstr(err, "1 of 1 events have no usable time") || strstr(err, "internal"))
        FAIL("%s", err);
}

TEST(hostile_bad_times_counted_by_reason)
{
    size_t n;
    char *doc = read_data("handmade-bad-times.json", &n);
    static const size_t chunks[] = {0, 1, 3, 8, 17};
    for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        int rc = load(doc, n, chunks[c], &t, err, sizeof(err));
        if (rc) FAIL("chunk %zu: rc %d: %s", chunks[c], rc, err);
        /* kept: 12 good kernels and the B/E pair be_ok */
        ASSERT_EQ_U64(t->ev.n, 13);
        ASSERT_EQ_U64(count_named(t, "good"), 12);
        size_t be = 0;
        for (size_t i = 0; i < t->ev.n; i++)
            if (!strcmp(lat_trace_str(t, t->ev.name[i]), "be_ok")) {
                be++;
                ASSERT_EQ_I64(t->ev.dur[i], 50000);
            }
        ASSERT_EQ_U64(be, 1);
        ASSERT_EQ_U64(count_named(t, "be_neg") + count_named(t, "ProfilerStep#1"), 0);
        ASSERT_EQ_U64(t->drops[LAT_DROP_TS_RANGE], 2);  /* k_ns, neg_ts_far */
        ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_DUR], 1);   /* "300us" */
        ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_TS], 1);    /* null */
        ASSERT_EQ_U64(t->drops[LAT_DROP_NEG_DUR], 2);   /* dur -4, E before B */
        ASSERT_EQ_U64(t->drops[LAT_DROP_DUR_RANGE], 3); /* k_huge, 1e300, the 126-year step */
        ASSERT_EQ_U64(t->drops[LAT_DROP_NO_TS], 1);
        ASSERT_EQ_U64(t->drops[LAT_DROP_UNMATCHED_END], 1);
        ASSERT_EQ_U64(t->dropped, 11);
        ASSERT_EQ_U64(t->drops_gpu, 7);
        ASSERT_EQ_U64(t->drops_step, 1);
        check_bounds(t);
        /* the analyses see only sane events: no negative share, parts add up */
        struct analysis_opts o;
        analysis_opts_default(&o);
        struct lat_analysis *a = NULL;
        ASSERT_RC(analysis_run(&t, 1, &o, &a));
        const struct lat_an_temporal *tb = &a->ranks[0].temporal;
        ASSERT(tb->valid);
        ASSERT_EQ_I64(tb->kernel_time, tb->compute + tb->idle + tb->non_compute);
        ASSERT_OP_I64(tb->idle, >=, 0);
        ASSERT(tb->compute_pct >= 0 && tb->compute_pct <= 100);
        ASSERT(tb->idle_pct >= 0 && tb->idle_pct <= 100);
        analysis_free(a);
        lat_trace_free(t);
    }
    free(doc);
}

TEST(hostile_ns_timestamps_fail_naming_the_unit)
{
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(buf_puts(&b, "{\"traceEvents\":["));
    for (int i = 0; i < 30; i++) {
        char ev[200];
        snprintf(ev, sizeof(ev),
                 "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":%lld,\"dur\":3000,"
                 "\"pid\":0,\"tid\":7}",
                 i ? "," : "", 1700000000000000000LL + i * 10000LL);
        ASSERT_RC(buf_puts(&b, ev));
    }
    ASSERT_RC(buf_puts(&b, "]}"));
    struct lat_trace *t = (struct lat_trace *)1;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_EQ_I64(load(b.data, b.len, 0, &t, err, sizeof(err)), LAT_E_BAD_EVENTS);
    ASSERT(t == NULL);
    if (!strstr(err, "timestamps in ns, not µs: 30 of 30 events") || !strstr(err, "by 1000"))
        FAIL("%s", err);
    buf_fini(&b);
}

TEST(hostile_mostly_unusable_events_fail)
{
    static const char doc[] =
        "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":\"300us\"},{\"ph\":\"X\",\"ts\":null,"
        "\"dur\":2},{\"ph\":\"X\",\"ts\":\"soon\",\"dur\":2},{\"ph\":\"X\",\"ts\":5,\"dur\":2}]}";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_EQ_I64(load(doc, sizeof(doc) - 1, 0, &t, err, sizeof(err)), LAT_E_BAD_EVENTS);
    if (!strstr(err, "3 of 4 events have no usable time (\"ts\" not a number: 2, \"dur\" not a "
                     "number: 1)"))
        FAIL("%s", err);
    /* half of them is not most: loads, with the drops counted */
    static const char half[] = "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":\"300us\"},"
                               "{\"ph\":\"X\",\"ts\":5,\"dur\":2}]}";
    ASSERT_RC(load(half, sizeof(half) - 1, 0, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 1);
    ASSERT_EQ_U64(t->drops[LAT_DROP_BAD_DUR], 1);
    lat_trace_free(t);
}

TEST(hostile_many_open_b_events_match_per_track)
{
    /* 20000 B events on distinct tracks, then their E events in reverse: each E finds its B
     * directly (the old linear search over every open B made this quadratic). */
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(buf_puts(&b, "{\"traceEvents\":["));
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        char ev[120];
        snprintf(ev, sizeof(ev), "%s{\"ph\":\"B\",\"name\":\"b\",\"ts\":%d,\"pid\":1,\"tid\":%d}",
                 i ? "," : "", i, i);
        ASSERT_RC(buf_puts(&b, ev));
    }
    for (int i = N - 1; i >= 0; i--) {
        char ev[120];
        snprintf(ev, sizeof(ev), ",{\"ph\":\"E\",\"ts\":%d,\"pid\":1,\"tid\":%d}", N + i, i);
        ASSERT_RC(buf_puts(&b, ev));
    }
    ASSERT_RC(buf_puts(&b, "]}"));
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(load(b.data, b.len, 0, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, (uint64_t)N);
    for (size_t i = 0; i < t->ev.n; i++)
        ASSERT_EQ_I64(t->ev.dur[i], (int64_t)N * 1000); /* (N + i) - i µs */
    ASSERT_EQ_U64(t->dropped, 0);
    lat_trace_free(t);
    buf_fini(&b);
}

/* {"big": "xxxx...", "traceEvents": []} with a string of len bytes. */
static char *big_string_doc(size_t len, size_t *n)
{
    const char *pre = "{\"big\": \"", *post = "\", \"traceEvents\": []}";
    size_t pl = strlen(pre), ql = strlen(post);
    char *d = malloc(pl + len + ql + 1);
    ASSERT(d);
    memcpy(d, pre, pl);
    memset(d + pl, 'x', len);
    memcpy(d + pl + len, post, ql + 1);
    *n = pl + len + ql;
    return d;
}

TEST(hostile_value_size_is_capped)
{
    size_t n;
    char *doc = big_string_doc(300 << 10, &n);
    struct lat_ingest_opts o = {.chunk_bytes = 4096, .max_value_bytes = 100 << 10};
    struct lat_trace *t = (struct lat_trace *)1;
    char err[LAT_INGEST_ERRLEN];
    unsetenv("LATSCOPE_MAX_VALUE");
    ASSERT_EQ_I64(ingest_mem(doc, n, "big", &o, &t, err, sizeof(err)), LAT_E_OVERFLOW);
    ASSERT(t == NULL);
    if (!strstr(err, "string of more than 102400 bytes") || !strstr(err, "LATSCOPE_MAX_VALUE"))
        FAIL("%s", err);
    /* the same from the environment variable, and a limit that fits */
    o.max_value_bytes = 0;
    setenv("LATSCOPE_MAX_VALUE", "100k", 1);
    ASSERT_EQ_I64(ingest_mem(doc, n, "big", &o, &t, err, sizeof(err)), LAT_E_OVERFLOW);
    setenv("LATSCOPE_MAX_VALUE", "1M", 1);
    ASSERT_RC(ingest_mem(doc, n, "big", &o, &t, err, sizeof(err)));
    ASSERT_EQ_STR(ingest_meta_get(t, "traceEvents") ? "x" : "none", "none");
    ASSERT_EQ_U64(strlen(ingest_meta_get(t, "big")), (300 << 10) + 2);
    lat_trace_free(t);
    setenv("LATSCOPE_MAX_VALUE", "lots", 1);
    ASSERT_EQ_I64(ingest_mem(doc, n, "big", &o, &t, err, sizeof(err)), LAT_E_USAGE);
    ASSERT(strstr(err, "LATSCOPE_MAX_VALUE=lots"));
    unsetenv("LATSCOPE_MAX_VALUE");
    free(doc);
    /* a raw value (an array arg, a metadata object) made of many small tokens is capped too */
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(buf_puts(&b, "{\"meta\": ["));
    for (int i = 0; i < 50000; i++)
        ASSERT_RC(buf_puts(&b, i ? ",1" : "1"));
    ASSERT_RC(buf_puts(&b, "], \"traceEvents\": []}"));
    o.max_value_bytes = 10000;
    ASSERT_EQ_I64(ingest_mem(b.data, b.len, "arr", &o, &t, err, sizeof(err)), LAT_E_OVERFLOW);
    ASSERT(strstr(err, "a value larger than 10000 bytes"));
    buf_fini(&b);
}

TEST(hostile_long_number_fails_fast)
{
    /* 10^6 digits read in 4 KiB chunks: an error at the 4097th character (this used to rescan
     * the whole number for every chunk: quadratic, > 300 s for 10^9 digits). */
    size_t len = 1000000;
    const char *pre = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": ";
    size_t pl = strlen(pre);
    char *d = malloc(pl + len + 10);
    ASSERT(d);
    memcpy(d, pre, pl);
    memset(d + pl, '7', len);
    memcpy(d + pl + len, "}]}", 4);
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_EQ_I64(load(d, pl + len + 3, 4096, &t, err, sizeof(err)), LAT_E_OVERFLOW);
    if (!strstr(err, "a number of more than 4096 characters")) FAIL("%s", err);
    free(d);
}

TEST(hostile_tok_max_token_across_chunks)
{
    /* a 100-byte string split in 7-byte chunks: fails with a limit of 60, passes with 102 */
    char doc[128];
    doc[0] = '"';
    memset(doc + 1, 'a', 100);
    doc[101] = '"';
    for (int lim = 0; lim < 2; lim++) {
        struct json_tok t;
        struct json_token tk;
        json_tok_init(&t, 0);
        json_tok_set_max_token(&t, lim ? 102 : 60);
        int rc = 0, strs = 0;
        for (size_t off = 0; off < 102 && rc >= 0; off += 7) {
            size_t k = 102 - off < 7 ? 102 - off : 7;
            json_tok_feed(&t, doc + off, k);
            while ((rc = json_tok_next(&t, &tk)) == 1) {
                ASSERT_EQ_I64(tk.type, JSON_STR);
                ASSERT_EQ_U64(tk.len, 100);
                strs++;
            }
        }
        if (rc >= 0) {
            json_tok_finish(&t);
            while ((rc = json_tok_next(&t, &tk)) == 1 && tk.type != JSON_END)
                strs++;
        }
        if (lim) {
            ASSERT_EQ_I64(rc, 1);
            ASSERT_EQ_I64(strs, 1);
        } else {
            ASSERT_EQ_I64(rc, LAT_E_OVERFLOW);
            ASSERT(json_tok_too_big(&t));
            ASSERT(strstr(json_tok_errmsg(&t), "string of more than 60 bytes"));
            ASSERT_EQ_U64(json_tok_erroff(&t), 0);
        }
        json_tok_fini(&t);
    }
    /* numbers: 4096 characters are fine, 4097 are not (whole or split) */
    char num[4200];
    memset(num, '1', sizeof(num));
    for (int split = 0; split < 2; split++)
        for (size_t len = 4096; len <= 4097; len++) {
            struct json_tok t;
            struct json_token tk;
            json_tok_init(&t, 0);
            int rc;
            if (split) {
                json_tok_feed(&t, num, len / 2);
                ASSERT_EQ_I64(json_tok_next(&t, &tk), 0);
                json_tok_feed(&t, num + len / 2, len - len / 2);
                rc = json_tok_next(&t, &tk);
                if (rc == 0) {
                    json_tok_finish(&t);
                    rc = json_tok_next(&t, &tk);
                }
            } else {
                json_tok_feed(&t, num, len);
                json_tok_finish(&t);
                rc = json_tok_next(&t, &tk);
            }
            if (len == 4096) {
                ASSERT_EQ_I64(rc, 1);
                ASSERT_EQ_U64(tk.len, 4096);
            } else {
                ASSERT_EQ_I64(rc, LAT_E_OVERFLOW);
                ASSERT(!json_tok_too_big(&t));
            }
            json_tok_fini(&t);
        }
}

static const char small_doc[] =
    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2,"
    "\"pid\":0,\"tid\":7},{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"ts\":1,\"dur\":2,"
    "\"pid\":1,\"tid\":1}]}";

TEST(hostile_gzip_errors_name_the_reason)
{
    size_t gzn;
    unsigned char *gz = gzip_buf(small_doc, sizeof(small_doc) - 1, &gzn);
    unsigned char *bad = malloc(gzn + 16);
    ASSERT(bad);
    static const char *const backends[] = {"0", "1"}; /* ISA-L when built with it, zlib */
    static const size_t chunks[] = {0, 1, 3, 7};
    for (int be = 0; be < 2; be++) {
        setenv("LAT_INGEST_ZLIB", backends[be], 1);
        for (int kind = 0; kind < 3; kind++) {
            memcpy(bad, gz, gzn);
            size_t bn = gzn;
            const char *want;
            if (kind == 0) { /* ISIZE (the last 4 bytes) */
                bad[gzn - 1] ^= 1;
                want = "length mismatch";
            } else if (kind == 1) { /* CRC-32 (the 4 bytes before) */
                bad[gzn - 8] ^= 1;
                want = "CRC-32 mismatch";
            } else {
                memcpy(bad + gzn, "garbage", 7);
                bn += 7;
                want = "trailing data after the end of the gzip stream: byte 0x67";
            }
            const char *path = test_write_file("bad.json.gz", bad, bn);
            for (size_t c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
                struct lat_ingest_opts o = {.chunk_bytes = chunks[c]};
                for (int th = 0; th < 2; th++) {
                    struct lat_trace *t;
                    char err[LAT_INGEST_ERRLEN] = "";
                    o.flags = th ? 0 : LAT_INGEST_NO_THREAD;
                    int rc = ingest_open(path, &o, &t, err, sizeof(err));
                    if (rc != LAT_E_GZIP || !strstr(err, want) || (kind == 0 && strstr(err, "CRC")))
                        FAIL("backend %d kind %d chunk %zu: rc %d: %s", be, kind, chunks[c], rc,
                             err);
                }
                struct lat_trace *t;
                char err[LAT_INGEST_ERRLEN] = "";
                int rc = ingest_mem(bad, bn, "m", &o, &t, err, sizeof(err));
                if (rc != LAT_E_GZIP || !strstr(err, want))
                    FAIL("backend %d kind %d chunk %zu (mem): rc %d: %s", be, kind, chunks[c], rc,
                         err);
            }
        }
        /* trailing zero bytes are padding: accepted, as by GNU gzip */
        memcpy(bad, gz, gzn);
        memset(bad + gzn, 0, 16);
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        ASSERT_RC(ingest_mem(bad, gzn + 16, "pad", NULL, &t, err, sizeof(err)));
        ASSERT_EQ_U64(t->ev.n, 2);
        lat_trace_free(t);
    }
    unsetenv("LAT_INGEST_ZLIB");
    free(bad);
    free(gz);
}

TEST(hostile_empty_and_truncated_files_name_the_type)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    const char *p = test_write_file("empty.json", "", 0);
    ASSERT_EQ_I64(ingest_open(p, NULL, &t, err, sizeof(err)), LAT_E_TRUNCATED);
    if (!strstr(err, "empty.json: empty file (0 bytes): not a trace")) FAIL("%s", err);
    p = test_write_file("cut.json", small_doc, 60);
    ASSERT_EQ_I64(ingest_open(p, NULL, &t, err, sizeof(err)), LAT_E_TRUNCATED);
    if (!strstr(err, "cut.json: truncated JSON trace: JSON byte 60: input ends")) FAIL("%s", err);
    size_t gzn;
    unsigned char *gz = gzip_buf(small_doc, 60, &gzn);
    p = test_write_file("cut.json.gz", gz, gzn);
    ASSERT_EQ_I64(ingest_open(p, NULL, &t, err, sizeof(err)), LAT_E_TRUNCATED);
    if (!strstr(err, "truncated gzip-compressed JSON trace")) FAIL("%s", err);
    free(gz);
    gz = gzip_buf("", 0, &gzn);
    p = test_write_file("empty.json.gz", gz, gzn);
    ASSERT_EQ_I64(ingest_open(p, NULL, &t, err, sizeof(err)), LAT_E_TRUNCATED);
    if (!strstr(err, "the gzip data decompresses to nothing (0 bytes)")) FAIL("%s", err);
    free(gz);
    gz = gzip_buf(small_doc, sizeof(small_doc) - 1, &gzn);
    p = test_write_file("cutgz.json.gz", gz, gzn / 2);
    ASSERT_EQ_I64(ingest_open(p, NULL, &t, err, sizeof(err)), LAT_E_GZIP);
    if (!strstr(err, "truncated gzip data")) FAIL("%s", err);
    free(gz);
}

TEST(hostile_fuzz_gzip_isal_bad_lookback)
{
    /* Found by the fuzz campaign: a corrupt deflate stream after which ISA-L returns
     * ISAL_INVALID_LOOKBACK with avail_in = 2^32 - 1; the trailer window must not trust it
     * (ASan: heap-buffer-overflow in src_inflate_isal). Both backends: a clean LAT_E_GZIP. */
    size_t n;
    const char *src = getenv("LATSCOPE_SRCDIR");
    char path[4096];
    snprintf(path, sizeof(path), "%s/tests/fuzz/corpus/kineto/gzip-isal-bad-lookback",
             src ? src : ".");
    FILE *f = fopen(path, "rb");
    if (!f) FAIL("cannot open %s", path);
    unsigned char buf[4096];
    n = fread(buf, 1, sizeof(buf), f);
    fclose(f);
    ASSERT(n > 100);
    for (int be = 0; be < 2; be++) {
        setenv("LAT_INGEST_ZLIB", be ? "1" : "0", 1);
        for (size_t chunk = 0; chunk <= 17; chunk += 17) {
            struct lat_ingest_opts o = {.chunk_bytes = chunk};
            struct lat_trace *t = (struct lat_trace *)1;
            char err[LAT_INGEST_ERRLEN] = "";
            int rc = ingest_mem(buf + 1, n - 1, "fz", &o, &t, err, sizeof(err));
            ASSERT(t == NULL);
            /* the JSON inflated before the bad block may already be malformed */
            if (!(rc == LAT_E_GZIP && strstr(err, "corrupt gzip data")) &&
                !(rc == LAT_E_BAD_JSON && strstr(err, "JSON byte")))
                FAIL("backend %d chunk %zu: rc %d: %s", be, chunk, rc, err);
        }
    }
    unsetenv("LAT_INGEST_ZLIB");
}
