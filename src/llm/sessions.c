/*
 * sessions.c - multi-turn conversation files (format in sessions.h), the history of a session
 * as a chat messages array, and the per-turn statistics.
 *
 * Every message text is kept as its raw JSON string (validated when the line is read), so a
 * turn's request is built by copying bytes: no decode/re-encode per request. The server's
 * reply is the one thing decoded and escaped again (llm_sess_history_add): its bytes come from
 * the network.
 */
#include "llm/sessions.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "llm/chunk.h"
#include "llm/replay.h"
#include "json/tok.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void llm_sessions_fini(struct llm_sessions *S)
{
    free(S->s);
    free(S->t);
    free(S->arena);
    memset(S, 0, sizeof(*S));
}

struct pstate {
    struct llm_sessions *S;
    size_t scap, tcap, acap;
};

static int arena_put(struct pstate *ps, const char *p, size_t n, size_t *off)
{
    struct llm_sessions *S = ps->S;
    int rc = LAT_GROW(S->arena, ps->acap, S->arena_len, n, 4096);
    if (rc) return rc;
    *off = S->arena_len;
    if (n) memcpy(S->arena + S->arena_len, p, n);
    S->arena_len += n;
    return 0;
}

static int turn_push(struct pstate *ps, const struct llm_sess_turn *t)
{
    struct llm_sessions *S = ps->S;
    int rc = LAT_GROW(S->t, ps->tcap, S->nt, 1, 256);
    if (rc) return rc;
    S->t[S->nt++] = *t;
    return 0;
}

static int sess_push(struct pstate *ps, const struct llm_session *s)
{
    struct llm_sessions *S = ps->S;
    int rc = LAT_GROW(S->s, ps->scap, S->n, 1, 64);
    if (rc) return rc;
    S->s[S->n++] = *s;
    return 0;
}

/* Iterates the array [b, e) (validated): *p starts after '['. 1 element in [*vb, *ve), 0 end. */
static int arr_next(const char **p, const char *e, const char **vb, const char **ve)
{
    const char *q = lj_ws(*p, e);
    if (q < e && *q == ',') q = lj_ws(q + 1, e);
    if (q >= e || *q == ']') return 0;
    const char *end = lj_value_end(q, e, 0);
    if (!end) return 0;
    *vb = q;
    *ve = end;
    *p = end;
    return 1;
}

/* The value of the first of keys in the object [b, e), trimmed: 1 found, 0 none. */
static int member(const char *b, const char *e, const char *const *keys, const char **which,
                  const char **vb, const char **ve)
{
    for (; *keys; keys++)
        if (lj_obj_get(b, e, *keys, vb, ve) == 1) {
            *vb = lj_ws(*vb, *ve);
            const char *end = lj_value_end(*vb, *ve, 0);
            if (end) *ve = end;
            if (which) *which = *keys;
            return 1;
        }
    return 0;
}

static bool str_is(const char *vb, const char *ve, const char *s)
{
    size_t n = strlen(s);
    return (size_t)(ve - vb) == n + 2 && vb[0] == '"' && !memcmp(vb + 1, s, n);
}

#define ERR(...)                                                                                   \
    do {                                                                                           \
        int n_ = snprintf(why, whylen, "%s:%lu: ", name, lineno);                                  \
        if (n_ >= 0 && (size_t)n_ < whylen) snprintf(why + n_, whylen - (size_t)n_, __VA_ARGS__);  \
        return LAT_E_USAGE;                                                                        \
    } while (0)

