/*
 * test-report.c - src/report: escaping (nothing from an input can leave its element), the page
 * assembly, and the timeline's lanes, nesting and level-of-detail bins.
 */
#include <stdlib.h>
#include <string.h>

#include "core/err.h"
#include "core/jsonw.h"
#include "model/events.h"
#include "report/html.h"
#include "report/timeline.h"
#include "test.h"
#include "json/tok.h"

#define ASSERT_TRUE(c) ASSERT_EQ_I64((c) ? 1 : 0, 1)

static size_t count_sub(const char *s, size_t n, const char *sub)
{
    size_t k = strlen(sub), c = 0;
    for (size_t i = 0; i + k <= n; i++)
        if (!strncasecmp(s + i, sub, k)) c++;
    return c;
}

/* A nasty name: closes script/title, quotes, control characters, U+2028, an HTML comment. */
static const char nasty[] = "</script><script>alert(1)</script>\"'&<!--\x01\x1f\x7f\xe2\x80\xa8"
                            "\xe2\x80\xa9</SCRIPT >";

TEST(report_html_text_escapes)
{
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(rep_html_text(&b, nasty, sizeof(nasty) - 1));
    ASSERT_TRUE(!memchr(b.data, '<', b.len));
    ASSERT_TRUE(!memchr(b.data, '>', b.len));
    ASSERT_TRUE(!memchr(b.data, '"', b.len));
    ASSERT_TRUE(!memchr(b.data, '\'', b.len));
    ASSERT_TRUE(!memchr(b.data, '\x01', b.len));
    ASSERT_TRUE(!memchr(b.data, '\x7f', b.len));
    ASSERT_TRUE(strstr(b.data, "&lt;/script&gt;") != NULL);
    ASSERT_TRUE(strstr(b.data, "&amp;&lt;!--") != NULL);
    buf_fini(&b);
}

/* JSON of {"name": nasty, "n": 1} written by jsonw, made script-safe, parses back to nasty. */
TEST(report_json_for_script_roundtrip)
{
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "name</script>");
    jsonw_strn(&w, nasty, sizeof(nasty) - 1);
    jsonw_key(&w, "n");
    jsonw_i64(&w, 1);
    jsonw_obj_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(rep_json_for_script(&b, w.buf.data, w.buf.len));
    ASSERT_TRUE(!memchr(b.data, '<', b.len));
    ASSERT_TRUE(!memchr(b.data, '>', b.len));
    ASSERT_TRUE(!memchr(b.data, '&', b.len));
    ASSERT_TRUE(strstr(b.data, "\xe2\x80\xa8") == NULL);
    ASSERT_TRUE(strstr(b.data, "\xe2\x80\xa9") == NULL);
    for (size_t i = 0; i < b.len; i++)
        ASSERT_OP_I64((unsigned char)b.data[i], >=, 0x20);

    struct json_tok t;
    struct json_token tk;
    json_tok_init(&t, 0);
    json_tok_feed(&t, b.data, b.len);
    json_tok_finish(&t);
    int rc, seen = 0;
    while ((rc = json_tok_next(&t, &tk)) == 1 && tk.type != JSON_END) {
        if (tk.type == JSON_KEY && tk.depth == 1 && seen == 0) {
            ASSERT_EQ_U64(tk.len, 13);
            ASSERT_MEM_EQ(tk.s, "name</script>", 13);
            seen = 1;
        } else if (tk.type == JSON_STR && seen == 1) {
            /* jsonw replaces invalid UTF-8 only; every byte here is valid, so all survive */
            ASSERT_EQ_U64(tk.len, sizeof(nasty) - 1);
            ASSERT_MEM_EQ(tk.s, nasty, sizeof(nasty) - 1);
            seen = 2;
        }
    }
    ASSERT_OP_I64(rc, >=, 0);
    ASSERT_EQ_I64(seen, 2);
    json_tok_fini(&t);
    buf_fini(&b);
    jsonw_fini(&w);
}

/* A raw control character inside a string (not valid JSON, but never let it through) and the
 * string state machine across escaped quotes. */
