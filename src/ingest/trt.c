/*
 * trt.c - TensorRT's JSON files: trtexec --exportProfile (per layer: timeMs over `count`
 * iterations, averageMs, medianMs, percentage), --exportTimes (per query: enqueue on the host
 * clock, H2D/compute/D2H from CUDA events), --exportLayerInfo (IEngineInspector: detailed
 * layers with LayerType, Inputs/Outputs Format/Datatype, TacticName/TacticValue, Origin; or
 * the names-only list of --profilingVerbosity=layer_names_only), and TREx's metadata files
 * (profile.metadata.json: trtexec's performance summary and options; build.metadata.json;
 * the engine's device attributes). ../shared/docs/trace-formats.md section 4.
 *
 * These files are small (a few MB at most: one row per layer or per query), so each is read
 * into a small tree (nodes in one array, strings in one arena) and interpreted from there; the
 * kind of file is decided by its content, not its name. All of an engine's files fill one
 * struct trt_eng (trt.h); trt_emit() makes the trace. Times are ms in the files: converted to
 * int64 ns exactly from their text (json_num_fixed), and the exact text is kept in the args.
 */
#include "ingest/trt.h"
#include "core/err.h"
#include "core/grow.h"
#include "ingest/formats.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

const char *const trt_metric_keys[TRT_NMETRIC] = {"latency",     "enqueue", "h2d",
                                                  "gpu_compute", "d2h",     "end_to_end"};

/* ---- a small tree of one JSON document ---------------------------------------------------- */

#define JN_NONE UINT32_MAX
struct jn {
    uint8_t type;         /* enum json_type: OBJ_BEGIN, ARR_BEGIN or a scalar */
    uint32_t key, keylen; /* arena offset of the member name, JN_NONE */
    uint32_t s, len;      /* arena offset of the string / number text */
    uint32_t child, next, last;
    uint32_t nchild;
};

struct jtree {
    struct jn *n;
    size_t nn, cap;
    char *arena;
    size_t alen, acap;
};

#define TRT_MAX_BYTES ((size_t)1 << 30)

static void jtree_fini(struct jtree *t)
{
    free(t->n);
    free(t->arena);
    memset(t, 0, sizeof(*t));
}

static int arena_add(struct jtree *t, const char *s, size_t n, uint32_t *off)
{
    if (t->alen + n + 1 > TRT_MAX_BYTES) return LAT_E_OVERFLOW;
    int rc = LAT_GROW(t->arena, t->acap, t->alen, n + 1, 4096);
    if (rc) return rc;
    memcpy(t->arena + t->alen, s, n);
    t->arena[t->alen + n] = 0;
    *off = (uint32_t)t->alen;
    t->alen += n + 1;
    return 0;
}

static int jtree_node(struct jtree *t, uint32_t *idx)
{
    if (t->nn == t->cap) {
        if (t->cap * 2 > (size_t)UINT32_MAX / 2) return LAT_E_OVERFLOW;
        int rc = LAT_GROW(t->n, t->cap, t->nn, 1, 256);
        if (rc) return rc;
    }
    *idx = (uint32_t)t->nn++;
    struct jn *j = &t->n[*idx];
    memset(j, 0, sizeof(*j));
    j->key = j->s = j->child = j->next = j->last = JN_NONE;
    return 0;
}

/* Parses the whole source into t; the root is node 0. err: "NAME: why". */
static int jtree_parse(struct ingest_src *src, const char *name, const char *what, const char *redo,
                       struct jtree *t, char *err, size_t errsz)
{
    struct json_tok tok;
    struct json_token tk;
    json_tok_init(&tok, 0);
    json_tok_set_max_depth(&tok, 64);
    uint32_t stack[66];
    int sp = 0;
    uint32_t pend_key = JN_NONE, pend_len = 0;
    bool done = false, fed_end = false;
    uint64_t bytes = 0;
    int rc = 0;
    char ebuf[200] = "";
    while (!done) {
        rc = json_tok_next(&tok, &tk);
        if (rc == 0) {
            if (fed_end) break;
            const char *data;
            size_t n;
            rc = src_next(src, &data, &n, ebuf, sizeof(ebuf));
            if (rc < 0) {
                snprintf(err, errsz, "%s: %s", name, ebuf[0] ? ebuf : lat_strerror(rc));
                goto out;
            }
            if (rc == 0) {
                json_tok_finish(&tok);
                fed_end = true;
            } else {
                bytes += n;
                if (bytes > TRT_MAX_BYTES) {
                    rc = LAT_E_OVERFLOW;
                    snprintf(err, errsz, "%s: larger than 1 GiB: not %s", name, what);
                    goto out;
                }
                json_tok_feed(&tok, data, n);
            }
            continue;
        }
        if (rc < 0) {
            if (bytes == 0 && rc == LAT_E_TRUNCATED)
                snprintf(err, errsz,
                         "%s: empty file (0 bytes), expected %s (trtexec writes it at exit: "
                         "the run may have failed before); %s",
                         name, what, redo);
            else if (rc == LAT_E_TRUNCATED)
                snprintf(err, errsz,
                         "%s: truncated %s (the JSON ends at byte %llu): trtexec was stopped "
                         "while writing it or the copy is incomplete; %s",
                         name, what, (unsigned long long)bytes, redo);
            else
                snprintf(err, errsz, "%s: not valid %s: %s at byte %llu; %s", name, what,
                         json_tok_errmsg(&tok), (unsigned long long)json_tok_erroff(&tok), redo);
            goto out;
        }
        switch (tk.type) {
        case JSON_KEY:
            if ((rc = arena_add(t, tk.s, tk.len, &pend_key))) goto oom;
            pend_len = (uint32_t)tk.len;
            break;
        case JSON_OBJ_END:
        case JSON_ARR_END:
            if (sp > 0) sp--;
            break;
        case JSON_END:
            done = true;
            break;
        default: {
            uint32_t id;
            if ((rc = jtree_node(t, &id))) goto oom;
            struct jn *j = &t->n[id];
            j->type = (uint8_t)tk.type;
            j->key = pend_key;
            j->keylen = pend_len;
            pend_key = JN_NONE;
            if (tk.type == JSON_STR || tk.type == JSON_NUM) {
                uint32_t off;
                if ((rc = arena_add(t, tk.s, tk.len, &off))) goto oom;
                t->n[id].s = off;
                t->n[id].len = (uint32_t)tk.len;
            }
            if (sp > 0) {
                struct jn *p = &t->n[stack[sp - 1]];
                if (p->last == JN_NONE)
                    p->child = id;
                else
                    t->n[p->last].next = id;
                p->last = id;
                p->nchild++;
            }
            if ((tk.type == JSON_OBJ_BEGIN || tk.type == JSON_ARR_BEGIN) && sp < 65)
                stack[sp++] = id;
        }
        }
    }
    rc = 0;
    if (t->nn == 0) {
        rc = LAT_E_TRUNCATED;
        snprintf(err, errsz, "%s: empty file (0 bytes), expected %s; %s", name, what, redo);
    }
    goto out;
oom:
    snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
out:
    json_tok_fini(&tok);
    src_close(src);
    return rc;
}

