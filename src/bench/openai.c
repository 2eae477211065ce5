/*
 * openai.c - `latscope bench --target openai` on top of the generic engine.
 *
 * The engine knows nothing about LLMs: for this target it asks a per-connection object for each
 * request's bytes and hands it every body chunk with its recv() time; this file maps those calls
 * onto llm_target/llm_conn and maps the engine's error classes onto llm_err. Its options are
 * here too, as the openai group of bench's option table (bench/target.h): cmd-bench.c hands
 * them over only with --target openai (--model means the KServe model otherwise).
 * Threading: callbacks run on worker threads, each with its own connections; the per-thread
 * metrics live in llm_target, merged by llm_bench_point_done() after the workers joined.
 */
#include "bench/openai.h"

#include "bench/bench.h"
#include "bench/sessions.h"
#include "bench/slices.h"
#include "bench/target.h"
#include "core/err.h"
#include "hist/hist.h"
#include "net/fetch.h"
#include "net/http1.h"
#include "stats/search.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum {
    OAI_API = 1,
    OAI_MODEL,
    OAI_INPUT_TOKENS,
    OAI_OUTPUT_TOKENS,
    OAI_PROMPTS,
    OAI_REPLAY,
    OAI_REPLAY_SPEED,
    OAI_EXTRA_BODY,
    OAI_API_KEY_ENV,
    OAI_NO_STREAM,
    OAI_NO_USAGE,
    OAI_CONTINUOUS_USAGE,
    OAI_NO_IGNORE_EOS,
    OAI_SLO,
    OAI_METRICS_COMPAT,
    OAI_RECORDS_DETAIL,
    OAI_METRICS_URL,
    OAI_TOKENIZER,
    OAI_TOKENIZE_URL,
    OAI_TOKENIZE_API,
    OAI_SESSIONS,
    OAI_HISTORY,
    OAI_THINK_TIME,
    OAI_BLOCK_SIZE,
};

static const struct bench_topt oai_opts[] = {
    {NULL, 0, NULL, 0, 0,
     "OpenAI-compatible LLM servers (--target openai; URL path /v1/completions or\n"
     "/v1/chat/completions, or the server root)"},
    {"api", 0, "chat|completions", OAI_API, 0, "endpoint (default: from the URL path, else chat)"},
    {"model", 0, "NAME", OAI_MODEL, 0, "\"model\" in every request"},
    {"input-tokens", 0, "N[:SD]", OAI_INPUT_TOKENS, 0,
     "synthetic prompts of about N tokens (no tokenizer, seeded)"},
    {"output-tokens", 0, "N[:SD]", OAI_OUTPUT_TOKENS, 0,
     "max_tokens (+ min_tokens/ignore_eos unless --no-ignore-eos)"},
    {"prompts", 0, "FILE.jsonl", OAI_PROMPTS, 0,
     "prompts: {\"prompt\": ...} or {\"messages\": [...]} per line"},
    {"replay", 0, "FILE.jsonl|FILE.csv", OAI_REPLAY, 0,
     "FILE.jsonl: send each line's request at its time (open\n"
     "loop, one point): {\"timestamp\": ms, \"input_length\": N |\n"
     "\"prompt\": ... | \"messages\": [...], \"output_length\": N};\n"
     "FILE.csv: an Azure LLM inference trace (AzurePublicDataset):\n"
     "TIMESTAMP,ContextTokens,GeneratedTokens; -n N: first N rows"},
    {"replay-speed", 0, "F", OAI_REPLAY_SPEED, 0, "replay F times faster (default 1)"},
    {"block-size", 0, "N", OAI_BLOCK_SIZE, 0,
     "--replay lines with \"hash_ids\" (Mooncake): N tokens per hash\n"
     "id, equal ids give identical prompt blocks (default 512)"},
    {"sessions", 0, "FILE.jsonl", OAI_SESSIONS, 0,
     "multi-turn conversations, one per line: ShareGPT\n"
     "{\"conversations\": [{\"from\": \"human\", \"value\": ...}, ...]} or\n"
     "AIPerf {\"session_id\": .., \"turns\": [{\"text\": .., \"delay\": ms}]};\n"
     "-c N users each send whole sessions, turn k carrying the history"},
    {"history", 0, "server|dataset", OAI_HISTORY, 0,
     "--sessions: earlier replies as the server streamed them\n"
     "(default) or the dataset's gpt messages"},
    {"think-time", 0, "D[:SD]", OAI_THINK_TIME, 0,
     "--sessions: pause between turns (seeded normal; default 0;\n"
     "a turn's \"delay\" wins)"},
    {"extra-body", 0, "JSON", OAI_EXTRA_BODY, 0,
     "extra members for every body, e.g. '{\"temperature\":0}'"},
    {"api-key-env", 0, "VAR", OAI_API_KEY_ENV, 0, "send 'Authorization: Bearer $VAR'"},
    {"no-stream", 0, NULL, OAI_NO_STREAM, 0, "non-streaming requests (TTFT = E2E)"},
    {"no-usage", 0, NULL, OAI_NO_USAGE, 0, "do not ask for stream_options.include_usage"},
    {"continuous-usage", 0, NULL, OAI_CONTINUOUS_USAGE, 0,
     "ask for usage in every chunk (vLLM): exact tokens per chunk"},
    {"no-ignore-eos", 0, NULL, OAI_NO_IGNORE_EOS, 0, "do not send ignore_eos/min_tokens"},
    {"slo", 0, "LIST", OAI_SLO, 0,
     "goodput SLOs per request: ttft<=500ms,tpot<=50ms,e2e<=2s\n"
     "(an SLO without these keys, e.g. p99<=200ms, is the bench's)"},
    {"metrics-compat", 0, "V", OAI_METRICS_COMPAT, 0,
     "metric definitions: latscope (default), vllm, genai-perf,\n"
     "aiperf (0.13: TTFT at the first non-empty content)"},
    {"tokenizer", 0, "FILE", OAI_TOKENIZER, 0,
     "exact ISL/OSL with a Hugging Face tokenizer.json (byte-level\n"
     "BPE): --input-tokens N prompts are N tokens, outputs without\n"
     "usage are counted after each point"},
    {"tokenize-url", 0, "URL|auto", OAI_TOKENIZE_URL, 0,
     "the same with the server's tokenize endpoint (llama.cpp,\n"
     "vLLM/SGLang, TGI; auto: SCHEME://HOST:PORT/tokenize)"},
    {"tokenize-api", 0, "A", OAI_TOKENIZE_API, 0,
     "auto (probe, default), llamacpp, vllm, tgi or llama-cpp-python"},
    {"records-detail", 0, "FILE", OAI_RECORDS_DETAIL, 0,
     "one JSON line per request with every content chunk's arrival"},
    {"metrics-url", 0, "URL", OAI_METRICS_URL, 0,
     "scrape the server's Prometheus metrics before, every second\n"
     "during, and after each point (running/waiting requests,\n"
     "KV-cache usage, preemptions, prefix-cache hits; else raw deltas)"},
    {0},
};

