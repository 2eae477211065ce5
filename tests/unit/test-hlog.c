/* test-hlog.c - base64, the V2 histogram codec and the interval log writer/reader. */
#include "test.h"

#include "core/buf.h"
#include "core/err.h"
#include "hist/base64.h"
#include "hist/hlog.h"
#include "stats/rng.h"

#include <sys/wait.h>

TEST(base64_rfc4648_vectors)
{
    const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
    for (int i = 0; i < 7; i++) {
        char out[16];
        uint8_t dec[16];
        size_t n = strlen(plain[i]), dn;
        ASSERT_EQ_U64(base64_encode((const uint8_t *)plain[i], n, out), strlen(enc[i]));
        ASSERT_EQ_STR(out, enc[i]);
        ASSERT_RC(base64_decode(enc[i], strlen(enc[i]), dec, sizeof(dec), &dn));
        ASSERT_EQ_U64(dn, n);
        ASSERT_MEM_EQ(dec, plain[i], n);
    }
    uint8_t d[8];
    size_t dn;
    ASSERT_EQ_I64(base64_decode("Zm9", 3, d, 8, &dn), LAT_E_USAGE);      /* length */
    ASSERT_EQ_I64(base64_decode("Zm=v", 4, d, 8, &dn), LAT_E_USAGE);     /* pad inside */
    ASSERT_EQ_I64(base64_decode("Zg==Zg==", 8, d, 8, &dn), LAT_E_USAGE); /* pad not last */
    ASSERT_EQ_I64(base64_decode("Zm9*", 4, d, 8, &dn), LAT_E_USAGE);     /* alphabet */
    ASSERT_EQ_I64(base64_decode("Zm9vYmFy", 8, d, 4, &dn), LAT_E_OVERFLOW);
}

static void check_same(const struct lat_hist *a, const struct lat_hist *b)
{
    ASSERT_EQ_U64(hist_count(a), hist_count(b));
    ASSERT_EQ_I64(a->cfg.counts_len, b->cfg.counts_len);
    ASSERT_MEM_EQ(a->counts, b->counts, hist_counts_bytes(&a->cfg));
}

TEST(hlog_codec_roundtrip)
{
    struct lat_hist h, d;
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(hist_init_default(&h));
    uint64_t s = 3;
    for (int i = 0; i < 100000; i++)
        hist_record(&h, 20000 + (int64_t)(rng_splitmix64(&s) % 200000000)); /* 20 µs .. 200 ms */
    hist_record_n(&h, 1000, 7);
    ASSERT_RC(hlog_encode(&h, &b));
    ASSERT(strncmp(b.data, "HISTF", 5) == 0);
    const char *why = NULL;
    ASSERT_RC(hlog_decode(b.data, b.len, &d, &why));
    check_same(&h, &d);
    ASSERT_EQ_I64(d.cfg.lowest, LAT_HIST_LOWEST_NS);
    ASSERT_EQ_I64(d.cfg.highest, LAT_HIST_HIGHEST_NS);
    ASSERT_EQ_I64(d.cfg.sig_figs, 3);
    for (double p = 1; p < 100; p += 7)
        ASSERT_EQ_I64(hist_value_at_percentile_hdr(&d, p), hist_value_at_percentile_hdr(&h, p));
    hist_fini(&d);

    /* empty histogram */
    hist_reset(&h);
    buf_reset(&b);
    ASSERT_RC(hlog_encode(&h, &b));
    ASSERT_RC(hlog_decode(b.data, b.len, &d, &why));
    ASSERT_EQ_U64(hist_count(&d), 0);
    hist_fini(&d);
    hist_fini(&h);
    buf_fini(&b);
}

