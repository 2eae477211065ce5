/*
 * csv.c - streaming RFC 4180 tokenizer and locale-tolerant numbers (see csv.h).
 */
#include "ingest/csv.h"
#include "core/err.h"
#include "core/grow.h"
#include "ingest/source.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { S_START, S_FIELD, S_QUOTED, S_QQ, S_PREFIX };

void csv_init(struct csv_rd *r, csv_rec_fn fn, void *ctx)
{
    memset(r, 0, sizeof(*r));
    r->max_record = 64u << 20;
    r->max_fields = 1u << 16;
    r->fn = fn;
    r->ctx = ctx;
    r->line = 1;
    r->rec_line = 1;
    r->st = S_START;
}

void csv_fini(struct csv_rd *r)
{
    free(r->buf);
    free(r->off);
    free(r->quoted);
    r->buf = NULL;
    r->off = NULL;
    r->quoted = NULL;
}

static int put(struct csv_rd *r, char c)
{
    if (r->len >= r->max_record) {        /* the limit, checked here: the capacity may be past it */
        if (r->preamble || r->raw_line) { /* a long non-CSV line: cut, not an error */
            r->cut = true;
            return 0;
        }
        return LAT_E_OVERFLOW;
    }
    if (r->len + 1 >= r->cap) {
        int rc = LAT_GROW(r->buf, r->cap, r->len, 2, 256); /* room for c and a NUL */
        if (rc) return rc;
    }
    r->buf[r->len++] = c;
    return 0;
}

/* Starts a field at the current end of buf. */
static int field_begin(struct csv_rd *r, bool quoted)
{
    if (r->nf >= r->max_fields) return LAT_E_OVERFLOW;
    if (r->nf == r->fcap) {
        /* two parallel columns: quoted grows first to the capacity off then gets (a failure
         * leaves quoted the larger, which is harmless) */
        size_t qcap = r->fcap;
        int rc = LAT_GROW(r->quoted, qcap, r->nf, 1, 32);
        if (!rc) rc = LAT_GROW(r->off, r->fcap, r->nf, 1, 32);
        if (rc) return rc;
    }
    r->off[r->nf] = r->len;
    r->quoted[r->nf] = quoted;
    r->nf++;
    return 0;
}

/* Ends the current field (NUL after it). */
static int field_end(struct csv_rd *r)
{
    if (r->len + 1 > r->max_record + 1) return LAT_E_OVERFLOW;
    int rc = put(r, 0);
    if (rc) return rc;
    return 0;
}

static void reset(struct csv_rd *r)
{
    r->len = 0;
    r->nf = 0;
    r->st = S_START;
    r->raw_line = false;
    r->cut = false;
    r->any = false;
}

static int deliver_raw(struct csv_rd *r)
{
    size_t n = r->len;
    while (n && r->buf[n - 1] == '\r')
        n--;
    if (!r->buf) {
        int rc = put(r, 0);
        if (rc) return rc;
        r->len = 0;
    }
    int rc = LAT_GROW(r->buf, r->cap, n, 1, 256);
    if (rc) return rc;
    r->buf[n] = 0;
    struct csv_field f = {r->buf, n, false};
    struct csv_rec rec = {&f, 1, r->rec_line, true, false};
    r->raw_lines++;
    return r->fn ? r->fn(r->ctx, &rec) : 0;
}

static int deliver(struct csv_rd *r)
{
    struct csv_field small[64], *f = small;
    if (r->nf > 64) {
        f = malloc(r->nf * sizeof(*f));
        if (!f) return -ENOMEM;
    }
    for (size_t i = 0; i < r->nf; i++) {
        size_t end = i + 1 < r->nf ? r->off[i + 1] - 1 : r->len - 1; /* before its NUL */
        f[i].s = r->buf + r->off[i];
        f[i].n = end - r->off[i];
        f[i].quoted = r->quoted[i];
    }
    struct csv_rec rec = {f, r->nf, r->rec_line, false, r->at_end};
    int rc = r->fn ? r->fn(r->ctx, &rec) : 0;
    if (f != small) free(f);
    return rc;
}

static int feed(struct csv_rd *r, const char *d, size_t n);

/* End of a line outside quotes. */
static int line_end(struct csv_rd *r)
{
    int rc = 0;
    if (r->preamble) {
        size_t n = r->len;
        while (n && r->buf[n - 1] == '\r')
            n--;
        if (!r->cut && r->is_header && r->buf && r->is_header(r->buf, n)) {
            /* the header: tokenize this line as the first record */
            char *line = malloc(n + 1);
            if (!line) return -ENOMEM;
            memcpy(line, r->buf, n);
            reset(r);
            r->preamble = false;
            rc = feed(r, line, n);
            free(line);
            /* its newline as CSV sees it: inside a quoted field it is part of the field */
            if (!rc) rc = feed(r, "\n", 1);
            return rc;
        }
        if (r->len || r->any) rc = deliver_raw(r);
    } else if (r->raw_line) {
        rc = deliver_raw(r);
    } else if (r->nf || r->len) {
        if (r->st == S_START && r->nf) { /* "a,\n": an empty last field */
            if (!(rc = field_begin(r, false))) rc = field_end(r);
        } else if (r->st != S_START) { /* S_QUOTED only from csv_end's callers: defensive */
            rc = field_end(r);
        }
        if (!rc) rc = deliver(r);
    }
    reset(r);
    r->line++;
    r->rec_line = r->line;
    return rc;
}

