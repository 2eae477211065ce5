/*
 * test-ncu.c - the CSV tokenizer (ingest/csv.c), the `ncu --csv` reader (ingest/ncu.c) and
 * analyze's Nsight Compute section (analyze/ncu.c) on hand-made reports: a details page with
 * a preamble, ragged rows, quotes with embedded commas, quotes and newlines, and rule rows; the
 * raw page with its units row; a decimal-comma file; every split of the input into chunks.
 */
#include "analyze/ncu.h"
#include "core/buf.h"
#include "core/err.h"
#include "doctor/doctor.h"
#include "ingest/csv.h"
#include "ingest/ingest.h"
#include "ingest/source.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- tokenizer ---- */

struct recs {
    char out[4096];
    size_t o;
    size_t n, raw;
};

static int collect(void *ctx, const struct csv_rec *r)
{
    struct recs *c = ctx;
    c->n++;
    c->raw += r->raw;
    c->o += (size_t)snprintf(c->out + c->o, sizeof(c->out) - c->o, "%s%llu:", r->raw ? "R" : "",
                             (unsigned long long)r->line);
    for (size_t i = 0; i < r->n; i++)
        c->o += (size_t)snprintf(c->out + c->o, sizeof(c->out) - c->o, "[%s]", r->f[i].s);
    c->o += (size_t)snprintf(c->out + c->o, sizeof(c->out) - c->o, "\n");
    return 0;
}

static bool hdr_h(const char *l, size_t n)
{
    return n >= 3 && !memcmp(l, "\"h\"", 3);
}

/* Tokenizes s in chunks of k bytes (0: whole). */
static int tok(const char *s, size_t k, bool pre, struct recs *c)
{
    struct csv_rd r;
    memset(c, 0, sizeof(*c));
    csv_init(&r, collect, c);
    if (pre) {
        r.is_header = hdr_h;
        r.raw_prefix = "==";
    }
    size_t n = strlen(s);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i += k ? k : n)
        rc = csv_feed(&r, s + i, k && n - i > k ? k : n - i);
    if (!rc) rc = csv_end(&r);
    csv_fini(&r);
    return rc;
}

TEST(csv_rfc4180_fields_every_chunking)
{
    const char *in = "a,\"b,c\",\"d \"\"q\"\" e\"\r\n"
                     "\"multi\nline\",,x\n"
                     "\n"
                     "last,\"\"";
    const char *want = "1:[a][b,c][d \"q\" e]\n2:[multi\nline][][x]\n5:[last][]\n";
    for (size_t k = 0; k <= 7; k++) {
        struct recs c;
        ASSERT_RC(tok(in, k, false, &c));
        ASSERT_EQ_STR(c.out, want);
    }
}

TEST(csv_trailing_comma_and_lenient_quotes)
{
    struct recs c;
    ASSERT_RC(tok("a,b,\nx\"y,\"q\"z\n", 0, false, &c));
    ASSERT_EQ_STR(c.out, "1:[a][b][]\n2:[x\"y][qz]\n");
}

TEST(csv_preamble_and_raw_lines)
{
    /* a quote in the program's output must not swallow the records */
    const char *in = "==PROF== Connected\nprogram says \"hi\n\"h\",\"v\"\n\"1\",\"2\"\n"
                     "==WARNING== x \"\n\"3\",\"4\"\n";
    for (size_t k = 0; k <= 5; k++) {
        struct recs c;
        ASSERT_RC(tok(in, k, true, &c));
        ASSERT_EQ_STR(c.out, "R1:[==PROF== Connected]\nR2:[program says \"hi]\n3:[h][v]\n4:[1][2]\n"
                             "R5:[==WARNING== x \"]\n6:[3][4]\n");
        ASSERT_EQ_U64(c.raw, 3);
    }
}

