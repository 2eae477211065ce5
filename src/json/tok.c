/*
 * tok.c - streaming JSON tokenizer and the in-memory convenience layer (see tok.h).
 *
 * The tokenizer reads a window [p, end): normally the caller's chunk, with no copy. A token that
 * runs past the end of a chunk (a string, number or literal cut in two) is moved into `carry`;
 * when the next chunk arrives, only as many of its bytes as the token needs are appended (4 KiB,
 * doubling), the token is finished from carry, and reading switches back to the chunk at the
 * matching offset. So the hot path never copies, and a huge string costs amortized O(n): a
 * string scan resumes where it stopped (`resume`) instead of restarting. Strings without
 * escapes are returned in place; escaped ones are decoded once into `scratch`.
 * Grammar is checked by a small state machine plus a stack of open containers (depth limit).
 * Errors are sticky and carry the absolute byte offset and what was expected there.
 * Rejected alternatives: a DOM (memory grows with the input), a callback (SAX) API (the Kineto
 * reader wants to pull the fields of one event in sequence), and copying every chunk into an
 * internal buffer (an extra copy of the whole input).
 * Threading: one tokenizer per thread; no globals.
 */
#include "json/tok.h"
#include "core/err.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    S_VALUE = 0, /* a value is expected (top level, after ':' or ',' in an array) */
    S_ARR_FIRST, /* after '[': a value or ']' */
    S_OBJ_FIRST, /* after '{': a key or '}' */
    S_KEY,       /* after ',' in an object: a key */
    S_COLON,     /* after a key */
    S_AFTER,     /* after a member value: ',' or the container's end */
    S_DONE,      /* the top-level value is complete */
    S_ENDED,     /* JSON_END was returned */
};

#define CARRY_STEP 4096

/* 1 for bytes that stop the fast string scan: '"', '\\', and control characters. */
static const unsigned char str_stop[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,           1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1 /* '"' */, ['\\'] = 1,
};