static int feed(struct csv_rd *r, const char *d, size_t n)
{
    int rc = 0;
    size_t plen = r->raw_prefix ? strlen(r->raw_prefix) : 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char c = d[i];
        if (r->preamble || r->raw_line) {
            if (c == '\n') {
                rc = line_end(r);
            } else {
                r->any = true;
                rc = put(r, c);
            }
            continue;
        }
        switch (r->st) {
        case S_START: /* start of a field */
            if (r->nf == 0 && plen && c == r->raw_prefix[0]) {
                if ((rc = field_begin(r, false)) || (rc = put(r, c))) break;
                r->st = S_PREFIX;
                if (plen == 1) r->raw_line = true, r->nf = 0;
                break;
            }
            if (c == '"') {
                rc = field_begin(r, true);
                r->st = S_QUOTED;
            } else if (c == ',') {
                if (!(rc = field_begin(r, false))) rc = field_end(r);
            } else if (c == '\n') {
                rc = line_end(r);
            } else if (c == '\r') {
                /* dropped (CR LF) */
            } else {
                if (!(rc = field_begin(r, false))) rc = put(r, c);
                r->st = S_FIELD;
            }
            break;
        case S_PREFIX: { /* the first field so far matches a prefix of raw_prefix */
            size_t k = r->len - r->off[0];
            if (c == r->raw_prefix[k]) {
                rc = put(r, c);
                if (k + 1 == plen) { /* a raw line: the bytes so far are its start */
                    r->raw_line = true;
                    r->nf = 0;
                }
                break;
            }
            r->st = S_FIELD;
        }
            __attribute__((fallthrough));
        case S_FIELD:
            if (c == ',') {
                rc = field_end(r);
                r->st = S_START;
            } else if (c == '\n') {
                rc = line_end(r);
            } else if (c != '\r') {
                rc = put(r, c);
            }
            break;
        case S_QUOTED:
            if (c == '"') {
                r->st = S_QQ;
            } else {
                if (c == '\n') r->line++;
                rc = put(r, c);
            }
            break;
        case S_QQ: /* a quote inside a quoted field: "" or the closing one */
            if (c == '"') {
                rc = put(r, '"');
                r->st = S_QUOTED;
            } else if (c == ',') {
                rc = field_end(r);
                r->st = S_START;
            } else if (c == '\n') {
                rc = line_end(r);
            } else if (c != '\r') {
                rc = put(r, c); /* text after the closing quote: kept */
                r->st = S_FIELD;
            }
            break;
        }
    }
    return rc;
}

int csv_feed(struct csv_rd *r, const char *d, size_t n)
{
    if (!r->started) {
        r->started = true;
        r->preamble = r->is_header != NULL;
    }
    return feed(r, d, n);
}

int csv_end(struct csv_rd *r)
{
    if (r->st == S_QUOTED && !r->preamble && !r->raw_line) return LAT_E_TRUNCATED;
    if (r->all_quoted && !r->preamble && !r->raw_line &&
        ((r->st == S_START && r->nf) || ((r->st == S_FIELD || r->st == S_PREFIX) && r->nf > 1))) {
        /* a tool that quotes every field: the input stopped after a separator or in the middle
         * of an unquoted field after one (one unquoted field alone: a line of program output) */
        r->cut_record = true;
        return LAT_E_TRUNCATED;
    }
    if (r->len || r->nf || r->any) {
        r->at_end = true;
        int rc = line_end(r);
        r->at_end = false;
        if (rc == LAT_E_TRUNCATED) r->cut_record = true; /* the callback found it incomplete */
        return rc;
    }
    return 0;
}

