/*
 * jsonw.c - streaming JSON writer.
 *
 * State is a stack of "first element" flags; each value first emits the separator its position
 * needs. Errors are sticky (like stdio's ferror) so call sites stay linear and check once at
 * jsonw_finish(). UTF-8 is validated while escaping: overlong forms, surrogates and bytes that
 * do not start or continue a sequence become U+FFFD, so output is always valid JSON.
 */
#include "core/jsonw.h"
#include "core/err.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#define JSONW_FLUSH_AT (64 * 1024)

void jsonw_init(struct jsonw *w, FILE *out, bool pretty)
{
    memset(w, 0, sizeof(*w));
    w->out = out;
    w->pretty = pretty;
    w->first[0] = true;
}

void jsonw_init_at(struct jsonw *w, FILE *out, bool pretty, int depth)
{
    jsonw_init(w, out, pretty);
    if (depth < 0 || depth >= JSONW_MAX_DEPTH) {
        w->err = LAT_E_USAGE;
        return;
    }
    w->depth = w->base_depth = depth;
    w->first[depth] = true;
    w->after_key = depth > 0; /* no separator: the placing writer's */
}

static void jsonw_flush(struct jsonw *w)
{
    if (!w->out || !w->buf.len) return;
    if (fwrite(w->buf.data, 1, w->buf.len, w->out) != w->buf.len && !w->err) w->err = -EIO;
    buf_reset(&w->buf);
}

int jsonw_finish(struct jsonw *w)
{
    if (w->pretty && w->out && !w->err && !w->base_depth) buf_putc(&w->buf, '\n');
    jsonw_flush(w);
    if (!w->err && w->depth != w->base_depth) w->err = LAT_E_USAGE;
    return w->err;
}

void jsonw_fini(struct jsonw *w)
{
    buf_fini(&w->buf);
}

static void jsonw_put(struct jsonw *w, const char *s, size_t n)
{
    if (w->err) return;
    int rc = buf_append(&w->buf, s, n);
    if (rc)
        w->err = rc;
    else if (w->buf.len >= JSONW_FLUSH_AT)
        jsonw_flush(w);
}

static void jsonw_indent(struct jsonw *w)
{
    static const char spaces[] = "                                                  ";
    jsonw_put(w, "\n", 1);
    int n = w->depth * 2;
    while (n > 0) {
        int k = n > 50 ? 50 : n;
        jsonw_put(w, spaces, (size_t)k);
        n -= k;
    }
}

/* Emits the separator before a value (or a key). */
static void jsonw_sep(struct jsonw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        if (!w->first[w->depth]) jsonw_put(w, ",", 1);
        w->first[w->depth] = false;
        if (w->pretty) jsonw_indent(w);
    }
}

static void jsonw_open(struct jsonw *w, char c)
{
    jsonw_sep(w);
    jsonw_put(w, &c, 1);
    if (w->depth + 1 >= JSONW_MAX_DEPTH) {
        if (!w->err) w->err = LAT_E_OVERFLOW;
        return;
    }
    w->depth++;
    w->first[w->depth] = true;
}

static void jsonw_close(struct jsonw *w, char c)
{
    if (w->depth <= 0) {
        if (!w->err) w->err = LAT_E_USAGE;
        return;
    }
    bool empty = w->first[w->depth];
    w->depth--;
    if (w->pretty && !empty) jsonw_indent(w);
    jsonw_put(w, &c, 1);
}

void jsonw_obj_begin(struct jsonw *w)
{
    jsonw_open(w, '{');
}
void jsonw_obj_end(struct jsonw *w)
{
    jsonw_close(w, '}');
}
void jsonw_arr_begin(struct jsonw *w)
{
    jsonw_open(w, '[');
}
void jsonw_arr_end(struct jsonw *w)
{
    jsonw_close(w, ']');
}

