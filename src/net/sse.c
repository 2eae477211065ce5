/*
 * sse.c - incremental Server-Sent Events framer.
 *
 * Follows the WHATWG event-stream interpretation: lines end at CRLF, LF or CR; a line starting
 * with ':' is a comment (keep-alive); "field: value" with one optional space after the colon;
 * `data` lines accumulate (joined by '\n'); a blank line dispatches the event when it has data;
 * `event` names its type; `id` and `retry` are accepted and ignored (a benchmark never
 * reconnects); unknown fields are ignored; an incomplete event at the end of the stream is not
 * dispatched (sse_pending() tells the caller the stream was cut).
 *
 * Approach: a line wholly inside one read is interpreted in place; only a line split across
 * reads is copied into `line`. A CR that ends one read and an LF that starts the next are one
 * terminator (after_cr). Bytes are never decoded while framing, so a UTF-8 sequence split across
 * reads is simply reassembled; validity is checked once per dispatched event. Each event is
 * stamped with the timestamp of the read that delivered its terminating blank line, which is the
 * moment a client could first act on it. The buffers grow to the largest event seen and are then
 * reused: the steady state allocates nothing. One parser per stream; no shared state.
 */
#include "net/sse.h"

#include "core/err.h"

#include <errno.h>
#include <string.h>

void sse_init(struct sse_parser *s, size_t max_event)
{
    memset(s, 0, sizeof(*s));
    s->max_event = max_event ? max_event : SSE_DEFAULT_MAX_EVENT;
    s->ts_first = -1;
}

void sse_reset(struct sse_parser *s)
{
    struct lat_buf line = s->line, data = s->data;
    size_t max = s->max_event;
    buf_reset(&line);
    buf_reset(&data);
    memset(s, 0, sizeof(*s));
    s->line = line;
    s->data = data;
    s->max_event = max;
    s->ts_first = -1;
}

void sse_fini(struct sse_parser *s)
{
    buf_fini(&s->line);
    buf_fini(&s->data);
}

bool sse_pending(const struct sse_parser *s)
{
    return s->line.len > 0 || s->has_data || s->skipping;
}