int csv_feed_src(struct csv_rd *r, struct ingest_src *src, const char *name,
                 const struct csv_src_msgs *m, uint64_t *bytes, char *err, size_t errsz)
{
    char ebuf[200] = "";
    const char *d;
    size_t n;
    int s, rc = 0;
    uint64_t total = 0;
    while ((s = src_next(src, &d, &n, ebuf, sizeof(ebuf))) > 0) {
        total += n;
        if ((rc = csv_feed(r, d, n))) break;
    }
    if (!rc && s < 0) rc = s;
    uint64_t line = r->line; /* csv_end moves past the last line */
    if (!rc) rc = csv_end(r);
    csv_fini(r);
    if (bytes) *bytes = total;
    if (!rc || !err || !errsz) return rc;
    if (s < 0)
        snprintf(err, errsz, "%s: %s", name, ebuf[0] ? ebuf : lat_strerror(rc));
    else if (rc == LAT_E_TRUNCATED && r->cut_record)
        snprintf(err, errsz,
                 "%s: %s whose last record (line %llu) stops after a separator, without its "
                 "last fields: the file is cut short; %s",
                 name, m->what, (unsigned long long)line, m->redo);
    else if (rc == LAT_E_TRUNCATED)
        snprintf(err, errsz, "%s: %s that ends inside a quoted field (line %llu): truncated? %s",
                 name, m->what, (unsigned long long)line, m->redo);
    else if (rc == LAT_E_OVERFLOW)
        snprintf(err, errsz,
                 "%s: %s with a record over %zu bytes or %zu fields near line %llu: not %s, or "
                 "raise LATSCOPE_MAX_VALUE=BYTES if it is genuine",
                 name, m->what, r->max_record, r->max_fields, (unsigned long long)line, m->isnt);
    else
        snprintf(err, errsz, "%s: %s", name, lat_strerror(rc));
    return rc;
}

/* ---- numbers ---- */

/* Bytes of a grouping space at s (space, U+00A0, U+202F), else 0. */
static size_t group_space(const unsigned char *s, size_t n)
{
    if (n >= 1 && s[0] == ' ') return 1;
    if (n >= 2 && s[0] == 0xc2 && s[1] == 0xa0) return 2;
    if (n >= 3 && s[0] == 0xe2 && s[1] == 0x80 && s[2] == 0xaf) return 3;
    return 0;
}

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s))
        (*s)++, (*n)--;
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

int csv_decimal_evidence(const char *s, size_t n)
{
    trim(&s, &n);
    size_t commas = 0, dots = 0, last_c = 0, last_d = 0;
    bool digit = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ',')
            commas++, last_c = i;
        else if (c == '.')
            dots++, last_d = i;
        else if (isdigit((unsigned char)c))
            digit = true;
        else if (c == 'e' || c == 'E')
            break; /* the exponent: the mantissa decides */
        else if (c != '-' && c != '+')
            return 0;
    }
    if (!digit) return 0;
    if (commas && dots) return last_c > last_d ? -1 : +1;
    size_t k = commas ? commas : dots, at = commas ? last_c : last_d;
    if (!k) return 0;
    if (k > 1) return commas ? +1 : -1; /* several: grouping */
    size_t after = 0;
    for (size_t i = at + 1; i < n && isdigit((unsigned char)s[i]); i++)
        after++;
    if (after == 3) return 0; /* "1,234" / "1.234": either */
    return commas ? -1 : +1;
}

bool csv_number(const char *s, size_t n, enum csv_decimal dec, double *d, bool *is_int, int64_t *iv)
{
    trim(&s, &n);
    if (!n || n > 128) return false;
    char grp = dec == CSV_DEC_COMMA ? '.' : ',', pt = dec == CSV_DEC_COMMA ? ',' : '.';
    char buf[160];
    size_t o = 0, digits = 0;
    bool frac = false, exp = false, seen_digit_since_exp = false;
    size_t i = 0;
    if (s[0] == '-' || s[0] == '+') buf[o++] = s[i++];
    for (; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t gs;
        if (isdigit(c)) {
            buf[o++] = (char)c;
            digits++;
            seen_digit_since_exp = true;
        } else if (c == (unsigned char)grp && !frac && !exp && digits && i + 1 < n &&
                   isdigit((unsigned char)s[i + 1])) {
            /* grouping: drop */
        } else if (!frac && !exp && digits &&
                   (gs = group_space((const unsigned char *)s + i, n - i)) && i + gs < n &&
                   isdigit((unsigned char)s[i + gs])) {
            i += gs - 1;
        } else if (c == (unsigned char)pt && !frac && !exp) {
            buf[o++] = '.';
            frac = true;
        } else if ((c == 'e' || c == 'E') && !exp && digits) {
            buf[o++] = 'e';
            exp = true;
            seen_digit_since_exp = false;
            if (i + 1 < n && (s[i + 1] == '-' || s[i + 1] == '+')) buf[o++] = s[++i];
        } else {
            return false;
        }
        if (o >= sizeof(buf) - 4) return false;
    }
    if (!digits || (exp && !seen_digit_since_exp)) return false;
    buf[o] = 0;
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v)) return false;
    *d = v;
    *is_int = false;
    if (!frac && !exp) {
        errno = 0;
        long long l = strtoll(buf, &end, 10);
        if (!*end && errno != ERANGE) {
            *is_int = true;
            *iv = (int64_t)l;
        }
    }
    return true;
}
