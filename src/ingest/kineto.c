/*
 * kineto.c - Kineto / PyTorch profiler / Chrome trace-event JSON -> struct lat_trace.
 *
 * One pass over the input, pulled token by token from the streaming tokenizer (json/tok.h),
 * which is fed chunk by chunk from source.c (plain, or gzip inflated on the fly). A small
 * recursive-descent parser reads the top level (an object with traceEvents and metadata, or a
 * bare array of events) and each event object field by field, writing straight into the
 * columnar model: names, categories and string args are interned, numbers are kept exact
 * (ts/dur via fixed-point µs -> ns, ids as int64/uint64, fractions with their text). Nothing is
 * allocated per event (the columns and the string table grow by doubling); arrays/objects
 * inside args are re-serialized compactly into one reusable buffer and interned.
 * Category spellings of every layout (2021 Operator/Runtime/Kernel, current cpu_op/kernel/...,
 * ROCm, MTIA, XPU) are normalized to enum lat_ev_kind here, once. Secrets in metadata are
 * replaced at load (see ingest.h). Rejected: building a DOM (memory grows with the JSON),
 * a SAX callback parser (the per-event state machine becomes much harder to read).
 * Not thread-safe per trace; independent loads may run in parallel.
 */
#define PR_FMT "ingest"
#include "core/buf.h"
#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/par.h"
#include "core/units.h"
#include "ingest/formats.h"
#include "ingest/ingest.h"
#include "json/tok.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A label from a ph:"M" event, applied to tracks after the load. */
struct kx_label {
    int64_t pid, tid;
    uint32_t pid_str, tid_str;
    uint32_t name;
    bool thread; /* thread_name (pid, tid) vs process_name (pid) */
};

/* An open ph:"B" event waiting for its "E": slots form one stack per track (prev: the slot
 * index + 1 of the next older open B on the same track, 0 = none) and a free list, so an E
 * finds its B in O(1) whatever the number of open B events on other tracks. */
struct kx_open {
    size_t ev;
    uint32_t prev;
};

struct kx {
    struct json_tok tok;
    struct ingest_src *src;
    struct lat_trace *t;
    const struct lat_ingest_opts *opts;
    unsigned flags;
    char *err;
    size_t errsz;
    bool fed_eof;
    struct lat_buf raw; /* re-serialized raw JSON values */
    struct lat_buf tmp; /* scratch copies (keys while values are read) */
    struct kx_label *labels;
    size_t nlabels, labels_cap;
    struct kx_open *open;
    size_t nopen, open_cap; /* slots used (high-water mark) and allocated */
    uint32_t open_free;     /* free slot list: index + 1, 0 = empty */
    uint32_t *track_open;   /* per track: slot index + 1 of its newest open B, 0 = none */
    size_t track_open_cap;
    uint64_t tombstones; /* B events removed after the load (E before B, too long) */
    uint64_t ns_like;    /* events whose ts looks like epoch ns written as µs */
    size_t max_value;    /* bytes of one string / number / kept raw value */
    uint64_t next_progress;
    /* what the input looked like, for trace->format */
    bool top_object, saw_schema, saw_2021, saw_legacy_pid, saw_ort, saw_ph, saw_events_key;
    bool ort_shaped;    /* the events are an ONNX Runtime profile's (ingest_kineto_load) */
    bool ort_converted; /* metadata latscope_converted_from "ort" (latscope convert) */
    bool saw_chakra;
    int64_t nevents_in;    /* elements of traceEvents */
    uint64_t nmeta_in;     /* ph M elements */
    uint32_t icache[4096]; /* kx_intern's cache: id + 1, 0 = empty */
    uint32_t icache_tag[4096];
    /* interned ids used in comparisons */
    uint32_t id_cpu_functions;
};

/* ---- token pulling ---- */

static int kx_fail_tok(struct kx *k, int rc)
{
    if (!k->err || !k->errsz) return rc;
    unsigned long long off = json_tok_erroff(&k->tok);
    const char *what = src_is_gzip(k->src) ? "gzip-compressed JSON" : "JSON";
    if (rc == LAT_E_TRUNCATED && off == 0)
        snprintf(k->err, k->errsz,
                 src_is_gzip(k->src)
                     ? "the gzip data decompresses to nothing (0 bytes): not a trace (expected "
                       "Kineto/Chrome trace JSON)"
                     : "empty file (0 bytes): not a trace (expected Kineto/Chrome trace JSON, "
                       "plain or gzip)");
    else if (rc == LAT_E_TRUNCATED)
        snprintf(k->err, k->errsz, "truncated %s trace: JSON byte %llu: %s", what, off,
                 json_tok_errmsg(&k->tok));
    else if (rc == LAT_E_OVERFLOW && json_tok_too_big(&k->tok))
        snprintf(k->err, k->errsz,
                 "JSON byte %llu: %s (the limit on one value): raise it with "
                 "LATSCOPE_MAX_VALUE=BYTES (k/M/G suffixes) if the file is genuine",
                 off, json_tok_errmsg(&k->tok));
    else
        snprintf(k->err, k->errsz, "JSON byte %llu: %s", off, json_tok_errmsg(&k->tok));
    return rc;
}

/* kx_next's slow path: the tokenizer returned rc != 1 (needs input, or failed). */
static __attribute__((noinline)) int kx_refill(struct kx *k, struct json_token *tk, int rc)
{
    for (;;) {
        if (rc == 1) return 1;
        if (rc < 0) return kx_fail_tok(k, rc);
        if (k->fed_eof) {
            /* done: the caller asked past the end */
            tk->type = JSON_END;
            return 1;
        }
        const char *data;
        size_t n;
        rc = src_next(k->src, &data, &n, k->err, k->errsz);
        if (rc < 0) return rc;
        if (rc == 0) {
            json_tok_finish(&k->tok);
            k->fed_eof = true;
        } else {
            json_tok_feed(&k->tok, data, n);
            if (k->opts && k->opts->progress && json_tok_offset(&k->tok) >= k->next_progress) {
                k->opts->progress(k->opts->progress_ctx, src_raw_done(k->src),
                                  src_raw_total(k->src));
                k->next_progress = json_tok_offset(&k->tok) + (16u << 20);
            }
        }
        rc = json_tok_next(&k->tok, tk);
    }
}

/* The next token, reading more input as needed. 1 or < 0 (err filled). The common case (a
 * token in the current chunk) stays inline; refills and errors go out of line. */
static inline int kx_next(struct kx *k, struct json_token *tk)
{
    int rc = json_tok_next(&k->tok, tk);
    return rc == 1 ? 1 : kx_refill(k, tk, rc);
}

/* Skips the rest of the value that starts with tk. */
static int kx_skip(struct kx *k, const struct json_token *tk)
{
    if (tk->type != JSON_OBJ_BEGIN && tk->type != JSON_ARR_BEGIN) return 0;
    int depth = 1;
    struct json_token x;
    while (depth) {
        int rc = kx_next(k, &x);
        if (rc < 0) return rc;
        if (x.type == JSON_OBJ_BEGIN || x.type == JSON_ARR_BEGIN)
            depth++;
        else if (x.type == JSON_OBJ_END || x.type == JSON_ARR_END)
            depth--;
    }
    return 0;
}

static int kx_nomem(struct kx *k)
{
    if (k->err && k->errsz) snprintf(k->err, k->errsz, "out of memory");
    return -ENOMEM;
}

/* Appends the compact JSON text of the value starting with tk to k->raw. When redact is set,
 * members whose key looks secret get the value "REDACTED" (the original is skipped). */
