/*
 * xplane.c - TensorFlow profiler traces: the `.xplane.pb` files tf.profiler writes (an XSpace
 * protobuf, schema tensorflow/tsl/profiler/protobuf/xplane.proto), and the TensorFlow meaning of
 * the trace_viewer Chrome JSON that TF's own tools convert it to (ingest_tf_finish(), shared by
 * both so that the two give the same model).
 *
 * The protobuf wire format is decoded here (no TensorFlow, no protobuf library): varints (at
 * most 10 bytes), fixed64/fixed32, length-delimited fields whose length is checked against the
 * enclosing message before anything is read; groups (wire types 3/4) and field number 0 are
 * errors. The nesting is the schema's fixed depth (XSpace > XPlane > XLine > XEvent > XStat),
 * decoded by one function per level: no recursion, so no input can make the stack grow.
 *
 * The fields read:
 *   XSpace          planes = 1, hostnames = 4
 *   XPlane          id = 1, name = 2, lines = 3, event_metadata = 4 (map<int64, XEventMetadata>),
 *                   stat_metadata = 5 (map<int64, XStatMetadata>), stats = 6
 *   XLine           id = 1, name = 2, timestamp_ns = 3, events = 4, display_name = 11
 *   XEvent          metadata_id = 1, offset_ps = 2, duration_ps = 3, stats = 4,
 *                   num_occurrences = 5 (an aggregate without a time: counted, not an event)
 *   XEventMetadata  id = 1, name = 2, display_name = 4, stats = 5
 *   XStatMetadata   id = 1, name = 2
 *   XStat           metadata_id = 1, double = 2, uint64 = 3, int64 = 4, str = 5, bytes = 6,
 *                   ref = 7 (the name of the XStatMetadata with that id)
 * Unknown fields are skipped by wire type, as protobuf readers do.
 *
 * Model: a "/host:*" plane is a process (pid = the plane's id, labelled "<host> <plane name>"),
 * each XLine a thread (tid = the line's id, labelled by its display name or name). A
 * "/device:*" plane's lines are device tracks (pid = the device ordinal, tid = the line id).
 * Times: ts = line.timestamp_ns + offset_ps / 1000 and end = line.timestamp_ns + (offset_ps +
 * duration_ps) / 1000, computed in picoseconds (128-bit) and floored to ns, so ts and dur are
 * the input's exact ns when the ps values are whole ns (TF's host events are). Stats become
 * args (key = the stat metadata's name); the event metadata's own stats are appended after the
 * event's. The "Task Environment" plane's stats become metadata (profile_start_time, ...).
 * Then ingest_tf_finish() gives the events their TensorFlow meaning (see there).
 */
#include "core/err.h"
#include "core/grow.h"
#include "core/u64map.h"
#include "ingest/formats.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- protobuf wire format ------------------------------------------------------------------ */

struct pb {
    const uint8_t *p, *end;
};

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_I32 = 5 };

struct pb_field {
    uint32_t num;
    int wt;
    uint64_t v;    /* varint, fixed64, fixed32 */
    struct pb sub; /* length-delimited */
};

/* Errors of the decoder: where and what, for the message. */
struct xp {
    const uint8_t *base;
    const char *name;
    char *err;
    size_t errsz;
    struct lat_trace *t;
    uint64_t aggregated; /* num_occurrences events */
    uint64_t bytes_stats;
    const char *host; /* first hostname, not NUL-terminated */
    size_t hostlen;
};

static int xp_bad(struct xp *x, const uint8_t *at, const char *what)
{
    if (x->err && x->errsz)
        snprintf(x->err, x->errsz,
                 "%s: not a valid TensorFlow .xplane.pb (protobuf byte %llu: %s); the file is "
                 "truncated or not an XSpace: copy the complete *.xplane.pb that "
                 "tf.profiler wrote under <logdir>/plugins/profile/<run>/",
                 x->name, (unsigned long long)(at - x->base), what);
    return LAT_E_TRUNCATED;
}

static int pb_varint(struct pb *b, uint64_t *out)
{
    uint64_t v = 0;
    for (int i = 0; i < 10; i++) {
        if (b->p >= b->end) return -1;
        uint8_t c = *b->p++;
        if (i == 9 && c > 1) return -2; /* beyond 64 bits */
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (c < 0x80) {
            *out = v;
            return 0;
        }
    }
    return -2;
}

/* Reads the next field of b. 1 with *f, 0 at the end of b, < 0 on malformed input. */
static int pb_next(struct xp *x, struct pb *b, struct pb_field *f)
{
    if (b->p >= b->end) return 0;
    const uint8_t *at = b->p;
    uint64_t key;
    if (pb_varint(b, &key)) return xp_bad(x, at, "field key runs past its message");
    f->num = (uint32_t)(key >> 3);
    f->wt = (int)(key & 7);
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
        return xp_bad(x, at, "field number 0 or beyond 2^29");
    switch (f->wt) {
    case PB_VARINT:
        if (pb_varint(b, &f->v)) return xp_bad(x, at, "varint runs past its message");
        return 1;
    case PB_I64:
        if (b->end - b->p < 8) return xp_bad(x, at, "fixed64 runs past its message");
        f->v = 0;
        for (int i = 7; i >= 0; i--)
            f->v = f->v << 8 | b->p[i];
        b->p += 8;
        return 1;
    case PB_I32:
        if (b->end - b->p < 4) return xp_bad(x, at, "fixed32 runs past its message");
        f->v = (uint64_t)b->p[0] | (uint64_t)b->p[1] << 8 | (uint64_t)b->p[2] << 16 |
               (uint64_t)b->p[3] << 24;
        b->p += 4;
        return 1;
    case PB_LEN: {
        uint64_t n;
        if (pb_varint(b, &n)) return xp_bad(x, at, "length runs past its message");
        if (n > (uint64_t)(b->end - b->p))
            return xp_bad(x, at, "length-delimited field longer than its message");
        f->sub.p = b->p;
        f->sub.end = b->p + n;
        b->p += n;
        return 1;
    }
    default:
        return xp_bad(x, at, "wire type 3/4/6/7 (groups or not protobuf)");
    }
}

