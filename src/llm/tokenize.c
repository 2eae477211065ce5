/*
 * tokenize.c - the server's tokenize endpoint as a token counter (see tokenize.h).
 */
#include "llm/tokenize.h"

#include "core/err.h"
#include "core/jsonw.h"
#include "net/fetch.h"
#include "json/tok.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *llm_tokapi_name(enum llm_tokapi a)
{
    switch (a) {
    case LLM_TOKAPI_LLAMACPP:
        return "llamacpp";
    case LLM_TOKAPI_VLLM:
        return "vllm";
    case LLM_TOKAPI_TGI:
        return "tgi";
    case LLM_TOKAPI_LCPP:
        return "llama-cpp-python";
    default:
        return "auto";
    }
}

int llm_tokapi_parse(const char *s, enum llm_tokapi *out)
{
    if (!strcmp(s, "auto"))
        *out = LLM_TOKAPI_AUTO;
    else if (!strcmp(s, "llamacpp") || !strcmp(s, "llama.cpp"))
        *out = LLM_TOKAPI_LLAMACPP;
    else if (!strcmp(s, "vllm") || !strcmp(s, "sglang"))
        *out = LLM_TOKAPI_VLLM;
    else if (!strcmp(s, "tgi"))
        *out = LLM_TOKAPI_TGI;
    else if (!strcmp(s, "llama-cpp-python"))
        *out = LLM_TOKAPI_LCPP;
    else
        return LAT_E_USAGE;
    return 0;
}

int llm_tokenize_url_auto(const char *server_url, char *out, size_t outsz)
{
    struct http1_url u;
    const char *why;
    if (http1_url_parse(server_url, &u, &why)) return LAT_E_USAGE;
    int n = snprintf(out, outsz, "%s://%s/tokenize", u.tls ? "https" : "http", u.hostport);
    return n < 0 || (size_t)n >= outsz ? LAT_E_OVERFLOW : 0;
}

int llm_tokenize_ep_open(struct llm_tokenize_ep *ep, const char *url, enum llm_tokapi api,
                         const char *model, const char *const *headers, size_t nheaders, char *why,
                         size_t whylen)
{
    memset(ep, 0, sizeof(*ep));
    const char *w;
    if (http1_url_parse(url, &ep->url, &w)) {
        snprintf(why, whylen, "--tokenize-url %s: %s", url, w);
        return LAT_E_USAGE;
    }
    int rc = conn_target_init(&ep->ct, ep->url.host, ep->url.port, ep->url.tls, true);
    if (rc) {
        snprintf(why, whylen, "--tokenize-url %s: cannot resolve %s: %s", url, ep->url.host,
                 lat_strerror(rc));
        return rc;
    }
    ep->ct_ok = true;
    ep->api = api;
    ep->model = model;
    ep->headers = headers;
    ep->nheaders = nheaders;
    return 0;
}

void llm_tokenize_ep_close(struct llm_tokenize_ep *ep)
{
    if (ep->ct_ok) conn_target_fini(&ep->ct);
    ep->ct_ok = false;
    buf_fini(&ep->req);
    buf_fini(&ep->body);
}

/* The count in a response body of dialect api: 1 (the shape matched), 0 (another shape). */
static int parse_count(enum llm_tokapi api, const char *doc, size_t n, int64_t *count)
{
    struct json_val v;
    size_t cnt;
    if (json_find(doc, n, "", &v)) return 0;
    if (api == LLM_TOKAPI_TGI) {
        if (v.type != JSON_ARR_BEGIN || json_get_count(doc, n, "", &cnt)) return 0;
        if (cnt && json_find(doc, n, "0/id", &v)) return 0;
        *count = (int64_t)cnt;
        return 1;
    }
    if (v.type != JSON_OBJ_BEGIN) return 0;
    if (json_find(doc, n, "tokens", &v) || v.type != JSON_ARR_BEGIN ||
        json_get_count(doc, n, "tokens", &cnt))
        return 0;
    int64_t c;
    bool has_count = json_get_i64(doc, n, "count", &c) == 0;
    if (api == LLM_TOKAPI_VLLM) {
        if (!has_count || c < 0) return 0;
        *count = c;
        return 1;
    }
    if (has_count) return 0; /* llama.cpp and llama-cpp-python have no "count" */
    *count = (int64_t)cnt;
    return 1;
}

