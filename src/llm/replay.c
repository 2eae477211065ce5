/*
 * replay.c - the --replay trace parser (format in replay.h); Azure CSV traces go to azure.c.
 */
#include "llm/replay.h"

#include "core/err.h"
#include "core/grow.h"
#include "llm/azure.h"
#include "llm/chunk.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A JSON number >= 0 at [b, e) into *out. 0 or -1. */
static int num_value(const char *b, const char *e, double *out)
{
    char tmp[64];
    b = lj_ws(b, e);
    while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
        e--;
    size_t n = (size_t)(e - b);
    if (n == 0 || n >= sizeof(tmp) || !((*b >= '0' && *b <= '9') || *b == '-')) return -1;
    memcpy(tmp, b, n);
    tmp[n] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    if (*end || !isfinite(v) || v < 0) return -1;
    *out = v;
    return 0;
}

/* The first of keys present in the object: 1 (span set), 0 none. */
static int get_any(const char *b, const char *e, const char *const *keys, const char **which,
                   const char **vb, const char **ve)
{
    for (; *keys; keys++)
        if (lj_obj_get(b, e, *keys, vb, ve) == 1) {
            *which = *keys;
            return 1;
        }
    return 0;
}

/* A token count member: 0 absent (*out = -1), 1 read, -1 bad. */
static int len_member(const char *b, const char *e, const char *const *keys, const char **which,
                      int32_t *out)
{
    const char *vb, *ve;
    *out = -1;
    if (!get_any(b, e, keys, which, &vb, &ve)) return 0;
    int64_t v;
    if (lj_int(vb, ve, &v) != 0 || v < 1 || v > 10000000) return -1;
    *out = (int32_t)v;
    return 1;
}

/* e and offsets share one capacity (checked against e's, the wider element): both are resized
 * to it before *cap records it, so on -ENOMEM both still hold *cap entries. azure.c's rows
 * grow the same way. */
static int grow(struct llm_replay *r, size_t *cap)
{
    size_t nc = lat_grow_cap(*cap, r->n + 1, sizeof(*r->e), 256);
    if (!nc) return LAT_E_OVERFLOW;
    struct llm_replay_entry *ne = realloc(r->e, nc * sizeof(*ne));
    if (!ne) return -ENOMEM;
    r->e = ne;
    lat_ns *no = realloc(r->offsets, nc * sizeof(*no));
    if (!no) return -ENOMEM;
    r->offsets = no;
    *cap = nc;
    return 0;
}

static int arena_add(struct llm_replay *r, size_t *cap, const char *p, size_t n, size_t *off)
{
    int rc = LAT_GROW(r->arena, *cap, r->arena_len, n, 4096);
    if (rc) return rc;
    *off = r->arena_len;
    memcpy(r->arena + r->arena_len, p, n);
    r->arena_len += n;
    return 0;
}

/* The line's "hash_ids" into r->hash: 0 (absent: e->nhash 0, or read), -1 malformed, -ENOMEM. */
static int hash_ids(struct llm_replay *r, size_t *hcap, const char *b, const char *e,
                    struct llm_replay_entry *en)
{
    const char *vb, *ve;
    if (lj_obj_get(b, e, "hash_ids", &vb, &ve) != 1) return 0;
    vb = lj_ws(vb, ve);
    if (vb >= ve || *vb != '[') return -1;
    const char *p = lj_ws(vb + 1, ve);
    en->hash_off = r->nhash_all;
    size_t n = 0;
    while (p < ve && *p != ']') {
        const char *end = lj_value_end(p, ve, 0);
        int64_t v;
        if (!end || lj_int(p, end, &v) != 0 || v < 0 || n >= LLM_MOONCAKE_MAX_HASHES) {
            r->nhash_all = en->hash_off;
            return -1;
        }
        if (LAT_GROW(r->hash, *hcap, r->nhash_all, 1, 1024)) return -ENOMEM; /* (or overflow) */
        r->hash[r->nhash_all++] = (uint64_t)v;
        n++;
        p = lj_ws(end, ve);
        if (p < ve && *p == ',') p = lj_ws(p + 1, ve);
    }
    en->nhash = (uint32_t)n;
    return 0;
}