TEST(report_json_for_script_string_state)
{
    const char in[] = "{\"a\\\"<\":\"x\x02y\",\n\"b\":\"\\\\\",\r\n\"c\":\"<\"}";
    struct lat_buf b = LAT_BUF_INIT;
    ASSERT_RC(rep_json_for_script(&b, in, sizeof(in) - 1));
    ASSERT_EQ_STR(b.data, "{\"a\\\"\\u003c\":\"x\\u0002y\", \"b\":\"\\\\\",  \"c\":\"\\u003c\"}");
    buf_fini(&b);
}

/* The page: the data and the title cannot add a </script> or a <script>. */
TEST(report_page_cannot_be_broken_out_of)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/page.html", test_tmpdir());
    FILE *f = fopen(path, "w+");
    ASSERT_TRUE(f != NULL);
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "pages");
    jsonw_arr_begin(&w);
    jsonw_strn(&w, nasty, sizeof(nasty) - 1);
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    ASSERT_RC(jsonw_finish(&w));
    ASSERT_RC(rep_page_write(f, nasty, w.buf.data, w.buf.len));
    long n = ftell(f);
    ASSERT_OP_I64(n, >, 1000);
    char *page = malloc((size_t)n + 1);
    rewind(f);
    ASSERT_EQ_U64(fread(page, 1, (size_t)n, f), (uint64_t)n);
    page[n] = 0;
    fclose(f);
    /* exactly the template's own script elements: one data, one code */
    size_t tpl_close = count_sub((const char *)rep_report_html, rep_report_html_len, "</script");
    ASSERT_EQ_U64(tpl_close, 2);
    ASSERT_EQ_U64(count_sub(page, (size_t)n, "</script"), tpl_close);
    ASSERT_EQ_U64(count_sub(page, (size_t)n, "<script"), 2);
    ASSERT_EQ_U64(count_sub(page, (size_t)n, "<!--"), 0);
    /* the script itself must not contain what would end its element */
    ASSERT_EQ_U64(count_sub((const char *)rep_report_js, rep_report_js_len, "</script"), 0);
    ASSERT_EQ_U64(count_sub((const char *)rep_report_js, rep_report_js_len, "<!--"), 0);
    /* no marker left unreplaced */
    ASSERT_TRUE(strstr(page, "@DATA@") == NULL);
    ASSERT_TRUE(strstr(page, "@SCRIPT@") == NULL);
    ASSERT_TRUE(strstr(page, "@TITLE@") == NULL);
    free(page);
    jsonw_fini(&w);
}

/* ---- timeline ---- */

struct tb {
    struct lat_trace *t;
    uint32_t cpu, gpu;
};

static void ev(struct tb *b, uint32_t track, enum lat_ev_kind kind, const char *name, lat_ns ts,
               lat_ns dur)
{
    struct lat_event e = {0};
    e.ts = ts;
    e.dur = dur;
    ASSERT_RC(lat_trace_intern(b->t, name, strlen(name), &e.name));
    e.kind = (uint16_t)kind;
    e.track = track;
    e.stream = -1;
    e.device = -1;
    e.step = -1;
    e.correlation = -1;
    e.external_id = -1;
    e.ph = 'X';
    ASSERT_RC(lat_trace_add_event(b->t, &e));
}

static void tb_init(struct tb *b)
{
    ASSERT_RC(lat_trace_new(&b->t));
    ASSERT_RC(lat_trace_track(b->t, 0, 7, 0, 0, true, &b->gpu)); /* GPU track first */
    ASSERT_RC(lat_trace_track(b->t, 100, 1, 0, 0, false, &b->cpu));
}