static int kx_raw(struct kx *k, const struct json_token *tk, bool redact)
{
    struct lat_buf *b = &k->raw;
    int depth = 0, rc = 0;
    bool need_comma = false;
    struct json_token x = *tk;
    for (;;) {
        switch (x.type) {
        case JSON_OBJ_BEGIN:
        case JSON_ARR_BEGIN:
            if (need_comma) rc |= buf_putc(b, ',');
            rc |= buf_putc(b, x.type == JSON_OBJ_BEGIN ? '{' : '[');
            depth++;
            need_comma = false;
            break;
        case JSON_OBJ_END:
        case JSON_ARR_END:
            rc |= buf_putc(b, x.type == JSON_OBJ_END ? '}' : ']');
            depth--;
            need_comma = true;
            break;
        case JSON_KEY: {
            if (need_comma) rc |= buf_putc(b, ',');
            rc |= json_escape(b, x.s, x.len);
            rc |= buf_putc(b, ':');
            need_comma = false;
            bool secret = false;
            if (redact) {
                k->tmp.len = 0;
                rc |= buf_append(&k->tmp, x.s, x.len);
                rc |= buf_putc(&k->tmp, '\0');
                secret = !rc && lat_meta_is_secret(k->tmp.data);
            }
            if (secret) {
                struct json_token v;
                int r2 = kx_next(k, &v);
                if (r2 < 0) return r2;
                r2 = kx_skip(k, &v);
                if (r2 < 0) return r2;
                rc |= buf_puts(b, "\"REDACTED\"");
                need_comma = true;
            }
            break;
        }
        case JSON_STR:
            if (need_comma) rc |= buf_putc(b, ',');
            rc |= json_escape(b, x.s, x.len);
            need_comma = true;
            break;
        case JSON_NUM:
            if (need_comma) rc |= buf_putc(b, ',');
            rc |= buf_append(b, x.s, x.len);
            need_comma = true;
            break;
        case JSON_TRUE:
        case JSON_FALSE:
        case JSON_NULL:
            if (need_comma) rc |= buf_putc(b, ',');
            rc |= buf_puts(b, x.type == JSON_TRUE    ? "true"
                              : x.type == JSON_FALSE ? "false"
                                                     : "null");
            need_comma = true;
            break;
        default:
            break;
        }
        if (rc) return kx_nomem(k);
        if (b->len > k->max_value) {
            if (k->err && k->errsz)
                snprintf(k->err, k->errsz,
                         "JSON byte %llu: a value larger than %zu bytes (the limit on one "
                         "value): raise it with LATSCOPE_MAX_VALUE=BYTES (k/M/G suffixes) if "
                         "the file is genuine",
                         (unsigned long long)tk->off, k->max_value);
            return LAT_E_OVERFLOW;
        }
        if (depth == 0) return 0;
        int r = kx_next(k, &x);
        if (r < 0) return r;
        if (x.type == JSON_END) return LAT_E_TRUNCATED;
    }
}

/* Interns s[0..n). Short strings go through a direct-mapped cache first (keys, categories
 * and names repeat on every event; a cheap hash of length and edge bytes plus one memcmp is
 * faster than the string table's full FNV hash and probe). */
static int kx_intern(struct kx *k, const char *s, size_t n, uint32_t *id)
{
    uint32_t slot = 0, tag = 0;
    if (n && n <= 64) {
        uint32_t a, b;
        if (n >= 4) {
            memcpy(&a, s, 4); /* constant-size copies: one load each */
            memcpy(&b, s + n - 4, 4);
        } else {
            a = (unsigned char)s[0] | (uint32_t)(unsigned char)s[n - 1] << 8;
            b = (unsigned char)s[n / 2];
        }
        tag = (a * 0x9E3779B1u) ^ (b * 0x85EBCA77u) ^ ((uint32_t)n * 0xC2B2AE3Du);
        tag ^= tag >> 15;
        slot = tag & 4095;
        /* the tag spares a cache miss into the string pool for strings seen once */
        if (k->icache_tag[slot] == tag && k->icache[slot]) {
            uint32_t c = k->icache[slot] - 1;
            if (strtab_len(&k->t->strs, c) == n && memcmp(strtab_str(&k->t->strs, c), s, n) == 0) {
                *id = c;
                return 0;
            }
        }
    }
    int rc = lat_trace_intern(k->t, s, n, id);
    if (rc) return rc == -ENOMEM ? kx_nomem(k) : rc;
    if (n && n <= 64) {
        k->icache[slot] = *id + 1;
        k->icache_tag[slot] = tag;
    }
    return 0;
}

/* ---- category normalization ---- */

struct cat_map {
    const char *name;
    enum lat_ev_kind kind;
};

static const struct cat_map cat_maps[] = {
    {"cpu_op", LAT_EV_CPU_OP},
    {"Operator", LAT_EV_CPU_OP},
    {"user_annotation", LAT_EV_USER_ANNOTATION},
    {"gpu_user_annotation", LAT_EV_GPU_ANNOTATION},
    {"python_function", LAT_EV_PYTHON},
    {"cuda_runtime", LAT_EV_RUNTIME},
    {"Runtime", LAT_EV_RUNTIME},
    {"mtia_runtime", LAT_EV_RUNTIME},
    {"xpu_runtime", LAT_EV_RUNTIME},
    {"hip_runtime", LAT_EV_RUNTIME},
    {"privateuse1_runtime", LAT_EV_RUNTIME},
    {"glow_runtime", LAT_EV_RUNTIME},
    {"cuda_driver", LAT_EV_DRIVER},
    {"xpu_driver", LAT_EV_DRIVER},
    {"privateuse1_driver", LAT_EV_DRIVER},
    {"kernel", LAT_EV_KERNEL},
    {"Kernel", LAT_EV_KERNEL},
    {"gpu_memcpy", LAT_EV_MEMCPY},
    {"Memcpy", LAT_EV_MEMCPY},
    {"gpu_memset", LAT_EV_MEMSET},
    {"Memset", LAT_EV_MEMSET},
    {"cuda_sync", LAT_EV_SYNC},
    {"xpu_sync", LAT_EV_SYNC},
    {"mtia_ccp_events", LAT_EV_DEVICE_OTHER},
    {"collective_comm", LAT_EV_DEVICE_OTHER},
    {"cuda_event", LAT_EV_DEVICE_OTHER},
    {"overhead", LAT_EV_OVERHEAD},
    {"Trace", LAT_EV_SPAN},
    {"cpu_instant_event", LAT_EV_INSTANT},
    {"cpu_sample", LAT_EV_CPU_SAMPLE}, /* latscope trace --cpu: on-CPU instants, off-CPU X */
};

/* Kind of a category, cached by string id (categories are few). */
struct kind_cache {
    uint32_t id[64];
    uint8_t kind[64];
    unsigned n;
};

static enum lat_ev_kind cat_kind(struct kx *k, struct kind_cache *kc, uint32_t cat)
{
    for (unsigned i = 0; i < kc->n; i++)
        if (kc->id[i] == cat) return (enum lat_ev_kind)kc->kind[i];
    const char *s = lat_trace_str(k->t, cat);
    enum lat_ev_kind kind = LAT_EV_OTHER;
    for (size_t i = 0; i < sizeof(cat_maps) / sizeof(cat_maps[0]); i++)
        if (strcmp(s, cat_maps[i].name) == 0) {
            kind = cat_maps[i].kind;
            break;
        }
    if (!strcmp(s, "Operator") || !strcmp(s, "Runtime") || !strcmp(s, "Kernel") ||
        !strcmp(s, "Memcpy") || !strcmp(s, "Memset"))
        k->saw_2021 = true;
    if (!strcmp(s, "Session") || !strcmp(s, "Node")) k->saw_ort = true;
    if (kc->n < 64) {
        kc->id[kc->n] = cat;
        kc->kind[kc->n] = (uint8_t)kind;
        kc->n++;
    }
    return kind;
}