/* 1 for JSON whitespace (one table load per byte instead of four compares). */
static const unsigned char is_ws[256] = {[' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1};

void json_tok_init(struct json_tok *t, unsigned flags)
{
    memset(t, 0, sizeof(*t));
    t->flags = flags;
    t->max_depth = JSON_TOK_DEFAULT_MAX_DEPTH;
    t->max_token = SIZE_MAX;
    t->state = S_VALUE;
}

void json_tok_set_max_token(struct json_tok *t, size_t max_bytes)
{
    t->max_token = max_bytes ? max_bytes : SIZE_MAX;
}

bool json_tok_too_big(const struct json_tok *t)
{
    return t->err && t->too_big;
}

void json_tok_set_max_depth(struct json_tok *t, int max_depth)
{
    if (max_depth < 1) max_depth = 1;
    if (max_depth > 65535) max_depth = 65535;
    if (t->depth > max_depth) return;
    if (t->stack && t->stack != t->small && max_depth > t->max_depth) {
        unsigned char *h = realloc(t->stack, (size_t)max_depth);
        if (!h) return; /* keep the old limit */
        t->stack = h;
    }
    t->max_depth = max_depth;
}

void json_tok_fini(struct json_tok *t)
{
    buf_fini(&t->carry);
    buf_fini(&t->scratch);
    if (t->stack != t->small) free(t->stack);
    t->stack = NULL;
}

uint64_t json_tok_offset(const struct json_tok *t)
{
    return t->buf_off + (uint64_t)(t->p - t->buf);
}

uint64_t json_tok_erroff(const struct json_tok *t)
{
    return t->err_off;
}

const char *json_tok_errmsg(const struct json_tok *t)
{
    return t->err ? t->errmsg : "no error";
}

void json_tok_feed(struct json_tok *t, const char *data, size_t n)
{
    uint64_t next_off = t->buf_off + (uint64_t)(t->end - t->buf);
    if (t->in_carry) {
        /* A token is pending in carry: the window stays there, fed from this chunk. */
        t->chunk = data;
        t->chunk_len = n;
        t->chunk_used = 0;
        t->carry_old = t->carry.len;
        return;
    }
    t->buf = t->p = data;
    t->end = data + n;
    t->buf_off = next_off;
}

void json_tok_finish(struct json_tok *t)
{
    t->eof = true;
}

__attribute__((format(printf, 4, 5))) static int tok_fail(struct json_tok *t, int code,
                                                          uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->errmsg, sizeof(t->errmsg), fmt, ap);
    va_end(ap);
    t->err = code;
    t->err_off = off;
    return code;
}

/* Describes the byte at p for error messages: 'x', byte 0xNN, or end of input. */
static const char *found_desc(const char *p, const char *end, char *buf, size_t n)
{
    if (p >= end) return "end of input";
    unsigned char c = (unsigned char)*p;
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

static const char *expect_desc(int state)
{
    switch (state) {
    case S_VALUE:
        return "a value";
    case S_ARR_FIRST:
        return "a value or ']'";
    case S_OBJ_FIRST:
        return "a string key or '}'";
    case S_KEY:
        return "a string key";
    case S_COLON:
        return "':' after the key";
    case S_AFTER:
        return "',' or the end of the container";
    default:
        return "end of input";
    }
}

static inline uint64_t pos_off(const struct json_tok *t, const char *x)
{
    return t->buf_off + (uint64_t)(x - t->buf);
}

/* ---- carry handling ---- */

static __attribute__((noinline)) int tok_too_big(struct json_tok *t, uint64_t abs, char first)
{
    t->too_big = true;
    return tok_fail(t, LAT_E_OVERFLOW, abs, "a %s of more than %zu bytes starts here",
                    first == '"' ? "string" : "token", t->max_token);
}

/* The token starting at `start` runs past the window. Moves it into carry (or, when already in
 * carry, appends more of the chunk). Returns 0 = need more input (return 0 to the caller),
 * 1 = the window grew (rescan), < 0 error. The token restarts at t->p afterwards. */
static int tok_incomplete(struct json_tok *t, const char *start)
{
    if (!t->in_carry) {
        uint64_t abs = pos_off(t, start);
        size_t n = (size_t)(t->end - start);
        if (n > t->max_token) return tok_too_big(t, abs, *start);
        t->carry.len = 0;
        if (buf_append(&t->carry, start, n))
            return tok_fail(t, -ENOMEM, abs, "out of memory buffering a token");
        t->in_carry = true;
        t->chunk = NULL;
        t->chunk_len = t->chunk_used = 0;
        t->buf = t->p = t->carry.data;
        t->end = t->carry.data + t->carry.len;
        t->buf_off = abs;
        return 0;
    }
    size_t left = t->chunk_len - t->chunk_used;
    if (!t->chunk || left == 0) {
        t->p = t->carry.data;
        return 0;
    }
    /* Append more of the chunk: as much as is already carried (doubling), at least 4 KiB. */
    size_t want = t->carry.len > CARRY_STEP ? t->carry.len : CARRY_STEP;
    if (want > left) want = left;
    if (t->carry.len + want > t->max_token) {
        want = t->max_token - t->carry.len; /* carry never holds more than the limit */
        if (want == 0) return tok_too_big(t, t->buf_off, t->carry.data[0]);
    }
    if (buf_append(&t->carry, t->chunk + t->chunk_used, want))
        return tok_fail(t, -ENOMEM, t->buf_off, "out of memory buffering a token");
    t->chunk_used += want;
    t->buf = t->p = t->carry.data;
    t->end = t->carry.data + t->carry.len;
    return 1;
}

/* A token ended at window position q while reading from carry: continue in the chunk. */
static void tok_leave_carry(struct json_tok *t, const char *q)
{
    size_t qo = (size_t)(q - t->carry.data);
    uint64_t chunk_abs = t->buf_off + t->carry_old;
    t->in_carry = false;
    if (!t->chunk) {
        /* Only possible at eof: keep reading the carry's remainder. */
        t->p = q;
        return;
    }
    t->buf = t->chunk;
    t->buf_off = chunk_abs;
    t->p = t->chunk + (qo - t->carry_old);
    t->end = t->chunk + t->chunk_len;
    t->chunk = NULL;
}

/* ---- scalars ---- */

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static int put_utf8(struct lat_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_append(b, u, n);
}

/* Decodes the body of a string (between the quotes, escapes included) into b. On a bad escape
 * returns LAT_E_BAD_JSON with *bad = the offset of the escape within s. */
static int decode_body(const char *s, size_t n, struct lat_buf *b, size_t *bad)
{
    size_t i = 0;
    while (i < n) {
        const char *bs = memchr(s + i, '\\', n - i);
        size_t run = bs ? (size_t)(bs - (s + i)) : n - i;
        if (run && buf_append(b, s + i, run)) return -ENOMEM;
        i += run;
        if (!bs) break;
        if (i + 1 >= n) {
            *bad = i;
            return LAT_E_BAD_JSON;
        }
        char c = s[i + 1], o;
        switch (c) {
        case '"':
        case '\\':
        case '/':
            o = c;
            break;
        case 'b':
            o = '\b';
            break;
        case 'f':
            o = '\f';
            break;
        case 'n':
            o = '\n';
            break;
        case 'r':
            o = '\r';
            break;
        case 't':
            o = '\t';
            break;
        case 'u': {
            if (i + 6 > n) {
                *bad = i;
                return LAT_E_BAD_JSON;
            }
            uint32_t cp = 0;
            for (int k = 2; k < 6; k++) {
                int h = hexval((unsigned char)s[i + k]);
                if (h < 0) {
                    *bad = i;
                    return LAT_E_BAD_JSON;
                }
                cp = cp << 4 | (uint32_t)h;
            }
            i += 6;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                uint32_t lo = 0;
                int okk = 1;
                for (int k = 2; k < 6; k++) {
                    int h = hexval((unsigned char)s[i + k]);
                    if (h < 0) okk = 0;
                    lo = lo << 4 | (uint32_t)(h < 0 ? 0 : h);
                }
                if (okk && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    i += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* lone surrogate */
            if (put_utf8(b, cp)) return -ENOMEM;
            continue;
        }
        default:
            *bad = i;
            return LAT_E_BAD_JSON;
        }
        if (buf_putc(b, o)) return -ENOMEM;
        i += 2;
    }
    return 0;
}

/* Length of a valid UTF-8 sequence at s (at most n bytes available): > 0 valid, 0 need more
 * bytes, -1 invalid. */
static int utf8_seq(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int len;
    uint32_t min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return -1;
    }
    uint32_t cp = c & (0x3F >> (len - 1));
    for (int k = 1; k < len; k++) {
        if ((size_t)k >= n) return 0;
        if ((s[k] & 0xC0) != 0x80) return -1;
        cp = cp << 6 | (s[k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    return len;
}

/* The string start..q (quotes excluded) has escapes: decodes it into t->scratch and points tk
 * at it. Out of line: its address-taken locals would cost every string a stack-protector
 * check. 0 or an error (set on t). */
static __attribute__((noinline)) int decode_escaped(struct json_tok *t, struct json_token *tk,
                                                    const char *start, const char *q)
{
    size_t bad = 0;
    t->scratch.len = 0;
    int rc = decode_body(start + 1, (size_t)(q - start - 1), &t->scratch, &bad);
    if (rc == -ENOMEM) return tok_fail(t, rc, tk->off, "out of memory decoding a string");
    if (rc)
        return tok_fail(t, rc, tk->off + 1 + bad,
                        "invalid escape sequence in a string (expected \\\" \\\\ \\/ \\b "
                        "\\f \\n \\r \\t or \\u followed by 4 hex digits)");
    if (buf_putc(&t->scratch, '\0')) return tok_fail(t, -ENOMEM, tk->off, "out of memory");
    t->scratch.len--;
    tk->s = t->scratch.data;
    tk->len = t->scratch.len;
    tk->escaped = memchr(start + 1, '\\', (size_t)(q - start - 1)) != NULL;
    return 0;
}

/* Scans a string starting at t->p (the opening quote). Returns 1 with the token filled, 0 need
 * more input, 2 rescan (window grew), < 0 error. */
static int scan_string(struct json_tok *t, struct json_token *tk, enum json_type type)
{
    const char *start = t->p, *end = t->end;
    const char *q = start + 1 + t->resume;
    bool esc = false, strict = t->flags & JSON_TOK_STRICT;
    if (t->resume) esc = true; /* conservative: decode pass finds out */
    for (;;) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* Lenient mode stops only at '"' and '\\': test 8 bytes at a time (the classic
         * "has a zero byte" bit trick on v ^ '"' and v ^ '\\'; the lowest flagged byte is
         * exact). Strict mode needs the byte loop for UTF-8 and control characters. */
        if (!strict) {
            while (end - q >= 8) {
                uint64_t v, x, y, m;
                memcpy(&v, q, 8);
                x = v ^ 0x2222222222222222ULL;
                y = v ^ 0x5C5C5C5C5C5C5C5CULL;
                m = ((x - 0x0101010101010101ULL) & ~x) | ((y - 0x0101010101010101ULL) & ~y);
                m &= 0x8080808080808080ULL;
                if (m) {
                    q += __builtin_ctzll(m) >> 3;
                    break;
                }
                q += 8;
            }
        }
#endif
        while (q < end && !str_stop[(unsigned char)*q]) {
            if (strict && (unsigned char)*q >= 0x80) {
                int l = utf8_seq((const unsigned char *)q, (size_t)(end - q));
                if (l < 0)
                    return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, q),
                                    "invalid UTF-8 byte 0x%02x in a string", (unsigned char)*q);
                if (l == 0) goto incomplete;
                q += l;
                continue;
            }
            q++;
        }
        if (q >= end) goto incomplete;
        if (*q == '"') break;
        if (*q == '\\') {
            if (q + 1 >= end) goto incomplete;
            esc = true;
            q += 2;
            continue;
        }
        /* a raw control character */
        if (strict)
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, q),
                            "raw control character 0x%02x in a string (must be escaped)",
                            (unsigned char)*q);
        q++;
    }
    t->resume = 0;
    tk->type = type;
    tk->off = pos_off(t, start);
    tk->escaped = esc;
    if (esc) {
        int rc = decode_escaped(t, tk, start, q);
        if (rc) return rc;
    } else {
        tk->s = start + 1;
        tk->len = (size_t)(q - start - 1);
    }
    q++;
    if (t->in_carry)
        tok_leave_carry(t, q);
    else
        t->p = q;
    return 1;
incomplete:
    if (t->eof)
        return tok_fail(t, LAT_E_TRUNCATED, pos_off(t, end),
                        "input ends inside a string that starts at byte %llu (expected '\"')",
                        (unsigned long long)pos_off(t, start));
    {
        /* q stopped before anything unfinished (an escape or a UTF-8 sequence cut by the
         * end), so the scan resumes there. */
        size_t resume = (size_t)((q < end ? q : end) - start - 1);
        int rc = tok_incomplete(t, start);
        if (rc < 0) return rc;
        t->resume = resume;
        return rc ? 2 : 0;
    }
}