static int metrics_start(struct llm_bench *b, char *why, size_t whylen);
static void write_record(struct llm_bench *b, struct llm_conn *c);
static int write_hlog(struct llm_bench *b);
static void metrics_point(struct llm_bench *b, struct llm_srv *srv);
static void count_outputs(struct llm_bench *b);

void llm_bench_init(struct llm_bench *b)
{
    memset(b, 0, sizeof(*b));
    b->tc.wl.stream = b->tc.wl.include_usage = b->tc.wl.ignore_eos = true;
    b->tc.wl.api = LLM_API_CHAT;
    b->tc.wl.input.mean = b->tc.wl.output.mean = -1;
    b->view = LLM_VIEW_LATSCOPE;
}

static bool is_llm_slo(const char *v)
{
    return strstr(v, "ttft") || strstr(v, "tpot") || strstr(v, "itl") || strstr(v, "e2e");
}

static const char *opt_name(int id)
{
    for (const struct bench_topt *o = oai_opts; o->lname || o->help; o++)
        if (o->lname && o->id == id) return o->lname;
    return "?";
}

int llm_bench_opt(struct llm_bench *b, int id, const char *v, char *why, size_t whylen)
{
    struct llm_workload_cfg *wl = &b->tc.wl;
    const char *w = NULL;
    if (id == BENCH_TOPT_SLO || id == OAI_SLO) {
        /* --slo is shared: per-request LLM keys are ours (goodput); anything else, such as
         * 'p99<=200ms', stays for the bench's own latency SLO. */
        if (!is_llm_slo(v)) return 1;
        /* A percentile SLO on an LLM metric ('ttft.p99<=500ms', stats/search.h) is the
         * bench's too: --find-max and the point verdicts judge it on this target's summary. */
        struct llm_slo tmp;
        const char *w1 = NULL, *w2 = NULL;
        struct slo sq;
        if (llm_slo_parse(v, &tmp, &w1) != 0 && slo_parse(v, &sq, &w2) == 0) return 1;
        b->slo_text = v;
        if (llm_slo_parse(v, &b->slo, &w)) {
            snprintf(why, whylen, "--slo %s: %s", v, w);
            return LAT_E_USAGE;
        }
        return 0;
    }
    switch (id) {
    case OAI_API:
        if (!strcmp(v, "chat"))
            wl->api = LLM_API_CHAT;
        else if (!strcmp(v, "completions"))
            wl->api = LLM_API_COMPLETIONS;
        else
            w = "expected chat or completions";
        b->api_set = true;
        break;
    case OAI_MODEL:
        wl->model = v;
        break;
    case OAI_INPUT_TOKENS:
        if (llm_len_parse(v, &wl->input)) w = "expected N or N:stddev, N >= 1 (e.g. 512:64)";
        break;
    case OAI_OUTPUT_TOKENS:
        if (llm_len_parse(v, &wl->output)) w = "expected N or N:stddev, N >= 1 (e.g. 128)";
        break;
    case OAI_PROMPTS:
        wl->prompts_path = v;
        break;
    case OAI_REPLAY:
        b->replay_path = v;
        break;
    case OAI_REPLAY_SPEED: {
        char *e;
        double f = strtod(v, &e);
        if (e == v || *e || !(f > 0 && f <= 1e6)) w = "expected a factor > 0, e.g. 2 or 0.5";
        b->replay_speed = f;
        break;
    }
    case OAI_EXTRA_BODY:
        wl->extra_body = v;
        break;
    case OAI_API_KEY_ENV:
        b->tc.api_key_env = v;
        break;
    case OAI_METRICS_COMPAT:
        if (llm_view_parse(v, &b->view)) w = "expected latscope, vllm, genai-perf or aiperf";
        break;
    case OAI_NO_STREAM:
        wl->stream = false;
        break;
    case OAI_NO_USAGE:
        wl->include_usage = false;
        break;
    case OAI_CONTINUOUS_USAGE:
        wl->continuous_usage = true;
        break;
    case OAI_RECORDS_DETAIL:
        b->records_path = v;
        break;
    case OAI_METRICS_URL:
        b->metrics_url = v;
        break;
    case OAI_NO_IGNORE_EOS:
        wl->ignore_eos = false;
        break;
    case OAI_TOKENIZER:
        b->tokenizer_path = v;
        break;
    case OAI_TOKENIZE_URL:
        b->tokenize_url = v;
        break;
    case OAI_TOKENIZE_API:
        if (llm_tokapi_parse(v, &b->tokapi))
            w = "expected auto, llamacpp, vllm or tgi (or llama-cpp-python)";
        break;
    case OAI_SESSIONS:
    case OAI_HISTORY:
    case OAI_THINK_TIME:
        if (!b->sess) {
            b->sess = calloc(1, sizeof(*b->sess));
            if (!b->sess) {
                snprintf(why, whylen, "out of memory");
                return -ENOMEM;
            }
            b->sess->think_ns = -1;
        }
        if (id == OAI_SESSIONS)
            b->sess->path = v;
        else if (id == OAI_HISTORY && bench_sess_parse_history(v, &b->sess->history))
            w = "expected server or dataset";
        else if (id == OAI_THINK_TIME &&
                 bench_sess_parse_think(v, &b->sess->think_ns, &b->sess->think_sd_ns))
            w = "expected a duration D or D:SD (e.g. 500ms:100ms; bare numbers are ms)";
        break;
    case OAI_BLOCK_SIZE: {
        char *e;
        long n = strtol(v, &e, 10);
        if (e == v || *e || n < 1 || n > 1000000) w = "expected tokens per block, 1..1000000";
        b->block_size = (int32_t)n;
        break;
    }
    default:
        return 1;
    }
    if (w) {
        snprintf(why, whylen, "--%s %s: %s", opt_name(id), v, w);
        return LAT_E_USAGE;
    }
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
    if (b->replay_path) {
        int lrc = llm_replay_load_capped(&b->replay, b->replay_path, b->replay_limit, b->max_input,
                                         why, whylen);
        if (lrc) return lrc;
        if (b->replay_speed > 0)
            for (size_t i = 0; i < b->replay.n; i++)
                b->replay.offsets[i] = (lat_ns)((double)b->replay.offsets[i] / b->replay_speed);
        b->tc.wl.replay = &b->replay;
        b->replay.block_size = b->block_size;
    }
    if (b->sess) {
        if (!b->sess->path) {
            snprintf(why, whylen, "--history and --think-time need --sessions FILE.jsonl");
            return LAT_E_USAGE;
        }
        if (b->replay_path || b->tc.wl.prompts_path) {
            snprintf(why, whylen, "--sessions gives the prompts; drop %s",
                     b->replay_path ? "--replay" : "--prompts");
            return LAT_E_USAGE;
        }
        if (b->tc.wl.api != LLM_API_CHAT) {
            snprintf(why, whylen,
                     "--sessions sends chat messages with their history: use --api chat "
                     "(a /v1/chat/completions URL)");
            return LAT_E_USAGE;
        }
        b->sess->seed = seed;
        int src = bench_sess_load(b->sess, b->max_input, why, whylen);
        if (src) return src;
    }
    b->tc.wl.max_input_bytes = b->max_input;
    if (b->tokenizer_path && b->tokenize_url) {
        snprintf(why, whylen, "--tokenizer and --tokenize-url both count tokens; choose one");
        return LAT_E_USAGE;
    }
    if (b->tokenizer_path) {
        int trc = llm_tokenizer_load(b->tokenizer_path, &b->tk, why, whylen);
        if (trc) return trc < 0 && trc > -4096 ? trc : LAT_E_USAGE;
        b->tokc.tk = b->tk;
        b->tc.wl.counter = &b->tokc;
    } else if (b->tokenize_url) {
        const char *u = b->tokenize_url;
        if (!strcmp(u, "auto")) {
            snprintf(b->tok_url, sizeof(b->tok_url), "%s://%s/tokenize", b->tls ? "https" : "http",
                     b->hostport);
            u = b->tok_url;
        }
        int trc = llm_tokenize_ep_open(&b->ep, u, b->tokapi, b->tc.wl.model, headers, nheaders, why,
                                       whylen);
        if (trc) return trc;
        b->ep_ok = true;
        b->tokc.ep = &b->ep;
        b->tc.wl.counter = &b->tokc;
    }
    int rc = llm_target_new(&b->tc, LLM_BENCH_MAX_THREADS, &b->t, why, whylen);
    if (rc) return rc;
    b->t0 = clock_now_ns();
    if (b->records_path) {
        b->records = fopen(b->records_path, "w");
        if (!b->records) {
            int e = errno;
            snprintf(why, whylen, "--records-detail %s: %s", b->records_path, strerror(e));
            return -e;
        }
        pthread_mutex_init(&b->rlock, NULL);
    }
    return b->metrics_url ? metrics_start(b, why, whylen) : 0;
}

