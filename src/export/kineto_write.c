/*
 * kineto_write.c - the Kineto / Chrome-trace JSON writer.
 *
 * Streams one JSON object through core/jsonw into a sink that is either a stdio stream or a zlib
 * gzFile, flushing every 64 KiB, so a trace of millions of events never sits in memory twice.
 * Layout (pytorch/kineto output_json.cpp): schemaVersion, deviceProperties, the trace's metadata
 * keys, displayTimeUnit, baseTimeNanoseconds, then traceEvents = process/thread name metadata
 * (ph M), the events in model order, then the flow events (ac2g s/f pairs keyed by correlation).
 *
 * The writer is generic over the model: it writes each event's args exactly as stored (the
 * producers name them as Kineto does) and the category string kept at load (or the kind's
 * current Kineto name), so write -> read -> write is stable. Times are µs with exactly three
 * decimals, computed from int64 ns with integer arithmetic (jsonw_ns_as_us), never through a
 * double. Strings go through jsonw, which turns invalid UTF-8 into U+FFFD.
 * Metadata whose key looks secret is written as "REDACTED" (lat_meta_is_secret).
 * Not thread-safe; the trace must not change while it is written.
 */
#include "export/kineto_write.h"
#include "core/err.h"
#include "core/jsonw.h"
#include "core/redact.h"
#include "json/tok.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define KW_FLUSH_BYTES (64 * 1024)

struct kw_sink {
    FILE *f;
    gzFile gz;
    int err;
};

static void kw_sink_write(struct kw_sink *s, struct jsonw *w)
{
    if (s->err || !w->buf.len) goto out;
    if (s->gz) {
        size_t off = 0;
        while (off < w->buf.len) {
            unsigned chunk =
                (unsigned)(w->buf.len - off > (1u << 30) ? (1u << 30) : w->buf.len - off);
            int n = gzwrite(s->gz, w->buf.data + off, chunk);
            if (n <= 0) {
                s->err = LAT_E_GZIP;
                break;
            }
            off += (size_t)n;
        }
    } else if (fwrite(w->buf.data, 1, w->buf.len, s->f) != w->buf.len) {
        s->err = errno ? -errno : -EIO;
    }
out:
    buf_reset(&w->buf);
}

static void kw_maybe_flush(struct kw_sink *s, struct jsonw *w)
{
    if (w->buf.len >= KW_FLUSH_BYTES) kw_sink_write(s, w);
}

/* The interned length (strings may hold NULs in theory); falls back to strlen. */
static inline size_t kw_len(const struct lat_trace *t, uint32_t id, const char *s)
{
    if (id < t->strs.count) return t->strs.len[id];
    return strlen(s);
}

static void kw_str_id(struct jsonw *w, const struct lat_trace *t, uint32_t id)
{
    const char *s = lat_trace_str(t, id);
    jsonw_strn(w, s, kw_len(t, id, s));
}

static void kw_pid(struct jsonw *w, const struct lat_trace *t, const struct lat_track *tr)
{
    if (tr->pid_str)
        kw_str_id(w, t, tr->pid_str);
    else
        jsonw_i64(w, tr->pid);
}

static void kw_tid(struct jsonw *w, const struct lat_trace *t, const struct lat_track *tr)
{
    if (tr->tid_str)
        kw_str_id(w, t, tr->tid_str);
    else
        jsonw_i64(w, tr->tid);
}