/* Scans a number at t->p. Returns as scan_string. */
static int scan_number(struct json_tok *t, struct json_token *tk)
{
    const char *start = t->p, *q = start, *end = t->end;
    unsigned fl = 0;
    uint64_t acc = 0;
    bool ovf = false;
    if (q < end && *q == '-') {
        fl |= JSON_NUM_NEG;
        q++;
    }
    if (q >= end) goto incomplete;
    if (*q == '0') {
        q++;
    } else if (*q >= '1' && *q <= '9') {
        /* 19 digits cannot overflow 64 bits (10^19 - 1 < 2^64): no check (a division) per digit
         * on the hot path; longer numbers are checked from the 20th digit on. */
        const char *fast_end = end - q > 19 ? q + 19 : end;
        while (q < fast_end && *q >= '0' && *q <= '9') {
            acc = acc * 10 + (unsigned)(*q - '0');
            q++;
        }
        while (q < end && *q >= '0' && *q <= '9') {
            unsigned d = (unsigned)(*q - '0');
            if (acc > (UINT64_MAX - d) / 10) ovf = true;
            acc = acc * 10 + d;
            q++;
        }
    } else {
        return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, q), "expected a digit in a number");
    }
    if (q >= end) goto incomplete;
    if (*q == '.') {
        fl |= JSON_NUM_FRAC;
        q++;
        if (q >= end) goto incomplete;
        if (*q < '0' || *q > '9') {
            if (q - start > JSON_TOK_MAX_NUMBER) goto too_long; /* as when split (below) */
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, q),
                            "expected a digit after '.' in a number");
        }
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q >= end) goto incomplete;
    }
    if (*q == 'e' || *q == 'E') {
        fl |= JSON_NUM_EXP;
        q++;
        if (q >= end) goto incomplete;
        if (*q == '+' || *q == '-') q++;
        if (q >= end) goto incomplete;
        if (*q < '0' || *q > '9') {
            if (q - start > JSON_TOK_MAX_NUMBER) goto too_long;
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, q),
                            "expected a digit in the exponent of a number");
        }
        while (q < end && *q >= '0' && *q <= '9')
            q++;
        if (q >= end) goto incomplete;
    }
    /* Too long: the first JSON_TOK_MAX_NUMBER + 1 characters are a valid number prefix. The
     * same test wherever the scan stops, so chunk boundaries never change the outcome. */
    if (q - start > JSON_TOK_MAX_NUMBER) goto too_long;
    if (0) {
    too_long:
        return tok_fail(t, LAT_E_OVERFLOW, pos_off(t, start),
                        "a number of more than %d characters (JSON_TOK_MAX_NUMBER)",
                        JSON_TOK_MAX_NUMBER);
    incomplete:
        if (end - start > JSON_TOK_MAX_NUMBER) goto too_long;
        if (!t->eof) {
            int rc = tok_incomplete(t, start);
            if (rc < 0) return rc;
            return rc ? 2 : 0;
        }
        /* at the end of the input a number ends with it, if it is complete */
        char last = q > start ? q[-1] : 0;
        if (!(last >= '0' && last <= '9'))
            return tok_fail(t, LAT_E_TRUNCATED, pos_off(t, q), "input ends inside a number");
    }
    tk->type = JSON_NUM;
    tk->s = start;
    tk->len = (size_t)(q - start);
    tk->off = pos_off(t, start);
    if (!(fl & (JSON_NUM_FRAC | JSON_NUM_EXP))) {
        fl |= JSON_NUM_INT;
        if (!ovf) {
            if (fl & JSON_NUM_NEG) {
                if (acc <= (uint64_t)INT64_MAX + 1) {
                    fl |= JSON_NUM_I64;
                    tk->i = acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc;
                }
            } else {
                fl |= JSON_NUM_U64;
                tk->u = acc;
                if (acc <= (uint64_t)INT64_MAX) {
                    fl |= JSON_NUM_I64;
                    tk->i = (int64_t)acc;
                }
            }
        }
    }
    tk->num_flags = fl;
    if (t->in_carry)
        tok_leave_carry(t, q);
    else
        t->p = q;
    return 1;
}

