/*
 * workload.c - request bodies for OpenAI-compatible servers.
 *
 * Synthetic prompts are built without any tokenizer: words drawn (seeded) from a list of short,
 * frequent English words, each preceded by a space. In the BPE vocabularies of the common
 * model families (GPT-2/cl100k/o200k, Llama 2/3, Mistral, Qwen) each such " word" is one token,
 * so a prompt of N words is about N tokens (+1 or 2 for the chat template's framing; the server's
 * usage.prompt_tokens reports the truth). Drawing words at random keeps prompts distinct, so a
 * prefix cache cannot serve them from the previous request. Alternatives rejected: shipping a
 * tokenizer (a model-specific dependency, and the reason peers add tens of ms per request).
 *
 * Determinism: request i's randomness is splitmix64(seed ^ golden * (i + 1)), so the body of
 * request i does not depend on which thread builds it or in which order.
 */
#include "llm/workload.h"

#include "core/err.h"
#include "core/grow.h"
#include "core/jsonw.h"
#include "core/mix.h"
#include "llm/chunk.h"
#include "json/tok.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const words[] = {
    "the",   "of",    "and",   "to",     "in",   "is",   "you",   "that",   "it",    "he",
    "was",   "for",   "on",    "are",    "as",   "with", "his",   "they",   "at",    "be",
    "this",  "have",  "from",  "or",     "one",  "had",  "by",    "word",   "but",   "not",
    "what",  "all",   "were",  "we",     "when", "your", "can",   "said",   "there", "use",
    "an",    "each",  "which", "she",    "do",   "how",  "their", "if",     "will",  "up",
    "other", "about", "out",   "many",   "then", "them", "these", "so",     "some",  "her",
    "would", "make",  "like",  "him",    "into", "time", "has",   "look",   "two",   "more",
    "write", "go",    "see",   "number", "no",   "way",  "could", "people", "my",    "than",
    "first", "water", "been",  "call",   "who",  "its",  "now",   "find",   "long",  "down",
    "day",   "did",   "get",   "come",   "made", "may",  "part",  "over",   "new",   "work",
};
#define NWORDS (sizeof(words) / sizeof(words[0]))

static double rng_unit(uint64_t *st)
{
    return (double)(lat_splitmix64(st) >> 11) * (1.0 / 9007199254740992.0);
}

/* Normal(mean, sd) rounded, at least 1 (Box-Muller). */
static int32_t draw_len(const struct llm_len *l, uint64_t *st)
{
    if (l->stddev <= 0) return l->mean;
    double u1 = rng_unit(st), u2 = rng_unit(st);
    if (u1 < 1e-300) u1 = 1e-300;
    double z = sqrt(-2.0 * log(u1)) * cos(2 * M_PI * u2);
    double v = round(l->mean + l->stddev * z);
    if (v < 1) v = 1;
    if (v > 1e7) v = 1e7;
    return (int32_t)v;
}

int llm_len_parse(const char *s, struct llm_len *out)
{
    char *end;
    long m = strtol(s, &end, 10);
    if (end == s || m < 1 || m > 10000000) return LAT_E_USAGE;
    long sd = 0;
    if (*end == ':') {
        const char *q = end + 1;
        sd = strtol(q, &end, 10);
        if (end == q || sd < 0 || sd > 10000000) return LAT_E_USAGE;
    }
    if (*end) return LAT_E_USAGE;
    out->mean = (int32_t)m;
    out->stddev = (int32_t)sd;
    return 0;
}

const char *llm_api_path(enum llm_api api)
{
    return api == LLM_API_CHAT ? "/v1/chat/completions" : "/v1/completions";
}

int llm_synth_prompt(struct lat_buf *out, int32_t tokens, uint64_t *st)
{
    int rc = buf_putc(out, '"');
    for (int32_t i = 0; i < tokens && !rc; i++) {
        const char *w = words[lat_splitmix64(st) % NWORDS];
        if (i) rc = buf_putc(out, ' ');
        if (!rc) rc = buf_puts(out, w);
    }
    return rc ? rc : buf_putc(out, '"');
}

