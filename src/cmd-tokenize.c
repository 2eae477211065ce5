/*
 * cmd-tokenize.c - `latscope tokenize`: token counts of texts, with a Hugging Face tokenizer.json
 * read in C (llm/tokenizer.h) or the server's tokenize endpoint (llm/tokenize.h): the counter
 * `bench --target openai --tokenizer/--tokenize-url` uses, on its own, to check it against
 * `tokenizers` or a server. docs/latscope-bench-llm.md.
 */
#define PR_FMT "tokenize"
#include "core/buf.h"
#include "core/err.h"
#include "core/log.h"
#include "latscope.h"
#include "llm/tokenize.h"
#include "llm/tokenizer.h"
#include "json/tok.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "usage: latscope tokenize (--tokenizer FILE | --tokenize-url URL) [OPTIONS] [TEXT...]\n"
    "\n"
    "Prints the token count of each TEXT, or of each line of standard input, one per line.\n"
    "Counts are of the text alone (no BOS/special tokens, no chat template).\n"
    "\n";

static const char footer_text[] =
    "Exit status: 0 counted, 1 a count failed (the server's error is printed), 2 usage error or\n"
    "a tokenizer file latscope cannot read. See docs/latscope-bench-llm.md.\n";

enum { OPT_TOKENIZER, OPT_URL, OPT_API, OPT_MODEL, OPT_JSONL, OPT_IDS, OPT_PIECES };

static const struct cli_opt options[] = {
    {"tokenizer", 0, "FILE", OPT_TOKENIZER, 0,
     "a Hugging Face tokenizer.json (byte-level BPE: GPT-2, Llama 3 style)"},
    {"tokenize-url", 0, "URL", OPT_URL, 0, "the server's tokenize endpoint (POST)"},
    {"tokenize-api", 0, "auto|llamacpp|vllm|tgi|llama-cpp-python", OPT_API, CLI_SUB,
     "the endpoint's dialect (default auto: probed)"},
    {"model", 0, "NAME", OPT_MODEL, CLI_SUB, "the \"model\" member vLLM/SGLang want"},
    {"jsonl", 0, NULL, OPT_JSONL, 0, "each input line is a JSON string (texts with newlines)"},
    {"ids", 0, NULL, OPT_IDS, 0, "print the token ids after the count (--tokenizer only)"},
    {"pieces", 0, NULL, OPT_PIECES, 0,
     "print the pre-tokenizer's pieces (hex bytes) instead (--tokenizer only; for tests)"},
    {0},
};

struct tok_args {
    const char *file, *url, *model;
    enum llm_tokapi api;
    bool jsonl, ids, pieces;
};

static int on_opt(void *ctx, int id, const char *v)
{
    struct tok_args *a = ctx;
    switch (id) {
    case OPT_TOKENIZER:
        a->file = v;
        break;
    case OPT_URL:
        a->url = v;
        break;
    case OPT_MODEL:
        a->model = v;
        break;
    case OPT_JSONL:
        a->jsonl = true;
        break;
    case OPT_IDS:
        a->ids = true;
        break;
    case OPT_PIECES:
        a->pieces = true;
        break;
    case OPT_API:
        if (llm_tokapi_parse(v, &a->api)) {
            pr_err("--tokenize-api %s: expected auto, llamacpp, vllm, tgi or llama-cpp-python\n",
                   v);
            return -1;
        }
        break;
    }
    return 0;
}

static bool want_pieces;