double ingest_ns_to_us_double(lat_ns ns)
{
    /* (double)ns is exact up to 2^53 and IEEE division is correctly rounded. Beyond, the whole
     * µs part is exact and its ulp is >= 2^-10: r / 1000 is never within rounding error of a
     * tie unless it is one (r a multiple of 125), and those fractions are exact in binary. */
    if (ns >= -(1LL << 53) && ns <= (1LL << 53)) return (double)ns / 1000.0;
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    double v;
    if (a / 1000 <= (1ULL << 53)) {
        v = (double)(a / 1000) + (double)(a % 1000) / 1000.0;
    } else { /* beyond 2^53 µs (> 285 years of ns): the whole part is inexact too */
        char txt[32];
        snprintf(txt, sizeof(txt), "%llu.%03llu", (unsigned long long)(a / 1000),
                 (unsigned long long)(a % 1000));
        v = strtod(txt, NULL);
    }
    return ns < 0 ? -v : v;
}

int32_t ingest_step_number(const char *name, size_t len)
{
    static const char pfx[] = "ProfilerStep#";
    size_t pl = sizeof(pfx) - 1;
    if (len <= pl || memcmp(name, pfx, pl) != 0) return -1;
    int64_t v = 0;
    size_t i = pl;
    for (; i < len && name[i] >= '0' && name[i] <= '9'; i++) {
        v = v * 10 + (name[i] - '0');
        if (v > INT32_MAX) return -1;
    }
    return i > pl ? (int32_t)v : -1;
}

/* ---- one event ---- */

/* A pid/tid value: an integer, or a string (interned; the number found in it, or -1). */
struct kx_id {
    int64_t num;
    uint32_t str;
    bool set;
};

static int64_t num_in_string(const char *s, size_t n)
{
    /* "25738" -> 25738, "stream 7" -> 7, "GPU 0 Counters" -> 0, "Spans" -> -1 */
    for (size_t i = 0; i < n; i++)
        if (s[i] >= '0' && s[i] <= '9') {
            int64_t v = 0;
            for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
                if (v > (INT64_MAX - 9) / 10) return -1;
                v = v * 10 + (s[i] - '0');
            }
            return v;
        }
    return -1;
}

static int kx_read_id(struct kx *k, const struct json_token *tk, struct kx_id *id)
{
    id->set = true;
    id->str = 0;
    if (tk->type == JSON_NUM) {
        if (tk->num_flags & JSON_NUM_I64) {
            id->num = tk->i;
        } else {
            /* a float or huge pid: keep the text */
            id->num = -1;
            return kx_intern(k, tk->s, tk->len, &id->str);
        }
        return 0;
    }
    if (tk->type == JSON_STR) {
        id->num = num_in_string(tk->s, tk->len);
        int rc = kx_intern(k, tk->s, tk->len, &id->str);
        /* a purely numeric string ("25738") is the number itself, but the text is kept so
         * that "7" and 7 stay distinct tracks, as in the input */
        return rc;
    }
    id->num = -1;
    k->t->bad_fields++; /* true/false/null, an object or an array */
    return kx_skip(k, tk);
}

/* A µs time value -> ns. *nonint: written with a fraction/exponent. Returns T_OK, T_BAD (not a
 * number: null, "300us", true) or T_RANGE (a number beyond int64 ns); *neg tells the sign of a
 * T_RANGE number and *ns_like whether it looks like epoch nanoseconds written as µs (about
 * 1e17 .. 1e20). Objects and arrays are the caller's (they must be skipped). */
enum { T_OK = 0, T_BAD, T_RANGE };

static __attribute__((noinline)) int kx_time_slow(const struct json_token *tk, lat_ns *out,
                                                  bool *neg, bool *ns_like)
{
    int rc = json_num_fixed(tk->s, tk->len, 3, out, NULL);
    if (rc == 0) return T_OK;
    if (rc != LAT_E_OVERFLOW) return T_BAD;
    double d;
    *neg = tk->len && tk->s[0] == '-';
    *ns_like = json_num_double(tk->s, tk->len, &d) == 0 && d >= 1e17 && d < 1e20;
    return T_RANGE;
}

static inline int kx_time(const struct json_token *tk, lat_ns *out, bool *nonint, bool *neg,
                          bool *ns_like)
{
    *nonint = false;
    if (tk->type == JSON_NUM) {
        if ((tk->num_flags & JSON_NUM_I64) && tk->i < INT64_MAX / 1000 &&
            tk->i > INT64_MIN / 1000) {
            *out = tk->i * 1000;
            return T_OK;
        }
        *nonint = !(tk->num_flags & JSON_NUM_INT);
        return kx_time_slow(tk, out, neg, ns_like);
    }
    if (tk->type == JSON_STR) { /* some producers quote numbers */
        *nonint = memchr(tk->s, '.', tk->len) || memchr(tk->s, 'e', tk->len);
        return kx_time_slow(tk, out, neg, ns_like);
    }
    return T_BAD;
}

/* Arg keys dropped by default: bulky and unused by the analyses. ("Concrete Inputs" is kept:
 * the performance model reads convolution strides and reduction dims from it.) */
static bool arg_dropped(const char *s, size_t n)
{
#define D(lit)                                                                                     \
    {                                                                                              \
        lit, sizeof(lit) - 1                                                                       \
    }
    static const struct {
        const char *s;
        size_t n;
    } drop[] = {D("Call stack"),       D("Input Strides"), D("Module Hierarchy"),
                D("Python module id"), D("Ev Idx"),        D("Profiler Event Index")};
#undef D
    for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
        if (drop[i].n == n && memcmp(drop[i].s, s, n) == 0) return true;
    return false;
}

struct kx_ev {
    struct lat_event e;
    struct kx_id pid, tid;
    char ph;
    uint8_t ts_bad, dur_bad; /* enum lat_drop_reason + 1 of an unusable ts / dur; 0 = none */
    bool have_ts, have_dur, have_cat, have_name, nonint_ts, nonint_dur, ns_like, bind_e;
    bool have_device, have_flow_id;
    bool have_sf; /* "sf": a stack frame id (TF trace_viewer JSON; Kineto never writes one) */
    int64_t flow_id;
    int64_t sf;
    uint32_t label; /* M events: args.name */
};

static inline bool key_is(const struct json_token *tk, const char *lit, size_t n)
{
    return tk->len == n && memcmp(tk->s, lit, n) == 0;
}
#define KEY_IS(tk, lit) key_is((tk), lit, sizeof(lit) - 1)

static int64_t tok_int_or(const struct json_token *v, int64_t dflt)
{
    if (v->type == JSON_NUM && (v->num_flags & JSON_NUM_I64)) return v->i;
    return dflt;
}

