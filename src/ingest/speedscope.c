/*
 * speedscope.c - speedscope JSON (https://www.speedscope.app/file-format-schema.json), as py-spy
 * `record --format speedscope` writes it (one profile per thread, "Thread TID \"name\"").
 *
 * { "shared": {"frames": [{"name", "file", "line", "col"}...]},
 *   "profiles": [ {"type": "sampled", "name", "unit", "startValue", "endValue",
 *                  "samples": [[frame index, root first]...], "weights": [...]},
 *                 {"type": "evented", ..., "events": [{"type": "O"|"C", "frame", "at"}...]} ] }
 * Keys may come in any order (py-spy writes "profiles" before "shared"), so profiles are kept
 * until the frames are known. Frames become names as stacks.h says (Python files "py:name
 * (file:line)").
 *
 * Time: a sampled profile has no timestamps, only weights (py-spy: 1/rate each); sample k is put
 * at startValue + the weights before it (the profile's own sample clock, which is what
 * speedscope's time-order view shows; py-spy starts every thread at 0, so threads are not
 * aligned to each other). Each sample counts once; with unit "none" the weight is a count (no
 * time), kept as the event's weight (stacks.h: one event, never expanded). When all weights of time
 * unit are equal, 1/weight goes to latscope_cpu_sample_hz. An evented profile (instrumented
 * open/close times) is sampled on its timeline every 1/HZ (HZ = 10 kHz, less for a profile longer
 * than 200 s so that it yields at most 2 M samples): the stack open at each instant is one sample.
 * Memory profiles (unit "bytes") are refused.
 */
#include "core/err.h"
#include "core/grow.h"
#include "ingest/formats.h"
#include "ingest/stacks.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHAT "a speedscope profile"

struct sframe {
    size_t name, nname, file, nfile; /* offsets into pool */
    int64_t line;
    uint32_t disp; /* display name: string id in the trace */
};

struct sevent {
    double at;
    uint32_t frame;
    char type;
};

struct sprof {
    char type; /* 's' sampled, 'e' evented, 0 unknown */
    size_t name, nname;
    char unit[16];
    double start, end;
    uint32_t *fr; /* frames of all samples */
    size_t nfr, frcap;
    size_t *soff; /* sample k: fr[soff[k] .. soff[k+1]) */
    size_t ns, scap;
    double *w;
    size_t nw, wcap;
    struct sevent *ev;
    size_t nev, evcap;
};

struct P {
    struct json_tok tk;
    struct ingest_src *src;
    bool ended;
    char why[256];
    uint64_t bytes;
    struct lat_buf pool;
    struct sframe *fr;
    size_t nfr, frcap;
    struct sprof *pr;
    size_t npr, prcap;
};

static int nx(struct P *p, struct json_token *t)
{
    for (;;) {
        int rc = json_tok_next(&p->tk, t);
        if (rc) return rc;
        if (p->ended) return LAT_E_TRUNCATED;
        const char *d;
        size_t n;
        rc = src_next(p->src, &d, &n, p->why, sizeof(p->why));
        if (rc < 0) return rc;
        if (rc == 0) {
            json_tok_finish(&p->tk);
            p->ended = true;
        } else {
            json_tok_feed(&p->tk, d, n);
            p->bytes += n;
        }
    }
}

/* Skips the value whose first token is *t. */
static int skip(struct P *p, const struct json_token *t)
{
    if (t->type != JSON_OBJ_BEGIN && t->type != JSON_ARR_BEGIN) return 0;
    long depth = 1;
    struct json_token k;
    while (depth) {
        int rc = nx(p, &k);
        if (rc < 0) return rc;
        if (k.type == JSON_OBJ_BEGIN || k.type == JSON_ARR_BEGIN) depth++;
        if (k.type == JSON_OBJ_END || k.type == JSON_ARR_END) depth--;
        if (k.type == JSON_END) return LAT_E_TRUNCATED;
    }
    return 0;
}