/* A synthetic prompt of exactly `tokens` tokens by the word table wt (see llm_workload):
 * words are drawn as in llm_synth_prompt; one that would overshoot is replaced by the next word
 * of the list that fits. *actual gets the tokens written (less than asked only when no word
 * fits the remainder: a vocabulary without one-token words; more only when no word at all
 * fits N, then the prompt is the word of the fewest tokens). */
static int synth_exact(struct lat_buf *out, int32_t tokens, uint64_t *st, const int32_t *wt,
                       int32_t *actual)
{
    int rc = buf_putc(out, '"');
    int32_t left = tokens, done = 0;
    bool first = true;
    while (left > 0 && !rc) {
        size_t w = (size_t)(lat_splitmix64(st) % NWORDS), k;
        for (k = 0; k < NWORDS; k++) {
            size_t x = (w + k) % NWORDS;
            int32_t c = wt[first ? NWORDS + x : x];
            if (c > 0 && c <= left) {
                w = x;
                break;
            }
        }
        if (k == NWORDS) {
            if (!first) break;
            /* not even one word fits: one word of the fewest tokens, not an empty prompt */
            for (size_t x = 0; x < NWORDS; x++)
                if (wt[NWORDS + x] > 0 && (k == NWORDS || wt[NWORDS + x] < wt[NWORDS + w]))
                    w = x, k = 0;
            if (k == NWORDS) break;
        }
        if (!first) rc = buf_putc(out, ' ');
        if (!rc) rc = buf_puts(out, words[w]);
        done += wt[first ? NWORDS + w : w];
        left -= wt[first ? NWORDS + w : w];
        first = false;
    }
    *actual = done;
    return rc ? rc : buf_putc(out, '"');
}

int llm_prompt_tokens(const struct llm_tokcount *c, const char *json, size_t len, bool messages,
                      int64_t *count, char *why, size_t whylen)
{
    struct lat_buf txt = LAT_BUF_INIT;
    int rc = 0;
    *count = 0;
    if (!messages) {
        rc = json_str_decode(json, len, &txt);
        if (!rc)
            rc = llm_tokcount_count(c, txt.data ? txt.data : "", txt.len, count, why, whylen);
        else
            snprintf(why, whylen, "a prompt is not a JSON string");
    } else {
        struct json_val v, e;
        struct json_iter it;
        rc = json_find(json, len, "", &v);
        if (!rc) rc = json_iter_init(&it, json, len, &v);
        while (!rc && (rc = json_iter_next(&it, NULL, &e)) == 1) {
            rc = 0;
            txt.len = 0;
            int64_t n = 0;
            if (e.type != JSON_OBJ_BEGIN || json_get_str(json + e.off, e.len, "content", &txt))
                continue; /* a message without a string content (tool calls, parts) */
            rc = llm_tokcount_count(c, txt.data ? txt.data : "", txt.len, &n, why, whylen);
            *count += n;
        }
        if (rc < 0 && !why[0]) snprintf(why, whylen, "a messages array is malformed");
    }
    buf_fini(&txt);
    return rc < 0 ? rc : 0;
}

/* Counts the word table and every given prompt, and checks on a few synthetic prompts that a
 * prompt's count is the sum of its words' (true of the GPT-2 / Llama-3 pre-tokenizers, whose
 * pieces never join two words; a tokenizer that merges across spaces cannot size exactly). */