/* ---- metadata ------------------------------------------------------------------------------ */

struct emeta {
    int64_t id;
    struct pb name, disp, stats; /* stats: the concatenated XStat messages (see stats_of) */
    uint32_t nstats;
    const uint8_t *stat_at[8]; /* the first 8 metadata stats (more are rare: ignored) */
    const uint8_t *stat_end[8];
};

struct smeta {
    int64_t id;
    struct pb name;
};

struct plane {
    struct emeta *em;
    size_t nem, em_cap;
    struct smeta *sm;
    size_t nsm, sm_cap;
};

static int em_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct emeta *)a)->id, y = ((const struct emeta *)b)->id;
    return x < y ? -1 : x > y;
}
static int sm_cmp(const void *a, const void *b)
{
    int64_t x = ((const struct smeta *)a)->id, y = ((const struct smeta *)b)->id;
    return x < y ? -1 : x > y;
}

static const struct emeta *em_find(const struct plane *pl, int64_t id)
{
    struct emeta key = {.id = id};
    return pl->nem ? bsearch(&key, pl->em, pl->nem, sizeof(key), em_cmp) : NULL;
}
static const struct smeta *sm_find(const struct plane *pl, int64_t id)
{
    struct smeta key = {.id = id};
    return pl->nsm ? bsearch(&key, pl->sm, pl->nsm, sizeof(key), sm_cmp) : NULL;
}

/* One map entry (key = 1, value = 2) of event_metadata (stat = false) or stat_metadata. */
static int meta_entry(struct xp *x, struct plane *pl, struct pb e, bool stat)
{
    struct pb_field f;
    int rc;
    int64_t key = 0;
    struct pb val = {NULL, NULL};
    while ((rc = pb_next(x, &e, &f)) > 0) {
        if (f.num == 1 && f.wt == PB_VARINT) key = (int64_t)f.v;
        if (f.num == 2 && f.wt == PB_LEN) val = f.sub;
    }
    if (rc < 0) return rc;
    if (!val.p) return 0;
    if (stat) {
        struct smeta m = {.id = key};
        while ((rc = pb_next(x, &val, &f)) > 0)
            if (f.num == 2 && f.wt == PB_LEN) m.name = f.sub;
        if (rc < 0) return rc;
        if ((rc = LAT_GROW(pl->sm, pl->sm_cap, pl->nsm, 1, 64))) return rc;
        pl->sm[pl->nsm++] = m;
        return 0;
    }
    struct emeta m;
    memset(&m, 0, sizeof(m));
    m.id = key;
    while ((rc = pb_next(x, &val, &f)) > 0) {
        if (f.wt != PB_LEN) continue;
        if (f.num == 2) m.name = f.sub;
        if (f.num == 4) m.disp = f.sub;
        if (f.num == 5 && m.nstats < 8) {
            m.stat_at[m.nstats] = f.sub.p;
            m.stat_end[m.nstats++] = f.sub.end;
        }
    }
    if (rc < 0) return rc;
    if ((rc = LAT_GROW(pl->em, pl->em_cap, pl->nem, 1, 64))) return rc;
    pl->em[pl->nem++] = m;
    return 0;
}

/* ---- stats as args ------------------------------------------------------------------------- */

static int intern_pb(struct lat_trace *t, struct pb s, uint32_t *id)
{
    return lat_trace_intern(t, s.p ? (const char *)s.p : "", s.p ? (size_t)(s.end - s.p) : 0, id);
}

/* Appends one XStat as an arg of the event being built (*first, *nargs); bytes values are
 * counted, not kept. */
static int stat_arg(struct xp *x, const struct plane *pl, struct pb s, uint32_t *first,
                    uint32_t *nargs)
{
    struct pb_field f;
    int rc;
    int64_t mid = 0;
    struct lat_arg a = {0};
    bool bytes = false;
    struct pb str = {NULL, NULL};
    uint64_t ref = 0;
    int type = 0;
    while ((rc = pb_next(x, &s, &f)) > 0) {
        switch (f.num) {
        case 1:
            if (f.wt == PB_VARINT) mid = (int64_t)f.v;
            break;
        case 2:
            if (f.wt == PB_I64) {
                memcpy(&a.v.d, &f.v, sizeof(double));
                type = 2;
            }
            break;
        case 3:
            if (f.wt == PB_VARINT) {
                a.v.u = f.v;
                type = 3;
            }
            break;
        case 4:
            if (f.wt == PB_VARINT) {
                a.v.i = (int64_t)f.v;
                type = 4;
            }
            break;
        case 5:
            if (f.wt == PB_LEN) {
                str = f.sub;
                type = 5;
            }
            break;
        case 6:
            bytes = f.wt == PB_LEN;
            type = 6;
            break;
        case 7:
            if (f.wt == PB_VARINT) {
                ref = f.v;
                type = 7;
            }
            break;
        default:
            break;
        }
    }
    if (rc < 0) return rc;
    const struct smeta *m = sm_find(pl, mid);
    struct lat_trace *t = x->t;
    if (type == 6 || bytes) {
        x->bytes_stats++;
        return 0;
    }
    if (!type) return 0;
    if ((rc = m ? intern_pb(t, m->name, &a.key) : lat_trace_intern(t, "stat", 4, &a.key)))
        return rc;
    char num[40];
    switch (type) {
    case 2: {
        int n = snprintf(num, sizeof(num), "%.17g", a.v.d);
        a.type = LAT_ARG_DOUBLE;
        if ((rc = lat_trace_intern(t, num, (size_t)n, &a.str))) return rc;
        break;
    }
    case 3:
        if (a.v.u <= INT64_MAX) {
            a.v.i = (int64_t)a.v.u;
            a.type = LAT_ARG_INT;
        } else {
            a.type = LAT_ARG_UINT;
        }
        break;
    case 4:
        a.type = LAT_ARG_INT;
        break;
    case 5:
        a.type = LAT_ARG_STR;
        if ((rc = intern_pb(t, str, &a.str))) return rc;
        break;
    case 7: {
        const struct smeta *r = sm_find(pl, (int64_t)ref);
        a.type = LAT_ARG_STR;
        if ((rc = r ? intern_pb(t, r->name, &a.str) : lat_trace_intern(t, "", 0, &a.str)))
            return rc;
        break;
    }
    }
    uint32_t idx;
    if ((rc = lat_trace_add_arg(t, &a, &idx))) return rc;
    if (!*nargs) *first = idx;
    (*nargs)++;
    return 0;
}