static bool key_is(const struct json_token *t, const char *k)
{
    return t->type == JSON_KEY && t->len == strlen(k) && !memcmp(t->s, k, t->len);
}

static bool num(const struct json_token *t, double *v)
{
    if (t->type != JSON_NUM || t->len >= 64) return false;
    char tmp[64];
    memcpy(tmp, t->s, t->len);
    tmp[t->len] = 0;
    *v = strtod(tmp, NULL);
    return isfinite(*v);
}

static const char *at(const struct P *p, size_t off)
{
    return p->pool.data ? p->pool.data + off : "";
}

static int put_str(struct P *p, const struct json_token *t, size_t *off, size_t *n)
{
    *off = p->pool.len;
    *n = t->len;
    return buf_append(&p->pool, t->s ? t->s : "", t->len);
}

#define EXPECT(cond, msg)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            snprintf(p->why, sizeof(p->why), "%s (byte %llu)", msg, (unsigned long long)t.off);    \
            return LAT_E_NOT_TRACE;                                                                \
        }                                                                                          \
    } while (0)

static int parse_frames(struct P *p)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_ARR_BEGIN, "\"shared.frames\" is not an array");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_ARR_END) return 0;
        EXPECT(t.type == JSON_OBJ_BEGIN, "a frame is not an object");
        if (LAT_GROW(p->fr, p->frcap, p->nfr, 1, 16)) return -ENOMEM;
        struct sframe *f = &p->fr[p->nfr++];
        memset(f, 0, sizeof(*f));
        f->line = -1;
        for (;;) {
            if ((rc = nx(p, &t)) < 0) return rc;
            if (t.type == JSON_OBJ_END) break;
            bool kn = key_is(&t, "name"), kf = key_is(&t, "file"), kl = key_is(&t, "line");
            if ((rc = nx(p, &t)) < 0) return rc;
            if (kn && t.type == JSON_STR) {
                if (put_str(p, &t, &f->name, &f->nname)) return -ENOMEM;
            } else if (kf && t.type == JSON_STR) {
                if (put_str(p, &t, &f->file, &f->nfile)) return -ENOMEM;
            } else if (kl && t.type == JSON_NUM && (t.num_flags & JSON_NUM_I64)) {
                f->line = t.i;
            } else if ((rc = skip(p, &t)) < 0) {
                return rc;
            }
        }
    }
}

static int parse_shared(struct P *p)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_OBJ_BEGIN, "\"shared\" is not an object");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_OBJ_END) return 0;
        if (key_is(&t, "frames")) {
            if ((rc = parse_frames(p)) < 0) return rc;
            continue;
        }
        if ((rc = nx(p, &t)) < 0 || (rc = skip(p, &t)) < 0) return rc;
    }
}

static int parse_samples(struct P *p, struct sprof *pr)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_ARR_BEGIN, "\"samples\" is not an array");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_ARR_END) break;
        EXPECT(t.type == JSON_ARR_BEGIN, "a sample is not an array of frame indices");
        if (LAT_GROW(pr->soff, pr->scap, pr->ns, 2, 16)) return -ENOMEM;
        pr->soff[pr->ns++] = pr->nfr;
        for (;;) {
            if ((rc = nx(p, &t)) < 0) return rc;
            if (t.type == JSON_ARR_END) break;
            EXPECT(t.type == JSON_NUM && (t.num_flags & JSON_NUM_I64) && t.i >= 0 &&
                       t.i < UINT32_MAX,
                   "a sample holds something other than a frame index");
            if (LAT_GROW(pr->fr, pr->frcap, pr->nfr, 1, 16)) return -ENOMEM;
            pr->fr[pr->nfr++] = (uint32_t)t.i;
        }
    }
    if (LAT_GROW(pr->soff, pr->scap, pr->ns, 1, 16)) return -ENOMEM;
    pr->soff[pr->ns] = pr->nfr;
    return 0;
}