static int count_setup(struct llm_workload *w, char *why, size_t whylen)
{
    const struct llm_tokcount *c = w->cfg.counter;
    w->word_tok = calloc(2 * NWORDS, sizeof(*w->word_tok));
    if (!w->word_tok) return -ENOMEM;
    char tmp[64];
    int rc = 0;
    for (size_t i = 0; i < 2 * NWORDS && !rc; i++) {
        int n = snprintf(tmp, sizeof(tmp), "%s%s", i < NWORDS ? " " : "", words[i % NWORDS]);
        int64_t cnt;
        rc = llm_tokcount_count(c, tmp, (size_t)n, &cnt, why, whylen);
        w->counted++;
        w->word_tok[i] = rc ? 0 : (int32_t)(cnt > 1000 ? 1000 : cnt);
    }
    if (rc) return rc;
    if (w->nprompts) {
        w->prompt_tok = malloc(w->nprompts * sizeof(*w->prompt_tok));
        if (!w->prompt_tok) return -ENOMEM;
    }
    for (size_t i = 0; i < w->nprompts && !rc; i++) {
        int64_t n;
        rc = llm_prompt_tokens(c, w->prompts[i].json, w->prompts[i].len, w->prompts[i].messages, &n,
                               why, whylen);
        w->counted++;
        w->prompt_tok[i] = (int32_t)(n > INT32_MAX ? INT32_MAX : n);
    }
    const struct llm_replay *rp = w->cfg.replay;
    if (!rc && rp && rp->n) {
        w->replay_tok = malloc(rp->n * sizeof(*w->replay_tok));
        if (!w->replay_tok) return -ENOMEM;
        for (size_t i = 0; i < rp->n && !rc; i++) {
            const struct llm_replay_entry *e = &rp->e[i];
            w->replay_tok[i] = -1;
            if (!e->json_len) continue;
            int64_t n;
            rc = llm_prompt_tokens(c, rp->arena + e->json_off, e->json_len, e->messages, &n, why,
                                   whylen);
            w->counted++;
            w->replay_tok[i] = (int32_t)(n > INT32_MAX ? INT32_MAX : n);
        }
    }
    if (rc) return rc;
    /* additivity check on synthetic prompts of 1..64 tokens */
    struct lat_buf p = LAT_BUF_INIT;
    for (uint64_t k = 0; k < 6 && !rc; k++) {
        uint64_t st = w->cfg.seed ^ (0xd1b54a32d192ed03ull * (k + 1));
        int32_t want = (int32_t)(1 + (k * 13) % 64), got;
        int64_t cnt;
        p.len = 0;
        rc = synth_exact(&p, want, &st, w->word_tok, &got);
        if (!rc) rc = llm_prompt_tokens(c, p.data, p.len, false, &cnt, why, whylen);
        w->counted++;
        if (!rc && cnt != got) {
            snprintf(why, whylen,
                     "%s: a synthetic prompt of %d words' tokens counts %lld as a whole: this "
                     "tokenizer joins words, so --input-tokens cannot be sized exactly (give "
                     "--prompts FILE instead)",
                     llm_tokcount_source(c), (int)got, (long long)cnt);
            rc = LAT_E_UNSUPPORTED;
        }
    }
    buf_fini(&p);
    return rc;
}

void llm_workload_free(struct llm_workload *w)
{
    if (!w) return;
    free(w->word_tok);
    free(w->prompt_tok);
    free(w->replay_tok);
    for (size_t i = 0; i < w->nprompts; i++)
        free(w->prompts[i].json);
    free(w->prompts);
    free(w->extra);
    free(w);
}

/* Generated body members --extra-body may replace (llm_workload.extra_over bits). */
enum {
    LLM_OV_MODEL = 1u << 0,
    LLM_OV_MESSAGES = 1u << 1,
    LLM_OV_PROMPT = 1u << 2,
    LLM_OV_MAX_TOKENS = 1u << 3,
    LLM_OV_MIN_TOKENS = 1u << 4,
    LLM_OV_IGNORE_EOS = 1u << 5,
    LLM_OV_STREAM = 1u << 6,
    LLM_OV_STREAM_OPTIONS = 1u << 7,
};
static const char *const ov_keys[] = {"model",      "messages",   "prompt", "max_tokens",
                                      "min_tokens", "ignore_eos", "stream", "stream_options"};