static const char *jkey(const struct jtree *t, const struct jn *j)
{
    return j->key == JN_NONE ? "" : t->arena + j->key;
}
static const char *jstr(const struct jtree *t, const struct jn *j)
{
    return j->s == JN_NONE ? "" : t->arena + j->s;
}
static const struct jn *jget(const struct jtree *t, const struct jn *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJ_BEGIN) return NULL;
    const struct jn *found = NULL; /* duplicate keys: the last one, as Python's json */
    for (uint32_t c = obj->child; c != JN_NONE; c = t->n[c].next)
        if (!strcmp(jkey(t, &t->n[c]), key)) found = &t->n[c];
    return found;
}
static const struct jn *jfirst(const struct jtree *t, const struct jn *j)
{
    return j && j->child != JN_NONE ? &t->n[j->child] : NULL;
}
static const struct jn *jnext(const struct jtree *t, const struct jn *j)
{
    return j->next != JN_NONE ? &t->n[j->next] : NULL;
}
static bool jnum(const struct jtree *t, const struct jn *j, double *out)
{
    if (!j || j->type != JSON_NUM) return false;
    return json_num_double(jstr(t, j), j->len, out) == 0 && isfinite(*out);
}
/* ms text -> ns, exactly (rounded past the ns digit) */
static bool jms_ns(const struct jtree *t, const struct jn *j, int64_t *out)
{
    if (!j || j->type != JSON_NUM) return false;
    return json_num_fixed(jstr(t, j), j->len, 6, out, NULL) == 0 && *out >= -(INT64_C(1) << 58) &&
           *out <= (INT64_C(1) << 58);
}

/* ---- engine data -------------------------------------------------------------------------- */

static void layer_fini(struct trt_layer *l)
{
    free(l->name);
    free(l->time_txt);
    free(l->avg_txt);
    free(l->median_txt);
    free(l->pct_txt);
    free(l->type);
    free(l->tactic);
    free(l->tactic_value);
    free(l->origin);
    free(l->in_fmt);
    free(l->out_fmt);
    free(l->precision);
}

void trt_eng_fini(struct trt_eng *e)
{
    for (size_t i = 0; i < e->nlayers; i++)
        layer_fini(&e->layers[i]);
    free(e->layers);
    free(e->idx);
    free(e->q);
    for (size_t i = 0; i < e->nkv; i++) {
        free(e->kv[i].key);
        free(e->kv[i].value);
    }
    free(e->kv);
    memset(e, 0, sizeof(*e));
}

static int dup_num(const struct jtree *t, const struct jn *j, char **txt, double *v)
{
    if (!jnum(t, j, v)) return 1;
    free(*txt);
    *txt = strndup(jstr(t, j), j->len);
    return *txt ? 0 : -ENOMEM;
}

/* ---- --exportProfile ---------------------------------------------------------------------- */

static int read_profile(const struct jtree *t, const char *name, struct trt_eng *e, char *err,
                        size_t errsz)
{
    const struct jn *root = &t->n[0];
    size_t k = 0;
    for (const struct jn *it = jfirst(t, root); it; it = jnext(t, it), k++) {
        if (it->type != JSON_OBJ_BEGIN) {
            snprintf(err, errsz,
                     "%s: trtexec --exportProfile file: element %zu is not an object; export it "
                     "again with trtexec --exportProfile=FILE",
                     name, k);
            return LAT_E_NOT_TRACE;
        }
        const struct jn *cnt = jget(t, it, "count");
        if (cnt && !jget(t, it, "name")) {
            double c;
            if (jnum(t, cnt, &c) && c >= 0 && c < 9e18) e->profile_count = (int64_t)c;
            continue;
        }
        const struct jn *nm = jget(t, it, "name");
        if (!nm || nm->type != JSON_STR) {
            snprintf(err, errsz,
                     "%s: trtexec --exportProfile file: row %zu has no \"name\" string; export "
                     "it again with trtexec --exportProfile=FILE --profilingVerbosity=detailed",
                     name, k);
            return LAT_E_NOT_TRACE;
        }
        bool created;
        struct trt_layer *l = trt_layer_get(e, jstr(t, nm), &created);
        if (!l) return -ENOMEM;
        if (l->has_profile) { /* the same name twice (a loop, or two profiles): a new row */
            char alt[64];
            snprintf(alt, sizeof(alt), " #%zu", k);
            size_t ln = strlen(jstr(t, nm));
            char *nn = malloc(ln + sizeof(alt));
            if (!nn) return -ENOMEM;
            snprintf(nn, ln + sizeof(alt), "%s%s", jstr(t, nm), alt);
            l = trt_layer_get(e, nn, &created);
            free(nn);
            if (!l) return -ENOMEM;
        }
        int rc;
        if ((rc = dup_num(t, jget(t, it, "timeMs"), &l->time_txt, &l->time_ms)) < 0 ||
            (rc = dup_num(t, jget(t, it, "averageMs"), &l->avg_txt, &l->avg_ms)) < 0 ||
            (rc = dup_num(t, jget(t, it, "percentage"), &l->pct_txt, &l->pct)) < 0)
            return rc;
        rc = dup_num(t, jget(t, it, "medianMs"), &l->median_txt, &l->median_ms);
        if (rc < 0) return rc;
        l->has_median = rc == 0;
        if (!l->time_txt || !l->avg_txt) {
            snprintf(err, errsz,
                     "%s: trtexec --exportProfile file: layer \"%.80s\" has no numeric timeMs "
                     "and averageMs; export it again with trtexec --exportProfile=FILE",
                     name, l->name);
            return LAT_E_NOT_TRACE;
        }
        if (l->time_ms < 0 || l->avg_ms < 0 || l->time_ms > 1e12 || l->avg_ms > 1e12 ||
            (l->has_median && (l->median_ms < 0 || l->median_ms > 1e12))) {
            snprintf(err, errsz,
                     "%s: trtexec --exportProfile file: layer \"%.80s\" has a negative or "
                     "impossible time; export it again",
                     name, l->name);
            return LAT_E_NOT_TRACE;
        }
        l->has_profile = true;
    }
    e->have_profile = true;
    trt_note_input(e, "profile");
    return 0;
}

