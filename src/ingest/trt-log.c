/*
 * trt-log.c - trtexec's text log (stdout/stderr of a run): its options, the device, warnings
 * and the performance summary, into struct trt_eng (trt.h).
 *
 * Two summary layouts are read:
 *   - TensorRT >= 8.0: "=== Performance summary ===" then "Throughput: X qps", one line per
 *     metric "Latency: min = a ms, max = b ms, mean = c ms, median = d ms, percentile(90%) =
 *     e ms, ...", "Total Host Walltime: X s", "Total GPU Compute Time: X s";
 *   - TensorRT 7: a metric name alone on a line ("Host Latency", "Enqueue Time", "GPU
 *     Compute"), then "min: a ms (end to end b ms)", "max:", "mean:", "median:", "percentile:
 *     a ms at 99% (end to end b ms at 99%)", "throughput: X qps", "walltime: X s", "total
 *     compute time: X s".
 * and the per-layer table of --dumpProfile ("=== Profile (N iterations ) ===", a header, one row
 * per layer, a "Total" row) in its three layouts (TRT 7: Layer, Time (ms), Avg. Time (ms), Time %;
 * TRT 8.0-8.4: the same with Median Time (ms) before Time %; TRT >= 8.5: Time(ms), Avg.(ms),
 * Median(ms), Time(%), Layer), into the layers as --exportProfile fills them (N = the count).
 * Lines start with "[MM/DD/YYYY-HH:MM:SS] [I] " (or [W], [E], [V]); [W] and [E] lines are kept
 * (the first 20) as log.warning.N / log.error.N. Lines longer than 4 KiB are cut there.
 */
#include "core/err.h"
#include "ingest/trt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LOG_MAX_LINE 4096
#define LOG_MAX_KEEP 20