/* Length of a valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_valid_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

int json_escape(struct lat_buf *b, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    int rc = buf_putc(b, '"');
    size_t i = 0, run = 0;
    char esc_c1[8];
    while (!rc && i < n) {
        unsigned char c = s[i];
        /* DEL and the C1 controls U+0080-U+009F are legal raw in JSON but are written as \u
         * escapes too, so that no JSON output carries a byte a terminal acts on */
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            run++;
            i++;
            continue;
        }
        if (run) rc = buf_append(b, s + i - run, run);
        run = 0;
        if (rc) break;
        if (c >= 0x80) {
            size_t len = utf8_valid_len(s + i, n - i);
            if (len == 2 && c == 0xc2 && s[i + 1] <= 0x9f) {
                snprintf(esc_c1, sizeof(esc_c1), "\\u%04x", s[i + 1]);
                rc = buf_append(b, esc_c1, 6);
                i += 2;
            } else if (len) {
                rc = buf_append(b, s + i, len);
                i += len;
            } else {
                rc = buf_append(b, "\xEF\xBF\xBD", 3);
                i++;
            }
            continue;
        }
        char esc[8];
        switch (c) {
        case '"':
            rc = buf_append(b, "\\\"", 2);
            break;
        case '\\':
            rc = buf_append(b, "\\\\", 2);
            break;
        case '\n':
            rc = buf_append(b, "\\n", 2);
            break;
        case '\r':
            rc = buf_append(b, "\\r", 2);
            break;
        case '\t':
            rc = buf_append(b, "\\t", 2);
            break;
        default:
            snprintf(esc, sizeof(esc), "\\u%04x", c);
            rc = buf_append(b, esc, 6);
            break;
        }
        i++;
    }
    if (!rc && run) rc = buf_append(b, s + n - run, run);
    if (!rc) rc = buf_putc(b, '"');
    return rc;
}

void jsonw_key(struct jsonw *w, const char *key)
{
    jsonw_sep(w);
    if (!w->err) {
        int rc = json_escape(&w->buf, key, strlen(key));
        if (rc) w->err = rc;
    }
    jsonw_put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    w->after_key = true;
}

void jsonw_strn(struct jsonw *w, const char *s, size_t n)
{
    jsonw_sep(w);
    if (!w->err) {
        bool cut = w->str_max && n > w->str_max;
        if (cut) {
            n = w->str_max;
            while (n && ((unsigned char)s[n] & 0xc0) == 0x80) /* s[n]: a continuation byte */
                n--;
        }
        int rc = json_escape(&w->buf, s, n);
        if (!rc && cut) {
            w->buf.len--;                             /* the closing quote */
            rc = buf_puts(&w->buf, "\xe2\x80\xa6\""); /* U+2026 */
        }
        if (rc)
            w->err = rc;
        else if (w->buf.len >= JSONW_FLUSH_AT)
            jsonw_flush(w);
    }
}

void jsonw_str(struct jsonw *w, const char *s)
{
    if (!s)
        jsonw_null(w);
    else
        jsonw_strn(w, s, strlen(s));
}

void jsonw_i64(struct jsonw *w, int64_t v)
{
    char t[32];
    int n = snprintf(t, sizeof(t), "%" PRId64, v);
    jsonw_sep(w);
    jsonw_put(w, t, (size_t)n);
}

void jsonw_u64(struct jsonw *w, uint64_t v)
{
    char t[32];
    int n = snprintf(t, sizeof(t), "%" PRIu64, v);
    jsonw_sep(w);
    jsonw_put(w, t, (size_t)n);
}

void jsonw_double(struct jsonw *w, double v, int digits)
{
    char t[64];
    if (!isfinite(v)) {
        jsonw_null(w);
        return;
    }
    int n = snprintf(t, sizeof(t), "%.*g", digits, v);
    jsonw_sep(w);
    jsonw_put(w, t, (size_t)n);
}

void jsonw_fixed(struct jsonw *w, double v, int decimals)
{
    char t[64];
    if (!isfinite(v)) {
        jsonw_null(w);
        return;
    }
    int n = snprintf(t, sizeof(t), "%.*f", decimals, v);
    jsonw_sep(w);
    jsonw_put(w, t, (size_t)n);
}

void jsonw_ns_as_us(struct jsonw *w, int64_t ns)
{
    char t[48];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int n = snprintf(t, sizeof(t), "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", a / 1000,
                     (unsigned)(a % 1000));
    jsonw_sep(w);
    jsonw_put(w, t, (size_t)n);
}

void jsonw_bool(struct jsonw *w, bool v)
{
    jsonw_sep(w);
    jsonw_put(w, v ? "true" : "false", v ? 4 : 5);
}

void jsonw_null(struct jsonw *w)
{
    jsonw_sep(w);
    jsonw_put(w, "null", 4);
}

void jsonw_raw(struct jsonw *w, const char *json, size_t n)
{
    jsonw_sep(w);
    jsonw_put(w, json, n);
}