void llm_bench_fini(struct llm_bench *b)
{
    if (b->mth_started) {
        b->mstop = 1;
        pthread_join(b->mth, NULL);
        pthread_mutex_destroy(&b->mlock);
        b->mth_started = false;
    }
    if (b->records) {
        if (fclose(b->records) != 0 && !b->records_err) b->records_err = errno ? -errno : -EIO;
        b->records = NULL;
        pthread_mutex_destroy(&b->rlock);
    }
    if (b->mconn_ok) conn_target_fini(&b->mconn);
    b->mconn_ok = false;
    buf_fini(&b->mreq);
    prom_set_fini(&b->before);
    llm_target_free(b->t);
    b->t = NULL;
    llm_tokenizer_free(b->tk);
    b->tk = NULL;
    if (b->ep_ok) llm_tokenize_ep_close(&b->ep);
    b->ep_ok = false;
    llm_replay_fini(&b->replay);
    if (b->sess) {
        bench_sess_fini(b->sess);
        free(b->sess);
        b->sess = NULL;
    }
    if (b->ivl_on) {
        hist_fini(&b->ivl_ttft);
        hist_fini(&b->ivl_tpot);
        pthread_mutex_destroy(&b->ivl_lock);
        b->ivl_on = false;
    }
    if (b->live_on) {
        hist_fini(&b->live_ttft);
        pthread_mutex_destroy(&b->live_lock);
        b->live_on = false;
    }
}

/* ---- --confidence on LLM terms: per-request TTFT/TPOT for the early-stopping test ---- */

void llm_bench_req_values(const struct llm_record *r, enum llm_view v, lat_ns *ttft, lat_ns *tpot)
{
    *ttft = *tpot = -1;
    if (r->err != LLM_OK) return;
    enum llm_tok_src src;
    int64_t n = llm_record_tokens(r, &src);
    lat_ns first, e2e;
    switch (v) {
    case LLM_VIEW_VLLM: /* mirrors llm/metrics.c view_values() */
        if (r->t_first_choice >= 0) *ttft = r->t_first_choice - r->t_send;
        e2e = (r->t_last_choice >= 0 ? r->t_last_choice : r->t_end) - r->t_send;
        if (*ttft >= 0 && n > 1 && r->n_choice > 0) *tpot = (e2e - *ttft) / (n - 1);
        break;
    case LLM_VIEW_GENAI_PERF:
    case LLM_VIEW_AIPERF:
        if (v == LLM_VIEW_AIPERF) {
            if (r->t_first >= 0) *ttft = r->t_first - r->t_send;
        } else if (r->t_first_event >= 0) {
            *ttft = r->t_first_event - r->t_send;
        }
        e2e = (r->t_last_event >= 0 ? r->t_last_event : r->t_end) - r->t_send;
        if (*ttft >= 0 && n > 1 && r->n_choice > 0) *tpot = (e2e - *ttft) / (n - 1);
        break;
    default:
        first = r->t_first;
        if (first >= 0) *ttft = first - r->t_sched;
        if (first >= 0 && r->t_last >= 0 && n >= 2 && r->n_content >= 2)
            *tpot = (r->t_last - first) / (n - 1);
        break;
    }
}

