/*
 * cmd-serve-test-openai.c - `latscope serve-test openai`: the OpenAI-compatible streaming
 * fixture (src/fixture/openai.c) as a process, for end-to-end tests, the demo and benchmarks.
 *
 * Listens on 127.0.0.1 (port 0 = a free port), prints "port N" on stdout (and to --port-file),
 * and serves until SIGINT/SIGTERM. Every timing knob is explicit so a test knows the true
 * TTFT (prefill + queueing), ITL (token interval x tokens per chunk) and TPOT.
 * --send-log FILE records when each content chunk actually left (see fx_openai_send_log_start),
 * so a client's measured gaps can be checked against the real ones; the file is complete once
 * the process has exited after SIGINT/SIGTERM.
 * Entry point: cmd_serve_test_openai(); `latscope serve-test` dispatches "openai" here.
 */
#define PR_FMT "serve-test openai"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "fixture/openai.h"
#include "latscope.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static const char usage_text[] =
    "usage: latscope serve-test openai [OPTIONS]\n\n"
    "OpenAI-compatible streaming fixture (/v1/completions, /v1/chat/completions) with a\n"
    "known, seeded timeline. Prints \"port N\" on stdout, serves until SIGINT/SIGTERM.\n\n";

static const char footer_text[] =
    "Exit status: 0 stopped by a signal, 1 cannot listen or serve, 2 usage error.\n"
    "See docs/serve-test.md.\n";

enum {
    OPT_PORT,
    OPT_PORT_FILE,
    OPT_PREFILL,
    OPT_TOKEN_INTERVAL,
    OPT_TOKENS_PER_CHUNK,
    OPT_OUTPUT_TOKENS,
    OPT_MAX_SEQS,
    OPT_FAULTS,
    OPT_STALL,
    OPT_NO_USAGE,
    OPT_KEEPALIVE_LIE,
    OPT_INTERRUPT,
    OPT_STOP_AFTER,
    OPT_MAX_CONTEXT,
    OPT_TRUNCATE_PROMPT,
    OPT_BUFFER_STREAM,
    OPT_EMPTY_EVERY,
    OPT_LLAMA_NATIVE,
    OPT_TOKENIZE,
    OPT_PREFIX_CACHE,
    OPT_PREFIX_BLOCK,
    OPT_PREFILL_PER_TOKEN,
    OPT_SEED,
    OPT_SEND_LOG,
};