/* Reads the members of "args" into trace->args (and the promoted columns). */
static int kx_args(struct kx *k, struct kx_ev *ev)
{
    struct json_token key, v;
    struct lat_trace *t = k->t;
    int rc;
    for (;;) {
        rc = kx_next(k, &key);
        if (rc < 0) return rc;
        if (key.type == JSON_OBJ_END) return 0;
        if (key.type != JSON_KEY) return LAT_E_INTERNAL;
        /* Classify the key before the value token invalidates its text. */
        enum { A_STORE, A_STREAM, A_CORR, A_EXT, A_DEVICE, A_NAME, A_DROP } what = A_STORE;
        if (KEY_IS(&key, "stream"))
            what = A_STREAM;
        else if (KEY_IS(&key, "correlation"))
            what = A_CORR;
        else if (KEY_IS(&key, "External id") || KEY_IS(&key, "external id"))
            what = A_EXT;
        else if (KEY_IS(&key, "device"))
            what = A_DEVICE;
        else if (KEY_IS(&key, "name"))
            what = A_NAME; /* the label of an M event; "args" may come before "ph" */
        else if ((k->flags & LAT_INGEST_NO_ARGS) || ev->ph == 'M' ||
                 (!(k->flags & LAT_INGEST_ARGS_ALL) && arg_dropped(key.s, key.len)))
            what = A_DROP;
        uint32_t keyid = 0;
        bool keep;
        if (what == A_STORE)
            keep = true;
        else if (what == A_NAME)
            keep = ev->ph != 'M' && !(k->flags & LAT_INGEST_NO_ARGS);
        else
            keep = (k->flags & LAT_INGEST_ARGS_ALL) && !(k->flags & LAT_INGEST_NO_ARGS) &&
                   what != A_DROP;
        if (keep) {
            rc = kx_intern(k, key.s, key.len, &keyid);
            if (rc) return rc;
        }
        rc = kx_next(k, &v);
        if (rc < 0) return rc;
        rc = 0;
        switch (what) {
        case A_STREAM:
            ev->e.stream = tok_int_or(&v, -1);
            break;
        case A_CORR:
            ev->e.correlation = tok_int_or(&v, -1);
            break;
        case A_EXT:
            ev->e.external_id = tok_int_or(&v, -1);
            break;
        case A_DEVICE: {
            int64_t d = tok_int_or(&v, -1);
            if (d >= INT32_MIN && d <= INT32_MAX) {
                ev->e.device = (int32_t)d;
                ev->have_device = true;
            }
            break;
        }
        case A_NAME:
            if (v.type == JSON_STR) {
                rc = kx_intern(k, v.s, v.len, &ev->label);
                if (rc) return rc;
            }
            break;
        default:
            break;
        }
        if (!keep) {
            rc = kx_skip(k, &v);
            if (rc) return rc;
            continue;
        }
        struct lat_arg a;
        memset(&a, 0, sizeof(a));
        a.key = keyid;
        switch (v.type) {
        case JSON_NUM:
            if (v.num_flags & JSON_NUM_I64) {
                a.type = LAT_ARG_INT;
                a.v.i = v.i;
            } else if (v.num_flags & JSON_NUM_U64) {
                a.type = LAT_ARG_UINT;
                a.v.u = v.u;
            } else if (v.num_flags & JSON_NUM_INT) {
                a.type = LAT_ARG_RAW;
                rc = kx_intern(k, v.s, v.len, &a.str);
            } else {
                a.type = LAT_ARG_DOUBLE;
                if (json_num_double(v.s, v.len, &a.v.d)) a.v.d = 0;
                rc = kx_intern(k, v.s, v.len, &a.str);
            }
            break;
        case JSON_STR:
            a.type = LAT_ARG_STR;
            rc = kx_intern(k, v.s, v.len, &a.str);
            break;
        case JSON_TRUE:
        case JSON_FALSE:
            a.type = LAT_ARG_BOOL;
            a.v.i = v.type == JSON_TRUE;
            break;
        case JSON_NULL:
            a.type = LAT_ARG_NULL;
            break;
        default:
            a.type = LAT_ARG_RAW;
            k->raw.len = 0;
            rc = kx_raw(k, &v, false);
            if (!rc) rc = kx_intern(k, k->raw.data, k->raw.len, &a.str);
            break;
        }
        if (rc) return rc;
        uint32_t idx;
        rc = lat_trace_add_arg(t, &a, &idx);
        if (rc) return rc == -ENOMEM ? kx_nomem(k) : rc;
        if (ev->e.nargs == 0) ev->e.args = idx;
        ev->e.nargs++;
    }
}

static int kx_label_add(struct kx *k, const struct kx_ev *ev, bool thread)
{
    if (LAT_GROW(k->labels, k->labels_cap, k->nlabels, 1, 256)) return kx_nomem(k);
    struct kx_label *l = &k->labels[k->nlabels++];
    l->pid = ev->pid.set ? ev->pid.num : -1;
    l->pid_str = ev->pid.str;
    /* a process label is found by pid alone (kx_finish looks it up with tid 0): Chrome JSON
     * (TF's trace viewer) writes process_name without a tid */
    l->tid = !thread ? 0 : ev->tid.set ? ev->tid.num : -1;
    l->tid_str = thread ? ev->tid.str : 0;
    l->name = ev->label;
    l->thread = thread;
    return 0;
}

/* Counts a dropped event by reason, and whether it was a GPU or a step event (those make
 * the commands warn). ev may be NULL (not an object). */
static void kx_drop(struct kx *k, const struct kx_ev *ev, struct kind_cache *kc,
                    enum lat_drop_reason r)
{
    struct lat_trace *t = k->t;
    lat_trace_drop(t, r);
    if (!ev) return;
    t->nargs -= ev->e.nargs; /* the args read for it go too */
    if (ev->have_cat && lat_ev_kind_is_gpu(cat_kind(k, kc, ev->e.cat)))
        t->drops_gpu++;
    else if (ev->have_name && ingest_step_number(lat_trace_str(t, ev->e.name),
                                                 strtab_len(&t->strs, ev->e.name)) >= 0)
        t->drops_step++;
}

/* Reason + 1 for a duration out of bounds (0 = usable). */
static inline uint8_t dur_check(lat_ns dur)
{
    if (dur < 0) return LAT_DROP_NEG_DUR + 1;
    if (dur > LAT_DUR_MAX) return LAT_DROP_DUR_RANGE + 1;
    return 0;
}

/* Pushes event ev on the open-B stack of track. */
static int kx_open_push(struct kx *k, uint32_t track, size_t ev)
{
    if (track >= k->track_open_cap) {
        size_t old = k->track_open_cap;
        if (LAT_GROW(k->track_open, k->track_open_cap, track, 1, 64)) return kx_nomem(k);
        memset(k->track_open + old, 0, (k->track_open_cap - old) * sizeof(*k->track_open));
    }
    uint32_t slot;
    if (k->open_free) {
        slot = k->open_free - 1;
        k->open_free = k->open[slot].prev;
    } else {
        if (k->nopen == k->open_cap &&
            (k->open_cap * 2 >= UINT32_MAX || LAT_GROW(k->open, k->open_cap, k->nopen, 1, 64)))
            return kx_nomem(k);
        slot = (uint32_t)k->nopen++;
    }
    k->open[slot].ev = ev;
    k->open[slot].prev = k->track_open[track];
    k->track_open[track] = slot + 1;
    return 0;
}

/* Pops the newest open B of track: its event index, or SIZE_MAX when none is open. */
static size_t kx_open_pop(struct kx *k, uint32_t track)
{
    if (track >= k->track_open_cap || !k->track_open[track]) return SIZE_MAX;
    uint32_t slot = k->track_open[track] - 1;
    k->track_open[track] = k->open[slot].prev;
    k->open[slot].prev = k->open_free;
    k->open_free = slot + 1;
    return k->open[slot].ev;
}