int llm_bench_ivl_enable(struct llm_bench *b)
{
    if (b->ivl_on) return 0;
    if (hist_init_default(&b->ivl_ttft) < 0) return -ENOMEM;
    if (hist_init_default(&b->ivl_tpot) < 0) {
        hist_fini(&b->ivl_ttft);
        return -ENOMEM;
    }
    pthread_mutex_init(&b->ivl_lock, NULL);
    b->ivl_on = true;
    return 0;
}

void llm_bench_ivl_take(struct llm_bench *b, struct lat_hist *ttft, struct lat_hist *tpot)
{
    if (!b->ivl_on) return;
    pthread_mutex_lock(&b->ivl_lock);
    hist_add(ttft, &b->ivl_ttft);
    hist_add(tpot, &b->ivl_tpot);
    hist_reset(&b->ivl_ttft);
    hist_reset(&b->ivl_tpot);
    pthread_mutex_unlock(&b->ivl_lock);
}

static void ivl_record(struct llm_bench *b, const struct llm_record *r)
{
    lat_ns ttft, tpot;
    llm_bench_req_values(r, b->view, &ttft, &tpot);
    if (ttft < 0 && tpot < 0) return;
    pthread_mutex_lock(&b->ivl_lock);
    if (ttft >= 0) hist_record(&b->ivl_ttft, ttft);
    if (tpot >= 0) hist_record(&b->ivl_tpot, tpot);
    pthread_mutex_unlock(&b->ivl_lock);
}

/* ---- the live view ---- */

int llm_bench_live_enable(struct llm_bench *b)
{
    if (b->live_on) return 0;
    if (hist_init_default(&b->live_ttft) < 0) return -ENOMEM;
    pthread_mutex_init(&b->live_lock, NULL);
    b->live_tokens = 0;
    b->live_on = true;
    return 0;
}

uint64_t llm_bench_live_take(struct llm_bench *b, struct lat_hist *ttft)
{
    if (!b->live_on) return 0;
    pthread_mutex_lock(&b->live_lock);
    hist_add(ttft, &b->live_ttft);
    hist_reset(&b->live_ttft);
    uint64_t n = b->live_tokens;
    b->live_tokens = 0;
    pthread_mutex_unlock(&b->live_lock);
    return n;
}

static void live_record(struct llm_bench *b, const struct llm_record *r)
{
    lat_ns ttft, tpot;
    llm_bench_req_values(r, b->view, &ttft, &tpot);
    if (ttft < 0) return; /* failed, or no content */
    enum llm_tok_src src;
    int64_t n = llm_record_tokens(r, &src);
    pthread_mutex_lock(&b->live_lock);
    hist_record(&b->live_ttft, ttft);
    if (n > 0) b->live_tokens += (uint64_t)n;
    pthread_mutex_unlock(&b->live_lock);
}

/* ---- --metrics-url (the scrape itself: scrape.c) ---- */

static int cmp_key(const void *x, const void *y)
{
    return strcmp(((const struct prom_sample *)x)->key, ((const struct prom_sample *)y)->key);
}

/* Which known series this server has: the first name of each entry present in set. */
static const char *known_name(const struct prom_known *k, const struct prom_set *set)
{
    double v;
    for (int i = 0; i < 4; i++)
        if (k->names[i] && prom_get(set, k->names[i], &v)) return k->names[i];
    return NULL;
}

static void *metrics_main(void *arg)
{
    struct llm_bench *b = arg;
    lat_ns next = clock_now_ns() + LAT_NS_PER_S;
    while (!b->mstop) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (clock_now_ns() < next) continue;
        next += LAT_NS_PER_S;
        struct prom_set cur = {0};
        int rc = llm_bench_scrape(&b->mconn, b->mreq.data, b->mreq.len, &cur);
        pthread_mutex_lock(&b->mlock);
        if (rc) {
            b->scrape_errors++;
        } else {
            b->scrapes++;
            size_t k = 0;
            for (size_t i = 0; i < prom_known_count && k < LLM_SRV_MAX; i++, k++) {
                const char *nm =
                    prom_known_series[i].counter ? NULL : known_name(&prom_known_series[i], &cur);
                double v;
                if (nm && prom_get(&cur, nm, &v)) {
                    b->gsum[k] += v;
                    if (b->gn[k] == 0 || v > b->gmax[k]) b->gmax[k] = v;
                    b->gn[k]++;
                }
            }
        }
        pthread_mutex_unlock(&b->mlock);
        prom_set_fini(&cur);
    }
    return NULL;
}

static int metrics_start(struct llm_bench *b, char *why, size_t whylen)
{
    struct http1_url u;
    const char *w = NULL;
    if (http1_url_parse(b->metrics_url, &u, &w) < 0) {
        snprintf(why, whylen, "--metrics-url %s: %s", b->metrics_url, w ? w : "bad URL");
        return LAT_E_USAGE;
    }
    int rc = conn_target_init(&b->mconn, u.host, u.port, u.tls, true);
    if (rc < 0) {
        snprintf(why, whylen, "--metrics-url %s: cannot resolve %s", b->metrics_url, u.host);
        return rc;
    }
    b->mconn_ok = true;
    rc = http1_build_request(&b->mreq, "GET", u.hostport, u.path, NULL, 0, NULL, 0);
    if (rc) return rc;
    int status = 0;
    rc = llm_bench_scrape_status(&b->mconn, b->mreq.data, b->mreq.len, &b->before, &status);
    if (rc) {
        char what[64];
        if (status && (status < 200 || status >= 300))
            snprintf(what, sizeof(what), "the server answered HTTP %d", status);
        else
            snprintf(what, sizeof(what), "%s",
                     rc == LAT_E_USAGE ? "malformed exposition" : lat_strerror(rc));
        snprintf(why, whylen,
                 "--metrics-url %s: %s (expected a Prometheus text exposition, e.g. "
                 "http://HOST:PORT/metrics)",
                 b->metrics_url, what);
        return LAT_E_USAGE;
    }
    pthread_mutex_init(&b->mlock, NULL);
    if (pthread_create(&b->mth, NULL, metrics_main, b) != 0) {
        pthread_mutex_destroy(&b->mlock);
        snprintf(why, whylen, "--metrics-url: cannot start the scraper thread");
        return -EAGAIN;
    }
    b->mth_started = true;
    return 0;
}