static int scan_literal(struct json_tok *t, struct json_token *tk)
{
    const char *start = t->p;
    const char *lit;
    enum json_type type;
    switch (*start) {
    case 't':
        lit = "true";
        type = JSON_TRUE;
        break;
    case 'f':
        lit = "false";
        type = JSON_FALSE;
        break;
    case 'n':
        lit = "null";
        type = JSON_NULL;
        break;
    default: /* a UTF-8 byte order mark at offset 0 (Python's json accepts it in bytes) */
        lit = "\xEF\xBB\xBF";
        type = JSON_NONE;
        break;
    }
    size_t n = strlen(lit), have = (size_t)(t->end - start);
    size_t cmp = have < n ? have : n;
    if (memcmp(start, lit, cmp) != 0) {
        size_t k = 0;
        while (k < cmp && start[k] == lit[k])
            k++;
        if (type == JSON_NONE)
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, start + k),
                            "expected a value, found a broken UTF-8 byte order mark");
        return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, start + k), "expected '%s'", lit);
    }
    if (have < n) {
        if (t->eof)
            return tok_fail(t, LAT_E_TRUNCATED, pos_off(t, t->end), "input ends inside '%s'",
                            type == JSON_NONE ? "a byte order mark" : lit);
        int rc = tok_incomplete(t, start);
        if (rc < 0) return rc;
        return rc ? 2 : 0;
    }
    tk->type = type;
    tk->s = NULL;
    tk->len = 0;
    tk->off = pos_off(t, start);
    if (t->in_carry)
        tok_leave_carry(t, start + n);
    else
        t->p = start + n;
    return 1;
}