/* Stores a parsed event (or flow / label) in the model. */
static int kx_commit(struct kx *k, struct kx_ev *ev, struct kind_cache *kc)
{
    struct lat_trace *t = k->t;
    size_t args_mark = t->nargs - ev->e.nargs;
    int rc;
    char ph = ev->ph;
    if (ph == 'M') {
        k->nmeta_in++;
        t->nargs = args_mark;
        if (!ev->label) return 0;
        const char *nm = lat_trace_str(t, ev->e.name);
        if (!strcmp(nm, "process_name")) return kx_label_add(k, ev, false);
        if (!strcmp(nm, "thread_name")) return kx_label_add(k, ev, true);
        return 0;
    }
    if (ev->ts_bad) {
        if (ev->ns_like) k->ns_like++;
        kx_drop(k, ev, kc, (enum lat_drop_reason)(ev->ts_bad - 1));
        return 0;
    }
    if (!ev->have_ts && ph != 'E') {
        kx_drop(k, ev, kc, LAT_DROP_NO_TS);
        return 0;
    }
    if (ph == 'X') {
        uint8_t bad = ev->dur_bad ? ev->dur_bad : ev->have_dur ? dur_check(ev->e.dur) : 0;
        if (bad) {
            kx_drop(k, ev, kc, (enum lat_drop_reason)(bad - 1));
            return 0;
        }
    } else if (ev->dur_bad) {
        t->bad_fields++; /* a dur the phase does not use */
    }
    enum lat_ev_kind kind = ev->have_cat ? cat_kind(k, kc, ev->e.cat) : LAT_EV_OTHER;
    if (!ev->have_cat && ev->pid.str && ev->pid.str == k->id_cpu_functions) {
        kind = LAT_EV_CPU_OP; /* legacy PyTorch array format: every event is a CPU function */
        k->saw_legacy_pid = true;
    }
    bool gpu = lat_ev_kind_is_gpu(kind);
    int64_t pid = ev->pid.set ? ev->pid.num : -1, tid = ev->tid.set ? ev->tid.num : -1;
    uint32_t track;
    rc = lat_trace_track(t, pid, tid, ev->pid.str, ev->tid.str, gpu, &track);
    if (rc) return kx_nomem(k);
    if (ph == 's' || ph == 't' || ph == 'f') {
        if (!ev->have_flow_id) {
            kx_drop(k, ev, kc, LAT_DROP_FLOW_NO_ID);
            return 0;
        }
        t->nargs = args_mark;
        struct lat_flow f = {.id = ev->flow_id,
                             .ts = ev->e.ts,
                             .cat = ev->e.cat,
                             .name = ev->e.name,
                             .track = track,
                             .ph = ph,
                             .bind_enclosing = ev->bind_e};
        rc = lat_trace_add_flow(t, &f);
        return rc ? kx_nomem(k) : 0;
    }
    if (ph == 'E') {
        size_t ei = kx_open_pop(k, track);
        if (ei == SIZE_MAX) {
            kx_drop(k, ev, kc, LAT_DROP_UNMATCHED_END);
            return 0;
        }
        t->nargs = args_mark; /* E args are not merged into the B event */
        if (ev->have_ts) {
            /* both ts are within the model's bounds: the difference fits */
            lat_ns dur = ev->e.ts - t->ev.ts[ei];
            uint8_t bad = dur_check(dur);
            if (bad) {
                /* the B event is already stored: removed at the end of the load */
                t->ev.flags[ei] |= LAT_EVF_READER_TMP;
                k->tombstones++;
                lat_trace_drop(t, (enum lat_drop_reason)(bad - 1));
                if (lat_ev_kind_is_gpu((enum lat_ev_kind)t->ev.kind[ei]))
                    t->drops_gpu++;
                else if (t->ev.flags[ei] & LAT_EVF_STEP)
                    t->drops_step++;
                return 0;
            }
            t->ev.dur[ei] = dur;
            t->ev.flags[ei] &= (uint16_t)~LAT_EVF_NO_DUR;
            if (ev->nonint_ts) t->ev.flags[ei] |= LAT_EVF_FRAC_TS;
        }
        return 0;
    }
    uint16_t flags = 0;
    switch (ph) {
    case 'X':
        if (!ev->have_dur) flags |= LAT_EVF_NO_DUR;
        break;
    case 'B':
        flags |= LAT_EVF_BEGIN_END | LAT_EVF_NO_DUR;
        ev->e.dur = 0;
        break;
    case 'i':
    case 'I':
    case 'R':
        if (kind != LAT_EV_CPU_SAMPLE) kind = LAT_EV_INSTANT; /* on-CPU samples are instants */
        flags |= LAT_EVF_INSTANT;
        ev->e.dur = 0;
        break;
    case 'C':
        kind = LAT_EV_COUNTER;
        flags |= LAT_EVF_INSTANT;
        ev->e.dur = 0;
        break;
    default:
        kx_drop(k, ev, kc, LAT_DROP_PHASE);
        return 0;
    }
    if (gpu) flags |= LAT_EVF_GPU;
    if (ev->nonint_ts || ev->nonint_dur) flags |= LAT_EVF_FRAC_TS;
    ev->e.kind = (uint16_t)kind;
    ev->e.flags = flags;
    ev->e.track = track;
    ev->e.ph = ph;
    if (!ev->have_device) ev->e.device = gpu && pid >= 0 && pid <= INT32_MAX ? (int32_t)pid : -1;
    if (!gpu && ev->have_name) {
        const char *nm = lat_trace_str(t, ev->e.name);
        int32_t step = ingest_step_number(nm, strtab_len(&t->strs, ev->e.name));
        if (step >= 0) {
            ev->e.step = step;
            ev->e.flags |= LAT_EVF_STEP;
        }
    }
    if (ev->have_sf) { /* after the event's other args: they stay contiguous */
        struct lat_arg a = {.type = LAT_ARG_INT, .v.i = ev->sf};
        uint32_t idx;
        if (kx_intern(k, "sf", 2, &a.key) || lat_trace_add_arg(t, &a, &idx)) return kx_nomem(k);
        if (ev->e.nargs == 0) ev->e.args = idx;
        ev->e.nargs++;
    }
    if (ev->e.nargs == 0) ev->e.args = 0;
    rc = lat_trace_add_event(t, &ev->e);
    if (rc) return kx_nomem(k);
    if (k->nevents_in == 1 && t->ev.n == 1) t->first_elem_event = true;
    if (ph == 'B') return kx_open_push(k, track, t->ev.n - 1);
    return 0;
}