/* ---- --exportTimes ------------------------------------------------------------------------ */

static int read_times(const struct jtree *t, struct trt_eng *e, const char *name, char *err,
                      size_t errsz)
{
    static const char *const keys[2][8] = {
        {"startEnqMs", "endEnqMs", "startH2dMs", "endH2dMs", "startComputeMs", "endComputeMs",
         "startD2hMs", "endD2hMs"},
        /* TensorRT 7: input/output instead of H2D/D2H */
        {"startEnqMs", "endEnqMs", "startInMs", "endInMs", "startComputeMs", "endComputeMs",
         "startOutMs", "endOutMs"}};
    for (const struct jn *it = jfirst(t, &t->n[0]); it; it = jnext(t, it)) {
        int64_t v[8];
        int set = jget(t, it, "startInMs") ? 1 : 0;
        /* why a query is left out: the first reason found (model/events.h) */
        int why = -1;
        for (int k = 0; k < 8; k++) {
            const struct jn *j = jget(t, it, keys[set][k]);
            if (!j) {
                if (why < 0) why = LAT_DROP_NO_TIME;
            } else if (!jms_ns(t, j, &v[k])) {
                if (why < 0) why = LAT_DROP_BAD_TIME;
            } else if (v[k] < 0 && why < 0) {
                why = LAT_DROP_NEG_TIME; /* ms from the run's start: never before it */
            }
        }
        for (int k = 0; why < 0 && k < 8; k += 2)
            if (v[k + 1] < v[k]) why = LAT_DROP_NEG_DUR;
        bool order = why < 0;
        /* durations: the files' own h2dMs/computeMs/d2hMs where given (the start/end times
         * have 6 significant digits: 10 us steps after 1 s; the durations keep theirs) */
        static const char *const dk[2][3] = {{"h2dMs", "computeMs", "d2hMs"},
                                             {"inMs", "computeMs", "outMs"}};
        for (int k = 0; order && k < 3; k++) {
            int64_t d;
            const struct jn *j = jget(t, it, dk[set][k]);
            if (jms_ns(t, j, &d)) {
                if (d < 0)
                    order = false, why = LAT_DROP_NEG_DUR;
                else
                    v[2 * k + 3] = v[2 * k + 2] + d;
            } else if (j && j->type != JSON_NULL) {
                order = false, why = LAT_DROP_BAD_TIME;
            }
        }
        if (!order) {
            e->q_bad++;
            e->q_drops[why]++;
            continue;
        }
        int rc = LAT_GROW(e->q, e->q_cap, e->nq, 1, 1024);
        if (rc) return rc;
        struct trt_query *q = &e->q[e->nq++];
        q->enq0 = v[0], q->enq1 = v[1], q->h2d0 = v[2], q->h2d1 = v[3];
        q->c0 = v[4], q->c1 = v[5], q->d2h0 = v[6], q->d2h1 = v[7];
    }
    e->have_times = true;
    trt_note_input(e, "times");
    /* most queries unusable: the file is not what trtexec writes (the model's one rule) */
    char why[400];
    int rc = lat_drops_check(e->q_drops, e->q_bad, e->q_bad + e->nq, "queries",
                             "each start/end time must be a number of ms, not negative, and "
                             "no end before its start; export them again with trtexec "
                             "--exportTimes=FILE",
                             why, sizeof(why));
    if (rc) snprintf(err, errsz, "%s: trtexec --exportTimes file: %s", name, why);
    return rc;
}

/* ---- --exportLayerInfo -------------------------------------------------------------------- */

/* The data type named in a Format/Datatype text ("Channel major FP16 format where ...",
 * "Four wide channel vectorized row major Int8 format"), or NULL. */
static const char *dtype_of(const char *s)
{
    static const struct {
        const char *word, *type;
    } map[] = {{"FP32", "FP32"}, {"Float", "FP32"},  {"FP16", "FP16"},   {"Half", "FP16"},
               {"BF16", "BF16"}, {"FP8", "FP8"},     {"FP4", "FP4"},     {"UInt8", "UINT8"},
               {"Int8", "INT8"}, {"Int32", "INT32"}, {"Int64", "INT64"}, {"Int4", "INT4"},
               {"Bool", "BOOL"}};
    const char *best = NULL, *at = NULL;
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        const char *p = strcasestr(s, map[i].word);
        /* the first type word in the text; UInt8 before Int8 at the same place */
        if (p && (!at || p < at)) {
            at = p;
            best = map[i].type;
        }
    }
    return best;
}

