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
#define PR_FMT "serve-test"
#include "core/err.h"
#include "core/log.h"
#include "core/units.h"
#include "fixture/openai.h"
#include "latscope.h"

#include <errno.h>
#include <getopt.h>
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

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: latscope serve-test openai [OPTIONS]\n\n"
        "OpenAI-compatible streaming fixture (/v1/completions, /v1/chat/completions) with a\n"
        "known, seeded timeline. Prints \"port N\" on stdout, serves until SIGINT/SIGTERM.\n\n"
        "  --port N               TCP port on 127.0.0.1 (default 0: any free port)\n"
        "  --port-file FILE       also write the port to FILE\n"
        "  --prefill DUR          admission -> first token (default 20ms)\n"
        "  --token-interval DUR   between tokens (default 10ms)\n"
        "  --tokens-per-chunk N   tokens per SSE event (default 1)\n"
        "  --output-tokens N      output length when a request has no max_tokens (16)\n"
        "  --max-seqs N           concurrent sequences; more requests queue (0 = no limit)\n"
        "  --faults LIST          e.g. cut:0.1,error:0.05,stall:0.05,malformed:0.05,http:0.05\n"
        "  --stall DUR            pause of the stall fault (default 500ms)\n"
        "  --no-usage             never send usage (clients must count chunks)\n"
        "  --keepalive-lie        close after every response without 'Connection: close'\n"
        "                         (llama-server does: keep-alive is implied, not kept)\n"
        "  --interrupt            a new request cuts every running stream: [DONE] after the\n"
        "                         tokens so far, no finish_reason, close without the last\n"
        "                         chunk (llama-cpp-python's default interrupt_requests)\n"
        "  --stop-after N         end every response after N tokens, finish_reason \"stop\"\n"
        "                         (min_tokens/ignore_eos not honoured)\n"
        "  --max-context N        prompt + max_tokens over N tokens: HTTP 400\n"
        "                         context_length_exceeded (prompt tokens = words)\n"
        "  --truncate-prompt N    a prompt over N tokens is cut to N, silently (usage says\n"
        "                         N): llama-server's answer to a prompt over its context\n"
        "  --buffer-stream        hold every event of a stream until the last is due, then\n"
        "                         send them at once (a buffering proxy; Nagle + delayed ACK)\n"
        "  --empty-every N        every Nth content event (not the last) carries \"\" (a\n"
        "                         token with no text of its own, llama-cpp-python)\n"
        "  --llama-native         answer in llama.cpp's native stream ({\"content\", \"stop\"}\n"
        "                         events, the counts in the last one, no [DONE]): its\n"
        "                         /completion, llama-server's /v1/completions in 2024\n"
        "  --tokenize DIALECT     serve POST /tokenize as llamacpp, vllm or tgi (the fixture's\n"
        "                         own tokenization: a piece of L bytes is ceil(L/4) tokens);\n"
        "                         usage.prompt_tokens then counts the prompt text the same way\n"
        "  --prefix-cache         an automatic prefix cache: prompts are cut into blocks\n"
        "                         of --prefix-block tokens (a token: a piece starting at a\n"
        "                         space; a role token per chat message); a request hits the\n"
        "                         leading blocks cached by earlier prompts and outputs, and\n"
        "                         /metrics counts vllm:prefix_cache_queries_total/_hits_total\n"
        "  --prefix-block N       tokens per cache block (default 16)\n"
        "  --prefill-per-token DUR  prefill += DUR per prompt token not in the cache (all\n"
        "                         prompt tokens without --prefix-cache)\n"
        "  --seed N               fault draws (default 1)\n"
        "  --send-log FILE        one JSON line per streamed response: its id and every\n"
        "                         content chunk's actual send time (CLOCK_MONOTONIC ns);\n"
        "                         kept in memory, written when SIGINT/SIGTERM stops the server\n");
}