/* ---- lines and events ---------------------------------------------------------------------- */

struct line_info {
    int64_t id;
    struct pb name, disp;
    int64_t ts_ns;
};

/* Whether a plane is a device ("/device:GPU:0": *ordinal 0) or a host/other plane. */
static void plane_kind(struct pb name, bool *device, int64_t *ordinal)
{
    size_t n = (size_t)(name.end - name.p);
    const char *s = (const char *)name.p;
    *device = false;
    *ordinal = -1;
    if (n >= 8 && !memcmp(s, "/device:", 8)) {
        *device = true;
        /* "/device:GPU:0", "/device:TPU:3 ..." */
        size_t i = n;
        while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
            i--;
        if (i < n && n - i < 9) {
            int64_t v = 0;
            for (size_t j = i; j < n; j++)
                v = v * 10 + (s[j] - '0');
            *ordinal = v;
        }
    }
}

static bool has_prefix(struct pb s, const char *p)
{
    size_t k = strlen(p);
    return (size_t)(s.end - s.p) >= k && !memcmp(s.p, p, k);
}

/* Adds the events of one XLine. */
static int add_line(struct xp *x, const struct plane *pl, struct pb line, int64_t pid, bool device)
{
    struct lat_trace *t = x->t;
    struct pb_field f;
    int rc;
    struct line_info li;
    memset(&li, 0, sizeof(li));
    struct pb scan = line;
    while ((rc = pb_next(x, &scan, &f)) > 0) {
        if (f.num == 1 && f.wt == PB_VARINT) li.id = (int64_t)f.v;
        if (f.num == 2 && f.wt == PB_LEN) li.name = f.sub;
        if (f.num == 3 && f.wt == PB_VARINT) li.ts_ns = (int64_t)f.v;
        if (f.num == 11 && f.wt == PB_LEN) li.disp = f.sub;
    }
    if (rc < 0) return rc;
    uint32_t track;
    if ((rc = lat_trace_track(t, pid, li.id, 0, 0, device, &track))) return rc;
    struct pb label = li.disp.p && li.disp.end > li.disp.p ? li.disp : li.name;
    if (label.p && label.end > label.p && !t->tracks[track].tid_label &&
        (rc = intern_pb(t, label, &t->tracks[track].tid_label)))
        return rc;
    /* device lines: streams hold kernels/copies; the derived lines (XLA Ops, Steps, ...)
     * are annotations of the same work */
    bool stream = device && (has_prefix(li.name, "Stream") || has_prefix(li.disp, "Stream"));
    scan = line;
    while ((rc = pb_next(x, &scan, &f)) > 0) {
        if (f.num != 4 || f.wt != PB_LEN) continue;
        struct pb ev = f.sub, e2 = ev;
        struct pb_field g;
        int64_t mid = 0, off = 0, dur = 0;
        bool agg = false;
        while ((rc = pb_next(x, &e2, &g)) > 0) {
            if (g.wt != PB_VARINT) continue;
            if (g.num == 1) mid = (int64_t)g.v;
            if (g.num == 2) off = (int64_t)g.v;
            if (g.num == 3) dur = (int64_t)g.v;
            if (g.num == 5) agg = true;
        }
        if (rc < 0) return rc;
        if (agg) {
            x->aggregated++;
            lat_trace_drop(t, LAT_DROP_PHASE);
            continue;
        }
        __int128 ps = (__int128)li.ts_ns * 1000 + off;
        __int128 endps = ps + dur;
        __int128 tsn = ps >= 0 ? ps / 1000 : -((-ps + 999) / 1000);
        __int128 endn = endps >= 0 ? endps / 1000 : -((-endps + 999) / 1000);
        if (dur < 0) {
            lat_trace_drop(t, LAT_DROP_NEG_DUR);
            continue;
        }
        if (tsn < LAT_TS_MIN || tsn > LAT_TS_MAX) {
            lat_trace_drop(t, LAT_DROP_TS_RANGE);
            continue;
        }
        if (endn - tsn > LAT_DUR_MAX) {
            lat_trace_drop(t, LAT_DROP_DUR_RANGE);
            continue;
        }
        const struct emeta *m = em_find(pl, mid);
        /* empty: nothing to name and nothing to time. Such a record is 2 bytes of input and
         * would be ~100 of model (and 0.1 MB of gzip inflates to millions of them). */
        if (!dur && (!m || ((!m->name.p || m->name.end == m->name.p) &&
                            (!m->disp.p || m->disp.end == m->disp.p)))) {
            lat_trace_drop(t, LAT_DROP_EMPTY);
            continue;
        }
        struct lat_event e = lat_event_unlinked();
        e.ts = (lat_ns)tsn;
        e.dur = (lat_ns)(endn - tsn);
        e.track = track;
        e.stream = device ? li.id : -1;
        e.device = device && pid >= 0 && pid <= INT32_MAX ? (int32_t)pid : -1;
        e.ph = 'X';
        if (ps % 1000000 != 0 || dur % 1000000 != 0) {
            e.flags |= LAT_EVF_FRAC_TS;
            t->frac_ts = true;
        }
        if ((rc =
                 m ? intern_pb(t, m->name, &e.name) : lat_trace_intern(t, "(unknown)", 9, &e.name)))
            return rc;
        if (device) {
            e.flags |= LAT_EVF_GPU;
            e.kind = stream ? LAT_EV_KERNEL : LAT_EV_GPU_ANNOTATION;
            if (stream && m && m->name.p) {
                size_t n = (size_t)(m->name.end - m->name.p);
                if (memmem(m->name.p, n, "emcpy", 5) || memmem(m->name.p, n, "MemcpyH", 7))
                    e.kind = LAT_EV_MEMCPY;
            }
            if (!stream) e.flags &= (uint16_t)~LAT_EVF_GPU;
        } else {
            e.kind = LAT_EV_OTHER; /* ingest_tf_finish() decides */
        }
        /* args: the event's stats, then its metadata's; then the display name */
        uint32_t first = 0, nargs = 0;
        e2 = ev;
        while ((rc = pb_next(x, &e2, &g)) > 0)
            if (g.num == 4 && g.wt == PB_LEN && (rc = stat_arg(x, pl, g.sub, &first, &nargs)))
                return rc;
        if (rc < 0) return rc;
        for (uint32_t j = 0; m && j < m->nstats; j++) {
            struct pb s = {m->stat_at[j], m->stat_end[j]};
            if ((rc = stat_arg(x, pl, s, &first, &nargs))) return rc;
        }
        if (m && m->disp.p && m->disp.end > m->disp.p) {
            struct lat_arg a = {0};
            uint32_t idx;
            a.type = LAT_ARG_STR;
            if ((rc = lat_trace_intern(t, "display_name", 12, &a.key)) ||
                (rc = intern_pb(t, m->disp, &a.str)) || (rc = lat_trace_add_arg(t, &a, &idx)))
                return rc;
            if (!nargs) first = idx;
            nargs++;
        }
        e.args = nargs ? first : 0;
        e.nargs = nargs;
        if ((rc = lat_trace_add_event(t, &e))) return rc;
    }
    return rc < 0 ? rc : 0;
}