TEST(csv_unterminated_quote_and_limits)
{
    struct recs c;
    ASSERT_EQ_I64(tok("a,\"open\nmore", 0, false, &c), LAT_E_TRUNCATED);
    struct csv_rd r;
    csv_init(&r, collect, &c);
    r.max_record = 16;
    ASSERT_EQ_I64(csv_feed(&r, "0123456789,0123456789\n", 22), LAT_E_OVERFLOW);
    csv_fini(&r);
    csv_init(&r, collect, &c);
    r.max_fields = 3;
    ASSERT_EQ_I64(csv_feed(&r, "a,b,c,d\n", 8), LAT_E_OVERFLOW);
    csv_fini(&r);
}

/* all_quoted (ncu quotes every field): a last record that stops after a separator or inside an
 * unquoted field after one is cut short; one that ends at a closing quote, or a lone unquoted
 * line (program output), is kept (issue 29). */
TEST(csv_all_quoted_last_record_cut)
{
    static const struct {
        const char *in;
        int rc;
    } cases[] = {{"\"a\",\"b\"\n\"1\",", LAT_E_TRUNCATED},
                 {"\"a\",\"b\"\n\"1\",2", LAT_E_TRUNCATED},
                 {"\"a\",\"b\"\n\"1\",\"2\"", 0},
                 {"\"a\",\"b\"\n\"1\",\"2\"\n", 0},
                 {"\"a\",\"b\"\nDone", 0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct recs c = {0};
        struct csv_rd r;
        csv_init(&r, collect, &c);
        r.all_quoted = true;
        int rc = csv_feed(&r, cases[i].in, strlen(cases[i].in));
        if (!rc) rc = csv_end(&r);
        ASSERT_EQ_I64(rc, cases[i].rc);
        ASSERT(r.cut_record == (cases[i].rc != 0));
        csv_fini(&r);
    }
}

/* The whole-input helper both CSV readers use: bytes counted, and its messages. */
static int feed_src(const char *in, size_t max_record, struct recs *c, uint64_t *bytes, char *err,
                    size_t errsz)
{
    static const struct csv_src_msgs m = {"a test file", "write it again", "a test report"};
    struct ingest_src *src;
    int rc = src_open_mem(in, strlen(in), 4, &src, err, errsz); /* 4-byte chunks */
    if (rc) return rc;
    struct csv_rd r;
    memset(c, 0, sizeof(*c));
    csv_init(&r, collect, c);
    if (max_record) r.max_record = max_record;
    rc = csv_feed_src(&r, src, "f.csv", &m, bytes, err, errsz);
    src_close(src);
    return rc;
}

TEST(csv_feed_src_counts_and_names_errors)
{
    struct recs c;
    char err[512] = "";
    uint64_t bytes = 0;
    ASSERT_RC(feed_src("a,b\n\"c\nd\",e", 0, &c, &bytes, err, sizeof(err)));
    ASSERT_EQ_U64(bytes, 11);
    ASSERT_EQ_STR(c.out, "1:[a][b]\n2:[c\nd][e]\n");
    ASSERT_EQ_I64(feed_src("a,\"open\nmore", 0, &c, &bytes, err, sizeof(err)), LAT_E_TRUNCATED);
    ASSERT_EQ_STR(err, "f.csv: a test file that ends inside a quoted field (line 2): truncated? "
                       "write it again");
    ASSERT_EQ_I64(feed_src("x\n0123456789,0123456789\n", 16, &c, &bytes, err, sizeof(err)),
                  LAT_E_OVERFLOW);
    ASSERT_EQ_STR(err,
                  "f.csv: a test file with a record over 16 bytes or 65536 fields near line 2: "
                  "not a test report, or raise LATSCOPE_MAX_VALUE=BYTES if it is genuine");
    ASSERT_EQ_I64(feed_src("a,\"open", 0, &c, NULL, NULL, 0), LAT_E_TRUNCATED); /* no err */
}

TEST(csv_numbers_locales)
{
    double d;
    bool is_int;
    int64_t v;
    ASSERT(csv_number("1,234.5", 7, CSV_DEC_DOT, &d, &is_int, &v) && d == 1234.5 && !is_int);
    ASSERT(csv_number("1.234,5", 7, CSV_DEC_COMMA, &d, &is_int, &v) && d == 1234.5);
    ASSERT(csv_number("1,234,567", 9, CSV_DEC_DOT, &d, &is_int, &v) && is_int && v == 1234567);
    ASSERT(csv_number("-0.25e3", 7, CSV_DEC_DOT, &d, &is_int, &v) && d == -250.0);
    ASSERT(csv_number("1 234,5", 7, CSV_DEC_COMMA, &d, &is_int, &v) && d == 1234.5);
    ASSERT(csv_number("12\xc2\xa0"
                      "345",
                      7, CSV_DEC_DOT, &d, &is_int, &v) &&
           v == 12345);
    ASSERT(!csv_number("(384, 1, 1)", 11, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT(!csv_number("n/a", 3, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT(!csv_number("inf", 3, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT(!csv_number("0x10", 4, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT(!csv_number("", 0, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT(!csv_number("1e", 2, CSV_DEC_DOT, &d, &is_int, &v));
    ASSERT_EQ_I64(csv_decimal_evidence("1,234.5", 7), 1);
    ASSERT_EQ_I64(csv_decimal_evidence("1.234,5", 7), -1);
    ASSERT_EQ_I64(csv_decimal_evidence("0,25", 4), -1);
    ASSERT_EQ_I64(csv_decimal_evidence("21.68", 5), 1);
    ASSERT_EQ_I64(csv_decimal_evidence("1,234", 5), 0);
    ASSERT_EQ_I64(csv_decimal_evidence("1.234.567", 9), -1);
    ASSERT_EQ_I64(csv_decimal_evidence("PolicySpread", 12), 0);
}

/* ---- the reader ---- */

#define HDR                                                                                        \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","            \
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric "         \
    "Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\",\"Rule "                  \
    "Description\",\"Estimated Speedup Type\",\"Estimated Speedup\"\n"
#define K0                                                                                         \
    "\"0\",\"42\",\"app\",\"h\",\"void k<int>(float*, int)\",\"1\",\"7\",\"(256, 1, 1)\",\"(80, "  \
    "2, 1)\",\"0\",\"9.0\","
#define K1                                                                                         \
    "\"1\",\"42\",\"app\",\"h\",\"gemm, \"\"odd\"\" name\",\"1\",\"7\",\"(128, 1, 1)\",\"(4, 1, "  \
    "1)\",\"0\",\"9.0\","

/* Launch 1 rows come first and interleave with launch 0: the model is in ID order anyway.
 * Duration in usecond (-> ns), a thousands separator, ragged metric rows (16 fields, 15 for
 * one), a rule row whose description holds a newline, comma and quotes. */
static const char details[] =
    "==PROF== Connected to process 42 (/bin/app)\n"
    "result: \"ok\n"
    "==PROF== Disconnected from process 42\n" HDR K1
    "\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"1,250.50\",\n" K0
    "\"GPU Speed Of Light Throughput\",\"Duration\",\"nsecond\",\"2000\",\n" K0
    "\"GPU Speed Of Light Throughput\",\"Compute (SM) Throughput\",\"%\",\"85.5\",\n" K0
    "\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%\",\"30.25\"\n" K0
    "\"GPU Speed Of Light Throughput\",\"DRAM Frequency\",\"Ghz\",\"1.5\",\n" K0
    "\"Launch Statistics\",\"Registers Per Thread\",\"register/thread\",\"32\",\n" K0
    "\"Launch Statistics\",\"Waves Per SM\",\"\",\"0.5\",\n" K0
    "\"Launch Statistics\",\"Cluster Scheduling Policy\",\"\",\"PolicySpread\",\n" K0
    "\"Occupancy\",\"Block Limit Registers\",\"block\",\"8\",\n" K0
    "\"Occupancy\",\"Block Limit Warps\",\"block\",\"4\",\n" K0
    "\"Occupancy\",\"Block Limit Shared Mem\",\"block\",\"4\",\n" K0
    "\"Occupancy\",\"Achieved Occupancy\",\"%\",\"40.5\",\n" K0
    "\"Occupancy\",\"Theoretical Occupancy\",\"%\",\"50\",\n" K0
    "\"Occupancy\",\"\",\"\",\"\",\"TheoreticalOccupancy\",\"OPT\",\"limited by \"\"warps\"\",\n"
    "and shared memory\",\"local\",\"50\"\n" K0
    "\"SpeedOfLight\",\"\",\"\",\"\",\"SOLBottleneck\",\"OPT\",\"compute bound\",\"\",\"\"\n" K0
    "\"LaunchStats\",\"\",\"\",\"\",\"LaunchConfiguration\",\"OPT\",\"tail\",\"global\",\"75.5\"\n"
    "==WARNING== something\n" K1
    "\"GPU Speed Of Light Throughput\",\"Compute (SM) Throughput\",\"%\",\"10\",\n" K1
    "\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%\",\"70\",\n";

static const struct lat_arg *arg(const struct lat_trace *t, size_t i, const char *k)
{
    return lat_trace_arg(t, i, k);
}

static double num(const struct lat_trace *t, size_t i, const char *k)
{
    const struct lat_arg *a = arg(t, i, k);
    if (!a) return NAN;
    return a->type == LAT_ARG_INT ? (double)a->v.i : a->type == LAT_ARG_DOUBLE ? a->v.d : NAN;
}

TEST(ncu_details_page_every_chunking)
{
    /* the sniff sees the first chunk, which must hold the header: 512 bytes and up; the
     * tokenizer's own chunk tests go down to 1 byte */
    static const size_t chunks[] = {512, 513, 600, 777, 1000, 0};
    for (size_t k = 0; k < sizeof(chunks) / sizeof(chunks[0]); k++) {
        struct lat_ingest_opts o = {.chunk_bytes = chunks[k]};
        struct lat_trace *t;
        char err[LAT_INGEST_ERRLEN];
        ASSERT_RC(ingest_mem(details, sizeof(details) - 1, "r.csv", &o, &t, err, sizeof(err)));
        ASSERT_EQ_STR(t->format, "ncu");
        ASSERT_EQ_U64(t->ev.n, 2 + 3); /* two launches, three rule results */
        /* ID order: launch 0 first, then its rules, then launch 1 at ts = 2000 */
        ASSERT_EQ_I64(t->ev.kind[0], LAT_EV_KERNEL);
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[0]), "void k<int>(float*, int)");
        ASSERT_EQ_I64(t->ev.correlation[0], 0);
        ASSERT_EQ_I64(t->ev.ts[0], 0);
        ASSERT_EQ_I64(t->ev.dur[0], 2000);
        ASSERT_EQ_I64(t->ev.stream[0], 7);
        ASSERT_EQ_I64(t->ev.device[0], 0);
        ASSERT_NEAR(num(t, 0, "Compute (SM) Throughput [%]"), 85.5, 1e-9);
        ASSERT_NEAR(num(t, 0, "DRAM Frequency [hz]"), 1.5e9, 1e-3);
        ASSERT_NEAR(num(t, 0, "Waves Per SM"), 0.5, 1e-12);
        ASSERT_NEAR(num(t, 0, "registers per thread"), 32, 0);
        ASSERT_EQ_STR(lat_trace_str(t, arg(t, 0, "grid")->str), "[80, 2, 1]");
        ASSERT_EQ_STR(lat_trace_str(t, arg(t, 0, "Cluster Scheduling Policy")->str),
                      "PolicySpread");
        ASSERT_EQ_STR(lat_trace_str(t, arg(t, 0, "Process Name")->str), "app");
        size_t k1 = 4;
        ASSERT_EQ_I64(t->ev.kind[k1], LAT_EV_KERNEL);
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[k1]), "gemm, \"odd\" name");
        ASSERT_EQ_I64(t->ev.ts[k1], 2000);
        ASSERT_EQ_I64(t->ev.dur[k1], 1250500); /* "1,250.50" usecond */
        ASSERT_EQ_I64(t->ev.kind[1], LAT_EV_INSTANT);
        ASSERT_EQ_STR(lat_trace_str(t, t->ev.name[1]), "TheoreticalOccupancy");
        ASSERT_EQ_STR(lat_trace_str(t, arg(t, 1, "description")->str),
                      "limited by \"warps\",\nand shared memory");
        ASSERT_NEAR(num(t, 1, "estimated speedup [%]"), 50, 0);
        ASSERT(!arg(t, 2, "estimated speedup [%]")); /* SOLBottleneck: none given */
        ASSERT_EQ_STR(ingest_meta_get(t, "ncu_preamble_lines"), "3");
        ASSERT_EQ_STR(ingest_meta_get(t, "ncu_skipped_rows"), "1");
        ASSERT_EQ_STR(ingest_meta_get(t, "ncu_decimal"), "\".\"");
        lat_trace_free(t);
    }
}

TEST(ncu_section_summary)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(details, sizeof(details) - 1, "r.csv", NULL, &t, err, sizeof(err)));
    struct lat_ncu_summary s;
    ASSERT_RC(lat_ncu_summarize(t, &s));
    ASSERT_EQ_U64(s.nlaunches, 2);
    const struct lat_ncu_launch *a = &s.launches[0], *b = &s.launches[1];
    ASSERT_EQ_I64(a->id, 0);
    ASSERT_EQ_STR(a->bound, "compute");
    ASSERT_EQ_STR(b->bound, "memory");
    ASSERT_EQ_STR(a->limiter, "shared memory+warps");
    ASSERT_NEAR(a->achieved_occ, 40.5, 1e-12);
    ASSERT_NEAR(a->theoretical_occ, 50, 0);
    ASSERT_EQ_I64(a->regs, 32);
    ASSERT_EQ_I64(a->block_size, -1); /* no Block Size metric row */
    ASSERT_EQ_STR(a->block, "[256, 1, 1]");
    ASSERT_EQ_U64(a->nrules, 3);
    ASSERT_EQ_STR(a->rules[0].name, "LaunchConfiguration"); /* 75.5 > 50 > none */
    ASSERT_EQ_STR(a->rules[1].name, "TheoreticalOccupancy");
    ASSERT(isnan(a->rules[2].speedup_pct));
    ASSERT_NEAR(a->max_speedup_pct, 75.5, 0);
    ASSERT_EQ_U64(b->nrules, 0);
    ASSERT(isnan(b->achieved_occ));
    ASSERT_EQ_I64(s.total, 2000 + 1250500);
    ASSERT(lat_ncu_find(&s, "void k<int>(float*, int)") == a);
    lat_ncu_summary_fini(&s);
    lat_trace_free(t);
}

TEST(ncu_decimal_comma_file)
{
    static const char in[] =
        HDR K0 "\"GPU Speed Of Light Throughput\",\"Duration\",\"usecond\",\"1.250,5\",\n" K0
               "\"GPU Speed Of Light Throughput\",\"Memory Throughput\",\"%\",\"30,25\",\n" K0
               "\"GPU Speed Of Light Throughput\",\"Elapsed Cycles\",\"cycle\",\"1.234\",\n";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(in, sizeof(in) - 1, "r.csv", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(ingest_meta_get(t, "ncu_decimal"), "\",\"");
    ASSERT_EQ_I64(t->ev.dur[0], 1250500);
    ASSERT_NEAR(num(t, 0, "Memory Throughput [%]"), 30.25, 1e-12);
    /* the file's decimal comma decides: "1.234" is a thousands separator here */
    ASSERT_NEAR(num(t, 0, "Elapsed Cycles [cycle]"), 1234, 0);
    lat_trace_free(t);
}

TEST(ncu_raw_page_units_row)
{
    static const char in[] =
        "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
        "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
        "\"gpu__time_duration.sum\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\","
        "\"launch__registers_per_thread\",\"launch__occupancy_limit_registers\","
        "\"launch__occupancy_limit_warps\",\"dram__bytes_read.sum\"\n"
        "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"msecond\",\"%\",\"%\","
        "\"register/thread\",\"block\",\"block\",\"Mbyte\"\n"
        "\"0\",\"9\",\"a\",\"h\",\"k0\",\"1\",\"13\",\"(64, 1, 1)\",\"(1, 1, 1)\",\"1\",\"8.0\","
        "\"0.5\",\"5\",\"7\",\"64\",\"2\",\"3\",\"1.5\"\n"
        "\"1\",\"9\",\"a\",\"h\",\"k1\",\"1\",\"13\",\"(64, 1, 1)\",\"(1, 1, 1)\",\"1\",\"8.0\","
        "\"2\",\"90\",\"7\",\"255\",\"1\",\"1\",\"\"\n";
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(in, sizeof(in) - 1, "raw.csv", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_STR(ingest_meta_get(t, "ncu_page"), "\"raw\"");
    ASSERT_EQ_U64(t->ev.n, 2);
    ASSERT_EQ_I64(t->ev.dur[0], 500000);
    ASSERT_EQ_I64(t->ev.ts[1], 500000);
    ASSERT_EQ_I64(t->ev.dur[1], 2000000);
    ASSERT_EQ_I64(t->ev.device[1], 1);
    ASSERT_NEAR(num(t, 0, "dram__bytes_read.sum [byte]"), 1.5e6, 1e-6);
    ASSERT(!arg(t, 1, "dram__bytes_read.sum [byte]")); /* empty cell */
    struct lat_ncu_summary s;
    ASSERT_RC(lat_ncu_summarize(t, &s));
    ASSERT_EQ_STR(s.page, "raw");
    ASSERT_EQ_STR(s.launches[0].bound, "latency");
    ASSERT_EQ_STR(s.launches[1].bound, "compute");
    ASSERT_EQ_I64(s.launches[1].regs, 255);
    ASSERT_EQ_STR(s.launches[0].limiter, "registers");
    ASSERT_EQ_STR(s.launches[1].limiter, "registers+warps");
    lat_ncu_summary_fini(&s);
    lat_trace_free(t);
}

/* A raw page with many metrics in units latscope does not scale (inst, warp, cycle): each
 * "NAME [UNIT]" arg key is a new string, so the string table grows while a metric's unit is
 * in hand (issue 32: the unit was read after the intern moved it; ASan saw a use-after-free,
 * fuzz-ncu after ~1 300 runs). Every metric keeps its value, the shared-memory sum its bytes. */
TEST(ncu_raw_page_many_unit_metrics)
{
    enum { NM = 600 };
    static const char *const units[] = {"inst", "warp", "cycle"};
    struct lat_buf in = LAT_BUF_INIT;
    ASSERT_RC(buf_printf(&in,
                         "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\","
                         "\"Context\",\"Stream\",\"Device\",\"gpu__time_duration.sum\""));
    for (int i = 0; i < NM; i++)
        ASSERT_RC(buf_printf(&in, ",\"smsp__metric_%d_with_a_long_name.sum\"", i));
    ASSERT_RC(buf_printf(
        &in, ",\"launch__shared_mem_per_block_static\","
             "\"launch__shared_mem_per_block_dynamic\"\n\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\","
             "\"nsecond\""));
    for (int i = 0; i < NM; i++)
        ASSERT_RC(buf_printf(&in, ",\"%s\"", units[i % 3]));
    ASSERT_RC(buf_printf(&in, ",\"byte\",\"Kbyte\"\n"));
    for (int k = 0; k < 3; k++) {
        ASSERT_RC(buf_printf(&in, "\"%d\",\"9\",\"a\",\"h\",\"k%d\",\"1\",\"7\",\"0\",\"%d\"", k, k,
                             1000 + k));
        for (int i = 0; i < NM; i++)
            ASSERT_RC(buf_printf(&in, ",\"%d\"", i * 10 + k));
        ASSERT_RC(buf_printf(&in, ",\"%d\",\"2\"\n", 512 * (k + 1)));
    }
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(in.data, in.len, "raw.csv", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_U64(t->ev.n, 3);
    for (int k = 0; k < 3; k++) {
        ASSERT_EQ_I64(t->ev.dur[k], 1000 + k);
        for (int i = 0; i < NM; i += 37) {
            char key[96];
            snprintf(key, sizeof(key), "smsp__metric_%d_with_a_long_name.sum [%s]", i,
                     units[i % 3]);
            ASSERT_NEAR(num(t, (size_t)k, key), i * 10 + k, 0);
        }
        ASSERT_NEAR(num(t, (size_t)k, "shared memory"), 512.0 * (k + 1) + 2000, 0);
    }
    lat_trace_free(t);
    buf_fini(&in);
}

TEST(ncu_bad_inputs_clear_errors)
{
    struct lat_trace *t = NULL;
    char err[LAT_INGEST_ERRLEN];
    /* a header and nothing else */
    int rc = ingest_mem(HDR, strlen(HDR), "h.csv", NULL, &t, err, sizeof(err));
    ASSERT_EQ_I64(rc, LAT_E_NOT_TRACE);
    ASSERT(!t && strstr(err, "no kernel launch row"));
    /* cut inside a quoted field */
    static const char cut[] = HDR K0 "\"Occupancy\",\"\",\"\",\"\",\"R\",\"OPT\",\"open";
    rc = ingest_mem(cut, sizeof(cut) - 1, "c.csv", NULL, &t, err, sizeof(err));
    ASSERT_EQ_I64(rc, LAT_E_TRUNCATED);
    ASSERT(!t && strstr(err, "truncated"));
    /* program output only: not recognised as ncu */
    ASSERT_EQ_STR(ingest_sniff("==PROF== x\nhello\n", 17, "x.log"), "text");
    ASSERT_EQ_STR(ingest_sniff(details, sizeof(details) - 1, "x.log"), "ncu");
}

TEST(ncu_kernel_name_matching)
{
    const char *ncu = "vectorized_elementwise_kernel";
    ASSERT(lat_ncu_name_match("void at::native::vectorized_elementwise_kernel<4, "
                              "at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, "
                              "at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
                              ncu));
    ASSERT(lat_ncu_name_match("_ZN2at6native29vectorized_elementwise_kernelILi4EEEviT0_", ncu));
    ASSERT(lat_ncu_name_match("void k<int>(float*, int)", "k<int>"));
    ASSERT(lat_ncu_name_match("cutlass3x_sm100_tensorop_s64x256x32gemm_f8_f8_f32_f16_f16_64x256",
                              "cutlass3x_sm100_tensorop_s64x256x32gemm_f8..."));
    ASSERT(!lat_ncu_name_match("void other_kernel<4>(int)", ncu));
    ASSERT(!lat_ncu_name_match("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_tn"));
}

/* ---- doctor on a report alone ---- */

static size_t count_id(const struct doc_report *r, const char *id)
{
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++)
        k += !strcmp(r->f[i].id, id);
    return k;
}

TEST(ncu_doctor_rules_fire_and_not)
{
    struct lat_trace *t;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_mem(details, sizeof(details) - 1, "r.csv", NULL, &t, err, sizeof(err)));
    ASSERT_EQ_I64(t->role, LAT_TRACE_KERNEL_PROFILE);
    struct doc_opts o;
    doctor_opts_default(&o);
    struct doc_report *r;
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    /* launch 0: LaunchConfiguration 75.5 % of 2 us; launch 1 has no rule; no occupancy < 25 */
    ASSERT_EQ_U64(count_id(r, "ncu-kernel-speedup"), 1);
    ASSERT_EQ_U64(count_id(r, "ncu-low-occupancy"), 0);
    ASSERT_EQ_U64(count_id(r, "dominant-kernels"), 0); /* no timeline rules on a kernel profile */
    ASSERT(r->traces[0].judged);
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->f[i].id, "ncu-kernel-speedup"))
            ASSERT_NEAR(r->f[i].saving_us_per_step, 2.0 * 0.755, 1e-9);
    doctor_report_free(r);
    /* above the speedup, at the achieved occupancy (40.5 < 41): the other way round */
    char why[160];
    ASSERT_RC(doctor_threshold_set(&o.th, "ncu_speedup_pct=80", why, sizeof(why)));
    ASSERT_RC(doctor_threshold_set(&o.th, "ncu_occupancy_pct=41", why, sizeof(why)));
    ASSERT_RC(doctor_report_new(&r));
    ASSERT_RC(doctor_run(r, t, &o));
    ASSERT_EQ_U64(count_id(r, "ncu-kernel-speedup"), 0);
    ASSERT_EQ_U64(count_id(r, "ncu-low-occupancy"), 1);
    doctor_report_free(r);
    lat_trace_free(t);
}