/* "fmt1 | fmt2" of a layer's Inputs or Outputs; the first's type in *type. */
static char *formats_of(const struct jtree *t, const struct jn *arr, const char **type)
{
    *type = NULL;
    if (!arr || arr->type != JSON_ARR_BEGIN) return NULL;
    size_t len = 0;
    for (const struct jn *it = jfirst(t, arr); it; it = jnext(t, it)) {
        const struct jn *f = jget(t, it, "Format/Datatype");
        if (f && f->type == JSON_STR) len += f->len + 3;
    }
    if (!len) return NULL;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    size_t o = 0;
    for (const struct jn *it = jfirst(t, arr); it; it = jnext(t, it)) {
        const struct jn *f = jget(t, it, "Format/Datatype");
        if (!f || f->type != JSON_STR) continue;
        if (!*type) *type = dtype_of(jstr(t, f));
        o += (size_t)snprintf(s + o, len + 1 - o, "%s%s", o ? " | " : "", jstr(t, f));
    }
    return s;
}

static int set_str(char **dst, const struct jtree *t, const struct jn *j)
{
    if (!j || j->type != JSON_STR) return 0;
    free(*dst);
    *dst = strndup(jstr(t, j), j->len);
    return *dst ? 0 : -ENOMEM;
}

static int read_layers(const struct jtree *t, const struct jn *arr, struct trt_eng *e)
{
    for (const struct jn *it = jfirst(t, arr); it; it = jnext(t, it)) {
        bool created;
        struct trt_layer *l;
        if (it->type == JSON_STR) { /* --profilingVerbosity=layer_names_only */
            if (!(l = trt_layer_get(e, jstr(t, it), &created))) return -ENOMEM;
            l->has_info = true;
            e->info_names_only = true;
            continue;
        }
        const struct jn *nm = jget(t, it, "Name");
        if (!nm || nm->type != JSON_STR) continue; /* counted nowhere: not a layer */
        if (!(l = trt_layer_get(e, jstr(t, nm), &created))) return -ENOMEM;
        l->has_info = true;
        int rc;
        if ((rc = set_str(&l->type, t, jget(t, it, "LayerType"))) ||
            (rc = set_str(&l->tactic, t, jget(t, it, "TacticName"))) ||
            (rc = set_str(&l->tactic_value, t, jget(t, it, "TacticValue"))) ||
            (rc = set_str(&l->origin, t, jget(t, it, "Origin"))))
            return rc;
        if (!l->tactic) { /* older TensorRT: "Tactic" */
            const struct jn *tv = jget(t, it, "Tactic");
            if ((rc = set_str(&l->tactic_value, t, tv))) return rc;
        }
        const char *ti, *to;
        free(l->in_fmt);
        free(l->out_fmt);
        l->in_fmt = formats_of(t, jget(t, it, "Inputs"), &ti);
        l->out_fmt = formats_of(t, jget(t, it, "Outputs"), &to);
        /* a layer's precision: the type of its first input (what its kernel reads: an INT8
         * convolution with a fused dequantize writes FP32 but computes in INT8); its first
         * output's type for a layer without inputs */
        const char *p = ti ? ti : to;
        free(l->precision);
        l->precision = p ? strdup(p) : NULL;
        if (p && !l->precision) return -ENOMEM;
    }
    e->have_info = true;
    trt_note_input(e, "layers");
    return 0;
}

/* ---- TREx metadata ------------------------------------------------------------------------ */

static int kv_from_obj(struct trt_eng *e, const struct jtree *t, const struct jn *obj,
                       const char *prefix)
{
    for (const struct jn *it = jfirst(t, obj); it; it = jnext(t, it)) {
        char key[160];
        snprintf(key, sizeof(key), "%s%s", prefix, jkey(t, it));
        int rc = 0;
        if (it->type == JSON_STR || it->type == JSON_NUM)
            rc = trt_kv_add(e, key, jstr(t, it), it->len);
        else if (it->type == JSON_TRUE || it->type == JSON_FALSE)
            rc = trt_kv_add(e, key, it->type == JSON_TRUE ? "true" : "false", 5);
        if (rc) return rc;
    }
    return 0;
}

static void metric_from_arr(struct trt_metric *m, const struct jtree *t, const struct jn *arr)
{
    double v[TRT_MAXSTAT + 4];
    size_t n = 0;
    for (const struct jn *it = jfirst(t, arr); it && n < TRT_MAXSTAT + 4; it = jnext(t, it))
        if (jnum(t, it, &v[n])) n++;
    memset(m, 0, sizeof(*m));
    if (n < 4) return;
    m->have_min = m->have_max = m->have_mean = m->have_median = true;
    m->min = v[0], m->max = v[1], m->mean = v[2], m->median = v[3];
    /* [min, max, mean, median, p90, p95, p99] (TensorRT >= 8.4), [.., p99] before */
    static const double three[3] = {90, 95, 99};
    size_t np = n - 4;
    for (size_t i = 0; i < np && i < TRT_MAXSTAT; i++) {
        m->pct_at[i] = np == 3 ? three[i] : np == 1 ? 99 : 0;
        m->pct[i] = v[4 + i];
    }
    m->npct = np == 3 || np == 1 ? np : 0; /* an unknown layout: no percentile claimed */
}

static int read_profile_meta(const struct jtree *t, struct trt_eng *e)
{
    const struct jn *root = &t->n[0], *ps = jget(t, root, "performance_summary");
    static const char *const names[TRT_NMETRIC] = {
        "Latency", "Enqueue Time", "H2D Latency", "GPU Compute Time", "D2H Latency", NULL};
    if (ps) {
        for (int i = 0; i < TRT_NMETRIC; i++)
            if (names[i]) metric_from_arr(&e->m[i], t, jget(t, ps, names[i]));
        e->have_qps = jnum(t, jget(t, ps, "Throughput"), &e->qps);
        e->have_wall = jnum(t, jget(t, ps, "Total Host Walltime"), &e->wall_s);
        e->have_gpu_total = jnum(t, jget(t, ps, "Total GPU Compute Time"), &e->gpu_total_s);
        e->have_summary = true;
        e->summary_source = "TREx profile.metadata.json (trtexec's performance summary)";
    }
    int rc;
    if ((rc = kv_from_obj(e, t, jget(t, root, "inference_options"), "option.")) ||
        (rc = kv_from_obj(e, t, jget(t, root, "device_information"), "device.")) ||
        (rc = kv_from_obj(e, t, jget(t, root, "build_options"), "build.")) ||
        (rc = kv_from_obj(e, t, jget(t, root, "model_options"), "model.")))
        return rc;
    trt_note_input(e, ps ? "summary" : "build");
    return 0;
}