/* Parses one element of traceEvents (tk = its first token). */
static int kx_event(struct kx *k, const struct json_token *first, struct kind_cache *kc)
{
    struct json_token key, v;
    struct kx_ev ev;
    int rc;
    k->nevents_in++;
    if (first->type != JSON_OBJ_BEGIN) {
        kx_drop(k, NULL, kc, LAT_DROP_NOT_OBJECT);
        return kx_skip(k, first);
    }
    memset(&ev, 0, sizeof(ev));
    ev.e = lat_event_unlinked();
    size_t nkeys = 0;
    for (;;) {
        rc = kx_next(k, &key);
        if (rc < 0) return rc;
        if (key.type == JSON_OBJ_END) break;
        if (key.type != JSON_KEY) return LAT_E_INTERNAL;
        nkeys++;
        /* Dispatch on the key; its text is gone after the next token. */
        enum {
            F_OTHER,
            F_PH,
            F_CAT,
            F_NAME,
            F_PID,
            F_TID,
            F_TS,
            F_DUR,
            F_ARGS,
            F_ID,
            F_BP,
            F_SF
        } f = F_OTHER;
        switch (key.len) {
        case 2:
            if (KEY_IS(&key, "ph"))
                f = F_PH;
            else if (KEY_IS(&key, "ts"))
                f = F_TS;
            else if (KEY_IS(&key, "id"))
                f = F_ID;
            else if (KEY_IS(&key, "bp"))
                f = F_BP;
            else if (KEY_IS(&key, "sf"))
                f = F_SF;
            break;
        case 3:
            if (KEY_IS(&key, "cat"))
                f = F_CAT;
            else if (KEY_IS(&key, "pid"))
                f = F_PID;
            else if (KEY_IS(&key, "tid"))
                f = F_TID;
            else if (KEY_IS(&key, "dur"))
                f = F_DUR;
            break;
        case 4:
            if (KEY_IS(&key, "name"))
                f = F_NAME;
            else if (KEY_IS(&key, "args"))
                f = F_ARGS;
            break;
        default:
            break;
        }
        rc = kx_next(k, &v);
        if (rc < 0) return rc;
        rc = 0;
        /* A value of a type the field never has (an object or array where a scalar belongs,
         * true/null for a name, ...) is skipped whole and counted; the tokens inside it are
         * never read as fields of this event. */
        bool container = v.type == JSON_OBJ_BEGIN || v.type == JSON_ARR_BEGIN;
        switch (f) {
        case F_PH:
            k->saw_ph = true;
            if (v.type == JSON_STR && v.len >= 1) {
                ev.ph = v.s[0];
            } else {
                ev.ph = 0;
                goto bad_field;
            }
            break;
        case F_CAT:
            if (v.type != JSON_STR) goto bad_field;
            rc = kx_intern(k, v.s, v.len, &ev.e.cat);
            ev.have_cat = true;
            break;
        case F_NAME:
            if (v.type != JSON_STR && v.type != JSON_NUM) goto bad_field;
            rc = kx_intern(k, v.s, v.len, &ev.e.name);
            ev.have_name = true;
            break;
        case F_PID:
            rc = kx_read_id(k, &v, &ev.pid);
            break;
        case F_TID:
            rc = kx_read_id(k, &v, &ev.tid);
            break;
        case F_TS: {
            bool neg = false, ns_like = false;
            int st = container ? T_BAD : kx_time(&v, &ev.e.ts, &ev.nonint_ts, &neg, &ns_like);
            if (st == T_OK && (ev.e.ts < LAT_TS_MIN || ev.e.ts > LAT_TS_MAX))
                st = T_RANGE; /* years beyond 2116 or before 1934: not epoch ns either */
            ev.ts_bad = st == T_OK ? 0 : st == T_BAD ? LAT_DROP_BAD_TS + 1 : LAT_DROP_TS_RANGE + 1;
            ev.ns_like = st == T_RANGE && ns_like;
            ev.have_ts = st == T_OK;
            if (st == T_OK && ev.nonint_ts) k->t->frac_ts = true;
            if (container) rc = kx_skip(k, &v);
            break;
        }
        case F_DUR: {
            bool neg = false, ns_like = false;
            int st = container ? T_BAD : kx_time(&v, &ev.e.dur, &ev.nonint_dur, &neg, &ns_like);
            ev.dur_bad = st == T_OK    ? 0
                         : st == T_BAD ? LAT_DROP_BAD_DUR + 1
                         : neg         ? LAT_DROP_NEG_DUR + 1
                                       : LAT_DROP_DUR_RANGE + 1;
            ev.have_dur = st == T_OK;
            if (container) rc = kx_skip(k, &v);
            break;
        }
        case F_ARGS:
            if (v.type != JSON_OBJ_BEGIN) goto bad_field;
            rc = kx_args(k, &ev);
            break;
        case F_ID:
            if (v.type == JSON_NUM && (v.num_flags & JSON_NUM_I64)) {
                ev.flow_id = v.i;
                ev.have_flow_id = true;
            } else if (v.type == JSON_NUM && (v.num_flags & JSON_NUM_U64)) {
                ev.flow_id = (int64_t)v.u;
                ev.have_flow_id = true;
            } else if (v.type == JSON_STR && v.len) {
                /* Chrome ids may be strings ("0x1f" or "42") */
                char tmp[40];
                size_t n = v.len < sizeof(tmp) - 1 ? v.len : sizeof(tmp) - 1;
                memcpy(tmp, v.s, n);
                tmp[n] = '\0';
                char *end;
                errno = 0;
                unsigned long long x = strtoull(tmp, &end, 0);
                if (!*end && !errno && v.len < sizeof(tmp) - 1) {
                    ev.flow_id = (int64_t)x;
                    ev.have_flow_id = true;
                } else {
                    uint32_t sid;
                    rc = kx_intern(k, v.s, v.len, &sid);
                    ev.flow_id = -(int64_t)sid - 1; /* distinct per string */
                    ev.have_flow_id = true;
                }
            } else {
                goto bad_field;
            }
            break;
        case F_BP:
            if (v.type != JSON_STR) goto bad_field;
            ev.bind_e = v.len == 1 && v.s[0] == 'e';
            break;
        case F_SF:
            /* kept as the arg "sf" (ingest_tf_finish() names TF ops from stackFrames) */
            if (v.type == JSON_NUM && (v.num_flags & JSON_NUM_I64)) {
                ev.sf = v.i;
                ev.have_sf = true;
            } else if (v.type == JSON_STR) {
                ev.sf = num_in_string(v.s, v.len);
                ev.have_sf = ev.sf >= 0;
            } else {
                goto bad_field;
            }
            break;
        default:
            rc = kx_skip(k, &v);
            break;
        bad_field:
            k->t->bad_fields++;
            rc = kx_skip(k, &v);
            break;
        }
        if (rc) return rc;
    }
    if (!ev.ph && !nkeys) return 0; /* "{}": the last element TF's (xprof's) writer puts there */
    if (!ev.ph) {
        /* No phase: unusable as an event (trtexec/other JSON arrays land here). */
        kx_drop(k, &ev, kc, LAT_DROP_NO_PHASE);
        return 0;
    }
    return kx_commit(k, &ev, kc);
}

static int kx_events(struct kx *k)
{
    struct json_token tk;
    struct kind_cache kc;
    kc.n = 0;
    for (;;) {
        int rc = kx_next(k, &tk);
        if (rc < 0) return rc;
        if (tk.type == JSON_ARR_END) return 0;
        if (tk.type == JSON_END) return LAT_E_TRUNCATED; /* unreachable: the tokenizer errs */
        rc = kx_event(k, &tk, &kc);
        if (rc) return rc;
    }
}

/* ---- top-level metadata ---- */

/* Finds `'key': value` / `"key": value` in a Python-repr or JSON text and reads the integer. */
static bool repr_int(const char *s, size_t n, const char *key, int64_t *out)
{
    size_t kl = strlen(key);
    for (size_t i = 0; i + kl + 2 < n; i++) {
        if ((s[i] != '\'' && s[i] != '"') || memcmp(s + i + 1, key, kl) != 0 ||
            s[i + 1 + kl] != s[i])
            continue;
        size_t j = i + 2 + kl;
        while (j < n && (s[j] == ' ' || s[j] == ':' || s[j] == '\'' || s[j] == '"'))
            j++;
        bool neg = j < n && s[j] == '-';
        if (neg) j++;
        if (j >= n || s[j] < '0' || s[j] > '9') return false;
        int64_t v = 0;
        for (; j < n && s[j] >= '0' && s[j] <= '9' && v < INT64_MAX / 10; j++)
            v = v * 10 + (s[j] - '0');
        *out = neg ? -v : v;
        return true;
    }
    return false;
}

static void kx_dist_from_raw(struct kx *k, const char *s, size_t n)
{
    int64_t v;
    if (repr_int(s, n, "rank", &v) && v >= INT32_MIN && v <= INT32_MAX) k->t->rank = (int32_t)v;
    if (repr_int(s, n, "world_size", &v) && v >= INT32_MIN && v <= INT32_MAX)
        k->t->world_size = (int32_t)v;
}

static int kx_add_meta(struct kx *k, const char *key, size_t klen, const char *val, size_t vlen)
{
    uint32_t kid, vid;
    int rc = kx_intern(k, key, klen, &kid);
    if (!rc) rc = kx_intern(k, val, vlen, &vid);
    if (!rc && lat_trace_add_meta(k->t, kid, vid)) rc = kx_nomem(k);
    return rc;
}

/* deviceProperties / computeProperties: the raw text is kept as metadata; the devices are
 * read back from that text with the in-memory lookups (the arrays are small). */
static int kx_devices(struct kx *k, const char *raw, size_t n)
{
    struct json_val arr, el;
    struct json_iter it;
    if (json_find(raw, n, "", &arr) || arr.type != JSON_ARR_BEGIN) return 0;
    if (json_iter_init(&it, raw, n, &arr)) return 0;
    while (json_iter_next(&it, NULL, &el) == 1) {
        if (el.type != JSON_OBJ_BEGIN) continue;
        const char *o = raw + el.off;
        size_t on = el.len;
        struct lat_device d;
        int64_t v;
        memset(&d, 0, sizeof(d));
        d.id = -1;
        d.compute_major = d.compute_minor = d.num_sms = -1;
        d.max_threads_per_block = d.max_threads_per_sm = -1;
        d.regs_per_block = d.regs_per_sm = d.warp_size = -1;
        d.shared_mem_per_block = d.shared_mem_per_sm = d.total_global_mem = -1;
#define I32(field, key)                                                                            \
    if (json_get_i64(o, on, key, &v) == 0 && v >= INT32_MIN && v <= INT32_MAX) d.field = (int32_t)v
#define I64(field, key)                                                                            \
    if (json_get_i64(o, on, key, &v) == 0) d.field = v
        I32(id, "id");
        I32(compute_major, "computeMajor");
        else I32(compute_major, "major");
        I32(compute_minor, "computeMinor");
        else I32(compute_minor, "minor");
        I32(num_sms, "numSms");
        else I32(num_sms, "multiProcessorCount");
        I32(max_threads_per_block, "maxThreadsPerBlock");
        I32(max_threads_per_sm, "maxThreadsPerMultiprocessor");
        else I32(max_threads_per_sm, "maxThreadsPerMultiProcessor");
        I32(regs_per_block, "regsPerBlock");
        I32(regs_per_sm, "regsPerMultiprocessor");
        I32(warp_size, "warpSize");
        I64(shared_mem_per_block, "sharedMemPerBlock");
        I64(shared_mem_per_sm, "sharedMemPerMultiprocessor");
        I64(total_global_mem, "totalGlobalMem");
#undef I32
#undef I64
        struct lat_buf name = LAT_BUF_INIT;
        if (json_get_str(o, on, "name", &name) == 0) {
            int rc = kx_intern(k, name.data, name.len, &d.name);
            buf_fini(&name);
            if (rc) return rc;
        }
        buf_fini(&name);
        if (lat_trace_add_device(k->t, &d)) return kx_nomem(k);
    }
    return 0;
}