static int add_meta_str(struct lat_trace *t, const char *k, const char *v, size_t vn)
{
    uint32_t a, b;
    int rc = lat_trace_intern(t, k, strlen(k), &a);
    if (!rc) rc = lat_trace_intern(t, v, vn, &b);
    if (!rc) rc = lat_trace_add_meta(t, a, b);
    return rc;
}

/* Plane-level stats of the "Task Environment" plane (profile_start_time, ...) as metadata. */
static int plane_stats_meta(struct xp *x, const struct plane *pl, struct pb plane)
{
    struct pb_field f;
    int rc;
    while ((rc = pb_next(x, &plane, &f)) > 0) {
        if (f.num != 6 || f.wt != PB_LEN) continue;
        uint32_t first = 0, n = 0;
        size_t mark = x->t->nargs;
        if ((rc = stat_arg(x, pl, f.sub, &first, &n))) return rc;
        if (!n) continue;
        const struct lat_arg *a = &x->t->args[first];
        char num[48];
        const char *v = num;
        size_t vn;
        if (a->type == LAT_ARG_INT)
            vn = (size_t)snprintf(num, sizeof(num), "%" PRId64, a->v.i);
        else if (a->type == LAT_ARG_UINT)
            vn = (size_t)snprintf(num, sizeof(num), "%" PRIu64, a->v.u);
        else {
            v = lat_trace_str(x->t, a->str);
            vn = strlen(v);
        }
        char key[160];
        snprintf(key, sizeof(key), "xplane_%s", lat_trace_str(x->t, a->key));
        char copy[256];
        snprintf(copy, sizeof(copy), "%.*s", (int)vn, v);
        x->t->nargs = mark; /* the arg was only a vehicle */
        if ((rc = add_meta_str(x->t, key, copy, strlen(copy)))) return rc;
    }
    return rc < 0 ? rc : 0;
}

static int add_plane(struct xp *x, struct pb plane)
{
    struct plane pl;
    memset(&pl, 0, sizeof(pl));
    struct pb_field f;
    int rc;
    int64_t id = 0;
    struct pb name = {NULL, NULL};
    size_t nlines = 0;
    struct pb scan = plane;
    while ((rc = pb_next(x, &scan, &f)) > 0) {
        if (f.num == 1 && f.wt == PB_VARINT) id = (int64_t)f.v;
        if (f.num == 2 && f.wt == PB_LEN) name = f.sub;
        if (f.num == 3 && f.wt == PB_LEN) nlines++;
        if ((f.num == 4 || f.num == 5) && f.wt == PB_LEN &&
            (rc = meta_entry(x, &pl, f.sub, f.num == 5)))
            goto out;
    }
    if (rc < 0) goto out;
    if (pl.nem > 1) qsort(pl.em, pl.nem, sizeof(*pl.em), em_cmp);
    if (pl.nsm > 1) qsort(pl.sm, pl.nsm, sizeof(*pl.sm), sm_cmp);
    if (!name.p) name.p = name.end = (const uint8_t *)"";
    if (!nlines) {
        rc = plane_stats_meta(x, &pl, plane);
        goto out;
    }
    bool device;
    int64_t ordinal;
    plane_kind(name, &device, &ordinal);
    int64_t pid = device && ordinal >= 0 ? ordinal : id;
    scan = plane;
    while ((rc = pb_next(x, &scan, &f)) > 0)
        if (f.num == 3 && f.wt == PB_LEN && (rc = add_line(x, &pl, f.sub, pid, device))) goto out;
    if (rc < 0) goto out;
    /* the process label: "<host> <plane name>" (TF's trace viewer names it the same way) */
    char label[512];
    int nl = (int)(name.end - name.p), ln;
    if (x->hostlen)
        ln = snprintf(label, sizeof(label), "%.*s %.*s", (int)x->hostlen, x->host, nl,
                      (const char *)name.p);
    else
        ln = snprintf(label, sizeof(label), "%.*s", nl, (const char *)name.p);
    if (ln < 0) ln = 0;
    if ((size_t)ln >= sizeof(label)) ln = (int)sizeof(label) - 1;
    uint32_t lid;
    if ((rc = lat_trace_intern(x->t, label, (size_t)ln, &lid))) goto out;
    for (size_t i = 0; i < x->t->ntracks; i++)
        if (x->t->tracks[i].pid == pid && x->t->tracks[i].gpu == device &&
            !x->t->tracks[i].pid_label)
            x->t->tracks[i].pid_label = lid;
    rc = 0;
out:
    free(pl.em);
    free(pl.sm);
    return rc;
}