/* Closes the current point's server view: the final scrape is the next point's "before". */
static void metrics_point(struct llm_bench *b, struct llm_srv *srv)
{
    struct prom_set after = {0};
    int rc = llm_bench_scrape(&b->mconn, b->mreq.data, b->mreq.len, &after);
    pthread_mutex_lock(&b->mlock);
    memset(srv, 0, sizeof(*srv));
    srv->have = true;
    srv->scrapes = b->scrapes + (rc == 0);
    srv->scrape_errors = b->scrape_errors + (rc != 0);
    const struct prom_set *end = rc == 0 ? &after : &b->before;
    size_t k = 0;
    for (size_t i = 0; i < prom_known_count && k < LLM_SRV_MAX; i++, k++) {
        const struct prom_known *kn = &prom_known_series[i];
        const char *nm = known_name(kn, end);
        if (!nm) continue;
        struct llm_srv_series *x = &srv->s[srv->n++];
        x->label = kn->label;
        snprintf(x->metric, sizeof(x->metric), "%s", nm);
        x->counter = kn->counter;
        double v0 = 0, v1 = 0;
        prom_get(end, nm, &v1);
        if (kn->counter) {
            prom_get(&b->before, nm, &v0);
            x->delta = v1 - v0;
        } else if (b->gn[k]) {
            x->mean = b->gsum[k] / (double)b->gn[k];
            x->max = b->gmax[k] > v1 ? b->gmax[k] : v1;
        } else {
            x->mean = x->max = v1;
        }
    }
    if (srv->n == 0) {
        /* An unknown server: the raw deltas of every counter and gauge that moved. */
        for (size_t i = 0; i < end->n; i++) {
            const struct prom_sample *a = &end->s[i];
            if (a->type != PROM_COUNTER && a->type != PROM_GAUGE) continue;
            double v0 = 0; /* exact series (prom_get sums label sets for bare names) */
            const struct prom_sample *bs =
                b->before.n ? bsearch(a, b->before.s, b->before.n, sizeof(*a), cmp_key) : NULL;
            if (bs) v0 = bs->value;
            if (a->value == v0) continue;
            if (srv->nraw == LLM_SRV_RAW_MAX) {
                srv->raw_more++;
                continue;
            }
            struct llm_srv_raw *r = &srv->raw[srv->nraw++];
            snprintf(r->key, sizeof(r->key), "%s", a->key);
            r->before = v0;
            r->after = a->value;
        }
    }
    memset(b->gsum, 0, sizeof(b->gsum));
    memset(b->gmax, 0, sizeof(b->gmax));
    memset(b->gn, 0, sizeof(b->gn));
    b->scrapes = b->scrape_errors = 0;
    if (rc == 0) {
        prom_set_fini(&b->before);
        b->before = after;
    } else {
        prom_set_fini(&after);
    }
    pthread_mutex_unlock(&b->mlock);
}

/* ---- --hdr-log ---- */

enum { H_TTFT, H_TTFT_SEND, H_E2E, H_E2E_SEND, H_TPOT, H_ITL, H_GAP, H__N };
static const char *const hlog_tags[H__N] = {"ttft.sched", "ttft.send", "e2e.sched", "e2e.send",
                                            "tpot",       "itl",       "chunk_gap"};

const char *const llm_bench_hist_names[LLM_BENCH_NHIST] = {
    "ttft", "ttft_send", "e2e", "e2e_send", "tpot", "itl", "chunk_gap"};

/* This point's LLM metrics as histograms (latscope definitions), and its time span. */
static int fill_hists(struct llm_bench *b, struct lat_hist *h, lat_ns *tmin, lat_ns *tmax)
{
    memset(h, 0, H__N * sizeof(*h));
    int rc = 0;
    for (int i = 0; i < H__N && !rc; i++)
        rc = hist_init_default(&h[i]);
    lat_ns t_min = INT64_MAX, t_max = INT64_MIN;
    for (unsigned t = 0; t < b->t->nthreads && !rc; t++) {
        const struct llm_metrics *m = &b->t->metrics[t];
        for (size_t i = 0; i < m->n; i++) {
            const struct llm_rsum *r = &m->r[i];
            if (r->t_sched < t_min) t_min = r->t_sched;
            if (r->t_end > t_max) t_max = r->t_end;
            if (r->err != LLM_OK) continue;
            if (r->t_first >= 0) {
                hist_record(&h[H_TTFT], r->t_first - r->t_sched);
                hist_record(&h[H_TTFT_SEND], r->t_first - r->t_send);
            }
            hist_record(&h[H_E2E], r->t_end - r->t_sched);
            hist_record(&h[H_E2E_SEND], r->t_end - r->t_send);
            if (r->n >= 2 && r->n_content >= 2 && r->t_first >= 0 && r->t_last >= 0) {
                lat_ns tpot = (r->t_last - r->t_first) / (r->n - 1);
                hist_record(&h[H_TPOT], tpot);
                hist_record_n(&h[H_ITL], tpot, (uint64_t)(r->n - 1));
            }
        }
        for (size_t i = 0; i < m->content_gaps.n; i++)
            hist_record(&h[H_GAP], m->content_gaps.v[i]);
    }
    if (rc)
        for (int i = 0; i < H__N; i++)
            hist_fini(&h[i]);
    *tmin = t_min;
    *tmax = t_max;
    return rc;
}

int llm_bench_point_hists(struct llm_bench *b, struct lat_hist *h)
{
    count_outputs(b);
    if (b->view != LLM_VIEW_LATSCOPE) return LAT_E_UNSUPPORTED;
    lat_ns t0, t1;
    return fill_hists(b, h, &t0, &t1);
}