/* One top-level member other than traceEvents: the key is in k->tmp. */
static int kx_meta(struct kx *k, const struct json_token *v)
{
    int rc;
    /* Keep the key: k->tmp is reused while the value is read. */
    size_t klen = k->tmp.len;
    char kbuf[256], *key = kbuf;
    char *heap = NULL;
    if (klen >= sizeof(kbuf)) {
        heap = malloc(klen + 1);
        if (!heap) return kx_nomem(k);
        key = heap;
    }
    memcpy(key, k->tmp.data ? k->tmp.data : "", klen);
    key[klen] = '\0';
    k->raw.len = 0;
    if (lat_meta_is_secret(key)) {
        rc = kx_skip(k, v);
        if (!rc) rc = buf_puts(&k->raw, "\"REDACTED\"") ? kx_nomem(k) : 0;
    } else {
        rc = kx_raw(k, v, true);
    }
    if (rc) goto out;
    rc = kx_add_meta(k, key, klen, k->raw.data, k->raw.len);
    if (rc) goto out;
    const char *raw = k->raw.data;
    size_t rn = k->raw.len;
    if (!strcmp(key, "schemaVersion")) {
        k->saw_schema = true;
    } else if (!strcmp(key, "latscope_converted_from")) {
        k->ort_converted = rn == 5 && !memcmp(raw, "\"ort\"", 5);
    } else if (!strcmp(key, "deviceProperties") || !strcmp(key, "computeProperties")) {
        k->saw_schema = true;
        rc = kx_devices(k, raw, rn);
    } else if (!strcmp(key, "distributedInfo")) {
        k->saw_schema = true;
        int64_t x;
        if (v->type == JSON_OBJ_BEGIN) {
            if (json_get_i64(raw, rn, "rank", &x) == 0 && x >= INT32_MIN && x <= INT32_MAX)
                k->t->rank = (int32_t)x;
            else {
                struct lat_buf s = LAT_BUF_INIT;
                if (json_get_str(raw, rn, "rank", &s) == 0 && s.data) {
                    bool frac;
                    if (json_num_fixed(s.data, s.len, 0, &x, &frac) == 0 && !frac &&
                        x >= INT32_MIN && x <= INT32_MAX)
                        k->t->rank = (int32_t)x;
                }
                buf_fini(&s);
            }
            if (json_get_i64(raw, rn, "world_size", &x) == 0 && x >= INT32_MIN && x <= INT32_MAX)
                k->t->world_size = (int32_t)x;
        } else if (v->type == JSON_STR) {
            /* MTIA: a string holding a Python repr or JSON of the object */
            struct lat_buf s = LAT_BUF_INIT;
            if (json_str_decode(raw, rn, &s) == 0 && s.data) kx_dist_from_raw(k, s.data, s.len);
            buf_fini(&s);
        }
    } else if (!strcmp(key, "baseTimeNanoseconds")) {
        int64_t x;
        struct json_val jv;
        if (json_find(raw, rn, "", &jv) == 0) {
            if (jv.type == JSON_NUM && json_get_i64(raw, rn, "", &x) == 0)
                k->t->base_time_ns = x;
            else if (jv.type == JSON_STR) {
                struct lat_buf s = LAT_BUF_INIT;
                bool frac;
                if (json_str_decode(raw, rn, &s) == 0 && s.data &&
                    json_num_fixed(s.data, s.len, 0, &x, &frac) == 0)
                    k->t->base_time_ns = x;
                buf_fini(&s);
            }
        }
    } else if (!strcmp(key, "nodes") || !strcmp(key, "finish_ts")) {
        k->saw_chakra = true;
    }
out:
    free(heap);
    return rc;
}

static int kx_top(struct kx *k)
{
    struct json_token tk;
    int rc = kx_next(k, &tk);
    if (rc < 0) return rc;
    if (tk.type == JSON_ARR_BEGIN) {
        k->saw_events_key = true;
        rc = kx_events(k);
        if (!rc) rc = kx_next(k, &tk); /* nothing may follow the array */
        return rc < 0 ? rc : 0;
    }
    if (tk.type != JSON_OBJ_BEGIN) {
        if (k->err && k->errsz)
            snprintf(k->err, k->errsz,
                     "JSON byte %llu: the document is a single %s, not a trace (expected an "
                     "object with \"traceEvents\" or an array of events)",
                     (unsigned long long)tk.off,
                     tk.type == JSON_STR   ? "string"
                     : tk.type == JSON_NUM ? "number"
                                           : "literal");
        return LAT_E_NOT_TRACE;
    }
    k->top_object = true;
    for (;;) {
        rc = kx_next(k, &tk);
        if (rc < 0) return rc;
        if (tk.type == JSON_OBJ_END) break;
        bool events = KEY_IS(&tk, "traceEvents");
        k->tmp.len = 0;
        if (buf_append(&k->tmp, tk.s, tk.len)) return kx_nomem(k);
        rc = kx_next(k, &tk);
        if (rc < 0) return rc;
        if (events && tk.type == JSON_ARR_BEGIN && !k->saw_events_key) {
            k->saw_events_key = true;
            rc = kx_events(k);
        } else {
            rc = kx_meta(k, &tk);
        }
        if (rc) return rc;
    }
    /* The document must end here (trailing garbage is an error). */
    rc = kx_next(k, &tk);
    if (rc < 0) return rc;
    return 0;
}

static int kx_label_cmp(const void *a, const void *b)
{
    const struct kx_label *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    if (x->pid_str != y->pid_str) return x->pid_str < y->pid_str ? -1 : 1;
    if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    if (x->tid_str != y->tid_str) return x->tid_str < y->tid_str ? -1 : 1;
    return 0;
}

static const struct kx_label *label_find(const struct kx *k, const struct kx_label *key)
{
    size_t lo = 0, hi = k->nlabels;
    const struct kx_label *found = NULL;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = kx_label_cmp(&k->labels[mid], key);
        if (c < 0) {
            lo = mid + 1;
        } else {
            if (c == 0) found = &k->labels[mid];
            hi = mid;
        }
    }
    /* the last of equal labels wins (later metadata overrides) */
    if (found)
        while (found + 1 < k->labels + k->nlabels && kx_label_cmp(found + 1, key) == 0)
            found++;
    return found;
}