static int xp_space(struct xp *x, const uint8_t *data, size_t n)
{
    struct pb b = {data, data + n}, scan = b;
    struct pb_field f;
    int rc;
    size_t planes = 0;
    while ((rc = pb_next(x, &scan, &f)) > 0) {
        if (f.num == 1 && f.wt == PB_LEN) planes++;
        if (f.num == 4 && f.wt == PB_LEN && !x->host) {
            x->host = (const char *)f.sub.p;
            x->hostlen = (size_t)(f.sub.end - f.sub.p);
        }
    }
    if (rc < 0) return rc;
    if (!planes) {
        if (x->err && x->errsz)
            snprintf(x->err, x->errsz,
                     "%s: a protobuf without XPlanes: not a TensorFlow profile (an .xplane.pb "
                     "holds at least the /host:CPU plane); pass the *.xplane.pb tf.profiler "
                     "wrote under <logdir>/plugins/profile/<run>/",
                     x->name);
        return LAT_E_NOT_TRACE;
    }
    scan = b;
    while ((rc = pb_next(x, &scan, &f)) > 0)
        if (f.num == 1 && f.wt == PB_LEN && (rc = add_plane(x, f.sub))) return rc;
    if (rc < 0) return rc;
    if (x->hostlen && (rc = add_meta_str(x->t, "xplane_hostname", x->host, x->hostlen))) return rc;
    if (x->aggregated) {
        char num[32];
        int k = snprintf(num, sizeof(num), "%llu", (unsigned long long)x->aggregated);
        if ((rc = add_meta_str(x->t, "xplane_aggregated_events", num, (size_t)k))) return rc;
    }
    return 0;
}

/* The largest .xplane.pb read (the protobuf is decoded in memory). */
#define XPLANE_MAX_BYTES (UINT64_C(4) << 30)

int ingest_xplane_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, char *err, size_t errsz)
{
    (void)opts;
    const char *nm = name ? name : "(input)";
    *out = NULL;
    uint8_t *data = NULL;
    size_t n = 0, cap = 0;
    const char *chunk;
    size_t cn;
    int rc;
    while ((rc = src_next(src, &chunk, &cn, err, errsz)) > 0) {
        if ((uint64_t)n + cn > XPLANE_MAX_BYTES) {
            free(data);
            src_close(src);
            if (err && errsz)
                snprintf(err, errsz, "%s: .xplane.pb larger than 4 GiB: not read", nm);
            return LAT_E_OVERFLOW;
        }
        if ((rc = LAT_GROW(data, cap, n, cn, 1 << 20))) {
            free(data);
            src_close(src);
            return rc;
        }
        memcpy(data + n, chunk, cn);
        n += cn;
    }
    src_close(src);
    if (rc < 0) {
        free(data);
        return rc;
    }
    if (n == 0) {
        free(data);
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: empty .xplane.pb (0 bytes): tf.profiler writes the file at "
                     "tf.profiler.experimental.stop(); a process that exits or crashes before "
                     "stop() leaves an empty or no file: call stop() (or leave the "
                     "tf.profiler.experimental.Profile context) and profile again",
                     nm);
        return LAT_E_NOT_TRACE;
    }
    struct lat_trace *t = NULL;
    if ((rc = lat_trace_new(&t))) {
        free(data);
        return rc;
    }
    struct xp x = {.base = data, .name = nm, .err = err, .errsz = errsz, .t = t};
    rc = xp_space(&x, data, n);
    if (!rc && x.bytes_stats) {
        char num[32];
        int k = snprintf(num, sizeof(num), "%llu", (unsigned long long)x.bytes_stats);
        rc = add_meta_str(t, "xplane_bytes_stats_skipped", num, (size_t)k);
    }
    free(data);
    if (!rc && t->ev.n == 0 && t->dropped == t->drops[LAT_DROP_EMPTY]) {
        char why[96] = "";
        if (t->dropped)
            snprintf(why, sizeof(why), " with a name or a duration; %llu empty XEvents left out",
                     (unsigned long long)t->dropped);
        if (err && errsz)
            snprintf(err, errsz,
                     "%s: a TensorFlow .xplane.pb without timed events (no XLine holds an "
                     "event%s): profile a few steps between tf.profiler.experimental.start() "
                     "and stop()",
                     nm, why);
        rc = LAT_E_NOT_TRACE;
    }
    if (!rc && name && !(t->path = strdup(name))) rc = -ENOMEM;
    if (!rc) rc = lat_trace_sort(t);
    if (!rc) rc = ingest_tf_finish(t);
    if (rc) {
        if (rc == -ENOMEM && err && errsz) snprintf(err, errsz, "%s: out of memory", nm);
        lat_trace_free(t);
        return rc;
    }
    lat_trace_set_format(t, &ingest_fmt_xplane);
    *out = t;
    return 0;
}

/* ---- the TensorFlow meaning (both .xplane.pb and trace_viewer JSON) ------------------------- */

static const struct lat_arg *arg_of(const struct lat_trace *t, size_t i, uint32_t key)
{
    if (key == UINT32_MAX) return NULL;
    const struct lat_arg *a = t->args + t->ev.args[i];
    for (uint32_t j = 0; j < t->ev.nargs[i]; j++)
        if (a[j].key == key) return &a[j];
    return NULL;
}

/* Gives event i its args plus k string args (keys[j] = vals[j], vals[j] vlen[j] bytes). Args of
 * one event are contiguous: its args are copied once to the end, then the new ones appended
 * (the old copies stay unreferenced). */
