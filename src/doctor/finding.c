/*
 * finding.c - the finding model: allocation of reports and findings, evidence builders,
 * severity from the estimated saving, and ranking.
 *
 * Severity follows the saving as a share of the mean step (>= 20 % high, >= 5 % medium, else
 * low); findings whose saving cannot be estimated from a trace are "info". Ranking sorts by the
 * saving share (comparable across traces), then the absolute saving, then id for stability.
 */
#include "doctor/finding.h"
#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct doc_threshold_desc doc_th_desc[] = {
#define DOC_TH_KEY_NUM(f) #f
#define DOC_TH_KEY_US(f)  #f "_us"
#define DOC_TH_KEY_INT(f) #f
#define DOC_TH_DESC(f, k, d, lo, hi, h)                                                            \
    {DOC_TH_KEY_##k(f), DOC_TH_##k, offsetof(struct doc_thresholds, f), d, lo, hi, h},
    DOC_THRESHOLDS(DOC_TH_DESC)
#undef DOC_TH_DESC
};

const struct doc_threshold_desc *doctor_thresholds(size_t *n)
{
    *n = sizeof(doc_th_desc) / sizeof(doc_th_desc[0]);
    return doc_th_desc;
}

double doctor_threshold_value(const struct doc_thresholds *th, const struct doc_threshold_desc *d)
{
    const char *p = (const char *)th + d->offset;
    switch (d->kind) {
    case DOC_TH_NUM:
        return *(const double *)(const void *)p;
    case DOC_TH_US:
        return (double)*(const lat_ns *)(const void *)p / 1000.0;
    case DOC_TH_INT:
        return (double)*(const int64_t *)(const void *)p;
    }
    return 0;
}

static void th_store(struct doc_thresholds *th, const struct doc_threshold_desc *d, double v)
{
    char *p = (char *)th + d->offset;
    switch (d->kind) {
    case DOC_TH_NUM:
        *(double *)(void *)p = v;
        break;
    case DOC_TH_US:
        *(lat_ns *)(void *)p = (lat_ns)llround(v * 1000.0);
        break;
    case DOC_TH_INT:
        *(int64_t *)(void *)p = (int64_t)v;
        break;
    }
}

int doctor_threshold_set(struct doc_thresholds *th, const char *kv, char *err, size_t errlen)
{
    const char *eq = kv ? strchr(kv, '=') : NULL;
    size_t n;
    const struct doc_threshold_desc *ds = doctor_thresholds(&n);
    if (!eq) {
        snprintf(err, errlen, "'%s' is not KEY=VALUE", kv ? kv : "");
        return LAT_E_USAGE;
    }
    const struct doc_threshold_desc *d = NULL;
    for (size_t i = 0; i < n && !d; i++)
        if (strlen(ds[i].key) == (size_t)(eq - kv) && !strncmp(ds[i].key, kv, (size_t)(eq - kv)))
            d = &ds[i];
    if (!d) {
        snprintf(err, errlen, "unknown threshold '%.*s'", (int)(eq - kv), kv);
        return LAT_E_USAGE;
    }
    const char *s = eq + 1;
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || end == s || *end || errno || !isfinite(v)) {
        snprintf(err, errlen, "%s: '%s' is not a number", d->key, s);
        return LAT_E_USAGE;
    }
    if (d->kind == DOC_TH_INT && v != floor(v)) {
        snprintf(err, errlen, "%s: '%s' is not an integer", d->key, s);
        return LAT_E_USAGE;
    }
    if (v < d->min || v > d->max) {
        snprintf(err, errlen, "%s: %s is outside [%g, %g]", d->key, s, d->min, d->max);
        return LAT_E_USAGE;
    }
    th_store(th, d, v);
    return 0;
}

void doctor_opts_default(struct doc_opts *o)
{
    memset(o, 0, sizeof(*o));
    size_t n;
    const struct doc_threshold_desc *ds = doctor_thresholds(&n);
    for (size_t i = 0; i < n; i++)
        th_store(&o->th, &ds[i], ds[i].def);
    o->max_examples = 5;
}

int doctor_report_new(struct doc_report **out)
{
    *out = calloc(1, sizeof(**out));
    return *out ? 0 : -ENOMEM;
}