TEST(hlog_codec_roundtrip_other_layouts)
{
    const struct {
        int64_t lo, hi;
        int sig;
    } lay[] = {
        {1, 1000000000000LL, 1}, {1, INT64_MAX / 2, 2}, {1000, 60000000000LL, 4}, {5, 100, 3}};
    for (size_t k = 0; k < sizeof(lay) / sizeof(lay[0]); k++) {
        struct lat_hist h, d;
        struct lat_buf b = LAT_BUF_INIT;
        ASSERT_RC(hist_init(&h, lay[k].lo, lay[k].hi, lay[k].sig));
        uint64_t s = 17 + k;
        for (int i = 0; i < 20000; i++)
            hist_record(&h, (int64_t)(rng_splitmix64(&s) % (uint64_t)lay[k].hi));
        hist_record(&h, lay[k].hi); /* the top bucket */
        ASSERT_RC(hlog_encode(&h, &b));
        const char *why = NULL;
        ASSERT_RC(hlog_decode(b.data, b.len, &d, &why));
        ASSERT_EQ_I64(d.cfg.lowest, lay[k].lo);
        ASSERT_EQ_I64(d.cfg.highest, lay[k].hi);
        ASSERT_EQ_I64(d.cfg.sig_figs, lay[k].sig);
        check_same(&h, &d);
        hist_fini(&h);
        hist_fini(&d);
        buf_fini(&b);
    }
}

TEST(hlog_decode_rejects_corruption)
{
    struct lat_hist h, d;
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(hist_init_default(&h));
    for (int i = 1; i < 1000; i++)
        hist_record(&h, i * 77777);
    ASSERT_RC(hlog_encode(&h, &b));
    const char *why = NULL;
    /* Every single-character change is either rejected or decodes to a sane histogram. */
    for (size_t i = 0; i < b.len; i += 3) {
        char save = b.data[i];
        b.data[i] = save == 'A' ? 'B' : 'A';
        int rc = hlog_decode(b.data, b.len, &d, &why);
        if (rc == 0)
            hist_fini(&d);
        else
            ASSERT(why != NULL);
        b.data[i] = save;
    }
    /* Truncations are always rejected. */
    for (size_t n = 0; n + 4 < b.len; n += 4) {
        ASSERT(hlog_decode(b.data, n, &d, &why) < 0);
    }
    ASSERT_EQ_I64(hlog_decode("HISTFAAAAAA=", 12, &d, &why), LAT_E_HLOG);
    ASSERT_EQ_I64(hlog_decode("not base64 at all!", 18, &d, &why), LAT_E_HLOG);
    /* A V1-era cookie (0x1c849301) is named unsupported. */
    ASSERT_EQ_I64(hlog_decode("HISTAQAAAAA=", 12, &d, &why), LAT_E_UNSUPPORTED);
    hist_fini(&h);
    buf_fini(&b);
}

TEST(hlog_writer_reader_roundtrip)
{
    struct lat_hist a, b;
    ASSERT_RC(hist_init_default(&a));
    ASSERT_RC(hist_init_default(&b));
    for (int i = 1; i <= 500; i++) {
        hist_record(&a, i * 100000LL);
        hist_record(&b, i * 3000LL);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ASSERT(f);
    struct hlog_writer w;
    ASSERT_RC(hlog_writer_start(&w, f, 1767189312.0));
    ASSERT_RC(hlog_writer_interval(&w, "e2e.sched", 0.0, 1.0, &a));
    ASSERT_RC(hlog_writer_interval(&w, "send_lag", 0.0, 1.0, &b));
    ASSERT_RC(hlog_writer_interval(&w, NULL, 1.0, 1.0, &a));
    ASSERT_EQ_I64(hlog_writer_interval(&w, "bad tag", 1.0, 1.0, &a), LAT_E_USAGE);
    ASSERT_EQ_I64(hlog_writer_interval(&w, "bad,tag", 1.0, 1.0, &a), LAT_E_USAGE);
    ASSERT_RC(hlog_writer_finish(&w));
    hlog_writer_fini(&w);
    fclose(f);

    ASSERT(strncmp(text, "#[Histogram log format version 1.3]\n#[StartTime: 1767189312.000 ", 64) ==
           0);
    ASSERT(strstr(text, "\n#[BaseTime: 1767189312.000 (seconds since epoch)]\n"));
    ASSERT(strstr(text, "\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                        "\"Interval_Compressed_Histogram\"\nTag=e2e.sched,0.000,1.000,50000000.0,"
                        "HISTF"));
    /* header lines <= 126 characters */
    for (const char *p = text; *p == '#' || *p == '"';) {
        const char *nl = strchr(p, '\n');
        ASSERT(nl && nl - p <= 126);
        p = nl + 1;
    }

    struct hlog_reader r;
    struct hlog_entry e;
    hlog_reader_init(&r, text, len);
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), 1);
    ASSERT(r.have_version && r.version_minor == 3 && r.have_base);
    ASSERT_EQ_STR(e.tag, "e2e.sched");
    ASSERT_NEAR(e.abs_start_s, 1767189312.0, 1e-6);
    ASSERT_NEAR(e.length_s, 1.0, 1e-9);
    ASSERT_NEAR(e.max_col, 50000000.0, 1e-9);
    check_same(&e.hist, &a);
    hist_fini(&e.hist);
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), 1);
    ASSERT_EQ_STR(e.tag, "send_lag");
    check_same(&e.hist, &b);
    hist_fini(&e.hist);
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), 1);
    ASSERT_EQ_STR(e.tag, "");
    ASSERT_NEAR(e.abs_start_s, 1767189313.0, 1e-6);
    hist_fini(&e.hist);
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), 0);
    free(text);
    hist_fini(&a);
    hist_fini(&b);
}