/* ---- the state machine ---- */

static int push(struct json_tok *t, unsigned char kind, uint64_t off)
{
    if (t->depth >= t->max_depth)
        return tok_fail(t, LAT_E_OVERFLOW, off, "nesting deeper than %d levels", t->max_depth);
    if (!t->stack) t->stack = t->small;
    if (t->stack == t->small && t->depth == (int)sizeof(t->small)) {
        /* Deeper than the inline stack: move to the heap (small documents never do). */
        unsigned char *h = malloc((size_t)t->max_depth);
        if (!h) return tok_fail(t, -ENOMEM, off, "out of memory");
        memcpy(h, t->small, sizeof(t->small));
        t->stack = h;
    }
    t->stack[t->depth++] = kind;
    return 0;
}

/* After a value completes: where the grammar goes next. */
static inline void value_done(struct json_tok *t)
{
    t->state = t->depth ? S_AFTER : S_DONE;
}

int json_tok_next(struct json_tok *t, struct json_token *tk)
{
    if (t->err) return t->err;
    for (;;) {
        const char *p = t->p, *end = t->end;
        while (p < end && is_ws[(unsigned char)*p])
            p++;
        t->p = p;
        if (p >= end) {
            if (t->in_carry) {
                /* carry exhausted between tokens (only at eof with a chunk-less carry) */
                if (t->chunk) {
                    tok_leave_carry(t, p);
                    continue;
                }
                t->in_carry = false;
            }
            if (!t->eof) return 0;
            if (t->state == S_DONE ||
                (t->state == S_VALUE && t->depth == 0 && (t->flags & JSON_TOK_MULTI) && t->done)) {
                t->state = S_ENDED;
                memset(tk, 0, sizeof(*tk));
                tk->type = JSON_END;
                tk->off = pos_off(t, p);
                return 1;
            }
            if (t->state == S_ENDED) return 0;
            if (t->state == S_VALUE && t->depth == 0 && pos_off(t, p) == 0)
                return tok_fail(t, LAT_E_TRUNCATED, 0, "empty input (expected a JSON value)");
            return tok_fail(t, LAT_E_TRUNCATED, pos_off(t, p),
                            "input ends early: expected %s (truncated file?)",
                            expect_desc(t->state));
        }
        char c = *p;
        int rc;
        tk->depth = t->depth;
        switch (t->state) {
        case S_DONE:
        case S_ENDED:
            if (t->flags & JSON_TOK_MULTI) {
                t->state = S_VALUE;
                continue;
            }
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p),
                            "unexpected %s after the end of the JSON value (expected end of "
                            "input)",
                            found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
        case S_COLON:
            if (c != ':')
                return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p),
                                "expected ':' after an object key, found %s",
                                found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
            t->p = p + 1;
            t->state = S_VALUE;
            continue;
        case S_AFTER:
            if (c == ',') {
                t->p = p + 1;
                t->state = t->stack[t->depth - 1] == 'o' ? S_KEY : S_VALUE;
                continue;
            }
            if (c == '}' || c == ']') {
                char want = t->stack[t->depth - 1] == 'o' ? '}' : ']';
                if (c != want)
                    return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p),
                                    "expected ',' or '%c', found '%c'", want, c);
                goto close;
            }
            return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p), "expected ',' or '%c', found %s",
                            t->stack[t->depth - 1] == 'o' ? '}' : ']',
                            found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
        case S_OBJ_FIRST:
            if (c == '}') goto close;
            __attribute__((fallthrough));
        case S_KEY:
            if (c != '"')
                return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p), "expected %s, found %s",
                                expect_desc(t->state),
                                found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
            rc = scan_string(t, tk, JSON_KEY);
            if (rc == 2) continue;
            if (rc == 1) {
                tk->depth = t->depth;
                t->state = S_COLON;
            }
            return rc;
        case S_ARR_FIRST:
            if (c == ']') goto close;
            __attribute__((fallthrough));
        default: /* S_VALUE */
            switch (c) {
            case '{':
            case '[':
                tk->type = c == '{' ? JSON_OBJ_BEGIN : JSON_ARR_BEGIN;
                tk->off = pos_off(t, p);
                tk->s = NULL;
                tk->len = 0;
                tk->depth = t->depth;
                rc = push(t, c == '{' ? 'o' : 'a', tk->off);
                if (rc) return rc;
                t->p = p + 1;
                t->state = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
                return 1;
            case '"':
                rc = scan_string(t, tk, JSON_STR);
                break;
            case 't':
            case 'f':
            case 'n':
                rc = scan_literal(t, tk);
                break;
            case '\xEF':
                if (pos_off(t, p) != 0 || (t->flags & JSON_TOK_STRICT))
                    return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p), "expected %s, found %s",
                                    expect_desc(t->state),
                                    found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
                rc = scan_literal(t, tk);
                if (rc == 1) continue; /* skipped the BOM; the value follows */
                break;
            default:
                if (c == '-' || (c >= '0' && c <= '9')) {
                    rc = scan_number(t, tk);
                    break;
                }
                return tok_fail(t, LAT_E_BAD_JSON, pos_off(t, p), "expected %s, found %s",
                                expect_desc(t->state),
                                found_desc(p, end, t->fdesc, sizeof(t->fdesc)));
            }
            if (rc == 2) continue;
            if (rc == 1) {
                tk->depth = t->depth;
                value_done(t);
                if (!t->depth) t->done = true;
            }
            return rc;
        }
    close:
        t->depth--;
        tk->type = c == '}' ? JSON_OBJ_END : JSON_ARR_END;
        tk->off = pos_off(t, p);
        tk->s = NULL;
        tk->len = 0;
        tk->depth = t->depth;
        t->p = p + 1;
        value_done(t);
        if (!t->depth) t->done = true;
        return 1;
    }
}

