/*
 * redact.c - secrets out of the text latscope writes (see redact.h).
 */
#include "core/redact.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <strings.h>

bool lat_secret_name(const char *s, size_t n)
{
    static const char *const pats[] = {"TOKEN",      "KEY",    "SECRET", "PASSWORD",
                                       "CREDENTIAL", "PASSWD", "AUTH"};
    for (size_t p = 0; p < sizeof(pats) / sizeof(pats[0]); p++) {
        size_t m = strlen(pats[p]);
        for (size_t i = 0; i + m <= n; i++) {
            size_t k = 0;
            while (k < m && s[i + k] && toupper((unsigned char)s[i + k]) == pats[p][k])
                k++;
            if (k == m) return true;
        }
    }
    return false;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

int lat_redact_buf(struct lat_buf *b, const char *in, bool *hide_next)
{
    if (hide_next && *hide_next) {
        *hide_next = false;
        if (in[0] != '-') return buf_puts(b, "REDACTED");
    }
    size_t len = strlen(in);
    if (hide_next && in[0] == '-' && !strchr(in, '=')) {
        const char *nm = in + strspn(in, "-");
        if (*nm && lat_secret_name(nm, strlen(nm))) *hide_next = true;
        return buf_append(b, in, len);
    }
    /* scheme://user:pass@host: the password is everything between the first ':' of the
     * authority and its last '@'. */
    size_t pw_at = len, pw_end = len;
    const char *sch = strstr(in, "://");
    if (sch) {
        const char *auth = sch + 3, *end = auth + strcspn(auth, "/?#\"' \t\n"), *at = NULL;
        for (const char *q = auth; q < end; q++)
            if (*q == '@') at = q;
        const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon) {
            pw_at = (size_t)(colon + 1 - in);
            pw_end = (size_t)(at - in);
        }
    }
    int rc = 0;
    for (size_t i = 0; i < len && !rc;) {
        if (i == pw_at) {
            rc = buf_puts(b, "REDACTED");
            i = pw_end;
            continue;
        }
        char c = in[i];
        size_t k = 0;
        if (!strncasecmp(in + i, "Bearer ", 7))
            k = 7;
        else if (!strncasecmp(in + i, "Basic ", 6))
            k = 6;
        if (k && (i == 0 || !name_char(in[i - 1]))) {
            rc = buf_append(b, in + i, k);
            i += k;
            size_t e = i + strcspn(in + i, " \"'");
            if (e > i && !rc) rc = buf_puts(b, "REDACTED");
            i = e;
            continue;
        }
        rc = buf_putc(b, c);
        i++;
        if (c != '=' && c != ':') continue;
        size_t s = i - 1;
        while (s > 0 && name_char(in[s - 1]))
            s--;
        if (!lat_secret_name(in + s, i - 1 - s)) continue;
        /* "NAME:" is a header when a blank or the end follows (not "key:value" inside a URL's
         * host:port, which has no secret-looking name anyway). */
        size_t e = c == ':' ? len : i + strcspn(in + i, "&,; \t\"'");
        if (c == ':' && in[i] == ' ' && !rc) rc = buf_putc(b, in[i++]);
        if (e > i && !rc) rc = buf_puts(b, "REDACTED");
        i = e;
    }
    if (!rc && !b->data) rc = buf_puts(b, "");
    return rc;
}

const char *lat_redacted(struct lat_buf *b, const char *s)
{
    if (!s) return NULL;
    buf_reset(b);
    if (lat_redact_buf(b, s, NULL) < 0) return "REDACTED";
    return b->data;
}
