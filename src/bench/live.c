/*
 * live.c - the numbers of the live view (live.h) and its status line.
 */
#include "bench/live.h"

#include "hist/hist.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void bench_live_add_window(struct bench_live *s, const struct bench_window *w)
{
    double len = (double)(w->t_end - w->t_start) / 1e9;
    s->done += w->ok + w->errors;
    s->errors += w->errors;
    for (int c = 0; c < BENCH_ERR__COUNT; c++)
        s->errors_by[c] += w->errors_by[c];
    s->rps = len > 0 ? (double)w->ok / len : 0;
    s->inflight = w->inflight;
    bool have = w->lat && hist_count(w->lat) > 0;
    s->p50 = have ? hist_value_at_percentile(w->lat, 50) : -1;
    s->p99 = have ? hist_value_at_percentile(w->lat, 99) : -1;
}

/* Appends one field (printf) to out when it fits whole; once one does not, nothing more. */
struct line {
    char *out;
    size_t cap, len;
    bool full;
};

static bool vfield(struct line *l, bool last_try, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
static bool vfield(struct line *l, bool last_try, const char *fmt, va_list ap)
{
    if (l->full) return false;
    char tmp[320];
    int n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    if (n < 0 || (size_t)n >= sizeof(tmp) || l->len + (size_t)n >= l->cap) {
        if (last_try) l->full = true;
        return false;
    }
    memcpy(l->out + l->len, tmp, (size_t)n + 1);
    l->len += (size_t)n;
    return true;
}

static void field(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void field(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfield(l, true, fmt, ap);
    va_end(ap);
}

/* A field that may not fit, with a shorter one to try then. */
static bool field_try(struct line *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool field_try(struct line *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bool ok = vfield(l, false, fmt, ap);
    va_end(ap);
    return ok;
}

/* A latency in ms with 3 significant digits (0.123, 2.64, 15.2, 250). */
static void ms3(char *out, size_t cap, int64_t ns)
{
    double ms = (double)ns / 1e6;
    snprintf(out, cap, ms < 1 ? "%.3f" : ms < 10 ? "%.2f" : ms < 100 ? "%.1f" : "%.0f", ms);
}

static void ms_pair(struct line *l, const char *name, int64_t p50, int64_t p99)
{
    if (p50 < 0) {
        field(l, "  %sp50/p99 -", name);
        return;
    }
    char a[32], b[32];
    ms3(a, sizeof(a), p50);
    ms3(b, sizeof(b), p99);
    field(l, "  %sp50/p99 %s/%s ms", name, a, b);
}

size_t bench_live_format(const struct bench_live *s, char *out, size_t cap)
{
    struct line l = {out, cap, 0, cap == 0};
    if (cap) out[0] = '\0';
    if (s->find_max)
        field(&l, "probe %zu", s->point);
    else
        field(&l, "point %zu/%zu", s->point, s->npoints);
    if (s->open_loop)
        field(&l, " %g/s", s->value);
    else
        field(&l, " c=%g", s->value);
    if (s->target_requests)
        field(&l, "  %llu/%llu req", (unsigned long long)s->done,
              (unsigned long long)s->target_requests);
    else
        field(&l, "  %.1f/%.1fs", (double)s->elapsed / 1e9, (double)s->target_ns / 1e9);
    field(&l, "  %.1f req/s", s->rps);
    ms_pair(&l, "", s->p50, s->p99);
    /* the classes with the count when they fit, else the count alone */
    char by[200] = "";
    size_t n = 0;
    for (int c = 0; c < BENCH_ERR__COUNT && s->errors && n < sizeof(by); c++)
        if (s->errors_by[c])
            n += (size_t)snprintf(by + n, sizeof(by) - n, "%s%s %llu", n ? ", " : " (",
                                  bench_err_names[c], (unsigned long long)s->errors_by[c]);
    if (!by[0] || !field_try(&l, "  errors %llu%s)", (unsigned long long)s->errors, by))
        field(&l, "  errors %llu", (unsigned long long)s->errors);
    if (s->llm) {
        ms_pair(&l, "ttft ", s->ttft_p50, s->ttft_p99);
        field(&l, "  %.1f tok/s", s->tokens_s);
    }
    return l.len;
}