int llm_replay_parse(struct llm_replay *r, const char *data, size_t len, const char *name,
                     char *why, size_t whylen)
{
    return llm_replay_parse_n(r, data, len, name, 0, why, whylen);
}

int llm_replay_parse_n(struct llm_replay *r, const char *data, size_t len, const char *name,
                       size_t limit, char *why, size_t whylen)
{
    static const char *const tkeys[] = {"timestamp", "timestamp_ms", "timestamp_s", NULL};
    static const char *const ikeys[] = {"input_length", "input_tokens", NULL};
    static const char *const okeys[] = {"output_length", "output_tokens", "max_tokens", NULL};
    memset(r, 0, sizeof(*r));
    why[0] = '\0';
    size_t cap = 0, acap = 0, hcap = 0;
    unsigned long lineno = 0;
    double first = 0, prev = 0;
    int rc = 0;
    const char *p = data, *end = data + len;
    while (p < end && (!limit || r->n < limit)) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        const char *b = lj_ws(p, le);
        while (le > b && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
            le--;
        lineno++;
        p = nl ? nl + 1 : end;
        if (b == le) continue; /* blank line */
        if (!lj_valid(b, (size_t)(le - b)) || *b != '{') {
            snprintf(why, whylen, "%s:%lu: not a JSON object (one object per line)", name, lineno);
            rc = LAT_E_BAD_JSON;
            break;
        }
        if (r->n >= LLM_REPLAY_MAX_LINES) {
            snprintf(why, whylen, "%s:%lu: more than %d requests; split the trace", name, lineno,
                     LLM_REPLAY_MAX_LINES);
            rc = LAT_E_USAGE;
            break;
        }
        const char *which = NULL, *vb, *ve;
        double ts;
        if (!get_any(b, le, tkeys, &which, &vb, &ve)) {
            snprintf(why, whylen,
                     "%s:%lu: no send time; add \"timestamp\" (ms), \"timestamp_ms\" or "
                     "\"timestamp_s\"",
                     name, lineno);
            rc = LAT_E_USAGE;
            break;
        }
        if (num_value(vb, ve, &ts) != 0 || ts > 1e12) {
            snprintf(why, whylen, "%s:%lu: \"%s\" must be a number >= 0", name, lineno, which);
            rc = LAT_E_USAGE;
            break;
        }
        double ms = !strcmp(which, "timestamp_s") ? ts * 1e3 : ts;
        if (r->n == 0) first = prev = ms;
        if (ms < prev) {
            snprintf(why, whylen,
                     "%s:%lu: send time %.3f ms is before the previous line's %.3f ms; sort the "
                     "trace by time",
                     name, lineno, ms, prev);
            rc = LAT_E_USAGE;
            break;
        }
        prev = ms;
        struct llm_replay_entry en = {.input_tokens = -1, .output_tokens = -1};
        int li = len_member(b, le, ikeys, &which, &en.input_tokens);
        if (li < 0) {
            snprintf(why, whylen, "%s:%lu: \"%s\" must be an integer >= 1", name, lineno, which);
            rc = LAT_E_USAGE;
            break;
        }
        if (len_member(b, le, okeys, &which, &en.output_tokens) < 0) {
            snprintf(why, whylen, "%s:%lu: \"%s\" must be an integer >= 1", name, lineno, which);
            rc = LAT_E_USAGE;
            break;
        }
        bool have_prompt = false;
        if (lj_obj_get(b, le, "messages", &vb, &ve) == 1) {
            vb = lj_ws(vb, ve);
            if (*vb != '[') {
                snprintf(why, whylen, "%s:%lu: \"messages\" must be an array", name, lineno);
                rc = LAT_E_USAGE;
                break;
            }
            en.messages = have_prompt = true;
        } else if (lj_obj_get(b, le, "prompt", &vb, &ve) == 1) {
            vb = lj_ws(vb, ve);
            if (*vb != '"') {
                snprintf(why, whylen, "%s:%lu: \"prompt\" must be a string", name, lineno);
                rc = LAT_E_USAGE;
                break;
            }
            have_prompt = true;
        }
        int hrc = have_prompt ? 0 : hash_ids(r, &hcap, b, le, &en);
        if (hrc == -ENOMEM) {
            rc = hrc;
            break;
        }
        if (hrc < 0) {
            snprintf(why, whylen,
                     "%s:%lu: \"hash_ids\" must be an array of at most %d integers >= 0 "
                     "(Mooncake block hashes)",
                     name, lineno, LLM_MOONCAKE_MAX_HASHES);
            rc = LAT_E_USAGE;
            break;
        }
        if (!have_prompt && li == 0 && !en.nhash) {
            snprintf(why, whylen,
                     "%s:%lu: no input; give \"prompt\", \"messages\", \"input_length\" "
                     "(tokens of a synthetic prompt) or \"hash_ids\" (Mooncake blocks)",
                     name, lineno);
            rc = LAT_E_USAGE;
            break;
        }
        if (have_prompt) {
            const char *vend = lj_value_end(vb, ve, 0);
            if (!vend) vend = ve;
            en.json_len = (size_t)(vend - vb);
            en.input_tokens = -1;
            if ((rc = arena_add(r, &acap, vb, en.json_len, &en.json_off)) != 0) break;
        }
        if (r->n == cap && (rc = grow(r, &cap)) != 0) break;
        r->e[r->n] = en;
        r->offsets[r->n] = (lat_ns)llround((ms - first) * 1e6);
        r->n++;
    }
    if (!rc && r->n == 0) {
        snprintf(why, whylen,
                 "%s: no requests (expected JSON lines such as {\"timestamp\": 0, "
                 "\"input_length\": 128, \"output_length\": 32})",
                 name);
        rc = LAT_E_USAGE;
    }
    if (rc) llm_replay_fini(r);
    return rc;
}