static int parse_sharegpt(struct pstate *ps, const char *ab, const char *ae, const char *name,
                          unsigned long lineno, struct llm_session *s, char *why, size_t whylen)
{
    static const char *const rkeys[] = {"from", "role", NULL};
    static const char *const tkeys[] = {"value", "content", NULL};
    const char *p = ab + 1, *vb, *ve;
    size_t idx = 0;
    struct llm_sess_turn *last = NULL;
    while (arr_next(&p, ae, &vb, &ve) == 1) {
        idx++;
        const char *rb, *re, *xb, *xe, *which = NULL;
        if (*vb != '{')
            ERR("conversations[%zu] is not an object {\"from\": ..., \"value\": ...}", idx - 1);
        if (!member(vb, ve, rkeys, NULL, &rb, &re) || *rb != '"')
            ERR("conversations[%zu] has no \"from\" (human, gpt or system)", idx - 1);
        if (!member(vb, ve, tkeys, &which, &xb, &xe) || *xb != '"')
            ERR("conversations[%zu] needs \"value\": \"text\" (a string)", idx - 1);
        size_t off;
        int rc;
        if (str_is(rb, re, "system")) {
            if (s->n)
                ERR("conversations[%zu]: a system message after the first turn; put it first",
                    idx - 1);
            if ((rc = arena_put(ps, xb, (size_t)(xe - xb), &off)) != 0) return rc;
            s->sys_off = off;
            s->sys_len = (size_t)(xe - xb);
        } else if (str_is(rb, re, "human") || str_is(rb, re, "user")) {
            if (s->n >= LLM_SESS_MAX_TURNS)
                ERR("more than %d turns in one conversation", LLM_SESS_MAX_TURNS);
            struct llm_sess_turn t = {.delay_ms = -1, .max_tokens = -1};
            if ((rc = arena_put(ps, xb, (size_t)(xe - xb), &off)) != 0) return rc;
            t.user_off = off;
            t.user_len = (size_t)(xe - xb);
            if ((rc = turn_push(ps, &t)) != 0) return rc;
            s->n++;
            last = &ps->S->t[ps->S->nt - 1];
        } else if (str_is(rb, re, "gpt") || str_is(rb, re, "assistant") ||
                   str_is(rb, re, "chatgpt") || str_is(rb, re, "bard") || str_is(rb, re, "model")) {
            if (!last)
                ERR("conversations[%zu]: a gpt message before any human message; the first turn "
                    "must be the user's",
                    idx - 1);
            if (last->reply_len)
                ERR("conversations[%zu]: two gpt messages in a row; join them or add the human "
                    "turn between",
                    idx - 1);
            if ((rc = arena_put(ps, xb, (size_t)(xe - xb), &off)) != 0) return rc;
            last = &ps->S->t[ps->S->nt - 1];
            last->reply_off = off;
            last->reply_len = (size_t)(xe - xb);
            ps->S->any_reply = true;
        } else {
            ERR("conversations[%zu]: unknown \"from\" %.*s (expected human, gpt or system)",
                idx - 1, (int)(re - rb > 40 ? 40 : re - rb), rb);
        }
    }
    if (!s->n) ERR("no human message: a conversation needs at least one turn");
    return 0;
}

