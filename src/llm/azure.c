/*
 * azure.c - the Azure LLM inference trace CSV reader (format in azure.h).
 *
 * The timestamps are parsed by hand (no strptime/timegm: they are locale- and TZ-dependent and
 * do not take 7 fractional digits) into exact integer ns: the public traces have 100 ns ticks
 * (".6805900"), which a double of seconds since 1970 cannot hold. Each row is checked and the
 * first bad one is named by its line number; nothing is sent unless the whole file is good.
 */
#include "llm/azure.h"

#include "core/err.h"
#include "core/grow.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { COL_TS = 0, COL_CTX, COL_GEN, COL__N };
static const char *const col_names[COL__N] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};

#define MAX_FIELDS 64

/* One CSV line split at commas into trimmed fields (spaces, tabs and one pair of double
 * quotes removed). Returns the field count (at most MAX_FIELDS; more fields are -1). */
static int split(const char *b, const char *e, const char **fb, const char **fe)
{
    int n = 0;
    for (const char *p = b;;) {
        const char *c = memchr(p, ',', (size_t)(e - p));
        const char *q = c ? c : e;
        const char *x = p, *y = q;
        while (x < y && (*x == ' ' || *x == '\t'))
            x++;
        while (y > x && (y[-1] == ' ' || y[-1] == '\t'))
            y--;
        if (y - x >= 2 && *x == '"' && y[-1] == '"') x++, y--;
        if (n == MAX_FIELDS) return -1;
        fb[n] = x;
        fe[n] = y;
        n++;
        if (!c) break;
        p = c + 1;
    }
    return n;
}

/* Next line of [*p, end): its content without the line end; false at the end. */
static bool next_line(const char **p, const char *end, const char **b, const char **e)
{
    if (*p >= end) return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    *b = *p;
    *e = nl ? nl : end;
    if (*e > *b && (*e)[-1] == '\r') (*e)--;
    *p = nl ? nl + 1 : end;
    return true;
}

static bool blank(const char *b, const char *e)
{
    for (; b < e; b++)
        if (*b != ' ' && *b != '\t' && *b != '\r') return false;
    return true;
}

static const char *skip_bom(const char *data, size_t len)
{
    if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) return data + 3;
    return data;
}

static bool field_is(const char *b, const char *e, const char *name)
{
    size_t n = strlen(name);
    return (size_t)(e - b) == n && strncasecmp(b, name, n) == 0;
}

bool llm_azure_is_csv(const char *data, size_t len)
{
    const char *end = data + len, *p = skip_bom(data, len), *b, *e;
    while (next_line(&p, end, &b, &e)) {
        if (blank(b, e)) continue;
        const char *fb[MAX_FIELDS], *fe[MAX_FIELDS];
        int n = split(b, e, fb, fe);
        for (int i = 0; i < n; i++)
            if (field_is(fb[i], fe[i], "TIMESTAMP")) return true;
        return false;
    }
    return false;
}

/* Exactly n decimal digits at *p into *v; advances *p. */
static bool digits(const char **p, const char *e, int n, int *v)
{
    int x = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (*p >= e || **p < '0' || **p > '9') return false;
        x = x * 10 + (**p - '0');
    }
    *v = x;
    return true;
}

static bool lit(const char **p, const char *e, char c)
{
    if (*p >= e || **p != c) return false;
    (*p)++;
    return true;
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : dm[m - 1];
}