TEST(hlog_reader_errors_name_the_line)
{
    const char *bad = "#[Histogram log format version 1.2]\n"
                      "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"X\"\n"
                      "0.000,1.000,5.0\n";
    struct hlog_reader r;
    struct hlog_entry e;
    hlog_reader_init(&r, bad, strlen(bad));
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), LAT_E_HLOG);
    ASSERT_EQ_I64(r.line, 3);
    ASSERT(r.why && strstr(r.why, "4 comma-separated"));
    const char *v2 = "#[Histogram log format version 2.0]\n";
    hlog_reader_init(&r, v2, strlen(v2));
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), LAT_E_UNSUPPORTED);
    const char *junk = "Tag=x,0.0,1.0,1.0,HISTFAAAAB\r\n";
    hlog_reader_init(&r, junk, strlen(junk));
    ASSERT(hlog_reader_next(&r, &e) < 0);
}

/* A blob produced by HdrHistogram's Python package (hdrhistogram 0.10.8):
 *   h = HdrHistogram(1000, 3600 * 10**9, 3); h.record_value(1500000, 10);
 *   h.record_value(2000000, 5); h.record_value(250000000); h.encode() */
TEST(hlog_decodes_reference_blob)
{
    const char *blob = "HISTFAAAACp4nJNpmSzMwMDAyQABzFDqBRC7GexYwGD/ASLyXk3kPDvXwnwmAKAoCFk=";
    struct lat_hist d;
    const char *why = NULL;
    ASSERT_RC(hlog_decode(blob, strlen(blob), &d, &why));
    ASSERT_EQ_U64(hist_count(&d), 16);
    ASSERT_EQ_U64(hist_count_at_or_below(&d, 1500000), 10);
    ASSERT_EQ_U64(hist_count_at_or_below(&d, 2000000), 15);
    ASSERT_OP_I64(hist_max(&d), >=, 250000000);
    ASSERT_OP_I64(hist_max(&d), <, 250200000);
    hist_fini(&d);
}

/* HdrHistogram's own Python package reads our log: same tags, totals and percentiles.
 * SKIPs when python3 or the PyPI package hdrhistogram is absent. */