static int add_str_args(struct lat_trace *t, size_t i, size_t k, const char *const *keys,
                        const char *const *vals, const size_t *vlen)
{
    uint32_t n = t->ev.nargs[i], first = t->ev.args[i], idx = 0, start = 0;
    int rc;
    for (uint32_t j = 0; j < n; j++) {
        struct lat_arg c = t->args[first + j];
        if ((rc = lat_trace_add_arg(t, &c, &idx))) return rc;
        if (j == 0) start = idx;
    }
    for (size_t j = 0; j < k; j++) {
        struct lat_arg a = {0};
        a.type = LAT_ARG_STR;
        if ((rc = lat_trace_intern(t, keys[j], strlen(keys[j]), &a.key)) ||
            (rc = lat_trace_intern(t, vals[j], vlen[j], &a.str)) ||
            (rc = lat_trace_add_arg(t, &a, &idx)))
            return rc;
        if (n == 0 && j == 0) start = idx;
    }
    t->ev.args[i] = start;
    t->ev.nargs[i] = n + (uint32_t)k;
    return 0;
}

/* Full name "scope/op:Type" of a graph op: the xplane name, or the trace_viewer JSON's stack
 * frame (args "sf" indexes the stackFrames metadata). */
static const char *sf_name(const struct lat_trace *t, int64_t sf, size_t *len, const char *frames,
                           size_t flen)
{
    if (!frames) return NULL;
    char key[32];
    int kn = snprintf(key, sizeof(key), "\"%lld\"", (long long)sf);
    const char *p = frames, *end = frames + flen;
    (void)t;
    while ((p = memmem(p, (size_t)(end - p), key, (size_t)kn)) != NULL) {
        const char *q = p + kn;
        while (q < end && (*q == ' ' || *q == ':'))
            q++;
        if (q < end && *q == '{') {
            const char *nm = memmem(q, (size_t)(end - q), "\"name\"", 6);
            const char *close = memchr(q, '}', (size_t)(end - q));
            if (nm && (!close || nm < close)) {
                nm += 6;
                while (nm < end && (*nm == ' ' || *nm == ':'))
                    nm++;
                if (nm < end && *nm == '"') {
                    const char *s = ++nm;
                    while (nm < end && *nm != '"') {
                        if (*nm == '\\') return NULL; /* escapes: not a plain op name */
                        nm++;
                    }
                    if (nm >= end) return NULL;
                    *len = (size_t)(nm - s);
                    return s;
                }
            }
        }
        p += kn;
    }
    return NULL;
}

/* An integer arg: INT/UINT/BOOL, or a STR of decimal digits (xprof 2.24's trace_viewer JSON
 * writes every arg as a string: "step_num": "3", "is_eager": "0"). */
static bool arg_int_of(const struct lat_trace *t, const struct lat_arg *a, int64_t *v)
{
    if (!a) return false;
    if (a->type == LAT_ARG_INT || a->type == LAT_ARG_BOOL) {
        *v = a->v.i;
        return true;
    }
    if (a->type == LAT_ARG_UINT) {
        *v = a->v.u > INT64_MAX ? INT64_MAX : (int64_t)a->v.u;
        return true;
    }
    if (a->type != LAT_ARG_STR) return false;
    const char *s = lat_trace_str(t, a->str);
    int64_t n = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9' && i < 18; i++)
        n = n * 10 + (s[i] - '0');
    if (!i || s[i]) return false;
    *v = n;
    return true;
}

/* "name:Type" with a Type that is an identifier (TF op types are [A-Za-z0-9_]+). */
static bool split_tf_op(const char *s, size_t n, size_t *colon)
{
    const char *c = NULL;
    for (size_t i = n; i > 0; i--)
        if (s[i - 1] == ':') {
            c = s + i - 1;
            break;
        }
    if (!c || c == s || (size_t)(c - s) + 1 >= n || c[-1] == ':') return false;
    for (const char *p = c + 1; p < s + n; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
              *p == '_'))
            return false;
    for (const char *p = s; p < c; p++)
        if (*p == ' ') return false;
    *colon = (size_t)(c - s);
    return true;
}

static bool is_function_name(const char *s)
{
    return !strncmp(s, "__inference_", 12) || !strncmp(s, "__forward_", 10) ||
           !strncmp(s, "__backward_", 11) || !strncmp(s, "__wrapped__", 11);
}

/* A track of a "/device:..." process (TF's trace_viewer JSON names them so). */
static bool device_track(const struct lat_trace *t, uint32_t track)
{
    if (track >= t->ntracks || !t->tracks[track].pid_label) return false;
    return strstr(lat_trace_str(t, t->tracks[track].pid_label), "/device:") != NULL;
}

static int tf_map(struct lat_trace *t, const char *frames, size_t flen);

/* The graph's op types from stackFrames (every frame's "name" is a node "scope/op:Type"):
 * type string id -> (nodes of that type << 32) | string id of the node's full name (its first
 * one). For the events of xprof's streaming trace_viewer@ JSON, which are named by type alone
 * and carry no "sf". */
static int frame_types(struct lat_trace *t, const char *frames, size_t flen, struct lat_u64map *m)
{
    const char *p = frames, *end = frames + flen;
    int rc;
    while (p && (p = memmem(p, (size_t)(end - p), "\"name\"", 6)) != NULL) {
        p += 6;
        while (p < end && (*p == ' ' || *p == ':'))
            p++;
        if (p >= end || *p != '"') continue;
        const char *s = ++p;
        while (p < end && *p != '"' && *p != '\\')
            p++;
        if (p >= end || *p != '"') continue; /* escapes: not a plain node name */
        size_t n = (size_t)(p - s), colon;
        if (!split_tf_op(s, n, &colon)) continue;
        uint32_t type, node;
        if ((rc = lat_trace_intern(t, s + colon + 1, n - colon - 1, &type)) ||
            (rc = lat_trace_intern(t, s, n, &node)))
            return rc;
        bool added;
        uint64_t *v = lat_u64map_slot(m, type, &added);
        if (!v) return -ENOMEM;
        if (added)
            *v = (uint64_t)1 << 32 | node;
        else if ((uint32_t)*v != node)
            *v += (uint64_t)1 << 32; /* frames are distinct nodes; a repeat is not counted */
    }
    return 0;
}

