/*
 * records.c - a `latscope bench --records` / `--records-detail` JSONL file as a report page
 * (records.h): completions, errors and output tokens per second of completion, per point.
 */
#include "report/records.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "report/page.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rbin {
    int64_t sec;
    uint64_t ok, err;
    int64_t tokens;
};
struct rpoint {
    int64_t point;
    struct rbin *bins; /* by sec, dense from 0 */
    size_t nbins, bins_cap;
};

int rep_records_write(struct jsonw *w, const char *path, const char *doc, size_t len, char *err,
                      size_t errsz)
{
    struct lat_buf b = {.data = (char *)(uintptr_t)doc, .len = len};
    struct rpoint *pts = NULL;
    size_t npts = 0, pts_cap = 0, line = 0;
    uint64_t nreq = 0, nerr = 0, nintr = 0;
    struct {
        char name[48];
        uint64_t n;
    } cls[32];
    size_t ncls = 0;
    bool llm = false;
    int ret = 0;
    struct lat_buf es = LAT_BUF_INIT;
    /* pass 0: each point's first intended send, the origin of its seconds (records of a point
     * whose requests all failed carry absolute times) */
    struct {
        int64_t point, t0;
    } *org = NULL;
    size_t norg = 0, org_cap = 0;
    for (int pass = 0; pass < 2 && !ret; pass++, line = 0)
        for (size_t off = 0; off < b.len && !ret;) {
            const char *l = b.data + off, *nl = memchr(l, '\n', b.len - off);
            size_t n = nl ? (size_t)(nl - l) : b.len - off;
            off += n + 1;
            line++;
            while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
                n--;
            if (!n) continue;
            int64_t point = 0, tsched = 0, lat = -1, tok = -1;
            double e2e = NAN;
            if (json_get_i64(l, n, "point", &point) || json_get_i64(l, n, "t_sched_ns", &tsched) ||
                point < 0 || point > 1000000 || tsched < 0) {
                snprintf(err, errsz,
                         "%s: line %zu: not a `latscope bench --records` line (wants \"point\" and "
                         "\"t_sched_ns\")",
                         path, line);
                ret = LAT_E_USAGE;
                break;
            }
            size_t o = 0;
            while (o < norg && org[o].point != point)
                o++;
            if (pass == 0) {
                if (o == norg) {
                    if ((ret = LAT_GROW(org, org_cap, norg, 1, 16))) break;
                    org[norg++].point = point, org[o].t0 = tsched;
                } else if (tsched < org[o].t0) {
                    org[o].t0 = tsched;
                }
                continue;
            }
            tsched -= org[o].t0;
            if (tsched > (int64_t)1 << 60)
                tsched = (int64_t)1 << 60; /* rejected below, no overflow */
            if (json_get_i64(l, n, "output_tokens", &tok) == 0) llm = true;
            lat_ns end = tsched;
            if (json_get_i64(l, n, "latency_ns", &lat) == 0 && lat >= 0 && lat < (int64_t)1 << 60)
                end = tsched + lat;
            else if (json_get_double(l, n, "e2e_ms", &e2e) == 0 && e2e >= 0 && e2e < 1e12)
                end = tsched + (lat_ns)(e2e * 1e6);
            buf_reset(&es);
            bool is_err = json_get_str(l, n, "error", &es) == 0 && es.len;
            if (is_err && !strcmp(es.data, "interrupted")) {
                nintr++;
                continue;
            }
            int64_t sec = end / 1000000000;
            if (sec < 0 || sec > 30 * 86400) {
                snprintf(err, errsz,
                         "%s: line %zu: a request ends %lld s after the start: not a bench record",
                         path, line, (long long)sec);
                ret = LAT_E_USAGE;
                break;
            }
            size_t k = 0;
            while (k < npts && pts[k].point != point)
                k++;
            if (k == npts) {
                if ((ret = LAT_GROW(pts, pts_cap, npts, 1, 16))) break;
                pts[npts++] = (struct rpoint){.point = point};
            }
            struct rpoint *pt = &pts[k];
            if ((size_t)sec >= pt->nbins) {
                if ((ret = LAT_GROW(pt->bins, pt->bins_cap, pt->nbins, (size_t)sec + 1 - pt->nbins,
                                    64)))
                    break;
                for (size_t i = pt->nbins; i <= (size_t)sec; i++)
                    pt->bins[i] = (struct rbin){.sec = (int64_t)i};
                pt->nbins = (size_t)sec + 1;
            }
            struct rbin *bn = &pt->bins[sec];
            nreq++;
            if (is_err) {
                bn->err++;
                nerr++;
                size_t q = 0;
                while (q < ncls && strcmp(cls[q].name, es.data))
                    q++;
                if (q == ncls && ncls < 32) {
                    snprintf(cls[q].name, sizeof(cls[q].name), "%s", es.data);
                    cls[q].n = 0;
                    ncls++;
                }
                if (q < ncls) cls[q].n++;
            } else {
                bn->ok++;
                if (tok > 0) bn->tokens += tok;
            }
        }
    if (!ret && !nreq) {
        snprintf(err, errsz,
                 "%s: no request in the records (a `latscope bench --records` file was expected)",
                 path);
        ret = LAT_E_USAGE;
    }
    if (!ret) {
        rep_page_begin(w, "records", path);
        jsonw_key(w, "llm");
        jsonw_bool(w, llm);
        jsonw_key(w, "requests");
        jsonw_u64(w, nreq);
        jsonw_key(w, "errors");
        jsonw_u64(w, nerr);
        jsonw_key(w, "interrupted");
        jsonw_u64(w, nintr);
        jsonw_key(w, "error_classes");
        jsonw_obj_begin(w);
        for (size_t q = 0; q < ncls; q++) {
            jsonw_key(w, cls[q].name);
            jsonw_u64(w, cls[q].n);
        }
        jsonw_obj_end(w);
        /* per point, per second of completion: [sec, ok, errors, output tokens (LLM) or null] */
        jsonw_key(w, "points");
        jsonw_arr_begin(w);
        for (size_t k = 0; k < npts; k++) {
            jsonw_obj_begin(w);
            jsonw_key(w, "point");
            jsonw_i64(w, pts[k].point);
            jsonw_key(w, "bins");
            jsonw_arr_begin(w);
            for (size_t i = 0; i < pts[k].nbins; i++) {
                const struct rbin *bn = &pts[k].bins[i];
                jsonw_arr_begin(w);
                jsonw_i64(w, bn->sec);
                jsonw_u64(w, bn->ok);
                jsonw_u64(w, bn->err);
                if (llm)
                    jsonw_i64(w, bn->tokens);
                else
                    jsonw_null(w);
                jsonw_arr_end(w);
            }
            jsonw_arr_end(w);
            jsonw_obj_end(w);
        }
        jsonw_arr_end(w);
        jsonw_obj_end(w);
    }
    for (size_t k = 0; k < npts; k++)
        free(pts[k].bins);
    free(pts);
    free(org);
    buf_fini(&es);
    return ret;
}