TEST(report_timeline_lanes_and_depth)
{
    struct tb b;
    tb_init(&b);
    /* out of order on purpose */
    ev(&b, b.cpu, LAT_EV_CPU_OP, "child", 2000, 3000);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "parent", 1000, 10000);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "grandchild", 3000, 1000);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "after", 12000, 1000);
    ev(&b, b.cpu, LAT_EV_USER_ANNOTATION, "nvtx range", 1000, 5000);
    ev(&b, b.gpu, LAT_EV_KERNEL, "k", 3000, 2000);
    ev(&b, b.cpu, LAT_EV_INSTANT, "instant", 1500, 0); /* not on the timeline */
    struct rep_tl *tl = NULL;
    ASSERT_RC(rep_tl_build(b.t, &tl));
    ASSERT_EQ_U64(tl->nlanes, 3);
    ASSERT_EQ_U64(tl->nevents, 6);
    /* CPU thread lanes (annotations first) before GPU streams */
    ASSERT_TRUE(!tl->lanes[0].gpu && tl->lanes[0].annot);
    ASSERT_TRUE(!tl->lanes[1].gpu && !tl->lanes[1].annot);
    ASSERT_TRUE(tl->lanes[2].gpu);
    ASSERT_TRUE(strstr(tl->lanes[2].label, "stream 7") != NULL);
    ASSERT_TRUE(strstr(tl->lanes[0].label, "annotations") != NULL);
    const struct rep_tl_lane *c = &tl->lanes[1];
    ASSERT_EQ_U64(c->n, 4);
    const char *order[] = {"parent", "child", "grandchild", "after"};
    const int depth[] = {0, 1, 2, 0}, parent[] = {-1, 0, 1, -1};
    for (size_t i = 0; i < 4; i++) {
        ASSERT_EQ_STR(lat_trace_str(b.t, b.t->ev.name[c->ev[i]]), order[i]);
        ASSERT_EQ_I64(c->depth[i], depth[i]);
        ASSERT_EQ_I64(c->parent[i], parent[i]);
    }
    ASSERT_EQ_I64(c->maxdepth, 2);
    ASSERT_EQ_I64(tl->t0, 1000);
    ASSERT_EQ_I64(tl->t1, 13000);
    ASSERT_EQ_I64(tl->unit, 1000); /* every time is whole µs */
    rep_tl_free(tl);
    lat_trace_free(b.t);
}

/* Many small kernels and one big op: every level accounts for every small event exactly once,
 * busy never exceeds the bin, big lists hold exactly the events >= 2 w, widths shrink by 4. */
