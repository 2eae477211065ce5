/*
 * chunk.c - reads the few members latscope needs from an OpenAI streaming event.
 *
 * A stream event is small (one token or a few), so the simplest correct approach wins: validate
 * the whole document with a recursive-descent walk over the raw bytes (depth-limited, no
 * allocation, strings never unescaped), then look members up by raw key. Validation first means
 * a malformed event (a fault the fixture injects, or a broken server) is counted as malformed
 * instead of being half-read. The project's general tokenizer (src/json/) serves big documents;
 * this file keeps the per-token hot path to one pass over ~200 bytes. Threading: pure functions.
 */
#include "llm/chunk.h"

#include "core/err.h"

#include <string.h>

const char *lj_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char *str_end(const char *p, const char *end)
{
    /* p points at the opening quote. */
    for (p++; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20) return NULL;
        if (c == '\\') {
            if (++p >= end) return NULL;
            switch (*p) {
            case '"':
            case '\\':
            case '/':
            case 'b':
            case 'f':
            case 'n':
            case 'r':
            case 't':
                break;
            case 'u':
                if (end - p < 5) return NULL;
                for (int i = 1; i <= 4; i++)
                    if (hexval(p[i]) < 0) return NULL;
                p += 4;
                break;
            default:
                return NULL;
            }
        }
    }
    return NULL;
}

static const char *digits(const char *p, const char *end)
{
    const char *s = p;
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p > s ? p : NULL;
}

static const char *num_end(const char *p, const char *end)
{
    if (p < end && *p == '-') p++;
    if (p >= end) return NULL;
    if (*p == '0')
        p++;
    else if (!(p = digits(p, end)))
        return NULL;
    if (p < end && *p == '.') {
        if (!(p = digits(p + 1, end))) return NULL;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (!(p = digits(p, end))) return NULL;
    }
    return p;
}

static const char *lit_end(const char *p, const char *end, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(end - p) < n || memcmp(p, lit, n) != 0) return NULL;
    return p + n;
}

const char *lj_value_end(const char *p, const char *end, int depth)
{
    if (p >= end) return NULL;
    switch (*p) {
    case '"':
        return str_end(p, end);
    case 't':
        return lit_end(p, end, "true");
    case 'f':
        return lit_end(p, end, "false");
    case 'n':
        return lit_end(p, end, "null");
    case '{':
    case '[': {
        if (depth >= LJ_MAX_DEPTH) return NULL;
        char close = *p == '{' ? '}' : ']';
        bool obj = *p == '{';
        p = lj_ws(p + 1, end);
        if (p < end && *p == close) return p + 1;
        for (;;) {
            if (obj) {
                if (p >= end || *p != '"' || !(p = str_end(p, end))) return NULL;
                p = lj_ws(p, end);
                if (p >= end || *p != ':') return NULL;
                p = lj_ws(p + 1, end);
            }
            if (!(p = lj_value_end(p, end, depth + 1))) return NULL;
            p = lj_ws(p, end);
            if (p >= end) return NULL;
            if (*p == close) return p + 1;
            if (*p != ',') return NULL;
            p = lj_ws(p + 1, end);
        }
    }
    default:
        return num_end(p, end);
    }
}

bool lj_valid(const char *p, size_t n)
{
    const char *end = p + n;
    const char *v = lj_value_end(lj_ws(p, end), end, 0);
    return v && lj_ws(v, end) == end;
}

int lj_obj_get(const char *b, const char *e, const char *key, const char **vb, const char **ve)
{
    size_t klen = strlen(key);
    const char *p = lj_ws(b, e);
    if (p >= e || *p != '{') return -1;
    p = lj_ws(p + 1, e);
    if (p < e && *p == '}') return 0;
    for (;;) {
        const char *ks = p, *kend;
        if (p >= e || *p != '"' || !(kend = str_end(p, e))) return -1;
        p = lj_ws(kend, e);
        if (p >= e || *p != ':') return -1;
        p = lj_ws(p + 1, e);
        const char *v = p;
        if (!(p = lj_value_end(p, e, 1))) return -1;
        if ((size_t)(kend - ks) == klen + 2 && memcmp(ks + 1, key, klen) == 0) {
            *vb = v;
            *ve = p;
            return 1;
        }
        p = lj_ws(p, e);
        if (p >= e) return -1;
        if (*p == '}') return 0;
        if (*p != ',') return -1;
        p = lj_ws(p + 1, e);
    }
}

int lj_arr_first(const char *b, const char *e, const char **vb, const char **ve)
{
    const char *p = lj_ws(b, e);
    if (p >= e || *p != '[') return -1;
    p = lj_ws(p + 1, e);
    if (p < e && *p == ']') return 0;
    const char *v = p;
    if (!(p = lj_value_end(p, e, 1))) return -1;
    *vb = v;
    *ve = p;
    return 1;
}

int lj_int(const char *b, const char *e, int64_t *out)
{
    const char *p = lj_ws(b, e);
    bool neg = false;
    if (p < e && *p == '-') neg = true, p++;
    if (p >= e || *p < '0' || *p > '9') return -1;
    int64_t v = 0;
    for (; p < e && *p >= '0' && *p <= '9'; p++) {
        if (v > (INT64_MAX - 9) / 10) return -1;
        v = v * 10 + (*p - '0');
    }
    p = lj_ws(p, e);
    if (p != e) return -1;
    *out = neg ? -v : v;
    return 0;
}