TEST_TIMEOUT(hlog_read_by_python_hdrhistogram, 60)
{
    const char *src = getenv("LATSCOPE_SRCDIR");
    if (!src) SKIP("LATSCOPE_SRCDIR not set");
    if (system("python3 -c 'import hdrh' >/dev/null 2>&1") != 0)
        SKIP("python3 with the PyPI package hdrhistogram not available");
    char logp[512], expp[512], cmd[1600];
    snprintf(logp, sizeof(logp), "%s/run.hlog", test_tmpdir());
    snprintf(expp, sizeof(expp), "%s/expected.txt", test_tmpdir());
    FILE *f = fopen(logp, "w"), *x = fopen(expp, "w");
    ASSERT(f && x);
    struct hlog_writer w;
    ASSERT_RC(hlog_writer_start(&w, f, 1767189312.25));
    const char *tags[] = {"e2e.sched", "e2e.send", "send_lag", NULL};
    const double ps[] = {1, 25, 50, 90, 99, 99.9, 100};
    uint64_t s = 11;
    for (int k = 0; k < 4; k++) {
        struct lat_hist h;
        ASSERT_RC(hist_init_default(&h));
        int n = 1000 + k * 20000;
        for (int i = 0; i < n; i++) /* spread over 1 µs .. ~1 s, heavy tail */
            hist_record(
                &h, 1000 + (int64_t)((rng_splitmix64(&s) % 1000000) * (rng_splitmix64(&s) % 1000)));
        ASSERT_RC(hlog_writer_interval(&w, tags[k], k * 1.0, 1.0, &h));
        fprintf(x, "%s %llu", tags[k] ? tags[k] : "-", (unsigned long long)hist_count(&h));
        for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
            fprintf(x, " %g=%lld", ps[i], (long long)hist_value_at_percentile_hdr(&h, ps[i]));
        fprintf(x, "\n");
        hist_fini(&h);
    }
    ASSERT_RC(hlog_writer_finish(&w));
    hlog_writer_fini(&w);
    fclose(f);
    fclose(x);
    snprintf(cmd, sizeof(cmd), "python3 %s/tests/tools/hlog_check.py %s %s", src, logp, expp);
    int rc = system(cmd);
    ASSERT(rc != -1);
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) SKIP("hdrhistogram not importable");
    ASSERT_EQ_I64(WEXITSTATUS(rc), 0);
}

/* The other direction: a log written by HdrHistogram's Python package (its
 * HistogramLogWriter: version 1.2, BaseTime, a comment, untagged entries, max in ms) is read
 * by latscope's reader with the same totals, percentiles (HdrHistogram's estimator) and max.
 * SKIPs when python3 or the PyPI package hdrhistogram is absent. */
TEST_TIMEOUT(hlog_reads_python_hdrhistogram_log, 60)
{
    const char *src = getenv("LATSCOPE_SRCDIR");
    if (!src) SKIP("LATSCOPE_SRCDIR not set");
    if (system("python3 -c 'import hdrh' >/dev/null 2>&1") != 0)
        SKIP("python3 with the PyPI package hdrhistogram not available");
    char logp[512], expp[512], cmd[1600];
    snprintf(logp, sizeof(logp), "%s/py.hlog", test_tmpdir());
    snprintf(expp, sizeof(expp), "%s/py.expected", test_tmpdir());
    snprintf(cmd, sizeof(cmd), "python3 %s/tests/tools/hlog_check.py --write %s > %s", src, logp,
             expp);
    int rc = system(cmd);
    ASSERT(rc != -1 && WIFEXITED(rc));
    if (WEXITSTATUS(rc) == 77) SKIP("hdrhistogram not importable");
    ASSERT_EQ_I64(WEXITSTATUS(rc), 0);

    FILE *f = fopen(logp, "r");
    ASSERT(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof(text), f);
    fclose(f);
    FILE *x = fopen(expp, "r");
    ASSERT(x);
    struct hlog_reader r;
    struct hlog_entry e;
    hlog_reader_init(&r, text, len);
    int n = 0;
    unsigned long long tot, p50, p99, mx;
    while (fscanf(x, "%llu %llu %llu %llu", &tot, &p50, &p99, &mx) == 4) {
        ASSERT_EQ_I64(hlog_reader_next(&r, &e), 1);
        ASSERT(r.have_version && r.version_minor == 2 && r.have_base);
        ASSERT_EQ_STR(e.tag, "");
        ASSERT_NEAR(e.abs_start_s, 1767189312.0 + n, 1e-6);
        ASSERT_EQ_U64(hist_count(&e.hist), tot);
        ASSERT_EQ_I64(hist_value_at_percentile_hdr(&e.hist, 50), (int64_t)p50);
        ASSERT_EQ_I64(hist_value_at_percentile_hdr(&e.hist, 99), (int64_t)p99);
        ASSERT_EQ_I64(hist_max(&e.hist), (int64_t)mx);
        hist_fini(&e.hist);
        n++;
    }
    fclose(x);
    ASSERT_EQ_I64(n, 3);
    ASSERT_EQ_I64(hlog_reader_next(&r, &e), 0);
}