int llm_replay_load(struct llm_replay *r, const char *path, char *why, size_t whylen)
{
    return llm_replay_load_n(r, path, 0, why, whylen);
}

int llm_replay_load_n(struct llm_replay *r, const char *path, size_t limit, char *why,
                      size_t whylen)
{
    return llm_replay_load_capped(r, path, limit, 0, why, whylen);
}

int llm_replay_load_capped(struct llm_replay *r, const char *path, size_t limit, size_t max_bytes,
                           char *why, size_t whylen)
{
    memset(r, 0, sizeof(*r));
    if (!max_bytes) max_bytes = LLM_MAX_INPUT_BYTES;
    /* read(2), not stdio: a pipe (--replay /dev/stdin, <(zcat trace.csv.gz)) gives what has
     * arrived, so the limit below ends the reading without waiting for the writer's EOF. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        return -e;
    }
    char *buf = NULL;
    size_t n = 0, cap = 0, lines = 0;
    bool text = false; /* the line being scanned has a non-blank byte */
    int rc = 0;
    /* With a limit, stop reading once limit + 1 non-blank lines (a CSV header and limit rows,
     * or limit JSON lines and one more) are complete: a week-long trace is not read whole to
     * replay its first thousand requests. */
    while (!limit || lines <= limit) {
        if (n == cap && (rc = LAT_GROW(buf, cap, n, 1, 65536)) != 0) break;
        ssize_t rd = read(fd, buf + n, cap - n);
        if (rd < 0 && errno == EINTR) continue;
        if (rd < 0) {
            int e = errno;
            rc = -e;
            snprintf(why, whylen, "%s: %s", path, strerror(e));
            break;
        }
        size_t got = (size_t)rd;
        for (size_t i = n; limit && i < n + got; i++) {
            char ch = buf[i];
            if (ch == '\n') {
                lines += text;
                text = false;
            } else if (ch != ' ' && ch != '\t' && ch != '\r') {
                text = true;
            }
        }
        n += got;
        if (got == 0) break;
        if (n > max_bytes) {
            rc = LAT_E_OVERFLOW;
            snprintf(why, whylen,
                     "%s: larger than %zu bytes (--max-input-size; raise it if the trace is "
                     "meant to be this large, or replay its first rows with -n N)",
                     path, max_bytes);
            break;
        }
    }
    close(fd);
    if (!rc && llm_azure_is_csv(buf ? buf : "", n))
        rc = llm_azure_parse(r, buf, n, path, limit, why, whylen);
    else if (!rc)
        rc = llm_replay_parse_n(r, buf ? buf : "", n, path, limit, why, whylen);
    free(buf);
    return rc;
}
