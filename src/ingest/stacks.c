/*
 * stacks.c - the model filling and line reading the CPU stack-file readers share (stacks.h).
 */
#include "ingest/stacks.h"
#include "core/err.h"
#include "core/grow.h"
#include "model/pyframe.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int stk_init(struct stk_build *b, const struct lat_trace_format *format)
{
    memset(b, 0, sizeof(*b));
    b->in_bytes = UINT64_MAX; /* one sample per record (perf script): STK_MAX_SAMPLES only */
    int rc = lat_trace_new(&b->t);
    if (rc) return rc;
    lat_trace_set_format(b->t, format);
    if ((rc = lat_cpu_ids_init(b->t, &b->ids)) ||
        (rc = lat_trace_intern(b->t, "[unknown]", 9, &b->unknown)))
        return rc;
    return 0;
}

void stk_fini(struct stk_build *b)
{
    lat_trace_free(b->t);
    buf_fini(&b->stack);
    free(b->arg_of);
    memset(b, 0, sizeof(*b));
}

int stk_track(struct stk_build *b, int64_t pid, int64_t tid, const char *label, size_t n,
              uint32_t *track)
{
    int rc = lat_trace_track(b->t, pid, tid, 0, 0, false, track);
    if (rc || !label || !n || b->t->tracks[*track].tid_label) return rc;
    uint32_t id;
    if ((rc = lat_trace_intern(b->t, label, n, &id))) return rc;
    b->t->tracks[*track].tid_label = id;
    return 0;
}

void stk_reset(struct stk_build *b)
{
    b->stack.len = 0;
    if (b->stack.data) b->stack.data[0] = '\0';
    b->nframes = 0;
}

int stk_push(struct stk_build *b, const char *f, size_t n)
{
    if (b->nframes && buf_putc(&b->stack, ';')) return -ENOMEM;
    size_t at = b->stack.len;
    if (n && buf_append(&b->stack, f, n)) return -ENOMEM;
    for (size_t i = at; i < b->stack.len; i++) {
        char c = b->stack.data[i];
        if (c == ';' || c == '\n' || c == '\r' || c == '\0') b->stack.data[i] = ':';
    }
    b->nframes++;
    return 0;
}

static bool has_sfx(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* A Python source: *.py / *.pyx / *.pyw, or a pseudo-file such as "<frozen importlib._bootstrap>"
 * or "<string>". */
static bool py_file(const char *f, size_t n)
{
    return (n && f[0] == '<') || has_sfx(f, n, ".py") || has_sfx(f, n, ".pyx") ||
           has_sfx(f, n, ".pyw");
}

static bool is_addr(const char *s, size_t n)
{
    if (n < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) return false;
    for (size_t i = 2; i < n; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i])) return false;
    return true;
}

static int push_native(struct stk_build *b, const char *name, size_t nn, const char *mod, size_t mn)
{
    if ((!nn || is_addr(name, nn)) && mn) {
        /* latscope's spelling of a native frame without a symbol: [module basename] */
        const char *s = memrchr(mod, '/', mn);
        if (s) {
            mn -= (size_t)(s + 1 - mod);
            mod = s + 1;
        }
        char tmp[512];
        if (mn + 2 < sizeof(tmp)) {
            tmp[0] = '[';
            memcpy(tmp + 1, mod, mn);
            tmp[mn + 1] = ']';
            return stk_push(b, tmp, mn + 2);
        }
    }
    return stk_push(b, name, nn);
}

int stk_push_named(struct stk_build *b, const char *name, size_t nn, const char *file, size_t fn,
                   int64_t line)
{
    if (!fn) return stk_push(b, name, nn);
    if (!py_file(file, fn)) return push_native(b, name, nn, file, fn);
    if (nn >= 3 && !memcmp(name, "py:", 3)) { /* already prefixed */
        name += 3;
        nn -= 3;
    }
    char small[1024];
    size_t need = lat_py_frame_name(small, sizeof(small), name, nn, file, fn, line);
    if (need < sizeof(small)) return stk_push(b, small, need);
    char *tmp = malloc(need + 1);
    if (!tmp) return -ENOMEM;
    lat_py_frame_name(tmp, need + 1, name, nn, file, fn, line);
    int rc = stk_push(b, tmp, need);
    free(tmp);
    return rc;
}

int stk_push_pyspy(struct stk_build *b, const char *f, size_t n)
{
    /* "func (file:line)": the last " (" of a frame ending in ')'; a frame already in
     * latscope's spelling ("py:f (x.py:3)", from `trace --cpu --folded`) stays as it is */
    if (n < 4 || f[n - 1] != ')' || !memcmp(f, "py:", 3)) return stk_push(b, f, n);
    size_t i = n - 1;
    while (i > 1 && !(f[i - 1] == '(' && f[i - 2] == ' '))
        i--;
    if (i <= 1) return stk_push(b, f, n);
    const char *file = f + i;
    size_t fl = n - 1 - i, nn = i - 2;
    int64_t line = -1;
    size_t d = fl;
    while (d > 0 && file[d - 1] >= '0' && file[d - 1] <= '9')
        d--;
    if (d < fl && d > 0 && file[d - 1] == ':' && fl - d < 10) {
        line = strtoll(file + d, NULL, 10);
        fl = d - 1;
    }
    if (!fl) return stk_push(b, f, n);
    if (py_file(file, fl)) return stk_push_named(b, f, nn, file, fl, line);
    return push_native(b, f, nn, file, fl);
}