static int read_engine_meta(const struct jtree *t, struct trt_eng *e)
{
    const struct jn *o = jfirst(t, &t->n[0]);
    const struct jn *nm = jget(t, o, "Name");
    int rc = 0;
    if (nm && nm->type == JSON_STR) rc = trt_kv_add(e, "device.Name", jstr(t, nm), nm->len);
    const struct jn *cc = jget(t, o, "ComputeCapability");
    double a, b;
    const struct jn *c0 = jfirst(t, cc), *c1 = c0 ? jnext(t, c0) : NULL;
    if (!rc && jnum(t, c0, &a) && jnum(t, c1, &b)) {
        char buf[32];
        int n = snprintf(buf, sizeof(buf), "%g.%g", a, b);
        rc = trt_kv_add(e, "device.ComputeCapability", buf, (size_t)n);
    }
    const struct jn *sm = jget(t, o, "MULTIPROCESSOR_COUNT");
    if (!rc && sm && sm->type == JSON_NUM) rc = trt_kv_add(e, "device.SMs", jstr(t, sm), sm->len);
    trt_note_input(e, "device");
    return rc;
}

/* What a file of this name should be, for messages: "trtexec --exportProfile JSON" and how
 * to make it again. */
static void kind_of_name(const char *name, const char **what, const char **redo)
{
    static const struct {
        const char *sfx, *what, *redo;
    } k[] = {
        {".profile.metadata.json", "TREx profile metadata",
         "run TREx's process_engine.py --profile-engine again"},
        {".build.metadata.json", "TREx build metadata", "run TREx's process_engine.py again"},
        {".metadata.json", "TREx engine metadata", "run TREx's process_engine.py again"},
        {".profile.json", "trtexec --exportProfile JSON",
         "export it again: trtexec --loadEngine=ENGINE --exportProfile=FILE "
         "--profilingVerbosity=detailed --separateProfileRun"},
        {".timing.json", "trtexec --exportTimes JSON",
         "export it again: trtexec --loadEngine=ENGINE --exportTimes=FILE"},
        {".times.json", "trtexec --exportTimes JSON",
         "export it again: trtexec --loadEngine=ENGINE --exportTimes=FILE"},
        {".graph.json", "trtexec --exportLayerInfo JSON",
         "export it again: trtexec --loadEngine=ENGINE --exportLayerInfo=FILE "
         "--profilingVerbosity=detailed"},
        {".layers.json", "trtexec --exportLayerInfo JSON",
         "export it again: trtexec --loadEngine=ENGINE --exportLayerInfo=FILE "
         "--profilingVerbosity=detailed"},
    };
    size_t l = strlen(name);
    for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
        size_t n = strlen(k[i].sfx);
        if (l >= n && !strcasecmp(name + l - n, k[i].sfx)) {
            *what = k[i].what;
            *redo = k[i].redo;
            return;
        }
    }
    *what = "trtexec/TREx JSON";
    *redo = "export it again with trtexec (--exportProfile, --exportTimes or --exportLayerInfo)";
}

int trt_read_json(struct ingest_src *src, const char *name, struct trt_eng *e, char *err,
                  size_t errsz)
{
    struct jtree t = {0};
    const char *what, *redo;
    kind_of_name(name, &what, &redo);
    int rc = jtree_parse(src, name, what, redo, &t, err, errsz);
    if (!rc && !t.n) rc = LAT_E_INTERNAL;
    if (rc) {
        jtree_fini(&t);
        return rc;
    }
    const struct jn *root = &t.n[0], *first = jfirst(&t, root);
    if (root->type == JSON_ARR_BEGIN && first && first->type == JSON_OBJ_BEGIN &&
        (jget(&t, first, "count") || jget(&t, first, "averageMs")))
        rc = read_profile(&t, name, e, err, errsz);
    else if (root->type == JSON_ARR_BEGIN && first && first->type == JSON_OBJ_BEGIN &&
             (jget(&t, first, "startComputeMs") || jget(&t, first, "computeMs")))
        rc = read_times(&t, e, name, err, errsz);
    else if (root->type == JSON_ARR_BEGIN && !first)
        rc = 0, trt_note_input(e, "empty"); /* [] : a profile or times file without rows */
    else if (root->type == JSON_OBJ_BEGIN && jget(&t, root, "Layers") &&
             jget(&t, root, "Layers")->type == JSON_ARR_BEGIN)
        rc = read_layers(&t, jget(&t, root, "Layers"), e);
    else if (root->type == JSON_OBJ_BEGIN &&
             (jget(&t, root, "performance_summary") || jget(&t, root, "build_options") ||
              jget(&t, root, "model_options") || jget(&t, root, "inference_options")))
        rc = read_profile_meta(&t, e);
    else if (root->type == JSON_ARR_BEGIN && first && jget(&t, first, "ComputeCapability"))
        rc = read_engine_meta(&t, e);
    else {
        rc = LAT_E_NOT_TRACE;
        snprintf(err, errsz,
                 "%s: JSON, but none of trtexec's exports (--exportProfile: [{\"count\"}, "
                 "{\"name\", \"timeMs\", ...}]; --exportTimes: [{\"startEnqMs\", ...}]; "
                 "--exportLayerInfo: {\"Layers\": [...]}) nor TREx metadata; pass the file "
                 "trtexec wrote",
                 name);
    }
    if (rc == -ENOMEM) snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
    jtree_fini(&t);
    return rc;
}

/* ---- the trace ---------------------------------------------------------------------------- */

static int intern(struct lat_trace *t, const char *s, uint32_t *id)
{
    return lat_trace_intern(t, s, strlen(s), id);
}