/* Checks the members of the object [b, e) (already validated): no key twice (why names it),
 * and which generated members it replaces. 0 or LAT_E_BAD_JSON. */
static int extra_keys(const char *b, const char *e, unsigned *over, char *why, size_t whylen)
{
    const char *p = lj_ws(b + 1, e), *keys[64];
    size_t klen[64], nk = 0;
    *over = 0;
    while (p < e && *p == '"') {
        const char *ke = lj_value_end(p, e, 0);
        if (!ke) break;
        for (size_t i = 0; i < nk; i++)
            if (klen[i] == (size_t)(ke - p) && !memcmp(keys[i], p, klen[i])) {
                snprintf(why, whylen, "--extra-body has the member %.*s twice", (int)(ke - p), p);
                return LAT_E_BAD_JSON;
            }
        if (nk < 64) {
            keys[nk] = p;
            klen[nk++] = (size_t)(ke - p);
        }
        for (unsigned i = 0; i < sizeof(ov_keys) / sizeof(ov_keys[0]); i++)
            if ((size_t)(ke - p) == strlen(ov_keys[i]) + 2 &&
                !memcmp(p + 1, ov_keys[i], (size_t)(ke - p) - 2))
                *over |= 1u << i;
        p = lj_ws(ke, e);
        if (p >= e || *p != ':') break;
        const char *ve = lj_value_end(lj_ws(p + 1, e), e, 0);
        if (!ve) break;
        p = lj_ws(ve, e);
        if (p < e && *p == ',') p = lj_ws(p + 1, e);
    }
    return 0;
}

/* getline() with a bound: a line (or a file without newlines, /dev/zero) longer than max
 * ends the read with LAT_E_OVERFLOW instead of growing without limit. */
static ssize_t getline_max(char **line, size_t *cap, FILE *f, size_t max)
{
    size_t n = 0;
    int ch;
    while ((ch = getc_unlocked(f)) != EOF) {
        if (n >= max) return LAT_E_OVERFLOW;
        int rc = LAT_GROW(*line, *cap, n, 2, 4096); /* room for ch and the NUL */
        if (rc) return rc;
        (*line)[n++] = (char)ch;
        if (ch == '\n') break;
    }
    if (ferror(f)) return -(errno ? errno : EIO);
    if (n == 0) return -1;
    (*line)[n] = '\0';
    return (ssize_t)n;
}