uint64_t stk_cap_of(uint64_t in_bytes)
{
    uint64_t c = in_bytes > STK_MAX_SAMPLES / STK_CAP_PER_BYTE ? STK_MAX_SAMPLES
                                                               : in_bytes * STK_CAP_PER_BYTE;
    if (c < STK_CAP_FIXED) c = STK_CAP_FIXED;
    return c < STK_MAX_SAMPLES ? c : STK_MAX_SAMPLES;
}

uint64_t stk_cap(const struct stk_build *b)
{
    return stk_cap_of(b->in_bytes);
}

int stk_emit(struct stk_build *b, uint32_t track, lat_ns ts, uint64_t count)
{
    if (!count) return 0;
    uint64_t cap = stk_cap(b);
    if (b->events >= cap || b->samples > STK_MAX_WEIGHT || count > STK_MAX_WEIGHT - b->samples)
        return LAT_E_OVERFLOW;
    struct lat_trace *t = b->t;
    uint32_t sid = b->unknown, leaf = b->unknown;
    int rc;
    if (b->stack.len) {
        if ((rc = lat_trace_intern(t, b->stack.data, b->stack.len, &sid))) return rc;
        const char *s = memrchr(b->stack.data, ';', b->stack.len);
        s = s ? s + 1 : b->stack.data;
        size_t ln = b->stack.len - (size_t)(s - b->stack.data);
        if (ln && (rc = lat_trace_intern(t, s, ln, &leaf))) return rc;
    }
    uint32_t shared = UINT32_MAX;
    if (count == 1) { /* samples of one stack share their two args */
        if (sid >= b->arg_of_cap) {
            size_t old = b->arg_of_cap;
            if ((rc = LAT_GROW(b->arg_of, b->arg_of_cap, sid, 1, 1024))) return rc;
            memset(b->arg_of + old, 0, (b->arg_of_cap - old) * sizeof(*b->arg_of));
        }
        if (b->arg_of[sid]) shared = b->arg_of[sid] - 1;
    }
    struct lat_cpu_sample smp = {
        .ts = ts, .track = track, .stack = sid, .leaf = leaf, .weight = count};
    uint32_t first;
    if ((rc = lat_trace_add_cpu_sample(t, &b->ids, &smp, shared, &first))) return rc;
    if (count == 1) b->arg_of[sid] = first + 1;
    b->events++;
    b->samples += count;
    return 0;
}

int stk_meta(struct stk_build *b, const char *key, const char *json)
{
    uint32_t k, v;
    int rc;
    if ((rc = lat_trace_intern(b->t, key, strlen(key), &k)) ||
        (rc = lat_trace_intern(b->t, json, strlen(json), &v)))
        return rc;
    return lat_trace_add_meta(b->t, k, v);
}

/* ---- lines ---------------------------------------------------------------------------------- */

void stk_lines_init(struct stk_lines *L, struct ingest_src *src)
{
    memset(L, 0, sizeof(*L));
    L->src = src;
}

void stk_lines_fini(struct stk_lines *L)
{
    buf_fini(&L->carry);
}

static void strip_cr(const char **line, size_t *len)
{
    if (*len && (*line)[*len - 1] == '\r') (*len)--;
}

int stk_line(struct stk_lines *L, const char **line, size_t *len, char *err, size_t errsz)
{
    L->carry.len = 0;
    for (;;) {
        if (L->p < L->end) {
            const char *nl = memchr(L->p, '\n', (size_t)(L->end - L->p));
            size_t k = nl ? (size_t)(nl - L->p) : (size_t)(L->end - L->p);
            if (L->carry.len + k > STK_MAX_LINE) {
                snprintf(err, errsz, "line %llu is longer than %u MiB",
                         (unsigned long long)L->lineno + 1, STK_MAX_LINE >> 20);
                return LAT_E_OVERFLOW;
            }
            if (nl && !L->carry.len) {
                *line = L->p;
                *len = k;
                L->p = nl + 1;
                L->lineno++;
                L->unterminated = false;
                strip_cr(line, len);
                return 1;
            }
            if (buf_append(&L->carry, L->p, k)) return -ENOMEM;
            L->p += k;
            if (nl) {
                L->p++;
                *line = L->carry.data;
                *len = L->carry.len;
                L->lineno++;
                L->unterminated = false;
                strip_cr(line, len);
                return 1;
            }
            continue;
        }
        if (L->eof) break;
        const char *d;
        size_t n;
        int rc = src_next(L->src, &d, &n, err, errsz);
        if (rc < 0) return rc;
        if (rc == 0) {
            L->eof = true;
            continue;
        }
        L->p = d;
        L->end = d + n;
        L->bytes += n;
    }
    if (!L->carry.len) return 0;
    *line = L->carry.data;
    *len = L->carry.len;
    L->lineno++;
    L->unterminated = true;
    L->carry.len = 0; /* the next call returns 0 */
    strip_cr(line, len);
    return 1;
}

int stk_fail(char *err, size_t errsz, const char *nm, const char *what, int rc, const char *fmt,
             ...)
{
    if (err && errsz) {
        int o = snprintf(err, errsz, "%s: %s, ", nm, what);
        if (o > 0 && (size_t)o < errsz) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(err + o, errsz - (size_t)o, fmt, ap);
            va_end(ap);
        }
    }
    return rc;
}