int json_tok_skip(struct json_tok *t, const struct json_token *tk, int *pending)
{
    if (*pending == 0) {
        if (tk->type != JSON_OBJ_BEGIN && tk->type != JSON_ARR_BEGIN) return 1;
        *pending = 1;
    }
    struct json_token x;
    while (*pending > 0) {
        int rc = json_tok_next(t, &x);
        if (rc <= 0) return rc;
        if (x.type == JSON_OBJ_BEGIN || x.type == JSON_ARR_BEGIN)
            ++*pending;
        else if (x.type == JSON_OBJ_END || x.type == JSON_ARR_END)
            --*pending;
    }
    return 1;
}

/* ---- numbers ---- */

int json_num_fixed(const char *s, size_t n, int scale, int64_t *out, bool *frac)
{
    /* The significant digits D[0..m) (leading zeros stripped) and P, the number of them that
     * are before the decimal point (may be negative or beyond m). The result's integer part is
     * D[0..k) padded with zeros, k = P + scale; D[k] decides the rounding. */
    enum { MAXD = 48 };
    char D[MAXD];
    int m = 0;
    long P = 0;
    bool tail_nonzero = false, neg = false, any = false;
    size_t i = 0;
    if (scale < 0 || scale > 18) return LAT_E_USAGE;
    if (i < n && s[i] == '-') {
        neg = true;
        i++;
    }
    if (i < n && (s[i] < '0' || s[i] > '9')) return LAT_E_BAD_JSON;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
        any = true;
        if (m == 0 && s[i] == '0') continue;
        if (m < MAXD)
            D[m++] = (char)(s[i] - '0');
        else if (s[i] != '0')
            tail_nonzero = true;
        P++;
    }
    if (i < n && s[i] == '.') {
        bool fd = false;
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
            fd = true;
            if (m == 0 && s[i] == '0') {
                P--;
                continue;
            }
            if (m < MAXD)
                D[m++] = (char)(s[i] - '0');
            else if (s[i] != '0')
                tail_nonzero = true;
        }
        if (!fd) return LAT_E_BAD_JSON;
    }
    if (!any) return LAT_E_BAD_JSON;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        bool eneg = false;
        long ex = 0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) eneg = s[i++] == '-';
        if (i >= n || s[i] < '0' || s[i] > '9') return LAT_E_BAD_JSON;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            if (ex < 1000000) ex = ex * 10 + (s[i] - '0');
        P += eneg ? -ex : ex;
    }
    if (i != n) return LAT_E_BAD_JSON;
    if (m == 0) { /* zero */
        if (frac) *frac = false;
        *out = 0;
        return 0;
    }
    if (frac) {
        bool f = tail_nonzero;
        for (long j = P < 0 ? 0 : P; j < m; j++)
            if (D[j]) f = true;
        *frac = f;
    }
    long k = P + scale;
    if (k > 20) return LAT_E_OVERFLOW;
    uint64_t r = 0;
    for (long j = 0; j < k; j++) {
        unsigned dg = j < m ? (unsigned)D[j] : 0;
        if (r > (UINT64_MAX - dg) / 10) return LAT_E_OVERFLOW;
        r = r * 10 + dg;
    }
    if (k >= 0 && k < m && D[k] >= 5) r++;
    if (neg) {
        if (r > (uint64_t)INT64_MAX + 1) return LAT_E_OVERFLOW;
        *out = r == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)r;
    } else {
        if (r > (uint64_t)INT64_MAX) return LAT_E_OVERFLOW;
        *out = (int64_t)r;
    }
    return 0;
}