static int parse_aiperf(struct pstate *ps, const char *ab, const char *ae, const char *name,
                        unsigned long lineno, struct llm_session *s, char *why, size_t whylen)
{
    static const char *const tkeys[] = {"text", "content", NULL};
    static const char *const mkeys[] = {"messages", NULL};
    static const char *const dkeys[] = {"delay", "delay_ms", NULL};
    static const char *const okeys[] = {"max_tokens", "output_length", "output_tokens", NULL};
    const char *p = ab + 1, *vb, *ve;
    size_t idx = 0;
    while (arr_next(&p, ae, &vb, &ve) == 1) {
        idx++;
        const char *xb, *xe, *which = NULL;
        if (*vb != '{') ERR("turns[%zu] is not an object {\"text\": ..., \"delay\": ms}", idx - 1);
        if (s->n >= LLM_SESS_MAX_TURNS)
            ERR("more than %d turns in one session", LLM_SESS_MAX_TURNS);
        struct llm_sess_turn t = {.delay_ms = -1, .max_tokens = -1};
        if (member(vb, ve, mkeys, NULL, &xb, &xe)) {
            if (*xb != '[')
                ERR("turns[%zu]: \"messages\" must be an array of chat messages", idx - 1);
            const char *q = xb + 1, *eb, *ee;
            size_t k = 0;
            while (arr_next(&q, xe, &eb, &ee) == 1) {
                const char *cb, *ce;
                static const char *const ck[] = {"role", NULL};
                if (*eb != '{' || !member(eb, ee, ck, NULL, &cb, &ce) || *cb != '"')
                    ERR("turns[%zu].messages[%zu] is not a chat message {\"role\": ..., "
                        "\"content\": ...}",
                        idx - 1, k);
                k++;
            }
            if (!k) ERR("turns[%zu]: \"messages\" is empty", idx - 1);
            t.messages = true;
        } else if (member(vb, ve, tkeys, &which, &xb, &xe)) {
            if (*xb != '"') ERR("turns[%zu]: \"%s\" must be a string", idx - 1, which);
        } else {
            ERR("turns[%zu] has no input; give \"text\": \"...\" or \"messages\": [...]", idx - 1);
        }
        size_t off;
        int rc = arena_put(ps, xb, (size_t)(xe - xb), &off);
        if (rc) return rc;
        t.user_off = off;
        t.user_len = (size_t)(xe - xb);
        const char *db, *de;
        if (member(vb, ve, dkeys, &which, &db, &de)) {
            char tmp[40];
            size_t n = (size_t)(de - db);
            double d = -1;
            if (n > 0 && n < sizeof(tmp)) {
                memcpy(tmp, db, n);
                tmp[n] = '\0';
                char *end;
                d = strtod(tmp, &end);
                if (*end || end == tmp || !isfinite(d)) d = -1;
            }
            if (!(d >= 0 && d <= 86400000.0))
                ERR("turns[%zu]: \"%s\" must be a number of ms, 0..86400000", idx - 1, which);
            t.delay_ms = (int32_t)llround(d);
        }
        if (member(vb, ve, okeys, &which, &db, &de)) {
            int64_t v;
            if (lj_int(db, de, &v) != 0 || v < 1 || v > 10000000)
                ERR("turns[%zu]: \"%s\" must be an integer >= 1", idx - 1, which);
            t.max_tokens = (int32_t)v;
        }
        if ((rc = turn_push(ps, &t)) != 0) return rc;
        s->n++;
    }
    if (!s->n) ERR("\"turns\" is empty: a session needs at least one turn");
    return 0;
}