static int parse_weights(struct P *p, struct sprof *pr)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_ARR_BEGIN, "\"weights\" is not an array");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_ARR_END) return 0;
        double v;
        EXPECT(num(&t, &v) && v >= 0, "a weight is not a non-negative number");
        if (LAT_GROW(pr->w, pr->wcap, pr->nw, 1, 16)) return -ENOMEM;
        pr->w[pr->nw++] = v;
    }
}

static int parse_events(struct P *p, struct sprof *pr)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_ARR_BEGIN, "\"events\" is not an array");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_ARR_END) return 0;
        EXPECT(t.type == JSON_OBJ_BEGIN, "an event is not an object");
        struct sevent e = {.at = NAN, .frame = UINT32_MAX, .type = 0};
        for (;;) {
            if ((rc = nx(p, &t)) < 0) return rc;
            if (t.type == JSON_OBJ_END) break;
            bool kt = key_is(&t, "type"), kf = key_is(&t, "frame"), ka = key_is(&t, "at");
            if ((rc = nx(p, &t)) < 0) return rc;
            if (kt && t.type == JSON_STR && t.len == 1) {
                e.type = t.s[0];
            } else if (kf && t.type == JSON_NUM && (t.num_flags & JSON_NUM_I64) && t.i >= 0 &&
                       t.i < UINT32_MAX) {
                e.frame = (uint32_t)t.i;
            } else if (ka && num(&t, &e.at)) {
            } else if ((rc = skip(p, &t)) < 0) {
                return rc;
            }
        }
        EXPECT((e.type == 'O' || e.type == 'C') && e.frame != UINT32_MAX && !isnan(e.at),
               "an event lacks \"type\" O/C, \"frame\" or \"at\"");
        if (LAT_GROW(pr->ev, pr->evcap, pr->nev, 1, 16)) return -ENOMEM;
        pr->ev[pr->nev++] = e;
    }
}

static int parse_profiles(struct P *p)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_ARR_BEGIN, "\"profiles\" is not an array");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_ARR_END) return 0;
        EXPECT(t.type == JSON_OBJ_BEGIN, "a profile is not an object");
        if (LAT_GROW(p->pr, p->prcap, p->npr, 1, 16)) return -ENOMEM;
        struct sprof *pr = &p->pr[p->npr++];
        memset(pr, 0, sizeof(*pr));
        for (;;) {
            if ((rc = nx(p, &t)) < 0) return rc;
            if (t.type == JSON_OBJ_END) break;
            if (key_is(&t, "samples")) {
                if ((rc = parse_samples(p, pr)) < 0) return rc;
                continue;
            }
            if (key_is(&t, "weights")) {
                if ((rc = parse_weights(p, pr)) < 0) return rc;
                continue;
            }
            if (key_is(&t, "events")) {
                if ((rc = parse_events(p, pr)) < 0) return rc;
                continue;
            }
            bool kt = key_is(&t, "type"), kn = key_is(&t, "name"), ku = key_is(&t, "unit"),
                 ks = key_is(&t, "startValue"), ke = key_is(&t, "endValue");
            if ((rc = nx(p, &t)) < 0) return rc;
            if (kt && t.type == JSON_STR) {
                pr->type = t.len == 7 && !memcmp(t.s, "sampled", 7)   ? 's'
                           : t.len == 7 && !memcmp(t.s, "evented", 7) ? 'e'
                                                                      : '?';
            } else if (kn && t.type == JSON_STR) {
                if (put_str(p, &t, &pr->name, &pr->nname)) return -ENOMEM;
            } else if (ku && t.type == JSON_STR) {
                size_t l = t.len < sizeof(pr->unit) - 1 ? t.len : sizeof(pr->unit) - 1;
                memcpy(pr->unit, t.s, l);
                pr->unit[l] = 0;
            } else if (ks && num(&t, &pr->start)) {
            } else if (ke && num(&t, &pr->end)) {
            } else if ((rc = skip(p, &t)) < 0) {
                return rc;
            }
        }
    }
}

