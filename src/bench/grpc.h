/*
 * grpc.h - `latscope bench grpc://HOST:PORT --target kserve`: KServe v2 / Triton's
 * inference.GRPCInferenceService/ModelInfer over HTTP/2 (net/h2.h), as perf_analyzer -i grpc.
 *
 * The engine (bench.h) schedules, times and counts every call as it does HTTP requests; this
 * file is its multiplexing transport (struct bench_mux_ops): each worker thread keeps a few
 * HTTP/2 connections and runs its slots as streams on them (the least busy usable one; a
 * connection that failed or got a GOAWAY is replaced on the next call). A call succeeds when
 * the response is :status 200 with exactly one uncompressed ModelInferResponse that decodes
 * (kserve-pb.h) and grpc-status 0; otherwise its class is grpc_status (a non-zero code,
 * counted by code in bench_point.grpc), rst_stream, goaway, reset (the connection failed),
 * connect, malformed (no grpc-status, a bad message, frames nghttp2 refused) or http_4xx/5xx.
 */
#ifndef LAT_BENCH_GRPC_H
#define LAT_BENCH_GRPC_H

#include <stddef.h>

#include "bench/bench.h"
#include "bench/kserve.h"
#include "bench/report.h"

struct grpc_run;

/* Builds the ModelInferRequest (inputs from o, else from ModelMetadata over gRPC) and sets
 * t->mux. conns: HTTP/2 connections per worker thread (0: 1). 0 or a negative code with err. */
int grpc_setup(struct grpc_run **out, struct kserve_opts *o, struct bench_target *t,
               const char *const *headers, size_t nheaders, unsigned conns, char *err,
               size_t errlen);
/* Before a point: Triton's ModelStatistics snapshot (a server without it: none). */
void grpc_point_begin(struct grpc_run *g);
/* The point's connections, streams and status codes (after its workers finished), and the
 * server's queue and compute time per request from ModelStatistics (srv->have false without). */
void grpc_point_end(struct grpc_run *g, struct bench_grpc_stats *out,
                    struct bench_server_stats *srv);
void grpc_describe(const struct grpc_run *g, char *out, size_t cap);
void grpc_free(struct grpc_run *g);

#endif