static void kw_arg_value(struct jsonw *w, const struct lat_trace *t, const struct lat_arg *a)
{
    switch (a->type) {
    case LAT_ARG_BOOL:
        jsonw_bool(w, a->v.i != 0);
        break;
    case LAT_ARG_INT:
        jsonw_i64(w, a->v.i);
        break;
    case LAT_ARG_UINT:
        jsonw_u64(w, a->v.u);
        break;
    case LAT_ARG_DOUBLE:
        if (a->str) {
            const char *s = lat_trace_str(t, a->str);
            jsonw_raw(w, s, kw_len(t, a->str, s));
        } else {
            jsonw_double(w, a->v.d, 17);
        }
        break;
    case LAT_ARG_STR:
        kw_str_id(w, t, a->str);
        break;
    case LAT_ARG_RAW: {
        const char *s = lat_trace_str(t, a->str);
        size_t n = kw_len(t, a->str, s);
        if (n)
            jsonw_raw(w, s, n);
        else
            jsonw_null(w);
        break;
    }
    default:
        jsonw_null(w);
        break;
    }
}

static void kw_meta_event(struct jsonw *w, const struct lat_trace *t, const struct lat_track *tr,
                          const char *name, const char *argkey, uint32_t label, int64_t ival)
{
    jsonw_obj_begin(w);
    jsonw_key(w, "name");
    jsonw_str(w, name);
    jsonw_key(w, "ph");
    jsonw_str(w, "M");
    jsonw_key(w, "ts");
    jsonw_ns_as_us(w, 0);
    jsonw_key(w, "pid");
    kw_pid(w, t, tr);
    jsonw_key(w, "tid");
    if (strcmp(name, "thread_name") == 0 || strcmp(name, "thread_sort_index") == 0)
        kw_tid(w, t, tr);
    else
        jsonw_i64(w, 0);
    jsonw_key(w, "args");
    jsonw_obj_begin(w);
    jsonw_key(w, argkey);
    if (label)
        kw_str_id(w, t, label);
    else
        jsonw_i64(w, ival);
    jsonw_obj_end(w);
    jsonw_obj_end(w);
}

/* Process and thread names: one process_name per distinct pid (first labelled track wins), one
 * thread_name per labelled track. GPU processes also get Kineto's sort index (2^24 + device). */
static int kw_track_metadata(struct jsonw *w, struct kw_sink *s, const struct lat_trace *t)
{
    bool *done = calloc(t->ntracks ? t->ntracks : 1, sizeof(*done));
    if (!done) return -ENOMEM;
    for (size_t i = 0; i < t->ntracks; i++) {
        const struct lat_track *tr = &t->tracks[i];
        if (!tr->pid_label || done[i]) continue;
        for (size_t j = i; j < t->ntracks; j++) {
            const struct lat_track *o = &t->tracks[j];
            if (o->pid == tr->pid && o->pid_str == tr->pid_str) done[j] = true;
        }
        kw_meta_event(w, t, tr, "process_name", "name", tr->pid_label, 0);
        if (tr->gpu && !tr->pid_str)
            kw_meta_event(w, t, tr, "process_sort_index", "sort_index", 0,
                          (int64_t)(1 << 24) + tr->pid);
        kw_maybe_flush(s, w);
    }
    for (size_t i = 0; i < t->ntracks; i++) {
        const struct lat_track *tr = &t->tracks[i];
        if (!tr->tid_label) continue;
        kw_meta_event(w, t, tr, "thread_name", "name", tr->tid_label, 0);
        kw_maybe_flush(s, w);
    }
    free(done);
    return 0;
}

