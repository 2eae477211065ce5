/*
 * esc.c - the one escaper of names in text/markdown/CSV output (rule in esc.h).
 */
#include "core/esc.h"

#include "core/buf.h"

#include <stdlib.h>
#include <string.h>

static bool c1_at(const unsigned char *p)
{
    return p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
}

/* The escape of the sequence at p into out (at most 7 bytes); its input length, 0 when the
 * byte is kept. */
static size_t esc_one(const unsigned char *p, char out[8], size_t *olen)
{
    static const char hex[] = "0123456789abcdef";
    if (*p == '\n') {
        memcpy(out, "\\n", 2);
        *olen = 2;
        return 1;
    }
    if (*p < 0x20 || *p == 0x7f) {
        out[0] = '\\', out[1] = 'x', out[2] = hex[*p >> 4], out[3] = hex[*p & 15];
        *olen = 4;
        return 1;
    }
    if (c1_at(p)) {
        memcpy(out, "\\u00", 4);
        out[4] = hex[p[1] >> 4], out[5] = hex[p[1] & 15];
        *olen = 6;
        return 2;
    }
    return 0;
}

bool lat_esc_needed(const char *s)
{
    if (!s) return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || c1_at(p)) return true;
    return false;
}

int lat_esc_buf(struct lat_buf *b, const char *s)
{
    if (!s) return 0;
    const unsigned char *p = (const unsigned char *)s, *run = p;
    for (; *p;) {
        char e[8];
        size_t el, in = esc_one(p, e, &el);
        if (!in) {
            p++;
            continue;
        }
        int rc = buf_append(b, run, (size_t)(p - run));
        if (!rc) rc = buf_append(b, e, el);
        if (rc) return rc;
        p += in;
        run = p;
    }
    return buf_append(b, run, (size_t)(p - run));
}

char *lat_esc_str(char *dst, size_t len, const char *s)
{
    if (!len) return dst;
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        char e[8];
        size_t el, in = esc_one(p, e, &el);
        if (!in) {
            /* a whole UTF-8 sequence or nothing */
            size_t k = 1;
            if (*p >= 0xc0)
                while (p[k] >= 0x80 && p[k] <= 0xbf && k < 4)
                    k++;
            if (n + k >= len) break;
            memcpy(dst + n, p, k);
            n += k;
            p += k;
            continue;
        }
        if (n + el >= len) break;
        memcpy(dst + n, e, el);
        n += el;
        p += in;
    }
    dst[n] = 0;
    return dst;
}

const char *lat_esc_cell(char *dst, size_t len, const char *s)
{
    if (!s) return "";
    return lat_esc_needed(s) ? lat_esc_str(dst, len, s) : s;
}

int lat_esc_fputs(const char *s, FILE *f)
{
    if (!lat_esc_needed(s)) return fputs(s ? s : "", f);
    struct lat_buf b = {0};
    int rc = lat_esc_buf(&b, s) ? EOF : 0;
    if (!rc && b.len) rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : EOF;
    buf_fini(&b);
    return rc;
}

char *lat_esc_dup(const char *s)
{
    struct lat_buf b = {0};
    if (lat_esc_buf(&b, s) || buf_putc(&b, 0)) {
        buf_fini(&b);
        return NULL;
    }
    return (char *)b.data;
}