static int arg_str(struct lat_trace *t, const char *key, const char *v, uint32_t *first,
                   uint32_t *n)
{
    if (!v) return 0;
    struct lat_arg a = {0};
    uint32_t idx;
    int rc;
    a.type = LAT_ARG_STR;
    if ((rc = intern(t, key, &a.key)) || (rc = intern(t, v, &a.str)) ||
        (rc = lat_trace_add_arg(t, &a, &idx)))
        return rc;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

static int arg_num(struct lat_trace *t, const char *key, const char *txt, double v, uint32_t *first,
                   uint32_t *n)
{
    if (!txt) return 0;
    struct lat_arg a = {0};
    uint32_t idx;
    int rc;
    a.type = LAT_ARG_DOUBLE;
    a.v.d = v;
    if ((rc = intern(t, key, &a.key)) || (rc = intern(t, txt, &a.str)) ||
        (rc = lat_trace_add_arg(t, &a, &idx)))
        return rc;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

static int arg_int(struct lat_trace *t, const char *key, int64_t v, int type, uint32_t *first,
                   uint32_t *n)
{
    struct lat_arg a = {0};
    uint32_t idx;
    int rc;
    a.type = (uint32_t)type;
    a.v.i = v;
    if ((rc = intern(t, key, &a.key)) || (rc = lat_trace_add_arg(t, &a, &idx))) return rc;
    if (!*n) *first = idx;
    (*n)++;
    return 0;
}

/* meta "trt.KEY" = value (already JSON text) */
static int meta_raw(struct lat_trace *t, const char *key, const char *json)
{
    char k[200];
    snprintf(k, sizeof(k), "trt.%s", key);
    uint32_t a, b;
    int rc;
    if ((rc = intern(t, k, &a)) || (rc = intern(t, json, &b))) return rc;
    return lat_trace_add_meta(t, a, b);
}

static int meta_num(struct lat_trace *t, const char *key, double v)
{
    char num[64];
    snprintf(num, sizeof(num), "%.17g", v);
    /* the shortest text that reads back as v */
    for (int p = 6; p < 17; p++) {
        char s[64];
        snprintf(s, sizeof(s), "%.*g", p, v);
        if (strtod(s, NULL) == v) {
            memcpy(num, s, strlen(s) + 1);
            break;
        }
    }
    return meta_raw(t, key, num);
}

static int meta_str(struct lat_trace *t, const char *key, const char *v)
{
    size_t l = strlen(v);
    char *q = malloc(l * 6 + 3);
    if (!q) return -ENOMEM;
    size_t o = 0;
    q[o++] = '"';
    for (size_t i = 0; i < l; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '"' || c == '\\') {
            q[o++] = '\\';
            q[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(q + o, 7, "\\u%04x", c);
        } else {
            q[o++] = (char)c;
        }
    }
    q[o++] = '"';
    q[o] = 0;
    int rc = meta_raw(t, key, q);
    free(q);
    return rc;
}

static int emit_layers(struct trt_eng *e, struct lat_trace *t)
{
    uint32_t pid, tid, tr, cat;
    int rc;
    if ((rc = intern(t, "TensorRT engine", &pid)) ||
        (rc = intern(t, "layers (one mean inference)", &tid)) ||
        (rc = lat_trace_track(t, -1, -1, pid, tid, false, &tr)) ||
        (rc = intern(t, "trt_layer", &cat)))
        return rc;
    /* profile order first (the execution order), then layers only the layer info has */
    lat_ns at = 0;
    int64_t idx = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < e->nlayers; i++) {
            struct trt_layer *l = &e->layers[i];
            if ((pass == 0) != l->has_profile) continue;
            struct lat_event ev = lat_event_unlinked();
            ev.ts = at;
            ev.dur = l->has_profile ? (lat_ns)llround(l->avg_ms * 1e6) : 0;
            if (!l->has_profile) ev.flags = LAT_EVF_NO_DUR;
            ev.kind = LAT_EV_OTHER;
            ev.cat = cat;
            ev.track = tr;
            ev.ph = 'X';
            if ((rc = intern(t, l->name, &ev.name))) return rc;
            uint32_t f = 0, n = 0;
            if ((rc = arg_int(t, "layer_index", idx++, LAT_ARG_INT, &f, &n)) ||
                (rc = arg_num(t, "time_ms", l->time_txt, l->time_ms, &f, &n)) ||
                (rc = arg_num(t, "average_ms", l->avg_txt, l->avg_ms, &f, &n)) ||
                (rc = arg_num(t, "median_ms", l->median_txt, l->median_ms, &f, &n)) ||
                (rc = arg_num(t, "percentage", l->pct_txt, l->pct, &f, &n)) ||
                (rc = arg_str(t, "layer_type", l->type, &f, &n)) ||
                (rc = arg_str(t, "precision", l->precision, &f, &n)) ||
                (rc = arg_str(t, "tactic", l->tactic, &f, &n)) ||
                (rc = arg_str(t, "tactic_value", l->tactic_value, &f, &n)) ||
                (rc = arg_str(t, "origin", l->origin, &f, &n)) ||
                (rc = arg_str(t, "inputs", l->in_fmt, &f, &n)) ||
                (rc = arg_str(t, "outputs", l->out_fmt, &f, &n)) ||
                (rc = arg_int(t, "in_profile", l->has_profile, LAT_ARG_BOOL, &f, &n)) ||
                (rc = arg_int(t, "in_layer_info", l->has_info, LAT_ARG_BOOL, &f, &n)))
                return rc;
            ev.args = f;
            ev.nargs = n;
            if ((rc = lat_trace_add_event(t, &ev))) return rc;
            at += ev.dur;
        }
    return 0;
}

static int emit_queries(struct trt_eng *e, struct lat_trace *t)
{
    uint32_t hp, ht, gp, gt, th, tg;
    int rc;
    if ((rc = intern(t, "TensorRT host (host clock)", &hp)) || (rc = intern(t, "enqueue", &ht)) ||
        (rc = intern(t, "TensorRT GPU (CUDA events)", &gp)) || (rc = intern(t, "stream", &gt)) ||
        (rc = lat_trace_track(t, -2, -2, hp, ht, false, &th)) ||
        (rc = lat_trace_track(t, -3, -3, gp, gt, false, &tg)))
        return rc;
    static const char *const cats[4] = {"trt_enqueue", "trt_h2d", "trt_compute", "trt_d2h"};
    static const char *const names[4] = {"enqueue", "H2D", "compute", "D2H"};
    uint32_t cid[4], nid[4];
    for (int k = 0; k < 4; k++)
        if ((rc = intern(t, cats[k], &cid[k])) || (rc = intern(t, names[k], &nid[k]))) return rc;
    for (size_t i = 0; i < e->nq; i++) {
        const struct trt_query *q = &e->q[i];
        const int64_t se[4][2] = {
            {q->enq0, q->enq1}, {q->h2d0, q->h2d1}, {q->c0, q->c1}, {q->d2h0, q->d2h1}};
        for (int k = 0; k < 4; k++) {
            struct lat_event ev = lat_event_unlinked();
            ev.ts = se[k][0];
            ev.dur = se[k][1] - se[k][0];
            ev.kind = LAT_EV_OTHER;
            ev.cat = cid[k];
            ev.name = nid[k];
            ev.track = k ? tg : th;
            ev.step = i < INT32_MAX ? (int32_t)i : INT32_MAX;
            ev.ph = 'X';
            if ((rc = lat_trace_add_event(t, &ev))) return rc;
        }
    }
    return 0;
}

static int emit_summary(struct trt_eng *e, struct lat_trace *t)
{
    int rc = 0;
    if (!e->have_summary) return 0;
    if ((rc = meta_str(t, "summary.source", e->summary_source))) return rc;
    if (e->have_qps && (rc = meta_num(t, "summary.throughput_qps", e->qps))) return rc;
    if (e->have_wall && (rc = meta_num(t, "summary.walltime_s", e->wall_s))) return rc;
    if (e->have_gpu_total && (rc = meta_num(t, "summary.gpu_compute_total_s", e->gpu_total_s)))
        return rc;
    for (int i = 0; i < TRT_NMETRIC; i++) {
        const struct trt_metric *m = &e->m[i];
        char k[96];
        const char *mk = trt_metric_keys[i];
#define PUT(have, stat, v)                                                                         \
    if (have) {                                                                                    \
        snprintf(k, sizeof(k), "summary.%s_ms.%s", mk, stat);                                      \
        if ((rc = meta_num(t, k, v))) return rc;                                                   \
    }
        PUT(m->have_min, "min", m->min);
        PUT(m->have_max, "max", m->max);
        PUT(m->have_mean, "mean", m->mean);
        PUT(m->have_median, "median", m->median);
        for (size_t j = 0; j < m->npct; j++) {
            char st[32];
            snprintf(st, sizeof(st), "p%g", m->pct_at[j]);
            PUT(true, st, m->pct[j]);
        }
#undef PUT
    }
    return 0;
}

int trt_emit(struct trt_eng *e, const char *path, struct lat_trace **out)
{
    struct lat_trace *t;
    *out = NULL;
    int rc = lat_trace_new(&t);
    if (rc) return rc;
    lat_trace_set_format(t, &ingest_fmt_tensorrt);
    if (path && !(t->path = strdup(path))) rc = -ENOMEM;
    if (!rc) rc = meta_str(t, "inputs", e->inputs[0] ? e->inputs : "none");
    if (!rc && e->profile_count >= 0 && e->have_profile) {
        char b[32];
        snprintf(b, sizeof(b), "%lld", (long long)e->profile_count);
        rc = meta_raw(t, "profile_count", b);
    }
    if (!rc && e->have_info)
        rc = meta_raw(t, "layer_info_names_only", e->info_names_only ? "true" : "false");
    if (!rc && e->have_times) {
        char b[32];
        snprintf(b, sizeof(b), "%llu", (unsigned long long)e->q_bad);
        rc = meta_raw(t, "queries_dropped", b);
        /* and in the model's drop accounting: the commands warn, the JSON has them by reason */
        lat_trace_add_drops(t, e->q_drops);
        t->drops_query += e->q_bad;
    }
    if (!rc && e->cut[0]) rc = lat_trace_cut_note(t, e->cut);
    if (!rc && e->nwarn) {
        char b[32];
        snprintf(b, sizeof(b), "%zu", e->nwarn);
        rc = meta_raw(t, "log_warnings", b);
    }
    for (size_t i = 0; !rc && i < e->nkv; i++)
        rc = meta_str(t, e->kv[i].key, e->kv[i].value);
    if (!rc) rc = emit_summary(e, t);
    if (!rc && e->nlayers) rc = emit_layers(e, t);
    if (!rc && e->nq) rc = emit_queries(e, t);
    if (rc) {
        lat_trace_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

/* ---- names, engines ----------------------------------------------------------------------- */

static const char *const trex_suffixes[] = {
    ".profile.metadata.json", ".build.metadata.json", ".profile.json", ".graph.json",
    ".timing.json",           ".metadata.json",       ".layers.json",  ".times.json",
};

static size_t suffix_len(const char *path)
{
    size_t l = strlen(path);
    for (size_t i = 0; i < sizeof(trex_suffixes) / sizeof(trex_suffixes[0]); i++) {
        size_t k = strlen(trex_suffixes[i]);
        if (l > k && !strcasecmp(path + l - k, trex_suffixes[i])) return k;
    }
    return 0;
}

bool trt_export_name(const char *path)
{
    return path && suffix_len(path) != 0;
}

size_t ingest_trt_prefix_len(const char *name)
{
    size_t k = suffix_len(name);
    return k ? strlen(name) - k : 0;
}

int ingest_trt_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                    struct lat_trace **out, char *err, size_t errsz)
{
    (void)opts;
    struct trt_eng e = {0};
    e.profile_count = -1;
    const char *nm = name ? name : "(input)";
    *out = NULL;
    int rc = trt_read_json(src, nm, &e, err, errsz);
    if (!rc && (rc = trt_emit(&e, name, out))) snprintf(err, errsz, "%s: %s", nm, lat_strerror(rc));
    trt_eng_fini(&e);
    return rc;
}

int ingest_trt_log_load(struct ingest_src *src, const char *name,
                        const struct lat_ingest_opts *opts, struct lat_trace **out, char *err,
                        size_t errsz)
{
    (void)opts;
    struct trt_eng e = {0};
    e.profile_count = -1;
    const char *nm = name ? name : "(input)";
    *out = NULL;
    int rc = trt_read_log(src, nm, &e, err, errsz);
    if (!rc && (rc = trt_emit(&e, name, out))) snprintf(err, errsz, "%s: %s", nm, lat_strerror(rc));
    trt_eng_fini(&e);
    return rc;
}

bool ingest_trt_engine_prefix(const char *prefix)
{
    char p[4096];
    for (size_t i = 0; i < sizeof(trex_suffixes) / sizeof(trex_suffixes[0]); i++) {
        struct stat st;
        size_t l = strlen(prefix);
        /* "x.engine." and "x.engine" both name x.engine.profile.json */
        if (l && prefix[l - 1] == '.') l--;
        if ((size_t)snprintf(p, sizeof(p), "%.*s%s", (int)l, prefix, trex_suffixes[i]) >= sizeof(p))
            return false;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) return true;
    }
    return false;
}

int ingest_trt_engine_open(const char *prefix, const struct lat_ingest_opts *opts,
                           struct lat_trace **out, char *err, size_t errsz)
{
    struct trt_eng e = {0};
    e.profile_count = -1;
    *out = NULL;
    size_t l = strlen(prefix);
    if (l && prefix[l - 1] == '.') l--;
    int rc = 0, found = 0;
    char p[4096];
    for (size_t i = 0; !rc && i < sizeof(trex_suffixes) / sizeof(trex_suffixes[0]); i++) {
        struct stat st;
        if ((size_t)snprintf(p, sizeof(p), "%.*s%s", (int)l, prefix, trex_suffixes[i]) >= sizeof(p))
            continue;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        struct ingest_src *src;
        char ebuf[200] = "";
        rc = src_open_path(p, opts ? opts->chunk_bytes : 0, false, &src, ebuf, sizeof(ebuf));
        if (rc) {
            snprintf(err, errsz, "%s: %s", p, ebuf[0] ? ebuf : lat_strerror(rc));
            break;
        }
        rc = trt_read_json(src, p, &e, err, errsz);
        found++;
    }
    if (!rc && !found) {
        rc = LAT_E_NOT_FOUND;
        snprintf(err, errsz,
                 "%s: no TREx/trtexec file with this prefix (PREFIX.profile.json, .graph.json, "
                 ".timing.json, .profile.metadata.json, ...)",
                 prefix);
    }
    if (!rc && (rc = trt_emit(&e, prefix, out)))
        snprintf(err, errsz, "%s: %s", prefix, lat_strerror(rc));
    trt_eng_fini(&e);
    return rc;
}

const struct lat_trace_format ingest_fmt_tensorrt = {
    .name = "tensorrt",
    .what = "a TensorRT input (trtexec/TREx)",
    .fw = LAT_FW_TENSORRT,
    .caps = LAT_FCAP_RUNS | LAT_FCAP_TRT_LAYERS,
    .na_gpu_timeline = "a TensorRT profile holds layer times, no kernel timeline: see the "
                       "TensorRT section",
    .na_steps = "no ProfilerStep: per-query times are in the TensorRT section",
};

/* ---- sniffing (ingest.c's format table) ---- */

/* trtexec --exportProfile: [ { "count" : N }, { "name" : ..., "timeMs" : ... } ...] */
bool ingest_sniff_trtexec(const unsigned char *h, size_t n, const char *path)
{
    size_t i;
    if (n == 0) return ingest_has_suffix(path, ".profile.json");
    if (ingest_first_char(h, n, &i) != '[') return false;
    size_t j = i + 1;
    if (ingest_first_char(h + j, n - j, &i) != '{') return false;
    j += i + 1;
    if (ingest_first_char(h + j, n - j, &i) != '"') return false;
    j += i;
    return n - j >= 7 && memcmp(h + j, "\"count\"", 7) == 0;
}

/* trtexec --exportTimes: [ { "startEnqMs" : ...} ...] (TensorRT 7: startInMs ...) */
bool ingest_sniff_trtexec_times(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (n == 0)
        return ingest_has_suffix(path, ".timing.json") || ingest_has_suffix(path, ".times.json");
    return ingest_first_key(h, n, true, k, sizeof(k)) &&
           (!strcmp(k, "startEnqMs") || !strcmp(k, "startInMs") || !strcmp(k, "startH2dMs") ||
            !strcmp(k, "startComputeMs"));
}

/* trtexec --exportLayerInfo: {"Layers": [...], "Bindings": [...]} */
bool ingest_sniff_trtexec_layers(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (n == 0)
        return ingest_has_suffix(path, ".graph.json") || ingest_has_suffix(path, ".layers.json");
    return ingest_first_key(h, n, false, k, sizeof(k)) &&
           (!strcmp(k, "Layers") || !strcmp(k, "Bindings"));
}

/* TREx metadata: {"performance_summary"...}, {"model_options"...}, [{"Name", ..,
 * "ComputeCapability"...}]; and any TREx/trtexec export name whose content is not JSON at all
 * (its reader says what is wrong with it instead of the Chrome reader) */
bool ingest_sniff_trex_meta(const unsigned char *h, size_t n, const char *path)
{
    char k[32];
    if (ingest_first_key(h, n, false, k, sizeof(k)))
        return !strcmp(k, "performance_summary") || !strcmp(k, "model_options") ||
               !strcmp(k, "build_options") || !strcmp(k, "inference_options");
    if (ingest_first_key(h, n, true, k, sizeof(k)))
        return !strcmp(k, "Name") && ingest_has_suffix(path, ".metadata.json") &&
               memmem(h, n, "\"ComputeCapability\"", 19) != NULL;
    return (n == 0 || !ingest_looks_json(h, n)) && ingest_trt_prefix_len(path ? path : "") > 0;
}
