/*
 * bench.c - a bench result as a report page (bench.h).
 */
#include "report/bench.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/redact.h"
#include "report/page.h"
#include "json/tok.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* What the walk over the document found. */
struct bench_scan {
    bool points, top_obj;
};

/* The string token tk (a "url"/"workload" value) redacted into out when redaction changes it:
 * out gets doc[*copied..tk) and the redacted string; *copied moves past the raw string.
 * 0 or -ENOMEM. */
static int redact_str(const char *doc, size_t len, const struct json_token *tk, struct lat_buf *out,
                      struct lat_buf *red, struct lat_buf *dec, size_t *copied)
{
    int rc = 0;
    buf_reset(dec);
    if (buf_append(dec, tk->s, tk->len) < 0 || buf_puts(dec, "") < 0) rc = -ENOMEM;
    const char *r = rc < 0 ? "REDACTED" : lat_redacted(red, dec->data);
    if (strcmp(r, dec->data ? dec->data : "") == 0) return rc;
    size_t e = (size_t)tk->off + 1; /* the raw string's end: its closing quote */
    while (e < len && doc[e] != '"')
        e += doc[e] == '\\' ? 2 : 1;
    struct jsonw sw;
    jsonw_init(&sw, NULL, false);
    jsonw_str(&sw, r);
    jsonw_finish(&sw);
    if (buf_append(out, doc + *copied, (size_t)tk->off - *copied) < 0 ||
        buf_append(out, sw.buf.data, sw.buf.len) < 0)
        rc = -ENOMEM;
    jsonw_fini(&sw);
    *copied = e + 1 < len ? e + 1 : len;
    return rc;
}

/* Walks the whole document (t fed and finished): its shape into *s, the redacted copy into out
 * (*copied: bytes of doc taken, 0 when nothing was redacted). The tokenizer's result: 0 at the
 * end, < 0 on bad JSON or -ENOMEM. */
static int walk(struct json_tok *t, const char *doc, size_t len, struct bench_scan *s,
                struct lat_buf *out, size_t *copied)
{
    struct json_token tk;
    struct lat_buf red = LAT_BUF_INIT, dec = LAT_BUF_INIT;
    bool url_key = false;
    int depth_pts = -1, rc;
    while ((rc = json_tok_next(t, &tk)) == 1) {
        if (tk.type == JSON_END) break;
        if (tk.type == JSON_STR && url_key && tk.off < len && doc[tk.off] == '"') {
            rc = redact_str(doc, len, &tk, out, &red, &dec, copied);
            if (rc < 0) break;
        }
        url_key = tk.type == JSON_KEY && ((tk.len == 3 && !memcmp(tk.s, "url", 3)) ||
                                          (tk.len == 8 && !memcmp(tk.s, "workload", 8)));
        if (tk.depth == 0 && tk.type == JSON_OBJ_BEGIN) s->top_obj = true;
        if (tk.type == JSON_KEY && tk.depth == 1 && tk.len == 6 && !memcmp(tk.s, "points", 6))
            depth_pts = 1;
        else if (depth_pts == 1 && tk.depth == 1) {
            s->points = tk.type == JSON_ARR_BEGIN;
            depth_pts = -1;
        }
    }
    buf_fini(&red);
    buf_fini(&dec);
    return rc;
}

int rep_bench_write(struct jsonw *w, const char *path, const char *doc, size_t len,
                    void (*extra)(struct jsonw *w, void *ctx), void *ctx, char *err, size_t errsz)
{
    struct json_tok t;
    json_tok_init(&t, 0);
    json_tok_feed(&t, doc, len);
    json_tok_finish(&t);
    struct bench_scan s = {false, false};
    struct lat_buf out = LAT_BUF_INIT;
    size_t copied = 0;
    int rc = walk(&t, doc, len, &s, &out, &copied);
    if (rc == -ENOMEM || (copied && buf_append(&out, doc + copied, len - copied) < 0)) {
        json_tok_fini(&t);
        buf_fini(&out);
        return -ENOMEM;
    }
    if (rc < 0) {
        snprintf(err, errsz,
                 "%s: not valid JSON at byte %llu: %s (a `latscope bench --format json` result "
                 "was expected)",
                 path, (unsigned long long)json_tok_erroff(&t), json_tok_errmsg(&t));
        json_tok_fini(&t);
        buf_fini(&out);
        return LAT_E_USAGE;
    }
    json_tok_fini(&t);
    if (!s.top_obj || !s.points) {
        snprintf(err, errsz,
                 "%s: a JSON object without a \"points\" array: not a `latscope bench --format "
                 "json` result",
                 path);
        buf_fini(&out);
        return LAT_E_USAGE;
    }
    const char *d = copied ? out.data : doc; /* something was redacted: the copy */
    size_t n = copied ? out.len : len;
    /* trim trailing whitespace: jsonw_raw writes verbatim */
    while (n && (d[n - 1] == '\n' || d[n - 1] == ' ' || d[n - 1] == '\r' || d[n - 1] == '\t'))
        n--;
    rep_page_begin(w, "bench", path);
    jsonw_key(w, "bench");
    jsonw_raw(w, d, n);
    if (extra) extra(w, ctx);
    jsonw_obj_end(w);
    buf_fini(&out);
    return 0;
}