static void kw_event(struct jsonw *w, const struct lat_trace *t, size_t i)
{
    const struct lat_event_cols *c = &t->ev;
    const struct lat_track *tr = &t->tracks[c->track[i]];
    char ph = c->ph[i] ? c->ph[i] : ((c->flags[i] & LAT_EVF_INSTANT) ? 'i' : 'X');
    char phs[2] = {ph, 0};

    jsonw_obj_begin(w);
    jsonw_key(w, "ph");
    jsonw_str(w, phs);
    jsonw_key(w, "cat");
    if (c->cat[i])
        kw_str_id(w, t, c->cat[i]);
    else
        jsonw_str(w, lat_ev_kind_name((enum lat_ev_kind)c->kind[i]));
    jsonw_key(w, "name");
    kw_str_id(w, t, c->name[i]);
    jsonw_key(w, "pid");
    kw_pid(w, t, tr);
    jsonw_key(w, "tid");
    kw_tid(w, t, tr);
    jsonw_key(w, "ts");
    jsonw_ns_as_us(w, c->ts[i]);
    if (ph == 'X') {
        jsonw_key(w, "dur");
        jsonw_ns_as_us(w, c->dur[i] < 0 ? 0 : c->dur[i]);
    } else if (ph == 'i' || ph == 'I') {
        jsonw_key(w, "s");
        jsonw_str(w, "t");
    } else if (ph == 'C' && c->correlation[i] >= 0) { /* a counter's series id */
        jsonw_key(w, "id");
        jsonw_i64(w, c->correlation[i]);
    }
    if (c->nargs[i]) {
        jsonw_key(w, "args");
        jsonw_obj_begin(w);
        for (uint32_t k = 0; k < c->nargs[i]; k++) {
            const struct lat_arg *a = &t->args[c->args[i] + k];
            const char *key = lat_trace_str(t, a->key);
            jsonw_key(w, key);
            /* a string under a secret-looking name (api_key, token...) is not re-exported; numbers
             * (num_tokens) are no secrets */
            if ((a->type == LAT_ARG_STR || a->type == LAT_ARG_RAW) && lat_meta_is_secret(key))
                jsonw_str(w, "REDACTED");
            else
                kw_arg_value(w, t, a);
        }
        jsonw_obj_end(w);
    }
    jsonw_obj_end(w);
}

static void kw_flow(struct jsonw *w, const struct lat_trace *t, const struct lat_flow *f)
{
    const struct lat_track *tr = &t->tracks[f->track];
    char phs[2] = {f->ph ? f->ph : 's', 0};
    jsonw_obj_begin(w);
    jsonw_key(w, "ph");
    jsonw_str(w, phs);
    jsonw_key(w, "id");
    jsonw_i64(w, f->id);
    jsonw_key(w, "pid");
    kw_pid(w, t, tr);
    jsonw_key(w, "tid");
    kw_tid(w, t, tr);
    jsonw_key(w, "ts");
    jsonw_ns_as_us(w, f->ts);
    jsonw_key(w, "cat");
    if (f->cat)
        kw_str_id(w, t, f->cat);
    else
        jsonw_str(w, "ac2g");
    jsonw_key(w, "name");
    if (f->name)
        kw_str_id(w, t, f->name);
    else
        jsonw_str(w, "ac2g");
    if (f->bind_enclosing) {
        jsonw_key(w, "bp");
        jsonw_str(w, "e");
    }
    jsonw_obj_end(w);
}

static void kw_opt_i(struct jsonw *w, const char *key, int64_t v)
{
    if (v < 0) return;
    jsonw_key(w, key);
    jsonw_i64(w, v);
}

static void kw_devices(struct jsonw *w, const struct lat_trace *t)
{
    jsonw_key(w, "deviceProperties");
    jsonw_arr_begin(w);
    for (size_t i = 0; i < t->ndevices; i++) {
        const struct lat_device *d = &t->devices[i];
        jsonw_obj_begin(w);
        jsonw_key(w, "id");
        jsonw_i64(w, d->id);
        jsonw_key(w, "name");
        kw_str_id(w, t, d->name);
        kw_opt_i(w, "totalGlobalMem", d->total_global_mem);
        kw_opt_i(w, "computeMajor", d->compute_major);
        kw_opt_i(w, "computeMinor", d->compute_minor);
        kw_opt_i(w, "maxThreadsPerBlock", d->max_threads_per_block);
        kw_opt_i(w, "maxThreadsPerMultiprocessor", d->max_threads_per_sm);
        kw_opt_i(w, "regsPerBlock", d->regs_per_block);
        kw_opt_i(w, "regsPerMultiprocessor", d->regs_per_sm);
        kw_opt_i(w, "warpSize", d->warp_size);
        kw_opt_i(w, "sharedMemPerBlock", d->shared_mem_per_block);
        kw_opt_i(w, "sharedMemPerMultiprocessor", d->shared_mem_per_sm);
        kw_opt_i(w, "numSms", d->num_sms);
        jsonw_obj_end(w);
    }
    jsonw_arr_end(w);
}