int llm_azure_time(const char *s, size_t n, int64_t *ns)
{
    const char *p = s, *e = s + n;
    int y, mo, d, h, mi, sec;
    if (!digits(&p, e, 4, &y) || !lit(&p, e, '-') || !digits(&p, e, 2, &mo) || !lit(&p, e, '-') ||
        !digits(&p, e, 2, &d))
        return -1;
    if (p >= e || (*p != ' ' && *p != 'T' && *p != 't')) return -1;
    p++;
    if (!digits(&p, e, 2, &h) || !lit(&p, e, ':') || !digits(&p, e, 2, &mi) || !lit(&p, e, ':') ||
        !digits(&p, e, 2, &sec))
        return -1;
    if (y < 1970 || y > 2200 || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 ||
        mi > 59 || sec > 59)
        return -1;
    int64_t frac = 0;
    if (p < e && (*p == '.' || *p == ',')) {
        p++;
        int nd = 0;
        while (p < e && *p >= '0' && *p <= '9') {
            if (nd == 9) return -1; /* finer than 1 ns */
            frac = frac * 10 + (*p++ - '0');
            nd++;
        }
        if (nd == 0) return -1;
        for (; nd < 9; nd++)
            frac *= 10;
    }
    int64_t off_s = 0;
    if (p < e && *p == ' ') p++; /* "2023-11-16 18:15:46 +00:00" */
    if (p < e && (*p == 'Z' || *p == 'z')) {
        p++;
    } else if (p < e && (*p == '+' || *p == '-')) {
        int sign = *p++ == '-' ? -1 : 1, oh, om = 0;
        if (!digits(&p, e, 2, &oh)) return -1;
        if (p < e && *p == ':') {
            p++;
            if (!digits(&p, e, 2, &om)) return -1;
        } else if (p < e) {
            if (!digits(&p, e, 2, &om)) return -1;
        }
        if (oh > 23 || om > 59) return -1;
        off_s = sign * (oh * 3600 + om * 60);
    } else if (e - p == 3 && !strncasecmp(p, "UTC", 3)) {
        p += 3;
    }
    if (p != e) return -1;
    int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - off_s;
    *ns = secs * 1000000000LL + frac;
    return 0;
}

/* A token count field: a whole number 0..10000000 (a trailing ".0" is accepted). */
static int count_field(const char *b, const char *e, int32_t *out)
{
    if (b == e) return -1;
    int64_t v = 0;
    const char *p = b;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (*p - '0');
        if (v > 10000000) return -1;
    }
    if (p == b) return -1;
    if (p < e && *p == '.') /* "12.0" from a pandas round trip */
        for (p++; p < e && *p == '0'; p++)
            ;
    if (p != e) return -1;
    *out = (int32_t)v;
    return 0;
}