/* One interval per LLM metric over this point's successful requests (latscope definitions). */
static int write_hlog(struct llm_bench *b)
{
    struct lat_hist h[H__N];
    lat_ns t_min, t_max;
    int rc = fill_hists(b, h, &t_min, &t_max);
    if (rc) return rc;
    if (t_max > t_min) {
        double start = (double)(t_min - b->hlog_base) / 1e9, len = (double)(t_max - t_min) / 1e9;
        for (int i = 0; i < H__N && !rc; i++)
            rc = hlog_writer_interval(b->hlog, hlog_tags[i], start < 0 ? 0 : start, len, &h[i]);
    }
    for (int i = 0; i < H__N; i++)
        hist_fini(&h[i]);
    return rc;
}

/* ---- --records-detail ---- */

static void put_ms(struct lat_buf *l, const char *key, lat_ns v, bool have)
{
    if (have)
        buf_printf(l, ",\"%s\":%.6f", key, (double)v / 1e6);
    else
        buf_printf(l, ",\"%s\":null", key);
}

/* ",%.6f" of ns / 1e6 (the same text), without floating point: the chunk list is most of a
 * record's cost and records are written by the event loop, so a cheap one perturbs less. */
static void put_ms6(struct lat_buf *l, lat_ns ns, bool comma)
{
    char t[32], *p = t + sizeof(t);
    uint64_t u = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    for (int i = 0; i < 6; i++, u /= 10)
        *--p = (char)('0' + u % 10);
    *--p = '.';
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (ns < 0) *--p = '-';
    if (comma) *--p = ',';
    buf_append(l, p, (size_t)(t + sizeof(t) - p));
}

/* One JSON line per measured request (worker thread; the line is built in the connection's
 * own buffer, only the write is serialized). Times in ns from the run's start, durations in
 * ms from the intended send. */
static void write_record(struct llm_bench *b, struct llm_conn *c)
{
    const struct llm_record *r = &c->s.rec;
    struct lat_buf *l = &c->line;
    enum llm_tok_src src;
    int64_t n = llm_record_tokens(r, &src);
    buf_reset(l);
    buf_printf(l, "{\"point\":%u,\"thread\":%u,\"t_sched_ns\":%lld", b->point, c->thread,
               (long long)(r->t_sched - b->t0));
    if (r->t_send >= 0) /* never sent (connect failure): null */
        buf_printf(l, ",\"t_send_ns\":%lld", (long long)(r->t_send - b->t0));
    else
        buf_puts(l, ",\"t_send_ns\":null");
    put_ms(l, "ttft_ms", r->t_first - r->t_sched, r->t_first >= 0);
    put_ms(l, "e2e_ms", r->t_end - r->t_sched, r->t_end >= 0);
    put_ms(l, "tpot_ms", n >= 2 ? (r->t_last - r->t_first) / (n - 1) : 0,
           n >= 2 && r->n_content >= 2 && r->t_first >= 0 && r->t_last >= 0);
    buf_printf(l, ",\"output_tokens\":%lld,\"tokens_source\":\"%s\",\"requested_tokens\":",
               (long long)n, llm_tok_src_name(src));
    if (r->requested_tokens >= 0)
        buf_printf(l, "%d", (int)r->requested_tokens);
    else
        buf_puts(l, "null");
    buf_printf(l, ",\"status\":%d,\"error\":", r->http_status);
    if (r->err == LLM_OK)
        buf_puts(l, "null");
    else
        buf_printf(l, "\"%s\"", llm_err_name(r->err));
    buf_puts(l, ",\"chunks_ms\":[");
    for (uint32_t i = 0; r->content_ts && i < r->n_content; i++)
        put_ms6(l, r->content_ts[i] - r->t_sched, i > 0);
    buf_puts(l, "],\"chunk_tokens\":");
    if (r->chunk_usage_every && r->content_tok && r->n_content) {
        buf_putc(l, '[');
        for (uint32_t i = 0; i < r->n_content; i++)
            buf_printf(l, "%s%d", i ? "," : "", (int)r->content_tok[i]);
        buf_putc(l, ']');
    } else {
        buf_puts(l, "null");
    }
    /* The server's response id and the run's CLOCK_MONOTONIC origin pair a record with the
     * server's own log (e.g. the fixture's --send-log, perf/llm-itl-pair.py). */
    size_t idl;
    const char *id = llm_stream_resp_id(&c->s, &idl);
    if (idl)
        buf_printf(l, ",\"id\":\"%.*s\"", (int)idl, id);
    else
        buf_puts(l, ",\"id\":null");
    buf_printf(l, ",\"t0_mono_ns\":%lld", (long long)b->t0);
    if (buf_puts(l, "}\n") != 0) return; /* out of memory: this line is lost */
    pthread_mutex_lock(&b->rlock);
    if (fwrite(l->data, 1, l->len, b->records) != l->len && !b->records_err)
        b->records_err = errno ? -errno : -EIO;
    pthread_mutex_unlock(&b->rlock);
}

void *llm_bench_conn_new(void *ud, unsigned thread)
{
    struct llm_bench *b = ud;
    struct llm_conn *c = llm_conn_new(b->t, thread);
    if (c) c->owner = b;
    if (c && b->sess && bench_sess_user_new(c) != 0) {
        llm_conn_free(c);
        return NULL;
    }
    return c;
}

void llm_bench_conn_free(void *cs)
{
    bench_sess_user_free(cs);
    llm_conn_free(cs);
}

int llm_bench_build(void *cs, const char **req, size_t *len)
{
    struct llm_conn *c = cs;
    struct llm_bench *b = c->owner;
    if (b && b->sess) return bench_sess_build(b->sess, c, req, len);
    return llm_conn_build(cs, req, len);
}

static lat_ns llm_bench_think(void *cs)
{
    struct llm_conn *c = cs;
    struct llm_bench *b = c->owner;
    return b && b->sess ? bench_sess_think(b->sess, c) : 0;
}

void llm_bench_seq(void *cs, uint64_t k)
{
    struct llm_conn *c = cs;
    c->seq1 = k + 1;
}

void llm_bench_begin(void *cs, lat_ns t_sched, lat_ns t_send)
{
    llm_conn_begin(cs, t_sched, t_send);
    struct llm_conn *c = cs;
    struct llm_bench *b = c->owner;
    if (b && b->sess) bench_sess_begin(b->sess, c, t_sched);
}

