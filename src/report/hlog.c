/*
 * hlog.c - an HDR interval log as a report page (hlog.h).
 */
#include "report/hlog.h"

#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "hist/hist.h"
#include "hist/hlog.h"
#include "report/page.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The intervals of one tag. */
struct tagacc {
    char tag[HLOG_MAX_TAG + 1];
    struct lat_hist all;
    struct lat_buf iv; /* JSON rows of the intervals, comma-separated */
};

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* The tag's accumulator (added when new). NULL when out of memory. */
static struct tagacc *tag_of(struct tagacc **tags, size_t *ntags, size_t *cap,
                             const struct hlog_entry *e)
{
    size_t k = 0;
    while (k < *ntags && strcmp((*tags)[k].tag, e->tag))
        k++;
    if (k < *ntags) return &(*tags)[k];
    if (LAT_GROW(*tags, *cap, *ntags, 1, 4)) return NULL;
    struct tagacc *t = &(*tags)[k];
    memset(t, 0, sizeof(*t));
    memcpy(t->tag, e->tag, sizeof(e->tag));
    if (hist_init(&t->all, e->hist.cfg.lowest, e->hist.cfg.highest, e->hist.cfg.sig_figs))
        return NULL;
    (*ntags)++;
    return t;
}

/* [start_s, length_s, count, p50, p90, p99, max] in ms; no percentiles when empty; a time that
 * is not finite (a hand-edited log) is null, never "inf". 0 or -ENOMEM. */
static int interval_row(struct lat_buf *iv, const struct hlog_entry *e)
{
    const struct lat_hist *h = &e->hist;
    bool have = hist_count(h) > 0;
    double col[7] = {e->start_s,
                     e->length_s,
                     (double)hist_count(h),
                     have ? ms(hist_value_at_percentile(h, 50)) : NAN,
                     have ? ms(hist_value_at_percentile(h, 90)) : NAN,
                     have ? ms(hist_value_at_percentile(h, 99)) : NAN,
                     have ? ms(hist_max(h)) : NAN};
    int brc = buf_puts(iv, iv->len ? ",[" : "[");
    for (int ci = 0; ci < 7 && !brc; ci++) {
        if (ci) brc = buf_putc(iv, ',');
        if (brc) break;
        if (!isfinite(col[ci]))
            brc = buf_puts(iv, "null");
        else if (ci == 2)
            brc = buf_printf(iv, "%llu", (unsigned long long)hist_count(h));
        else
            brc = buf_printf(iv, ci < 2 ? "%.3f" : "%.6f", col[ci]);
    }
    if (!brc) brc = buf_putc(iv, ']');
    return brc ? -ENOMEM : 0;
}

/* One tag: totals, the percentile curve (20 points per decade of 1/(1-q) up to the count, then
 * max) and the interval rows. */
static void write_tag(struct jsonw *w, const struct tagacc *t)
{
    const struct lat_hist *h = &t->all;
    uint64_t n = hist_count(h);
    jsonw_obj_begin(w);
    jsonw_key(w, "tag");
    jsonw_str(w, t->tag);
    jsonw_key(w, "total");
    jsonw_u64(w, n);
    jsonw_key(w, "mean_ms");
    jsonw_double(w, hist_mean(h) / 1e6, 9);
    jsonw_key(w, "max_ms");
    jsonw_double(w, ms(hist_max(h)), 9);
    jsonw_key(w, "pct");
    jsonw_arr_begin(w);
    for (int i = 0; n; i++) {
        double inv = pow(10.0, i / 20.0); /* 1 / (1 - q) */
        if (i > 0 && inv > (double)n) break;
        double p = 100.0 * (1.0 - 1.0 / inv);
        jsonw_arr_begin(w);
        jsonw_double(w, p, 9);
        jsonw_double(w, ms(hist_value_at_percentile(h, p)), 9);
        jsonw_arr_end(w);
    }
    if (n) {
        jsonw_arr_begin(w);
        jsonw_i64(w, 100);
        jsonw_double(w, ms(hist_max(h)), 9);
        jsonw_arr_end(w);
    }
    jsonw_arr_end(w);
    jsonw_key(w, "iv");
    jsonw_arr_begin(w);
    if (t->iv.len) jsonw_raw(w, t->iv.data, t->iv.len);
    jsonw_arr_end(w);
    jsonw_obj_end(w);
}

int rep_hlog_write(struct jsonw *w, const char *path, const char *doc, size_t len, char *err,
                   size_t errsz)
{
    struct hlog_reader r;
    hlog_reader_init(&r, doc, len);
    struct tagacc *tags = NULL;
    size_t ntags = 0, tcap = 0, nint = 0;
    struct hlog_entry e;
    int rc, ret = 0;
    while ((rc = hlog_reader_next(&r, &e)) == 1) {
        struct tagacc *t = tag_of(&tags, &ntags, &tcap, &e);
        if (t) hist_add(&t->all, &e.hist);
        if (!t || interval_row(&t->iv, &e)) rc = -ENOMEM;
        hist_fini(&e.hist);
        if (rc < 0) break;
        nint++;
    }
    if (rc < 0) {
        snprintf(err, errsz, "%s: line %d: not an HdrHistogram interval log: %s", path, r.line,
                 r.why ? r.why : lat_strerror(rc));
        ret = LAT_E_USAGE;
    } else if (!nint) {
        snprintf(err, errsz,
                 "%s: no interval in the HDR log (a `latscope bench --hdr-log` file was "
                 "expected)",
                 path);
        ret = LAT_E_USAGE;
    }
    if (!ret) {
        rep_page_begin(w, "hlog", path);
        jsonw_key(w, "intervals");
        jsonw_u64(w, nint);
        jsonw_key(w, "tags");
        jsonw_arr_begin(w);
        for (size_t k = 0; k < ntags; k++)
            write_tag(w, &tags[k]);
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    for (size_t k = 0; k < ntags; k++) {
        hist_fini(&tags[k].all);
        buf_fini(&tags[k].iv);
    }
    free(tags);
    return ret;
}