bool lj_str_nonempty(const char *b, const char *e)
{
    return e - b >= 3 && *b == '"';
}

static bool is_null(const char *b, const char *e)
{
    return e - b == 4 && memcmp(b, "null", 4) == 0;
}

int llm_chunk_parse(const char *json, size_t len, struct llm_chunk *c)
{
    memset(c, 0, sizeof(*c));
    c->prompt_tokens = c->completion_tokens = -1;
    const char *end = json + len;
    const char *b = lj_ws(json, end);
    if (!lj_valid(json, len) || b >= end || *b != '{') return LAT_E_BAD_JSON;
    const char *vb, *ve, *cb, *ce, *xb, *xe;

    if (lj_obj_get(b, end, "error", &vb, &ve) == 1 && !is_null(vb, ve)) c->error = true;
    if (lj_obj_get(b, end, "choices", &vb, &ve) == 1 && lj_arr_first(vb, ve, &cb, &ce) == 1) {
        c->has_choices = true;
        if (lj_obj_get(cb, ce, "finish_reason", &xb, &xe) == 1 && !is_null(xb, xe))
            c->finish = true;
        bool str = false; /* a content string, empty or not */
        /* chat: choices[0].delta.{content,reasoning_content}; completions: choices[0].text */
        if (lj_obj_get(cb, ce, "delta", &xb, &xe) == 1) {
            const char *sb, *se;
            bool role = lj_obj_get(xb, xe, "role", &sb, &se) == 1 && !is_null(sb, se);
            if (!role && ((lj_obj_get(xb, xe, "content", &sb, &se) == 1 && *sb == '"') ||
                          (lj_obj_get(xb, xe, "reasoning_content", &sb, &se) == 1 && *sb == '"')))
                str = true;
            if (lj_obj_get(xb, xe, "content", &sb, &se) == 1 && lj_str_nonempty(sb, se)) {
                c->content = true;
                c->content_bytes = (size_t)(se - sb - 2);
                c->content_raw = sb + 1;
            } else if (lj_obj_get(xb, xe, "reasoning_content", &sb, &se) == 1 &&
                       lj_str_nonempty(sb, se)) {
                c->content = c->reasoning = true;
                c->content_bytes = (size_t)(se - sb - 2);
                c->content_raw = sb + 1;
            }
        } else if (lj_obj_get(cb, ce, "text", &xb, &xe) == 1 && *xb == '"') {
            str = true;
            if (lj_str_nonempty(xb, xe)) {
                c->content = true;
                c->content_bytes = (size_t)(xe - xb - 2);
                c->content_raw = xb + 1;
            }
        } else if (lj_obj_get(cb, ce, "message", &xb, &xe) == 1) {
            /* non-streaming chat response */
            const char *sb, *se;
            if (lj_obj_get(xb, xe, "content", &sb, &se) == 1 && lj_str_nonempty(sb, se)) {
                c->content = true;
                c->content_bytes = (size_t)(se - sb - 2);
                c->content_raw = sb + 1;
            }
        }
        c->token_event = c->content || (str && !c->finish);
    }
    /* llama.cpp's native stream (its /completion, and llama-server's /v1/completions before
     * it spoke OpenAI there, 2024): {"content": "...", "stop": false} per token, then
     * {"content": "", "stop": true, "tokens_predicted": N, "tokens_evaluated": P, ...}; no
     * "choices", no [DONE]. The event stands for choices[0], "stop": true for finish_reason,
     * the counts for usage. */
    else if (lj_obj_get(b, end, "stop", &vb, &ve) == 1 && (*vb == 't' || *vb == 'f') &&
             lj_obj_get(b, end, "content", &xb, &xe) == 1 && *xb == '"') {
        c->has_choices = true;
        c->finish = *vb == 't';
        if (lj_str_nonempty(xb, xe)) {
            c->content = true;
            c->content_bytes = (size_t)(xe - xb - 2);
            c->content_raw = xb + 1;
        }
        c->token_event = c->content || !c->finish;
        int64_t v;
        if (c->finish && lj_obj_get(b, end, "tokens_predicted", &xb, &xe) == 1 &&
            lj_int(xb, xe, &v) == 0 && v >= 0)
            c->completion_tokens = v;
        if (c->finish && lj_obj_get(b, end, "tokens_evaluated", &xb, &xe) == 1 &&
            lj_int(xb, xe, &v) == 0 && v >= 0)
            c->prompt_tokens = v;
    }
    if (lj_obj_get(b, end, "usage", &vb, &ve) == 1 && !is_null(vb, ve)) {
        int64_t v;
        if (lj_obj_get(vb, ve, "completion_tokens", &xb, &xe) == 1 && lj_int(xb, xe, &v) == 0 &&
            v >= 0)
            c->completion_tokens = v;
        if (lj_obj_get(vb, ve, "prompt_tokens", &xb, &xe) == 1 && lj_int(xb, xe, &v) == 0 && v >= 0)
            c->prompt_tokens = v;
    }
    return 0;
}
