/* test-report-pages.c - the report's bench and HDR-log pages (src/report/bench.c, hlog.c): the
 * page header, a bench result's "url"/"workload" redacted and the rest kept byte for byte, the
 * errors naming the file. */
#include "test.h"

#include "core/err.h"
#include "core/jsonw.h"
#include "report/bench.h"
#include "report/hlog.h"
#include "report/page.h"

static const char *page(struct jsonw *w)
{
    ASSERT_EQ_I64(jsonw_finish(w), 0);
    return w->buf.data ? w->buf.data : "";
}

TEST(report_bench_page_redacts_url_and_keeps_the_rest)
{
    const char *doc = "{\"url\": \"http://h/?api_key=s3cret&x=1\", \"points\": [{\"n\": 1}],\n"
                      " \"workload\": \"plain\"}\n\n";
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    char err[256] = "";
    ASSERT_EQ_I64(rep_bench_write(&w, "dir/b.json", doc, strlen(doc), NULL, NULL, err, sizeof(err)),
                  0);
    ASSERT_EQ_STR(page(&w), "{\"kind\":\"bench\",\"path\":\"dir/b.json\",\"title\":\"b.json\","
                            "\"bench\":{\"url\": \"http://h/?api_key=REDACTED&x=1\", "
                            "\"points\": [{\"n\": 1}],\n \"workload\": \"plain\"}}");
    jsonw_fini(&w);
}

TEST(report_bench_page_errors_name_the_file)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    char err[256] = "";
    ASSERT_EQ_I64(
        rep_bench_write(&w, "x.json", "{\"points\": 3}", 13, NULL, NULL, err, sizeof(err)),
        LAT_E_USAGE);
    ASSERT(strstr(err, "x.json: a JSON object without a \"points\" array"));
    ASSERT_EQ_I64(rep_bench_write(&w, "y.json", "{\"points\": [", 12, NULL, NULL, err, sizeof(err)),
                  LAT_E_USAGE);
    ASSERT(strstr(err, "y.json: not valid JSON at byte"));
    ASSERT_EQ_U64(w.buf.len, 0); /* nothing written */
    jsonw_fini(&w);
}

TEST(report_hlog_page_errors)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    char err[256] = "";
    const char *empty = "#[StartTime: 1.000 (seconds since epoch)]\n";
    ASSERT_EQ_I64(rep_hlog_write(&w, "r.hlog", empty, strlen(empty), err, sizeof(err)),
                  LAT_E_USAGE);
    ASSERT(strstr(err, "r.hlog: no interval in the HDR log"));
    const char *bad = "0.000,1.000,2.0,notbase64!!\n";
    ASSERT_EQ_I64(rep_hlog_write(&w, "s.hlog", bad, strlen(bad), err, sizeof(err)), LAT_E_USAGE);
    ASSERT(strstr(err, "s.hlog: line 1: not an HdrHistogram interval log"));
    ASSERT_EQ_U64(w.buf.len, 0);
    jsonw_fini(&w);
}

TEST(report_base_name)
{
    ASSERT_EQ_STR(rep_base_name("a/b/c.json"), "c.json");
    ASSERT_EQ_STR(rep_base_name("c.json"), "c.json");
    ASSERT_EQ_STR(rep_base_name("dir/"), "dir/");
}
