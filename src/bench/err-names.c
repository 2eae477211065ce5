/*
 * err-names.c - the JSON/CSV names of bench's error classes (bench.h). Its own file: the engine
 * calls the endpoint choice (endpoints.c), which prints these names, so they cannot live in
 * engine.c (tests/e2e/t005-link-graph.sh).
 */
#include "bench/bench.h"

const char *const bench_err_names[BENCH_ERR__COUNT] = {
    "connect", "timeout",   "reset",     "http_4xx",    "http_5xx",   "malformed", "mismatch",
    "stream",  "client_fd", "truncated", "grpc_status", "rst_stream", "goaway",
};