int llm_azure_parse(struct llm_replay *out, const char *data, size_t len, const char *name,
                    size_t limit, char *why, size_t whylen)
{
    struct llm_replay r;
    memset(&r, 0, sizeof(r));
    memset(out, 0, sizeof(*out));
    why[0] = '\0';
    const char *end = data + len, *p = skip_bom(data, len), *b, *e;
    const char *fb[MAX_FIELDS], *fe[MAX_FIELDS];
    unsigned long lineno = 0;
    int col[COL__N] = {-1, -1, -1}, need = 0, rc = 0;
    size_t cap = 0;
    int64_t first = 0, prev = 0;

    /* Header */
    bool have_header = false;
    while (!have_header && next_line(&p, end, &b, &e)) {
        lineno++;
        if (blank(b, e)) continue;
        have_header = true;
        int n = split(b, e, fb, fe);
        for (int i = 0; i < n; i++)
            for (int k = 0; k < COL__N; k++)
                if (col[k] < 0 && field_is(fb[i], fe[i], col_names[k])) col[k] = i;
        for (int k = 0; k < COL__N; k++) {
            if (col[k] < 0) {
                snprintf(why, whylen,
                         "%s:%lu: the header has no %s column (expected the Azure trace header "
                         "TIMESTAMP,ContextTokens,GeneratedTokens)",
                         name, lineno, col_names[k]);
                return LAT_E_USAGE;
            }
            if (col[k] + 1 > need) need = col[k] + 1;
        }
    }
    if (!have_header) {
        snprintf(why, whylen,
                 "%s: empty (expected a header TIMESTAMP,ContextTokens,GeneratedTokens and one "
                 "row per request)",
                 name);
        return LAT_E_USAGE;
    }

    while ((!limit || r.n < limit) && next_line(&p, end, &b, &e)) {
        lineno++;
        if (blank(b, e)) continue;
        int n = split(b, e, fb, fe);
        if (n < need) {
            snprintf(why, whylen,
                     "%s:%lu: %d field%s, expected %d (TIMESTAMP,ContextTokens,"
                     "GeneratedTokens)",
                     name, lineno, n < 0 ? MAX_FIELDS : n, n == 1 ? "" : "s", need);
            rc = LAT_E_USAGE;
            break;
        }
        int64_t t;
        const char *tb = fb[col[COL_TS]], *te = fe[col[COL_TS]];
        if (llm_azure_time(tb, (size_t)(te - tb), &t) != 0) {
            int w = te - tb > 40 ? 40 : (int)(te - tb);
            snprintf(why, whylen,
                     "%s:%lu: TIMESTAMP '%.*s' is not a date and time (expected YYYY-MM-DD "
                     "HH:MM:SS[.fraction][zone], e.g. 2023-11-16 18:15:46.6805900)",
                     name, lineno, w, tb);
            rc = LAT_E_USAGE;
            break;
        }
        struct llm_replay_entry en = {.input_tokens = -1, .output_tokens = -1};
        for (int k = COL_CTX; k <= COL_GEN; k++) {
            int32_t v;
            const char *vb = fb[col[k]], *ve = fe[col[k]];
            if (count_field(vb, ve, &v) != 0) {
                int w = ve - vb > 40 ? 40 : (int)(ve - vb);
                snprintf(why, whylen, "%s:%lu: %s '%.*s' must be a whole number of tokens", name,
                         lineno, col_names[k], w, vb);
                rc = LAT_E_USAGE;
                break;
            }
            if (v < 1) v = 1;
            if (k == COL_CTX)
                en.input_tokens = v;
            else
                en.output_tokens = v;
        }
        if (rc) break;
        if (r.n == 0) first = prev = t;
        if (t < prev) {
            snprintf(why, whylen,
                     "%s:%lu: TIMESTAMP is %.3f ms before the previous row's; sort the trace by "
                     "time",
                     name, lineno, (double)(prev - t) / 1e6);
            rc = LAT_E_USAGE;
            break;
        }
        prev = t;
        if (r.n >= LLM_REPLAY_MAX_LINES) {
            snprintf(why, whylen,
                     "%s:%lu: more than %d requests; split the trace or pass "
                     "--requests N",
                     name, lineno, LLM_REPLAY_MAX_LINES);
            rc = LAT_E_USAGE;
            break;
        }
        if (r.n == cap) {
            /* e and offsets share cap (as in replay.c's grow): both resized before it moves */
            size_t nc = lat_grow_cap(cap, r.n + 1, sizeof(*r.e), 256);
            if (!nc) {
                rc = LAT_E_OVERFLOW;
                break;
            }
            struct llm_replay_entry *ne = realloc(r.e, nc * sizeof(*ne));
            if (!ne) {
                rc = -ENOMEM;
                break;
            }
            r.e = ne;
            lat_ns *no = realloc(r.offsets, nc * sizeof(*no));
            if (!no) {
                rc = -ENOMEM;
                break;
            }
            r.offsets = no;
            cap = nc;
        }
        r.e[r.n] = en;
        r.offsets[r.n] = t - first;
        r.n++;
    }
    if (!rc && r.n == 0) {
        snprintf(why, whylen,
                 "%s: no requests after the header (expected rows such as "
                 "2023-11-16 18:15:46.6805900,4808,10)",
                 name);
        rc = LAT_E_USAGE;
    }
    if (rc) {
        llm_replay_fini(&r);
        return rc;
    }
    *out = r;
    return 0;
}