static const struct cli_opt options[] = {
    {"port", 0, "N", OPT_PORT, 0, "TCP port on 127.0.0.1 (default 0: any free port)"},
    {"port-file", 0, "FILE", OPT_PORT_FILE, 0, "also write the port to FILE"},
    {"prefill", 0, "DUR", OPT_PREFILL, 0, "admission -> first token (default 20ms)"},
    {"token-interval", 0, "DUR", OPT_TOKEN_INTERVAL, 0, "between tokens (default 10ms)"},
    {"tokens-per-chunk", 0, "N", OPT_TOKENS_PER_CHUNK, 0, "tokens per SSE event (default 1)"},
    {"output-tokens", 0, "N", OPT_OUTPUT_TOKENS, 0,
     "output length when a request has no max_tokens (16)"},
    {"max-seqs", 0, "N", OPT_MAX_SEQS, 0,
     "concurrent sequences; more requests queue (0 = no limit)"},
    {"faults", 0, "LIST", OPT_FAULTS, 0,
     "e.g. cut:0.1,error:0.05,stall:0.05,malformed:0.05,http:0.05"},
    {"stall", 0, "DUR", OPT_STALL, 0, "pause of the stall fault (default 500ms)"},
    {"no-usage", 0, NULL, OPT_NO_USAGE, 0, "never send usage (clients must count chunks)"},
    {"keepalive-lie", 0, NULL, OPT_KEEPALIVE_LIE, 0,
     "close after every response without 'Connection: close'\n"
     "(llama-server does: keep-alive is implied, not kept)"},
    {"interrupt", 0, NULL, OPT_INTERRUPT, 0,
     "a new request cuts every running stream: [DONE] after the\n"
     "tokens so far, no finish_reason, close without the last\n"
     "chunk (llama-cpp-python's default interrupt_requests)"},
    {"stop-after", 0, "N", OPT_STOP_AFTER, 0,
     "end every response after N tokens, finish_reason \"stop\"\n"
     "(min_tokens/ignore_eos not honoured)"},
    {"max-context", 0, "N", OPT_MAX_CONTEXT, 0,
     "prompt + max_tokens over N tokens: HTTP 400\n"
     "context_length_exceeded (prompt tokens = words)"},
    {"truncate-prompt", 0, "N", OPT_TRUNCATE_PROMPT, 0,
     "a prompt over N tokens is cut to N, silently (usage says\n"
     "N): llama-server's answer to a prompt over its context"},
    {"buffer-stream", 0, NULL, OPT_BUFFER_STREAM, 0,
     "hold every event of a stream until the last is due, then\n"
     "send them at once (a buffering proxy; Nagle + delayed ACK)"},
    {"empty-every", 0, "N", OPT_EMPTY_EVERY, 0,
     "every Nth content event (not the last) carries \"\" (a\n"
     "token with no text of its own, llama-cpp-python)"},
    {"llama-native", 0, NULL, OPT_LLAMA_NATIVE, 0,
     "answer in llama.cpp's native stream ({\"content\", \"stop\"}\n"
     "events, the counts in the last one, no [DONE]): its\n"
     "/completion, llama-server's /v1/completions in 2024"},
    {"tokenize", 0, "DIALECT", OPT_TOKENIZE, 0,
     "serve POST /tokenize as llamacpp, vllm or tgi (the fixture's\n"
     "own tokenization: a piece of L bytes is ceil(L/4) tokens);\n"
     "usage.prompt_tokens then counts the prompt text the same way"},
    {"prefix-cache", 0, NULL, OPT_PREFIX_CACHE, 0,
     "an automatic prefix cache: prompts are cut into blocks\n"
     "of --prefix-block tokens (a token: a piece starting at a\n"
     "space; a role token per chat message); a request hits the\n"
     "leading blocks cached by earlier prompts and outputs, and\n"
     "/metrics counts vllm:prefix_cache_queries_total/_hits_total"},
    {"prefix-block", 0, "N", OPT_PREFIX_BLOCK, 0, "tokens per cache block (default 16)"},
    {"prefill-per-token", 0, "DUR", OPT_PREFILL_PER_TOKEN, 0,
     "prefill += DUR per prompt token not in the cache (all\n"
     "prompt tokens without --prefix-cache)"},
    {"seed", 0, "N", OPT_SEED, 0, "fault draws (default 1)"},
    {"send-log", 0, "FILE", OPT_SEND_LOG, 0,
     "one JSON line per streamed response: its id and every\n"
     "content chunk's actual send time (CLOCK_MONOTONIC ns);\n"
     "kept in memory, written when SIGINT/SIGTERM stops the server"},
    {0},
};

struct oa_args {
    struct fx_openai_cfg cfg;
    const char *port_file, *send_log;
    int port;
};

/* A wrong value: -1 after "--OPT: bad value 'V'[: why]", as cli_parse's own errors read. */
static int bad(int id, const char *val, const char *why)
{
    return cli_bad_value(options, "serve-test openai", id, val, why);
}

/* A count in lo..hi into *out (an int), else the error. */
static int count_in(int id, const char *a, uint64_t lo, uint64_t hi, int *out)
{
    uint64_t n;
    if (units_parse_count(a, &n) || n < lo || n > hi) return bad(id, a, NULL);
    *out = (int)n;
    return 0;
}

static int dur(int id, const char *a, lat_ns *out)
{
    return units_parse_duration(a, LAT_NS_PER_MS, out) ? bad(id, a, NULL) : 0;
}

static int on_opt(void *ctx, int id, const char *a)
{
    struct oa_args *x = ctx;
    struct fx_openai_cfg *cfg = &x->cfg;
    const char *why = NULL;
    uint64_t n;
    switch (id) {
    case OPT_PORT:
        return count_in(id, a, 0, 65535, &x->port);
    case OPT_PORT_FILE:
        x->port_file = a;
        return 0;
    case OPT_PREFILL:
        return dur(id, a, &cfg->prefill_ns);
    case OPT_TOKEN_INTERVAL:
        return dur(id, a, &cfg->token_ns);
    case OPT_STALL:
        return dur(id, a, &cfg->stall_ns);
    case OPT_TOKENS_PER_CHUNK:
        return count_in(id, a, 1, 100000, &cfg->tokens_per_chunk);
    case OPT_OUTPUT_TOKENS:
        return count_in(id, a, 1, 1000000, &cfg->output_tokens);
    case OPT_MAX_SEQS:
        return count_in(id, a, 0, 1000000, &cfg->max_seqs);
    case OPT_FAULTS:
        return fx_openai_parse_faults(a, cfg, &why) ? bad(id, a, why) : 0;
    case OPT_KEEPALIVE_LIE:
        cfg->keepalive_lie = true;
        return 0;
    case OPT_NO_USAGE:
        cfg->no_usage = true;
        return 0;
    case OPT_INTERRUPT:
        cfg->interrupt = true;
        return 0;
    case OPT_LLAMA_NATIVE:
        cfg->llama_native = true;
        return 0;
    case OPT_EMPTY_EVERY:
        return count_in(id, a, 1, 1000000, &cfg->empty_every);
    case OPT_STOP_AFTER:
        return count_in(id, a, 1, 1000000, &cfg->stop_after);
    case OPT_BUFFER_STREAM:
        cfg->buffer_stream = true;
        return 0;
    case OPT_TRUNCATE_PROMPT:
        return count_in(id, a, 1, 100000000, &cfg->truncate_prompt);
    case OPT_MAX_CONTEXT:
        return count_in(id, a, 1, 100000000, &cfg->max_context);
    case OPT_TOKENIZE:
        return fx_openai_tokenize_parse(a, &cfg->tokenize) ? bad(id, a, "llamacpp, vllm or tgi")
                                                           : 0;
    case OPT_SEED:
        if (units_parse_count(a, &n)) return bad(id, a, NULL);
        cfg->seed = n;
        return 0;
    case OPT_SEND_LOG:
        x->send_log = a;
        return 0;
    case OPT_PREFIX_CACHE:
        cfg->prefix_cache = true;
        return 0;
    case OPT_PREFIX_BLOCK:
        return count_in(id, a, 1, 1000000, &cfg->prefix_block);
    case OPT_PREFILL_PER_TOKEN:
        return dur(id, a, &cfg->prefill_token_ns);
    }
    return -1;
}