int llm_bench_end(void *cs, int http_status, int bench_err, lat_ns t_end, bool measured)
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
    case BENCH_ERR_CLIENT_FD:
        e = LLM_ERR_CONNECT; /* never sent */
        break;
    default:
        /* -1 (complete), HTTP 4xx/5xx (the status says it), mismatch: judged by the stream. */
        break;
    }
    llm_conn_end(cs, http_status, e, t_end, measured);
    struct llm_conn *c = cs;
    struct llm_bench *b = c->owner;
    if (measured && b && b->records) write_record(b, c);
    if (measured && b && b->ivl_on) ivl_record(b, &c->s.rec);
    if (b && b->sess) bench_sess_end(b->sess, c, measured);
    if (measured && b && b->live_on) live_record(b, &c->s.rec);
    /* A truncated stream is that whatever the transport did after it (llama-cpp-python
     * closes without the terminating chunk): both views count it as truncated. */
    if (c->s.rec.err == LLM_ERR_TRUNCATED) return BENCH_ERR_TRUNCATED;
    if (bench_err >= 0) return bench_err;
    /* The HTTP exchange completed: the stream's own verdict decides, so the engine's totals
     * count every request this target counts as failed. */
    switch (c->s.rec.err) {
    case LLM_OK:
        return -1;
    case LLM_ERR_CONNECT:
        return BENCH_ERR_CONNECT;
    case LLM_ERR_TIMEOUT:
        return BENCH_ERR_TIMEOUT;
    case LLM_ERR_HTTP:
        return http_status >= 500 ? BENCH_ERR_HTTP_5XX : BENCH_ERR_HTTP_4XX;
    case LLM_ERR_MALFORMED:
        return BENCH_ERR_MALFORMED;
    case LLM_ERR_TRANSPORT:
        return BENCH_ERR_RESET;
    default: /* error event, cut stream */
        return BENCH_ERR_STREAM;
    }
}

uint64_t llm_bench_progress(void *cs, lat_ns *t_first)
{
    const struct llm_record *r = &((struct llm_conn *)cs)->s.rec;
    if (t_first) *t_first = r->n_content ? r->t_first : 0;
    return r->n_token_events > r->n_content ? r->n_token_events : r->n_content;
}

/* --tokenizer/--tokenize-url: the point's outputs without usage, counted once. */
static void count_outputs(struct llm_bench *b)
{
    if (b->counted || !b->tc.wl.counter) return;
    b->counted = true;
    uint64_t n;
    char why[200];
    if (llm_target_count_outputs(b->t, &n, why, sizeof(why)) && !b->tok_err[0])
        snprintf(b->tok_err, sizeof(b->tok_err), "%s", why);
}

int llm_bench_point_done(struct llm_bench *b, struct llm_summary *out)
{
    count_outputs(b);
    if (b->hlog && !b->hlog_err) b->hlog_err = write_hlog(b);
    b->point++;
    if (b->records) {
        pthread_mutex_lock(&b->rlock);
        if (fflush(b->records) != 0 && !b->records_err) b->records_err = errno ? -errno : -EIO;
        pthread_mutex_unlock(&b->rlock);
    }
    int rc = llm_target_summarize(b->t, b->view, b->slo.set ? &b->slo : NULL, out);
    if (b->tc.wl.counter) {
        out->counter = llm_tokcount_source(&b->tokc);
        snprintf(out->tok_err, sizeof(out->tok_err), "%s", b->tok_err);
    }
    llm_target_reset(b->t);
    b->counted = false;
    if (b->mth_started) metrics_point(b, &out->srv);
    return rc ? rc : b->records_err ? b->records_err : b->hlog_err;
}

/* ---- the openai bench target (bench/target.h) ---- */

static void *oai_create(void)
{
    struct llm_bench *b = malloc(sizeof(*b));
    if (b) llm_bench_init(b);
    return b;
}

static int oai_opt(void *st, int id, const char *v, char *why, size_t whylen)
{
    return llm_bench_opt(st, id, v, why, whylen);
}

static int oai_check(void *st, const struct bench_common *c, const char **opt, const char **why)
{
    struct llm_bench *b = st;
    if (b->replay_path &&
        (c->rate || c->concurrency || c->find_max || c->duration || c->warmup || c->stable)) {
        *opt = "--replay";
        *why = "the trace sets every send time; drop --rate, --concurrency, --find-max, "
               "--duration, --warmup and --stable (--requests N replays the first N)";
        return LAT_E_USAGE;
    }
    if (b->sess && (c->rate || (c->find_max && !c->concurrency) || c->mpi)) {
        *opt = "--sessions";
        *why = c->mpi ? "not with --mpi yet"
                      : "runs a closed loop: -c N users, each sending whole sessions one "
                        "turn after another (an open loop of session starts per second, "
                        "--rate, is not built); drop --rate (--find-max needs -c/--concurrency)";
        return LAT_E_USAGE;
    }
    if (c->mpi && (c->confidence || c->hdr_log || c->records || b->records_path ||
                   b->view != LLM_VIEW_LATSCOPE)) {
        *opt = "--mpi";
        *why = BENCH_MPI_NOT_YET;
        return LAT_E_USAGE;
    }
    return 0;
}

