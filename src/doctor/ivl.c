/*
 * ivl.c - interval arithmetic for the doctor: push, sort-and-merge, measure, intersect,
 * subtract, gaps. Sets are arrays of [a, b) in int64 ns; everything is linear after one sort,
 * and doc_ivl_measure_in() binary-searches so per-step queries on a whole-trace set stay cheap.
 */
#include "doctor/ivl.h"

#include <errno.h>
#include <stdlib.h>

int doc_ivl_push(struct doc_ivl_set *s, lat_ns a, lat_ns b)
{
    if (b <= a) return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        struct doc_ivl *v = realloc(s->v, cap * sizeof(*v));
        if (!v) return -ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = (struct doc_ivl){a, b};
    return 0;
}

static int doc_ivl_cmp(const void *x, const void *y)
{
    const struct doc_ivl *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return (p->b > q->b) - (p->b < q->b);
}

void doc_ivl_merge(struct doc_ivl_set *s)
{
    if (s->n < 2) return;
    qsort(s->v, s->n, sizeof(*s->v), doc_ivl_cmp);
    size_t k = 0;
    for (size_t i = 1; i < s->n; i++) {
        if (s->v[i].a <= s->v[k].b) {
            if (s->v[i].b > s->v[k].b) s->v[k].b = s->v[i].b;
        } else {
            s->v[++k] = s->v[i];
        }
    }
    s->n = k + 1;
}

lat_ns doc_ivl_measure(const struct doc_ivl_set *s)
{
    lat_ns m = 0;
    for (size_t i = 0; i < s->n; i++)
        m += s->v[i].b - s->v[i].a;
    return m;
}

size_t doc_ivl_find(const struct doc_ivl_set *s, lat_ns t)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].b > t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

lat_ns doc_ivl_measure_in(const struct doc_ivl_set *s, lat_ns a, lat_ns b)
{
    lat_ns m = 0;
    for (size_t i = doc_ivl_find(s, a); i < s->n && s->v[i].a < b; i++) {
        lat_ns x = s->v[i].a > a ? s->v[i].a : a;
        lat_ns y = s->v[i].b < b ? s->v[i].b : b;
        if (y > x) m += y - x;
    }
    return m;
}

int doc_ivl_intersect(const struct doc_ivl_set *x, const struct doc_ivl_set *y,
                      struct doc_ivl_set *out)
{
    size_t i = 0, j = 0;
    out->n = 0;
    while (i < x->n && j < y->n) {
        lat_ns a = x->v[i].a > y->v[j].a ? x->v[i].a : y->v[j].a;
        lat_ns b = x->v[i].b < y->v[j].b ? x->v[i].b : y->v[j].b;
        if (b > a && doc_ivl_push(out, a, b)) return -ENOMEM;
        if (x->v[i].b < y->v[j].b)
            i++;
        else
            j++;
    }
    return 0;
}

int doc_ivl_subtract(const struct doc_ivl_set *x, const struct doc_ivl_set *y,
                     struct doc_ivl_set *out)
{
    size_t j = 0;
    out->n = 0;
    for (size_t i = 0; i < x->n; i++) {
        lat_ns a = x->v[i].a, b = x->v[i].b;
        while (j < y->n && y->v[j].b <= a)
            j++;
        for (size_t k = j; k < y->n && y->v[k].a < b; k++) {
            if (y->v[k].a > a && doc_ivl_push(out, a, y->v[k].a)) return -ENOMEM;
            if (y->v[k].b > a) a = y->v[k].b;
            if (a >= b) break;
        }
        if (a < b && doc_ivl_push(out, a, b)) return -ENOMEM;
    }
    return 0;
}

int doc_ivl_gaps_in(const struct doc_ivl_set *s, lat_ns a, lat_ns b, struct doc_ivl_set *out)
{
    out->n = 0;
    lat_ns cur = a;
    for (size_t i = doc_ivl_find(s, a); i < s->n && s->v[i].a < b; i++) {
        if (s->v[i].a > cur && doc_ivl_push(out, cur, s->v[i].a)) return -ENOMEM;
        if (s->v[i].b > cur) cur = s->v[i].b;
    }
    if (cur < b && doc_ivl_push(out, cur, b)) return -ENOMEM;
    return 0;
}

void doc_ivl_reset(struct doc_ivl_set *s)
{
    s->n = 0;
}

void doc_ivl_fini(struct doc_ivl_set *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}