int json_num_double(const char *s, size_t n, double *out)
{
    char tmp[128];
    char *heap = NULL, *b = tmp, *e;
    if (n == 0) return LAT_E_BAD_JSON;
    if (n >= sizeof(tmp)) {
        heap = malloc(n + 1);
        if (!heap) return -ENOMEM;
        b = heap;
    }
    memcpy(b, s, n);
    b[n] = '\0';
    *out = strtod(b, &e);
    int rc = (*e || e == b) ? LAT_E_BAD_JSON : 0;
    free(heap);
    return rc;
}

/* ---- in-memory documents ---- */

int json_validate(const char *doc, size_t n, unsigned flags, uint64_t *err_off, char *msg,
                  size_t msgsz)
{
    struct json_tok t;
    struct json_token tk;
    int rc;
    json_tok_init(&t, flags);
    json_tok_feed(&t, doc, n);
    json_tok_finish(&t);
    while ((rc = json_tok_next(&t, &tk)) == 1)
        if (tk.type == JSON_END) break;
    if (rc < 0) {
        if (err_off) *err_off = t.err_off;
        if (msg && msgsz) snprintf(msg, msgsz, "%s", t.errmsg);
    } else {
        rc = 0;
    }
    json_tok_fini(&t);
    return rc;
}

/* Reads the first value of doc[off..end) (whitespace first allowed): its type and span. */
static int value_span(const char *doc, size_t off, size_t end, struct json_val *v)
{
    struct json_tok t;
    struct json_token tk;
    int pending = 0, rc;
    json_tok_init(&t, JSON_TOK_MULTI);
    json_tok_feed(&t, doc + off, end - off);
    json_tok_finish(&t);
    rc = json_tok_next(&t, &tk);
    if (rc == 1 && tk.type == JSON_END) rc = LAT_E_NOT_FOUND;
    if (rc == 1) {
        v->type = tk.type;
        v->off = off + (size_t)tk.off;
        rc = json_tok_skip(&t, &tk, &pending);
        if (rc == 1) {
            v->len = off + (size_t)json_tok_offset(&t) - v->off;
            rc = 0;
        } else if (rc == 0) {
            rc = LAT_E_TRUNCATED;
        }
    } else if (rc == 0) {
        rc = LAT_E_TRUNCATED;
    }
    json_tok_fini(&t);
    return rc;
}

/* Scans a string literal at doc[*pos] (the quote); *pos moves past it. */
static int lit_span(const char *doc, size_t end, size_t *pos, size_t *len)
{
    size_t i = *pos + 1;
    while (i < end && doc[i] != '"') {
        if (doc[i] == '\\') i++;
        i++;
    }
    if (i >= end) return LAT_E_TRUNCATED;
    *len = i + 1 - *pos;
    *pos = i + 1;
    return 0;
}

static size_t skip_ws(const char *doc, size_t i, size_t end)
{
    while (i < end && (doc[i] == ' ' || doc[i] == '\n' || doc[i] == '\r' || doc[i] == '\t'))
        i++;
    return i;
}

int json_iter_init(struct json_iter *it, const char *doc, size_t n, const struct json_val *v)
{
    if (v->type != JSON_OBJ_BEGIN && v->type != JSON_ARR_BEGIN) return LAT_E_USAGE;
    if (v->off + v->len > n || v->len < 2) return LAT_E_USAGE;
    it->doc = doc;
    it->n = n;
    it->pos = v->off + 1;
    it->end = v->off + v->len - 1; /* the closing bracket */
    it->obj = v->type == JSON_OBJ_BEGIN;
    it->started = false;
    return 0;
}

int json_iter_next(struct json_iter *it, struct lat_buf *key, struct json_val *val)
{
    size_t i = skip_ws(it->doc, it->pos, it->end);
    if (i >= it->end) return 0;
    if (it->started) {
        if (it->doc[i] != ',') return LAT_E_BAD_JSON;
        i = skip_ws(it->doc, i + 1, it->end);
    }
    it->started = true;
    if (it->obj) {
        size_t klen;
        if (i >= it->end || it->doc[i] != '"') return LAT_E_BAD_JSON;
        size_t kstart = i;
        int rc = lit_span(it->doc, it->end, &i, &klen);
        if (rc) return rc;
        if (key) {
            key->len = 0;
            rc = json_str_decode(it->doc + kstart, klen, key);
            if (rc) return rc;
        }
        i = skip_ws(it->doc, i, it->end);
        if (i >= it->end || it->doc[i] != ':') return LAT_E_BAD_JSON;
        i++;
    }
    int rc = value_span(it->doc, i, it->end, val);
    if (rc) return rc;
    it->pos = val->off + val->len;
    return 1;
}

