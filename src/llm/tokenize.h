/*
 * tokenize.h - exact token counts from the server's own tokenize endpoint, and one counter over
 * either that endpoint or a tokenizer.json (llm/tokenizer.h).
 *
 * Dialects (all POST, JSON):
 *   llama.cpp  /tokenize  {"content": TEXT, "add_special": false}          -> {"tokens": [...]}
 *   vLLM/SGLang /tokenize {"model": M, "prompt": TEXT, "add_special_tokens": false}
 *                                                            -> {"count": N, "tokens": [...]}
 *   TGI        /tokenize  {"inputs": TEXT}                   -> [{"id": .., "text": ..}, ...]
 *   llama-cpp-python /extras/tokenize {"input": TEXT}                        -> {"tokens": [...]}
 * With LLM_TOKAPI_AUTO the first count probes them in that order and keeps the first whose
 * answer has the dialect's shape; when the URL's path is /tokenize and the server answers 404
 * there (llama-cpp-python has no /tokenize), it tries /extras/tokenize in llama-cpp-python's
 * dialect and keeps that path. Setup-time only (one blocking request per text, on a fresh
 * connection): never on the measured path.
 */
#ifndef LAT_LLM_TOKENIZE_H
#define LAT_LLM_TOKENIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "llm/tokenizer.h"
#include "net/conn.h"
#include "net/http1.h"

enum llm_tokapi {
    LLM_TOKAPI_AUTO = 0,
    LLM_TOKAPI_LLAMACPP,
    LLM_TOKAPI_VLLM,
    LLM_TOKAPI_TGI,
    LLM_TOKAPI_LCPP /* llama-cpp-python's server: /extras/tokenize */
};
const char *llm_tokapi_name(enum llm_tokapi a);
/* "auto", "llamacpp" (or "llama.cpp"), "vllm" (or "sglang"), "tgi", "llama-cpp-python".
 * 0 or LAT_E_USAGE. */
int llm_tokapi_parse(const char *s, enum llm_tokapi *out);

struct llm_tokenize_ep {
    struct http1_url url;
    struct conn_target ct;
    bool ct_ok;
    enum llm_tokapi api;
    const char *model; /* vLLM's "model" member, or NULL */
    const char *const *headers;
    size_t nheaders;
    uint64_t requests; /* tokenize requests sent */
    /* A constant prefix the endpoint puts before every count (llama-cpp-python's
     * /extras/tokenize prepends BOS): the tokens of the empty text, probed once when the
     * dialect is known, subtracted from every count. bos_id: its first token's id (-1: none). */
    bool bos_checked;
    int64_t bos, bos_id;
    struct lat_buf req, body;
};

/* The tokenize URL of a server URL: its scheme, host and port + "/tokenize". 0 or LAT_E_USAGE. */
int llm_tokenize_url_auto(const char *server_url, char *out, size_t outsz);
/* Parses url and resolves its host. model and headers are borrowed (must outlive ep).
 * 0, or LAT_E_USAGE / -errno / LAT_E_NOT_FOUND with why filled. */
int llm_tokenize_ep_open(struct llm_tokenize_ep *ep, const char *url, enum llm_tokapi api,
                         const char *model, const char *const *headers, size_t nheaders, char *why,
                         size_t whylen);
void llm_tokenize_ep_close(struct llm_tokenize_ep *ep);
/* Tokens of text[0..n) as the server counts them. 0, or an error with why naming the URL, the
 * HTTP status and the server's answer. */
int llm_tokenize_ep_count(struct llm_tokenize_ep *ep, const char *text, size_t n, int64_t *count,
                          char *why, size_t whylen);

/* One counter: a tokenizer file (tk) or the endpoint (ep); exactly one is set. */
struct llm_tokcount {
    const struct llm_tokenizer *tk;
    struct llm_tokenize_ep *ep;
};
/* "tokenizer" or "tokenize-endpoint". */
const char *llm_tokcount_source(const struct llm_tokcount *c);
int llm_tokcount_count(const struct llm_tokcount *c, const char *text, size_t n, int64_t *count,
                       char *why, size_t whylen);

#endif