static int parse(struct P *p)
{
    struct json_token t;
    int rc = nx(p, &t);
    if (rc < 0) return rc;
    EXPECT(t.type == JSON_OBJ_BEGIN, "the file is not a JSON object");
    for (;;) {
        if ((rc = nx(p, &t)) < 0) return rc;
        if (t.type == JSON_OBJ_END) break;
        if (key_is(&t, "shared")) {
            if ((rc = parse_shared(p)) < 0) return rc;
        } else if (key_is(&t, "profiles")) {
            if ((rc = parse_profiles(p)) < 0) return rc;
        } else if ((rc = nx(p, &t)) < 0 || (rc = skip(p, &t)) < 0) {
            return rc;
        }
    }
    if ((rc = nx(p, &t)) < 0) return rc;
    return 0;
}

/* ns per unit; 0 for "none" (weights are counts); -1 unknown or not time. */
static double unit_ns(const char *u)
{
    if (!strcmp(u, "seconds")) return 1e9;
    if (!strcmp(u, "milliseconds")) return 1e6;
    if (!strcmp(u, "microseconds")) return 1e3;
    if (!strcmp(u, "nanoseconds")) return 1;
    if (!strcmp(u, "none") || !u[0]) return 0;
    return -1;
}

static lat_ns to_ns(double v, double f)
{
    double x = v * f;
    if (!(x > (double)LAT_TS_MIN)) return LAT_TS_MIN;
    if (!(x < (double)LAT_TS_MAX)) return LAT_TS_MAX;
    return (lat_ns)llround(x);
}

/* 'Thread 12672 "worker-1"' (py-spy) -> tid and the name between the quotes. */
static bool pyspy_thread(const char *s, size_t n, int64_t *tid, const char **nm, size_t *nl)
{
    if (n < 8 || memcmp(s, "Thread ", 7) || s[7] < '0' || s[7] > '9') return false;
    size_t i = 7;
    int64_t v = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && v < (INT64_C(1) << 50))
        v = v * 10 + (s[i++] - '0');
    *tid = v;
    *nm = NULL;
    *nl = 0;
    if (i + 2 < n && s[i] == ' ' && s[i + 1] == '"' && s[n - 1] == '"') {
        *nm = s + i + 2;
        *nl = n - i - 3;
    }
    return true;
}

/* "NAME: WHAT, why" into err (stacks.h); returns rc */
#define fail(err, errsz, nm, rc, ...) stk_fail(err, errsz, nm, WHAT, rc, __VA_ARGS__)

static int cmp_ev(const void *a, const void *b)
{
    const struct sevent *x = a, *y = b;
    if (x->at != y->at) return x->at < y->at ? -1 : 1;
    /* at the same instant, close before open */
    return (x->type == 'O') - (y->type == 'O');
}