int cmd_serve_test_openai(int argc, char **argv, const struct lat_opts *opts)
{
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},
        {"port-file", required_argument, NULL, 'P'},
        {"prefill", required_argument, NULL, 'f'},
        {"token-interval", required_argument, NULL, 'i'},
        {"tokens-per-chunk", required_argument, NULL, 'c'},
        {"output-tokens", required_argument, NULL, 'o'},
        {"max-seqs", required_argument, NULL, 'm'},
        {"faults", required_argument, NULL, 'F'},
        {"stall", required_argument, NULL, 's'},
        {"no-usage", no_argument, NULL, 'U'},
        {"keepalive-lie", no_argument, NULL, 'K'},
        {"interrupt", no_argument, NULL, 'I'},
        {"stop-after", required_argument, NULL, 'A'},
        {"max-context", required_argument, NULL, 'C'},
        {"truncate-prompt", required_argument, NULL, 'R'},
        {"buffer-stream", no_argument, NULL, 'W'},
        {"empty-every", required_argument, NULL, 'E'},
        {"llama-native", no_argument, NULL, 'N'},
        {"seed", required_argument, NULL, 'S'},
        {"tokenize", required_argument, NULL, 'T'},
        {"send-log", required_argument, NULL, 'L'},
        {"prefix-cache", no_argument, NULL, 'X'},
        {"prefix-block", required_argument, NULL, 'B'},
        {"prefill-per-token", required_argument, NULL, 'Y'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    struct fx_openai_cfg cfg = {
        .prefill_ns = 20 * LAT_NS_PER_MS, .token_ns = 10 * LAT_NS_PER_MS, .seed = 1};
    const char *port_file = NULL, *send_log = NULL, *why = NULL;
    int port = 0, c;
    uint64_t n;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'p':
            if (units_parse_count(optarg, &n) || n > 65535) goto bad;
            port = (int)n;
            break;
        case 'P':
            port_file = optarg;
            break;
        case 'f':
            if (units_parse_duration(optarg, LAT_NS_PER_MS, &cfg.prefill_ns)) goto bad;
            break;
        case 'i':
            if (units_parse_duration(optarg, LAT_NS_PER_MS, &cfg.token_ns)) goto bad;
            break;
        case 's':
            if (units_parse_duration(optarg, LAT_NS_PER_MS, &cfg.stall_ns)) goto bad;
            break;
        case 'c':
            if (units_parse_count(optarg, &n) || n < 1 || n > 100000) goto bad;
            cfg.tokens_per_chunk = (int)n;
            break;
        case 'o':
            if (units_parse_count(optarg, &n) || n < 1 || n > 1000000) goto bad;
            cfg.output_tokens = (int)n;
            break;
        case 'm':
            if (units_parse_count(optarg, &n) || n > 1000000) goto bad;
            cfg.max_seqs = (int)n;
            break;
        case 'F':
            if (fx_openai_parse_faults(optarg, &cfg, &why)) {
                pr_err("--faults %s: %s\n", optarg, why);
                return LAT_EXIT_USAGE;
            }
            break;
        case 'K':
            cfg.keepalive_lie = true;
            break;
        case 'U':
            cfg.no_usage = true;
            break;
        case 'I':
            cfg.interrupt = true;
            break;
        case 'N':
            cfg.llama_native = true;
            break;
        case 'E':
            if (units_parse_count(optarg, &n) || n < 1 || n > 1000000) goto bad;
            cfg.empty_every = (int)n;
            break;
        case 'A':
            if (units_parse_count(optarg, &n) || n < 1 || n > 1000000) goto bad;
            cfg.stop_after = (int)n;
            break;
        case 'W':
            cfg.buffer_stream = true;
            break;
        case 'R':
            if (units_parse_count(optarg, &n) || n < 1 || n > 100000000) goto bad;
            cfg.truncate_prompt = (int)n;
            break;
        case 'C':
            if (units_parse_count(optarg, &n) || n < 1 || n > 100000000) goto bad;
            cfg.max_context = (int)n;
            break;
        case 'T':
            if (fx_openai_tokenize_parse(optarg, &cfg.tokenize)) goto bad;
            break;
        case 'S':
            if (units_parse_count(optarg, &n)) goto bad;
            cfg.seed = n;
            break;
        case 'L':
            send_log = optarg;
            break;
        case 'X':
            cfg.prefix_cache = true;
            break;
        case 'B':
            if (units_parse_count(optarg, &n) || n < 1 || n > 1000000) goto bad;
            cfg.prefix_block = (int)n;
            break;
        case 'Y':
            if (units_parse_duration(optarg, LAT_NS_PER_MS, &cfg.prefill_token_ns)) goto bad;
            break;
        case 'h':
            usage(stdout);
            return LAT_EXIT_OK;
        default:
            usage(stderr);
            return LAT_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        pr_err("unexpected argument '%s'\n", argv[optind]);
        return LAT_EXIT_USAGE;
    }
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
bad:
    pr_err("bad value '%s' for an option; see 'latscope serve-test openai --help'\n", optarg);
    return LAT_EXIT_USAGE;
}