/* Keys the writer produces itself; a metadata entry with one of these names is not repeated. */
static bool kw_reserved_key(const char *k)
{
    static const char *const r[] = {"schemaVersion",   "deviceProperties",    "traceEvents",
                                    "displayTimeUnit", "baseTimeNanoseconds", NULL};
    for (size_t i = 0; r[i]; i++)
        if (strcmp(k, r[i]) == 0) return true;
    return false;
}

/* A metadata value (raw JSON text) written with every string in it redacted (core/redact.h):
 * a foreign trace's command line (latscope_command, an array of arguments: an option such as
 * --token hides the next one), URLs with api_key=... in their query. A value with no string, or
 * one the tokenizer refuses (kept as the reader stored it), is written as it is. */
static void kw_meta_value(struct jsonw *w, const char *v, size_t n)
{
    if (!memchr(v, '"', n)) {
        jsonw_raw(w, v, n);
        return;
    }
    struct json_tok tk;
    struct json_token t;
    struct lat_buf tmp = LAT_BUF_INIT, red = LAT_BUF_INIT;
    bool hide = false, ok = true;
    /* first pass: the value must tokenize whole, else write it raw (never half a value) */
    json_tok_init(&tk, 0);
    json_tok_feed(&tk, v, n);
    json_tok_finish(&tk);
    int rc;
    while ((rc = json_tok_next(&tk, &t)) == 1 && t.type != JSON_END) {
    }
    ok = rc >= 0;
    json_tok_fini(&tk);
    if (!ok) {
        jsonw_raw(w, v, n);
        return;
    }
    json_tok_init(&tk, 0);
    json_tok_feed(&tk, v, n);
    json_tok_finish(&tk);
    while (json_tok_next(&tk, &t) == 1 && t.type != JSON_END) {
        switch (t.type) {
        case JSON_OBJ_BEGIN:
            jsonw_obj_begin(w);
            break;
        case JSON_OBJ_END:
            jsonw_obj_end(w);
            break;
        case JSON_ARR_BEGIN:
            jsonw_arr_begin(w);
            break;
        case JSON_ARR_END:
            jsonw_arr_end(w);
            break;
        case JSON_TRUE:
            jsonw_bool(w, true);
            break;
        case JSON_FALSE:
            jsonw_bool(w, false);
            break;
        case JSON_NULL:
            jsonw_null(w);
            break;
        case JSON_NUM:
            jsonw_raw(w, t.s, t.len);
            break;
        case JSON_KEY:
        case JSON_STR:
            buf_reset(&tmp);
            buf_reset(&red);
            if (buf_append(&tmp, t.s, t.len) || buf_putc(&tmp, 0) ||
                lat_redact_buf(&red, tmp.data, t.type == JSON_STR ? &hide : NULL)) {
                buf_reset(&red);
                buf_puts(&red, "REDACTED"); /* never the original */
            }
            if (t.type == JSON_KEY)
                jsonw_key(w, tmp.data);
            else
                jsonw_strn(w, red.data ? red.data : "REDACTED", red.data ? red.len : 8);
            break;
        default:
            break;
        }
    }
    json_tok_fini(&tk);
    buf_fini(&tmp);
    buf_fini(&red);
}

