/* test-ingest.c - the front of the readers (src/ingest/ingest.c): the format table's sniffing,
 * and ingest_paths()'s rules for files and directories (docs/trace-input.md). */
#include "test.h"

#include "core/err.h"
#include "ingest/ingest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char trace[] = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"ts\": 1, "
                            "\"dur\": 2, \"pid\": 1, \"tid\": 1}], "
                            "\"distributedInfo\": {\"rank\": %d}}";

static void put(const char *dir, const char *name, const void *data, size_t n)
{
    char p[512];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    ASSERT(f);
    ASSERT_EQ_U64(fwrite(data, 1, n, f), n);
    ASSERT(fclose(f) == 0);
}

static void put_trace(const char *dir, const char *name, int rank)
{
    char doc[256];
    int n = snprintf(doc, sizeof(doc), trace, rank);
    put(dir, name, doc, (size_t)n);
}

TEST(ingest_sniff_names_formats)
{
    static const struct {
        const char *head, *path, *want;
    } cases[] = {
        {"{\"traceEvents\": []}", "x.json", "kineto"},
        {"  [{\"ph\": \"X\"}]", NULL, "kineto"},
        {"[{\"cat\": \"Session\"}]", "onnxruntime_profile.json", "ort"},
        {"[\n{\"cat\" : \"Node\",\"pid\" :1}]", NULL, "ort"},
        {"", "m_2026-12-01_08-46-58_358.json", "ort"}, /* 0 bytes, the name ORT writes */
        {"", "m_2026-12-01_08-46-59.json", "ort"},
        {"[{\"cat\": \"cpu_op\"}]", "onnxruntime_profile.json", "kineto"},
        {"SQLite format 3\0\x10\x00", "a.sqlite", "sqlite"},
        {"SQLite format 3\0\x10\x00", "a.json", "sqlite"}, /* content wins over the name */
        {"\x0a\x05hello", "vm.xplane.pb", "protobuf"},
        {"\x0a\x05hello", "trace.pb.gz", "protobuf"},
        {"{\"a\": 1}", "odd.pb", "kineto"}, /* JSON content is never a protobuf */
        {"\x01\x02", "r.nsys-rep", "nsys-rep"},
        {"\x08\x07", "m.onnx", "onnx-model"},
        {"Start (ns),End (ns),Name\n1,2,main\n", "x.txt", "nsys-stats-csv"},
        {"Processing [r.sqlite] with [cuda_api_sum.py]...\n\n Time (%),Total Time (us),Num "
         "Calls,Avg (us),Name\n1,2,3,4,cudaFree\n",
         "api.csv", "nsys-stats-csv"},
        {"Start,End,Name\n1,2,main\n", "x.txt", "csv"},
        {"==PROF== Connected to process 1 (/a)\nout\n\"ID\",\"Process ID\",\"Process "
         "Name\",\"Host Name\",\"Kernel Name\",\"Metric Name\"\n",
         "r.log", "ncu"},
        {"ID,Process ID,Kernel Name,gpu__time_duration.sum\n", NULL, "ncu"},
        {"a,b\n", "t.csv", "csv"},
        {"python  3231  1228.318493:    2004008 cpu-clock: \n\t   fe521 [unknown] (/x)\n", NULL,
         "perf-script"},
        {"# ========\n# cmdline : perf\nperf 12 [001] 10.5: cycles: \n\t 4005d0 main (/a)\n", NULL,
         "perf-script"},
        {"{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\"}", NULL,
         "speedscope"},
        {"[\n  { \"count\" : 1 }\n, { \"name\" : \"c\" }]", NULL, "trtexec-profile"},
        {"main (a.py:1);f (a.py:2) 12\n", NULL, "collapsed-stacks"},
        /* CPU stack files (issue 15): no callchain, names for empty/garbage, C++ commas */
        {"perf 12 10.5: 10 cycles:  4005d0 main (/a)\nperf 12 10.6: 10 cycles:  4005d0 f (/a)\n",
         NULL, "perf-script"},
        {"", "x.perf-script.txt", "perf-script"},
        {"\x01garbage", "x.perf-script", "perf-script"},
        {"", "x.speedscope.json", "speedscope"},
        {"", "py.folded", "collapsed-stacks"},
        {"\x01\x02", "py.collapsed", "collapsed-stacks"},
        {" 15\nmain (a.py:1);f (a.py:2) 12\n", NULL, "collapsed-stacks"},
        {"a;std::map<int, int, less>::find 3\nmain 1\n", NULL, "collapsed-stacks"},
        {"[unknown] 15\n[libc.so.6];main 3\n", NULL, "collapsed-stacks"},
        {"main 5\nother 2\n", NULL, "text"}, /* no ';' anywhere: not taken for stacks */
        {"==PROF== Connected to process\n", NULL, "text"},
        {"not json", NULL, "kineto"}, /* could be 'null': the JSON reader says what is wrong */
        {"42", NULL, "kineto"},
        {"", NULL, "kineto"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = strlen(cases[i].head);
        if (!strncmp(cases[i].head, "SQLite", 6)) n = 18;
        const char *got = ingest_sniff(cases[i].head, n, cases[i].path);
        if (strcmp(got, cases[i].want)) FAIL("case %zu: %s, want %s", i, got, cases[i].want);
    }
}

/* Each reader sets its format row (model/format.h): the name shown is the row's, and the
 * capabilities are what consumers ask (never the name). Hand-made inputs of four readers. */
TEST(ingest_readers_set_their_format_row)
{
    static const struct {
        const char *name, *doc, *format;
        enum lat_framework fw;
        unsigned has, lacks;
    } cases[] = {
        {"handmade.pt.trace.json",
         "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", "
         "\"name\": \"aten::mm\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1}]}",
         "kineto", LAT_FW_PYTORCH, LAT_FCAP_PROFILER_STEPS, LAT_FCAP_RUNS | LAT_FCAP_ORT_NODES},
        {"handmade-ort.json",
         "[{\"cat\": \"Session\", \"pid\": 1, \"tid\": 1, \"dur\": 5, \"ts\": 1, \"ph\": \"X\", "
         "\"name\": \"model_run\", \"args\": {}}]",
         "ort", LAT_FW_ORT, LAT_FCAP_RUNS | LAT_FCAP_ORT_NODES | LAT_FCAP_NO_PYTHON,
         LAT_FCAP_PROFILER_STEPS},
        {"handmade.folded", "main;work 3\nmain;idle 1\n", "collapsed-stacks", LAT_FW_NONE, 0,
         LAT_FCAP_PROFILER_STEPS | LAT_FCAP_NO_PYTHON},
        {"handmade.speedscope.json",
         "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\", \"shared\": "
         "{\"frames\": [{\"name\": \"f\"}]}, \"profiles\": [{\"type\": \"sampled\", \"name\": "
         "\"p\", \"unit\": \"seconds\", \"startValue\": 0, \"endValue\": 1, \"samples\": [[0]], "
         "\"weights\": [1]}]}",
         "speedscope", LAT_FW_NONE, 0, LAT_FCAP_PROFILER_STEPS},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[LAT_INGEST_ERRLEN] = "";
        struct lat_trace *t = NULL;
        int rc = ingest_mem(cases[i].doc, strlen(cases[i].doc), cases[i].name, NULL, &t, err,
                            sizeof(err));
        if (rc) fprintf(stderr, "%s: %s\n", cases[i].name, err);
        ASSERT_RC(rc);
        ASSERT(t->fmt != NULL);
        ASSERT(t->fmt != &lat_format_unknown); /* a reader never leaves the model's default */
        ASSERT_EQ_STR(t->format, cases[i].format);
        ASSERT_EQ_STR(t->fmt->name, t->format);
        ASSERT_EQ_I64(t->fmt->fw, cases[i].fw);
        ASSERT(lat_trace_has(t, cases[i].has));
        ASSERT((t->fmt->caps & cases[i].lacks) == 0);
        lat_trace_free(t);
    }
    /* a trace made by hand: the model's default row */
    struct lat_trace *t;
    ASSERT_RC(lat_trace_new(&t));
    ASSERT(t->fmt == &lat_format_unknown);
    ASSERT_EQ_STR(t->format, "unknown");
    ASSERT(lat_trace_has(t, LAT_FCAP_PROFILER_STEPS));
    ASSERT(!lat_trace_has(NULL, 0));
    lat_trace_free(t);
}

TEST(ingest_unreadable_format_error_names_it_once)
{
    char err[LAT_INGEST_ERRLEN];
    struct lat_trace *t;
    const char db[] = "SQLite format 3\0rest";
    ASSERT_EQ_I64(ingest_mem(db, sizeof(db), "p.sqlite", NULL, &t, err, sizeof(err)),
                  LAT_E_NOT_TRACE);
    ASSERT(t == NULL);
    ASSERT(strstr(err, "p.sqlite: an SQLite database"));
    ASSERT(strstr(err + 1, "p.sqlite") == NULL); /* one path per message */
    /* gzip of it: decompressed before sniffing */
    unsigned char gz[256];
    z_stream z = {0};
    ASSERT(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (unsigned char *)(uintptr_t)db;
    z.avail_in = sizeof(db);
    z.next_out = gz;
    z.avail_out = sizeof(gz);
    ASSERT(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t gzn = sizeof(gz) - z.avail_out;
    deflateEnd(&z);
    struct lat_ingest_opts o = {.chunk_bytes = 64};
    ASSERT_EQ_I64(ingest_mem(gz, gzn, "p.sqlite.gz", &o, &t, err, sizeof(err)), LAT_E_NOT_TRACE);
    ASSERT(strstr(err, "gzip of an SQLite database"));
    /* a trace still loads after the peek, gzip too, tiny chunks too */
    char doc[256];
    int dn = snprintf(doc, sizeof(doc), trace, 3);
    o.chunk_bytes = 1;
    ASSERT_RC(ingest_mem(doc, (size_t)dn, "t", &o, &t, err, sizeof(err)));
    ASSERT_EQ_I64(t->ev.n, 1);
    ASSERT_EQ_I64(t->rank, 3);
    lat_trace_free(t);
}

TEST(ingest_paths_directory_rules)
{
    const char *tmp = test_tmpdir();
    char dir[512], slash[520], fifo[540], a[540];
    snprintf(dir, sizeof(dir), "%s/rk", tmp);
    ASSERT(mkdir(dir, 0755) == 0);
    put_trace(dir, "a.json", 0);
    put(dir, "b.json", "nope", 4);
    put_trace(dir, "d.json", 0);   /* same rank as a.json */
    put(dir, "notes.txt", "x", 1); /* not a trace name: not listed */
    snprintf(fifo, sizeof(fifo), "%s/c.json", dir);
    ASSERT(mkfifo(fifo, 0600) == 0);
    snprintf(slash, sizeof(slash), "%s//", dir);
    snprintf(a, sizeof(a), "%s/a.json", dir);

    /* the named file first, then its directory (trailing slashes): a.json is loaded once */
    const char *paths[] = {a, slash};
    struct lat_ingest_set *s;
    char err[LAT_INGEST_ERRLEN];
    ASSERT_RC(ingest_paths(paths, 2, NULL, &s, err, sizeof(err)));
    ASSERT_EQ_U64(s->n, 5);
    static const enum lat_ingest_status want[] = {
        LAT_INGEST_OK, LAT_INGEST_SAME_FILE, LAT_INGEST_ERROR, LAT_INGEST_NOT_FILE, LAT_INGEST_OK};
    for (size_t i = 0; i < s->n; i++) {
        const struct lat_ingest_file *f = &s->files[i];
        ASSERT(strstr(f->path, "//") == NULL);
        if (f->status != want[i])
            FAIL("file %zu %s: %s, want %s", i, f->path, ingest_status_name(f->status),
                 ingest_status_name(want[i]));
    }
    ASSERT(!s->files[0].in_dir && s->files[1].in_dir);
    ASSERT(strstr(s->files[1].err, "the same file as"));
    ASSERT(strstr(s->files[3].err, "not a regular file (a FIFO)"));
    ASSERT_EQ_STR(ingest_file_reason(&s->files[3]), "not a regular file (a FIFO), not opened");
    /* d.json: a.json was skipped in the directory (same file), so d.json is the directory's
     * rank 0 and loads (a command then sees two traces of rank 0: analyze refuses them) */
    ASSERT(s->files[4].trace != NULL);
    ASSERT_EQ_I64(ingest_set_loaded(s), 2);
    ingest_set_free(s);

    /* the directory alone: a.json rank 0, d.json the same rank -> DUP_RANK */
    ASSERT_RC(ingest_dir(dir, NULL, &s, err, sizeof(err)));
    ASSERT_EQ_U64(s->n, 4);
    ASSERT_EQ_I64(s->files[0].status, LAT_INGEST_OK);
    ASSERT_EQ_I64(s->files[2].status, LAT_INGEST_NOT_FILE);
    ASSERT_EQ_I64(s->files[3].status, LAT_INGEST_DUP_RANK);
    ASSERT(ingest_status_skipped(LAT_INGEST_DUP_RANK) &&
           !ingest_status_skipped(LAT_INGEST_NO_RANK));
    ingest_set_free(s);

    /* a named file that cannot be loaded fails the call, one path in the message */
    char b[540];
    snprintf(b, sizeof(b), "%s/b.json", dir);
    const char *bad[] = {a, b};
    ASSERT_EQ_I64(ingest_paths(bad, 2, NULL, &s, err, sizeof(err)), LAT_E_BAD_JSON);
    ASSERT(s == NULL);
    ASSERT(strncmp(err, b, strlen(b)) == 0 && strstr(err + strlen(b), "b.json") == NULL);
    const char *missing[] = {"/nonexistent/q.json"};
    ASSERT_EQ_I64(ingest_paths(missing, 1, NULL, &s, err, sizeof(err)), -ENOENT);
    ASSERT(strstr(err, "/nonexistent/q.json: cannot open"));
    char empty[540];
    snprintf(empty, sizeof(empty), "%s/empty", tmp);
    ASSERT(mkdir(empty, 0755) == 0);
    const char *none[] = {empty};
    ASSERT_EQ_I64(ingest_paths(none, 1, NULL, &s, err, sizeof(err)), LAT_E_NOT_FOUND);
    ASSERT(unlink(fifo) == 0);
}