bool trt_log_sniff(const unsigned char *h, size_t n)
{
    static const char *const marks[] = {"&&&& RUNNING TensorRT.trtexec",
                                        "&&&& PASSED TensorRT",
                                        "&&&& FAILED TensorRT",
                                        "] [I] === Model Options ===",
                                        "] [I] === Performance summary ===",
                                        "] [I] === Inference Options ===",
                                        " iterations ) ==="};
    for (size_t i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
        if (memmem(h, n, marks[i], strlen(marks[i]))) return true;
    return false;
}

struct logp {
    struct trt_eng *e;
    int cur; /* TRT 7 layout: the metric whose lines follow, -1 */
    bool in_summary;
    size_t nerr;
    bool any;
    /* --dumpProfile tables: 1 after "=== Profile (N iterations ) ===" (its header next), 2 in
     * its rows; the header says the layout (name first or last, a median column or not) */
    int prof;
    bool name_first, prof_median;
    size_t ntables, nrows;
    double total_ms; /* the last "Total" row, -1 when none */
    /* how far the log got: trtexec's first and last lines ("&&&& RUNNING", "&&&& PASSED" /
     * FAILED), the summary's start and its last line (TRT >= 8 "Total GPU Compute Time", TRT 7
     * "total compute time") */
    bool running, ended, summary_begun, summary_done;
    bool summary_closed; /* another banner or the &&&& line came after the summary */
    uint64_t nlines;
    char total_txt[48];
};

/* Skips "[date] [X] " and "[TRT] "; *sev = 'I', 'W', 'E', 'V' or 0. */
static const char *strip(const char *s, char *sev)
{
    *sev = 0;
    if (*s == '[') {
        const char *c = strchr(s, ']');
        if (c && c[1] == ' ' && c[2] == '[' && c[3] && c[4] == ']') {
            *sev = c[3];
            s = c + 5;
            while (*s == ' ')
                s++;
        }
    }
    while (!strncmp(s, "[TRT] ", 6))
        s += 6;
    return s;
}

/* "NAME = V ms" value after the key at p; true when found. */
static bool stat_after(const char *s, const char *key, double *v)
{
    const char *p = strstr(s, key);
    if (!p) return false;
    p += strlen(key);
    while (*p == ' ' || *p == '=' || *p == ':')
        p++;
    char *end;
    double d = strtod(p, &end);
    if (end == p || d != d || d < 0 || d > 1e15) return false;
    *v = d;
    return true;
}

static int metric_of(const char *name)
{
    static const struct {
        const char *n;
        int m;
    } map[] = {{"Latency", 0},     {"Host Latency", 0},           {"Enqueue Time", 1},
               {"H2D Latency", 2}, {"GPU Compute Time", 3},       {"GPU Compute", 3},
               {"D2H Latency", 4}, {"End-to-End Host Latency", 5}}; /* the last: TRT >= 8.0 */
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
        if (!strcmp(name, map[i].n)) return map[i].m;
    return -1;
}

/* "Latency: min = 1.9 ms, max = ..., percentile(99%) = 2.0 ms" */
static void summary_line(struct logp *p, int m, const char *rest)
{
    struct trt_metric *x = &p->e->m[m];
    x->have_min = stat_after(rest, "min", &x->min);
    x->have_max = stat_after(rest, "max", &x->max);
    x->have_mean = stat_after(rest, "mean", &x->mean);
    x->have_median = stat_after(rest, "median", &x->median);
    x->npct = 0;
    for (const char *q = rest; (q = strstr(q, "percentile(")) && x->npct < TRT_MAXSTAT;) {
        q += 11;
        char *end;
        double at = strtod(q, &end);
        if (end == q || *end != '%') continue;
        double v;
        if (!stat_after(end, ")", &v)) continue;
        x->pct_at[x->npct] = at;
        x->pct[x->npct++] = v;
    }
    p->e->have_summary = true;
    p->any = true;
}

/* TRT 7: "min: 0.6 ms (end to end 1.0 ms)" under the metric named on the line before */
static void old_stat(struct logp *p, const char *s)
{
    struct trt_metric *x = &p->e->m[p->cur];
    struct trt_metric *e2e = &p->e->m[5];
    double v;
    const char *ee = strstr(s, "(end to end");
    if (!strncmp(s, "percentile:", 11)) {
        char *end;
        double d = strtod(s + 11, &end);
        const char *at = strstr(s, " at ");
        if (end != s + 11 && at && x->npct < TRT_MAXSTAT) {
            x->pct_at[x->npct] = strtod(at + 4, NULL);
            x->pct[x->npct++] = d;
            if (ee && p->cur == 0 && e2e->npct < TRT_MAXSTAT) {
                e2e->pct_at[e2e->npct] = x->pct_at[x->npct - 1];
                e2e->pct[e2e->npct++] = strtod(ee + 11, NULL);
            }
        }
    } else {
        static const char *const st[4] = {"min:", "max:", "mean:", "median:"};
        for (int k = 0; k < 4; k++) {
            size_t kl = strlen(st[k]);
            if (strncmp(s, st[k], kl) || !stat_after(s, st[k], &v)) continue;
            bool *hv[4] = {&x->have_min, &x->have_max, &x->have_mean, &x->have_median};
            double *dv[4] = {&x->min, &x->max, &x->mean, &x->median};
            *hv[k] = true;
            *dv[k] = v;
            double w;
            if (ee && p->cur == 0 && stat_after(ee, "(end to end", &w)) {
                bool *he[4] = {&e2e->have_min, &e2e->have_max, &e2e->have_mean, &e2e->have_median};
                double *de[4] = {&e2e->min, &e2e->max, &e2e->mean, &e2e->median};
                *he[k] = true;
                *de[k] = w;
            }
        }
    }
    p->e->have_summary = true;
    p->any = true;
}

/* An "Option: value" line of the === X Options === / Device Information banners. */
static int option_line(struct logp *p, const char *s)
{
    static const struct {
        const char *line, *key;
    } keep[] = {{"Streams", "option.Streams"},
                {"CUDA Graph", "option.CUDA Graph"},
                {"Data transfers", "option.Data transfers"},
                {"Spin-wait", "option.Spin-wait"},
                {"Separate profiling", "option.Separate profiling"},
                {"Duration", "option.Duration"},
                {"Iterations", "option.Iterations"},
                {"Batch", "option.Batch"},
                {"Precision", "build.Precision"},
                {"Model", "model.Model"},
                {"Format", "model.Format"},
                {"Selected Device", "device.Selected Device"},
                {"Compute Capability", "device.Compute Capability"},
                {"SMs", "device.SMs"},
                {"Percentile", "option.Percentile"},
                {"Percentiles", "option.Percentiles"},
                {"Profiling verbosity", "build.Profiling verbosity"}};
    const char *c = strstr(s, ": ");
    if (!c) return 0;
    size_t kl = (size_t)(c - s);
    for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
        if (strlen(keep[i].line) == kl && !strncmp(s, keep[i].line, kl)) {
            const char *v = c + 2;
            size_t vl = strlen(v);
            while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
                vl--;
            if (!vl) return 0;
            p->any = true;
            return trt_kv_add(p->e, keep[i].key, v, vl);
        }
    return 0;
}

/* One number token [s, s + n) of a profile row: finite, >= 0, no trailing junk. */
static bool prof_num(const char *s, size_t n, double *v)
{
    char tmp[48];
    if (!n || n >= sizeof(tmp)) return false;
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    double d = strtod(tmp, &end);
    if (end != tmp + n || d != d || d < 0 || d > 1e12) return false;
    *v = d;
    return true;
}

/* The header of a --dumpProfile table: TRT 7 "Layer Time (ms) Avg. Time (ms) Time %", TRT 8.0-8.4
 * "Layer Time (ms) Avg. Time (ms) Median Time (ms) Time %", TRT >= 8.5 "Time(ms) Avg.(ms)
 * Median(ms) Time(%) Layer". */
static bool prof_header(struct logp *p, const char *b)
{
    bool time = strstr(b, "Time (ms)") || strstr(b, "Time(ms)");
    const char *layer = strstr(b, "Layer");
    if (!time || !layer || (!strstr(b, "Avg") && !strstr(b, "avg"))) return false;
    p->name_first = layer == b;
    p->prof_median = strstr(b, "Median") != NULL;
    return true;
}

/* One row: the numbers time, average, [median], percentage, and the layer name before them
 * (name first) or after them. 1 = a row, 0 = not a row (the table ended), < 0 = -ENOMEM. */
static int prof_row(struct logp *p, const char *b)
{
    int nnum = p->prof_median ? 4 : 3;
    double v[4];
    const char *tok[4];
    size_t tl[4];
    const char *name, *nend;
    size_t bl = strlen(b);
    if (p->name_first) { /* numbers from the right */
        const char *e = b + bl;
        for (int k = nnum - 1; k >= 0; k--) {
            while (e > b && e[-1] == ' ')
                e--;
            const char *s = e;
            while (s > b && s[-1] != ' ')
                s--;
            if (s == e || !prof_num(s, (size_t)(e - s), &v[k])) return 0;
            tok[k] = s;
            tl[k] = (size_t)(e - s);
            e = s;
        }
        name = b;
        nend = e;
    } else { /* numbers from the left */
        const char *s = b;
        for (int k = 0; k < nnum; k++) {
            while (*s == ' ')
                s++;
            const char *e = s;
            while (*e && *e != ' ')
                e++;
            if (s == e || !prof_num(s, (size_t)(e - s), &v[k])) return 0;
            tok[k] = s;
            tl[k] = (size_t)(e - s);
            s = e;
        }
        name = s;
        nend = b + bl;
    }
    while (name < nend && *name == ' ')
        name++;
    while (nend > name && nend[-1] == ' ')
        nend--;
    if (name == nend) return 0;
    size_t nl = (size_t)(nend - name);
    if (nl == 5 && !memcmp(name, "Total", 5)) {
        p->total_ms = v[0];
        snprintf(p->total_txt, sizeof(p->total_txt), "%.*s", (int)tl[0], tok[0]);
        p->prof = 0; /* the table's last row */
        return 1;
    }
    char *nm = strndup(name, nl);
    if (!nm) return -ENOMEM;
    bool created;
    struct trt_layer *l = trt_layer_get(p->e, nm, &created);
    if (l && l->has_profile) { /* the same name again (a second table, a loop): its own row */
        size_t al = nl + 32;
        char *alt = malloc(al);
        if (!alt) {
            free(nm);
            return -ENOMEM;
        }
        snprintf(alt, al, "%s #%zu", nm, p->nrows);
        l = trt_layer_get(p->e, alt, &created);
        free(alt);
    }
    free(nm);
    if (!l) return -ENOMEM;
    char **txt[4] = {&l->time_txt, &l->avg_txt, p->prof_median ? &l->median_txt : &l->pct_txt,
                     &l->pct_txt};
    double *dv[4] = {&l->time_ms, &l->avg_ms, p->prof_median ? &l->median_ms : &l->pct, &l->pct};
    for (int k = 0; k < nnum; k++) {
        free(*txt[k]);
        if (!(*txt[k] = strndup(tok[k], tl[k]))) return -ENOMEM;
        *dv[k] = v[k];
    }
    /* TRT 7 printed the mean with 2 decimals ("0.00"): when the count is known and time / count
     * rounds to the printed mean, the mean is time / count */
    const char *dot = memchr(tok[1], '.', tl[1]);
    size_t dec = dot ? tl[1] - (size_t)(dot + 1 - tok[1]) : 0;
    if (dec < 4 && p->e->profile_count > 0) {
        double m = l->time_ms / (double)p->e->profile_count, half = 0.5;
        for (size_t k = 0; k < dec; k++)
            half /= 10;
        if (fabs(m - l->avg_ms) <= half * (1 + 1e-9)) {
            char nb[48];
            snprintf(nb, sizeof(nb), "%.9g", m);
            free(l->avg_txt);
            if (!(l->avg_txt = strdup(nb))) return -ENOMEM;
            l->avg_ms = m;
        }
    }
    l->has_median = p->prof_median;
    l->has_profile = true;
    p->nrows++;
    p->e->have_profile = true;
    p->any = true;
    return 1;
}

/* A line while a --dumpProfile table is open (p->prof != 0); true when it was the table's. */
static int prof_line(struct logp *p, const char *b, bool *used)
{
    *used = false;
    if (p->prof == 1) {
        if (!*b) return 0; /* a blank [I] line before the header */
        if (prof_header(p, b)) {
            p->prof = 2;
            *used = true;
            return 0;
        }
        p->prof = 0; /* "=== Profile" without a table */
        return 0;
    }
    int r = prof_row(p, b);
    if (r < 0) return r;
    if (r == 0) p->prof = 0; /* the table ended without its Total row (a cut log) */
    *used = r == 1;
    return 0;
}

static int line(struct logp *p, char *s)
{
    size_t l = strlen(s);
    while (l && (s[l - 1] == '\r' || s[l - 1] == ' '))
        s[--l] = 0;
    char sev;
    const char *b = strip(s, &sev);
    int rc = 0;
    p->nlines++;
    if (sev == 'W' || sev == 'E') {
        size_t *n = sev == 'W' ? &p->e->nwarn : &p->nerr;
        if (*n < LOG_MAX_KEEP) {
            char key[48];
            snprintf(key, sizeof(key), "log.%s.%zu", sev == 'W' ? "warning" : "error", *n);
            rc = trt_kv_add(p->e, key, b, strlen(b));
        }
        (*n)++;
        p->any = true;
        return rc;
    }
    if (p->prof) {
        bool used;
        const char *pb = b;
        while (*pb == ' ')
            pb++;
        if ((rc = prof_line(p, pb, &used)) || used) return rc;
    }
    if (p->summary_begun && (!strncmp(b, "===", 3) || !strncmp(b, "&&&& ", 5)))
        p->summary_closed = true;
    if (!strncmp(b, "=== Profile (", 13)) { /* --dumpProfile: "=== Profile (N iterations ) ===" */
        char *end;
        long long it = strtoll(b + 13, &end, 10);
        if (end != b + 13 && it >= 0 && !strncmp(end, " iterations", 11)) p->e->profile_count = it;
        p->prof = 1;
        p->ntables++;
        p->total_ms = -1;
        p->in_summary = false;
        p->cur = -1;
        return 0;
    }
    if (!strncmp(b, "&&&& ", 5)) {
        if (!strncmp(b + 5, "RUNNING", 7))
            p->running = true;
        else
            p->ended = true; /* PASSED, FAILED, WAIVED */
        const char *h = strstr(b, " # ");
        if (h) rc = trt_kv_add(p->e, "command", h + 3, strlen(h + 3));
        if (!rc) rc = trt_kv_add(p->e, "status", b + 5, strcspn(b + 5, " "));
        p->any = true;
        return rc;
    }
    if (!strncmp(b, "===", 3)) {
        p->in_summary = strstr(b, "Performance summary") != NULL;
        if (p->in_summary) p->summary_begun = true, p->summary_closed = false;
        p->cur = -1;
        return 0;
    }
    /* TRT >= 8 summary lines */
    const char *c = strchr(b, ':');
    if (c) {
        char key[64];
        size_t kl = (size_t)(c - b);
        if (kl < sizeof(key)) {
            memcpy(key, b, kl);
            key[kl] = 0;
            int m = metric_of(key);
            if (m >= 0 && strstr(c, "min =")) {
                summary_line(p, m, c + 1);
                return 0;
            }
            double v;
            if (!strcmp(key, "Throughput") && stat_after(c, ":", &v)) {
                p->e->qps = v, p->e->have_qps = true, p->e->have_summary = p->any = true;
                return 0;
            }
            if (!strcmp(key, "Total Host Walltime") && stat_after(c, ":", &v)) {
                p->e->wall_s = v, p->e->have_wall = true;
                return 0;
            }
            if (!strcmp(key, "Total GPU Compute Time") && stat_after(c, ":", &v)) {
                p->e->gpu_total_s = v, p->e->have_gpu_total = true;
                p->summary_done = true;
                return 0;
            }
        }
    }
    /* TRT 7 layout */
    int m = metric_of(b);
    if (m >= 0) {
        p->summary_begun = true;
        p->cur = m;
        memset(&p->e->m[m], 0, sizeof(p->e->m[m]));
        return 0;
    }
    if (p->cur >= 0) {
        double v;
        if (!strncmp(b, "min:", 4) || !strncmp(b, "max:", 4) || !strncmp(b, "mean:", 5) ||
            !strncmp(b, "median:", 7) || !strncmp(b, "percentile:", 11)) {
            old_stat(p, b);
            return 0;
        }
        if (!strncmp(b, "throughput:", 11) && stat_after(b, "throughput:", &v)) {
            p->e->qps = v, p->e->have_qps = true;
            return 0;
        }
        if (!strncmp(b, "walltime:", 9) && stat_after(b, "walltime:", &v)) {
            p->e->wall_s = v, p->e->have_wall = true;
            return 0;
        }
        if (!strncmp(b, "total compute time:", 19) && stat_after(b, "time:", &v)) {
            p->e->gpu_total_s = v, p->e->have_gpu_total = true;
            p->summary_done = true;
            return 0;
        }
    }
    return option_line(p, b);
}

int trt_read_log(struct ingest_src *src, const char *name, struct trt_eng *e, char *err,
                 size_t errsz)
{
    struct logp p = {.e = e, .cur = -1, .total_ms = -1};
    char *buf = malloc(LOG_MAX_LINE + 1);
    if (!buf) {
        src_close(src);
        snprintf(err, errsz, "%s: %s", name, lat_strerror(-ENOMEM));
        return -ENOMEM;
    }
    size_t bl = 0;
    bool skip = false; /* the rest of an over-long line */
    int rc = 0;
    uint64_t total = 0;
    char ebuf[200] = "";
    for (;;) {
        const char *d;
        size_t n;
        int r = src_next(src, &d, &n, ebuf, sizeof(ebuf));
        if (r < 0) {
            rc = r;
            snprintf(err, errsz, "%s: %s", name, ebuf[0] ? ebuf : lat_strerror(r));
            goto out;
        }
        if (r == 0) break;
        total += n;
        for (size_t i = 0; i < n && !rc; i++) {
            char ch = d[i];
            if (ch == '\n') {
                buf[bl] = 0;
                if (!skip || bl) rc = line(&p, buf);
                bl = 0;
                skip = false;
                continue;
            }
            if (ch == 0) ch = ' ';
            if (bl < LOG_MAX_LINE)
                buf[bl++] = ch;
            else if (!skip) { /* cut: the line is handled at its first 4 KiB */
                buf[bl] = 0;
                rc = line(&p, buf);
                bl = 0;
                skip = true;
            }
        }
        if (rc) break;
    }
    if (!rc && bl) {
        buf[bl] = 0;
        rc = line(&p, buf);
    }
    if (rc) {
        snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
        goto out;
    }
    if (!total) {
        rc = LAT_E_TRUNCATED;
        snprintf(err, errsz,
                 "%s: empty trtexec log (0 bytes); save trtexec's output with "
                 "`trtexec ... 2>&1 | tee FILE`",
                 name);
        goto out;
    }
    if (!p.any) {
        rc = LAT_E_NOT_TRACE;
        snprintf(err, errsz,
                 "%s: a trtexec log without options, warnings, a performance summary or a "
                 "--dumpProfile table; pass the "
                 "complete output of `trtexec ... 2>&1 | tee FILE`",
                 name);
        goto out;
    }
    /* a log that stops early: nothing to show is an error, a part is kept and said */
    const char *stop = p.prof ? "inside its --dumpProfile table (no \"Total\" row)"
                       : p.summary_begun && !p.summary_done && !p.summary_closed
                           ? "inside its performance summary (before \"Total GPU Compute Time\")"
                       : p.running && !p.ended ? "before trtexec's last line (\"&&&& PASSED\")"
                                               : NULL;
    if (stop && p.running && !p.ended && !e->have_summary && !p.nrows) {
        rc = LAT_E_TRUNCATED;
        snprintf(err, errsz,
                 "%s: a trtexec log that stops (line %llu) before its performance summary, "
                 "without the \"&&&& PASSED\" line: cut short, or trtexec did not finish; save "
                 "the complete output with `trtexec ... 2>&1 | tee FILE`",
                 name, (unsigned long long)p.nlines);
        goto out;
    }
    if (stop)
        snprintf(e->cut, sizeof(e->cut),
                 "the trtexec log stops (line %llu) %s: what it holds is shown, the rest is "
                 "missing",
                 (unsigned long long)p.nlines, stop);
    if (e->have_summary) e->summary_source = "trtexec log (its performance summary)";
    trt_note_input(e, "log");
    if (p.nrows) {
        trt_note_input(e, "profile");
        static const char src_txt[] = "trtexec --dumpProfile table in the log";
        rc = trt_kv_add(e, "profile.source", src_txt, sizeof(src_txt) - 1);
        if (!rc && p.total_ms >= 0)
            rc = trt_kv_add(e, "profile.total_ms", p.total_txt, strlen(p.total_txt));
        if (rc) {
            snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
            goto out;
        }
    }
    if (p.nerr) {
        char b[32];
        int k = snprintf(b, sizeof(b), "%zu", p.nerr);
        rc = trt_kv_add(e, "log.errors", b, (size_t)k);
    }
out:
    free(buf);
    src_close(src);
    return rc;
}

/* ---- sniffing (ingest.c's format table) ---- */

/* trtexec's text log ("&&&& RUNNING TensorRT.trtexec", "[I] === Model Options ===", ...) */
bool ingest_sniff_trtexec_log(const unsigned char *h, size_t n, const char *path)
{
    (void)path;
    return ingest_looks_text(h, n > 4096 ? 4096 : n) && trt_log_sniff(h, n);
}