int llm_sessions_parse(struct llm_sessions *S, const char *data, size_t len, const char *name,
                       char *why, size_t whylen)
{
    memset(S, 0, sizeof(*S));
    why[0] = '\0';
    struct pstate ps = {.S = S};
    unsigned long lineno = 0;
    int rc = 0;
    const char *p = data, *end = data + len;
    while (p < end && !rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *b = lj_ws(p, le);
        while (le > b && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
            le--;
        lineno++;
        p = nl ? nl + 1 : end;
        if (b == le) continue;
        if (!lj_valid(b, (size_t)(le - b)) || *b != '{') {
            snprintf(
                why, whylen,
                "%s:%lu: not a JSON object (one conversation per line: ShareGPT "
                "{\"conversations\": [...]} or AIPerf {\"session_id\": ..., \"turns\": [...]})",
                name, lineno);
            rc = LAT_E_BAD_JSON;
            break;
        }
        if (S->n >= LLM_SESS_MAX_SESSIONS) {
            snprintf(why, whylen, "%s:%lu: more than %d sessions; split the file", name, lineno,
                     LLM_SESS_MAX_SESSIONS);
            rc = LAT_E_USAGE;
            break;
        }
        struct llm_session s = {.first = S->nt, .line = lineno};
        const char *vb, *ve;
        static const char *const ck[] = {"conversations", NULL}, *const tk[] = {"turns", NULL};
        if (member(b, le, ck, NULL, &vb, &ve)) {
            if (*vb != '[') {
                snprintf(why, whylen, "%s:%lu: \"conversations\" must be an array", name, lineno);
                rc = LAT_E_USAGE;
                break;
            }
            rc = parse_sharegpt(&ps, vb, ve, name, lineno, &s, why, whylen);
        } else if (member(b, le, tk, NULL, &vb, &ve)) {
            if (*vb != '[') {
                snprintf(why, whylen, "%s:%lu: \"turns\" must be an array", name, lineno);
                rc = LAT_E_USAGE;
                break;
            }
            rc = parse_aiperf(&ps, vb, ve, name, lineno, &s, why, whylen);
        } else {
            snprintf(why, whylen,
                     "%s:%lu: needs \"conversations\": [{\"from\": \"human\", \"value\": ...}, "
                     "...] (ShareGPT) or \"turns\": [{\"text\": ...}, ...] (AIPerf multi_turn)",
                     name, lineno);
            rc = LAT_E_USAGE;
        }
        if (rc) break;
        if (s.n > S->max_turns) S->max_turns = s.n;
        rc = sess_push(&ps, &s);
    }
    if (!rc && S->n == 0) {
        snprintf(why, whylen,
                 "%s: no conversations (expected JSON lines such as {\"conversations\": "
                 "[{\"from\": \"human\", \"value\": \"Hi\"}, {\"from\": \"gpt\", \"value\": "
                 "\"Hello\"}]})",
                 name);
        rc = LAT_E_USAGE;
    }
    if (rc) llm_sessions_fini(S);
    return rc;
}

int llm_sessions_load(struct llm_sessions *S, const char *path, size_t max_bytes, char *why,
                      size_t whylen)
{
    memset(S, 0, sizeof(*S));
    if (!max_bytes) max_bytes = LLM_MAX_INPUT_BYTES;
    struct lat_buf b = LAT_BUF_INIT;
    int rc = buf_read_file(&b, path, max_bytes);
    if (rc == LAT_E_OVERFLOW)
        snprintf(why, whylen,
                 "%s: larger than %zu bytes (--max-input-size; raise it if the file is meant "
                 "to be this large)",
                 path, max_bytes);
    else if (rc)
        snprintf(why, whylen, "%s: %s", path, lat_strerror(rc));
    if (!rc) rc = llm_sessions_parse(S, b.data ? b.data : "", b.len, path, why, whylen);
    buf_fini(&b);
    return rc;
}

/* ---- history ---- */

static int put_msg(struct lat_buf *out, const char *role, const char *str, size_t len)
{
    int rc = buf_printf(out, "{\"role\":\"%s\",\"content\":", role);
    rc = rc ? rc : buf_append(out, str, len);
    return rc ? rc : buf_putc(out, '}');
}

/* Turn t's user part: a user message, or the elements of its messages array. */
static int put_user(const struct llm_sessions *S, const struct llm_sess_turn *t,
                    struct lat_buf *out)
{
    const char *u = S->arena + t->user_off;
    if (!t->messages) return put_msg(out, "user", u, t->user_len);
    /* "[a, b]" -> "a,b" (elements raw) */
    const char *p = u + 1, *e = u + t->user_len, *vb, *ve;
    int rc = 0;
    bool first = true;
    while (!rc && arr_next(&p, e, &vb, &ve) == 1) {
        if (!first) rc = buf_putc(out, ',');
        rc = rc ? rc : buf_append(out, vb, (size_t)(ve - vb));
        first = false;
    }
    return rc;
}

int llm_sess_history_start(const struct llm_sessions *S, const struct llm_session *s,
                           struct lat_buf *hist)
{
    buf_reset(hist);
    if (!s->sys_len) return 0;
    return put_msg(hist, "system", S->arena + s->sys_off, s->sys_len);
}

int llm_sess_messages(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                      const struct lat_buf *hist, struct lat_buf *out)
{
    int rc = buf_putc(out, '[');
    if (hist->len) {
        rc = rc ? rc : buf_append(out, hist->data, hist->len);
        rc = rc ? rc : buf_putc(out, ',');
    }
    rc = rc ? rc : put_user(S, &S->t[s->first + k], out);
    return rc ? rc : buf_putc(out, ']');
}

int llm_sess_history_add(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                         const char *reply_raw, size_t reply_len, struct lat_buf *hist)
{
    struct lat_buf lit = LAT_BUF_INIT, txt = LAT_BUF_INIT;
    int rc = llm_sess_history_add_buf(S, s, k, reply_raw, reply_len, hist, &lit, &txt);
    buf_fini(&lit);
    buf_fini(&txt);
    return rc;
}

int llm_sess_history_add_buf(const struct llm_sessions *S, const struct llm_session *s, size_t k,
                             const char *reply_raw, size_t reply_len, struct lat_buf *hist,
                             struct lat_buf *lit, struct lat_buf *txt)
{
    const struct llm_sess_turn *t = &S->t[s->first + k];
    size_t mark = hist->len;
    int rc = 0;
    if (hist->len) rc = buf_putc(hist, ',');
    rc = rc ? rc : put_user(S, t, hist);
    rc = rc ? rc : buf_puts(hist, ",{\"role\":\"assistant\",\"content\":");
    if (!rc && !reply_raw) {
        if (t->reply_len)
            rc = buf_append(hist, S->arena + t->reply_off, t->reply_len);
        else
            rc = buf_puts(hist, "\"\"");
    } else if (!rc) {
        /* the server's bytes: decoded and escaped again, so the next body is valid JSON */
        buf_reset(lit);
        buf_reset(txt);
        rc = buf_putc(lit, '"');
        rc = rc ? rc : buf_append(lit, reply_raw, reply_len);
        rc = rc ? rc : buf_putc(lit, '"');
        if (!rc && json_str_decode(lit->data, lit->len, txt) != 0) rc = LAT_E_BAD_JSON;
        if (!rc) rc = json_escape(hist, txt->data ? txt->data : "", txt->len);
    }
    rc = rc ? rc : buf_putc(hist, '}');
    if (rc) hist->len = mark;
    return rc;
}

void llm_sess_user_fini(struct llm_sess_user *u)
{
    buf_fini(&u->hist);
    buf_fini(&u->msgs);
    buf_fini(&u->lit);
    buf_fini(&u->txt);
}

/* ---- statistics ---- */

int llm_sess_stats_init(struct llm_sess_stats *st)
{
    memset(st, 0, sizeof(*st));
    int rc = hist_init_default(&st->duration);
    for (int i = 0; i < LLM_SESS_ROWS && !rc; i++) {
        rc = hist_init_default(&st->row[i].ttft);
        if (!rc) rc = hist_init_default(&st->row[i].e2e);
    }
    return rc;
}

void llm_sess_stats_fini(struct llm_sess_stats *st)
{
    hist_fini(&st->duration);
    for (int i = 0; i < LLM_SESS_ROWS; i++) {
        hist_fini(&st->row[i].ttft);
        hist_fini(&st->row[i].e2e);
    }
}

void llm_sess_stats_reset(struct llm_sess_stats *st)
{
    hist_reset(&st->duration);
    for (int i = 0; i < LLM_SESS_ROWS; i++) {
        struct llm_sess_row *r = &st->row[i];
        hist_reset(&r->ttft);
        hist_reset(&r->e2e);
        r->n = r->ok = r->isl_n = 0;
        r->isl_sum = 0;
    }
    st->turns_beyond = st->started = st->completed = st->failed = 0;
}

int llm_sess_stats_add(struct llm_sess_stats *dst, const struct llm_sess_stats *src)
{
    int rc = hist_add(&dst->duration, &src->duration);
    for (int i = 0; i < LLM_SESS_ROWS && rc >= 0; i++) {
        struct llm_sess_row *d = &dst->row[i];
        const struct llm_sess_row *s = &src->row[i];
        rc = hist_add(&d->ttft, &s->ttft);
        if (rc >= 0) rc = hist_add(&d->e2e, &s->e2e);
        d->n += s->n;
        d->ok += s->ok;
        d->isl_sum += s->isl_sum;
        d->isl_n += s->isl_n;
    }
    dst->turns_beyond += src->turns_beyond;
    dst->started += src->started;
    dst->completed += src->completed;
    dst->failed += src->failed;
    return rc < 0 ? rc : 0;
}

static void row_add(struct llm_sess_row *r, bool ok, lat_ns ttft, lat_ns e2e, int64_t isl)
{
    r->n++;
    if (!ok) return;
    r->ok++;
    if (ttft >= 0) hist_record(&r->ttft, ttft);
    if (e2e >= 0) hist_record(&r->e2e, e2e);
    if (isl >= 0) {
        r->isl_sum += (double)isl;
        r->isl_n++;
    }
}

void llm_sess_stats_turn(struct llm_sess_stats *st, size_t k, bool ok, lat_ns ttft, lat_ns e2e,
                         int64_t isl)
{
    if (k < LLM_SESS_SHOW_TURNS)
        row_add(&st->row[k], ok, ttft, e2e, isl);
    else
        st->turns_beyond++;
    if (k >= 1) row_add(&st->row[LLM_SESS_SHOW_TURNS], ok, ttft, e2e, isl);
}