static void doc_finding_fini(struct doc_finding *f)
{
    free(f->title);
    free(f->saving_method);
    for (size_t i = 0; i < f->nkv; i++) {
        free(f->kv[i].key);
        free(f->kv[i].str);
        free(f->kv[i].table);
    }
    free(f->kv);
    for (size_t i = 0; i < f->nex; i++) {
        free((void *)(uintptr_t)f->ex[i].name);
        free((void *)(uintptr_t)f->ex[i].note);
    }
    free(f->ex);
    free(f->recommendation);
    free(f->next_step);
    free(f->cur_table);
}

void doctor_report_free(struct doc_report *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->n; i++)
        doc_finding_fini(&r->f[i]);
    free(r->f);
    for (size_t i = 0; i < r->ntraces; i++) {
        free(r->traces[i].path);
        free(r->traces[i].what);
    }
    free(r->traces);
    for (size_t i = 0; i < r->nranks; i++) {
        free(r->ranks[i].num);
        free(r->ranks[i].dur);
        free(r->ranks[i].comm);
        free(r->ranks[i].trace_arg);
    }
    free(r->ranks);
    free(r);
}

static char *doc_strdup(struct doc_report *r, const char *s)
{
    if (!s) return NULL;
    char *d = strdup(s);
    if (!d) r->err = -ENOMEM;
    return d;
}

struct doc_finding *doc_finding_add(struct doc_report *r, const char *id, int trace)
{
    int rc = LAT_GROW(r->f, r->cap, r->n, 1, 16);
    if (rc) {
        r->err = rc;
        return NULL;
    }
    struct doc_finding *f = &r->f[r->n++];
    memset(f, 0, sizeof(*f));
    f->id = id;
    f->trace = trace;
    f->severity = DOC_SEV_INFO;
    return f;
}

void doc_set(struct doc_report *r, char **dst, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0) {
        s = NULL;
        r->err = -ENOMEM;
    }
    va_end(ap);
    free(*dst);
    *dst = s;
}

static struct doc_kv *doc_kv_new(struct doc_report *r, struct doc_finding *f, const char *key)
{
    if (!f) return NULL;
    int rc = LAT_GROW(f->kv, f->kv_cap, f->nkv, 1, 16);
    if (rc) {
        r->err = rc;
        return NULL;
    }
    struct doc_kv *kv = &f->kv[f->nkv];
    memset(kv, 0, sizeof(*kv));
    kv->key = doc_strdup(r, key);
    if (!kv->key) return NULL;
    if (f->cur_group) {
        kv->group = f->cur_group;
        kv->table = doc_strdup(r, f->cur_table);
        if (!kv->table) {
            free(kv->key);
            return NULL;
        }
    }
    f->nkv++;
    return kv;
}

void doc_kv_num(struct doc_report *r, struct doc_finding *f, const char *key, double v)
{
    struct doc_kv *kv = doc_kv_new(r, f, key);
    if (!kv) return;
    kv->type = DOC_KV_NUM;
    kv->num = v;
}

void doc_kv_int(struct doc_report *r, struct doc_finding *f, const char *key, int64_t v)
{
    struct doc_kv *kv = doc_kv_new(r, f, key);
    if (!kv) return;
    kv->type = DOC_KV_INT;
    kv->i = v;
}

void doc_kv_us(struct doc_report *r, struct doc_finding *f, const char *key, lat_ns ns)
{
    struct doc_kv *kv = doc_kv_new(r, f, key);
    if (!kv) return;
    kv->type = DOC_KV_US;
    kv->i = ns;
}

void doc_kv_bool(struct doc_report *r, struct doc_finding *f, const char *key, bool v)
{
    struct doc_kv *kv = doc_kv_new(r, f, key);
    if (!kv) return;
    kv->type = DOC_KV_BOOL;
    kv->i = v;
}

void doc_kv_str(struct doc_report *r, struct doc_finding *f, const char *key, const char *v)
{
    struct doc_kv *kv = doc_kv_new(r, f, key);
    if (!kv) return;
    kv->type = DOC_KV_STR;
    kv->str = doc_strdup(r, v ? v : "");
}