static void kx_finish(struct kx *k)
{
    struct lat_trace *t = k->t;
    if (k->nlabels) {
        qsort(k->labels, k->nlabels, sizeof(*k->labels), kx_label_cmp);
        for (size_t i = 0; i < t->ntracks; i++) {
            struct lat_track *tr = &t->tracks[i];
            struct kx_label key = {.pid = tr->pid, .pid_str = tr->pid_str, .thread = false};
            const struct kx_label *l = label_find(k, &key);
            if (l) tr->pid_label = l->name;
            key.thread = true;
            key.tid = tr->tid;
            key.tid_str = tr->tid_str;
            l = label_find(k, &key);
            if (l) tr->tid_label = l->name;
        }
    }
    if (k->saw_chakra && !k->saw_events_key)
        lat_trace_set_format(t, &ingest_fmt_chakra);
    else if (k->saw_legacy_pid && !k->top_object)
        lat_trace_set_format(t, &ingest_fmt_pytorch_legacy);
    else if ((k->ort_shaped = k->saw_ort && (!k->top_object || k->ort_converted)))
        lat_trace_set_format(t, &ingest_fmt_chrome); /* the caller maps it (ort.c) */
    else if (k->saw_2021)
        lat_trace_set_format(t, &ingest_fmt_kineto_2021);
    else if (k->saw_schema)
        lat_trace_set_format(t, &ingest_fmt_kineto);
    else
        lat_trace_set_format(t, &ingest_fmt_chrome);
}

/* The size limit on one value: opts, else LATSCOPE_MAX_VALUE, else LAT_INGEST_MAX_VALUE. */
static int kx_limits(struct kx *k)
{
    uint64_t v = k->opts ? k->opts->max_value_bytes : 0;
    const char *env = getenv("LATSCOPE_MAX_VALUE");
    if (!v && env && *env) {
        if (units_parse_count(env, &v) || v == 0) {
            if (k->err && k->errsz)
                snprintf(k->err, k->errsz,
                         "LATSCOPE_MAX_VALUE=%s: not a byte count (e.g. 256M or 2G)", env);
            return LAT_E_USAGE;
        }
    }
    if (!v) v = LAT_INGEST_MAX_VALUE;
    if (v > SIZE_MAX / 4) v = SIZE_MAX / 4;
    k->max_value = (size_t)v;
    json_tok_set_max_token(&k->tok, k->max_value);
    return 0;
}

/* After the load: the events must be mostly usable, in the unit the format defines. */
static int kx_check_drops(struct kx *k)
{
    const struct lat_trace *t = k->t;
    const uint64_t *d = t->drops;
    uint64_t timebad = d[LAT_DROP_NO_TS] + d[LAT_DROP_BAD_TS] + d[LAT_DROP_TS_RANGE] +
                       d[LAT_DROP_BAD_DUR] + d[LAT_DROP_NEG_DUR] + d[LAT_DROP_DUR_RANGE];
    uint64_t timed = t->ev.n + t->nflows + timebad;
    if (!k->err || !k->errsz) return timebad * 2 > timed ? LAT_E_BAD_EVENTS : 0;
    if (k->ns_like * 2 > timed) {
        snprintf(k->err, k->errsz,
                 "timestamps in ns, not µs: %llu of %llu events have a ts of about 1e18 (the "
                 "epoch in ns). Chrome/Kineto ts and dur are µs: divide both by 1000 in the "
                 "producer, or with jq '.traceEvents|=map(.ts/=1000|if .dur then .dur/=1000 "
                 "else . end)'",
                 (unsigned long long)k->ns_like, (unsigned long long)timed);
        return LAT_E_BAD_EVENTS;
    }
    return lat_drops_check(t->drops, timebad, timed, "events",
                           "\"ts\" (and \"dur\" of ph X) must be numbers of µs in range; "
                           "fix the producer",
                           k->err, k->errsz);
}

static int kx_parse(struct kx *k)
{
    int rc = kx_limits(k);
    if (rc) return rc;
    rc = lat_trace_intern(k->t, "CPU functions", 13, &k->id_cpu_functions);
    if (rc) return kx_nomem(k);
    rc = kx_top(k);
    if (rc) return rc;
    if (k->tombstones) lat_trace_remove_flagged(k->t, LAT_EVF_READER_TMP);
    kx_finish(k);
    if (!k->saw_events_key) {
        if (k->err && k->errsz)
            snprintf(k->err, k->errsz,
                     k->saw_chakra ? "a Chakra/ExecutionTrace file (\"nodes\"), not a Kineto "
                                     "trace: pass the matching *.pt.trace.json"
                                   : "no \"traceEvents\" array: not a Chrome/Kineto trace");
        return LAT_E_NOT_TRACE;
    }
    if (k->nevents_in > 0 && !k->saw_ph) {
        if (k->err && k->errsz)
            snprintf(k->err, k->errsz,
                     "none of the %lld array elements has a \"ph\" field: not a Chrome trace "
                     "(trtexec or other JSON?)",
                     (long long)k->nevents_in);
        return LAT_E_NOT_TRACE;
    }
    return kx_check_drops(k);
}

static int kx_run(struct kx *k)
{
    int rc = kx_parse(k);
    free(k->track_open);
    k->track_open = NULL;
    return rc;
}

static int kx_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                   struct lat_trace **out, bool *ort_shaped, char *err, size_t errsz)
{
    /* On the heap: the intern cache makes struct kx 33 KB, too much for small thread stacks. */
    struct kx *k = calloc(1, sizeof(*k));
    char ebuf[LAT_INGEST_ERRLEN] = "";
    if (!k) {
        src_close(src);
        if (err && errsz) snprintf(err, errsz, "%s: out of memory", name);
        return -ENOMEM;
    }
    k->src = src;
    k->opts = opts;
    k->flags = opts ? opts->flags : 0;
    k->err = ebuf;
    k->errsz = sizeof(ebuf);
    int rc = lat_trace_new(&k->t);
    if (rc) {
        src_close(src);
        free(k);
        if (err && errsz) snprintf(err, errsz, "%s: out of memory", name);
        return rc;
    }
    json_tok_init(&k->tok, 0);
    json_tok_set_max_depth(&k->tok, 1024);
    rc = kx_run(k);
    if (opts && opts->stats) {
        opts->stats->input_events = (uint64_t)k->nevents_in;
        opts->stats->meta_events = k->nmeta_in;
        opts->stats->json_bytes = json_tok_offset(&k->tok);
        opts->stats->raw_bytes = src_raw_done(src);
        opts->stats->gzip = src_is_gzip(src);
    }
    if (rc == 0) {
        k->t->path = strdup(name);
        if (!k->t->path) rc = -ENOMEM;
    }
    json_tok_fini(&k->tok);
    buf_fini(&k->raw);
    buf_fini(&k->tmp);
    free(k->labels);
    free(k->open);
    bool gz = src_is_gzip(src);
    src_close(src);
    struct lat_trace *t = k->t;
    if (ort_shaped) *ort_shaped = !rc && k->ort_shaped;
    free(k);
    if (rc) {
        lat_trace_free(t);
        *out = NULL;
        if (err && errsz) {
            snprintf(err, errsz, "%s: %s%s", name, ebuf[0] ? ebuf : lat_strerror(rc),
                     gz && (rc == LAT_E_BAD_JSON || rc == LAT_E_TRUNCATED)
                         ? " [offset in the decompressed data]"
                         : "");
        }
        return rc;
    }
    *out = t;
    return 0;
}

/* ---- the Kineto/Chrome row of ingest.c's format table ---- */

/* Takes src (closes it). */
int ingest_kineto_load(struct ingest_src *src, const char *name, const struct lat_ingest_opts *opts,
                       struct lat_trace **out, bool *ort_shaped, char *err, size_t errsz)
{
    return kx_load(src, name, opts, out, ort_shaped, err, errsz);
}

/* The formats this reader tells apart (trace->format): PyTorch-shaped timelines. */
#define KINETO_ROW(nm)                                                                             \
    {                                                                                              \
        .name = nm, .fw = LAT_FW_PYTORCH, .caps = LAT_FCAP_PROFILER_STEPS                          \
    }
const struct lat_trace_format ingest_fmt_kineto = KINETO_ROW("kineto");
const struct lat_trace_format ingest_fmt_kineto_2021 = KINETO_ROW("kineto-2021");
const struct lat_trace_format ingest_fmt_chrome = KINETO_ROW("chrome");
const struct lat_trace_format ingest_fmt_pytorch_legacy = KINETO_ROW("pytorch-legacy");
const struct lat_trace_format ingest_fmt_chakra = KINETO_ROW("chakra");