static int build(struct P *p, struct stk_build *b, char *why, size_t whysz)
{
    int rc;
    /* display names of the frames */
    for (size_t i = 0; i < p->nfr; i++) {
        struct sframe *f = &p->fr[i];
        stk_reset(b);
        if ((rc = stk_push_named(b, at(p, f->name), f->nname, at(p, f->file), f->nfile, f->line)))
            return rc;
        if ((rc = lat_trace_intern(b->t, b->stack.data ? b->stack.data : "", b->stack.len,
                                   &f->disp)))
            return rc;
    }
    bool evented = false, sampled = false, same_w = true;
    double w0 = -1, f0 = -1;
    lat_ns maxspan = 0;
    for (size_t k = 0; k < p->npr; k++) {
        struct sprof *pr = &p->pr[k];
        double f = unit_ns(pr->unit);
        if (f < 0) {
            snprintf(why, whysz,
                     "profile %zu has unit \"%s\" (not time or a count: a memory profile?); "
                     "latscope reads CPU time profiles",
                     k, pr->unit);
            return LAT_E_UNSUPPORTED;
        }
        if (pr->type == 'e') {
            evented = true;
            lat_ns span = to_ns(pr->end - pr->start, f ? f : 1);
            if (span > maxspan) maxspan = span;
        } else if (pr->type == 's') {
            sampled = true;
            if (pr->nw && pr->nw != pr->ns) {
                snprintf(why, whysz, "profile %zu has %zu samples but %zu weights", k, pr->ns,
                         pr->nw);
                return LAT_E_NOT_TRACE;
            }
            for (size_t i = 0; i < pr->nw; i++) {
                if (w0 < 0) {
                    w0 = pr->w[i];
                    f0 = f;
                }
                if (pr->w[i] != w0 || f != f0) same_w = false;
            }
        } else {
            snprintf(why, whysz, "profile %zu has no \"type\" \"sampled\" or \"evented\"", k);
            return LAT_E_NOT_TRACE;
        }
    }
    /* evented profiles: sampled at hz on their timeline */
    uint64_t hz = 10000;
    if (evented && maxspan / 1000000000 * hz > 2000000)
        hz = 2000000 / (uint64_t)(maxspan / 1000000000);
    if (evented && !hz) { /* at 1 Hz still more than 2 M instants to visit */
        snprintf(why, whysz, "an evented profile spans %lld s: too long to sample",
                 (long long)(maxspan / 1000000000));
        return LAT_E_OVERFLOW;
    }
    if (!hz) hz = 1;
    lat_ns period = (lat_ns)(1000000000 / hz);
    uint32_t *stack = NULL;
    size_t nstack = 0, stcap = 0;
    for (size_t k = 0; k < p->npr; k++) {
        struct sprof *pr = &p->pr[k];
        double f = unit_ns(pr->unit);
        int64_t tid = (int64_t)k;
        const char *tn = pr->nname ? at(p, pr->name) : NULL;
        size_t tl = pr->nname;
        const char *qn;
        size_t ql;
        if (tn && pyspy_thread(tn, tl, &tid, &qn, &ql)) {
            tn = ql ? qn : NULL;
            tl = ql;
        }
        uint32_t track;
        if ((rc = stk_track(b, -1, tid, tn, tl, &track))) goto out;
        if (pr->type == 's') {
            lat_ns ts = f > 0 ? to_ns(pr->start, f) : 0;
            for (size_t i = 0; i < pr->ns; i++) {
                stk_reset(b);
                for (size_t j = pr->soff[i]; j < pr->soff[i + 1]; j++) {
                    uint32_t fi = pr->fr[j];
                    if (fi >= p->nfr) {
                        snprintf(why, whysz,
                                 "profile %zu, sample %zu refers to frame %u of %zu in "
                                 "\"shared.frames\"",
                                 k, i, fi, p->nfr);
                        rc = LAT_E_NOT_TRACE;
                        goto out;
                    }
                    const char *d = lat_trace_str(b->t, p->fr[fi].disp);
                    if ((rc = stk_push(b, d, strlen(d)))) goto out;
                }
                double w = i < pr->nw ? pr->w[i] : 0;
                uint64_t count = 1;
                if (f == 0) {
                    if (w != floor(w) || w > (double)STK_MAX_WEIGHT) {
                        snprintf(why, whysz,
                                 "profile %zu (unit \"none\"): weight %g of sample %zu is not a "
                                 "sample count",
                                 k, w, i);
                        rc = LAT_E_NOT_TRACE;
                        goto out;
                    }
                    count = (uint64_t)w;
                }
                if ((rc = stk_emit(b, track, ts, count))) {
                    if (rc == LAT_E_OVERFLOW)
                        snprintf(why, whysz,
                                 "profile %zu, sample %zu: weight %llu makes more than %llu "
                                 "samples (2^53) in the file, or it has more than %llu sample "
                                 "records: split the file",
                                 k, i, (unsigned long long)count, STK_MAX_WEIGHT,
                                 (unsigned long long)stk_cap(b));
                    goto out;
                }
                if (f > 0) { /* saturating: both are within LAT_TS_MIN..LAT_TS_MAX */
                    lat_ns d = to_ns(w, f);
                    ts = d > LAT_TS_MAX - ts ? LAT_TS_MAX : ts + d;
                }
            }
        } else {
            if (pr->nev) qsort(pr->ev, pr->nev, sizeof(*pr->ev), cmp_ev);
            lat_ns t0 = to_ns(pr->start, f ? f : 1), t1 = to_ns(pr->end, f ? f : 1);
            nstack = 0;
            size_t e = 0;
            for (lat_ns ts = t0; ts < t1; ts += period) {
                for (; e < pr->nev && to_ns(pr->ev[e].at, f ? f : 1) <= ts; e++) {
                    const struct sevent *x = &pr->ev[e];
                    if (x->frame >= p->nfr) {
                        snprintf(why, whysz,
                                 "profile %zu, event %zu refers to frame %u of %zu in "
                                 "\"shared.frames\"",
                                 k, e, x->frame, p->nfr);
                        rc = LAT_E_NOT_TRACE;
                        goto out;
                    }
                    if (x->type == 'O') {
                        if (LAT_GROW(stack, stcap, nstack, 1, 16)) {
                            rc = -ENOMEM;
                            goto out;
                        }
                        stack[nstack++] = x->frame;
                    } else {
                        /* close the innermost open instance of that frame */
                        size_t j = nstack;
                        while (j > 0 && stack[j - 1] != x->frame)
                            j--;
                        if (j) nstack = j - 1;
                    }
                }
                if (!nstack) continue; /* nothing open: not a sample */
                stk_reset(b);
                for (size_t j = 0; j < nstack; j++) {
                    const char *d = lat_trace_str(b->t, p->fr[stack[j]].disp);
                    if ((rc = stk_push(b, d, strlen(d)))) goto out;
                }
                if ((rc = stk_emit(b, track, ts, 1))) {
                    if (rc == LAT_E_OVERFLOW)
                        snprintf(why, whysz,
                                 "profile %zu: more than %llu samples, the limit for a file of "
                                 "%llu bytes (max(%llu, %llu x bytes))",
                                 k, (unsigned long long)stk_cap(b), (unsigned long long)b->in_bytes,
                                 STK_CAP_FIXED, STK_CAP_PER_BYTE);
                    goto out;
                }
            }
        }
    }
    if (evented && !sampled) {
        char v[24];
        snprintf(v, sizeof(v), "%llu", (unsigned long long)hz);
        if ((rc = stk_meta(b, "latscope_cpu_sample_hz", v))) goto out;
    } else if (sampled && !evented && same_w && w0 > 0 && f0 > 0) {
        double h = 1e9 / (w0 * f0);
        if (h >= 1 && h <= 100000 && fabs(h - floor(h + 0.5)) < 1e-6 * h) {
            char v[24];
            snprintf(v, sizeof(v), "%.0f", floor(h + 0.5));
            if ((rc = stk_meta(b, "latscope_cpu_sample_hz", v))) goto out;
        }
    }
    char meta[256];
    snprintf(meta, sizeof(meta),
             "{\"format\":\"speedscope\",\"timestamps\":%s,\"profiles\":%zu,\"samples\":%llu%s}",
             evented && !sampled ? "true" : "\"sample clock\"", p->npr,
             (unsigned long long)b->samples, evented ? ",\"evented_sampled_hz\":" : "");
    if (evented) {
        size_t l = strlen(meta) - 1;
        snprintf(meta + l, sizeof(meta) - l, "%llu}", (unsigned long long)hz);
    }
    rc = stk_meta(b, "latscope_stacks", meta);
out:
    free(stack);
    return rc;
}