static int load_prompts(struct llm_workload *w, char *why, size_t whylen)
{
    const char *path = w->cfg.prompts_path;
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(why, whylen, "%s: %s", path, strerror(e));
        return -e;
    }
    char *line = NULL;
    size_t cap = 0, alloc = 0, total = 0;
    size_t max = w->cfg.max_input_bytes ? w->cfg.max_input_bytes : LLM_MAX_INPUT_BYTES;
    ssize_t n;
    int rc = 0;
    unsigned long lineno = 0;
    while ((n = getline_max(&line, &cap, f, max - total)) >= 0) {
        lineno++;
        total += (size_t)n;
        const char *b = lj_ws(line, line + n), *e = line + n;
        if (b == e) continue; /* blank line */
        const char *vb, *ve;
        if (!lj_valid(line, (size_t)n) || *b != '{') {
            snprintf(why, whylen, "%s:%lu: not a JSON object (one object per line)", path, lineno);
            rc = LAT_E_BAD_JSON;
            break;
        }
        struct llm_prompt p = {.max_tokens = -1};
        if (lj_obj_get(b, e, "messages", &vb, &ve) == 1 && *lj_ws(vb, ve) == '[') {
            p.messages = true;
        } else if (lj_obj_get(b, e, "prompt", &vb, &ve) == 1 && *lj_ws(vb, ve) == '"') {
            p.messages = false;
        } else {
            snprintf(why, whylen,
                     "%s:%lu: needs \"prompt\": \"text\" or \"messages\": [...] (chat)", path,
                     lineno);
            rc = LAT_E_BAD_JSON;
            break;
        }
        if (p.messages && w->cfg.api != LLM_API_CHAT) {
            snprintf(why, whylen, "%s:%lu: chat \"messages\" need --api chat", path, lineno);
            rc = LAT_E_USAGE;
            break;
        }
        const char *mb, *me;
        int64_t mt;
        if ((lj_obj_get(b, e, "max_tokens", &mb, &me) == 1 ||
             lj_obj_get(b, e, "output_tokens", &mb, &me) == 1) &&
            lj_int(mb, me, &mt) == 0 && mt > 0 && mt < 10000000)
            p.max_tokens = (int32_t)mt;
        p.len = (size_t)(ve - vb);
        p.json = malloc(p.len + 1);
        if (!p.json) {
            rc = -ENOMEM;
            break;
        }
        memcpy(p.json, vb, p.len);
        p.json[p.len] = '\0';
        if ((rc = LAT_GROW(w->prompts, alloc, w->nprompts, 1, 64)) != 0) {
            free(p.json);
            break;
        }
        w->prompts[w->nprompts++] = p;
    }
    if (!rc && n == LAT_E_OVERFLOW) {
        snprintf(why, whylen,
                 "%s: larger than %zu bytes (--max-input-size; raise it if the file is "
                 "meant to be this large)",
                 path, max);
        rc = LAT_E_OVERFLOW;
    } else if (!rc && n < -1) {
        snprintf(why, whylen, "%s: %s", path, strerror((int)-n));
        rc = (int)n;
    }
    free(line);
    fclose(f);
    if (!rc && w->nprompts == 0) {
        snprintf(why, whylen,
                 "%s: no prompts (expected JSON lines with \"prompt\" or "
                 "\"messages\")",
                 path);
        rc = LAT_E_USAGE;
    }
    return rc;
}

int llm_workload_new(const struct llm_workload_cfg *cfg, struct llm_workload **out, char *why,
                     size_t whylen)
{
    *out = NULL;
    why[0] = '\0';
    struct llm_workload *w = calloc(1, sizeof(*w));
    if (!w) return -ENOMEM;
    w->cfg = *cfg;
    int rc = 0;
    if (cfg->replay && cfg->prompts_path) {
        snprintf(why, whylen, "--replay and --prompts both give the prompts; choose one");
        rc = LAT_E_USAGE;
        goto out;
    }
    for (size_t i = 0; cfg->replay && i < cfg->replay->n; i++)
        if (cfg->replay->e[i].messages && cfg->api != LLM_API_CHAT) {
            snprintf(why, whylen, "--replay request %zu: chat \"messages\" need --api chat", i + 1);
            rc = LAT_E_USAGE;
            goto out;
        }
    if (!cfg->prompts_path && !cfg->replay && cfg->input.mean < 1) {
        snprintf(why, whylen, "give --input-tokens N[:stddev] or --prompts FILE.jsonl");
        rc = LAT_E_USAGE;
        goto out;
    }
    if (cfg->prompts_path && (rc = load_prompts(w, why, whylen)) != 0) goto out;
    if (cfg->extra_body) {
        const char *s = cfg->extra_body, *e = s + strlen(s);
        const char *b = lj_ws(s, e);
        if (!lj_valid(s, (size_t)(e - s)) || *b != '{') {
            snprintf(why, whylen, "--extra-body must be a JSON object, e.g. '{\"temperature\":0}'");
            rc = LAT_E_BAD_JSON;
            goto out;
        }
        if ((rc = extra_keys(b, e, &w->extra_over, why, whylen)) != 0) goto out;
        /* Keep the members between the braces. */
        const char *in = lj_ws(b + 1, e), *close = e;
        while (close > in && close[-1] != '}')
            close--;
        close--;
        while (close > in &&
               (close[-1] == ' ' || close[-1] == '\n' || close[-1] == '\t' || close[-1] == '\r'))
            close--;
        if (close > in) {
            w->extra_len = (size_t)(close - in);
            w->extra = malloc(w->extra_len + 1);
            if (!w->extra) {
                rc = -ENOMEM;
                goto out;
            }
            memcpy(w->extra, in, w->extra_len);
            w->extra[w->extra_len] = '\0';
        }
    }
    if (cfg->counter && (rc = count_setup(w, why, whylen)) != 0) goto out;
out:
    if (rc) {
        llm_workload_free(w);
        return rc;
    }
    *out = w;
    return 0;
}