bool sse_utf8_valid(const char *buf, size_t n)
{
    const unsigned char *p = (const unsigned char *)buf, *end = p + n;
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            p++;
            continue;
        }
        size_t need;
        unsigned cp, min;
        if ((c & 0xe0) == 0xc0) {
            need = 1, cp = c & 0x1f, min = 0x80;
        } else if ((c & 0xf0) == 0xe0) {
            need = 2, cp = c & 0x0f, min = 0x800;
        } else if ((c & 0xf8) == 0xf0) {
            need = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return false;
        }
        if ((size_t)(end - p) <= need) return false;
        for (size_t i = 1; i <= need; i++) {
            if ((p[i] & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        p += need + 1;
    }
    return true;
}

/* Clears the event being assembled (after a dispatch or a blank line without data). */
static void event_clear(struct sse_parser *s)
{
    buf_reset(&s->data);
    s->type_len = 0;
    s->type[0] = '\0';
    s->has_data = false;
    s->data_lines = 0;
    s->ts_first = -1;
}

static int oversize(struct sse_parser *s)
{
    event_clear(s);
    buf_reset(&s->line);
    s->skipping = true;
    return LAT_E_SSE_PARSE;
}

/*
 * Interprets one complete, non-empty line. Returns 0, -ENOMEM or LAT_E_SSE_PARSE (data too
 * large).
 */
static int process_line(struct sse_parser *s, const char *l, size_t n)
{
    if (!s->bom_checked) {
        s->bom_checked = true;
        if (n >= 3 && memcmp(l, "\xEF\xBB\xBF", 3) == 0) {
            l += 3;
            n -= 3;
            if (n == 0) return 0;
        }
    }
    if (l[0] == ':') {
        s->comments++;
        s->total_comments++;
        return 0;
    }
    const char *colon = memchr(l, ':', n);
    size_t name_len = colon ? (size_t)(colon - l) : n;
    const char *val = colon ? colon + 1 : l + n;
    size_t val_len = colon ? n - name_len - 1 : 0;
    if (val_len > 0 && val[0] == ' ') val++, val_len--;

    if (name_len == 4 && memcmp(l, "data", 4) == 0) {
        if (s->data.len + val_len + 1 > s->max_event) return oversize(s);
        int rc = 0;
        if (s->data_lines > 0) rc = buf_putc(&s->data, '\n');
        if (!rc) rc = buf_append(&s->data, val, val_len);
        if (rc) return rc;
        s->has_data = true;
        s->data_lines++;
    } else if (name_len == 5 && memcmp(l, "event", 5) == 0) {
        size_t k = val_len < sizeof(s->type) - 1 ? val_len : sizeof(s->type) - 1;
        memcpy(s->type, val, k);
        s->type[k] = '\0';
        s->type_len = k;
    }
    /* id, retry and unknown fields: ignored. */
    return 0;
}

static void fill_event(struct sse_parser *s, lat_ns ts, struct sse_event *ev)
{
    if (!s->data.data) buf_reserve(&s->data, 0); /* "data:" with an empty value */
    ev->data = s->data.data ? s->data.data : "";
    ev->data_len = s->data.len;
    ev->type = s->type;
    ev->type_len = s->type_len;
    ev->ts = ts;
    ev->ts_first = s->ts_first >= 0 ? s->ts_first : ts;
    ev->comments = s->comments;
    ev->data_lines = s->data_lines;
    ev->done = ev->data_len == 6 && memcmp(ev->data, "[DONE]", 6) == 0;
    ev->utf8_ok = sse_utf8_valid(ev->data, ev->data_len);
    s->comments = 0;
    s->events++;
}

int sse_feed(struct sse_parser *s, const char **data, size_t *len, lat_ns ts, struct sse_event *ev)
{
    const char *p = *data;
    size_t n = *len;
    int ret = 0;

    /* The previous call dispatched an event whose storage the caller no longer needs. */
    if (s->has_data == false && s->data.len) buf_reset(&s->data);

    while (n > 0) {
        if (s->after_cr) {
            s->after_cr = false;
            if (p[0] == '\n') {
                p++, n--;
                continue;
            }
        }
        /* Find the next line terminator. */
        const char *cr = memchr(p, '\r', n), *lf = memchr(p, '\n', n);
        const char *t = cr && (!lf || cr < lf) ? cr : lf;
        if (!t) {
            /* No terminator in this read: keep the partial line (or skip it). */
            if (!s->skipping) {
                if (s->line.len == 0) s->line_ts = ts;
                if (s->line.len + n > s->max_event) {
                    p += n, n = 0;
                    ret = oversize(s);
                    s->skip_in_line = true; /* still inside a (discarded) non-empty line */
                    break;
                }
                int rc = buf_append(&s->line, p, n);
                if (rc) {
                    ret = rc;
                    break;
                }
            } else {
                s->skip_in_line = true;
            }
            p += n, n = 0;
            break;
        }
        size_t k = (size_t)(t - p);
        const char *l = p;
        size_t ll = k;
        /* Consume the line and its terminator (CRLF as one). */
        p += k + 1, n -= k + 1;
        if (*t == '\r') {
            if (n > 0 && p[0] == '\n')
                p++, n--;
            else if (n == 0)
                s->after_cr = true;
        }
        if (s->skipping) {
            bool blank = ll == 0 && !s->skip_in_line;
            s->skip_in_line = false;
            if (blank) s->skipping = false;
            continue;
        }
        lat_ns line_ts = ts;
        if (s->line.len > 0) {
            line_ts = s->line_ts;
            if (s->line.len + ll > s->max_event) {
                ret = oversize(s);
                s->line.len = 0;
                break;
            }
            int rc = buf_append(&s->line, l, ll);
            if (rc) {
                ret = rc;
                break;
            }
            l = s->line.data;
            ll = s->line.len;
        }
        if (ll == 0) {
            /* Blank line: dispatch when the event has data, else just clear it. */
            if (s->has_data) {
                fill_event(s, ts, ev);
                s->has_data = false; /* data stays readable until the next call */
                s->type_len = 0;
                s->data_lines = 0;
                s->ts_first = -1;
                ret = 1;
                break;
            }
            event_clear(s);
            continue;
        }
        if (s->ts_first < 0 && l[0] != ':') s->ts_first = line_ts;
        int rc = process_line(s, l, ll);
        buf_reset(&s->line);
        if (rc) {
            ret = rc;
            break;
        }
    }
    s->bytes += (uint64_t)(p - *data);
    *data = p;
    *len = n;
    return ret;
}