TEST(report_timeline_lod_bins)
{
    struct tb b;
    tb_init(&b);
    const int n = 250000;
    ev(&b, b.cpu, LAT_EV_CPU_OP, "whole", 0, (lat_ns)n * 10000);
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof(name), "kernel_%d", i % 7);
        ev(&b, b.gpu, LAT_EV_KERNEL, name, (lat_ns)i * 10000 + 123, 4000 + (i % 5) * 1000);
    }
    struct rep_tl *tl = NULL;
    ASSERT_RC(rep_tl_build(b.t, &tl));
    ASSERT_EQ_U64(tl->nlanes, 2);
    ASSERT_EQ_U64(tl->nnames, 8);
    ASSERT_EQ_I64(tl->unit, 1); /* 123 ns offsets */
    ASSERT_OP_I64((int64_t)tl->nlevels, >=, 2);
    lat_ns span = tl->t1 - tl->t0;
    ASSERT_EQ_I64(tl->levels[0].w, (span + REP_TL_BASE_BINS - 1) / REP_TL_BASE_BINS);
    for (size_t l = 0; l < tl->nlevels; l++) {
        const struct rep_tl_level *lv = &tl->levels[l];
        if (l) ASSERT_EQ_I64(lv->w, tl->levels[l - 1].w / 4);
        size_t nb = 0;
        for (size_t li = 0; li < tl->nlanes; li++) {
            const struct rep_tl_lane *ln = &tl->lanes[li];
            const struct rep_tl_lane_bins *lb = &lv->lanes[li];
            uint64_t small = 0, counted = 0, bigs = 0;
            for (size_t i = 0; i < ln->n; i++) {
                if (b.t->ev.dur[ln->ev[i]] >= 2 * lv->w)
                    bigs++;
                else
                    small++;
            }
            ASSERT_EQ_U64(lb->nbig, bigs);
            for (size_t k = 0; k < lb->nbig; k++) {
                ASSERT_OP_I64(b.t->ev.dur[ln->ev[lb->big[k]]], >=, 2 * lv->w);
                if (k) ASSERT_OP_I64(lb->big[k], >, lb->big[k - 1]);
            }
            for (size_t k = 0; k < lb->n; k++) {
                counted += lb->b[k].count;
                ASSERT_OP_I64(lb->b[k].busy, <=, lv->w);
                ASSERT_OP_I64(lb->b[k].busy, >=, 0);
                if (k) ASSERT_OP_I64(lb->b[k].idx, >, lb->b[k - 1].idx);
                if (lb->b[k].top != UINT32_MAX) ASSERT_OP_I64(lb->b[k].top, <, (int64_t)ln->n);
            }
            ASSERT_EQ_U64(counted, small);
            nb += lb->n;
        }
        ASSERT_EQ_U64(lv->nbins, nb);
    }
    /* the GPU lane at the coarsest level: busy per bin is the kernels' share of it (kernels
     * cover 4..8 of every 10 µs: 60 % on average) */
    const struct rep_tl_lane_bins *g0 = &tl->levels[0].lanes[1];
    lat_ns busy = 0;
    for (size_t k = 0; k < g0->n; k++)
        busy += g0->b[k].busy;
    lat_ns want = 0;
    for (int i = 0; i < n; i++)
        want += 4000 + (i % 5) * 1000;
    ASSERT_EQ_I64(busy, want);

    /* JSON: parses, and carries every event */
    struct jsonw w;
    jsonw_init(&w, NULL, false);
    rep_tl_write_json(&w, tl);
    ASSERT_RC(jsonw_finish(&w));
    struct json_tok t;
    struct json_token tk;
    json_tok_init(&t, 0);
    json_tok_feed(&t, w.buf.data, w.buf.len);
    json_tok_finish(&t);
    int rc;
    uint64_t ts_vals = 0;
    bool in_ts = false;
    while ((rc = json_tok_next(&t, &tk)) == 1 && tk.type != JSON_END) {
        if (tk.type == JSON_KEY)
            in_ts = tk.len == 2 && !memcmp(tk.s, "ts", 2);
        else if (in_ts && tk.type == JSON_NUM)
            ts_vals++;
        else if (tk.type == JSON_ARR_END)
            in_ts = false;
    }
    ASSERT_OP_I64(rc, >=, 0);
    ASSERT_EQ_U64(ts_vals, (uint64_t)n + 1);
    json_tok_fini(&t);
    jsonw_fini(&w);
    rep_tl_free(tl);
    lat_trace_free(b.t);
}

TEST(report_timeline_empty)
{
    struct tb b;
    tb_init(&b);
    ev(&b, b.cpu, LAT_EV_INSTANT, "only an instant", 10, 0);
    struct rep_tl *tl = NULL;
    ASSERT_RC(rep_tl_build(b.t, &tl));
    ASSERT_EQ_U64(tl->nlanes, 0);
    ASSERT_EQ_U64(tl->nlevels, 0);
    rep_tl_free(tl);
    lat_trace_free(b.t);
}

/* Times at the edges of int64: events beyond +-2^61 ns are left out, a span beyond 2^61 ns is
 * refused (never an overflowed bin). */
TEST(report_timeline_extreme_times)
{
    struct tb b;
    tb_init(&b);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "ok", 1000, 1000);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "far", INT64_MAX - 10, 5);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "long", 0, INT64_MAX);
    struct rep_tl *tl = NULL;
    ASSERT_RC(rep_tl_build(b.t, &tl));
    ASSERT_EQ_U64(tl->nevents, 1);
    ASSERT_EQ_I64(tl->t1 - tl->t0, 1000);
    rep_tl_free(tl);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "early", -((lat_ns)1 << 61), 10);
    ev(&b, b.cpu, LAT_EV_CPU_OP, "late", (lat_ns)1 << 61, 10);
    tl = NULL;
    ASSERT_EQ_I64(rep_tl_build(b.t, &tl), LAT_E_OVERFLOW);
    ASSERT_TRUE(tl == NULL);
    lat_trace_free(b.t);
}