static int oai_setup(void *st, const struct bench_setup *s, struct bench_target *t, char *why,
                     size_t whylen)
{
    static const struct bench_req_ops llm_ops = {
        llm_bench_conn_new, llm_bench_conn_free, llm_bench_build,    llm_bench_begin,
        llm_conn_body,      llm_bench_end,       llm_bench_progress, /* --cancel-after-tokens
                                                                        (bench/endpoints.h) */
    };

    struct llm_bench *b = st;
    char lwhy[512] = "";
    b->max_input = (size_t)s->max_input;
    if (b->replay_path) b->replay_limit = (size_t)s->requests;
    b->tls = t->url.tls; /* --tokenize-url auto */
    int rc = llm_bench_setup(b, t->url.hostport, t->url.path, s->headers, s->nheaders, s->seed,
                             lwhy, sizeof(lwhy));
    if (rc < 0) {
        snprintf(why, whylen, "openai: %s", lwhy[0] ? lwhy : lat_strerror(rc));
        return rc == -ENOMEM ? LAT_E_USAGE : rc;
    }
    t->ops = &llm_ops;
    if (b->sess) t->ops_think = llm_bench_think;
    t->ops_ud = b;
    if (s->shard && s->shard->count > 1 && b->t) {
        /* shard K of N: requests K, K + N, ... (bench/shard.h) */
        b->t->idx_base = s->shard->index;
        b->t->idx_stride = s->shard->count;
    }
    if (s->shard && s->shard->count > 1 && b->sess) {
        /* --sessions: shard K starts sessions K, K + N, ... of the file (bench/sessions.h) */
        b->sess->idx_base = s->shard->index;
        b->sess->idx_stride = s->shard->count;
    }
    t->ops_seq = llm_bench_seq;
    /* Percentile SLO terms on LLM metrics also define the per-request goodput (a request is
     * good when its own ttft/tpot/e2e meets every limit), unless the per-request --slo
     * ('ttft<=500ms') was given too. */
    if (!b->slo.set && s->slo) {
        b->slo.ttft_ns = b->slo.tpot_ns = b->slo.e2e_ns = -1;
        for (int i = 0; i < s->slo->n; i++) {
            const struct slo_term *term = &s->slo->t[i];
            if (term->stat == SLO_ERRORS || (term->op != SLO_LE && term->op != SLO_LT)) continue;
            double pct = term->stat == SLO_PCTL ? term->pct : 0;
            if (!strcmp(term->metric, "ttft"))
                b->slo.ttft_ns = term->limit_ns, b->slo.ttft_pct = pct;
            else if (!strcmp(term->metric, "tpot") || !strcmp(term->metric, "itl"))
                b->slo.tpot_ns = term->limit_ns, b->slo.tpot_pct = pct;
            else if (!strcmp(term->metric, "e2e"))
                b->slo.e2e_ns = term->limit_ns, b->slo.e2e_pct = pct;
        }
        b->slo.set = b->slo.ttft_ns >= 0 || b->slo.tpot_ns >= 0 || b->slo.e2e_ns >= 0;
    }
    if (s->confidence > 0 && llm_bench_ivl_enable(b) < 0) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    if (s->live && llm_bench_live_enable(b) < 0) {
        snprintf(why, whylen, "out of memory");
        return -ENOMEM;
    }
    return 0;
}

static const lat_ns *oai_schedule(void *st, size_t *n)
{
    struct llm_bench *b = st;
    *n = b->replay.n;
    return b->replay.n ? b->replay.offsets : NULL;
}

static void oai_describe(void *st, const struct bench_target *t, char *out, size_t cap)
{
    const struct llm_workload_cfg *w = &((struct llm_bench *)st)->tc.wl;
    snprintf(out, cap,
             "openai api %d model %s input %d+-%d output %d+-%d prompts %s extra %s "
             "ignore_eos %d seed %llu",
             (int)w->api, w->model ? w->model : "-", w->input.mean, w->input.stddev, w->output.mean,
             w->output.stddev, w->prompts_path ? w->prompts_path : "-",
             w->extra_body ? w->extra_body : "-", (int)w->ignore_eos, (unsigned long long)w->seed);
    const struct llm_bench *b = st;
    size_t used = strlen(out);
    if (b->sess && used < cap) /* --sessions: the file and where the replies come from */
        snprintf(out + used, cap - used, " sessions %s history %s", b->sess->path,
                 b->sess->history == LLM_SESS_HISTORY_DATASET ? "dataset" : "server");
}

static void oai_window(void *st, struct lat_hist *ttft, struct lat_hist *tpot)
{
    llm_bench_ivl_take(st, ttft, tpot);
}

static uint64_t oai_live(void *st, struct lat_hist *ttft)
{
    return llm_bench_live_take(st, ttft);
}

static int oai_slices(void *st, struct bench_slices *s)
{
    return bench_slices_llm(s, st);
}

static void oai_before(void *st, const struct bench_point_ctx *pc, const struct bench_target *t)
{
    struct llm_bench *b = st;
    b->hlog = pc->hlog;
    b->hlog_base = pc->hlog_base;
}

static int oai_after(void *st, const struct bench_target *t, struct bench_point *p, char *why,
                     size_t whylen)
{
    struct llm_bench *b = st;
    p->llm = calloc(1, sizeof(*p->llm));
    p->llm_hist = calloc(LLM_BENCH_NHIST, sizeof(*p->llm_hist));
    if (!p->llm || !p->llm_hist) {
        snprintf(why, whylen, "openai");
        return -ENOMEM;
    }
    if (llm_bench_point_hists(b, p->llm_hist) == 0) {
        p->llm_hist_names = llm_bench_hist_names;
        p->nllm_hist = LLM_BENCH_NHIST;
    }
    if (b->sess) p->sessions = bench_sess_point(b->sess);
    int rc = llm_bench_point_done(b, p->llm);
    if (p->res.duration_s > 0) {
        /* One point, one window (issue 31: "1 in 0.154 s = 6.5 req/s" beside "0.171 req/s
         * over 5.839 s"): the LLM rates divide by the point's own duration_s. */
        struct llm_summary *s = p->llm;
        s->duration_s = p->res.duration_s;
        s->req_s = (double)s->ok / s->duration_s;
        s->out_tok_s = (double)s->out_tokens / s->duration_s;
        if (s->has_slo) s->goodput_rps = (double)s->good / s->duration_s;
    }
    if (rc < 0)
        snprintf(why, whylen, "%s",
                 b->records_err ? "--records-detail"
                 : b->hlog_err  ? "--hdr-log"
                                : "openai");
    return rc;
}

static void oai_destroy(void *st)
{
    if (!st) return;
    llm_bench_fini(st);
    free(st);
}

const struct bench_target_ops bench_target_openai = {
    .name = "openai",
    .opts = oai_opts,
    .llm_slo = true,
    .create = oai_create,
    .opt = oai_opt,
    .check = oai_check,
    .setup = oai_setup,
    .schedule = oai_schedule,
    .describe = oai_describe,
    .window = oai_window,
    .live = oai_live,
    .slices = oai_slices,
    .before_point = oai_before,
    .after_point = oai_after,
    .destroy = oai_destroy,
};