static int kw_write(const struct lat_trace *t, struct kw_sink *s,
                    const struct kineto_write_opts *opts)
{
    struct jsonw w;
    int rc = 0;
    bool have_dist = false;

    jsonw_init(&w, NULL, opts && opts->pretty);
    jsonw_obj_begin(&w);
    jsonw_key(&w, "schemaVersion");
    jsonw_i64(&w, 1);
    kw_devices(&w, t);
    for (size_t i = 0; i < t->nmeta; i++) {
        const char *k = lat_trace_str(t, t->meta[i].key);
        if (kw_reserved_key(k)) continue;
        if (strcmp(k, "distributedInfo") == 0) have_dist = true;
        jsonw_key(&w, k);
        if (lat_meta_is_secret(k)) {
            jsonw_str(&w, "REDACTED");
        } else {
            const char *v = lat_trace_str(t, t->meta[i].value);
            size_t n = kw_len(t, t->meta[i].value, v);
            if (n)
                kw_meta_value(&w, v, n);
            else
                jsonw_null(&w);
        }
    }
    if (!have_dist && t->rank >= 0) {
        jsonw_key(&w, "distributedInfo");
        jsonw_obj_begin(&w);
        jsonw_key(&w, "rank");
        jsonw_i64(&w, t->rank);
        if (t->world_size >= 0) {
            jsonw_key(&w, "world_size");
            jsonw_i64(&w, t->world_size);
        }
        jsonw_obj_end(&w);
    }
    jsonw_key(&w, "displayTimeUnit");
    jsonw_str(&w, "ms");
    if (t->base_time_ns) {
        jsonw_key(&w, "baseTimeNanoseconds");
        jsonw_i64(&w, t->base_time_ns);
    }
    jsonw_key(&w, "traceEvents");
    jsonw_arr_begin(&w);
    rc = kw_track_metadata(&w, s, t);
    if (rc) goto out;
    for (size_t i = 0; i < t->ev.n; i++) {
        kw_event(&w, t, i);
        kw_maybe_flush(s, &w);
    }
    for (size_t i = 0; i < t->nflows; i++) {
        kw_flow(&w, t, &t->flows[i]);
        kw_maybe_flush(s, &w);
    }
    jsonw_arr_end(&w);
    jsonw_obj_end(&w);
    jsonw_raw(&w, "\n", 1);
    rc = jsonw_finish(&w);
    kw_sink_write(s, &w);
out:
    if (!rc) rc = w.err;
    if (!rc) rc = s->err;
    jsonw_fini(&w);
    return rc;
}

int kineto_write_stream(const struct lat_trace *t, FILE *f, const struct kineto_write_opts *opts)
{
    struct kw_sink s = {.f = f};
    int rc = kw_write(t, &s, opts);
    if (!rc && fflush(f) != 0) rc = -errno;
    return rc;
}

static bool kw_has_gz_ext(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}

int kineto_write_file(const struct lat_trace *t, const char *path,
                      const struct kineto_write_opts *opts)
{
    int gz = opts ? opts->gzip : -1;
    struct kw_sink s = {0};
    int rc;

    if (!path || !*path) return LAT_E_USAGE;
    if (gz < 0) gz = strcmp(path, "-") != 0 && kw_has_gz_ext(path);
    if (strcmp(path, "-") == 0 && !gz) return kineto_write_stream(t, stdout, opts);
    if (gz) {
        char mode[8];
        int level = opts && opts->gzip_level > 0 && opts->gzip_level <= 9 ? opts->gzip_level : 6;
        snprintf(mode, sizeof(mode), "wb%d", level);
        errno = 0;
        s.gz = strcmp(path, "-") == 0 ? gzdopen(1, mode) : gzopen(path, mode);
        if (!s.gz) return errno ? -errno : -ENOMEM;
        rc = kw_write(t, &s, opts);
        int zrc = gzclose(s.gz);
        if (!rc && zrc != Z_OK) rc = zrc == Z_ERRNO ? -EIO : LAT_E_GZIP;
        return rc;
    }
    s.f = fopen(path, "w");
    if (!s.f) return -errno;
    rc = kw_write(t, &s, opts);
    if (fclose(s.f) != 0 && !rc) rc = -errno;
    return rc;
}
