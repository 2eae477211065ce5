/*
 * benchglue.c - `latscope bench --target openai` on top of the generic engine.
 *
 * The engine knows nothing about LLMs: for this target it asks a per-connection object for each
 * request's bytes and hands it every body chunk with its recv() time; this file maps those calls
 * onto llm_target/llm_conn and maps the engine's error classes onto llm_err. Option handling is
 * here too: llm_bench_take_args() lifts the openai options out of argv before cmd-bench.c parses
 * the rest, so the two option tables never collide (--model means the KServe model otherwise).
 * Threading: callbacks run on worker threads, each with its own connections; the per-thread
 * metrics live in llm_target, merged by llm_bench_point_done() after the workers joined.
 */
#include "llm/benchglue.h"

#include "bench/bench.h"
#include "core/err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char llm_bench_usage[] =
    "OpenAI-compatible LLM servers (--target openai; URL path /v1/completions or\n"
    "/v1/chat/completions, or the server root):\n"
    "  --api chat|completions   endpoint (default: from the URL path, else chat)\n"
    "  --model NAME             \"model\" in every request\n"
    "  --input-tokens N[:SD]    synthetic prompts of about N tokens (no tokenizer, seeded)\n"
    "  --output-tokens N[:SD]   max_tokens (+ min_tokens/ignore_eos unless --no-ignore-eos)\n"
    "  --prompts FILE.jsonl     prompts: {\"prompt\": ...} or {\"messages\": [...]} per line\n"
    "  --extra-body JSON        extra members for every body, e.g. '{\"temperature\":0}'\n"
    "  --api-key-env VAR        send 'Authorization: Bearer $VAR'\n"
    "  --no-stream              non-streaming requests (TTFT = E2E)\n"
    "  --no-usage               do not ask for stream_options.include_usage\n"
    "  --continuous-usage       ask for usage in every chunk (vLLM): exact tokens per chunk\n"
    "  --no-ignore-eos          do not send ignore_eos/min_tokens\n"
    "  --slo LIST               goodput SLOs per request: ttft<=500ms,tpot<=50ms,e2e<=2s\n"
    "  --metrics-compat V       metric definitions: latscope (default), vllm, genai-perf\n";

struct opt {
    const char *name;
    bool arg;
};

static const struct opt opts[] = {
    {"api", true},
    {"model", true},
    {"input-tokens", true},
    {"output-tokens", true},
    {"prompts", true},
    {"extra-body", true},
    {"api-key-env", true},
    {"slo", true},
    {"metrics-compat", true},
    {"no-stream", false},
    {"no-usage", false},
    {"continuous-usage", false},
    {"no-ignore-eos", false},
};

static bool is_openai_target(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--target=openai")) return true;
        if (!strcmp(argv[i], "--target") && i + 1 < argc && !strcmp(argv[i + 1], "openai"))
            return true;
    }
    return false;
}

static int apply(struct llm_bench *b, const char *name, const char *v, char *why, size_t whylen)
{
    struct llm_workload_cfg *wl = &b->tc.wl;
    const char *w = NULL;
    if (!strcmp(name, "api")) {
        if (!strcmp(v, "chat"))
            wl->api = LLM_API_CHAT;
        else if (!strcmp(v, "completions"))
            wl->api = LLM_API_COMPLETIONS;
        else
            w = "expected chat or completions";
        b->api_set = true;
    } else if (!strcmp(name, "model")) {
        wl->model = v;
    } else if (!strcmp(name, "input-tokens")) {
        if (llm_len_parse(v, &wl->input)) w = "expected N or N:stddev, N >= 1 (e.g. 512:64)";
    } else if (!strcmp(name, "output-tokens")) {
        if (llm_len_parse(v, &wl->output)) w = "expected N or N:stddev, N >= 1 (e.g. 128)";
    } else if (!strcmp(name, "prompts")) {
        wl->prompts_path = v;
    } else if (!strcmp(name, "extra-body")) {
        wl->extra_body = v;
    } else if (!strcmp(name, "api-key-env")) {
        b->tc.api_key_env = v;
    } else if (!strcmp(name, "slo")) {
        b->slo_text = v;
        if (llm_slo_parse(v, &b->slo, &w)) {
            snprintf(why, whylen, "--slo %s: %s", v, w);
            return LAT_E_USAGE;
        }
    } else if (!strcmp(name, "metrics-compat")) {
        if (llm_view_parse(v, &b->view)) w = "expected latscope, vllm or genai-perf";
    } else if (!strcmp(name, "no-stream")) {
        wl->stream = false;
    } else if (!strcmp(name, "no-usage")) {
        wl->include_usage = false;
    } else if (!strcmp(name, "continuous-usage")) {
        wl->continuous_usage = true;
    } else if (!strcmp(name, "no-ignore-eos")) {
        wl->ignore_eos = false;
    }
    if (w) {
        snprintf(why, whylen, "--%s %s: %s", name, v, w);
        return LAT_E_USAGE;
    }
    return 0;
}