int ingest_speedscope_load(struct ingest_src *src, const char *name,
                           const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                           size_t errsz)
{
    const char *nm = name ? name : "(input)";
    *out = NULL;
    struct P p;
    memset(&p, 0, sizeof(p));
    p.src = src;
    json_tok_init(&p.tk, 0);
    struct stk_build b;
    int rc = stk_init(&b, &ingest_fmt_speedscope);
    char why[300] = "";
    if (rc) {
        rc = fail(err, errsz, nm, rc, "%s", lat_strerror(rc));
        goto out;
    }
    rc = parse(&p);
    if (rc < 0) {
        if (rc == LAT_E_BAD_JSON || rc == LAT_E_TRUNCATED || rc == LAT_E_OVERFLOW) {
            if (p.bytes == 0 && p.ended)
                rc = fail(err, errsz, nm, LAT_E_NOT_TRACE,
                          "empty file (0 bytes): the profiler wrote nothing (py-spy writes the "
                          "file when it stops: was it killed?); record again");
            else if (p.tk.err)
                rc = fail(err, errsz, nm, rc, "%s at byte %llu%s", json_tok_errmsg(&p.tk),
                          (unsigned long long)json_tok_erroff(&p.tk),
                          rc == LAT_E_TRUNCATED
                              ? "; the file is cut short: record again and let the profiler "
                                "finish writing it"
                              : "");
            else
                rc = fail(err, errsz, nm, rc, "%s",
                          rc == LAT_E_TRUNCATED ? "input ends early (truncated file?)"
                                                : lat_strerror(rc));
        } else if (rc == LAT_E_NOT_TRACE) {
            rc = fail(err, errsz, nm, rc, "%s; pass the file speedscope or py-spy wrote", p.why);
        } else {
            rc = fail(err, errsz, nm, rc, "%s", p.why[0] ? p.why : lat_strerror(rc));
        }
        goto out;
    }
    if (!p.npr) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE, "no \"profiles\"");
        goto out;
    }
    b.in_bytes = p.bytes;
    if ((rc = build(&p, &b, why, sizeof(why)))) {
        if (rc == LAT_E_OVERFLOW && !why[0])
            rc = fail(err, errsz, nm, rc, "more than %llu samples: too many to load",
                      (unsigned long long)STK_MAX_SAMPLES);
        else
            rc = fail(err, errsz, nm, rc, "%s", why[0] ? why : lat_strerror(rc));
        goto out;
    }
    if (!b.samples) {
        rc = fail(err, errsz, nm, LAT_E_NOT_TRACE, "no samples in its %zu profile(s)", p.npr);
        goto out;
    }
    if (opts && opts->stats) {
        opts->stats->input_events += b.events;
        opts->stats->json_bytes += p.bytes;
        opts->stats->raw_bytes += src_raw_done(src);
        opts->stats->gzip = src_is_gzip(src);
    }
    if (name && !(b.t->path = strdup(name))) {
        rc = fail(err, errsz, nm, -ENOMEM, "%s", lat_strerror(-ENOMEM));
        goto out;
    }
    *out = b.t;
    b.t = NULL;
    rc = 0;
out:
    for (size_t k = 0; k < p.npr; k++) {
        free(p.pr[k].fr);
        free(p.pr[k].soff);
        free(p.pr[k].w);
        free(p.pr[k].ev);
    }
    free(p.pr);
    free(p.fr);
    buf_fini(&p.pool);
    json_tok_fini(&p.tk);
    stk_fini(&b);
    src_close(src);
    return rc;
}

/* CPU stack samples, no framework */
const struct lat_trace_format ingest_fmt_speedscope = {.name = "speedscope", .fw = LAT_FW_NONE};

/* ---- sniffing (ingest.c's format table) ---- */

bool ingest_sniff_speedscope(const unsigned char *h, size_t n, const char *path)
{
    if ((n == 0 || ingest_looks_json(h, n)) && (ingest_has_suffix(path, ".speedscope.json") ||
                                                ingest_has_suffix(path, ".speedscope.json.gz")))
        return true;
    return ingest_looks_json(h, n) && memmem(h, n, "speedscope.app/file-format-schema", 33) != NULL;
}