static int one(struct llm_tokenize_ep *ep, enum llm_tokapi api, const char *text, size_t n,
               int *status)
{
    struct lat_buf b = LAT_BUF_INIT;
    int rc = 0;
    if (api == LLM_TOKAPI_LLAMACPP) {
        rc = buf_puts(&b, "{\"content\":");
        rc = rc ? rc : json_escape(&b, text, n);
        rc = rc ? rc : buf_puts(&b, ",\"add_special\":false}");
    } else if (api == LLM_TOKAPI_VLLM) {
        rc = buf_putc(&b, '{');
        if (ep->model) {
            rc = rc ? rc : buf_puts(&b, "\"model\":");
            rc = rc ? rc : json_escape(&b, ep->model, strlen(ep->model));
            rc = rc ? rc : buf_putc(&b, ',');
        }
        rc = rc ? rc : buf_puts(&b, "\"prompt\":");
        rc = rc ? rc : json_escape(&b, text, n);
        rc = rc ? rc : buf_puts(&b, ",\"add_special_tokens\":false}");
    } else if (api == LLM_TOKAPI_LCPP) {
        /* its tokenize() adds BOS only when the model's vocabulary asks for one */
        rc = buf_puts(&b, "{\"input\":");
        rc = rc ? rc : json_escape(&b, text, n);
        rc = rc ? rc : buf_putc(&b, '}');
    } else {
        rc = buf_puts(&b, "{\"inputs\":");
        rc = rc ? rc : json_escape(&b, text, n);
        rc = rc ? rc : buf_putc(&b, '}');
    }
    buf_reset(&ep->req);
    rc = rc ? rc
            : buf_printf(&ep->req,
                         "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: latscope\r\n"
                         "Content-Type: application/json\r\nAccept: application/json\r\n",
                         ep->url.path, ep->url.hostport);
    for (size_t i = 0; !rc && i < ep->nheaders; i++)
        rc = buf_printf(&ep->req, "%s\r\n", ep->headers[i]);
    rc = rc ? rc : buf_printf(&ep->req, "Content-Length: %zu\r\n\r\n", b.len);
    rc = rc ? rc : buf_append(&ep->req, b.data ? b.data : "", b.len);
    buf_fini(&b);
    if (rc) return rc;
    buf_reset(&ep->body);
    ep->requests++;
    return http_fetch(&ep->ct, ep->req.data, ep->req.len, 30 * LAT_NS_PER_S, status, &ep->body);
}

static void say(struct llm_tokenize_ep *ep, char *why, size_t whylen, const char *what, int status)
{
    const char *b = ep->body.data ? ep->body.data : "";
    size_t n = ep->body.len < 160 ? ep->body.len : 160;
    char txt[161];
    for (size_t i = 0; i < n; i++)
        txt[i] = (b[i] >= 32 && b[i] < 127) ? b[i] : ' ';
    txt[n] = '\0';
    snprintf(why, whylen, "tokenize endpoint http%s://%s%s: %s (HTTP %d%s%s)",
             ep->url.tls ? "s" : "", ep->url.hostport, ep->url.path, what, status, n ? ": " : "",
             txt);
}

static int ep_count(struct llm_tokenize_ep *ep, const char *text, size_t n, int64_t *count,
                    char *why, size_t whylen);

/*
 * Issue 31: llama-cpp-python's /extras/tokenize prepends BOS to every count, so "a b" counted
 * 3 and latscope took the tokenizer for one that joins words. Once the dialect is known, the
 * empty text is tokenized: what it returns (a BOS) is a constant prefix, subtracted from every
 * count and named (bos, bos_id). An endpoint that refuses the empty text has none.
 */
static void check_bos(struct llm_tokenize_ep *ep)
{
    if (ep->bos_checked || ep->api == LLM_TOKAPI_AUTO) return;
    ep->bos_checked = true;
    ep->bos = 0;
    ep->bos_id = -1;
    int status = 0;
    int64_t c = 0;
    if (one(ep, ep->api, "", 0, &status) || status != 200) return;
    const char *d = ep->body.data ? ep->body.data : "";
    if (!parse_count(ep->api, d, ep->body.len, &c) || c <= 0) return;
    ep->bos = c;
    int64_t id;
    if (json_get_i64(d, ep->body.len, ep->api == LLM_TOKAPI_TGI ? "0/id" : "tokens/0", &id) == 0)
        ep->bos_id = id;
}