/* A synthetic prompt: sized exactly with a counter, else about `tokens` words. */
static int synth(const struct llm_workload *w, struct lat_buf *out, int32_t tokens, uint64_t *st,
                 int32_t *prompt_tokens)
{
    if (w->word_tok) return synth_exact(out, tokens, st, w->word_tok, prompt_tokens);
    return llm_synth_prompt(out, tokens, st);
}

int llm_workload_body(const struct llm_workload *w, uint64_t idx, struct lat_buf *out,
                      int32_t *max_tokens)
{
    int32_t pt;
    return llm_workload_body_ex(w, idx, out, max_tokens, &pt);
}

/* The body of request idx; ovr (a prompt of the caller's: --sessions) replaces the prompt the
 * workload would take, ovr_mt (> 0) its max_tokens. */
static int body(const struct llm_workload *w, uint64_t idx, const struct llm_prompt *ovr,
                int32_t ovr_mt, struct lat_buf *out, int32_t *max_tokens, int32_t *prompt_tokens);

int llm_workload_body_ex(const struct llm_workload *w, uint64_t idx, struct lat_buf *out,
                         int32_t *max_tokens, int32_t *prompt_tokens)
{
    return body(w, idx, NULL, -1, out, max_tokens, prompt_tokens);
}

int llm_workload_body_msgs(const struct llm_workload *w, uint64_t idx, const char *msgs, size_t len,
                           int32_t mt, struct lat_buf *out, int32_t *max_tokens)
{
    struct llm_prompt p = {.json = (char *)(uintptr_t)msgs,
                           /* read only */ .len = len,
                           .messages = true,
                           .max_tokens = mt};
    int32_t pt;
    return body(w, idx, &p, mt, out, max_tokens, &pt);
}