int ingest_tf_finish(struct lat_trace *t)
{
    const char *frames = NULL;
    size_t flen = 0;
    /* a copy: interning below may move the string table the metadata lives in */
    char *frames_copy = NULL;
    for (size_t m = 0; m < t->nmeta; m++)
        if (!strcmp(lat_trace_str(t, t->meta[m].key), "stackFrames")) {
            const char *v = lat_trace_str(t, t->meta[m].value);
            flen = strlen(v);
            free(frames_copy);
            if (!(frames_copy = malloc(flen + 1))) return -ENOMEM;
            memcpy(frames_copy, v, flen + 1);
        }
    frames = frames_copy;
    int rc = tf_map(t, frames, flen);
    free(frames_copy);
    return rc;
}

static int tf_map(struct lat_trace *t, const char *frames, size_t flen)
{
    uint32_t k_sf = strtab_find(&t->strs, "sf", 2);
    uint32_t k_step = strtab_find(&t->strs, "step_num", 8);
    uint32_t k_eager = strtab_find(&t->strs, "is_eager", 8);
    uint32_t k_stepname = strtab_find(&t->strs, "step_name", 9);
    uint32_t k_long = strtab_find(&t->strs, "long_name", 9);
    uint32_t k_uid = strtab_find(&t->strs, "uid", 3);
    int rc;
    int32_t steps = 0;
    size_t nops = 0, unnamed = 0, nsf = 0, nuid = 0;
    char buf[1024];
    /* xprof's streaming trace_viewer@ JSON: ops named by type, their nodes only in stackFrames */
    struct lat_u64map ftypes = {0};
    if (frames && (rc = frame_types(t, frames, flen, &ftypes))) goto out;
    /* Kineto's category names for what the events became (TF writes none): the analyses that
     * follow HTA keep only events with a category */
    uint32_t c_op, c_ann;
    if ((rc = lat_trace_intern(t, "cpu_op", 6, &c_op)) ||
        (rc = lat_trace_intern(t, "tf_traceme", 10, &c_ann)))
        goto out;
    for (size_t i = 0; i < t->ev.n; i++) {
        if (!(t->ev.flags[i] & LAT_EVF_GPU) && !t->ev.cat[i] && !device_track(t, t->ev.track[i]))
            t->ev.cat[i] = c_ann; /* an op below becomes cpu_op */
        if (t->ev.flags[i] & LAT_EVF_GPU) continue;
        if (t->ev.kind[i] != LAT_EV_OTHER && t->ev.kind[i] != LAT_EV_CPU_OP) continue;
        if (device_track(t, t->ev.track[i])) continue; /* JSON of a /device: plane: as read */
        const char *nm = lat_trace_str(t, t->ev.name[i]);
        size_t nl = strlen(nm);
        const struct lat_arg *st = arg_of(t, i, k_step);
        int64_t stepv, eagerv;
        if (arg_of(t, i, k_uid)) nuid++;
        if (arg_int_of(t, st, &stepv)) {
            /* a tf.profiler.experimental.Trace(name, step_num=N) region: one step */
            t->ev.kind[i] = LAT_EV_USER_ANNOTATION;
            t->ev.flags[i] |= LAT_EVF_STEP;
            t->ev.step[i] = steps < INT32_MAX ? steps++ : steps;
            if (!arg_of(t, i, k_stepname)) { /* xplane: name it as TF's trace viewer does */
                int n = snprintf(buf, sizeof(buf), "%s %lld", nm, (long long)stepv);
                uint32_t id;
                if (n > 0 && (size_t)n < sizeof(buf)) {
                    if ((rc = lat_trace_intern(t, buf, (size_t)n, &id))) goto out;
                    t->ev.name[i] = id;
                }
            }
            continue;
        }
        size_t colon;
        const char *full = NULL;
        size_t fl = 0;
        const struct lat_arg *sf = arg_of(t, i, k_sf);
        const struct lat_arg *ln = arg_of(t, i, k_long);
        bool eager = arg_int_of(t, arg_of(t, i, k_eager), &eagerv) && eagerv != 0;
        uint64_t fv = 0;
        if (sf) nsf++;
        if (split_tf_op(nm, nl, &colon)) {
            full = nm;
            fl = nl;
        } else if (sf && sf->type == LAT_ARG_INT) {
            full = sf_name(t, sf->v.i, &fl, frames, flen);
            if (full && !split_tf_op(full, fl, &colon)) full = NULL;
        } else if (ln && ln->type == LAT_ARG_STR) { /* xprof 2.24 trace_viewer: "long_name" */
            full = lat_trace_str(t, ln->str);
            fl = strlen(full);
            if (!split_tf_op(full, fl, &colon)) full = NULL;
        } else if (!sf && lat_u64map_get(&ftypes, t->ev.name[i], &fv)) {
            /* named by a type of the graph's stackFrames, no "sf": one of its nodes of that type;
             * which one is said only when it has a single one */
            if (fv >> 32 == 1) {
                full = lat_trace_str(t, (uint32_t)fv);
                fl = strlen(full);
                if (!split_tf_op(full, fl, &colon)) full = NULL;
            } else {
                int n = snprintf(buf, sizeof(buf), "(any of %llu %s nodes)",
                                 (unsigned long long)(fv >> 32), nm);
                if (n <= 0 || (size_t)n >= sizeof(buf) || nl >= sizeof(buf)) continue;
                static const char *const keys[] = {"op_type", "tf_mode"};
                const char *vals[] = {nm, eager ? "eager" : "graph"};
                size_t vl[] = {nl, 5};
                uint32_t id;
                char tbuf[1024];
                memcpy(tbuf, nm, nl + 1);
                vals[0] = tbuf;
                if ((rc = add_str_args(t, i, 2, keys, vals, vl)) ||
                    (rc = lat_trace_intern(t, buf, (size_t)n, &id)))
                    goto out;
                t->ev.name[i] = id;
                t->ev.kind[i] = LAT_EV_CPU_OP;
                if (t->ev.cat[i] == c_ann) t->ev.cat[i] = c_op;
                nops++;
                unnamed++;
                continue;
            }
        }
        if (full && fl < sizeof(buf)) {
            /* a graph op (executor): name = node name, op_type = its type */
            char nbuf[1024];
            memcpy(nbuf, full, fl);
            nbuf[fl] = 0;
            static const char *const keys[] = {"tf_op", "op_type", "tf_mode"};
            const char *vals[] = {nbuf, nbuf + colon + 1, eager ? "eager" : "graph"};
            size_t vl[] = {fl, fl - colon - 1, 5};
            uint32_t id;
            if ((rc = add_str_args(t, i, 3, keys, vals, vl)) ||
                (rc = lat_trace_intern(t, nbuf, colon, &id)))
                goto out;
            t->ev.name[i] = id;
            t->ev.kind[i] = LAT_EV_CPU_OP;
            if (t->ev.cat[i] == c_ann) t->ev.cat[i] = c_op;
            nops++;
            continue;
        }
        if (nl > 19 && !strncmp(nm, "EagerLocalExecute: ", 19) && t->ev.dur[i] > 0) {
            /* an op run eagerly (or a tf.function called eagerly: not an op, its graph ops
             * are on the executor threads) */
            const char *op = nm + 19;
            if (is_function_name(op)) {
                t->ev.kind[i] = LAT_EV_OTHER; /* framework work around the graph's ops */
                continue;
            }
            size_t ol = nl - 19;
            if (ol >= sizeof(buf)) continue;
            memcpy(buf, op, ol);
            buf[ol] = 0;
            static const char *const keys[] = {"op_type", "tf_mode"};
            const char *vals[] = {buf, "eager"};
            size_t vl[] = {ol, 5};
            uint32_t id;
            if ((rc = add_str_args(t, i, 2, keys, vals, vl)) ||
                (rc = lat_trace_intern(t, buf, ol, &id)))
                goto out;
            t->ev.name[i] = id;
            t->ev.kind[i] = LAT_EV_CPU_OP;
            if (t->ev.cat[i] == c_ann) t->ev.cat[i] = c_op;
            nops++;
            continue;
        }
        /* the framework's own TraceMe regions (EagerExecute, ExecutorState::Process, ...):
         * category tf_traceme, kind other (not operators: no row of the op tables) */
        if (t->ev.dur[i] <= 1 && t->ev.ph[i] == 'X') {
            t->ev.kind[i] = LAT_EV_INSTANT; /* markers (ThreadpoolListener::Record, ...) */
            t->ev.flags[i] |= LAT_EVF_INSTANT;
        } else {
            t->ev.kind[i] = LAT_EV_OTHER;
        }
    }
    char num[32];
    int n = snprintf(num, sizeof(num), "%zu", nops);
    if ((rc = add_meta_str(t, "tf_ops", num, (size_t)n))) goto out;
    if (unnamed) { /* analyze/tf.c says which ops the file does not name */
        n = snprintf(num, sizeof(num), "%zu", unnamed);
        if ((rc = add_meta_str(t, "tf_ops_unnamed", num, (size_t)n))) goto out;
    }
    if (!steps && nuid && frames && !nsf) {
        /* xprof's streaming trace_viewer@ JSON: every event's args but "uid"/"group_id" are
         * fetched by the viewer on a click, not written: a Trace(step_num=N) region is a plain
         * region there */
        static const char note[] =
            "xprof's streaming trace_viewer@ JSON keeps no step_num on its regions: the "
            "Trace(..., step_num=N) steps cannot be told from other regions; analyze the "
            ".xplane.pb it was converted from";
        if ((rc = add_meta_str(t, "na_steps", note, sizeof(note) - 1))) goto out;
    }
    rc = 0;
out:
    lat_u64map_fini(&ftypes);
    return rc;
}