int cmd_serve_test_openai(int argc, char **argv, const struct lat_opts *opts)
{
    struct oa_args x = {
        .cfg = {.prefill_ns = 20 * LAT_NS_PER_MS, .token_ns = 10 * LAT_NS_PER_MS, .seed = 1}};
    struct cli_spec spec = {
        "serve-test openai", usage_text, footer_text, options, on_opt, &x, false};
    struct cli_result cr;
    int status;
    if (!cli_run(&spec, argc, argv, &cr, &status)) return status;
    if (cr.npos) {
        pr_err("unexpected argument '%s' (serve-test openai takes only options)\n", cr.pos[0]);
        cli_result_fini(&cr);
        return LAT_EXIT_USAGE;
    }
    cli_result_fini(&cr);
    struct fx_openai_cfg cfg = x.cfg;
    const char *port_file = x.port_file, *send_log = x.send_log;
    int port = x.port;
    struct fx_openai fx;
    int rc = fx_openai_init(&fx, &cfg);
    if (rc) {
        pr_err("bad configuration: %s (fault probabilities must sum to <= 1)\n", lat_strerror(rc));
        return LAT_EXIT_USAGE;
    }
    FILE *log = NULL;
    if (send_log) {
        log = fopen(send_log, "we");
        if (!log) {
            pr_err("--send-log %s: %s\n", send_log, strerror(errno));
            fx_openai_fini(&fx);
            return LAT_EXIT_FAILURE;
        }
        fx_openai_send_log_start(&fx);
    }
    int bound;
    int fd = fx_listen_loopback(port, &bound);
    if (fd < 0) {
        pr_err("cannot listen on 127.0.0.1:%d: %s\n", port, lat_strerror(fd));
        if (log) fclose(log);
        fx_openai_fini(&fx);
        return LAT_EXIT_FAILURE;
    }
    struct sigaction sa = {.sa_handler = on_signal};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    printf("port %d\n", bound);
    fflush(stdout);
    if (port_file) {
        FILE *f = fopen(port_file, "w");
        if (!f || fprintf(f, "%d\n", bound) < 0 || fclose(f) != 0) {
            pr_err("%s: cannot write the port file\n", port_file);
            close(fd);
            if (log) fclose(log);
            fx_openai_fini(&fx);
            return LAT_EXIT_FAILURE;
        }
    }
    rc = fx_openai_serve(&fx, fd, &stop_flag);
    close(fd);
    pr_info("served %llu requests\n", (unsigned long long)fx.next_req);
    bool log_failed = false;
    if (log) {
        uint64_t lost = 0;
        int lrc = fx_openai_send_log_stop(&fx, log, &lost);
        if (fclose(log) != 0 && !lrc) lrc = -errno;
        if (lrc) {
            pr_err("--send-log %s: %s\n", send_log, lat_strerror(lrc));
            log_failed = true;
        } else if (lost) {
            pr_warn("--send-log %s: %llu streamed responses not logged (out of memory, or their "
                    "connection was still open)\n",
                    send_log, (unsigned long long)lost);
        }
    }
    fx_openai_fini(&fx);
    if (rc) {
        pr_err("serve: %s\n", lat_strerror(rc));
        return LAT_EXIT_FAILURE;
    }
    return log_failed ? LAT_EXIT_FAILURE : LAT_EXIT_OK;
}