int llm_tokenize_ep_count(struct llm_tokenize_ep *ep, const char *text, size_t n, int64_t *count,
                          char *why, size_t whylen)
{
    int rc = ep_count(ep, text, n, count, why, whylen);
    if (rc) return rc;
    check_bos(ep);
    if (ep->bos > 0) *count = *count > ep->bos ? *count - ep->bos : 0;
    return 0;
}

static int ep_count(struct llm_tokenize_ep *ep, const char *text, size_t n, int64_t *count,
                    char *why, size_t whylen)
{
    int status = 0, rc;
    if (ep->api == LLM_TOKAPI_AUTO) {
        /* llama-cpp-python's dialect last: given its /extras/tokenize URL itself */
        static const enum llm_tokapi order[] = {LLM_TOKAPI_LLAMACPP, LLM_TOKAPI_VLLM,
                                                LLM_TOKAPI_TGI, LLM_TOKAPI_LCPP};
        for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
            rc = one(ep, order[k], text, n, &status);
            if (rc) {
                snprintf(why, whylen, "tokenize endpoint http%s://%s%s: %s", ep->url.tls ? "s" : "",
                         ep->url.hostport, ep->url.path, lat_strerror(rc));
                return rc;
            }
            if (status == 200 &&
                parse_count(order[k], ep->body.data ? ep->body.data : "", ep->body.len, count)) {
                ep->api = order[k];
                return 0;
            }
            if (status == 404 || status == 405) break;
        }
        if (status == 404 && !strcmp(ep->url.path, "/tokenize")) {
            /* llama-cpp-python: no /tokenize, its own dialect at /extras/tokenize */
            snprintf(ep->url.path, sizeof(ep->url.path), "/extras/tokenize");
            rc = one(ep, LLM_TOKAPI_LCPP, text, n, &status);
            if (!rc && status == 200 &&
                parse_count(LLM_TOKAPI_LCPP, ep->body.data ? ep->body.data : "", ep->body.len,
                            count)) {
                ep->api = LLM_TOKAPI_LCPP;
                return 0;
            }
            snprintf(ep->url.path, sizeof(ep->url.path), "/tokenize");
            if (rc)
                snprintf(why, whylen, "tokenize endpoint http%s://%s/extras/tokenize: %s",
                         ep->url.tls ? "s" : "", ep->url.hostport, lat_strerror(rc));
            else
                say(ep, why, whylen,
                    "no llama.cpp, vLLM/SGLang or TGI tokenize answer (HTTP 404 there), and no "
                    "llama-cpp-python one at /extras/tokenize (give the dialect with "
                    "--tokenize-api, or use --tokenizer FILE)",
                    status);
            return rc ? rc : LAT_E_UNSUPPORTED;
        }
        say(ep, why, whylen,
            "no llama.cpp, vLLM/SGLang or TGI tokenize answer (give the dialect with "
            "--tokenize-api, or use --tokenizer FILE)",
            status);
        return LAT_E_UNSUPPORTED;
    }
    rc = one(ep, ep->api, text, n, &status);
    if (rc) {
        snprintf(why, whylen, "tokenize endpoint http%s://%s%s: %s", ep->url.tls ? "s" : "",
                 ep->url.hostport, ep->url.path, lat_strerror(rc));
        return rc;
    }
    if (status != 200) {
        say(ep, why, whylen, "request failed", status);
        return LAT_E_HTTP_PARSE;
    }
    if (!parse_count(ep->api, ep->body.data ? ep->body.data : "", ep->body.len, count)) {
        char what[96];
        snprintf(what, sizeof(what), "not a %s tokenize answer", llm_tokapi_name(ep->api));
        say(ep, why, whylen, what, status);
        return LAT_E_BAD_JSON;
    }
    return 0;
}

const char *llm_tokcount_source(const struct llm_tokcount *c)
{
    return c->tk ? "tokenizer" : "tokenize-endpoint";
}

int llm_tokcount_count(const struct llm_tokcount *c, const char *text, size_t n, int64_t *count,
                       char *why, size_t whylen)
{
    if (c->tk) {
        int rc = llm_tokenizer_count(c->tk, text, n, count);
        if (rc) snprintf(why, whylen, "tokenizer: %s", lat_strerror(rc));
        return rc;
    }
    if (c->ep) return llm_tokenize_ep_count(c->ep, text, n, count, why, whylen);
    snprintf(why, whylen, "no tokenizer");
    return LAT_E_USAGE;
}