static int count_one(const struct llm_tokcount *tc, const char *s, size_t n, bool ids)
{
    char why[512];
    int64_t cnt = 0;
    if (want_pieces && tc->tk) {
        struct lat_buf b = LAT_BUF_INIT;
        int rc = llm_tokenizer_pieces(tc->tk, s, n, &b);
        if (!rc) printf("%s\n", b.data ? b.data : "");
        buf_fini(&b);
        if (rc) pr_err("%s\n", lat_strerror(rc));
        return rc ? -1 : 0;
    }
    if (ids && tc->tk) {
        struct lat_buf b = LAT_BUF_INIT;
        int rc = llm_tokenizer_encode(tc->tk, s, n, &b, &cnt);
        if (rc) {
            buf_fini(&b);
            pr_err("%s\n", lat_strerror(rc));
            return -1;
        }
        printf("%lld", (long long)cnt);
        const int32_t *v = (const int32_t *)(void *)b.data;
        for (int64_t i = 0; i < cnt; i++)
            printf(" %d", (int)v[i]);
        putchar('\n');
        buf_fini(&b);
        return 0;
    }
    if (llm_tokcount_count(tc, s, n, &cnt, why, sizeof(why))) {
        pr_err("%s\n", why);
        return -1;
    }
    printf("%lld\n", (long long)cnt);
    return 0;
}

int cmd_tokenize(int argc, char **argv, const struct lat_opts *opts)
{
    (void)opts;
    struct tok_args a = {0};
    struct cli_spec spec = {"tokenize", usage_text, footer_text, options, on_opt, &a, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    if (!a.file == !a.url) {
        pr_err("give one of --tokenizer FILE or --tokenize-url URL\n");
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    char why[512];
    struct llm_tokenizer *tk = NULL;
    struct llm_tokenize_ep ep;
    struct llm_tokcount tc = {0};
    if (a.file) {
        int rc = llm_tokenizer_load(a.file, &tk, why, sizeof(why));
        if (rc) {
            pr_err("%s\n", why);
            cli_result_fini(&cr);
            return LAT_EXIT_USAGE;
        }
        tc.tk = tk;
    } else {
        int rc = llm_tokenize_ep_open(&ep, a.url, a.api, a.model, NULL, 0, why, sizeof(why));
        if (rc) {
            pr_err("%s\n", why);
            cli_result_fini(&cr);
            return LAT_EXIT_USAGE;
        }
        tc.ep = &ep;
    }
    if ((a.ids || a.pieces) && !tk) {
        pr_err("--ids and --pieces need --tokenizer FILE\n");
        cli_result_fini(&cr);
        if (tc.ep) llm_tokenize_ep_close(&ep);
        return LAT_EXIT_USAGE;
    }
    want_pieces = a.pieces;
    int ret = LAT_EXIT_OK;
    if (cr.npos) {
        for (size_t i = 0; i < cr.npos && ret == LAT_EXIT_OK; i++)
            if (count_one(&tc, cr.pos[i], strlen(cr.pos[i]), a.ids)) ret = LAT_EXIT_FAILURE;
    } else {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        unsigned long lineno = 0;
        struct lat_buf dec = LAT_BUF_INIT;
        while (ret == LAT_EXIT_OK && (n = getline(&line, &cap, stdin)) >= 0) {
            lineno++;
            size_t len = (size_t)n;
            if (len && line[len - 1] == '\n') len--;
            if (a.jsonl) {
                dec.len = 0;
                size_t b = 0, e = len;
                while (b < e && (line[b] == ' ' || line[b] == '\t'))
                    b++;
                while (e > b && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r'))
                    e--;
                if (json_str_decode(line + b, e - b, &dec)) {
                    pr_err("stdin:%lu: not a JSON string (--jsonl: one \"...\" per line)\n",
                           lineno);
                    ret = LAT_EXIT_USAGE;
                    break;
                }
                if (count_one(&tc, dec.data ? dec.data : "", dec.len, a.ids))
                    ret = LAT_EXIT_FAILURE;
            } else if (count_one(&tc, line, len, a.ids)) {
                ret = LAT_EXIT_FAILURE;
            }
        }
        free(line);
        buf_fini(&dec);
    }
    cli_result_fini(&cr);
    if (tc.ep && ep.bos > 0)
        pr_warn("the tokenize endpoint puts %lld token(s) before every count (BOS, id %lld: what "
                "it returns for the empty text); subtracted from the counts above\n",
                (long long)ep.bos, (long long)ep.bos_id);
    if (tk) llm_tokenizer_free(tk);
    if (tc.ep) llm_tokenize_ep_close(&ep);
    return ret;
}