int json_str_decode(const char *lit, size_t len, struct lat_buf *out)
{
    size_t bad;
    if (len < 2 || lit[0] != '"' || lit[len - 1] != '"') return LAT_E_BAD_JSON;
    int rc = decode_body(lit + 1, len - 2, out, &bad);
    if (rc) return rc;
    if (buf_putc(out, '\0')) return -ENOMEM;
    out->len--;
    return 0;
}

/* Next path segment of *path into seg (decoding ~0 ~1); returns false at the end. */
static bool next_seg(const char **path, struct lat_buf *seg)
{
    const char *p = *path;
    if (!*p) return false;
    seg->len = 0;
    while (*p && *p != '/') {
        if (p[0] == '~' && p[1] == '1') {
            buf_putc(seg, '/');
            p += 2;
        } else if (p[0] == '~' && p[1] == '0') {
            buf_putc(seg, '~');
            p += 2;
        } else {
            buf_putc(seg, *p++);
        }
    }
    buf_putc(seg, '\0');
    seg->len--;
    if (*p == '/') p++;
    *path = p;
    return true;
}

int json_find(const char *doc, size_t n, const char *path, struct json_val *out)
{
    struct json_val cur;
    struct lat_buf seg = LAT_BUF_INIT, key = LAT_BUF_INIT;
    int rc = value_span(doc, 0, n, &cur);
    if (rc) goto out;
    if (*path == '/') path++;
    while (next_seg(&path, &seg)) {
        if (!seg.data) {
            rc = -ENOMEM;
            goto out;
        }
        struct json_iter it;
        struct json_val v, found = {JSON_NONE, 0, 0};
        if (cur.type != JSON_OBJ_BEGIN && cur.type != JSON_ARR_BEGIN) {
            rc = LAT_E_NOT_FOUND;
            goto out;
        }
        rc = json_iter_init(&it, doc, n, &cur);
        if (rc) goto out;
        char *endp;
        unsigned long idx = 0;
        bool isidx = false;
        if (cur.type == JSON_ARR_BEGIN) {
            idx = strtoul(seg.data, &endp, 10);
            isidx = seg.len && !*endp && seg.data[0] >= '0' && seg.data[0] <= '9';
            if (!isidx) {
                rc = LAT_E_NOT_FOUND;
                goto out;
            }
        }
        unsigned long k = 0;
        while ((rc = json_iter_next(&it, &key, &v)) == 1) {
            if (cur.type == JSON_OBJ_BEGIN) {
                if (key.len == seg.len && memcmp(key.data, seg.data, seg.len) == 0) found = v;
            } else if (k++ == idx) {
                found = v;
                break;
            }
        }
        if (rc < 0) goto out;
        if (found.type == JSON_NONE) {
            rc = LAT_E_NOT_FOUND;
            goto out;
        }
        cur = found;
    }
    *out = cur;
    rc = 0;
out:
    buf_fini(&seg);
    buf_fini(&key);
    return rc;
}

int json_get_i64(const char *doc, size_t n, const char *path, int64_t *out)
{
    struct json_val v;
    int rc = json_find(doc, n, path, &v);
    if (rc) return rc;
    if (v.type != JSON_NUM) return LAT_E_USAGE;
    bool frac;
    rc = json_num_fixed(doc + v.off, v.len, 0, out, &frac);
    if (rc) return rc;
    return frac ? LAT_E_USAGE : 0;
}

int json_get_double(const char *doc, size_t n, const char *path, double *out)
{
    struct json_val v;
    int rc = json_find(doc, n, path, &v);
    if (rc) return rc;
    if (v.type != JSON_NUM) return LAT_E_USAGE;
    return json_num_double(doc + v.off, v.len, out);
}

int json_get_bool(const char *doc, size_t n, const char *path, bool *out)
{
    struct json_val v;
    int rc = json_find(doc, n, path, &v);
    if (rc) return rc;
    if (v.type != JSON_TRUE && v.type != JSON_FALSE) return LAT_E_USAGE;
    *out = v.type == JSON_TRUE;
    return 0;
}

int json_get_str(const char *doc, size_t n, const char *path, struct lat_buf *out)
{
    struct json_val v;
    int rc = json_find(doc, n, path, &v);
    if (rc) return rc;
    if (v.type != JSON_STR) return LAT_E_USAGE;
    return json_str_decode(doc + v.off, v.len, out);
}

int json_get_count(const char *doc, size_t n, const char *path, size_t *count)
{
    struct json_val v, e;
    struct json_iter it;
    int rc = json_find(doc, n, path, &v);
    if (rc) return rc;
    rc = json_iter_init(&it, doc, n, &v);
    if (rc) return rc;
    size_t k = 0;
    while ((rc = json_iter_next(&it, NULL, &e)) == 1)
        k++;
    if (rc < 0) return rc;
    *count = k;
    return 0;
}