void doc_row_begin(struct doc_report *r, struct doc_finding *f, const char *table)
{
    if (!f) return;
    /* A new table restarts numbering so each table's rows are 1..n. */
    if (!f->cur_table || strcmp(f->cur_table, table) != 0) {
        int last = 0;
        for (size_t i = 0; i < f->nkv; i++)
            if (f->kv[i].table && strcmp(f->kv[i].table, table) == 0) last = f->kv[i].group;
        free(f->cur_table);
        f->cur_table = doc_strdup(r, table);
        f->cur_group = last;
    }
    f->cur_group++;
}

void doc_row_end(struct doc_finding *f)
{
    if (!f) return;
    f->cur_group = 0;
    free(f->cur_table);
    f->cur_table = NULL;
}

void doc_example_add(struct doc_report *r, struct doc_finding *f, const struct doc_example *e)
{
    if (!f) return;
    int rc = LAT_GROW(f->ex, f->ex_cap, f->nex, 1, 8);
    if (rc) {
        r->err = rc;
        return;
    }
    struct doc_example *x = &f->ex[f->nex];
    *x = *e;
    x->name = doc_strdup(r, e->name ? e->name : "");
    x->note = doc_strdup(r, e->note);
    if (!x->name) return;
    f->nex++;
}

const char *doctor_bound_name(enum doc_bound b)
{
    return b == DOC_BOUND_LOWER ? "lower" : b == DOC_BOUND_ESTIMATE ? "estimate" : "upper";
}

void doc_saving(struct doc_finding *f, lat_ns per_step, lat_ns mean_step)
{
    if (!f) return;
    if (per_step < 0) per_step = 0;
    f->saving_us_per_step = (double)per_step / 1000.0;
    f->saving_pct = mean_step > 0 ? 100.0 * (double)per_step / (double)mean_step : 0.0;
    if (f->saving_pct > 100.0) f->saving_pct = 100.0;
    if (f->saving_pct >= 20.0)
        f->severity = DOC_SEV_HIGH;
    else if (f->saving_pct >= 5.0)
        f->severity = DOC_SEV_MEDIUM;
    else if (per_step > 0)
        f->severity = DOC_SEV_LOW;
    else
        f->severity = DOC_SEV_INFO;
}

static int doc_rank_cmp(const void *x, const void *y)
{
    const struct doc_finding *a = x, *b = y;
    bool ia = a->severity == DOC_SEV_INFO, ib = b->severity == DOC_SEV_INFO;
    if (ia != ib) return ia ? 1 : -1;
    if (a->saving_pct != b->saving_pct) return a->saving_pct > b->saving_pct ? -1 : 1;
    if (a->saving_us_per_step != b->saving_us_per_step)
        return a->saving_us_per_step > b->saving_us_per_step ? -1 : 1;
    if (a->trace != b->trace) return a->trace < b->trace ? -1 : 1;
    return strcmp(a->id, b->id);
}

void doctor_rank(struct doc_report *r)
{
    if (r->n > 1) qsort(r->f, r->n, sizeof(*r->f), doc_rank_cmp);
}

bool doctor_any_unjudged(const struct doc_report *r)
{
    for (size_t i = 0; i < r->ntraces; i++)
        if (!r->traces[i].judged) return true;
    return false;
}

int doctor_max_severity(const struct doc_report *r)
{
    int m = -1;
    for (size_t i = 0; i < r->n; i++)
        if ((int)r->f[i].severity > m) m = (int)r->f[i].severity;
    return m;
}

const char *doctor_severity_name(enum doc_severity s)
{
    switch (s) {
    case DOC_SEV_INFO:
        return "info";
    case DOC_SEV_LOW:
        return "low";
    case DOC_SEV_MEDIUM:
        return "medium";
    case DOC_SEV_HIGH:
        return "high";
    case DOC_SEV_NEVER:
        return "never";
    }
    return "?";
}

int doctor_severity_parse(const char *s, enum doc_severity *out)
{
    for (int i = DOC_SEV_INFO; i <= DOC_SEV_NEVER; i++)
        if (s && strcmp(s, doctor_severity_name((enum doc_severity)i)) == 0) {
            *out = (enum doc_severity)i;
            return 0;
        }
    return LAT_E_USAGE;
}