bool ingest_tf_chrome_like(const struct lat_trace *t)
{
    if (!t || t->fmt != &ingest_fmt_chrome) return false;
    /* TF's trace viewer names host processes "<host> /host:CPU" (and devices "/device:...");
     * the op names come from stackFrames when present, else from "name:Type" event names */
    for (size_t i = 0; i < t->ntracks; i++) {
        const char *l = t->tracks[i].pid_label ? lat_trace_str(t, t->tracks[i].pid_label) : "";
        if (strstr(l, "/host:") || strstr(l, "/device:")) return true;
    }
    return false;
}

/* .xplane.pb, and TF's trace_viewer JSON (read by the JSON reader, mapped here) */
#define TF_ROW(nm)                                                                                 \
    {                                                                                              \
        .name = nm, .what = "a TensorFlow profile", .fw = LAT_FW_TF,                               \
        .caps = LAT_FCAP_HOSTS | LAT_FCAP_MARKER_STEPS | LAT_FCAP_TF_OPS,                          \
        .na_gpu_timeline = "no /device: plane in the profile: a CPU-only run",                     \
        .na_steps = "no tf.profiler.experimental.Trace(name, step_num=N) region in the profile",   \
    }
const struct lat_trace_format ingest_fmt_xplane = TF_ROW("xplane");
const struct lat_trace_format ingest_fmt_tf_trace_viewer = TF_ROW("tf-trace-viewer");

/* ---- sniffing (ingest.c's format table) ---- */

bool ingest_sniff_protobuf(const unsigned char *h, size_t n, const char *path)
{
    if (ingest_looks_json(h, n)) return false;
    return ingest_has_suffix(path, ".pb") || ingest_has_suffix(path, ".pb.gz") ||
           ingest_has_suffix(path, ".xplane") || ingest_has_suffix(path, ".xspace");
}