int llm_bench_take_args(struct llm_bench *b, int *argc, char **argv, char *why, size_t whylen)
{
    memset(b, 0, sizeof(*b));
    b->tc.wl.stream = b->tc.wl.include_usage = b->tc.wl.ignore_eos = true;
    b->tc.wl.api = LLM_API_CHAT;
    b->tc.wl.input.mean = b->tc.wl.output.mean = -1;
    b->view = LLM_VIEW_LATSCOPE;
    why[0] = '\0';
    if (!is_openai_target(*argc, argv)) return 0;
    b->active = true;
    int out = 1;
    bool rest = false;
    for (int i = 1; i < *argc; i++) {
        char *a = argv[i];
        if (rest || strncmp(a, "--", 2) != 0) {
            argv[out++] = a;
            continue;
        }
        if (!strcmp(a, "--")) {
            rest = true;
            argv[out++] = a;
            continue;
        }
        const struct opt *o = NULL;
        const char *val = NULL;
        for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
            size_t n = strlen(opts[k].name);
            if (strncmp(a + 2, opts[k].name, n) != 0) continue;
            if (a[2 + n] == '\0') {
                o = &opts[k];
                break;
            }
            if (a[2 + n] == '=' && opts[k].arg) {
                o = &opts[k];
                val = a + 3 + n;
                break;
            }
        }
        if (!o) {
            argv[out++] = a;
            continue;
        }
        if (o->arg && !val) {
            if (i + 1 >= *argc) {
                snprintf(why, whylen, "--%s needs a value", o->name);
                return LAT_E_USAGE;
            }
            val = argv[++i];
        }
        int rc = apply(b, o->name, val ? val : "", why, whylen);
        if (rc) return rc;
    }
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int llm_bench_setup(struct llm_bench *b, const char *hostport, const char *path,
                    const char *const *headers, size_t nheaders, uint64_t seed, char *why,
                    size_t whylen)
{
    snprintf(b->hostport, sizeof(b->hostport), "%s", hostport);
    snprintf(b->path, sizeof(b->path), "%s", path && *path ? path : "/");
    size_t pl = strcspn(b->path, "?");
    bool chat = pl >= 17 && !strncmp(b->path + pl - 17, "/chat/completions", 17);
    bool compl = !chat && pl >= 12 && !strncmp(b->path + pl - 12, "/completions", 12);
    if (!b->api_set && (chat || compl )) b->tc.wl.api = chat ? LLM_API_CHAT : LLM_API_COMPLETIONS;
    if ((chat && b->tc.wl.api != LLM_API_CHAT) || (compl &&b->tc.wl.api != LLM_API_COMPLETIONS)) {
        snprintf(why, whylen, "--api %s does not match the URL path %s",
                 b->tc.wl.api == LLM_API_CHAT ? "chat" : "completions", b->path);
        return LAT_E_USAGE;
    }
    b->tc.hostport = b->hostport;
    /* A bare server URL gets the API's standard path. */
    b->tc.path = (chat || compl ) ? b->path : NULL;
    if (!chat && !compl &&strcmp(b->path, "/") != 0) b->tc.path = b->path;
    b->tc.headers = headers;
    b->tc.nheaders = nheaders;
    b->tc.wl.seed = seed;
    if (!b->tc.wl.prompts_path && b->tc.wl.input.mean < 1) b->tc.wl.input.mean = 128;
    return llm_target_new(&b->tc, LLM_BENCH_MAX_THREADS, &b->t, why, whylen);
}

void llm_bench_fini(struct llm_bench *b)
{
    llm_target_free(b->t);
    b->t = NULL;
}

void *llm_bench_conn_new(void *ud, unsigned thread)
{
    struct llm_bench *b = ud;
    return llm_conn_new(b->t, thread);
}

void llm_bench_conn_free(void *cs)
{
    llm_conn_free(cs);
}

int llm_bench_build(void *cs, const char **req, size_t *len)
{
    return llm_conn_build(cs, req, len);
}

void llm_bench_begin(void *cs, lat_ns t_sched, lat_ns t_send)
{
    llm_conn_begin(cs, t_sched, t_send);
}

void llm_bench_end(void *cs, int http_status, int bench_err, lat_ns t_end, bool measured)
{
    enum llm_err e = LLM_OK;
    switch (bench_err) {
    case BENCH_ERR_CONNECT:
        e = LLM_ERR_CONNECT;
        break;
    case BENCH_ERR_TIMEOUT:
        e = LLM_ERR_TIMEOUT;
        break;
    case BENCH_ERR_RESET:
        e = LLM_ERR_TRANSPORT;
        break;
    case BENCH_ERR_MALFORMED:
        e = LLM_ERR_MALFORMED;
        break;
    default:
        /* -1 (complete), HTTP 4xx/5xx (the status says it), mismatch: judged by the stream. */
        break;
    }
    llm_conn_end(cs, http_status, e, t_end, measured);
}

int llm_bench_point_done(struct llm_bench *b, struct llm_summary *out)
{
    int rc = llm_target_summarize(b->t, b->view, b->slo.set ? &b->slo : NULL, out);
    llm_target_reset(b->t);
    return rc;
}