static int body(const struct llm_workload *w, uint64_t idx, const struct llm_prompt *ovr,
                int32_t ovr_mt, struct lat_buf *out, int32_t *max_tokens, int32_t *prompt_tokens)
{
    *prompt_tokens = -1;
    const struct llm_workload_cfg *c = &w->cfg;
    uint64_t st = c->seed ^ (0x9e3779b97f4a7c15ull * (idx + 1));
    lat_splitmix64(&st);
    int32_t mt = c->output.mean >= 1 ? draw_len(&c->output, &st) : -1;
    int rc = buf_putc(out, '{');
    unsigned ov = w->extra_over; /* members --extra-body replaces are not generated */
    if (c->model && !(ov & LLM_OV_MODEL)) {
        rc = rc ? rc : buf_puts(out, "\"model\":");
        rc = rc ? rc : json_escape(out, c->model, strlen(c->model));
        rc = rc ? rc : buf_putc(out, ',');
    }
    const struct llm_prompt *p = w->nprompts ? &w->prompts[idx % w->nprompts] : NULL;
    if (p && w->prompt_tok) *prompt_tokens = w->prompt_tok[idx % w->nprompts];
    if (p && p->max_tokens > 0 && c->output.mean < 1) mt = p->max_tokens;
    if (ovr) {
        p = ovr;
        *prompt_tokens = -1;
        if (ovr_mt > 0) mt = ovr_mt;
    }
    /* --replay: the line's prompt (as a prompt entry) or its input length, and its output
     * length, win over the command line's. */
    struct llm_prompt rp;
    int32_t in_tokens = -1;
    const struct llm_replay_entry *moon = NULL; /* a Mooncake line with hash_ids */
    if (!ovr && c->replay && c->replay->n) {
        const struct llm_replay_entry *re = &c->replay->e[idx % c->replay->n];
        if (re->output_tokens > 0) mt = re->output_tokens;
        if (re->nhash) {
            moon = re;
            in_tokens = 1;
        } else if (re->json_len) {
            rp = (struct llm_prompt){.json = c->replay->arena + re->json_off,
                                     .len = re->json_len,
                                     .messages = re->messages};
            p = &rp;
            *prompt_tokens = w->replay_tok ? w->replay_tok[idx % c->replay->n] : -1;
        } else {
            in_tokens = re->input_tokens;
        }
    }
    if (!p && in_tokens < 1) in_tokens = draw_len(&c->input, &st);
    bool have_input = false; /* a member was written: the next one needs a comma */
    if (c->api == LLM_API_CHAT && !(ov & LLM_OV_MESSAGES)) {
        have_input = true;
        rc = rc ? rc : buf_puts(out, "\"messages\":");
        if (p && p->messages) {
            rc = rc ? rc : buf_append(out, p->json, p->len);
        } else {
            rc = rc ? rc : buf_puts(out, "[{\"role\":\"user\",\"content\":");
            if (p)
                rc = rc ? rc : buf_append(out, p->json, p->len);
            else if (moon)
                rc = rc ? rc : llm_mooncake_prompt(out, c->replay, moon, c->seed);
            else
                rc = rc ? rc : synth(w, out, in_tokens, &st, prompt_tokens);
            rc = rc ? rc : buf_puts(out, "}]");
        }
    } else if (c->api != LLM_API_CHAT && !(ov & LLM_OV_PROMPT)) {
        have_input = true;
        rc = rc ? rc : buf_puts(out, "\"prompt\":");
        if (p)
            rc = rc ? rc : buf_append(out, p->json, p->len);
        else if (moon)
            rc = rc ? rc : llm_mooncake_prompt(out, c->replay, moon, c->seed);
        else
            rc = rc ? rc : synth(w, out, in_tokens, &st, prompt_tokens);
    }
    /* Every later member starts with a comma. */
    size_t first = out->len;
    if (mt > 0) {
        if (!(ov & LLM_OV_MAX_TOKENS))
            rc = rc ? rc : buf_printf(out, ",\"max_tokens\":%d", (int)mt);
        if (c->ignore_eos && !(ov & LLM_OV_MIN_TOKENS))
            rc = rc ? rc : buf_printf(out, ",\"min_tokens\":%d", (int)mt);
        if (c->ignore_eos && !(ov & LLM_OV_IGNORE_EOS))
            rc = rc ? rc : buf_puts(out, ",\"ignore_eos\":true");
    }
    if (!(ov & LLM_OV_STREAM))
        rc = rc ? rc : buf_puts(out, c->stream ? ",\"stream\":true" : ",\"stream\":false");
    if (c->stream && (c->include_usage || c->continuous_usage) && !(ov & LLM_OV_STREAM_OPTIONS)) {
        rc = rc ? rc : buf_puts(out, ",\"stream_options\":{\"include_usage\":true");
        if (c->continuous_usage) rc = rc ? rc : buf_puts(out, ",\"continuous_usage_stats\":true");
        rc = rc ? rc : buf_putc(out, '}');
    }
    if (w->extra) {
        rc = rc ? rc : buf_putc(out, ',');
        rc = rc ? rc : buf_append(out, w->extra, w->extra_len);
    }
    if (!rc && !have_input && out->len > first && out->data[first] == ',') {
        /* --extra-body gives the input member: drop the comma that would follow '{' or the
         * model member's own. */
        memmove(out->data + first, out->data + first + 1, out->len - first - 1);
        out->len--;
    }
    rc = rc ? rc : buf_putc(out, '}');
    *max_tokens = mt;
    return rc;
}

bool llm_workload_demands_length(const struct llm_workload *w)
{
    return w->cfg.ignore_eos && !(w->extra_over & LLM_OV_MIN_TOKENS);
}
